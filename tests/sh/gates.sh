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
	[ "$st" = "$want" ] || fail "$name: exit $st, want $want ($(cat "$tmp/$name.err"))"
	[ "$(cat "$tmp/$name.err")" = "fusediff: gate: $verdict" ] || fail "$name: '$(cat "$tmp/$name.err")'"
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
. tests/sh/lib/schema.sh
schema_validate "$tmp"/*.json
[ $? = 1 ] && fail "a JSON report does not validate against --print-schema"
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
	want=$(sha256sum <"$E" | cut -c1-64)
	grep -q "\"sha256\":\"$want\"" "$tmp/faster.json" || fail "sha256 of A is not $want"
	grep -q "\"size\":$(wc -c <"$E")," "$tmp/faster.json" || fail "size of A"
fi
grep -q '^  "tool_version": "fusediff ' "$tmp/faster.json" || fail "no tool_version"

# tidy CSV: one file per table
"$FUSEDIFF" --report csv -o "$tmp/csv/" "$E" "$C" || fail "csv dir"
for t in traces classes attribution layers pairs fusions pair_groups; do
	f=$tmp/csv/$t.csv
	[ -s "$f" ] || { fail "csv dir: no $t.csv"; continue; }
	head -n 1 "$f" | grep -q '^table,' || fail "$t.csv: no header"
	[ "$(grep -c '^table,' "$f")" = 1 ] || fail "$t.csv: more than one header row"
	[ "$(tail -n +2 "$f" | grep -vc "^$t,")" = 0 ] || fail "$t.csv: rows of another table"
	grep -q '^$' "$f" && fail "$t.csv: an empty line"
done
"$FUSEDIFF" --report csv "$E" "$C" >"$tmp/one.csv"
cat "$tmp/csv/traces.csv" "$tmp/csv/classes.csv" >/dev/null
[ "$(grep -vc '^$' "$tmp/one.csv")" = "$(cat "$tmp"/csv/*.csv | wc -l)" ] || fail "the tables hold other rows than the single file"
# each file reads back with Python's csv module as one rectangular table
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp"/csv/*.csv <<'PY' || fail "a CSV file is not one rectangular table"
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.reader(open(path, newline="", encoding="utf-8")))
    widths = {len(r) for r in rows}
    assert len(rows) > 1 and len(widths) == 1, "%s: %d rows of widths %s" % (path, len(rows), widths)
PY
fi

finish gates
