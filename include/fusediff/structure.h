/* structure.h — one trace cut into passes, layers and steps.
 *
 * A pass is one forward pass (one prefill or one decode step). Each pass is split into a
 * prologue (embedding and the like), N repeated layers and an epilogue (final norm, LM head,
 * sampling); no kernel is dropped and the epilogue is never glued onto the last layer.
 * Within a pass, kernels are grouped into steps: one logical operation each. A step is one
 * kernel, or a main kernel with its helpers (a GEMM and its splitKreduce, paged attention and
 * its reduce), or an eager run of aten kernels that together form one op (HF RMSNorm:
 * pow, mean, add, rsqrt, mul, mul with casts).
 *
 * Passes come from annotations (record_function ranges; only those matching --pass REGEX when
 * given): a kernel belongs to the annotation whose CPU range contains its launch event (found
 * through the correlation id), else to the gpu_user_annotation range on its stream. Nested
 * annotations give one pass each unless they are containers (ProfilerStep#N around a prefill
 * and decodes); SGLang's execute_... with step[DECODE] inside is one pass; Inductor's
 * "## ... ##" ranges are never passes. Without annotations, passes come from the repetition of
 * the layer structure, else the whole trace is one pass. Kernels of a pass on several streams
 * are merged step by step, so no step is split: in launch order when every kernel of the pass
 * has its launch event (the order the program issued the work in: a side-stream kernel that
 * prepares the next step is not glued into the layer the GPU ran it beside), else by GPU start.
 * A pass at either end of the trace with fewer layers than the others (the recording started
 * or stopped inside it) is left out: its kernels are unassigned, and pass_source says so.
 *
 * Layers come from nn.Module annotations, attention anchors, or the period of the op sequence
 * — and the same model gives the same layer count on any vendor. Whatever the source, a layer
 * starts at its input norm together with an immediately preceding residual add, so eager,
 * compiled and vendor-fused traces cut at the same logical place (details in layers.c). */
#ifndef FUSEDIFF_STRUCTURE_H
#define FUSEDIFF_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/classify.h"
#include "fusediff/trace.h"

/* A pass is a forward pass (prefill, decode or a batch mixing both) or one training step
 * (forward, backward and optimizer); unknown when neither its name nor its kernels say (a
 * window of a trace without annotations or model calls, a micro-benchmark). */
enum phase { PHASE_PREFILL, PHASE_DECODE, PHASE_MIXED, PHASE_TRAIN, PHASE_UNKNOWN, PHASE_COUNT };
/* "prefill", "decode", "mixed", "train", "unknown"; "all" for PHASE_COUNT. */
const char *phase_name(enum phase p);
/* PHASE_* for "prefill", "decode", "mixed", "train", "unknown"; PHASE_COUNT for "all"; -1
 * otherwise. */
int phase_from_name(const char *s);

enum step_kind {
	STEP_SINGLE, /* one kernel */
	STEP_AUX,    /* a main kernel and its helpers: one unit of work, never a fusion */
	STEP_RUN,    /* several kernels that together do one logical op (eager decomposition) */
};

struct step {
	uint32_t first, n; /* range in side->order */
	uint8_t cls;	   /* enum op_class of the step */
	uint8_t kind;	   /* enum step_kind */
	uint8_t n_work;	   /* kernels that do the work: n minus helpers (capped at 255) */
	uint8_t main;	   /* position of the main kernel within the step (a STEP_AUX may start
			      with a helper: a workspace memset, a grouped-GEMM setup kernel) */
	atom_set atoms;	   /* union of its kernels' atoms (a STEP_RUN gets the op's atom, plus
			      cast when casts are inside: an eager RMSNorm run: rmsnorm+cast) */
	int64_t dur;	   /* sum of its kernels' durations, ns */
};

#define LAYER_PROLOGUE (-1)
#define LAYER_EPILOGUE (-2)

