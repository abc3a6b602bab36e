#!/usr/bin/env python3
"""Cut examples/llama8l_eager_sdpa.json.gz to its first passes: both prefill passes and the first
N decode passes (default 4): every event that starts before the CPU annotation of the next decode
pass (GPU events of a pass end before it), the metadata events and the top-level keys. The
events keep the original's text and line layout (a kernel's "dur" on the line after its "cat",
which the tests' line-by-line copies rely on); only the events after the cut are dropped.

usage: make-eager-short.py examples/llama8l_eager_sdpa.json.gz OUT.json.gz [N]"""
import gzip
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 4
text = gzip.open(src, "rt").read()
head = text.index("[", text.index('"traceEvents"')) + 1
dec = json.JSONDecoder()
pos, spans = head, []
while True:  # each event's own text: (start, end, event)
    while text[pos] in " \t\r\n,":
        pos += 1
    if text[pos] == "]":
        break
    e, end = dec.raw_decode(text, pos)
    spans.append((pos, end, e))
    pos = end
tail = pos
decodes = sorted(e["ts"] for _, _, e in spans
                 if e.get("cat") == "user_annotation" and e.get("name") == "decode")
cut = decodes[n]
keep = [text[a:b] for a, b, e in spans if e.get("ph") == "M" or "ts" not in e or e["ts"] < cut]
with gzip.open(dst, "wt", compresslevel=9) as f:
    f.write(text[:head] + "\n  " + ",\n  ".join(keep) + "\n" + text[tail:])
print(f"{dst}: {len(keep)} of {len(spans)} events")
