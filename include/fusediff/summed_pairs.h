/* summed_pairs.h — the kernel pairs of a comparison summed over the layers.
 *
 * A model of 32 layers shows each difference 32 times, once per layer: the same GEMM against
 * the same GEMM, the same eager RMSNorm against the same fused kernel. A pair group is every
 * pair with the same kind, class and kernel names on both sides, wherever it occurs; names
 * that differ only by the number Inductor gives each copy of a kernel
 * ("triton_red_fused_add_mean_12", "..._13") count as the same. Every pair of one fusion
 * difference is one group, its one-sided kernels too, so that the group's B - A is the
 * fusion's net one (as the attribution counts it); it shows the fusion's first fused pair. Its
 * figures are the sums of its pairs' (per pass). Sorted by |B - A|, this says which kernels explain the difference
 * between the two traces. */
#ifndef FUSEDIFF_PAIR_GROUPS_H
#define FUSEDIFF_PAIR_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/comparison.h"

struct summed_pair {
	uint32_t first;	 /* the group's first pair (index into comparison.pairs), a fused one
			    for a fusion's group: its kind, class, atoms and names are the
			    group's */
	uint32_t *pairs; /* every pair of the group, ascending */
	uint32_t n_pairs;
	uint32_t places; /* its places: its pairs of the first pair's kind (a fusion's group:
			    its fused pairs, not the one-sided kernels of its net) */
	int32_t *layers; /* distinct indices into comparison.layers, ascending */
	uint32_t n_layers;
	double count[2]; /* launches per pass, summed */
	double ns[2];	 /* time per pass, summed */
	double delta_ns; /* B - A */
	double ratio;	 /* B / A (comparison_ratio) */
	int similar[2];	 /* 1: the side's names differ between pairs by their Inductor number
			    (the first pair's are shown) */
	struct comparison_eff eff[2]; /* the pairs' efficiency summed (comparison_eff_sum()):
					 known when every pair's is */
	struct comparison_ci ci;
};

/* The comparison builds its groups once (comparison.summed, n_summed): sorted by |delta|
 * descending, then by first pair; none when it has no pairs. */

#endif
