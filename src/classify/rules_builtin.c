/* rules_builtin.c — the built-in classification tables, as data.
 *
 * Name rules are matched against the kernel's namespace and function name (names.h), never
 * against its template arguments or parameters, except for a generic launcher whose template
 * arguments are the kernel (cutlass::Kernel<cutlass_80_tensorop_...>, at::native's elementwise
 * and reduce templates with their functors, ck_tile::kentry<...>). Ordered: the first rule whose
 * pattern matches decides. Patterns are POSIX extended regular expressions, case-insensitive,
 * matched anywhere. Specific families come before generic ones: communication first (its names
 * say reduce and gather), fused forms before plain ones, convolutions and attention before GEMM
 * (their names mention gemm), RoPE before embedding ("rotary_embedding"), the generic aten
 * templates last. The families and their names come from the backends' sources (cuBLAS and
 * CUTLASS, hipBLASLt, Composable Kernel, aiter, MIOpen, cuDNN, FlashAttention, FlashInfer,
 * TensorRT-LLM, vLLM, SGLang, DeepEP, NCCL/RCCL, Triton kernels, Liger, apex) and real traces;
 * tests/data/classify/names.tsv holds the names they are checked against. */
#include "classify_int.h"

/* The rules are tables, laid out by hand. */
/* clang-format off */
#define R(cls_, atoms_, pat_) { .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_) }
#define RP(cls_, atoms_, pat_, prim_)                                                            \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .prim = (prim_) }
#define RO(cls_, atoms_, pat_, op_, prim_)                                                       \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .op = (op_), .prim = (prim_) }
#define RF(cls_, atoms_, pat_, aux_, decode_)                                                    \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .aux = (aux_),             \
	  .decode = (decode_) }
#define RG(cls_, atoms_, pat_)                                                                   \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .generic = 1 }
/* A generic rule with its elementary op: the name says what the kernel computes (a sort, a
 * gather, a sum), not what the model uses it for (a MoE router's top-k, a token gather, the
 * combine of the experts' outputs): the operator, the module or an annotation may say. */
