#!/bin/sh
# analysis.sh — the analysis after loading (classification, structure, comparison) alone, on one
# thread, several rounds after one load (bench/analysis_bench.c): the figures the analysis share
# of `make bench` comes from, without the noise of loading.
#
#   sh bench/analysis.sh [A B [ROUNDS]]
#
# Default: the two 1 GB traces in bench/gen/ (made by `make bench` or bench/gen-trace).
set -eu
cd "$(dirname "$0")/.."
make -s fusediff >/dev/null
cfg() { sed -n "s/^$1 = //p" config.mk; }
mkdir -p build/bench
# shellcheck disable=SC2046
${CC:-$(cfg CC)} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread -Iinclude \
	-o build/bench/analysis_bench bench/analysis_bench.c build/libfusediff.a \
	$(cfg CJSON_LIBS) $(cfg ZLIB_LIBS) $(cfg SQLITE_LIBS) $(cfg NETTLE_LIBS) $(cfg DEMANGLE_LIBS) -lm -pthread
export LC_ALL=C.UTF-8
A=${1:-bench/gen/llama8l_eager_sdpa-1G.json}
B=${2:-bench/gen/llama8l_compiled_sdpa-1G.json}
build/bench/analysis_bench "$A" "$B" "${3:-5}"
