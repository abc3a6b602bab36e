#!/bin/sh
# progress.sh — loading progress goes to standard error only when it is a terminal, and the
# line is erased when loading ends, or when a signal ends the program while it loads.
#
# The slow load is a pipe that carries half the trace, then a KiB every tenth of a second (the
# line is drawn once loading has taken a fifth of a second, when more data comes) until the
# test has seen the progress line (polling the terminal's output) and creates $tmp/go, then the
# rest.
set -u
# (the compiled example, 33 kB: a load is slow by the pipe, not by the trace, and the eager
# example's 1.8 MB cost 0.1 s of CPU a run, six runs)
T=examples/llama8l_compiled_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

# Not a terminal: nothing on standard error.
"$FUSEDIFF" --summary "$T" >"$tmp/out" 2>"$tmp/err" || { echo "--summary failed"; exit 1; }
[ -s "$tmp/err" ] && { echo "progress written to a file:"; cat "$tmp/err"; exit 1; }
"$FUSEDIFF" --report json - "$B" <"$T" >/dev/null 2>"$tmp/err" || { echo "--report failed"; cat "$tmp/err"; exit 1; }
[ -s "$tmp/err" ] && { echo "--report wrote progress to a file:"; cat "$tmp/err"; exit 1; }

command -v script >/dev/null 2>&1 || { echo "script(1) not found"; exit 77; }
half=$(($(wc -c <"$T") / 2))

# in_terminal CMD...: run `half of $T | CMD` in a terminal (script(1), output in $tmp/tty)
# in the background, until the progress line shows; the pipe then waits for release.
in_terminal() {
	rm -f "$tmp/go" "$tmp/pid" "$tmp/tty"
	cat >"$tmp/run.sh" <<EOS
trickle() {
	head -c $half "$T"
	off=$half
	while [ ! -e "$tmp/go" ]; do
		sleep 0.1
		tail -c +\$((off + 1)) "$T" | head -c 1024
		off=\$((off + 1024))
	done
	tail -c +\$((off + 1)) "$T"
}
trickle | $* &
echo \$! >"$tmp/pid"
wait \$!
echo "status \$?"
EOS
	script -q -e -c "sh $tmp/run.sh" /dev/null >"$tmp/tty" 2>&1 </dev/null &
	term=$!
	pids="$pids $term"
	i=0
	until tty_has "fusediff: loading"; do
		i=$((i + 1))
		[ $i -ge 300 ] && { echo "no progress line in a terminal:"; od -c "$tmp/tty" | head; exit 1; }
		sleep 0.05
	done
}
# tty_has TEXT: the terminal's output so far holds TEXT (read by the shell: a grep a poll was a
# process every 50 ms)
tty_has() {
	[ -e "$tmp/tty" ] || return 1
	{
		c=
		while IFS= read -r l; do c=$c$l; done
		c=$c$l
	} <"$tmp/tty"
	case $c in *"$1"*) return 0 ;; esac
	return 1
}
release() { : >"$tmp/go"; }
finish() { # wait for the run to end; its status line must say $1
	wait $term
	grep -q "status $1" "$tmp/tty" || { echo "want status $1:"; cat "$tmp/tty"; exit 1; }
}
erased() { # the last thing written before the status line is the erase
	od -An -c "$tmp/tty" | tr -d ' \n' | grep -q '\\r033\[Kstatus[0-9]*\\r\\n$' ||
		{ echo "$1: line not erased:"; od -c "$tmp/tty" | tail -3; exit 1; }
}

# A terminal, and a load that takes a while.
in_terminal "\"$FUSEDIFF\" --summary - >\"$tmp/out2\""
release
finish 0
grep -q "fusediff: loading standard input: [0-9.]* MB" "$tmp/tty" || { echo "no progress line:"; od -c "$tmp/tty" | head; exit 1; }
erased "--summary"
# and the summary is the same as from the file
sed 1d "$tmp/out" >"$tmp/a"; sed 1d "$tmp/out2" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "summary from standard input differs"; diff "$tmp/a" "$tmp/b" | head; exit 1; }

# --report: both traces on one line.
in_terminal "\"$FUSEDIFF\" --report json - \"$B\" >/dev/null"
release
finish 0
grep -q "fusediff: loading A standard input: [0-9.]* MB, B llama8l_compiled_sdpa.json.gz: 100% of 0.0 MB" "$tmp/tty" ||
	{ echo "no --report progress line:"; od -c "$tmp/tty" | head; exit 1; }
erased "--report"

# A signal while the line is shown (the rest of the input has not come): the line is erased
# before the program dies of the signal, so the shell's next line starts clean.
for case in "TERM 143" "HUP 129"; do
	sig=${case% *} status=${case#* }
	in_terminal "\"$FUSEDIFF\" --summary - >/dev/null"
	kill -"$sig" "$(cat "$tmp/pid")"
	release
	finish "$status"
	flat=$(od -An -c "$tmp/tty" | tr -d ' \n')
	printf '%s\n' "$flat" | grep -q 'loadingstandardinput:[0-9.]*MB033\[K' || { echo "SIG$sig: no progress line:"; od -c "$tmp/tty" | head; exit 1; }
	printf '%s\n' "$flat" | grep -q 'MB033\[K\\r033\[K' || { echo "SIG$sig: line not erased:"; od -c "$tmp/tty" | head; exit 1; }
done
exit 0
