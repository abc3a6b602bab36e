#!/bin/sh
# report_csv.sh — --report csv read back with python3's csv module (a real RFC 4180 reader):
# every table has its header, every row as many fields as the header, and the kernel names,
# which hold commas, quotes and parentheses, come back exactly as in the JSON report, and the
# kernel_totals table holds the JSON's kernel_totals.
set -u
# (the eager Llama trace cut to its first 4 decode passes: its prefill passes, the ones compared,
# are the example's, the same pairs and kernel names, 8.9 MB to load where the example is 26 MB)
A=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
set -- # each pair's CSV and JSON reports, for the python3 below
for pair in "$A $B" "tests/data/report/names_a.json tests/data/report/names_b.json"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$FUSEDIFF" --report csv $pair >"$tmp/$n.csv" 2>"$tmp/err" || { echo "csv: exit $?"; cat "$tmp/err"; exit 1; }
	# shellcheck disable=SC2086
	"$FUSEDIFF" --report json $pair >"$tmp/$n.json" 2>"$tmp/err" || { echo "json: exit $?"; cat "$tmp/err"; exit 1; }
	set -- "$@" "$tmp/$n.csv" "$tmp/$n.json"
done
# one python3 for both pairs (a start is 0.15 s of CPU here)
python3 - "$@" <<'PY' || exit 1
import csv, json, sys

def unescape_json_name(s):
    # the CSV writes control characters visibly (\n, \e, \xNN); JSON keeps them: compare like with like
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\n": out.append("\\n")
        elif ch == "\t": out.append("\\t")
        elif ch == "\r": out.append("\\r")
        elif o == 0x1b: out.append("\\e")
        elif o < 0x20 or o == 0x7f: out.append("\\x%02x" % o)
        elif 0x80 <= o < 0xa0: out.append("".join("\\x%02x" % b for b in ch.encode("utf-8")))
        else: out.append(ch)
    return "".join(out)

def check(csv_path, json_path):
    tables, header = {}, None
    with open(csv_path, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            if not row:
                header = None
                continue
            if header is None:
                assert row[0] == "table", row
                header = row
                continue
            name = row[0]
            assert len(row) == len(header), "%s: %d fields, header has %d: %r" % (name, len(row), len(header), row)
            t = tables.setdefault(name, (header, []))
            t[1].append(dict(zip(header, row)))
    assert set(tables) >= {"traces", "layers", "pairs", "classes", "pair_groups"}, sorted(tables)
    doc = json.load(open(json_path, encoding="utf-8"))
    pairs = tables["pairs"][1]
    assert len(pairs) == len(doc["pairs"])
    for c, j in zip(pairs, doc["pairs"]):
        for side in ("a_kernels", "b_kernels"):
            want = " | ".join(unescape_json_name(k) for k in j[side])
            assert c[side] == want, (c[side], want)
        assert c["kind"] == j["kind"]
        assert (c["ratio"] == "") == (j["ratio"] is None)
    assert len(tables.get("fusions", (None, []))[1]) == len(doc["fusions"])
    for i, (c, j) in enumerate(zip(pairs, doc["pairs"])):
        assert c["fusion"] == ("" if j["fusion"] is None else str(j["fusion"])), (i, c["fusion"], j["fusion"])
    for c, j in zip(tables.get("fusions", (None, []))[1], doc["fusions"]):
        assert int(c["fusion"]) == j["id"]  # the fusion's number, from 1, as pairs.fusion names it
        assert c["fused_kernel"] == unescape_json_name(j["fused_kernel"])
        assert c["evidence"] == j["evidence"]
    groups = tables["pair_groups"][1]
    assert len(groups) == len(doc["pair_groups"])
    for c, j in zip(groups, doc["pair_groups"]):
        # places: the pairs of the group's kind (a fusion's fused pairs, not its net's one-sided ones)
        assert int(c["places"]) == sum(doc["pairs"][i]["kind"] == j["kind"] for i in j["pairs"])
        assert c["kind"] == j["kind"] and c["class"] == j["class"]
        assert abs(float(c["delta_us"]) - j["delta_us"]) < 0.001
    # the parts of B - A with each side's time, as the Overview shows and exports them
    att = tables["attribution"][1]
    assert len(att) == len(doc["attribution"])
    for c, j in zip(att, doc["attribution"]):
        for k in ("a_us", "b_us", "delta_us"):
            assert abs(float(c[k]) - j[k]) < 0.001, (k, c, j)
        assert abs(j["b_us"] - j["a_us"] - j["delta_us"]) < 0.002, j
    # the whole traces' kernels by name and class: the JSON's kernel_totals, row for row
    totals = tables["kernel_totals"][1]
    assert len(totals) == len(doc["kernel_totals"]) > 0, (len(totals), len(doc["kernel_totals"]))
    for i, (c, j) in enumerate(zip(totals, doc["kernel_totals"])):
        assert int(c["index"]) == i
        assert c["name"] == unescape_json_name(j["name"]) and c["class"] == j["class"], (c, j)
        assert (int(c["a_count"]), int(c["b_count"])) == (j["a_count"], j["b_count"])
        for k in ("a_us", "b_us", "delta_us"):
            assert abs(float(c[k]) - j[k]) < 0.001, (k, c, j)

args = sys.argv[1:]
for csv_path, json_path in zip(args[0::2], args[1::2]):
    check(csv_path, json_path)
PY
exit 0
