#!/bin/sh
# noise.sh — how sure a difference is, on the bundled eager Llama trace (16 decode passes):
# against itself nothing is significant and a 3 % gate passes; against a copy whose kernels are
# all 10 % slower the gate fails; against a copy whose GEMMs alone are 5 % slower the GEMM rows
# are significant and the other classes are not. The copies are made here from the real trace.
set -u
E=examples/llama8l_eager_sdpa.json.gz
. tests/sh/lib/cases.sh
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
# (plain JSON: no gzip -1 to write them, no inflating to read them; both from one reading of E)
slower_copies "$E" "$tmp/all10.trace.json" 1.10 "$tmp/gemm5.trace.json" 1.05 ||
	fail "making the slower copies"
gate() { # NAME WANT_STATUS ARGS...
	name=$1 want=$2
	shift 2
	"$FUSEDIFF" --report json --phase decode -o "$tmp/$name.json" "$@" 2>"$tmp/$name.err"
	st=$?
	[ "$st" = "$want" ] || fail "$name: exit $st, want $want ($(cat "$tmp/$name.err"))"
}
gate self 0 --fail-if-slower 3 "$E" "$E"
grep -q "95% interval" "$tmp/self.err" || fail "self: the verdict names no interval: $(cat "$tmp/self.err")"
gate all10 3 --fail-if-slower 3 "$E" "$tmp/all10.trace.json"
gate gemm5 0 "$E" "$tmp/gemm5.trace.json"
"$py" - "$tmp" <<'PY' || fail "significance of the rows"
import json, sys
t = sys.argv[1]
r = json.load(open(f"{t}/self.json"))
assert r["noise"]["known"] and r["noise"]["a_passes"] == 16, r["noise"]
assert not r["noise"]["significant"], r["noise"]
assert not any(p["significant"] for p in r["pairs"]), "a pair of the trace against itself is significant"
r = json.load(open(f"{t}/all10.json"))
assert r["noise"]["significant"] and r["noise"]["ci_low_us"] > 0.09 * r["a_us"], r["noise"]
r = json.load(open(f"{t}/gemm5.json"))
cls = {c["class"]: c for c in r["classes"]}
assert cls["GEMM"]["significant"], cls["GEMM"]
others = [k for k, c in cls.items() if k != "GEMM" and c["significant"]]
assert not others, f"classes other than GEMM significant: {others}"
gemm = [p for p in r["pairs"] if p["class"] == "GEMM" and p["kind"] == "match"]
assert gemm and sum(p["significant"] for p in gemm) >= 0.9 * len(gemm), "GEMM pairs within noise"
PY
finish noise
