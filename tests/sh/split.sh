#!/bin/sh
# split.sh — a plain trace parsed by two threads (kineto_chunks.c: traceEvents cut into chunks
# that both threads take in turn, merged in order) prints exactly what one thread prints: the
# reports of the two examples, and the error messages (line and column) of damage early, in the
# middle and late, with the chunks' guessed starts right, wrong (the pattern inside a string) or
# beyond the array. The summaries of every trace and damaged file of tests/data and examples/
# are tests/check_split.c's, loaded the same three ways in one process.
# FUSEDIFF_SPLIT_MIN=1 cuts even the smallest file into up to 32 chunks; FUSEDIFF_SERIAL=1
# parses with one thread. Each is also parsed with FUSEDIFF_NO_MEMO=1, nothing remembered from
# one event for the next (runs of keys, categories, grids, names, containers: every byte by the
# strict parser alone), which must print the same again.
set -u
: "${FUSEDIFF:?}"
. tests/sh/lib/cases.sh

# same NAME ARGS... : output, stderr and status alike with one thread ($tmp/1/NAME), with two
# ($tmp/2/NAME) and by the parser alone ($tmp/3/NAME); the three folders are compared at the
# end, with one diff each (two cmp per case were 190 processes). No `limit` per run: the test
# as a whole runs under run-one.sh's time limit, and a hang fails it just the same.
mkdir "$tmp/1" "$tmp/2" "$tmp/3" || exit 1
same() {
	name=$1
	shift
	FUSEDIFF_SERIAL=1 "$FUSEDIFF" "$@" >"$tmp/1/$name" 2>&1 </dev/null
	echo "status $?" >>"$tmp/1/$name"
	FUSEDIFF_SPLIT_MIN=1 "$FUSEDIFF" "$@" >"$tmp/2/$name" 2>&1 </dev/null
	echo "status $?" >>"$tmp/2/$name"
	FUSEDIFF_SERIAL=1 FUSEDIFF_NO_MEMO=1 "$FUSEDIFF" "$@" >"$tmp/3/$name" 2>&1 </dev/null
	echo "status $?" >>"$tmp/3/$name"
}

# Every trace and damaged file's summary, loaded the three ways, is check_split's (one process
# for about 200 loads); here the two examples' reports, damage made in a large file, and
# standard input.
gzip -dc examples/llama8l_eager_sdpa.json.gz >"$tmp/a.json" &&
	gzip -dc examples/llama8l_compiled_sdpa.json.gz >"$tmp/b.json" ||
	{ echo "the examples were not inflated"; exit 1; }
same report_json --report json "$tmp/a.json" "$tmp/b.json"
same report_text --report text "$tmp/b.json" "$tmp/a.json"
# the chunks' threads hash what they read where the hash stands, and read again what they read
# ahead of it (src/load/raw_hash.h): the hash of the file all the same
if command -v sha256sum >/dev/null 2>&1; then
	for f in a b; do
		want=$(sha256sum <"$tmp/$f.json" | cut -c1-64)
		grep -q "\"sha256\":\"$want\"" "$tmp/2/report_json" ||
			fail "the JSON report's sha256 of $f.json (split) is not $want"
	done
fi

