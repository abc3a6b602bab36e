/* compare_int.h — what comparison.c shares with comparability.c. */
#ifndef FUSEDIFF_COMPARE_INT_H
#define FUSEDIFF_COMPARE_INT_H

#include <stddef.h>

#include "fusediff/comparison.h"
#include "fusediff/time_stats.h"

/* Per side: each kernel's operator (trace_link_kernels()) and each operator's longest kernel,
 * the one whose pair its work counts in: an operator whose kernels land in several pairs (a
 * grouped GEMM's data preparation aligned apart from it) is counted once. Each operator's work
 * is parsed from its shapes on first use. None of it depends on the phase compared. */
struct side_ops {
	uint32_t *op_of;     /* per kernel: index into t->ops, UINT32_MAX when none */
	uint32_t *main_of;   /* per operator: its longest kernel, UINT32_MAX when none */
	uint32_t *result_of; /* per operator: the id of its text in texts, 0 not parsed yet */
	/* the work of each operator text (name, Input Dims, Input type, Concrete Inputs, as 4
	 * string ids): the layers of a model repeat a few, each parsed once; results[id] */
	struct intern *texts;
	struct work_result {
		int known; /* 1: the operator's work is w */
		struct op_work w;
	} * results;
	size_t n_results, cap_results;
};

/* What every phase's comparison of two sides shares (comparison.h). */
struct comparison_memo {
	const struct trace *t[2]; /* the traces side[] was built for */
	struct side_ops side[2];
	/* both whole traces' kernel totals (comparison_kernel_totals()), summed for the sides
	 * totals_of[] (NULL: not yet) */
	const struct side *totals_of[2];
	struct comparison_kernel_total *totals;
	size_t n_totals;
};

/* The capture of side sd's pooled trace (trace.repeats) that pass p lies in; 0 when the side
 * is one capture. */
size_t comparison_pass_capture(const struct side *sd, const struct pass *p);
/* Once the phase and models are chosen, before anything asks comparison_pass_compared(): the
 * captures of each side whose usual pass has another shape (layers, steps of each class in
 * them) than the first capture's, in c->repeat_out (comparison_repeats.c). */
void comparison_repeats_choose(struct comparison *c);
/* The warning repeat_differs of each side whose captures differ (those left out, or a capture
 * without a compared pass); returns the first one's message, or NULL. */
const char *comparison_repeats_warn(struct comparison *c);
/* The passes per phase of the model compared on side s. */
const uint32_t *comparison_model_phases(const struct comparison *c, int s);
/* "2 prefill and 16 decode passes" of side s's compared model into buf. */
void comparison_phases_text(const struct comparison *c, int s, char *buf, size_t cap);
/* Add a warning: code (static), and the message from fmt (escaped by the caller). Returns
 * the message (owned by c). */
const char *comparison_warn(struct comparison *c, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Fill c->time, and each fusion's launches_saved and idle_ns (comparison_time.c). busy[s]
 * gets side s's busy intervals per pass (the compared passes' only; the others empty), which
 * the opportunity search reads again: release with comparison_busy_free(). */
void comparison_times(struct comparison *c, struct busy_set *busy[2]);
void comparison_busy_free(const struct comparison *c, struct busy_set *busy[2]);
/* The steps comparison_build() runs after the pairs and fusions of its phase (compute()), in
 * this order: */
/* 1. c->kernel_totals (kernel_totals.c): the same in every phase, kept in memo when it is not
 * NULL. */
void comparison_kernel_totals(struct comparison *c, struct comparison_memo *memo);
/* 2. c->peak and every pair's side[].eff (pair_efficiency.c). */
void comparison_efficiency(struct comparison *c, const struct peak_table *peaks,
			   struct comparison_memo *memo);
/* 3. c->summed, from the pairs and their efficiency (summed_pairs.c). */
void comparison_summed_pairs(struct comparison *c);
/* 4. every row's interval of B - A (struct comparison_ci), c->ci_known, c->beyond_noise_ns
 * (noise.c). */
void comparison_noise(struct comparison *c);
/* 5. c->opportunities: the chains neither side fuses (comparison_opportunities.c), busy: each
 * side's busy intervals per pass (comparison_times()). */
void comparison_opportunities(struct comparison *c, const struct busy_set *const busy[2]);
/* The 97.5 % quantile of Student's t distribution with df degrees of freedom (df > 0): the
 * factor of a 95 % two-sided interval. */
double noise_t975(double df);

/* The sums of several pairs' efficiency on one side (a group of summed pairs, summed_pairs.h):
 * known when each is, against peak. */
void comparison_eff_sum(const struct comparison_eff *const *parts, size_t n,
			const struct gpu_peak *peak, struct comparison_eff *out);

/* Fill c->comparability and add the warnings (after the pairs are built). */
void comparability_build(struct comparison *c);

#endif
