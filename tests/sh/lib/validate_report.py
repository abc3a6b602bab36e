"""validate_report.py SCHEMA [--check-schema] [--reference] [--broken-from REPORT] REPORT... —
check fusediff JSON reports against the JSON Schema that `fusediff --print-schema` prints
(Draft 2020-12). Prints one line per report that does not validate, with the path of the first
error, and exits 1; exit 77 (a skip for tests/run-one.sh) when it cannot validate.

Each report is validated by fast_schema.py (the schema compiled into Python functions, about ten
times faster than jsonschema); jsonschema, the reference, is asked only where a report fails, for
the path and message of the first error, or where fast_schema.py does not know a keyword of the
schema (it then validates everything). Without the jsonschema module, a failure is reported
without its path, and a schema fast_schema.py cannot compile is a skip (77).
--reference also has both validate a sample of every report and requires them to agree
(tests/sh/schema.sh, once a make check: it keeps the fast validator honest); it needs jsonschema
(else 77). The sample (sample() below) is the report with each array longer than 8 elements cut
to its first 8 and the first element of every other shape: every member and kind of value the
report holds, at a tenth of jsonschema's time on the whole report (which fast_schema.py still
validates in full).
--broken-from REPORT also checks that the schema is strict: copies of REPORT with a member the
schema does not know, a wrong type, a missing member and an unknown warning code must each fail
(tests/sh/schema.sh; in this process, not one more per copy).
--check-schema first checks SCHEMA itself against the Draft 2020-12 metaschema: schema.sh asks
for it, once a make check; the other tests do not (0.3 s of CPU a call). It needs jsonschema."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fast_schema  # noqa: E402 (this directory first)

args = sys.argv[2:]
flags = set()
while args[:1] in (["--check-schema"], ["--reference"]):
    flags.add(args.pop(0))
broken_from = None
if args[:1] == ["--broken-from"]:
    broken_from, args = args[1], args[2:]
schema = json.load(open(sys.argv[1], encoding="utf-8"))

try:
    fast = fast_schema.Validator(schema)
except fast_schema.Unsupported as e:
    print("fast_schema.py does not know the schema's %s: jsonschema validates" % e)
    fast = None

reference = None


def jsonschema_validator():
    """jsonschema's validator of the schema (imported on first use: 0.2 s of CPU), or None when
    the module is missing."""
    global reference
    if reference is None:
        try:
            import jsonschema
        except ImportError:
            reference = False
            return None

        def inline(node, depth=0):
            """The schema with each {"$ref": "#/$defs/NAME"} replaced by a copy of what it
            names: the same constraints (the schema's $refs have no sibling keywords and none
            is recursive), and a third less CPU for jsonschema, which otherwise resolves every
            $ref again at every array element it validates."""
            assert depth < 50, "a recursive $ref"
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
                    return inline(schema["$defs"][ref[len("#/$defs/"):]], depth + 1)
                return {k: inline(v, depth + 1) for k, v in node.items()}
            if isinstance(node, list):
                return [inline(v, depth + 1) for v in node]
            return node

        if "--check-schema" in flags:
            jsonschema.Draft202012Validator.check_schema(schema)
        reference = jsonschema.Draft202012Validator(inline(schema))
    return reference or None


if flags or fast is None:
    if jsonschema_validator() is None:
        print("python3 has no jsonschema module (Debian: python3-jsonschema)")
        sys.exit(77)


def first_error(doc):
    """'PATH: MESSAGE (N errors)' of jsonschema's first error, '' when it finds none, None when
    there is no jsonschema."""
    v = jsonschema_validator()
    if v is None:
        return None
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errors:
        return ""
    e = errors[0]
    where = "/".join(str(p) for p in e.absolute_path) or "(top)"
    return "%s: %s (%d errors)" % (where, e.message[:300], len(errors))


def shape(v):
    """What a value is made of, for sample(): its JSON type, an object's members and their
    shapes, the set of an array's elements' shapes; with a number's sign and whether a string
    is empty (the schema's minimum and minLength)."""
    if isinstance(v, dict):
        return ("o",) + tuple(sorted((k, shape(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("a", frozenset(shape(x) for x in v))
    if isinstance(v, bool) or v is None:
        return type(v).__name__
    if isinstance(v, (int, float)):
        return (type(v).__name__, v < 0)
    return (type(v).__name__, v == "")


def sample(v):
    """v with every array longer than 8 elements cut to its first 8 and the first element of
    each other shape (recursively): the same members and kinds of value, a fraction of the
    elements (the schema's minItems and maxItems are at most 3, so a sample of a valid array is
    valid); what jsonschema validates under --reference."""
    if isinstance(v, dict):
        return {k: sample(x) for k, x in v.items()}
    if isinstance(v, list):
        if len(v) > 8:
            seen = set(shape(x) for x in v[:8])
            kept = v[:8]
            for x in v[8:]:
                sh = shape(x)
                if sh not in seen:
                    seen.add(sh)
                    kept.append(x)
            v = kept
        return [sample(x) for x in v]
    return v


def check(name, doc):
    """True when doc is valid; prints why not, and where the two validators disagree."""
    ok = fast(doc) if fast else None
    if ok and "--reference" not in flags:
        return True
    if ok:  # --reference: both validators agree on the sample
        doc, name = sample(doc), name + " (sampled)"
        ok = fast(doc)
    err = first_error(doc)
    if err is None:  # no jsonschema: the fast validator's word
        print("%s: does not validate (install python3-jsonschema for where)" % name)
        return False
    if ok is not None and ok != (err == ""):
        print("%s: fast_schema.py says %s, jsonschema %s" %
              (name, "valid" if ok else "invalid", err or "valid"))
        return False
    if err:
        print("%s: %s" % (name, err))
    return not err


bad = 0
for path in args:
    if not check(path, json.load(open(path, encoding="utf-8"))):
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
        name = "%s with %s" % (broken_from, what)
        d = sample(d)
        valid = (fast(d) if fast else None, first_error(d) == "" if reference else None)
        if True in valid:
            print("%s validates (%s) but should not" %
                  (name, "fast_schema.py" if valid[0] else "jsonschema"))
            bad = 1
sys.exit(bad)
