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
# Two runs of the explorer, not four: the searches at 120x30 and the Summed view's sort at
# 160x40 (:resize) leave each other's views alone and dump the same screens as a run each;
# the narrow screens sort the Layers view the searches read, so they have a run of their own.
# The screens are read by the shell (line), not by a sed, tail or grep per check.
printf '%s\n' 2 search ':type flash' Enter ':dump layers-search' \
	filter ':type flash' Enter ':dump layers-filter' \
	1 search ':type triton_poi' Enter ':dump overview-search' >"$tmp/keys"
# the short form of an Inductor kernel, and its name in the trace, both find it
printf '%s\n' 3 search ':type triton_red_fused__to_copy__unsafe_view_add_mean_mul_pow_rsqrt_12' \
	Enter ':dump pairs-trace-name' top search ':type red#12 ' Enter ':dump pairs-ops-name' >>"$tmp/keys"
{
	echo ":resize 160x40"
	echo 5
	for i in 1 2 3 4 5 6 7 8 9 10; do echo sort-left; done
	echo top
	echo ":dump summed-layers"
	echo reverse
	echo top
	echo ":dump summed-layers-reversed"
} >>"$tmp/keys"
FUSEDIFF_DUMP_DIR=$tmp "$FUSEDIFF" --headless --size 120x30 --script "$tmp/keys" "$A" "$B" >/dev/null 2>&1 ||
	fail "the search and sort script did not play"
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

# line NAME N: line N of the screen NAME in $line (N 0: the last line); with a third argument,
# status 0 as soon as a line starts with it
line() {
	line='' n=0
	while IFS= read -r l; do
		n=$((n + 1))
		line=$l
		[ "$n" = "$2" ] && return 0
		case ${3+set} in set) case $l in "$3"*) return 0 ;; esac ;; esac
	done <"$tmp/$1.screen"
	[ "$2" = 0 ] && [ -z "${3+set}" ]
}

line layers-search 0
[ "$line" = "/flash: match 2 of 8" ] || fail "layers search: $line"
line layers-filter 0 "8 of 10 rows shown" || fail "layers filter: $line"
line overview-search 0
[ "$line" = "/triton_poi: match 1 of 4" ] || fail "overview search: $line"
line summed-layers 5
case $line in 'Layers▲'* | 'Layers^'*) ;; *) fail "summed: not sorted by Layers: $line" ;; esac
line summed-layers 6
case $line in 'pro '*) ;; *) fail "summed by Layers: $line" ;; esac
line summed-layers-reversed 6
case $line in 'epi '*) ;; *) fail "summed by Layers, reversed: $line" ;; esac
line narrow-layers 5
case $line in *' A kernel▼ '* | *' A kernelv '*) ;; *) fail "narrow layers: $line" ;; esac
# 'by Fus▼  N/135' at the end of the line (or v for ▼), N digits
line narrow-pairs 4
ok=
for m in ▼ v; do
	case $line in *"by Fus$m  "*/135)
		r=${line##*"by Fus$m  "}
		r=${r%/135}
		case $r in '' | *[!0-9]*) ;; *) ok=1 ;; esac
		;;
	esac
done
[ -n "$ok" ] || fail "narrow pairs: $line"
grep -q 'red#12 add+m' "$tmp/pairs-trace-name.screen" ||
	fail "pairs: the ops form is not shown: $(line pairs-trace-name 6 && echo "$line")"
for d in pairs-trace-name pairs-ops-name; do
	line $d 0
	case $line in *': match 1 of 3') ;; *) fail "$d: $line" ;; esac
done
finish ui_search
