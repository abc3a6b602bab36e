#!/bin/sh
# help.sh — the first run: --help and --version, and what the man page's EXIT STATUS says of
# usage errors (no arguments prints the usage, exit 2; a bad command line is one message that
# points to --help, exit 2, and nothing on standard output).
set -u
: "${FUSEDIFF:?run through make check}"
A=examples/llama8l_eager_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
# the runs that load a trace (options between --summary and its trace, options after the traces)
# take the compiled example alone: what they compare is two command lines' output, whatever the
# trace (the eager one cost twice the CPU a run)
S=$B
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# No arguments: the usage on standard error, exit status 2.
"$FUSEDIFF" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ $rc -eq 2 ] || { echo "no arguments: exit status $rc, want 2"; fail=1; }
[ ! -s "$tmp/out" ] || { echo "no arguments: wrote to standard output"; fail=1; }
head -n 1 "$tmp/err" | grep -q '^usage: fusediff ' || { echo "no arguments: no usage line:"; cat "$tmp/err"; fail=1; }

# --help and -h: the same text on standard output, exit 0, grouped, pointing to the man page.
"$FUSEDIFF" --help >"$tmp/help" 2>"$tmp/err" || { echo "--help failed"; fail=1; }
[ ! -s "$tmp/err" ] || { echo "--help wrote to standard error"; fail=1; }
"$FUSEDIFF" -h >"$tmp/h" 2>&1 || { echo "-h failed"; fail=1; }
cmp -s "$tmp/help" "$tmp/h" || { echo "-h differs from --help"; fail=1; }
for line in 'usage: fusediff [options] TRACE_A TRACE_B' \
	'       fusediff --report FORMAT [-o FILE] [options] TRACE_A TRACE_B' \
	'       fusediff --summary TRACE' 'Modes:' 'Analysis:' 'Explorer:' 'Other:'; do
	grep -qxF -- "$line" "$tmp/help" || { echo "--help lacks the line '$line'"; fail=1; }
done
grep -q 'fusediff(1)' "$tmp/help" || { echo "--help does not point to fusediff(1)"; fail=1; }
awk 'length($0) > 80 { print "--help line longer than 80 columns: " $0; bad = 1 } END { exit bad }' \
	"$tmp/help" || fail=1
# The usage printed for no arguments is the help.
"$FUSEDIFF" 2>"$tmp/err" >/dev/null
cmp -s "$tmp/help" "$tmp/err" || { echo "the usage for no arguments differs from --help"; fail=1; }

# --version and -V: "fusediff VERSION", the version configure.ac gives.
want=$(sed -n 's/^AC_INIT(\[fusediff\], \[\([^]]*\)\].*/\1/p' configure.ac)
[ -n "$want" ] || { echo "no version in configure.ac"; fail=1; }
for opt in --version -V; do
	got=$("$FUSEDIFF" $opt 2>&1)
	[ "$got" = "fusediff $want" ] || { echo "$opt printed '$got', want 'fusediff $want'"; fail=1; }
done

# Usage errors: exit 2, one message and the pointer to --help on standard error, nothing on
# standard output.
usage_error() { # usage_error MESSAGE ARGS...
	want=$1
	shift
	"$FUSEDIFF" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] || { echo "fusediff $*: exit status $rc, want 2"; cat "$tmp/err"; fail=1; return; }
	printf 'fusediff: %s\nTry '\''fusediff --help'\'' for more information.\n' "$want" >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/err" || { echo "fusediff $*:"; diff "$tmp/want" "$tmp/err"; fail=1; }
	[ ! -s "$tmp/out" ] || { echo "fusediff $*: wrote to standard output"; fail=1; }
}
usage_error "unknown option '--nope'" --nope "$A" "$B"
usage_error "unknown option '-z'" -z "$A" "$B"
usage_error "option '--report' needs an argument" --report
usage_error "--report takes text, md, json, csv or perfetto, not 'html'" --report html "$A" "$B"
usage_error "--phase takes prefill, decode, mixed, train or all, not 'warmup'" --report text --phase warmup "$A" "$B"
usage_error "--device needs a device number or 'all', not 'x'" --report text --device x "$A" "$B"
usage_error "--size takes COLSxROWS such as 120x40, not '120'" --headless --size 120 "$A" "$B"
usage_error "too many traces: '$A' (give two, or each side's captures with -- between the sides)" --report text "$A" "$B" "$A"
usage_error "--summary takes one trace, not also '$B'" --summary "$A" "$B"
usage_error "--summary needs a trace" --summary --device 0
# options may come between --summary and its trace (they were taken for the trace)
"$FUSEDIFF" --summary --device 0 "$S" >"$tmp/s1.txt" 2>"$tmp/err" ||
	{ echo "--summary --device 0 TRACE refused:"; cat "$tmp/err"; fail=1; }
"$FUSEDIFF" --device 0 --summary "$S" >"$tmp/s2.txt" 2>/dev/null
cmp -s "$tmp/s1.txt" "$tmp/s2.txt" || { echo "--summary OPTION TRACE differs from OPTION --summary TRACE"; fail=1; }
usage_error "-o FILE goes with --report FORMAT" -o "$tmp/r.txt" "$A" "$B"
usage_error "standard output is not a terminal: use --report text|md|json|csv for a report, or run in a terminal for the explorer" \
	"$A" "$B"
[ ! -e "$tmp/r.txt" ] || { echo "-o without --report wrote a file"; fail=1; }

# Options may follow the traces.
"$FUSEDIFF" "$S" "$S" --report json --phase prefill >"$tmp/after.json" 2>"$tmp/err" ||
	{ echo "options after the traces refused:"; cat "$tmp/err"; fail=1; }
"$FUSEDIFF" --report json --phase prefill "$S" "$S" >"$tmp/before.json" 2>/dev/null
cmp -s "$tmp/after.json" "$tmp/before.json" || { echo "options after the traces give another report"; fail=1; }

# One trace only: the usage, exit 2.
"$FUSEDIFF" --report text "$A" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "one trace: exit status $rc, want 2"; fail=1; }
head -n 1 "$tmp/err" | grep -q '^usage: fusediff ' || { echo "one trace: no usage"; fail=1; }
exit $fail