#define RGP(cls_, atoms_, pat_, prim_)                                                           \
	{ .cls = CLASS_##cls_, .atoms = (atoms_), .pattern = (pat_), .prim = (prim_), .generic = 1 }

const char *const classify_launchers[] = {
	"Kernel", "Kernel2", "kernel", "device_kernel", "kentry", "launch_kernel",
	"elementwise_kernel", "vectorized_elementwise_kernel", "unrolled_elementwise_kernel",
	"elementwise_kernel_manual_unroll", "elementwise_kernel_with_index", "reduce_kernel",
	"index_elementwise_kernel", "multi_tensor_apply_kernel", "gpu_kernel_impl",
	"distribution_elementwise_grid_stride_kernel", "distribution_nullary_kernel",
	"trampoline_kernel",
	NULL,
};

/* FBGEMM-GPU (fbgemm_gpu/src: sparse_ops/, quantize_ops/, jagged_tensor_ops/,
 * split_embeddings_cache/, the table-batched embedding codegen): its sparse-feature permutes,
 * bucketizes and jagged layouts move data; its quantize ops convert to and from FP8, HFP8,
 * MSFP, MX4 and 8- and n-bit rowwise forms; its ranges and segment sums compute offsets;
 * its GenAI GEMMs are named by their types (f8f8bf16_rowwise). */
static const struct builtin_rule fbgemm_rules[] = {
	R(MOE_GEMM, A(MOE_GEMM), "(f8f8bf16|bf16bf16bf16|f8i4bf16|bf16i4bf16|i8i8bf16|f4f4bf16|"
	  "fp8fp8bf16)[a-z0-9_]*grouped|grouped[a-z0-9_]*(gemm|f8f8bf16|bf16bf16bf16)"),
	R(GEMM, A(GEMM), "f8f8bf16|bf16bf16bf16|f8i4bf16|bf16i4bf16|i8i8bf16|f4f4bf16|fp8fp8bf16"),
	RP(EMBEDDING, A(EMBEDDING), "embedding|lxu_cache|lru_cache|lfu_cache|cache_lookup|"
	   "cache_insert|linearize_cache|direct_mapped|bounds_check", "embedding"),
	R(QUANTIZE, A(QUANT), "float_to_|_to_float|qparam|quantize|FP8rowwise|hfp8|msfp|_mx4|"
	  "8bitrowwise|nbitrowwise|paddedFP8|to_bfloat16|bfloat16_to|fp8_?row"),
	RP(REDUCE, A(SOFTMAX), "jagged_softmax", "softmax"),
	RP(REDUCE, A(REDUCE), "segment_sum|jagged_sum|jagged_mean|compute_frequency|cumsum",
	   "sum"),
	RP(COPY, A(COPY), "index_add", "scatter"),
	RP(COPY, A(COPY), "permute|bucketize|reorder_batched|jagged_to_padded|padded_to_jagged|"
	   "dense_to_jagged|jagged_to_dense|index_select|group_index|pack_segments|recat|"
	   "merge_pooled|jagged_index|keyed_jagged|expand_into_jagged|_to_dense", "copy"),
	RP(ELEMENTWISE, A(OTHER), "offsets_range|lengths_range|_range_cuda", "arange"),
	RP(ELEMENTWISE, A(OTHER), "zipf", "random"),
	R(ELEMENTWISE, A(OTHER), "jagged_dense_elementwise|jagged_dense_dense_elementwise|"
	  "jagged_elementwise"),
};

/* DeepGEMM's helpers beside its GEMMs (deep_gemm/impls/smxx_layout.cuh): the scale factors'
 * transpose, and their packing into UE8M0. */
static const struct builtin_rule deep_gemm_rules[] = {
	R(QUANTIZE, A(QUANT), "ue8m0"),
	RP(COPY, A(COPY), "^transpose", "copy"),
};

#define LIB(ns_) { .ns = (ns_), .default_cls = CLASS_COUNT }
#define LIB_RULES(ns_, rules_)                                                                  \
	{ .ns = (ns_), .rules = (rules_), .n_rules = sizeof(rules_) / sizeof((rules_)[0]),       \
	  .default_cls = CLASS_COUNT }
#define LIB_FAMILY(ns_, cls_, atoms_)                                                           \
	{ .ns = (ns_), .default_cls = CLASS_##cls_, .default_atoms = (atoms_) }

/* Namespaces of libraries and frameworks that hold kernels of many families: the identifier
 * after them decides. Namespaces that name one family and nothing else (flash::, nccl,
 * moe::dev::routing, cudnn::detail, rocprim) stay in the text the rules see. */
const struct builtin_library classify_libraries[] = {
	LIB_RULES("fbgemm_gpu", fbgemm_rules),
	LIB_RULES("fbgemm", fbgemm_rules),
	LIB_RULES("deep_gemm", deep_gemm_rules),
	LIB_FAMILY("grouped_gemm", MOE_GEMM, A(MOE_GEMM)),
	LIB("cutlass"), LIB("cute"), LIB("ck"), LIB("ck_tile"), LIB("flashinfer"), LIB("vllm"),
	LIB("sgl_kernel"), LIB("sglang"), LIB("sgl_hip"), LIB("aiter"), LIB("tensorrt_llm"),
	LIB("trtllm"), LIB("transformer_engine"), LIB("at"), LIB("native"), LIB("c10"),
};

const size_t classify_n_libraries = sizeof classify_libraries / sizeof classify_libraries[0];

const struct builtin_rule classify_name_rules[] = {
	/* Expert-parallel bookkeeping before a dispatch or combine (DeepEP's notify and barrier
	 * kernels): helpers of the communication they prepare. */
	RF(COMM, A(COMM), "notify_dispatch|cached_notify|notify_combine|deep_?ep::.*barrier", 1, 0),
	/* Communication: NCCL/RCCL, NVSHMEM, mscclpp, custom all-reduce, NVLS multimem, and
	 * expert-parallel dispatch/combine (DeepEP). First: their names say reduce and gather. */
	R(COMM, A(COMM),
	  "nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|alltoall|multimem|"
	  "cross_device_reduce|mscclpp|quick_?reduce|nvshmem|oneshot_|twoshot_|one_shot|two_shot|"
	  "deep_?ep::|(^|[^a-z])dpsk::ep::|::ep::(internode|intranode|low_?latency)|"
	  "moe_?a2a|custom_?ar|lamport|allreduce_1shot|allreduce_2shot|msccl|_a2a_|a2a_"),

	/* RoPE fused with the KV-cache write, before both (the class of a fused kernel follows
	 * its first operation). */
	R(ROPE, A(ROPE) | A(KV_WRITE),
	  "rope[a-z0-9_]*kv_?cache|rope[a-z0-9_]*append_?paged|rope[a-z0-9_]*set_kv|"
	  "rope[a-z0-9_]*store_kv|rope[a-z0-9_]*quantize_kv|rope[a-z0-9_]*kv_?write|"
	  "rotary[a-z0-9_]*kv_?cache|rotary[a-z0-9_]*append_?paged|rotary[a-z0-9_]*set_kv|"
	  "kv_?cache[a-z0-9_]*rope|set_kv[a-z0-9_]*rope|store_kv[a-z0-9_]*rope|"
	  "_and_cache[a-z0-9_]*rope|kv_?cache[a-z0-9_]*rotary|RopeQuantizeAppend|"
	  "rope[a-z0-9_]*_and_cache|rope_store|rope_?kv"),

	/* KV-cache writes (before attention: reshape_and_cache_flash). */
	R(KV_WRITE, A(KV_WRITE),
	  "store_?kv_?cache|_and_cache|set_kv_buffer|kv_?store|"
	  "kv_?cache_?(write|store|update|append|copy|transpose)|append_paged_kv_cache|"
	  "AppendPagedKVCache|write_to_kv_cache|copy_blocks|prefill_kv|tir_kv_cache|append_?kv"),

	/* Norms; fused forms first (aiter add_rmsnorm_quant, flashinfer FusedAddRMSNorm), q/k norms,
	 * norms fused with RoPE, batch norm (cuDNN, MIOpen, native), layer and group norm with
	 * their backward kernels. */
	R(NORM, A(ADD) | A(RMSNORM) | A(QUANT),
	  "add_?rms_?norm[a-z0-9_]*quant|fused_add_rms_?norm[a-z0-9_]*quant"),
	R(NORM, A(RMSNORM) | A(QUANT), "rms_?norm[a-z0-9_]*quant|(^|[^a-z])norm_?quant|quant_?norm"),
	R(NORM, A(RMSNORM) | A(ROPE),
	  "rms_?norm[a-z0-9_]*rope|rms_?norm[a-z0-9_]*rotary|qk_?norm[a-z0-9_]*rope|"
	  "qk_?norm[a-z0-9_]*rotary|q_?k_?norm[a-z0-9_]*rope|rope[a-z0-9_]*qk_?norm|"
	  "rotary[a-z0-9_]*qk_?norm"),
	R(NORM, A(ADD) | A(RMSNORM),
	  "add_?rms_?norm|residual_?add_?rms_?norm|skip_?rms_?norm|fused?_add_norm"),
	R(NORM, A(ADD) | A(LAYERNORM),
	  "add_?layer_?norm|residual_?add_?layer_?norm|skip_?layer_?norm"),
	RP(NORM, A(RMSNORM), "rms_?norm|qk_?norm|q_?k_?norm|qknorm|rmsnorm2d", "rms_norm"),
	RP(NORM, A(BATCHNORM),
	   "batch_?norm|bn_fw|bn_bw|bnfw|bnbw|BatchNorm|native_batch_norm|bn_(fwd|bwd)", "batch_norm"),
	RP(NORM, A(LAYERNORM),
	   "layer_?norm|group_?norm|instance_?norm|RowwiseMoments|ComputeFusedParams|"
	   "ComputeBackwardFusedParams|ComputeInternalGradients|GammaBeta|cuApplyLayerNorm|"
	   "cuApplyRMSNorm|cuComputeGradInput|cuComputePartGradGammaBeta|cuComputeGradGammaBeta|"
	   "layernorm2d|(^|[^a-z])ln_(fwd|bwd)",
	   "layer_norm"),

	/* GPU copies and fills recorded as memcpy/memset events. */
	RP(COPY, A(COPY), "^Memcpy", "copy"),
	RP(COPY, A(COPY), "^Memset|rocclr_fill|fillBuffer", "fill"),
	RP(COPY, A(COPY), "rocclr_copy|copyBuffer", "copy"),
	/* cuDNN's tensor operations around its convolutions. */
	RP(ELEMENTWISE, A(CAST), "convertTensor", "cast"),
	RP(ELEMENTWISE, A(MUL), "scalePackedTensor|scale_?tensor", "mul"),
	RP(ELEMENTWISE, A(ADD), "add_tensor_kernel|addTensor", "add"),
	/* Layout transforms around convolutions (before them: their names say conv). */
	RP(COPY, A(COPY),
	   "nchw_?to_?nhwc|nhwc_?to_?nchw|nchwToNhwc|nhwcToNchw|batched_transpose|transpose_?nchw|"
	   "transpose_?nhwc|TensorTransform",
	   "copy"),

	/* Attention. Split-KV reduce/combine helpers are aux; decode-only kernels are flagged. */
	RF(ATTENTION, A(ATTENTION),
	   "paged_attention[a-z0-9_]*reduce|_fwd_kernel_stage2|(^|::|_)pa_[a-z0-9_]*reduce", 1, 1),
	RF(ATTENTION, A(ATTENTION),
	   "paged_attention|ForGen|xqa_?kernel|masked_multihead_attention|mmha|decode_?attention|"
	   "BatchDecode|SingleDecode|flash_?decoding|mla_?decode|flash_?mla|"
	   "_fwd_(grouped_)?kernel_stage1|pa_fwd|pa_decode|(^|::)pa_|(^|::)PA_|mla_dec|"
	   "mla_a8w8|mla_a16w16|mla_stage",
	   0, 1),
	RF(ATTENTION, A(ATTENTION),
	   "splitkv_combine|combine_?attn|merge_?states|MergeStates|merge_?attn|lean_reduction|"
	   "reduce_segments|attention[a-z0-9_]*(reduce|combine)|splitkv_?reduce|mla_?reduce|"
	   "FwdCombine|fwd_[a-z_]*combine|mla_combine|dot_do_o|convert_?dq|BwdPreprocess|"
	   "BwdPostprocess|bwd_preprocess|bwd_postprocess|prepare_varlen_num_blocks|dk_dv_reduce|"
	   "dq_?reduce|mla_metadata|fmha_bwd[a-z0-9_]*(odo|dq_convert)|OGradDot|ConvertQGrad",
	   1, 0),
	R(ATTENTION, A(ATTENTION),
	  "attention|attn_fwd|attn_bwd|fmha|flash_fwd|flash_bwd|flash_?attn|FlashAttn|sdpa|"
	  "mha_fwd|mha_bwd|mha_varlen|BatchPrefill|SinglePrefill|cutlassF|cutlassB|"
	  "^_fwd_kernel$|^_bwd_kernel|sage_?(fwd|attn)|qk_int8_sv|sageattn|flex_?attention|"
	  "flash::|pytorch_flash|xformers|efficient_attention|unified_attention|"
	  "prefill_?attention|extend_?attention|_attn_fwd|_attn_bwd|flash_(fprop|bprop)|"
	  "Prefill[a-z]*KVCache|Decode[a-z]*KVCache|kernel_mha|qk_int8?_sv|mqa_logits|"
	  "delta_rule|gated_delta|linear_attention|lightning_attn|selective_scan|mamba_chunk|"
	  "FlashAttention|mla_pfl|::mla_|(^|::)mla_|^bwd_kernel_(fuse|causal|noncausal)|"
	  "^bwd_preprocess"),

	/* A convolution as im2col then a GEMM (MIOpen's GemmFwd solvers and its weight gradient:
	 * Im2d2Col, Im3d2Col in src/kernels/MIOpenIm2d2Col.cl; PyTorch's slow_conv2d: im2col_kernel)
	 * or a GEMM then col2im (the data gradient: Col2Im2dU, Col2Im3dU, col2im_kernel): the
	 * unfolding half of it, which structure.c puts in one step with its GEMM. */
	RP(CONV, A(CONV), "im2col|im[23]d2col", "im2col"),
	RP(CONV, A(CONV), "col2im", "col2im"),

	/* Convolutions (before GEMM: implicit-GEMM convolutions say gemm): cuDNN forward
	 * (fprop), data (dgrad) and weight (wgrad) gradients, MIOpen's igemm/naive/direct and
	 * the im2col they may use, Composable Kernel's grouped convolutions. */
	R(CONV, A(CONV),
	  "fprop|dgrad|wgrad|convolution|convolve|conv[123]d|_conv_|conv_fwd|conv_bwd|conv_wrw|"
	  "winograd|igemm_(fwd|bwd|wrw)|naive_conv|MIOpenConv|MIOpenCvD|gridwise_convolution|"
	  "grouped_conv|im2col|im2d2col|col2im|Im3d2Col|depthwise|dgrad_engine|wgrad_alg|"
	  "xmma_cudnn|cudnn::detail::(implicit|explicit)|cudnn_?conv|scudnn|hcudnn|cudnn_infer|"
	  "cask_cudnn|ImplicitGemmConv|causal_conv1d|AsmConv|MIOpenCv|"
	  /* cuDNN's FFT convolution: the forward and inverse 2-D transforms around its
	   * complex GEMM (fft2d_r2c_32x32, fft2d_c2r_16x16) */
	  "(^|[^a-z])fft2d_(r2c|c2r|c2c)_"),

	/* MoE: routing, expert GEMMs, finalize (weighted combine), activation between the
	 * expert GEMMs. TensorRT-LLM-gen (FlashInfer): moe::dev::routing|finalize and the bmm_*
	 * expert GEMMs; vLLM triton_kernels: _matmul_ogs_*, _finalize_matmul_scatter and the
	 * routing kernels. */
	R(MOE_FINALIZE, A(REDUCE),
	  "moe_?sum|finalize_?moe|moe_?finalize|moe_?unpermute|moe_?combine|moe::dev::finalize|"
	  "reduce_fused|"
	  "_finalize_matmul_scatter|finalizeMoeRouting|finalizeKernel|_reduce_grouped|_ep_gather|"
	  "moe_stage2_reduce|moe_reduction|unpermute"),
	/* the routing atom is the tokens laid out by expert (sorted, permuted, aligned to the
	 * expert GEMM's blocks); a gate that only picks the top k experts and their weights does
	 * not do it, and a kernel that does both fuses them */
	R(MOE_ROUTING, A(TOPK) | A(SOFTMAX),
	  "topk_?gating_?softmax|topk_?softmax|topkGatingSoftmax|topk_?gating"),
	R(MOE_ROUTING, A(SOFTMAX), "moe_?softmax"),
	RF(MOE_ROUTING, A(ROUTING), "_combined_routing_memset|_expt_data_memset", 1, 0),
	/* DeepSeek's MoE kernels (TileKernels tile_kernels/moe/, the kernels of DeepSeek's
	 * profile-data traces): gates, the counts and mappings that lay the tokens out by
	 * expert, the expansion into that layout; their reduce_fused combines */
	R(MOE_ROUTING, A(TOPK),
	  "top2_sum_gate|topk_sum_and_topk_group_idx|(^|[^a-z])topk_gate"),
	R(MOE_ROUTING, A(ROUTING),
	  "clean_and_count_expert|get_fused_mapping|expand_to_fused|inplace_unique_group_indices|"
	  "mask_indices_by_tp|group_count_kernel"),
	/* TensorRT-LLM-gen (FlashInfer) routing: the kernels that take the router's scores pick
	 * the top k themselves before they lay the tokens out by expert (RoutingKernel.cuh:
	 * routingRenormalize, routingCustom and routingLlama4's Block, DynBlock, Cluster,
	 * SmallToken, CoopBlock and HistogramScores kernels; DeepSeek's main kernel); the
	 * histogram, offsets and DeepSeek's cluster kernels start from top-k ids made before */
	R(MOE_ROUTING, A(ROUTING) | A(TOPK),
	  "routing(Renormalize|Custom|Llama4)::routingIndices(Block|DynBlock|Cluster|SmallToken|"
	  "CoopBlock|HistogramScores)Kernel|routingDeepSeek::routingMainKernel"),
	R(MOE_ROUTING, A(TOPK),
	  "grouped_topk|fused_topk|_topk_forward|moeTopK|moe_topk|biased_grouped_topk"),
	R(MOE_ROUTING, A(ROUTING),
	  "moe_align|moe_?sort|moe_[a-z0-9]*_sort|expandInputRows|expand_input_rows|count_and_sort_expert|"
	  "moe_?routing|moe_?permute|moe_?dispatch|moe::dev::routing|"
	  "_combined_routing|_sum_bitmatrix_rows|_routing_|routing_?kernel|"
	  "compute_?routing|build_?expert_?map|"
	  "ExpertPrefixSum|expert_?prefix|ExpertMap|_expt_data|_router|router_|_ep_scatter"),
	R(ACTIVATION, A(ACT) | A(MUL), "moe::dev::activation"),
	RF(MOE_GEMM, A(MOE_GEMM), "prepare_grouped_gemm_data|computeStrides", 1, 0),
	R(MOE_GEMM, A(MOE_GEMM),
	  "fused_moe|moe_?gemm|MoeFCGemm|grouped_?gemm|GroupProblemShape|ck_moe|fmoe|moe_?mlp|"
	  "cutlass_moe|grouped_mm|group_gemm|marlin_moe|moe_wna16|_matmul_ogs|^bmm_|"
	  "m_grouped|MGrouped|moe_?mm|expert_?gemm|MoeFlatmm|moe_flatmm|moe_[a-z]*gemm|MoeGemm|"
	  "mfma_moe"),

	/* GEMM: cuBLAS/cuBLASLt (nvjet, xmma, gemv), CUTLASS, hipBLASLt/Tensile (Cijk), rocBLAS,
	 * Composable Kernel, DeepGEMM, weight-only quantised GEMMs (Marlin, GPTQ, AWQ, machete),
	 * vLLM ROCm skinny GEMMs (wvSplitK, LLGemm). Helpers that finish their GEMM: cuBLASLt's
	 * splitKreduce and separate epilogue, hipBLASLt's PostGSU (the reduction of a GEMM split
	 * with GlobalSplitU, the AMD form of split-K). */
	RF(GEMM, A(GEMM),
	   "splitKreduce|split_?k_?reduce|PostGSU|cublasLt::epilogue|epilogue::impl::globalKernel|"
	   "reduce_splitk|reduce_1Block_kernel|gemm[a-z0-9_]*_reduce|gemv[a-z0-9_]*_reduce",
	   1, 0),
	/* Weight preparation around quantised GEMMs. */
	RP(QUANTIZE, A(QUANT), "dequant|dequantize", "dequant"),
	RP(COPY, A(COPY), "prepack|repack|shuffle_weight", "copy"),
	R(GEMM, A(GEMM),
	  "nvjet|gemm|^Cijk_|Custom_Cijk|wv_?split_?k|gemv|LLGemm|matmul|scaled_mm|bmm_kernel|"
	  "cutlass_[0-9]+_(simt|tensorop|wmma)|sgemm|hgemm|dgemm|Marlin|gptq|awq_|machete|"
	  "fp8_gemm|fp8_?mm|w8a8|mm_kernel|dot_kernel|xmma_|flatmm"),

	/* Embedding tables (FBGEMM), before the optimizers their backward kernels fuse. */
	RP(EMBEDDING, A(EMBEDDING),
	   "split_embedding|embedding_bag|EmbeddingBag|batched_embedding|embedding_backward|"
	   "compute_grad_weight|partial_segment|partials_per_segment|sum_and_scatter",
	   "embedding"),

	/* Fused optimizer steps (PyTorch's fused and multi-tensor Adam/SGD, apex, FBGEMM). */
	R(OPTIMIZER, A(OPTIM),
	  "adam|lamb_|sgd_|SGDFunctor|Adagrad|momentum_|novograd|lion_|optimizer|FusedAdam|"
	  "fused_adam|LAMBStage"),

	/* Sampling; a top-k is a sort (generic: what it is used for comes from its operator,
	 * module or annotation: a MoE router; aten::topk's sorts find a top-k). */
	RP(SAMPLING, A(SAMPLE), "ArgMaxOps|argmax", "argmax"),
	RP(SAMPLING, A(SAMPLE),
	   "multinomial|SamplingFromProb|TopKTopP|top_k_top_p|top_p_|min_p_|sampling|exponential_|"
	   "TopPRenorm|TopKRenorm|TopKMask|gumbel|_sample_kernel|rejection_?sampl|_rejection_kernel",
	   "sample"),
	RGP(SORT, A(TOPK), "gatherTopK|sbtopk|mbtopk|radixSelect|topk", "topk"),
	RGP(SORT, A(OTHER),
	   "radixSort|bitonicSort|segmented_?sort|radix_?sort|merge_?sort|sort_?kernel|"
	   "sortKeyValue|onesweep|searchsorted|RadixSort|DeviceSegmentedSort|block_sort|"
	   "block_merge|merge_oddeven|mergepath",
	   "sort"),

	/* RoPE before embedding: "rotary_embedding". */
	R(ROPE, A(ROPE) | A(QUANT), "RopeQuantize|rope_?quant"),
	R(ROPE, A(ROPE), "rotary|(^|[^a-z])m?rope([^a-z]|kernel|$)|ApplyRotary|RotaryPos|"
	  "kn_entry_[0-9]c_(sbhd|thd)"),

	/* Embedding lookups: index_select kernels, FBGEMM's table-batched embeddings. aten's
	 * vectorized gather serves index_select, index and gather alike: generic, an embedding
	 * when aten::embedding or aten::index_select launched it (the operator table). */
	RF(EMBEDDING, A(EMBEDDING), "bounds_check_indices", 1, 0),
	RP(EMBEDDING, A(EMBEDDING),
	   "indexSelectSmallIndex|indexSelectLargeIndex|embedding|split_embedding", "embedding"),
	RGP(COPY, A(COPY), "vectorized_gather", "gather"),

	/* Activations; gated forms carry mul. act_and_mul names the function in its template
	 * arguments when it can (a modifier then says which); otherwise the function is unknown. */
	R(ACTIVATION, A(SILU) | A(MUL), "silu_and_mul|swiglu|silu_mul|silu_?and_?mul"),
	R(ACTIVATION, A(GELU) | A(MUL), "gelu_and_mul|gelu_tanh_and_mul|geglu|gelu_mul"),
	R(ACTIVATION, A(ACT) | A(MUL), "act_and_mul|and_mul_kernel|gated_act|glu_kernel|_glu_|"
	  "doActivation|activation_?kernel|activation::"),
	RP(ACTIVATION, A(SILU), "silu|swish", "silu"),
	RP(ACTIVATION, A(GELU), "gelu", "gelu"),
	RP(ACTIVATION, A(ACT), "relu|sigmoid|hardswish|softplus|mish_|threshold_kernel|elu_kernel|"
	   "hardtanh|leaky", "act"),

	/* Quantisation. */
	R(QUANTIZE, A(QUANT),
	  "quant|fp8_cast|to_fp8|cvt_fp8|scaled_fp8|per_token_group|mxfp4|nvfp4|fp4_cast|"
	  "per_(token|channel|block)_cast|(^|[^a-z])cast_back|"
	  "e4m3|blockscale_cast|to_fp4|cvt_fp16|convert_fp8|MeanScale|QuantInt8"),
	{ .cls = CLASS_QUANTIZE, .atoms = A(QUANT), .aux = 1,
	  .pattern = "segmented_max_reduction|scale_?reduce|amax_?reduce" },

	/* Softmax and reductions; a scan's initialisation kernel (cub, rocPRIM) is a helper. */
	RGP(REDUCE, A(SOFTMAX), "soft_?max", "softmax"),
	RP(REDUCE, A(REDUCE), "MeanOps|mean_kernel", "mean"),
	RGP(REDUCE, A(REDUCE), "sum_functor|SumOps|sum_kernel", "sum"),
	RP(REDUCE, A(REDUCE), "(^|[^a-z_])and_kernel_cuda|(^|[^a-z_])or_kernel_cuda", "all"),
	RP(REDUCE, A(REDUCE), "MaxOps|MinOps|MaxNanFunctor|MinNanFunctor|max_values|min_values|"
	   "ArgMinOps", "max"),
	RP(REDUCE, A(REDUCE), "NormOps|norm_kernel|NormTwoOps|NormOneOps|L2Norm|lpnorm_cleanup",
	   "norm"),
	RGP(REDUCE, A(REDUCE), "kernelHistogram|histc|histogram", "histc"),
	{ .cls = CLASS_REDUCE, .atoms = A(REDUCE), .aux = 1, .prim = "cumsum", .generic = 1,
	  .pattern = "init_lookback_scan_state|ScanInitKernel|DeviceCompactInitKernel|"
		     "scan_?init|init_scan" },
	RGP(REDUCE, A(REDUCE), "DeviceScan|scan_impl|scan_config|cumsum|cumprod|tensor_kernel_scan|"
	   "lookback_scan|DeviceSelect|DeviceCompact|rocprim.*scan|partition_(config|kernel)|"
	   "DevicePartition", "cumsum"),
	RP(REDUCE, A(REDUCE), "max_?pool|avg_?pool|average_?pool|adaptive_?(avg|max|average)|pooling|"
	   "MIOpenPooling", "pool"),
	RG(REDUCE, A(REDUCE), "reduce_kernel|ReduceOp|DeviceReduce|rocprim.*reduce|reduce_"),
	R(REDUCE, A(REDUCE), "cross_entropy|nll_loss|mse_loss"),

	/* Casts: aten copies that convert dtypes (NVIDIA: LoadWithCast or a typed copy kernel;
	 * ROCm: the casting gpu_kernel_impl rather than gpu_kernel_impl_nocast). */
	RP(ELEMENTWISE, A(CAST),
	   "LoadWithCast|bfloat16_copy_kernel|float16_copy_kernel|bfloat16tofloat32_copy|"
	   "float8_copy|gpu_kernel_impl<direct_copy_kernel|convert_?dtype|cast_kernel|"
	   "SubTensorOpWithCast",
	   "cast"),

	/* Copies, concatenation, fills, index and scatter kernels. */
	RP(COPY, A(COPY), "gather_and_maybe_dequant", "gather"),
	RP(COPY, A(COPY), "CatArrayBatchedCopy|cat_array|concat_kernel|recat_copy|chunk_cat|"
	   "cat_cuda|concat_", "cat"),
	RP(ELEMENTWISE, A(OTHER), "masked_fill", "masked_fill"),
	RP(COPY, A(COPY), "FillFunctor|fill_kernel", "fill"),
	/* (generic: a MoE block's token gather and scatter route and combine) */
	RGP(COPY, A(COPY), "index_put_kernel|index_put_with_sort|index_put", "index_put"),
	RGP(COPY, A(COPY), "scatter", "scatter"),
	RGP(COPY, A(COPY), "gather", "gather"),
	RGP(COPY, A(COPY), "index_elementwise_kernel|index_kernel|indexFuncSmallIndex|"
	   "indexFuncLargeIndex|index_copy|masked_select|masked_scatter", "index"),
	RP(COPY, A(COPY), "kv_indices|to_dense_representation|upsample|resolve_future_token|"
	   "alloc_decode|alloc_extend|slot_mapping|page_indices|copy_page", "index"),
	RP(COPY, A(COPY), "direct_copy_kernel|copy_kernel|CopyFunctor|Copy<|transpose|permute|"
	   "contiguous|memcpy|copy_async", "copy"),

	/* Elementwise arithmetic, by functor; MIOpen's tensor ops (a bias, a scale). */
	/* (short op names only as whole words: "tile_kernel" is no le_kernel) */
	RP(ELEMENTWISE, A(MUL), "MulFunctor|(^|[^a-z])mul_kernel|MulScalarFunctor|ScaleFunctor", "mul"),
	RP(ELEMENTWISE, A(ADD), "CUDAFunctor_add|CUDAFunctorOnSelf_add|AddFunctor|(^|[^a-z])add_kernel|"
	   "OpTensor|SubTensorOp", "add"),
	RP(ELEMENTWISE, A(OTHER), "DivFunctor|div_true|div_floor|div_trunc|(^|[^a-z])div_kernel", "div"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])neg_kernel", "neg"),
	RP(ELEMENTWISE, A(OTHER), "pow_tensor_scalar|pow_tensor_tensor|(^|[^a-z])pow_kernel|pow_scalar",
	   "pow"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])rsqrt_kernel", "rsqrt"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])sqrt_kernel", "sqrt"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])exp2?_kernel", "exp"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])log_kernel", "log"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])cos_kernel", "cos"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])sin_kernel", "sin"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])tanh_kernel", "tanh"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])where_kernel", "where"),
	/* (generic: aten::clamp_min_ of 0 is a ReLU) */
	RGP(ELEMENTWISE, A(OTHER), "clamp|clip_kernel", "clamp"),
	RP(ELEMENTWISE, A(OTHER), "arange|linspace|range_kernel", "arange"),
	RP(ELEMENTWISE, A(OTHER), "distribution|random_|uniform_|normal_kernel|bernoulli|philox|"
	   "dropout", "random"),
	RP(ELEMENTWISE, A(OTHER), "Compare[a-z]*Functor|compare_scalar|(^|[^a-z])eq_kernel|"
	   "(^|[^a-z])ne_kernel|(^|[^a-z])lt_kernel|(^|[^a-z])le_kernel|(^|[^a-z])gt_kernel|"
	   "(^|[^a-z])ge_kernel", "compare"),
	RP(ELEMENTWISE, A(OTHER), "(^|[^a-z])abs_kernel|(^|[^a-z])sign_kernel|"
	   "(^|[^a-z])floor_kernel|(^|[^a-z])ceil_kernel|(^|[^a-z])round_kernel|"
	   "(^|[^a-z])trunc_kernel|(^|[^a-z])erf_kernel|reciprocal|bitwise|logical_|lerp|addcmul|"
	   "addcdiv|nan_to_num|isfinite|isinf|isnan",
	   NULL),

	/* Inductor kernels of PyTorch 2.0, named by Triton's signature and not by their ops
	 * (triton__0d1d2d3de): generic. */
	RG(ELEMENTWISE, A(OTHER), "^triton__[0-9]+[de]"),

	/* Generic elementwise templates whose functor said nothing more: the operator or the
	 * module may say what they do. */
	RG(ELEMENTWISE, A(OTHER),
	   "elementwise_kernel|vectorized_elementwise|unrolled_elementwise|multi_tensor_apply|"
	   "pointwise|elementwise|foreach|transform_config|DeviceTransform|transform_kernel"),
};

