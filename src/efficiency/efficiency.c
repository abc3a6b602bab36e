/* efficiency.c — the work (FLOPs, bytes) of an operator call from its recorded shapes, and the
 * achieved figures against a GPU's peaks (see efficiency.h).
 *
 * The counting follows TraceLens's performance model (AMD-AGI/TraceLens,
 * TraceLens/PerfModel/perf_model.py, read at commit 01a6eebb):
 *   GEMM.flops_func:   2*M*N*K, + M*N with a bias;
 *   GEMM.bytes_func:   (M*K + K*N + M*N) * bpe, + N*bpe with a bias (bias taken as 1 x N), every
 *                      operand in the dtype of A (aten_mm, aten_addmm, aten_bmm), fp8 inputs
 *                      writing a 2-byte output (aten_scaled_mm);
 *   aten_bmm:          the batch times the GEMM's FLOPs and bytes (aten_baddbmm with a bias);
 *   GroupedGemm:       X (M x K) by G weights (K x N): 2*M*K*N FLOPs, (M*K + G*K*N)*bpe_in +
 *                      M*N*bpe_out bytes;
 *   SDPA.flops_func:   B*H_Q*(2*N_Q*N_KV*d_qk + 2*N_Q*N_KV*d_v) (softmax left out), halved when
 *                      causal with N_Q == N_KV;
 *   SDPA.bytes_func:   (B*N_Q*H_Q*d_qk + B*N_KV*H_KV*(d_qk + d_v) + B*N_Q*H_Q*d_v) * bpe;
 * with each operator's argument positions (which input is q, which Concrete Input is_causal) from
 * its get_param_details (aten__scaled_dot_product_*_attention, flash_attention,
 * aiter__flash_attn_forward, aiter__mha_fwd, flash_attn_v3_forward).
 *
 * Where fusediff differs, and why:
 * - TraceLens models the operators of its op_to_perf_model_class_map (torch_op_mapping.py): the
 *   leaf GEMMs (aten::mm, addmm, bmm, baddbmm, _scaled_mm) and the SDPA entry points. fusediff
 *   asks the operator that launched the kernel, which is often one level further in: it also
 *   models aten::linear and aten::matmul (when the leaf is missing, as in an NVTX trace),
 *   aten::_grouped_mm (PyTorch's MoE grouped GEMM) with the GroupedGemm formulas, and
 *   aten::_cudnn_attention_forward, aten::_flash_attention_forward and
 *   aten::_efficient_attention_forward, the kernels' own launchers under SDPA, with the SDPA
 *   formulas. Their time is the kernel time either way.
 * - aten::mm takes M as A's first dimension; fusediff multiplies A's outer dimensions (the same
 *   for the 2-D A aten::mm always has).
 * - _scaled_mm: TraceLens takes a bias when Input Dims has 3 entries, which the current
 *   signature (self, mat2, scale_a, scale_b, bias, ...) never has; fusediff takes a bias when
 *   the fifth input is a tensor.
 * - Causal attention with N_Q != N_KV (a KV cache): TraceLens raises; fusediff counts the query
 *   and key pairs the mask keeps, aligned top-left for PyTorch's SDPA (query i sees keys 0..i)
 *   and bottom-right for flash-attn and aiter (the last query sees every key).
 * - A data type TraceLens has no bytes-per-element for gives no bytes in both.
 * - The time is the pair side's: every kernel of the operator, a cuBLAS workspace memset
 *   included (on the TraceLens Qwen1.5 H100 trace the GEMMs' memsets are 1.6 % of their time:
 *   613.0 TFLOPS here against 622.9 over the GEMM kernels alone).
 * - The peaks are the data sheets' dense figures; TraceLens takes an arch file of its own.
 * - Varlen, paged and backward attention are not modelled: the sequence lengths of varlen and
 *   paged attention are tensor values, which the profiler does not record. */
#include "fusediff/efficiency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/op_args.h"

const char *eff_dtype_name(int dtype)
{
	static const char *const names[] = { "fp32", "tf32", "bf16", "fp8", "fp4" };

	return dtype >= 0 && dtype < EFF_N_DTYPES ? names[dtype] : "unknown";
}

/* --- the recorded arguments ------------------------------------------------------------------ */

#define MAX_ARGS 32

/* One entry of Input Dims (a shape), Input type or Concrete Inputs (a string). */
struct arg {
	int nd; /* dimensions of a shape; -1: not a shape (a tensor list, a scalar) */
	int64_t d[OP_ARG_DIMS];
	char s[40]; /* the string */
};

