/* structure_int.h — internals shared by the structure module's files: structure.c (side_build,
 * phases), passes.c (passes from annotations), module_map.c (nn.Module ranges), steps.c (logical
 * ops) and layers.c (layer boundaries). Not part of the public API. */
#ifndef FUSEDIFF_STRUCTURE_INT_H
#define FUSEDIFF_STRUCTURE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/structure.h"

#define STRUCT_SOURCE_MAX 256

/* --- train.c -------------------------------------------------------------------------- */

enum { PART_FORWARD, PART_BACKWARD, PART_OPTIMIZER };

/* The part of a training step each kernel of t belongs to (PART_*; see train.c), from its
 * launch (trace_kernel.launch) and its classification (tc);
 * *n_backward gets the number of backward kernels, *node per kernel the backward node's range
 * (index into t->ranges) it was launched in, or UINT32_MAX. Owned by caller: free both with
 * free(). */
uint8_t *train_parts(const struct trace *t, const struct trace_classes *tc, size_t *n_backward,
		     uint32_t **node);

/* --- phases.c ------------------------------------------------------------------------- */

/* The phase of the kernels k[0..n) of a pass whose annotations say none (indices into
 * s->t->kernels, classified in s->classes): decode when a decode-only attention kernel runs or
 * an attention operator (or eager attention's softmax) has one query token per sequence;
 * prefill when one has several; else unknown. */
enum phase phase_from_kernels(const struct side *s, const uint32_t *k, size_t n);

/* --- trim.c --------------------------------------------------------------------------- */

/* A pass at either end of the trace with fewer layers than the passes of its model between
 * them was cut by the start or the end of the recording: it is left out (its kernels become
 * unassigned, marked COVER_PARTIAL in where[], per trace kernel) and s->pass_source says so. */
void passes_drop_incomplete(struct side *s, uint8_t *where);

/* --- coverage.c ----------------------------------------------------------------------- */

/* Per trace kernel, while the side is built: where it lies (COVER_*). */
enum { COVER_OUTSIDE, COVER_PASS, COVER_PARTIAL };

/* Fill s->cover from the finished passes (s->order) and where[] (per trace kernel:
 * COVER_PARTIAL for the kernels of the partial passes left out; the others are set here). */
void coverage_build(struct side *s, uint8_t *where);

/* --- passes.c ------------------------------------------------------------------------- */

struct plan_pass {
	uint32_t name;	/* annotation name id */
	int8_t phase;	/* enum phase from the annotation names, -1 when they do not say */
	uint32_t first; /* index of its earliest kernel (for ordering) */
};

/* Passes found from annotations: which kernels belong to which pass. */
struct pass_plan {
	int32_t *pass_of; /* per trace kernel: pass index, or -1 (outside every pass) */
	struct plan_pass *passes;
	size_t n_passes;
	char source[STRUCT_SOURCE_MAX]; /* "gpu_user_annotation 'prefill', 'decode'" */
};

/* Find the passes of t from its annotation ranges (regex: only annotations whose name matches
 * the POSIX extended regular expression; NULL: automatic), by each kernel's launch
 * (trace_kernel.launch); part: per kernel, its
 * PART_* (train_parts()). The smallest annotation that holds both forward and backward
 * kernels is one training step: one pass of phase train. n_passes is 0 when no
 * annotation marks a pass. Owned by caller: release with pass_plan_clear().
 * Errors: an invalid regex; a regex that matches no annotation or only annotations without
 * kernels. */
int passes_from_annotations(const struct trace *t, const uint8_t *part, const char *regex,
			    struct pass_plan *out, struct fd_error *err);
void pass_plan_clear(struct pass_plan *p);

/* Kernels that no pass holds (pass_of[k] < 0) but that ran on the GPU inside a pass's window
 * (its first kernel's start to its last kernel's end) belong to that pass, when eligible[k]:
 * collectives launched from a communication thread, work of autograd's or a data-parallel
 * reducer's threads, kernels without a launch event. Where windows overlap, the pass that
 * started last takes it. Passes must be numbered in the order of their first kernel. */
