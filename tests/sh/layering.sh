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

# plant FILE LINE WANT: a copy of src/ and include/ with LINE added to FILE fails with WANT
plant() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -R src include "$tmp/t/"
	printf '%s\n' "$2" >>"$tmp/t/$1"
	if got=$(sh build-aux/layering.sh "$tmp/t"); then
		echo "planted '$2' in $1: not found"
		exit 1
	fi
	printf '%s\n' "$got" | grep -qF -- "$3" || { echo "planted '$2' in $1: want '$3', got:"; echo "$got"; exit 1; }
}
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
n=$(($(wc -l <src/input/input.c) + 1))
plant src/input/input.c '#include "fusediff/trace.h"' "src/input/input.c:$n: input includes fusediff/trace.h of the later stage trace"
n=$(($(wc -l <src/trace/trace.c) + 1))
plant src/trace/trace.c '#include "fusediff/capture.h"' "src/trace/trace.c:$n: trace includes fusediff/capture.h of the later stage readers"
n=$(($(wc -l <src/trace/trace.c) + 1))
plant src/trace/trace.c '#include "../readers/formats.h"' "src/trace/trace.c:$n: trace includes ../readers/formats.h of the later stage readers"
# a public header takes its stage from the table, not from a file named like it
plant include/fusediff/newthing.h '#include "fusediff/util.h"' "include/fusediff/newthing.h: no stage"
plant src/ui/run.c 'static const char *dir(void) { return getenv("FUSEDIFF_DUMP_DIR"); }' \
	"src/ui/run.c:"
exit 0
