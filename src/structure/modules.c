/* modules.c — what nn.Module ranges ("nn.Module: LlamaDecoderLayer_3", recorded with Python
 * stacks) say about kernels: which decoder-layer call and which norm call launched each
 * kernel. Kernels are mapped through their launch event (CPU time and thread),
 * never by comparing GPU times with CPU ranges. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

#define MODULE_PREFIX "nn.Module: "

/* The class of a module range name: "LlamaDecoderLayer" of "nn.Module: LlamaDecoderLayer_3".
 * Sets *len; returns NULL for names that are not module ranges. */
static const char *module_class(const char *name, size_t *len)
{
	size_t n, pl = strlen(MODULE_PREFIX);

	if (strncmp(name, MODULE_PREFIX, pl) != 0)
		return NULL;
	name += pl;
	n = strlen(name);
	/* drop the "_N" instance suffix */
	{
		size_t d = n;

		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d < n && d > 0 && name[d - 1] == '_')
			n = d - 1;
	}
	*len = n;
	return n ? name : NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int contains(const char *s, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(s + i, needle, m) == 0)
			return 1;
	return 0;
}

/* Decoder-layer-like classes: LlamaDecoderLayer, BertLayer, GPT2Block, ... */
static int layer_like(const char *c, size_t n)
{
	return ends_with(c, n, "Layer") || ends_with(c, n, "Block");
}

static int norm_like(const char *c, size_t n)
{
	return ends_with(c, n, "Norm");
}

struct mrange {
	const char *cls;
	size_t len;
	int64_t tid, start, end;
	uint32_t range; /* index into t->ranges */
	uint32_t group; /* classes numbered by first appearance in the sorted order */
	uint8_t nested; /* inside a range of another layer-like class */
};

struct mkey {
	int64_t a, b, c;
	uint32_t i;
};

static int cmp_mkey(const void *pa, const void *pb)
{
	const struct mkey *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->a, y->a)) || (r = CMP(x->b, y->b)) || (r = CMP(x->c, y->c)))
		return r;
	return CMP(x->i, y->i);
}

