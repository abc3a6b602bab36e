/* comparison.c — two structured sides lined up layer by layer (see comparison.h).
 *
 * For the selected phase, each side's passes are merged per layer index into one canonical
 * step sequence (passes of one side are aligned against each other, so a step present in only
 * some passes gets its own slot instead of shifting the others). The canonical sequences of A
 * and B are then aligned (align.h), unmatched steps are absorbed into nearby fused steps, and
 * every aligned position becomes a pair with per-pass figures. Fused pairs (and partial ones)
 * are grouped into fusion patterns across layers. */
#include "fusediff/comparison.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/align.h"
#include "compare_int.h"
#include "fusediff/efficiency.h"
#include "fusediff/summed_pairs.h"
#include "fusion_int.h"
#include "fusediff/text.h"
#include "fusediff/time_stats.h"

const char *pair_kind_name(enum pair_kind k)
{
	switch (k) {
	case PAIR_MATCH: return "match";
	case PAIR_FUSED: return "fused";
	case PAIR_A_ONLY: return "a_only";
	case PAIR_B_ONLY: return "b_only";
	}
	return "?";
}

/* --- one side, merged over passes ------------------------------------------------------- */

/* A step of one pass: its index in side->steps, the pass (index into side->passes) and the
 * name id of its main kernel (UINT32_MAX for a step without kernels). */
struct occ {
	uint32_t step, pass, main_name;
};

/* One canonical position of a layer on one side, with every pass's step at that position. */
struct slot {
	struct align_item item; /* from the first occurrence */
	uint32_t first_name;	/* name id of the first occurrence's main kernel */
	struct occ *occ;
	size_t n_occ, cap_occ;
};

/* A pass that ran exactly the canonical steps of a layer: slot i's occurrence in it is the step
 * first + i (so that the usual pass costs one entry per layer, not one per step). */
struct prun {
	uint32_t first, pass;
};

/* The passes merged into one layer. A slot's occurrences are its own list (slot.occ), then one
 * in each run: every pass in runs came after those in the lists. */
struct merged_layer {
	struct slot *slot;
	size_t n, cap;
	struct align_item *items; /* slot items, for the cross-side alignment */
	struct prun *runs;
	size_t n_runs, cap_runs;
};

/* A layer of the comparison: a stack (index into comparison.stacks) and an index in it. */
struct key {
	uint16_t stack;
	int32_t index;
};

/* Everything derived from the sides for one phase. */
struct work {
	const struct side *s[2];
	const struct comparison *c;
	size_t n_keys; /* prologue, stack 0's layers, each named stack's prologue and layers,
			  epilogue */
	struct key *keys;
	uint32_t *base;	  /* per comparison stack: the key of its prologue */
	size_t epi;	  /* the key of the epilogue */
	uint8_t *has_pro; /* per comparison stack: a prologue of its own (the first key) */
	uint16_t *cs[2];  /* per side stack: its comparison stack */
	struct merged_layer *ml[2];
	struct align_layer *al;
};

int comparison_pass_compared(const struct comparison *c, int s, const struct pass *p)
{
	return (c->phase == PHASE_COUNT || p->phase == c->phase) && p->model == c->model[s] &&
	       !(c->repeat_out[s] && c->repeat_out[s][comparison_pass_capture(c->side[s], p)]);
}

/* The key of layer ly of side s. */
static size_t layer_key(const struct work *w, int s, const struct layer *ly)
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

static const char *kernel_short(const struct side *s, uint32_t kernel)
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

/* A step for the alignment: named by its main kernel; a main kernel with helpers does the work
 * of the main kernel only (a workspace memset adds no copy to a GEMM). */
static struct align_item step_item(const struct side *s, const struct step *st)
{
	struct align_item it = {
		.cls = st->cls, .kind = st->kind, .n_work = st->n_work, .atoms = st->atoms
	};

