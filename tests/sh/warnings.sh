#!/bin/sh
# warnings.sh — every warning code of a comparison (fusediff(1), WARNINGS), the comparability
# object of the JSON report, and which warnings make a gate exit 4. The traces are the bundled
# ones, changed here with sed where a case needs another batch, shape or kernel name.
set -u
: "${FUSEDIFF:?run through make check}"
# the bundled eager trace cut to its first 4 decode passes (tests/data/traces/make-eager-short.py):
# its prefill passes are the example's, at a third of the loading
E=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
C=examples/llama8l_compiled_sdpa.json.gz
S=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz # step[DECODE bs=16]
D=tests/data/compare/down_once.json
. tests/sh/lib/cases.sh
codes() { # JSON_FILE: the warning codes, one line, each followed by a space (one awk)
	awk '{ while (match($0, /\{"code":"[a-z_]*"/)) {
		printf "%s ", substr($0, RSTART + 9, RLENGTH - 10); $0 = substr($0, RSTART + RLENGTH) } }' "$1"
}
report() { # NAME ARGS...: the JSON and text reports of a comparison
	name=$1
	shift
	"$FUSEDIFF" --report json -o "$tmp/$name.json" "$@" || fail "$name: json report"
	"$FUSEDIFF" --report text -o "$tmp/$name.txt" "$@" || fail "$name: text report"
}
# report_gated NAME STATUS VERDICT ARGS...: report, its JSON run with --fail-if-slower 5, which
# exits STATUS, and with 4 says "not comparable: VERDICT" (a gate does not change the report:
# one run for both, where a third run of the comparison cost 0.1-0.2 s of CPU)
report_gated() {
	name=$1 want=$2 verdict=$3
	shift 3
	"$FUSEDIFF" --report json -o "$tmp/$name.json" --fail-if-slower 5 "$@" 2>"$tmp/gate.err"
	st=$?
	[ $st = "$want" ] || fail "$name: gate exit $st, want $want"
	if [ "$want" = 4 ]; then
		gate_err= more= # standard error is that one line (read by the shell: no cat process)
		{
			IFS= read -r gate_err
			while IFS= read -r line; do more=$more$line; done
		} <"$tmp/gate.err"
		[ "$gate_err" = "fusediff: gate: not comparable: $verdict" ] && [ -z "$more" ] ||
			fail "$name: gate said '$(cat "$tmp/gate.err")'"
	fi
	"$FUSEDIFF" --report text -o "$tmp/$name.txt" "$@" || fail "$name: text report"
}
has() { # NAME LINE...: the text report has each LINE, whole (one awk: has_lines, lib/cases.sh)
	name=$1
	shift
	f=$fails
	has_lines "$tmp/$name.txt" "$@"
	[ "$f" = "$fails" ] || grep -E '^(Same|Not|Warn)' "$tmp/$name.txt"
}
json_has() { # NAME STRING: the JSON report holds STRING
	grep -qF -- "$2" "$tmp/$1.json" || fail "$1: JSON lacks $2"
}

# the same workload: no warning, comparable, every matched GEMM shape equal
report same "$E" "$C"
c=$(codes "$tmp/same.json")
[ -z "$c" ] || fail "same: warnings $c"
has same "Same workload: 8 layers per pass each side, 57 of 57 matched GEMM shapes equal."
json_has same '"comparable":true,"layers_per_pass":[8,8],"compared_passes":[2,2]'
json_has same '"gemm_shapes":{"pairs":57,"known":57,"differ":0,"first":null}'

# phase_mix: all passes, prefill and decode against prefill only
report mix --phase all "$E" "$C"
c=$(codes "$tmp/mix.json")
[ "$c" = "phase_mix " ] || fail "mix: codes $c"
has mix "Warning (phase_mix): the sides' passes mix the phases differently (A: 2 prefill and 4 decode passes, B: 2 prefill passes): a figure per pass averages over different work; --phase compares one phase."

# depth_differs: 8 layers against 32
report depth "$E" examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
c=$(codes "$tmp/depth.json")
case " $c" in *" depth_differs "*) ;; *) fail "depth: codes $c" ;; esac
json_has depth '"comparable":false,"layers_per_pass":[8,32]'

# batch_differs: SGLang bs=16 against bs=8
gzip -dc "$S" | sed 's/step\[DECODE bs=16\]/step[DECODE bs=8]/g' | gzip >"$tmp/bs8.json.gz"
report_gated batch 4 "the sides ran different batches (A: 16, B: 8, from SGLang bs=N): their kernels do different amounts of work" \
	"$S" "$tmp/bs8.json.gz"
c=$(codes "$tmp/batch.json")
[ "$c" = "batch_differs " ] || fail "batch: codes $c"
has batch "Not the same workload: 32 layers per pass each side, batch 16 against 8." \
	"Warning (batch_differs): the sides ran different batches (A: 16, B: 8, from SGLang bs=N): their kernels do different amounts of work."
json_has batch '"batch":[{"requests":16,"tokens":null,"source":"SGLang bs=N","varies":false},{"requests":8,'
report batch_same "$S" "$S"
has batch_same "Same workload: 32 layers per pass each side, batch 16."
# a batch that one side's annotations do not say is unknown (JSON: null), not -1
gzip -dc "$S" | sed 's/step\[DECODE bs=16\]/step[DECODE]/g' | gzip >"$tmp/nobs.json.gz"
report batch_unknown "$S" "$tmp/nobs.json.gz"
has batch_unknown "Same workload: 32 layers per pass each side, batch 16 against unknown."
json_has batch_unknown '{"requests":null,"tokens":null,"source":null,"varies":false}'

