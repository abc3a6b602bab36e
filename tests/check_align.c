/* check_align.c — the DP alignment and the fusion absorption on hand-built step sequences
 * shaped like the real traces (eager vs compiled Llama, MI300X vs B300). */
#include "testutil.h"

#include <time.h>

#include "fusediff/align.h"
#include "fusediff/structure.h"

#define A(x) ATOM_BIT(ATOM_##x)

/* Steps by role, named like the kernels they stand for. */
static const struct align_item GEMM_QKV = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_256x128" };
static const struct align_item GEMM_KV = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_128x64" };
static const struct align_item GEMM_O = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_256x128" };
static const struct align_item GEMM_UP = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_176x128" };
static const struct align_item GEMM_DOWN = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_256x128" };
static const struct align_item ATTN = { CLASS_ATTENTION, STEP_SINGLE, 1, A(ATTENTION),
					"cudnn_sdpa" };
static const struct align_item ROPE_RUN = { CLASS_ROPE, STEP_RUN, 6, A(ROPE), "mul" };
static const struct align_item ROPE_TRITON = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE) | A(CAST),
					       "triton_poi_rope" };
static const struct align_item ADD = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(ADD),
				       "CUDAFunctor_add" };
static const struct align_item NORM_RUN = { CLASS_NORM, STEP_RUN, 8, A(RMSNORM),
					    "pow_tensor_scalar" };
static const struct align_item ADD_NORM_TRITON = { CLASS_NORM, STEP_SINGLE, 1,
						   A(ADD) | A(RMSNORM) | A(CAST),
						   "triton_red_fused_add_mean_mul_pow_rsqrt" };
static const struct align_item SILU = { CLASS_ACTIVATION, STEP_SINGLE, 1, A(SILU), "silu_kernel" };
static const struct align_item MUL = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(MUL), "MulFunctor" };
static const struct align_item MUL_SILU = { CLASS_ACTIVATION, STEP_SINGLE, 1, A(SILU) | A(MUL),
					    "triton_poi_fused_mul_silu" };
static const struct align_item MEMSET = { CLASS_COPY, STEP_SINGLE, 1, A(COPY), "Memset" };

static void align_one(const struct align_item *a, size_t na, const struct align_item *b, size_t nb,
		      struct align_layer *l)
{
	memset(l, 0, sizeof *l);
	l->item[0] = a;
	l->item[1] = b;
	l->n_item[0] = na;
	l->n_item[1] = nb;
	align_steps(a, na, b, nb, NULL, &l->al);
}

/* Every step of both sides appears exactly once, in order within each side. */
static void check_cover(const struct align_layer *l)
{
	for (int s = 0; s < 2; s++) {
		uint8_t *seen = calloc(l->n_item[s] + 1, 1);

		for (size_t i = 0; i < l->al.n; i++)
			for (uint32_t k = 0; k < l->al.e[i].n[s]; k++) {
				uint32_t st = l->al.e[i].step[s][k];

				ck_assert_uint_lt(st, l->n_item[s]);
				ck_assert_msg(!seen[st], "step %u of side %d twice", st, s);
				seen[st] = 1;
			}
		for (size_t i = 0; i < l->n_item[s]; i++)
			ck_assert_msg(seen[i], "step %zu of side %d missing", i, s);
		free(seen);
	}
}

static const struct align_entry *entry_with(const struct align_layer *l, int s, uint32_t step)
{
	for (size_t i = 0; i < l->al.n; i++)
		for (uint32_t k = 0; k < l->al.e[i].n[s]; k++)
			if (l->al.e[i].step[s][k] == step)
				return &l->al.e[i];
	ck_abort_msg("step %u of side %d in no entry", step, s);
	return NULL;
}

static void assert_match(const struct align_layer *l, uint32_t a, uint32_t b)
{
	const struct align_entry *e = entry_with(l, 0, a);

	ck_assert_int_eq(e->kind, ALIGN_MATCH);
	ck_assert_uint_eq(e->n[0], 1);
	ck_assert_uint_eq(e->n[1], 1);
	ck_assert_uint_eq(e->step[1][0], b);
}

START_TEST(test_identical)
{
	const struct align_item seq[] = { NORM_RUN, GEMM_QKV, GEMM_KV, GEMM_KV,	  ROPE_RUN,
					  ATTN,	    GEMM_O,   ADD,     NORM_RUN,  GEMM_UP,
					  SILU,	    GEMM_UP,  MUL,     GEMM_DOWN, ADD };
	size_t n = sizeof seq / sizeof seq[0];
	struct align_layer l;

	align_one(seq, n, seq, n, &l);
	align_absorb(&l, 1, 0);
	ck_assert_uint_eq(l.al.n, n);
	for (uint32_t i = 0; i < n; i++)
		assert_match(&l, i, i);
	alignment_clear(&l.al);
}
END_TEST