	if (st->n) {
		uint32_t k = step_main(s, st);

		it.name = kernel_short(s, k);
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

			if (op && op->input_dims &&
			    !eff_gemm_shape(trace_str(s->t, op->input_dims), &it.m, &it.n, &it.k))
				it.m = it.n = it.k = 0;
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

/* Merge the steps [first, first + n) of pass p into the canonical layer m. */
static void merge_pass(const struct side *s, struct merged_layer *m, uint32_t first, uint32_t n,
		       uint32_t p)
{
	struct align_item *items;
	struct alignment al;
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
			struct slot sl = { .item = step_item(s, &s->steps[first + i]),
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
		items[i] = step_item(s, &s->steps[first + i]);
	{
		struct align_item *canon = xcalloc(m->n + 1, sizeof *canon);
		struct align_opts o = { .no_fused = 1 };

		for (size_t i = 0; i < m->n; i++)
			canon[i] = m->slot[i].item;
		align_steps(canon, m->n, items, n, &o, &al);
		free(canon);
	}
	for (size_t i = 0; i < al.n; i++) {
		const struct align_entry *e = &al.e[i];

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
	alignment_clear(&al);
	free(items);
	free(m->slot);
	m->slot = out;
	m->n = n_out;
	m->cap = cap_out;
}

static void work_free(struct work *w)
{
	for (int s = 0; s < 2; s++) {
		for (size_t k = 0; w->ml[s] && k < w->n_keys; k++) {
			for (size_t i = 0; i < w->ml[s][k].n; i++)
				free(w->ml[s][k].slot[i].occ);
			free(w->ml[s][k].slot);
			free(w->ml[s][k].items);
			free(w->ml[s][k].runs);
		}
		free(w->ml[s]);
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

/* --- pairs -------------------------------------------------------------------------------- */

/* Add name to p->names unless it is there. *last: the name asked before (it is there), which
 * the next kernel usually repeats. */
static void part_add_name(struct comparison_part *p, uint32_t name, size_t *cap, uint32_t *last)
{
	if (name == *last)
		return;
	*last = name;
	for (uint32_t i = 0; i < p->n_names; i++)
		if (p->names[i] == name)
			return;
	if (p->n_names >= *cap) {
		*cap = *cap ? *cap * 2 : 4;
		p->names = xreallocarray(p->names, *cap, sizeof *p->names);
	}
	p->names[p->n_names++] = name;
}

/* Fill one side of a pair from the slots it holds; *work_pp gets the working kernels per pass.
 * Every kernel instance of the phase passes through here: what a step holds is read from the
 * step and its occurrence (its duration, its main kernel's name), and the kernels themselves
 * only for the names of the helpers of a step of several. A run's occurrence of a slot has the
 * slot's main kernel (the pass ran the canonical steps; a step always holds a kernel). */
struct part_acc {
	struct comparison_part *p;
	size_t cap_names, cap_inst, n_inst;
	int64_t dur, work;
	uint32_t last; /* for part_add_name() */
};

/* Add the instances of one step occurrence (main: its main kernel's name). */
static void part_add_step(struct part_acc *a, const struct side *s, uint32_t step, uint32_t pass,
			  uint32_t main)
{
	const struct step *st = &s->steps[step];

	a->work += st->n_work ? st->n_work : 1;
	a->dur += st->dur; /* the sum of its kernels' durations */
	if (a->n_inst + st->n > a->cap_inst) {
		a->cap_inst = a->cap_inst ? a->cap_inst * 2 : 8;
		if (a->cap_inst < a->n_inst + st->n)
			a->cap_inst = a->n_inst + st->n;
		a->p->inst = xreallocarray(a->p->inst, a->cap_inst, sizeof *a->p->inst);
	}
	for (uint32_t i = 0; i < st->n; i++) {
		uint32_t kernel = s->order[st->first + i];

		part_add_name(a->p, st->n == 1 ? main : s->t->kernels[kernel].name, &a->cap_names,
			      &a->last);
		a->p->inst[a->n_inst++] = (struct comparison_instance){ kernel, pass };
	}
}

static void fill_part(struct comparison_part *p, const struct side *s, const struct merged_layer *m,
		      const uint32_t *slots, uint32_t n_slots, uint32_t passes, double *work_pp,
		      uint32_t *occurrences)
{
	struct part_acc a = { .p = p, .last = UINT32_MAX };
	uint32_t occ = 0;
	size_t max_occ = 0; /* occurrences of the position: of its most frequent step */

	memset(p, 0, sizeof *p);
	/* The main kernels' names first (a GEMM step is named by its GEMM, not by the workspace
	 * memset before it), then the helpers'. */
	for (uint32_t k = 0; k < n_slots; k++) {
		const struct slot *sl = &m->slot[slots[k]];

		for (size_t o = 0; o < sl->n_occ; o++)
			if (sl->occ[o].main_name != UINT32_MAX)
				part_add_name(p, sl->occ[o].main_name, &a.cap_names, &a.last);
		if (m->n_runs)
			part_add_name(p, sl->first_name, &a.cap_names, &a.last);
	}
	for (uint32_t k = 0; k < n_slots; k++) {
		const struct slot *sl = &m->slot[slots[k]];
		size_t n_occ = sl->n_occ + m->n_runs;

		occ += (uint32_t)n_occ;
		if (n_occ > max_occ)
			max_occ = n_occ;
		for (size_t o = 0; o < sl->n_occ; o++)
			part_add_step(&a, s, sl->occ[o].step, sl->occ[o].pass,
				      sl->occ[o].main_name);
		for (size_t r = 0; r < m->n_runs; r++)
			part_add_step(&a, s, m->runs[r].first + slots[k], m->runs[r].pass,
				      sl->first_name);
	}
	p->n_inst = (uint32_t)a.n_inst;
	p->count = passes ? (double)a.n_inst / passes : 0;
	p->total_ns = passes ? (double)a.dur / passes : 0;
	p->sum_ns = (double)a.dur;
	p->avg_ns = max_occ ? (double)a.dur / (double)max_occ : NAN;
	*work_pp = passes ? (double)a.work / passes : 0;
	*occurrences = occ;
}

/* --- the comparison ------------------------------------------------------------------------- */

static void merge_side(struct work *w, int s)
{
	const struct side *sd = w->s[s];

	w->ml[s] = xcalloc(w->n_keys, sizeof *w->ml[s]);
	for (size_t p = 0; p < sd->n_passes; p++) {
		const struct pass *ps = &sd->passes[p];

		if (!comparison_pass_compared(w->c, s, ps))
			continue;
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &sd->layers[ps->layer_first + l];

			merge_pass(sd, &w->ml[s][layer_key(w, s, ly)], ly->step_first, ly->step_n,
				   (uint32_t)p);
		}
	}
	for (size_t k = 0; k < w->n_keys; k++) {
		struct merged_layer *m = &w->ml[s][k];

		m->items = xcalloc(m->n + 1, sizeof *m->items);
		for (size_t i = 0; i < m->n; i++)
			m->items[i] = m->slot[i].item;
	}
}

/* An attention step covers eager math-attention kernels only in a layer whose other side has
 * no attention step; otherwise it would swallow the KV-cache copies next to it. */
static int has_attention(const struct merged_layer *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->items[i].atoms & ATOM_BIT(ATOM_ATTENTION))
			return 1;
	return 0;
}

static void mark_math_attention(struct merged_layer *a, struct merged_layer *b)
{
	struct merged_layer *m[2] = { a, b };
	int has[2] = { has_attention(a), has_attention(b) };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < m[s]->n; i++)
			m[s]->items[i].covers_math_attn = !has[!s];
}

static void pair_from_entry(struct comparison *c, struct work *w, size_t key,
			    const struct align_entry *e, uint32_t position,
			    struct comparison_pair *p, struct fusion_hint *h)
{
	const struct merged_layer *m[2] = { &w->ml[0][key], &w->ml[1][key] };

	memset(p, 0, sizeof *p);
	memset(h, 0, sizeof *h);
	p->layer = (int32_t)key;
	p->position = position;
	p->kind = e->kind;
	p->fusion = -1;
	h->repeat_of = -1;
	h->fused_side = e->fused_side;
	h->horizontal = e->horizontal;
	h->proof = e->kind == ALIGN_FUSED ? e->proof : PROOF_NONE;
	for (int s = 0; s < 2; s++) {
		fill_part(&p->side[s], c->side[s], m[s], e->step[s], e->n[s],
			  c->layers[key].passes[s], &h->work[s], &h->occ[s]);
		h->steps[s] = e->n[s];
		for (uint32_t k = 0; k < e->n[s]; k++)
			h->atoms[s] |= m[s]->slot[e->step[s][k]].item.atoms & ~ATOM_BIT(ATOM_OTHER);
		if (e->n[s]) {
			h->cls[s] = m[s]->slot[e->step[s][0]].item.cls;
			h->main_name[s] = m[s]->slot[e->step[s][0]].first_name;
		}
	}
	if (e->kind == ALIGN_FUSED) {
		const struct align_item *f =
			&m[e->fused_side]->slot[e->step[e->fused_side][0]].item;

		p->cls = f->cls;
		p->atoms = f->atoms;
	} else if (e->n[0] && e->n[1]) {
		const struct align_item *x = &m[0]->slot[e->step[0][0]].item,
					*y = &m[1]->slot[e->step[1][0]].item;

		/* A cover of different classes shows the class of the side that does more. */
		p->cls = (x->cls != y->cls && (x->atoms & ~y->atoms) == 0) ? y->cls : x->cls;
		for (int s = 0; s < 2; s++)
			for (uint32_t k = 0; k < e->n[s]; k++)
				p->atoms |= m[s]->slot[e->step[s][k]].item.atoms;
	} else {
		int s = e->n[0] ? 0 : 1;

		p->cls = h->cls[s];
		for (uint32_t k = 0; k < e->n[s]; k++)
			p->atoms |= m[s]->slot[e->step[s][k]].item.atoms;
	}
	p->delta_ns = p->side[1].total_ns - p->side[0].total_ns;
	p->ratio = comparison_ratio(p->side[0].total_ns, p->side[1].total_ns);
}

static void layer_totals(struct comparison *c, struct work *w)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];

		for (size_t p = 0; p < sd->n_passes; p++) {
			const struct pass *ps = &sd->passes[p];

			if (!comparison_pass_compared(c, s, ps))
				continue;
			for (uint32_t l = 0; l < ps->layer_n; l++) {
				const struct layer *ly = &sd->layers[ps->layer_first + l];
				struct comparison_layer *cl = &c->layers[layer_key(w, s, ly)];
				uint32_t kernels = 0;

				for (uint32_t k = 0; k < ly->step_n; k++) {
					const struct step *st = &sd->steps[ly->step_first + k];

					kernels += st->n;
					/* By the class of the logical op: an eager RMSNorm run is Norm. */
					c->class_ns[s][st->cls < CLASS_COUNT ? st->cls
									     : CLASS_OTHER] +=
						(double)st->dur;
				}
				cl->ns[s] += (double)ly->dur;
				cl->kernels[s] += kernels;
				if (ly->step_n) {
					const struct step
						*f = &sd->steps[ly->step_first],
						*e = &sd->steps[ly->step_first + ly->step_n - 1];
					struct time_span ts;

					time_span_of(sd->t, sd->order + f->first,
						     e->first + e->n - f->first, &ts, NULL);
					cl->wall_ns[s] += (double)ts.wall;
					cl->busy_ns[s] += (double)ts.busy;
				}
			}
			for (uint32_t i = 0; i < ps->n; i++)
				c->ns[s] += (double)sd->t->kernels[sd->order[ps->first + i]].dur;
		}
		c->compared_share[s] =
			sd->cover.total_ns > 0 ? c->ns[s] / (double)sd->cover.total_ns : 0;
		if (c->passes[s]) {
			/* a layer per pass that has it: never averaged over passes without it */
			for (size_t k = 0; k < c->n_layers; k++)
				if (c->layers[k].passes[s]) {
					struct comparison_layer *l = &c->layers[k];

					l->ns[s] /= l->passes[s];
					l->kernels[s] /= l->passes[s];
					l->wall_ns[s] /= l->passes[s];
					l->busy_ns[s] /= l->passes[s];
					l->idle_ns[s] = l->wall_ns[s] - l->busy_ns[s];
				}
			c->ns[s] /= c->passes[s];
			for (int k = 0; k < CLASS_COUNT; k++)
				c->class_ns[s][k] /= c->passes[s];
		}
	}
	for (size_t k = 0; k < c->n_layers; k++) {
		c->layers[k].delta_ns = c->layers[k].ns[1] - c->layers[k].ns[0];
		c->layers[k].ratio = comparison_ratio(c->layers[k].ns[0], c->layers[k].ns[1]);
	}
	c->delta_ns = c->ns[1] - c->ns[0];
	c->ratio = comparison_ratio(c->ns[0], c->ns[1]);
}

