/* comparison.h — two structured traces side by side: aligned kernel pairs per layer, layer
 * totals and fusion differences. This is what the reports and the TUI show.
 *
 * Side A is the first trace given, side B the second. For the selected phase, every figure is
 * per pass: the average over that side's passes of the phase (so two sides with different pass
 * counts compare fairly). Counts are kernel launches per pass.
 *
 * Zero denominators: ratio is B/A when A > 0 and undefined otherwise (NAN here, null in JSON,
 * "-" in text). delta is always B - A. */
#ifndef FUSEDIFF_COMPARE_H
#define FUSEDIFF_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fusediff/classify.h"
#include "fusediff/efficiency.h"
#include "fusediff/opportunity.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"

enum pair_kind { PAIR_MATCH, PAIR_FUSED, PAIR_A_ONLY, PAIR_B_ONLY };

struct summed_pair;
/* "match", "fused", "a_only", "b_only". */
const char *pair_kind_name(enum pair_kind k);

enum { SIDE_A, SIDE_B };

/* A kernel instance on one side: an index into that side's trace->kernels, with the pass it
 * belongs to. */
struct comparison_instance {
	uint32_t kernel;
	uint32_t pass; /* index into side->passes */
};

/* How close one side of a pair runs to its GPU's peak (efficiency.h): the work of the operators
 * that launched its kernels (each counted once, however many kernels it launched) over the
 * kernels' time, over all the compared passes. Known when every kernel of the side with an
 * operator has one fusediff models (GEMMs, attention) and at least one has; the figures are NAN
 * otherwise. */
struct comparison_eff {
	double flops;	     /* 0 when unknown */
	double bytes;	     /* < 0 when unknown (no work, or a data type not recorded) */
	double ns;	     /* the kernels' time */
	double tflops, tbps; /* achieved; NAN when unknown */
	double ai;	     /* FLOPs per byte, NAN when unknown */
	double peak_share;   /* of the roofline (efficiency.h); NAN without the GPU's peak */
	int8_t bound;	     /* 1 compute-bound, 0 memory-bound, -1 unknown */
	int8_t dtype;	     /* the peak column (enum eff_dtype), -1 unknown */
	uint8_t kind;	     /* enum eff_kind of the first operator */
	uint8_t causal;	     /* attention: a causal mask */
	uint8_t mixed;	     /* the operator calls do not all have the first one's shape */
	uint8_t above_peak;  /* the figures came out above the GPU's peak and were dropped (NAN) */
	uint32_t ops;	     /* distinct operator calls counted */
	int64_t b, m, n, k;  /* the first operator's shape (struct op_work) */
	int64_t heads, kv_heads;
};

/* How sure a row's B - A per pass is (noise.c): Welch's t interval at 95 % over the per-pass
 * samples of each side, when both sides have at least three compared passes
 * (comparison.ci_known); each side's pass-to-pass standard deviation of the row. A row whose
 * layer some passes lack is sampled over the passes that have it. */
struct comparison_ci {
	double low_ns, high_ns; /* the interval of B - A per pass; NAN when unknown */
	double sd_ns[2];    /* each side's standard deviation over its passes; NAN when unknown */
	int8_t significant; /* 1: the interval excludes 0; 0: within noise; -1: unknown */
};

/* What one side contributes to a pair. */
struct comparison_part {
	uint32_t *names; /* distinct kernel name ids (trace strings): the main kernels' in
			    execution order, then the helpers' (a workspace memset, splitKreduce) */
	uint32_t n_names;
	struct comparison_instance *inst; /* every instance over the phase's passes */
	uint32_t n_inst;
	double count;	 /* launches per pass */
	double avg_ns;	 /* average time of one occurrence of the position on this side: a kernel
			    with its helpers, or all of an eager run or of a fused entry's
			    kernels, counts once (so an 8-kernel eager RMSNorm compares with the
			    one fused kernel); NAN when the side has none */
	double total_ns; /* per pass (of those that have the pair's layer) */
	double sum_ns;	 /* over all the compared passes */
	struct comparison_eff eff;
};

/* One aligned position of one layer, aggregated over the passes of the phase. A layer's pairs
 * hold its kernels and no other: nothing is paired across layers. */
struct comparison_pair {
	int32_t layer;	   /* index into comparison.layers (comparison_layer_label() names it) */
	uint32_t position; /* 0-based position in the layer's alignment */
	uint8_t kind;	   /* enum pair_kind */
	uint8_t cls;	   /* enum op_class (of the fused kernel for fused pairs) */
	atom_set atoms;
	struct comparison_part side[2];
	double delta_ns; /* B - A per pass */
	double ratio;	 /* B / A, NAN when A is 0 */
	int32_t fusion;	 /* index into fusions, -1 when none */
	struct comparison_ci ci;
};

