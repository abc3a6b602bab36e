#!/bin/sh
# repeats.sh — several captures of the same run per side (fusediff A1 A2 -- B1 B2), pooled as
# samples of one comparison, on the bundled eager Llama trace cut to its first 4 decode passes
# (tests/data/traces/make-eager-short.py: the mechanism, at a third of the loading): pooling
# doubles the compared passes and the trace against itself stays within noise; a copy whose
# kernels are all 10 % slower (made here from the real trace by slower_copy, lib/cases.sh),
# three captures a side, is beyond noise; a capture of another model, or of other steps in its
# layers, among the repeats is left out and warns repeat_differs, naming it; every report
# format names the captures; the usage errors; --repeats with two directories of captures.
set -u
E=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
NV=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
. tests/sh/lib/cases.sh
py=$(command -v python3) || { echo "python3 missing"; exit 77; }
slower_copy "$E" "$tmp/all10.json.gz" 1.10 || fail "making the slower copy"
S=$tmp/all10.json.gz
# a copy of the eager trace whose SDPA attention became a softmax (sed: a python3 start cost
# twice its CPU)
gzip -dc "$E" | sed -E 's/cudnn_generated_fort_native_sdpa_[A-Za-z0-9_]+/softmax_warp_forward/g
	s/"aten::(_cudnn_attention_forward|_scaled_dot_product_cudnn_attention|scaled_dot_product_attention)"/"aten::_softmax"/g' |
	gzip -1 >"$tmp/softmax.json.gz" || fail "making the copy without SDPA"

run one 0 --report json --phase decode -o "$tmp/one.json" "$E" "$E"
run pooled 0 --report json --phase decode -o "$tmp/pooled.json" "$E" "$E" -- "$E" "$E"
run slower 0 --report json --phase decode -o "$tmp/slower.json" "$E" "$E" "$E" -- "$S" "$S" "$S"
run differs 0 --report json --phase decode -o "$tmp/differs.json" "$E" "$E" -- "$E" "$NV" "$E"

# the text and Markdown reports name the captures on each side; CSV runs
run text 0 --report text --phase decode "$E" "$E" "$E" -- "$E"
expect_line text "   3 captures pooled: $E, $E, $E"
grep -q "captures pooled" "$tmp/text.out" && [ "$(grep -c "captures pooled" "$tmp/text.out")" = 1 ] ||
	fail "text: the side of one capture names captures"
run md 0 --report md --phase decode "$E" -- "$E" "$E"
expect_line md "  2 captures pooled: $E, $E"
run csv 0 --report csv --phase decode "$E" "$E" -- "$E" "$E"
# a gate on a pooled side that differs is not comparable (exit 4; the report is written all the
# same: the run of differs.json above, the same comparison, is the one without a gate, exit 0)
run differs_text 4 --report text --phase decode --fail-if-slower 3 "$E" "$E" -- "$E" "$NV"
grep -qF "Warning (repeat_differs): B's capture $NV has 32 layers per pass where its first capture ($E) has 8 layers per pass" \
	"$tmp/differs_text.out" || fail "differs_text: no repeat_differs warning naming $NV"

# structure from the first capture: a later capture of another shape is left out of the
# comparison (its passes are not samples) and is the warning repeat_differs, naming it and what
# differs; another depth (a capture of another model), or the same depth with other steps in
# its layers (a copy of the eager trace whose SDPA attention became a softmax, made here)
SM=$tmp/softmax.json.gz
run steps 0 --report json --phase decode -o "$tmp/steps.json" "$E" "$E" -- "$E" "$SM"
# (with a gate: not comparable, exit 4; steps.json's run is the one without, exit 0)
run steps_text 4 --report text --phase decode --fail-if-slower 3 "$E" "$E" -- "$E" "$SM"
grep -qF "Warning (repeat_differs): B's capture $SM has other steps in its 8 layers per pass than its first capture ($E), per pass" \
	"$tmp/steps_text.out" || fail "steps_text: no repeat_differs warning naming $SM: $(grep -F repeat_differs "$tmp/steps_text.out")"
# the reports' list of captures marks the one left out (and names each capture once)
expect_line steps_text "   2 captures pooled: $E, $SM (left out)"
[ "$(grep -c "captures pooled" "$tmp/steps_text.out")" = 2 ] || fail "steps_text: not one list of captures a side"

