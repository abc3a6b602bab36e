/* attribution.c — where B - A comes from (see comparison.h): each pair counts once, in the
 * fusion it belongs to, else under its kind (one-sided, or matched and faster, slower or the
 * same) and class. A pair's share is its time over all the compared passes divided by the
 * side's pass count, so the parts add up to the comparison's delta even where a layer is
 * missing from some passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusion_int.h"

const char *attribution_kind_name(int kind)
{
	static const char *const names[ATTR_COUNT] = {
		"fusion", "horizontal_fusion", "partial_fusion", "a_only",
		"b_only", "matched_faster",    "matched_slower", "matched_same",
	};

	return kind >= 0 && kind < ATTR_COUNT ? names[kind] : "?";
}

static int cmp_part(const void *pa, const void *pb)
{
	const struct comparison_attribution *a = pa, *b = pb;
	int r = CMP(fabs(b->delta_ns), fabs(a->delta_ns));

	if (!r)
		r = CMP(a->kind, b->kind);
	if (!r)
		r = CMP(a->cls, b->cls);
	return r ? r : CMP(a->fusion, b->fusion);
}

static int pair_kind(const struct comparison_pair *p, double delta)
{
	switch (p->kind) {
	case PAIR_A_ONLY: return ATTR_A_ONLY;
	case PAIR_B_ONLY: return ATTR_B_ONLY;
	default:
		/* below a nanosecond per pass: the same */
		return fabs(delta) < 1 ? ATTR_MATCHED_SAME
		       : delta < 0     ? ATTR_MATCHED_FASTER
				       : ATTR_MATCHED_SLOWER;
	}
}

struct slot_ref {
	struct comparison_attribution part;
	size_t slot;
};

static int cmp_ref(const void *pa, const void *pb)
{
	return cmp_part(&((const struct slot_ref *)pa)->part, &((const struct slot_ref *)pb)->part);
}

void attribution_build(struct comparison *c)
{
	/* the fusions first, then one slot per (kind, class) */
	size_t n = c->n_fusions + (size_t)ATTR_COUNT * CLASS_COUNT, out = 0;
	struct slot_ref *v = xcalloc(n, sizeof *v);
	uint32_t *slot_of = xcalloc(c->n_pairs + 1, sizeof *slot_of),
		 *final = xcalloc(n, sizeof *final);
	uint8_t *used = xcalloc(n, 1);

	for (size_t f = 0; f < c->n_fusions; f++) {
		const struct comparison_fusion *fu = &c->fusions[f];

		v[f].part = (struct comparison_attribution){
			.kind = fu->partial	 ? ATTR_PARTIAL
				: fu->horizontal ? ATTR_HORIZONTAL
						 : ATTR_FUSION,
			.cls = fu->cls,
			.fusion = (int32_t)f,
			.count = fu->occurrences,
		};
		used[f] = 1;
	}
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];
		double ns[2];
		size_t slot;

		for (int s = 0; s < 2; s++)
			ns[s] = c->passes[s] ? p->side[s].sum_ns / c->passes[s] : 0;
		if (p->fusion >= 0 && (size_t)p->fusion < c->n_fusions) {
			slot = (size_t)p->fusion;
		} else {
			int k = pair_kind(p, ns[1] - ns[0]);
			int cls = p->cls < CLASS_COUNT ? p->cls : CLASS_OTHER;

			slot = c->n_fusions + (size_t)k * CLASS_COUNT + (size_t)cls;
			if (!used[slot])
				v[slot].part = (struct comparison_attribution){ .kind = (uint8_t)k,
										.cls = (uint8_t)cls,
										.fusion = -1 };
			v[slot].part.count += 1;
			used[slot] = 1;
		}
		v[slot].part.ns[0] += ns[0];
		v[slot].part.ns[1] += ns[1];
		v[slot].part.delta_ns += ns[1] - ns[0];
		slot_of[i] = (uint32_t)slot;
	}
	for (size_t i = 0; i < n; i++)
		if (used[i]) {
			v[out] = v[i];
			v[out++].slot = i;
		}
	if (out)
		qsort(v, out, sizeof *v, cmp_ref);
	c->attribution = xcalloc(out + 1, sizeof *c->attribution);
	for (size_t i = 0; i < out; i++) {
		c->attribution[i] = v[i].part;
		final[v[i].slot] = (uint32_t)i;
	}
	c->n_attribution = out;
	c->pair_part = xcalloc(c->n_pairs + 1, sizeof *c->pair_part);
	for (size_t i = 0; i < c->n_pairs; i++)
		c->pair_part[i] = final[slot_of[i]];
	free(v);
	free(slot_of);
	free(final);
	free(used);
}
