#!/bin/sh
# ranks.sh — two directories of per-rank traces compared rank by rank: paired by SGLang's
# TP-N file names, or by distributedInfo.rank when the names say nothing; every rank's totals,
# the spread, the rank analysed in full (the largest |B - A|, or --rank N); the reports,
# ranks.csv and the schema; and the clear errors: a missing rank, an ambiguous name, a name
# without a rank, a directory against a file, a --rank the directories lack, -o inside one.
set -u
: "${FUSEDIFF:?run through make check}"
. tests/sh/lib/cases.sh
. tests/sh/lib/schema.sh
NV=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
MI=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz

# A: two B300 ranks; B: rank 0 the same B300 trace (B - A = 0), rank 1 the MI300X one
mkdir "$tmp/a" "$tmp/b"
cp "$NV" "$tmp/a/1764-TP-0.trace.json.gz"
cp "$NV" "$tmp/a/1764-TP-1.trace.json.gz"
cp "$NV" "$tmp/b/1765-TP-0.trace.json.gz"
cp "$MI" "$tmp/b/1765-TP-1.trace.json.gz"
echo "not a trace" >"$tmp/a/README.md" # other files of the directory are not traces

"$FUSEDIFF" --report text "$tmp/a" "$tmp/b" >"$tmp/r.txt" 2>"$tmp/err" || fail "text: $(cat "$tmp/err")"
has_lines "$tmp/r.txt" "Ranks (us per pass; paired by file name)" \
	"  rank  A us  B us  B - A   B/A  A kernels  B kernels  A trace                  B trace" \
	"  0     4000  4000      0  1.00        393        393  1764-TP-0.trace.json.gz  1765-TP-0.trace.json.gz" \
	"  1 *   4000  8014  +4013  2.00        393        386  1764-TP-1.trace.json.gz  1765-TP-1.trace.json.gz" \
	"Spread (slowest rank - fastest): A 0.00 us (slowest rank 0), B 4013 us (slowest rank 1)." \
	"Analysed below: rank 1 (*), the largest |B - A|; --rank N analyses another." \
	"B: AMD Instinct MI300X ($tmp/b/1765-TP-1.trace.json.gz)"

# a gate judges the rank analysed: B's rank 1 is twice as slow (exit 3), rank 0 the same (exit
# 0); the JSON reports are those of the runs without a gate (the csv runs below are those)
"$FUSEDIFF" --report json -o "$tmp/r.json" --fail-if-slower 5 "$tmp/a" "$tmp/b" 2>/dev/null
[ $? = 3 ] || fail "the gate on rank 1 does not fail"
grep -qF '"ranks": {"paired_by":"file name","chosen":1,"a_spread_us":0,"b_spread_us":4013.073,"a_slowest":0,"b_slowest":1,"ranks":[' "$tmp/r.json" ||
	fail "json ranks: $(grep '"ranks"' "$tmp/r.json")"
"$FUSEDIFF" --report json --rank 0 -o "$tmp/r0.json" --fail-if-slower 5 "$tmp/a" "$tmp/b" 2>/dev/null ||
	fail "--rank 0: the gate on rank 0 fails"
grep -qF '"chosen":0,' "$tmp/r0.json" || fail "--rank 0 is not the chosen rank"
grep -qF "\"path\":\"$tmp/b/1765-TP-0.trace.json.gz\"" "$tmp/r0.json" || fail "--rank 0 does not analyse rank 0"
grep -qF '"delta_us": 0,' "$tmp/r0.json" || fail "rank 0: B - A is not 0"
"$FUSEDIFF" --report json "$NV" "$MI" >"$tmp/files.json" || fail "two files"
grep -q '"ranks"' "$tmp/files.json" && fail "two files: a ranks member"
schema_validate "$tmp/r.json" "$tmp/r0.json" "$tmp/files.json"
[ $? = 1 ] && fail "a ranks report does not validate against --print-schema"

