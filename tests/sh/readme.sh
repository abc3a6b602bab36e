#!/bin/sh
# readme.sh — the README's commands work verbatim, and its tour says what the program shows.
#
# Conventions in README.md (keep them when you edit it):
#   - A fenced code block right after the line `<!-- readme.sh: run -->` is run here, one
#     command per line, each starting with `./fusediff`, in a scratch directory where
#     ./fusediff is the program under test and examples/ the bundled traces. Each must exit 0
#     and write nothing on standard error.
#   - The fenced block after `<!-- readme.sh: fusion 1 -->` is the first fusion sentence of the
#     eager/compiled text report, wrapped at spaces; regenerate it with
#       ./fusediff --report text examples/llama8l_eager_sdpa.json.gz \
#           examples/llama8l_compiled_sdpa.json.gz | sed -n 's/^   1\. //p' | fold -s -w 96 | sed 's/ *$//'
#   - An inline code span that starts with `--`, `fusediff ` or `./fusediff ` (and a code line
#     that starts with `./fusediff` or `fusediff `) names fusediff's options: each must exist in
#     --help. Other programs' options are written after their program's name
#     (`vllm serve --enforce-eager`). `make TARGET` names a target of the Makefile.
#   - Relative links and images point to files that exist; `#anchor` links to a heading.
# Then the facts the tour states (passes, layers, fusion counts, times, ratios, quoted output)
# are compared with what the program prints on examples/.
set -u
: "${FUSEDIFF:?run through make check}"
R=README.md
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "$*"; fail=1; }

# --- runnable blocks ----------------------------------------------------------------------
awk '
	inblock { if ($0 ~ /^```/) inblock = 0; else print; next }
	arm { arm = 0; if ($0 ~ /^```/) { inblock = 1; next } }
	$0 == "<!-- readme.sh: run -->" { arm = 1 }
' "$R" >"$tmp/commands"
mkdir "$tmp/run"
ln -s "$PWD/examples" "$tmp/run/examples"
ln -s "$FUSEDIFF" "$tmp/run/fusediff"
n=0
while IFS= read -r cmd; do
	case $cmd in '' | '#'*) continue ;; esac
	case $cmd in
	'./fusediff '*) ;;
	*) err "README: a runnable block holds '$cmd', which does not start with ./fusediff"; continue ;;
	esac
	n=$((n + 1))
	(cd "$tmp/run" && sh -c "$cmd") >"$tmp/out.$n" 2>"$tmp/err.$n"
	rc=$?
	[ $rc -eq 0 ] || err "README command failed (exit $rc): $cmd"
	[ ! -s "$tmp/err.$n" ] || { err "README command wrote to standard error: $cmd"; cat "$tmp/err.$n"; }
done <"$tmp/commands"
[ $n -ge 6 ] || err "README: only $n runnable commands (marked <!-- readme.sh: run -->), want at least 6"
for f in report.md report.json report.csv; do
	[ -s "$tmp/run/$f" ] || err "README: the Reports commands did not write $f"
done
grep -q '"schema_version": *1' "$tmp/run/report.json" 2>/dev/null || err "report.json: no schema_version 1"

