#!/usr/bin/env python3
"""perfetto_picture.py EXPORT.json[.gz] OUT.html [PASS FIRST_LAYER LAST_LAYER]

Draw a window of a `fusediff --report perfetto` export the way a trace viewer lays it out, as
an HTML page with one SVG (screenshots/shoot.sh turns it into a PNG with wkhtmltoimage). This
machine has no copy of the Perfetto UI to screenshot, so the README's picture of the export is
drawn from the file by this script, not by a browser: the tracks in the order of their sort
indices (A's process above B's), a box per slice in the window, coloured by name as Perfetto
colours them (one colour per kernel name, so the same kernel has the same colour on both
sides), and the flow arrows between the two sides. Only what the file holds is drawn.
"""
import gzip
import hashlib
import html
import json
import sys

WIDTH = 1400  # px of the time axis
LABEL = 210  # px of the track names
ROW = 22  # px per track


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def colour(name):
    h = int(hashlib.md5(name.encode("utf-8")).hexdigest()[:6], 16)
    return "hsl(%d,%d%%,%d%%)" % (h % 360, 45 + (h >> 9) % 25, 55 + (h >> 17) % 15)


def main():
    path, out = sys.argv[1], sys.argv[2]
    pass_no, first, last = (int(sys.argv[3]), sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (1, "1", "2")
    doc = load(path)
    ev = doc["traceEvents"]
    meta = [e for e in ev if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    order = {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in meta if e["name"] == "thread_sort_index"}
    psort = {e["pid"]: e["args"]["sort_index"] for e in meta if e["name"] == "process_sort_index"}

    # the window: from the start of layer FIRST to the end of layer LAST in pass PASS, both sides
    lay = [e for e in ev if e["ph"] == "X" and e["cat"] == "layer" and e["args"]["pass"] == pass_no
           and e["args"]["layer"] in (first, last)]
    t0 = min(e["ts"] for e in lay)
    t1 = max(e["ts"] + e["dur"] for e in lay)
    scale = WIDTH / (t1 - t0)

    def x(ts):
        return LABEL + (min(max(ts, t0), t1) - t0) * scale

    slices = [e for e in ev if e["ph"] == "X" and e["ts"] < t1 and e["ts"] + e["dur"] > t0]
    used = sorted({(e["pid"], e["tid"]) for e in slices}, key=lambda k: (psort[k[0]], order[k]))
    # the side and pass slices hold the layers: drawn on the row of their track, layers only
    y = {}
    rows = []
    top = 40
    for pid in sorted({k[0] for k in used}, key=lambda p: psort[p]):
        rows.append(("proc", procs[pid], top))
        top += ROW
        for key in [k for k in used if k[0] == pid]:
            y[key] = top
            rows.append(("track", names[key], top))
            top += ROW
        top += 8
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="DejaVu Sans" '
           'font-size="11">' % (LABEL + WIDTH + 10, top + 30)]
    svg.append('<rect width="100%" height="100%" fill="white"/>')
    layers = "layer " + first if first == last else "layers %s-%s" % (first, last)
    title = "fusediff --report perfetto%s: %s pass %d, %s, %.0f us (drawn from the file)" % (
        " --align layers" if doc["otherData"]["align"] == "layers" else "", doc["otherData"]["phase"],
        pass_no, layers, t1 - t0)
    svg.append('<text x="8" y="20" font-size="13" font-weight="bold">%s</text>' % html.escape(title))
    for kind, text, ry in rows:
        if kind == "proc":
            svg.append('<rect x="0" y="%d" width="%d" height="%d" fill="#e8eaf0"/>' % (ry, LABEL + WIDTH + 10, ROW))
            svg.append('<text x="6" y="%d" font-weight="bold">%s</text>' % (ry + 15, html.escape(text)))
        else:
            svg.append('<text x="14" y="%d" fill="#444">%s</text>' % (ry + 15, html.escape(text)))
            svg.append('<line x1="0" x2="%d" y1="%d" y2="%d" stroke="#eee"/>' % (LABEL + WIDTH + 10, ry + ROW, ry + ROW))
    for e in slices:
        if e["cat"] in ("comparison", "pass"):
            continue
        key = (e["pid"], e["tid"])
        x0, x1 = x(e["ts"]), x(e["ts"] + e["dur"])
        w = max(x1 - x0, 0.8)
        label = e["name"]
        if e["cat"] == "fusion":
            fill = "#7fbf7f" if e["args"]["role"] == "fused" else "#e08080" if e["args"]["role"] == "unfused" else "#bbbbbb"
        elif e["cat"] == "layer":
            fill = "#9fb7d9"
        else:
            fill = colour(label)
        svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="white" stroke-width="0.3"/>'
                   % (x0, y[key] + 2, w, ROW - 4, fill))
        if w > 40:
            chars = int(w / 6.2)
            short = label if len(label) <= chars else label[: max(chars - 1, 1)] + "\u2026"
            svg.append('<text x="%.1f" y="%d" font-size="10" clip-path="none">%s</text>' % (x0 + 2, y[key] + 15, html.escape(short)))
    # arrows: from each start to its end, both in the window
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    for f in (e for e in ev if e["ph"] == "f"):
        s = starts[f["id"]]
        if not (t0 <= s["ts"] <= t1 and t0 <= f["ts"] <= t1):
            continue
        if (s["pid"], s["tid"]) not in y or (f["pid"], f["tid"]) not in y:
            continue
        ys = y[(s["pid"], s["tid"])] + (ROW - 2 if s["pid"] == 1 else 2)
        yf = y[(f["pid"], f["tid"])] + (ROW - 2 if f["pid"] == 1 else 2)
        svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="0.7" opacity="0.8"/>'
                   % (x(s["ts"]), ys, x(f["ts"]), yf, "#c03030" if f["name"] == "fused" else "#555"))
    svg.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write('<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>'
                + "\n".join(svg) + "</body></html>\n")


if __name__ == "__main__":
    main()
