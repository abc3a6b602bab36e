#!/bin/sh
# hardening.sh — what a careless user or an attacker tries (issue "Hardening, second round"):
# a report never replaces an input, user regexes are guarded, ... Each case failed before its fix.
# Run by make check with $FUSEDIFF set and the repository root as the current directory.
set -u
: "${FUSEDIFF:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
A=examples/llama8l_eager_sdpa.json.gz
B=examples/llama8l_compiled_sdpa.json.gz

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

limit() {
	if command -v timeout >/dev/null 2>&1; then
		timeout 120 "$@"
	else
		"$@"
	fi
}

# run NAME EXPECTED_STATUS ARGS...
run() {
	name=$1 want=$2
	shift 2
	limit "$FUSEDIFF" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	status=$?
	[ "$status" = "$want" ] || fail "$name: exit status $status, expected $want ($(head -c 300 "$tmp/$name.err"))"
}

first_err() { # NAME LINE: the first line of stderr is LINE
	[ "$(head -n 1 "$tmp/$1.err")" = "$2" ] || fail "$1: stderr starts '$(head -n 1 "$tmp/$1.err")', expected '$2'"
}

# 1. -o naming an input (directly or through a symbolic link, or as standard input) is refused
cp "$A" "$tmp/a.json.gz"
ln -s "$tmp/a.json.gz" "$tmp/link.json.gz"
sum=$(cksum <"$tmp/a.json.gz")
run o_input 2 --report json -o "$tmp/a.json.gz" "$tmp/a.json.gz" "$B"
first_err o_input "fusediff: -o $tmp/a.json.gz is the trace A: the report would replace it"
run o_link 2 --report json -o "$tmp/link.json.gz" "$B" "$tmp/a.json.gz"
first_err o_link "fusediff: -o $tmp/link.json.gz is the trace B: the report would replace it"
limit "$FUSEDIFF" --report json -o "$tmp/a.json.gz" - "$B" <"$tmp/a.json.gz" >/dev/null 2>"$tmp/o_stdin.err"
[ $? = 2 ] || fail "o_stdin: -o naming the file on standard input was not refused"
[ "$(cksum <"$tmp/a.json.gz")" = "$sum" ] || fail "o_input: the trace was changed"

# 2. --pass goes through the regex guard (it took 24 GB before the OOM killer)
run pass_regex 2 --report text --pass 'y++++++++++++++++++++++++++++++++++++++.c' "$A" "$B"
first_err pass_regex "fusediff: --pass 'y++++++++++++++++++++++++++++++++++++++.c': repetitions multiply to more than 64 copies"
run pass_syntax 2 --report text --pass '(' "$A" "$B"
first_err pass_syntax "fusediff: --pass '(': invalid regular expression: Unmatched ( or \\("

[ "$fails" = 0 ] || exit 1
echo "hardening: all cases passed"