void passes_place_by_window(const struct trace *t, int32_t *pass_of, size_t n_passes,
			    const uint8_t *eligible);
/* v[0..n) sorted and without repeats; returns the new n. */
size_t passes_sort_unique(int64_t *v, size_t n);
/* Whether x is in v[0..n) (sorted by passes_sort_unique()). */
int passes_has_i64(const int64_t *v, size_t n, int64_t x);

struct module_map;

/* --- calls.c -------------------------------------------------------------------------- */

/* Passes from nn.Module calls (see calls.c): the calls of the modules whose name ("Net_0") or
 * class ("Net") matches regex, or without one, the calls of the model's top-level module when
 * it is called at least twice. part: as for passes_from_annotations(), NULL in inference; in
 * training each pass is a step. Returns 0 with out->n_passes == 0 when no call qualifies (the
 * trace has no module ranges, or the regex matches none); -1 with a message in err when the
 * calls the regex matches launched no kernel. Owned by caller: release with pass_plan_clear(). */
int passes_from_calls(const struct trace *t, const struct module_map *m, const uint8_t *part,
		      const char *regex, struct pass_plan *out, struct fd_error *err);

/* The phase an annotation name states ("prefill", "step[DECODE bs=16]",
 * "execute_16_context_0(...)_generation_16(...)" = decode), or -1 when it says none. */
int phase_of_annotation(const char *name);

/* --- module_map.c --------------------------------------------------------------------- */

/* A layer stack (module_map.c): the calls of one layer-like class with parents of one class under
 * one grandparent. */
struct module_stack {
	const char *cls; /* "CLIPEncoderLayer" (borrowed from the trace's strings) */
	size_t cls_len;
	uint32_t parent_range, grand_range; /* the first call's parent and grandparent (indices
					       into t->ranges), UINT32_MAX when none */
};

struct call_ival {
	int64_t tid, start, end;
	int32_t call;
};

/* What the nn.Module ranges (recorded with Python stacks) say about each kernel, through its
 * launch event. Call ids number the calls in time order; -1: none. */
struct module_map {
	int32_t *layer;	      /* per trace kernel: the layer call (of any stack) it was launched
				 in; NULL when the trace has no layer stack */
	uint16_t *call_stack; /* per layer call: its stack (index into stacks) */
	uint32_t *call_range; /* per layer call: its range (index into t->ranges) */
	struct call_ival *call_ivals; /* the layer calls sorted by thread and start */
	size_t n_calls;
	struct module_stack *stacks; /* in the order of their first call */
	size_t n_stacks;
	int32_t *norm;	      /* the norm-module call (...RMSNorm_N, ...LayerNorm_N); NULL when
				 the trace has no norm calls */
	uint8_t *norm_is_rms; /* per norm call: an RMSNorm (else a LayerNorm) */
	size_t n_norm;
	int32_t *top;	      /* per trace kernel: the outermost module call around its launch
				 (index into t->ranges), -1; NULL when the trace has no module
				 ranges */
	char layer_class[64]; /* the first stack's class, "LlamaDecoderLayer"; "" when none */
};

/* Map kernels to module calls (by their launches). Always succeeds
 * (no arrays when the trace has no module ranges). Owned by caller: release with
 * module_map_clear(). */
void module_map_build(const struct trace *t, struct module_map *m);
void module_map_clear(struct module_map *m);
/* The layer call whose CPU range holds time ts on thread tid, or -1. *hint: where the previous
 * search ended (start with 0). */
int32_t module_layer_at(const struct module_map *m, int64_t tid, int64_t ts, size_t *hint);
/* The class of module range `range` ("CLIPTextTransformer" of "nn.Module:
 * CLIPTextTransformer_0") into *cls (borrowed, not terminated); returns its length, 0 when the
 * range is not a module call. */
