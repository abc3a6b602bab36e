#!/bin/sh
# run.sh BUILDDIR — run every test: the Check binaries, then the shell tests in tests/sh.
# Status 77 from a test means "skipped" (a tool it needs is missing); it is reported, never
# counted as passed. FUSEDIFF_VALGRIND=1 runs the Check binaries under valgrind.
set -u
B=${1:-build}
export FUSEDIFF="$PWD/$B/fusediff"
export FUSEDIFF_SRCDIR="$PWD"
export LC_ALL=C
pass=0 fail=0 skip=0 failed=""

run() { # run NAME COMMAND...
	name=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $name" ;;
	77) skip=$((skip + 1)); echo "SKIP: $name ($(printf '%s\n' "$out" | tail -n 1))" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL: $name (exit $rc)"; printf '%s\n' "$out" | tail -n 40 | sed 's/^/    /' ;;
	esac
}

for t in "$B"/tests/check_*; do
	[ -x "$t" ] || continue
	case $t in *.o | *.d) continue ;; esac
	if [ "${FUSEDIFF_VALGRIND:-0}" = 1 ]; then
		run "valgrind $(basename "$t")" env CK_FORK=no valgrind -q --error-exitcode=9 \
			--leak-check=full --errors-for-leak-kinds=definite,indirect "$t"
	else
		run "$(basename "$t")" "$t"
	fi
done
if [ "${FUSEDIFF_VALGRIND:-0}" != 1 ]; then
	for t in tests/sh/*.sh; do
		[ -f "$t" ] || continue
		run "$(basename "$t" .sh)" sh "$t"
	done
fi
echo "== $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
