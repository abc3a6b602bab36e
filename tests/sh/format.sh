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

# One clang-format over every file (--dry-run --Werror: an error for each change it would
# make), not one per file: its start-up (loading LLVM) cost 0.15 s of CPU a file, 27 s in all.
# Only the files it names are formatted again, one at a time, to show the diff.
files=$(find src include tests bench -name '*.[ch]' ! -path 'tests/data/*' | sort)
[ -n "$files" ] || { echo "no C files found"; exit 1; }
# shellcheck disable=SC2086 # the paths have no spaces
out=$(clang-format --style=file --dry-run --Werror $files 2>&1) && exit 0
bad=$(printf '%s\n' "$out" |
	sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | uniq)
if [ -z "$bad" ]; then # clang-format failed for another reason
	printf '%s\n' "$out" | head -n 20
	exit 1
fi
for f in $bad; do
	echo "$f: not formatted (clang-format -i $f):"
	clang-format --style=file "$f" | diff "$f" - | head -n 10
done
exit 1
