/* layers.c — one pass's steps cut into a prologue, N repeated layers and an epilogue.
 *
 * Where the layers are, in order of trust:
 *   1. nn.Module ranges of the decoder-layer class (LlamaDecoderLayer_N, BertLayer_N): a new
 *      layer starts at the first step launched inside the next call;
 *   2. attention anchors: one per main attention step (helpers are inside AUX steps; a second
 *      attention step with no GEMM since the previous anchor, as in mixed prefill/decode
 *      batches, is not a new layer; in blocks that attend twice, self- then cross-attention,
 *      the second attention, with no MLP step since the first, is not either). The cut between anchors a[i-1] and a[i] is the first
 *      norm after the last MLP step (activation, MoE) between them: the input norm, not the
 *      q/k norms some models (Qwen3) run between the input norm and attention;
 *   3. the period of the op sequence, for eager math attention (bmm, softmax, bmm: no
 *      attention kernel): the kernel name (any softmax counts as one name) whose occurrences
 *      split the pass into the most identical segments of (class, atoms) steps, softmax
 *      preferred; then as 2. At least three segments that cover half of the pass: a model
 *      without repeated blocks has no layers, not two that a coincidence made.
 * The first layer starts at the norm that is as many norms before its anchor as in the next
 * layer; the epilogue starts at the norm that follows the last anchor by one more norm than
 * the layers before it have (the final norm), so the epilogue is never glued onto the last
 * layer.
 *
 * The cut rule, the same for every source so that eager, compiled and vendor-fused traces cut
 * at the same logical place: a layer starts at its input norm step together with an
 * immediately preceding residual add (only copies in between). Eager Llama ends a layer with
 * down GEMM -> add and starts the next with the RMSNorm run; torch.compile and SGLang fuse that
 * add into the norm kernel (add+rmsnorm); with this rule both give [add, norm, ...] ... [down]
 * per layer, and the final add joins the final norm in the epilogue on every side. A boundary
 * that does not fall on a norm moves back onto a norm that directly precedes it (post-norm
 * models such as BERT: the module call starts at the QKV GEMM right after the previous
 * layer's output LayerNorm), so module ranges and anchors agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure_int.h"

#define NORM_ATOMS (ATOM_BIT(ATOM_RMSNORM) | ATOM_BIT(ATOM_LAYERNORM))
#define MLP_ATOMS                                                         \
	(ATOM_BIT(ATOM_SILU) | ATOM_BIT(ATOM_GELU) | ATOM_BIT(ATOM_ACT) | \
	 ATOM_BIT(ATOM_MOE_GEMM) | ATOM_BIT(ATOM_ROUTING))

int step_is_norm(const struct step *s)
{
	return s->cls == CLASS_NORM ||
	       ((s->atoms & NORM_ATOMS) && s->cls != CLASS_GEMM && s->cls != CLASS_ATTENTION);
}

int step_is_mlp(const struct step *s)
{
	switch (s->cls) {
	case CLASS_ACTIVATION:
	case CLASS_MOE_ROUTING:
	case CLASS_MOE_GEMM:
	case CLASS_MOE_FINALIZE: return 1;
	case CLASS_NORM:
	case CLASS_ATTENTION:
	case CLASS_ROPE: return 0;
	default: return (s->atoms & MLP_ATOMS) != 0;
	}
}

int step_is_residual_add(const struct step *s)
{
	atom_set extra =
		s->atoms & ~(ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY));

	return (s->cls == CLASS_ELEMENTWISE || s->cls == CLASS_OTHER) &&
	       (s->atoms & ATOM_BIT(ATOM_ADD)) && !extra;
}

static int is_copy(const struct step *s)
{
	return s->cls == CLASS_COPY;
}

static int is_gemm(const struct step *s)
{
	return s->cls == CLASS_GEMM || s->cls == CLASS_MOE_GEMM;
}

/* The step before b, skipping copies, not below lo; -1 when none. */
static long before_copies(const struct step *st, long b, long lo)
{
	long j = b - 1;

	while (j >= lo && is_copy(&st[j]))
		j--;
	return j >= lo ? j : -1;
}

/* Move boundary b (not below lo) to the canonical place: onto a norm that directly precedes
 * it, then onto the residual add that directly precedes that norm. */