/* One extra kernel on one side is one gap; the later pairs do not shift. */
START_TEST(test_extra_kernel_no_shift)
{
	const struct align_item a[] = { GEMM_QKV, GEMM_KV, GEMM_KV, ROPE_RUN,
					ATTN,	  GEMM_O,  ADD,	    NORM_RUN };
	const struct align_item b[] = { GEMM_QKV, GEMM_KV, GEMM_KV, ROPE_RUN, MEMSET,
					ATTN,	  GEMM_O,  ADD,	    NORM_RUN };
	struct align_layer l;

	align_one(a, 8, b, 9, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	for (uint32_t i = 0; i < 4; i++)
		assert_match(&l, i, i);
	for (uint32_t i = 4; i < 8; i++)
		assert_match(&l, i, i + 1);
	ck_assert_int_eq(entry_with(&l, 1, 4)->kind, ALIGN_B_ONLY);
	ck_assert_uint_eq(l.al.n, 9);
	alignment_clear(&l.al);
}
END_TEST

/* Eager gate GEMM, silu, up GEMM, mul against compiled gate GEMM, up GEMM, mul·silu: the
 * fused entry names both silu and mul, the GEMMs match. */
START_TEST(test_silu_mul_not_adjacent)
{
	const struct align_item a[] = { MEMSET, GEMM_UP, SILU, MEMSET, GEMM_UP, MUL, GEMM_DOWN };
	const struct align_item b[] = { MEMSET, GEMM_UP, MEMSET, GEMM_UP, MUL_SILU, GEMM_DOWN };
	struct align_layer l;
	const struct align_entry *e;

	align_one(a, 7, b, 6, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	assert_match(&l, 1, 1);
	assert_match(&l, 4, 3);
	assert_match(&l, 6, 5);
	e = entry_with(&l, 1, 4);
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_int_eq(e->fused_side, 1);
	ck_assert_uint_eq(e->n[0], 2);
	ck_assert_uint_eq(e->step[0][0], 2); /* silu */
	ck_assert_uint_eq(e->step[0][1], 5); /* mul */
	ck_assert_ptr_eq(entry_with(&l, 0, 2), e);
	alignment_clear(&l.al);
}
END_TEST

/* Residual add then an eager RMSNorm run against one Triton add+RMSNorm kernel. */
START_TEST(test_add_rmsnorm_run)
{
	const struct align_item a[] = { ATTN, GEMM_O, ADD, NORM_RUN, MEMSET, GEMM_UP };
	const struct align_item b[] = { ATTN, GEMM_O, ADD_NORM_TRITON, MEMSET, GEMM_UP };
	struct align_layer l;
	const struct align_entry *e;

	align_one(a, 6, b, 5, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	assert_match(&l, 0, 0);
	assert_match(&l, 1, 1);
	assert_match(&l, 5, 4);
	e = entry_with(&l, 1, 2);
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_int_eq(e->fused_side, 1);
	ck_assert_uint_eq(e->n[0], 2);
	ck_assert_uint_eq(e->step[0][0], 2);
	ck_assert_uint_eq(e->step[0][1], 3);
	alignment_clear(&l.al);
}
END_TEST

/* An eager RMSNorm run (8 kernels) against one fused kernel is a fusion even one to one; the
 * same run on both sides is a match. */
START_TEST(test_run_vs_single)
{
	const struct align_item a[] = { NORM_RUN, GEMM_QKV };
	const struct align_item b[] = { ADD_NORM_TRITON, GEMM_QKV };
	struct align_layer l;

	align_one(a, 2, b, 2, &l);
	align_absorb(&l, 1, 0);
	ck_assert_int_eq(entry_with(&l, 0, 0)->kind, ALIGN_FUSED);
	ck_assert_int_eq(entry_with(&l, 0, 0)->fused_side, 1);
	assert_match(&l, 1, 1);
	alignment_clear(&l.al);

	align_one(a, 2, a, 2, &l);
	align_absorb(&l, 1, 0);
	assert_match(&l, 0, 0);
	assert_match(&l, 1, 1);
	alignment_clear(&l.al);
}
END_TEST

/* The residual add closes layer L on the eager side; its work is inside the first kernel of
 * layer L+1 on the compiled side. Nothing pairs across a layer boundary: the add stays A's own
 * in layer L, and layer L+1's norm run against the fused kernel is a fusion by itself. */
START_TEST(test_never_across_layers)
{
	const struct align_item a0[] = { GEMM_UP, SILU, GEMM_UP, MUL, GEMM_DOWN, ADD };
	const struct align_item b0[] = { GEMM_UP, GEMM_UP, MUL_SILU, GEMM_DOWN };
	const struct align_item a1[] = { NORM_RUN, GEMM_QKV, GEMM_KV, GEMM_KV };
	const struct align_item b1[] = { ADD_NORM_TRITON, GEMM_QKV, GEMM_KV, GEMM_KV };
	struct align_layer l[2];
	const struct align_entry *add, *norm;

	align_one(a0, 6, b0, 4, &l[0]);
	align_one(a1, 4, b1, 4, &l[1]);
	align_absorb(l, 2, 0);
	check_cover(&l[0]);
	check_cover(&l[1]);
	add = entry_with(&l[0], 0, 5);
	ck_assert_int_eq(add->kind, ALIGN_A_ONLY);
	norm = entry_with(&l[1], 0, 0);
	ck_assert_int_eq(norm->kind, ALIGN_FUSED);
	ck_assert_int_eq(norm->fused_side, 1);
	ck_assert_uint_eq(norm->n[0], 1);
	ck_assert_int_eq(entry_with(&l[0], 0, 1)->kind, ALIGN_FUSED); /* silu into mul·silu */
	assert_match(&l[1], 1, 1);
	assert_match(&l[1], 2, 2);
	assert_match(&l[1], 3, 3);
	alignment_clear(&l[0].al);
	alignment_clear(&l[1].al);
}
END_TEST

/* MI300X vs B300 decode layer: add+RMSNorm(+quant) kernels pair with each other, split-K GEMM
 * (GEMM + splitKreduce, one STEP_AUX) and paged attention (QKV + reduce) are matches. */
START_TEST(test_sglang_layer)
{
	const struct align_item amd_norm = { CLASS_NORM, STEP_SINGLE, 1,
					     A(ADD) | A(RMSNORM) | A(QUANT),
					     "add_rmsnorm_quant_kernel" };
	const struct align_item nv_norm = { CLASS_NORM, STEP_SINGLE, 1, A(ADD) | A(RMSNORM),
					    "FusedAddRMSNormKernel" };
	const struct align_item amd_gemm = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM),
					     "Cijk_Alik_Bljk" };
	const struct align_item nv_gemm = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM), "nvjet_sm103" };
	const struct align_item nv_splitk = { CLASS_GEMM, STEP_AUX, 1, A(GEMM),
					      "nvjet_sm103_splitK" };
	const struct align_item rope = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE),
					 "rotary_embedding_kernel" };
	const struct align_item kv = { CLASS_KV_WRITE, STEP_SINGLE, 1, A(KV_WRITE),
				       "store_kvcache" };
	const struct align_item amd_attn = { CLASS_ATTENTION, STEP_AUX, 1, A(ATTENTION),
					     "paged_attention_ll4mi" };
	const struct align_item nv_attn = { CLASS_ATTENTION, STEP_SINGLE, 1, A(ATTENTION),
					    "fmhaSm100f" };
	const struct align_item amd_act = { CLASS_ACTIVATION, STEP_SINGLE, 1, A(SILU) | A(MUL),
					    "act_and_mul_kernel" };
	const struct align_item nv_act = { CLASS_ACTIVATION, STEP_SINGLE, 1, A(SILU) | A(MUL),
					   "act_and_mul_kernel" };
	const struct align_item a[] = { amd_norm, amd_gemm, rope,     kv,      amd_attn,
					amd_gemm, amd_norm, amd_gemm, amd_act, amd_gemm };
	const struct align_item b[] = { nv_norm, nv_gemm, rope,	   kv,	   nv_attn,
					nv_gemm, nv_norm, nv_gemm, nv_act, nv_splitk };
	struct align_layer l;

	align_one(a, 10, b, 10, &l);
	align_absorb(&l, 1, 0);
	ck_assert_uint_eq(l.al.n, 10);
	for (uint32_t i = 0; i < 10; i++)
		assert_match(&l, i, i);
	alignment_clear(&l.al);
}
END_TEST

