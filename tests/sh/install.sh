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
man1=$stage/usr/local/share/man/man1/fusediff.1
if [ -f "$man1" ]; then
	cmp -s "$man1" man/fusediff.1 || { echo "installed man page differs from man/fusediff.1"; fail=1; }
	# man(1) finds it under the prefix's share/man and renders it
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -M "$stage/usr/local/share/man" -P cat fusediff 2>/dev/null |
			grep -q 'fusediff .* compare two GPU profiler traces' ||
			{ echo "man -M \$stage/usr/local/share/man fusediff does not render the page"; fail=1; }
	fi
else
	echo "man page not installed"
	fail=1
fi

make -s uninstall B="$B" DESTDIR="$stage" PREFIX=/usr/local >/dev/null || { echo "make uninstall failed"; exit 1; }
left=$(find "$stage" -type f)
if [ -n "$left" ]; then
	echo "left after uninstall: $left"
	fail=1
fi

# PREFIX alone (no DESTDIR) installs there, and uninstall with the same PREFIX removes it all.
make -s install B="$B" PREFIX="$stage/opt" >/dev/null || { echo "make install PREFIX=... failed"; exit 1; }
"$stage/opt/bin/fusediff" --version >/dev/null || { echo "no runnable $stage/opt/bin/fusediff"; fail=1; }
[ -f "$stage/opt/share/man/man1/fusediff.1" ] || { echo "no man page under PREFIX"; fail=1; }
make -s uninstall B="$B" PREFIX="$stage/opt" >/dev/null || { echo "make uninstall PREFIX=... failed"; exit 1; }
left=$(find "$stage" -type f)
[ -z "$left" ] || { echo "left after uninstall with PREFIX: $left"; fail=1; }
exit $fail
