# tests/sh/lib/tmux.sh — sourced by the tmux tests (tests/sh/tmux_*.sh): a tmux server on its
# own socket with one 120x40 window "main" running sh, and helpers that poll the pane (never
# fixed sleeps: the machine may be loaded). Exits 77 when tmux or the screen terminfo entry is
# missing. Sets: $tmp (a scratch directory), $A/$B (the example pair the tests open).
: "${FUSEDIFF:?run through make check}"
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
[ -r /lib/terminfo/s/screen ] || [ -r /usr/share/terminfo/s/screen ] || infocmp screen >/dev/null 2>&1 ||
	{ echo "no terminfo entry for screen"; exit 77; }

sock="fusediff-test-$$"
tmp=$(mktemp -d)
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
bg_pids= # background helpers (FIFO writers) to end on exit
tmux_cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	for p in $bg_pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap tmux_cleanup EXIT
trap 'exit 1' INT TERM
T() { tmux -L "$sock" "$@"; }
fail() {
	echo "FAIL: $*"
	echo "--- the pane:"
	T capture-pane -p -t main 2>/dev/null
	exit 1
}
screen() { T capture-pane -p -t main; }
# wait_for TEXT [SECONDS]: poll the pane until it shows TEXT (TEXT is one line: matched by the
# shell, not a grep process per poll)
wait_for() {
	i=0
	limit=$((${2:-10} * 10))
	while :; do
		case $(screen) in *"$1"*) break ;; esac
		i=$((i + 1))
		[ $i -ge $limit ] && fail "'$1' did not appear"
		sleep 0.1
	done
}
flag() { T display-message -p -t main "#{$1}"; }
# started: the pid the last start_explorer wrote (the explorer itself: sh exec's it)
started() { cat "$tmp/pid"; }
# start_explorer ARGS...: run fusediff ARGS in the pane, its pid in $tmp/pid
start_explorer() {
	rm -f "$tmp/pid"
	T send-keys -t main "clear; sh -c 'echo \$\$ >$tmp/pid; exec $FUSEDIFF $*'" Enter
	i=0
	while [ ! -s "$tmp/pid" ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the explorer did not start"
		sleep 0.1
	done
}
# alive PID: the process exists and is not a zombie waiting for its parent
alive() {
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case $st in Z*) return 1 ;; esac
	return 0
}
# wait_gone PID WHAT [SECONDS]: the process ends within SECONDS (default 5)
wait_gone() {
	i=0
	limit=$((${3:-5} * 10))
	while alive "$1"; do
		i=$((i + 1))
		if [ $i -ge $limit ]; then
			ps -o pid,stat,pcpu,args -p "$1"
			kill -KILL "$1" 2>/dev/null
			fail "the explorer is still running $2"
		fi
		sleep 0.1
	done
}
# usable WHAT STATUS: the explorer has given the terminal back in a usable state: no
# alternate screen, cursor visible, no mouse reporting, no application keypad, canonical
# input with echo; the shell answers, and the explorer's exit status was STATUS
usable() {
	i=0
	while [ "$(flag alternate_on)" != 0 ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the terminal is still in the alternate screen ($1)"
		sleep 0.1
	done
	T send-keys -t main "echo \"status=\$? \$(stty -a | tr ' ;' '\\n\\n' | grep -x -e -icanon -e icanon -e -echo -e echo | tr '\\n' ' ')restored-\$((20 + 22))\"" Enter
	wait_for "restored-42"
	screen | grep -qF "status=$2 icanon echo restored-42" ||
		fail "after $1: want status $2 and 'icanon echo' from stty"
	# the pane's modes in one tmux client, not one a flag (six processes a call otherwise)
	modes=$(T display-message -p -t main \
		'#{cursor_flag}:#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}:#{keypad_flag}#{keypad_cursor_flag}')
	[ "${modes%%:*}" = 1 ] || fail "the cursor is hidden ($1)"
	modes=${modes#*:}
	[ "${modes%%:*}" = 000 ] || fail "mouse reporting is still on ($1)"
	[ "${modes#*:}" = 00 ] || fail "the keypad is still in application mode ($1)"
}

T -f /dev/null new-session -d -s main -x 120 -y 40 "env -u NO_COLOR PS1='$ ' LC_ALL=C.UTF-8 sh" ||
	{ echo "tmux cannot start a session here"; exit 77; }
T set-option -g status off >/dev/null
T resize-window -t main -x 120 -y 40 2>/dev/null
