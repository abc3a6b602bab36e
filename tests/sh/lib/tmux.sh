# tests/sh/lib/tmux.sh — sourced by the tmux tests (tests/sh/tmux_*.sh): a tmux server of its
# own with one 120x40 window "main" running sh, and helpers that poll the pane (never
# fixed sleeps: the machine may be loaded). Exits 77 when tmux or the screen terminfo entry is
# missing. Sets: $tmp (a scratch directory), $A/$B (the example pair the tests open).
#
# The tests talk to the server through one client in control mode (tmux -C, tmux 3.2 or later):
# T writes a command to it and reads its output back, so that a command costs no process. A tmux
# client per command (about 12 ms of CPU on the 2-core VM), and a capture-pane, a subshell and
# a sleep process ten times a second while polling, made these tests start 140 to 430
# processes each. The pane is searched by the server (the #{C:...} format: one line comes back,
# where the shell reads a whole screen byte by byte, ~10 ms a capture) and a poll waits in the
# server (run-shell -d), not in a sleep process. An older tmux: a tmux process per command.
: "${FUSEDIFF:?run through make check}"
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
[ -r /lib/terminfo/s/screen ] || [ -r /usr/share/terminfo/s/screen ] || infocmp screen >/dev/null 2>&1 ||
	{ echo "no terminfo entry for screen"; exit 77; }

