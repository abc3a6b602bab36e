/* inductor.c — decode TorchInductor kernel names into atoms.
 *
 * Inductor names its generated Triton kernels triton_<kind>_fused_<op>_<op>..._<N>, where kind
 * is poi (pointwise), red (reduction), per (persistent reduction) or tem (template: GEMM,
 * flex attention), and the ops are the aten/prims operations whose nodes the kernel holds,
 * sorted and deduplicated (`_to_copy`, `add`, `mean`, `mul`, `pow`, `rsqrt`). Op names contain
 * underscores themselves, so the list is split by longest match against a vocabulary.
 *
 * A name can mention an op that the kernel does not perform: a pointwise prologue that feeds
 * an attention kernel is named after it (`..._scaled_dot_product_cudnn_attention_...`), a view
 * of a bmm result carries `bmm`. Only template kernels do GEMMs or attention. The kernels of
 * one such prologue may all carry the same list, the ops of the whole prologue: the q-RoPE,
 * the k-RoPE with repeat_kv's expand, v's expand and the causal mask of compiled Llama
 * prefill are all `..._cat_clone_cos_eq_expand_..._sin_..._where_N`. Their tensors (the Input
 * Dims Inductor records for each launch) tell them apart: RoPE reads a table of positions by
 * rotary dims beside a [B, H, S, D] tensor; a kernel with one input and one output whose size
 * is a multiple of it copies (expand, clone); the rest is pointwise work without RoPE.
 *
 * The same split gives the explorer a short form that keeps what tells such kernels apart in
 * a narrow column: kind, number, then the ops without views and casts ("red#8 add+mean+..."). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "fusediff/op_args.h"

enum feature {
	F_ADD,
	F_SUB,
	F_MUL,
	F_DIV,
	F_MEAN,
	F_VAR_MEAN,
	F_POW,
	F_RSQRT,
	F_SILU,
	F_SIGMOID,
	F_GELU,
	F_RELU,
	F_EXP,
	F_AMAX,
	F_SUM,
	F_SOFTMAX,
	F_COS,
	F_SIN,
	F_NEG,
	F_CAT,
	F_EMBEDDING,
	F_CAST,
	F_COPY,
	F_REDUCE, /* other reductions: max, min, prod, cumsum, any, all, var */
	F_ARGMAX,
	F_TOPK,
	F_SORT,
	F_MM,
	F_ATTN,
	F_ROTARY,
	F_LAYER_NORM,
	F_RMS_NORM,
	F_QUANT,
	F_VIEW,	  /* a view of the data (no work; left out of the short form) */
	F_IGNORE, /* known work that carries no atom */
};

#define FB(f) (1ull << (f))

