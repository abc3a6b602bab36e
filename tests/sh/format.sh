#!/bin/sh
# Formatting: every C file of src/, include/, tests/ and bench/ is as clang-format leaves it
# with the checked-in .clang-format (tabs, 100 columns; STYLE.md). Layouts differ between
# clang-format versions, so the check runs only with the major version the code was formatted
# with (Debian 12's clang-format 14, which build-aux/deps.sh installs); another is a skip.
# To fix a failure: clang-format -i FILE (tables laid out by hand sit between
# /* clang-format off */ and /* clang-format on */).
set -u
cd "${FUSEDIFF_SRCDIR:-.}" || exit 1
want=14
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed"; exit 77; }
have=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
[ "$have" = "$want" ] || { echo "clang-format $have, not $want: layouts differ"; exit 77; }

fail=0
for f in $(find src include tests bench -name '*.[ch]' ! -path 'tests/data/*' | sort); do
	if ! clang-format --style=file "$f" | cmp -s - "$f"; then
		echo "$f: not formatted (clang-format -i $f):"
		clang-format --style=file "$f" | diff "$f" - | head -n 10
		fail=1
	fi
done
exit $fail
