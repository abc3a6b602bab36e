/* steps.c — kernels grouped into steps: one logical operation each (see structure.h).
 *
 *   STEP_AUX   a main kernel and its helpers: the helpers the classifier marks (cuBLASLt
 *              splitKreduce after its GEMM, the reduce of split-KV/paged attention, the setup
 *              kernel before a grouped GEMM) and a memset launched by the same operator just
 *              before the kernel (a workspace). step.main says which kernel is the main one.
 *   STEP_RUN   eager aten kernels that together do one op:
 *              - RMSNorm: [cast] pow mean add rsqrt mul [cast] mul (HF LlamaRMSNorm and
 *                friends), or every kernel launched inside one ...RMSNorm_N/...LayerNorm_N
 *                module call when the trace has module ranges;
 *              - RoPE: [mul] neg cat mul add, one step per tensor rotated (HF's
 *                apply_rotary_pos_emb rotates q, then k: two steps, which pair with a
 *                compiled side's q- and k-RoPE kernels, or together with one kernel that
 *                rotates both);
 *              - the cos/sin table of a rotary embedding (cat cos mul sin mul, casts);
 *              - a convolution as im2col then a GEMM, or a GEMM then col2im, per image
 *                (MIOpen's GEMM solvers, PyTorch's slow convolution): one conv step, so
 *                that one implicit-GEMM convolution kernel on the other side fuses it.
 *              Module ranges decide only norms: a rotary-embedding module call also holds a
 *              GEMM and copies, and a trace recorded without stacks must give the same steps.
 *   STEP_SINGLE everything else. SiLU and mul of an eager gated MLP are not adjacent
 *              (gate GEMM, silu, up GEMM, mul) and stay single steps. */
#include <string.h>

#include "structure_int.h"

struct seqv {
	const struct step_input *in;
	const uint32_t *seq;
	size_t n;
};

static const struct kernel_info *info(const struct seqv *v, size_t i)
{
	return trace_classes_get(v->in->tc, v->seq[i]);
}

uint8_t *steps_prim_codes(const struct trace_classes *tc)
{
	static const char *const names[] = {
		[PRIM_CAST] = "cast",	  [PRIM_COPY] = "copy", [PRIM_POW] = "pow",
		[PRIM_MEAN] = "mean",	  [PRIM_ADD] = "add",	[PRIM_RSQRT] = "rsqrt",
		[PRIM_MUL] = "mul",	  [PRIM_NEG] = "neg",	[PRIM_CAT] = "cat",
		[PRIM_COS] = "cos",	  [PRIM_SIN] = "sin",	[PRIM_IM2COL] = "im2col",
		[PRIM_COL2IM] = "col2im",
	};
	uint8_t *code = xcalloc(tc->n_infos ? tc->n_infos : 1, 1);

	for (size_t i = 0; i < tc->n_infos; i++) {
		const char *p = tc->infos[i].prim;

		for (size_t c = PRIM_NONE + 1; p && c < sizeof names / sizeof names[0]; c++)
			if (strcmp(p, names[c]) == 0) {
				code[i] = (uint8_t)c;
				break;
			}
	}
	return code;
}

static int prim_is(const struct seqv *v, size_t i, enum prim_code p)
{
	return i < v->n && v->in->prim[v->in->tc->info_of[v->seq[i]]] == p;
}

static int is_cast(const struct seqv *v, size_t i)
{
	return prim_is(v, i, PRIM_CAST) || prim_is(v, i, PRIM_COPY);
}

/* Skip casts from i. */
static size_t skip_casts(const struct seqv *v, size_t i)
{
	while (i < v->n && is_cast(v, i))
		i++;
	return i;
}

