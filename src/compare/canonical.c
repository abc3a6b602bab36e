/* canonical.c — each side's compared passes merged per layer into one canonical step
 * sequence (canonical_int.h). The passes of one side are aligned against each other, so that
 * a step present in only some passes gets its own slot instead of shifting the others; a pass
 * that ran exactly the canonical steps costs one entry per layer. */
#include "canonical_int.h"

#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/efficiency.h"

/* The key of layer ly of side s. */
size_t canonical_layer_key(const struct work *w, int s, const struct layer *ly)
{
	uint16_t cs = ly->stack < w->s[s]->n_stacks ? w->cs[s][ly->stack] : 0;

	if (ly->index == LAYER_EPILOGUE)
		return w->epi;
	return w->base[cs] + (ly->index < 0 ? 0 : (size_t)ly->index + w->has_pro[cs]);
}

static uint16_t comparison_stack(struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->n_stacks; i++)
		if (strcmp(c->stacks[i], name) == 0)
			return (uint16_t)i;
	c->stacks = xreallocarray(c->stacks, c->n_stacks + 1, sizeof *c->stacks);
	c->stacks[c->n_stacks] = xstrdup(name);
	return (uint16_t)c->n_stacks++;
}

/* A layer of a compared pass, of side s. */
struct lref {
	int s;
	const struct layer *ly;
};

/* The layers of both sides' compared passes, side A's first, each pass's in the order they
 * run. Owned by caller: free with free(). */
static struct lref *compared_layers(const struct comparison *c, const struct work *w, size_t *n)
{
	struct lref *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (int s = 0; s < 2; s++) {
		const struct side *sd = w->s[s];

		for (size_t p = 0; p < sd->n_passes; p++) {
			const struct pass *ps = &sd->passes[p];

			if (!comparison_pass_compared(c, s, ps))
				continue;
			for (uint32_t l = 0; l < ps->layer_n; l++)
				VEC_PUSH(v, *n, cap,
					 ((struct lref){ s, &sd->layers[ps->layer_first + l] }));
		}
	}
	return v;
}

/* The layers of the comparison: the stacks of both sides' compared passes by name (side A's
 * first, in order of appearance), each with as many layers as the most any pass has, in the
 * order they run (a training step's forward layers and epilogue before its backward part). */
static void make_keys(struct comparison *c, struct work *w)
{
	int32_t *most = NULL;
	size_t next, *order, n_order = 0, epi = 0, n;
	uint8_t *has_pro;
	struct lref *ls = compared_layers(c, w, &n);

	comparison_stack(c, "");
	for (int s = 0; s < 2; s++)
		w->cs[s] = xcalloc(w->s[s]->n_stacks + 1, sizeof *w->cs[s]);
	for (size_t i = 0; i < n; i++) {
		const struct side *sd = w->s[ls[i].s];
		uint16_t st = ls[i].ly->stack < sd->n_stacks ? ls[i].ly->stack : 0;

		w->cs[ls[i].s][st] = comparison_stack(c, sd->stacks[st]);
	}
	most = xcalloc(c->n_stacks, sizeof *most);
	has_pro = xcalloc(c->n_stacks, 1);
	has_pro[0] = 1; /* the pass's prologue, always */
	/* the stacks in the order they run, the epilogue among them (n_stacks stands for it) */
	order = xcalloc(c->n_stacks + 1, sizeof *order);
	for (size_t i = 0; i < n; i++) {
		const struct layer *ly = ls[i].ly;
		uint16_t cs = w->cs[ls[i].s][ly->stack < w->s[ls[i].s]->n_stacks ? ly->stack : 0];
		size_t blk = ly->index == LAYER_EPILOGUE ? c->n_stacks : cs, j;

		if (ly->index >= 0 && ly->index + 1 > most[cs])
			most[cs] = ly->index + 1;
		if (ly->index == LAYER_PROLOGUE)
			has_pro[cs] = 1;
		for (j = 0; j < n_order && order[j] != blk; j++)
			;
		if (j == n_order)
			order[n_order++] = blk;
	}
	free(ls);
	for (size_t st = 0; st <= c->n_stacks; st++) { /* stacks no compared pass has */
		size_t j;

		for (j = 0; j < n_order && order[j] != st; j++)
			;
		if (j == n_order)
			order[n_order++] = st;
	}
	w->base = xcalloc(c->n_stacks, sizeof *w->base);
	next = 0;
	for (size_t j = 0; j < n_order; j++) {
		if (order[j] == c->n_stacks) {
			epi = next++;
			continue;
		}
		w->base[order[j]] = (uint32_t)next;
		next += has_pro[order[j]] + (size_t)most[order[j]];
	}
	w->n_keys = next;
	w->epi = epi;
	w->keys = xcalloc(w->n_keys + 1, sizeof *w->keys);
	for (size_t st = 0; st < c->n_stacks; st++)
		for (int32_t i = has_pro[st] ? -1 : 0; i < most[st]; i++)
			w->keys[w->base[st] + has_pro[st] + i] =
				(struct key){ (uint16_t)st, i < 0 ? LAYER_PROLOGUE : i };
	w->keys[epi] = (struct key){ 0, LAYER_EPILOGUE };
	w->has_pro = has_pro;
	free(order);
	free(most);
}

