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

# one clang-format per file, as many at a time as there are cores
find src include tests bench -name '*.[ch]' ! -path 'tests/data/*' | sort |
	xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c '
		if ! clang-format --style=file "$1" | cmp -s - "$1"; then
			echo "$1: not formatted (clang-format -i $1):"
			clang-format --style=file "$1" | diff "$1" - | head -n 10
			exit 1
		fi' sh {} || exit 1
exit 0
