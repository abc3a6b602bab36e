#!/bin/sh
# tmux_signals.sh — the explorer in a real terminal (tmux) under the signals of daily use, and
# the terminal usable after each (tests/sh/lib/tmux.sh: no alternate screen, cursor shown, no
# mouse reporting, icanon and echo, the shell answers):
# - SIGHUP with the terminal still there: restored, status 129; the terminal closed (an SSH
#   connection dropping), also while the shell ignores SIGHUP and while loading: the explorer
#   ends within seconds, no process left behind, none spinning on a dead terminal;
# - Ctrl-Z gives a usable shell, fg brings the same screen back (redrawn at the new size when
#   the window changed meanwhile), q quits with 0; Ctrl-Z while loading, fg, Ctrl-C: 130;
# - a suspended explorer killed the way bash's kill %1 does it (SIGTERM, then SIGCONT) ends
#   with 143 and leaves no stopped process behind;
# - a trace read from standard input ('-'): keys come from the terminal, not from the trace;
#   no terminal to read keys from at all: one line, status 1.
set -u
. tests/sh/lib/tmux.sh

# --- SIGHUP, the terminal still there ------------------------------------------------------
start_explorer "$A" "$B"
wait_for "2 Layers" 20
kill -HUP "$pid"
usable "SIGHUP" 129

# --- the window closes (the SSH connection drops) --------------------------------------------
# hangup_test NAME SHELL [EXPLORER ARGS]: the explorer in a window of its own running SHELL;
# killing the window must end it
hangup_test() {
	name=$1
	T new-window -d -t main:2 "$2" || fail "tmux cannot open a second window ($name): $out"
	: >"$tmp/pid"
	shift 2
	T send-keys -t main:2 "sh -c 'echo \$\$ >$tmp/pid; exec $FUSEDIFF $*'" Enter
	i=0
	while [ ! -s "$tmp/pid" ] || ! shows "${wait_text:-2 Layers}" main:2; do
		i=$((i + 1))
		if [ $i -ge 200 ]; then
			T capture-pane -p -t main:2
			printf '%s\n' "$out"
			fail "the explorer did not start ($name)"
		fi
		pause 0.1
	done
	read -r pid <"$tmp/pid"
	T kill-window -t main:2
	wait_gone "$pid" "after its terminal closed ($name)" 5
}
hangup_test "shell" "env PS1='$ ' sh" "$A" "$B"
# the shell ignores SIGHUP and stays, so no SIGHUP reaches the explorer: it sees the terminal
# gone (reads at end of file) and must not spin on it
hangup_test "shell ignoring SIGHUP" "env PS1='$ ' sh -c 'trap \"\" HUP; exec sh -i'" "$A" "$B"
# while loading a trace that never finishes arriving
mkfifo "$tmp/slow.json"
sleep 60 >"$tmp/slow.json" 3>&- 4<&- &
bg_pids="$bg_pids $!"
wait_text="cancels"
hangup_test "while loading" "env PS1='$ ' sh" "$tmp/slow.json" "$B"
wait_text=
T select-window -t main:0

# --- Ctrl-Z, a usable shell, fg: the same screen; again with a resize meanwhile ----------------
start_explorer "$A" "$B"
wait_for "2 Layers" 20
T send-keys -t main 3
wait_for "B kernel"
settled "$tmp/before"
T send-keys -t main C-z
usable "Ctrl-Z" 148
T send-keys -t main "clear; fg" Enter
wait_for "B kernel"
i=0
until save "$tmp/now" && cmp -s "$tmp/now" "$tmp/before"; do
	i=$((i + 1))
	[ $i -ge 50 ] && { diff "$tmp/before" "$tmp/now"; fail "fg did not bring the same screen back"; }
	pause 0.1
done
flag alternate_on
[ "$out" = 1 ] || fail "fg: the explorer is not in the alternate screen"
T send-keys -t main C-z
usable "the second Ctrl-Z" 148
T resize-window -t main -x 90 -y 30
T send-keys -t main "clear; fg" Enter
wait_for "B kernel"
# the last line (capture-pane -S/-E: one line back, not the screen), then the screen's width and
# lines counted by one wc -lL
last_line() { flag pane_height && T capture-pane -p -t main -S $((out - 1)) -E $((out - 1)); }
i=0
until last_line && case $out in *"?:help"*) ;; *) false ;; esac &&
	save "$tmp/now" && set -- $(LC_ALL=C.UTF-8 wc -lL <"$tmp/now") && [ "$2" -le 90 ]; do
	i=$((i + 1))
	[ $i -ge 50 ] && fail "fg after a resize: not redrawn for 90x30"
	pause 0.1
done
[ "$1" -eq 30 ] || fail "fg after a resize: not 30 lines"
T send-keys -t main q
usable "q after fg" 0
T resize-window -t main -x 120 -y 40

# --- a suspended explorer killed as bash's kill %1 does: SIGTERM, then SIGCONT ------------------
start_explorer "$A" "$B"
wait_for "2 Layers" 20
T send-keys -t main C-z
usable "Ctrl-Z before kill" 148
kill -TERM "$pid"
kill -CONT "$pid"
wait_gone "$pid" "after SIGTERM and SIGCONT while suspended (stopped again?)" 5
# jobs-42, not the command line's jobs-$((6 * 7)): jobs has run
T send-keys -t main "clear; jobs; echo jobs-\$((6 * 7))" Enter
wait_for "jobs-42"
shows "Stopped" && fail "a stopped job is left"
usable "SIGTERM while suspended" 0

# --- Ctrl-Z while loading, fg, then Ctrl-C ------------------------------------------------------
start_explorer "$tmp/slow.json" "$B"
wait_for "cancels" 20
T send-keys -t main C-z
usable "Ctrl-Z while loading" 148
T send-keys -t main "clear; fg" Enter
wait_for "cancels"
T send-keys -t main C-c
usable "Ctrl-C after fg while loading" 130

# --- a trace on standard input: the keys come from the terminal ---------------------------------
T send-keys -t main "clear; $FUSEDIFF - $B <$A" Enter
wait_for "2 Layers" 20
wait_for "A AMD Instinct MI300X  386 kernels" 10 "trace A from standard input is not read whole"
T send-keys -t main 4
wait_for "Unfused kernels"
T send-keys -t main q
usable "q with a trace on standard input" 0
# no terminal to read keys from at all (no controlling terminal): one line, status 1
if command -v setsid >/dev/null 2>&1; then
	T send-keys -t main "clear; setsid -w $FUSEDIFF $A $B </dev/null" Enter
	wait_for "fusediff: standard input is not a terminal and /dev/tty cannot be opened"
	usable "no terminal for the keys" 1
fi
exit 0
