/* canonical_int.h — one side of a comparison merged over its compared passes, layer by layer
 * (canonical.c), and the pairs built from the two sides' canonical layers
 * (comparison_pairs.c): the steps comparison.c's compute() runs, in this order:
 *   canonical_layers()      the layers of the comparison and each one's passes per side;
 *   canonical_merge_side()  each side's passes merged per layer into canonical steps;
 *   pairs_build()           the two sides' canonical layers aligned, a pair per position;
 *   pairs_layer_totals()    per-layer and per-class time, per pass;
 *   canonical_work_free(). */
#ifndef FUSEDIFF_CANONICAL_INT_H
#define FUSEDIFF_CANONICAL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/align.h"
#include "fusediff/comparison.h"
#include "fusion_int.h"

/* A step of one pass: its index in side->steps, the pass (index into side->passes) and the
 * name id of its main kernel (UINT32_MAX for a step without kernels). */
struct occ {
	uint32_t step, pass, main_name;
};

/* One canonical position of a layer on one side, with every pass's step at that position. */
struct slot {
	struct align_item item; /* from the first occurrence */
	uint32_t first_name;	/* name id of the first occurrence's main kernel */
	struct occ *occ;
	size_t n_occ, cap_occ;
};

/* A pass that ran exactly the canonical steps of a layer: slot i's occurrence in it is the step
 * first + i (so that the usual pass costs one entry per layer, not one per step). */
struct prun {
	uint32_t first, pass;
};

/* The passes merged into one layer. A slot's occurrences are its own list (slot.occ), then one
 * in each run: every pass in runs came after those in the lists. */
struct merged_layer {
	struct slot *slot;
	size_t n, cap;
	struct align_item *items; /* slot items, for the cross-side alignment */
	struct prun *runs;
	size_t n_runs, cap_runs;
	/* the last alignment of a pass with the slots (merge_pass()): its input, the slots' items
	 * then, and the result, which the next pass of the same steps against the same slots
	 * takes as it is (align_steps() depends on nothing else) */
	struct align_item *last_in, *last_canon;
	size_t last_n_in, last_n_canon;
	struct alignment last;
};

/* A layer of the comparison: a stack (index into comparison.stacks) and an index in it. */
struct key {
	uint16_t stack;
	int32_t index;
};

/* Everything derived from the sides for one phase. */
struct work {
	const struct side *s[2];
	const struct comparison *c;
	size_t n_keys; /* prologue, stack 0's layers, each named stack's prologue and layers,
			  epilogue */
	struct key *keys;
	uint32_t *base;	  /* per comparison stack: the key of its prologue */
	size_t epi;	  /* the key of the epilogue */
	uint8_t *has_pro; /* per comparison stack: a prologue of its own (the first key) */
	uint16_t *cs[2];  /* per side stack: its comparison stack */
	struct merged_layer *ml[2];
	struct align_layer *al;
	/* per side and string id of an Input Dims text: its GEMM shape (eff_gemm_shape(), M, N,
	 * K, zeros when it has none), found when gemm_known[s][id] is set; both made when first
	 * needed */
	int64_t (*gemm[2])[3];
	uint8_t *gemm_known[2];
};

/* The layers of the comparison (c->layers, c->n_layers, w's keys): the stacks of both sides'
 * compared passes by name, each with as many layers as the most any pass has, and how many
 * compared passes of each side have each one. */
void canonical_layers(struct comparison *c, struct work *w);
/* The key (index into c->layers) of layer ly of side s. */
size_t canonical_layer_key(const struct work *w, int s, const struct layer *ly);
/* Merge side s's compared passes into w->ml[s], one canonical step sequence per key. */
void canonical_merge_side(struct work *w, int s);
void canonical_work_free(struct work *w);
/* The short name of side s's kernel (its classification's, else its name in the trace). */
const char *canonical_kernel_short(const struct side *s, uint32_t kernel);

/* Align the canonical layers of both sides (w->al) and make a pair of every aligned position:
 * c->pairs, c->n_pairs, each layer's pair range; *hints (owned by the caller: free()) gets
 * what fusion_build() needs of each pair. */
void pairs_build(struct comparison *c, struct work *w, struct fusion_hint **hints);
/* Per-layer, per-class and total time and kernels of both sides, per pass. */
void pairs_layer_totals(struct comparison *c, const struct work *w);

#endif
