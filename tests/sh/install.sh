#!/bin/sh
# make install with PREFIX and DESTDIR staging: the installed program runs, the man page is
# where man(1) looks, and make uninstall leaves nothing behind.
set -u
B=$(dirname "$FUSEDIFF")
B=${B#"$PWD"/}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail=0

make -s install B="$B" DESTDIR="$stage" PREFIX=/usr/local >/dev/null || { echo "make install failed"; exit 1; }
bin=$stage/usr/local/bin/fusediff
[ -x "$bin" ] || { echo "no $bin"; exit 1; }
"$bin" --version | grep -Eq '^fusediff [0-9]+\.[0-9]+' || { echo "installed --version is wrong"; fail=1; }
[ -f "$stage/usr/local/share/man/man1/fusediff.1" ] || { echo "man page not installed"; fail=1; }

make -s uninstall B="$B" DESTDIR="$stage" PREFIX=/usr/local >/dev/null || { echo "make uninstall failed"; exit 1; }
left=$(find "$stage" -type f)
if [ -n "$left" ]; then
	echo "left after uninstall: $left"
	fail=1
fi
exit $fail
