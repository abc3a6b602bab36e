/* fusion.c — fusion patterns from the aligned pairs (see fusion_int.h). */
#include "fusion_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/align.h"
#include "fusediff/op_args.h"
#include "fusediff/text.h"

void fusion_mark_repeats(const struct comparison *c, struct fusion_hint *h, unsigned window)
{
	if (!window)
		window = 3;
	for (size_t g = 0; g < c->n_pairs; g++) {
		const struct comparison_pair *gp = &c->pairs[g];
		int s = gp->kind == PAIR_A_ONLY ? 0 : 1;
		size_t best = SIZE_MAX;

		h[g].repeat_of = -1;
		if ((gp->kind != PAIR_A_ONLY && gp->kind != PAIR_B_ONLY) || h[g].steps[s] != 1)
			continue;
		for (size_t d = 1; d <= window && best == SIZE_MAX; d++)
			for (int dir = -1; dir <= 1 && best == SIZE_MAX; dir += 2) {
				size_t m;

				if (dir < 0 ? g < d : g + d >= c->n_pairs)
					continue;
				m = dir < 0 ? g - d : g + d;
				if (c->pairs[m].layer != gp->layer ||
				    c->pairs[m].kind != PAIR_MATCH || h[m].steps[s] != 1 ||
				    h[m].cls[s] != h[g].cls[s] || h[m].atoms[s] != h[g].atoms[s] ||
				    h[m].main_name[s] != h[g].main_name[s] || !h[g].atoms[s])
					continue;
				best = m;
			}
		if (best != SIZE_MAX)
			h[g].repeat_of = (int64_t)best;
	}
}

/* How far (in pairs) a gap repeating a matched pair can be from it: fusion_mark_repeats()
 * looks a few entries away. */
#define NEAR 32

/* A fused or partially fused pair with the gap pairs that belong to it, before grouping. */
struct pattern {
	uint8_t fused_side, partial, cls, horizontal, proof;
	uint32_t per_place; /* the unfused side's working kernels at this place */
	uint32_t *others;   /* distinct unfused name ids, sorted */
	uint32_t n_others;
	uint32_t pair;	  /* the fused (or matched) pair */
	uint32_t *linked; /* gap pairs that belong to it */
	uint32_t n_linked;
};

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return CMP(a, b);
}

static int cmp_pattern(const void *pa, const void *pb)
{
	const struct pattern *a = pa, *b = pb;
	int c = CMP(a->fused_side, b->fused_side);

	if (!c)
		c = CMP(a->partial, b->partial);
	if (!c)
		c = CMP(a->horizontal, b->horizontal);
	if (!c)
		c = CMP(a->cls, b->cls);
	if (!c)
		c = CMP(a->per_place, b->per_place);
	if (!c)
		c = CMP(a->n_others, b->n_others);
	for (uint32_t i = 0; !c && i < a->n_others; i++)
		c = CMP(a->others[i], b->others[i]);
	return c ? c : CMP(a->pair, b->pair);
}

static int same_pattern(const struct pattern *a, const struct pattern *b)
{
	return a->fused_side == b->fused_side && a->partial == b->partial &&
	       a->horizontal == b->horizontal && a->cls == b->cls && a->per_place == b->per_place &&
	       a->n_others == b->n_others &&
	       memcmp(a->others, b->others, a->n_others * sizeof *a->others) == 0;
}

static void add_linked(struct pattern *pt, uint32_t pair)
{
	pt->linked = xreallocarray(pt->linked, pt->n_linked + 1, sizeof *pt->linked);
	pt->linked[pt->n_linked++] = pair;
}

/* op_args_each_shape(): keep the number of elements of the largest shape in *ctx. */
static int take_largest(const struct op_arg *shape, void *ctx)
{
	double *best = ctx, x = 1;

	for (int i = 0; i < shape->nd; i++)
		x *= (double)shape->d[i];
	if (shape->nd && x > *best)
		*best = x;
	return 0;
}

/* The number of elements of the largest tensor in an Input Dims text ("[[4,512],[64],[]]":
 * 2048), those in lists of tensors included; 0 when it names none. */
static double largest_tensor(const char *dims)
{
	double best = 0;

	op_args_each_shape(dims, take_largest, &best);
	return best;
}

