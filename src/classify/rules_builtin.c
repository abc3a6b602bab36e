/* rules_builtin.c — the built-in classification rules, as data.
 *
 * Ordered: the first rule whose pattern matches decides. Patterns are POSIX extended regular
 * expressions, matched case-insensitively anywhere in the kernel name (the demangled name, and
 * the trace's own name when that was mangled). Specific families come before generic ones:
 * fused norms before plain norms, KV-cache writes and attention before GEMM (attention kernels
 * mention gemm in their template arguments), RoPE before embedding ("rotary_embedding"), the
 * generic aten elementwise templates last. Every family was checked against the real traces in
 * ../shared/traces (NVIDIA H100/H200/B300 and AMD MI300X). */
#include "classify_int.h"

/* The rules are a table, laid out by hand. */
/* clang-format off */
#define R(cls_, atoms_, pat_) { .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_) }
#define RP(cls_, atoms_, pat_, prim_)                                                            \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .prim = (prim_) }
#define RO(cls_, atoms_, pat_, op_, prim_)                                                       \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .op = (op_), .prim = (prim_) }
#define RF(cls_, atoms_, pat_, aux_, decode_)                                                    \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .aux = (aux_),             \
	  .decode = (decode_) }

const struct builtin_rule classify_builtin_rules[] = {
	/* Communication: NCCL/RCCL, custom all-reduce, NVLS multimem. First: their names say
	 * "reduce" and "gather". */
	R(COMM, A(COMM),
	  "nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|alltoall|multimem|"
	  "cross_device_reduce|mscclpp|quick_?reduce|nvshmem"),

	/* KV-cache writes (before attention: reshape_and_cache_flash). */
	R(KV_WRITE, A(KV_WRITE),
	  "store_?kv_?cache|reshape_and_cache|concat_and_cache|set_kv_buffer|"
	  "kv_?cache_?(write|store|update|append)|append_paged_kv_cache|AppendPagedKVCache"),

	/* Norms; fused forms first (aiter add_rmsnorm_quant, flashinfer FusedAddRMSNorm). */
	R(NORM, A(ADD) | A(RMSNORM) | A(QUANT),
	  "add_?rms_?norm[a-z0-9_]*quant|fused_add_rms_?norm[a-z0-9_]*quant"),
	R(NORM, A(RMSNORM) | A(QUANT), "rms_?norm[a-z0-9_]*quant"),
	R(NORM, A(ADD) | A(RMSNORM), "add_?rms_?norm|residual_?add_?rms_?norm|skip_?rms_?norm"),
	R(NORM, A(ADD) | A(LAYERNORM),
	  "add_?layer_?norm|residual_?add_?layer_?norm|skip_?layer_?norm"),
	RP(NORM, A(RMSNORM), "rms_?norm", "rms_norm"),
	RP(NORM, A(LAYERNORM), "layer_?norm|group_?norm", "layer_norm"),

	/* Attention. Split-KV reduce/combine helpers are aux; decode-only kernels are flagged. */
	RF(ATTENTION, A(ATTENTION), "paged_attention[a-z0-9_]*reduce|_fwd_kernel_stage2", 1, 1),
	RF(ATTENTION, A(ATTENTION),
	   "paged_attention|ForGen|xqa_?kernel|masked_multihead_attention|mmha|decode_?attention|"
	   "BatchDecode|SingleDecode|flash_?decoding|mla_?decode|flash_?mla|"
	   "_fwd_(grouped_)?kernel_stage1",
	   0, 1),
	RF(ATTENTION, A(ATTENTION),
	   "splitkv_combine|combine_?attn|merge_?states|lean_reduction|reduce_segments|"
	   "attention[a-z0-9_]*(reduce|combine)",
	   1, 0),
	R(ATTENTION, A(ATTENTION),
	  "attention|attn_fwd|attn_bwd|fmha|flash_fwd|flash_bwd|flash_?attn|sdpa|mha_fwd|mha_bwd|"
	  "mha_varlen|BatchPrefill|SinglePrefill|cutlassF|cutlassB|^_fwd_kernel$"),

	/* GPU copies and fills recorded as memcpy/memset events. */
	RP(COPY, A(COPY), "^Memcpy", "copy"),
	RP(COPY, A(COPY), "^Memset", "fill"),

	/* MoE: routing, expert GEMMs, finalize (weighted combine). */
	R(MOE_ROUTING, A(ROUTING) | A(TOPK) | A(SOFTMAX), "topk_?gating_?softmax|topk_softmax"),
	R(MOE_ROUTING, A(ROUTING),
	  "moe_align|moe_?sort|expandInputRows|expand_input_rows|count_and_sort_expert|"
	  "moe_?routing|grouped_topk|moe_?permute|moe_?dispatch|fused_topk"),
	R(MOE_FINALIZE, A(REDUCE),
	  "moe_?sum|finalize_?moe|moe_?finalize|moe_?unpermute|moe_?combine"),
	RF(MOE_GEMM, A(MOE_GEMM), "prepare_grouped_gemm_data", 1, 0),
	R(MOE_GEMM, A(MOE_GEMM),
	  "fused_moe|moe_?gemm|MoeFCGemm|grouped_?gemm|GroupProblemShape|ck_moe|fmoe|moe_?mlp|"
	  "cutlass_moe|grouped_mm|group_gemm|marlin_moe|moe_wna16"),

	/* GEMM: cuBLAS/cuBLASLt (nvjet, xmma, gemv), CUTLASS, hipBLASLt/Tensile (Cijk), rocBLAS,
	 * vLLM ROCm skinny GEMMs (wvSplitK, LLGemm). Helpers that finish their GEMM: cuBLASLt's
	 * splitKreduce and separate epilogue, hipBLASLt's PostGSU (the reduction of a GEMM split
	 * with GlobalSplitU, the AMD form of split-K). */
	RF(GEMM, A(GEMM), "splitKreduce|split_?k_?reduce|PostGSU|cublasLt::epilogue", 1, 0),
	R(GEMM, A(GEMM),
	  "nvjet|gemm|^Cijk_|Custom_Cijk|wvSplitK|gemv|LLGemm|matmul|scaled_mm|bmm_kernel|"
	  "cutlass_[0-9]+_(simt|tensorop|wmma)"),

	/* Sampling and top-k. */
	RP(SAMPLING, A(SAMPLE), "ArgMaxOps|argmax", "argmax"),
	RP(SAMPLING, A(SAMPLE),
	   "multinomial|SamplingFromProb|TopKTopP|top_k_top_p|top_p_|min_p_|sampling|exponential_",
	   "sample"),
	RO(SAMPLING, A(TOPK), "bitonicSort|radixSort|sort", "^aten::topk$", "topk"),
	RP(SAMPLING, A(TOPK), "gatherTopK|sbtopk|mbtopk|radixSelect|topk", "topk"),
	RP(SORT, A(OTHER),
	   "radixSort|bitonicSort|segmented_?sort|radix_?sort|merge_?sort|sort_?kernel|"
	   "sortKeyValue|onesweep",
	   "sort"),

	/* RoPE before embedding: "rotary_embedding". */
	R(ROPE, A(ROPE), "rotary|(^|[^a-z])m?rope([^a-z]|kernel|$)"),

	/* Embedding lookups: index_select kernels; a gather is an embedding when launched by
	 * aten::embedding/index_select or by nothing, a copy otherwise (MoE token gathers). */
	RP(EMBEDDING, A(EMBEDDING), "indexSelectSmallIndex|indexSelectLargeIndex|embedding",
	   "embedding"),
	RO(EMBEDDING, A(EMBEDDING), "vectorized_gather", "^aten::(embedding|index_select)$",
	   "embedding"),
	RO(COPY, A(COPY), "vectorized_gather", ".", "gather"),
	RP(EMBEDDING, A(EMBEDDING), "vectorized_gather", "embedding"),

	/* Activations; gated forms carry mul. act_and_mul names the function in its template
	 * arguments when it can (sgl_hip: &silu<...>); otherwise the function is unknown. */
	R(ACTIVATION, A(SILU) | A(MUL), "silu_and_mul|swiglu|silu_mul|act_and_mul[^>]*silu"),
	R(ACTIVATION, A(GELU) | A(MUL), "gelu_and_mul|gelu_tanh_and_mul|geglu|gelu_mul|"
	  "act_and_mul[^>]*gelu"),
	R(ACTIVATION, A(ACT) | A(MUL), "act_and_mul|and_mul_kernel|gated_act|glu_kernel"),
	RP(ACTIVATION, A(SILU), "silu|swish", "silu"),
	RP(ACTIVATION, A(GELU), "gelu", "gelu"),
	RP(ACTIVATION, A(ACT), "relu|sigmoid|hardswish|softplus|mish_", "act"),

	/* Quantisation. */
	R(QUANTIZE, A(QUANT),
	  "quant|fp8_cast|to_fp8|cvt_fp8|scaled_fp8|per_token_group|mxfp4|nvfp4|fp4_cast"),

	/* Softmax and reductions. */
	RP(REDUCE, A(SOFTMAX), "soft_?max", "softmax"),
	RP(REDUCE, A(REDUCE), "MeanOps|mean_kernel", "mean"),
	RP(REDUCE, A(REDUCE), "sum_functor|SumOps|sum_kernel", "sum"),
	RP(REDUCE, A(REDUCE), "::and_kernel_cuda|::or_kernel_cuda", "all"),
	RP(REDUCE, A(REDUCE), "MaxOps|MinOps|MaxNanFunctor|MinNanFunctor|max_values|min_values|"
	   "ArgMinOps", "max"),
	RP(REDUCE, A(REDUCE), "NormOps|norm_kernel|NormTwoOps|NormOneOps", "norm"),
	RP(REDUCE, A(REDUCE), "kernelHistogram|histc|histogram", "histc"),
	RP(REDUCE, A(REDUCE), "DeviceScan|scan_impl|scan_config|cumsum|cumprod|tensor_kernel_scan",
	   "cumsum"),
	R(REDUCE, A(REDUCE), "reduce_kernel|ReduceOp|DeviceReduce|rocprim.*reduce|reduce_"),

	/* Casts: aten copies that convert dtypes (NVIDIA: LoadWithCast or a typed copy kernel;
	 * ROCm: the casting gpu_kernel_impl rather than gpu_kernel_impl_nocast). */
	RP(ELEMENTWISE, A(CAST),
	   "LoadWithCast|bfloat16_copy_kernel|float16_copy_kernel|bfloat16tofloat32_copy|"
	   "float8_copy|gpu_kernel_impl<at::native::direct_copy_kernel|convert_?dtype|cast_kernel",
	   "cast"),

	/* Copies, concatenation, fills, index and scatter kernels. */
	RP(COPY, A(COPY), "CatArrayBatchedCopy|cat_array|concat_kernel", "cat"),
	RP(ELEMENTWISE, A(OTHER), "masked_fill", "masked_fill"),
	RP(COPY, A(COPY), "FillFunctor|fill_kernel", "fill"),
	RP(COPY, A(COPY), "index_put_kernel|index_put_with_sort|index_put", "index_put"),
	RP(COPY, A(COPY), "scatter", "scatter"),
	RP(COPY, A(COPY), "gather", "gather"),
	RP(COPY, A(COPY), "index_elementwise_kernel|index_kernel|indexFuncSmallIndex|"
	   "indexFuncLargeIndex|index_copy|masked_select|masked_scatter", "index"),
	RP(COPY, A(COPY), "direct_copy_kernel|copy_kernel|CopyFunctor|Copy<|transpose|permute|"
	   "contiguous|memcpy", "copy"),

	/* Elementwise arithmetic, by functor. */
	RP(ELEMENTWISE, A(MUL), "MulFunctor|mul_kernel|MulScalarFunctor", "mul"),
	RP(ELEMENTWISE, A(ADD), "CUDAFunctor_add|CUDAFunctorOnSelf_add|AddFunctor|add_kernel",
	   "add"),
	RP(ELEMENTWISE, A(OTHER), "DivFunctor|div_true|div_floor|div_trunc|div_kernel", "div"),
	RP(ELEMENTWISE, A(OTHER), "neg_kernel", "neg"),
	RP(ELEMENTWISE, A(OTHER), "pow_tensor_scalar|pow_tensor_tensor|pow_kernel|pow_scalar",
	   "pow"),
	RP(ELEMENTWISE, A(OTHER), "rsqrt_kernel", "rsqrt"),
	RP(ELEMENTWISE, A(OTHER), "sqrt_kernel", "sqrt"),
	RP(ELEMENTWISE, A(OTHER), "exp_kernel|exp2_kernel", "exp"),
	RP(ELEMENTWISE, A(OTHER), "log_kernel", "log"),
	RP(ELEMENTWISE, A(OTHER), "cos_kernel", "cos"),
	RP(ELEMENTWISE, A(OTHER), "sin_kernel", "sin"),
	RP(ELEMENTWISE, A(OTHER), "tanh_kernel", "tanh"),
	RP(ELEMENTWISE, A(OTHER), "where_kernel", "where"),
	RP(ELEMENTWISE, A(OTHER), "clamp|clip_kernel", "clamp"),
	RP(ELEMENTWISE, A(OTHER), "arange|linspace|range_kernel", "arange"),
	RP(ELEMENTWISE, A(OTHER), "distribution|random_|uniform_|normal_kernel|bernoulli|philox",
	   "random"),
	RP(ELEMENTWISE, A(OTHER), "Compare[a-z]*Functor|compare_scalar|eq_kernel|ne_kernel|"
	   "lt_kernel|le_kernel|gt_kernel|ge_kernel", "compare"),
	RP(ELEMENTWISE, A(OTHER), "abs_kernel|reciprocal|bitwise|logical_|sign_kernel|floor_kernel|"
	   "ceil_kernel|round_kernel|trunc_kernel|erf_kernel", NULL),

	/* Generic elementwise templates whose functor said nothing more. */
	R(ELEMENTWISE, A(OTHER),
	  "elementwise_kernel|vectorized_elementwise|unrolled_elementwise|multi_tensor_apply|"
	  "pointwise|elementwise"),
};
/* clang-format on */

const size_t classify_n_builtin_rules =
	sizeof classify_builtin_rules / sizeof classify_builtin_rules[0];
