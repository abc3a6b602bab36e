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
. bench/lib.sh
export LC_ALL=C.UTF-8
A=${1:-bench/gen/llama8l_eager_sdpa-1G.json}
B=${2:-bench/gen/llama8l_compiled_sdpa-1G.json}
"$bin/analysis_bench" "$A" "$B" "${3:-5}"
