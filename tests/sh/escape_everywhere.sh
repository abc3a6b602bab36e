#!/bin/sh
# escape_everywhere.sh — a GPU name and a fused kernel's name holding a terminal escape sequence
# (ESC ] 0 ; pwned BEL, which would retitle the terminal; tests/data/escape/) are shown as the
# visible text \e]0;pwned\x07 wherever they appear: the trace table and the fusions of every
# report format, --summary, and every explorer view with its evidence pane (played with
# --headless). No output holds a control character other than newline (and CR in CSV, whose
# rows end in CRLF). report_escape.sh and the escape-*.screen golden screens cover a plain
# kernel name in the kernel pairs; this covers the other paths a name takes.
set -u
: "${FUSEDIFF:?run through make check}"
LC_ALL=C.UTF-8
export LC_ALL
A=tests/data/escape/fused_a.json
B=tests/data/escape/fused_b.json
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
shown='\e]0;pwned\x07'
# check WHAT FILE [MIN]: no raw control byte in FILE, the escaped text at least MIN times
# (one awk where a grep, a grep -o | wc -l and a command substitution were 4 processes a check;
# the text looked for through the environment, which awk does not unescape)
check() {
	LC_ALL=C what=$1 want=${3:-1} shown=$shown awk '
		BEGIN {
			ctrl = "["
			for (i = 1; i < 32; i++)
				if (i != 10 && i != 13) ctrl = ctrl sprintf("%c", i)
			ctrl = ctrl sprintf("%c", 127) "]"
			s = ENVIRON["shown"]
		}
		$0 ~ ctrl { raw = 1 }
		{ for (t = $0; k = index(t, s); t = substr(t, k + length(s))) n++ }
		END {
			if (raw) print "FAIL: " ENVIRON["what"] " holds raw control bytes"
			if (n + 0 < ENVIRON["want"] + 0)
				printf "FAIL: %s shows %s %d times, want at least %s\n", ENVIRON["what"], s, n, ENVIRON["want"]
			exit raw || n + 0 < ENVIRON["want"] + 0
		}' "$2" || fail=1
}

for f in text:5 md:4 csv:5; do
	n=${f#*:}
	f=${f%:*}
	"$FUSEDIFF" --report $f "$A" "$B" >"$tmp/report.$f" || { echo "FAIL: --report $f"; fail=1; }
	# both GPU names, the fused kernel in the pairs and in the fusion (name and sentence; in
	# Markdown the sentence's backslashes are escaped as Markdown, \\e\]0;...)
	check "--report $f" "$tmp/report.$f" "$n"
done
"$FUSEDIFF" --report json "$A" "$B" >"$tmp/report.json" || { echo "FAIL: --report json"; fail=1; }
check "--report json (as JSON escapes)" "$tmp/report.json" 0
grep -qF '\u001b]0;pwned\u0007' "$tmp/report.json" || { printf 'FAIL: --report json lacks %s\n' '\u001b]0;pwned\u0007'; fail=1; }
"$FUSEDIFF" --summary "$A" >"$tmp/summary" || { echo "FAIL: --summary"; fail=1; }
check "--summary" "$tmp/summary" 2

cat >"$tmp/keys" <<'EOF'
:dump layers
overview
:dump overview
pairs
:dump pairs
down
:dump pair-evidence
names
:dump pair-names
fusions
:dump fusions
enter
:dump fusion-evidence
evidence
:dump fusion-evidence-large
Esc
summed
:dump summed
enter
:dump summed-pairs
help
:dump help
EOF
FUSEDIFF_DUMP_DIR="$tmp" "$FUSEDIFF" --headless --size 200x50 --script "$tmp/keys" "$A" "$B" >"$tmp/out" 2>&1 ||
	{ echo "FAIL: the script did not play:"; cat "$tmp/out"; exit 1; }
for s in layers overview pairs pair-evidence pair-names fusions fusion-evidence fusion-evidence-large summed \
	summed-pairs help; do
	case $s in
	help) check "the $s screen" "$tmp/$s.screen" 0 ;;
	*) check "the $s screen" "$tmp/$s.screen" 1 ;;
	esac
done
# the header names both GPUs (the labels), the fusion and its evidence name the fused kernel
head -n 2 "$tmp/layers.screen" | grep -qF "NVIDIA H200$shown" || { echo "FAIL: the header's labels"; fail=1; }
grep -qF "FusedAddRMSNormKernel$shown" "$tmp/fusions.screen" || { echo "FAIL: the fusions view"; fail=1; }
grep -qF "FusedAddRMSNormKernel$shown" "$tmp/fusion-evidence.screen" || { echo "FAIL: the fusion's evidence"; fail=1; }
exit $fail
