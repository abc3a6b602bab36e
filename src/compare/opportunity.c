/* opportunity.c — the unfused chains of one trace (opportunity.h). */
#include "fusediff/opportunity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/op_args.h"
#include "fusediff/time_stats.h"

/* Work whose output the operators never record (its shapes are not checked). */
#define HEAVY                                                                   \
	(ATOM_BIT(ATOM_GEMM) | ATOM_BIT(ATOM_ATTENTION) | ATOM_BIT(ATOM_CONV) | \
	 ATOM_BIT(ATOM_MOE_GEMM) | ATOM_BIT(ATOM_COMM))
/* Work an element must name to match a step that does it: heavy work, and a backward pass
 * (a forward chain is no chain of gradients). */
#define NAMED_ONLY (HEAVY | ATOM_BIT(ATOM_GRAD))

/* One layer of one pass being searched. */
#define MAX_SHAPES 16

struct shape {
	const char *p;
	size_t len;
};

struct scan {
	const struct side *s;
	const struct opportunity_opts *o;
	const atom_set (*others)[CHAIN_MAX]; /* per chain and element: the other elements' atoms
						that it lacks */
	const struct step *st;		     /* the layer's steps */
	uint32_t m;
	atom_set first_atoms; /* some chain's first element needs one of these atoms */
	uint32_t first_cls;   /* or is one of these classes (bit 1u << class) */
	uint8_t *taken;	      /* per step of the layer */
	uint8_t *n_shapes;    /* per step of the layer: its shapes, once found (0xff: not yet) */
	struct shape *shapes; /* MAX_SHAPES per step of the layer */
	struct dims_memo *dims;
	struct first_fit *fits; /* FITS of them */
};

/* The chains whose first element a step of this class and these atoms can be, as bits of
 * their positions in the try order (when there are 64 at most): a search meets a few dozen
 * distinct steps, each thousands of times. */
#define FITS 256
struct first_fit {
	uint64_t chains;
	atom_set atoms;
	uint8_t cls, used;
};

/* The shapes of each Input Dims text, parsed once per search (the layers of a model repeat the
 * same few texts): per string id of the trace, where its shapes start in pool, plus 1 (0: not
 * parsed yet), and how many (at most MAX_SHAPES: no step keeps more). */
struct dims_memo {
	uint32_t *at;
	uint8_t *n;
	struct shape *pool;
	size_t n_pool, cap_pool;
};

/* A match: the steps of each element (first, count), in order. */
struct match {
	uint32_t first[CHAIN_MAX], count[CHAIN_MAX];
};

static const struct trace_kernel *main_kernel(const struct scan *sc, uint32_t i)
{
	return side_step_main(sc->s, &sc->st[i]);
}

static int step_off(const struct scan *sc, uint32_t i)
{
	const struct step *st = &sc->st[i];

	if (sc->taken[i])
		return 1;
	for (uint32_t k = 0; sc->o->kernel_off && k < st->n; k++)
		if (sc->o->kernel_off[sc->s->order[st->first + k]])
			return 1;
	return 0;
}

/* Step i's kernels come from two operators or more, or the trace does not say: an eager
 * composition of the program's own, not one operator whose implementation launches several
 * kernels (PyTorch's GroupNorm: moments, parameters, transform). */
static int several_operators(const struct scan *sc, uint32_t i)
{
	const struct step *st = &sc->st[i];
	int64_t first = 0;

	for (uint32_t k = 0; k < st->n; k++) {
		int64_t x = side_step_kernel(sc->s, st, k)->external_id;

		if (!x)
			return 1;
		if (!first)
			first = x;
		else if (x != first)
			return 1;
	}
	return 0;
}

static int elem_matches(const struct scan *sc, const struct fusible_chain *ch, int e, uint32_t i)
{
	const struct step *st = &sc->st[i];
	atom_set want = ch->elem[e], others = sc->others[ch - sc->o->chains][e];

	if (ch->elem_cls[e] ? st->cls != ch->elem_cls[e] - 1 : (st->atoms & want) != want)
		return 0; /* the common case, first */
	if (step_off(sc, i))
		return 0;
	if (ch->n == 1)
		return st->kind == STEP_RUN && st->n_work >= 3 && (st->atoms & want) == want &&
		       several_operators(sc, i);
	if (ch->elem_cls[e])
		return st->cls == ch->elem_cls[e] - 1;
	return (st->atoms & want) == want && !(st->atoms & others) &&
	       !(st->atoms & NAMED_ONLY & ~want);
}

