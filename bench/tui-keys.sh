#!/bin/sh
# tui-keys.sh — how long the explorer takes to answer a key (the target: under 16 ms with
# 10^5 rows). Each ':bench N KEY' line of a key script presses KEY N times in --headless mode, with a
# full redraw and terminal update after each, and prints the mean and the slowest time per key.
#
#   1. the 130 MB llama3_8b_shape trace against itself (../shared/traces, or
#      $FUSEDIFF_SHARED_TRACES, or the trace $TUI_KEYS_TRACE; skipped when absent), keys from
#      bench/tui-keys.keys;
#   2. a synthetic comparison of $TUI_BENCH_PAIRS (default 10^5) kernel pairs
#      (bench/tui_bench.c), keys from bench/tui-synth.keys.
#
# TUI_KEYS_ONCE=1 presses each key once (a smoke run: make check's tests/sh/bench.sh).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
export LC_ALL=C.UTF-8

keys=bench/tui-keys.keys synth=bench/tui-synth.keys
if [ "${TUI_KEYS_ONCE:-0}" = 1 ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	sed 's/^:bench [0-9]* /:bench 1 /' "$keys" >"$tmp/keys"
	sed 's/^:bench [0-9]* /:bench 1 /' "$synth" >"$tmp/synth"
	keys=$tmp/keys synth=$tmp/synth
fi
shared=${FUSEDIFF_SHARED_TRACES:-../shared/traces}
big=${TUI_KEYS_TRACE:-$shared/llama3_8b_shape_eager_sdpa.json.gz}
echo "== ${big##*/} against itself (120x40)"
if [ -r "$big" ]; then
	/usr/bin/time -f "   (load and compare, then the keys: %e s wall, %M KiB peak RSS)" \
		"$fd" --headless --size 120x40 --script "$keys" "$big" "$big"
else
	echo "   $big not found: skipped"
fi
echo "== synthetic comparison, ${TUI_BENCH_PAIRS:-100000} kernel pairs (120x40)"
# tui_bench builds its comparison by hand (10^5 pairs, their derived tables) and exits without
# taking it apart: under make sanitize, AddressSanitizer is not to report that as leaks
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$bin/tui_bench" examples/llama8l_eager_sdpa.json.gz "$synth" "${TUI_BENCH_PAIRS:-100000}"