# vLLM's execute_N_context_C(T)_generation_G(T): requests and tokens
gzip -dc "$S" | sed 's/step\[DECODE bs=16\]/execute_16_context_2(300)_generation_14(14)/g' | gzip >"$tmp/vllm.json.gz"
report vllm "$tmp/vllm.json.gz" "$tmp/vllm.json.gz"
has vllm "Same workload: 32 layers per pass each side, batch 16 (314 tokens)."
json_has vllm '{"requests":16,"tokens":314,"source":"vLLM execute_N_context_C(T)_generation_G(T)","varies":false}'
gzip -dc "$S" | sed 's/step\[DECODE bs=16\]/execute_16_context_0(0)_generation_16(16)/g' | gzip >"$tmp/vllm16.json.gz"
report tokens "$tmp/vllm.json.gz" "$tmp/vllm16.json.gz"
has tokens "Warning (batch_differs): the sides ran different batches (A: 16 (314 tokens), B: 16 (16 tokens), from vLLM execute_N_context_C(T)_generation_G(T)): their kernels do different amounts of work."

# gemm_shapes_differ: B's down projection writes 4096 columns instead of 2048
gzip -dc "$C" | sed 's/\[2048, 5632\], \[5632, 2048\]/[2048, 5632], [5632, 4096]/g' | gzip >"$tmp/shapes.json.gz"
report_gated shapes 4 "8 of the 58 matched GEMM pairs with known shapes differ in M, N or K (first in layer 0: A 2048x2048x5632, B 2048x4096x5632)" \
	"$C" "$tmp/shapes.json.gz"
# (the wider down projection in the same time would exceed the H200's peak: above_peak too)
c=$(codes "$tmp/shapes.json")
[ "$c" = "gemm_shapes_differ above_peak " ] || fail "shapes: codes $c"
has shapes "Warning (gemm_shapes_differ): 8 of the 58 matched GEMM pairs with known shapes differ in M, N or K (first in layer 0: A 2048x2048x5632, B 2048x4096x5632)."
json_has shapes '"differ":8,"first":{"pair":'
json_has shapes '"a_mnk":[2048,2048,5632],"b_mnk":[2048,4096,5632]}'

# the same GEMMs in another order within each layer (B's q/o shapes swapped with its k/v ones,
# so that every pair meets a shape the other side has elsewhere in the layer): not a difference
Q='[[2048, 2048], [2048, 2048], [2048, 2048]]' K='[[2048, 2048], [2048, 512], [2048, 512]]'
q=$(printf '%s' "$Q" | sed 's/[][]/\\&/g') k=$(printf '%s' "$K" | sed 's/[][]/\\&/g')
gzip -dc "$C" | sed "s/$q/@Q@/g; s/$k/$Q/g; s/@Q@/$K/g" | gzip >"$tmp/order.json.gz"
report order "$C" "$tmp/order.json.gz"
# (the k/v GEMMs given q's shapes would exceed the H200's peak: above_peak, nothing else)
c=$(codes "$tmp/order.json")
[ "$c" = "above_peak " ] || fail "order: warnings $c"
has order "Same workload: 8 layers per pass each side, 58 of 58 matched GEMM shapes equal."

# other_share_high: B's up GEMM and SiLU renamed to names nothing classifies (30 % of B)
sed 's/"name":"nvjet_up_gemm"/"name":"mystery_a"/g; s/"name":"silu_and_mul_kernel"/"name":"mystery_b"/g' "$D" >"$tmp/opaque.trace"
# (an unclassified share alone does not make a gate fail: exit 0)
report_gated other 0 "" "$D" "$tmp/opaque.trace"
c=$(codes "$tmp/other.json")
[ "$c" = "other_share_high " ] || fail "other: codes $c"
has other "Warning (other_share_high): 30% of B's kernel time is in kernels fusediff does not classify (Other): its pairs and fusions may be wrong there."
json_has other '"comparable":true'

# above_peak: a peak far below what the kernels reach (a wrong --peaks row): every figure
# above it is dropped, said per side, null in JSON with the reason
printf 'H200 1 1 1 1 - 0.01\n' >"$tmp/tiny.peaks"
report peak --peaks "$tmp/tiny.peaks" "$E" "$C"
c=$(codes "$tmp/peak.json")
[ "$c" = "above_peak above_peak " ] || fail "peak: codes $c"
has peak "Warning (above_peak): 66 of A's kernel pairs came out above the GPU's peak and show no efficiency: their operators' shapes or the peak are wrong."
json_has peak '"a_peak_share":null,"b_peak_share":null,"a_bound":null,"b_bound":null,"a_eff_dropped":"above_peak","b_eff_dropped":"above_peak"'

# capture_partial is asserted in tests/check_capture.c (a capture of another batch size).

# every kind of report against --print-schema: each warning code, the batch's and tokens' forms;
# not batch_same.json, tokens.json and order.json, whose JSON is of kinds batch.json, vllm.json
# and peak.json hold (0.04 s of CPU a report)
. tests/sh/lib/schema.sh
schema_validate "$tmp/same.json" "$tmp/mix.json" "$tmp/depth.json" "$tmp/batch.json" \
	"$tmp/batch_unknown.json" "$tmp/vllm.json" "$tmp/shapes.json" "$tmp/other.json" "$tmp/peak.json"
[ $? = 1 ] && fail "a JSON report does not validate against --print-schema"

finish warnings
