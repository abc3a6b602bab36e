#!/bin/sh
# ui_golden.sh — the explorer's golden screens: play tests/scripts/*.keys with --headless on
# the bundled example pairs (ncurses drawing into memory at a fixed size) and compare every
# ':dump NAME' with tests/golden/NAME.screen.
#
# After a deliberate change, regenerate with `make check GOLDEN_UPDATE=1` and review
# `git diff tests/golden` before committing.
set -u
: "${FUSEDIFF:?run through make check}"
LC_ALL=C.UTF-8
export LC_ALL
if [ "$(locale charmap 2>/dev/null)" != UTF-8 ]; then
	echo "the C.UTF-8 locale is missing"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

top=$(pwd)
play() { # play SCRIPT TRACE_A TRACE_B (paths from the current directory)
	if ! FUSEDIFF_DUMP_DIR="$tmp" "$FUSEDIFF" --headless --size 120x40 --script "$top/tests/scripts/$1.keys" \
		"$2" "$3" >"$tmp/$1.out" 2>&1; then
		echo "FAIL: $1.keys did not play:"
		cat "$tmp/$1.out"
		fail=1
	fi
}

play llama examples/llama8l_eager_sdpa.json.gz examples/llama8l_compiled_sdpa.json.gz
play sglang examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz \
	examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
play escape tests/data/bad/escape_sequence_name.json tests/data/bad/escape_sequence_name.json
# the Nsight Systems pair, cut: two GPUs a side, device 0 compared, a warning
play nsys tests/data/profilers/nsys66_before.sqlite.gz tests/data/profilers/nsys66_after.sqlite.gz
# two directories of ranks (the SGLang pair as ranks 0 and 1 of each side): the Ranks view
mkdir -p "$tmp/ranks/a" "$tmp/ranks/b"
for r in 0 1; do
	cp examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz "$tmp/ranks/a/run-TP-$r.json.gz"
	cp examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz "$tmp/ranks/b/run-TP-$r.json.gz"
done
(cd "$tmp/ranks" && play ranks a b)

# no control character ever reaches a screen (a name's ESC or BEL is shown as \e, \x07)
for got in "$tmp"/*.screen; do
	[ -f "$got" ] || continue
	if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$got"; then
		echo "FAIL: ${got##*/} holds a control character"
		fail=1
	fi
done
grep -qF '\e]0;pwned\x07' "$tmp/escape-pairs.screen" 2>/dev/null ||
	{ echo "FAIL: the escape-sequence kernel name is not shown escaped"; fail=1; }

n=0
for got in "$tmp"/*.screen; do
	[ -f "$got" ] || continue
	name=${got##*/}
	n=$((n + 1))
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$got" "tests/golden/$name"
	elif [ ! -f "tests/golden/$name" ]; then
		echo "FAIL: no golden screen tests/golden/$name (make check GOLDEN_UPDATE=1 writes it)"
		fail=1
	elif ! cmp -s "$got" "tests/golden/$name"; then
		echo "FAIL: $name differs from tests/golden/$name (make check GOLDEN_UPDATE=1 and review git diff):"
		diff -u "tests/golden/$name" "$got" | head -n 30
		fail=1
	fi
done
# a golden screen that no script dumps any more is stale
for golden in tests/golden/llama-*.screen tests/golden/sglang-*.screen tests/golden/escape-*.screen \
	tests/golden/nsys-*.screen tests/golden/ranks-*.screen; do
	[ -f "$golden" ] || continue
	if [ ! -f "$tmp/${golden##*/}" ]; then
		if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
			rm -f "$golden"
		else
			echo "FAIL: $golden is no longer dumped by any script"
			fail=1
		fi
	fi
done
[ $n -gt 30 ] || { echo "FAIL: only $n screens dumped"; fail=1; }
[ "${GOLDEN_UPDATE:-0}" = 1 ] && echo "wrote $n golden screens into tests/golden"
exit $fail
