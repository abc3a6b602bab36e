#!/bin/sh
# export_safety.sh — the explorer's CSV export (e) never destroys what the user did not mean
# to replace (played with --headless scripts): an existing file is kept unless y answers the
# question, and replaced whole with its mode kept when it is; a symbolic link is written
# through; a FIFO, a device or a directory is refused, never replaced by a regular file; a
# write error (ulimit -f) leaves the old file and no temporary file; a new file gets the
# umask's mode, not mkstemp()'s 0600.
set -u
: "${FUSEDIFF:?run through make check}"
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
# The cases are played in one explorer run (a run of the comparison is about 0.1 s of CPU), each
# on a path of its own and with its own status dump; only the write error (ulimit -f limits
# every file the run writes) has a run of its own. HOME is $tmp/home for the runs (for "~/"),
# and for the --report csv they are compared with.
#
# export_case NAME PATH ANSWER...: the keys of one export (e, the path, Enter and the answers)
# of view $view (default 2, Layers), then the status line dumped as NAME.screen
export_case() {
	name=$1 path=$2
	shift 2
	echo "${view:-2}"
	echo export
	echo C-u
	echo ":type $path"
	echo Enter
	for k in "$@"; do echo "$k"; done
	echo ":dump $name"
}
# play: the keys of $tmp/keys, played
play() {
	HOME=$tmp/home FUSEDIFF_DUMP_DIR="$tmp" "$FUSEDIFF" --headless --size 200x40 --script "$tmp/keys" "$A" "$B" \
		>"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the script did not play"; }
}
status_is() { # status_is NAME TEXT WHAT: the status line (the last of NAME.screen) holds TEXT
	line=
	while IFS= read -r l; do line=$l; done <"$tmp/$1.screen"
	case $line in *"$2"*) ;; *) echo "$line"; fail "$3: want '$2'" ;; esac
}
no_temp() {
	ls -A "$tmp/d" | grep -q '^\.fusediff-' && { ls -lA "$tmp/d"; fail "a temporary file was left behind ($1)"; }
	return 0
}
mkdir "$tmp/d" "$tmp/home"
# an existing file (one for each answer: n and Esc keep it, y replaces it with the mode kept),
# a symbolic link, a FIFO
for f in old_n old_esc old_y; do
	echo "keep me" >"$tmp/d/$f.csv"
	chmod 640 "$tmp/d/$f.csv"
done
echo "keep me" >"$tmp/d/target.csv"
ln -s target.csv "$tmp/d/link.csv"
mkfifo "$tmp/d/fifo"
{
	export_case new "$tmp/d/new.csv"
	for v in 1 2 3 4 5; do view=$v export_case "view$v" "$tmp/d/view$v.csv"; done
	export_case home "~/x.csv"
	export_case old_n "$tmp/d/old_n.csv" n
	export_case old_esc "$tmp/d/old_esc.csv" Esc
	export_case old_y "$tmp/d/old_y.csv" y
	export_case link "$tmp/d/link.csv" y
	export_case fifo "$tmp/d/fifo"
	export_case devnull /dev/null
	export_case dir "$tmp/d"
} >"$tmp/keys"
( umask 022 && play )

# a new file: the umask's mode
status_is new "wrote 34 rows to $tmp/d/new.csv" "a new file"
head -n 1 "$tmp/d/new.csv" | grep -q '^table,index,phase,a_us,' || fail "the new file is not the layers table of the CSV report"
[ "$(stat -c %a "$tmp/d/new.csv")" = 644 ] || fail "a new file has mode $(stat -c %a "$tmp/d/new.csv"), want 644"
# the exported rows are the CSV report's rows (full names, full precision), every view
HOME=$tmp/home "$FUSEDIFF" --report csv "$A" "$B" >"$tmp/report.csv" || fail "--report csv"
for v in 1 2 3 4 5; do
	n=$(($(wc -l <"$tmp/d/view$v.csv") - 1))
	status_is "view$v" "wrote $n row" "view $v"
	grep -qxF -- "$(head -n 1 "$tmp/d/view$v.csv")" "$tmp/report.csv" || fail "view $v: the header is not a report table's"
	tail -n +2 "$tmp/d/view$v.csv" | grep -vxFf "$tmp/report.csv" | head -3 >"$tmp/extra"
	[ -s "$tmp/extra" ] && fail "view $v: rows that --report csv does not write: $(cat "$tmp/extra")"
done
# "~/" is the home directory
[ -s "$tmp/home/x.csv" ] || fail "~/x.csv was not written in \$HOME"

# an existing file: n keeps it, y replaces it with the mode kept
status_is old_n "not exported: $tmp/d/old_n.csv exists" "n"
[ "$(cat "$tmp/d/old_n.csv")" = "keep me" ] || fail "n changed the existing file"
[ "$(cat "$tmp/d/old_esc.csv")" = "keep me" ] || fail "Esc changed the existing file"
status_is old_y "wrote 34 rows to $tmp/d/old_y.csv" "y"
cmp -s "$tmp/d/old_y.csv" "$tmp/d/new.csv" || fail "y did not replace the file with the table"
[ "$(stat -c %a "$tmp/d/old_y.csv")" = 640 ] || fail "y did not keep the mode 640"
no_temp "y"

# a symbolic link: written through, the link stays
[ -L "$tmp/d/link.csv" ] || fail "the export replaced the symbolic link"
cmp -s "$tmp/d/target.csv" "$tmp/d/new.csv" || fail "the export did not write the link's target"

# a FIFO, a device, a directory: refused, left as they are
status_is fifo "not exported: $tmp/d/fifo is not a regular file" "a FIFO"
[ -p "$tmp/d/fifo" ] || fail "the FIFO was replaced"
status_is devnull "not exported: /dev/null is not a regular file" "/dev/null"
[ -c /dev/null ] || fail "/dev/null was replaced"
status_is dir "not exported: $tmp/d is not a regular file" "a directory"
no_temp "refused"

# a write error: the old file kept, no temporary file (the Pairs table is over 16 KiB, the
# screen dump under it)
echo "keep me" >"$tmp/d/old.csv"
view=3 export_case status "$tmp/d/old.csv" y >"$tmp/keys"
( ulimit -f 32 && play )
status_is status "not exported: $tmp/d/old.csv: File too large" "ulimit -f"
[ "$(cat "$tmp/d/old.csv")" = "keep me" ] || fail "a failed export changed the file"
no_temp "ulimit -f"
exit 0
