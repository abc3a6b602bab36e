#!/bin/sh
# The man page: mandoc finds nothing wrong with it, and it documents exactly the options
# the program has (the option table in src/main.c, as printed by --help).
set -u
command -v mandoc >/dev/null 2>&1 || { echo "mandoc not installed"; exit 77; }
man=man/fusediff.1
fail=0

lint=$(mandoc -Tlint -Wwarning "$man" 2>&1 | grep -v 'mandoc.db')
if [ -n "$lint" ]; then
	echo "mandoc -Tlint:"
	echo "$lint"
	fail=1
fi

# Long options in --help, and in the OPTIONS section's .It lines.
code=$("$FUSEDIFF" --help | grep -Eo -- '--[a-z][a-z-]*' | sort -u)
doc=$(sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$man" | grep '^\.It' | grep -Eo 'Fl -[a-z][a-z-]*' |
	sed 's/^Fl /-/' | sort -u)
if [ "$code" != "$doc" ]; then
	echo "options in --help but not in the man page:"
	printf '%s\n' "$code" | grep -Fxv -f /dev/fd/3 3<<EOF2
$doc
EOF2
	echo "options in the man page but not in --help:"
	printf '%s\n' "$doc" | grep -Fxv -f /dev/fd/3 3<<EOF2
$code
EOF2
	fail=1
fi
# Short options too.
code=$("$FUSEDIFF" --help | grep -Eo -- '^ +-[a-zA-Z],' | tr -d ' ,' | sort -u)
doc=$(sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$man" | grep '^\.It Fl [a-zA-Z] ' | awk '{print "-" $3}' | sort -u)
if [ "$code" != "$doc" ]; then
	echo "short options differ: --help has [$code], the man page has [$doc]"
	fail=1
fi
exit $fail