const size_t classify_n_name_rules = sizeof classify_name_rules / sizeof classify_name_rules[0];

/* Operators other than aten's (classify_aten_ops) that say what a kernel does when its name
 * does not; custom operators (vllm::, sglang::, _C::, aiter::, trtllm::) are also matched by
 * the name rules. */
const struct builtin_rule classify_op_rules[] = {
	R(CONV, A(CONV), "^aten::(_?convolution|cudnn_convolution|miopen_convolution|conv[123]d|"
	  "conv_transpose|_conv_depthwise|mkldnn_convolution)"),
	R(NORM, A(BATCHNORM), "^aten::(native_batch_norm|cudnn_batch_norm|miopen_batch_norm|"
	  "batch_norm|_batch_norm)"),
	R(NORM, A(LAYERNORM), "^aten::(native_group_norm|group_norm|instance_norm)"),
	R(OPTIMIZER, A(OPTIM), "^aten::_fused_(adam|adamw|sgd|adagrad)|^Optimizer\\.step|"
	  "^fbgemm::.*(adagrad|adam|sgd)"),
	R(REDUCE, A(REDUCE), "^aten::(max_pool|avg_pool|adaptive_max_pool|adaptive_avg_pool|"
	  "_adaptive_avg_pool)"),
	R(COMM, A(COMM), "^c10d::|^nccl:|^record_param_comms|^_c10d"),
};

