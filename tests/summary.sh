#!/bin/sh
# summary.sh RESULT... — the end of `make check`: the output of every failed test, then one
# line `N passed, N failed, N skipped`. Exits 1 when a test failed or left no result.
set -u
pass=0 fail=0 skip=0 failed=""
# (the shell's own ${r##*/} and read, not basename and head: two processes a result)
for r in "$@"; do
	name=${r##*/}
	if [ ! -f "$r" ]; then
		fail=$((fail + 1)) failed="$failed $name"
		echo "FAIL: $name (no result)"
		continue
	fi
	first=
	IFS= read -r first <"$r"
	case $first in
	PASS) pass=$((pass + 1)) ;;
	SKIP*) skip=$((skip + 1)) ;;
	*)
		fail=$((fail + 1)) failed="$failed $name"
		echo "$first: $name"
		tail -n +2 "$r" | tail -n 40 | sed 's/^/    /'
		;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