struct args {
	int n;
	struct arg a[MAX_ARGS];
};

/* Parse "[[4,512],[],\"x\",1.5]" into out; entries past MAX_ARGS are dropped. */
static void parse_args(const char *text, struct args *out)
{
	struct op_args c;
	struct op_arg e;

	out->n = 0;
	if (op_args_open(&c, text) < 0)
		return;
	while (out->n < MAX_ARGS && op_args_next(&c, &e) > 0) {
		struct arg *a = &out->a[out->n++];

		a->nd = e.kind == OP_ARG_SHAPE ? e.nd : -1;
		if (a->nd > 0)
			memcpy(a->d, e.d, (size_t)a->nd * sizeof *a->d);
		op_arg_string(&e, a->s, sizeof a->s);
	}
}

static const struct arg *arg_at(const struct args *a, int i)
{
	static const struct arg none = { .nd = -1 };

	return i >= 0 && i < a->n ? &a->a[i] : &none;
}

/* Bytes per element of a recorded data type and its peak column; 0 bytes when unknown. */
static int dtype_of(const char *t, int *bpe)
{
	static const struct {
		const char *name;
		int bpe, dtype;
	} map[] = {
		{ "float", 4, EFF_FP32 },
		{ "c10::BFloat16", 2, EFF_BF16 },
		{ "c10::Half", 2, EFF_BF16 },
		{ "c10::Float8_e4m3fn", 1, EFF_FP8 },
		{ "c10::Float8_e4m3fnuz", 1, EFF_FP8 },
		{ "c10::Float8_e5m2", 1, EFF_FP8 },
		{ "c10::Float8_e5m2fnuz", 1, EFF_FP8 },
		{ "c10::Float4_e2m1fn_x2", 1, EFF_FP4 }, /* two values a byte: see the GEMM */
		{ "double", 8, EFF_DTYPE_UNKNOWN },
	};

	*bpe = 0;
	for (size_t i = 0; t && i < sizeof map / sizeof map[0]; i++)
		if (strcmp(t, map[i].name) == 0) {
			*bpe = map[i].bpe;
			return map[i].dtype;
		}
	return EFF_DTYPE_UNKNOWN;
}

/* The product of a shape's first n dimensions; 0 when one is not positive or it would not fit
 * (hostile shapes must not overflow). */
static int64_t dims_product(const int64_t *d, int n)
{
	int64_t m = 1;

	for (int i = 0; i < n; i++) {
		if (d[i] <= 0 || m > INT64_MAX / d[i])
			return 0;
		m *= d[i];
	}
	return m;
}

static int64_t outer(const struct arg *x) /* product of all but the last dimension */
{
	return x->nd > 0 ? dims_product(x->d, x->nd - 1) : 0;
}

/* --- GEMMs ------------------------------------------------------------------------------- */

/* Fill a GEMM of b x (m x k) (k x n) with a bias or not, inputs of bytes-per-element bpe and an
 * output of out_bpe (0: unknown). */
static int gemm(struct op_work *w, int64_t b, int64_t m, int64_t n, int64_t k, int bias, int bpe,
		int out_bpe, int dtype)
{
	double mm = (double)m, nn = (double)n, kk = (double)k;

	if (b <= 0 || m <= 0 || n <= 0 || k <= 0)
		return 0;
	*w = (struct op_work){ .kind = EFF_GEMM, .dtype = dtype, .b = b, .m = m, .n = n, .k = k };
	w->flops = (double)b * (2 * mm * nn * kk + (bias ? mm * nn : 0));
	w->bytes = bpe && out_bpe ? (double)b * ((mm * kk + kk * nn + (bias ? nn : 0)) * bpe +
						 mm * nn * out_bpe)
				  : -1;
	return 1;
}

