#!/bin/sh
# run-one.sh RESULT TEST [ARGS...] — run one test as `make check` does (the Makefile gives each
# test its own target) and write its result file: the first line is PASS, FAIL (exit N) or
# SKIP, the rest is what the test printed. Status 77 from a test means skipped (a tool it
# needs is missing): reported, never counted as passed.
#
# It prints one line, `PASS: NAME (12.3 s, 4.5 s CPU)`: the wall time, and the CPU (user + system)
# of the test's processes that it waited for (a daemon such as tmux's server is not counted).
#
# Every test runs with the signals that end a program at their defaults, whatever the caller
# had (under nohup SIGHUP is ignored on entry, and a test of signal handling would hang), in
# the C locale, and under a time limit: $FUSEDIFF_TEST_TIMEOUT seconds (default 300), then
# SIGTERM and, 10 s later, SIGKILL. FUSEDIFF_VALGRIND=1 runs a Check binary under valgrind.
#
# Check's own limit per test (4 s where a suite sets none) failed tests on a loaded machine: 60 s
# here, and every Check limit (the suites' own too) multiplied by 10 for a sanitized build
# (FUSEDIFF_SANITIZED=1, make sanitize) and by 30 under valgrind. The shell tests' `limit`
# (tests/sh/lib/cases.sh) adds no time limit of its own under this one (FUSEDIFF_TEST_LIMITED).
set -u
result=$1
shift
name=${result##*/}
case $result in */*) [ -d "${result%/*}" ] || mkdir -p "${result%/*}" ;; esac
export LC_ALL=C
limit=${FUSEDIFF_TEST_TIMEOUT:-300}
export FUSEDIFF_TEST_LIMITED=$limit
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-60}"
# A Check suite runs its tests in its own process, one after another (CK_FORK=no), unless the
# caller says otherwise or the suite asks for a process per test (check_hostile, whose limits
# on memory are per process): a process forked per test cost 10 of the suites' 33 s of CPU on
# the 2-core VM (each child faults in again the pages it writes). A crash then ends the suite,
# reported as its failure; the per-test time limit is this script's.
export CK_FORK="${CK_FORK:-no}"
# glibc's malloc grows its heaps 16 MiB at a time, on transparent huge pages where the system
# offers them ("madvise" mode): a test's processes (fusediff, the suites, python) fault in 2 MiB
# pages instead of 4 KiB ones, and a 4 KiB fault costs 15-30 us on the 2-core VM. make check:
# 140 -> 105 s of CPU there (two runs each, alternated). What the tests check is unchanged
# (valgrind and the sanitizers replace malloc and ignore it); an older glibc ignores it.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1:glibc.malloc.top_pad=16777216"
if [ "${FUSEDIFF_VALGRIND:-0}" = 1 ]; then
	export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-30}"
elif [ "${FUSEDIFF_SANITIZED:-0}" = 1 ]; then
	export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-10}"
fi
if [ "${FUSEDIFF_VALGRIND:-0}" = 1 ]; then
	set -- env CK_FORK=no valgrind -q --error-exitcode=9 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect "$@"
fi
# the wall time from /proc/uptime read by the shell (two date processes a test otherwise)
clock() {
	up=
	{ read -r up _ </proc/uptime; } 2>/dev/null
	case $up in
	*.??) now=${up%.*}${up#*.}0 ;; # milliseconds (uptime counts hundredths)
	*) now=$(($(date +%s%N) / 1000000)) ;;
	esac
}
# the CPU (user + system) of the shell's finished children, in hundredths of a second, from the
# shell's own `times` (its second line); a file, not $(times), which would read a subshell's
# (the result's temporary file, which the result overwrites: no rm process)
cpu() {
	times >"$result.tmp"
	{
		read -r _ _
		read -r u s
	} <"$result.tmp"
	cs=0
	for t in $u $s; do
		m=${t%%m*} t=${t#*m}
		t=${t%s} f=${t#*.}00
		cs=$((cs + (m * 60 + ${t%.*}) * 100 + 1${f%"${f#??}"} - 100))
	done
}
# env resets the signals to their defaults only where this shell found one ignored (SigIgn in
# /proc, read by the shell): under make none is, and env was a process more a test (55 page
# faults, 2-5 ms of CPU)
ignored=
while read -r key value; do
	case $key in SigIgn:) ignored=$value ;; esac
done 2>/dev/null </proc/$$/status
case $ignored in
0000000000000000) reset= ;;
*) reset="env --default-signal=HUP,INT,TERM,QUIT,PIPE,ALRM,USR1,USR2" ;;
esac
clock
t0=$now
cpu
c0=$cs
out=$($reset timeout -k 10 "$limit" "$@" </dev/null 2>&1)
rc=$?
case $rc in
0) status=PASS ;;
77) status="SKIP ($(printf '%s\n' "$out" | tail -n 1))" ;;
124) status="FAIL (timed out after $limit s)" ;;
*) status="FAIL (exit $rc)" ;;
esac
clock
ms=$((now - t0))
cpu
cs=$((cs - c0))
{
	echo "$status"
	printf '%s\n' "$out"
} >"$result.tmp" && mv "$result.tmp" "$result"
echo "$status: $name ($((ms / 1000)).$((ms / 100 % 10)) s, $((cs / 100)).$((cs / 10 % 10)) s CPU)"
