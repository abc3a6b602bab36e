#!/bin/sh
# layering.sh [ROOT] — check that the pipeline's stages only depend downward.
#
# The stages, in order: base input trace readers efficiency classify structure compare session
# report ui app (src/ui/views belongs to ui): input is the plumbing (files, gzip, standard
# input, directories of traces), trace the model the readers fill, readers the formats. A file
# of a stage may include the headers of its own stage and of earlier ones, never of a later
# one. A file under src/ belongs to the stage of its folder (its first component); a public
# header, include/fusediff/NAME.h, to the stage the table below gives it (a new header gets a
# line there: one without is an error). Curses is included only under src/ui/, cJSON only under
# src/readers/. The environment is read only under src/app/ (env.c), and under src/ui/ for TERM
# and HOME (the terminal, and ~ in a path typed into the explorer): the libraries are given
# what it says. Prints one line per violation and exits 1 when there is any; run by
# tests/sh/layering.sh.
set -u
cd "${1:-.}" || exit 2
find src include/fusediff -name '*.[ch]' | sort | xargs awk '
BEGIN {
	n = split("base input trace readers efficiency classify structure compare session report ui app", st, " ")
	for (i = 1; i <= n; i++) rank[st[i]] = i
	# the public headers, by stage
	headers["base"] = "bigmem cleanup fileset intern json op_args outfile regex_guard text timings util"
	headers["input"] = "input trace_dir"
	headers["trace"] = "trace"
	headers["readers"] = "capture rank_peek trace_load"
	headers["efficiency"] = "efficiency"
	headers["classify"] = "classify names"
	headers["structure"] = "structure"
	headers["compare"] = "align comparison gate opportunity summed_pairs time_stats"
	headers["session"] = "ranks session"
	headers["report"] = "report trace_summary"
	headers["ui"] = "table table_cut ui_actions ui_explorer ui_screen ui_theme"
	for (s in headers) {
		k = split(headers[s], hn, " ")
		for (i = 1; i <= k; i++) public["include/fusediff/" hn[i] ".h"] = s
	}
	bad = 0
}
function stage_of(f,   d) {
	if (f ~ /^src\//) { d = substr(f, 5); sub(/\/.*/, "", d); return d }
	return (f in public) ? public[f] : "?"
}
function norm(p) {
	while (p ~ /[^\/]+\/\.\.\//) sub(/[^\/]+\/\.\.\//, "", p)
	return p
}
function report(msg) { print FILENAME ":" FNR ": " msg; bad = 1 }
FNR == 1 {
	me = stage_of(FILENAME)
	if (!(me in rank)) { print FILENAME ": no stage (give the header one in build-aux/layering.sh)"; bad = 1 }
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
		if (FILENAME !~ /^src\/readers\//) report("includes cJSON (" inc ") outside src/readers/")
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
