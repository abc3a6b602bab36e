#!/bin/sh
# A kernel named "\x1b]0;pwned\x07" (an escape sequence that would retitle the terminal) is
# written as visible escaped text in every report format, never as raw bytes.
set -u
T=tests/data/bad/escape_sequence_name.json
fail=0
for f in text md csv json; do
	out=$("$FUSEDIFF" --report $f "$T" "$T") || { echo "--report $f failed"; fail=1; continue; }
	if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')"; then
		echo "--report $f writes raw control bytes"
		fail=1
	fi
	# the text and JSON reports' escaped name, in the same output (a run of its own each was
	# two processes more)
	case $f in
	text) case $out in *'\e]0;pwned\x07'*) ;; *)
		echo "--report text does not show the name escaped as \\e]0;pwned\\x07"
		fail=1
		;;
	esac ;;
	json) case $out in *'\u001b]0;pwned\u0007'*) ;; *)
		echo "--report json does not write the name as \\u001b]0;pwned\\u0007"
		fail=1
		;;
	esac ;;
	esac
done
exit $fail
