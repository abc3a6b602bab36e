#!/usr/bin/env python3
# make-variants.py — derives trace variants we do not have from the real traces in examples/ and
# tests/data/traces/, for tests/check_variants.c: the analysis must find the same passes, layers
# and headline fusions on each (README.md lists them and what each checks). Run from the top
# directory: python3 tests/data/variants/make-variants.py [OUTDIR]. Deterministic: the same
# input gives the same bytes (fixed seeds, gzip mtime 0).
#
# Every variant starts from a "slim" copy of its trace: the events fusediff never reads are
# dropped (ac2g flows, overhead, python_function entries other than nn.Module calls, cpu_ops and
# runtime calls that launched no kernel), so that the files stay small. The slim copies are
# checked like the variants.
import copy, gzip, json, os, random, re, sys

TOP = os.getcwd()
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "tests/data/variants")

SRC = {
    "eager": "examples/llama8l_eager_sdpa.json.gz",
    "compiled": "examples/llama8l_compiled_sdpa.json.gz",
    "mi300x": "examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
    "b300": "examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz",
    "bert_mi300x": "tests/data/traces/tracelens_bert-small_hf_mi300x.json.gz",
    "bert_h100": "tests/data/traces/tracelens_bert-small_hf_h100.json.gz",
    "qwen_mi300x": "tests/data/traces/tracelens_qwen1.5-0.5b_hf_mi300x.json.gz",
    "qwen_h100": "tests/data/traces/tracelens_qwen1.5-0.5b_hf_h100.json.gz",
    "moe": "tests/data/traces/moe6l_eager_sdpa.json.gz",
}

GPU_CATS = ("kernel", "gpu_memset", "gpu_memcpy")
RUNTIME_CATS = ("cuda_runtime", "cuda_driver")
GEMM_RE = re.compile(r"nvjet|gemm|^Cijk_", re.I)


def load(name):
    with gzip.open(os.path.join(TOP, SRC[name]), "rt", encoding="utf-8") as f:
        return json.load(f)


def save(doc, name):
    data = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    path = os.path.join(OUT, name + ".json.gz")
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as g:
        g.write(data)
    print("%-40s %8d events %9d bytes" % (name, len(doc["traceEvents"]), os.path.getsize(path)))


def args(e):
    return e.get("args") or {}


def cat(e):
    return e.get("cat")


def slim(doc):
    """Drop the events fusediff never reads."""
    ev = doc["traceEvents"]
    corr = {args(e).get("correlation") for e in ev if cat(e) in GPU_CATS}
    ext = {args(e).get("External id") for e in ev if cat(e) in GPU_CATS}
    keep = []
    for e in ev:
        c = cat(e)
        if (c in GPU_CATS or c in ("user_annotation", "gpu_user_annotation", "Trace")
                or e.get("ph") == "M"
                or (c in RUNTIME_CATS and args(e).get("correlation") in corr)
                or (c == "cpu_op" and args(e).get("External id") in ext)
                or (c == "python_function" and e.get("name", "").startswith("nn.Module: "))):
            keep.append(e)
    doc = dict(doc)
    doc["traceEvents"] = keep
    return doc


def launch_times(doc):
    """correlation id -> CPU time of the launch."""
    return {args(e)["correlation"]: e["ts"] for e in doc["traceEvents"]
            if cat(e) in RUNTIME_CATS and "correlation" in args(e)}


PASS_RE = re.compile(r"^(prefill|decode|execute_)")


