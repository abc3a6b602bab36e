/* pair_groups.c — kernel pairs summed over the layers (see pair_groups.h). */
#include "fusediff/pair_groups.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

/* A pair with what the sort needs, so that the comparison needs no context. */
struct keyed {
	const struct comparison *c;
	const struct cmp_pair *p;
	uint32_t index;
};

/* The length of a kernel name without the number Inductor gives each copy of a kernel
 * ("triton_red_fused_add_mean_12" is "triton_red_fused_add_mean" in every layer). */
static size_t family_len(const char *name)
{
	size_t n = strlen(name), k = n;

	if (strncmp(name, "triton_", 7) != 0)
		return n;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	return k < n && k > 7 && name[k - 1] == '_' ? k - 1 : n;
}

static int cmp_family(const char *a, const char *b)
{
	size_t la = family_len(a), lb = family_len(b);
	int r = memcmp(a, b, la < lb ? la : lb);

	return r ? (r > 0) - (r < 0) : CMP(la, lb);
}

/* Two sides' names, name by name, as families. */
static int cmp_names(const struct comparison *c, int s, const struct cmp_part *a,
		     const struct cmp_part *b)
{
	int r = CMP(a->n_names, b->n_names);

	for (uint32_t i = 0; !r && i < a->n_names; i++)
		r = a->names[i] == b->names[i]
			    ? 0
			    : cmp_family(comparison_short_name(c, s, a->names[i]),
					 comparison_short_name(c, s, b->names[i]));
	return r;
}

/* The group key (kind, class, names of A, names of B); 0 when equal. */
static int cmp_key(const struct keyed *a, const struct keyed *b)
{
	int r = CMP(a->p->kind, b->p->kind);

	if (!r)
		r = CMP(a->p->cls, b->p->cls);
	if (!r)
		r = cmp_names(a->c, SIDE_A, &a->p->side[0], &b->p->side[0]);
	if (!r)
		r = cmp_names(a->c, SIDE_B, &a->p->side[1], &b->p->side[1]);
	return r;
}

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int r = cmp_key(a, b);

	return r ? r : CMP(a->index, b->index);
}

static int same_names(const struct cmp_part *a, const struct cmp_part *b)
{
	return a->n_names == b->n_names &&
	       memcmp(a->names, b->names, a->n_names * sizeof *a->names) == 0;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct pair_group *a = pa, *b = pb;
	int r = CMP(fabs(b->delta_ns), fabs(a->delta_ns));

	return r ? r : CMP(a->first, b->first);
}

/* Prologue first, the layers in order, epilogue last. */
static int32_t layer_rank(int32_t l)
{
	return l == LAYER_PROLOGUE ? INT32_MIN : l == LAYER_EPILOGUE ? INT32_MAX : l;
}

static int cmp_layer(const void *pa, const void *pb)
{
	int32_t a = layer_rank(*(const int32_t *)pa), b = layer_rank(*(const int32_t *)pb);

	return CMP(a, b);
}

static void fill(struct pair_group *g, const struct keyed *k, size_t n)
{
	memset(g, 0, sizeof *g);
	g->first = k[0].index;
	g->pairs = xcalloc(n, sizeof *g->pairs);
	g->layers = xcalloc(n, sizeof *g->layers);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_pair *p = k[i].p;

		g->pairs[g->n_pairs++] = k[i].index;
		g->layers[i] = p->layer;
		for (int s = 0; s < 2; s++) {
			g->count[s] += p->side[s].count;
			g->ns[s] += p->side[s].total_ns;
			g->similar[s] |= !same_names(&p->side[s], &k[0].p->side[s]);
		}
	}
	qsort(g->layers, n, sizeof *g->layers, cmp_layer);
	for (size_t i = 0; i < n; i++)
		if (!g->n_layers || g->layers[g->n_layers - 1] != g->layers[i])
			g->layers[g->n_layers++] = g->layers[i];
	g->delta_ns = g->ns[1] - g->ns[0];
	g->ratio = cmp_ratio(g->ns[0], g->ns[1]);
}

size_t pair_groups_build(const struct comparison *c, struct pair_group **out)
{
	struct keyed *k;
	struct pair_group *g;
	size_t n = 0;

	*out = NULL;
	if (c->n_pairs == 0)
		return 0;
	k = xcalloc(c->n_pairs, sizeof *k);
	for (size_t i = 0; i < c->n_pairs; i++)
		k[i] = (struct keyed){ c, &c->pairs[i], (uint32_t)i };
	qsort(k, c->n_pairs, sizeof *k, cmp_keyed);
	g = xcalloc(c->n_pairs, sizeof *g);
	for (size_t i = 0; i < c->n_pairs;) {
		size_t e = i + 1;

		while (e < c->n_pairs && cmp_key(&k[i], &k[e]) == 0)
			e++;
		fill(&g[n++], &k[i], e - i);
		i = e;
	}
	free(k);
	qsort(g, n, sizeof *g, cmp_group);
	*out = g;
	return n;
}

void pair_groups_free(struct pair_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].pairs);
		free(g[i].layers);
	}
	free(g);
}

void layer_ranges_format(char *buf, size_t cap, const int32_t *layers, uint32_t n)
{
	size_t len = 0;
	int pro = 0, epi = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		pro |= layers[i] == LAYER_PROLOGUE;
		epi |= layers[i] == LAYER_EPILOGUE;
	}
	if (pro)
		len += (size_t)snprintf(buf + len, cap - len, "pro");
	for (uint32_t i = 0; i < n && len < cap; i++) {
		uint32_t j = i;

		if (layers[i] < 0)
			continue;
		while (j + 1 < n && layers[j + 1] == layers[j] + 1)
			j++;
		if (j == i)
			len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? "," : "",
						(int)layers[i]);
		else
			len += (size_t)snprintf(buf + len, cap - len, "%s%d-%d", len ? "," : "",
						(int)layers[i], (int)layers[j]);
		i = j;
	}
	if (epi && len < cap)
		snprintf(buf + len, cap - len, "%sepi", len ? "," : "");
}
