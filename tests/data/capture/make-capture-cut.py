#!/usr/bin/env python3
"""Cut the SGLang Qwen3-8B HIP-graph capture trace (shared/traces, see SOURCES.md) down to what a
join needs: the captured launches (args.kernel), their operators, the nn.Module ranges, the
annotations, the kernels, the runtime calls and the top-level keys; the 54,000 other Python
function events and the instant events go.

With --other, the result stands for the capture of another batch size: every captured launch's
grid is changed and every third one is left out.

usage: make-capture-cut.py [--other] SHARED/tracelens_sglang_qwen3-8b_capture_bs32_mi300x.json.gz OUT.json.gz"""
import gzip
import json
import sys

other = sys.argv[1] == "--other"
src, dst = sys.argv[1 + other], sys.argv[2 + other]
with gzip.open(src, "rt") as f:
    d = json.load(f)
ev = d["traceEvents"]
ext = {e["args"]["External id"] for e in ev
       if e.get("cat") == "cuda_runtime" and "kernel" in e.get("args", {}) and "External id" in e["args"]}
keep = []
for e in ev:
    cat = e.get("cat")
    if e.get("ph") == "M" or cat in ("kernel", "cuda_runtime", "user_annotation", "gpu_user_annotation", "Trace"):
        keep.append(e)
    elif cat == "cpu_op" and e.get("args", {}).get("External id") in ext:
        keep.append(e)
    elif cat == "python_function" and e.get("name", "").startswith("nn.Module: "):
        e = dict(e)
        e["args"] = {}
        keep.append(e)
if other:
    launches = [e for e in keep if e.get("cat") == "cuda_runtime" and "kernel" in e.get("args", {})]
    drop = {id(e) for e in launches[::3]}
    keep = [e for e in keep if id(e) not in drop]
    for e in launches:
        if "grid" in e["args"]:
            e["args"]["grid"] = [g * 2 for g in e["args"]["grid"]]
d["traceEvents"] = keep
with gzip.open(dst, "wt", compresslevel=9) as f:
    json.dump(d, f, separators=(",", ":"))
print(f"{dst}: {len(keep)} events")
