#!/bin/sh
# rules.sh — classification rules files from the command line: exact errors with the line
# number and exit status 1, a missing per-user default file is no error, and a user rule
# changes what a kernel is.
set -u
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
XDG_CONFIG_HOME=$tmp/no-such-config
export XDG_CONFIG_HOME

expect_error() { # rules-file expected-stderr
	"$FUSEDIFF" --report json --rules "$1" "$A" "$B" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || { echo "--rules $1: exit status $rc, want 1"; cat "$tmp/err"; exit 1; }
	printf '%s\n' "$2" >"$tmp/want"
	cmp -s "$tmp/err" "$tmp/want" || { echo "--rules $1:"; diff "$tmp/want" "$tmp/err"; exit 1; }
	# --summary builds the classifier while the trace loads: the same error, not the load's
	for t in "$A" "$big"; do
		"$FUSEDIFF" --rules "$1" --summary "$t" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc -eq 1 ] || { echo "--summary --rules $1: exit $rc, want 1"; cat "$tmp/err"; exit 1; }
		cmp -s "$tmp/err" "$tmp/want" ||
			{ echo "--summary --rules $1:"; diff "$tmp/want" "$tmp/err"; exit 1; }
	done
}
# a trace that takes a while to load (the rules' mistake stops it): the eager Llama trace cut to
# its first 4 decode passes, 8.9 MB of plain JSON (the whole example's 26 MB, written here and
# read three times, cost 0.2 s of CPU more)
big=$tmp/big.json
gzip -dc tests/data/traces/llama8l_eager_sdpa_4decode.json.gz >"$big" || exit 1
expect_error tests/data/rules/bad_class.rules \
	"fusediff: tests/data/rules/bad_class.rules: line 5: unknown class 'gem'"
expect_error tests/data/rules/bad_atom.rules \
	"fusediff: tests/data/rules/bad_atom.rules: line 1: unknown atom 'addd'"
expect_error tests/data/rules/no-such.rules \
	"fusediff: tests/data/rules/no-such.rules: No such file or directory"

# no per-user file: fine, and the SGLang pair has (nearly) no Other kernels
"$FUSEDIFF" --report json "$A" "$B" >"$tmp/plain.json" 2>"$tmp/err" ||
	{ echo "report without rules failed"; cat "$tmp/err"; exit 1; }
grep -Eq '"other_share": *0(\.00|,)' "$tmp/plain.json" ||
	{ echo "Other share not near 0:"; grep other_share "$tmp/plain.json"; exit 1; }

# the per-user file: every Cijk kernel becomes Other, and the Other share shows it
mkdir -p "$XDG_CONFIG_HOME/fusediff"
printf '# test\nOther - ^Cijk_\n' >"$XDG_CONFIG_HOME/fusediff/rules"
"$FUSEDIFF" --report json "$A" "$B" >"$tmp/user.json" 2>"$tmp/err" ||
	{ echo "report with a per-user rules file failed"; cat "$tmp/err"; exit 1; }
grep -q '"other_share": *0\.[1-9]' "$tmp/user.json" ||
	{ echo "per-user rule not applied:"; grep other_share "$tmp/user.json"; exit 1; }
# without an absolute XDG_CONFIG_HOME, the per-user file is $HOME/.config/fusediff/rules
mkdir -p "$tmp/home/.config"
mv "$XDG_CONFIG_HOME/fusediff" "$tmp/home/.config/fusediff"
for xdg in unset relative; do
	if [ $xdg = unset ]; then
		(unset XDG_CONFIG_HOME; HOME=$tmp/home "$FUSEDIFF" --report json "$A" "$B") \
			>"$tmp/home.json" 2>"$tmp/err"
	else
		XDG_CONFIG_HOME=relative/config HOME=$tmp/home "$FUSEDIFF" --report json "$A" "$B" \
			>"$tmp/home.json" 2>"$tmp/err"
	fi || { echo "report with \$HOME's rules file failed"; cat "$tmp/err"; exit 1; }
	cmp -s "$tmp/home.json" "$tmp/user.json" ||
		{ echo "XDG_CONFIG_HOME $xdg: \$HOME/.config/fusediff/rules not applied"; exit 1; }
done
exit 0
