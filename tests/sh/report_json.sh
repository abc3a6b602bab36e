#!/bin/sh
# report_json.sh — --report json on the bundled examples: valid JSON (python3's parser), the
# schema scripts rely on, the fusions the eager-vs-compiled pair must show, null for undefined
# ratios, and byte-identical output across runs and locales (LC_ALL with a decimal comma).
set -u
# (the eager side: the bundled eager trace cut to its first 4 decode passes, whose prefill passes,
# the ones compared, are the example's: the same fusions, at a third of the loading)
A=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
MI=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
NV=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

run() { # out args...
	out=$1
	shift
	"$FUSEDIFF" "$@" >"$out" 2>"$tmp/err" || { echo "fusediff $*: exit $?"; cat "$tmp/err"; exit 1; }
}
run "$tmp/ab.json" --report json "$A" "$B"
run "$tmp/sg.json" --report json "$MI" "$NV"
run "$tmp/names.json" --report json tests/data/report/names_a.json tests/data/report/names_b.json

# valid JSON (python3's parser: one process for the three reports and what they must hold),
# then valid against the schema (in the same process: lib/schema_check.py)
python3 - "$tmp/ab.json" "$tmp/sg.json" "$tmp/names.json" <<'PY' || exit 1
import json, os, sys
sys.path.insert(0, "tests/sh/lib")
from schema_check import validate
docs = []
for p in sys.argv[1:4]:
    try:
        docs.append(json.load(open(p, encoding="utf-8")))
    except ValueError as e:
        sys.exit("%s is not valid JSON: %s" % (os.path.basename(p), e))
ab, sg, names = docs

def need(obj, keys, what):
    missing = [k for k in keys if k not in obj]
    assert not missing, "%s lacks %s" % (what, missing)

for doc in (ab, sg, names):
    need(doc, ["schema_version", "traces", "layers", "pairs", "fusions", "pair_groups"], "report")
    assert doc["schema_version"] == 1
    assert len(doc["traces"]) == 2
    for t in doc["traces"]:
        need(t, ["label", "path", "platform", "gpu", "kernels", "gpu_time_us", "passes", "phases",
                 "layers", "other_share"], "trace")
        assert t["platform"] in ("AMD", "NVIDIA", "unknown")
        need(t["phases"], ["prefill", "decode", "mixed", "train"], "phases")
    need(doc, ["warnings", "attribution"], "report")
    for a in doc["attribution"]:
        need(a, ["kind", "class", "fusion", "count", "delta_us"], "attribution part")
    for l in doc["layers"]:
        need(l, ["index", "phase", "a_us", "b_us", "delta_us", "ratio", "a_kernels", "b_kernels", "fusions"], "layer")
    for p in doc["pairs"]:
        need(p, ["layer", "position", "kind", "class", "atoms", "a_kernels", "b_kernels", "a_count", "b_count",
                 "a_avg_us", "b_avg_us", "delta_us", "ratio"], "pair")
        assert p["kind"] in ("match", "fused", "a_only", "b_only")
        assert isinstance(p["a_kernels"], list) and isinstance(p["atoms"], list)
    # one numbering: a fusion's id is its "#N" (from 1), which pairs[].fusion and
    # attribution[].fusion name
    for i, f in enumerate(doc["fusions"]):
        assert f["id"] == i + 1, (i, f["id"])
    for i, p in enumerate(doc["pairs"]):
        if p["fusion"] is not None:
            assert i in doc["fusions"][p["fusion"] - 1]["pairs"], (i, p["fusion"])
    for a in doc["attribution"]:
        if a["fusion"] is not None:
            f = doc["fusions"][a["fusion"] - 1]
            assert a["kind"] == f["kind"] and a["class"] == f["class"], (a, f)
    for f in doc["fusions"]:
        need(f, ["id", "fused_side", "fused_kernel", "unfused_kernels", "atoms", "occurrences", "layers", "a_us", "b_us",
                 "delta_us", "evidence"], "fusion")
        assert f["fused_side"] in ("A", "B")
        assert isinstance(f["evidence"], str) and f["evidence"].endswith(".")
    # the pairs summed over the layers: every pair once, the whole difference, largest first
    seen = []
    for g in doc["pair_groups"]:
        need(g, ["layers", "pairs", "kind", "class", "atoms", "a_kernels", "b_kernels", "a_similar",
                 "b_similar", "a_count", "b_count", "a_us", "b_us", "delta_us", "ratio"], "pair group")
        seen += g["pairs"]
        p = [doc["pairs"][i] for i in g["pairs"] if doc["pairs"][i]["kind"] == g["kind"]][0]
        assert (p["kind"], p["class"], p["a_kernels"]) == (g["kind"], g["class"], g["a_kernels"]), g
        assert abs(sum(doc["pairs"][i]["delta_us"] for i in g["pairs"]) - g["delta_us"]) < 0.01
    assert sorted(seen) == list(range(len(doc["pairs"])))
    # a fusion is one group, net: its pairs, its one-sided kernels too, as the attribution
    # and the fusions count it
    for f in doc["fusions"]:
        g = [g for g in doc["pair_groups"] if set(g["pairs"]) & set(f["pairs"])]
        assert len(g) == 1 and sorted(g[0]["pairs"]) == sorted(f["pairs"]), (f["id"], [x["pairs"] for x in g])
        assert abs(g[0]["delta_us"] - f["delta_us"]) < 0.01, (f["id"], g[0]["delta_us"], f["delta_us"])
    assert abs(sum(g["delta_us"] for g in doc["pair_groups"]) - doc["delta_us"]) < 0.01
    deltas = [abs(g["delta_us"]) for g in doc["pair_groups"]]
    assert deltas == sorted(deltas, reverse=True)

