#!/bin/sh
# schema.sh — `--print-schema` is a valid JSON Schema (Draft 2020-12), and the JSON report of
# every kind of comparison the tests make validates against it: the bundled pairs, each phase,
# vendor profilers' formats, graph captures, names that need escaping, a comparison with no
# common phase and an empty one; a report with a member the schema does not know does not.
# The other tests that write JSON reports validate theirs too (tests/sh/lib/schema.sh).
set -u
: "${FUSEDIFF:?run through make check}"
. tests/sh/lib/schema.sh
schema_python >/dev/null || { echo "no python3 with jsonschema (Debian: python3-jsonschema)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# the eager example cut to its first 4 decode passes (tests/data/traces/SOURCES.md): the same
# kinds of report as the whole example's, at a third of the loading and validating
E=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
C=examples/llama8l_compiled_sdpa.json.gz
MI=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
NV=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
T=tests/data/traces
P=tests/data/profilers
n=0
rep() { # ARGS...: one JSON report into $tmp/N.json
	n=$((n + 1))
	"$FUSEDIFF" --report json -o "$tmp/$n.json" "$@" 2>"$tmp/err" ||
		{ echo "fusediff --report json $*: $(cat "$tmp/err")"; exit 1; }
}
rep "$E" "$C"
rep "$C" "$E"
rep --phase all "$E" "$C"
rep --phase decode "$E" "$E"
rep "$MI" "$NV"
rep "$T/tracelens_qwen1.5-0.5b_hf_h100.json.gz" "$T/tracelens_qwen1.5-0.5b_hf_mi300x.json.gz"
rep "$T/tracelens_bert-small_hf_h100.json.gz" "$T/tracelens_bert-small_hf_mi300x.json.gz"
rep "$T/moe6l_eager_sdpa.json.gz" "$T/moe6l_eager_sdpa.json.gz"
rep "$E" "$T/llama8l_eager_mathattn.json.gz"
rep "$T/llama3_8b_shape_decode1.json.gz" "$E"
rep --device all "$P/nsys_before.sqlite.gz" "$P/nsys_after.sqlite.gz"
rep "$P/rocprof_aorta.json.gz" "$P/rocpd_built.db"
rep "$P/kernel_trace_v1.csv.gz" "$P/kernel_trace_v2.csv"
rep --capture-a tests/data/capture/qwen3-8b_capture_other_batch.json.gz \
	tests/data/capture/qwen3-8b_decode_bs32_mi300x.json.gz "$MI"
rep tests/data/escape/fused_a.json tests/data/escape/fused_b.json
rep tests/data/report/names_a.json tests/data/report/names_b.json
rep "$E" "$P/rocpd_built.db" # no common phase
rep tests/data/compare/down_once.json tests/data/compare/down_twice.json
rep --phase decode "$E" "$E" -- "$E" "$NV" # pooled captures: repeats, repeat_differs
[ $n -ge 19 ] || { echo "only $n reports"; exit 1; }
# and the schema is strict: an unknown member, a wrong type, a missing member each fail (copies
# of the first report, checked in the same python process)
schema_validate --check-schema --reference --broken-from "$tmp/1.json" "$tmp"/*.json || exit 1
echo "schema: $n reports validate, 4 broken ones do not"
