/* compare.c — two structured sides lined up layer by layer (see compare.h).
 *
 * For the selected phase, each side's passes are merged per layer index into one canonical
 * step sequence (passes of one side are aligned against each other, so a step present in only
 * some passes gets its own slot instead of shifting the others). The canonical sequences of A
 * and B are then aligned (align.h), unmatched steps are absorbed into nearby fused steps, and
 * every aligned position becomes a pair with per-pass figures. Fused pairs (and partial ones)
 * are grouped into fusion patterns across layers. */
#include "fusediff/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/align.h"
#include "fusediff/text.h"

const char *pair_kind_name(enum pair_kind k)
{
	switch (k) {
	case PAIR_MATCH:
		return "match";
	case PAIR_FUSED:
		return "fused";
	case PAIR_A_ONLY:
		return "a_only";
	case PAIR_B_ONLY:
		return "b_only";
	}
	return "?";
}

/* --- one side, merged over passes ------------------------------------------------------- */

/* A step of one pass: its index in side->steps and the pass (index into side->passes). */
struct occ {
	uint32_t step, pass;
};

/* One canonical position of a layer on one side, with every pass's step at that position. */
struct slot {
	struct align_item item; /* from the first occurrence */
	uint32_t first_name;	/* name id of the first occurrence's main kernel */
	struct occ *occ;
	size_t n_occ, cap_occ;
};

struct merged_layer {
	struct slot *slot;
	size_t n, cap;
	struct align_item *items; /* slot items, for the cross-side alignment */
};

/* Everything derived from the sides for one phase; rebuilt by comparison_set_phase(). */
struct work {
	const struct side *s[2];
	size_t n_keys; /* prologue, 0..n-1, epilogue */
	struct merged_layer *ml[2];
	struct align_layer *al;
};

static int32_t key_layer(size_t key, size_t n_keys)
{
	if (key == 0)
		return LAYER_PROLOGUE;
	if (key == n_keys - 1)
		return LAYER_EPILOGUE;
	return (int32_t)key - 1;
}

static size_t layer_key(int32_t index, size_t n_keys)
{
	if (index == LAYER_PROLOGUE)
		return 0;
	if (index == LAYER_EPILOGUE || index < 0)
		return n_keys - 1;
	return (size_t)index + 1;
}

static int pass_in_phase(const struct pass *p, int phase)
{
	return phase == PHASE_COUNT || p->phase == phase;
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

static struct align_item step_item(const struct side *s, const struct step *st)
{
	struct align_item it = { .cls = st->cls, .kind = st->kind, .n_work = st->n_work, .atoms = st->atoms };

	if (st->n)
		it.name = kernel_short(s, s->order[st->first]);
	return it;
}

static uint32_t step_name(const struct side *s, const struct step *st)
{
	return st->n ? s->t->kernels[s->order[st->first]].name : 0;
}

static void slot_add(struct slot *sl, uint32_t step, uint32_t pass)
{
	VEC_PUSH(sl->occ, sl->n_occ, sl->cap_occ, ((struct occ){ step, pass }));
}

/* Merge the steps [first, first + n) of pass p into the canonical layer m. */
static void merge_pass(const struct side *s, struct merged_layer *m, uint32_t first, uint32_t n, uint32_t p)
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
		for (uint32_t i = 0; i < n; i++) {
			if (!same) {
				struct slot sl = { .item = step_item(s, &s->steps[first + i]),
						   .first_name = step_name(s, &s->steps[first + i]) };

				VEC_PUSH(m->slot, m->n, m->cap, sl);
			}
			slot_add(&m->slot[i], first + i, p);
		}
		return;
	}

	/* The pass differs from what was seen so far: align it with the canonical slots. */
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
				slot_add(&out[n_out - 1], first + e->step[1][0], p);
		} else {
			struct slot sl = { .item = items[e->step[1][0]],
					   .first_name = step_name(s, &s->steps[first + e->step[1][0]]) };

			slot_add(&sl, first + e->step[1][0], p);
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
		}
		free(w->ml[s]);
	}
	for (size_t k = 0; w->al && k < w->n_keys; k++)
		alignment_clear(&w->al[k].al);
	free(w->al);
	memset(w, 0, sizeof *w);
}