static int gemm_op(const char *name, const struct args *dims, const struct args *types,
		   const struct args *conc, struct op_work *w)
{
	int bpe, dtype;

	if (strcmp(name, "aten::mm") == 0) {
		const struct arg *a = arg_at(dims, 0), *b = arg_at(dims, 1);

		dtype = dtype_of(arg_at(types, 0)->s, &bpe);
		return a->nd >= 2 && b->nd == 2 && b->d[0] == a->d[a->nd - 1] &&
		       gemm(w, 1, outer(a), b->d[1], b->d[0], 0, bpe, bpe, dtype);
	}
	if (strcmp(name, "aten::addmm") == 0) {
		const struct arg *a = arg_at(dims, 1), *b = arg_at(dims, 2);

		dtype = dtype_of(arg_at(types, 1)->s, &bpe);
		return a->nd == 2 && b->nd == 2 && b->d[0] == a->d[1] &&
		       gemm(w, 1, a->d[0], b->d[1], a->d[1], 1, bpe, bpe, dtype);
	}
	if (strcmp(name, "aten::_scaled_mm") == 0) {
		const struct arg *a = arg_at(dims, 0), *b = arg_at(dims, 1);

		dtype = dtype_of(arg_at(types, 0)->s, &bpe);
		return a->nd == 2 && b->nd == 2 && b->d[0] == a->d[1] &&
		       gemm(w, 1, a->d[0], b->d[1], a->d[1], arg_at(dims, 4)->nd > 0, bpe,
			    bpe == 1 ? 2 : bpe, dtype);
	}
	if (strcmp(name, "aten::bmm") == 0 || strcmp(name, "aten::baddbmm") == 0) {
		int bias = name[6] == 'a';
		const struct arg *a = arg_at(dims, bias), *b = arg_at(dims, bias + 1);

		dtype = dtype_of(arg_at(types, bias)->s, &bpe);
		return a->nd == 3 && b->nd == 3 && a->d[0] == b->d[0] && b->d[1] == a->d[2] &&
		       gemm(w, a->d[0], a->d[1], b->d[2], a->d[2], bias, bpe, bpe, dtype);
	}
	if (strcmp(name, "aten::linear") == 0) { /* weight N x K */
		const struct arg *a = arg_at(dims, 0), *b = arg_at(dims, 1);

		dtype = dtype_of(arg_at(types, 0)->s, &bpe);
		return a->nd >= 1 && b->nd == 2 && b->d[1] == a->d[a->nd - 1] &&
		       gemm(w, 1, outer(a), b->d[0], b->d[1], arg_at(dims, 2)->nd > 0, bpe, bpe,
			    dtype);
	}
	if (strcmp(name, "aten::matmul") == 0) {
		const struct arg *a = arg_at(dims, 0), *b = arg_at(dims, 1);
		int64_t batch = 1;

		dtype = dtype_of(arg_at(types, 0)->s, &bpe);
		if (a->nd < 2 || b->nd < 2 || b->d[b->nd - 2] != a->d[a->nd - 1])
			return 0;
		if (b->nd == 2)
			return gemm(w, 1, outer(a), b->d[1], b->d[0], 0, bpe, bpe, dtype);
		if (a->nd != b->nd) /* broadcast batches: not modelled */
			return 0;
		for (int d = 0; d + 2 < a->nd; d++)
			if (a->d[d] != b->d[d])
				return 0;
		batch = dims_product(a->d, a->nd - 2);
		return gemm(w, batch, a->d[a->nd - 2], b->d[b->nd - 1], a->d[a->nd - 1], 0, bpe,
			    bpe, dtype);
	}
	if (strcmp(name, "aten::_grouped_mm") == 0) {
		/* mat_a (M x K, or G x M x K), mat_b (G x K x N), offs: TraceLens's GroupedGemm */
		const struct arg *a = arg_at(dims, 0), *b = arg_at(dims, 1);
		int64_t m, k, g, n;
		int bpe_out;

		dtype = dtype_of(arg_at(types, 0)->s, &bpe);
		dtype_of(arg_at(types, 1)->s, &bpe_out); /* TraceLens: the second type */
		if (b->nd != 3 || (a->nd != 2 && a->nd != 3))
			return 0;
		g = b->d[0];
		k = a->d[a->nd - 1];
		m = a->nd == 2 ? a->d[0] : dims_product(a->d, 2);
		if (a->nd == 3 && a->d[0] != g)
			return 0;
		if (b->d[1] == k)
			n = b->d[2];
		else if (b->d[2] == k)
			n = b->d[1];
		else
			return 0;
		if (m <= 0 || n <= 0 || k <= 0 || g <= 0)
			return 0;
		*w = (struct op_work){
			.kind = EFF_GROUPED_GEMM, .dtype = dtype, .b = g, .m = m, .n = n, .k = k
		};
		w->flops = 2.0 * (double)m * (double)k * (double)n;
		w->bytes = bpe && bpe_out ? ((double)m * k + (double)g * k * n) * bpe +
						    (double)m * n * bpe_out
					  : -1;
		return 1;
	}
	(void)conc;
	return 0;
}

/* --- attention ------------------------------------------------------------------------------ */