static void clear_results(struct comparison *c)
{
	for (size_t i = 0; i < c->n_pairs; i++)
		for (int s = 0; s < 2; s++) {
			free(c->pairs[i].side[s].names);
			free(c->pairs[i].side[s].inst);
		}
	free(c->pairs);
	for (size_t i = 0; i < c->n_fusions; i++) {
		free(c->fusions[i].unfused_names);
		free(c->fusions[i].layers);
		free(c->fusions[i].pairs);
		free(c->fusions[i].evidence);
	}
	free(c->fusions);
	free(c->attribution);
	free(c->pair_part);
	c->pair_part = NULL;
	c->attribution = NULL;
	c->n_attribution = 0;
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i].message);
	free(c->warnings);
	c->warnings = NULL;
	c->n_warnings = 0;
	memset(&c->comparability, 0, sizeof c->comparability);
	free(c->layers);
	for (size_t i = 0; i < c->n_stacks; i++)
		free(c->stacks[i]);
	free(c->stacks);
	c->stacks = NULL;
	c->n_stacks = 0;
	free(c->note);
	free(c->repeat_out[0]);
	free(c->repeat_out[1]);
	c->repeat_out[0] = c->repeat_out[1] = NULL;
	c->pairs = NULL;
	c->fusions = NULL;
	c->layers = NULL;
	c->note = NULL;
	c->n_pairs = c->n_fusions = c->n_layers = 0;
	c->passes[0] = c->passes[1] = 0;
	c->ns[0] = c->ns[1] = c->delta_ns = 0;
	c->compared_share[0] = c->compared_share[1] = 0;
	c->ratio = NAN;
	memset(c->class_ns, 0, sizeof c->class_ns);
	memset(c->time, 0, sizeof c->time);
}