const char *canonical_kernel_short(const struct side *s, uint32_t kernel)
{
	const struct kernel_info *ki;

	if (s->classes.info_of) {
		ki = trace_classes_get(&s->classes, kernel);
		if (ki->short_name)
			return ki->short_name;
	}
	return trace_str(s->t, s->t->kernels[kernel].name);
}

/* The main kernel of a step (its helpers aside), as an index into t->kernels. */
static uint32_t step_main(const struct side *s, const struct step *st)
{
	return s->order[st->first + (st->main < st->n ? st->main : 0)];
}

/* The GEMM shape of side si's Input Dims text id, parsed once per phase (work.gemm). */
static void gemm_shape(struct work *w, int si, uint32_t id, int64_t *m, int64_t *n, int64_t *k)
{
	const struct trace *t = w->s[si]->t;
	int64_t *v;

	if (!w->gemm[si]) {
		size_t n_ids = (size_t)intern_count(t->strings) + 1;

		w->gemm[si] = xmalloc(n_ids * sizeof *w->gemm[si]);
		w->gemm_known[si] = xcalloc(n_ids, 1);
	}
	v = w->gemm[si][id];
	if (!w->gemm_known[si][id]) {
		if (!eff_gemm_shape(trace_str(t, id), &v[0], &v[1], &v[2]))
			v[0] = v[1] = v[2] = 0;
		w->gemm_known[si][id] = 1;
	}
	*m = v[0], *n = v[1], *k = v[2];
}

/* A step of side si for the alignment: named by its main kernel; a main kernel with helpers does
 * the work of the main kernel only (a workspace memset adds no copy to a GEMM). */
static struct align_item step_item(struct work *w, int si, const struct step *st)
{
	const struct side *s = w->s[si];
	struct align_item it = {
		.cls = st->cls, .kind = st->kind, .n_work = st->n_work, .atoms = st->atoms
	};

	if (st->n) {
		uint32_t k = step_main(s, st);

		it.name = canonical_kernel_short(s, k);
		if (st->kind != STEP_RUN && s->classes.info_of)
			it.atoms = trace_classes_get(&s->classes, k)->atoms;
		if (st->n == 1 && s->t->kernels[k].dims) {
			struct trace_dims d;

			trace_dims_get(s->t, s->t->kernels[k].dims, &d);
			it.tiny = d.grid[0] == 1 && d.grid[1] <= 1 && d.grid[2] <= 1;
		}
		if (st->cls == CLASS_GEMM) {
			const struct trace_op *op =
				trace_find_op(s->t, s->t->kernels[k].external_id);

			if (op && op->input_dims)
				gemm_shape(w, si, op->input_dims, &it.m, &it.n, &it.k);
		}
	}
	return it;
}