/* The layers in execution order: the prologue, each stack's layers (a stack after the first
 * may have a prologue of its own: what runs between two stacks), the epilogue. */
struct comparison_layer {
	int32_t index;	/* within its stack: 0..n-1, LAYER_PROLOGUE or LAYER_EPILOGUE */
	uint16_t stack; /* index into comparison.stacks */
	uint8_t phase;
	uint32_t passes[2]; /* the compared passes that have this layer, each side */
	double ns[2];	    /* per pass that has it */
	double kernels[2];  /* launches per pass that has it */
	double wall_ns[2];  /* first kernel start to last kernel end, per pass that has it */
	double busy_ns[2];  /* of which some kernel ran (time_stats.h) */
	double idle_ns[2];  /* of which none did: wall - busy */
	double delta_ns, ratio;
	uint32_t n_fusions;	     /* distinct fusion patterns occurring in this layer */
	uint32_t pair_first, pair_n; /* range in pairs */
	struct comparison_ci ci;
};

/* A fusion difference: one side runs one kernel where the other runs several for the same
 * atoms. Identical patterns are grouped across layers. */
struct comparison_fusion {
	uint32_t id;		 /* its number, from 1, in every output: a session keeps it across
				    phases (the same content, the same number: session.h); else its
				    place in fusions + 1 */
	uint8_t fused_side;	 /* SIDE_A or SIDE_B */
	uint32_t fused_name;	 /* name id on the fused side: the first fused kernel; a pattern
				     may group similar kernels (Inductor numbers them per layer) */
	uint32_t *unfused_names; /* distinct name ids on the other side, in execution order */
	uint32_t n_unfused;
	atom_set atoms;	      /* the atoms every fused kernel of the pattern covers */
	uint8_t partial;      /* 1: the same work launched more often on one side (no fused kernel;
				     fused_name is the kernel the fused side launches once) */
	uint8_t horizontal;   /* 1: one merged GEMM on the fused side where the other runs
				     separate GEMMs on the same input (q/k/v, gate/up) */
	uint8_t cls;	      /* enum op_class of the fused kernel */
	uint8_t proof;	      /* the rule that proved it (enum align_proof, align.h); PROOF_NONE for
				 a partial fusion, which is the same kernel launched more often */
	uint32_t extra;	      /* pairs (the last ones of pairs) of one-sided kernels at the
				     fusion's places whose work the fusion covers: a side's other
				     kernels for the same operation, part of the net delta */
	uint32_t occurrences; /* per pass: launches of the fused kernel */
	uint32_t per_place;   /* working kernels the unfused side runs at each place (whole: places
				 that differ are separate findings) */
	int32_t *layers;      /* distinct indices into comparison.layers, ascending (execution
				     order) */
	uint32_t n_layers;
	uint32_t *pairs; /* indices into pairs: the fused (or, partial, matched) pairs and the
			    gap pairs that repeat them (partial), ascending, then the extra ones */
	uint32_t n_pairs;
	double ns[2];	       /* time on each side, per pass (the extra pairs' included) */
	double delta_ns;       /* B - A: net of the extra pairs */
	double launches_saved; /* per pass: occurrences x (per_place - 1), whole */
	double idle_ns;	       /* per pass: GPU idle time just before the unfused side's kernels
				  that fusing removes (every kernel of a place but its first): from
				  the end of the kernel before it to its start, when nothing ran */
	char *evidence;	       /* one readable sentence, escaped (safe to print) */
	struct comparison_ci ci;
};

/* A chain that a side runs unfused and the other side does not fuse either (opportunity.h),
 * over that side's compared passes: advice, never in the attribution, the gates or the count
 * of fusion differences. The kernels of a fusion difference are left out: there the other
 * side's fused kernel measures what fusing gives. */
struct comparison_opportunity {
	uint8_t side;			   /* SIDE_A or SIDE_B */
	const struct fusible_chain *chain; /* borrowed from the classifier (or the built-in
					      catalogue) */
	struct opportunity o;		   /* its figures are per compared pass of its side */
	int32_t *layers;		   /* o's layers as indices into comparison.layers */
	uint32_t n_layers;
};

/* Where B - A comes from: every pair counted once, in the fusion it belongs to, else by its
 * kind and class. The parts' delta_ns add up to comparison.delta_ns. */
