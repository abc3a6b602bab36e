/* modules.c — what nn.Module ranges ("nn.Module: LlamaDecoderLayer_3", recorded with Python
 * stacks) say about kernels: which decoder-layer call and which norm call launched each
 * kernel. Kernels are mapped through their launch event (CPU time and thread),
 * never by comparing GPU times with CPU ranges. */
#include <stdlib.h>
#include <string.h>

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

static int32_t lookup_find(const struct lookup *lk, int64_t tid, int64_t x)
{
	size_t lo = 0, hi = lk->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lk->k[mid].a < tid || (lk->k[mid].a == tid && lk->k[mid].b <= x))
			lo = mid + 1;
		else
			hi = mid;
	}
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

void module_map_build(const struct trace *t, struct module_map *m)
{
	size_t nk = t->n_kernels ? t->n_kernels : 1, nm = 0;
	struct mrange *r = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *r);
	uint32_t *idx, *tmp, n_groups = 0;
	int64_t best_count = 0;
	int32_t best = -1;
	struct lookup layer = { 0 }, norm = { 0 };

	memset(m, 0, sizeof *m);
	m->layer = xmalloc(nk * sizeof *m->layer);
	m->norm = xmalloc(nk * sizeof *m->norm);
	for (size_t i = 0; i < t->n_kernels; i++)
		m->layer[i] = m->norm[i] = -1;

	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *tr = &t->ranges[i];
		size_t len;
		const char *c;

		if (tr->kind != RANGE_MODULE)
			continue;
		c = module_class(trace_str(t, tr->name), &len);
		if (!c)
			continue;
		r[nm] = (struct mrange){ .cls = c, .len = len, .tid = tr->tid, .start = tr->start };
		r[nm].end = tr->start + tr->dur;
		r[nm++].range = (uint32_t)i;
	}
	if (nm == 0) {
		free(r);
		return;
	}

	/* number the classes */
	idx = xmalloc(nm * sizeof *idx);
	tmp = xmalloc(nm * sizeof *tmp);
	for (size_t i = 0; i < nm; i++)
		idx[i] = (uint32_t)i;
	sort_by_class(idx, tmp, nm, r);
	for (size_t j = 0; j < nm; j++) {
		const struct mrange *x = &r[idx[j]], *y = j > 0 ? &r[idx[j - 1]] : NULL;

		if (y && (x->len != y->len || memcmp(x->cls, y->cls, x->len) != 0))
			n_groups++;
		r[idx[j]].group = n_groups;
	}
	n_groups++;

	/* layer-like ranges nested in a layer-like range of another class (a MoE block inside
	 * a decoder layer) are not layers: sweep in (thread, start, longest first) order */
	{
		struct mkey *k = xmalloc(nm * sizeof *k);
		uint32_t *stack = xmalloc(nm * sizeof *stack);
		size_t nl = 0, sp = 0;

		for (size_t i = 0; i < nm; i++)
			if (layer_like(r[i].cls, r[i].len))
				k[nl++] =
				    (struct mkey){ r[i].tid, r[i].start, -r[i].end, (uint32_t)i };
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
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_launch *l =
		    k->correlation ? trace_find_launch(t, k->correlation) : NULL;

		if (!l)
			continue;
		m->layer[i] = lookup_find(&layer, l->tid, l->start);
		m->norm[i] = lookup_find(&norm, l->tid, l->start);
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