/* --- pairs -------------------------------------------------------------------------------- */

static void part_add_name(struct cmp_part *p, uint32_t name, size_t *cap)
{
	for (uint32_t i = 0; i < p->n_names; i++)
		if (p->names[i] == name)
			return;
	if (p->n_names >= *cap) {
		*cap = *cap ? *cap * 2 : 4;
		p->names = xreallocarray(p->names, *cap, sizeof *p->names);
	}
	p->names[p->n_names++] = name;
}

/* Fill one side of a pair from the slots it holds; *work_pp gets the working kernels per pass. */
static void fill_part(struct cmp_part *p, const struct side *s, const struct merged_layer *m,
		      const uint32_t *slots, uint32_t n_slots, uint32_t passes, double *work_pp,
		      uint32_t *occurrences)
{
	size_t cap_names = 0, cap_inst = 0, n_inst = 0;
	int64_t dur = 0, work = 0;
	uint32_t occ = 0;

	memset(p, 0, sizeof *p);
	for (uint32_t k = 0; k < n_slots; k++) {
		const struct slot *sl = &m->slot[slots[k]];

		occ += (uint32_t)sl->n_occ;
		for (size_t o = 0; o < sl->n_occ; o++) {
			const struct step *st = &s->steps[sl->occ[o].step];

			work += st->n_work ? st->n_work : 1;
			for (uint32_t i = 0; i < st->n; i++) {
				uint32_t kernel = s->order[st->first + i];

				part_add_name(p, s->t->kernels[kernel].name, &cap_names);
				if (n_inst >= cap_inst) {
					cap_inst = cap_inst ? cap_inst * 2 : 8;
					p->inst = xreallocarray(p->inst, cap_inst, sizeof *p->inst);
				}
				p->inst[n_inst++] = (struct cmp_instance){ kernel, sl->occ[o].pass };
				dur += s->t->kernels[kernel].dur;
			}
		}
	}
	p->n_inst = (uint32_t)n_inst;
	p->count = passes ? (double)n_inst / passes : 0;
	p->total_ns = passes ? (double)dur / passes : 0;
	p->avg_ns = n_inst ? (double)dur / (double)n_inst : NAN;
	*work_pp = passes ? (double)work / passes : 0;
	*occurrences = occ;
}

/* What each pair needs beyond struct cmp_pair while fusions are grouped. */
struct pair_aux {
	double work[2];	 /* working kernels per pass */
	uint32_t occ[2]; /* step occurrences */
	atom_set atoms[2];
	uint8_t all_same[2]; /* every step on the side has the class and atoms of the other side's
				one step (a horizontal fusion: 3 GEMMs for 1) */
	uint8_t fused_side;
	int64_t link; /* the pair this gap's work is inside (another layer), or -1 */
};

/* --- fusion patterns ---------------------------------------------------------------------- */

/* A fused (or partially fused) pair, with the gap pairs linked to it, before grouping. */
struct pattern {
	uint8_t fused_side, partial;
	char *fused_norm; /* fused kernel name without Inductor's _N suffix */
	uint32_t *others; /* distinct unfused name ids, sorted */
	uint32_t n_others;
	uint32_t pair;	  /* the fused pair */
	uint32_t *linked; /* gap pairs whose work is inside it */
	uint32_t n_linked;
};

static char *normalize_name(const char *name)
{
	size_t n = strlen(name), e = n;

	if (strncmp(name, "triton_", 7) == 0) {
		while (e > 0 && name[e - 1] >= '0' && name[e - 1] <= '9')
			e--;
		if (e < n && e > 0 && name[e - 1] == '_')
			return xstrndup(name, e - 1);
	}
	return xstrdup(name);
}

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
		c = strcmp(a->fused_norm, b->fused_norm);
	if (!c)
		c = CMP(a->n_others, b->n_others);
	for (uint32_t i = 0; !c && i < a->n_others; i++)
		c = CMP(a->others[i], b->others[i]);
	return c ? c : CMP(a->pair, b->pair);
}

