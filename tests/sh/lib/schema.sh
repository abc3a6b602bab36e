# schema.sh — sourced by the tests that write JSON reports: schema_validate FILE... checks each
# against `$FUSEDIFF --print-schema` with the first python3 that has the jsonschema module
# (PATH's, else Debian's /usr/bin/python3 with python3-jsonschema, which make check installs when
# it can). Returns 0 when every file validates, 1 when one does not, 77 when no python3 can
# validate (the caller decides whether that is a skip).
# (the module is looked for, not imported: importing it took 0.2 s of CPU a time)
# (what it found is kept in $schema_py: a test that asks before it validates, as schema.sh does,
# starts python3 once for the question)
schema_python() {
	[ -n "${schema_py:-}" ] && { echo "$schema_py"; return 0; }
	for py in python3 /usr/bin/python3; do
		command -v "$py" >/dev/null 2>&1 &&
			"$py" -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("jsonschema"))' \
				2>/dev/null && { schema_py=$py; echo "$py"; return 0; }
	done
	return 1
}
schema_validate() {
	py=$(schema_python) || return 77
	sdir=$(mktemp -d) || return 1
	"$FUSEDIFF" --print-schema >"$sdir/schema.json" || { rm -rf "$sdir"; return 1; }
	"$py" tests/sh/lib/validate_report.py "$sdir/schema.json" "$@"
	st=$?
	rm -rf "$sdir"
	return $st
}