# eager (A) vs compiled (B): B fuses the RMSNorm and SiLU·mul; GEMMs and attention match
assert ab["phase"] == "prefill"
assert [t["layers"] for t in ab["traces"]] == [8, 8]
norm = [f for f in ab["fusions"] if f["fused_side"] == "B" and "rmsnorm" in f["atoms"]]
assert norm, "no RMSNorm fusion by B"
assert any("pow" in k for k in norm[0]["unfused_kernels"]) and any("rsqrt" in k for k in norm[0]["unfused_kernels"])
act = [f for f in ab["fusions"] if f["fused_side"] == "B" and {"silu", "mul"} <= set(f["atoms"])]
assert act, "no SiLU-mul fusion by B"
assert any("silu" in k for k in act[0]["unfused_kernels"]) and any("Mul" in k for k in act[0]["unfused_kernels"])
# (Inductor computes the rotary table in layer 0, eager PyTorch in the prologue: that one GEMM
# is one-sided on both sides, since nothing pairs across layers)
rotary = [p for p in ab["pairs"] if p["kind"] != "match" and p["class"] == "GEMM"]
assert len(rotary) == 2 and all("simt_sgemm" in (p["a_kernels"] + p["b_kernels"])[0] for p in rotary), rotary
for p in ab["pairs"]:
    if isinstance(p["layer"], int) and p["class"] in ("GEMM", "Attention") and p not in rotary:
        assert p["kind"] == "match" and p["fusion"] is None, p
# the attribution adds up to the total
assert abs(sum(a["delta_us"] for a in ab["attribution"]) - ab["delta_us"]) < 0.01
assert {a["kind"] for a in ab["attribution"]} >= {"fusion", "a_only", "matched_slower"}
# per pass: the layer rows add up to the total
assert abs(sum(l["a_us"] for l in ab["layers"]) - ab["a_us"]) < 0.01
assert abs(sum(l["b_us"] for l in ab["layers"]) - ab["b_us"]) < 0.01

# MI300X vs B300: no fusion of add or RMSNorm, no GEMM fusion
assert sg["phase"] == "decode"
for f in sg["fusions"]:
    assert not {"add", "rmsnorm", "gemm"} & set(f["atoms"]), f["evidence"]

# hostile names come back as they were (invalid bytes as visible \xNN), zero denominators as null
kernels = {k for p in names["pairs"] for k in p["a_kernels"]}
assert 'gemm_kernel<cutlass::half_t, 128, 64>(float, "quoted", a\\b)' in kernels, kernels
assert "weird\x01ctl\x1b[31mred\x85c1" in kernels
assert "bad_utf8_\\xff\\xfe_kernel" in kernels
assert "newline\nname\ttab" in kernels
assert any(p["ratio"] is None and p["a_us"] == 0 for p in names["pairs"])

if not validate(*sys.argv[1:4]):
    sys.exit("a report does not validate against --print-schema")
PY

# deterministic: other runs, in other locales too, give the same bytes (each run below is a
# second run of ab.json's comparison, compared byte for byte: no run of its own for that)
for loc in C.UTF-8 POSIX; do
	LC_ALL=$loc run "$tmp/ab3.json" --report json "$A" "$B"
	cmp -s "$tmp/ab.json" "$tmp/ab3.json" || { echo "LC_ALL=$loc changes the report"; exit 1; }
done
# de_DE: the one make check compiled once (FUSEDIFF_TEST_LOCPATH), else one compiled here
locpath=${FUSEDIFF_TEST_LOCPATH:-}
[ -n "$locpath" ] && [ -d "$locpath/de_DE" ] ||
	{ command -v localedef >/dev/null 2>&1 && localedef -i de_DE -f ISO-8859-1 "$tmp/de_DE" >/dev/null 2>&1 &&
		locpath=$tmp; } || locpath=
if [ -n "$locpath" ]; then
	cp "$tmp/ab.json" "$tmp/c.json" # the C locale's JSON report of A and B: ab.json
	for f in json csv text md; do
		[ $f = json ] || run "$tmp/c.$f" --report $f "$A" "$B"
		LOCPATH=$locpath LC_ALL=de_DE run "$tmp/de.$f" --report $f "$A" "$B"
		cmp -s "$tmp/c.$f" "$tmp/de.$f" || { echo "LC_ALL=de_DE changes the $f report"; diff "$tmp/c.$f" "$tmp/de.$f" | head; exit 1; }
	done
else
	echo "no locale with a decimal comma could be made: checked C.UTF-8 and POSIX only"
fi
exit 0