# the explorer's header counts the captures of the side that pools them
printf ':dump pooled\nq\n' >"$tmp/script"
here=$PWD
(cd "$tmp" && limit "$FUSEDIFF" --headless --size 120x30 --script script --phase decode \
	"$here/$E" "$here/$E" -- "$here/$E" >/dev/null 2>&1) || fail "explorer: exit status $?"
grep -q "  8 passes of 2 captures  " "$tmp/pooled.screen" || fail "explorer: the header does not count the captures: $(head -2 "$tmp/pooled.screen")"
grep -q "  4 passes  " "$tmp/pooled.screen" || fail "explorer: B's passes"

# one trace a side around --: two traces, the same report; a leading -- only ends the options
# (A B: one.json above, the same report as on standard output)
run two_sep 0 --report json --phase decode "$E" -- "$E"
cmp -s "$tmp/one.json" "$tmp/two_sep.out" || fail "A -- B differs from A B"
run lead 0 --report json --phase decode -- "$E" "$E"
cmp -s "$tmp/one.json" "$tmp/lead.out" || fail "-- A B differs from A B"
run lead_pooled 0 --report json --phase decode -o "$tmp/lead_pooled.json" -- "$E" "$E" -- "$E" "$E"
cmp -s "$tmp/pooled.json" "$tmp/lead_pooled.json" || fail "-- A1 A2 -- B1 B2 differs from A1 A2 -- B1 B2"
# an option's argument "--" is no separator
run label 0 --report json --phase decode --label-a -- "$E" "$E"

# usage errors
mkdir "$tmp/ranks"
run empty_b 2 --report text "$E" "$E" --
expect_err empty_b "fusediff: -- separates the captures of A from those of B: give at least one trace on each side
Try 'fusediff --help' for more information."
run empty_a 2 --report text -- -- "$E" "$E"
expect_err empty_a "fusediff: -- separates the captures of A from those of B: give at least one trace on each side
Try 'fusediff --help' for more information."
run stdin 2 --report text "$E" - -- "$E"
expect_err stdin "fusediff: -: standard input cannot be one of several captures
Try 'fusediff --help' for more information."
run dir 2 --report text "$E" -- "$tmp/ranks" "$E"
expect_err dir "fusediff: $tmp/ranks is a directory: repeated captures are trace files (two directories of per-rank traces compare rank by rank)
Try 'fusediff --help' for more information."
run three 2 --report text "$E" "$E" "$E"
expect_err three "fusediff: too many traces: '$E' (give two, or each side's captures with -- between the sides)
Try 'fusediff --help' for more information."
cp "$E" "$tmp/copy.json.gz"
run output 2 --report text -o "$tmp/copy.json.gz" "$E" -- "$E" "$tmp/copy.json.gz"
expect_err output "fusediff: -o $tmp/copy.json.gz is a capture of trace B: the report would replace it
Try 'fusediff --help' for more information."
cmp -s "$E" "$tmp/copy.json.gz" || fail "output: the capture was replaced"
# a capture that cannot be read: the loader's message, exit 1
run missing 1 --report text "$E" "$tmp/none.json" -- "$E"
first_err missing "fusediff: $tmp/none.json: No such file or directory"

# --repeats DIR_A DIR_B: every trace file of each directory, sorted by name, pooled exactly as
# A1 A2 -- B1 B2 would be; standard error names the files taken; what is no trace file (a
# report, a README, a folder, a hidden file) is passed over
mkdir "$tmp/ra" "$tmp/rb" "$tmp/r1" "$tmp/r0" "$tmp/rb/capture_traces"
cp "$E" "$tmp/ra/run-2.json.gz"
cp "$E" "$tmp/ra/run-1.json.gz"
cp "$E" "$tmp/rb/new-a.json.gz"
cp "$S" "$tmp/rb/new-b.json.gz"
cp "$E" "$tmp/rb/.hidden.json.gz"
echo "notes" >"$tmp/rb/README"
echo "report" >"$tmp/rb/report.txt"
cp "$S" "$tmp/r1/only.json.gz"
echo "notes" >"$tmp/r0/README"
run rdirs 0 --report json --phase decode -o "$tmp/rdirs.json" --repeats "$tmp/ra" "$tmp/rb"
expect_err rdirs "fusediff: --repeats: A: 2 captures of $tmp/ra: run-1.json.gz, run-2.json.gz
fusediff: --repeats: B: 2 captures of $tmp/rb: new-a.json.gz, new-b.json.gz"
run rfiles 0 --report json --phase decode -o "$tmp/rfiles.json" "$tmp/ra/run-1.json.gz" \
	"$tmp/ra/run-2.json.gz" -- "$tmp/rb/new-a.json.gz" "$tmp/rb/new-b.json.gz"
