#!/bin/sh
# report_perfetto.sh — --report perfetto, golden-free: the export of the bundled eager (A) vs
# compiled (B) pair parsed with python3's json module and checked for what Perfetto and
# chrome://tracing need and what a user reads there. Every kernel of the compared passes once,
# on its side's process and stream; an arrow per kernel to its counterpart (as many as the
# matched and fused pairs' kernels give: max(m, n) per pair and pass), ids unique, each "s"
# with its "f" later in time, both ends inside kernels of the same pair and pass; pass k of both
# sides starting at the same time (--align layers: each layer); a fusion slice on each side
# per place of each fusion difference; names and sort indices that put A above B; the
# provenance; at most twice the bytes of the input's events of the kernels it holds; the
# same bytes gzip-compressed with -o FILE.gz, byte-identical runs; and the file read back by
# fusediff --summary as a trace with both sides' kernels.
set -u
# (A: the bundled eager trace cut to its first 4 decode passes, whose prefill passes, the ones
# compared, are the example's: the same pairs and fusions, at a third of the loading)
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
run "$tmp/ab.json" --report perfetto "$A" "$B"
run "$tmp/ab.report" --report json "$A" "$B"
run /dev/null --report perfetto --align layers -o "$tmp/ab_layers.json.gz" "$A" "$B"
run /dev/null --report perfetto -o "$tmp/sg.json" "$MI" "$NV"
run "$tmp/sg.report" --report json "$MI" "$NV"
run "$tmp/names.json" --report perfetto tests/data/report/names_a.json tests/data/report/names_b.json
run "$tmp/summary.txt" --summary "$tmp/ab.json"
sha_a=$(sha256sum <"$A" | cut -d' ' -f1)
# the explorer's P: the selected layer (Layers) and fusion (Fusions), each to the file it names
mkdir "$tmp/ui" && (cd "$tmp/ui" && printf 'layers\nperfetto\nEnter\n:dump layer\nfusions\nperfetto\nEnter\n:dump fusion\n' |
	"$FUSEDIFF" --headless --script - "$OLDPWD/$A" "$OLDPWD/$B" >/dev/null 2>"$tmp/err") ||
	{ echo "the explorer's P failed:"; cat "$tmp/err"; exit 1; }

# one python3 for the exports read back (a start is 0.15 s of CPU here)
python3 - "$tmp" "$sha_a" "$MI" "$NV" <<'PY' || exit 1
import gzip, json, sys
from collections import Counter, defaultdict

tmp, sha_a, mi, nv = sys.argv[1:5]
KERNEL_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

def load(name):
    opener = gzip.open if name.endswith(".gz") else open
    with opener(tmp + "/" + name, "rt", encoding="utf-8") as f:
        return json.load(f)

