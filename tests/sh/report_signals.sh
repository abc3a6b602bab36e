#!/bin/sh
# report_signals.sh — --report when the output fails or a signal ends the program:
# - a reader that closes the pipe early (| head) ends the report quietly by SIGPIPE (141, no
#   message, like any filter); where SIGPIPE is ignored, one line "write error: Broken pipe"
#   and status 1; never a hang;
# - beyond a file size limit (ulimit -f): one line "File too large", status 1 (not a core
#   dump), and -o leaves neither a temporary file nor a changed target;
# - -o FILE killed by SIGTERM, SIGINT, SIGHUP or SIGQUIT while its temporary file is complete
#   but not yet renamed (held in fsync by an LD_PRELOAD shim): 128 + the signal, no temporary
#   file left, the old FILE untouched; a SIGHUP ignored on entry (nohup) stays ignored;
# - -o into a directory, or a directory that cannot be written: one line, status 1.
set -u
: "${FUSEDIFF:?run through make check}"
# (the eager Llama trace cut to its first 4 decode passes: its prefill passes, the ones compared,
# are the example's, the same JSON report (257 kB), 8.9 MB to load where the example is 26 MB)
A=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
B=examples/llama8l_compiled_sdpa.json.gz
# the compiled trace against itself: a JSON report of 100 kB at a third of the CPU, for the
# cases past the closed pipe, whose checks do not depend on what the report says
S=examples/llama8l_compiled_sdpa.json.gz
tmp=$(mktemp -d) || exit 1
pids=
trap 'for p in $pids; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
# one_line FILE TEXT: FILE holds exactly the line TEXT
one_line() {
	printf '%s\n' "$2" >"$tmp/want"
	cmp -s "$1" "$tmp/want" || { echo "want:"; cat "$tmp/want"; echo "got:"; cat "$1"; fail "$3"; }
}
# no_temp DIR: no temporary file of fusediff's is left in DIR
no_temp() {
	ls -A "$1" | grep -q '^\.fusediff-' && { ls -lA "$1"; fail "a temporary file was left behind ($2)"; }
	return 0
}