cmp -s "$tmp/rdirs.json" "$tmp/rfiles.json" || fail "--repeats A B differs from A1 A2 -- B1 B2"
# a directory of one capture is fine: it says so
run rone 0 --report text --phase decode --repeats "$tmp/r1" "$tmp/ra"
expect_err rone "fusediff: --repeats: A: one capture of $tmp/r1: only.json.gz
fusediff: --repeats: B: 2 captures of $tmp/ra: run-1.json.gz, run-2.json.gz"
run rone_files 0 --report text --phase decode "$tmp/r1/only.json.gz" -- "$tmp/ra/run-1.json.gz" \
	"$tmp/ra/run-2.json.gz"
cmp -s "$tmp/rone.out" "$tmp/rone_files.out" || fail "--repeats with one capture differs from A -- B1 B2"
# the explorer takes them too
printf ':dump rdirs\nq\n' >"$tmp/script"
(cd "$tmp" && limit "$FUSEDIFF" --headless --size 120x30 --script script --phase decode \
	--repeats ra rb >/dev/null 2>&1) || fail "explorer --repeats: exit status $?"
grep -q "  8 passes of 2 captures  " "$tmp/rdirs.screen" || fail "explorer --repeats: the header does not count the captures: $(head -2 "$tmp/rdirs.screen")"
# usage errors: a directory with no trace file, a file, --rank, captures split by --, too few
run rempty 2 --report text --repeats "$tmp/ra" "$tmp/r0"
expect_err rempty "fusediff: --repeats: $tmp/r0 holds no trace file (names ending in .json, .json.gz, .sqlite, .sqlite.gz, .db, .rpd, .csv or .csv.gz)
Try 'fusediff --help' for more information."
run rfile 2 --report text --repeats "$tmp/ra" "$E"
expect_err rfile "fusediff: --repeats takes two directories of captures: $E is not a directory
Try 'fusediff --help' for more information."
run rrank 2 --report text --repeats --rank 1 "$tmp/ra" "$tmp/rb"
expect_err rrank "fusediff: --repeats and --rank do not go together: --rank picks a rank of two directories of per-rank traces (different work), --repeats pools two directories of captures of one run
Try 'fusediff --help' for more information."
run rsplit 2 --report text --repeats "$tmp/ra" "$tmp/r1" -- "$tmp/rb"
expect_err rsplit "fusediff: --repeats takes two directories of captures, one per side: not traces with -- between the sides
Try 'fusediff --help' for more information."
run rmissing 2 --report text --repeats "$tmp/ra" "$tmp/nothere"
expect_err rmissing "fusediff: --repeats takes two directories of captures: $tmp/nothere is not a directory
Try 'fusediff --help' for more information."
# the report is never written into a directory of captures: it would be one the next time
run rout 2 --report json -o "$tmp/rb/fusediff.json" --repeats "$tmp/ra" "$tmp/rb"
expect_err rout "fusediff: -o $tmp/rb/fusediff.json is inside $tmp/rb, the directory of captures of B: the report would become one of its captures
Try 'fusediff --help' for more information."
[ -e "$tmp/rb/fusediff.json" ] && fail "rout: the report was written into the directory"
# without --repeats two directories are directories of per-rank traces, as before
run rranks 1 --report text "$tmp/ra" "$tmp/rb"
grep -q "rank" "$tmp/rranks.err" || fail "rranks: two directories are not read as ranks: $(cat "$tmp/rranks.err")"
# the JSON reports read back, in one python3 at the end (a start is 0.15 s of CPU here), which
# also validates the two pooled reports against --print-schema (lib/schema_check.py)
"$py" - "$tmp" "$NV" "$E" "$SM" <<'PY' || fail "the JSON reports (above)"
import hashlib, json, os, sys
sys.path.insert(0, "tests/sh/lib")
from schema_check import validate
t, nv, e, sm = sys.argv[1:5]
def cap(p, left_out=False):  # a capture as the JSON describes it: path, size in bytes, SHA-256
    return {"path": p, "size": os.path.getsize(p), "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest(),
            "left_out": left_out}