/* Three projections on both sides match one to one; against one fused QKV GEMM, one matches
 * and the other two are gaps (the same work launched more often is a partial fusion, which
 * comparison.c reports; it is not a fused move). */
START_TEST(test_qkv)
{
	const struct align_item a[] = { NORM_RUN, GEMM_QKV, GEMM_KV, GEMM_KV, ROPE_RUN };
	const struct align_item b[] = { NORM_RUN, GEMM_QKV, ROPE_RUN };
	struct align_layer l;

	align_one(a, 5, a, 5, &l);
	align_absorb(&l, 1, 0);
	for (uint32_t i = 0; i < 5; i++)
		assert_match(&l, i, i);
	alignment_clear(&l.al);

	align_one(a, 5, b, 3, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	assert_match(&l, 0, 0);
	assert_match(&l, 1, 1);
	ck_assert_int_eq(entry_with(&l, 0, 2)->kind, ALIGN_A_ONLY);
	ck_assert_int_eq(entry_with(&l, 0, 3)->kind, ALIGN_A_ONLY);
	assert_match(&l, 4, 2);
	alignment_clear(&l.al);
}
END_TEST

/* MI300X layer 8 launches paged attention twice: one matches, the other is a gap (not a fused
 * move that would make the attention pair a fusion). */
START_TEST(test_duplicate_is_not_fused)
{
	const struct align_item attn1 = { CLASS_ATTENTION, STEP_SINGLE, 1, A(ATTENTION),
					  "paged_attention_QKV" };
	const struct align_item attn2 = { CLASS_ATTENTION, STEP_AUX, 1, A(ATTENTION),
					  "paged_attention_QKV" };
	const struct align_item a[] = { GEMM_QKV, attn1, attn2, GEMM_O };
	const struct align_item b[] = { GEMM_QKV, ATTN, GEMM_O };
	struct align_layer l;

	align_one(a, 4, b, 3, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	for (size_t i = 0; i < l.al.n; i++)
		ck_assert_int_ne(l.al.e[i].kind, ALIGN_FUSED);
	ck_assert_int_eq(entry_with(&l, 1, 1)->kind, ALIGN_MATCH);
	alignment_clear(&l.al);
}
END_TEST

/* RoPE: an eager run against one Triton kernel is a fusion; unrelated unmatched steps are never
 * absorbed (a memset is not inside a GEMM). */
START_TEST(test_no_false_absorb)
{
	const struct align_item a[] = { GEMM_QKV, MEMSET, ROPE_RUN, ATTN };
	const struct align_item b[] = { GEMM_QKV, ROPE_TRITON, ATTN };
	struct align_layer l;

	align_one(a, 4, b, 3, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	assert_match(&l, 0, 0);
	ck_assert_int_eq(entry_with(&l, 0, 1)->kind, ALIGN_A_ONLY);
	ck_assert_int_eq(entry_with(&l, 0, 2)->kind, ALIGN_FUSED);
	assert_match(&l, 3, 2);
	alignment_clear(&l.al);
}
END_TEST

/* HF's eager RoPE is two rotations, q then k (a run of five kernels each). Against Inductor's
 * q- and k-RoPE kernels each rotation pairs with its own kernel: two fusions of five kernels
 * into one, the v expand and the mask beside them one-sided (compiled Llama prefill). Against
 * one kernel that rotates both (vLLM's rotary_embedding) both rotations join its entry. */
START_TEST(test_rope_per_rotation)
{
	static const struct align_item ROT = { CLASS_ROPE, STEP_RUN, 5, A(ROPE), "MulFunctor" };
	static const struct align_item Q_ROPE = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE) | A(CAST),
						  "triton_poi_fused_sdpa_where_4" };
	static const struct align_item K_ROPE = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE) | A(CAST),
						  "triton_poi_fused_sdpa_where_5" };
	static const struct align_item V_EXPAND = { CLASS_COPY, STEP_SINGLE, 1, A(COPY),
						    "triton_poi_fused_sdpa_where_6" };
	static const struct align_item MASK = { CLASS_ELEMENTWISE, STEP_SINGLE, 1,
						A(ADD) | A(MUL) | A(CAST),
						"triton_poi_fused_sdpa_where_7" };
	static const struct align_item BOTH = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE),
						"rotary_embedding_kernel" };
	const struct align_item a[] = { GEMM_KV, ROT, ROT, ATTN };
	const struct align_item b[] = { GEMM_KV, Q_ROPE, K_ROPE, V_EXPAND, MASK, ATTN };
	const struct align_item c[] = { GEMM_KV, BOTH, ATTN };
	struct align_layer l;
	const struct align_entry *e;

	align_one(a, 4, b, 6, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	for (uint32_t r = 1; r <= 2; r++) {
		e = entry_with(&l, 0, r);
		ck_assert_int_eq(e->kind, ALIGN_FUSED);
		ck_assert_int_eq(e->fused_side, 1);
		ck_assert_uint_eq(e->n[0], 1);
		ck_assert_uint_eq(e->n[1], 1);
		ck_assert_uint_eq(e->step[1][0], r);
	}
	ck_assert_int_eq(entry_with(&l, 1, 3)->kind, ALIGN_B_ONLY);
	ck_assert_int_eq(entry_with(&l, 1, 4)->kind, ALIGN_B_ONLY);
	assert_match(&l, 3, 5);
	alignment_clear(&l.al);

	align_one(a, 4, c, 3, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	e = entry_with(&l, 1, 1);
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_int_eq(e->fused_side, 1);
	ck_assert_uint_eq(e->n[0], 2);
	assert_match(&l, 3, 2);
	alignment_clear(&l.al);
}
END_TEST

static void assert_no_fusion(const struct align_layer *l);

/* Qwen3's q and k norms on MI300X (SGLang, tracelens_sglang_qwen3-8b_decode_bs32_mi300x: a
 * strided .contiguous() copy before each of two aiter norm kernels) against one kernel that
 * normalises q and k in place (SGLang's fused_inplace_qknorm on NVIDIA): one fusion that holds
 * both norms and both copies, proved by the norms; the RoPE and KV write stay matched. Two
 * all-reduces in a row against one are the same work done twice, never a fusion; nor are two
 * layer norms against the same layer-norm kernel once (the HTA recsys pair, A100 against V100:
 * "A runs vectorized_layer_norm_kernel as one kernel where B runs 2 kernels (…the same…)"). */
START_TEST(test_qk_norm_with_copies)
{
	static const struct align_item COPY = { CLASS_COPY, STEP_SINGLE, 1, A(COPY),
						"elementwise_kernel_manual_unroll<direct_copy>" };
	static const struct align_item NORM = { CLASS_NORM, STEP_SINGLE, 1, A(RMSNORM),
						"add_rmsnorm_quant_kernel<rmsnorm>" };
	static const struct align_item QKNORM = { CLASS_NORM, STEP_SINGLE, 1, A(RMSNORM),
						  "qknorm_kernel<128, false, __nv_bfloat16>" };
	static const struct align_item ROPE = { CLASS_ROPE, STEP_SINGLE, 1, A(ROPE),
						"rotary_embedding_kernel" };
	static const struct align_item KV = { CLASS_KV_WRITE, STEP_SINGLE, 1, A(KV_WRITE),
					      "store_kvcache" };
	static const struct align_item AR = { CLASS_COMM, STEP_SINGLE, 1, A(COMM),
					      "ncclKernel_AllReduce_RING_LL_Sum_float" };
	const struct align_item a[] = { GEMM_QKV, COPY, NORM, COPY, NORM, ROPE, KV, ATTN };
	const struct align_item b[] = { GEMM_QKV, QKNORM, ROPE, KV, ATTN };
	static const struct align_item LN = { CLASS_NORM, STEP_SINGLE, 1, A(LAYERNORM),
					      "vectorized_layer_norm_kernel" };
	const struct align_item c[] = { GEMM_O, AR, AR, ADD }, d[] = { GEMM_O, AR, ADD };
	const struct align_item g[] = { GEMM_O, LN, LN, ADD }, h[] = { GEMM_O, LN, ADD };
	struct align_layer l;
	const struct align_entry *e;

	align_one(a, 8, b, 5, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	e = entry_with(&l, 1, 1);
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_int_eq(e->fused_side, 1);
	ck_assert_int_eq(e->proof, PROOF_CLASS_WORK);
	ck_assert_uint_eq(e->n[0], 4);
	for (uint32_t k = 0; k < 4; k++)
		ck_assert_uint_eq(e->step[0][k], k + 1);
	assert_match(&l, 5, 2);
	assert_match(&l, 6, 3);
	assert_match(&l, 7, 4);
	alignment_clear(&l.al);

	align_one(c, 4, d, 3, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	assert_no_fusion(&l);
	alignment_clear(&l.al);
	for (int swap = 0; swap < 2; swap++) {
		align_one(swap ? h : g, swap ? 3 : 4, swap ? g : h, swap ? 4 : 3, &l);
		align_absorb(&l, 1, 0);
		check_cover(&l);
		assert_no_fusion(&l);
		alignment_clear(&l.al);
	}
}
END_TEST

/* One fused attention kernel against eager math attention (copies for repeat_kv, bmm, scale,
 * mask, softmax in float and back, bmm): a fusion; the KV-cache concatenation before it and the
 * projections around it stay matched. */
START_TEST(test_math_attention)
{
	const struct align_item cat = { CLASS_COPY, STEP_SINGLE, 1, A(COPY),
					"CatArrayBatchedCopy" };
	const struct align_item copy = { CLASS_COPY, STEP_SINGLE, 1, A(COPY),
					 "direct_copy_kernel_cuda" };
	const struct align_item bmm = { CLASS_GEMM, STEP_AUX, 1, A(GEMM), "nvjet_bmm" };
	const struct align_item scale = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(MUL), "MulFunctor" };
	const struct align_item mask = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(ADD),
					 "CUDAFunctor_add" };
	const struct align_item softmax = { CLASS_REDUCE, STEP_SINGLE, 1, A(SOFTMAX),
					    "softmax_warp_forward" };
	const struct align_item cast = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(CAST),
					 "bfloat16_copy_kernel" };
	struct align_item fused_attn = ATTN;
	struct align_item a[] = { GEMM_QKV, ROPE_RUN, cat, cat, ATTN, GEMM_O };
	const struct align_item b[] = { GEMM_QKV, ROPE_RUN, cat,     cat,  copy, copy, bmm,   scale,
					mask,	  copy,	    softmax, cast, bmm,	 copy, GEMM_O };
	struct align_layer l;
	const struct align_entry *e;

	fused_attn.covers_math_attn = 1; /* B has no attention kernel */
	a[4] = fused_attn;
	align_one(a, 6, b, 15, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	for (uint32_t i = 0; i < 4; i++)
		assert_match(&l, i, i);
	assert_match(&l, 5, 14);
	e = entry_with(&l, 0, 4);
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_int_eq(e->fused_side, 0);
	ck_assert_uint_eq(e->n[1], 10);
	ck_assert_int_eq(e->proof, PROOF_MATH_ATTN);
	alignment_clear(&l.al);

	/* the same attention on both sides, with a workspace copy on one: a match and a gap */
	{
		const struct align_item c[] = { ROPE_RUN, cat, ATTN, GEMM_O };
		const struct align_item d[] = { ROPE_RUN, cat, copy, ATTN, GEMM_O };

		align_one(c, 4, d, 5, &l);
		align_absorb(&l, 1, 0);
		assert_match(&l, 2, 3);
		ck_assert_int_eq(entry_with(&l, 1, 2)->kind, ALIGN_B_ONLY);
		alignment_clear(&l.al);
	}
}
END_TEST

/* Two unknown (class Other) kernels pair up only when their names say they are the same. */
START_TEST(test_other_needs_a_name)
{
	const struct align_item x = { CLASS_OTHER, STEP_SINGLE, 1, A(OTHER), "alpha_kernel_0" };
	const struct align_item y = { CLASS_OTHER, STEP_SINGLE, 1, A(OTHER), "zeta_0" };
	const struct align_item z = { CLASS_OTHER, STEP_SINGLE, 1, A(OTHER), "alpha_kernel_1" };
	const struct align_item a[] = { GEMM_QKV, x, ATTN };
	const struct align_item b[] = { GEMM_QKV, y, ATTN };
	const struct align_item c[] = { GEMM_QKV, z, ATTN };
	struct align_layer l;

	align_one(a, 3, b, 3, &l);
	align_absorb(&l, 1, 0);
	ck_assert_int_eq(entry_with(&l, 0, 1)->kind, ALIGN_A_ONLY);
	ck_assert_int_eq(entry_with(&l, 1, 1)->kind, ALIGN_B_ONLY);
	assert_match(&l, 2, 2);
	alignment_clear(&l.al);

	align_one(a, 3, c, 3, &l);
	align_absorb(&l, 1, 0);
	assert_match(&l, 1, 1);
	alignment_clear(&l.al);
}
END_TEST

START_TEST(test_empty)
{
	const struct align_item a[] = { GEMM_QKV, ATTN };
	struct align_layer l;

	align_one(a, 2, NULL, 0, &l);
	align_absorb(&l, 1, 0);
	ck_assert_uint_eq(l.al.n, 2);
	ck_assert_int_eq(l.al.e[0].kind, ALIGN_A_ONLY);
	ck_assert_int_eq(l.al.e[1].kind, ALIGN_A_ONLY);
	alignment_clear(&l.al);

	align_one(NULL, 0, a, 2, &l);
	align_absorb(&l, 1, 0);
	ck_assert_uint_eq(l.al.n, 2);
	ck_assert_int_eq(l.al.e[1].kind, ALIGN_B_ONLY);
	alignment_clear(&l.al);

	align_one(NULL, 0, NULL, 0, &l);
	align_absorb(&l, 1, 0);
	ck_assert_uint_eq(l.al.n, 0);
	alignment_clear(&l.al);
	align_absorb(NULL, 0, 0);
}
END_TEST

/* A pathological layer (thousands of steps) runs banded, quickly, and still lines up a long
 * repeated sequence with one insertion and one deletion. */
START_TEST(test_banded_large)
{
	const struct align_item unit[] = {
		NORM_RUN, GEMM_QKV, GEMM_KV, ROPE_RUN, ATTN, GEMM_O, ADD
	};
	size_t n = 7 * 700, na = 0, nb = 0;
	struct align_item *a = malloc(n * sizeof *a), *b = malloc((n + 1) * sizeof *b);
	struct align_layer l;
	struct align_opts o = { .max_cells = 400000 };
	clock_t t0 = clock();
	size_t matches = 0;

	for (size_t i = 0; i < n; i++) {
		a[na++] = unit[i % 7];
		if (i == 1000)
			b[nb++] = MEMSET;
		if (i != 3000)
			b[nb++] = unit[i % 7];
	}
	memset(&l, 0, sizeof l);
	l.item[0] = a;
	l.item[1] = b;
	l.n_item[0] = na;
	l.n_item[1] = nb;
	align_steps(a, na, b, nb, &o, &l.al);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	for (size_t i = 0; i < l.al.n; i++)
		if (l.al.e[i].kind == ALIGN_MATCH)
			matches++;
	ck_assert_uint_eq(matches, n - 1);
	assert_match(&l, 999, 999);
	assert_match(&l, 1000, 1001);
	assert_match(&l, 2999, 3000);
	assert_match(&l, 3001, 3001);
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "banded alignment too slow");
	alignment_clear(&l.al);
	free(a);
	free(b);
}
END_TEST

