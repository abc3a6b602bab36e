#!/bin/sh
# gen_trace.sh — bench/gen-trace makes an N-times-longer trace that fusediff reads as N times
# the passes of the original: every category N times over (metadata once), plain or gzip.
set -u
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
SRC=examples/llama8l_compiled_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 bench/gen-trace -n 3 -o "$tmp/x3.json" "$SRC" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
python3 bench/gen-trace -n 3 -o "$tmp/x3.json.gz" "$SRC" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
"$FUSEDIFF" --summary "$SRC" >"$tmp/s1" || exit 1
"$FUSEDIFF" --summary "$tmp/x3.json" >"$tmp/s3" || exit 1
"$FUSEDIFF" --summary "$tmp/x3.json.gz" >"$tmp/s3gz" || exit 1
# the gzip copy is the same trace
sed 1,2d "$tmp/s3" >"$tmp/a"; sed 1,2d "$tmp/s3gz" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "plain and gzip outputs differ"; diff "$tmp/a" "$tmp/b"; exit 1; }
# kernels and passes three times over
grep -q "kernels  *723 (+ 150 copies/memsets)" "$tmp/s3" || { echo "not 3 x 241 kernels:"; cat "$tmp/s3"; exit 1; }
grep -q '"prefill" x6' "$tmp/s3" || { echo "not 3 x 2 prefill passes:"; cat "$tmp/s3"; exit 1; }
# every category three times over, except the profiler's own metadata and span
awk '/^Events by category/ {on = 1; next} on && NF == 2 {print $1, $2}' "$tmp/s1" >"$tmp/c1"
awk '/^Events by category/ {on = 1; next} on && NF == 2 {print $1, $2}' "$tmp/s3" >"$tmp/c3"
while read -r cat n; do
	want=$((n * 3))
	case $cat in "(none)" | Trace) want=$n ;; esac
	grep -qx "$cat $want" "$tmp/c3" || { echo "$cat: want $want"; cat "$tmp/c3"; exit 1; }
done <"$tmp/c1"
# fresh ids in every copy: kernel correlation ids are unique and each has its launch; External
# ids of kernels point at operators of their own copy (the same operator name as the original)
python3 - "$tmp/x3.json" <<'EOP' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
kern = [e for e in ev if e.get("cat") == "kernel"]
corr = [e["args"]["correlation"] for e in kern]
assert len(set(corr)) == len(corr) == 723, "kernel correlation ids repeat"
launch = {e["args"]["correlation"] for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")}
assert all(c in launch for c in corr), "a kernel lost its launch"
ops = {}
for e in ev:
    if e.get("cat") == "cpu_op":
        ops.setdefault(e["args"]["External id"], []).append(e["name"])
assert all(len(v) == 1 for v in ops.values()), "External ids repeat"
names = [ops.get(k["args"].get("External id"), ["?"])[0] for k in kern]
assert names[:241] == names[241:482] == names[482:], "copies launch different operators"
EOP
exit 0