size_t module_class_name(const struct trace *t, uint32_t range, const char **cls);

/* --- stack_names.c --------------------------------------------------------------------- */

#define STACK_NAME_MAX 48

/* Names for the n (at most 8 tell apart) module stacks ids[] (indices into m->stacks) that run
 * in one pass: "vision", "text" (see stack_names.c). */
void stack_labels(const struct trace *t, const struct module_map *m, const uint16_t *ids, size_t n,
		  char (*out)[STACK_NAME_MAX]);

/* --- steps.c -------------------------------------------------------------------------- */

/* The elementary eager operations the step rules look for (kernel_info.prim). */
enum prim_code {
	PRIM_NONE, /* no prim, or one the rules do not use */
	PRIM_CAST,
	PRIM_COPY,
	PRIM_POW,
	PRIM_MEAN,
	PRIM_ADD,
	PRIM_RSQRT,
	PRIM_MUL,
	PRIM_NEG,
	PRIM_CAT,
	PRIM_COS,
	PRIM_SIN,
	PRIM_IM2COL,
	PRIM_COL2IM,
};

struct step_input {
	const struct trace *t;
	const struct trace_classes *tc;
	const struct module_map *mods; /* may be NULL */
	const uint8_t *prim;	       /* per tc->infos[i]: enum prim_code (steps_prim_codes()) */
};

/* The prim_code of every distinct classification of tc, so that the step rules compare small
 * numbers, not strings, per kernel. Owned by caller: free with free(). */
uint8_t *steps_prim_codes(const struct trace_classes *tc);

/* Group the kernels seq[0..n) (one stream of one pass, in execution order) into steps.
 * Writes at most n steps to out, with first relative to seq; returns how many. */
size_t steps_group(const struct step_input *in, const uint32_t *seq, size_t n, struct step *out);

/* --- merge.c -------------------------------------------------------------------------- */

/* Scratch of merge_streams(), sized for the largest pass (stream_merge_init()). */
struct stream_merge {
	uint32_t *seq;		      /* kernels regrouped by stream */
	struct step *tmp;	      /* steps of all streams, first relative to seq */
	struct sref *refs;	      /* merge order */
	struct stream_count *streams; /* the pass's streams, grown as needed */
	size_t cap_streams;
};

/* Append the kernels k[0..n) of one pass (time order) to s->order, grouped into steps
 * appended to s->steps: per stream (steps_group()), then merged step by step, in launch order
 * when every step has its launch event (the order the program issued the work in: a
 * side-stream kernel that prepares the next step is not glued into the layer the GPU ran it
 * beside), else by GPU start. */
void merge_streams(struct stream_merge *m, const struct step_input *in, struct side *s,
		   const uint32_t *k, size_t n);
/* Room for passes of up to n kernels. Free with stream_merge_free(). */
void stream_merge_init(struct stream_merge *m, size_t n);
void stream_merge_free(struct stream_merge *m);

/* --- layers.c ------------------------------------------------------------------------- */

/* Layer boundaries of one pass, in step indices relative to the pass's first step:
 * prologue [0, cut[0]), layer i [cut[i], cut[i+1]), last layer [cut[n-1], epi),
 * epilogue [epi, n_steps). With no layers (n == 0) the prologue is [0, epi) and epi is
 * n_steps. */
struct layer_cuts {
	uint32_t *cut;
	uint32_t *end;	 /* layer i is [cut[i], end[i]): end[i] == cut[i + 1] (end[n - 1] ==
			     epi) unless the next layer is of another stack: then the steps
			     [end[i], cut[i + 1]) run between the two stacks */
	uint16_t *stack; /* per layer: its module stack (module_map.stacks), 0 without modules */
	uint32_t n;
	uint32_t epi;
	uint8_t how; /* enum layer_source */
};