# Damage in the second half: a bad number three quarters into the file.
python3 - "$tmp/a.json" "$tmp" <<'EOF'
import sys
src, tmp = sys.argv[1], sys.argv[2]
d = open(src, "rb").read()
i = d.index(b'"ts": ', len(d) * 3 // 4) + 6
open(tmp + "/late_number.json", "wb").write(d[:i] + b"0x" + d[i + 1:])
i = d.index(b'"name": "', len(d) * 3 // 4) + 9
open(tmp + "/late_escape.json", "wb").write(d[:i] + b"\\q" + d[i:])
open(tmp + "/early_number.json", "wb").write(d[:d.index(b'"ts": ', len(d) // 4) + 6] + b"-x" +
                                             d[d.index(b'"ts": ', len(d) // 4) + 7:])
open(tmp + "/truncated.json", "wb").write(d[:len(d) * 7 // 8])
# names that end with the split's pattern ('}', ',', '{' and the closing quote): the guess
# lands inside a string, and the main thread must step over it and parse on alone
ev = (b'{"ph": "X", "cat": "kernel", "name": "k%s}, {", "pid": 0, "tid": 7, "ts": %d, '
      b'"dur": 1, "args": {"device": 0, "stream": 7, "correlation": %d}}')
evs = [ev % (b"x" * 3000, i, i + 1) for i in range(50)]


def guess(doc):
    start = doc.index(b"[") + 1
    mid = start + (len(doc) - start) // 2
    i = doc.index(b"}, {", mid)
    j = doc.index(b"}", mid)
    return i == j and doc[i + 4:i + 5] == b'"' and doc[i + 5:i + 7] == b", "


for pad in range(0, 4000, 7):
    doc = b'{"traceEvents": [' + b" " * pad + b",\n".join(evs) + b"]}\n"
    if guess(doc):
        break
assert guess(doc)
open(tmp + "/in_string.json", "wb").write(doc)
# the same with an error in the second half
bad = doc.replace(b'"correlation": 41}', b'"correlation": 41,}')
assert bad != doc
open(tmp + "/in_string_bad.json", "wb").write(bad)
# the middle of the file beyond traceEvents: in a later key
doc = b'{"traceEvents": [' + b",\n".join(evs[:3]) + b'],\n"zzz": "' + b"}, {" * 20000 + b'"}\n'
open(tmp + "/after_array.json", "wb").write(doc)
# tests/data/make-hostile.py's string_100mb.json.gz with a 4 MiB name
open(tmp + "/string_4mb.json", "wb").write(
    b'{"traceEvents": [{"cat": "kernel", "name": "' + b"gemm_" * (4 * 2**20 // 5) +
    b'", "ts": 1, "dur": 1, "args": {"device": 0}}, {"cat": "kernel", "name": "k", "ts": 2, '
    b'"dur": 1, "args": {"device": 0}}]}\n')
EOF
for c in late_number late_escape early_number truncated in_string in_string_bad after_array \
	string_4mb; do
	same "$c" --summary "$tmp/$c.json"
done
# standard input that starts inside its file (another process read its first bytes): offsets of
# the data are not offsets of the file, so it is parsed by one thread (a part read at the wrong
# offsets would be dropped by the check anyway); the same result
{ printf '          '; cat "$tmp/a.json"; } >"$tmp/blanks.json"
{ dd bs=5 count=1 of=/dev/null 2>/dev/null; FUSEDIFF_SERIAL=1 "$FUSEDIFF" --summary -; } \
	<"$tmp/blanks.json" >"$tmp/1/stdin" 2>&1
echo "status $?" >>"$tmp/1/stdin"
{ dd bs=5 count=1 of=/dev/null 2>/dev/null; FUSEDIFF_SPLIT_MIN=1 "$FUSEDIFF" --summary -; } \
	<"$tmp/blanks.json" >"$tmp/2/stdin" 2>&1
echo "status $?" >>"$tmp/2/stdin"
cp "$tmp/1/stdin" "$tmp/3/stdin"
grep -q "^status 0" "$tmp/2/stdin" || fail "stdin: $(head -c 300 "$tmp/2/stdin")"
grep -q "late_number.json: line [0-9]*, column [0-9]*: " "$tmp/2/late_number" ||
	fail "late_number: no line and column: $(head -c 300 "$tmp/2/late_number")"
grep -q "trailing comma before '}'" "$tmp/2/in_string_bad" ||
	fail "in_string_bad: $(head -c 300 "$tmp/2/in_string_bad")"
grep -q " 50 events" "$tmp/2/in_string" ||
	fail "in_string: $(head -c 300 "$tmp/2/in_string")"

# every case alike: two threads as one, the parser alone as with its memos
for m in 2 3; do
	[ $m = 2 ] && what="two threads print otherwise" || what="the parser alone prints otherwise"
	diff -rq "$tmp/1" "$tmp/$m" >"$tmp/differ" 2>&1 && continue
	sed -n "s|^Files $tmp/1/\([^ ]*\) and .* differ\$|\1|p" "$tmp/differ" >"$tmp/names"
	[ -s "$tmp/names" ] || fail "$what: $(head -c 600 "$tmp/differ")"
	while read -r c; do
		fail "$c: $what: $(diff "$tmp/1/$c" "$tmp/$m/$c" | head -c 600)"
	done <"$tmp/names"
done
finish split
