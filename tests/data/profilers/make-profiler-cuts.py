#!/usr/bin/env python3
"""Build the small profiler inputs of tests/check_profilers.c from the shared real captures.

  make-profiler-cuts.py SHARED_TRACES_DIR

nsys_before.sqlite.gz, nsys_after.sqlite.gz: the Nsight Systems exports of nsys/ (nsys-ai, MIT)
  with every table cut to the first 20 ms of kernels (rows starting before that time; strings,
  enums and metadata whole), VACUUMed, gzip -9 -n.
nsys66_before.sqlite.gz, nsys66_after.sqlite.gz: the same cut at 66 ms, long enough for layers
  (4 against 3, as the whole pair's 17 against 15: the depth_differs warning) for the
  explorer's golden screens of the pair (tests/scripts/nsys.keys).
rocprof_aorta.json.gz: the rocprofv3 JSON of rocprof/ (TraceLens, MIT) with its first 3000
  kernel dispatches (agents, the kernel symbols they use and the string tables whole).
rocpd_built.db, kernel_trace_v1.csv.gz, kernel_trace_v2.csv: BUILT, not captured (no permissively
  licensed rocpd database or real kernel_trace.csv could be found): the first 1000 (rocpd) and
  500 (CSV) of those dispatches
  written as rocprofv3 documents these outputs: a rocpd database with rocpd_info_agent,
  rocpd_info_kernel_symbol, rocpd_kernel_dispatch and the kernels view over them (the columns
  fusediff reads, named as in rocprofiler-sdk's rocpd views), and kernel_trace.csv in the
  ROCm 6.x header (numeric Agent_Id, Private_Segment_Size) and the later one (Stream_Id,
  "Agent N", LDS_Block_Size).
"""
import csv, gzip, json, os, shutil, sqlite3, sys, tempfile

src = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))

