#!/bin/sh
# hostile.sh — fusediff --summary on hostile and damaged traces: exit status 0 or 1, never a
# crash or a hang; on bad input exactly one line on stderr naming the file and the position.
# Run by make check with $FUSEDIFF set and the repository root as the current directory.
set -u
: "${FUSEDIFF:?}"
bad=tests/data/bad
. tests/sh/lib/cases.sh

# Every damaged file: 0 or 1, and on 1 a single line that names the file. string_100mb.json.gz
# (a 100 MiB name: 3.3 s of CPU a load) is check_hostile's (test_string_100mb: it loads, memory
# stays bounded, the summary stays short), not loaded here.
for f in "$bad"/*; do
	[ -f "$f" ] || continue
	case $f in */string_100mb.json.gz) continue ;; esac
	n=all_${f##*/}
	limit "$FUSEDIFF" --summary "$f" >"$tmp/$n.out" 2>"$tmp/$n.err"
	status=$?
	echo $status >"$tmp/$n.status"
	case $status in
	0) [ -s "$tmp/$n.err" ] && fail "$f: loaded, but wrote to stderr: $(head -c 300 "$tmp/$n.err")" ;;
	1)
		# (read by the shell: a wc and a grep a file were 3 processes, 12 ms of CPU)
		lines=0 first=
		while IFS= read -r line; do
			[ $lines = 0 ] && first=$line
			lines=$((lines + 1))
		done <"$tmp/$n.err"
		[ $lines -eq 1 ] || fail "$f: stderr is not one line"
		case $first in
		"fusediff: $f: "?*) ;;
		*) fail "$f: the message does not name the file: $(head -c 300 "$tmp/$n.err")" ;;
		esac
		;;
	*) fail "$f: exit status $status (crash or hang)" ;;
	esac
done

# Exact messages for the hostile inputs. A file's --summary is the loop's above, read again here
# (a second run of the same command was a fusediff start each): loaded FILE STATUS, then the
# checks of $tmp/all_FILE.out and .err
loaded() {
	st=
	read -r st <"$tmp/all_$1.status"
	[ "$st" = "$2" ] || fail "$1: exit status $st, expected $2"
}
loaded deep_args_1e6.json.gz 1
expect_err all_deep_args_1e6.json.gz "fusediff: $bad/deep_args_1e6.json.gz: line 1, column 594: nesting too deep (more than 512 levels)"
loaded deep_top_1e6.json.gz 1
expect_err all_deep_top_1e6.json.gz "fusediff: $bad/deep_top_1e6.json.gz: line 1, column 3086: nesting too deep (more than 512 levels)"
gzip -dc "$bad/deep_args_1e6.json.gz" >"$tmp/deep.json"
limit "$FUSEDIFF" --summary - <"$tmp/deep.json" >"$tmp/deep_stdin.out" 2>"$tmp/deep_stdin.err"
[ $? = 1 ] || fail "deep_stdin: exit status is not 1"
expect_err deep_stdin "fusediff: <stdin>: line 1, column 594: nesting too deep (more than 512 levels)"
loaded args_bad_escape.json 1
expect_err all_args_bad_escape.json "fusediff: $bad/args_bad_escape.json: line 1, column 33: invalid escape sequence in string"
loaded number_at_eof.json 1
expect_err all_number_at_eof.json "fusediff: $bad/number_at_eof.json: line 1, column 95: unexpected end of file (the JSON is truncated)"
loaded kernel_time_overflow.json 1
expect_err all_kernel_time_overflow.json "fusediff: $bad/kernel_time_overflow.json: kernel durations add up to more than 200 years: the times are damaged"
run missing 1 --summary "$tmp/no-such-trace.json"
expect_err missing "fusediff: $tmp/no-such-trace.json: No such file or directory"
run directory 1 --summary "$bad"
expect_err directory "fusediff: $bad: is a directory"

