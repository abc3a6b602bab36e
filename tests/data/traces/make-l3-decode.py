#!/usr/bin/env python3
"""Cut one decode step out of llama3_8b_shape_eager_sdpa.json.gz (shared/traces, see SOURCES.md):
the second "decode" annotation, every CPU event inside its CPU range (operators, runtime calls,
annotations) and the GPU events those calls launched (by correlation), plus the top-level keys.

usage: make-l3-decode.py SHARED/llama3_8b_shape_eager_sdpa.json.gz OUT.json.gz"""
import gzip
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
with gzip.open(src, "rt") as f:
    d = json.load(f)
ev = d["traceEvents"]
dec = sorted((e for e in ev if e.get("cat") == "user_annotation" and e.get("name") == "decode"),
             key=lambda e: e["ts"])[1]
lo, hi = dec["ts"], dec["ts"] + dec["dur"]
gpu_cats = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
keep, corr = [], set()
for e in ev:
    if e.get("ph") == "M":
        keep.append(e)
    elif e.get("cat") not in gpu_cats and e.get("ts") is not None and lo <= e["ts"] <= hi:
        keep.append(e)
        c = e.get("args", {}).get("correlation")
        if c is not None:
            corr.add(c)
for e in ev:
    if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and \
            e.get("args", {}).get("correlation") in corr:
        keep.append(e)
    elif e.get("cat") == "gpu_user_annotation" and e.get("name") == "decode" and \
            e.get("args", {}).get("External id") == dec.get("args", {}).get("External id"):
        keep.append(e)
d["traceEvents"] = keep
with gzip.open(dst, "wt", compresslevel=9) as f:
    json.dump(d, f, separators=(",", ":"))
print(f"{dst}: {len(keep)} events, {sum(1 for e in keep if e.get('cat') == 'kernel')} kernels")