struct layer_input {
	const struct step *steps; /* the pass's steps */
	size_t n;
	const int32_t *module_layer; /* per step: layer call, -1 none; NULL: no modules */
	const uint16_t *call_stack;  /* per layer call: its stack (with module_layer) */
	const uint32_t *main_name;   /* per step: name id of its main kernel */
};

/* Find the layers of one pass. Owned by caller: release with layer_cuts_clear(). */
void layers_find(const struct layer_input *in, struct layer_cuts *out);
void layer_cuts_clear(struct layer_cuts *c);

/* Where new passes start in a trace without pass annotations, found by the repetition of the
 * layer structure: a stretch between two anchors (attention steps, else the kernel that repeats
 * with mostly identical stretches between, softmax preferred) that holds more norms than the
 * layers do holds the end of one pass and the start of the next; the new pass starts at its
 * embedding lookup, else at the step with the longest GPU idle time before it (gap_before,
 * per step) in that stretch. Before the first anchor, a stretch with more norms than a layer
 * has before its anchor and an embedding lookup after a norm is the end of a pass the recording
 * started inside and the start of the next: a new pass starts at that embedding.
 * Writes the step indices into starts (room for in->n) and returns how many. */
size_t layers_pass_starts(const struct layer_input *in, const int64_t *gap_before,
			  uint32_t *starts);

/* Step predicates the layer rules use (also used by the pass-by-structure fallback). */
int step_is_norm(const struct step *s);
int step_is_mlp(const struct step *s);
int step_is_residual_add(const struct step *s);

/* --- pass.c, parts.c: building the passes of a side ------------------------------------- */

#define MAX_STACKS_PER_PASS 8

struct build {
	struct side *s;
	struct step_input in;
	const struct module_map *mods;
	size_t cap_layers, cap_passes;
	struct stream_merge mg; /* scratch of merge_streams() */
	/* scratch, sized for the largest pass */
	int32_t *mod_layer; /* per step */
	uint32_t *main_name;
	/* passes by model calls (build_model_passes) */
	int32_t *range_seg;	/* per trace range: its segment in the pass being split, -1 */
	uint32_t *seg;		/* per kernel of the pass: its segment */
	uint32_t *segk;		/* kernels of one segment */
	uint64_t *model_stacks; /* per model: the module stacks (the first 64) of its layers */
	const uint8_t *part;	/* per kernel: PART_* (train.c); NULL: no backward kernel */
	int32_t *grad_of; /* per kernel: the forward layer call a backward kernel is the gradient
			     of, -1; NULL: none known */
	size_t n_model_stacks;
};

/* The side stack named name: found, or added. */
uint16_t side_stack(struct side *s, const char *name);
/* Whether the kernels k[0..n) of a pass (phase: what its annotation said, -1 nothing) are a
 * training step: forward and backward kernels (phase train, or no phase said). */
int phase_is_train(const struct build *b, const uint32_t *k, size_t n, int phase);
/* Structure the kernels k[0..n) (time order) as one pass of model `model` (pass.c). */
void build_pass(struct build *b, const uint32_t *k, size_t n, uint32_t name, int phase,
		uint16_t model);
/* The pass just built (from the marks o0, st0, l0, p0: order, steps, layers and passes before
 * it) split where the layer structure shows the end of one forward pass and the start of the
 * next, each part built as a pass, when each part but the first and last shows three layers
 * or more; returns the number of parts, 0 when it stays one pass (parts.c). */
size_t split_pass(struct build *b, size_t o0, size_t st0, size_t l0, size_t p0, uint32_t name,
		  uint16_t model);
/* The model named `name` (a range name id, 0: none): found, or added. */
uint16_t side_model(struct side *s, uint32_t name);
/* The kernels k[0..n) of a pass as one pass per call of a top-level module with structure,
 * when they hold two such calls or more: returns 1; else 0 and nothing is built (parts.c). */
int build_model_passes(struct build *b, const uint32_t *k, size_t n, int phase);

#endif