enum attribution_kind {
	ATTR_FUSION,	     /* a fusion difference (its one-sided kernels included) */
	ATTR_HORIZONTAL,     /* a horizontal fusion: merged GEMM against separate ones */
	ATTR_PARTIAL,	     /* the same work launched more often on one side */
	ATTR_A_ONLY,	     /* kernels only A runs */
	ATTR_B_ONLY,	     /* kernels only B runs */
	ATTR_MATCHED_FASTER, /* matched kernels, B faster */
	ATTR_MATCHED_SLOWER, /* matched kernels, B slower */
	ATTR_MATCHED_SAME,   /* matched kernels, the same time */
	ATTR_COUNT
};
/* "fusion", "horizontal_fusion", "partial_fusion", "a_only", "b_only", "matched_faster",
 * "matched_slower", "matched_same". */
const char *attribution_kind_name(int kind);

struct comparison_attribution {
	uint8_t kind;	 /* enum attribution_kind */
	uint8_t cls;	 /* enum op_class */
	int32_t fusion;	 /* for the fusion kinds: index into comparison.fusions; else -1 */
	double count;	 /* places per pass: a fusion's occurrences, else aligned pairs */
	double ns[2];	 /* time on each side per pass */
	double delta_ns; /* B - A per pass */
	struct comparison_ci ci;
};

/* One rank of two directories of per-rank traces (ranks.h): its traces and totals, for the
 * compared phase. */
struct comparison_rank {
	int64_t rank;
	char *path[2];		/* A's and B's trace of this rank */
	double ns[2];		/* GPU kernel time per compared pass */
	uint32_t passes[2];	/* compared passes */
	size_t kernels[2];	/* kernels of the whole trace */
	double delta_ns, ratio; /* B - A and B / A of ns */
};

/* Every rank of the two directories, by rank. */
struct comparison_ranks {
	const char *paired_by; /* static: "distributedInfo.rank" or "file name" */
	struct comparison_rank *r;
	size_t n;
	size_t chosen;	     /* the rank analysed in full (index into r) */
	int asked;	     /* chosen by --rank, not as the largest |B - A| */
	double spread_ns[2]; /* per side: slowest rank's ns minus the fastest's */
	size_t slowest[2];   /* per side: index into r of the slowest rank */
};

/* What every phase's comparison of the same two sides can share: each kernel's operator and
 * each operator's work (its shapes parsed once), per side. Owned by whoever builds the
 * comparisons (a session); used by one comparison_build() at a time. */
struct comparison_memo;
struct comparison_memo *comparison_memo_new(void);
void comparison_memo_free(struct comparison_memo *m);

struct compare_opts {
	int phase; /* enum phase, PHASE_COUNT for all passes, or -1: the first phase both sides
		      have (prefill, decode, mixed), else all passes */
	const char *label[2]; /* NULL: vendor + GPU, or the file name when those are equal */
	const struct peak_table *peaks; /* --peaks rows, tried before the built-in ones; may
					   be NULL */
	const char *model; /* compare this model's passes (its name, "SD3Transformer2DModel_0",
				 or its class, "SD3Transformer2DModel"); NULL: side A's main model
				 and the model of that name on B, else B's main model */
	const struct comparison_ranks *ranks; /* borrowed: the ranks these traces are one of,
						 or NULL */
	struct comparison_memo *memo;	      /* borrowed, or NULL: nothing kept between phases */
};

/* A comparison of two sides for one phase. Immutable once built; it borrows the sides and the
 * classifier, which must outlive it (a session, session.h, owns all three and builds one
 * comparison per phase). */
/* One kernel name over both whole traces: every call on the analysed device(s), in passes or
 * not (what a profiler's own "kernel summary" diff shows). */
struct comparison_kernel_total {
	const char *name; /* the short display name (comparison_short_name()), not escaped */
	uint8_t cls;	  /* enum op_class: the class of most of its time, both sides together
			     (the first in class order among equals) */
	int64_t count[2];
	int64_t ns[2];
};

/* A warning: a stable code for scripts ("phase_mix", "depth_differs", ...: fusediff(1),
 * WARNINGS) and a sentence for people (escaped). */
struct comparison_warning {
	const char *code; /* static */
	char *message;
};

/* The batch one side ran, from the serving framework's annotations (comparability.c). */
struct comparison_batch {
	int64_t requests, tokens; /* the most frequent values over the compared passes; -1: the
				     annotations do not say */
	const char *source;	  /* static: which annotation said it, NULL when none did */
	uint8_t varies;		  /* the passes ran different batches */
};

