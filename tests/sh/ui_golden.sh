#!/bin/sh
# ui_golden.sh — the explorer's golden screens: play tests/scripts/*.keys with --headless on
# the bundled example pairs (ncurses drawing into memory at a fixed size) and compare every
# ':dump NAME' with tests/golden/NAME.screen.
#
# After a deliberate change, regenerate with `make check GOLDEN_UPDATE=1` and review
# `git diff tests/golden` before committing.
set -u
: "${FUSEDIFF:?run through make check}"
LC_ALL=C.UTF-8
export LC_ALL
if [ "$(locale charmap 2>/dev/null)" != UTF-8 ]; then
	echo "the C.UTF-8 locale is missing"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
mkdir "$tmp/screens" "$tmp/ranks" "$tmp/ranks/a" "$tmp/ranks/b"

top=$(pwd)
play() { # play SCRIPT TRACE_A TRACE_B (paths from the current directory)
	if ! FUSEDIFF_DUMP_DIR="$tmp/screens" "$FUSEDIFF" --headless --size 120x40 \
		--script "$top/tests/scripts/$1.keys" "$2" "$3" >"$tmp/$1.out" 2>&1; then
		echo "FAIL: $1.keys did not play:"
		cat "$tmp/$1.out"
		fail=1
	fi
}

play llama examples/llama8l_eager_sdpa.json.gz examples/llama8l_compiled_sdpa.json.gz
play sglang examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz \
	examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
play escape tests/data/bad/escape_sequence_name.json tests/data/bad/escape_sequence_name.json
# the Nsight Systems pair, cut: two GPUs a side, device 0 compared, a warning
play nsys tests/data/profilers/nsys66_before.sqlite.gz tests/data/profilers/nsys66_after.sqlite.gz
# two directories of ranks (the SGLang pair as ranks 0 and 1 of each side): the Ranks view
for r in 0 1; do
	cp examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz "$tmp/ranks/a/run-TP-$r.json.gz"
	cp examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz "$tmp/ranks/b/run-TP-$r.json.gz"
done
cd "$tmp/ranks" && play ranks a b
cd "$top" || exit 1

# The checks below read every screen with one process each (grep, diff), not a grep and a cmp
# per screen (about 250 processes for the 83 screens).
n=0
for got in "$tmp/screens"/*.screen; do
	[ -f "$got" ] && n=$((n + 1))
done
# no control character ever reaches a screen (a name's ESC or BEL is shown as \e, \x07)
if [ $n -gt 0 ]; then
	LC_ALL=C grep -l "$(printf '[\001-\010\013-\037\177]')" "$tmp/screens"/*.screen >"$tmp/control"
	while read -r got; do
		echo "FAIL: ${got##*/} holds a control character"
		fail=1
	done <"$tmp/control"
fi
grep -qF '\e]0;pwned\x07' "$tmp/screens/escape-pairs.screen" 2>/dev/null ||
	{ echo "FAIL: the escape-sequence kernel name is not shown escaped"; fail=1; }

# golden: a screen dumped by one of the scripts above (a golden screen no script dumps any more
# is stale)
golden() {
	case $1 in llama-*.screen | sglang-*.screen | escape-*.screen | nsys-*.screen | ranks-*.screen) ;;
	*) return 1 ;;
	esac
}
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	[ $n -gt 0 ] && cp "$tmp/screens"/*.screen tests/golden/
	for f in tests/golden/*.screen; do
		golden "${f##*/}" && [ ! -f "$tmp/screens/${f##*/}" ] && rm -f "$f"
	done
else
	# one diff over both folders: "Files X and Y differ", "Only in FOLDER: NAME"
	LC_ALL=C diff -q "$tmp/screens" tests/golden >"$tmp/diff"
	[ $? -le 1 ] || { echo "FAIL: diff cannot compare the screens with tests/golden"; fail=1; }
	while read -r what a b c _; do
		case $what in
		Files)
			name=${a##*/}
			echo "FAIL: $name differs from tests/golden/$name (make check GOLDEN_UPDATE=1 and review git diff):"
			diff -u "tests/golden/$name" "$a" | head -n 30
			fail=1
			;;
		Only)
			case $b in
			tests/golden:)
				golden "$c" || continue
				echo "FAIL: tests/golden/$c is no longer dumped by any script"
				;;
			*) echo "FAIL: no golden screen tests/golden/$c (make check GOLDEN_UPDATE=1 writes it)" ;;
			esac
			fail=1
			;;
		*)
			echo "FAIL: diff: $what $a $b $c"
			fail=1
			;;
		esac
	done <"$tmp/diff"
fi
[ $n -gt 30 ] || { echo "FAIL: only $n screens dumped"; fail=1; }
[ "${GOLDEN_UPDATE:-0}" = 1 ] && echo "wrote $n golden screens into tests/golden"
exit $fail