/* The passes per phase of the model compared on side s. */
const uint32_t *comparison_model_phases(const struct comparison *c, int s)
{
	static const uint32_t none[PHASE_COUNT];
	const struct side *sd = c->side[s];

	return c->model[s] < sd->n_models ? sd->models[c->model[s]].phase_passes : none;
}

/* "2 prefill and 16 decode passes" of side s's compared model into buf. */
void comparison_phases_text(const struct comparison *c, int s, char *buf, size_t cap)
{
	const uint32_t *ph = comparison_model_phases(c, s);
	size_t len = 0, k = 0, n = 0, total = 0;

	for (int p = 0; p < PHASE_COUNT; p++)
		n += ph[p] > 0, total += ph[p];
	buf[0] = '\0';
	for (int p = 0; p < PHASE_COUNT && len < cap; p++) {
		if (!ph[p])
			continue;
		k++;
		len += (size_t)snprintf(buf + len, cap - len, "%s%u %s",
					k == 1	 ? ""
					: k == n ? " and "
						 : ", ",
					ph[p], phase_name((enum phase)p));
	}
	if (len < cap)
		snprintf(buf + len, cap - len,
			 total == 1 ? " pass"
			 : total    ? " passes"
				    : "no pass");
}

/* The phase to show: the one asked for, else the first that both sides have. A phase asked for
 * that a side has no pass of is an error (-1 with err set). */