/* Aligning passes of one side: no fused moves. */
START_TEST(test_no_fused_opt)
{
	const struct align_item a[] = { ADD, NORM_RUN };
	const struct align_item b[] = { ADD_NORM_TRITON };
	struct align_opts o = { .no_fused = 1 };
	struct alignment al = { 0 };

	align_steps(a, 2, b, 1, &o, &al);
	for (size_t i = 0; i < al.n; i++)
		ck_assert_int_ne(al.e[i].kind, ALIGN_FUSED);
	alignment_clear(&al);
}
END_TEST

/* Separate q, k and v GEMMs against one QKV GEMM (an SGLang B300 layer against HF eager): one
 * group, merged into one horizontal fusion entry, from counts and order; with shapes recorded,
 * only when they are one input (same M and K) whose N add up to the merged GEMM's. */
START_TEST(test_horizontal_groups)
{
	struct align_item a[] = { NORM_RUN, GEMM_KV, GEMM_KV, GEMM_KV, ROPE_RUN, ATTN, GEMM_O };
	struct align_item b[] = { ADD_NORM_TRITON, GEMM_QKV, ROPE_TRITON, ATTN, GEMM_O };
	struct align_layer l;
	const struct align_entry *e;

	for (int shapes = 0; shapes < 3; shapes++) {
		if (shapes) { /* q: 4096, k and v: 1024 each, from a [16, 4096] input */
			for (int i = 1; i <= 3; i++) {
				a[i].m = 16, a[i].k = 4096, a[i].n = i == 1 ? 4096 : 1024;
			}
			b[1].m = 16, b[1].k = 4096, b[1].n = shapes == 1 ? 6144 : 8192;
		}
		align_group_gemms(a, 7, b, 5);
		align_one(a, 7, b, 5, &l);
		align_absorb(&l, 1, 0);
		check_cover(&l);
		e = entry_with(&l, 0, 1);
		if (shapes < 2) {
			ck_assert_int_eq(e->kind, ALIGN_FUSED);
			ck_assert_int_eq(e->horizontal, 1);
			ck_assert_int_eq(e->fused_side, 1);
			ck_assert_uint_eq(e->n[0], 3);
		} else { /* 4096 + 1024 + 1024 is not 8192: not one merged GEMM */
			ck_assert_int_eq(e->horizontal, 0);
			ck_assert_uint_le(e->n[0], 1);
		}
		assert_match(&l, 6, 4);
		alignment_clear(&l.al);
	}
}
END_TEST

