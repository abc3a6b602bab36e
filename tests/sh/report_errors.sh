#!/bin/sh
# report_errors.sh — --report on bad input and failing output: exit status 1 and one line on
# stderr naming the file; -o FILE writes the same bytes as standard output, through a
# temporary file that never stays behind, keeps an existing file's mode, writes through a
# symbolic link, and writes devices directly (never replacing them).
set -u
OK=examples/llama8l_compiled_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

expect_error() { # expected-stderr args...
	want=$1
	shift
	"$FUSEDIFF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || { echo "fusediff $*: exit status $rc, want 1"; cat "$tmp/err"; exit 1; }
	# the line exactly (then it is one line: the count is looked at only to say what is wrong)
	printf '%s\n' "$want" >"$tmp/want"
	cmp -s "$tmp/err" "$tmp/want" || {
		if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
			echo "fusediff $*: not one line:"
			cat "$tmp/err"
		else
			echo "fusediff $*:"
			diff "$tmp/want" "$tmp/err"
		fi
		exit 1
	}
	[ ! -s "$tmp/out" ] || { echo "fusediff $*: wrote a report anyway"; exit 1; }
}
expect_error "fusediff: $tmp/nosuch.json: No such file or directory" --report json "$tmp/nosuch.json" "$OK"
expect_error "fusediff: $tmp/nosuch.json: No such file or directory" --report text "$OK" "$tmp/nosuch.json"
expect_error "fusediff: tests/data/bad/not_json.json: line 1, column 1: not JSON: expected '{' at the start of a trace" \
	--report csv tests/data/bad/not_json.json "$OK"
expect_error "fusediff: tests/data/bad/no_kernels.json: no GPU kernels in this trace (record it with ProfilerActivity.CUDA)" \
	--report md "$OK" tests/data/bad/no_kernels.json
grep -q . tests/data/bad/truncated.json || exit 1
"$FUSEDIFF" --report json tests/data/bad/truncated.json "$OK" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q '^fusediff: tests/data/bad/truncated.json: line [0-9]*, column [0-9]*: ' "$tmp/err" ||
	{ echo "truncated trace:"; cat "$tmp/err"; exit 1; }
expect_error "fusediff: -: standard input can be only one of the two traces" --report json - - </dev/null
# --peaks: a bad row names its line; a missing file its name
printf '# peaks\nH100 67 494.7 989.4\n' >"$tmp/bad.peaks"
expect_error "fusediff: $tmp/bad.peaks:2: expected NAME FP32 TF32 BF16 FP8 FP4 TBPS: the FP8 figure is missing" \
	--peaks "$tmp/bad.peaks" --report json "$OK" "$OK"
expect_error "fusediff: --peaks $tmp/nosuch.peaks: No such file or directory" --peaks "$tmp/nosuch.peaks" --report json "$OK" "$OK"
# a row overrides the built-in table: the pairs' shares move with it
printf 'H200 1 1 2000 1 - 9.6\n' >"$tmp/h200.peaks"
"$FUSEDIFF" --peaks "$tmp/h200.peaks" --report json "$OK" "$OK" >"$tmp/peaks.json" || exit 1
grep -q '"peak":{"gpu":"H200","tflops":{"fp32":1,"tf32":1,"bf16":2000,"fp8":1,"fp4":null},"tbps":9.6}' "$tmp/peaks.json" ||
	{ echo "--peaks: the row is not the trace's peak"; grep -o '"peak":{[^}]*}[^}]*}' "$tmp/peaks.json"; exit 1; }
"$FUSEDIFF" --peaks "$tmp/h200.peaks" --summary "$OK" | grep -q '^  peaks  *H200: dense TFLOPS fp32 1 tf32 1 bf16 2000 fp8 1, 9.6 TB/s$' ||
	{ echo "--peaks --summary:"; "$FUSEDIFF" --peaks "$tmp/h200.peaks" --summary "$OK" | grep peaks; exit 1; }
expect_error "fusediff: $tmp/no/dir/r.json: No such file or directory" --report json -o "$tmp/no/dir/r.json" "$OK" "$OK"

# -o: the same bytes as standard output, nothing left behind, mode kept
"$FUSEDIFF" --report json "$OK" "$OK" >"$tmp/stdout.json" || exit 1
"$FUSEDIFF" --report json -o "$tmp/r.json" "$OK" "$OK" >"$tmp/out" 2>"$tmp/err" || { echo "-o failed"; cat "$tmp/err"; exit 1; }
cmp -s "$tmp/stdout.json" "$tmp/r.json" || { echo "-o FILE differs from standard output"; exit 1; }
[ ! -s "$tmp/out" ] || { echo "-o FILE also wrote to standard output"; exit 1; }
ls -A "$tmp" | grep -q '^\.fusediff-' && { echo "temporary file left behind"; ls -A "$tmp"; exit 1; }
chmod 640 "$tmp/r.json"
"$FUSEDIFF" --report csv -o "$tmp/r.json" "$OK" "$OK" || exit 1
[ "$(stat -c %a "$tmp/r.json")" = 640 ] || { echo "mode not kept: $(stat -c %a "$tmp/r.json")"; exit 1; }
head -n 1 "$tmp/r.json" | grep -q '^table,' || { echo "-o did not replace the old report"; exit 1; }

# through a symbolic link: the target gets the report, the link stays a link
ln -s r.json "$tmp/link.json"
"$FUSEDIFF" --report json -o "$tmp/link.json" "$OK" "$OK" || exit 1
[ -L "$tmp/link.json" ] || { echo "-o replaced the symbolic link"; exit 1; }
cmp -s "$tmp/stdout.json" "$tmp/r.json" || { echo "-o through a link did not write its target"; exit 1; }

# a device is written directly, never replaced; a full device is a write error
"$FUSEDIFF" --report json -o /dev/null "$OK" "$OK" || { echo "-o /dev/null failed"; exit 1; }
[ -c /dev/null ] || { echo "/dev/null replaced"; exit 1; }
if [ -c /dev/full ]; then
	expect_error "fusediff: /dev/full: No space left on device" --report json -o /dev/full "$OK" "$OK"
	[ -c /dev/full ] || { echo "/dev/full replaced"; exit 1; }
	"$FUSEDIFF" --report json "$OK" "$OK" >/dev/full 2>"$tmp/err"
	[ $? -eq 1 ] || { echo "write error on standard output: exit status not 1"; exit 1; }
	grep -q '^fusediff: write error: No space left on device$' "$tmp/err" || { cat "$tmp/err"; exit 1; }
fi
exit 0