const size_t classify_n_op_rules = sizeof classify_op_rules / sizeof classify_op_rules[0];

/* Module classes that say what the kernels launched inside them do, innermost first; used
 * only when the name says nothing specific. A MoE block's or router's generic kernels are
 * handled by their elementary op in classify.c (top-k and softmax route, a sum combines). */
const struct builtin_rule classify_module_rules[] = {
	R(CONV, A(CONV), "^(Conv[123]d|ConvTranspose[123]d|Conv|QuantConv[123]d)( |$)"),
	R(NORM, A(BATCHNORM), "^(BatchNorm[123]d|SyncBatchNorm|FrozenBatchNorm2d)( |$)"),
	R(EMBEDDING, A(EMBEDDING), "^(Embedding|EmbeddingBag|VocabParallelEmbedding)( |$)"),
	R(ACTIVATION, A(SILU), "^(SiLU)( |$)"),
	R(ACTIVATION, A(GELU), "^(GELU|GELUActivation|NewGELUActivation|QuickGELU)( |$)"),
	R(ACTIVATION, A(ACT), "^(ReLU|ReLU6|LeakyReLU|Sigmoid|Tanh|Hardswish|Hardsigmoid|Mish|ELU|"
	  "SELU|CELU|Softplus)( |$)"),
};

