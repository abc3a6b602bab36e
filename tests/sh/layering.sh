#!/bin/sh
# layering.sh — the stages only depend downward (build-aux/layering.sh): the tree as it is
# passes, and a copy with one planted upward include (src/input, src/trace and src/readers
# included), curses or cJSON in the wrong place, a library that reads the environment, or a
# public header without a stage, fails with a line naming the file, the line and the stage.
set -u
cd "${FUSEDIFF_SRCDIR:-.}" || exit 1
out=$(sh build-aux/layering.sh .) || { echo "the tree breaks the layering:"; echo "$out"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The plants go into two copies of src/ and include/, a file planted at most once in each (the
# check is per file and line: each plant's line is looked for in the output): a copy and a run
# of build-aux/layering.sh per plant cost 0.1 s of CPU each.
# fresh: a new copy, $tmp/t, with no plant yet
fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -R src include "$tmp/t/"
	: >"$tmp/wants"
}
# plant FILE LINE WANT: LINE added to FILE in the copy; the check must say WANT
plant() {
	printf '%s\n' "$2" >>"$tmp/t/$1"
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$tmp/wants"
}
# check: the copy fails, with each plant's WANT in the output
check() {
	if got=$(sh build-aux/layering.sh "$tmp/t"); then
		echo "planted in the copy, none found:"
		cat "$tmp/wants"
		exit 1
	fi
	while IFS='	' read -r f l w; do
		case $got in *"$w"*) ;; *) echo "planted '$l' in $f: want '$w', got:"; echo "$got"; exit 1 ;; esac
	done <"$tmp/wants"
}
fresh
n=$(($(wc -l <src/base/util.c) + 1))
plant src/base/util.c '#include "fusediff/report.h"' "src/base/util.c:$n: base includes fusediff/report.h of the later stage report"
n=$(($(wc -l <src/structure/steps.c) + 1))
plant src/structure/steps.c '#include "../ui/ui_int.h"' "src/structure/steps.c:$n: structure includes ../ui/ui_int.h of the later stage ui"
plant include/fusediff/trace.h '#include "fusediff/session.h"' "include/fusediff/trace.h:"
n=$(($(wc -l <src/report/report.c) + 1))
plant src/report/report.c '#include <curses.h>' "src/report/report.c:$n: includes curses (<curses.h>) outside src/ui/"
plant src/compare/align.c '#include <cjson/cJSON.h>' "src/compare/align.c:"
# the environment: read in src/app/ alone (and TERM, HOME in src/ui/), passed down as options
n=$(($(wc -l <src/input/input.c) + 1))
plant src/input/input.c 'static int serial(void) { return getenv("FUSEDIFF_SERIAL") != NULL; }' \
	"src/input/input.c:$n: reads the environment (getenv) outside src/app/"
# the three stages that were src/load: input plumbing, the trace model, the format readers
n=$(($(wc -l <src/trace/trace.c) + 1))
plant src/trace/trace.c '#include "fusediff/capture.h"' "src/trace/trace.c:$n: trace includes fusediff/capture.h of the later stage readers"
# a public header takes its stage from the table, not from a file named like it
plant include/fusediff/newthing.h '#include "fusediff/util.h"' "include/fusediff/newthing.h: no stage"
plant src/ui/run.c 'static const char *dir(void) { return getenv("FUSEDIFF_DUMP_DIR"); }' \
	"src/ui/run.c:"
check
# the second copy: the files planted a second time
fresh
n=$(($(wc -l <src/input/input.c) + 1))
plant src/input/input.c '#include "fusediff/trace.h"' "src/input/input.c:$n: input includes fusediff/trace.h of the later stage trace"
n=$(($(wc -l <src/trace/trace.c) + 1))
plant src/trace/trace.c '#include "../readers/formats.h"' "src/trace/trace.c:$n: trace includes ../readers/formats.h of the later stage readers"
check
exit 0
