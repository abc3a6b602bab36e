#!/bin/sh
# tmux_smoke.sh — the explorer in a real terminal (tmux, on its own socket): it starts on the
# example pair at 120x40 with both labels and the Layers view, keys reach a fusion's evidence,
# the window is resized, q leaves a usable shell with the explorer's exit status; Ctrl-C while
# loading, SIGTERM while exploring and q on the too-small screen exit cleanly as well.
set -u
: "${FUSEDIFF:?run through tests/run.sh}"
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
[ -r /lib/terminfo/s/screen ] || [ -r /usr/share/terminfo/s/screen ] || infocmp screen >/dev/null 2>&1 ||
	{ echo "no terminfo entry for screen"; exit 77; }

sock="fusediff-test-$$"
tmp=$(mktemp -d)
writer=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
T() { tmux -L "$sock" "$@"; }
fail() {
	echo "FAIL: $*"
	echo "--- the pane:"
	T capture-pane -p -t main 2>/dev/null
	exit 1
}
screen() { T capture-pane -p -t main; }
# wait_for TEXT [SECONDS]: poll the pane until it shows TEXT
wait_for() {
	i=0
	limit=$(( ${2:-10} * 10 ))
	while ! screen | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -ge $limit ] && fail "'$1' did not appear"
		sleep 0.1
	done
}
alternate() { T display-message -p -t main '#{alternate_on}'; }
prompt_back() { # the explorer leaves the alternate screen, and the shell answers again
	i=0
	while [ "$(alternate)" != 0 ]; do
		i=$((i + 1))
		[ $i -ge 100 ] && fail "the terminal is still in the alternate screen ($1)"
		sleep 0.1
	done
	T send-keys -t main "echo status=\$? restored-\$((20 + 22))" Enter
	wait_for "restored-42"
}

A=examples/llama8l_eager_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
T -f /dev/null new-session -d -s main -x 120 -y 40 "env -u NO_COLOR PS1='$ ' LC_ALL=C.UTF-8 sh" ||
	{ echo "tmux cannot start a session here"; exit 77; }
T set-option -g status off >/dev/null
T resize-window -t main -x 120 -y 40 2>/dev/null

# --- start, labels, Layers view -------------------------------------------------------------
T send-keys -t main "$FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
screen | grep -qF "llama8l_eager_sdpa.json.gz" || fail "label A missing"
screen | grep -qF "llama8l_compiled_sdpa.json.gz" || fail "label B missing"
screen | grep -qF "A us/pass" || fail "the Layers view is not shown"
[ "$(alternate)" = 1 ] || fail "the explorer does not use the alternate screen"
T capture-pane -e -p -t main | grep -q "$(printf '\033')\[" || fail "no colours in the pane"

# --- keys to a fusion's evidence --------------------------------------------------------------
T send-keys -t main 4
wait_for "Unfused kernels"
T send-keys -t main Enter
wait_for "Evidence (Esc: back"
screen | grep -qF "as one kernel where" || fail "the fusion's evidence sentence is missing"

# --- resize: 80x24, too small, 200x60 ---------------------------------------------------------
T resize-window -t main -x 80 -y 24
wait_for "fusion difference"
[ "$(screen | LC_ALL=C.UTF-8 wc -L)" -le 80 ] || fail "lines wider than 80 columns"
T resize-window -t main -x 50 -y 12
wait_for "Terminal too small"
T resize-window -t main -x 200 -y 60
wait_for "Unfused kernels"

# --- q: back from the evidence, then quit; the shell is usable again ---------------------------
T send-keys -t main q
wait_for "Evidence (Enter" # q left the evidence pane
T send-keys -t main q
prompt_back "after q"
screen | grep -qF "status=0 restored-42" || fail "exit status after q is not 0"

# --- q on the too-small screen quits ---------------------------------------------------------
T send-keys -t main "clear; $FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
T resize-window -t main -x 40 -y 10
wait_for "too small"
T send-keys -t main q
T resize-window -t main -x 120 -y 40
prompt_back "after q on the too-small screen"

# --- SIGTERM while exploring: terminal restored, status 143 -----------------------------------
T send-keys -t main "clear; sh -c 'echo \$\$ >$tmp/pid; exec $FUSEDIFF $A $B'" Enter
wait_for "2 Layers" 20
kill -TERM "$(cat "$tmp/pid")"
prompt_back "after SIGTERM"
screen | grep -qF "status=143 restored-42" || fail "exit status after SIGTERM is not 143"

# --- monochrome: NO_COLOR and --no-color draw with attributes only -----------------------------
sgr_colour() { T capture-pane -e -p -t main | grep -Eq "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|4[0-7]|38|48|9[0-7]|10[0-7])(;[0-9;]*)?m"; }
T send-keys -t main "clear; NO_COLOR=1 $FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
sgr_colour && fail "colours with NO_COLOR set"
T capture-pane -e -p -t main | grep -q "$(printf '\033')\\[[0-9;]*7" || fail "no reverse video for the selection in monochrome"
T send-keys -t main Q
prompt_back "after Q in monochrome"
T send-keys -t main "clear; $FUSEDIFF --no-color --theme light $A $B" Enter
wait_for "2 Layers" 20
sgr_colour && fail "colours with --no-color"
T send-keys -t main Q
prompt_back "after Q with --no-color"
T send-keys -t main "clear; $FUSEDIFF --theme light $A $B" Enter
wait_for "2 Layers" 20
sgr_colour || fail "no colours with --theme light"
T send-keys -t main Q
prompt_back "after Q with --theme light"

# --- a trace that cannot be read: one line naming it, status 1, the terminal restored ---------
T send-keys -t main "clear; $FUSEDIFF $tmp/missing.json $B" Enter
wait_for "fusediff: $tmp/missing.json" # one line naming the file
prompt_back "after a missing trace"
screen | grep -qF "status=1 restored-42" || fail "exit status after a missing trace is not 1"

# --- Ctrl-C while loading: a trace that never finishes arriving -------------------------------
mkfifo "$tmp/slow.json"
sleep 60 >"$tmp/slow.json" &
writer=$!
T send-keys -t main "clear; $FUSEDIFF $tmp/slow.json $B" Enter
wait_for "loading two traces" 20
wait_for "cancels"
T send-keys -t main C-c
prompt_back "after Ctrl-C while loading"
screen | grep -qF "status=130 restored-42" || fail "exit status after Ctrl-C while loading is not 130"
exit 0
