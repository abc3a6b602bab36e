#!/bin/sh
# figures.sh — every figure shown for a fusion reads the same string in the explorer (the
# Overview and Fusions views), the text and Markdown reports, and JSON and CSV once formatted
# as people read them (text_us: 2 decimals below 10 us, 1 below 1000, none above): its number,
# class, places, A us, B us, B - A and share of B - A. On the eager and compiled Llama pair
# both ways round and on the 20 ms Nsight cut (partial fusions). (The eager side is the bundled
# eager trace cut to its first 4 decode passes, tests/data/traces/make-eager-short.py: its
# prefill passes, the ones compared with the compiled trace, are the example's, the same
# fusions and figures, at a third of the loading.)
set -u
: "${FUSEDIFF:?run through make check}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
LC_ALL=C.UTF-8
export LC_ALL
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

n=0
set -- # the pairs' directories and A traces, for the python3 below
while read -r a b; do
	n=$((n + 1))
	d=$tmp/$n
	mkdir "$d"
	printf 'overview\n:dump overview\nfusions\n:dump fusions\n' >"$d/keys"
	FUSEDIFF_DUMP_DIR=$d "$FUSEDIFF" --headless --size 220x60 --script "$d/keys" "$a" "$b" \
		>/dev/null 2>"$d/err" || { echo "FAIL: $a $b: the explorer: $(cat "$d/err")"; fail=1; }
	for f in text md json csv; do
		"$FUSEDIFF" --report $f -o "$d/r.$f" "$a" "$b" 2>"$d/err" ||
			{ echo "FAIL: $a $b: --report $f: $(cat "$d/err")"; fail=1; }
	done
	set -- "$@" "$d" "$a"
done <<EOF
tests/data/traces/llama8l_eager_sdpa_4decode.json.gz examples/llama8l_compiled_sdpa.json.gz
examples/llama8l_compiled_sdpa.json.gz tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
tests/data/profilers/nsys_before.sqlite.gz tests/data/profilers/nsys_after.sqlite.gz
EOF
# one python3 for the three pairs (a start is 0.15 s of CPU here): the figures of each
python3 - "$@" <<'PY' || fail=1
import csv, json, re, sys
bad = []

def us(v):  # text_us
    a = abs(v)
    return "%.*f" % (2 if a < 10 else 1 if a < 1000 else 0, v)

def signed(v):  # text_signed_us
    s = us(abs(v))
    return "0" if set(s) <= set("0.") else ("-" if v < 0 else "+") + s

def agree(what, got):  # got: {source: string}, every source the same string
    if len(set(got.values())) > 1:
        bad.append("%s: %s" % (what, ", ".join("%s %r" % kv for kv in sorted(got.items()))))

def close(what, shown, exact, fmt):
    # JSON and CSV hold 3 decimals: formatted as people read them they read the same, but
    # for a value on a rounding tie (323.5496 is 323.550 there)
    s = shown.rstrip("%")
    dec = len(s.split(".")[1]) if "." in s else 0
    if fmt(exact) != shown and abs(float(s) - exact) > 0.5 * 10 ** -dec + 0.0011:
        bad.append("%s: shown %s, JSON/CSV %s" % (what, shown, exact))