const size_t classify_n_module_rules =
	sizeof classify_module_rules / sizeof classify_module_rules[0];

#define CLS(x) (1u << CLASS_##x)

/* Atoms from words that only modify: a backward pass, the function of a gated activation or of
 * an expert GEMM's fused activation, an optimizer fused into an embedding's backward, a RoPE
 * fused into a KV write or a norm. */
const struct builtin_modifier classify_modifiers[] = {
	{ IN_HEAD, 0, A(GRAD), 0,
	  "backward|bwd|dgrad|wgrad|wrw|_bw_|bn_bw|bnbw|grad_?input|grad_?weight|grad_?bias|"
	  "gradgamma|gradbeta|gradient|computegrad|_grad_|dq_dk_dv|convert_dq|dot_do_o|BwdSpatial|"
	  "bprop|cutlassB|dk_dv" },
	/* DeepGEMM: the GemmType argument tells grouped (MoE) from dense */
	{ IN_TARGS, CLS(GEMM), A(MOE_GEMM), A(GEMM), "GemmType\\)[12]|GemmType::(Grouped|MGrouped)",
	  .set_cls = CLASS_MOE_GEMM + 1 },
	{ IN_OP, 0, A(GRAD), 0, "backward" },
	{ IN_TARGS, CLS(ACTIVATION) | CLS(MOE_GEMM), A(SILU), A(ACT), "silu|swish|swiglu" },
	{ IN_TARGS, CLS(ACTIVATION) | CLS(MOE_GEMM), A(GELU), A(ACT), "gelu|geglu" },
	{ IN_HEAD, CLS(MOE_GEMM), A(SILU) | A(MUL), 0, "swi_?glu|silu" },
	{ IN_HEAD, CLS(MOE_GEMM), A(GELU) | A(MUL), 0, "geglu|gelu" },
	{ IN_HEAD, CLS(EMBEDDING), A(OPTIM), 0, "adagrad|adam|sgd|lamb|momentum" },
	{ IN_HEAD, CLS(NORM), A(QUANT), 0, "quant" },
	{ IN_HEAD, CLS(KV_WRITE) | CLS(ACTIVATION) | CLS(COMM), A(QUANT), 0, "quant|fp8|fp4" },
	{ IN_HEAD, CLS(MOE_GEMM), A(QUANT), 0, "^bmm_(Mx)?E[24]m[13]_" },
	{ IN_HEAD, CLS(COMM), A(RMSNORM), 0, "rms_?norm" },
	{ IN_HEAD, CLS(MOE_ROUTING) | CLS(SAMPLING), A(TOPK), 0, "topk|top_k" },
	{ IN_HEAD, CLS(MOE_ROUTING), A(SOFTMAX), 0, "softmax" },
	/* TensorRT-LLM-gen routing: Renormalize is top-k then softmax over the k; a Custom
	 * policy names its softmax (SoftmaxPostprocess) among the template's arguments */
	{ IN_HEAD, CLS(MOE_ROUTING), A(SOFTMAX), 0, "routingRenormalize::routingIndices" },
	{ IN_TARGS, CLS(MOE_ROUTING), A(SOFTMAX), 0, "Softmax(Pre|Post)process" },
	{ IN_TARGS, CLS(ACTIVATION), A(MUL), 0, "GLU|glu" },
	{ IN_HEAD, CLS(ACTIVATION), A(MUL), 0, "_mul|mul_" },
};

