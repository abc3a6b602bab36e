#!/bin/sh
# ui_search.sh — / and f in the Layers and Overview views find the rows that hold a kernel of
# that name (they only searched the Layer and Part labels: /flash found nothing), and say which
# match of how many; the Summed view sorts by its Layers column (it sorted by a text key it
# did not have: nothing moved). Inductor kernels show their ops in the name columns
# ("red#8 add+mean+..."): / still finds them by the name in the trace.
set -u
: "${FUSEDIFF:?run through make check}"
A=examples/llama8l_eager_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
. tests/sh/lib/cases.sh
cat >"$tmp/keys" <<'KEYS'
2
search
:type flash
Enter
:dump layers-search
filter
:type flash
Enter
:dump layers-filter
1
search
:type triton_poi
Enter
:dump overview-search
KEYS
FUSEDIFF_DUMP_DIR=$tmp "$FUSEDIFF" --headless --size 120x30 --script "$tmp/keys" "$A" "$B" >/dev/null 2>&1 ||
	fail "the script did not play"
[ "$(tail -n 1 "$tmp/layers-search.screen")" = "/flash: match 2 of 8" ] ||
	fail "layers search: $(tail -n 1 "$tmp/layers-search.screen")"
grep -q '^8 of 10 rows shown' "$tmp/layers-filter.screen" ||
	fail "layers filter: $(tail -n 1 "$tmp/layers-filter.screen")"
[ "$(tail -n 1 "$tmp/overview-search.screen")" = "/triton_poi: match 1 of 4" ] ||
	fail "overview search: $(tail -n 1 "$tmp/overview-search.screen")"
{
	echo 5
	for i in 1 2 3 4 5 6 7 8 9 10; do echo sort-left; done
	echo top
	echo ":dump summed-layers"
	echo reverse
	echo top
	echo ":dump summed-layers-reversed"
} >"$tmp/keys2"
FUSEDIFF_DUMP_DIR=$tmp "$FUSEDIFF" --headless --size 160x40 --script "$tmp/keys2" "$A" "$B" >/dev/null 2>&1 ||
	fail "the sort script did not play"
sed -n 5p "$tmp/summed-layers.screen" | grep -Eq '^Layers(▲|\^)' || fail "summed: not sorted by Layers: $(sed -n 5p "$tmp/summed-layers.screen")"
sed -n 6p "$tmp/summed-layers.screen" | grep -q '^pro ' || fail "summed by Layers: $(sed -n 6p "$tmp/summed-layers.screen")"
sed -n 6p "$tmp/summed-layers-reversed.screen" | grep -q '^epi ' || fail "summed by Layers, reversed: $(sed -n 6p "$tmp/summed-layers-reversed.screen")"
# narrow screens: a cut sorted title keeps its marker, a dropped sorted column is named
{
	echo 2
	echo sort-right
	echo sort-right
	echo ":dump narrow-layers"
	echo 3
	echo sort-left # from alignment order to the last column, Fus: 80 columns do not show it
	echo ":dump narrow-pairs"
} >"$tmp/keys3"
FUSEDIFF_DUMP_DIR=$tmp "$FUSEDIFF" --headless --size 80x24 --script "$tmp/keys3" "$A" "$B" >/dev/null 2>&1 ||
	fail "the narrow script did not play"
sed -n 5p "$tmp/narrow-layers.screen" | grep -Eq ' A kernel(▼|v) ' || fail "narrow layers: $(sed -n 5p "$tmp/narrow-layers.screen")"
sed -n 4p "$tmp/narrow-pairs.screen" | grep -Eq 'by Fus(▼|v)  [0-9]+/135$' || fail "narrow pairs: $(sed -n 4p "$tmp/narrow-pairs.screen")"
# the short form of an Inductor kernel, and its name in the trace, both find it
{
	echo 3
	echo search
	echo ":type triton_red_fused__to_copy__unsafe_view_add_mean_mul_pow_rsqrt_12"
	echo Enter
	echo ":dump pairs-trace-name"
	echo top
	echo search
	echo ":type red#12 "
	echo Enter
	echo ":dump pairs-ops-name"
} >"$tmp/keys4"
FUSEDIFF_DUMP_DIR=$tmp "$FUSEDIFF" --headless --size 120x30 --script "$tmp/keys4" "$A" "$B" >/dev/null 2>&1 ||
	fail "the Inductor search script did not play"
grep -q 'red#12 add+m' "$tmp/pairs-trace-name.screen" ||
	fail "pairs: the ops form is not shown: $(sed -n 6p "$tmp/pairs-trace-name.screen")"
for d in pairs-trace-name pairs-ops-name; do
	tail -n 1 "$tmp/$d.screen" | grep -Eq ': match 1 of 3$' || fail "$d: $(tail -n 1 "$tmp/$d.screen")"
done
finish ui_search