static uint32_t canonical(const struct layer_input *in, uint32_t b, uint32_t lo)
{
	const struct step *st = in->steps;
	long j;

	if (b >= in->n)
		return b;
	if (!step_is_norm(&st[b]) && (j = before_copies(st, b, lo)) >= 0 && step_is_norm(&st[j]))
		b = (uint32_t)j;
	if (step_is_norm(&st[b]) && (j = before_copies(st, b, lo)) >= 0 &&
	    step_is_residual_add(&st[j]))
		b = (uint32_t)j;
	return b;
}

/* Norm steps in [lo, hi). */
static uint32_t count_norms(const struct step *st, uint32_t lo, uint32_t hi)
{
	uint32_t n = 0;

	for (uint32_t i = lo; i < hi; i++)
		n += step_is_norm(&st[i]);
	return n;
}

/* The cut between anchors lo and hi (exclusive): see the file comment. */
static uint32_t cut_between(const struct step *st, uint32_t lo, uint32_t hi)
{
	long mlp = -1, last_norm = -1, last_res = -1;

	for (uint32_t i = lo + 1; i < hi; i++)
		if (step_is_mlp(&st[i]))
			mlp = i;
	if (mlp >= 0)
		for (uint32_t i = (uint32_t)mlp + 1; i < hi; i++)
			if (step_is_norm(&st[i]))
				return i;
	for (uint32_t i = lo + 1; i < hi; i++) {
		long j;

		if (!step_is_norm(&st[i]))
			continue;
		last_norm = i;
		if ((st[i].atoms & ATOM_BIT(ATOM_ADD)) ||
		    ((j = before_copies(st, i, lo + 1)) >= 0 && step_is_residual_add(&st[j])))
			last_res = i;
	}
	if (last_res >= 0)
		return (uint32_t)last_res;
	if (last_norm >= 0)
		return (uint32_t)last_norm;
	return hi;
}

/* Attention anchors: main attention steps, one per run of attention without a GEMM between. */
static size_t attention_anchors(const struct layer_input *in, uint32_t *a)
{
	size_t n = 0;
	int gemm_since = 1;

	for (uint32_t i = 0; i < in->n; i++) {
		const struct step *s = &in->steps[i];

		if (s->cls == CLASS_ATTENTION) {
			if (gemm_since)
				a[n++] = i;
			gemm_since = 0;
		} else if (is_gemm(s)) {
			gemm_since = 1;
		}
	}
	return n;
}

/* Whether an MLP step (activation, MoE) runs in steps lo..hi-1. */
static int mlp_between(const struct step *st, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo; i < hi; i++)
		if (step_is_mlp(&st[i]))
			return 1;
	return 0;
}

/* One anchor per block when blocks attend twice (self-attention, then cross-attention: a DiT
 * such as Wan's, an encoder-decoder's decoder): when some anchors follow the previous one
 * with an MLP step between and others without, an anchor without one is the block's second
 * attention and starts no layer (when at least about half the gaps have none); the first anchor stays when no MLP follows it before the
 * next (it is a block's first attention), else the recording started inside a block. Models
 * with one attention per block (an MLP between every two anchors) and blocks whose MLP is
 * hidden in other kernels (no MLP step anywhere) keep every anchor. Returns the new count. */
static size_t one_anchor_per_block(const struct layer_input *in, uint32_t *a, size_t na)
{
	size_t with = 0, n = 0;

	if (na < 3)
		return na;
	for (size_t i = 1; i < na; i++)
		with += (size_t)mlp_between(in->steps, a[i - 1], a[i]);
	/* about one gap in two without an MLP: a few (an MLP kernel launched late, a mixed
	 * batch) do not make blocks that attend twice */
	if (with == 0 || (na - 1 - with) + 1 < with)
		return na;
	for (size_t i = 0; i < na; i++) {
		int keep = i == 0 ? !mlp_between(in->steps, a[0], a[1])
				  : mlp_between(in->steps, a[i - 1], a[i]);

		if (keep)
			a[n++] = a[i];
	}
	return n;
}

struct occ {
	uint32_t name, pos;
};

static int cmp_occ(const void *pa, const void *pb)
{
	const struct occ *x = pa, *y = pb;
	int r = CMP(x->name, y->name);

	return r ? r : CMP(x->pos, y->pos);
}

#define HASH_MUL 0x100000001b3ULL

#define SOFTMAX_KEY UINT32_MAX

/* The key of a step for the period: its main kernel's name, except that every attention
 * softmax is one key (prefill and decode run differently named softmax kernels). */