/* The largest tensor that side s's first kernel of pair p was launched with (its operator's
 * Input Dims), 0 when the trace did not record it. */
static double pair_tensor(const struct comparison *c, const struct comparison_pair *p, int s)
{
	const struct trace *t = c->side[s]->t;
	const struct trace_op *op;

	if (!p->side[s].n_inst)
		return 0;
	op = trace_find_op(t, t->kernels[p->side[s].inst[0].kernel].external_id);
	return op && op->input_dims ? largest_tensor(trace_str(t, op->input_dims)) : 0;
}

/* Pattern pt of match pair i (one side launches a kernel per_place times where the other
 * launches it once) can be the same work: where both sides recorded their tensors, the one
 * launch's largest is at least the other side's and at most per_place times it. A KV-cache
 * append of k and v ([4,4,512,128] each) is not a repeat_kv expand of v ([4,16,512,128]). */
static int partial_sizes_fit(const struct comparison *c, size_t i, const struct pattern *pt)
{
	double once = pair_tensor(c, &c->pairs[i], pt->fused_side),
	       more = pair_tensor(c, &c->pairs[i], !pt->fused_side);

	return !once || !more || (once >= more && once <= more * pt->per_place);
}

/* The pattern of pair i, or 0 when the pair is no fusion. */
static int pattern_of(const struct comparison *c, const struct fusion_hint *h, size_t i,
		      struct pattern *pt)
{
	const struct comparison_pair *p = &c->pairs[i];
	uint32_t *names = NULL;
	size_t n_names = 0, cap = 0;
	int os;

	memset(pt, 0, sizeof *pt);
	pt->pair = (uint32_t)i;
	pt->cls = p->cls;
	/* Repeats are a few pairs away (fusion_mark_repeats() looks at most a few entries
	 * away): no need to scan every pair. */
	size_t lo = i > NEAR ? i - NEAR : 0, hi = i + NEAR < c->n_pairs ? i + NEAR + 1 : c->n_pairs;

	if (p->kind == PAIR_FUSED) {
		pt->fused_side = h[i].fused_side;
		pt->horizontal = h[i].horizontal;
		pt->proof = h[i].proof;
	} else if (p->kind == PAIR_MATCH) {
		for (size_t j = lo; j < hi; j++)
			if (h[j].repeat_of == (int64_t)i &&
			    (!pt->n_linked || c->pairs[j].kind == c->pairs[pt->linked[0]].kind))
				add_linked(pt, (uint32_t)j);
		if (pt->n_linked) {
			/* Gaps on A repeat A's step: B is the side that launches less often. */
			pt->fused_side =
				c->pairs[pt->linked[0]].kind == PAIR_A_ONLY ? SIDE_B : SIDE_A;
		} else if (h[i].atoms[0] == h[i].atoms[1] && h[i].occ[0] && h[i].occ[1]) {
			/* working kernels per occurrence of the step (per pass figures would mix in the
			 * two sides' pass counts) */
			double w0 = h[i].work[0] * c->passes[0] / h[i].occ[0],
			       w1 = h[i].work[1] * c->passes[1] / h[i].occ[1];

			if (!(w0 >= 2 * w1 || w1 >= 2 * w0))
				return 0;
			pt->fused_side = w0 < w1 ? SIDE_A : SIDE_B;
		} else {
			return 0;
		}
		pt->partial = 1;
	} else {
		return 0;
	}
	os = !pt->fused_side;
	{
		/* the unfused side's working kernels per place: places that differ are separate
		 * findings, so that every count reported is whole */
		double ow = h[i].work[os], fw = h[i].work[pt->fused_side];

		for (uint32_t k = 0; k < pt->n_linked; k++)
			ow += h[pt->linked[k]].work[os];
		pt->per_place = fw > 0 ? (uint32_t)llround(ow / fw) : 0;
	}
	if (pt->partial && !partial_sizes_fit(c, i, pt)) {
		free(pt->linked);
		pt->linked = NULL;
		return 0;
	}
	for (uint32_t k = 0; k <= pt->n_linked; k++) {
		const struct comparison_part *part =
			&c->pairs[k < pt->n_linked ? pt->linked[k] : i].side[os];

		for (uint32_t j = 0; j < part->n_names; j++)
			VEC_PUSH(names, n_names, cap, part->names[j]);
	}
	if (n_names)
		qsort(names, n_names, sizeof *names, cmp_u32);
	pt->others = xcalloc(n_names + 1, sizeof *pt->others);
	for (size_t j = 0; j < n_names; j++)
		if (!pt->n_others || pt->others[pt->n_others - 1] != names[j])
			pt->others[pt->n_others++] = names[j];
	free(names);
	return 1;
}