/* The shapes found for one step so far: out[0..n), at most MAX_SHAPES. */
struct shape_list {
	struct shape *out;
	size_t n;
};

/* op_args_each_shape(): add a shape with a dimension to the list; stop when it is full. */
static int add_shape(const struct op_arg *a, void *ctx)
{
	struct shape_list *l = ctx;

	if (a->nd)
		l->out[l->n++] = (struct shape){ a->text, a->len };
	return l->n == MAX_SHAPES;
}

/* The first MAX_SHAPES shapes of Input Dims text id (dims_memo). */
static const struct shape *dims_shapes(const struct scan *sc, uint32_t id, size_t *n)
{
	struct dims_memo *m = sc->dims;

	if (!m->at[id]) {
		struct shape buf[MAX_SHAPES];
		struct shape_list l = { buf, 0 };

		op_args_each_shape(trace_str(sc->s->t, id), add_shape, &l);
		while (m->n_pool + l.n > m->cap_pool)
			m->pool = xreallocarray(m->pool, m->cap_pool = m->cap_pool * 2 + MAX_SHAPES,
						sizeof *m->pool);
		memcpy(m->pool + m->n_pool, buf, l.n * sizeof *buf);
		m->at[id] = (uint32_t)m->n_pool + 1;
		m->n[id] = (uint8_t)l.n;
		m->n_pool += l.n;
	}
	*n = m->n[id];
	return m->pool + m->at[id] - 1;
}

/* The shapes the operators of step i recorded ("[4,512]" texts of their Input Dims, those in
 * lists of tensors included; [] left out), at most MAX_SHAPES of them (borrowed pointers into
 * the trace's strings with their lengths), found once per step and layer. */
static size_t step_shapes(const struct scan *sc, uint32_t i, const struct shape **v)
{
	const struct step *st = &sc->st[i];
	const struct trace *t = sc->s->t;
	struct shape *out = sc->shapes + (size_t)i * MAX_SHAPES;
	size_t n = 0;

	*v = out;
	if (sc->n_shapes[i] != 0xff)
		return sc->n_shapes[i];
	for (uint32_t k = 0; k < st->n && n < MAX_SHAPES; k++) {
		const struct trace_kernel *kr = side_step_kernel(sc->s, st, k);
		const struct trace_op *op =
			kr->external_id ? trace_find_op(t, kr->external_id) : NULL;
		const struct shape *sh;
		size_t m;

		if (!op || !op->input_dims)
			continue;
		sh = dims_shapes(sc, op->input_dims, &m);
		if (m > MAX_SHAPES - n)
			m = MAX_SHAPES - n;
		memcpy(out + n, sh, m * sizeof *sh);
		n += m;
	}
	sc->n_shapes[i] = (uint8_t)n;
	return n;
}

/* Steps i and j work on one tensor as far as the recorded shapes say: they share a shape, or
 * either recorded none (or does heavy work, whose output is never recorded). */
static int shapes_agree(const struct scan *sc, uint32_t i, uint32_t j)
{
	const struct shape *a, *b;
	size_t na, nb;

	if ((sc->st[i].atoms | sc->st[j].atoms) & HEAVY)
		return 1;
	na = step_shapes(sc, i, &a);
	nb = step_shapes(sc, j, &b);
	if (!na || !nb)
		return 1;
	for (size_t x = 0; x < na; x++)
		for (size_t y = 0; y < nb; y++)
			if (a[x].len == b[y].len && memcmp(a[x].p, b[y].p, a[x].len) == 0)
				return 1;
	return 0;
}

/* Step j repeats step i's element: the same class and atoms, launched by the same operator. */
static int repeats(const struct scan *sc, uint32_t i, uint32_t j)
{
	const struct trace_kernel *a = main_kernel(sc, i), *b = main_kernel(sc, j);

	return sc->st[j].cls == sc->st[i].cls && sc->st[j].atoms == sc->st[i].atoms &&
	       a->external_id && a->external_id == b->external_id && !step_off(sc, j);
}