/* The M, N, K of the matched GEMM pairs, from their operators' Input Dims. */
struct comparison_shapes {
	uint32_t pairs;	    /* matched GEMM pairs */
	uint32_t known;	    /* of those, pairs whose shapes both sides recorded */
	uint32_t differ;    /* of those, pairs whose A shape B's pairs of the layer lack */
	int64_t example;    /* the first of them (index into pairs), -1 when none */
	int64_t a[3], b[3]; /* its M, N, K on each side */
};

/* Whether the sides ran the same workload: what a CI gate needs before it can judge. */
struct comparison_comparability {
	int comparable;	 /* both sides have passes, the same layers per pass, the same batch (when
			   known) and the same GEMM shapes (where known); else a gate exits 4 */
	const char *why; /* when not: the first warning's message that says why (in warnings) */
	struct comparison_batch batch[2];
	struct comparison_shapes gemm;
};

struct comparison {
	const struct side *side[2];	     /* borrowed */
	const struct classifier *classifier; /* borrowed, may be NULL: for classifier_rule_text()
						 in evidence */
	char *label[2];	    /* as given, or the default; control bytes escaped (text_escape) */
	int phase;	    /* the phase shown (enum phase or PHASE_COUNT) */
	uint16_t model[2];  /* the model compared on each side (index into side->models) */
	uint32_t passes[2]; /* passes of the phase on each side */
	double ns[2];	    /* GPU kernel time per pass, both sides */
	double compared_share[2]; /* the compared passes' share of the side's kernel time (its
				     struct side_coverage.total_ns), 0..1 */
	struct comparison_time {
		double wall_ns;	   /* first kernel start to last kernel end on the device */
		double busy_ns;	   /* union of the kernels' intervals over every stream */
		double idle_ns;	   /* wall - busy */
		double overlap_ns; /* sum of kernel time - busy: kernels running at once */
		double launches;   /* kernels, copies and memsets */
	} time[2];		   /* per compared pass, each side (time_stats.h) */
	double delta_ns, ratio;
	struct comparison_layer *layers; /* in execution order, see struct comparison_layer */
	size_t n_layers;
	char **stacks; /* stack names: "" for the one stack of a model with one (its layers are
			  labelled 0..n-1), else "vision", "text", "backward", ... */
	size_t n_stacks;
	struct comparison_pair *pairs;
	size_t n_pairs;
	struct comparison_fusion *fusions; /* sorted by |delta| descending, then by fused name */
	size_t n_fusions;
	size_t n_partial; /* of which partial fusions (the same kernel launched more often): not
			     fusion differences, so never counted as such in a headline or gate */
	struct comparison_attribution *attribution; /* largest |delta| first; adds up to delta_ns */
	size_t n_attribution;
	uint32_t *pair_part;		 /* per pair: the attribution part it counts in */
	double class_ns[2][CLASS_COUNT]; /* per pass, for the overview; each kernel counts under the
					    class of its step (an eager RMSNorm run is Norm) */
	int ci_known;			 /* both sides have three compared passes or more: the
					    rows' intervals (struct comparison_ci) are known */
	struct comparison_ci ci;	 /* of the whole pass: delta_ns */
	struct comparison_ci class_ci[CLASS_COUNT];
	double beyond_noise_ns; /* the part of delta_ns in attribution parts whose
					    interval excludes 0 (NAN when unknown) */
	uint8_t *repeat_out[2]; /* per capture of a side that pools several (trace.repeats): 1
				   when its passes are left out, their shape not the side's first
				   capture's (repeat_differs); NULL when none is */
	char *note; /* why the comparison is empty or partial (no common phase, ...), or NULL */
	struct comparison_warning *warnings; /* what makes the figures less comparable than
						they look, in the order of the list in
						fusediff(1), WARNINGS */
	size_t n_warnings;
	struct comparison_comparability comparability;
	const struct comparison_ranks *ranks; /* borrowed (compare_opts.ranks): NULL unless two
						 directories of ranks were compared */
	const char **short_names[2];	      /* per name id: see comparison_short_name() */
	struct comparison_kernel_total *kernel_totals; /* by short name, largest |B - A| first */
	size_t n_kernel_totals;
	struct summed_pair *summed; /* the pairs summed over the layers (summed_pairs.h), largest
				       |B - A| first */
	size_t n_summed;
	struct comparison_opportunity *opportunities; /* both sides', the largest saving (bound
							 + idle) first */
	size_t n_opportunities;
	const struct gpu_peak *peak[2]; /* each side's GPU peaks (efficiency.h), NULL when the GPU
					   is not in the table; borrowed from the built-in table or
					   compare_opts.peaks, which must outlive the comparison */
};