static uint32_t step_name(const struct side *s, const struct step *st)
{
	return st->n ? s->t->kernels[step_main(s, st)].name : 0;
}

static void slot_add(struct slot *sl, const struct side *s, uint32_t step, uint32_t pass)
{
	const struct step *st = &s->steps[step];

	VEC_PUSH(sl->occ, sl->n_occ, sl->cap_occ,
		 ((struct occ){ step, pass, st->n ? step_name(s, st) : UINT32_MAX }));
}

/* Move the runs of m into the slots' own lists (before the slots change). */
static void flush_runs(const struct side *s, struct merged_layer *m)
{
	for (size_t r = 0; r < m->n_runs; r++)
		for (size_t i = 0; i < m->n; i++)
			slot_add(&m->slot[i], s, m->runs[r].first + (uint32_t)i, m->runs[r].pass);
	m->n_runs = 0;
}

static int same_item(const struct align_item *a, const struct align_item *b)
{
	return a->cls == b->cls && a->kind == b->kind && a->n_work == b->n_work &&
	       a->atoms == b->atoms && a->covers_math_attn == b->covers_math_attn &&
	       a->gid == b->gid && a->merge == b->merge && a->m == b->m && a->n == b->n &&
	       a->k == b->k && a->tiny == b->tiny &&
	       (a->name == b->name || (a->name && b->name && strcmp(a->name, b->name) == 0));
}

/* The alignment of items[0..n) with m's slots: the last one again when it had the same input
 * (the passes of a model mostly repeat a few shapes of a layer), else align_steps(). Takes
 * items: m->last_in holds the same after. Owned by m. */
static const struct alignment *align_with_slots(struct merged_layer *m, struct align_item *items,
						size_t n)
{
	struct align_opts o = { .no_fused = 1 };
	int same = m->last_in && m->last_n_in == n && m->last_n_canon == m->n;

	for (size_t i = 0; same && i < n; i++)
		same = same_item(&m->last_in[i], &items[i]);
	for (size_t i = 0; same && i < m->n; i++)
		same = same_item(&m->last_canon[i], &m->slot[i].item);
	if (same) {
		free(items);
		return &m->last;
	}
	free(m->last_in);
	free(m->last_canon);
	alignment_clear(&m->last);
	m->last_in = items;
	m->last_n_in = n;
	m->last_canon = xcalloc(m->n + 1, sizeof *m->last_canon);
	m->last_n_canon = m->n;
	for (size_t i = 0; i < m->n; i++)
		m->last_canon[i] = m->slot[i].item;
	align_steps(m->last_canon, m->n, items, n, &o, &m->last);
	return &m->last;
}