/* Step j is the eager run of step i applied to the next tensor (HF's RoPE rotates q, then k;
 * Qwen3 norms q, then k), the one element of chain ch: one place, as the kernels that fuse it
 * (vLLM's rotary_embedding, Liger's rope) take both tensors in one launch. */
static int next_application(const struct scan *sc, const struct fusible_chain *ch, uint32_t i,
			    uint32_t j)
{
	const struct step *a = &sc->st[i], *b = &sc->st[j];

	return ch->n == 1 && a->kind == STEP_RUN && b->kind == STEP_RUN && a->cls == b->cls &&
	       a->atoms == b->atoms && elem_matches(sc, ch, 0, j);
}

static int try_chain(const struct scan *sc, const struct fusible_chain *ch, uint32_t i,
		     struct match *m)
{
	uint32_t pos = i;
	int32_t stream;

	if (!elem_matches(sc, ch, 0, i))
		return 0;
	stream = main_kernel(sc, i)->stream;
	for (int e = 0; e < ch->n; e++) {
		if (pos >= sc->m)
			return 0;
		if (!elem_matches(sc, ch, e, pos) && e > 0 && pos + 1 < sc->m &&
		    (ch->between & (1u << sc->st[pos].cls)))
			pos++; /* one step of a class the entry allows between two elements */
		if (!elem_matches(sc, ch, e, pos) || main_kernel(sc, pos)->stream != stream)
			return 0;
		if (e > 0 && !shapes_agree(sc, m->first[e - 1] + m->count[e - 1] - 1, pos))
			return 0;
		m->first[e] = pos;
		m->count[e] = 1;
		while (pos + 1 < sc->m &&
		       (repeats(sc, pos, pos + 1) || next_application(sc, ch, pos, pos + 1))) {
			pos++;
			m->count[e]++;
		}
		pos++;
	}
	return 1;
}

static int first_fits(const struct fusible_chain *ch, const struct step *st)
{
	return ch->elem_cls[0] ? st->cls == ch->elem_cls[0] - 1
			       : (st->atoms & ch->elem[0]) == ch->elem[0];
}

/* The chains (of ord[0..n_ord), n_ord <= 64) that step st can begin (struct first_fit). */
static uint64_t first_fit(const struct scan *sc, const uint16_t *ord, size_t n_ord,
			  const struct step *st)
{
	size_t h = (size_t)((st->atoms * 2654435761u) ^ st->cls) & (FITS - 1);
	uint64_t chains = 0;

	for (size_t tries = 0; tries < FITS; tries++, h = (h + 1) & (FITS - 1)) {
		const struct first_fit *f = &sc->fits[h];

		if (!f->used)
			break;
		if (f->atoms == st->atoms && f->cls == st->cls)
			return f->chains;
	}
	for (size_t c = 0; c < n_ord; c++)
		if (first_fits(&sc->o->chains[ord[c]], st))
			chains |= (uint64_t)1 << c;
	if (!sc->fits[h].used) /* else the table is full: found again next time */
		sc->fits[h] = (struct first_fit){ chains, st->atoms, st->cls, 1 };
	return chains;
}

/* The first position from c on in set fits (first_fit()), 64 when none is. */
static size_t next_fit(uint64_t fits, size_t c)
{
	fits = c < 64 ? fits >> c << c : 0;
	return fits ? (size_t)__builtin_ctzll(fits) : 64;
}

/* --- grouping ---------------------------------------------------------------------------- */

struct place {
	uint32_t offset, ordinal;
};

struct group {
	struct opportunity op;
	struct place *places;
	size_t n_places, cap_places, cap_layers;
	uint32_t cur_pass, cur_offset, cur_ordinal; /* the last match's layer instance */
	int have_cur;
	double ns, launches, idle, bound; /* sums over the passes */
};

struct acc {
	struct group *g;
	size_t n, cap;
};