static uint32_t softmax_key(const struct step *s, uint32_t name)
{
	return (s->atoms & ATOM_BIT(ATOM_SOFTMAX)) && s->cls != CLASS_MOE_ROUTING ? SOFTMAX_KEY
										  : name;
}

/* Period anchors: the occurrences of the kernel name that splits the steps into the most
 * identical segments (at least 3 steps each), softmax preferred. strict: every segment the
 * same (one pass); else most of them (a whole trace: the segments that hold the end of one
 * pass and the start of the next differ), and softmax first. */
static size_t period_anchors(const struct layer_input *in, uint32_t *a, int strict)
{
	size_t n = in->n, best_k = 0, best_first = 0;
	int best_soft = 0;
	uint32_t best_name = 0;
	uint64_t *h = xmalloc((n + 1) * sizeof *h), *pw = xmalloc((n + 1) * sizeof *pw);
	struct occ *o = xmalloc((n ? n : 1) * sizeof *o);

	h[0] = 0;
	pw[0] = 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t sig = ((uint64_t)in->steps[i].cls << 32 | in->steps[i].atoms) + 1;

		h[i + 1] = h[i] * HASH_MUL + sig;
		pw[i + 1] = pw[i] * HASH_MUL;
		o[i] = (struct occ){ softmax_key(&in->steps[i], in->main_name[i]), (uint32_t)i };
	}
	if (n)
		qsort(o, n, sizeof *o, cmp_occ);
	for (size_t g = 0; g < n;) {
		size_t e = g, k, votes = 0, same = 0, period = 0;
		uint64_t cand = 0;
		int ok, soft;

		while (e < n && o[e].name == o[g].name)
			e++;
		k = e - g;
		/* the majority segment (length and contents), by Boyer-Moore vote */
		for (size_t j = g + 1; j < e; j++) {
			uint32_t l = o[j - 1].pos, len = o[j].pos - l;
			uint64_t seg = (h[l + len] - h[l] * pw[len]) ^
				       ((uint64_t)len * 0x9e3779b97f4a7c15ULL);

			if (votes == 0)
				cand = seg, period = len;
			votes += seg == cand ? 1 : (size_t)-1;
		}
		for (size_t j = g + 1; j < e; j++) {
			uint32_t l = o[j - 1].pos, len = o[j].pos - l;
			uint64_t seg = (h[l + len] - h[l] * pw[len]) ^
				       ((uint64_t)len * 0x9e3779b97f4a7c15ULL);

			same += seg == cand;
		}
		/* one pass (strict): at least three identical segments that cover half of its
		 * steps, or the "layers" are a coincidence of a model without repeated blocks */
		ok = k >= 2 && period >= 3 &&
		     (strict ? same == k - 1 && k >= 3 && (k - 1) * period * 2 >= n
			     : same * 2 > k - 1 && same >= 2);
		soft = ok && (in->steps[o[g].pos].atoms & ATOM_BIT(ATOM_SOFTMAX));
		if (ok && (strict ? (k > best_k || (k == best_k && soft > best_soft))
				  : (soft > best_soft || (soft == best_soft && k > best_k)))) {
			best_k = k;
			best_soft = soft;
			best_first = o[g].pos;
			best_name = o[g].name;
		} else if (ok && k == best_k && soft == best_soft && o[g].pos < best_first) {
			best_first = o[g].pos;
			best_name = o[g].name;
		}
		g = e;
	}
	if (best_k) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (softmax_key(&in->steps[i], in->main_name[i]) == best_name)
				a[m++] = (uint32_t)i;
	}
	free(h);
	free(pw);
	free(o);
	return best_k;
}

/* Cuts from anchors a[0..na). */
static void cuts_from_anchors(const struct layer_input *in, const uint32_t *a, size_t na,
			      struct layer_cuts *out)
{
	const struct step *st = in->steps;
	uint32_t *c = out->cut;

