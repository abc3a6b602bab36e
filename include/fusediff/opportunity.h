/* opportunity.h — fusions neither side has: the unfused chains of one trace.
 *
 * A chain of the catalogue (classify.h, struct fusible_chain: add -> rmsnorm, silu -> mul,
 * rope -> kv_write, an RMSNorm as eager kernels, ...) is found where its elements run as
 * separate adjacent steps (structure.h) of one layer, prologue or epilogue, in order:
 *   - each element's atoms are the step's, and the step does none of the other elements' work
 *     (a step that already fuses two elements is no chain) nor heavy work the element does not
 *     name (a GEMM with a bias add is no "add");
 *   - the steps are adjacent, except that one step of a class the entry allows (the up GEMM
 *     between silu and mul) may run between two elements; a step that repeats an element's
 *     atoms for the same operator (top-k's gather and sort) belongs to that element;
 *   - the main kernels run on one stream;
 *   - where the operators recorded input shapes, two consecutive elements share one (a GEMM's
 *     output is never recorded, so a GEMM's side is not checked);
 *   - a chain of one element is one step of three eager kernels or more (STEP_RUN) from two
 *     operators or more (not one operator that launches several: PyTorch's GroupNorm).
 * Longer entries are tried first; a step is in at most one chain. Matches are grouped by entry
 * and kernels per place, so that every count is whole; a place is a layer (by its stack and
 * index) and the chain's ordinal in it.
 *
 * What fusing would save, as two figures, never one guess: certain (launches; the idle GPU time
 * just before each kernel but a place's first, as for fusion differences) and a bound (the
 * chain's kernel time beyond its longest kernel). Opportunities are advice: they never enter
 * the attribution, the gates or the count of fusion differences. */
#ifndef FUSEDIFF_OPPORTUNITY_H
#define FUSEDIFF_OPPORTUNITY_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/classify.h"
#include "fusediff/structure.h"
#include "fusediff/time_stats.h"

/* A layer where a chain runs, by its side's stack (index into side->stacks) and index
 * (0..n-1, LAYER_PROLOGUE or LAYER_EPILOGUE). */
struct opportunity_layer {
	uint16_t stack;
	int32_t index;
	uint32_t offset; /* its position in its pass (0: the prologue): execution order */
};

/* One unfused chain, over the passes looked at. */
struct opportunity {
	uint16_t chain;			  /* index into the chains looked for */
	uint32_t per_place;		  /* working kernels at each place */
	uint32_t places;		  /* distinct places */
	struct opportunity_layer *layers; /* distinct, in execution order */
	uint32_t n_layers;
	uint32_t *names; /* distinct kernel name ids of the first place, in execution order */
	uint32_t n_names;
	uint32_t *example; /* the kernels (indices into trace->kernels) of the first place */
	uint32_t n_example;
	uint32_t occurrences; /* matches over all the passes looked at */
	/* per pass looked at: */
	double ns;	 /* the chain's kernel time */
	double launches; /* launches one kernel per place saves (whole) */
	double idle_ns;	 /* idle GPU time just before the kernels fusing removes */
	double bound_ns; /* kernel time beyond each place's longest kernel */
};

struct opportunities {
	struct opportunity *v; /* the largest saving (bound + idle) first */
	size_t n;
	uint32_t passes; /* passes looked at */
};

struct opportunity_opts {
	const struct fusible_chain *chains; /* the catalogue (classifier_chains()) */
	size_t n_chains;
	const uint8_t *pass_on;	     /* per side pass: 1 to look in it; NULL: every pass */
	const uint8_t *kernel_off;   /* per trace kernel: 1 to leave it out (a fusion difference
				      already covers it); NULL: none */
	const struct busy_set *busy; /* per side pass looked in: its kernels' busy intervals
					(time_span_of()); NULL: found here */
};

/* The unfused chains of side s (borrowed) into *out (owned: release with
 * opportunities_clear()). Linear in the steps of the passes looked at. */
void opportunities_find(const struct side *s, const struct opportunity_opts *o,
			struct opportunities *out);
void opportunities_clear(struct opportunities *o);
/* Release what one opportunity owns (one taken out of a struct opportunities). */
void opportunity_clear(struct opportunity *o);

/* The layers of o as a compact list ("0-7,epi", "pro", "vision.0-3") into buf, with side s's
 * stack names. Always terminated. */
void opportunity_layer_ranges(const struct side *s, const struct opportunity *o, char *buf,
			      size_t cap);

#endif