const size_t classify_n_modifiers = sizeof classify_modifiers / sizeof classify_modifiers[0];

/* Flags in template arguments (aiter's add_rmsnorm_quant_kernel<In, Out, Block, Thread,
 * ADD_RESIDUAL, FUSE_QUANT, interleave, rows>, and before it <In, Out, Block, Thread,
 * FUSE_QUANT>; ck_tile's fused-add and fused-quant enums of its norms). */
const struct builtin_flag classify_flags[] = {
	{ "add_rmsnorm_quant_kernel", 8, 4, NULL, A(ADD) },
	{ "add_rmsnorm_quant_kernel", 8, 5, NULL, A(QUANT) },
	{ "add_rmsnorm_quant_kernel", 5, 4, NULL, A(QUANT) },
	/* Composable Kernel's MoE GEMM <GridwiseGemm, HasMainKBlockLoop, CGlobalMemoryDataOperation,
	 * MinimumOccupancy[, IsInputGemm], TailNum>: the second stage writes by atomic add
	 * (InMemoryDataOperationEnum 1), each token's top-k expert outputs weighted and summed in
	 * place, which is the finalize (gridwise_moe_gemm.hpp) */
	{ "kernel_moe_gemm", 5, 2, NULL, A(REDUCE) },
	{ "kernel_moe_gemm", 6, 2, NULL, A(REDUCE) },
	{ "kernel_moe_gemm_2lds", 5, 2, NULL, A(REDUCE) },
	{ "kernel_moe_gemm_2lds", 6, 2, NULL, A(REDUCE) },
	{ NULL, 0, -1, "Rmsnorm2dFusedAddEnum", A(ADD) },
	{ NULL, 0, -1, "Rmsnorm2dFusedQuantEnum", A(QUANT) },
	{ NULL, 0, -1, "Layernorm2dFusedAddEnum", A(ADD) },
	{ NULL, 0, -1, "Layernorm2dFusedQuantEnum", A(QUANT) },
};