static int same_pattern(const struct pattern *a, const struct pattern *b)
{
	if (a->fused_side != b->fused_side || a->partial != b->partial || a->n_others != b->n_others ||
	    strcmp(a->fused_norm, b->fused_norm) != 0)
		return 0;
	return memcmp(a->others, b->others, a->n_others * sizeof *a->others) == 0;
}

/* Layer indices as readable text: "layers 0-7", "the prologue and layers 0, 2". */
static void layers_text(char *buf, size_t cap, const int32_t *l, uint32_t n)
{
	size_t len = 0;
	int have_pro = 0, have_epi = 0;
	uint32_t numbered = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (l[i] == LAYER_PROLOGUE)
			have_pro = 1;
		else if (l[i] == LAYER_EPILOGUE)
			have_epi = 1;
		else
			numbered++;
	}
#define ADD(...)                                                                         \
	do {                                                                             \
		if (len < cap)                                                           \
			len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);      \
	} while (0)
	if (have_pro)
		ADD("the prologue%s", numbered && have_epi ? ", " : numbered || have_epi ? " and " : "");
	if (numbered) {
		ADD("layer%s ", numbered > 1 ? "s" : "");
		for (uint32_t i = 0, first = 1; i < n; i++) {
			uint32_t j = i;

			if (l[i] < 0)
				continue;
			while (j + 1 < n && l[j + 1] == l[j] + 1)
				j++;
			ADD("%s%d", first ? "" : ", ", l[i]);
			if (j > i)
				ADD("%s%d", j > i + 1 ? "-" : ", ", l[j]);
			first = 0;
			i = j;
		}
		if (have_epi)
			ADD(" and ");
	}
	if (have_epi)
		ADD("the epilogue");
#undef ADD
}

static void us_text(char *buf, size_t cap, double ns)
{
	char tmp[32];

	text_us(tmp, sizeof tmp, (int64_t)(ns >= 0 ? ns + 0.5 : ns - 0.5));
	snprintf(buf, cap, "%s us", tmp);
}

static char *evidence_sentence(const struct comparison *c, const struct cmp_fusion *f, double other_work)
{
	const int fs = f->fused_side, os = !fs;
	char *fused, *others = xstrdup(""), atoms[256], where[256], ta[48], tb[48], td[48], nk[32];
	char *out;

	{
		const char *sn = comparison_short_name(c, fs, f->fused_name);

		fused = text_escape_dup(sn, strlen(sn));
	}
	for (uint32_t i = 0; i < f->n_unfused; i++) {
		const char *name = comparison_short_name(c, os, f->unfused_names[i]);
		char *esc = text_escape_dup(name, strlen(name));
		char *n = xasprintf("%s%s%s", others, i ? ", " : "", esc);

		free(esc);
		free(others);
		others = n;
	}
	atoms_format(f->atoms, "+", atoms, sizeof atoms);
	layers_text(where, sizeof where, f->layers, f->n_layers);
	us_text(ta, sizeof ta, f->ns[SIDE_A]);
	us_text(tb, sizeof tb, f->ns[SIDE_B]);
	us_text(td, sizeof td, f->delta_ns);
	if (other_work == (double)(int64_t)other_work)
		snprintf(nk, sizeof nk, "%lld", (long long)other_work);
	else
		snprintf(nk, sizeof nk, "%.1f", other_work);
	if (f->partial)
		out = xasprintf("%c (%s) launches %s (%s) %u time%s per pass where %c (%s) launches %s kernels "
				"for the same work (%s), in %s; per pass A %s, B %s, B - A %s.",
				"AB"[fs], c->label[fs], fused, atoms, f->occurrences, f->occurrences == 1 ? "" : "s",
				"AB"[os], c->label[os], nk, others, where, ta, tb, td);
	else
		out = xasprintf("%c (%s) runs %s (%s) as one kernel where %c (%s) runs %s kernels for the same "
				"work (%s), %u time%s per pass in %s; per pass A %s, B %s, B - A %s.",
				"AB"[fs], c->label[fs], fused, atoms, "AB"[os], c->label[os], nk, others,
				f->occurrences, f->occurrences == 1 ? "" : "s", where, ta, tb, td);
	free(fused);
	free(others);
	return out;
}