/* Longest match wins, so the order here does not matter. */
static const struct {
	const char *tok;
	enum feature f;
} vocab[] = {
	{ "add", F_ADD },
	{ "sub", F_SUB },
	{ "rsub", F_SUB },
	{ "mul", F_MUL },
	{ "div", F_DIV },
	{ "reciprocal", F_DIV },
	{ "mean", F_MEAN },
	{ "var_mean", F_VAR_MEAN },
	{ "var", F_REDUCE },
	{ "pow", F_POW },
	{ "rsqrt", F_RSQRT },
	{ "silu", F_SILU },
	{ "sigmoid", F_SIGMOID },
	{ "gelu", F_GELU },
	{ "erf", F_GELU },
	{ "relu", F_RELU },
	{ "exp", F_EXP },
	{ "exp2", F_EXP },
	{ "amax", F_AMAX },
	{ "max", F_REDUCE },
	{ "min", F_REDUCE },
	{ "amin", F_REDUCE },
	{ "sum", F_SUM },
	{ "prod", F_REDUCE },
	{ "cumsum", F_REDUCE },
	{ "cumprod", F_REDUCE },
	{ "any", F_REDUCE },
	{ "all", F_REDUCE },
	{ "_softmax", F_SOFTMAX },
	{ "softmax", F_SOFTMAX },
	{ "_log_softmax", F_SOFTMAX },
	{ "log_softmax", F_SOFTMAX },
	{ "cos", F_COS },
	{ "sin", F_SIN },
	{ "neg", F_NEG },
	{ "cat", F_CAT },
	{ "embedding", F_EMBEDDING },
	{ "_to_copy", F_CAST },
	{ "convert_element_type", F_CAST },
	{ "clone", F_COPY },
	{ "index_put", F_COPY }, /* a cache update, as aten::index_put_ is in eager */
	{ "index_copy", F_COPY },
	{ "scatter", F_COPY },
	{ "copy", F_COPY },
	{ "copy_", F_COPY },
	{ "argmax", F_ARGMAX },
	{ "topk", F_TOPK },
	{ "sort", F_SORT },
	{ "mm", F_MM },
	{ "bmm", F_MM },
	{ "addmm", F_MM },
	{ "baddbmm", F_MM },
	{ "matmul", F_MM },
	{ "_scaled_mm", F_MM },
	{ "_scaled_dot_product_cudnn_attention", F_ATTN },
	{ "_scaled_dot_product_flash_attention", F_ATTN },
	{ "_scaled_dot_product_efficient_attention", F_ATTN },
	{ "_scaled_dot_product_attention_math", F_ATTN },
	{ "scaled_dot_product_attention", F_ATTN },
	{ "flex_attention", F_ATTN },
	{ "rotary", F_ROTARY },
	{ "rotary_embedding", F_ROTARY },
	{ "apply_rotary_pos_emb", F_ROTARY },
	{ "native_layer_norm", F_LAYER_NORM },
	{ "layer_norm", F_LAYER_NORM },
	{ "rms_norm", F_RMS_NORM },
	{ "_fused_rms_norm", F_RMS_NORM },
	{ "quantize", F_QUANT },
	{ "quant", F_QUANT },
	/* views: no work */
	{ "_unsafe_view", F_VIEW },
	{ "view", F_VIEW },
	{ "expand", F_VIEW },
	{ "unsqueeze", F_VIEW },
	{ "squeeze", F_VIEW },
	{ "permute", F_VIEW },
	{ "transpose", F_VIEW },
	{ "reshape", F_VIEW },
	{ "alias", F_VIEW },
	{ "as_strided", F_VIEW },
	{ "slice", F_VIEW },
	{ "select", F_VIEW },
	{ "split", F_VIEW },
	{ "split_with_sizes", F_VIEW },
	{ "view_as_real", F_VIEW },
	{ "view_as_complex", F_VIEW },
	{ "unbind", F_VIEW },
	{ "detach", F_VIEW },
	/* known to carry no atom; listed so that they are consumed whole */
	{ "index_select", F_IGNORE },
	{ "new_ones", F_IGNORE },
	{ "new_zeros", F_IGNORE },
	{ "scalar_tensor", F_IGNORE },
	{ "bitwise_and", F_IGNORE },
	{ "bitwise_or", F_IGNORE },
	{ "bitwise_not", F_IGNORE },
	{ "full_like", F_IGNORE },
	{ "zeros_like", F_IGNORE },
	{ "ones_like", F_IGNORE },
	{ "select_scatter", F_IGNORE },
	{ "slice_scatter", F_IGNORE },
	{ "masked_fill", F_IGNORE },
	{ "constant_pad_nd", F_IGNORE },
};

static size_t match_token(const char *s, size_t len, enum feature *f)
{
	size_t best = 0;

	for (size_t i = 0; i < sizeof vocab / sizeof vocab[0]; i++) {
		size_t tl = strlen(vocab[i].tok);

		if (tl > best && tl <= len && memcmp(s, vocab[i].tok, tl) == 0 &&
		    (tl == len || s[tl] == '_')) {
			best = tl;
			*f = vocab[i].f;
		}
	}
	return best;
}

static const char *const kinds[] = { "poi", "red", "per", "tem", "for" };

/* The parts of an Inductor name: its kind (index in kinds[]), the list of ops [*ops, *end) and
 * the trailing number [*end + 1, ...) when there is one. -1 when name is not Inductor's. */
static int split_name(const char *name, const char **ops, const char **end)
{
	const char *p, *q;
	int kind = -1;

	if (strncmp(name, "triton_", 7) != 0)
		return -1;
	for (int k = 0; k < 5; k++)
		if (strncmp(name + 7, kinds[k], 3) == 0 && name[10] == '_')
			kind = k;
	if (kind < 0)
		return -1;
	p = name + 11;
	if (strncmp(p, "fused_", 6) == 0)
		p += 6;
	else if (kind != 3) /* templates may be named triton_tem_0 */
		return -1;
	/* drop the trailing _<N> */
	*end = q = p + strlen(p);
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q < *end && q > p && q[-1] == '_')
		*end = q - 1;
	else if (q == p && q < *end) /* triton_tem_0: a number and no ops */
		*end = p - 1;
	*ops = p;
	return kind;
}

/* Append the ops of [p, end) to out (len of cap used) as "+"-separated words, views and casts
 * left out unless all: 1 when one was written. */
