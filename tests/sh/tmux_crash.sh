#!/bin/sh
# tmux_crash.sh — the explorer in a real terminal (tmux) ended by an internal error or a crash
# signal leaves the terminal usable (tests/sh/lib/tmux.sh) with the signal's exit status:
# Ctrl-\ (SIGQUIT, 131), SIGABRT (134), SIGSEGV (139), SIGUSR1 (138); and die() (an out-of-
# memory or broken-invariant error) called inside the running explorer through gdb: its
# message shows after the terminal is restored (it used to be drawn on the explorer's screen
# and vanish with it). The gdb part is skipped, with a note, where gdb cannot attach.
set -u
. tests/sh/lib/tmux.sh

# crash NAME STATUS: signal the running explorer with NAME (a tmux key, or a kill signal)
crash() {
	start_explorer "$A" "$B"
	wait_for "2 Layers" 20
	case $1 in
	C-*) T send-keys -t main "$1" ;;
	*) kill -"$1" "$pid" ;;
	esac
	wait_gone "$pid" "after $1" 10
	if [ "${FUSEDIFF_SANITIZED:-0}" = 1 ] && [ "$1" = SEGV ]; then
		usable "$1" 1 # AddressSanitizer reports the SEGV and exits with 1
		shows "AddressSanitizer: SEGV" || fail "no sanitizer report after the terminal was restored"
	else
		usable "$1" "$2"
	fi
}
crash 'C-\' 131
crash ABRT 134
crash SEGV 139
crash USR1 138

# --- die() inside the running explorer -----------------------------------------------------------
if ! command -v gdb >/dev/null 2>&1; then
	echo "note: gdb is not installed: die() inside the explorer not tested"
	exit 0
fi
start_explorer "$A" "$B"
wait_for "2 Layers" 20
timeout 60 gdb -p "$pid" -batch -nx -ex "handle SIGABRT nostop noprint pass" \
	-ex 'call (void)die("out of memory (%d bytes)", 4242)' >"$tmp/gdb.out" 2>&1
# gdb may attach but fail to run a function in the inferior (a sandbox that refuses to
# restore the FPU state: "Couldn't write extended state status")
if grep -q "ptrace: Operation not permitted\|Could not attach\|No symbol \"die\"\|Couldn't write" "$tmp/gdb.out"; then
	kill -TERM "$pid"
	echo "note: gdb cannot call die() in the explorer here: not tested"
	grep -m 1 "ptrace\|attach\|No symbol\|Couldn't write" "$tmp/gdb.out"
	exit 0
fi
wait_gone "$pid" "after die()" 10
usable "die()" 134
save "$tmp/screen"
grep -qxF "fusediff: out of memory (4242 bytes)" "$tmp/screen" || fail "die()'s message is not shown after the terminal is restored"
exit 0