/* No fused entry anywhere in the layer: every entry is a match or one-sided. */
static void assert_no_fusion(const struct align_layer *l)
{
	for (size_t i = 0; i < l->al.n; i++)
		ck_assert_msg(l->al.e[i].kind != ALIGN_FUSED, "entry %zu is fused", i);
}

/* A fusion is a claim with a proof: the unfused kernels must carry the fused kernel's work.
 * Each case is a false finding seen on real pairs; none may be a fusion. */
START_TEST(test_unproven_fusions_rejected)
{
	static const struct align_item FINAL_NORM = { CLASS_NORM, STEP_SINGLE, 1,
						      A(ADD) | A(RMSNORM), "fused_add_rms_norm" };
	static const struct align_item RMS = { CLASS_NORM, STEP_SINGLE, 1, A(RMSNORM),
					       "rms_norm_kernel" };
	struct align_item meta = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(ADD), "index_add_meta" };
	static const struct align_item LM_HEAD = { CLASS_GEMM, STEP_SINGLE, 1, A(GEMM),
						   "nvjet_lm_head" };
	static const struct align_item FILL = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(COPY),
						"FillFunctor" };
	static const struct align_item LN_BWD = { CLASS_NORM, STEP_SINGLE, 1,
						  A(LAYERNORM) | A(GRAD),
						  "layer_norm_grad_input_kernel" };
	static const struct align_item COPY = { CLASS_COPY, STEP_SINGLE, 1, A(COPY),
						"direct_copy_kernel" };
	static const struct align_item TANH_BWD = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(GRAD),
						    "tanh_backward_kernel" };
	static const struct align_item ROPE_FUSED = { CLASS_ROPE, STEP_SINGLE, 1,
						      A(ROPE) | A(MUL) | A(ADD), "rotary_kernel" };
	static const struct align_item K_SMOOTH = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(ADD),
						    "sub_mean_kernel" };
	static const struct align_item SCALE = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(MUL),
						 "scale_prep_kernel" };
	static const struct align_item WGRAD = { CLASS_CONV, STEP_SINGLE, 1, A(CONV) | A(GRAD),
						 "cudnn_wgrad_kernel" };
	struct align_item offsets = { CLASS_ELEMENTWISE, STEP_SINGLE, 1, A(GRAD),
				      "compute_offsets" };
	struct align_item attn = ATTN;
	struct align_layer l;

	/* a final norm against a norm and a one-block metadata kernel */
	meta.tiny = 1;
	{
		const struct align_item a[] = { FINAL_NORM, LM_HEAD }, b[] = { RMS, meta, LM_HEAD };

		align_one(a, 2, b, 3, &l);
		align_absorb(&l, 1, 0);
		check_cover(&l);
		assert_no_fusion(&l);
		assert_match(&l, 0, 0);
		alignment_clear(&l.al);
	}
	/* attention against two fill kernels where the other side has no attention */
	attn.covers_math_attn = 1;
	{
		const struct align_item a[] = { GEMM_QKV, attn, GEMM_O },
					b[] = { GEMM_QKV, FILL, FILL, GEMM_O };

		align_one(a, 3, b, 4, &l);
		align_absorb(&l, 1, 0);
		check_cover(&l);
		assert_no_fusion(&l);
		alignment_clear(&l.al);
	}
	/* copy + tanh_backward is no layernorm backward */
	{
		const struct align_item a[] = { LN_BWD }, b[] = { COPY, TANH_BWD };

		align_one(a, 1, b, 2, &l);
		align_absorb(&l, 1, 0);
		assert_no_fusion(&l);
		alignment_clear(&l.al);
	}
	/* a RoPE kernel against kernels that smooth and scale (extra work, not the rotation) */
	{
		const struct align_item a[] = { ROPE_FUSED, ATTN }, b[] = { K_SMOOTH, SCALE, ATTN };

		align_one(a, 2, b, 3, &l);
		align_absorb(&l, 1, 0);
		assert_no_fusion(&l);
		alignment_clear(&l.al);
	}
	/* a convolution's wgrad and a one-block offsets helper against the wgrad alone */
	offsets.tiny = 1;
	{
		const struct align_item a[] = { WGRAD }, b[] = { WGRAD, offsets };

		align_one(a, 1, b, 2, &l);
		align_absorb(&l, 1, 0);
		assert_no_fusion(&l);
		assert_match(&l, 0, 0);
		alignment_clear(&l.al);
	}
}
END_TEST

