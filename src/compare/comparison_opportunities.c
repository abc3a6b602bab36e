/* comparison_opportunities.c — the chains neither side of a comparison fuses (comparison.h,
 * struct comparison_opportunity): each side's compared passes searched with the classifier's
 * catalogue, the kernels of its fusion differences left out. */
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"

/* Per kernel of side s: 1 when a fusion difference (not a partial fusion) holds it. */
static uint8_t *fusion_kernels(const struct comparison *c, int s)
{
	uint8_t *off = xcalloc(c->side[s]->t->n_kernels + 1, 1);

	for (size_t f = 0; f < c->n_fusions; f++) {
		const struct comparison_fusion *fu = &c->fusions[f];

		if (fu->partial)
			continue;
		for (uint32_t i = 0; i < fu->n_pairs; i++) {
			const struct comparison_part *pt = &c->pairs[fu->pairs[i]].side[s];

			for (uint32_t k = 0; k < pt->n_inst; k++)
				off[pt->inst[k].kernel] = 1;
		}
	}
	return off;
}

/* The index into c->layers of layer l of side s, or -1. */
static int32_t comparison_layer_of(const struct comparison *c, int s,
				   const struct opportunity_layer *l)
{
	const struct side *sd = c->side[s];
	const char *name = l->stack < sd->n_stacks ? sd->stacks[l->stack] : "";

	for (size_t i = 0; i < c->n_layers; i++) {
		const struct comparison_layer *cl = &c->layers[i];

		if (cl->index == l->index && cl->stack < c->n_stacks &&
		    strcmp(c->stacks[cl->stack], name) == 0)
			return (int32_t)i;
	}
	return -1;
}

static int cmp_i32(const void *pa, const void *pb)
{
	return CMP(*(const int32_t *)pa, *(const int32_t *)pb);
}

static int cmp_opp(const void *pa, const void *pb)
{
	const struct comparison_opportunity *a = pa, *b = pb;
	double sa = a->o.bound_ns + a->o.idle_ns, sb = b->o.bound_ns + b->o.idle_ns;
	int r = CMP(sb, sa);

	if (!r)
		r = CMP(a->side, b->side);
	if (!r)
		r = CMP(a->o.chain, b->o.chain);
	return r ? r : CMP(a->o.per_place, b->o.per_place);
}

/* One side's search (of an array of two, one per side): run_two() runs the two sides on two
 * threads (the explorer's first switch to a phase waits for it). */
struct side_search {
	const struct comparison *c;
	struct opportunity_opts oo;
	struct opportunities found;
};

static void side_search(void *arg, int s)
{
	struct side_search *j = (struct side_search *)arg + s;
	const struct side *sd = j->c->side[s];
	uint8_t *on = xcalloc(sd->n_passes + 1, 1), *off = fusion_kernels(j->c, s);

	for (size_t p = 0; p < sd->n_passes; p++)
		on[p] = (uint8_t)comparison_pass_compared(j->c, s, &sd->passes[p]);
	j->oo.pass_on = on;
	j->oo.kernel_off = off;
	opportunities_find(sd, &j->oo, &j->found);
	free(on);
	free(off);
}

void comparison_opportunities(struct comparison *c, const struct busy_set *const busy[2])
{
	struct side_search j[2];
	size_t cap = 0;

	for (int s = 0; s < 2; s++) {
		j[s] = (struct side_search){ .c = c };
		j[s].oo.busy = busy[s];
		j[s].oo.n_chains = classifier_chains(c->classifier, &j[s].oo.chains);
	}
	run_two(side_search, j);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < j[s].found.n; i++) {
			struct comparison_opportunity co = {
				.side = (uint8_t)s,
				.chain = &j[s].oo.chains[j[s].found.v[i].chain],
				.o = j[s].found.v[i]
			};

			co.layers = xcalloc(co.o.n_layers + 1, sizeof *co.layers);
			for (uint32_t l = 0; l < co.o.n_layers; l++) {
				int32_t li = comparison_layer_of(c, s, &co.o.layers[l]);

				if (li >= 0)
					co.layers[co.n_layers++] = li;
			}
			qsort(co.layers, co.n_layers, sizeof *co.layers, cmp_i32);
			VEC_PUSH(c->opportunities, c->n_opportunities, cap, co);
		}
		free(j[s].found.v); /* the opportunities' fields now belong to c */
	}
	if (c->n_opportunities > 1)
		qsort(c->opportunities, c->n_opportunities, sizeof *c->opportunities, cmp_opp);
}
