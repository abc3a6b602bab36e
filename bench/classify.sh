#!/bin/sh
# classify.sh [N] — classification of N distinct kernel names (default 10^5) on one thread
# (bench/classify_bench.c), from the real names the tests check: the target is under 0.5 s.
set -eu
cd "$(dirname "$0")/.."
make -s fusediff >/dev/null
cfg() { sed -n "s/^$1 = //p" config.mk; }
mkdir -p build/bench
# shellcheck disable=SC2046
${CC:-$(cfg CC)} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread -Iinclude \
	-o build/bench/classify_bench bench/classify_bench.c build/libfusediff.a \
	$(cfg CJSON_LIBS) $(cfg ZLIB_LIBS) $(cfg SQLITE_LIBS) $(cfg NETTLE_LIBS) $(cfg DEMANGLE_LIBS) -lm -pthread
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent
build/bench/classify_bench tests/data/classify/families.tsv tests/data/classify/kernels.tsv \
	-n "${1:-100000}"