struct layer {
	int32_t index;	/* within its stack: 0..n-1, LAYER_PROLOGUE or LAYER_EPILOGUE */
	uint16_t stack; /* index into side->stacks: 0 (no name) for the pass's prologue
					and epilogue and for the layers of a pass with one stack */
	uint32_t step_first, step_n; /* range in side->steps (step_n may be 0) */
	int64_t dur;		     /* sum of kernel durations, ns */
};

/* How the layers of a pass were found. */
enum layer_source {
	LAYER_SRC_NONE,	  /* no repeated layers: every step is in the prologue */
	LAYER_SRC_MODULE, /* nn.Module ranges of the decoder-layer class */
	LAYER_SRC_ANCHOR, /* attention anchors */
	LAYER_SRC_PERIOD, /* the period of the op sequence */
};

struct pass {
	uint32_t name;		       /* annotation name id (0 when found by structure) */
	uint8_t phase;		       /* enum phase */
	uint8_t layer_src;	       /* enum layer_source */
	uint16_t model;		       /* index into side->models */
	uint32_t first, n;	       /* range in side->order */
	uint32_t layer_first, layer_n; /* range in side->layers: always the prologue, the
					  n_layers layers, then the epilogue (either may be
					  empty), so layer_n == n_layers + 2; with several stacks,
					  each stack after the first starts with a prologue of its
					  own (what runs between two stacks) */
	uint32_t n_layers;	       /* repeated layers of all stacks (excluding prologues and
					  epilogue) */
	int64_t dur;		       /* sum of kernel durations, ns */
};

/* The passes of one model. A trace whose pass holds calls of several top-level nn.Modules
 * that have layers (a diffusion pipeline: text encoders, the DiT once per denoising step, the
 * VAE) has one model per such module, and each call is one pass of its model; otherwise the
 * trace has one model, with no name. Comparisons compare the passes of one model. */
struct side_model {
	uint32_t name;			    /* the top-level call's range name id ("nn.Module:
					       SD3Transformer2DModel_0"); 0: no name */
	uint32_t n_passes;		    /* after the incomplete ones are left out */
	uint32_t phase_passes[PHASE_COUNT]; /* passes per phase */
	uint32_t layers_per_pass;	    /* the usual number of repeated layers in a pass */
	int64_t dur;			    /* kernel time of its passes, ns */
};

/* Where the kernel time of the analysed device lies: every kernel and copy of the trace is in
 * a pass, in a partial pass left out, or outside every pass (struct side.cover). */
enum { OUTSIDE_BEFORE, OUTSIDE_BETWEEN, OUTSIDE_AFTER, OUTSIDE_WHERE };

struct side_coverage {
	int64_t total_ns;		       /* every kernel and copy of the trace */
	int64_t pass_ns;		       /* in the passes (any phase, any model) */
	int64_t partial_ns;		       /* in partial passes left out: a pass the recording's
					     start or end cut, or the tail of a step queued
					     before the recording started (kernels without a
					     launch event before the first pass) */
	int64_t outside_ns[OUTSIDE_WHERE];     /* the rest: before the first pass's first kernel,
					     between passes, after the last pass's last one */
	int64_t outside_class_ns[CLASS_COUNT]; /* the rest by class */
	uint32_t outside_class_n[CLASS_COUNT];
	size_t total_kernels, pass_kernels, partial_kernels;
};

/* Share of the kernel time in passes (partial ones included), 0..1; 1 for a trace without
 * kernel time. */
double side_coverage_share(const struct side_coverage *c);
/* The same counting kernels instead of their time. */
double side_coverage_kernels_share(const struct side_coverage *c);
/* The classes of the kernel time outside every pass, most time first (classes with none left
 * out; ties by class), at most max of them into cls; returns how many. */
size_t side_coverage_top(const struct side_coverage *c, uint8_t *cls, size_t max);
/* The coverage in words, for the reports: "98% of the kernel time in passes (97% compared);
 * outside: 2% (Sampling 1.5%, Copy 0.5%)", with "(30% in a partial pass left out; 70%
 * compared)" when the recording cut a pass. compared: the compared passes' share, or < 0 when
 * nothing is compared (--summary). Always terminated. */