# CSV: one ranks table, rectangular; ranks.csv in a directory report, none without ranks
"$FUSEDIFF" --report csv -o "$tmp/csv/" "$tmp/a" "$tmp/b" || fail "csv dir"
[ "$(cat "$tmp/csv/ranks.csv")" = "table,rank,chosen,a_path,b_path,a_passes,b_passes,a_us,b_us,delta_us,ratio,a_kernels,b_kernels
ranks,0,no,$tmp/a/1764-TP-0.trace.json.gz,$tmp/b/1765-TP-0.trace.json.gz,1,1,4000.457,4000.457,0,1,393,393
ranks,1,yes,$tmp/a/1764-TP-1.trace.json.gz,$tmp/b/1765-TP-1.trace.json.gz,1,1,4000.457,8013.53,4013.073,2.0032,393,386" ] ||
	fail "ranks.csv: $(cat "$tmp/csv/ranks.csv")"
"$FUSEDIFF" --report csv -o "$tmp/csv2/" "$NV" "$MI" || fail "csv dir of files"
[ -e "$tmp/csv2/ranks.csv" ] && fail "ranks.csv without ranks"

# distributedInfo.rank pairs files whose names say nothing (here against the name order)
mkdir "$tmp/da" "$tmp/db"
gzip -dc "$NV" | sed 's/"distributedInfo": {"backend": "nccl", "rank": 0/"distributedInfo": {"backend": "nccl", "rank": 1/' | gzip >"$tmp/da/first.json.gz"
cp "$NV" "$tmp/da/second.json.gz"
cp "$NV" "$tmp/db/x.json.gz"
gzip -dc "$MI" | sed 's/"distributedInfo": {"backend": "nccl", "rank": 0/"distributedInfo": {"backend": "nccl", "rank": 1/' | gzip >"$tmp/db/y.json.gz"
"$FUSEDIFF" --report csv -o "$tmp/dcsv/" "$tmp/da" "$tmp/db" || fail "distributedInfo"
has_lines "$tmp/dcsv/ranks.csv" "ranks,0,no,$tmp/da/second.json.gz,$tmp/db/x.json.gz,1,1,4000.457,4000.457,0,1,393,393" \
	"ranks,1,yes,$tmp/da/first.json.gz,$tmp/db/y.json.gz,1,1,4000.457,8013.53,4013.073,2.0032,393,386"
"$FUSEDIFF" --report text "$tmp/da" "$tmp/db" | grep -qx "Ranks (us per pass; paired by distributedInfo.rank)" ||
	fail "not paired by distributedInfo.rank"

# the explorer: a Ranks tab; Enter on rank 0 shows rank 0 in every view
printf '7\n:dump ranks\nk\nenter\n:dump rank0\n1\n:dump overview0\n' >"$tmp/keys"
(cd "$tmp" && FUSEDIFF_DUMP_DIR="$tmp" "$FUSEDIFF" --headless --size 120x30 --script keys a b) >/dev/null 2>"$tmp/err" ||
	fail "headless: $(cat "$tmp/err")"
has_lines "$tmp/ranks.screen" " 1 Overview  2 Layers  3 Pairs  4 Fusions  5 Summed  6 Totals  7 Ranks                                              1/2"
grep -Eq '^1 \*  .*  \+4013 +2\.00 ' "$tmp/ranks.screen" || fail "Ranks view: rank 1 not marked shown"
grep -Eq '^0 \*  .*  0 +1\.00 ' "$tmp/rank0.screen" || fail "Enter on rank 0 does not mark it: $(sed -n 5,7p "$tmp/rank0.screen")"
grep -q '^ B 1765-TP-0\.trace\.json\.gz  NVIDIA B300 SXM6 AC ' "$tmp/overview0.screen" || fail "the Overview does not show rank 0's B"
"$FUSEDIFF" --headless --size 120x30 --script /dev/null "$NV" "$MI" >"$tmp/files.screen" || fail "headless files"
grep -q "7 Ranks" "$tmp/files.screen" && fail "a Ranks tab without ranks"

# errors: one line naming what is wrong, exit 1 (2 for usage)
err_is() { # WANT_STATUS MESSAGE ARGS...
	want=$1 msg=$2
	shift 2
	"$FUSEDIFF" --report text "$@" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st = "$want" ] || fail "$*: exit $st, want $want"
	first=
	IFS= read -r first <"$tmp/err" # the first line, without a head process
	[ "$first" = "fusediff: $msg" ] || fail "$*: '$first', want '$msg'"
}
mv "$tmp/b/1765-TP-1.trace.json.gz" "$tmp/b/1765-TP-2.trace.json.gz"
err_is 1 "rank 1: $tmp/a/1764-TP-1.trace.json.gz has no counterpart in $tmp/b (paired by file name)" "$tmp/a" "$tmp/b"
err_is 1 "rank 2: $tmp/b/1765-TP-2.trace.json.gz has no counterpart in $tmp/a (paired by file name)" "$tmp/b" "$tmp/a"
mv "$tmp/b/1765-TP-2.trace.json.gz" "$tmp/b/1765-TP-1.trace.json.gz"
cp "$MI" "$tmp/b/1766-TP-1.trace.json.gz"
err_is 1 "$tmp/b: 1765-TP-1.trace.json.gz and 1766-TP-1.trace.json.gz both are rank 1 (by file name)" "$tmp/a" "$tmp/b"
rm "$tmp/b/1766-TP-1.trace.json.gz"
cp "$MI" "$tmp/b/profile.json.gz"
err_is 1 "$tmp/b/profile.json.gz: cannot tell its rank: no distributedInfo.rank and no rank-N, rank_N or TP-N in its name" "$tmp/a" "$tmp/b"
rm "$tmp/b/profile.json.gz"
mkdir "$tmp/empty"
err_is 1 "$tmp/empty: no trace files in the directory (names ending in .json, .json.gz, .sqlite, .sqlite.gz, .db, .rpd, .csv or .csv.gz)" "$tmp/a" "$tmp/empty"
# the command line's shape: usage errors (exit 2), before anything is read
err_is 2 "$tmp/a is a directory and $NV is not: give two traces, or two directories of per-rank traces" "$tmp/a" "$NV"
err_is 1 "--rank 7: the directories have ranks 0, 1" --rank 7 "$tmp/a" "$tmp/b"
err_is 2 "--rank 1 goes with two directories of per-rank traces" --rank 1 "$NV" "$MI"
err_is 2 "--rank needs a rank number, not 'x'" --rank x "$tmp/a" "$tmp/b"
err_is 2 "-o $tmp/a/report.json is inside the trace A, a directory of ranks: the report would become one of its traces" -o "$tmp/a/report.json" "$tmp/a" "$tmp/b"
[ -e "$tmp/a/report.json" ] && fail "a report was written into a directory of ranks"

finish ranks
