# tests/sh/lib/cases.sh — sourced by the shell tests that run fusediff case by case and count
# failures (hostile.sh, hardening.sh, gates.sh, warnings.sh, ranks.sh, profilers.sh, ...). Sets $tmp (a scratch directory removed on exit) and
# $fails; the caller ends with `finish NAME`.
: "${FUSEDIFF:?run through make check}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# A time limit where coreutils' timeout exists: a hang fails the test instead of blocking it.
# Under tests/run-one.sh (make check), which limits the whole test, none of its own: a timeout
# process per run cost about 12 ms of CPU here, 250 of them in make check.
limit() {
	if [ -z "${FUSEDIFF_TEST_LIMITED:-}" ] && command -v timeout >/dev/null 2>&1; then
		timeout 120 "$@"
	else
		"$@"
	fi
}

# run NAME EXPECTED_STATUS ARGS... : run fusediff (standard input /dev/null), keep stdout and
# stderr in $tmp/NAME.out and $tmp/NAME.err
run() {
	name=$1 want=$2
	shift 2
	limit "$FUSEDIFF" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	status=$?
	[ "$status" = "$want" ] || fail "$name: exit status $status, expected $want ($(head -c 300 "$tmp/$name.err"))"
}

# expect_err NAME LINE : stderr is exactly LINE
expect_err() {
	printf '%s\n' "$2" >"$tmp/$1.want"
	cmp -s "$tmp/$1.want" "$tmp/$1.err" || fail "$1: stderr is '$(head -c 300 "$tmp/$1.err")', expected '$2'"
}

# first_err NAME LINE : the first line of stderr is LINE (read by the shell: a head process
# cost 4 ms of CPU)
first_err() {
	first=
	IFS= read -r first <"$tmp/$1.err"
	[ "$first" = "$2" ] || fail "$1: stderr starts '$first', expected '$2'"
}

# expect_line NAME LINE : stdout has exactly this line
expect_line() {
	grep -qxF -- "$2" "$tmp/$1.out" || fail "$1: no line '$2' in the output"
}

# has_lines FILE LINE... : FILE has each LINE as a whole line; one awk for them all, where a
# grep a line cost 4-6 ms of CPU on the 2-core VM (a process start)
has_lines() {
	awk 'BEGIN { for (i = 2; i < ARGC; i++) want[ARGV[i]] = 1; ARGC = 2 }
		$0 in want { delete want[$0] }
		END { for (w in want) { print "FAIL: " FILENAME " lacks: " w; bad = 1 } exit bad }' "$@" ||
		fails=$((fails + 1))
}

# finish NAME : exit 1 when a case failed
finish() {
	[ "$fails" = 0 ] || exit 1
	echo "$1: all cases passed"
	exit 0
}

# slower_copy SRC OUT FACTOR [gemm]: OUT, a copy of the Kineto trace SRC whose kernels (with
# gemm: those named nvjet* or *gemm*) last FACTOR times longer; gzip-compressed where OUT ends
# in .gz, else plain JSON (the 26 MB eager example: gzip -1 cost 0.2 s of CPU a copy, and each
# fusediff run inflating it 0.1 s). Line by line, as PyTorch writes a trace (a kernel's "cat"
# and "name" on one line, its "dur" on a line after it): awk where python3 cost 1.5 s of CPU per
# copy of the 26 MB eager example.
slower_copy() {
	case $2 in
	*.gz) slower_lines "$@" | gzip -1 >"$2" ;;
	*) slower_lines "$@" >"$2" ;;
	esac
}
# slower_copies SRC OUT_ALL FACTOR_ALL OUT_GEMM FACTOR_GEMM: the plain JSON copies that
# slower_copy SRC OUT_ALL FACTOR_ALL and slower_copy SRC OUT_GEMM FACTOR_GEMM gemm make, byte for
# byte, from one inflating and one awk reading of SRC (each was 0.25-0.35 s of CPU for the 26 MB
# eager example)
slower_copies() {
	gzip -dc "$1" | awk -v o1="$2" -v f1="$3" -v o2="$4" -v f2="$5" '
		function slower(f) {
			if (!match($0, /"dur": [0-9.]+/))
				return $0
			return substr($0, 1, RSTART - 1) sprintf("\"dur\": %.3f", substr($0, RSTART + 7, RLENGTH - 7) * f) substr($0, RSTART + RLENGTH)
		}
		/"cat": "kernel"/ {
			gemm = index($0, "\"name\": \"nvjet") || index(tolower($0), "gemm")
			kernel = 1
			print >o1
			print >o2
			next
		}
		kernel && /"dur":/ {
			print slower(f1) >o1
			print (gemm ? slower(f2) : $0) >o2
			kernel = 0
			next
		}
		{ print >o1; print >o2 }'
}
slower_lines() {
	gzip -dc "$1" | awk -v f="$3" -v only="${4:-}" '
		/"cat": "kernel"/ {
			want = only == "" || index($0, "\"name\": \"nvjet") || index(tolower($0), "gemm")
			print
			next
		}
		want != "" && /"dur":/ {
			if (want && match($0, /"dur": [0-9.]+/))
				$0 = substr($0, 1, RSTART - 1) sprintf("\"dur\": %.3f", substr($0, RSTART + 7, RLENGTH - 7) * f) substr($0, RSTART + RLENGTH)
			want = ""
		}
		{ print }'
}