const size_t classify_n_flags = sizeof classify_flags / sizeof classify_flags[0];

const struct op_entry classify_aten_ops[] = {
	{ "pow", "pow", CLASS_ELEMENTWISE, A(OTHER) },
	{ "mean", "mean", CLASS_REDUCE, A(REDUCE) },
	{ "rsqrt", "rsqrt", CLASS_ELEMENTWISE, A(OTHER) },
	{ "sqrt", "sqrt", CLASS_ELEMENTWISE, A(OTHER) },
	{ "mul", "mul", CLASS_ELEMENTWISE, A(MUL) },
	{ "add", "add", CLASS_ELEMENTWISE, A(ADD) },
	{ "sub", "sub", CLASS_ELEMENTWISE, A(ADD) },
	{ "rsub", "sub", CLASS_ELEMENTWISE, A(ADD) },
	{ "div", "div", CLASS_ELEMENTWISE, A(OTHER) },
	{ "floor_divide", "div", CLASS_ELEMENTWISE, A(OTHER) },
	{ "neg", "neg", CLASS_ELEMENTWISE, A(OTHER) },
	{ "exp", "exp", CLASS_ELEMENTWISE, A(OTHER) },
	{ "log", "log", CLASS_ELEMENTWISE, A(OTHER) },
	{ "cos", "cos", CLASS_ELEMENTWISE, A(OTHER) },
	{ "sin", "sin", CLASS_ELEMENTWISE, A(OTHER) },
	{ "tanh", "tanh", CLASS_ELEMENTWISE, A(OTHER) },
	{ "where", "where", CLASS_ELEMENTWISE, A(OTHER) },
	{ "masked_fill", "masked_fill", CLASS_ELEMENTWISE, A(OTHER) },
	{ "clamp", "clamp", CLASS_ELEMENTWISE, A(OTHER) },
	{ "arange", "arange", CLASS_ELEMENTWISE, A(OTHER) },
	{ "eq", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "ne", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "lt", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "le", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "gt", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "ge", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "random", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "uniform", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "normal", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "silu", "silu", CLASS_ACTIVATION, A(SILU) },
	{ "gelu", "gelu", CLASS_ACTIVATION, A(GELU) },
	{ "relu", "relu", CLASS_ACTIVATION, A(ACT) },
	{ "sigmoid", "sigmoid", CLASS_ACTIVATION, A(ACT) },
	{ "copy", "copy", CLASS_COPY, A(COPY) },
	{ "to_copy", "cast", CLASS_ELEMENTWISE, A(CAST) },
	{ "cat", "cat", CLASS_COPY, A(COPY) },
	{ "fill", "fill", CLASS_COPY, A(COPY) },
	{ "zero", "fill", CLASS_COPY, A(COPY) },
	{ "index", "index", CLASS_COPY, A(COPY) },
	{ "index_put", "index_put", CLASS_COPY, A(COPY) },
	{ "index_put_impl", "index_put", CLASS_COPY, A(COPY) },
	{ "gather", "gather", CLASS_COPY, A(COPY) },
	{ "scatter", "scatter", CLASS_COPY, A(COPY) },
	{ "scatter_add", "scatter", CLASS_COPY, A(COPY) },
	{ "index_add", "scatter", CLASS_COPY, A(COPY) },
	{ "index_select", "index_select", CLASS_EMBEDDING, A(EMBEDDING) },
	{ "embedding", "embedding", CLASS_EMBEDDING, A(EMBEDDING) },
	{ "embedding_dense_backward", "embedding", CLASS_EMBEDDING, A(EMBEDDING) | A(GRAD) },
	{ "softmax", "softmax", CLASS_REDUCE, A(SOFTMAX) },
	{ "log_softmax", "softmax", CLASS_REDUCE, A(SOFTMAX) },
	{ "sum", "sum", CLASS_REDUCE, A(REDUCE) },
	{ "cumsum", "cumsum", CLASS_REDUCE, A(REDUCE) },
	{ "all", "all", CLASS_REDUCE, A(REDUCE) },
	{ "any", "any", CLASS_REDUCE, A(REDUCE) },
	{ "max", "max", CLASS_REDUCE, A(REDUCE) },
	{ "amax", "max", CLASS_REDUCE, A(REDUCE) },
	{ "min", "min", CLASS_REDUCE, A(REDUCE) },
	{ "histc", "histc", CLASS_REDUCE, A(REDUCE) },
	{ "argmax", "argmax", CLASS_SAMPLING, A(SAMPLE) },
	{ "multinomial", "sample", CLASS_SAMPLING, A(SAMPLE) },
	{ "topk", "topk", CLASS_SORT, A(TOPK) },
	{ "sort", "sort", CLASS_SORT, A(OTHER) },
	{ "mm", "mm", CLASS_GEMM, A(GEMM) },
	{ "bmm", "bmm", CLASS_GEMM, A(GEMM) },
	{ "addmm", "addmm", CLASS_GEMM, A(GEMM) },
	{ "baddbmm", "bmm", CLASS_GEMM, A(GEMM) },
	{ "matmul", "mm", CLASS_GEMM, A(GEMM) },
	{ "linear", "mm", CLASS_GEMM, A(GEMM) },
	{ "scaled_mm", "mm", CLASS_GEMM, A(GEMM) },
	{ "grouped_mm", NULL, CLASS_MOE_GEMM, A(MOE_GEMM) },
	{ "layer_norm", "layer_norm", CLASS_NORM, A(LAYERNORM) },
	{ "native_layer_norm", "layer_norm", CLASS_NORM, A(LAYERNORM) },
	{ "native_layer_norm_backward", "layer_norm", CLASS_NORM, A(LAYERNORM) | A(GRAD) },
	{ "rms_norm", "rms_norm", CLASS_NORM, A(RMSNORM) },
	{ "fused_rms_norm", "rms_norm", CLASS_NORM, A(RMSNORM) },
	{ "flash_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "efficient_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "cudnn_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "scaled_dot_product_attention", NULL, CLASS_ATTENTION, A(ATTENTION) },
};

const size_t classify_n_aten_ops = sizeof classify_aten_ops / sizeof classify_aten_ops[0];
/* clang-format on */