/* Microseconds as the reports and the explorer print them (text_us, text_signed_us: "0.85",
 * "+12.3"), then " us". */
static void us_text(char *buf, size_t cap, double ns, int sign)
{
	char n[40];

	if (sign)
		text_signed_us(n, sizeof n, ns);
	else
		text_us(n, sizeof n, ns);
	snprintf(buf, cap, "%s us", n);
}

static char *escaped_short(const struct comparison *c, int s, uint32_t name)
{
	const char *n = comparison_short_name(c, s, name);

	return text_escape_dup(n, strlen(n));
}

/* The sentence that explains fusion f (its counts are whole: f->per_place kernels at each
 * place); n_fused_names: distinct fused kernels grouped in the pattern; extra[s]: the one-sided
 * kernels of side s per pass that the fusion covers (f->extra pairs), said rounded. */
static char *evidence_sentence(const struct comparison *c, const struct comparison_fusion *f,
			       uint32_t n_fused_names, const double extra[2])
{
	const int fs = f->fused_side, os = !fs;
	char *fused = escaped_short(c, fs, f->fused_name), *others = xstrdup(""), *more, *out;
	char atoms[256], where[256], ta[48], tb[48], td[48], nk[32], times[32], also[160] = "";

	for (uint32_t i = 0; i < f->n_unfused; i++) {
		char *e = escaped_short(c, os, f->unfused_names[i]);
		char *n = xasprintf("%s%s%s", others, i ? ", " : "", e);

		free(e);
		free(others);
		others = n;
	}
	more = n_fused_names > 2 ? xasprintf(" (or one of %u similar kernels)", n_fused_names - 1)
	       : n_fused_names == 2 ? xstrdup(" (or a similar kernel)")
				    : xstrdup("");
	atoms_format(f->atoms, "+", atoms, sizeof atoms);
	comparison_layer_text(c, f->layers, f->n_layers, where, sizeof where);
	us_text(ta, sizeof ta, f->ns[SIDE_A], 0);
	us_text(tb, sizeof tb, f->ns[SIDE_B], 0);
	us_text(td, sizeof td, f->delta_ns, 1);
	snprintf(nk, sizeof nk, "%u", f->per_place);
	if (f->occurrences == 1)
		snprintf(times, sizeof times, "once");
	else
		snprintf(times, sizeof times, "%u times", f->occurrences);
	for (int s = 0, n = 0; s < 2; s++) {
		char k[32];

		snprintf(k, sizeof k, "%lld", (long long)llround(extra[s])); /* per pass */
		if (extra[s] <= 0 || strcmp(k, "0") == 0)
			continue;
		snprintf(also + strlen(also), sizeof also - strlen(also),
			 "%s%c runs %s more %s kernel%s there (in the net)", n++ ? ", " : "; ",
			 "AB"[s], k, class_name((enum op_class)f->cls),
			 strcmp(k, "1") == 0 ? "" : "s");
	}
	if (f->partial)
		out = xasprintf(
			"%c (%s) launches %s kernel%s (%s) at each place where %c (%s) "
			"launches %s%s once for the same work (%s), %s per pass in %s%s; per "
			"pass A %s, B %s, B - A %s.",
			"AB"[os], c -> label[os], nk, strcmp(nk, "1") == 0 ? "" : "s", others,
			"AB"[fs], c -> label[fs], fused, more, atoms, times, where, also, ta, tb,
			td);
	else if (f->horizontal)
		out = xasprintf("%c (%s) runs %s%s as one merged GEMM where %c (%s) runs %s "
				"GEMMs on the same input (%s), %s per pass in %s%s; per pass A %s, "
				"B %s, B - A %s.",
				"AB"[fs], c -> label[fs], fused, more, "AB"[os], c -> label[os], nk,
				others, times, where, also, ta, tb, td);
	else
		out = xasprintf("%c (%s) runs %s%s (%s) as one kernel where %c (%s) runs %s "
				"kernel%s for the same work (%s), %s per pass in %s%s; per pass A "
				"%s, B %s, B - A %s.",
				"AB"[fs], c -> label[fs], fused, more, atoms, "AB"[os],
				c -> label[os], nk, strcmp(nk, "1") == 0 ? "" : "s", others, times,
				where, also, ta, tb, td);
	free(fused);
	free(others);
	free(more);
	return out;
}

