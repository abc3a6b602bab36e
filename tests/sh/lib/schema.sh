# schema.sh — sourced by the tests that write JSON reports: schema_validate FILE... checks each
# against `$FUSEDIFF --print-schema` (validate_report.py: fast_schema.py, jsonschema for where a
# report fails) with the first python3 that can (PATH's, else Debian's /usr/bin/python3).
# Returns 0 when every file validates, 1 when one does not, 77 when no python3 can validate (the
# caller decides whether that is a skip).
# schema_python: the first python3 with the jsonschema module, which schema.sh's --reference
# and --check-schema need (looked for, not imported: importing it took 0.2 s of CPU a time; what
# it found is kept in $schema_py: a test that asks before it validates starts python3 once for
# the question)
schema_python() {
	[ -n "${schema_py:-}" ] && { echo "$schema_py"; return 0; }
	for py in python3 /usr/bin/python3; do
		command -v "$py" >/dev/null 2>&1 &&
			"$py" -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("jsonschema"))' \
				2>/dev/null && { schema_py=$py; echo "$py"; return 0; }
	done
	return 1
}
# schema_validate does not ask schema_python first (a python3 start, 0.1 s of CPU): it runs
# validate_report.py with python3, and with /usr/bin/python3 where that one has no jsonschema
# (exit 77); the one that validated is kept in $schema_py, as schema_python keeps it.
schema_validate() {
	sdir=$(mktemp -d) || return 1
	"$FUSEDIFF" --print-schema >"$sdir/schema.json" || { rm -rf "$sdir"; return 1; }
	st=77
	for py in ${schema_py:-python3 /usr/bin/python3}; do
		command -v "$py" >/dev/null 2>&1 || continue
		"$py" tests/sh/lib/validate_report.py "$sdir/schema.json" "$@" >"$sdir/out"
		st=$?
		if [ $st != 77 ]; then
			schema_py=$py
			[ -s "$sdir/out" ] && cat "$sdir/out"
			break
		fi
	done
	rm -rf "$sdir"
	return $st
}
