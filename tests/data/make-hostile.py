#!/usr/bin/env python3
# make-hostile.py — writes the hostile inputs of tests/data/bad/ that tests/check_hostile.c and
# tests/sh/hostile.sh assert (run from tests/data/bad/; the .gz files are reproducible: mtime 0).
import gzip, json
H = '{\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "warpSize": 32}],\n  "cuda_runtime_version": 13000,\n  "traceEvents": [\n'
T = '\n  ]\n}\n'
def k(name, ts, dur, corr=1, ext=5, dev=0, stream=7, cat="kernel"):
    return ('    {"ph": "X", "cat": "%s", "name": %s, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"device": %d, "stream": %d, "correlation": %d, "External id": %d, "grid": [1, 1, 1], "block": [128, 1, 1]}}'
            % (cat, json.dumps(name), stream, ts, dur, dev, stream, corr, ext))
def w(name, events, head=H):
    open(name, "w").write(head + ",\n".join(events) + T)

# duplicate keys: the last one wins, as in Python's json module
w("duplicate_keys.json", [
 '    {"ph": "X", "cat": "cpu_op", "cat": "kernel", "name": "first_name", "name": "gemm_kernel", "ts": 1.0, "ts": 100.0, "dur": 9.0, "dur": 2.5, "args": {"device": 3, "device": 0, "stream": 7, "correlation": 1}, "args": {"stream": 9}}',
 k("rms_norm_kernel", "103.5", "2.5", corr=2)],
 head='{\n  "deviceProperties": [{"id": 0, "name": "first", "warpSize": 64}],\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "warpSize": 32}],\n  "cuda_runtime_version": 1,\n  "cuda_runtime_version": 13000,\n  "traceEvents": [\n')

# ts and dur written as strings
w("times_as_strings.json", [
 k("gemm_kernel", '"100.0"', '"2.5"', corr=1),
 k("rms_norm_kernel", '"103.5"', '"1e0"', corr=2),
 k("bad_kernel", '"yesterday"', '"2.5"', corr=3),
 k("bad_kernel", '"104"', '""', corr=4)])

# durations that are negative, not numbers or absurd: skipped, counted in one warning
bad = ["-1", "-0.001", "NaN", "Infinity", "-Infinity", '"NaN"', '"-1"', "null", "true", "{}", "[]",
       "1e400", "-1e400", '"1e400"', "1152921504606847", "99999999999999999999999"]
w("bad_durations.json", [k("gemm_kernel", "100.0", "2.5", corr=1)] +
  [k("bad_kernel_%d" % i, "101", d, corr=10 + i) for i, d in enumerate(bad)] +
  ['    {"ph": "X", "cat": "kernel", "name": "no_dur_kernel", "ts": 102, "args": {"device": 0}}'] +
  [k("rms_norm_kernel", "103.5", "0", corr=2)])

# times at the edge of int64: the fuzzer's first finding (UB in json_us_to_ns)
w("time_overflow.json", [
 k("gemm_kernel", "-9223372036854775.808", "1", corr=1),
 k("gemm_kernel", "9223372036854779", "1", corr=2),
 k("gemm_kernel", "-1152921504606847", "1", corr=3),
 k("gemm_kernel", "4611686018427388", "1", corr=4),
 k("gemm_kernel", "-1152921504606846", "1", corr=5),
 k("gemm_kernel", "4611686018427387", "1152921504606846", corr=6)])

# kernel durations that fit one by one but not added up
w("kernel_time_overflow.json", [k("gemm_kernel", str(100 + i), "1152921504606846", corr=i + 1) for i in range(8)])

# annotations: overlapping, nested, unterminated (no dur, dur -1, a B without E)
w("annotations_overlap.json", [
 '    {"ph": "X", "cat": "gpu_user_annotation", "name": "prefill", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"External id": 1}}',
 '    {"ph": "X", "cat": "gpu_user_annotation", "name": "decode", "pid": 0, "tid": 7, "ts": 105, "dur": 10, "args": {"External id": 2}}',
 '    {"ph": "X", "cat": "gpu_user_annotation", "name": "prefill", "pid": 0, "tid": 7, "ts": 100, "dur": 20, "args": {"External id": 3}}',
 '    {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 1, "ts": 90, "dur": 50}',
 '    {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 1, "ts": 95, "dur": 50}',
 '    {"ph": "B", "cat": "user_annotation", "name": "unterminated_b", "pid": 1, "tid": 1, "ts": 96}',
 '    {"ph": "X", "cat": "user_annotation", "name": "unterminated_dur", "pid": 1, "tid": 1, "ts": 97, "dur": -1}',
 '    {"ph": "X", "cat": "gpu_user_annotation", "name": "unterminated_gpu", "pid": 0, "tid": 7, "ts": 98}',
 k("gemm_kernel", "101", "2", corr=1), k("gemm_kernel", "106", "2", corr=2), k("rms_norm_kernel", "112", "2", corr=3)])