/* [cast] pow mean add rsqrt mul [cast mul | mul]: kernels of an eager RMSNorm, 0 if none. */
static size_t match_rmsnorm(const struct seqv *v, size_t i)
{
	static const enum prim_code core[] = { PRIM_POW, PRIM_MEAN, PRIM_ADD, PRIM_RSQRT,
					       PRIM_MUL };
	size_t p = i;

	if (is_cast(v, p))
		p++;
	for (size_t c = 0; c < sizeof core / sizeof core[0]; c++) {
		if (c > 0)
			p = skip_casts(v, p);
		if (!prim_is(v, p, core[c]))
			return 0;
		p++;
	}
	if (is_cast(v, p) && prim_is(v, p + 1, PRIM_MUL))
		p += 2;
	else if (prim_is(v, p, PRIM_MUL))
		p++;
	return p - i;
}

/* One rotate-half application: [mul] neg cat, then up to three of mul/add ending at the first
 * add. 0 if none. */
static size_t match_rope_unit(const struct seqv *v, size_t i)
{
	size_t p = i;

	if (prim_is(v, p, PRIM_MUL) && prim_is(v, p + 1, PRIM_NEG) && prim_is(v, p + 2, PRIM_CAT))
		p += 3;
	else if (prim_is(v, p, PRIM_NEG) && prim_is(v, p + 1, PRIM_CAT))
		p += 2;
	else
		return 0;
	for (int k = 0; k < 3 && p < v->n; k++) {
		if (prim_is(v, p, PRIM_ADD)) {
			p++;
			break;
		}
		if (!prim_is(v, p, PRIM_MUL))
			break;
		p++;
	}
	return p - i;
}

#define ROPE_TABLE_MAX 12 /* kernels: cat, cos, (mul), sin, (mul) and a few casts */

/* The cos/sin table of a rotary embedding: cat/cos/sin/mul/casts containing cos and sin,
 * starting at cat or cos, at most ROPE_TABLE_MAX kernels. Does not take a cast that starts an
 * RMSNorm. */
static size_t match_rope_table(const struct seqv *v, size_t i)
{
	size_t p = i, last = i;
	int cos = 0, sin = 0;

	if (!prim_is(v, i, PRIM_CAT) && !prim_is(v, i, PRIM_COS))
		return 0;
	while (p < v->n && p - i < ROPE_TABLE_MAX) {
		if (prim_is(v, p, PRIM_COS))
			cos = 1;
		else if (prim_is(v, p, PRIM_SIN))
			sin = 1;
		else if (is_cast(v, p)) {
			if (match_rmsnorm(v, p))
				break;
		} else if (!prim_is(v, p, PRIM_CAT) && !prim_is(v, p, PRIM_MUL))
			break;
		p++;
		if (cos && sin)
			last = p;
	}
	return cos && sin ? last - i : 0;
}

static int is_gemm(const struct seqv *v, size_t i)
{
	return i < v->n && v->in->t->kernels[v->seq[i]].kind == KIND_KERNEL &&
	       info(v, i)->cls == CLASS_GEMM;
}

static int64_t ext_id(const struct seqv *v, size_t i)
{
	return v->in->t->kernels[v->seq[i]].external_id;
}

/* A convolution run as im2col then a GEMM, or a GEMM then col2im (its data gradient), once
 * or once per image (MIOpen's GEMM solvers loop over the batch): kernels from i, 0 if none.
 * Where the trace links kernels to operators, the pairs are one operator's launches. */
static size_t match_im2col_gemm(const struct seqv *v, size_t i)
{
	size_t p = i;
	int64_t op = ext_id(v, i);

	for (;;) {
		size_t q = p;

		if (prim_is(v, q, PRIM_IM2COL) && is_gemm(v, q + 1))
			q += 2;
		else if (is_gemm(v, q) && prim_is(v, q + 1, PRIM_COL2IM))
			q += 2;
		else
			break;
		if (op ? ext_id(v, q - 2) != op || ext_id(v, q - 1) != op : p > i)
			break; /* another operator's, or unknown after the first */
		p = q;
	}
	return p - i;
}

/* Kernels from i launched inside the same module call (ids[kernel] >= 0), 0 if none. */
static size_t match_module(const struct seqv *v, size_t i, const int32_t *ids)
{
	size_t p = i;

	if (!ids || ids[v->seq[i]] < 0)
		return 0;
	while (p < v->n && ids[v->seq[p]] == ids[v->seq[i]])
		p++;
	return p - i;
}

