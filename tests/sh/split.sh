#!/bin/sh
# split.sh — a plain trace parsed by two threads (kineto_chunks.c: traceEvents cut into chunks
# that both threads take in turn, merged in order) prints exactly what one thread prints: the
# reports of the two Llama traces, and a summary from standard input that starts inside its file.
# The summaries of every trace and damaged file of tests/data and examples/, and the error
# messages (line and column) of damage made early, in the middle and late, with the chunks'
# guessed starts right, wrong (the pattern inside a string) or beyond the array, are
# tests/check_split.c's, loaded the same three ways in one process.
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

# Every trace and damaged file's summary, and the damage made in a large file, loaded the three
# ways, are check_split's (one process for about 220 loads); here the two Llama traces' reports
# and standard input (the eager one cut to its first 4 decode passes, make-eager-short.py: the
# example's events, 8.9 MB cut into 32 chunks, where the whole example's 26 MB cost three times
# the CPU in each of its 8 loads).
gzip -dc tests/data/traces/llama8l_eager_sdpa_4decode.json.gz >"$tmp/a.json" &&
	gzip -dc examples/llama8l_compiled_sdpa.json.gz >"$tmp/b.json" ||
	{ echo "the examples were not inflated"; exit 1; }
same report_json --report json "$tmp/a.json" "$tmp/b.json"
same report_text --report text "$tmp/b.json" "$tmp/a.json"
# the chunks' threads hash what they read where the hash stands, and read again what they read
# ahead of it (src/input/raw_hash.h): the hash of the file all the same
if command -v sha256sum >/dev/null 2>&1; then
	for f in a b; do
		want=$(sha256sum <"$tmp/$f.json" | cut -c1-64)
		grep -q "\"sha256\":\"$want\"" "$tmp/2/report_json" ||
			fail "the JSON report's sha256 of $f.json (split) is not $want"
	done
fi

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