/* Whether pass p of side s is one of the compared passes: of the phase and model compared,
 * and not of a capture left out (comparison.repeat_out). */
int comparison_pass_compared(const struct comparison *c, int s, const struct pass *p);

/* The most severe of c's warnings (index into c->warnings): the first code in the order of
 * fusediff(1), WARNINGS (rank_alignment, phase_mix, capture_partial, depth_differs,
 * batch_differs, gemm_shapes_differ, other_share_high, low_coverage, partial_layers, noisy),
 * the first added among equals; SIZE_MAX when there is none. */
size_t comparison_worst_warning(const struct comparison *c);

/* The rule that proved fusion f, for people: "the unfused kernels carry its Norm work
 * (rmsnorm)", "the same kernel launched more often" (partial). Into buf; returns buf. */
const char *comparison_proof_text(const struct comparison_fusion *f, char *buf, size_t cap);
/* The same as a stable word for scripts: "class_work", "ops", "math_attention", "horizontal",
 * "launches" (partial). */
const char *comparison_proof_name(const struct comparison_fusion *f);

/* Compare side a (A) with side b (B) for the phase in o (NULL: automatic). a, b and cl
 * (may be NULL) are borrowed and must outlive the comparison. Owned by caller: free with
 * comparison_free().
 * Errors: a phase asked for (not "all") that a side has no pass of ("--phase decode: B
 * (b.json) has no decode pass; it has 2 prefill passes"); a model that a side does not have.
 * Sides without passes give an empty comparison with a note. */
int comparison_build(struct comparison **out, const struct side *a, const struct side *b,
		     const struct classifier *cl, const struct compare_opts *o,
		     struct fd_error *err);
void comparison_free(struct comparison *c);

/* The short display name of kernel name id `name` on side s (SIDE_A or SIDE_B): the
 * classifier's short name of a kernel with that name, else the name itself. Borrowed, valid
 * until comparison_free(); not escaped (escape before showing it). */
const char *comparison_short_name(const struct comparison *c, int s, uint32_t name);

/* What decided the class of side s (SIDE_A, SIDE_B) of pair p: the classification of its main
 * kernel (*info, borrowed, may be NULL), and the source as text: class_source_name() of it,
 * or "eager run" when the pair's class comes from a run of eager kernels that together do one
 * operation (structure.h). NULL when the side has no kernel. */
const char *comparison_class_source(const struct comparison *c, const struct comparison_pair *p,
				    int s, const struct kernel_info **info);

/* The model compared on side s (SIDE_A, SIDE_B): its passes, phases and layers per pass. */
static inline const struct side_model *comparison_model(const struct comparison *c, int s)
{
	return &c->side[s]->models[c->model[s]];
}

/* The index within its stack (0..n-1, LAYER_PROLOGUE or LAYER_EPILOGUE) of layer, an index into
 * c->layers. */
static inline int32_t comparison_layer_index(const struct comparison *c, int32_t layer)
{
	return layer >= 0 && (size_t)layer < c->n_layers ? c->layers[layer].index : LAYER_EPILOGUE;
}

/* The label of layer (an index into c->layers) into buf: "3", "prologue", "epilogue", or with
 * its stack's name when it has one: "vision.3", "text.prologue", "backward". Returns buf. */
const char *comparison_layer_label(const struct comparison *c, int32_t layer, char *buf,
				   size_t cap);
/* Layers (indices into c->layers, ascending, as a fusion or a group of summed pairs lists them)
 * as a compact list into buf: "0-31", "pro,0-7,epi", "2,5", "vision.0-23,text.0-11". Always
 * terminated; cut short when cap is small. */
void comparison_layer_ranges(const struct comparison *c, const int32_t *layers, uint32_t n,
			     char *buf, size_t cap);
/* The same as readable text: "layers 0-7", "the prologue and layers 0, 2". */
void comparison_layer_text(const struct comparison *c, const int32_t *layers, uint32_t n, char *buf,
			   size_t cap);

/* The indices of the pairs first .. first + n - 1 with the largest |delta|, at most max of them,
 * into out, largest first; ties keep the earlier pair first. Returns how many. */
size_t comparison_top_pairs(const struct comparison *c, size_t first, size_t n, uint32_t *out,
			    size_t max);

/* B/A with the zero-denominator policy above. */
static inline double comparison_ratio(double a, double b)
{
	return a > 0 ? b / a : NAN;
}

#endif