	out->n = (uint32_t)na;
	for (size_t i = 1; i < na; i++)
		c[i] = cut_between(st, a[i - 1], a[i]);
	if (na >= 2) {
		/* as many norms before the first anchor as the second layer has before its */
		uint32_t want = count_norms(st, c[1], a[1]), seen = 0;
		long i;

		c[0] = a[0];
		for (i = (long)a[0] - 1; i >= 0 && seen < want; i--)
			if (step_is_norm(&st[i]) && ++seen == want)
				c[0] = (uint32_t)i;
		if (seen < want && mlp_between(st, 0, a[0]))
			/* the recording started inside a block: its end (up to its MLP) stays in
			 * the prologue, the first layer starts at the norm after it */
			c[0] = cut_between(st, 0, a[0]);
		else if (seen < want)
			c[0] = a[0] >= a[1] - c[1] ? a[0] - (a[1] - c[1]) : 0;
		/* the epilogue: one norm more after the last anchor than the layers have */
		want = count_norms(st, a[na - 2] + 1, c[na - 1]) + 1;
		seen = 0;
		out->epi = UINT32_MAX;
		for (uint32_t j = a[na - 1] + 1; j < in->n; j++)
			if (step_is_norm(&st[j]) && ++seen == want) {
				out->epi = j;
				break;
			}
		if (out->epi == UINT32_MAX) {
			uint32_t len = c[na - 1] - c[na - 2];

			out->epi = c[na - 1] + len < in->n ? c[na - 1] + len : (uint32_t)in->n;
		}
	} else {
		long mlp = -1;

		c[0] = a[0];
		for (uint32_t i = 0; i < a[0]; i++)
			if (step_is_norm(&st[i])) {
				c[0] = i;
				break;
			}
		out->epi = (uint32_t)in->n;
		for (uint32_t j = a[0] + 1; j < in->n; j++) {
			if (mlp < 0 && step_is_mlp(&st[j]))
				mlp = j;
			else if (mlp >= 0 && step_is_norm(&st[j])) {
				out->epi = j;
				break;
			}
		}
	}
}

/* Cuts from layer module calls; 0 when the calls are not in order. The last layer of a stack
 * ends after the last step launched inside it when another stack follows. */
static int cuts_from_modules(const struct layer_input *in, struct layer_cuts *out)
{
	int32_t cur = -1;
	uint32_t last = 0;

	out->n = 0;
	for (uint32_t i = 0; i < in->n; i++) {
		int32_t m = in->module_layer[i];

		if (m < 0)
			continue;
		if (m != cur) {
			uint16_t st = in->call_stack ? in->call_stack[m] : 0;

			if (m < cur)
				return 0;
			if (out->n)
				out->end[out->n - 1] = st != out->stack[out->n - 1] ? last + 1 : i;
			out->stack[out->n] = st;
			out->cut[out->n++] = i;
			cur = m;
		}
		last = i;
	}
	out->epi = last + 1;
	if (out->n)
		out->end[out->n - 1] = out->epi;
	return out->n > 0;
}

/* Ends that are the next layer's cut (or the epilogue) again, after the cuts moved. */
static void link_ends(struct layer_cuts *out)
{
	for (uint32_t i = 0; i + 1 < out->n; i++)
		if (out->stack[i] == out->stack[i + 1])
			out->end[i] = out->cut[i + 1];
	if (out->n)
		out->end[out->n - 1] = out->epi;
}

/* Apply the cut rule to every boundary (a stack's end too); keep them strictly increasing. */
static int canonicalize(const struct layer_input *in, struct layer_cuts *out)
{
	uint32_t lo = 0;

	for (uint32_t i = 0; i < out->n; i++) {
		out->cut[i] = canonical(in, out->cut[i], lo);
		if (out->cut[i] < lo || out->cut[i] >= in->n)
			return 0;
		lo = out->cut[i] + 1;
		if (i + 1 < out->n && out->stack[i] != out->stack[i + 1]) {
			out->end[i] = canonical(in, out->end[i], lo);
			if (out->end[i] < lo || out->end[i] > in->n)
				return 0;
			lo = out->end[i];
		}
	}
	out->epi = canonical(in, out->epi, lo);
	link_ends(out);
	return out->epi >= lo && out->epi <= in->n;
}