static int append_ops(const char *p, const char *end, int all, char *out, size_t len, size_t cap)
{
	int first = 1;

	while (p < end) {
		enum feature ft = F_IGNORE;
		const char *op = p;
		size_t n = match_token(p, (size_t)(end - p), &ft);

		if (!n) /* an op the vocabulary does not know: up to the next known one */
			while (p < end) {
				while (p < end && *p != '_')
					p++;
				if (p < end && match_token(p + 1, (size_t)(end - p - 1), &ft))
					break;
				if (p < end)
					p++;
			}
		else
			p += n;
		if (n == 0 || all || (ft != F_VIEW && ft != F_CAST)) {
			int oplen;

			while (op < p && *op == '_') /* _to_copy, _softmax */
				op++;
			oplen = (int)(p - op);
			if (n && ft == F_ATTN && strncmp(op, "scaled_dot_product", 18) == 0)
				op = "sdpa", oplen = 4;
			if (oplen > 0 && len < cap) {
				len += (size_t)snprintf(out + len, cap - len, "%s%.*s",
							first ? " " : "+", oplen, op);
				first = 0;
			}
		}
		if (p < end && *p == '_')
			p++;
	}
	return !first;
}

char *inductor_ops_name(const char *name)
{
	const char *p, *end, *num;
	size_t cap, len;
	char *out;
	int kind = split_name(name, &p, &end);

	if (kind < 0)
		return NULL;
	num = end < p + strlen(p) ? end + 1 : "";
	cap = strlen(name) + 8;
	out = xmalloc(cap);
	len = (size_t)snprintf(out, cap, "%s%s%s", kinds[kind], *num ? "#" : "", num);
	if (!append_ops(p, end, 0, out, len, cap)) /* only views: better than nothing */
		append_ops(p, end, 1, out, len, cap);
	return out;
}

#define SHAPES_MAX 16 /* tensors of one launch that are looked at */
#define SHAPE_DIMS 6

struct shape {
	int n;
	int64_t d[SHAPE_DIMS];
};

/* The tensors of an Input Dims text ("[[2048,512],[64,512],[]]"): the number of non-empty ones
 * (scalars, [], are skipped), or -1 when the text is not a flat list of shapes of at most
 * SHAPE_DIMS dims (lists of tensors, more than SHAPES_MAX tensors). */
static int parse_shapes(const char *s, struct shape *v)
{
	struct op_args c;
	struct op_arg a;
	int n = 0, rc;

	if (op_args_open(&c, s) < 0)
		return -1;
	while ((rc = op_args_next(&c, &a)) > 0) {
		if (a.kind != OP_ARG_SHAPE || a.nd > SHAPE_DIMS)
			return -1;
		for (int i = 0; i < a.nd; i++)
			if (a.d[i] < 0)
				return -1;
		if (!a.nd)
			continue;
		if (n == SHAPES_MAX)
			return -1;
		v[n].n = a.nd;
		memcpy(v[n++].d, a.d, (size_t)a.nd * sizeof *a.d);
	}
	return rc == 0 ? n : -1;
}

static double numel(const struct shape *s)
{
	double x = 1;

	for (int i = 0; i < s->n; i++)
		x *= (double)s->d[i];
	return x;
}

/* 1 when a tensor is a rotary table for a [B, H, S, D] (or [B, S, H, D]) tensor x beside it:
 * smaller than x, with two dims other than 1 or more, each D, D / 2 or x's second or third
 * dim (the sequence; a mask's batch dim is none of them). 0 when no 4-D tensor could be
 * rotated (D from 8 to 512), -1 when there is one and no table beside it. */
static int shapes_rope_table(const struct shape *v, int n)
{
	int seen = 0;

	for (int i = 0; i < n; i++) {
		int64_t d = v[i].n == 4 ? v[i].d[3] : 0;

		if (d < 8 || d > 512)
			continue;
		seen = 1;
		for (int j = 0; j < n; j++) {
			int fit = 0, ok = j != i && numel(&v[j]) < numel(&v[i]);

			for (int k = 0; ok && k < v[j].n; k++) {
				int64_t x = v[j].d[k];

				if (x == 1)
					continue;
				if (x == d || x * 2 == d || x == v[i].d[1] || x == v[i].d[2])
					fit++;
				else
					ok = 0;
			}
			if (ok && fit >= 2)
				return 1;
		}
	}
	return seen ? -1 : 0;
}

/* 1 when the launch reads one tensor and writes another of the same size or a whole multiple
 * of it (an expand, a clone): two tensors in all. */
static int shapes_copy(const struct shape *v, int n)
{
	double a, b;

	if (n != 2)
		return 0;
	a = numel(&v[0]);
	b = numel(&v[1]);
	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	return a >= 1 && b / a == (double)(int64_t)(b / a);
}