const char *comparison_proof_name(const struct comparison_fusion *f)
{
	return f->partial ? "launches" : align_proof_name(f->proof);
}

const char *comparison_proof_text(const struct comparison_fusion *f, char *buf, size_t cap)
{
	char atoms[128];
	atom_set work = f->atoms & ~(ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY));

	if (f->proof == PROOF_CLASS_WORK && (work & align_class_work(f->cls)))
		work &= align_class_work(f->cls);
	atoms_format(work, "+", atoms, sizeof atoms);
	if (f->partial)
		snprintf(buf, cap, "the same kernel launched more often on one side");
	else if (f->proof == PROOF_HORIZONTAL)
		snprintf(buf, cap, "separate GEMMs on the same input against one merged GEMM");
	else if (f->proof == PROOF_MATH_ATTN)
		snprintf(buf, cap,
			 "the unfused kernels are eager attention: its GEMMs and softmax");
	else if (f->proof == PROOF_CLASS_WORK)
		snprintf(buf, cap,
			 "the other side's working kernels (two or more; casts, copies and "
			 "one-block "
			 "helpers do not count) do its %s work (%s)",
			 class_name((enum op_class)f->cls), atoms);
	else if (f->proof == PROOF_OPS)
		snprintf(buf, cap,
			 "the other side's working kernels (two or more) do two or more of its "
			 "operations (of %s)",
			 atoms);
	else
		snprintf(buf, cap, "none");
	return buf;
}

static void fusion_clear(struct comparison_fusion *f)
{
	free(f->unfused_names);
	free(f->layers);
	free(f->pairs);
	free(f->evidence);
}

struct fusion_sort {
	struct comparison_fusion f;
	const char *name;
	double per_occ;	  /* the unfused side's working kernels per occurrence */
	uint32_t n_fused; /* distinct fused kernels */
};

static int cmp_fusion_sort(const void *pa, const void *pb)
{
	const struct fusion_sort *a = pa, *b = pb;
	double da = fabs(a->f.delta_ns), db = fabs(b->f.delta_ns);
	int c = CMP(db, da);

	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : CMP(a->f.pairs[0], b->f.pairs[0]);
}

static void push_u32(uint32_t **v, uint32_t *n, uint32_t x)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = x;
}

