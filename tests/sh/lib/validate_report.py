"""validate_report.py SCHEMA REPORT... — check fusediff JSON reports against the JSON Schema
that `fusediff --print-schema` prints (jsonschema, Draft 2020-12). Prints one line per report
that does not validate, with the path of the first error, and exits 1; exit 77 (a skip for
tests/run-one.sh) when the jsonschema module is missing."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3 has no jsonschema module (Debian: python3-jsonschema)")
    sys.exit(77)

schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path, encoding="utf-8"))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print("%s: %s: %s (%d errors)" % (path, where, e.message[:300], len(errors)))
        bad = 1
sys.exit(bad)