def check(doc, report, what, align_layers=False):
    assert doc["displayTimeUnit"] == "ns", what
    ev = doc["traceEvents"]
    other = doc["otherData"]
    assert other["tool_version"].startswith("fusediff "), other
    assert other["align"] == ("layers" if align_layers else "passes"), other
    assert set(e["ph"] for e in ev) <= {"X", "s", "f", "M"}, what
    for e in ev:  # Perfetto's tokenizer refuses an array outside args
        assert not any(isinstance(v, list) for k, v in e.items() if k != "args"), e
        assert e["pid"] in (1, 2) and isinstance(e["tid"], int), e
    # names and order: A's process above B's, every track named and ordered
    meta = [e for e in ev if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert procs[1].startswith("A: ") and procs[2].startswith("B: "), procs
    order = {e["pid"]: e["args"]["sort_index"] for e in meta if e["name"] == "process_sort_index"}
    assert order[1] < order[2], order
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    sorts = {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in meta if e["name"] == "thread_sort_index"}
    used = {(e["pid"], e["tid"]) for e in ev if e["ph"] != "M"}
    assert used <= set(threads) and set(threads) == set(sorts), (used - set(threads))
    assert len(set(e["tid"] for e in ev)) == len(set((e["pid"], e["tid"]) for e in ev)), "tids not unique"
    # A: layers, fusions, streams from the top; B mirrored, so that the kernels meet in the middle
    def kinds(pid):
        tracks = sorted((t for t in threads if t[0] == pid), key=lambda t: sorts[t])
        return [threads[t].split()[0] for t in tracks]
    ka, kb = kinds(1), kinds(2)
    assert ka[0] == "passes" and ka[-1] == "stream", ka
    assert kb[0] == "stream" and kb[-1] == "passes", kb

    kernels = [e for e in ev if e["ph"] == "X" and e["cat"] in KERNEL_CATS]
    by_side = [[k for k in kernels if k["pid"] == s + 1] for s in (0, 1)]
    # every kernel of the compared passes once (by its start in the trace), on its stream
    for s in (0, 1):
        t = report["traces"][s]
        want = round(t["launches_per_pass"] * t["compared_passes"])
        assert len(by_side[s]) == want, (what, s, len(by_side[s]), want)
        assert len(set(k["args"]["trace_ts"] for k in by_side[s])) == want, "a kernel twice"
        assert other["ab"[s]]["kernels"] == want
        for k in by_side[s]:
            a = k["args"]
            track = threads[(k["pid"], k["tid"])]
            assert a["device"] == s and track.split(" (")[0] == "stream %d" % a["stream"], (k, track)
            p = report["pairs"][a["pair"]]
            assert p["kind"] == a["pair_kind"] and str(p["layer"]) == a["layer"], (k, p)
            assert a["other"] == [] if p["kind"] in ("a_only", "b_only") else a["other"], k
            assert abs(a["pair_delta_us"] - p["delta_us"]) < 0.002, (a, p)
    # slices on one track never overlap but by nesting (what both viewers draw right)
    tracks = defaultdict(list)
    for e in ev:
        if e["ph"] == "X":
            tracks[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], e["ts"] + e["dur"], e["name"]))
    for key, sl in tracks.items():
        sl.sort()
        stack = []
        for ts, _, end, name in sl:
            while stack and stack[-1] <= ts + 1e-6:
                stack.pop()
            assert not stack or end <= stack[-1] + 1e-6, (key, name, ts, end, stack[-1])
            stack.append(end)

    # arrows: unique ids, each "s" with its "f" later, both ends inside kernels of one pair and
    # pass on the two sides
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    ends = [e for e in ev if e["ph"] == "f"]
    assert len(starts) == len([e for e in ev if e["ph"] == "s"]), "flow ids not unique"
    assert sorted(starts) == sorted(e["id"] for e in ends), "an s without its f or the other way"
    index = defaultdict(list)
    for k in kernels:
        index[(k["pid"], k["tid"])].append(k)
    def enclosing(e):
        got = [k for k in index[(e["pid"], e["tid"])] if k["ts"] < e["ts"] < k["ts"] + k["dur"]]
        assert len(got) == 1, ("flow end in no kernel", e)
        return got[0]
    links = Counter()
    for f in ends:
        s = starts[f["id"]]
        assert f["bp"] == "e" and (s["cat"], s["name"]) == (f["cat"], f["name"]), (s, f)
        assert s["ts"] < f["ts"] and s["pid"] != f["pid"], (s, f)
        ks, kf = enclosing(s), enclosing(f)
        assert ks["args"]["pair"] == kf["args"]["pair"] and ks["args"]["pass"] == kf["args"]["pass"]
        assert f["name"] == {"match": "match", "fused": "fused"}[ks["args"]["pair_kind"]]
        links[f["name"]] += 1
    # as many as the pairs give: max(m, n) per pair and pass with kernels on both sides
    groups = defaultdict(lambda: [0, 0])
    for k in kernels:
        groups[(k["args"]["pair"], k["args"]["pass"], k["args"]["pair_kind"])][k["pid"] - 1] += 1
    want = Counter()
    for (pair, ps, kind), (m, n) in groups.items():
        if m and n:
            want[kind] += max(m, n)
    assert links == want and links == Counter({k: v for k, v in other["flows"].items() if v}), (links, want)
    assert want["match"] > 0

    # alignment: pass k of both sides starts at the same time; --align layers: each layer too
    passes = defaultdict(dict)
    for e in ev:
        if e["ph"] == "X" and e["cat"] == "pass":
            passes[e["args"]["pass"]][e["pid"]] = e["ts"]
    assert passes and all(len(v) == 2 for v in passes.values()), passes
    if not align_layers:  # (with layers aligned, a side may lack the first: a prologue)
        assert all(v[1] == v[2] for v in passes.values()), passes
    layers = defaultdict(dict)
    for e in ev:
        if e["ph"] == "X" and e["cat"] == "layer":
            layers[(e["args"]["pass"], e["args"]["layer"])][e["pid"]] = (e["ts"], e["dur"])
    both = [v for v in layers.values() if len(v) == 2]
    assert both
    if align_layers:
        assert all(v[1][0] == v[2][0] for v in both), "a layer starts apart"
        # a layer's kernels lie within its slice
        for k in kernels:
            ts, dur = layers[(k["args"]["pass"], k["args"]["layer"])][k["pid"]]
            assert ts <= k["ts"] and k["ts"] + k["dur"] <= ts + dur + 1e-6, k
    # fusion differences: per place, a slice on the fused side and one on the other side
    fus = [e for e in ev if e["ph"] == "X" and e["cat"] == "fusion"]
    for i, f in enumerate(report["fusions"]):
        mine = [e for e in fus if e["args"]["fusion"] == i + 1]
        fused = [e for e in mine if e["args"]["role"] == "fused"]
        unfused = [e for e in mine if e["args"]["role"] == "unfused"]
        side = {"A": 1, "B": 2}[f["fused_side"]]
        assert fused and unfused, (what, i)
        assert all(e["pid"] == side for e in fused) and all(e["pid"] != side for e in unfused)
        assert all(e["args"]["evidence"] == f["evidence"] for e in mine)
        assert all(e["name"].endswith(": " + "+".join(f["atoms"])) for e in mine), mine[0]["name"]
    return ev