/* One fusion from the patterns pat[0..n) (all the same pattern). */
static struct comparison_fusion group(const struct comparison *c, const struct fusion_hint *h,
				      const struct pattern *pat, size_t n, double *per_occ,
				      uint32_t *n_fused)
{
	struct comparison_fusion f = { .fused_side = pat[0].fused_side,
				       .partial = pat[0].partial,
				       .atoms = ~(atom_set)0 };
	const int fs = f.fused_side, os = !fs;
	uint32_t *all = NULL, n_all = 0, *fused_names = NULL, n_fused_names = 0;
	double occ = 0;

	for (size_t k = 0; k < n; k++) {
		push_u32(&all, &n_all, pat[k].pair);
		for (uint32_t j = 0; j < pat[k].n_linked; j++)
			push_u32(&all, &n_all, pat[k].linked[j]);
	}
	qsort(all, n_all, sizeof *all, cmp_u32);
	for (uint32_t k = 0, next = 0; k < n_all; k++) {
		const struct comparison_pair *p = &c->pairs[all[k]];
		const struct comparison_part *part = &p->side[os];
		int anchor;
		uint32_t x;

		/* pat[] is sorted by pair within a pattern, like all[]: walk both */
		while (next < n && pat[next].pair < all[k])
			next++;
		anchor = next < n && pat[next].pair == all[k];
		push_u32(&f.pairs, &f.n_pairs, all[k]);
		for (uint32_t j = 0; j < part->n_names; j++) {
			for (x = 0; x < f.n_unfused && f.unfused_names[x] != part->names[j]; x++)
				;
			if (x == f.n_unfused)
				push_u32(&f.unfused_names, &f.n_unfused, part->names[j]);
		}
		f.ns[0] += p->side[0].total_ns;
		f.ns[1] += p->side[1].total_ns;
		if (!anchor)
			continue;
		occ += h[all[k]].work[fs];
		f.atoms &= h[all[k]].atoms[fs];
		if (!f.n_layers || f.layers[f.n_layers - 1] != p->layer) {
			f.layers = xreallocarray(f.layers, f.n_layers + 1, sizeof *f.layers);
			f.layers[f.n_layers++] = p->layer;
		}
		for (x = 0; x < n_fused_names && fused_names[x] != h[all[k]].main_name[fs]; x++)
			;
		if (x == n_fused_names)
			push_u32(&fused_names, &n_fused_names, h[all[k]].main_name[fs]);
	}
	f.fused_name = n_fused_names ? fused_names[0] : 0;
	if (f.atoms == ~(atom_set)0)
		f.atoms = 0;
	f.occurrences = (uint32_t)(occ + 0.5);
	f.delta_ns = f.ns[1] - f.ns[0];
	f.cls = pat[0].cls;
	f.horizontal = pat[0].horizontal;
	f.proof = pat[0].partial ? PROOF_NONE : pat[0].proof;
	f.per_place = pat[0].per_place;
	*per_occ = (double)f.per_place;
	*n_fused = n_fused_names;
	free(all);
	free(fused_names);
	return f;
}

/* How far (in pairs of one layer) a one-sided kernel can be from the fused pair it joins. */
#define EXTRA_NEAR 4

/* The work of one-sided pair p is one the fusion f covers: same class, atoms inside. */
static int covers(const struct comparison_fusion *f, const struct comparison_pair *p)
{
	atom_set a = p->atoms & ~(ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY) | ATOM_BIT(ATOM_OTHER));

	if (f->partial || f->horizontal || p->cls != f->cls || !a)
		return 0;
	return (a & ~f->atoms) == 0;
}

/* The one-sided pairs at the places of each fusion whose work it covers join it (the fusion's
 * delta is then net of a side's other kernels for the same operation); extra[2 * i + s]
 * receives side s's added launches per pass of fusion i. */
static void add_extras(struct comparison *c, struct fusion_sort *fs, size_t n_fs, double *extra)
{
	int32_t *taken = xmalloc((c->n_pairs + 1) * sizeof *taken);

	for (size_t i = 0; i < c->n_pairs; i++)
		taken[i] = -1;
	for (size_t i = 0; i < n_fs; i++)
		for (uint32_t k = 0; k < fs[i].f.n_pairs; k++)
			taken[fs[i].f.pairs[k]] = (int32_t)i;
	for (size_t i = 0; i < c->n_layers; i++) {
		const struct comparison_layer *l = &c->layers[i];

		for (uint32_t k = l->pair_first; k < l->pair_first + l->pair_n; k++) {
			const struct comparison_pair *p = &c->pairs[k];
			int s = p->kind == PAIR_A_ONLY ? SIDE_A : SIDE_B;

			if (taken[k] >= 0 || (p->kind != PAIR_A_ONLY && p->kind != PAIR_B_ONLY))
				continue;
			/* the fusion at this layer that covers it: the one nearest in the layer, a
			 * few pairs away at most */
			for (size_t d = 1; d < l->pair_n && d <= EXTRA_NEAR && taken[k] < 0; d++)
				for (int dir = -1; dir <= 1 && taken[k] < 0; dir += 2) {
					size_t q = dir < 0 ? k - d : k + d;
					struct comparison_fusion *f;

					if ((dir < 0 && (k < d || q < l->pair_first)) ||
					    (dir > 0 && q >= l->pair_first + l->pair_n))
						continue;
					if (taken[q] < 0 || c->pairs[q].kind != PAIR_FUSED)
						continue;
					f = &fs[taken[q]].f;
					if (!covers(f, p))
						continue;
					taken[k] = taken[q];
					f->pairs = xreallocarray(f->pairs, f->n_pairs + 1,
								 sizeof *f->pairs);
					f->pairs[f->n_pairs++] = (uint32_t)k;
					f->extra++;
					f->ns[0] += p->side[0].total_ns;
					f->ns[1] += p->side[1].total_ns;
					f->delta_ns = f->ns[1] - f->ns[0];
					extra[2 * (size_t)taken[q] + s] += p->side[s].count;
				}
		}
	}
	free(taken);
}