def check(d, name):
    doc = json.load(open(d + "/r.json", encoding="utf-8"))
    total = doc["delta_us"]
    fig = {}  # fusion id -> figure -> {source: string}
    def put(fid, key, src, val):
        fig.setdefault(fid, {}).setdefault(key, {})[src] = val

    # JSON and CSV: the numbers as written (3 decimals); formatted below
    for i, f in enumerate(doc["fusions"]):
        fid = f["id"]
        for k, key in (("a_us", "A us"), ("b_us", "B us"), ("delta_us", "B - A")):
            put(fid, key, "json", f[k])
    for a in doc["attribution"]:
        if a["fusion"] is not None:
            put(a["fusion"], "B - A", "json attribution", a["delta_us"])
            put(a["fusion"], "places", "json attribution", "%g" % a["count"])
            put(a["fusion"], "class", "json attribution", a["class"])
            put(a["fusion"], "of B - A", "json attribution", 100 * a["delta_us"] / total)

    tables, header = {}, None
    for row in csv.reader(open(d + "/r.csv", encoding="utf-8", newline="")):
        if not row:
            header = None
        elif header is None:
            header = row
        else:
            tables.setdefault(row[0], []).append(dict(zip(header, row)))
    for r in tables.get("fusions", []):
        fid = int(r["fusion"])
        put(fid, "A us", "csv", float(r["a_us"]))
        put(fid, "B us", "csv", float(r["b_us"]))
        put(fid, "B - A", "csv", float(r["delta_us"]))
    for r in tables.get("attribution", []):
        if r["fusion"]:
            put(int(r["fusion"]), "class", "csv attribution", r["class"])
            put(int(r["fusion"]), "places", "csv attribution", "%g" % float(r["count"]))

    # text and Markdown: the attribution table and each fusion's sentence
    for src in ("text", "md"):
        body = open(d + "/r." + src, encoding="utf-8").read()
        for m in re.finditer(r"^\|? *(?:fusion|horizontal fusion|partial fusion) \\?#(\d+) *\|? *(\S+) *\|? *(\S+) *\|? *(\S+?)~? *\|? *(\S+%)", body, re.M):
            fid = int(m.group(1))
            put(fid, "class", src, m.group(2))
            put(fid, "places", src, m.group(3))
            put(fid, "B - A", src + " attribution", m.group(4))
            put(fid, "of B - A", src, m.group(5))
        for m in re.finditer(r"^ *(\d+)\. .*per pass A (\S+) us, B (\S+) us, B - A (\S+) us\.", body, re.M):
            fid = int(m.group(1))
            put(fid, "A us", src, m.group(2))
            put(fid, "B us", src, m.group(3))
            put(fid, "B - A", src, m.group(4))

    # the explorer: the Overview's fusion rows, the Fusions view's rows
    for line in open(d + "/overview.screen", encoding="utf-8"):
        m = re.match(r"(?:fusion|horizontal|partial fusion) #(\d+) +(\S+) +(\S+) +(\S+) +(\S+) +(\S+) +(\S+%)", line)
        if m:
            fid = int(m.group(1))
            for key, g in (("class", 2), ("places", 3), ("A us", 4), ("B us", 5), ("of B - A", 7)):
                put(fid, key, "explorer overview", m.group(g))
            put(fid, "B - A", "explorer overview", m.group(6))
    for line in open(d + "/fusions.screen", encoding="utf-8"):
        m = re.match(r" *(\d+) (?:[AB] fuses|[AB] merges|partial) .* (\S+) +(\S+) +(\S+) *$", line)
        if m:
            fid = int(m.group(1))
            put(fid, "A us", "explorer fusions", m.group(2))
            put(fid, "B us", "explorer fusions", m.group(3))
            put(fid, "B - A", "explorer fusions", m.group(4))

    if not fig:
        bad.append("no fusion found")
    for fid, keys in sorted(fig.items()):
        for key, got in keys.items():
            shown = {s: v for s, v in got.items() if not s.startswith(("json", "csv"))}
            exact = {s: v for s, v in got.items() if s.startswith(("json", "csv"))}
            if key in ("A us", "B us", "B - A", "of B - A") and shown:
                v = next(iter(shown.values()))
                fmt = signed if key == "B - A" else (lambda x: "%.1f%%" % x) if key == "of B - A" else us
                for s, e in exact.items():
                    close("%s: fusion #%d %s (%s)" % (name, fid, key, s), v, e, fmt)
                agree("%s: fusion #%d %s" % (name, fid, key), shown)
            else:
                agree("%s: fusion #%d %s" % (name, fid, key), got)
        if not any(s.startswith("explorer") for g in keys.values() for s in g):
            bad.append("%s: fusion #%d is not on the explorer's screens" % (name, fid))

args = sys.argv[1:]
for d, name in zip(args[0::2], args[1::2]):
    check(d, name)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
exit $fail
