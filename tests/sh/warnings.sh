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
codes() { # JSON_FILE: the warning codes, one line
	grep -o '{"code":"[a-z_]*"' "$1" | sed 's/.*:"//; s/"$//' | tr '\n' ' '
}
report() { # NAME ARGS...: the JSON and text reports of a comparison
	name=$1
	shift
	"$FUSEDIFF" --report json -o "$tmp/$name.json" "$@" || fail "$name: json report"
	"$FUSEDIFF" --report text -o "$tmp/$name.txt" "$@" || fail "$name: text report"
}
has() { # NAME PATTERN: the text report has a line matching PATTERN (grep -x)
	grep -qx -- "$2" "$tmp/$1.txt" || { fail "$1: no line '$2'"; grep -E '^(Same|Not|Warn)' "$tmp/$1.txt"; }
}
json_has() { # NAME STRING: the JSON report holds STRING
	grep -qF -- "$2" "$tmp/$1.json" || fail "$1: JSON lacks $2"
}
gate4() { # NAME VERDICT ARGS...: --fail-if-slower exits 4 with VERDICT
	name=$1 verdict=$2
	shift 2
	"$FUSEDIFF" --report json -o "$tmp/gate.json" --fail-if-slower 5 "$@" 2>"$tmp/gate.err"
	st=$?
	[ $st = 4 ] || fail "$name: gate exit $st, want 4"
	[ "$(cat "$tmp/gate.err")" = "fusediff: gate: not comparable: $verdict" ] ||
		fail "$name: gate said '$(cat "$tmp/gate.err")'"
}

# the same workload: no warning, comparable, every matched GEMM shape equal
report same "$E" "$C"
[ -z "$(codes "$tmp/same.json")" ] || fail "same: warnings $(codes "$tmp/same.json")"
has same "Same workload: 8 layers per pass each side, 57 of 57 matched GEMM shapes equal."
json_has same '"comparable":true,"layers_per_pass":[8,8],"compared_passes":[2,2]'
json_has same '"gemm_shapes":{"pairs":57,"known":57,"differ":0,"first":null}'

# phase_mix: all passes, prefill and decode against prefill only
report mix --phase all "$E" "$C"
[ "$(codes "$tmp/mix.json")" = "phase_mix " ] || fail "mix: codes $(codes "$tmp/mix.json")"
has mix "Warning (phase_mix): the sides' passes mix the phases differently (A: 2 prefill and 4 decode passes, B: 2 prefill passes): a figure per pass averages over different work; --phase compares one phase."

# depth_differs: 8 layers against 32
report depth "$E" examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
case " $(codes "$tmp/depth.json")" in *" depth_differs "*) ;; *) fail "depth: codes $(codes "$tmp/depth.json")" ;; esac
json_has depth '"comparable":false,"layers_per_pass":[8,32]'

# batch_differs: SGLang bs=16 against bs=8
gzip -dc "$S" | sed 's/step\[DECODE bs=16\]/step[DECODE bs=8]/g' | gzip >"$tmp/bs8.json.gz"
report batch "$S" "$tmp/bs8.json.gz"
[ "$(codes "$tmp/batch.json")" = "batch_differs " ] || fail "batch: codes $(codes "$tmp/batch.json")"
has batch "Not the same workload: 32 layers per pass each side, batch 16 against 8."
has batch "Warning (batch_differs): the sides ran different batches (A: 16, B: 8, from SGLang bs=N): their kernels do different amounts of work."
json_has batch '"batch":[{"requests":16,"tokens":null,"source":"SGLang bs=N","varies":false},{"requests":8,'
gate4 batch "the sides ran different batches (A: 16, B: 8, from SGLang bs=N): their kernels do different amounts of work" \
	"$S" "$tmp/bs8.json.gz"
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
report shapes "$C" "$tmp/shapes.json.gz"
# (the wider down projection in the same time would exceed the H200's peak: above_peak too)
[ "$(codes "$tmp/shapes.json")" = "gemm_shapes_differ above_peak " ] || fail "shapes: codes $(codes "$tmp/shapes.json")"
has shapes "Warning (gemm_shapes_differ): 8 of the 58 matched GEMM pairs with known shapes differ in M, N or K (first in layer 0: A 2048x2048x5632, B 2048x4096x5632)."
json_has shapes '"differ":8,"first":{"pair":'
json_has shapes '"a_mnk":[2048,2048,5632],"b_mnk":[2048,4096,5632]}'
gate4 shapes "8 of the 58 matched GEMM pairs with known shapes differ in M, N or K (first in layer 0: A 2048x2048x5632, B 2048x4096x5632)" \
	"$C" "$tmp/shapes.json.gz"

# the same GEMMs in another order within each layer (B's q/o shapes swapped with its k/v ones,
# so that every pair meets a shape the other side has elsewhere in the layer): not a difference
Q='[[2048, 2048], [2048, 2048], [2048, 2048]]' K='[[2048, 2048], [2048, 512], [2048, 512]]'
q=$(printf '%s' "$Q" | sed 's/[][]/\\&/g') k=$(printf '%s' "$K" | sed 's/[][]/\\&/g')
gzip -dc "$C" | sed "s/$q/@Q@/g; s/$k/$Q/g; s/@Q@/$K/g" | gzip >"$tmp/order.json.gz"
report order "$C" "$tmp/order.json.gz"
# (the k/v GEMMs given q's shapes would exceed the H200's peak: above_peak, nothing else)
[ "$(codes "$tmp/order.json")" = "above_peak " ] || fail "order: warnings $(codes "$tmp/order.json")"
has order "Same workload: 8 layers per pass each side, 58 of 58 matched GEMM shapes equal."

# other_share_high: B's up GEMM and SiLU renamed to names nothing classifies (30 % of B)
sed 's/"name":"nvjet_up_gemm"/"name":"mystery_a"/g; s/"name":"silu_and_mul_kernel"/"name":"mystery_b"/g' "$D" >"$tmp/opaque.trace"
report other "$D" "$tmp/opaque.trace"
[ "$(codes "$tmp/other.json")" = "other_share_high " ] || fail "other: codes $(codes "$tmp/other.json")"
has other "Warning (other_share_high): 30% of B's kernel time is in kernels fusediff does not classify (Other): its pairs and fusions may be wrong there."
json_has other '"comparable":true'
"$FUSEDIFF" --report json --fail-if-slower 5 "$D" "$tmp/opaque.trace" >/dev/null 2>&1
[ $? = 0 ] || fail "other: an unclassified share alone makes a gate fail"

# above_peak: a peak far below what the kernels reach (a wrong --peaks row): every figure
# above it is dropped, said per side, null in JSON with the reason
printf 'H200 1 1 1 1 - 0.01\n' >"$tmp/tiny.peaks"
report peak --peaks "$tmp/tiny.peaks" "$E" "$C"
[ "$(codes "$tmp/peak.json")" = "above_peak above_peak " ] || fail "peak: codes $(codes "$tmp/peak.json")"
has peak "Warning (above_peak): 66 of A's kernel pairs came out above the GPU's peak and show no efficiency: their operators' shapes or the peak are wrong."
json_has peak '"a_peak_share":null,"b_peak_share":null,"a_bound":null,"b_bound":null,"a_eff_dropped":"above_peak","b_eff_dropped":"above_peak"'

# capture_partial is asserted in tests/check_capture.c (a capture of another batch size).

. tests/sh/lib/schema.sh
schema_validate "$tmp"/*.json
[ $? = 1 ] && fail "a JSON report does not validate against --print-schema"

finish warnings
