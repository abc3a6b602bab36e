/* chains.c — the catalogue of fusible chains (classify.h, struct fusible_chain): the built-in
 * entries, written in the rules-file format and read by the same parser as a user's
 * "chain" lines.
 *
 * An entry is a sequence of atoms that programs run as separate adjacent kernels over the same
 * tensor, and that public libraries run as one kernel. Each entry names those kernels; where
 * each is defined in its library's sources is in the comment above it (paths as of the
 * libraries' sources as stored in 2026). A LayerNorm backward as separate kernels is no entry:
 * apex's own (csrc/layer_norm_cuda_kernel.cu) launches three. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"

/* One line per entry: chain ELEMENT... [between=CLASS,...] known=KERNEL,... An element is
 * atoms joined by + (rmsnorm, add+rmsnorm) or a class (moe_finalize). */
static const char *const builtin_chains[] = {
	/* A residual add and the norm after it (the pre-norm of every decoder layer but the
	 * first, the final norm). vLLM csrc/layernorm_kernels.cu fused_add_rms_norm_kernel;
	 * FlashInfer include/flashinfer/norm.cuh FusedAddRMSNormKernel; sgl-kernel
	 * csrc/elementwise/fused_add_rms_norm_kernel.cu sgl_fused_add_rmsnorm; aiter
	 * csrc/py_itfs_ck/rmsnorm_ck_kernels.cu rmsnorm2d_with_add. */
	"chain add rmsnorm known=vllm:fused_add_rms_norm,flashinfer:FusedAddRMSNorm,"
	"sgl_kernel:fused_add_rmsnorm,aiter:rmsnorm2d_fwd_with_add",
	/* aiter csrc/py_itfs_ck/norm_kernels.cu layernorm2d_with_add. */
	"chain add layernorm known=aiter:layernorm2d_fwd_with_add",
	/* The norm and the quantization of its output for an FP8 or INT8 GEMM: vLLM
	 * csrc/layernorm_quant_kernels.cu rms_norm_static_fp8_quant_kernel,
	 * fused_add_rms_norm_static_fp8_quant_kernel; csrc/quantization/fused_kernels/
	 * fused_layernorm_dynamic_per_token_quant.cu rms_norm_dynamic_per_token_quant;
	 * FlashInfer include/flashinfer/norm.cuh RMSNormQuantKernel, FusedAddRMSNormQuantKernel;
	 * aiter csrc/kernels/rmsnorm_quant_kernels.cu add_rmsnorm_quant_kernel,
	 * csrc/py_itfs_ck/rmsnorm_ck_kernels.cu rmsnorm2d_with_(add_)dynamicquant. */
	"chain add rmsnorm quant known=vllm:fused_add_rms_norm_static_fp8_quant,"
	"flashinfer:FusedAddRMSNormQuant,aiter:add_rmsnorm_quant,"
	"aiter:rmsnorm2d_fwd_with_add_dynamicquant",
	"chain rmsnorm quant known=vllm:rms_norm_static_fp8_quant,"
	"vllm:rms_norm_dynamic_per_token_quant,flashinfer:RMSNormQuant,"
	"aiter:rmsnorm2d_fwd_with_dynamicquant",
	/* The gated MLP: SiLU (or GELU) of the gate projection times the up projection; eager
	 * code runs the up GEMM between them (gate GEMM, silu, up GEMM, mul). vLLM
	 * csrc/activation_kernels.cu act_and_mul_kernel (silu_and_mul, gelu_and_mul,
	 * gelu_tanh_and_mul); FlashInfer include/flashinfer/activation.cuh act_and_mul_kernel;
	 * sgl-kernel csrc/elementwise/activation.cu; Liger src/liger_kernel/ops/swiglu.py
	 * _swiglu_forward_kernel. */
	"chain silu mul between=GEMM known=vllm:silu_and_mul,flashinfer:silu_and_mul,"
	"sgl_kernel:silu_and_mul,liger:swiglu",
	"chain gelu mul between=GEMM known=vllm:gelu_and_mul,vllm:gelu_tanh_and_mul,"
	"flashinfer:gelu_tanh_and_mul,sgl_kernel:gelu_tanh_and_mul",
	/* vLLM csrc/activation_quant_kernels.cu act_and_mul_quant_kernel (silu_and_mul_quant). */
	"chain silu mul quant between=GEMM known=vllm:silu_and_mul_quant",
	/* Qwen3's per-head q and k RMSNorm before RoPE, and the cache write after it: vLLM
	 * csrc/fused_qknorm_rope_kernel.cu fused_qk_norm_rope; TensorRT-LLM
	 * cpp/tensorrt_llm/kernels/fusedQKNormRopeKernel.cu fusedQKNormRopeKernel; aiter
	 * csrc/kernels/fused_qk_norm_rope_cache_quant.cu fused_qk_norm_rope_cache_quant_shuffle
	 * (with the KV-cache write). A copy (.contiguous()) may run before each norm. */
	"chain rmsnorm rmsnorm rope kv_write between=Copy "
	"known=aiter:fused_qk_norm_rope_cache_quant_shuffle",
	"chain rmsnorm rmsnorm rope between=Copy known=vllm:fused_qk_norm_rope,"
	"tensorrt_llm:fusedQKNormRope",
	/* RoPE and the KV-cache write: sgl-kernel csrc/elementwise/rope.cu
	 * apply_rope_pos_ids_cos_sin_cache with k_buffer/v_buffer (pos_enc.cuh
	 * BatchQKApplyRotaryPosIdsCosSinCacheEnhancedKernel); TensorRT-LLM
	 * cpp/tensorrt_llm/kernels/unfusedAttentionKernels.h invokeQKVPreprocessing (bias, RoPE
	 * and KV-cache append in place); aiter fused_qk_norm_rope_cache_quant_shuffle. */
	"chain rope kv_write known=sgl_kernel:apply_rope_with_cos_sin_cache_inplace(kv_buffer),"
	"tensorrt_llm:invokeQKVPreprocessing,aiter:fused_qk_norm_rope_cache_quant_shuffle",
	/* MoE routing: the router's softmax and top-k (with the cast to float32 that softmax's
	 * dtype= launches). vLLM csrc/moe/topk_softmax_kernels.cu topkGatingSoftmax; sgl-kernel
	 * csrc/moe/moe_topk_softmax_kernels.cu topk_softmax; aiter
	 * csrc/kernels/topk_softmax_kernels.cu topk_softmax. */
	"chain cast softmax topk known=vllm:topk_softmax,sgl_kernel:topk_softmax,"
	"aiter:topk_softmax",
	"chain softmax topk known=vllm:topk_softmax,sgl_kernel:topk_softmax,aiter:topk_softmax",
	/* The experts' GEMM and their activation, and the second GEMM and the finalize (the
	 * unpermute and weighted sum): TensorRT-LLM cpp/tensorrt_llm/kernels/cutlass_kernels/
	 * moe_gemm/moe_kernels.cu (moeGemmBiasAct; the FINALIZE epilogue fusion of gemm2). */
	"chain moe_gemm silu known=tensorrt_llm:moeGemmBiasAct",
	"chain moe_gemm act known=tensorrt_llm:moeGemmBiasAct",
	"chain moe_gemm moe_finalize known=tensorrt_llm:moe_gemm(FINALIZE_epilogue)",
	/* Batch norm and the activation after it: cuDNN
	 * cudnnBatchNormalizationForwardTrainingEx with CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
	 * MIOpen's fusion plans (batch norm and activation). */
	"chain batchnorm act known=cudnn:BatchNormalizationForwardTrainingEx(BN_ACTIVATION),"
	"miopen:fusion_plan(BatchNorm+Activation)",
	/* A GEMM, its bias and its activation: PyTorch aten/src/ATen/native/cuda/Blas.cpp
	 * addmm_activation_out_cuda (cuBLASLt's bias and GELU or ReLU epilogue); flash-attn
	 * csrc/fused_dense_lib/fused_dense_cuda.cu gemm_bias_act_lt. */
	"chain gemm add gelu known=torch:_addmm_activation,flash_attn:gemm_bias_act_lt",
	"chain gemm gelu known=torch:_addmm_activation,flash_attn:gemm_bias_act_lt",
	/* One operation as several eager kernels (structure.h, STEP_RUN): an RMSNorm as pow,
	 * mean, add, rsqrt, mul; a RoPE as mul, neg, cat, mul, add for q and k (or the cos/sin
	 * table). vLLM csrc/layernorm_kernels.cu rms_norm_kernel, csrc/pos_encoding_kernels.cu
	 * rotary_embedding_kernel; FlashInfer include/flashinfer/norm.cuh RMSNormKernel; aiter
	 * csrc/py_itfs_ck/rmsnorm_ck_kernels.cu rmsnorm2d; Liger src/liger_kernel/ops/
	 * rms_norm.py _rms_norm_forward, rope.py _triton_rope. */
	"chain rmsnorm known=vllm:rms_norm,flashinfer:RMSNorm,aiter:rmsnorm2d_fwd,liger:rms_norm",
	"chain layernorm known=aiter:layernorm2d_fwd,liger:layer_norm",
	"chain rope "
	"known=vllm:rotary_embedding,liger:rope,sgl_kernel:apply_rope_pos_ids_cos_sin_cache",
};