/* Each fusion records the rule that proved it. */
START_TEST(test_fusion_proofs)
{
	const struct align_item a[] = { ATTN, GEMM_O, ADD, NORM_RUN, MEMSET, GEMM_UP, SILU, MUL };
	const struct align_item b[] = { ATTN, GEMM_O, ADD_NORM_TRITON, MEMSET, GEMM_UP, MUL_SILU };
	struct align_layer l;

	align_one(a, 8, b, 6, &l);
	align_absorb(&l, 1, 0);
	ck_assert_int_eq(entry_with(&l, 1, 2)->kind, ALIGN_FUSED);
	ck_assert_int_eq(entry_with(&l, 1, 2)->proof, PROOF_CLASS_WORK);
	ck_assert_int_eq(entry_with(&l, 1, 5)->kind, ALIGN_FUSED);
	ck_assert_int_eq(entry_with(&l, 1, 5)->proof, PROOF_CLASS_WORK);
	ck_assert_str_eq(align_proof_name(PROOF_CLASS_WORK), "class_work");
	alignment_clear(&l.al);
}
END_TEST

/* SGLang Qwen3-30B-A3B, MI300X against B300 (issue 32): A routes with topksoftmax and CK's
 * MoeSortingKernel where B's routingIndicesDynBlockKernel picks the top k, softmaxes and sorts
 * in one kernel; A's stage-2 kernel_moe_gemm writes by atomic add (the finalize) where B runs
 * its expert GEMM and then finalizeKernel. Both are fusions, one each way. */