void fusion_build(struct comparison *c, const struct fusion_hint *h)
{
	struct pattern *pat = NULL;
	size_t n_pat = 0, cap_pat = 0;
	struct fusion_sort *fs = NULL;
	size_t n_fs = 0, cap_fs = 0;

	for (size_t i = 0; i < c->n_pairs; i++) {
		struct pattern pt;

		if (pattern_of(c, h, i, &pt))
			VEC_PUSH(pat, n_pat, cap_pat, pt);
	}
	if (n_pat)
		qsort(pat, n_pat, sizeof *pat, cmp_pattern);
	for (size_t g = 0; g < n_pat;) {
		size_t e = g + 1;
		struct comparison_fusion f;
		double per_occ;
		uint32_t n_fused;

		while (e < n_pat && same_pattern(&pat[g], &pat[e]))
			e++;
		f = group(c, h, &pat[g], e - g, &per_occ, &n_fused);
		/* A kernel launched twice in one layer of a many-layer model is noise of the trace
		 * (a replayed or dropped launch), not a way of running the model; a pattern that
		 * does not occur once per pass is not one either. */
		if ((f.partial && f.n_layers < 2 && c->n_layers > 3) || f.occurrences == 0) {
			fusion_clear(&f);
			g = e;
			continue;
		}
		VEC_PUSH(
			fs, n_fs, cap_fs,
			((struct fusion_sort){ f, trace_str(c->side[f.fused_side]->t, f.fused_name),
					       per_occ, n_fused }));
		g = e;
	}
	for (size_t g = 0; g < n_pat; g++) {
		free(pat[g].others);
		free(pat[g].linked);
	}
	free(pat);

	{
		double *extra = xcalloc(2 * n_fs + 2, sizeof *extra);

		add_extras(c, fs, n_fs, extra);
		for (size_t i = 0; i < n_fs; i++) {
			struct comparison_fusion *f = &fs[i].f;
			/* whole: per_place kernels against one at each place, and the one-sided
			 * kernels of the net (rounded per pass) */
			double saved = (double)f->occurrences * ((double)f->per_place - 1) +
				       (double)llround(extra[2 * i + !f->fused_side]) -
				       (double)llround(extra[2 * i + f->fused_side]);

			f->launches_saved = saved > 0 ? saved : 0;
			f->evidence = evidence_sentence(c, f, fs[i].n_fused, extra + 2 * i);
		}
		free(extra);
	}
	if (n_fs)
		qsort(fs, n_fs, sizeof *fs, cmp_fusion_sort);
	c->fusions = xcalloc(n_fs + 1, sizeof *c->fusions);
	c->n_fusions = n_fs;
	c->n_partial = 0;
	for (size_t i = 0; i < n_fs; i++) {
		c->fusions[i] = fs[i].f;
		c->fusions[i].id = (uint32_t)i + 1;
		c->n_partial += fs[i].f.partial;
		for (uint32_t k = 0; k < fs[i].f.n_pairs; k++)
			c->pairs[fs[i].f.pairs[k]].fusion = (int32_t)i;
	}
	free(fs);

	/* Distinct fusions per layer: seen[f] holds the last layer that counted f. */
	{
		size_t *seen = xcalloc(n_fs + 1, sizeof *seen);

		for (size_t k = 0; k < c->n_layers; k++) {
			struct comparison_layer *cl = &c->layers[k];

			cl->n_fusions = 0;
			for (uint32_t i = cl->pair_first; i < cl->pair_first + cl->pair_n; i++) {
				int32_t f = c->pairs[i].fusion;

				if (f >= 0 && seen[f] != k + 1) {
					seen[f] = k + 1;
					cl->n_fusions++;
				}
			}
		}
		free(seen);
	}
}
