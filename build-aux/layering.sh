#!/bin/sh
# layering.sh [ROOT] — check that the pipeline's stages only depend downward.
#
# The stages, in order: base load efficiency classify structure compare session report ui app (src/ui/views
# belongs to ui). A file of a stage may include the headers of its own stage and of earlier
# ones, never of a later one. A public header, include/fusediff/NAME.h, belongs to the stage of
# its module: the folder of src/*/NAME.c (ui_NAME.h: src/ui/NAME.c); a private header to the
# folder it is in. Curses is included only under src/ui/, cJSON only under src/load/. The
# environment is read only under src/app/ (env.c), and under src/ui/ for TERM and HOME (the
# terminal, and ~ in a path typed into the explorer): the libraries are given what it says.
# Prints one line per violation and exits 1 when there is any; run by tests/sh/layering.sh.
set -u
cd "${1:-.}" || exit 2
find src include/fusediff -name '*.[ch]' | sort | xargs awk '
BEGIN {
	n = split("base load efficiency classify structure compare session report ui app", st, " ")
	for (i = 1; i <= n; i++) rank[st[i]] = i
	while (("find src -name \"*.c\"" | getline f) > 0) {
		m = f; sub(/.*\//, "", m); sub(/\.c$/, "", m)
		if (!(m in module)) module[m] = stage_of(f)
	}
	bad = 0
}
function stage_of(f,   d, m) {
	if (f ~ /^src\//) { d = substr(f, 5); sub(/\/.*/, "", d); return d }
	m = f; sub(/.*\//, "", m); sub(/\.h$/, "", m)
	if (m in module) return module[m]
	sub(/^ui_/, "", m)
	return (m in module) ? module[m] : "?"
}
function norm(p) {
	while (p ~ /[^\/]+\/\.\.\//) sub(/[^\/]+\/\.\.\//, "", p)
	return p
}
function report(msg) { print FILENAME ":" FNR ": " msg; bad = 1 }
FNR == 1 {
	me = stage_of(FILENAME)
	if (!(me in rank)) { print FILENAME ": no stage (name a header after its module'"'"'s .c file)"; bad = 1 }
	dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
}
/getenv[ \t]*\(/ && FILENAME !~ /^src\/app\// && $0 !~ /^[ \t]*(\/\*|\*)/ {
	l = $0
	if (FILENAME ~ /^src\/ui\//) gsub(/getenv[ \t]*\([ \t]*"(TERM|HOME)"[ \t]*\)/, "", l)
	if (l ~ /getenv[ \t]*\(/)
		report("reads the environment (getenv) outside src/app/: take it as an option")
}
/^[ \t]*#[ \t]*include/ {
	inc = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", inc); sub(/[ \t].*/, "", inc)
	if (inc ~ /^<(n?curses\.h|ncursesw\/.*|term\.h)>$/) {
		if (FILENAME !~ /^src\/ui\//) report("includes curses (" inc ") outside src/ui/")
		next
	}
	if (inc ~ /^<(cjson\/.*|cJSON\.h)>$/) {
		if (FILENAME !~ /^src\/load\//) report("includes cJSON (" inc ") outside src/load/")
		next
	}
	if (inc !~ /^"/ || inc == "\"config.h\"") next
	h = substr(inc, 2, length(inc) - 2)
	if (h ~ /^fusediff\//) p = "include/" h
	else if (h ~ /^src\//) p = h
	else p = norm(dir "/" h)
	hs = stage_of(p)
	if (!(hs in rank)) report(h " has no stage")
	else if (me in rank && rank[hs] > rank[me])
		report(me " includes " h " of the later stage " hs)
}
END { exit bad }' || exit 1
