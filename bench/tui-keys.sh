#!/bin/sh
# tui-keys.sh — how long the explorer takes to answer a key (the target: under 16 ms with
# 10^5 rows). Each ':bench N KEY' line of a key script presses KEY N times in --headless mode, with a
# full redraw and terminal update after each, and prints the mean and the slowest time per key.
#
#   1. the 130 MB llama3_8b_shape trace against itself (../shared/traces, or
#      $FUSEDIFF_SHARED_TRACES; skipped when absent), keys from bench/tui-keys.keys;
#   2. a synthetic comparison of 10^5 kernel pairs (bench/tui_bench.c), keys from
#      bench/tui-synth.keys.
set -eu
cd "$(dirname "$0")/.."
make -s fusediff >/dev/null
cfg() { sed -n "s/^$1 = //p" config.mk; }
mkdir -p build/bench
# shellcheck disable=SC2046
${CC:-$(cfg CC)} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread -Iinclude \
	$(cfg CJSON_CFLAGS) -o build/bench/tui_bench bench/tui_bench.c build/libfusediff-ui.a build/libfusediff.a \
	$(cfg NCURSES_LIBS) $(cfg CJSON_LIBS) $(cfg ZLIB_LIBS) $(cfg SQLITE_LIBS) $(cfg NETTLE_LIBS) $(cfg DEMANGLE_LIBS) -lm -pthread
export LC_ALL=C.UTF-8

shared=${FUSEDIFF_SHARED_TRACES:-../shared/traces}
big=$shared/llama3_8b_shape_eager_sdpa.json.gz
echo "== llama3_8b_shape_eager_sdpa against itself (120x40)"
if [ -r "$big" ]; then
	/usr/bin/time -f "   (load and compare, then the keys: %e s wall, %M KiB peak RSS)" \
		./fusediff --headless --size 120x40 --script bench/tui-keys.keys "$big" "$big"
else
	echo "   $big not found: skipped"
fi
echo "== synthetic comparison, ${TUI_BENCH_PAIRS:-100000} kernel pairs (120x40)"
build/bench/tui_bench examples/llama8l_eager_sdpa.json.gz bench/tui-synth.keys "${TUI_BENCH_PAIRS:-100000}"
