#!/bin/sh
# tmux_smoke.sh — the explorer in a real terminal (tmux, a server of its own): it starts on the
# example pair at 120x40 with both labels and the Layers view, the mouse reports (SGR, button
# events) and a click past column 223 works, keys reach a fusion's evidence,
# the window is resized, q leaves a usable shell with the explorer's exit status; Ctrl-C while
# loading, SIGTERM while exploring and q on the too-small screen exit cleanly as well. "Usable"
# (tests/sh/lib/tmux.sh): no alternate screen, cursor shown, no mouse reporting, no
# application keypad, icanon and echo, and the shell answers.
set -u
. tests/sh/lib/tmux.sh
A=examples/llama8l_eager_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
esc=$(printf '\033')

# --- start, labels, Layers view -------------------------------------------------------------
T send-keys -t main "$FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
wait_for "llama8l_eager_sdpa.json.gz" 10 "label A missing"
wait_for "llama8l_compiled_sdpa.json.gz" 10 "label B missing"
wait_for "A us/pass" 10 "the Layers view is not shown"
flag alternate_on
[ "$out" = 1 ] || fail "the explorer does not use the alternate screen"
settled "$tmp/screen" -e
grep -q "$esc\[" "$tmp/screen" || fail "no colours in the pane"

# --- the mouse: button events (1002) in the SGR encoding (1006), never an event per move (1003);
# a click past column 223, which the X10 encoding cannot carry, selects the Overview's row -----
flag mouse_sgr_flag
[ "$out" = 1 ] || fail "the mouse is not in the SGR encoding (1006)"
flag mouse_button_flag
[ "$out" = 1 ] || fail "no button-event mouse tracking (1002)"
flag mouse_all_flag
[ "$out" = 0 ] || fail "all-motion mouse tracking (1003)"
T resize-window -t main -x 260 -y 40
wait_for "gain | regression"
T send-keys -t main -l "${esc}[<0;250;9M${esc}[<0;250;9m"
wait_for "A only Copy: A"
T resize-window -t main -x 120 -y 40
# the explorer has drawn at 120 columns again when the tab line's row counter (right-aligned)
# is inside the pane: keys sent before that could be read before the resize
wait_for "/15"

# --- keys to a fusion's evidence --------------------------------------------------------------
T send-keys -t main 4
wait_for "Unfused kernels"
T send-keys -t main o
wait_for "Evidence (Esc: back"
wait_for "as one kernel where" # the evidence sentence, once the pane is drawn

# --- resize: 80x24, too small, 200x60 ---------------------------------------------------------
T resize-window -t main -x 80 -y 24
wait_for "fusion difference"
settled "$tmp/screen"
[ "$(LC_ALL=C.UTF-8 wc -L <"$tmp/screen")" -le 80 ] || fail "lines wider than 80 columns"
T resize-window -t main -x 50 -y 12
wait_for "Terminal too small"
T resize-window -t main -x 200 -y 60
wait_for "Unfused kernels"

# --- q: back from the evidence, then quit; the shell is usable again ---------------------------
T send-keys -t main q
wait_for "Evidence (o: focus" # q left the evidence pane
T send-keys -t main q
usable "after q" 0

# --- q on the too-small screen quits ---------------------------------------------------------
T send-keys -t main "clear; $FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
T resize-window -t main -x 40 -y 10
wait_for "too small"
T send-keys -t main q
T resize-window -t main -x 120 -y 40
usable "after q on the too-small screen" 0

# --- SIGTERM while exploring: terminal restored, status 143 -----------------------------------
start_explorer "$A" "$B"
wait_for "2 Layers" 20
kill -TERM "$pid"
usable "after SIGTERM" 143

# --- monochrome: NO_COLOR and --no-color draw with attributes only -----------------------------
sgr_colour() {
	settled "$tmp/screen" -e
	grep -Eq "$esc\\[([0-9;]*;)?(3[0-7]|4[0-7]|38|48|9[0-7]|10[0-7])(;[0-9;]*)?m" "$tmp/screen"
}
T send-keys -t main "clear; NO_COLOR=1 $FUSEDIFF $A $B" Enter
wait_for "2 Layers" 20
sgr_colour && fail "colours with NO_COLOR set"
grep -q "$esc\\[[0-9;]*7" "$tmp/screen" || fail "no reverse video for the selection in monochrome"
T send-keys -t main Q
usable "after Q in monochrome" 0
T send-keys -t main "clear; $FUSEDIFF --no-color --theme light $A $B" Enter
wait_for "2 Layers" 20
sgr_colour && fail "colours with --no-color"
T send-keys -t main Q
usable "after Q with --no-color" 0
T send-keys -t main "clear; $FUSEDIFF --theme light $A $B" Enter
wait_for "2 Layers" 20
sgr_colour || fail "no colours with --theme light"
T send-keys -t main Q
usable "after Q with --theme light" 0

# --- a trace that cannot be read: one line naming it, status 1, the terminal restored ---------
T send-keys -t main "clear; $FUSEDIFF $tmp/missing.json $B" Enter
wait_for "fusediff: $tmp/missing.json" # one line naming the file
usable "after a missing trace" 1

# --- Ctrl-C while loading: a trace that never finishes arriving -------------------------------
mkfifo "$tmp/slow.json"
sleep 60 >"$tmp/slow.json" 3>&- 4<&- &
bg_pids="$bg_pids $!"
T send-keys -t main "clear; $FUSEDIFF $tmp/slow.json $B" Enter
wait_for "loading two traces" 20
wait_for "cancels"
# the stage each side is at, on a line of its own: B is read and waits for A
wait_for "read: waiting for the other trace"
T send-keys -t main C-c
usable "after Ctrl-C while loading" 130
exit 0