static int choose_phase(struct comparison *c, int phase, struct fd_error *err)
{
	const uint32_t *a = comparison_model_phases(c, 0), *b = comparison_model_phases(c, 1);

	if (phase >= 0 && phase < PHASE_COUNT && (!a[phase] || !b[phase])) {
		int s = !a[phase] ? 0 : 1;
		char has[128];

		comparison_phases_text(c, s, has, sizeof has);
		fd_error_set(err, "--phase %s: %c (%s) has no %s pass; it has %s",
			     phase_name((enum phase)phase), s ? 'B' : 'A', c->label[s],
			     phase_name((enum phase)phase), has);
		return -1;
	}
	if (phase >= 0 && phase <= PHASE_COUNT)
		return phase;
	for (int p = 0; p < PHASE_COUNT; p++)
		if (a[p] && b[p])
			return p;
	if (c->side[0]->n_passes && c->side[1]->n_passes)
		c->note = xstrdup("the two traces have no phase in common: comparing all passes");
	return PHASE_COUNT;
}

/* Whether model m of side s is the one asked for by name ("SD3Transformer2DModel_0") or by
 * class ("SD3Transformer2DModel"). */
static int model_is(const struct side *s, size_t m, const char *want)
{
	const char *n = side_model_name(s, m);
	size_t len = strlen(want);

	if (strcmp(n, want) == 0)
		return 1;
	if (strncmp(n, want, len) != 0 || n[len] != '_' || !n[len + 1])
		return 0;
	for (const char *p = n + len + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* The models to compare (see compare_opts.model). */
static int choose_models(struct comparison *c, const char *want, struct fd_error *err)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];
		size_t m;

		c->model[s] = sd->main_model;
		if (want) {
			for (m = 0; m < sd->n_models && !model_is(sd, m, want); m++)
				;
			if (m == sd->n_models && (sd->n_models > 1 || *side_model_name(sd, 0))) {
				fd_error_set(err, "--model %s: %c (%s) has no such model", want,
					     s ? 'B' : 'A', c->label[s]);
				return -1;
			}
			if (m < sd->n_models)
				c->model[s] = (uint16_t)m;
		} else if (s == 1) {
			const char *a = side_model_name(c->side[0], c->model[0]);

			for (m = 0; m < sd->n_models; m++)
				if (*a && strcmp(side_model_name(sd, m), a) == 0)
					c->model[s] = (uint16_t)m;
		}
	}
	return 0;
}