/* The attention operators: where q, k and v are, their layout, where is_causal is. */
static const struct attn_op {
	const char *name;
	int q;		  /* index of q in Input Dims; k and v follow */
	int bnhd;	  /* 1: (batch, seq, heads, dim); 0: (batch, heads, seq, dim) */
	int causal;	  /* index in Concrete Inputs, -1: never causal */
	int mask_type;	  /* the causal argument is a mask type (0 none, else causal) */
	int bottom_right; /* causal with a shorter query: its last query sees every key */
} attn_ops[] = {
	/* TraceLens's models */
	{ "aten::_scaled_dot_product_flash_attention", 0, 0, 4, 0, 0 },
	{ "aten::_scaled_dot_product_efficient_attention", 0, 0, 6, 0, 0 },
	{ "aten::_scaled_dot_product_cudnn_attention", 0, 0, 6, 0, 0 },
	{ "flash_attn::_flash_attn_forward", 0, 1, 5, 0, 1 },
	{ "FlashAttnFunc", 0, 1, 5, 0, 1 },
	{ "aiter::_flash_attn_forward", 0, 1, 5, 0, 1 },
	{ "aiter::mha_fwd", 0, 1, 5, 0, 1 },
	{ "aiter::fmha_v3_fwd", 0, 1, 5, 0, 1 },
	{ "flash_attn_3::fwd", 0, 1, 24, 0, 1 },
	/* fusediff's: SDPA itself and the operators under it that launch the kernels */
	{ "aten::scaled_dot_product_attention", 0, 0, 5, 0, 0 },
	{ "aten::_cudnn_attention_forward", 0, 0, 10, 0, 0 },
	{ "aten::_flash_attention_forward", 0, 1, 8, 0, 0 },
	{ "aten::_efficient_attention_forward", 0, 1, 9, 1, 0 },
};

/* Query-key pairs a causal mask keeps: n_q queries against n_kv keys. Top-left, query i sees
 * keys 0..i; bottom-right, the last query sees every key. */
static double causal_pairs(int64_t n_q, int64_t n_kv, int bottom_right)
{
	double q = (double)n_q, kv = (double)n_kv;

	if (n_q == n_kv) /* TraceLens: half of them */
		return q * kv / 2;
	if (bottom_right) /* query i sees n_kv - n_q + i + 1 keys, at least 0 */
		return n_q <= n_kv ? q * (kv - q) + q * (q + 1) / 2 : kv * (kv + 1) / 2;
	/* query i sees min(i + 1, n_kv) keys */
	return n_q <= n_kv ? q * (q + 1) / 2 : kv * (kv + 1) / 2 + (q - kv) * kv;
}

static int attn_op(const char *name, const struct args *dims, const struct args *types,
		   const struct args *conc, struct op_work *w)
{
	const struct attn_op *op = NULL;
	const struct arg *q, *k, *v;
	int64_t b, hq, nq, dqk, hkv, nkv, dv;
	int bpe, dtype, causal = 0, bottom_right;
	double pairs;

	for (size_t i = 0; i < sizeof attn_ops / sizeof attn_ops[0] && !op; i++)
		if (strcmp(name, attn_ops[i].name) == 0)
			op = &attn_ops[i];
	if (!op)
		return 0;
	q = arg_at(dims, op->q);
	k = arg_at(dims, op->q + 1);
	v = arg_at(dims, op->q + 2);
	if (q->nd != 4 || k->nd != 4 || v->nd != 4)
		return 0;
#define SEQ(x)	 ((x)->d[op->bnhd ? 1 : 2])
#define HEADS(x) ((x)->d[op->bnhd ? 2 : 1])
	b = q->d[0];
	nq = SEQ(q);
	hq = HEADS(q);
	dqk = q->d[3];
	nkv = SEQ(k);
	hkv = HEADS(k);
	dv = v->d[3];
	/* TraceLens's extract_sdpa_cfg: the shapes must agree */
	if (k->d[0] != b || v->d[0] != b || HEADS(v) != hkv || SEQ(v) != nkv || k->d[3] != dqk ||
	    b <= 0 || nq <= 0 || hq <= 0 || dqk <= 0 || nkv <= 0 || hkv <= 0 || dv <= 0)
		return 0;
	bottom_right = op->bottom_right;
	if (op->causal >= 0) {
		const char *c = arg_at(conc, op->causal)->s;

		/* a mask type: 1 causal from the top left, 2 from the bottom right */
		causal = op->mask_type ? c[0] && strcmp(c, "0") != 0
				       : strcmp(c, "True") == 0 || strcmp(c, "true") == 0 ||
						 strcmp(c, "1") == 0;
		if (op->mask_type && strcmp(c, "2") == 0)
			bottom_right = 1;
	}
	pairs = causal ? causal_pairs(nq, nkv, bottom_right) : (double)nq * (double)nkv;
	dtype = dtype_of(arg_at(types, op->q)->s, &bpe);
	*w = (struct op_work){ .kind = EFF_ATTENTION,
			       .dtype = dtype,
			       .causal = (uint8_t)causal,
			       .b = b,
			       .m = nq,
			       .n = nkv,
			       .k = dqk,
			       .heads = hq,
			       .kv_heads = hkv };
	w->flops = (double)b * (double)hq * 2 * pairs * ((double)dqk + (double)dv);
	w->bytes = bpe ? (double)b *
				   ((double)nq * hq * dqk + (double)nkv * hkv * ((double)dqk + dv) +
				    (double)nq * hq * dv) *
				   bpe
		       : -1;
#undef SEQ
#undef HEADS
	return w->flops > 0;
}

