/* summed_pairs.c — kernel pairs summed over the layers (see summed_pairs.h). */
#include "fusediff/summed_pairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/intern.h"
#include "fusediff/util.h"

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

struct family_name {
	const char *s;
	size_t len;
	uint32_t id;
};

static int cmp_family_name(const void *pa, const void *pb)
{
	const struct family_name *a = pa, *b = pb;
	int r = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	return r ? (r > 0) - (r < 0) : CMP(a->len, b->len);
}

/* Family numbers (from 1) of the names the pairs use on side s, indexed by name id: names
 * that differ only by their Inductor number share one. Sorting the few distinct names once
 * keeps the sort of the pairs to integer comparisons. Owned by caller: free(). */
static uint32_t *families(const struct comparison *c, int s)
{
	uint32_t n_ids = intern_count(c->side[s]->t->strings) + 1, n = 0, fam = 0;
	uint32_t *out = xcalloc(n_ids, sizeof *out);
	struct family_name *f = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_part *part = &c->pairs[i].side[s];

		for (uint32_t k = 0; k < part->n_names; k++) {
			uint32_t id = part->names[k];
			const char *name;

			if (id >= n_ids || out[id])
				continue;
			out[id] = 1; /* seen */
			name = comparison_short_name(c, s, id);
			VEC_PUSH(f, n, cap, ((struct family_name){ name, family_len(name), id }));
		}
	}
	if (n)
		qsort(f, n, sizeof *f, cmp_family_name);
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || cmp_family_name(&f[i - 1], &f[i]) != 0)
			fam++;
		out[f[i].id] = fam;
	}
	free(f);
	return out;
}

/* Two pairs' names on side s, name by name, as families. */
static int cmp_names(const uint32_t *fam, const struct comparison_part *a,
		     const struct comparison_part *b)
{
	int r = CMP(a->n_names, b->n_names);

	for (uint32_t i = 0; !r && i < a->n_names; i++)
		r = CMP(fam[a->names[i]], fam[b->names[i]]);
	return r;
}

/* Does pair b have the group key of pair a: the same fusion difference (every pair it counts,
 * its one-sided kernels too: its net), else no fusion and the same kind, class, names of A and
 * names of B? */
static int same_key(uint32_t *const fam[2], const struct comparison_pair *a,
		    const struct comparison_pair *b)
{
	if (a->fusion >= 0 || b->fusion >= 0)
		return a->fusion == b->fusion;
	return a->kind == b->kind && a->cls == b->cls &&
	       cmp_names(fam[SIDE_A], &a->side[0], &b->side[0]) == 0 &&
	       cmp_names(fam[SIDE_B], &a->side[1], &b->side[1]) == 0;
}

static uint64_t hash_key(uint32_t *const fam[2], const struct comparison_pair *p)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ ((uint64_t)p->kind << 8 | p->cls);

	if (p->fusion >= 0)
		return (0xcbf29ce484222325u ^ (uint64_t)p->fusion) * 0x100000001b3u;
	for (int s = 0; s < 2; s++) {
		h = (h ^ p->side[s].n_names) * 0x100000001b3u;
		for (uint32_t i = 0; i < p->side[s].n_names; i++)
			h = (h ^ fam[s][p->side[s].names[i]]) * 0x100000001b3u;
	}
	return h ^ (h >> 29);
}

static int same_names(const struct comparison_part *a, const struct comparison_part *b)
{
	return a->n_names == b->n_names &&
	       (a->n_names == 0 || memcmp(a->names, b->names, a->n_names * sizeof *a->names) == 0);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct summed_pair *a = pa, *b = pb;
	int r = CMP(fabs(b->delta_ns), fabs(a->delta_ns));

	return r ? r : CMP(a->first, b->first);
}

/* Layers are indices into comparison.layers: in execution order. */
static int cmp_layer(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;

	return CMP(a, b);
}

/* The group of every pair (group_of[i]), found with a hash table of the groups' first pairs:
 * linear in the number of pairs. Returns the number of groups; their first pairs in first[]. */