# kernels whose launch event is missing, a launch without a kernel
w("kernel_without_launch.json", [
 '    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 99, "dur": 1, "args": {"correlation": 1, "External id": 5}}',
 '    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 99.5, "dur": 1, "args": {"correlation": 77, "External id": 6}}',
 '    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 98, "dur": 3, "args": {"External id": 5, "Input Dims": [[4, 512], [512, 512]]}}',
 k("gemm_kernel", "100", "2", corr=1), k("orphan_kernel", "103", "2", corr=2, ext=0), k("no_corr_kernel", "106", "2", corr=0, ext=0)])

# flow events whose start is missing (only the "f" end), and a start without an end
w("flow_without_start.json", [
 '    {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 100, "cat": "ac2g", "name": "ac2g", "bp": "e"}',
 '    {"ph": "s", "id": 99, "pid": 1, "tid": 1, "ts": 99, "cat": "ac2g", "name": "ac2g"}',
 k("gemm_kernel", "100", "2", corr=1)])

w("one_kernel.json", [k("gemm_kernel", "1751410836000000.5", "2.5", corr=1)])

# nothing any rule knows: every kernel is class Other
w("all_other.json", [k("mystery_kernel_%d" % (i % 3), str(100 + 3 * i), "2", corr=i + 1) for i in range(9)])

# three GPUs: device 1 has the most kernel time, device 0 the most kernels, device 3 only a copy
w("multi_device.json",
  [k("small_kernel", str(100 + 2 * i), "1", corr=i + 1, dev=0) for i in range(5)] +
  [k("big_gemm", str(100 + 50 * i), "40", corr=10 + i, dev=1) for i in range(2)] +
  [k("Memcpy HtoD (Pageable -> Device)", "100", "5", corr=20, dev=3, cat="gpu_memcpy")],
  head='{\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "warpSize": 32}, {"id": 1, "name": "NVIDIA H100 80GB HBM3", "warpSize": 32}, {"id": 3, "name": "NVIDIA H200", "warpSize": 32}],\n  "cuda_runtime_version": 13000,\n  "traceEvents": [\n')

# two traces with nothing in common (platform, GPU, names, structure): for comparison tests
w("share_nothing_a.json", [k("alpha_kernel_%d" % i, str(100 + 3 * i), "2", corr=i + 1) for i in range(4)])
w("share_nothing_b.json", [
 '    {"ph": "X", "cat": "kernel", "name": "zeta_%d", "pid": 4, "tid": 1, "ts": %d, "dur": 7, "args": {"device": 4, "stream": 1, "correlation": %d}}' % (i, 5000 + 9 * i, 100 + i) for i in range(3)],
 head='{\n  "deviceProperties": [{"id": 4, "name": "AMD Instinct MI300X", "warpSize": 64}],\n  "roctracer_version": 4.1,\n  "traceEvents": [\n')

# an escape that json_skip() does not check, in args seen before the category
open("args_bad_escape.json", "w").write('{"traceEvents": [{"args": {"corr\\elation": 1}, "cat": "kernel", "name": "k", "ts": 1, "dur": 1}]}\n')

# a truncated file that ends in a number with an exponent (strtod read past the buffer)
open("number_at_eof.json", "w").write('{"traceEvents": [{"cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"correlation": 1e5')

def gz(name, data):
    with open(name, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(data)

# 10^6 nesting levels, inside the args of a kernel, and as a top-level value
N = 10**6
gz("deep_args_1e6.json.gz", b'{"traceEvents": [{"cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"x": ' + b"[" * N + b"]" * N + b"}}]}\n")
gz("deep_top_1e6.json.gz", b'{"metadata": ' + b'{"a": ' * N + b"1" + b"}" * N + b', "traceEvents": []}\n')
# a kernel name of 100 MiB
gz("string_100mb.json.gz", b'{"traceEvents": [{"cat": "kernel", "name": "' + b"gemm_" * (100 * 2**20 // 5) + b'", "ts": 1, "dur": 1, "args": {"device": 0}}, {"cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"device": 0}}]}\n')