# Several GPUs: the one with the most kernel time, said so, and --device picks another.
pad='                      ' # the summary's label column
loaded multi_device.json 0
has_lines "$tmp/all_multi_device.json.out" "  device                 1 of 3: 0 (5 kernels), 1 (2 kernels), 3 (1 copy)" \
	"  GPU                    NVIDIA H100 80GB HBM3" \
	"  $pad 6 on other devices, not analysed (use --device N or all);"
run multi0 0 --summary "$bad/multi_device.json" --device 0
has_lines "$tmp/multi0.out" "  device                 0 of 3: 0 (5 kernels), 1 (2 kernels), 3 (1 copy)" \
	"  GPU                    NVIDIA H200" \
	"  $pad 3 on other devices, not analysed (use --device N or all);"
run multi3 1 --device 3 --summary "$bad/multi_device.json"
expect_err multi3 "fusediff: $bad/multi_device.json: no GPU kernels on device 3"
run multi7 1 --device 7 --summary "$bad/multi_device.json"
expect_err multi7 "fusediff: $bad/multi_device.json: no kernels on device 7 (kernels ran on device 0, 1, 3)"

# Damage that is tolerated is reported in the summary.
loaded bad_durations.json 0
expect_line all_bad_durations.json "  17 kept events had a missing, negative or unreadable ts/dur and were skipped"

# Analyses that must still make sense: one kernel against itself, everything Other, and two
# traces that share nothing (a report all the same: no fusion, every kernel Other on both sides).
XDG_CONFIG_HOME=$tmp/no-config run one 0 --report json "$bad/one_kernel.json" "$bad/one_kernel.json"
grep -q '"kind":"match","class":"GEMM"' "$tmp/one.out" || fail "one: the kernel is not matched with itself"
grep -qxF '  "fusions": [],' "$tmp/one.out" || fail "one: a kernel against itself shows a fusion"
XDG_CONFIG_HOME=$tmp/no-config run other 0 --report json "$bad/all_other.json" "$bad/all_other.json"
[ "$(grep -c '"other_share":1,' "$tmp/other.out")" = 2 ] || fail "other: the Other share is not 1 on both sides"
XDG_CONFIG_HOME=$tmp/no-config run nothing 0 --report json "$bad/share_nothing_a.json" "$bad/share_nothing_b.json"
[ "$(grep -c '"other_share":1,' "$tmp/nothing.out")" = 2 ] || fail "nothing: the Other share is not 1 on both sides"
grep -qxF '  "fusions": [],' "$tmp/nothing.out" || fail "nothing: traces that share nothing show a fusion"
XDG_CONFIG_HOME=$tmp/no-config run nothing_text 0 --report text "$bad/share_nothing_a.json" "$bad/share_nothing_b.json"

# A rules file whose regular expression would take all memory inside regcomp().
ex=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
XDG_CONFIG_HOME=$tmp/no-config run regex 1 --report json --rules "$bad/rules_exploding_regex.rules" "$ex" "$ex"
expect_err regex "fusediff: $bad/rules_exploding_regex.rules: line 2: bad regular expression 'y++++++++++++++++++++++++++++++++++++++.c': repetitions multiply to more than 64 copies"

# A 1 MiB kernel name through a pipe: loads, and the summary stays short. (A unit of 48 MB through
# a pipe loads in seconds, not minutes: check_hostile's test_huge_unit_from_pipe; the 100 MiB name
# from its file: test_string_100mb.)
gzip -dc "$bad/huge_name.json.gz" | limit "$FUSEDIFF" --summary - >"$tmp/huge.out" 2>"$tmp/huge.err"
[ $? = 0 ] || fail "huge: fusediff --summary - failed: $(head -c 300 "$tmp/huge.err")"
expect_line huge "  kernels                2 (+ 0 copies/memsets), 5.00 us GPU time"
[ "$(wc -c <"$tmp/huge.out")" -lt 10000 ] || fail "huge: the summary prints the 1 MiB name"

finish hostile