ab = load("ab.json")
report = json.load(open(tmp + "/ab.report", encoding="utf-8"))
ev = check(ab, report, "eager vs compiled")
assert len(report["fusions"]) >= 2
assert ab["otherData"]["a"]["sha256"] == sha_a
# B fuses the RMSNorm: its fused kernel has an arrow to each of the eager kernels
norm = [i for i, f in enumerate(report["fusions"]) if f["fused_side"] == "B" and "rmsnorm" in f["atoms"]][0]
fanout = Counter()
for e in ev:
    if e["ph"] == "X" and e["pid"] == 2 and e.get("args", {}).get("fusion") == norm + 1:
        fanout[e["args"]["pair"]] += 1
assert fanout, "no kernel of the RMSNorm fusion"

layers = load("ab_layers.json.gz")
check(layers, report, "--align layers", align_layers=True)

sg = load("sg.json")
check(sg, json.load(open(tmp + "/sg.report", encoding="utf-8")), "MI300X vs B300")

# the size bound: at most twice the bytes of the input events of the kernels written
total = 0
for s, path in enumerate((mi, nv)):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    size = {}
    for e in trace["traceEvents"]:
        if e.get("cat") in KERNEL_CATS:
            size[round(e["ts"] * 1000)] = len(json.dumps(e, separators=(",", ":")))
    for e in sg["traceEvents"]:
        if e["ph"] == "X" and e["pid"] == s + 1 and e["cat"] in KERNEL_CATS:
            total += size[round(e["args"]["trace_ts"] * 1000)]
written = len(open(tmp + "/sg.json", "rb").read())
assert written <= 2 * total, (written, total)

# hostile kernel names stay valid JSON and come back as they were
names = load("names.json")
got = {e["name"] for e in names["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel"}
assert 'gemm_kernel<cutlass::half_t, 128, 64>(float, "quoted", a\\b)' in got, got
assert "newline\nname\ttab" in got and "bad_utf8_\\xff\\xfe_kernel" in got, got

# the explorer's P (run above): each to the file its status line names
d = tmp + "/ui"
for what in ("layer", "fusion"):
    status = open(d + "/" + what + ".screen", encoding="utf-8").read().rstrip("\n").split("\n")[-1]
    assert "as a trace to fusediff-" + what in status and "ui.perfetto.dev" in status, status
    path = d + "/" + status.split(" to ")[1].split(":")[0]
    other = json.load(gzip.open(path, "rt", encoding="utf-8"))["otherData"]
    assert other[what] is not None and other["a"]["kernels"] > 0, other
    assert other["align"] == ("layers" if what == "layer" else "passes"), other
PY

# fusediff reads the file back as a trace: both sides' kernels, A's as device 0, B's as 1
grep -q '^  device  *0 of 2: 0 (684 kernels + 50 copies), 1 (240 kernels + 50 copies)$' "$tmp/summary.txt" ||
	{ echo "--summary of the export:"; head -12 "$tmp/summary.txt"; exit 1; }
# -o FILE.gz: the same bytes, gzip-compressed; a second run and another locale: the same bytes
run /dev/null --report perfetto -o "$tmp/ab.json.gz" "$A" "$B"
gzip -t "$tmp/ab.json.gz" || { echo "-o FILE.gz is not gzip"; exit 1; }
gzip -dc "$tmp/ab.json.gz" | cmp -s - "$tmp/ab.json" || { echo "-o FILE.gz holds other bytes"; exit 1; }
# a write that fails midway (the file size limit) through the compressor: exit 1, one line, no
# file and no temporary file left (the compiled trace against itself: 28 kB compressed, over
# the limit, at a third of the CPU of A against B)
mkdir "$tmp/full"
(ulimit -f 8 && "$FUSEDIFF" --report perfetto -o "$tmp/full/ab.json.gz" "$B" "$B") >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^fusediff: $tmp/full/ab.json.gz: " "$tmp/err" && [ -z "$(ls -A "$tmp/full")" ] ||
	{ echo "a failed write of a .gz: exit $rc, left [$(ls -A "$tmp/full")]:"; cat "$tmp/err"; exit 1; }
LC_ALL=C.UTF-8 run "$tmp/ab2.json" --report perfetto "$A" "$B"
cmp -s "$tmp/ab.json" "$tmp/ab2.json" || { echo "two runs differ"; exit 1; }
exit 0