# --- a closed pipe ------------------------------------------------------------------------------
( "$FUSEDIFF" --report json "$A" "$B" 2>"$tmp/err"; echo $? >"$tmp/status" ) | head -c 10 >"$tmp/head"
[ "$(cat "$tmp/status")" = 141 ] || fail "| head -c 10: status $(cat "$tmp/status"), want 141 (SIGPIPE)"
[ -s "$tmp/err" ] && { cat "$tmp/err"; fail "| head -c 10: a message on standard error"; }
[ "$(cat "$tmp/head")" = '{
  "schem' ] || fail "| head -c 10: not the report's start"
# (json: 190 kB, more than a pipe holds, so that a write fails whenever head ends; the 44 kB
# text report could fit in the pipe before head ran and end with status 0 on a busy machine)
( trap '' PIPE; "$FUSEDIFF" --report json "$A" "$B" 2>"$tmp/err"; echo $? >"$tmp/status" ) | head -c 10 >/dev/null
[ "$(cat "$tmp/status")" = 1 ] || fail "SIGPIPE ignored: status $(cat "$tmp/status"), want 1"
one_line "$tmp/err" "fusediff: write error: Broken pipe" "SIGPIPE ignored: not one line"

# --- a file size limit ---------------------------------------------------------------------------
mkdir "$tmp/out"
echo "the old report" >"$tmp/out/r.json"
( ulimit -f 8 && exec "$FUSEDIFF" --report json -o "$tmp/out/r.json" "$S" "$S" ) 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "ulimit -f with -o: status $rc, want 1"
one_line "$tmp/err" "fusediff: $tmp/out/r.json: File too large" "ulimit -f with -o: not one line"
no_temp "$tmp/out" "ulimit -f"
[ "$(cat "$tmp/out/r.json")" = "the old report" ] || fail "ulimit -f: the old report was changed"
( ulimit -f 8 && exec "$FUSEDIFF" --report json "$S" "$S" ) >"$tmp/stdout.json" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "ulimit -f on standard output: status $rc, want 1"
one_line "$tmp/err" "fusediff: write error: File too large" "ulimit -f on standard output: not one line"

# --- -o and directories --------------------------------------------------------------------------
"$FUSEDIFF" --report json -o "$tmp/out" "$S" "$S" 2>"$tmp/err"
[ $? = 1 ] || fail "-o DIRECTORY: status not 1"
one_line "$tmp/err" "fusediff: $tmp/out: Is a directory" "-o DIRECTORY: not one line"
if [ "$(id -u)" != 0 ]; then
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	"$FUSEDIFF" --report json -o "$tmp/ro/r.json" "$S" "$S" 2>"$tmp/err"
	[ $? = 1 ] || fail "-o into a read-only directory: status not 1"
	one_line "$tmp/err" "fusediff: $tmp/ro/r.json: Permission denied" "-o into a read-only directory"
	ls -A "$tmp/ro" | grep -q . && fail "-o into a read-only directory left a file"
	chmod 755 "$tmp/ro"
else
	echo "note: running as root: -o into a read-only directory not tested"
fi

# --- signals while -o holds a complete temporary file ---------------------------------------------
CC=${CC:-cc}
cat >"$tmp/stall.c" <<'EOF'
/* fsync() that never returns: the report is written, its temporary file not yet renamed */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int fsync(int fd)
{
	const char *mark = getenv("STALL_MARK");
	int f = mark ? open(mark, O_WRONLY | O_CREAT, 0600) : -1;

	(void)fd;
	if (f >= 0)
		close(f);
	for (;;)
		pause();
}
EOF
if ! "$CC" -shared -fPIC -o "$tmp/stall.so" "$tmp/stall.c" 2>"$tmp/cc.err"; then
	cat "$tmp/cc.err"
	echo "note: no C compiler for the LD_PRELOAD shim: signals during -o not tested"
	exit 0
fi
# stalled [ENV...]: start the report in the background, held in fsync; $p is its pid
stalled() {
	rm -f "$tmp/stalled"
	env "$@" STALL_MARK="$tmp/stalled" LD_PRELOAD="$tmp/stall.so" ASAN_OPTIONS=verify_asan_link_order=0 \
		"$FUSEDIFF" --report json -o "$tmp/out/r.json" "$S" "$S" 2>"$tmp/err" &
	p=$!
	pids="$pids $p"
	i=0
	while [ ! -e "$tmp/stalled" ]; do
		i=$((i + 1))
		[ $i -ge 300 ] && fail "the report did not reach fsync"
		kill -0 $p 2>/dev/null || { cat "$tmp/err"; fail "the report ended before fsync"; }
		sleep 0.1
	done
	ls -A "$tmp/out" | grep -q '^\.fusediff-' || fail "no temporary file while writing"
}
for sig in TERM:15 INT:2 HUP:1 QUIT:3; do
	want=$((128 + ${sig#*:}))
	sig=${sig%:*}
	stalled --default-signal=INT --default-signal=QUIT
	kill -$sig $p
	wait $p 2>/dev/null
	rc=$?
	[ $rc = $want ] || fail "SIG$sig during -o: status $rc, want $want"
	no_temp "$tmp/out" "SIG$sig"
	[ "$(cat "$tmp/out/r.json")" = "the old report" ] || fail "SIG$sig: the old report was changed"
done
# nohup: SIGHUP ignored on entry stays ignored; SIGTERM still cleans up. The two signals
# arrive in order (SIGHUP first): had SIGHUP not been ignored, the status would be 129.
stalled --ignore-signal=HUP
kill -HUP $p
kill -TERM $p
wait $p 2>/dev/null
rc=$?
[ $rc = 143 ] || fail "a report started with SIGHUP ignored (nohup): status $rc after SIGHUP and SIGTERM, want 143"
no_temp "$tmp/out" "SIGTERM after an ignored SIGHUP"
[ "$(cat "$tmp/out/r.json")" = "the old report" ] || fail "the old report was changed"
exit 0
