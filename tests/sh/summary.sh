#!/bin/sh
# --summary on a real AMD trace: the facts a user reads first.
set -u
out=$("$FUSEDIFF" --summary examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz) || exit 1
fail=0
expect() {
	printf '%s\n' "$out" | grep -Eq -- "$1" || { echo "missing: $1"; fail=1; }
}
expect '^  platform +AMD \(from roctracer_version\)$'
expect '^  GPU +AMD Instinct MI300X$'
expect '^  kernels +386 \(\+ 3 copies/memsets\)'
expect '^  streams +2: '
expect '"step\[DECODE bs=16\]" x1'
expect '^Kernel time by class \(Other: 0\.0%\)$'
expect '^  GEMM +129 '
expect '^  Attention +64 '
expect '^Top 15 kernels by total time'
# one trace only, and a usage error for two
"$FUSEDIFF" --summary a b >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--summary with two traces should exit 2"; fail=1; }
exit $fail