tmp=$(mktemp -d)
# the server's socket in the scratch directory, not a name in tmux's shared directory: there,
# named after the shell's pid (pids wrap within minutes on a busy machine), one run found
# another worktree's tmux_smoke command typed into its pane, and the sockets of ended servers
# stayed behind (954 of them). A socket path holds at most about 100 bytes.
sock=$tmp/tmux
[ ${#sock} -le 100 ] || sock=/tmp/fusediff-tmux-${tmp##*/}
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
nl='
'
bg_pids= # background helpers (FIFO writers, the control client) to end on exit
tmux_cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null
	for p in $bg_pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp" "$sock"
}
trap tmux_cleanup EXIT
trap 'exit 1' INT TERM

# T COMMAND ARGS...: one tmux command; its output in $out (without the last newline), its
# status returned. Through the control client: the command on one line, quoted for tmux's
# parser, then a marker command on a line of its own (a failed command cancels the rest of its
# line); the output is what the blocks before the marker's block hold.
tmux_ctl=
tmux_n=0
T() {
	if [ -z "$tmux_ctl" ]; then
		out=$(tmux -S "$sock" "$@")
		return
	fi
	q=
	for a; do
		case $a in *"$nl"*) # not one line: a client of its own
			out=$(tmux -S "$sock" "$@")
			return
			;;
		esac
		r=
		while :; do
			case $a in
			*\'*) r="$r${a%%\'*}'\\''" a=${a#*\'} ;;
			*) break ;;
			esac
		done
		q="$q '$r$a'"
	done
	tmux_n=$((tmux_n + 1))
	printf '%s\ndisplay-message -p fusediff-done-%s\n' "$q" "$tmux_n" >&3
	tmux_read
}
# tmux_read: the control client's blocks up to the one holding fusediff-done-$tmux_n; the
# lines of the blocks before it in $out, status 1 when one of them was an %error
tmux_read() {
	out='' r='' st=0 done=''
	while IFS= read -r l <&4; do
		case $r$l in
		b%end\ * | b%error\ *)
			if [ -n "$done" ]; then
				out=${out%"$nl"}
				return $st
			fi
			case $l in %error*) st=1 ;; esac
			r=
			;;
		b"fusediff-done-$tmux_n") done=1 ;;
		b*) out="$out$l$nl" ;;
		%begin\ *) r=b ;;
		esac # anything else between blocks is a notification
	done
	tmux_ctl= # the control client is gone: fail's capture-pane in a process of its own
	fail "the tmux control client ended: $(cat "$tmp/ctl.err" 2>/dev/null)"
}
# pause SECONDS: wait, in the tmux server (run-shell -C -d runs the marker command then)
pause() {
	if [ -z "$tmux_ctl" ]; then
		sleep "$1"
		return
	fi
	tmux_n=$((tmux_n + 1))
	printf "run-shell -C -d %s 'display-message -p fusediff-done-%s'\n" "$1" "$tmux_n" >&3
	tmux_read
}
fail() {
	echo "FAIL: $*"
	echo "--- the pane:"
	T capture-pane -p -t main 2>/dev/null && printf '%s\n' "$out"
	exit 1
}
# shows TEXT [PANE]: the pane (default main) shows TEXT now, within one of its lines. The
# server searches: TEXT as an fnmatch(3) pattern (\ * ? [ escaped) inside a format (# and }
# escaped).
shows() {
	if [ -z "$tmux_ctl" ]; then
		T capture-pane -p -t "${2:-main}" || return 1
		case $out in *"$1"*) return 0 ;; esac
		return 1
	fi
	p='' s=$1
	case $s in
	*[][\\*?#}]*)
		while [ -n "$s" ]; do
			r=${s#?}
			c=${s%"$r"} s=$r
			case $c in
			[][\\*?]) p="$p\\$c" ;;
			'#' | '}') p="$p#$c" ;;
			*) p="$p$c" ;;
			esac
		done
		;;
	*) p=$s ;;
	esac
	T display-message -p -t "${2:-main}" "#{C:$p}" || return 1
	case $out in '' | 0 | *[!0-9]*) return 1 ;; esac
	return 0
}
# wait_for TEXT [SECONDS [WHAT]]: poll the pane until it shows TEXT (TEXT is one line); fails
# saying WHAT (default: TEXT did not appear). A check of what the screen shows after waiting for
# one part of it waits too: the explorer may still be drawing the lines below.
wait_for() {
	i=0
	limit=$((${2:-10} * 10))
	until shows "$1"; do
		i=$((i + 1))
		[ $i -ge $limit ] && fail "${3:-"'$1' did not appear"}"
		pause 0.1
	done
}
# save FILE [-e]: the pane's screen (with -e its colours and attributes) in FILE, written by
# tmux, as capture-pane -p prints it
save() {
	T capture-pane ${2:-} -b fusediff-test -t main && T save-buffer -b fusediff-test "$1" ||
		fail "cannot save the pane in $1"
}
# settled FILE [-e]: save FILE once the screen has stopped changing (two captures 0.1 s apart
# the same), for the checks that read a whole screen: a frame arrives in several writes, and
# the text waited for may be drawn before the rest
settled() {
	i=0
	save "$1" ${2:-}
	until pause 0.1 && save "$1.next" ${2:-} && cmp -s "$1" "$1.next"; do
		i=$((i + 1))
		[ $i -ge 50 ] && fail "the screen did not stop changing"
		save "$1" ${2:-}
	done
}
# flag NAME: the pane's format variable NAME, in $out
flag() { T display-message -p -t main "#{$1}"; }
# start_explorer ARGS...: run fusediff ARGS in the pane; its pid (the explorer itself: sh
# exec's it) in $pid
start_explorer() {
	: >"$tmp/pid"
	T send-keys -t main "clear; sh -c 'echo \$\$ >$tmp/pid; exec $FUSEDIFF $*'" Enter
	i=0
	while [ ! -s "$tmp/pid" ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the explorer did not start"
		pause 0.1
	done
	read -r pid <"$tmp/pid"
}
# alive PID: the process exists and is not a zombie waiting for its parent (its state, the
# field after the name in /proc/PID/stat: no ps process where /proc is there)
alive() {
	if [ -r /proc/self/stat ]; then
		{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
		st=${st##*) }
	else
		st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	fi
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
		pause 0.1
	done
}
# usable WHAT STATUS: the explorer has given the terminal back in a usable state: no
# alternate screen, cursor visible, no mouse reporting, no application keypad, canonical
# input with echo; the shell answers, and the explorer's exit status was STATUS. The keys go
# to the pane once the shell holds the terminal again (its foreground process is sh): the
# explorer leaves the alternate screen before it restores the terminal's modes and exits or
# stops, and keys typed meanwhile could reach it. The pane's shell picks icanon and echo out
# of stty -a's words itself (a pipe of tr, grep and tr was four processes more).
usable() {
	i=0
	until flag alternate_on && [ "$out" = 0 ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the terminal is still in the alternate screen ($1)"
		pause 0.1
	done
	until flag pane_current_command && [ "$out" = sh ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the shell does not get the terminal back ($1): $out"
		pause 0.1
	done
	T send-keys -t main 's=$?; o=$IFS; IFS=" ;$o"; set -f; w=; for x in $(stty -a); do case $x in icanon | -icanon | echo | -echo) w="$w$x " ;; esac; done; IFS=$o; set +f; echo "status=$s ${w}restored-$((20 + 22))"' Enter
	wait_for "restored-42"
	shows "status=$2 icanon echo restored-42" ||
		fail "after $1: want status $2 and 'icanon echo' from stty"
	# the pane's modes in one command, not one a flag
	T display-message -p -t main \
		'#{cursor_flag}:#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}:#{keypad_flag}#{keypad_cursor_flag}'
	modes=$out
	[ "${modes%%:*}" = 1 ] || fail "the cursor is hidden ($1)"
	modes=${modes#*:}
	[ "${modes%%:*}" = 000 ] || fail "mouse reporting is still on ($1)"
	[ "${modes#*:}" = 00 ] || fail "the keypad is still in application mode ($1)"
}

tmux -S "$sock" -f /dev/null new-session -d -s main -x 120 -y 40 "env -u NO_COLOR PS1='$ ' LC_ALL=C.UTF-8 sh" \; \
	set-option -g status off >/dev/null || { echo "tmux cannot start a session here"; exit 77; }
# the control client, where tmux has run-shell -C -d and the #{C:} search (3.2)
case $(tmux -V) in
"tmux "[012].* | "tmux 3."[01] | "tmux 3."[01][!0-9]*) ;;
*)
	mkfifo "$tmp/ctl.in" "$tmp/ctl.out"
	tmux -S "$sock" -C attach-session -t main <"$tmp/ctl.in" >"$tmp/ctl.out" 2>"$tmp/ctl.err" &
	bg_pids="$bg_pids $!"
	trap '' PIPE # a control client gone: its write fails, tmux_read says so
	exec 3>"$tmp/ctl.in" 4<"$tmp/ctl.out"
	# its first block answers the attach; a command sent before it would run unattached
	while IFS= read -r l <&4; do
		case $l in
		%end\ *)
			tmux_ctl=1
			break
			;;
		%error\ *) break ;;
		esac
	done
	# no pane output sent to it, and its size counts for no window; where tmux cannot, a
	# process per command after all
	if ! T refresh-client -f no-output,ignore-size; then
		echo "note: tmux refresh-client -f: $out: a tmux process per command"
		tmux_ctl=
		T detach-client -s main
	fi
	;;
esac
T resize-window -t main -x 120 -y 40 2>/dev/null
