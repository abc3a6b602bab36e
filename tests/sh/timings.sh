#!/bin/sh
# timings.sh — FUSEDIFF_TIMINGS=1 prints the time of each stage of a comparison on stderr, one
# line; without it stderr stays empty. The report itself is the same either way.
set -u
# the compiled example against itself: a comparison with every stage, at half the CPU of the
# eager example against it (three runs)
A=examples/llama8l_compiled_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$FUSEDIFF" --report json "$A" "$B" >"$tmp/plain" 2>"$tmp/err0" || { echo "--report failed"; cat "$tmp/err0"; exit 1; }
[ -s "$tmp/err0" ] && { echo "stderr without FUSEDIFF_TIMINGS:"; cat "$tmp/err0"; exit 1; }
FUSEDIFF_TIMINGS=1 "$FUSEDIFF" --report json "$A" "$B" >"$tmp/timed" 2>"$tmp/err1" || { echo "--report failed"; exit 1; }
t='[0-9]+\.[0-9]{3} s \(cpu [0-9]+\.[0-9]{3} s\)'
grep -Eq "^fusediff: timings: load $t, structure $t, compare $t\$" "$tmp/err1" ||
	{ echo "no timings line:"; cat "$tmp/err1"; exit 1; }
[ "$(wc -l <"$tmp/err1")" -eq 1 ] || { echo "more than one line:"; cat "$tmp/err1"; exit 1; }
cmp -s "$tmp/plain" "$tmp/timed" || { echo "the report changed with FUSEDIFF_TIMINGS"; exit 1; }
FUSEDIFF_TIMINGS=0 "$FUSEDIFF" --report json "$A" "$B" >/dev/null 2>"$tmp/err2"
[ -s "$tmp/err2" ] && { echo "FUSEDIFF_TIMINGS=0 printed:"; cat "$tmp/err2"; exit 1; }
exit 0
