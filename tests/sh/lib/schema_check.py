"""schema_check.py — for a test whose own python3 already checks its JSON reports:
validate(PATH, ...) checks them against `$FUSEDIFF --print-schema` in that same process, through
validate_report.py, as lib/schema.sh's schema_validate does in a process of its own (a python3
start fewer: about 0.15 s of CPU on the 2-core VM, and the --print-schema and the find_spec
question of schema_python). Import it with tests/sh/lib on sys.path:

    sys.path.insert(0, "tests/sh/lib"); from schema_check import validate
    assert validate(a, b), "a report does not validate against --print-schema"

Returns False when a report does not validate (validate_report.py has printed which and where),
True when all do or when no python3 can validate (a skip, as schema_validate's 77, which its
callers do not count as a failure). validate_report.py validates with or without the jsonschema
module (fast_schema.py); where it cannot (77), /usr/bin/python3 (with Debian's
python3-jsonschema) validates in a process of its own, as schema_validate would pick it."""
import os
import runpy
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def validate(*paths):
    with tempfile.TemporaryDirectory() as d:
        schema = os.path.join(d, "schema.json")
        with open(schema, "wb") as f:
            subprocess.run([os.environ["FUSEDIFF"], "--print-schema"], stdout=f, check=True)
        argv = [os.path.join(HERE, "validate_report.py"), schema] + list(paths)
        saved = sys.argv
        sys.argv = argv
        try:
            runpy.run_path(argv[0], run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code
        finally:
            sys.argv = saved
        sys.stdout.flush()
        if code == 77:  # this python3 cannot validate: Debian's, with python3-jsonschema
            other = "/usr/bin/python3"
            if os.path.realpath(sys.executable) == os.path.realpath(other) or not os.access(other, os.X_OK):
                return True
            code = subprocess.run([other] + argv).returncode
        return code != 1