void side_coverage_text(const struct side_coverage *c, double compared, char *buf, size_t cap);

/* One side of a comparison: a trace with its classification and structure. Borrows the trace. */
struct side {
	const struct trace *t;
	struct trace_classes classes;
	uint32_t *order; /* kernel indices (into t->kernels) grouped by pass, in execution order */
	size_t n_order;
	struct step *steps;
	size_t n_steps;
	struct layer *layers;
	size_t n_layers;
	struct pass *passes;
	size_t n_passes;
	struct side_model *models; /* at least one when there are passes */
	size_t n_models;
	uint16_t main_model; /* the model with the most kernel time */
	char **stacks;	     /* stack names: [0] is "" */
	size_t n_stacks;
	uint32_t phase_passes[PHASE_COUNT]; /* passes per phase, of the main model */
	uint32_t layers_per_pass;	    /* the usual number of repeated layers in a pass of the
					       main model */
	char pass_source[256];	/* how passes were found, for the user: "gpu_user_annotation
				   'prefill', 'decode'", "repetition of the layer structure", ...,
				   with "; the last pass is incomplete (4 of 8 layers): left out" */
	char layer_source[256]; /* how layers were found: "nn.Module LlamaDecoderLayer",
				   "attention anchors", "period of the op sequence" */
	/* A recording window cut inside a layer (one pass that is the whole trace, layers without
	 * module ranges): it starts inside one when its first numbered layer has under 90 % of
	 * the usual layer's steps, or when its prologue holds an attention step (the first
	 * layer's cut moved past a block's end); it ends inside one when its last layer is that
	 * short. */
	struct side_cut {
		int8_t start, end;   /* 1: cut there */
		int32_t start_layer; /* the layer (index in its stack) or LAYER_PROLOGUE */
		int32_t end_layer;
		uint32_t start_steps, end_steps; /* steps of those layers */
		uint32_t usual_steps;		 /* the median numbered layer's */
	} cut;
	size_t n_unassigned; /* kernels outside every pass (before the first, between, after;
				   n_order + n_unassigned == t->n_kernels) */
	struct side_coverage cover;
};

/* The cut of a recording window (struct side_cut) as words into buf: "starts inside layer 0
 * (104 of 120 steps) and ends inside layer 14 (35 of 120 steps)"; "" when not cut. */
void side_cut_text(const struct side_cut *k, char *buf, size_t cap);

/* The name of model m of side s without the "nn.Module: " prefix ("SD3Transformer2DModel_0"),
 * or "" for the model without a name. Borrowed. */
const char *side_model_name(const struct side *s, size_t m);

struct side_opts {
	const char *pass_regex; /* NULL: automatic */
};

/* Classify and structure trace t (borrowed: it must outlive s). Owned by caller: release with
 * side_clear(). Every kernel of t is in exactly one pass's prologue, layer or epilogue, or is
 * counted in n_unassigned. Linear in the number of kernels, n log n where it sorts.
 * Errors (the message does not name the file; the caller adds it): an invalid --pass regex
 * ("--pass '(': invalid regular expression: ..."); a regex that matches no annotation
 * ("--pass 'x' matches no annotation"), or only annotations without kernels. */
int side_build(struct side *s, const struct trace *t, const struct classifier *c,
	       const struct side_opts *o, struct fd_error *err);
void side_clear(struct side *s);

/* The kernel of step position i within step st (i < st->n). */
static inline const struct trace_kernel *side_step_kernel(const struct side *s,
							  const struct step *st, uint32_t i)
{
	return &s->t->kernels[s->order[st->first + i]];
}

/* The main kernel of step st (its helpers aside): the one to name the step by. */
static inline const struct trace_kernel *side_step_main(const struct side *s, const struct step *st)
{
	return side_step_kernel(s, st, st->main);
}

#endif
