#!/bin/sh
# gates.sh — the CI gates and the tidy CSV: --fail-if-slower, --fail-on-lost-fusion and
# --min-delta-us exit 3 when exceeded, 4 when the traces are not comparable, 0 otherwise, with
# one verdict line; --report csv -o DIR/ writes one file per table with one header row.
set -u
: "${FUSEDIFF:?run through make check}"
# A: eager, 1.29 ms per pass slower than compiled: the bundled eager trace cut to its first 4
# decode passes (tests/data/traces/make-eager-short.py), whose prefill passes, the ones compared
# with the compiled trace, are the example's (the same verdicts at a third of the loading)
E=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
C=examples/llama8l_compiled_sdpa.json.gz
. tests/sh/lib/cases.sh
gate() { # NAME WANT_STATUS VERDICT ARGS...
	name=$1 want=$2 verdict=$3
	shift 3
	"$FUSEDIFF" --report json -o "$tmp/$name.json" "$@" 2>"$tmp/$name.err"
	st=$?
	# standard error read by the shell (no cat process): the verdict line and nothing else
	err= more=
	{
		IFS= read -r err
		while IFS= read -r line; do more="$more
$line"; done
	} <"$tmp/$name.err"
	err=$err$more
	[ "$st" = "$want" ] || fail "$name: exit $st, want $want ($err)"
	[ "$err" = "fusediff: gate: $verdict" ] || fail "$name: '$err'"
}
gate faster 0 "B is 27.87% faster per pass than A (-1293.9 us; limit 5.00%, noise 0.01%, no interval): passes" \
	--fail-if-slower 5 "$E" "$C"
gate slower 3 "B is 38.63% slower per pass than A (+1293.9 us; limit 5.00%, noise 0.01%, no interval): FAILED" \
	--fail-if-slower 5 "$C" "$E"
gate within 0 "B is 38.63% slower per pass than A (+1293.9 us; limit 50.00%, noise 0.01%, no interval): passes" \
	--fail-if-slower 50 "$C" "$E"
gate small 0 "B is 38.63% slower per pass than A (+1293.9 us; limit 5.00%, noise 0.01%, no interval) but under --min-delta-us: passes" \
	--fail-if-slower 5 --min-delta-us 2000 "$C" "$E"
gate lost 3 "4 fusions A has that B runs unfused: FAILED" --fail-on-lost-fusion "$C" "$E"
gate kept 0 "0 fusions A has that B runs unfused: passes" --fail-on-lost-fusion "$E" "$C"
gate lost_small 0 "0 fusions A has that B runs unfused: passes" --fail-on-lost-fusion --min-delta-us 100000 "$C" "$E"
# against --print-schema: a gate does not change the report, so the 7 are two reports, E against
# C (faster, kept) and C against E (slower, within, small, lost, lost_small): one of each,
# validated by the python3 at the end
# the report is written whatever the verdict
[ -s "$tmp/slower.json" ] || fail "slower: no report"
# not comparable: an 8-layer model against a 32-layer one; a prefill step against decode steps
gate incomparable 4 "not comparable: the sides have different depths (A: 8 layers per pass, B: 32): the deeper side's extra layers have no counterpart" \
	--fail-if-slower 5 "$E" examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
gate nolayers 4 "not comparable: the two traces have no phase in common: comparing all passes" \
	--fail-if-slower 5 "$E" tests/data/profilers/rocpd_built.db
"$FUSEDIFF" --fail-if-slower 5 "$E" "$C" >/dev/null 2>&1
[ $? = 2 ] || fail "a gate without --report is a usage error"
"$FUSEDIFF" --report json --fail-if-slower x "$E" "$C" >/dev/null 2>&1
[ $? = 2 ] || fail "--fail-if-slower x is a usage error"

# provenance: the tool, each input's size, format and SHA-256
if command -v sha256sum >/dev/null 2>&1; then
	sha=$(sha256sum <"$E")
	sha=${sha%% *} size=$(wc -c <"$E")
else
	sha= size= # not checked
fi
# the three looked for by one awk (where a grep each cost a process start)
awk -v sha="\"sha256\":\"$sha\"" -v size="\"size\":$size," -v have="$size" '
	index($0, sha) { s = 1 }
	index($0, size) { z = 1 }
	/^  "tool_version": "fusediff / { v = 1 }
	END {
		if (have != "" && !s) print "FAIL: sha256 of A is not " sha
		if (have != "" && !z) print "FAIL: size of A"
		if (!v) print "FAIL: no tool_version"
		exit !((have == "" || s && z) && v)
	}' "$tmp/faster.json" || fails=$((fails + 1))

# tidy CSV: one file per table
"$FUSEDIFF" --report csv -o "$tmp/csv/" "$E" "$C" || fail "csv dir"
set --
for t in traces classes attribution layers pairs fusions pair_groups; do
	f=$tmp/csv/$t.csv
	[ -s "$f" ] && set -- "$@" "$f" || fail "csv dir: no $t.csv"
done
"$FUSEDIFF" --report csv "$E" "$C" >"$tmp/one.csv"
# one awk for what a head, a tail and four greps a table checked: each table's file starts with
# the one header row (table,...), every other row is of that table, no line is empty; and the
# single file's non-empty lines are as many as the lines of all the files of the directory
awk -v one="$tmp/one.csv" -v checked=" $* " '
	function bad(m) { print "FAIL: " m; n++ }
	FILENAME == one { if ($0 != "") single++; next }
	{ lines++ }
	!index(checked, " " FILENAME " ") { next }
	FNR == 1 {
		t = FILENAME
		sub(/.*\//, "", t)
		sub(/\.csv$/, "", t)
		if (!/^table,/) bad(t ".csv: no header")
	}
	/^table,/ && ++headers[t] == 2 { bad(t ".csv: more than one header row") }
	FNR > 1 && index($0, t ",") != 1 && !other[t]++ { bad(t ".csv: rows of another table") }
	/^$/ && !empty[t]++ { bad(t ".csv: an empty line") }
	END {
		if (single != lines) bad("the tables hold other rows than the single file")
		exit n > 0
	}' "$tmp/one.csv" "$tmp"/csv/*.csv || fails=$((fails + 1))
# each file reads back with Python's csv module as one rectangular table; and the two JSON
# reports above validate against --print-schema (lib/schema_check.py, in the same python3: a
# start fewer than schema_validate's process of its own)
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/faster.json" "$tmp/slower.json" "$tmp"/csv/*.csv <<'PY' ||
import csv, sys
sys.path.insert(0, "tests/sh/lib")
from schema_check import validate
for path in sys.argv[3:]:
    rows = list(csv.reader(open(path, newline="", encoding="utf-8")))
    widths = {len(r) for r in rows}
    assert len(rows) > 1 and len(widths) == 1, "%s: %d rows of widths %s" % (path, len(rows), widths)
assert validate(*sys.argv[1:3]), "a JSON report does not validate against --print-schema"
PY
		fail "a CSV file is not one rectangular table, or a JSON report does not validate"
fi

finish gates