static struct group *group_of(struct acc *a, uint16_t chain, uint32_t per_place)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].op.chain == chain && a->g[i].op.per_place == per_place)
			return &a->g[i];
	VEC_PUSH(a->g, a->n, a->cap, (struct group){ 0 });
	a->g[a->n - 1].op.chain = chain;
	a->g[a->n - 1].op.per_place = per_place;
	return &a->g[a->n - 1];
}

/* Sort the kernels k (a place's: a few dozen at most) by start, then index. */
static void sort_by_start(const struct trace *t, uint32_t *k, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = k[i], j = i;

		while (j > 0 &&
		       (t->kernels[k[j - 1]].start > t->kernels[x].start ||
			(t->kernels[k[j - 1]].start == t->kernels[x].start && k[j - 1] > x))) {
			k[j] = k[j - 1];
			j--;
		}
		k[j] = x;
	}
}

/* The place of a match in group g: the layer instance (pass, offset) and the ordinal of the
 * match in it. */
static void add_place(struct group *g, uint32_t pass, const struct layer *l, uint32_t offset)
{
	struct place pl = { offset, 0 };
	size_t i;

	if (g->have_cur && g->cur_pass == pass && g->cur_offset == offset)
		pl.ordinal = ++g->cur_ordinal;
	else
		g->cur_ordinal = 0;
	g->have_cur = 1;
	g->cur_pass = pass;
	g->cur_offset = offset;
	for (i = 0; i < g->n_places; i++)
		if (g->places[i].offset == pl.offset && g->places[i].ordinal == pl.ordinal)
			break;
	if (i == g->n_places)
		VEC_PUSH(g->places, g->n_places, g->cap_places, pl);
	for (i = 0; i < g->op.n_layers; i++)
		if (g->op.layers[i].offset == offset)
			return;
	VEC_PUSH(g->op.layers, g->op.n_layers, g->cap_layers,
		 ((struct opportunity_layer){ l->stack, l->index, offset }));
}

/* The busy intervals of the pass being searched: given (opportunity_opts.busy), or found
 * when a match first needs them. */
struct pass_busy {
	const struct busy_set *set; /* NULL: not found yet */
	struct busy_set own;	    /* found here */
	size_t near;		    /* busy_set_idle()'s hint */
};

static const struct busy_set *busy_of(struct pass_busy *b, const struct side *s,
				      const struct pass *ps)
{
	if (!b->set) {
		struct time_span ts;

		time_span_of(s->t, s->order + ps->first, ps->n, &ts, &b->own);
		b->set = &b->own;
	}
	return b->set;
}

/* Record match m (n_elem elements) of chain `chain` found in layer l (at offset in pass
 * `pass`, whose busy intervals are busy). */
static void record(struct acc *a, const struct scan *sc, uint16_t chain, const struct match *m,
		   int n_elem, uint32_t pass, const struct layer *l, uint32_t offset,
		   struct pass_busy *busy)
{
	const struct busy_set *bs = busy_of(busy, sc->s, &sc->s->passes[pass]);
	const struct side *s = sc->s;
	const struct trace *t = s->t;
	uint32_t work = 0, *k = NULL, nk = 0, cap = 0;
	int64_t sum = 0, longest = 0;
	double idle = 0;
	struct group *g;

	for (int e = 0; e < n_elem; e++)
		for (uint32_t i = m->first[e]; i < m->first[e] + m->count[e]; i++) {
			const struct step *st = &sc->st[i];

			work += st->n_work;
			for (uint32_t j = 0; j < st->n; j++)
				VEC_PUSH(k, nk, cap, s->order[st->first + j]);
		}
	g = group_of(a, chain, work);
	add_place(g, pass, l, offset);
	sort_by_start(t, k, nk);
	for (uint32_t i = 0; i < nk; i++) {
		const struct trace_kernel *kr = &t->kernels[k[i]];

		sum += kr->dur;
		if (kr->dur > longest)
			longest = kr->dur;
		if (i > 0 && k[i] > 0) {
			const struct trace_kernel *prev = &t->kernels[k[i] - 1];

			idle += (double)busy_set_idle(bs, prev->start + prev->dur, kr->start,
						      &busy->near);
		}
	}
	g->ns += (double)sum;
	g->bound += (double)(sum - longest);
	g->idle += idle;
	g->launches += work > 0 ? work - 1 : 0;
	g->op.occurrences++;
	if (!g->op.example) {
		g->op.example = k;
		g->op.n_example = nk;
		for (uint32_t i = 0; i < nk; i++) {
			uint32_t name = t->kernels[k[i]].name, j;

			for (j = 0; j < g->op.n_names && g->op.names[j] != name; j++)
				;
			if (j == g->op.n_names) {
				g->op.names =
					xreallocarray(g->op.names, j + 1, sizeof *g->op.names);
				g->op.names[g->op.n_names++] = name;
			}
		}
		k = NULL;
	}
	free(k);
}

