#!/usr/bin/env python3
"""profilers.py — loading speed of the vendor-profiler inputs (Nsight Systems SQLite,
rocprofv3 JSON), side by side with their floors, in rounds (one run of each command per round).

    python3 bench/profilers.py [--rounds N] [--times K]

Inputs: the nsys "before" export and the rocprofv3 JSON of ../shared/traces (when that is absent,
the cuts in tests/data/profilers/, and the script says so), and an nsys export made K times
longer (default 50: about 200k kernels) by repeating every kernel, runtime and NVTX row shifted
in time with fresh correlation ids (bench/gen/, reused). Rows:

- fusediff --summary on the plain .sqlite, on the .sqlite.gz, and --device all on the long one;
- sqlite3's own C library reading the kernel table with its names (the floor: the same rows,
  no analysis) through Python's sqlite3 module, and Python reading kernels + runtime + NVTX
  (what a Python nsys tool does before any analysis);
- gzip -dc of the .sqlite.gz;
- for rocprofv3 JSON: fusediff --summary against Python's json.load.

Each row: median wall, CPU time (user + sys of the child), kernels per second of CPU time.

--smoke: one round on the cuts in tests/data/profilers/, the export made 2 times longer, files in
$FUSEDIFF_BENCH_GEN, the program taken as built (--fusediff), Python's kernels+names on the long
export only (the same query as on the plain one): what make check runs (tests/sh/bench.sh) so
that the driver cannot rot; its figures mean nothing.
"""
import argparse, gzip, os, resource, shutil, sqlite3, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.environ.get('FUSEDIFF_BENCH_GEN') or os.path.join(ROOT, 'bench', 'gen')
FD = os.path.join(ROOT, 'build', 'fusediff')


def shared(rel):
    if SMOKE:
        return None
    p = os.path.join(ROOT, '..', 'shared', 'traces', rel)
    return p if os.path.exists(p) else None


def decompress(gz, out):
    if not os.path.exists(out):
        with gzip.open(gz) as f, open(out + '.tmp', 'wb') as g:
            shutil.copyfileobj(f, g)
        os.rename(out + '.tmp', out)
    return out


def lengthen(src, out, times):
    """src repeated `times` times in kernel, runtime and NVTX rows (time-shifted copies)."""
    if os.path.exists(out):
        return out
    shutil.copy(src, out + '.tmp')
    c = sqlite3.connect(out + '.tmp')
    t0, t1 = c.execute('SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()
    span = t1 - t0 + 1_000_000
    cmax = c.execute('SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchone()[0] + 1
    tables = ['CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'NVTX_EVENTS',
              'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET']
    for t in tables:
        cols = [r[1] for r in c.execute(f'PRAGMA table_info({t})')]
        c.execute(f'CREATE TEMP TABLE base_{t} AS SELECT * FROM {t}')
        for i in range(1, times):
            sel = []
            for col in cols:
                if col in ('start', 'end'):
                    sel.append(f'{col} + {i * span}')
                elif col == 'correlationId':
                    sel.append(f'{col} + {i * cmax}')
                else:
                    sel.append(col)
            c.execute(f'INSERT INTO {t} ({",".join(cols)}) SELECT {",".join(sel)} FROM base_{t}')
    c.commit()
    c.close()
    os.rename(out + '.tmp', out)
    return out


def run(cmd):
    """Wall and CPU seconds of one run of cmd (a list), output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kernels_of(db):
    return sqlite3.connect(db).execute('SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0]


PY_KERNELS = ('import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); '
              'n=len(c.execute("SELECT k.start,k.end,k.deviceId,k.streamId,k.correlationId,s.value '
              'FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id=k.demangledName").fetchall())')
PY_ALL = PY_KERNELS + ('; r=c.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()'
                       '; v=c.execute("SELECT * FROM NVTX_EVENTS").fetchall()')
PY_JSON = 'import json,gzip,sys; json.load(gzip.open(sys.argv[1]))'
SMOKE = False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--times', type=int, default=50)
    ap.add_argument('--fusediff', help='the program, taken as built (default: make builds it)')
    ap.add_argument('--smoke', action='store_true', help='1 round on the cuts in tests/data')
    a = ap.parse_args()
    global FD, SMOKE
    if a.smoke:
        a.rounds, a.times, SMOKE = 1, 2, True
    os.makedirs(GEN, exist_ok=True)
    if a.fusediff:
        FD = os.path.abspath(a.fusediff)
    else:
        subprocess.run(['make', '-s', '-C', ROOT, 'fusediff'], check=True, stdout=subprocess.DEVNULL)
    nsys_gz = shared('nsys/nsysai_wan2.1-t2v-1.3b_mfu-before_2xh100.sqlite.gz')
    rocprof = shared('rocprof/tracelens_aorta_fsdp-train_mi350x.json.gz')
    if not nsys_gz:
        print('../shared/traces is absent: using the cuts in tests/data/profilers/ (small files, '
              'the figures are mostly start-up)')
        nsys_gz = os.path.join(ROOT, 'tests/data/profilers/nsys_before.sqlite.gz')
        rocprof = os.path.join(ROOT, 'tests/data/profilers/rocprof_aorta.json.gz')
    plain = decompress(nsys_gz, os.path.join(GEN, 'nsys_before.sqlite'))
    long = lengthen(plain, os.path.join(GEN, f'nsys_before_x{a.times}.sqlite'), a.times)
    n_plain, n_long = kernels_of(plain), kernels_of(long)
    rows = [
        ('fusediff --summary .sqlite', [FD, '--summary', plain], n_plain),
        ('fusediff --summary .sqlite.gz', [FD, '--summary', nsys_gz], n_plain),
        ('python sqlite3: kernels+names', [sys.executable, '-c', PY_KERNELS, plain], n_plain),
        ('gzip -dc .sqlite.gz', ['sh', '-c', 'gzip -dc "$1" >/dev/null', 'x', nsys_gz], n_plain),
        (f'fusediff --summary --device all x{a.times}', [FD, '--device', 'all', '--summary', long],
         n_long),
        (f'python sqlite3: kernels+names x{a.times}', [sys.executable, '-c', PY_KERNELS, long], n_long),
        (f'python sqlite3: +runtime+NVTX x{a.times}', [sys.executable, '-c', PY_ALL, long], n_long),
        ('fusediff --summary rocprofv3 JSON', [FD, '--summary', rocprof], None),
        ('python json.load rocprofv3 JSON', [sys.executable, '-c', PY_JSON, rocprof], None),
    ]
    if SMOKE:
        rows = [r for r in rows if r[0] != 'python sqlite3: kernels+names']
    res = {r[0]: [] for r in rows}
    for _ in range(a.rounds):
        for name, cmd, _n in rows:
            res[name].append(run(cmd))
    print(f'{a.rounds} rounds, interleaved; {n_plain} kernels in the export, {n_long} in x{a.times}')
    print(f'{"command":44} {"wall s":>8} {"cpu s":>8} {"kernels/s (cpu)":>16}')
    for name, _cmd, n in rows:
        wall = statistics.median(w for w, _c in res[name])
        cpu = statistics.median(c for _w, c in res[name])
        kps = f'{n / cpu:,.0f}' if n and cpu > 0 else '-'
        print(f'{name:44} {wall:8.3f} {cpu:8.3f} {kps:>16}')


if __name__ == '__main__':
    main()