struct fusion_sort {
	struct cmp_fusion f;
	const char *name;
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

static void build_fusions(struct comparison *c, struct pair_aux *aux)
{
	struct pattern *pat = NULL;
	size_t n_pat = 0, cap_pat = 0;
	struct fusion_sort *fs = NULL;
	size_t n_fs = 0, cap_fs = 0;

	for (size_t i = 0; i < c->n_pairs; i++) {
		struct cmp_pair *p = &c->pairs[i];
		struct pattern pt = { .pair = (uint32_t)i };
		uint32_t *names = NULL;
		size_t n_names = 0, cap_names = 0;
		int os;

		if (p->kind == PAIR_FUSED) {
			pt.fused_side = aux[i].fused_side;
			/* Horizontal only: the same work in several launches (3 GEMMs for 1). */
			pt.partial = aux[i].atoms[!pt.fused_side] == aux[i].atoms[pt.fused_side] &&
				     aux[i].all_same[!pt.fused_side];
		} else if (p->kind == PAIR_MATCH && aux[i].atoms[0] == aux[i].atoms[1] && aux[i].occ[0] &&
			   aux[i].occ[1]) {
			/* The same work launched k times more often on one side. */
			double w0 = aux[i].work[0] / aux[i].occ[0], w1 = aux[i].work[1] / aux[i].occ[1];

			if (!(w0 >= 2 * w1 || w1 >= 2 * w0))
				continue;
			pt.partial = 1;
			pt.fused_side = w0 < w1 ? SIDE_A : SIDE_B;
		} else {
			continue;
		}
		os = !pt.fused_side;
		if (!p->side[pt.fused_side].n_names)
			continue;
		pt.fused_norm = normalize_name(trace_str(c->side[pt.fused_side].t, p->side[pt.fused_side].names[0]));
		for (size_t j = 0; j < c->n_pairs; j++)
			if (aux[j].link == (int64_t)i) {
				pt.linked = xreallocarray(pt.linked, pt.n_linked + 1, sizeof *pt.linked);
				pt.linked[pt.n_linked++] = (uint32_t)j;
			}
		for (uint32_t k = 0; k <= pt.n_linked; k++) {
			const struct cmp_part *part = &c->pairs[k < pt.n_linked ? pt.linked[k] : i].side[os];

			for (uint32_t j = 0; j < part->n_names; j++)
				VEC_PUSH(names, n_names, cap_names, part->names[j]);
		}
		if (n_names)
			qsort(names, n_names, sizeof *names, cmp_u32);
		for (size_t j = 0; j < n_names; j++)
			if (!pt.n_others || pt.others[pt.n_others - 1] != names[j]) {
				pt.others = xreallocarray(pt.others, pt.n_others + 1, sizeof *pt.others);
				pt.others[pt.n_others++] = names[j];
			}
		free(names);
		VEC_PUSH(pat, n_pat, cap_pat, pt);
	}
	if (n_pat)
		qsort(pat, n_pat, sizeof *pat, cmp_pattern);

	for (size_t g = 0; g < n_pat;) {
		size_t h = g + 1;
		struct cmp_fusion f = { .fused_side = pat[g].fused_side, .partial = pat[g].partial };
		const int fsd = f.fused_side, os = !fsd;
		size_t cap_pairs = 0, cap_layers = 0, cap_un = 0;
		double occ = 0, other_work = 0;
		uint32_t *all = NULL;
		size_t n_all = 0, cap_all = 0;

		while (h < n_pat && same_pattern(&pat[g], &pat[h]))
			h++;
		for (size_t k = g; k < h; k++) {
			VEC_PUSH(all, n_all, cap_all, pat[k].pair);
			for (uint32_t j = 0; j < pat[k].n_linked; j++)
				VEC_PUSH(all, n_all, cap_all, pat[k].linked[j]);
		}
		qsort(all, n_all, sizeof *all, cmp_u32);
		for (size_t k = 0; k < n_all; k++) {
			const struct cmp_pair *p = &c->pairs[all[k]];
			const struct cmp_part *part = &p->side[os];

			if (f.n_pairs >= cap_pairs) {
				cap_pairs = cap_pairs ? cap_pairs * 2 : 8;
				f.pairs = xreallocarray(f.pairs, cap_pairs, sizeof *f.pairs);
			}
			f.pairs[f.n_pairs++] = all[k];
			for (uint32_t j = 0; j < part->n_names; j++) {
				uint32_t x;

				for (x = 0; x < f.n_unfused && f.unfused_names[x] != part->names[j]; x++)
					;
				if (x == f.n_unfused) {
					if (f.n_unfused >= cap_un) {
						cap_un = cap_un ? cap_un * 2 : 8;
						f.unfused_names = xreallocarray(f.unfused_names, cap_un,
										sizeof *f.unfused_names);
					}
					f.unfused_names[f.n_unfused++] = part->names[j];
				}
			}
			f.ns[0] += p->side[0].total_ns;
			f.ns[1] += p->side[1].total_ns;
			other_work += aux[all[k]].work[os];
			if (p->side[fsd].n_inst) { /* the fused pair (linked gaps have no fused side) */
				occ += aux[all[k]].work[fsd];
				f.atoms |= aux[all[k]].atoms[fsd];
				if (!f.n_layers || f.layers[f.n_layers - 1] != p->layer) {
					if (f.n_layers >= cap_layers) {
						cap_layers = cap_layers ? cap_layers * 2 : 8;
						f.layers = xreallocarray(f.layers, cap_layers, sizeof *f.layers);
					}
					f.layers[f.n_layers++] = p->layer;
				}
				if (!f.fused_name && p->side[fsd].n_names)
					f.fused_name = p->side[fsd].names[0];
			}
		}
		f.occurrences = (uint32_t)(occ + 0.5);
		f.delta_ns = f.ns[1] - f.ns[0];
		f.evidence = evidence_sentence(c, &f, occ > 0 ? other_work / occ : other_work);
		VEC_PUSH(fs, n_fs, cap_fs, ((struct fusion_sort){ f, trace_str(c->side[fsd].t, f.fused_name) }));
		free(all);
		g = h;
	}
	for (size_t g = 0; g < n_pat; g++) {
		free(pat[g].fused_norm);
		free(pat[g].others);
		free(pat[g].linked);
	}
	free(pat);

	if (n_fs)
		qsort(fs, n_fs, sizeof *fs, cmp_fusion_sort);
	c->fusions = xcalloc(n_fs + 1, sizeof *c->fusions);
	c->n_fusions = n_fs;
	for (size_t i = 0; i < n_fs; i++) {
		c->fusions[i] = fs[i].f;
		for (uint32_t k = 0; k < fs[i].f.n_pairs; k++)
			c->pairs[fs[i].f.pairs[k]].fusion = (int32_t)i;
	}
	free(fs);
}

/* --- the comparison ------------------------------------------------------------------------- */

static void merge_side(struct work *w, int s, int phase, uint32_t *passes)
{
	const struct side *sd = w->s[s];

	*passes = 0;
	w->ml[s] = xcalloc(w->n_keys, sizeof *w->ml[s]);
	for (size_t p = 0; p < sd->n_passes; p++) {
		const struct pass *ps = &sd->passes[p];

		if (!pass_in_phase(ps, phase))
			continue;
		(*passes)++;
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &sd->layers[ps->layer_first + l];

			merge_pass(sd, &w->ml[s][layer_key(ly->index, w->n_keys)], ly->step_first, ly->step_n,
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

/* The number of layer keys: prologue, 0..n-1 for the most layers any pass has, epilogue. */
static size_t count_keys(const struct side *a, const struct side *b, int phase)
{
	int32_t most = 0;
	const struct side *sd[2] = { a, b };

	for (int s = 0; s < 2; s++)
		for (size_t p = 0; p < sd[s]->n_passes; p++) {
			const struct pass *ps = &sd[s]->passes[p];

			if (!pass_in_phase(ps, phase))
				continue;
			for (uint32_t l = 0; l < ps->layer_n; l++) {
				int32_t idx = sd[s]->layers[ps->layer_first + l].index;

				if (idx >= 0 && idx + 1 > most)
					most = idx + 1;
			}
		}
	return (size_t)most + 2;
}

static void pair_from_entry(struct comparison *c, struct work *w, size_t key, const struct align_entry *e,
			    uint32_t position, struct cmp_pair *p, struct pair_aux *ax)
{
	const struct merged_layer *m[2] = { &w->ml[0][key], &w->ml[1][key] };

	memset(p, 0, sizeof *p);
	memset(ax, 0, sizeof *ax);
	p->layer = key_layer(key, w->n_keys);
	p->position = position;
	p->kind = e->kind;
	p->fusion = -1;
	ax->link = -1;
	for (int s = 0; s < 2; s++) {
		fill_part(&p->side[s], &c->side[s], m[s], e->step[s], e->n[s], c->passes[s], &ax->work[s],
			  &ax->occ[s]);
		for (uint32_t k = 0; k < e->n[s]; k++)
			ax->atoms[s] |= m[s]->slot[e->step[s][k]].item.atoms & ~ATOM_BIT(ATOM_OTHER);
	}
	for (int s = 0; s < 2; s++) {
		const struct align_item *one = e->n[!s] == 1 ? &m[!s]->slot[e->step[!s][0]].item : NULL;

		ax->all_same[s] = one && e->n[s] >= 2;
		for (uint32_t k = 0; ax->all_same[s] && k < e->n[s]; k++) {
			const struct align_item *it = &m[s]->slot[e->step[s][k]].item;

			ax->all_same[s] = it->cls == one->cls && it->atoms == one->atoms;
		}
	}
	ax->fused_side = e->fused_side;
	if (e->kind == ALIGN_FUSED) {
		const struct align_item *f = &m[e->fused_side]->slot[e->step[e->fused_side][0]].item;

		p->cls = f->cls;
		p->atoms = f->atoms;
	} else if (e->n[0] && e->n[1]) {
		const struct align_item *x = &m[0]->slot[e->step[0][0]].item, *y = &m[1]->slot[e->step[1][0]].item;

		/* A cover of different classes shows the class of the side that does more. */
		p->cls = (x->cls != y->cls && (x->atoms & ~y->atoms) == 0) ? y->cls : x->cls;
		p->atoms = ax->atoms[0] | ax->atoms[1];
	} else {
		int s = e->n[0] ? 0 : 1;

		p->cls = m[s]->slot[e->step[s][0]].item.cls;
		p->atoms = ax->atoms[s];
	}
	p->delta_ns = p->side[1].total_ns - p->side[0].total_ns;
	p->ratio = cmp_ratio(p->side[0].total_ns, p->side[1].total_ns);
}

static void layer_totals(struct comparison *c, struct work *w)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = &c->side[s];

		for (size_t p = 0; p < sd->n_passes; p++) {
			const struct pass *ps = &sd->passes[p];

			if (!pass_in_phase(ps, c->phase))
				continue;
			for (uint32_t l = 0; l < ps->layer_n; l++) {
				const struct layer *ly = &sd->layers[ps->layer_first + l];
				struct cmp_layer *cl = &c->layers[layer_key(ly->index, w->n_keys)];
				uint32_t kernels = 0;

				for (uint32_t k = 0; k < ly->step_n; k++)
					kernels += sd->steps[ly->step_first + k].n;
				cl->ns[s] += (double)ly->dur;
				cl->kernels[s] += kernels;
			}
			for (uint32_t i = 0; i < ps->n; i++) {
				uint32_t kernel = sd->order[ps->first + i];
				int cls = sd->classes.info_of ? trace_classes_get(&sd->classes, kernel)->cls : CLASS_OTHER;

				c->ns[s] += (double)sd->t->kernels[kernel].dur;
				c->class_ns[s][cls < CLASS_COUNT ? cls : CLASS_OTHER] += (double)sd->t->kernels[kernel].dur;
			}
		}
		if (c->passes[s]) {
			for (size_t k = 0; k < c->n_layers; k++) {
				c->layers[k].ns[s] /= c->passes[s];
				c->layers[k].kernels[s] /= c->passes[s];
			}
			c->ns[s] /= c->passes[s];
			for (int k = 0; k < CLASS_COUNT; k++)
				c->class_ns[s][k] /= c->passes[s];
		}
	}
	for (size_t k = 0; k < c->n_layers; k++) {
		c->layers[k].delta_ns = c->layers[k].ns[1] - c->layers[k].ns[0];
		c->layers[k].ratio = cmp_ratio(c->layers[k].ns[0], c->layers[k].ns[1]);
	}
	c->delta_ns = c->ns[1] - c->ns[0];
	c->ratio = cmp_ratio(c->ns[0], c->ns[1]);
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
	free(c->layers);
	free(c->note);
	c->pairs = NULL;
	c->fusions = NULL;
	c->layers = NULL;
	c->note = NULL;
	c->n_pairs = c->n_fusions = c->n_layers = 0;
	c->passes[0] = c->passes[1] = 0;
	c->ns[0] = c->ns[1] = c->delta_ns = 0;
	c->ratio = NAN;
	memset(c->class_ns, 0, sizeof c->class_ns);
}

/* The phase to show: the one asked for, else the first that both sides have. */
static int choose_phase(struct comparison *c, int phase)
{
	const struct side *a = &c->side[0], *b = &c->side[1];

	if (phase >= 0 && phase <= PHASE_COUNT) {
		if (phase < PHASE_COUNT && (!a->phase_passes[phase] || !b->phase_passes[phase]))
			c->note = xasprintf("no %s pass on %s%s%s", phase_name((enum phase)phase),
					    !a->phase_passes[phase] ? c->label[0] : "",
					    !a->phase_passes[phase] && !b->phase_passes[phase] ? " nor on " : "",
					    !b->phase_passes[phase] ? c->label[1] : "");
		return phase;
	}
	for (int p = 0; p < PHASE_COUNT; p++)
		if (a->phase_passes[p] && b->phase_passes[p])
			return p;
	if (a->n_passes && b->n_passes)
		c->note = xstrdup("the two traces have no phase in common: comparing all passes");
	return PHASE_COUNT;
}

static void compute(struct comparison *c, int phase)
{
	struct work w = { .s = { &c->side[0], &c->side[1] } };
	struct cmp_pair *pairs = NULL;
	struct pair_aux *aux = NULL;
	size_t n_pairs = 0, cap_pairs = 0, cap_aux = 0, n_aux = 0;
	size_t *first_pair;

	clear_results(c);
	c->phase = choose_phase(c, phase);
	w.n_keys = count_keys(&c->side[0], &c->side[1], c->phase);
	merge_side(&w, 0, c->phase, &c->passes[0]);
	merge_side(&w, 1, c->phase, &c->passes[1]);
	if (!c->note && (!c->passes[0] || !c->passes[1]))
		c->note = xasprintf("%s has no pass to compare", !c->passes[0] ? c->label[0] : c->label[1]);

	w.al = xcalloc(w.n_keys, sizeof *w.al);
	for (size_t k = 0; k < w.n_keys; k++) {
		struct align_layer *l = &w.al[k];

		for (int s = 0; s < 2; s++) {
			l->item[s] = w.ml[s][k].items;
			l->n_item[s] = w.ml[s][k].n;
		}
		align_steps(l->item[0], l->n_item[0], l->item[1], l->n_item[1], NULL, &l->al);
	}
	align_absorb(w.al, w.n_keys, 0);

	c->n_layers = w.n_keys;
	c->layers = xcalloc(w.n_keys, sizeof *c->layers);
	first_pair = xcalloc(w.n_keys + 1, sizeof *first_pair);
	for (size_t k = 0; k < w.n_keys; k++) {
		struct cmp_layer *cl = &c->layers[k];

		cl->index = key_layer(k, w.n_keys);
		cl->phase = (uint8_t)c->phase;
		cl->pair_first = (uint32_t)n_pairs;
		first_pair[k] = n_pairs;
		for (size_t i = 0; i < w.al[k].al.n; i++) {
			VEC_RESERVE(pairs, n_pairs, cap_pairs);
			VEC_RESERVE(aux, n_aux, cap_aux);
			pair_from_entry(c, &w, k, &w.al[k].al.e[i], (uint32_t)i, &pairs[n_pairs], &aux[n_aux]);
			n_pairs++;
			n_aux++;
		}
		cl->pair_n = (uint32_t)(n_pairs - cl->pair_first);
	}
	/* Gaps whose work is inside a fused pair of the neighbouring layer. */
	for (size_t k = 0; k < w.n_keys; k++)
		for (size_t i = 0; i < w.al[k].al.n; i++) {
			const struct align_entry *e = &w.al[k].al.e[i];

			if (e->link_dir)
				aux[first_pair[k] + i].link =
					(int64_t)(first_pair[(size_t)((ptrdiff_t)k + e->link_dir)] + e->link);
		}
	free(first_pair);
	c->pairs = pairs;
	c->n_pairs = n_pairs;
	build_fusions(c, aux);
	for (size_t k = 0; k < c->n_layers; k++) {
		struct cmp_layer *cl = &c->layers[k];
		int32_t seen[64];
		uint32_t n_seen = 0;

		for (uint32_t i = cl->pair_first; i < cl->pair_first + cl->pair_n; i++) {
			int32_t f = c->pairs[i].fusion;
			uint32_t j;

			if (f < 0)
				continue;
			for (j = 0; j < n_seen && seen[j] != f; j++)
				;
			if (j == n_seen) {
				if (n_seen < 64)
					seen[n_seen++] = f;
				cl->n_fusions++;
			}
		}
	}
	layer_totals(c, &w);
	free(aux);
	work_free(&w);
}

/* The default label of a side: "NVIDIA H200" from vendor and GPU. */
static char *default_label(const struct trace *t)
{
	const char *vendor = trace_platform_name(t->platform);
	const char *gpu = t->gpu_name ? trace_str(t, t->gpu_name) : "";

	if (!*gpu)
		return t->platform == PLATFORM_UNKNOWN ? xstrdup("unknown GPU") : xasprintf("%s GPU", vendor);
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
		c->label[s] = o && o->label[s] ? xstrdup(o->label[s]) : default_label(c->side[s].t);
	if (strcmp(c->label[0], c->label[1]) != 0)
		return;
	for (int s = 0; s < 2; s++) {
		const char *path = c->side[s].t->path ? c->side[s].t->path : "";
		const char *other = c->side[!s].t->path ? c->side[!s].t->path : "";
		const char *base = path_basename(path);

		if ((o && o->label[s]) || (o && o->label[!s]))
			continue; /* the user chose the same labels: keep them */
		free(c->label[s]);
		if (strcmp(base, path_basename(other)) != 0)
			c->label[s] = text_escape_dup(base, strlen(base));
		else if (strcmp(path, other) != 0)
			c->label[s] = text_escape_dup(path, strlen(path));
		else
			c->label[s] = xasprintf("%c: %s", s ? 'B' : 'A', base);
	}
}

int comparison_build(struct comparison **out, struct side *a, struct side *b, const struct compare_opts *o,
		     struct fd_error *err)
{
	struct comparison *c = xcalloc(1, sizeof *c);

	(void)err;
	c->side[0] = *a;
	c->side[1] = *b;
	memset(a, 0, sizeof *a);
	memset(b, 0, sizeof *b);
	set_labels(c, o);
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s].t;

		c->short_names[s] = xcalloc(intern_count(t->strings) + 1, sizeof *c->short_names[s]);
		for (size_t k = 0; k < t->n_kernels; k++)
			if (!c->short_names[s][t->kernels[k].name])
				c->short_names[s][t->kernels[k].name] = kernel_short(&c->side[s], (uint32_t)k);
	}
	compute(c, o ? o->phase : -1);
	*out = c;
	return 0;
}

int comparison_set_phase(struct comparison *c, int phase, struct fd_error *err)
{
	(void)err;
	compute(c, phase);
	return 0;
}

const char *comparison_short_name(const struct comparison *c, int s, uint32_t name)
{
	const char *n = c->short_names[s] && name < intern_count(c->side[s].t->strings) ? c->short_names[s][name] : NULL;

	return n ? n : trace_str(c->side[s].t, name);
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
	side_clear(&c->side[0]);
	side_clear(&c->side[1]);
	trace_free(c->traces[0]);
	trace_free(c->traces[1]);
	if (c->classifier)
		classifier_free(c->classifier);
	free(c);
}