/* Two ranks of one job (distributedInfo: the same world size, two ranks) run the same code:
 * they differ in work, never in how it is fused, so a fusion between them is a difference of
 * the alignment, not a finding. The fused pairs become matches and the fusions go; a warning
 * (rank_alignment) says how many there were. */
static void drop_rank_fusions(struct comparison *c)
{
	const struct trace *a = c->side[0]->t, *b = c->side[1]->t;
	size_t fused = 0;

	if (a->world_size < 2 || a->world_size != b->world_size || a->rank == b->rank ||
	    a->rank < 0 || b->rank < 0 || !c->n_fusions)
		return;
	for (size_t i = 0; i < c->n_pairs; i++) {
		fused += c->pairs[i].kind == PAIR_FUSED;
		if (c->pairs[i].kind == PAIR_FUSED)
			c->pairs[i].kind = PAIR_MATCH;
		c->pairs[i].fusion = -1;
	}
	comparison_warn(c, "rank_alignment",
			"A and B are ranks %lld and %lld of one %lld-rank job: ranks differ in "
			"work, never in fusion, so %zu candidate fusion%s (%zu fused place%s) %s",
			(long long)a->rank, (long long)b->rank, (long long)a->world_size,
			c->n_fusions, c->n_fusions == 1 ? "" : "s", fused, fused == 1 ? "" : "s",
			c->n_fusions == 1 ? "is a difference of the alignment, not a finding"
					  : "are differences of the alignment, not findings");
	for (size_t i = 0; i < c->n_fusions; i++) {
		free(c->fusions[i].unfused_names);
		free(c->fusions[i].layers);
		free(c->fusions[i].pairs);
		free(c->fusions[i].evidence);
	}
	c->n_fusions = c->n_partial = 0;
	for (size_t k = 0; k < c->n_layers; k++)
		c->layers[k].n_fusions = 0;
}