void layers_find(const struct layer_input *in, struct layer_cuts *out)
{
	uint32_t *a = xmalloc((in->n ? in->n : 1) * sizeof *a);
	size_t na;

	memset(out, 0, sizeof *out);
	out->cut = xmalloc((in->n ? in->n : 1) * sizeof *out->cut);
	out->end = xmalloc((in->n ? in->n : 1) * sizeof *out->end);
	out->stack = xcalloc(in->n ? in->n : 1, sizeof *out->stack);
	out->how = LAYER_SRC_NONE;
	out->epi = (uint32_t)in->n;
	if (in->n == 0)
		goto done;
	if (in->module_layer && cuts_from_modules(in, out) && canonicalize(in, out)) {
		out->how = LAYER_SRC_MODULE;
		goto done;
	}
	memset(out->stack, 0, (in->n ? in->n : 1) * sizeof *out->stack);
	if ((na = attention_anchors(in, a)) > 0) {
		out->how = LAYER_SRC_ANCHOR;
		na = one_anchor_per_block(in, a, na);
	} else if ((na = period_anchors(in, a, 1)) > 0)
		out->how = LAYER_SRC_PERIOD;
	if (na > 0) {
		cuts_from_anchors(in, a, na, out);
		if (!canonicalize(in, out)) {
			/* degenerate: cut at the anchors themselves */
			memcpy(out->cut, a, na * sizeof *a);
			out->n = (uint32_t)na;
			out->epi = (uint32_t)in->n;
			link_ends(out);
		}
		goto done;
	}
	out->n = 0;
	out->epi = (uint32_t)in->n;
done:
	if (out->how == LAYER_SRC_ANCHOR || out->how == LAYER_SRC_PERIOD) {
		/* layers found without module ranges must show a repeated structure: at least
		 * three of them, over at least half of the pass's kernel time (one attention
		 * kernel in a micro-benchmark is no layer) */
		int64_t all = 0, in_layers = 0;

		for (size_t i = 0; i < in->n; i++) {
			all += in->steps[i].dur;
			if (out->n && i >= out->cut[0] && i < out->epi)
				in_layers += in->steps[i].dur;
		}
		if (out->n < 3 || 2 * in_layers < all)
			out->how = LAYER_SRC_NONE;
	}
	if (out->how == LAYER_SRC_NONE) {
		out->n = 0; /* everything in the prologue */
		out->epi = (uint32_t)in->n;
	}
	free(a);
}

size_t layers_pass_starts(const struct layer_input *in, const int64_t *gap_before, uint32_t *starts)
{
	uint32_t *a = xmalloc((in->n ? in->n : 1) * sizeof *a);
	uint32_t *norms, *hist, j = 0, best = 0;
	size_t na = attention_anchors(in, a), n = 0;

	if (na < 3)
		na = period_anchors(in, a, 0);
	if (na < 3) {
		free(a);
		return 0;
	}
	/* norms between each layer's cut and its anchor; the usual count is the template */
	norms = xmalloc(na * sizeof *norms);
	hist = xcalloc(in->n + 1, sizeof *hist);
	for (size_t i = 1; i < na; i++) {
		norms[i] = count_norms(in->steps, cut_between(in->steps, a[i - 1], a[i]), a[i]);
		if (++hist[norms[i]] > best || (hist[norms[i]] == best && norms[i] < j)) {
			best = hist[norms[i]];
			j = norms[i];
		}
	}
	/* before the first anchor: a recording that starts inside a pass holds the end of it
	 * (with its final norm) and the start of the next one; the new pass starts at its
	 * embedding lookup (without one, the stretch is a prologue that has a norm of its own) */
	if (count_norms(in->steps, 0, a[0]) > j) {
		uint32_t seen = 0, real = a[0], emb = 0;

		for (uint32_t k = a[0]; k-- > 0 && seen < j;)
			if (step_is_norm(&in->steps[k]) && ++seen == j)
				real = k;
		for (uint32_t k = 1; k <= real && !emb; k++)
			if (in->steps[k].cls == CLASS_EMBEDDING && count_norms(in->steps, 0, k) > 0)
				emb = k;
		if (emb)
			starts[n++] = emb;
	}
	for (size_t i = 1; i < na; i++) {
		uint32_t c = cut_between(in->steps, a[i - 1], a[i]), real = a[i], seen = 0, at;

		if (norms[i] <= j)
			continue;
		/* the layer really starts j norms before its anchor; before that: the epilogue of
		 * one pass and the prologue of the next, split where the GPU idled longest */
		for (uint32_t k = a[i]; k-- > c && seen < j;)
			if (step_is_norm(&in->steps[k]) && ++seen == j)
				real = k;
		at = c + 1;
		for (uint32_t k = c + 1; k <= real; k++)
			if (gap_before[k] > gap_before[at])
				at = k;
		/* an embedding lookup is where a pass starts, whatever the gaps say */
		for (uint32_t k = c + 1; k <= real; k++)
			if (in->steps[k].cls == CLASS_EMBEDDING) {
				at = k;
				break;
			}
		starts[n++] = at;
	}
	free(norms);
	free(hist);
	free(a);
	return n;
}

void layer_cuts_clear(struct layer_cuts *c)
{
	free(c->cut);
	free(c->end);
	free(c->stack);
	memset(c, 0, sizeof *c);
}