/* --- the search -------------------------------------------------------------------------- */

/* The chains in the order they are tried: more elements first, then the catalogue's order. */
static uint16_t *try_order(const struct opportunity_opts *o, size_t *n)
{
	uint16_t *ord = xcalloc(o->n_chains + 1, sizeof *ord);

	*n = 0;
	for (int len = CHAIN_MAX; len >= 1; len--)
		for (size_t c = 0; c < o->n_chains && c < UINT16_MAX; c++)
			if (o->chains[c].n == len)
				ord[(*n)++] = (uint16_t)c;
	return ord;
}

static void scan_layer(struct acc *a, struct scan *sc, const uint16_t *ord, size_t n_ord,
		       uint32_t pass, const struct layer *l, uint32_t offset,
		       struct pass_busy *busy)
{
	const struct side *s = sc->s;

	sc->st = &s->steps[l->step_first];
	sc->m = l->step_n;
	memset(sc->taken, 0, sc->m);
	memset(sc->n_shapes, 0xff, sc->m);
	for (uint32_t i = 0; i < sc->m; i++) {
		if (sc->taken[i] || (!(sc->st[i].atoms & sc->first_atoms) &&
				     !(sc->first_cls & (1u << sc->st[i].cls))))
			continue;
		const int by_fit = n_ord <= 64;
		uint64_t fits = by_fit ? first_fit(sc, ord, n_ord, &sc->st[i]) : 0;

		/* the chains it can begin, in the try order: the set bits of fits (most steps
		 * begin none or one of the dozens of chains) */
		for (size_t c = by_fit ? next_fit(fits, 0) : 0; c < n_ord;
		     c = by_fit ? next_fit(fits, c + 1) : c + 1) {
			const struct fusible_chain *ch = &sc->o->chains[ord[c]];
			struct match m;

			if (!by_fit && !first_fits(ch, &sc->st[i]))
				continue; /* it cannot begin this chain */
			if (!try_chain(sc, ch, i, &m))
				continue;
			record(a, sc, ord[c], &m, ch->n, pass, l, offset, busy);
			for (int e = 0; e < ch->n; e++)
				memset(sc->taken + m.first[e], 1, m.count[e]);
			break;
		}
	}
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct opportunity *a = pa, *b = pb;
	double sa = a->bound_ns + a->idle_ns, sb = b->bound_ns + b->idle_ns;
	int c = CMP(sb, sa);

	if (!c)
		c = CMP(b->ns, a->ns);
	if (!c)
		c = CMP(a->chain, b->chain);
	return c ? c : CMP(a->per_place, b->per_place);
}

static int cmp_layer(const void *pa, const void *pb)
{
	const struct opportunity_layer *a = pa, *b = pb;

	return CMP(a->offset, b->offset);
}

void opportunities_find(const struct side *s, const struct opportunity_opts *o,
			struct opportunities *out)
{
	struct acc a = { 0 };
	size_t n_ord, max_steps = 1;
	uint16_t *ord = try_order(o, &n_ord);
	struct scan sc = { .s = s, .o = o };
	struct dims_memo dm = { 0 };
	atom_set(*others)[CHAIN_MAX] = xcalloc(o->n_chains + 1, sizeof *others);

