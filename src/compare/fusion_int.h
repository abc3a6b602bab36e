/* fusion_int.h — fusion differences from the aligned pairs of a comparison.
 *
 * A fusion difference is a pair where one side runs one kernel and the other runs k > 1 for
 * work that kernel covers (a fused pair), with the one-sided kernels of its class next to it
 * whose work it covers (so that its delta is net). A partial fusion is the same work launched
 * more often on one side: a match pair with gaps nearby that repeat one side's step (the same
 * kernel), or a match pair whose steps launch k >= 2 times as many working kernels on one
 * side; where both sides recorded their tensors, their sizes must fit.
 * Identical patterns (same fused side, class and unfused kernels) are grouped across layers.
 * A partial fusion seen in one layer only of a model with several is not reported: a kernel
 * launched twice once is noise of the trace (replayed or dropped launches), not a pattern.
 * Used by comparison_pairs.c and comparison.c; the result is struct comparison_fusion in comparison.h. */
#ifndef FUSEDIFF_FUSION_H
#define FUSEDIFF_FUSION_H

#include <stdint.h>

#include "fusediff/comparison.h"

/* What the alignment knows about one pair, beyond struct comparison_pair. */
struct fusion_hint {
	double work[2];	       /* working kernels per pass on each side (helpers aside) */
	uint32_t occ[2];       /* step occurrences over the passes on each side */
	uint32_t steps[2];     /* aligned steps on each side */
	atom_set atoms[2];     /* work atoms of each side (helpers and ATOM_OTHER aside) */
	uint8_t cls[2];	       /* class of each side's first step */
	uint32_t main_name[2]; /* name id of the main kernel of each side's first step */
	uint8_t fused_side;    /* for PAIR_FUSED: the side with the one fused kernel */
	uint8_t horizontal;    /* for PAIR_FUSED: one merged GEMM against separate ones */
	uint8_t proof;	       /* for PAIR_FUSED: the rule that proved it (enum align_proof) */
	int64_t repeat_of;     /* a gap that repeats the work of the match pair with this index,
				  or -1 (set by fusion_mark_repeats()) */
};

/* Mark gaps that repeat one side's step of a match pair of the same layer at most window
 * pairs away (the same main kernel, class and atoms): hint.repeat_of. */
void fusion_mark_repeats(const struct comparison *c, struct fusion_hint *h, unsigned window);

/* Group the fused pairs, the gaps linked to them and the partial fusions into c->fusions,
 * sorted by |delta| descending, then by fused kernel name; set pair.fusion and the layers'
 * n_fusions. c->fusions must be empty. */
void fusion_build(struct comparison *c, const struct fusion_hint *h);

/* Where B - A comes from (attribution.c): c->attribution from the pairs and fusions, after
 * the totals are known. */
void attribution_build(struct comparison *c);

#endif