# --- options, make targets and links -------------------------------------------------------
# Inline code spans (paragraphs joined, so a span may cross a line break) and code lines.
awk '
	function spans(text,   s) {
		while (match(text, /`[^`]+`/)) {
			s = substr(text, RSTART + 1, RLENGTH - 2)
			print s
			text = substr(text, RSTART + RLENGTH)
		}
	}
	/^```/ { spans(para); para = ""; code = !code; next }
	code { if ($0 ~ /^(\.\/)?fusediff |^make /) print; next }
	/^[ \t]*$/ { spans(para); para = ""; next }
	{ para = para " " $0 }
	END { spans(para) }
' "$R" >"$tmp/spans"
"$FUSEDIFF" --help >"$tmp/help"
grep -E '^(--|(\./)?fusediff )' "$tmp/spans" | grep -Eo -- '(^| )--[a-z][a-z-]*' | tr -d ' ' | sort -u |
	while IFS= read -r opt; do
		grep -qE -- "(^|[ ,])$opt( |$)" "$tmp/help" || echo "README mentions $opt, which --help does not list"
	done >"$tmp/bad-options"
[ ! -s "$tmp/bad-options" ] || { cat "$tmp/bad-options"; fail=1; }
grep -E '^make [a-z]' "$tmp/spans" | awk '{print $2}' | sort -u | while IFS= read -r t; do
	case $t in
	check-*) # one test's target: check-NAME of tests/NAME.c or tests/sh/NAME.sh
		n=${t#check-}
		[ "$n" = NAME ] || [ -f "tests/$n.c" ] || [ -f "tests/sh/$n.sh" ] ||
			echo "README mentions make $t, but there is no test $n" ;;
	*) grep -qE "^$t:" Makefile tests/fuzz/fuzz.mk || echo "README mentions make $t, which is not a target" ;;
	esac
done >"$tmp/bad-targets"
[ ! -s "$tmp/bad-targets" ] || { cat "$tmp/bad-targets"; fail=1; }
grep -Eo '\]\([^)]+\)' "$R" | sed 's/^](//; s/)$//' | sort -u >"$tmp/links"
awk '/^#+ / { s = tolower($0); sub(/^#+ /, "", s); gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' \
	"$R" >"$tmp/anchors"
while IFS= read -r l; do
	case $l in
	http://* | https://*) ;;
	'#'*) grep -qxF -- "${l#\#}" "$tmp/anchors" || err "README links to $l, which is no heading" ;;
	*) [ -e "${l%%#*}" ] || err "README links to $l, which does not exist" ;;
	esac
done <"$tmp/links"

# --- the tour's facts ------------------------------------------------------------------------
# says TEXT: the README contains TEXT (on one line). Collected, and looked for at the end by one
# awk (a grep each cost a process start)
: >"$tmp/says"
says() {
	printf '%s\n' "$1" >>"$tmp/says"
}
shows() { # shows TEXT FILE: the program's output FILE contains TEXT, as the README says
	grep -qF -- "$1" "$2" || err "README says '$1', but the program's output does not show it"
	says "$1"
}
E=examples
LL="$E/llama8l_eager_sdpa.json.gz $E/llama8l_compiled_sdpa.json.gz"
SG="$E/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"
SG="$SG $E/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"
# readme_run FILE ARGS...: FILE is the output of fusediff ARGS: the output of the README's own
# run of the same command when a runnable block holds it (its exit status and standard error
# were checked above), else of a run here
readme_run() {
	file=$1
	shift
	i=0
	while IFS= read -r cmd; do
		case $cmd in '' | '#'*) continue ;; './fusediff '*) ;; *) continue ;; esac
		i=$((i + 1))
		if [ "$cmd" = "./fusediff $*" ]; then
			cp "$tmp/out.$i" "$file"
			return 0
		fi
	done <"$tmp/commands"
	"$FUSEDIFF" "$@" >"$file"
}
readme_run "$tmp/summary" --summary $E/llama8l_eager_sdpa.json.gz || err "--summary failed"
readme_run "$tmp/llama" --report text $LL || err "--report text (Llama) failed"
"$FUSEDIFF" --report json $SG >"$tmp/sglang.json" || err "--report json (SGLang) failed"
readme_run "$tmp/sglang" --report text $SG || err "--report text (SGLang) failed"

# 1. one trace
shows 'NVIDIA (from cuda_runtime_version)' "$tmp/summary"
shows '"prefill" x2, "decode" x16' "$tmp/summary"
shows 'Other: 0.0%' "$tmp/summary"

