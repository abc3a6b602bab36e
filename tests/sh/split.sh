#!/bin/sh
# split.sh — a plain trace parsed by two threads (kineto_chunks.c: traceEvents cut into chunks
# that both threads take in turn, merged in order) prints exactly what one thread prints: the
# summaries and reports of every trace and damaged file of tests/data and examples/, and the
# error messages (line and column) of damage early, in the middle and late, with the chunks'
# guessed starts right, wrong (the pattern inside a string) or beyond the array.
# FUSEDIFF_SPLIT_MIN=1 cuts even the smallest file into up to 32 chunks; FUSEDIFF_SERIAL=1
# parses with one thread. Each is also parsed with FUSEDIFF_NO_MEMO=1, nothing remembered from
# one event for the next (runs of keys, categories, grids, names, containers: every byte by the
# strict parser alone), which must print the same again.
set -u
: "${FUSEDIFF:?}"
. tests/sh/lib/cases.sh

# same NAME ARGS... : output, stderr and status alike with one thread and with two
same() {
	name=$1
	shift
	FUSEDIFF_SERIAL=1 limit "$FUSEDIFF" "$@" >"$tmp/$name.1" 2>&1 </dev/null
	echo "status $?" >>"$tmp/$name.1"
	FUSEDIFF_SPLIT_MIN=1 limit "$FUSEDIFF" "$@" >"$tmp/$name.2" 2>&1 </dev/null
	echo "status $?" >>"$tmp/$name.2"
	cmp -s "$tmp/$name.1" "$tmp/$name.2" ||
		fail "$name: two threads print otherwise: $(diff "$tmp/$name.1" "$tmp/$name.2" | head -c 600)"
	FUSEDIFF_SERIAL=1 FUSEDIFF_NO_MEMO=1 limit "$FUSEDIFF" "$@" >"$tmp/$name.3" 2>&1 </dev/null
	echo "status $?" >>"$tmp/$name.3"
	cmp -s "$tmp/$name.1" "$tmp/$name.3" ||
		fail "$name: the parser alone prints otherwise: $(diff "$tmp/$name.1" "$tmp/$name.3" | head -c 600)"
}

n=0
for f in examples/*.json.gz tests/data/traces/*.json.gz tests/data/bad/* tests/data/*/*.json; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	case $f in
	*.gz) gzip -dc "$f" >"$tmp/t$n.json" 2>/dev/null || cp "$f" "$tmp/t$n.json" ;;
	*) cp "$f" "$tmp/t$n.json" ;;
	esac
	same "summary_$n" --summary "$tmp/t$n.json"
done
gzip -dc examples/llama8l_eager_sdpa.json.gz >"$tmp/a.json"
gzip -dc examples/llama8l_compiled_sdpa.json.gz >"$tmp/b.json"
same report_json --report json "$tmp/a.json" "$tmp/b.json"
same report_text --report text "$tmp/b.json" "$tmp/a.json"

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
EOF
for c in late_number late_escape early_number truncated in_string in_string_bad after_array; do
	same "$c" --summary "$tmp/$c.json"
done
# standard input that starts inside its file (another process read its first bytes): offsets of
# the data are not offsets of the file, so it is parsed by one thread (a part read at the wrong
# offsets would be dropped by the check anyway); the same result
{ printf '          '; cat "$tmp/a.json"; } >"$tmp/blanks.json"
for m in 1 2; do
	if [ $m = 1 ]; then export FUSEDIFF_SERIAL=1; else unset FUSEDIFF_SERIAL; export FUSEDIFF_SPLIT_MIN=1; fi
	{ dd bs=5 count=1 of=/dev/null 2>/dev/null; limit "$FUSEDIFF" --summary -; } <"$tmp/blanks.json" >"$tmp/stdin.$m" 2>&1
	echo "status $?" >>"$tmp/stdin.$m"
	unset FUSEDIFF_SERIAL FUSEDIFF_SPLIT_MIN
done
cmp -s "$tmp/stdin.1" "$tmp/stdin.2" || fail "stdin: $(diff "$tmp/stdin.1" "$tmp/stdin.2" | head -c 600)"
grep -q "^status 0" "$tmp/stdin.2" || fail "stdin: $(head -c 300 "$tmp/stdin.2")"
grep -q "late_number.json: line [0-9]*, column [0-9]*: " "$tmp/late_number.2" ||
	fail "late_number: no line and column: $(head -c 300 "$tmp/late_number.2")"
grep -q "trailing comma before '}'" "$tmp/in_string_bad.2" ||
	fail "in_string_bad: $(head -c 300 "$tmp/in_string_bad.2")"
grep -q " 50 events" "$tmp/in_string.2" ||
	fail "in_string: $(head -c 300 "$tmp/in_string.2")"
finish split