int inductor_decode(const char *name, const char *dims, uint8_t *cls, atom_set *atoms)
{
	const char *p, *end;
	uint64_t f = 0;
	atom_set a = 0;
	int rope, by_shapes, kind = split_name(name, &p, &end);

	if (kind < 0)
		return -1;
	while (p < end) {
		enum feature ft = F_IGNORE;
		size_t n = match_token(p, (size_t)(end - p), &ft);

		if (n) {
			f |= FB(ft);
			p += n;
		} else {
			/* unknown op: skip to the next separator */
			while (p < end && *p != '_')
				p++;
		}
		if (p < end && *p == '_')
			p++;
	}

	/* a pointwise kernel named after the attention it feeds: its tensors say which of the
	 * prologue's ops it runs */
	by_shapes = kind != 3 && (f & FB(F_ATTN));
	if (by_shapes && dims) {
		struct shape v[SHAPES_MAX];
		int n = parse_shapes(dims, v), table = n > 0 ? shapes_rope_table(v, n) : 0;

		if (table < 0 && shapes_copy(v, n)) {
			*atoms = A(COPY);
			*cls = CLASS_COPY;
			return 1;
		}
		if (table < 0)
			f &= ~(FB(F_ROTARY) | FB(F_COS) | FB(F_SIN) | FB(F_NEG));
	}
	/* whole-op patterns first; each consumes the primitives it is made of (a rotary test on
	 * all of them: q/k-RMSNorm and RoPE in one kernel share the mul) */
	rope = (f & FB(F_ROTARY)) ||
	       ((f & (FB(F_COS) | FB(F_SIN))) && (f & (FB(F_NEG) | FB(F_CAT))) &&
		(f & FB(F_MUL))) ||
	       ((f & FB(F_NEG)) && (f & FB(F_CAT)) && (f & FB(F_MUL)));
	if ((f & FB(F_RMS_NORM)) ||
	    ((f & FB(F_MEAN)) && (f & FB(F_RSQRT)) && !(f & FB(F_VAR_MEAN)))) {
		a |= A(RMSNORM);
		f &= ~(FB(F_RMS_NORM) | FB(F_MEAN) | FB(F_POW) | FB(F_RSQRT) | FB(F_MUL));
	}
	if ((f & FB(F_LAYER_NORM)) || ((f & FB(F_VAR_MEAN)) && (f & FB(F_RSQRT)))) {
		a |= A(LAYERNORM);
		f &= ~(FB(F_LAYER_NORM) | FB(F_VAR_MEAN) | FB(F_RSQRT) | FB(F_SUB) | FB(F_MUL));
	}
	if ((f & FB(F_SOFTMAX)) || ((f & FB(F_EXP)) && (f & FB(F_AMAX)) && (f & FB(F_SUM)))) {
		a |= A(SOFTMAX);
		f &= ~(FB(F_SOFTMAX) | FB(F_EXP) | FB(F_AMAX) | FB(F_SUB) | FB(F_SUM) | FB(F_DIV));
	}
	if (rope) {
		a |= A(ROPE);
		f &= ~(FB(F_ROTARY) | FB(F_COS) | FB(F_SIN) | FB(F_NEG) | FB(F_CAT) | FB(F_MUL) |
		       FB(F_ADD) | FB(F_SUB));
	}
	if (kind == 3) { /* template: the only kernels that run a GEMM or attention */
		if (f & FB(F_ATTN))
			a |= A(ATTENTION);
		else
			a |= A(GEMM);
	}
	if (f & FB(F_SILU))
		a |= A(SILU);
	if (f & FB(F_GELU))
		a |= A(GELU);
	if (f & (FB(F_RELU) | FB(F_SIGMOID)))
		a |= A(ACT);
	if (f & FB(F_MUL))
		a |= A(MUL);
	if (f & FB(F_ADD))
		a |= A(ADD);
	if (f & FB(F_CAST))
		a |= A(CAST);
	if (f & FB(F_EMBEDDING))
		a |= A(EMBEDDING);
	if (f & FB(F_QUANT))
		a |= A(QUANT);
	if (f & FB(F_TOPK))
		a |= A(TOPK);
	if (f & FB(F_ARGMAX))
		a |= A(SAMPLE);
	/* pointwise kernels hold no reduction even when a reduction's name is in theirs */
	if (kind == 1 || kind == 2) {
		if (f & (FB(F_MEAN) | FB(F_VAR_MEAN) | FB(F_SUM) | FB(F_AMAX) | FB(F_REDUCE)))
			a |= A(REDUCE);
		if (f & FB(F_SORT))
			a |= A(OTHER);
	}
	if (!a)
		a = (f & (FB(F_COPY) | FB(F_CAT))) ? A(COPY)
		    : (kind == 1 || kind == 2)	   ? A(REDUCE)
						   : A(OTHER);
	*atoms = a;
	*cls = (uint8_t)classify_class_of_atoms(a);
	if ((f & FB(F_SORT)) && *cls == CLASS_ELEMENTWISE)
		*cls = CLASS_SORT;
	return by_shapes;
}