/* A chain element: atoms joined by + ("rmsnorm", "add+rmsnorm") into *atoms, or a class
 * ("moe_finalize") into *cls (1 + the class). -1 with msg set when it is neither. */
static int parse_element(const char *s, atom_set *atoms, uint8_t *cls, char *msg, size_t cap)
{
	int c;

	*atoms = 0;
	*cls = 0;
	for (const char *a = s; *a;) {
		size_t len = strcspn(a, "+");
		int at = atom_from_name(a, len);

		if (at < 0) {
			if (!strchr(s, '+') && (c = class_from_name(s)) >= 0) {
				*atoms = 0;
				*cls = (uint8_t)(c + 1);
				return 0;
			}
			snprintf(msg, cap, "unknown atom '%.*s'", (int)len, a);
			return -1;
		}
		*atoms |= ATOM_BIT(at);
		a += len;
		if (*a)
			a++;
	}
	if (!*atoms) {
		snprintf(msg, cap, "empty chain element");
		return -1;
	}
	return 0;
}

int chain_parse(char **fields, size_t n, const char *origin, struct fusible_chain *out, char *msg,
		size_t cap)
{
	struct fusible_chain c = { 0 };
	size_t i = 0;

	for (; i < n && !strchr(fields[i], '='); i++) {
		if (c.n == CHAIN_MAX) {
			snprintf(msg, cap, "a chain has at most %d elements", CHAIN_MAX);
			return -1;
		}
		if (parse_element(fields[i], &c.elem[c.n], &c.elem_cls[c.n], msg, cap) < 0)
			return -1;
		c.n++;
	}
	if (!c.n) {
		snprintf(msg, cap, "expected chain ATOMS [ATOMS...] [FLAGS]");
		return -1;
	}
	for (; i < n; i++) {
		const char *f = fields[i];

		if (strncmp(f, "between=", 8) == 0 && f[8]) {
			char buf[64];

			for (const char *p = f + 8; *p;) {
				size_t len = strcspn(p, ",");
				int cls;

				snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), p);
				if ((cls = class_from_name(buf)) < 0) {
					snprintf(msg, cap, "unknown class '%s'", buf);
					return -1;
				}
				c.between |= 1u << cls;
				p += len;
				if (*p)
					p++;
			}
		} else if (strncmp(f, "known=", 6) == 0 && f[6]) {
			free(c.known);
			c.known = xstrdup(f + 6);
		} else {
			snprintf(msg, cap, "unknown flag '%s' (expected %s)", f,
				 "between=CLASS,... or known=KERNEL,...");
			free(c.known);
			return -1;
		}
	}
	c.origin = xstrdup(origin);
	*out = c;
	return 0;
}