one = json.load(open(f"{t}/one.json"))
d = json.load(open(f"{t}/differs.json"))
def pooled():
    r = json.load(open(f"{t}/pooled.json"))
    assert [s["compared_passes"] for s in one["traces"]] == [4, 4], one["traces"]
    assert [s["compared_passes"] for s in r["traces"]] == [8, 8], [s["compared_passes"] for s in r["traces"]]
    assert r["noise"]["a_passes"] == 8 and r["noise"]["b_passes"] == 8, r["noise"]
    assert not r["noise"]["significant"], r["noise"]
    assert not any(p["significant"] for p in r["pairs"]), "a pair of the trace against itself is significant"
    assert [s.get("repeats") for s in r["traces"]] == [[cap(e)] * 2] * 2, [s.get("repeats") for s in r["traces"]]
    assert "repeats" not in one["traces"][0], "a report of two files names repeats"
    assert not r["warnings"], r["warnings"]
    # the per-pass figures of identical captures are those of one
    assert abs(r["a_us"] - one["a_us"]) < 0.01, (r["a_us"], one["a_us"])
    s = json.load(open(f"{t}/slower.json"))
    assert s["noise"]["a_passes"] == 12 and s["noise"]["b_passes"] == 12, s["noise"]
    assert s["noise"]["significant"] and s["noise"]["ci_low_us"] > 0.09 * s["a_us"], s["noise"]
    w = [x for x in d["warnings"] if x["code"] == "repeat_differs"]
    assert len(w) == 1 and w[0]["message"].startswith(f"B's capture {nv} has "), d["warnings"]
    # each capture with its own size and hash; the side's own are its first capture's
    assert d["traces"][1]["repeats"] == [cap(e), cap(nv, True), cap(e)], d["traces"][1]["repeats"]
    assert (d["traces"][1]["size"], d["traces"][1]["sha256"]) == (cap(e)["size"], cap(e)["sha256"])
    assert not d["comparability"]["comparable"], d["comparability"]
def left_out():
    # B: the eager captures' 2 x 4 decode passes; the other model's pass is left out
    assert [s["compared_passes"] for s in d["traces"]] == [8, 8], [s["compared_passes"] for s in d["traces"]]
    assert d["noise"]["b_passes"] == 8, d["noise"]
    assert not d["noise"]["significant"], d["noise"]
    w = [x for x in d["warnings"] if x["code"] == "repeat_differs"]
    assert "its passes are left out" in w[0]["message"], w
    assert abs(d["b_us"] - one["b_us"]) < 0.01, (d["b_us"], one["b_us"])
    s = json.load(open(f"{t}/steps.json"))
    assert [x["compared_passes"] for x in s["traces"]] == [8, 4], [x["compared_passes"] for x in s["traces"]]
    w = [x for x in s["warnings"] if x["code"] == "repeat_differs"]
    assert len(w) == 1 and w[0]["message"].startswith(f"B's capture {sm} has other steps"), s["warnings"]
    assert "per pass 8 Reduce steps against 0; its passes are left out" in w[0]["message"], w
    assert not s["comparability"]["comparable"], s["comparability"]
    assert abs(s["b_us"] - one["b_us"]) < 0.01, (s["b_us"], one["b_us"])
def rdirs():
    r = json.load(open(f"{t}/rdirs.json"))
    assert r["traces"][0]["repeats"] == [cap(f"{t}/ra/run-1.json.gz"), cap(f"{t}/ra/run-2.json.gz")], r["traces"][0]["repeats"]
    assert r["traces"][1]["repeats"] == [cap(f"{t}/rb/new-a.json.gz"), cap(f"{t}/rb/new-b.json.gz")], r["traces"][1]["repeats"]
def schema():
    assert validate(f"{t}/pooled.json", f"{t}/differs.json"), "a pooled report does not validate"
bad = 0
for what, check in (("the pooled reports", pooled), ("the captures left out", left_out),
                    ("rdirs: the captures' sizes and hashes", rdirs), ("the schema", schema)):
    try:
        check()
    except AssertionError as x:
        print(f"FAIL: {what}: {x}")
        bad = 1
sys.exit(bad)
PY
finish repeats
