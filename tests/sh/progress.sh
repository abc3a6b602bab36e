#!/bin/sh
# progress.sh — loading progress goes to standard error only when it is a terminal, and the
# line is erased when loading ends.
set -u
T=examples/llama8l_eager_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Not a terminal: nothing on standard error.
"$FUSEDIFF" --summary "$T" >"$tmp/out" 2>"$tmp/err" || { echo "--summary failed"; exit 1; }
[ -s "$tmp/err" ] && { echo "progress written to a file:"; cat "$tmp/err"; exit 1; }

command -v script >/dev/null 2>&1 || { echo "script(1) not found"; exit 77; }
# A terminal, and a load that takes a while: half the file, a pause, the rest.
half=$(( $(wc -c <"$T") / 2 ))
cat >"$tmp/run.sh" <<EOS
{ head -c $half "$T"; sleep 1; tail -c +$((half + 1)) "$T"; } | "$FUSEDIFF" --summary - >"$tmp/out2"
EOS
script -q -e -c "sh $tmp/run.sh" /dev/null >"$tmp/tty" 2>&1 </dev/null || { echo "run under script failed"; cat "$tmp/tty"; exit 1; }
grep -q "fusediff: loading standard input: [0-9.]* MB" "$tmp/tty" || { echo "no progress line:"; od -c "$tmp/tty" | head; exit 1; }
# the last thing written is the erase
tail -c 4 "$tmp/tty" | od -An -c | tr -d ' \n' | grep -q '\\r033\[K$' || { echo "line not erased:"; od -c "$tmp/tty" | tail -3; exit 1; }
# and the summary is the same as from the file
sed 1d "$tmp/out" >"$tmp/a"; sed 1d "$tmp/out2" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "summary from standard input differs"; diff "$tmp/a" "$tmp/b" | head; exit 1; }

# --report: both traces on one line.
B=examples/llama8l_compiled_sdpa.json.gz
"$FUSEDIFF" --report json - "$B" <"$T" >/dev/null 2>"$tmp/err" || { echo "--report failed"; cat "$tmp/err"; exit 1; }
[ -s "$tmp/err" ] && { echo "--report wrote progress to a file:"; cat "$tmp/err"; exit 1; }
cat >"$tmp/run.sh" <<EOS
{ head -c $half "$T"; sleep 1; tail -c +$((half + 1)) "$T"; } | "$FUSEDIFF" --report json - "$B" >/dev/null
EOS
script -q -e -c "sh $tmp/run.sh" /dev/null >"$tmp/tty" 2>&1 </dev/null || { echo "--report under script failed"; cat "$tmp/tty"; exit 1; }
grep -q "fusediff: loading A standard input: [0-9.]* MB, B llama8l_compiled_sdpa.json.gz: 100% of 0.0 MB" "$tmp/tty" ||
	{ echo "no --report progress line:"; od -c "$tmp/tty" | head; exit 1; }
tail -c 4 "$tmp/tty" | od -An -c | tr -d ' \n' | grep -q '\\r033\[K$' || { echo "--report line not erased"; exit 1; }

# A signal while the line is shown (the end of the input never comes): the line is erased
# before the program dies of the signal, so the shell's next line starts clean.
for case in "TERM 143" "HUP 129"; do
	sig=${case% *} status=${case#* }
	cat >"$tmp/run.sh" <<EOS
{ head -c $half "$T"; sleep 1; tail -c +$((half + 1)) "$T"; sleep 4; } | "$FUSEDIFF" --summary - >/dev/null &
sleep 2
kill -$sig \$!
wait \$!
echo "status \$?"
EOS
	script -q -e -c "sh $tmp/run.sh" /dev/null >"$tmp/tty" 2>&1 </dev/null
	flat=$(od -An -c "$tmp/tty" | tr -d ' \n')
	printf '%s\n' "$flat" | grep -q 'loadingstandardinput:[0-9.]*MB033\[K' || { echo "SIG$sig: no progress line:"; od -c "$tmp/tty" | head; exit 1; }
	printf '%s\n' "$flat" | grep -q 'MB033\[K\\r033\[K' || { echo "SIG$sig: line not erased:"; od -c "$tmp/tty" | head; exit 1; }
	grep -q "status $status" "$tmp/tty" || { echo "SIG$sig: not ended by the signal:"; cat "$tmp/tty"; exit 1; }
done
exit 0
