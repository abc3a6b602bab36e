"""validate_report.py SCHEMA [--check-schema] [--broken-from REPORT] REPORT... — check fusediff JSON reports
against the JSON Schema that `fusediff --print-schema` prints (jsonschema, Draft 2020-12).
Prints one line per report that does not validate, with the path of the first error, and exits
1; exit 77 (a skip for tests/run-one.sh) when the jsonschema module is missing.
--broken-from REPORT also checks that the schema is strict: copies of REPORT with a member the
schema does not know, a wrong type, a missing member and an unknown warning code must each fail
(tests/sh/schema.sh; in this process, not one more per copy).
--check-schema first checks SCHEMA itself against the Draft 2020-12 metaschema: schema.sh asks
for it, once a make check; the other tests do not (0.3 s of CPU a call)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3 has no jsonschema module (Debian: python3-jsonschema)")
    sys.exit(77)

args = sys.argv[2:]
broken_from = None
check_schema = args[:1] == ["--check-schema"]
if check_schema:
    args = args[1:]
if args[:1] == ["--broken-from"]:
    broken_from, args = args[1], args[2:]
schema = json.load(open(sys.argv[1], encoding="utf-8"))
if check_schema:
    jsonschema.Draft202012Validator.check_schema(schema)


def inline(node, depth=0):
    """The schema with each {"$ref": "#/$defs/NAME"} replaced by a copy of what it names: the
    same constraints (the schema's $refs have no sibling keywords and none is recursive), and
    a third less CPU for jsonschema, which otherwise resolves every $ref again at every array
    element it validates."""
    assert depth < 50, "a recursive $ref"
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
            return inline(schema["$defs"][ref[len("#/$defs/"):]], depth + 1)
        return {k: inline(v, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v, depth + 1) for v in node]
    return node


validator = jsonschema.Draft202012Validator(inline(schema))
bad = 0
for path in args:
    doc = json.load(open(path, encoding="utf-8"))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print("%s: %s: %s (%d errors)" % (path, where, e.message[:300], len(errors)))
        bad = 1
if broken_from:
    doc = json.load(open(broken_from, encoding="utf-8"))
    broken = {
        "an unknown member": dict(doc, surprise=1),
        "a_us as a string": dict(doc, a_us="12"),
        "no pairs": {k: v for k, v in doc.items() if k != "pairs"},
        "an unknown warning code": dict(doc, warnings=[{"code": "no_such_code", "message": "x"}]),
    }
    for what, d in broken.items():
        if validator.is_valid(d):
            print("%s with %s validates but should not" % (broken_from, what))
            bad = 1
sys.exit(bad)
