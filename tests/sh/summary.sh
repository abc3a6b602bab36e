#!/bin/sh
# --summary on a real AMD trace: the facts a user reads first.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$FUSEDIFF" --summary examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz) || exit 1
fail=0
# expect ERE...: $out has a line matching each (grep -E's expressions), looked for by one awk
# (a printf | grep each was two processes)
expect() {
	printf '%s\n' "$@" >"$tmp/want"
	printf '%s\n' "$out" | awk 'FILENAME == ARGV[1] { want[++n] = $0; next }
		{ for (i = 1; i <= n; i++) if (!found[i] && $0 ~ want[i]) found[i] = 1 }
		END {
			for (i = 1; i <= n; i++) if (!found[i]) { print "missing: " want[i]; bad = 1 }
			exit bad
		}' "$tmp/want" - || fail=1
}
expect '^  platform +AMD \(from roctracer_version\)$' \
	'^  GPU +AMD Instinct MI300X$' \
	'^  kernels +386 \(\+ 3 copies/memsets\)' \
	'^  streams +2: ' \
	'"step\[DECODE bs=16\]" x1' \
	'^Kernel time by class \(Other: 0\.0%\)$' \
	'^  GEMM +129 ' \
	'^  Attention +64 ' \
	'^Top 15 kernels by total time' \
	'^  passes +1 \(1 decode\), 32 layers per pass \(attention anchors\)$' \
	"^  passes from +gpu_user_annotation 'execute_16_context_0" \
	'^  coverage +97% of the kernel time in passes; outside: 3\.3% \(Elementwise 3\.0%, Copy 0\.3%\)$'
# (the last three: the passes a comparison would see, and the share of the kernel time they hold)
# the kernels of class Other, each with a rules-file line that classifies it once completed
cat >"$tmp/t.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"void mystery::frobnicate_kernel<float>(float*)","pid":0,"tid":7,"ts":120,"dur":5,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"kernel","name":"zzz.warp(kernel)","pid":0,"tid":7,"ts":130,"dur":3,"args":{"device":0,"stream":7,"correlation":3}},
{"ph":"X","cat":"kernel","name":"nvjet_tst_64x8","pid":0,"tid":7,"ts":140,"dur":3,"args":{"device":0,"stream":7,"correlation":4}}
],"cuda_runtime_version":12080}
EOF
out=$(XDG_CONFIG_HOME=/nonexistent "$FUSEDIFF" --summary "$tmp/t.json") || exit 1
expect '^Class Other: 2 distinct kernels\. A line for each, to complete with its class$' \
	'^  CLASS  ATOMS  frobnicate_kernel +# 5\.00 us in 1 kernel$' \
	'^  CLASS  ATOMS  \^zzz\\\.warp +# 3\.00 us in 1 kernel$'
printf '%s\n' "$out" | sed -n 's/^  CLASS  ATOMS  \([^ ]*\).*/Elementwise other \1/p' >"$tmp/rules"
out=$(XDG_CONFIG_HOME=/nonexistent "$FUSEDIFF" --rules "$tmp/rules" --summary "$tmp/t.json") || exit 1
expect '^Kernel time by class \(Other: 0\.0%\)$'
printf '%s\n' "$out" | grep -q '^Class Other' && { echo "the suggested rules did not classify the kernels"; fail=1; }

# one trace only, and a usage error for two
"$FUSEDIFF" --summary a b >/dev/null 2>&1
[ $? -eq 2 ] || { echo "--summary with two traces should exit 2"; fail=1; }
exit $fail
