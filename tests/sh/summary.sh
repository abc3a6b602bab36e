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
# the passes a comparison would see, and the share of the kernel time they hold
expect '^  passes +1 \(1 decode\), 32 layers per pass \(attention anchors\)$'
expect "^  passes from +gpu_user_annotation 'execute_16_context_0"
expect '^  coverage +97% of the kernel time in passes; outside: 3\.3% \(Elementwise 3\.0%, Copy 0\.3%\)$'
# the kernels of class Other, each with a rules-file line that classifies it once completed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"void mystery::frobnicate_kernel<float>(float*)","pid":0,"tid":7,"ts":120,"dur":5,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"kernel","name":"zzz.warp(kernel)","pid":0,"tid":7,"ts":130,"dur":3,"args":{"device":0,"stream":7,"correlation":3}},
{"ph":"X","cat":"kernel","name":"nvjet_tst_64x8","pid":0,"tid":7,"ts":140,"dur":3,"args":{"device":0,"stream":7,"correlation":4}}
],"cuda_runtime_version":12080}
EOF
out=$(XDG_CONFIG_HOME=/nonexistent "$FUSEDIFF" --summary "$tmp/t.json") || exit 1
expect '^Class Other: 2 distinct kernels\. A line for each, to complete with its class$'
expect '^  CLASS  ATOMS  frobnicate_kernel +# 5\.00 us in 1 kernel$'
expect '^  CLASS  ATOMS  \^zzz\\\.warp +# 3\.00 us in 1 kernel$'
printf '%s\n' "$out" | sed -n 's/^  CLASS  ATOMS  \([^ ]*\).*/Elementwise other \1/p' >"$tmp/rules"
out=$(XDG_CONFIG_HOME=/nonexistent "$FUSEDIFF" --rules "$tmp/rules" --summary "$tmp/t.json") || exit 1
expect '^Kernel time by class \(Other: 0\.0%\)$'
printf '%s\n' "$out" | grep -q '^Class Other' && { echo "the suggested rules did not classify the kernels"; fail=1; }

# one trace only, and a usage error for two
"$FUSEDIFF" --summary a b >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--summary with two traces should exit 2"; fail=1; }
exit $fail