static int compute(struct comparison *c, int phase, struct fd_error *err)
{
	struct work w = { .s = { c->side[0], c->side[1] }, .c = c };
	struct comparison_pair *pairs = NULL;
	struct fusion_hint *aux = NULL;
	size_t n_pairs = 0, cap_pairs = 0, cap_aux = 0, n_aux = 0;
	size_t *first_pair;

	clear_results(c);
	if ((c->phase = choose_phase(c, phase, err)) < 0)
		return -1;
	comparison_repeats_choose(c);
	for (int s = 0; s < 2; s++)
		for (size_t p = 0; p < c->side[s]->n_passes; p++)
			c->passes[s] += comparison_pass_compared(c, s, &c->side[s]->passes[p]);
	if (!c->passes[0] || !c->passes[1]) {
		/* Nothing to compare: figures of one side alone would read as differences. */
		if (!c->note)
			c->note = xasprintf("%s has no pass to compare",
					    !c->passes[0] ? c->label[0] : c->label[1]);
		c->ratio = NAN;
		return 0;
	}
	make_keys(c, &w);
	c->n_layers = w.n_keys;
	c->layers = xcalloc(w.n_keys, sizeof *c->layers);
	for (size_t k = 0; k < w.n_keys; k++) {
		c->layers[k].index = w.keys[k].index;
		c->layers[k].stack = w.keys[k].stack;
		c->layers[k].phase = (uint8_t)c->phase;
	}
	{
		size_t n;
		struct lref *ls = compared_layers(c, &w, &n);

		for (size_t i = 0; i < n; i++) /* a pass has each of its layers once */
			c->layers[layer_key(&w, ls[i].s, ls[i].ly)].passes[ls[i].s]++;
		free(ls);
	}
	merge_side(&w, 0);
	merge_side(&w, 1);

	w.al = xcalloc(w.n_keys, sizeof *w.al);
	for (size_t k = 0; k < w.n_keys; k++) {
		struct align_layer *l = &w.al[k];

		mark_math_attention(&w.ml[0][k], &w.ml[1][k]);

		for (int s = 0; s < 2; s++) {
			l->item[s] = w.ml[s][k].items;
			l->n_item[s] = w.ml[s][k].n;
		}
		align_group_gemms(w.ml[0][k].items, w.ml[0][k].n, w.ml[1][k].items, w.ml[1][k].n);
		align_steps(l->item[0], l->n_item[0], l->item[1], l->n_item[1], NULL, &l->al);
	}
	align_absorb(w.al, w.n_keys, 0);

	first_pair = xcalloc(w.n_keys + 1, sizeof *first_pair);
	for (size_t k = 0; k < w.n_keys; k++) {
		struct comparison_layer *cl = &c->layers[k];

		cl->pair_first = (uint32_t)n_pairs;
		first_pair[k] = n_pairs;
		for (size_t i = 0; i < w.al[k].al.n; i++) {
			VEC_RESERVE(pairs, n_pairs, cap_pairs);
			VEC_RESERVE(aux, n_aux, cap_aux);
			pair_from_entry(c, &w, k, &w.al[k].al.e[i], (uint32_t)i, &pairs[n_pairs],
					&aux[n_aux]);
			n_pairs++;
			n_aux++;
		}
		cl->pair_n = (uint32_t)(n_pairs - cl->pair_first);
	}
	free(first_pair);
	c->pairs = pairs;
	c->n_pairs = n_pairs;
	fusion_mark_repeats(c, aux, 0);
	fusion_build(c, aux);
	drop_rank_fusions(c);
	layer_totals(c, &w);
	attribution_build(c);
	comparison_times(c);
	comparability_build(c);
	free(aux);
	work_free(&w);
	return 0;
}

/* The default label of a side: "NVIDIA H200" from vendor and GPU. */
static char *default_label(const struct trace *t)
{
	const char *vendor = trace_platform_name(t->platform);
	const char *gpu = t->gpu_name ? trace_str(t, t->gpu_name) : "";

	if (!*gpu)
		return t->platform == PLATFORM_UNKNOWN ? xstrdup("unknown GPU")
						       : xasprintf("%s GPU", vendor);
	if (t->platform == PLATFORM_UNKNOWN || strncmp(gpu, vendor, strlen(vendor)) == 0)
		return text_escape_dup(gpu, strlen(gpu));
	{
		char *esc = text_escape_dup(gpu, strlen(gpu)), *l = xasprintf("%s %s", vendor, esc);

		free(esc);
		return l;
	}
}

static void set_labels(struct comparison *c, const struct compare_opts *o)
{
	for (int s = 0; s < 2; s++)
		c->label[s] = o && o->label[s] ? text_escape_dup(o->label[s], strlen(o->label[s]))
					       : default_label(c->side[s]->t);
	if (strcmp(c->label[0], c->label[1]) != 0)
		return;
	for (int s = 0; s < 2; s++) {
		const char *path = c->side[s]->t->path ? c->side[s]->t->path : "";
		const char *other = c->side[!s]->t->path ? c->side[!s]->t->path : "";
		const char *base = path_basename(path);

		if ((o && o->label[s]) || (o && o->label[!s]))
			continue; /* the user chose the same labels: keep them */
		free(c->label[s]);
		if (strcmp(base, path_basename(other)) != 0)
			c->label[s] = text_escape_dup(base, strlen(base));
		else if (strcmp(path, other) != 0)
			c->label[s] = text_escape_dup(path, strlen(path));
		else { /* the same file on both sides */
			char *esc = text_escape_dup(base, strlen(base));

			c->label[s] = xasprintf("%c: %s", s ? 'B' : 'A', esc);
			free(esc);
		}
	}
}