/* Split line (modified in place) into blank-separated fields; returns how many (at most max).
 * strtok_r(): classifiers are built on several threads at once (strtok()'s state is the
 * process's: one thread's fields ended up in another's line). */
static size_t split_fields(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *p = strtok_r(line, " \t", &save); p && n < max; p = strtok_r(NULL, " \t", &save))
		f[n++] = p;
	return n;
}

void chains_add_builtin(struct fusible_chain **v, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < sizeof builtin_chains / sizeof builtin_chains[0]; i++) {
		char *line = xstrdup(builtin_chains[i]), *f[16], msg[256], origin[32];
		struct fusible_chain c;
		size_t nf = split_fields(line, f, 16);

		snprintf(origin, sizeof origin, "built-in #%zu", i + 1);
		if (nf < 2 || chain_parse(f + 1, nf - 1, origin, &c, msg, sizeof msg) < 0)
			fprintf(stderr, "%s: %s\n", origin, msg),
				abort(); /* the table is wrong: tests/check_opportunity.c reads it */
		VEC_PUSH(*v, *n, *cap, c);
		free(line);
	}
}

void chains_free(struct fusible_chain *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].known);
		free(v[i].origin);
	}
	free(v);
}

/* The built-in catalogue alone, for callers without a classifier. */
static struct fusible_chain *builtin_v;
static size_t builtin_n;

static void builtin_once(void)
{
	size_t cap = 0;

	chains_add_builtin(&builtin_v, &builtin_n, &cap);
}

size_t chains_builtin(const struct fusible_chain **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, builtin_once);
	*out = builtin_v;
	return builtin_n;
}

char *chain_element_text(const struct fusible_chain *c, int e, char *buf, size_t cap)
{
	if (c->elem_cls[e])
		snprintf(buf, cap, "%s", class_name((enum op_class)(c->elem_cls[e] - 1)));
	else
		atoms_format(c->elem[e], "+", buf, cap);
	return buf;
}

char *chain_format(const struct fusible_chain *c, char *buf, size_t cap)
{
	size_t len = 0;

	if (!cap)
		return buf;
	buf[0] = '\0';
	for (uint8_t i = 0; i < c->n && len < cap; i++) {
		char a[128];

		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " -> " : "",
					chain_element_text(c, i, a, sizeof a));
	}
	return buf;
}