START_TEST(test_moe_fusions_each_way)
{
	static const struct align_item topk_softmax = { CLASS_MOE_ROUTING, STEP_SINGLE, 1,
							A(SOFTMAX) | A(TOPK), "topksoftmax" };
	static const struct align_item moe_sort = { CLASS_MOE_ROUTING, STEP_SINGLE, 1, A(ROUTING),
						    "MoeSortingKernel" };
	static const struct align_item dyn_block = { CLASS_MOE_ROUTING, STEP_SINGLE, 1,
						     A(SOFTMAX) | A(TOPK) | A(ROUTING),
						     "routingIndicesDynBlockKernel" };
	static const struct align_item ck_up = { CLASS_MOE_GEMM, STEP_SINGLE, 1,
						 A(MOE_GEMM) | A(SILU) | A(MUL),
						 "kernel_moe_gemm<moe_gemm+silu+mul>" };
	static const struct align_item ck_down = { CLASS_MOE_GEMM, STEP_SINGLE, 1,
						   A(MOE_GEMM) | A(REDUCE),
						   "kernel_moe_gemm<moe_gemm+reduce>" };
	static const struct align_item bmm_up = { CLASS_MOE_GEMM, STEP_SINGLE, 1,
						  A(MOE_GEMM) | A(SILU) | A(MUL),
						  "bmm_Bfloat16_E2m1E2m1_Fp32" };
	static const struct align_item bmm_down = { CLASS_MOE_GEMM, STEP_SINGLE, 1, A(MOE_GEMM),
						    "bmm_Bfloat16_E2m1E2m1_Fp32" };
	static const struct align_item finalize = { CLASS_MOE_FINALIZE, STEP_SINGLE, 1, A(REDUCE),
						    "finalizeKernel" };
	const struct align_item a[] = { ADD_NORM_TRITON, topk_softmax, moe_sort, ck_up, ck_down };
	const struct align_item b[] = { ADD_NORM_TRITON, dyn_block, bmm_up, bmm_down, finalize };
	struct align_layer l;
	const struct align_entry *e;

	align_one(a, 5, b, 5, &l);
	align_absorb(&l, 1, 0);
	check_cover(&l);
	e = entry_with(&l, 1, 1); /* B's routing does A's two kernels' work */
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_uint_eq(e->n[0], 2);
	ck_assert_uint_eq(e->n[1], 1);
	e = entry_with(&l, 0, 4); /* A's down GEMM does B's GEMM and finalize */
	ck_assert_int_eq(e->kind, ALIGN_FUSED);
	ck_assert_uint_eq(e->n[0], 1);
	ck_assert_uint_eq(e->n[1], 2);
	assert_match(&l, 3, 2);
	alignment_clear(&l.al);
}
END_TEST

static Suite *align_suite(void)
{
	Suite *s = suite_create("align");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_identical);
	tcase_add_test(tc, test_extra_kernel_no_shift);
	tcase_add_test(tc, test_silu_mul_not_adjacent);
	tcase_add_test(tc, test_add_rmsnorm_run);
	tcase_add_test(tc, test_run_vs_single);
	tcase_add_test(tc, test_never_across_layers);
	tcase_add_test(tc, test_sglang_layer);
	tcase_add_test(tc, test_qkv);
	tcase_add_test(tc, test_duplicate_is_not_fused);
	tcase_add_test(tc, test_no_false_absorb);
	tcase_add_test(tc, test_rope_per_rotation);
	tcase_add_test(tc, test_qk_norm_with_copies);
	tcase_add_test(tc, test_math_attention);
	tcase_add_test(tc, test_other_needs_a_name);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_banded_large);
	tcase_add_test(tc, test_no_fused_opt);
	tcase_add_test(tc, test_horizontal_groups);
	tcase_add_test(tc, test_unproven_fusions_rejected);
	tcase_add_test(tc, test_fusion_proofs);
	tcase_add_test(tc, test_moe_fusions_each_way);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(align_suite());
}