def nsys_cut(name, out, ms=20):
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, 'x.sqlite')
    with gzip.open(os.path.join(src, 'nsys', name)) as f, open(db, 'wb') as g:
        shutil.copyfileobj(f, g)
    c = sqlite3.connect(db)
    t0 = c.execute('SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0]
    end = t0 + ms * 1_000_000
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
        cols = [r[1] for r in c.execute(f'PRAGMA table_info({t})')]
        if 'start' in cols and t != 'ANALYSIS_DETAILS':
            c.execute(f'DELETE FROM {t} WHERE start >= ?', (end,))
    # the job's environment is not needed by any test
    c.execute('DELETE FROM META_DATA_CAPTURE')
    c.execute('DELETE FROM TARGET_INFO_SYSTEM_ENV')
    c.commit()
    c.execute('VACUUM')
    c.close()
    with open(db, 'rb') as f, open(os.path.join(here, out), 'wb') as g:
        g.write(gzip.compress(f.read(), 9, mtime=0))
    shutil.rmtree(tmp)

nsys_cut('nsysai_wan2.1-t2v-1.3b_mfu-before_2xh100.sqlite.gz', 'nsys_before.sqlite.gz')
nsys_cut('nsysai_wan2.1-t2v-1.3b_mfu-after_2xh100.sqlite.gz', 'nsys_after.sqlite.gz')
nsys_cut('nsysai_wan2.1-t2v-1.3b_mfu-before_2xh100.sqlite.gz', 'nsys66_before.sqlite.gz', 66)
nsys_cut('nsysai_wan2.1-t2v-1.3b_mfu-after_2xh100.sqlite.gz', 'nsys66_after.sqlite.gz', 66)

doc = json.load(gzip.open(os.path.join(src, 'rocprof', 'tracelens_aorta_fsdp-train_mi350x.json.gz')))
run = doc['rocprofiler-sdk-tool'][0]
disp = run['buffer_records']['kernel_dispatch'][:3000]
used = {d['dispatch_info']['kernel_id'] for d in disp}
run['buffer_records']['kernel_dispatch'] = disp
run['kernel_symbols'] = [k for k in run['kernel_symbols'] if k['kernel_id'] in used or k['kernel_id'] == 0]
for k in ('code_objects', 'host_functions', 'summary', 'counters'):
    run[k] = []
run['metadata'].pop('config', None)
run['strings'].pop('att_filenames', None)
run['strings'].pop('code_object_snapshot_filenames', None)
with open(os.path.join(here, 'rocprof_aorta.json.gz'), 'wb') as g:
    g.write(gzip.compress(json.dumps(doc, separators=(',', ':')).encode(), 9, mtime=0))

sym = {k['kernel_id']: k for k in run['kernel_symbols']}
agents = {a['id']['handle']: a for a in run['agents']}

def kname(d):
    k = sym[d['dispatch_info']['kernel_id']]
    return k['formatted_kernel_name'] or k['kernel_name']

out = os.path.join(here, 'rocpd_built.db')
if os.path.exists(out):
    os.remove(out)
c = sqlite3.connect(out)
c.executescript('''
CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, type TEXT, absolute_index INTEGER,
  logical_index INTEGER, type_index INTEGER, name TEXT, product_name TEXT, extdata JSON);
CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, display_name TEXT);
CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, agent_id INTEGER, queue_id INTEGER,
  stream_id INTEGER, kernel_id INTEGER, start INTEGER, end INTEGER,
  grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,
  workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER);
CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, A.absolute_index AS agent_abs_index,
  A.logical_index AS agent_log_index, A.type_index AS agent_type_index, A.type AS agent_type,
  K.kernel_id, K.stream_id, K.queue_id, K.start, K.end, (K.end - K.start) AS duration,
  K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
  K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
  K.workgroup_size_z AS workgroup_z
  FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id
  JOIN rocpd_info_agent A ON A.id = K.agent_id;
''')
for h, a in agents.items():
    c.execute('INSERT INTO rocpd_info_agent VALUES (?,?,?,?,?,?,?,?)',
              (h, 'GPU' if a['type'] == 2 else 'CPU', a['node_id'], a['logical_node_id'],
               a['logical_node_type_id'], a['name'], a['product_name'],
               json.dumps({'wave_front_size': a['wave_front_size'], 'cu_count': a['cu_count']})))
for i, k in sym.items():
    c.execute('INSERT INTO rocpd_info_kernel_symbol VALUES (?,?)', (i, k['formatted_kernel_name']))
for n, d in enumerate(disp[:1000]):
    di = d['dispatch_info']
    c.execute('INSERT INTO rocpd_kernel_dispatch VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
              (n + 1, di['agent_id']['handle'], di['queue_id']['handle'], d['stream_id']['handle'],
               di['kernel_id'], d['start_timestamp'], d['end_timestamp'],
               di['grid_size']['x'], di['grid_size']['y'], di['grid_size']['z'],
               di['workgroup_size']['x'], di['workgroup_size']['y'], di['workgroup_size']['z']))
c.commit()
c.execute('VACUUM')
c.close()

v1 = ['Kind', 'Agent_Id', 'Queue_Id', 'Thread_Id', 'Dispatch_Id', 'Kernel_Id', 'Kernel_Name',
      'Correlation_Id', 'Start_Timestamp', 'End_Timestamp', 'Private_Segment_Size',
      'Group_Segment_Size', 'Workgroup_Size_X', 'Workgroup_Size_Y', 'Workgroup_Size_Z',
      'Grid_Size_X', 'Grid_Size_Y', 'Grid_Size_Z']
v2 = ['Kind', 'Agent_Id', 'Queue_Id', 'Stream_Id', 'Thread_Id', 'Dispatch_Id', 'Kernel_Id',
      'Kernel_Name', 'Correlation_Id', 'Start_Timestamp', 'End_Timestamp', 'LDS_Block_Size',
      'Scratch_Size', 'VGPR_Count', 'Accum_VGPR_Count', 'SGPR_Count', 'Workgroup_Size_X',
      'Workgroup_Size_Y', 'Workgroup_Size_Z', 'Grid_Size_X', 'Grid_Size_Y', 'Grid_Size_Z']
for fname, head, agent in (('kernel_trace_v1.csv', v1, lambda a: a['logical_node_type_id']),
                           ('kernel_trace_v2.csv', v2, lambda a: 'Agent %d' % a['logical_node_type_id'])):
    with open(os.path.join(here, fname), 'w', newline='') as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator='\n')
        w.writerow(head)
        for n, d in enumerate(disp[:500]):
            di = d['dispatch_info']
            row = {'Kind': 'KERNEL_DISPATCH', 'Agent_Id': agent(agents[di['agent_id']['handle']]),
                   'Queue_Id': di['queue_id']['handle'], 'Stream_Id': d['stream_id']['handle'],
                   'Thread_Id': d['thread_id'], 'Dispatch_Id': di['dispatch_id'],
                   'Kernel_Id': di['kernel_id'], 'Kernel_Name': kname(d),
                   'Correlation_Id': d['correlation_id']['internal'],
                   'Start_Timestamp': d['start_timestamp'], 'End_Timestamp': d['end_timestamp'],
                   'Private_Segment_Size': di['private_segment_size'],
                   'Group_Segment_Size': di['group_segment_size'],
                   'LDS_Block_Size': di['group_segment_size'],
                   'Scratch_Size': di['private_segment_size'], 'VGPR_Count': 0,
                   'Accum_VGPR_Count': 0, 'SGPR_Count': 0,
                   'Workgroup_Size_X': di['workgroup_size']['x'],
                   'Workgroup_Size_Y': di['workgroup_size']['y'],
                   'Workgroup_Size_Z': di['workgroup_size']['z'],
                   'Grid_Size_X': di['grid_size']['x'], 'Grid_Size_Y': di['grid_size']['y'],
                   'Grid_Size_Z': di['grid_size']['z']}
            w.writerow([row[h] for h in head])
v1 = os.path.join(here, 'kernel_trace_v1.csv')
with open(v1, 'rb') as f, open(v1 + '.gz', 'wb') as g:
    g.write(gzip.compress(f.read(), 9, mtime=0))
os.remove(v1)
