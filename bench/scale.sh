#!/bin/sh
# scale.sh — the costs that must stay linear or n log n, on crafted traces (issue "Hardening,
# second round"): 10^5 kernels on 10^5 streams, and 10^5 distinct kernel names of 8 KiB (one
# 840 MB trace), --summary and --report json of each against itself, and the 8 KiB names
# classified with the costliest user rule the regex guard accepts ("(.{0,8}){8}c"); 3 N distinct
# names of class Other, and a rocprofv3 JSON file whose HIP records name operations among N
# (issue 34). Each row:
# wall and CPU seconds (user + sys). Before the stream table was sorted once per pass, 4*10^4
# streams took 36-50 s.
#
#   sh bench/scale.sh [N]      (N kernels and names, default 100000)
#
# The traces are made in $FUSEDIFF_BENCH_GEN (default bench/gen/) and kept for later runs.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${1:-100000}
gen=${FUSEDIFF_BENCH_GEN:-bench/gen}
mkdir -p "$gen"
python3 - "$n" "$gen" <<'PY'
import json, os, sys
n, gen = int(sys.argv[1]), sys.argv[2]
dev = [{"id": 0, "name": "NVIDIA H200", "warpSize": 32}]
p = f"{gen}/streams-{n}.json"
if not os.path.exists(p):
    ev = [{"ph": "X", "cat": "kernel", "name": "k%d" % (i % 7), "pid": 0, "tid": i, "ts": 100 + 2 * i,
           "dur": 1, "args": {"device": 0, "stream": i + 1, "correlation": i + 1}} for i in range(n)]
    json.dump({"deviceProperties": dev, "traceEvents": ev}, open(p, "w"))
p = f"{gen}/names8k-{n}.json"
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write('{"deviceProperties": %s, "traceEvents": [\n' % json.dumps(dev))
        for i in range(n):
            nm = ("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, %d" % i)
            nm += "x" * (8192 - len(nm) - 1) + ")"
            f.write("%s%s" % ("," if i else "", json.dumps({"ph": "X", "cat": "kernel", "name": nm, "pid": 0,
                    "tid": 1, "ts": 100 + 2 * i, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": i + 1}})))
        f.write("]}\n")
# issue 34: 3 * N distinct kernel names no rule knows (class Other; --summary was quadratic in
# them), and a rocprofv3 JSON file of 60 * N / 100 HIP records naming operations among N
# (each looked up by walking cJSON's list)
p = f"{gen}/other-{3 * n}.json"
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write('{"deviceProperties": %s, "traceEvents": [\n' % json.dumps(dev))
        for i in range(3 * n):
            f.write('%s{"ph": "X", "cat": "kernel", "name": "zq_unknown_%d", "pid": 0, "tid": 1, '
                    '"ts": %d, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": %d}}'
                    % ("," if i else "", i, 100 + 2 * i, i + 1))
        f.write("]}\n")
p = f"{gen}/rocprof-hip-{n}.json"
if not os.path.exists(p):
    ops = ["hipOp%d" % i for i in range(n)] + ["hipLaunchKernel"]
    hip = [{"kind": 1, "operation": n - (i % 7), "correlation_id": {"internal": i + 1},
            "start_timestamp": 1000 + 10 * i, "end_timestamp": 1005 + 10 * i, "thread_id": 1}
           for i in range(60 * n // 100)]
    kd = [{"dispatch_info": {"kernel_id": 1, "agent_id": {"handle": 1}, "queue_id": {"handle": 1},
                             "grid_size": {"x": 1, "y": 1, "z": 1},
                             "workgroup_size": {"x": 1, "y": 1, "z": 1}},
           "correlation_id": {"internal": i + 1}, "start_timestamp": 2000 + 10 * i,
           "end_timestamp": 2005 + 10 * i} for i in range(1000)]
    doc = {"rocprofiler-sdk-tool": [{
        "agents": [{"id": {"handle": 1}, "type": 2, "logical_node_type_id": 0,
                    "product_name": "AMD Instinct MI300X"}],
        "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": "my_kernel"}],
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                       {"kind": "HIP_RUNTIME_API", "operations": ops}]},
        "buffer_records": {"kernel_dispatch": kd, "hip_api": hip}}]}
    json.dump(doc, open(p, "w"))
PY
printf 'GEMM gemm (.{0,8}){8}c\n' >"$gen/slow.rules"
row() {
	label=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$gen/time.txt" "$@" >/dev/null
	read -r w u s <"$gen/time.txt"
	printf '%-52s %8s s wall %8.2f s CPU\n' "$label" "$w" "$(awk "BEGIN { print $u + $s }")"
}
S=$gen/streams-$n.json
N=$gen/names8k-$n.json
row "--summary, $n streams" "$fd" --summary "$S"
row "--report json, $n streams vs itself" "$fd" --report json "$S" "$S"
row "--summary, $n names of 8 KiB" "$fd" --summary "$N"
row "--report json, $n names of 8 KiB vs itself" "$fd" --report json "$N" "$N"
row "--summary, $n names, rule (.{0,8}){8}c" "$fd" --rules "$gen/slow.rules" --summary "$N"
row "--summary, $((3 * n)) distinct names of class Other" "$fd" --summary "$gen/other-$((3 * n)).json"
row "--summary, rocprofv3 JSON, $((60 * n / 100)) HIP records, $n operations" "$fd" --summary "$gen/rocprof-hip-$n.json"