	memset(out, 0, sizeof *out);
	for (size_t c = 0; c < o->n_chains; c++)
		for (int e = 0; e < o->chains[c].n; e++) {
			for (int j = 0; j < o->chains[c].n; j++)
				if (j != e)
					others[c][e] |= o->chains[c].elem[j];
			others[c][e] &= ~o->chains[c].elem[e];
		}
	sc.others = (const atom_set(*)[CHAIN_MAX])others;
	for (size_t c = 0; c < o->n_chains; c++) {
		if (o->chains[c].elem_cls[0])
			sc.first_cls |= 1u << (o->chains[c].elem_cls[0] - 1);
		sc.first_atoms |= o->chains[c].elem[0];
	}
	for (size_t l = 0; l < s->n_layers; l++)
		if (s->layers[l].step_n > max_steps)
			max_steps = s->layers[l].step_n;
	sc.taken = xcalloc(max_steps, 1);
	sc.n_shapes = xcalloc(max_steps, 1);
	sc.shapes = xcalloc(max_steps * MAX_SHAPES, sizeof *sc.shapes);
	sc.fits = xcalloc(FITS, sizeof *sc.fits);
	dm.at = xcalloc((size_t)intern_count(s->t->strings) + 1, sizeof *dm.at);
	dm.n = xmalloc((size_t)intern_count(s->t->strings) + 1);
	dm.pool = xmalloc((dm.cap_pool = MAX_SHAPES) * sizeof *dm.pool); /* never NULL */
	sc.dims = &dm;
	for (uint32_t p = 0; p < s->n_passes && n_ord; p++) {
		const struct pass *ps = &s->passes[p];
		struct pass_busy busy = { o->busy ? &o->busy[p] : NULL, { 0 }, 0 };

		if (o->pass_on && !o->pass_on[p])
			continue;
		out->passes++;
		for (uint32_t l = ps->layer_first; l < ps->layer_first + ps->layer_n; l++)
			scan_layer(&a, &sc, ord, n_ord, p, &s->layers[l], l - ps->layer_first,
				   &busy);
		busy_set_free(&busy.own);
	}
	free(sc.taken);
	free(sc.n_shapes);
	free(sc.shapes);
	free(sc.fits);
	free(dm.at);
	free(dm.n);
	free(dm.pool);
	free(others);
	free(ord);
	out->v = xcalloc(a.n + 1, sizeof *out->v);
	for (size_t i = 0; i < a.n; i++) {
		struct group *g = &a.g[i];
		double np = out->passes ? out->passes : 1;

		g->op.places = (uint32_t)g->n_places;
		g->op.ns = g->ns / np;
		g->op.bound_ns = g->bound / np;
		g->op.idle_ns = g->idle / np;
		g->op.launches = round(g->launches / np);
		qsort(g->op.layers, g->op.n_layers, sizeof *g->op.layers, cmp_layer);
		out->v[out->n++] = g->op;
		free(g->places);
	}
	free(a.g);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_group);
}

void opportunity_clear(struct opportunity *o)
{
	free(o->layers);
	free(o->names);
	free(o->example);
	memset(o, 0, sizeof *o);
}

void opportunities_clear(struct opportunities *o)
{
	for (size_t i = 0; i < o->n; i++)
		opportunity_clear(&o->v[i]);
	free(o->v);
	memset(o, 0, sizeof *o);
}

#define ADD(...)                                                                    \
	do {                                                                        \
		if (len < cap)                                                      \
			len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__); \
	} while (0)

void opportunity_layer_ranges(const struct side *s, const struct opportunity *o, char *buf,
			      size_t cap)
{
	size_t len = 0;

	if (!cap)
		return;
	buf[0] = '\0';
	for (uint32_t i = 0; i < o->n_layers && len < cap; i++) {
		const struct opportunity_layer *l = &o->layers[i];
		const char *st = l->stack < s->n_stacks ? s->stacks[l->stack] : "";
		uint32_t j = i;

		if (l->index < 0) {
			ADD("%s%s%s%s", len ? "," : "", st, *st ? "." : "",
			    l->index == LAYER_PROLOGUE ? "pro" : "epi");
			continue;
		}
		while (j + 1 < o->n_layers && o->layers[j + 1].stack == l->stack &&
		       o->layers[j + 1].index == o->layers[j].index + 1)
			j++;
		ADD("%s%s%s%d", len ? "," : "", st, *st ? "." : "", (int)l->index);
		if (j > i)
			ADD("-%d", (int)o->layers[j].index);
		i = j;
	}
}
