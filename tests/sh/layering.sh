#!/bin/sh
# layering.sh — the stages only depend downward (build-aux/layering.sh): the tree as it is
# passes, and a copy with one planted upward include, curses or cJSON in the wrong place, or a
# library that reads the environment, fails with a line naming the file, the line and the
# stage.
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
n=$(($(wc -l <src/load/input.c) + 1))
plant src/load/input.c 'static int serial(void) { return getenv("FUSEDIFF_SERIAL") != NULL; }' \
	"src/load/input.c:$n: reads the environment (getenv) outside src/app/"
plant src/ui/run.c 'static const char *dir(void) { return getenv("FUSEDIFF_DUMP_DIR"); }' \
	"src/ui/run.c:"
exit 0