/* Merge the steps [first, first + n) of pass p into the canonical layer m. */
static void merge_pass(struct work *w, int si, struct merged_layer *m, uint32_t first, uint32_t n,
		       uint32_t p)
{
	const struct side *s = w->s[si];
	struct align_item *items;
	const struct alignment *al;
	struct slot *out = NULL;
	size_t n_out = 0, cap_out = 0;
	int same = m->n == n;

	for (uint32_t i = 0; same && i < n; i++)
		same = m->slot[i].first_name == step_name(s, &s->steps[first + i]) &&
		       m->slot[i].item.cls == s->steps[first + i].cls;
	if (same || m->n == 0) {
		/* the first pass with steps (no runs yet: runs hold passes with steps) makes the
		 * slots; it and every pass like it are a run */
		for (uint32_t i = 0; !same && i < n; i++) {
			struct slot sl = { .item = step_item(w, si, &s->steps[first + i]),
					   .first_name = step_name(s, &s->steps[first + i]) };

			VEC_PUSH(m->slot, m->n, m->cap, sl);
		}
		if (n)
			VEC_PUSH(m->runs, m->n_runs, m->cap_runs, ((struct prun){ first, p }));
		return;
	}

	/* The pass differs from what was seen so far: align it with the canonical slots. */
	flush_runs(s, m);
	items = xcalloc(n + 1, sizeof *items);
	for (uint32_t i = 0; i < n; i++)
		items[i] = step_item(w, si, &s->steps[first + i]);
	al = align_with_slots(m, items, n);
	items = m->last_in; /* items, or the same items kept from before */
	for (size_t i = 0; i < al->n; i++) {
		const struct align_entry *e = &al->e[i];

		if (e->n[0]) {
			VEC_PUSH(out, n_out, cap_out, m->slot[e->step[0][0]]);
			if (e->n[1])
				slot_add(&out[n_out - 1], s, first + e->step[1][0], p);
		} else {
			struct slot sl = { .item = items[e->step[1][0]],
					   .first_name =
						   step_name(s, &s->steps[first + e->step[1][0]]) };

			slot_add(&sl, s, first + e->step[1][0], p);
			VEC_PUSH(out, n_out, cap_out, sl);
		}
	}
	free(m->slot);
	m->slot = out;
	m->n = n_out;
	m->cap = cap_out;
}

void canonical_work_free(struct work *w)
{
	for (int s = 0; s < 2; s++) {
		for (size_t k = 0; w->ml[s] && k < w->n_keys; k++) {
			for (size_t i = 0; i < w->ml[s][k].n; i++)
				free(w->ml[s][k].slot[i].occ);
			free(w->ml[s][k].slot);
			free(w->ml[s][k].items);
			free(w->ml[s][k].runs);
			free(w->ml[s][k].last_in);
			free(w->ml[s][k].last_canon);
			alignment_clear(&w->ml[s][k].last);
		}
		free(w->ml[s]);
		free(w->gemm[s]);
		free(w->gemm_known[s]);
	}
	for (size_t k = 0; w->al && k < w->n_keys; k++)
		alignment_clear(&w->al[k].al);
	free(w->al);
	free(w->keys);
	free(w->base);
	free(w->has_pro);
	free(w->cs[0]);
	free(w->cs[1]);
	memset(w, 0, sizeof *w);
}

void canonical_merge_side(struct work *w, int s)
{
	const struct side *sd = w->s[s];

	w->ml[s] = xcalloc(w->n_keys, sizeof *w->ml[s]);
	for (size_t p = 0; p < sd->n_passes; p++) {
		const struct pass *ps = &sd->passes[p];

		if (!comparison_pass_compared(w->c, s, ps))
			continue;
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &sd->layers[ps->layer_first + l];

			merge_pass(w, s, &w->ml[s][canonical_layer_key(w, s, ly)], ly->step_first,
				   ly->step_n, (uint32_t)p);
		}
	}
	for (size_t k = 0; k < w->n_keys; k++) {
		struct merged_layer *m = &w->ml[s][k];

		m->items = xcalloc(m->n + 1, sizeof *m->items);
		for (size_t i = 0; i < m->n; i++)
			m->items[i] = m->slot[i].item;
	}
}

void canonical_layers(struct comparison *c, struct work *w)
{
	size_t n;
	struct lref *ls;

	make_keys(c, w);
	c->n_layers = w->n_keys;
	c->layers = xcalloc(w->n_keys, sizeof *c->layers);
	for (size_t k = 0; k < w->n_keys; k++) {
		c->layers[k].index = w->keys[k].index;
		c->layers[k].stack = w->keys[k].stack;
		c->layers[k].phase = (uint8_t)c->phase;
	}
	ls = compared_layers(c, w, &n);
	for (size_t i = 0; i < n; i++) /* a pass has each of its layers once */
		c->layers[canonical_layer_key(w, ls[i].s, ls[i].ly)].passes[ls[i].s]++;
	free(ls);
}