int eff_op_work(const char *name, const char *dims, const char *types, const char *concrete,
		struct op_work *w)
{
	struct args *a;
	int ok;

	if (!name || !dims)
		return 0;
	a = xmalloc(3 * sizeof *a);
	parse_args(dims, &a[0]);
	parse_args(types, &a[1]);
	parse_args(concrete, &a[2]);
	ok = gemm_op(name, &a[0], &a[1], &a[2], w) || attn_op(name, &a[0], &a[1], &a[2], w);
	free(a);
	return ok && w->flops > 0 && isfinite(w->flops);
}

int eff_trace_op_work(const struct trace *t, const struct trace_op *op, struct op_work *w)
{
	if (!op || !op->input_dims)
		return 0;
	return eff_op_work(trace_str(t, op->name), trace_str(t, op->input_dims),
			   op->input_types ? trace_str(t, op->input_types) : NULL,
			   op->concrete ? trace_str(t, op->concrete) : NULL, w);
}

int eff_peak_dtype(int dtype, const char *kernel)
{
	if (dtype == EFF_FP32 && kernel &&
	    (strstr(kernel, "tf32") || strstr(kernel, "xf32") || strstr(kernel, "tensorop_s1688") ||
	     strstr(kernel, "tensorop_s16816")))
		return EFF_TF32;
	return dtype;
}

void eff_figures(double flops, double bytes, double ns, const struct gpu_peak *peak, int dtype,
		 struct eff_figures *out)
{
	double peak_tf = peak && dtype >= 0 && dtype < EFF_N_DTYPES ? peak->tflops[dtype] : 0;

	*out = (struct eff_figures){ NAN, NAN, NAN, NAN, -1 };
	if (!(flops > 0) || !(ns > 0))
		return;
	out->tflops = flops / ns / 1e3; /* FLOP/ns = GFLOP/s */
	if (bytes > 0) {
		out->tbps = bytes / ns / 1e3;
		out->ai = flops / bytes;
	}
	if (!(peak_tf > 0))
		return;
	if (bytes > 0 && peak->tbps > 0) {
		double ridge = peak_tf / peak->tbps; /* FLOP per byte */
		double roof = out->ai >= ridge ? peak_tf : out->ai * peak->tbps;

		out->bound = out->ai >= ridge;
		out->peak_share = out->tflops / roof;
	} else {
		out->peak_share = out->tflops / peak_tf;
	}
}

/* --- the shape the alignment compares GEMMs by -------------------------------------------- */

int eff_gemm_shape(const char *dims, int64_t *m, int64_t *n, int64_t *k)
{
	struct args *a = xmalloc(sizeof *a);
	int ns = 0, len[8];
	int64_t shape[8][8];

	parse_args(dims, a);
	/* the shapes in order (scalars, strings and tensor lists are not shapes) */
	for (int i = 0; i < a->n && ns < 8; i++) {
		if (a->a[i].nd < 0)
			continue;
		len[ns] = a->a[i].nd;
		memcpy(shape[ns++], a->a[i].d, sizeof shape[0]);
	}
	free(a);
	for (int i = 0; i + 1 < ns; i++) {
		const int64_t *x = shape[i], *y = shape[i + 1];

		if (len[i] < 2 || len[i + 1] != 2)
			continue;
		*m = dims_product(x, len[i] - 1);
		*k = x[len[i] - 1];
		if (y[0] == *k)
			*n = y[1];
		else if (y[1] == *k)
			*n = y[0];
		else
			continue;
		return *m > 0 && *n > 0 && *k > 0;
	}
	return 0;
}