int comparison_build(struct comparison **out, const struct side *a, const struct side *b,
		     const struct classifier *cl, const struct compare_opts *o,
		     struct fd_error *err)
{
	struct comparison *c = xcalloc(1, sizeof *c);

	c->side[0] = a;
	c->side[1] = b;
	c->classifier = cl;
	c->ranks = o ? o->ranks : NULL;
	set_labels(c, o);
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;

		c->short_names[s] =
			xcalloc(intern_count(t->strings) + 1, sizeof *c->short_names[s]);
		for (size_t k = 0; k < t->n_kernels; k++)
			if (!c->short_names[s][t->kernels[k].name])
				c->short_names[s][t->kernels[k].name] =
					kernel_short(c->side[s], (uint32_t)k);
	}
	if (choose_models(c, o ? o->model : NULL, err) < 0 ||
	    compute(c, o ? o->phase : -1, err) < 0) {
		comparison_free(c);
		*out = NULL;
		return -1;
	}
	comparison_kernel_totals(c);
	comparison_efficiency(c, o ? o->peaks : NULL, o ? o->memo : NULL);
	comparison_summed_pairs(c);
	comparison_noise(c);
	comparison_opportunities(c);
	*out = c;
	return 0;
}

const char *comparison_short_name(const struct comparison *c, int s, uint32_t name)
{
	const char *n = c->short_names[s] && name < intern_count(c->side[s]->t->strings)
				? c->short_names[s][name]
				: NULL;

	return n ? n : trace_str(c->side[s]->t, name);
}

const char *comparison_class_source(const struct comparison *c, const struct comparison_pair *p,
				    int s, const struct kernel_info **info)
{
	const struct comparison_part *part = &p->side[s];
	const struct side *sd = c->side[s];

	if (info)
		*info = NULL;
	if (!part->n_names || !sd->classes.info_of)
		return NULL;
	for (uint32_t i = 0; i < part->n_inst; i++) {
		uint32_t k = part->inst[i].kernel;
		const struct kernel_info *ki;

		if (k >= sd->t->n_kernels || sd->t->kernels[k].name != part->names[0])
			continue;
		ki = trace_classes_get(&sd->classes, k);
		if (info)
			*info = ki;
		return ki->cls == p->cls || part->n_names == 1 ? class_source_name(ki->source)
							       : "eager run";
	}
	return NULL;
}

size_t comparison_top_pairs(const struct comparison *c, size_t first, size_t n, uint32_t *out,
			    size_t max)
{
	size_t k = 0;

	/* insertion into the sorted top list: no sort context needed, stable by pair index */
	for (size_t i = first; i < first + n && i < c->n_pairs; i++) {
		double d = fabs(c->pairs[i].delta_ns);
		size_t j;

		if (isnan(d) || (k == max && fabs(c->pairs[out[max - 1]].delta_ns) >= d))
			continue;
		for (j = k < max ? k : max; j > 0 && fabs(c->pairs[out[j - 1]].delta_ns) < d; j--)
			if (j < max)
				out[j] = out[j - 1];
		out[j] = (uint32_t)i;
		if (k < max)
			k++;
	}
	return k;
}

void comparison_free(struct comparison *c)
{
	if (!c)
		return;
	clear_results(c);
	free(c->label[0]);
	free(c->label[1]);
	free(c->short_names[0]);
	free(c->short_names[1]);
	free(c->kernel_totals);
	for (size_t i = 0; i < c->n_summed; i++) {
		free(c->summed[i].pairs);
		free(c->summed[i].layers);
	}
	free(c->summed);
	for (size_t i = 0; i < c->n_opportunities; i++) {
		opportunity_clear(&c->opportunities[i].o);
		free(c->opportunities[i].layers);
	}
	free(c->opportunities);
	free(c);
}