# 2. eager against compiled
passes() { # passes SIDE FILE: "P prefill, D decode, M mixed), L layers per pass" of side A or B
	sed -n "/^$1: /{n;p;}" "$2" | sed -n 's/.* pass[es]* (\([^)]*\)), \([0-9]*\) layers per pass.*/\1, \2/p'
}
pa=$(passes A "$tmp/llama")
pb=$(passes B "$tmp/llama")
[ "$pa" = "2 prefill, 16 decode, 0 mixed, 8" ] && says "2 prefill and 16 decode passes" ||
	err "eager passes/layers are now '$pa': update the tour"
[ "$pb" = "2 prefill, 0 decode, 0 mixed, 8" ] && says '(`llama8l_compiled_sdpa`: 2 prefill passes)' ||
	err "compiled passes/layers are now '$pb': update the tour"
says "8 layers per pass on both sides"
grep -q '^Phase compared: prefill ' "$tmp/llama" && says "The report compares the prefill passes" ||
	err "the Llama report no longer compares prefill: update the tour"
total=$(sed -n 's/^Total GPU time per pass: A \([0-9.]*\) us, B \([0-9.]*\) us, B - A -\([0-9.]*\) us, B\/A \([0-9.]*\)\.$/\1 \2 \3 \4/p' \
	"$tmp/llama")
set -- $total
if [ $# -eq 4 ]; then
	says "$1 us of kernel time eagerly against $2 us"
	says "compiled (B/A $4)"
	saved=$3
else
	err "no total in the Llama report: update the tour"
	saved=x
fi
nf=$(sed -n 's/^Fusion differences (\([0-9]*\))$/\1/p' "$tmp/llama")
says "**$nf fusion differences**"
# the first fusion, verbatim
sed -n 's/^   1\. //p' "$tmp/llama" >"$tmp/fusion1.want"
awk '
	inblock { if ($0 ~ /^```/) exit; printf "%s%s", (n++ ? " " : ""), $0; next }
	arm { arm = 0; if ($0 ~ /^```/) { inblock = 1; next } }
	$0 == "<!-- readme.sh: fusion 1 -->" { arm = 1 }
	END { print "" }
' "$R" >"$tmp/fusion1.got"
cmp -s "$tmp/fusion1.want" "$tmp/fusion1.got" ||
	{ err "README's first fusion differs from the report's (regenerate it as this test's header says):"
		diff "$tmp/fusion1.want" "$tmp/fusion1.got"; }
d1=$(sed -n 's/.* B - A -\([0-9.]*\) us\.$/\1/p' "$tmp/fusion1.want" | awk '{ printf "%.0f", $1 }')
says "accounts for $d1 of the $(echo "$saved" | awk '{ printf "%.0f", $1 }') us per pass"
sed -n 's/^   2\. //p' "$tmp/llama" | grep -q '(rope' || err "fusion 2 is no longer RoPE: update the tour"
sed -n 's/^   3\. //p' "$tmp/llama" | grep -qF 'triton_poi_fused__unsafe_view_mul_silu_9 (mul+silu)' ||
	err "fusion 3 is no longer triton_poi_fused__unsafe_view_mul_silu_9: update the tour"
says '`triton_poi_fused__unsafe_view_mul_silu_9`'
sed -n 's/^   4\. //p' "$tmp/llama" | grep -q 'embedding.* in layer 0;' ||
	err "fusion 4 is no longer the embedding fused into layer 0's norm: update the tour"
# every GEMM and attention pair is a match, but the rotary table's GEMM (one-sided on each side)
awk '/^Kernel pairs by layer/ { on = 1; next } on && ($3 == "GEMM" || $3 == "Attention") && $2 != "match" && !/simt_sgemm/' \
	"$tmp/llama" >"$tmp/unmatched"
[ ! -s "$tmp/unmatched" ] || { err "GEMM or attention pairs that are not a match:"; cat "$tmp/unmatched"; }
says 'but for the small GEMM of the rotary table'
says 'Every GEMM and the attention kernel of every layer is a'

# 3. the headless first screen
i=0
while IFS= read -r cmd; do
	case $cmd in '' | '#'*) continue ;; esac
	i=$((i + 1))
	case $cmd in *--headless*)
		grep -q "^ A llama8l_eager_sdpa.json.gz .* 8 layers" "$tmp/out.$i" &&
			grep -q "$nf fusion differences" "$tmp/out.$i" ||
			{ err "the headless command did not print the Layers screen:"; head -n 5 "$tmp/out.$i"; }
		;;
	esac
