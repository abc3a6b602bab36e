#!/usr/bin/env python3
"""make-rpd.py — tests/data/rpd/small.rpd: a rocmProfileData database as rpd_tracer writes one
(the tables and views of ROCm/rocmProfileData's rocpd_python/rocpd/schema_data/tableSchema.cmd
and utilitySchema.cmd, schema_version 2), made up: two forward passes (roctx ranges "decode")
of one layer each, a GEMM, an RMSNorm and a SiLU-and-mul kernel launched by hipLaunchKernel and
hipExtModuleLaunchKernel on GPU 2, queue 1, and a host-to-device copy. Run it in this directory.
"""
import os
import sqlite3

TABLES = [
    'CREATE TABLE "rocpd_kernelcodeobject" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "vgpr" integer NOT NULL, "sgpr" integer NOT NULL, "fbar" integer NOT NULL)',
    'CREATE TABLE "rocpd_string" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "string" varchar(4096) NOT NULL)',
    'CREATE TABLE "rocpd_op" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "gpuId" integer NOT NULL, "queueId" integer NOT NULL, "sequenceId" integer NOT NULL, "completionSignal" varchar(18) NOT NULL, "start" integer NOT NULL, "end" integer NOT NULL, "description_id" integer NOT NULL REFERENCES "rocpd_string" ("id"), "opType_id" integer NOT NULL REFERENCES "rocpd_string" ("id"))',
    'CREATE TABLE "rocpd_api" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "pid" integer NOT NULL, "tid" integer NOT NULL, "start" integer NOT NULL, "end" integer NOT NULL, "apiName_id" integer NOT NULL REFERENCES "rocpd_string" ("id"), "args_id" integer NOT NULL REFERENCES "rocpd_string" ("id"))',
    'CREATE TABLE "rocpd_api_ops" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "api_id" integer NOT NULL REFERENCES "rocpd_api" ("id"), "op_id" integer NOT NULL REFERENCES "rocpd_op" ("id"))',
    'CREATE TABLE "rocpd_kernelapi" ("api_ptr_id" integer NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id"), "stream" varchar(18) NOT NULL, "gridX" integer NOT NULL, "gridY" integer NOT NULL, "gridZ" integer NOT NULL, "workgroupX" integer NOT NULL, "workgroupY" integer NOT NULL, "workgroupZ" integer NOT NULL, "groupSegmentSize" integer NOT NULL, "privateSegmentSize" integer NOT NULL, "kernelArgAddress" varchar(18) NOT NULL, "aquireFence" varchar(8) NOT NULL, "releaseFence" varchar(8) NOT NULL, "codeObject_id" integer NOT NULL REFERENCES "rocpd_kernelcodeobject" ("id"), "kernelName_id" integer NOT NULL REFERENCES "rocpd_string" ("id"))',
    'CREATE TABLE "rocpd_metadata" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "tag" varchar(4096) NOT NULL, "value" varchar(4096) NOT NULL)',
    'CREATE VIEW api AS SELECT rocpd_api.id,pid,tid,start,end,A.string AS apiName, B.string AS args FROM rocpd_api INNER JOIN rocpd_string A ON A.id = rocpd_api.apiName_id INNER JOIN rocpd_string B ON B.id = rocpd_api.args_id',
    'CREATE VIEW op AS SELECT rocpd_op.id,gpuId,queueId,sequenceId,start,end,A.string AS description, B.string AS opType FROM rocpd_op INNER JOIN rocpd_string A ON A.id = rocpd_op.description_id INNER JOIN rocpd_string B ON B.id = rocpd_op.opType_id',
]

KERNELS = [  # name, launching API, duration ns, grid, workgroup
    ("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x1_SN_1LDSB1", "hipExtModuleLaunchKernel", 9000, (1024, 1, 1), (256, 1, 1)),
    ("void vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)", "hipLaunchKernel", 2000, (32, 1, 1), (256, 1, 1)),
    ("void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, c10::BFloat16 const*, int)", "hipLaunchKernel", 3000, (32, 1, 1), (1024, 1, 1)),
]

if os.path.exists("small.rpd"):
    os.remove("small.rpd")
db = sqlite3.connect("small.rpd")
for sql in TABLES:
    db.execute(sql)
db.execute("INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2')")
strings = {}


def sid(s):
    if s not in strings:
        strings[s] = db.execute("INSERT INTO rocpd_string(string) VALUES (?)", (s,)).lastrowid
    return strings[s]


db.execute("INSERT INTO rocpd_kernelcodeobject(vgpr, sgpr, fbar) VALUES (0, 0, 0)")
t = 1_000_000_000
pid, tid = 4242, 4243
for step in range(2):
    pass_start = t
    for name, api, dur, grid, wg in KERNELS:
        a = db.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, ?)",
                       (pid, tid, t, t + 4000, sid(api), sid(""))).lastrowid
        db.execute("INSERT INTO rocpd_kernelapi VALUES (?, '0x1', ?, ?, ?, ?, ?, ?, 0, 0, '0x0', '', '', 1, ?)",
                   (a, grid[0], grid[1], grid[2], wg[0], wg[1], wg[2], sid(name)))
        o = db.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, description_id, opType_id) VALUES (2, 1, 0, '', ?, ?, ?, ?)",
                       (t + 10000, t + 10000 + dur, sid(name), sid("KernelExecution"))).lastrowid
        db.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (a, o))
        t += 20000
    a = db.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, ?)",
                   (pid, tid, t, t + 1000, sid("hipMemcpyAsync"), sid(""))).lastrowid
    o = db.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, description_id, opType_id) VALUES (2, 1, 0, '', ?, ?, ?, ?)",
                   (t + 2000, t + 3000, sid(""), sid("CopyHostToDevice"))).lastrowid
    db.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (a, o))
    t += 20000
    db.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, ?)",
               (pid, tid, pass_start - 100, t, sid("UserMarker"), sid("decode")))
    t += 50000
db.commit()
db.execute("VACUUM")
db.close()
