#!/bin/sh
# classify.sh [N] — classification of N distinct kernel names (default 10^5) on one thread
# (bench/classify_bench.c), from the real names the tests check: the target is under 0.5 s.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent
"$bin/classify_bench" tests/data/classify/families.tsv tests/data/classify/kernels.tsv \
	-n "${1:-100000}"