done <"$tmp/commands"

# 4. AMD against NVIDIA
[ "$(passes A "$tmp/sglang")" = "0 prefill, 1 decode, 0 mixed, 32" ] &&
	[ "$(passes B "$tmp/sglang")" = "0 prefill, 1 decode, 0 mixed, 32" ] &&
	says "the one decode pass of each side: 32 layers per pass on both" ||
	err "the SGLang pair is no longer one decode pass of 32 layers on each side: update the tour"
grep -q '^Fusion differences (0)$' "$tmp/sglang" && says "**no fusion difference**" ||
	err "the SGLang pair now has fusion differences: update the tour"
shows 'paged_attention_ll4mi_QKV_mfma16_kernel' "$tmp/sglang"
grep -q 'splitKreduce' "$tmp/sglang.json" || err "no splitKreduce kernel in the SGLang report"
ratio() { # ratio CLASS: B/A of a class in the time-by-class table
	awk -v c="$1" '/^Time by class/ { on = 1; next } on && /^$/ && seen { exit }
		on && $1 == c { print $NF; seen = 1 }' "$tmp/sglang"
}
says "takes half the time (B/A $(sed -n 's/^Total GPU time per pass: .*B\/A \([0-9.]*\)\.$/\1/p' "$tmp/sglang"))"
says "B/A $(ratio GEMM)) and attention (B/A $(ratio Attention))"
awk '/^Layer [0-9]/ { on = 1; next } /^Epilogue/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ && $2 != "match" && $3 ~ /^(GEMM|Attention|Norm|RoPE|KV|Activation)$/' \
	"$tmp/sglang" >"$tmp/unmatched"
[ ! -s "$tmp/unmatched" ] || { err "SGLang layer steps that are not a match:"; cat "$tmp/unmatched"; }
says "every GEMM, attention, norm, RoPE, KV-cache write and activation of the 32 layers pairs one to"

# --- classification rules --------------------------------------------------------------------
# The example rules file is one fusediff accepts, and the error it quotes is the one it prints.
awk '
	inblock { if ($0 ~ /^```/) exit; print; next }
	arm { arm = 0; if ($0 ~ /^```/) { inblock = 1; next } }
	$0 == "<!-- readme.sh: rules -->" { arm = 1 }
' "$R" >"$tmp/run/example.rules"
grep -q '^[A-Za-z]' "$tmp/run/example.rules" || err "README: no rules block marked <!-- readme.sh: rules -->"
(cd "$tmp/run" && XDG_CONFIG_HOME=/nonexistent ./fusediff --rules example.rules --summary \
	examples/llama8l_compiled_sdpa.json.gz) >/dev/null 2>"$tmp/err" ||
	{ err "the README's example rules are rejected:"; cat "$tmp/err"; }
printf '# my rules\n\n# CLASS ATOMS REGEX\ngem gemm ^my_gemm_\n' >"$tmp/run/my.rules"
(cd "$tmp/run" && XDG_CONFIG_HOME=/nonexistent ./fusediff --rules my.rules --summary \
	examples/llama8l_compiled_sdpa.json.gz) >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || err "a rules file with an unknown class did not exit 1"
shows "$(cat "$tmp/err")" "$tmp/err"

# what the README should say, all looked for at once
awk 'FILENAME == ARGV[1] { want[$0] = 1; next }
	{ for (w in want) if (index($0, w)) delete want[w] }
	END { for (w in want) print w }' "$tmp/says" "$R" >"$tmp/unsaid"
while IFS= read -r w; do
	err "README should say '$w' (the program's output says so)"
done <"$tmp/unsaid"
exit $fail