static size_t assign(const struct comparison *c, uint32_t *const fam[2], uint32_t *group_of,
		     uint32_t *first)
{
	size_t size = 16, n = 0;
	uint32_t *slot;

	while (size < 2 * c->n_pairs)
		size *= 2;
	slot = xcalloc(size, sizeof *slot); /* group index + 1, 0: empty */
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];
		size_t h = (size_t)hash_key(fam, p) & (size - 1);

		while (slot[h] && !same_key(fam, &c->pairs[first[slot[h] - 1]], p))
			h = (h + 1) & (size - 1);
		if (!slot[h]) {
			first[n] = (uint32_t)i;
			slot[h] = (uint32_t)++n;
		}
		group_of[i] = slot[h] - 1;
	}
	free(slot);
	return n;
}

/* How well pair p shows its fusion's group: 2 fused with the fusion's atoms, 1 fused, else 0. */
static int shows_fusion(const struct comparison *c, const struct comparison_pair *p)
{
	if (p->kind != PAIR_FUSED)
		return 0;
	return p->fusion >= 0 && (size_t)p->fusion < c->n_fusions &&
			       c->fusions[p->fusion].atoms == p->atoms
		       ? 2
		       : 1;
}

void comparison_summed_pairs(struct comparison *c)
{
	struct summed_pair *g;
	uint32_t *fam[2], *group_of, *first;
	size_t n;

	c->summed = NULL;
	c->n_summed = 0;
	if (c->n_pairs == 0)
		return;
	fam[0] = families(c, SIDE_A);
	fam[1] = families(c, SIDE_B);
	group_of = xcalloc(c->n_pairs, sizeof *group_of);
	first = xcalloc(c->n_pairs, sizeof *first);
	n = assign(c, fam, group_of, first);
	g = xcalloc(n, sizeof *g);
	for (size_t i = 0; i < c->n_pairs; i++)
		g[group_of[i]].n_pairs++;
	/* a fusion's group shows its first fused pair of the fusion's atoms, else its first fused
	 * pair, not a one-sided kernel of its net */
	for (size_t i = 0; i < c->n_pairs; i++) {
		uint32_t *f = &first[group_of[i]];

		if (shows_fusion(c, &c->pairs[i]) > shows_fusion(c, &c->pairs[*f]))
			*f = (uint32_t)i;
	}
	for (size_t j = 0; j < n; j++) {
		g[j].first = first[j];
		g[j].pairs = xcalloc(g[j].n_pairs, sizeof *g[j].pairs);
		g[j].layers = xcalloc(g[j].n_pairs, sizeof *g[j].layers);
		g[j].n_pairs = 0;
	}
	for (size_t i = 0; i < c->n_pairs; i++) { /* ascending pair order within each group */
		struct summed_pair *gr = &g[group_of[i]];
		const struct comparison_pair *p = &c->pairs[i], *p0 = &c->pairs[gr->first];

		gr->layers[gr->n_pairs] = p->layer;
		gr->pairs[gr->n_pairs++] = (uint32_t)i;
		gr->places += p->kind == p0->kind;
		for (int s = 0; s < 2; s++) {
			gr->count[s] += p->side[s].count;
			gr->ns[s] += p->side[s].total_ns;
			gr->similar[s] |=
				p->kind == p0->kind && !same_names(&p->side[s], &p0->side[s]);
		}
	}
	for (size_t j = 0; j < n; j++) {
		struct summed_pair *gr = &g[j];
		uint32_t m = gr->n_pairs;

		qsort(gr->layers, m, sizeof *gr->layers, cmp_layer);
		for (uint32_t i = 0; i < m; i++)
			if (!gr->n_layers || gr->layers[gr->n_layers - 1] != gr->layers[i])
				gr->layers[gr->n_layers++] = gr->layers[i];
		gr->delta_ns = gr->ns[1] - gr->ns[0];
		gr->ratio = comparison_ratio(gr->ns[0], gr->ns[1]);
		{
			const struct comparison_eff **parts = xcalloc(m + 1, sizeof *parts);

			for (int s = 0; s < 2; s++) {
				for (uint32_t i = 0; i < m; i++)
					parts[i] = &c->pairs[gr->pairs[i]].side[s].eff;
				comparison_eff_sum(parts, m, c->peak[s], &gr->eff[s]);
			}
			free(parts);
		}
	}
	free(group_of);
	free(first);
	free(fam[0]);
	free(fam[1]);
	qsort(g, n, sizeof *g, cmp_group);
	c->summed = g;
	c->n_summed = n;
}
