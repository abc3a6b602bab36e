#!/usr/bin/env python3
"""bench.py — fusediff against the floor (cat, gzip -dc) and Python's json.load, side by side.

    python3 bench/bench.py [--fusediff PATH] [--reps N] [--size 1G] [--big 4G] [--quick]

Every command runs --reps times, in rounds (one run of each command per round), so that the
ratios compare runs made under the same load. The table shows the median wall time, the
spread (min-max), throughput in MB/s of uncompressed JSON, peak RSS (getrusage of the child)
and, for fusediff's rows, the ratio to the reference it is judged against, with the target.

Inputs: the real 130 MB llama3_8b_shape trace from ../shared/traces (decompressed into bench/gen
for the plain-JSON rows), and two generated traces of --size uncompressed bytes each, made with
bench/gen-trace from llama8l_eager_sdpa (A) and llama8l_compiled_sdpa (B), plain and gzip.
When ../shared/traces is absent the generated traces are made from the copies in examples/ and
the 130 MB rows are left out (said so in the output). --big also generates a trace of that size
from llama3_8b_shape and records fusediff --summary's time and peak RSS on it (one run).
Generated files live in bench/gen/ (ignored by git) and are reused by later runs.

--quick: 2 repetitions, 64 MB generated traces, Python rows included: a quick look.
--smoke: one round of 1 MB traces made from the small compiled-model example (A and B alike:
B's rows, the same commands on the same files, are not run, and --report compares A with
itself), no Python rows, no real trace, generated files in $FUSEDIFF_BENCH_GEN: what make check
runs (tests/sh/bench.sh) so that the driver cannot rot; its figures mean nothing.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
GEN = os.environ.get("FUSEDIFF_BENCH_GEN") or os.path.join(HERE, "gen")
SHARED = os.path.normpath(os.path.join(TOP, "..", "shared", "traces"))
BIG_REAL = "llama3_8b_shape_eager_sdpa"
SRC_A, SRC_B = "llama8l_eager_sdpa", "llama8l_compiled_sdpa"
PY_LOAD = "import json,sys; json.load(open(sys.argv[1]))"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def size_name(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def parse_size(s):
    m = re.fullmatch(r"(\d+)([mMgG])", s)
    if not m:
        raise argparse.ArgumentTypeError("sizes look like 64M or 1G, not %r" % s)
    return int(m.group(1)) << (20 if m.group(2) in "mM" else 30)


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
RSS_FILE = os.path.join(GEN, ".rss")


def run(argv, env=None, stdout=subprocess.DEVNULL):
    """Run argv; return (wall s, cpu s, peak RSS KB, exit status, stderr text).

    The peak RSS comes from /usr/bin/time when it is there: a child forked by Python starts
    out with Python's own resident pages, which getrusage would count."""
    wrap = [TIME, "-q", "-f", "%M", "-o", RSS_FILE] if TIME else []
    t0 = time.perf_counter()
    p = subprocess.Popen(wrap + argv, stdout=stdout, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss
    if TIME:
        with open(RSS_FILE) as f:
            lines = f.read().split()
        rss = int(lines[-1]) if lines and lines[-1].isdigit() else rss
    return wall, ru.ru_utime + ru.ru_stime, rss, rc, err.decode(errors="replace")


def generate(src, size, out):
    if os.path.exists(out):
        return out
    log("generating %s (%s from %s) ..." % (os.path.relpath(out, TOP), size_name(size), src))
    subprocess.run([sys.executable, os.path.join(HERE, "gen-trace"), "-s", str(size), "-o", out, src],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def decompress(src, out):
    if not os.path.exists(out):
        log("decompressing %s ..." % os.path.relpath(out, TOP))
        with open(out + ".part", "wb") as f:
            subprocess.run(["gzip", "-dc", src], stdout=f, check=True)
        os.replace(out + ".part", out)
    return out


class Case:
    def __init__(self, key, label, argv, mb, env=None):
        self.key, self.label, self.argv, self.mb, self.env = key, label, argv, mb, env
        self.wall, self.cpu, self.rss = [], [], []
        self.stages = []  # per run: {stage: (wall s, cpu s)} from FUSEDIFF_TIMINGS
        self.failed = None

    def once(self):
        if self.failed:
            return
        wall, cpu, rss, rc, err = run(self.argv, self.env)
        if rc != 0:
            self.failed = "exit %d: %s" % (rc, err.strip().splitlines()[-1] if err.strip() else "")
            return
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss.append(rss)
        m = re.search(r"^fusediff: timings: (.*)$", err, re.M)
        if m:
            self.stages.append({k: (float(w), float(u)) for k, w, u in
                                re.findall(r"(\w+) ([0-9.]+) s \(cpu ([0-9.]+) s\)", m.group(1))})

    def median(self):
        return statistics.median(self.wall) if self.wall else None


class Sum:
    """Two cases run back to back (Python loading both traces): per-round sums."""

    def __init__(self, key, label, a, b):
        self.key, self.label, self.a, self.b = key, label, a, b
        self.mb = a.mb + b.mb
        self.failed = None

    @property
    def wall(self):
        return [x + y for x, y in zip(self.a.wall, self.b.wall)]

    @property
    def cpu(self):
        return [x + y for x, y in zip(self.a.cpu, self.b.cpu)]

    @property
    def rss(self):
        return [max(x, y) for x, y in zip(self.a.rss, self.b.rss)]

    def once(self):
        pass

    def median(self):
        return statistics.median(self.wall) if self.wall else None


def cpu_pressure():
    """'some avg300' of /proc/pressure/cpu: the share of time runnable tasks waited for a CPU."""
    try:
        with open("/proc/pressure/cpu") as f:
            m = re.search(r"some avg10=([0-9.]+) avg60=([0-9.]+) avg300=([0-9.]+)", f.read())
        return "%s%% (avg over 60 s), %s%% (300 s)" % (m.group(2), m.group(3)) if m else "unknown"
    except OSError:
        return "unknown"


def fmt_s(x):
    return "-" if x is None else ("%.3f" % x if x < 10 else "%.1f" % x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fusediff", default=os.path.join(TOP, "fusediff"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", type=parse_size, default=1 << 30, help="generated trace size (default 1G)")
    ap.add_argument("--big", type=parse_size, help="also open a generated trace of this size (e.g. 4G)")
    ap.add_argument("--no-python", action="store_true", help="leave out the json.load rows")
    ap.add_argument("--quick", action="store_true", help="2 repetitions of 64 MB traces")
    ap.add_argument("--smoke", action="store_true", help="1 round of 1 MB traces, no Python rows")
    a = ap.parse_args()
    srcs = (SRC_A, SRC_B)
    if a.quick:
        a.reps, a.size = 2, 64 << 20
    if a.smoke:
        a.reps, a.size, a.no_python, a.big = 1, 1 << 20, True, None
        srcs = (SRC_B, SRC_B)
    fd = os.path.abspath(a.fusediff)
    if not os.access(fd, os.X_OK):
        sys.exit("bench: %s not built (run make)" % fd)
    os.makedirs(GEN, exist_ok=True)

    have_shared = os.path.isdir(SHARED) and not a.smoke
    if have_shared:
        log("real traces: %s" % SHARED)
    else:
        log("NOTE: %s is absent: generating from examples/ and leaving out the %s rows"
            % (SHARED, BIG_REAL))
    sz = size_name(a.size)
    files = {}  # key -> (plain, gz, label)
    for key, src in zip("AB", srcs):
        plain = generate(src, a.size, os.path.join(GEN, "%s-%s.json" % (src, sz)))
        gz = generate(src, a.size, os.path.join(GEN, "%s-%s.json.gz" % (src, sz)))
        files[key] = (plain, gz, "%s (%s %s)" % (key, src, sz))
    if have_shared:
        gz = os.path.join(SHARED, BIG_REAL + ".json.gz")
        files["R"] = (decompress(gz, os.path.join(GEN, BIG_REAL + ".json")), gz, "R (%s, real)" % BIG_REAL)

    mb = {k: os.path.getsize(v[0]) / 1e6 for k, v in files.items()}
    env_t = dict(os.environ, FUSEDIFF_TIMINGS="1")
    cases = []
    c = {}

    def add(key, label, argv, m, env=None):
        c[key] = Case(key, label, argv, m, env)
        cases.append(c[key])

    for k in sorted(files, key=lambda k: "ABR".index(k)):
        plain, gz, label = files[k]
        if k == "B" and files["B"][:2] == files["A"][:2]:
            continue  # (--smoke: B is A)
        add("cat " + k, "cat %s.json" % k, ["cat", plain], mb[k])
        add("gzip " + k, "gzip -dc %s.json.gz" % k, ["gzip", "-dc", gz], mb[k])
        if not a.no_python:
            add("py " + k, "python3 json.load %s.json" % k, [sys.executable, "-c", PY_LOAD, plain], mb[k])
        add("sum " + k, "fusediff --summary %s.json" % k, [fd, "--summary", plain], mb[k])
        add("sumgz " + k, "fusediff --summary %s.json.gz" % k, [fd, "--summary", gz], mb[k])
        if k == "A":
            add("serial " + k, "  same, FUSEDIFF_SERIAL=1 (no reader thread)", [fd, "--summary", gz], mb[k],
                dict(os.environ, FUSEDIFF_SERIAL="1"))
    # --report, when the comparison works (it is checked on the bundled examples first).
    probe = run([fd, "--report", "json", os.path.join(TOP, "examples", srcs[0] + ".json.gz"),
                 os.path.join(TOP, "examples", srcs[1] + ".json.gz")])
    report_ok = probe[3] == 0
    if report_ok:
        add("rep", "fusediff --report json A.json B.json",
            [fd, "--report", "json", files["A"][0], files["B"][0]], mb["A"] + mb["B"], env_t)
        add("repgz", "fusediff --report json A.json.gz B.json.gz",
            [fd, "--report", "json", files["A"][1], files["B"][1]], mb["A"] + mb["B"], env_t)
    else:
        log("NOTE: fusediff --report fails on the examples (%s): no report rows"
            % (probe[4].strip().splitlines() or ["?"])[-1])

    for p in sorted({p for f in files.values() for p in f[:2]}):  # warm the page cache
        subprocess.run(["cat", p], stdout=subprocess.DEVNULL)
    t0 = time.time()
    pressure_start = cpu_pressure()
    for r in range(a.reps):
        log("round %d/%d ..." % (r + 1, a.reps))
        for case in cases:
            case.once()
    if not a.no_python:
        s = Sum("py AB", "python3 json.load A.json + B.json", c["py A"], c["py B"])
        cases.insert(cases.index(c["py B"]) + 1, s)
        c["py AB"] = s

    # Targets: (case, reference, kind, target)
    targets = {"sum A": ("py A", "faster", 10), "sum B": ("py B", "faster", 10), "sum R": ("py R", "faster", 10),
               "sumgz A": ("gzip A", "slower", 1.5), "sumgz B": ("gzip B", "slower", 1.5),
               "sumgz R": ("gzip R", "slower", 1.5), "rep": ("py AB", "faster", 5),
               "repgz": (None, "slower", 1.5)}
    if report_ok:
        c["gzip AB"] = Sum("gzip AB", "", c["gzip A"], c.get("gzip B", c["gzip A"]))
        targets["repgz"] = ("gzip AB", "slower", 1.5)

    print()
    print("fusediff benchmark: %d rounds, %s, %s" % (a.reps, time.strftime("%Y-%m-%d %H:%M"), os.uname().nodename))
    for k, (plain, gz, label) in sorted(files.items(), key=lambda kv: "ABR".index(kv[0])):
        print("  %s: %s, %.0f MB JSON, %.0f MB gzip" % (k, os.path.relpath(plain, TOP), mb[k],
                                                        os.path.getsize(gz) / 1e6))
    hdr = "%-44s %9s %17s %7s %8s %8s  %s" % ("command", "median s", "min-max s", "cpu s", "MB/s", "RSS MB",
                                             "ratio (target)")
    print()
    print(hdr)
    print("-" * len(hdr))
    verdicts = []
    for case in cases:
        if case.failed:
            print("%-44s  failed: %s" % (case.label, case.failed))
            continue
        med = case.median()
        if med is None:
            continue
        spread = "%s-%s" % (fmt_s(min(case.wall)), fmt_s(max(case.wall)))
        ratio = ""
        t = targets.get(case.key)
        if t and t[0] and t[0] in c and c[t[0]].median():
            ref = c[t[0]].median()
            cref = statistics.median(c[t[0]].cpu)
            ccase = statistics.median(case.cpu)
            if t[1] == "faster":
                x = ref / med
                ok = x >= t[2]
                ratio = "%.1fx faster than %s (>= %gx) %s; cpu %.1fx" % (x, t[0], t[2], "ok" if ok else "MISSED",
                                                                        cref / ccase)
            else:
                x = med / ref
                ok = x <= t[2]
                ratio = "%.2fx %s (<= %gx) %s; cpu %.2fx" % (x, t[0], t[2], "ok" if ok else "MISSED",
                                                              ccase / cref)
            verdicts.append(ok)
        print("%-44s %9s %17s %7s %8.0f %8.0f  %s" % (case.label, fmt_s(med), spread,
                                                    fmt_s(statistics.median(case.cpu)), case.mb / med,
                                                    max(case.rss) / 1024, ratio))
    print()
    print("RSS limits: --summary R under 100 MB; --report on two %s traces under 600 MB;" % sz)
    print("Target: under 0.3x the larger trace's JSON size.")
    for key, limit in (("sum R", 100), ("sumgz R", 100), ("rep", 600), ("repgz", 600)):
        if key in c and c[key].rss:
            peak = max(c[key].rss) / 1024
            print("  %-44s peak %6.0f MB (limit %d MB) %s" % (c[key].label, peak, limit,
                                                             "ok" if peak < limit else "MISSED"))

    for key in ("rep", "repgz"):
        if key not in c or not c[key].stages:
            continue
        case = c[key]
        names = list(case.stages[0])
        med, cmed = case.median(), statistics.median(case.cpu)
        parts = []
        for n in names:
            w = statistics.median(st[n][0] for st in case.stages)
            u = statistics.median(st[n][1] for st in case.stages)
            parts.append("%s %s s (%.0f%%), cpu %s s (%.0f%%)" % (n, fmt_s(w), 100 * w / med, fmt_s(u), 100 * u / cmed))
        analysis = statistics.median(sum(v[0] for n, v in st.items() if n != "load") for st in case.stages)
        canalysis = statistics.median(sum(v[1] for n, v in st.items() if n != "load") for st in case.stages)
        print()
        print("Stages of %s (FUSEDIFF_TIMINGS=1, medians; shares of the %s s run and of its %s s of CPU):"
              % (case.label, fmt_s(med), fmt_s(cmed)))
        for part in parts:
            print("  " + part)
        print("  analysis after loading: %s s = %.1f%% of the run (target < 10%%) %s; cpu %s s = %.1f%% of the CPU"
              % (fmt_s(analysis), 100 * analysis / med, "ok" if analysis / med < 0.10 else "MISSED",
                 fmt_s(canalysis), 100 * canalysis / cmed))

    if a.big:
        big = generate(BIG_REAL if have_shared else SRC_A, a.big,
                       os.path.join(GEN, "%s-%s.json" % (BIG_REAL if have_shared else SRC_A, size_name(a.big))))
        wall, cpu, rss, rc, err = run([fd, "--summary", big])
        print()
        print("Big trace: fusediff --summary %s (%.0f MB): %s s, cpu %s s, peak RSS %.0f MB%s"
              % (os.path.relpath(big, TOP), os.path.getsize(big) / 1e6, fmt_s(wall), fmt_s(cpu), rss / 1024,
                 "" if rc == 0 else ", FAILED: " + err.strip()))
        if report_ok:
            wall, cpu, rss, rc, err = run([fd, "--report", "json", big, big], env_t)
            print("Big trace: fusediff --report json BIG BIG: %s s, peak RSS %.0f MB%s"
                  % (fmt_s(wall), rss / 1024, "" if rc == 0 else ", FAILED: " + err.strip()))
            for ln in err.splitlines():
                if "timings" in ln:
                    print("  " + ln)
    print()
    print("Measured in %.0f s. Other jobs may have been running on this machine; the ratios compare"
          % (time.time() - t0))
    print("runs made in the same rounds (wall time; 'cpu' is the same ratio in CPU time, which other")
    print("jobs disturb less). CPU pressure (/proc/pressure/cpu 'some') at the start: %s;" % pressure_start)
    print("at the end: %s. Targets missed: %d of %d." % (cpu_pressure(), verdicts.count(False), len(verdicts)))
    failed = [case.label for case in cases if case.failed]
    if failed:  # a command that fails is a broken benchmark (make check's smoke run fails)
        sys.exit("bench.py: %d command(s) failed: %s" % (len(failed), ", ".join(failed)))


if __name__ == "__main__":
    main()