def pass_ranges(doc):
    """The CPU ranges of the passes (user_annotation prefill/decode/execute_...), in time order."""
    return sorted((e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"]
                  if cat(e) == "user_annotation" and PASS_RE.match(e["name"]))


def drop(doc, pred):
    doc = dict(doc)
    doc["traceEvents"] = [e for e in doc["traceEvents"] if not pred(e)]
    return doc


def truncate(doc, n_passes, partial_kernels=0):
    """Keep the first n_passes passes; with partial_kernels, also the first kernels of the next
    one (the profiler stopped in the middle of a pass): its annotations end there."""
    ranges = pass_ranges(doc)
    launch = launch_times(doc)
    cut = ranges[n_passes][0] if n_passes < len(ranges) else float("inf")
    if partial_kernels:
        lo, hi = ranges[n_passes]
        ts = sorted(t for t in launch.values() if lo <= t <= hi)
        cut = ts[partial_kernels]
    kept_ext = set()
    out = []
    for e in doc["traceEvents"]:
        c = cat(e)
        if c in GPU_CATS:
            t = launch.get(args(e).get("correlation"))
            if t is not None and t >= cut:
                continue
        elif c == "gpu_user_annotation":
            pass  # decided below, once the CPU ranges are known
        elif "ts" in e and e.get("ph") == "X" and c != "Trace" and e["ts"] >= cut:
            continue
        elif c == "user_annotation" and e["ts"] + e["dur"] > cut:
            e = dict(e, dur=cut - e["ts"])  # the range the profiler saw end
        if c == "user_annotation":
            kept_ext.add(args(e).get("External id"))
        out.append(e)
    # GPU ranges of dropped CPU ranges go; the one of a cut range ends with its last kernel
    gpu_end = max(e["ts"] + e["dur"] for e in out if cat(e) in GPU_CATS)
    res = []
    for e in out:
        if cat(e) == "gpu_user_annotation":
            if args(e).get("External id") not in kept_ext:
                continue
            if e["ts"] + e["dur"] > gpu_end:
                e = dict(e, dur=max(0.0, gpu_end - e["ts"]))
        res.append(e)
    doc = dict(doc)
    doc["traceEvents"] = res
    return doc


def shuffled(doc, seed):
    """Events in a random order, traceEvents after the other top-level keys."""
    ev = list(doc["traceEvents"])
    random.Random(seed).shuffle(ev)
    out = {k: v for k, v in doc.items() if k != "traceEvents"}
    out["traceEvents"] = ev
    return out


def two_streams(doc, new_stream):
    """The kernels of the first pass (on its main stream) alternate between that stream and
    new_stream, block by block: a block is a GEMM and what follows it up to the next GEMM, so
    every logical op stays on one stream. GPU ranges get a copy on the new stream."""
    ranges = pass_ranges(doc)
    lo, hi = ranges[0]
    launch = launch_times(doc)
    ev = [dict(e) for e in doc["traceEvents"]]
    first = [e for e in ev if cat(e) in GPU_CATS and lo <= launch.get(args(e).get("correlation"), -1) <= hi]
    streams = {}
    for e in first:
        streams[args(e)["stream"]] = streams.get(args(e)["stream"], 0) + 1
    main = max(sorted(streams), key=lambda s: streams[s])
    block = 0
    moved = 0
    seq = sorted((e for e in first if args(e)["stream"] == main), key=lambda e: e["ts"])
    for i, e in enumerate(seq):
        nxt = seq[i + 1] if i + 1 < len(seq) else None
        gemm = cat(e) == "kernel" and GEMM_RE.search(e["name"])
        # a workspace memset goes with the kernel it was launched for
        workspace = (cat(e) == "gpu_memset" and nxt is not None and cat(nxt) == "kernel"
                     and GEMM_RE.search(nxt["name"])
                     and args(nxt).get("External id") == args(e).get("External id"))
        if workspace or (gemm and not (i > 0 and cat(seq[i - 1]) == "gpu_memset"
                                       and args(seq[i - 1]).get("External id") == args(e).get("External id"))):
            block += 1
        if block % 2:
            e["args"] = dict(args(e), stream=new_stream)
            e["tid"] = new_stream
            moved += 1
    extra = []
    for e in ev:
        if cat(e) == "gpu_user_annotation" and e.get("tid") == main:
            extra.append(dict(e, tid=new_stream))
    assert moved > 0
    doc = dict(doc)
    doc["traceEvents"] = ev + extra
    return doc


def string_ids(doc):
    """pid and tid as strings: CPU ids as decimal text, GPU streams as "stream N" (older Kineto)."""
    gpu = GPU_CATS + ("gpu_user_annotation",)
    ev = []
    for e in doc["traceEvents"]:
        e = dict(e)
        if "pid" in e and isinstance(e["pid"], int):
            e["pid"] = str(e["pid"])
        if "tid" in e and isinstance(e["tid"], int):
            e["tid"] = "stream %d" % e["tid"] if cat(e) in gpu else str(e["tid"])
        ev.append(e)
    doc = dict(doc)
    doc["traceEvents"] = ev
    return doc


def second_device(doc, n=12):
    """A second GPU that ran a few kernels (copies of the first GEMMs, no launch events)."""
    ev = doc["traceEvents"]
    dev = max(args(e).get("device", 0) for e in ev if cat(e) == "kernel") + 1
    gemms = sorted((e for e in ev if cat(e) == "kernel" and GEMM_RE.search(e["name"])),
                   key=lambda e: e["ts"])[:n]
    extra = []
    for i, e in enumerate(gemms):
        a = {k: v for k, v in args(e).items() if k not in ("External id", "correlation")}
        a.update(device=dev, stream=1000 + dev, correlation=900000000 + i)
        extra.append(dict(e, pid=dev, tid=1000 + dev, ts=e["ts"] + 3.5, dur=e["dur"] / 2, args=a))
    doc = dict(doc)
    props = [dict(p) for p in doc.get("deviceProperties", [])]
    if props:
        props.append(dict(props[0], id=dev))
        doc["deviceProperties"] = props
    doc["traceEvents"] = ev + extra
    return doc


# Kernel names of one vendor's stack and what the other vendor's stack calls the same kernel
# (hipBLASLt/Tensile, aotriton, aiter, sgl-kernel ROCm, vLLM ROCm; cuBLASLt, flashinfer, vLLM).
TO_AMD = [
    (r"^nvjet_sm\d+_tst_(\d+)x(\d+)_(\d+)x\d+_.*",
     r"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT\1x\2x\3_MI16x16x1_SN_LDSB1_GRVWA8_ISA942_WG32_8_1"),
    (r"^void cublasLt::splitKreduce_kernel.*", "Cijk_BBS_BH_Bias_HAS_SAV_PostGSU16_VW4"),
    (r"^void cutlass::Kernel2<cutlass_80_simt_sgemm_.*",
     "Cijk_Ailk_Bljk_SB_MT64x32x8_SN_1LDSB0_GRVW1_ISA942_WG16_16_1"),
    (r"^cudnn_generated_fort_native_sdpa_.*", "attn_fwd"),
    (r"^fmhaSm100fKernel_.*ForGen$",
     "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, "
     "(vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1, ck_tile::ComposedAttention<0u, false> >"
     "(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, float, int const*, "
     "int const*, int const*, float const*, int, int, int, int, float*, float*, __hip_bfloat16*)"),
    (r"^kernel_cutlass_kernel_flashinfernormkernelsfused_add_rmsnorm.*",
     "_ZN5aiter18add_rmsnorm_kernelI14__hip_bfloat16Li256ELi8EEEvPT_S3_PKS2_S5_fii"),
    (r"^kernel_cutlass_kernel_flashinfernormkernelsrmsnorm.*",
     "_ZN5aiter14rmsnorm_kernelI14__hip_bfloat16Li256ELi8EEEvPT_PKS2_S5_fii"),
    (r"^void \(anonymous namespace\)::fused_rope_kernel<.*",
     "void rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, "
     "c10::BFloat16 const*, int, long, long, long, int, int, int)"),
    (r"__nv_bfloat16", "__hip_bfloat16"),
]
TO_NVIDIA = [
    (r"^Cijk_Alik_Bljk_\w*_MT(\d+)x(\d+)x(\d+)_.*", r"nvjet_sm90_tst_\1x\2_\3x4_2x1_v_bz_TNT"),
    (r"^void paged_attention_ll4mi_QKV_mfma16_kernel<.*",
     "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u, 8u, 16u, "
     "1u, 8u, (flashinfer::PageStorage)0, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>"
     "(__nv_bfloat16*, unsigned int*, float*)"),
    (r"^void paged_attention_ll4mi_reduce_kernel<.*",
     "void flashinfer::VariableLengthMergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16>"
     "(__nv_bfloat16*, float*, int*, __nv_bfloat16*, float*, unsigned int, unsigned int)"),
    # aiter's add_rmsnorm_quant_kernel<In, Out, Block, Thread, ADD_RESIDUAL, FUSE_QUANT, ...>:
    # these traces add the residual or not, and never quantise
    (r"^_ZN5aiter24add_rmsnorm_quant_kernelI\w*?Li\d+ELi\d+ELb1ELb0E.*",
     "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, "
     "c10::BFloat16 const*, float, int, int)"),
    (r"^_ZN5aiter24add_rmsnorm_quant_kernelI\w*?Li\d+ELi\d+ELb0ELb0E.*",
     "void vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, "
     "c10::BFloat16 const*, float, int, int)"),
    (r"^_ZN7sgl_hip10activation18act_and_mul_kernel.*",
     "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>"
     "(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)"),
    (r"^void rotary_embedding_kernel<", "void vllm::rotary_embedding_kernel<"),
    (r"^void rocprim::\w+::detail::trampoline_kernel<.*",
     "void at_cuda_detail::cub::detail::scan::DeviceScanKernel<int>(int*, int*, int)"),
    (r"__hip_bfloat16", "__nv_bfloat16"),
]

AMD_META = {"roctracer_version": 4, "hip_runtime_version": 60443483}
NVIDIA_META = {"cuda_runtime_version": 12080, "cuda_driver_version": 12080, "cupti_version": 24}
PLATFORM_KEYS = ("roctracer_version", "hip_runtime_version", "hip_driver_version",
                 "cuda_runtime_version", "cuda_driver_version", "cupti_version")


def renamed(doc, rules, meta, gpu, warp):
    """Kernel names (and the launch events' copies of them) rewritten to the other vendor's, the
    platform keys and the device properties too."""
    compiled = [(re.compile(p), r) for p, r in rules]
    seen = {}

    def rename(name):
        if name not in seen:
            out = name
            for p, r in compiled:
                out = p.sub(r, out)
            seen[name] = out
        return seen[name]

    ev = []
    for e in doc["traceEvents"]:
        if cat(e) == "kernel":
            e = dict(e, name=rename(e["name"]))
        elif cat(e) in RUNTIME_CATS and "kernel" in args(e):
            e = dict(e, args=dict(args(e), kernel=rename(args(e)["kernel"])))
        ev.append(e)
    out = {k: v for k, v in doc.items() if k not in PLATFORM_KEYS}
    out.update(meta)
    out["deviceProperties"] = [dict(p, name=gpu, warpSize=warp) for p in doc.get("deviceProperties", [])]
    out["traceEvents"] = ev
    return out


def profiler_steps(doc):
    """The pass annotations renamed ProfilerStep#N (a profiler schedule stepping once per forward
    pass): the names say no phase, the kernels must."""
    ev = []
    for e in doc["traceEvents"]:
        if cat(e) in ("user_annotation", "gpu_user_annotation") and PASS_RE.match(e["name"]):
            e = dict(e, name="ProfilerStep#%d" % (args(e).get("External id") or 0))
        ev.append(e)
    doc = dict(doc)
    doc["traceEvents"] = ev
    return doc


OLD_CATS = {"kernel": "Kernel", "cuda_runtime": "Runtime", "cpu_op": "Operator",
            "gpu_memcpy": "Memcpy", "gpu_memset": "Memset"}


def old_categories(doc):
    """The category names of older PyTorch profilers (Kernel, Runtime, Operator, ...)."""
    doc = dict(doc)
    doc["traceEvents"] = [dict(e, cat=OLD_CATS[cat(e)]) if cat(e) in OLD_CATS else e
                          for e in doc["traceEvents"]]
    return doc


def no_annotations(e):
    return cat(e) in ("user_annotation", "gpu_user_annotation", "python_function")


def main():
    os.makedirs(OUT, exist_ok=True)
    base = {}
    # eager: 2 prefill + 3 decode passes (a trace truncated after 5 passes)
    base["eager"] = truncate(slim(load("eager")), 5)
    base["compiled"] = slim(load("compiled"))
    base["mi300x"] = slim(load("mi300x"))
    base["b300"] = slim(load("b300"))
    for name in ("eager", "compiled", "mi300x", "b300"):
        b = base[name]
        save(b, name + "-slim")
        save(drop(b, no_annotations), name + "-noann")
        save(drop(b, lambda e: cat(e) == "user_annotation"), name + "-gpuann")
        save(drop(b, lambda e: cat(e) == "gpu_user_annotation"), name + "-cpuann")
        save(shuffled(b, len(name)), name + "-shuffled")
        save(string_ids(b), name + "-strids")
        save(second_device(b), name + "-twodevices")
        save(profiler_steps(b), name + "-profsteps")
        save(drop(b, lambda e: cat(e) in RUNTIME_CATS), name + "-nolaunch")
        if name != "mi300x":  # its graph-replay times are repaired per stream: keep its streams
            save(two_streams(b, 99), name + "-twostreams")
        if name in ("compiled", "b300"):
            save(old_categories(b), name + "-oldcats")
    save(drop(base["eager"], lambda e: cat(e) == "python_function"), "eager-nomodules")
    save(truncate(slim(load("eager")), 4, partial_kernels=150), "eager-partial")
    save(renamed(base["compiled"], TO_AMD, AMD_META, "AMD Instinct MI300X", 64), "compiled-amd")
    save(renamed(base["b300"], TO_AMD, AMD_META, "AMD Instinct MI355X", 64), "b300-amd")
    save(renamed(base["mi300x"], TO_NVIDIA, NVIDIA_META, "NVIDIA H100 80GB HBM3", 32), "mi300x-nvidia")
    for name in ("bert_mi300x", "bert_h100", "qwen_mi300x", "qwen_h100"):
        b = slim(load(name))
        save(drop(b, lambda e: cat(e) == "python_function"), name + "-nomodules")
        save(drop(b, no_annotations), name + "-noann")
    save(drop(truncate(slim(load("moe")), 4), no_annotations), "moe-noann")


if __name__ == "__main__":
    main()