static int cmp_class(const void *pa, const void *pb, const struct mrange *m)
{
	const struct mrange *x = &m[*(const uint32_t *)pa], *y = &m[*(const uint32_t *)pb];
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->cls, y->cls, n);

	if (r)
		return r;
	if ((r = CMP(x->len, y->len)))
		return r;
	return CMP(*(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* A stable merge sort of indices by class name (qsort has no context argument). */
static void sort_by_class(uint32_t *idx, uint32_t *tmp, size_t n, const struct mrange *m)
{
	if (n < 2)
		return;
	sort_by_class(idx, tmp, n / 2, m);
	sort_by_class(idx + n / 2, tmp, n - n / 2, m);
	{
		size_t i = 0, j = n / 2, o = 0;

		while (i < n / 2 && j < n)
			tmp[o++] = cmp_class(&idx[i], &idx[j], m) <= 0 ? idx[i++] : idx[j++];
		while (i < n / 2)
			tmp[o++] = idx[i++];
		while (j < n)
			tmp[o++] = idx[j++];
		memcpy(idx, tmp, n * sizeof *idx);
	}
}

/* Sorted (thread, start) intervals of one kind, for lookups by launch time. */
struct lookup {
	struct mkey *k; /* a = tid, b = start, c = end, i = instance */
	size_t n;
};

/* Whether interval j starts at or before x on thread tid (or lies on an earlier thread): true
 * for a prefix of the sorted intervals. */
static int lookup_before(const struct lookup *lk, size_t j, int64_t tid, int64_t x)
{
	return lk->k[j].a < tid || (lk->k[j].a == tid && lk->k[j].b <= x);
}

struct lookup_query {
	const struct lookup *lk;
	int64_t tid, x;
};

static int lookup_before_q(const void *ctx, size_t j)
{
	const struct lookup_query *q = ctx;

	return lookup_before(q->lk, j, q->tid, q->x);
}

/* The call containing launch time x on thread tid, or -1. *hint: where the previous search
 * ended; kernels come in time order, so the next answer is usually next to it. */
static int32_t lookup_find(const struct lookup *lk, int64_t tid, int64_t x, size_t *hint)
{
	struct lookup_query q = { lk, tid, x };
	size_t lo = gallop_prefix(lk->n, *hint, lookup_before_q, &q);

	*hint = lo;
	/* intervals of one kind do not nest in practice; look back a few for safety */
	for (size_t j = lo, tries = 0; j-- > 0 && tries < 4; tries++) {
		if (lk->k[j].a != tid)
			break;
		if (x <= lk->k[j].c)
			return (int32_t)lk->k[j].i;
	}
	return -1;
}

static void lookup_add(struct lookup *lk, const struct mrange *r, uint32_t instance)
{
	lk->k[lk->n++] = (struct mkey){ r->tid, r->start, r->end, instance };
}

static void lookup_sort(struct lookup *lk)
{
	if (lk->n)
		qsort(lk->k, lk->n, sizeof *lk->k, cmp_mkey);
}

void module_map_build(const struct trace *t, const uint32_t *launch_of, struct module_map *m)
{
	size_t nk = t->n_kernels ? t->n_kernels : 1, nm = 0, nd = 0, cap_d = 0;
	struct mrange *r = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *r), *dn = NULL;
	uint32_t *idx, *tmp, n_groups = 0, *dn_group;
	/* per name id: 0 not seen yet, 1 not a module range of interest, else 2 + its index in
	 * dn */
	uint32_t *name_dn = NULL;
	int64_t best_count = 0;
	int32_t best = -1;
	struct lookup layer = { 0 }, norm = { 0 };
	size_t hint_layer = 0, hint_norm = 0;

	memset(m, 0, sizeof *m);

	/* Module calls repeat a few hundred names (LlamaDecoderLayer_3 once per pass): each
	 * distinct name is parsed once, and only the distinct ones are sorted by class. Only
	 * layer-like and norm classes matter below (attention, MLP, Linear calls do not). */
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *tr = &t->ranges[i];
		uint32_t d;

		if (tr->kind != RANGE_MODULE)
			continue;
		if (!name_dn)
			name_dn = xcalloc(intern_count(t->strings) + 1, sizeof *name_dn);
		if (name_dn[tr->name] == 0) {
			size_t len;
			const char *c = module_class(trace_str(t, tr->name), &len);

			if (c && (layer_like(c, len) || norm_like(c, len))) {
				VEC_RESERVE(dn, nd, cap_d);
				dn[nd] = (struct mrange){ .cls = c, .len = len };
				name_dn[tr->name] = (uint32_t)(2 + nd++);
			} else {
				name_dn[tr->name] = 1;
			}
		}
		if ((d = name_dn[tr->name]) == 1)
			continue;
		r[nm] = (struct mrange){ .cls = dn[d - 2].cls,
					 .len = dn[d - 2].len,
					 .tid = tr->tid,
					 .start = tr->start };
		r[nm].end = tr->start + tr->dur;
		r[nm].group = d - 2; /* the distinct name for now */
		r[nm++].range = (uint32_t)i;
	}
	free(name_dn);
	if (nm == 0) {
		free(r);
		free(dn);
		return;
	}

	/* number the classes: in the sorted order of their names */
	idx = xmalloc(nd * sizeof *idx);
	tmp = xmalloc(nd * sizeof *tmp);
	dn_group = xmalloc(nd * sizeof *dn_group);
	for (size_t i = 0; i < nd; i++)
		idx[i] = (uint32_t)i;
	sort_by_class(idx, tmp, nd, dn);
	for (size_t j = 0; j < nd; j++) {
		const struct mrange *x = &dn[idx[j]], *y = j > 0 ? &dn[idx[j - 1]] : NULL;

		if (y && (x->len != y->len || memcmp(x->cls, y->cls, x->len) != 0))
			n_groups++;
		dn_group[idx[j]] = n_groups;
	}
	n_groups++;
	for (size_t i = 0; i < nm; i++)
		r[i].group = dn_group[r[i].group];
	free(dn_group);
	free(dn);

	/* layer-like ranges nested in a layer-like range of another class (a MoE block inside
	 * a decoder layer) are not layers: sweep in (thread, start, longest first) order */
	{
		struct mkey *k = xmalloc(nm * sizeof *k);
		uint32_t *stack = xmalloc(nm * sizeof *stack);
		size_t nl = 0, sp = 0;

		for (size_t i = 0; i < nm; i++)
			if (layer_like(r[i].cls, r[i].len))
				k[nl++] = (struct mkey){ r[i].tid, r[i].start, -r[i].end,
							 (uint32_t)i };
		if (nl)
			qsort(k, nl, sizeof *k, cmp_mkey);
		for (size_t j = 0; j < nl; j++) {
			struct mrange *x = &r[k[j].i];

			while (sp > 0 &&
			       !(r[stack[sp - 1]].tid == x->tid && r[stack[sp - 1]].end >= x->end))
				sp--;
			for (size_t s = sp; s-- > 0;)
				if (r[stack[s]].group != x->group) {
					x->nested = 1;
					break;
				}
			stack[sp++] = k[j].i;
		}
		free(stack);
		free(k);
	}
	/* the layer class: the outermost layer-like class with the most calls (at least two) */
	{
		int64_t *count = xcalloc(n_groups, sizeof *count);
		uint8_t *bad = xcalloc(n_groups, 1);

		for (size_t i = 0; i < nm; i++) {
			if (!layer_like(r[i].cls, r[i].len))
				continue;
			count[r[i].group]++;
			bad[r[i].group] |= r[i].nested;
		}
		for (size_t i = 0; i < nm; i++) {
			uint32_t g = r[i].group;

			if (layer_like(r[i].cls, r[i].len) && !bad[g] && count[g] >= 2 &&
			    (count[g] > best_count ||
			     (count[g] == best_count && (int32_t)g < best))) {
				best_count = count[g];
				best = (int32_t)g;
			}
		}
		free(count);
		free(bad);
	}

	layer.k = xmalloc(nm * sizeof *layer.k);
	norm.k = xmalloc(nm * sizeof *norm.k);
	m->norm_is_rms = xmalloc(nm);
	/* instances in time order: ranges are sorted by start already */
	for (size_t i = 0; i < nm; i++) {
		const struct mrange *x = &r[i];

		if (best >= 0 && x->group == (uint32_t)best) {
			if (!m->layer_class[0]) {
				size_t n = x->len < sizeof m->layer_class - 1
						   ? x->len
						   : sizeof m->layer_class - 1;

				memcpy(m->layer_class, x->cls, n);
				m->layer_class[n] = '\0';
			}
			lookup_add(&layer, x, (uint32_t)layer.n);
		} else if (norm_like(x->cls, x->len)) {
			m->norm_is_rms[m->n_norm] =
				contains(x->cls, x->len, "RMS") || contains(x->cls, x->len, "Rms");
			lookup_add(&norm, x, (uint32_t)m->n_norm++);
		}
	}
	lookup_sort(&layer);
	lookup_sort(&norm);
	/* per kernel only what there is: a trace without norm calls has no norm array */
	if (layer.n)
		m->layer = big_alloc(nk, sizeof *m->layer);
	if (norm.n)
		m->norm = big_alloc(nk, sizeof *m->norm);
	for (size_t i = 0; (m->layer || m->norm) && i < t->n_kernels; i++) {
		const struct trace_launch *l =
			launch_of[i] != UINT32_MAX ? &t->launches[launch_of[i]] : NULL;

		if (m->layer)
			m->layer[i] = l ? lookup_find(&layer, l->tid, l->start, &hint_layer) : -1;
		if (m->norm)
			m->norm[i] = l ? lookup_find(&norm, l->tid, l->start, &hint_norm) : -1;
	}
	free(layer.k);
	free(norm.k);
	free(idx);
	free(tmp);
	free(r);
}

void module_map_clear(struct module_map *m)
{
	free(m->layer);
	free(m->norm);
	free(m->norm_is_rms);
	memset(m, 0, sizeof *m);
}
