#!/bin/sh
# bench.sh — a smoke run of every benchmark under bench/ (tiny inputs, one round each), so that
# none can rot unnoticed: bench/tui-keys.sh (the explorer's keys, on a real comparison and on a
# synthetic one of 1000 pairs), analysis.sh, classify.sh, one_name_one_class.sh, scale.sh,
# same-output.sh, rounds.sh, and the drivers bench.py, loader.py and profilers.py with --smoke.
# Their figures are not checked (no timed assertion): only that each runs to its end and prints
# its rows, and that none of the commands it times fails (bench.py and loader.py then exit 1,
# profilers.py stops). bench/gen-trace has its own test (gen_trace.sh).
set -u
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export FUSEDIFF_BENCH_GEN="$tmp/gen"
fail=0
small=examples/llama8l_compiled_sdpa.json.gz

# run NAME PATTERN COMMAND...: COMMAND exits 0 and prints a line matching PATTERN (its time is
# printed, for the record only)
run() {
	name=$1 pat=$2
	shift 2
	if ! /usr/bin/time -f "%e s wall %U u %S s" -o "$tmp/time" "$@" >"$tmp/out" 2>&1; then
		echo "FAIL: $name exited $?:"
		tail -n 20 "$tmp/out"
		fail=1
	elif ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL: $name printed no line matching '$pat':"
		tail -n 20 "$tmp/out"
		fail=1
	else
		echo "ok: $name ($(cat "$tmp/time"))"
	fi
}

run tui-keys.sh '^bench sort-right  *1 keys.*94 rows' \
	env TUI_KEYS_ONCE=1 TUI_KEYS_TRACE=$small TUI_BENCH_PAIRS=1000 sh bench/tui-keys.sh
grep -q '^bench phase ' "$tmp/out" || { echo "FAIL: tui-keys.sh: no phase key on $small"; fail=1; }
run analysis.sh '^  *compare' sh bench/analysis.sh $small $small 1
run classify.sh 'names' sh bench/classify.sh 1000
run one_name_one_class.sh '' sh bench/one_name_one_class.sh $small
run scale.sh '^--summary, rocprofv3 JSON' sh bench/scale.sh 100
# (one trace: its summaries, gzip and plain, and its reports against the next trace, itself: every
# command of the script, where two traces ran each twice)
mkdir -p "$tmp/traces"
cp $small "$tmp/traces/"
run same-output.sh ' 5 outputs' env PLAIN="$tmp/plain" sh bench/same-output.sh "$FUSEDIFF" "$tmp/same" "$tmp/traces"
run rounds.sh '^summary  *wall' sh bench/rounds.sh 1 "summary=$FUSEDIFF --summary $small"
run bench.py '^fusediff --report json A.json B.json' python3 bench/bench.py --smoke --fusediff "$FUSEDIFF"
run loader.py '^fusediff --summary R.json.gz' python3 bench/loader.py --smoke --fusediff "$FUSEDIFF" --gen "$tmp/loader"
# (--smoke measures R alone; the 1 MB trace G is still generated and compressed)
[ -s "$tmp/loader/llama8l_compiled_sdpa-1M.json.gz" ] || { echo "FAIL: loader.py: no G.json.gz generated"; fail=1; }
run profilers.py '^fusediff --summary rocprofv3 JSON' python3 bench/profilers.py --smoke --fusediff "$FUSEDIFF"
exit $fail