static void fill(const struct seqv *v, struct step *s, size_t first, size_t n, uint8_t kind)
{
	s->main = 0;
	s->first = (uint32_t)first;
	s->n = (uint32_t)n;
	s->kind = kind;
	s->atoms = 0;
	s->dur = 0;
	for (size_t j = first; j < first + n; j++) {
		s->atoms |= info(v, j)->atoms;
		s->dur += v->in->t->kernels[v->seq[j]].dur;
	}
}

/* A STEP_RUN doing one op of class cls with atom a (plus cast when casts are inside). */
static void fill_run(const struct seqv *v, struct step *s, size_t first, size_t n, uint8_t cls,
		     enum atom a)
{
	fill(v, s, first, n, STEP_RUN);
	s->cls = cls;
	s->atoms = ATOM_BIT(a);
	for (size_t j = first; j < first + n; j++)
		if (is_cast(v, j) || info(v, j)->cls == CLASS_COPY)
			s->atoms |= ATOM_BIT(ATOM_CAST);
	s->n_work = (uint8_t)(n > 255 ? 255 : n);
}

/* A main kernel at m, helpers before it (from first) and the aux kernels after it. */
static size_t take_aux(const struct seqv *v, struct step *s, size_t first, size_t m)
{
	const struct kernel_info *mi = info(v, m);
	size_t p = m + 1;

	while (p < v->n && info(v, p)->aux && info(v, p)->cls == mi->cls)
		p++;
	fill(v, s, first, p - first, p - first > 1 ? STEP_AUX : STEP_SINGLE);
	s->cls = mi->cls;
	s->n_work = 1;
	s->main = (uint8_t)(m - first);
	return p - first;
}

/* A memset launched by the same operator right before kernel i + 1 (a workspace), or a helper
 * the classifier puts before its main kernel (grouped-GEMM setup). */
static int helper_before(const struct seqv *v, size_t i)
{
	const struct trace_kernel *k = &v->in->t->kernels[v->seq[i]], *next;

	if (i + 1 >= v->n)
		return 0;
	next = &v->in->t->kernels[v->seq[i + 1]];
	if (next->kind != KIND_KERNEL || info(v, i + 1)->aux)
		return 0;
	if (k->kind == KIND_MEMSET)
		return k->external_id != 0 && next->external_id == k->external_id;
	return info(v, i)->aux && info(v, i)->cls == info(v, i + 1)->cls;
}

size_t steps_group(const struct step_input *in, const uint32_t *seq, size_t n, struct step *out)
{
	struct seqv v = { in, seq, n };
	const int32_t *norm_ids = in->mods ? in->mods->norm : NULL;
	size_t i = 0, ns = 0;

	while (i < n) {
		struct step *s = &out[ns++];
		size_t len;

		if ((len = match_module(&v, i, norm_ids)) >= 2) {
			int rms = in->mods->norm_is_rms[norm_ids[seq[i]]];

			fill_run(&v, s, i, len, CLASS_NORM, rms ? ATOM_RMSNORM : ATOM_LAYERNORM);
		} else if ((len = match_rmsnorm(&v, i)) > 0) {
			fill_run(&v, s, i, len, CLASS_NORM, ATOM_RMSNORM);
		} else if ((len = match_rope_unit(&v, i)) > 0 ||
			   (len = match_rope_table(&v, i)) > 0) {
			fill_run(&v, s, i, len, CLASS_ROPE, ATOM_ROPE);
			s->atoms &= ~ATOM_BIT(ATOM_CAST);
		} else if ((len = match_im2col_gemm(&v, i)) > 0) {
			fill_run(&v, s, i, len, CLASS_CONV, ATOM_CONV);
		} else if (helper_before(&v, i)) {
			len = take_aux(&v, s, i, i + 1);
		} else {
			len = take_aux(&v, s, i, i);
		}
		i += len;
	}
	return ns;
}
