/* comparison_pairs.c — the pairs of a comparison: the two sides' canonical layers aligned
 * (align.h), each aligned position a pair with per-pass figures (canonical_int.h), and the
 * per-layer totals. */
#include "canonical_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/time_stats.h"

/* --- one side of a pair ------------------------------------------------------------------ */

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

/* pairs_layer_totals() of side s (run_two(): each writes its side's figures only). */
struct totals_job {
	struct comparison *c;
	const struct work *w;
};

static void side_layer_totals(void *arg, int s)
{
	const struct totals_job *j = arg;
	struct comparison *c = j->c;
	const struct work *w = j->w;
	const struct side *sd = c->side[s];

	for (size_t p = 0; p < sd->n_passes; p++) {
		const struct pass *ps = &sd->passes[p];

		if (!comparison_pass_compared(c, s, ps))
			continue;
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &sd->layers[ps->layer_first + l];
			struct comparison_layer *cl = &c->layers[canonical_layer_key(w, s, ly)];
			uint32_t kernels = 0;

			for (uint32_t k = 0; k < ly->step_n; k++) {
				const struct step *st = &sd->steps[ly->step_first + k];

				kernels += st->n;
				/* By the class of the logical op: an eager RMSNorm run is Norm. */
				c->class_ns[s][st->cls < CLASS_COUNT ? st->cls : CLASS_OTHER] +=
					(double)st->dur;
			}
			cl->ns[s] += (double)ly->dur;
			cl->kernels[s] += kernels;
			if (ly->step_n) {
				const struct step *f = &sd->steps[ly->step_first],
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
	c->compared_share[s] = sd->cover.total_ns > 0 ? c->ns[s] / (double)sd->cover.total_ns : 0;
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

void pairs_layer_totals(struct comparison *c, const struct work *w)
{
	struct totals_job j = { c, w };

	run_two(side_layer_totals, &j);
	for (size_t k = 0; k < c->n_layers; k++) {
		c->layers[k].delta_ns = c->layers[k].ns[1] - c->layers[k].ns[0];
		c->layers[k].ratio = comparison_ratio(c->layers[k].ns[0], c->layers[k].ns[1]);
	}
	c->delta_ns = c->ns[1] - c->ns[0];
	c->ratio = comparison_ratio(c->ns[0], c->ns[1]);
}

/* The alignments of half h of work w's layers (run_two(): each layer's its own). */
static void align_half(void *arg, int h)
{
	struct work *w = arg;

	for (size_t k = h ? w->n_keys / 2 : 0; k < (h ? w->n_keys : w->n_keys / 2); k++) {
		struct align_layer *l = &w->al[k];

		mark_math_attention(&w->ml[0][k], &w->ml[1][k]);

		for (int s = 0; s < 2; s++) {
			l->item[s] = w->ml[s][k].items;
			l->n_item[s] = w->ml[s][k].n;
		}
		align_group_gemms(w->ml[0][k].items, w->ml[0][k].n, w->ml[1][k].items,
				  w->ml[1][k].n);
		align_steps(l->item[0], l->n_item[0], l->item[1], l->n_item[1], NULL, &l->al);
	}
}

/* The pairs of w's layers into c->pairs and aux, from c->layers[k].pair_first on: the layers
 * before `half` or from it on (run_two(): each pair its own). */
struct pair_job {
	struct comparison *c;
	struct work *w;
	struct fusion_hint *aux;
	size_t half;
};

static void pair_half(void *arg, int h)
{
	struct pair_job *j = arg;
	struct comparison *c = j->c;

	for (size_t k = h ? j->half : 0; k < (h ? j->w->n_keys : j->half); k++) {
		uint32_t first = c->layers[k].pair_first;

		for (size_t i = 0; i < j->w->al[k].al.n; i++)
			pair_from_entry(c, j->w, k, &j->w->al[k].al.e[i], (uint32_t)i,
					&c->pairs[first + i], &j->aux[first + i]);
	}
}

void pairs_build(struct comparison *c, struct work *w, struct fusion_hint **hints)
{
	size_t n_pairs = 0, half = 0;

	w->al = xcalloc(w->n_keys, sizeof *w->al);
	run_two(align_half, w);
	align_absorb(w->al, w->n_keys, 0);

	for (size_t k = 0; k < w->n_keys; k++) {
		c->layers[k].pair_first = (uint32_t)n_pairs;
		c->layers[k].pair_n = (uint32_t)w->al[k].al.n;
		n_pairs += w->al[k].al.n;
	}
	c->pairs = xcalloc(n_pairs + 1, sizeof *c->pairs);
	c->n_pairs = n_pairs;
	*hints = xcalloc(n_pairs + 1, sizeof **hints);
	/* two halves of about as many pairs each */
	while (half < w->n_keys && c->layers[half].pair_first < n_pairs / 2)
		half++;
	{
		struct pair_job p = { c, w, *hints, half };

		run_two(pair_half, &p);
	}
}
