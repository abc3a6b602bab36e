#!/bin/sh
# tmux_escape.sh — names holding ESC ] 0 ; pwned BEL (tests/data/escape/, and the kernel of
# tests/data/bad/escape_sequence_name.json) never reach a real terminal (tmux) raw: browsing
# every view of the explorer, and --report text and --summary printed to the terminal, leave
# the pane's title as it was, and the explorer shows the escaped text.
set -u
. tests/sh/lib/tmux.sh

T select-pane -t main -T "fusediff-test"
title() { T display-message -p -t main '#{pane_title}'; }
title
[ "$out" = fusediff-test ] || { echo "tmux cannot set a pane title here"; exit 77; }
same_title() {
	title
	[ "$out" = fusediff-test ] || fail "the pane's title became '$out' ($1)"
}
EA=tests/data/escape/fused_a.json
EB=tests/data/escape/fused_b.json

start_explorer "$EA" "$EB"
wait_for "2 Layers" 20
wait_for 'NVIDIA H200\e]0;pwned\x07' 10 "the header does not show the GPU name escaped"
same_title "the header"
for key in 1 3 Down m 4 Enter v; do
	T send-keys -t main "$key"
	pause 0.2
	same_title "after the key $key"
done
wait_for 'FusedAddRMSNormKernel\e]0;pwned\x07' 10 "the fusion's evidence does not show the name escaped"
same_title "the fusion's evidence"
T send-keys -t main Q
usable "Q" 0

start_explorer tests/data/bad/escape_sequence_name.json tests/data/bad/escape_sequence_name.json
wait_for "2 Layers" 20
T send-keys -t main 3
wait_for '\e]0;pwned\x07'
same_title "the pairs of escape_sequence_name.json"
T send-keys -t main Q
usable "Q" 0

T send-keys -t main "clear; $FUSEDIFF --report text $EA $EB; $FUSEDIFF --summary $EA; echo reported-\$((40 + 2))" Enter
wait_for "reported-42"
same_title "--report text and --summary"
exit 0
