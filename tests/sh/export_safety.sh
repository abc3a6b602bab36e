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
# export_to PATH ANSWER...: play e, the path, Enter and the answers; $tmp/status is the
# status line after it. $view: the view to export (default 2, Layers)
export_to() {
	path=$1
	shift
	{
		echo "${view:-2}"
		echo export
		echo C-u
		echo ":type $path"
		echo Enter
		for k in "$@"; do echo "$k"; done
		echo ":dump status"
	} >"$tmp/keys"
	FUSEDIFF_DUMP_DIR="$tmp" "$FUSEDIFF" --headless --size 200x40 --script "$tmp/keys" "$A" "$B" \
		>"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the script did not play"; }
	tail -n 1 "$tmp/status.screen" >"$tmp/status"
}
status_is() { # status_is TEXT WHAT: the status line starts with TEXT
	grep -qF -- "$1" "$tmp/status" || { cat "$tmp/status"; fail "$2: want '$1'"; }
}
no_temp() {
	ls -A "$tmp/d" | grep -q '^\.fusediff-' && { ls -lA "$tmp/d"; fail "a temporary file was left behind ($1)"; }
	return 0
}
mkdir "$tmp/d"

# a new file: the umask's mode
( umask 022 && export_to "$tmp/d/new.csv" )
status_is "wrote 34 rows to $tmp/d/new.csv" "a new file"
head -n 1 "$tmp/d/new.csv" | grep -q '^table,index,phase,a_us,' || fail "the new file is not the layers table of the CSV report"
[ "$(stat -c %a "$tmp/d/new.csv")" = 644 ] || fail "a new file has mode $(stat -c %a "$tmp/d/new.csv"), want 644"
# the exported rows are the CSV report's rows (full names, full precision), every view
"$FUSEDIFF" --report csv "$A" "$B" >"$tmp/report.csv" || fail "--report csv"
for v in 1 2 3 4 5; do
	view=$v export_to "$tmp/d/view$v.csv"
	n=$(($(wc -l <"$tmp/d/view$v.csv") - 1))
	status_is "wrote $n row" "view $v"
	grep -qxF -- "$(head -n 1 "$tmp/d/view$v.csv")" "$tmp/report.csv" || fail "view $v: the header is not a report table's"
	tail -n +2 "$tmp/d/view$v.csv" | grep -vxFf "$tmp/report.csv" | head -3 >"$tmp/extra"
	[ -s "$tmp/extra" ] && fail "view $v: rows that --report csv does not write: $(cat "$tmp/extra")"
done
# "~/" is the home directory
mkdir "$tmp/home"
HOME=$tmp/home export_to "~/x.csv"
[ -s "$tmp/home/x.csv" ] || fail "~/x.csv was not written in \$HOME"

# an existing file: n keeps it, y replaces it with the mode kept
echo "keep me" >"$tmp/d/old.csv"
chmod 640 "$tmp/d/old.csv"
export_to "$tmp/d/old.csv" n
status_is "not exported: $tmp/d/old.csv exists" "n"
[ "$(cat "$tmp/d/old.csv")" = "keep me" ] || fail "n changed the existing file"
export_to "$tmp/d/old.csv" Esc
[ "$(cat "$tmp/d/old.csv")" = "keep me" ] || fail "Esc changed the existing file"
export_to "$tmp/d/old.csv" y
status_is "wrote 34 rows to $tmp/d/old.csv" "y"
cmp -s "$tmp/d/old.csv" "$tmp/d/new.csv" || fail "y did not replace the file with the table"
[ "$(stat -c %a "$tmp/d/old.csv")" = 640 ] || fail "y did not keep the mode 640"
no_temp "y"

# a symbolic link: written through, the link stays
echo "keep me" >"$tmp/d/target.csv"
ln -s target.csv "$tmp/d/link.csv"
export_to "$tmp/d/link.csv" y
[ -L "$tmp/d/link.csv" ] || fail "the export replaced the symbolic link"
cmp -s "$tmp/d/target.csv" "$tmp/d/new.csv" || fail "the export did not write the link's target"

# a FIFO, a device, a directory: refused, left as they are
mkfifo "$tmp/d/fifo"
export_to "$tmp/d/fifo"
status_is "not exported: $tmp/d/fifo is not a regular file" "a FIFO"
[ -p "$tmp/d/fifo" ] || fail "the FIFO was replaced"
export_to /dev/null
status_is "not exported: /dev/null is not a regular file" "/dev/null"
[ -c /dev/null ] || fail "/dev/null was replaced"
export_to "$tmp/d"
status_is "not exported: $tmp/d is not a regular file" "a directory"
no_temp "refused"

# a write error: the old file kept, no temporary file (the Pairs table is over 16 KiB, the
# screen dump under it)
echo "keep me" >"$tmp/d/old.csv"
( ulimit -f 32 && view=3 export_to "$tmp/d/old.csv" y )
status_is "not exported: $tmp/d/old.csv: File too large" "ulimit -f"
[ "$(cat "$tmp/d/old.csv")" = "keep me" ] || fail "a failed export changed the file"
no_temp "ulimit -f"
exit 0
