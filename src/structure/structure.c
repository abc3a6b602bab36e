/* structure.c — passes, phases, layers and steps of one trace (see structure.h).
 *
 * side_build: find the passes (passes.c), classify the kernels, map nn.Module calls
 * (modules.c), then per pass: merge its streams into one execution order, group kernels into
 * steps (steps.c) and cut the steps into prologue, layers and epilogue (layers.c); finally
 * leave out a pass the recording cut at either end. Everything is linear in the number of
 * kernels, or n log n where it sorts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fusediff/bigmem.h"
#include "fusediff/text.h"
#include "structure_int.h"

#define MAX_STACKS_PER_PASS 8

/* --- one pass ------------------------------------------------------------------------------ */

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

static void push_layer(struct build *b, int32_t index, uint16_t stack, uint32_t first, uint32_t n)
{
	struct side *s = b->s;
	struct layer *l;

	VEC_RESERVE(s->layers, s->n_layers, b->cap_layers);
	l = &s->layers[s->n_layers++];
	l->index = index;
	l->stack = stack;
	l->step_first = first;
	l->step_n = n;
	l->dur = 0;
	for (uint32_t i = first; i < first + n; i++)
		l->dur += s->steps[i].dur;
}

/* The side stack named name: found, or added. */
static uint16_t side_stack(struct side *s, const char *name)
{
	for (size_t i = 0; i < s->n_stacks; i++)
		if (strcmp(s->stacks[i], name) == 0)
			return (uint16_t)i;
	if (s->n_stacks >= UINT16_MAX)
		return 0;
	s->stacks = xreallocarray(s->stacks, s->n_stacks + 1, sizeof *s->stacks);
	s->stacks[s->n_stacks] = xstrdup(name);
	return (uint16_t)s->n_stacks++;
}

/* The module stacks of a pass's layers (ids, in order of appearance, at most
 * MAX_STACKS_PER_PASS: later ones count as the last) and their side stacks (sid): 0 when the
 * pass has one stack, else a stack named after what tells them apart. Returns how many. */
static size_t pass_stacks(struct build *b, const struct layer_cuts *cuts, uint16_t *ids,
			  uint16_t *sid)
{
	size_t n = 0;

	for (uint32_t i = 0; i < cuts->n; i++) {
		size_t j;

		for (j = 0; j < n && ids[j] != cuts->stack[i]; j++)
			;
		if (j == n && n < MAX_STACKS_PER_PASS)
			ids[n++] = cuts->stack[i];
	}
	if (n < 2) {
		sid[0] = 0;
		return n;
	}
	{
		char names[MAX_STACKS_PER_PASS][STACK_NAME_MAX];

		stack_labels(b->s->t, b->mods, ids, n, names);
		for (size_t j = 0; j < n; j++)
			sid[j] = side_stack(b->s, names[j]);
	}
	return n;
}

/* The training-step part of step st: its main kernel's. */
static int step_part(const struct build *b, const struct step *st)
{
	return b->part[b->s->order[st->first + st->main]];
}

/* Whether the kernels k[0..n) of a pass (phase: what its annotation said, -1 nothing) are a
 * training step: forward and backward kernels (phase train, or no phase said). */
static int phase_is_train(const struct build *b, const uint32_t *k, size_t n, int phase)
{
	size_t bwd = 0;

	if (phase >= 0 && phase != PHASE_TRAIN)
		return 0;
	for (size_t i = 0; i < n; i++)
		bwd += b->part[k[i]] == PART_BACKWARD;
	return bwd > 0 && bwd < n;
}

struct call_layer {
	int32_t call, layer;
};

static int cmp_call_layer(const void *pa, const void *pb)
{
	const struct call_layer *x = pa, *y = pb;

	return CMP(x->call, y->call);
}

/* The forward layer (index into cuts) of the layer call a backward step computes the gradient
 * of, from the calls of the forward layers' steps (map, sorted by call); -1 when unknown. */
static int32_t grad_layer(const struct build *b, const struct step *st,
			  const struct call_layer *map, size_t n_map)
{
	for (uint32_t i = 0; i < st->n; i++) {
		int32_t call = b->grad_of[b->s->order[st->first + i]];
		size_t lo = 0, hi = n_map;

		if (call < 0)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (map[mid].call < call)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n_map && map[lo].call == call)
			return map[lo].layer;
	}
	return -1;
}

/* A training step's backward part, steps [fwd_end, bwd_end) of the pass from step0: the
 * gradient of each forward layer is a backward layer of the same index (they run in reverse
 * order), when autograd's sequence numbers lead from the backward kernels to the forward
 * layer calls; what runs before the first (the loss's gradient) is the backward prologue.
 * Without that, the backward part is one. */
static void push_backward(struct build *b, const struct layer_cuts *cuts, size_t step0,
			  size_t fwd_end, size_t bwd_end)
{
	struct side *s = b->s;
	uint16_t bw = side_stack(s, "backward");
	struct call_layer *map = NULL;
	size_t n_map = 0, n_seg = 0;
	uint32_t *seg_at = NULL;
	int32_t *seg_idx = NULL, cur = -1;

	if (b->grad_of && cuts->how == LAYER_SRC_MODULE && cuts->n) {
		map = xmalloc(fwd_end * sizeof *map + sizeof *map);
		for (uint32_t i = 0; i < cuts->n; i++)
			for (uint32_t j = cuts->cut[i]; j < cuts->end[i]; j++)
				if (b->mod_layer[j] >= 0)
					map[n_map++] =
						(struct call_layer){ b->mod_layer[j], (int32_t)i };
		qsort(map, n_map, sizeof *map, cmp_call_layer);
		seg_at = xmalloc((bwd_end - fwd_end + 1) * sizeof *seg_at);
		seg_idx = xmalloc((bwd_end - fwd_end + 1) * sizeof *seg_idx);
		for (size_t j = fwd_end; j < bwd_end; j++) {
			int32_t idx = grad_layer(b, &s->steps[step0 + j], map, n_map);

			/* a new backward layer where the gradient reaches an earlier layer */
			if (idx >= 0 && (cur < 0 || idx < cur)) {
				seg_at[n_seg] = (uint32_t)j;
				seg_idx[n_seg++] = idx;
				cur = idx;
			}
		}
	}
	if (!n_seg) {
		push_layer(b, LAYER_PROLOGUE, bw, (uint32_t)(step0 + fwd_end),
			   (uint32_t)(bwd_end - fwd_end));
	} else {
		push_layer(b, LAYER_PROLOGUE, bw, (uint32_t)(step0 + fwd_end),
			   seg_at[0] - (uint32_t)fwd_end);
		for (size_t i = 0; i < n_seg; i++) {
			uint32_t end = i + 1 < n_seg ? seg_at[i + 1] : (uint32_t)bwd_end;

			push_layer(b, seg_idx[i], bw, (uint32_t)step0 + seg_at[i], end - seg_at[i]);
		}
	}
	free(map);
	free(seg_at);
	free(seg_idx);
}

/* Per step of the pass from step0 on: its main kernel's name and its layer call
 * (b->main_name, b->mod_layer, from step0). */
static void step_marks(struct build *b, size_t step0)
{
	struct side *s = b->s;

	for (size_t j = step0; j < s->n_steps; j++) {
		const struct step *st = &s->steps[j];

		b->main_name[j - step0] = s->t->kernels[s->order[st->first + st->main]].name;
		b->mod_layer[j - step0] = -1;
		if (b->mods->layer_class[0])
			for (uint32_t i = 0; i < st->n; i++)
				if (b->mods->layer[s->order[st->first + i]] >= 0) {
					b->mod_layer[j - step0] =
						b->mods->layer[s->order[st->first + i]];
					break;
				}
	}
}

/* A training step's parts, in steps from step0: forward [0, *fwd_end), backward
 * [*fwd_end, *bwd_end), optimizer after; both are the pass's step count when it is no
 * training step. */
static void train_bounds(const struct build *b, size_t step0, size_t n_steps, size_t *fwd_end,
			 size_t *bwd_end)
{
	const struct side *s = b->s;

	*fwd_end = *bwd_end = n_steps;
	for (size_t j = 0; j < n_steps && *fwd_end == n_steps; j++)
		if (step_part(b, &s->steps[step0 + j]) == PART_BACKWARD)
			*fwd_end = j;
	*bwd_end = *fwd_end;
	while (*bwd_end < n_steps && step_part(b, &s->steps[step0 + *bwd_end]) != PART_OPTIMIZER)
		(*bwd_end)++;
}

/* The module stacks the layers of a pass of model came from (for the layer source). */
static void note_model_stacks(struct build *b, uint16_t model, const struct layer_cuts *cuts)
{
	if (cuts->how != LAYER_SRC_MODULE)
		return;
	if (model >= b->n_model_stacks) {
		b->model_stacks =
			xreallocarray(b->model_stacks, (size_t)model + 1, sizeof *b->model_stacks);
		memset(b->model_stacks + b->n_model_stacks, 0,
		       ((size_t)model + 1 - b->n_model_stacks) * sizeof *b->model_stacks);
		b->n_model_stacks = (size_t)model + 1;
	}
	for (uint32_t i = 0; i < cuts->n; i++)
		if (cuts->stack[i] < 64)
			b->model_stacks[model] |= UINT64_C(1) << cuts->stack[i];
}

/* The layers of the pass whose steps start at step0: prologue, each stack's layers (with what
 * runs between two stacks), epilogue, and a training step's backward and optimizer parts. */
static void push_layers(struct build *b, const struct layer_cuts *cuts, size_t step0,
			size_t fwd_end, size_t bwd_end, size_t n_steps, int train)
{
	struct side *s = b->s;
	uint32_t pro_end = cuts->n ? cuts->cut[0] : cuts->epi;
	uint16_t ids[MAX_STACKS_PER_PASS], sid[MAX_STACKS_PER_PASS];
	int32_t next[MAX_STACKS_PER_PASS] = { 0 };
	size_t n_ids = pass_stacks(b, cuts, ids, sid);

	push_layer(b, LAYER_PROLOGUE, 0, (uint32_t)step0, pro_end);
	for (uint32_t i = 0; i < cuts->n; i++) {
		size_t j = 0;

		while (j + 1 < n_ids && ids[j] != cuts->stack[i])
			j++;
		if (i > 0 && cuts->stack[i] != cuts->stack[i - 1])
			push_layer(b, LAYER_PROLOGUE, sid[j], (uint32_t)step0 + cuts->end[i - 1],
				   cuts->cut[i] - cuts->end[i - 1]);
		push_layer(b, next[j]++, sid[j], (uint32_t)step0 + cuts->cut[i],
			   cuts->end[i] - cuts->cut[i]);
	}
	push_layer(b, LAYER_EPILOGUE, 0, (uint32_t)step0 + cuts->epi,
		   (uint32_t)fwd_end - cuts->epi);
	if (train) {
		push_backward(b, cuts, step0, fwd_end, bwd_end);
		push_layer(b, LAYER_PROLOGUE, side_stack(s, "optimizer"),
			   (uint32_t)(step0 + bwd_end), (uint32_t)(n_steps - bwd_end));
	}
}

/* Structure the kernels k[0..n) (time order) as one pass of model `model`. */
static void build_pass(struct build *b, const uint32_t *k, size_t n, uint32_t name, int phase,
		       uint16_t model)
{
	struct side *s = b->s;
	const struct trace *t = s->t;
	size_t step0 = s->n_steps, order0 = s->n_order, n_steps, fwd_end, bwd_end;
	struct pass *p;
	struct layer_cuts cuts;
	struct layer_input li;

	VEC_RESERVE(s->passes, s->n_passes, b->cap_passes);
	p = &s->passes[s->n_passes++];
	merge_streams(&b->mg, &b->in, s, k, n);
	step_marks(b, step0);
	/* a training step: its layers are the forward part's; backward and optimizer follow as
	 * parts of their own */
	n_steps = s->n_steps - step0;
	fwd_end = bwd_end = n_steps;
	if (b->part && phase_is_train(b, k, n, phase)) {
		phase = PHASE_TRAIN;
		train_bounds(b, step0, n_steps, &fwd_end, &bwd_end);
	}
	li = (struct layer_input){ s->steps + step0, fwd_end,
				   b->mods->layer_class[0] ? b->mod_layer : NULL,
				   b->mods->call_stack, b->main_name };
	layers_find(&li, &cuts);
	note_model_stacks(b, model, &cuts);

	p->name = name;
	p->model = model;
	p->layer_src = cuts.how;
	p->first = (uint32_t)order0;
	p->n = (uint32_t)(s->n_order - order0);
	p->layer_first = (uint32_t)s->n_layers;
	p->n_layers = cuts.n;
	p->dur = 0;
	for (size_t i = order0; i < s->n_order; i++)
		p->dur += t->kernels[s->order[i]].dur;
	push_layers(b, &cuts, step0, fwd_end, bwd_end, n_steps, phase == PHASE_TRAIN);
	p->layer_n = (uint32_t)s->n_layers - p->layer_first;
	p->phase =
		(uint8_t)(phase >= 0 ? phase : (int)phase_from_kernels(s, s->order + order0, p->n));
	layer_cuts_clear(&cuts);
}

/* The pass just built (from the marks: order, steps, layers and passes before it) may hold
 * several forward passes: a trace without pass annotations, or one ProfilerStep#N around a
 * whole generate(). Split it where the layer structure shows the end of one forward pass and
 * the start of the next (layers_pass_starts), and build each part as a pass.
 * Returns the number of parts, 0 when it stays one pass. */
static size_t split_pass(struct build *b, size_t o0, size_t st0, size_t l0, size_t p0,
			 uint32_t name, uint16_t model)
{
	struct side *s = b->s;
	const struct trace *t = s->t;
	size_t n_steps = s->n_steps - st0, n_starts, n_parts;
	int64_t *gap = xmalloc((n_steps ? n_steps : 1) * sizeof *gap), prev_end = INT64_MIN;
	uint32_t *starts = xmalloc((n_steps ? n_steps : 1) * sizeof *starts), *kern, *off;
	struct layer_input li;

	for (size_t j = 0; j < n_steps; j++) {
		const struct step *st = &s->steps[st0 + j];
		int64_t first = INT64_MAX, end = INT64_MIN;

		for (uint32_t i = 0; i < st->n; i++) {
			const struct trace_kernel *k = &t->kernels[s->order[st->first + i]];

			first = k->start < first ? k->start : first;
			end = k->start + k->dur > end ? k->start + k->dur : end;
		}
		gap[j] = prev_end == INT64_MIN || first < prev_end ? 0 : first - prev_end;
		prev_end = end > prev_end ? end : prev_end;
		b->main_name[j] = t->kernels[s->order[st->first + st->main]].name;
	}
	li = (struct layer_input){ s->steps + st0, n_steps, NULL, NULL, b->main_name };
	n_starts = n_steps ? layers_pass_starts(&li, gap, starts) : 0;
	free(gap);
	if (n_starts == 0) {
		free(starts);
		return 0;
	}
	/* kernel offsets of the parts, then rebuild */
	n_parts = n_starts + 1;
	off = xmalloc((n_parts + 1) * sizeof *off);
	off[0] = 0;
	for (size_t k = 0; k < n_starts; k++)
		off[k + 1] = s->steps[st0 + starts[k]].first - (uint32_t)o0;
	off[n_parts] = (uint32_t)(s->n_order - o0);
	kern = xmalloc((off[n_parts] ? off[n_parts] : 1) * sizeof *kern);
	memcpy(kern, s->order + o0, off[n_parts] * sizeof *kern);
	s->n_order = o0;
	s->n_steps = st0;
	s->n_layers = l0;
	s->n_passes = p0;
	for (size_t k = 0; k < n_parts; k++)
		if (off[k + 1] > off[k])
			build_pass(b, kern + off[k], off[k + 1] - off[k], name, -1, model);
	/* The parts are passes only when they show the structure that cut them: each (the
	 * first and the last aside, which the recording may cut) with at least three layers.
	 * Else the stretch stays one pass: a window of a model without repeated passes is not
	 * cut into slivers of two layers. */
	for (size_t p = p0 + 1; p + 1 < s->n_passes; p++)
		if (s->passes[p].n_layers < 3) {
			s->n_order = o0;
			s->n_steps = st0;
			s->n_layers = l0;
			s->n_passes = p0;
			build_pass(b, kern, off[n_parts], name, -1, model);
			n_parts = 0;
			break;
		}
	free(kern);
	free(off);
	free(starts);
	return n_parts;
}

/* --- passes by model calls -------------------------------------------------------------- */

/* The model named `name` (a range name id, 0: none): found, or added. */
static uint16_t side_model(struct side *s, uint32_t name)
{
	for (size_t i = 0; i < s->n_models; i++)
		if (s->models[i].name == name)
			return (uint16_t)i;
	if (s->n_models >= UINT16_MAX)
		return 0;
	s->models = xreallocarray(s->models, s->n_models + 1, sizeof *s->models);
	memset(&s->models[s->n_models], 0, sizeof *s->models);
	s->models[s->n_models].name = name;
	return (uint16_t)s->n_models++;
}

/* A top-level module call is a pass of its own when it has structure: a layer call inside it
 * (not itself a layer call), or two attention kernels (a compiled DiT has no module calls inside). When the kernels
 * k[0..n) of a pass hold two such calls or more, each becomes a pass of the model it calls
 * (kernels outside them go with the call before them, or the first one: a scheduler step
 * between two DiT calls, a sampler after the decoder) and this returns 1; else 0 and nothing
 * is built. */
static int build_model_passes(struct build *b, const uint32_t *k, size_t n, int phase)
{
	const struct trace *t = b->s->t;
	const struct module_map *m = b->mods;
	uint32_t *range_of = NULL, n_seg = 0, cap = 0;
	uint16_t *attn = NULL;
	int32_t cur = -1;

	for (size_t i = 0; i < n; i++) {
		int32_t top = m->top[k[i]];
		const struct kernel_info *ki;

		if (top < 0)
			continue;
		if (b->range_seg[top] == -1) {
			if (n_seg >= cap) {
				cap = cap ? cap * 2 : 8;
				range_of = xreallocarray(range_of, cap, sizeof *range_of);
				attn = xreallocarray(attn, cap, sizeof *attn);
			}
			range_of[n_seg] = (uint32_t)top;
			attn[n_seg] = 0;
			b->range_seg[top] = (int32_t)n_seg++;
		}
		ki = trace_classes_get(&b->s->classes, k[i]);
		if (ki->cls == CLASS_ATTENTION && !ki->aux && attn[b->range_seg[top]] < 2)
			attn[b->range_seg[top]]++;
		if (m->layer && m->layer[k[i]] >= 0 &&
		    m->call_range[m->layer[k[i]]] != (uint32_t)top)
			attn[b->range_seg[top]] = 2;
	}
	/* calls without structure are not passes: -2 */
	{
		uint32_t structured = 0;

		for (uint32_t j = 0; j < n_seg; j++)
			structured += attn[j] >= 2;
		if (structured < 2) {
			for (uint32_t j = 0; j < n_seg; j++)
				b->range_seg[range_of[j]] = -1;
			free(range_of);
			free(attn);
			return 0;
		}
		structured = 0;
		for (uint32_t j = 0; j < n_seg; j++) {
			b->range_seg[range_of[j]] = attn[j] >= 2 ? (int32_t)structured : -2;
			if (attn[j] >= 2)
				range_of[structured++] = range_of[j];
		}
		n_seg = structured;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t top = m->top[k[i]], sg = top >= 0 ? b->range_seg[top] : -1;

		if (sg >= 0)
			cur = sg;
		b->seg[i] = (uint32_t)cur; /* UINT32_MAX before the first call: fixed below */
	}
	for (size_t i = 0; i < n && b->seg[i] == UINT32_MAX; i++)
		b->seg[i] = 0;
	{
		/* the segments' kernels, each in time order (a counting sort) */
		size_t *at = xcalloc(n_seg + 1, sizeof *at),
		       *fill = xmalloc((n_seg + 1) * sizeof *fill);

		for (size_t i = 0; i < n; i++)
			at[b->seg[i] + 1]++;
		for (uint32_t j = 0; j < n_seg; j++)
			at[j + 1] += at[j];
		memcpy(fill, at, (n_seg + 1) * sizeof *fill);
		for (size_t i = 0; i < n; i++)
			b->segk[fill[b->seg[i]]++] = k[i];
		for (uint32_t j = 0; j < n_seg; j++)
			if (at[j + 1] > at[j])
				build_pass(b, b->segk + at[j], at[j + 1] - at[j],
					   t->ranges[range_of[j]].name, phase,
					   side_model(b->s, t->ranges[range_of[j]].name));
		free(at);
		free(fill);
	}
	for (size_t i = 0; i < n; i++) {
		int32_t top = m->top[k[i]];

		if (top >= 0)
			b->range_seg[top] = -1;
	}
	free(range_of);
	free(attn);
	return 1;
}

/* --- the side --------------------------------------------------------------------------- */

static const char *layer_source_text(enum layer_source how)
{
	switch (how) {
	case LAYER_SRC_MODULE: return "nn.Module";
	case LAYER_SRC_ANCHOR: return "attention anchors";
	case LAYER_SRC_PERIOD: return "period of the op sequence";
	default: return "no repeated layers found";
	}
}

static int cmp_u32(const void *pa, const void *pb)
{
	return CMP(*(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* The most common value of v[0..n) (ties: the larger); v is sorted in place. */
static uint32_t mode_u32(uint32_t *v, size_t n)
{
	uint32_t best = 0, best_count = 0;

	if (n)
		qsort(v, n, sizeof *v, cmp_u32);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i >= best_count) { /* ascending: ties go to more layers */
			best_count = (uint32_t)(j - i);
			best = v[i];
		}
	}
	return best;
}

/* Per model: passes, passes per phase, the most common number of layers per pass, kernel
 * time; the main model (the most kernel time) and its figures for the side; the most common
 * source of layers of the main model's passes. */
static void summarize(struct side *s, const struct build *b, const struct module_map *mods)
{
	uint32_t *n = xmalloc((s->n_passes ? s->n_passes : 1) * sizeof *n);
	uint32_t src_count[4] = { 0 };
	int src = LAYER_SRC_NONE;

	if (s->n_models == 0)
		side_model(s, 0);
	for (size_t m = 0; m < s->n_models; m++) {
		struct side_model *md = &s->models[m];
		size_t k = 0;

		md->n_passes = 0;
		md->dur = 0;
		memset(md->phase_passes, 0, sizeof md->phase_passes);
		for (size_t i = 0; i < s->n_passes; i++) {
			if (s->passes[i].model != m)
				continue;
			md->n_passes++;
			md->dur += s->passes[i].dur;
			md->phase_passes[s->passes[i].phase]++;
			n[k++] = s->passes[i].n_layers;
		}
		md->layers_per_pass = mode_u32(n, k);
		if (md->dur > s->models[s->main_model].dur)
			s->main_model = (uint16_t)m;
	}
	free(n);
	s->layers_per_pass = s->models[s->main_model].layers_per_pass;
	memcpy(s->phase_passes, s->models[s->main_model].phase_passes, sizeof s->phase_passes);
	for (size_t i = 0; i < s->n_passes; i++)
		if (s->passes[i].model == s->main_model)
			src_count[s->passes[i].layer_src]++;
	for (int k = LAYER_SRC_MODULE; k <= LAYER_SRC_PERIOD; k++)
		if (src_count[k] > (src == LAYER_SRC_NONE ? 0 : src_count[src]))
			src = k;
	if (src == LAYER_SRC_MODULE) {
		uint64_t used =
			s->main_model < b->n_model_stacks ? b->model_stacks[s->main_model] : 1;
		size_t len = (size_t)snprintf(s->layer_source, sizeof s->layer_source, "nn.Module");

		for (size_t i = 0, k = 0; i < mods->n_stacks && i < 64; i++) {
			const struct module_stack *st = &mods->stacks[i];
			size_t j;

			for (j = 0; j < i; j++) /* each class once */
				if ((used >> j & 1) && mods->stacks[j].cls_len == st->cls_len &&
				    memcmp(mods->stacks[j].cls, st->cls, st->cls_len) == 0)
					break;
			if (j < i)
				continue;
			if ((used >> i & 1) && len < sizeof s->layer_source)
				len += (size_t)snprintf(
					s->layer_source + len, sizeof s->layer_source - len,
					"%s%.*s", k++ ? ", " : " ", (int)st->cls_len, st->cls);
		}
	} else
		snprintf(s->layer_source, sizeof s->layer_source, "%s", layer_source_text(src));
}

/* Whether every pass of plan is a ProfilerStep#N range: the profiler's own steps, the most
 * trusted unit whatever they cover. */
static int plan_is_profiler_step(const struct trace *t, const struct pass_plan *plan)
{
	for (size_t i = 0; i < plan->n_passes; i++)
		if (strncmp(trace_str(t, plan->passes[i].name), "ProfilerStep#", 13) != 0)
			return 0;
	return plan->n_passes > 0;
}

/* The passes, from the candidates in their order of trust: annotations (ProfilerStep among
 * them), calls of the model's top-level module, the whole trace. Annotations that hold less
 * than half the kernel time (a collective's 24 us ranges, one Optimizer.step) are not chosen
 * over the calls or the whole trace, which hold more; dropped then says so (for pass_source).
 * A training trace without annotations has a step per top-level call. --pass (regex) names
 * annotations, else module calls. */
static int choose_passes(const struct trace *t, const struct module_map *mods,
			 const uint32_t *launch_of, const uint8_t *part, const char *regex,
			 struct pass_plan *plan, char *dropped, struct fd_error *err)
{
	struct fd_error aerr = { { 0 } };
	int64_t held = 0, total = 0;

	if (passes_from_annotations(t, launch_of, part, regex, plan, &aerr) < 0) {
		/* --pass names no annotation: nn.Module calls, then */
		if (passes_from_calls(t, mods, launch_of, part, regex, plan, err) < 0)
			return -1;
		if (plan->n_passes)
			return 0;
		fd_error_set(err, "%s%s", aerr.msg,
			     strstr(aerr.msg, "matches no annotation") ? " or nn.Module call" : "");
		return -1;
	}
	if (regex || !plan->n_passes)
		goto calls;
	for (size_t k = 0; k < t->n_kernels; k++) {
		total += t->kernels[k].dur;
		held += plan->pass_of[k] >= 0 ? t->kernels[k].dur : 0;
	}
	if (plan_is_profiler_step(t, plan) || 2 * held >= total)
		return 0;
	{
		char *src = xstrdup(plan->source), *by = strstr(src, " (kernels by launch");

		if (by)
			*by = '\0';
		text_cut(src, 64);
		snprintf(dropped, STRUCT_SOURCE_MAX,
			 "; annotations (%s) hold %.1f%% of the kernel time: not passes", src,
			 total ? 100.0 * (double)held / (double)total : 0.0);
		text_utf8_trim(dropped);
		free(src);
	}
	pass_plan_clear(plan);
calls:
	/* training without annotations: a step per call of the model */
	if (!plan->n_passes && part && !regex)
		return passes_from_calls(t, mods, launch_of, part, NULL, plan, err);
	return 0;
}

/* The forward layer call each backward kernel computes the gradient of: its node's forward op
 * (same sequence number), inside a layer call; -1 per kernel when unknown. node: per kernel,
 * its backward node (train_parts()). Owned by caller: free with free(). */
static int32_t *grad_layers(const struct trace *t, const struct module_map *mods,
			    const uint32_t *node)
{
	int32_t *grad_of = big_alloc(t->n_kernels, sizeof *grad_of);
	size_t hint = 0;

	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct trace_fwd_op *f =
			node[k] != UINT32_MAX && t->ranges[node[k]].seq >= 0
				? trace_find_fwd_op(t, t->ranges[node[k]].seq)
				: NULL;

		grad_of[k] = f ? module_layer_at(mods, f->tid, f->start, &hint) : -1;
	}
	return grad_of;
}

/* The kernels of each pass of plan, in time order (a counting sort), into bucket: pass p's are
 * bucket[start[p] .. start[p + 1]). Without passes, every kernel is in pass 0. Returns start
 * (n_pass + 1 entries), owned by caller. */
static size_t *bucket_by_pass(const struct trace *t, const struct pass_plan *plan, size_t n_pass,
			      uint32_t *bucket)
{
	size_t *start = xcalloc(n_pass + 1, sizeof *start), *fill;

	for (size_t i = 0; i < t->n_kernels; i++) {
		int32_t p = plan->n_passes ? plan->pass_of[i] : 0;

		if (p >= 0)
			start[p + 1]++;
	}
	for (size_t p = 0; p < n_pass; p++)
		start[p + 1] += start[p];
	fill = xmalloc(n_pass * sizeof *fill);
	memcpy(fill, start, n_pass * sizeof *fill);
	for (size_t i = 0; i < t->n_kernels; i++) {
		int32_t p = plan->n_passes ? plan->pass_of[i] : 0;

		if (p >= 0)
			bucket[fill[p]++] = (uint32_t)i;
	}
	free(fill);
	return start;
}

/* The scratch of the build, sized for the trace's kernels and ranges. */
static void build_init(struct build *b, struct side *s, const struct module_map *mods,
		       const uint8_t *prim)
{
	const struct trace *t = s->t;
	size_t nk = t->n_kernels;

	b->s = s;
	b->in = (struct step_input){ t, &s->classes, mods, prim };
	b->mods = mods;
	stream_merge_init(&b->mg, nk);
	b->mod_layer = xmalloc((nk ? nk : 1) * sizeof *b->mod_layer);
	b->main_name = xmalloc((nk ? nk : 1) * sizeof *b->main_name);
	if (mods->top) {
		b->range_seg = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *b->range_seg);
		for (size_t i = 0; i < t->n_ranges; i++)
			b->range_seg[i] = -1;
		b->seg = xmalloc((nk ? nk : 1) * sizeof *b->seg);
		b->segk = xmalloc((nk ? nk : 1) * sizeof *b->segk);
	}
}

static void build_free(struct build *b)
{
	stream_merge_free(&b->mg);
	free(b->mod_layer);
	free(b->main_name);
	free(b->range_seg);
	free(b->seg);
	free(b->segk);
	free(b->model_stacks);
	free(b->grad_of);
}

/* Build the passes of plan from the bucketed kernels; counts the passes split into model calls
 * (*by_models) and by the layer structure (*split). */
static void build_passes(struct build *b, const struct pass_plan *plan, size_t n_pass,
			 const uint32_t *bucket, const size_t *start, size_t *by_models,
			 size_t *split)
{
	struct side *s = b->s;

	for (size_t p = 0; p < n_pass; p++) {
		size_t n = start[p + 1] - start[p], o0 = s->n_order, st0 = s->n_steps;
		size_t l0 = s->n_layers, p0 = s->n_passes;
		uint32_t name = plan->n_passes ? plan->passes[p].name : 0;
		int phase = plan->n_passes ? plan->passes[p].phase : -1;

		if (n == 0)
			continue;
		/* a training step stays one pass, whatever models it calls (and recomputes) */
		if (b->mods->top && !(b->part && phase_is_train(b, bucket + start[p], n, phase)) &&
		    build_model_passes(b, bucket + start[p], n, phase)) {
			(*by_models)++;
			continue;
		}
		build_pass(b, bucket + start[p], n, name, phase, side_model(s, 0));
		/* a range whose name says no phase (ProfilerStep#N) may hold a whole generate() */
		if (phase < 0 && s->passes[s->n_passes - 1].phase != PHASE_TRAIN &&
		    s->passes[s->n_passes - 1].layer_src != LAYER_SRC_MODULE &&
		    split_pass(b, o0, st0, l0, p0, name, side_model(s, 0)))
			(*split)++;
	}
}

/* s->pass_source: how the passes were found, for the user. */
static void describe_passes(struct side *s, const struct pass_plan *plan, size_t by_models,
			    size_t split, const char *dropped)
{
	char *src = xstrdup(plan->n_passes ? plan->source : "");

	text_cut(src, by_models ? 80 : 100); /* at a character boundary */
	if (by_models)
		snprintf(s->pass_source, sizeof s->pass_source,
			 "calls of top-level nn.Modules with layers (%zu model%s)%s%s", s->n_models,
			 s->n_models == 1 ? "" : "s", plan->n_passes ? " in " : "", src);
	else if (plan->n_passes)
		snprintf(s->pass_source, sizeof s->pass_source, "%s%s", src,
			 split ? ", split by the layer structure" : "");
	else if (split)
		snprintf(s->pass_source, sizeof s->pass_source,
			 "repetition of the layer structure");
	else
		snprintf(s->pass_source, sizeof s->pass_source,
			 "whole trace (no pass annotations)");
	if (*dropped) {
		size_t len = strlen(s->pass_source);

		snprintf(s->pass_source + len, sizeof s->pass_source - len, "%s", dropped);
	}
	text_utf8_trim(s->pass_source);
	free(src);
}

int side_build(struct side *s, const struct trace *t, const struct classifier *c,
	       const struct side_opts *o, struct fd_error *err)
{
	struct pass_plan plan;
	struct module_map mods;
	struct build b = { 0 };
	size_t nk = t->n_kernels, n_pass, *start, split = 0, by_models = 0, n_backward = 0;
	char dropped[STRUCT_SOURCE_MAX] = "";
	uint32_t *launch_of, *node = NULL;
	uint8_t *prim, *part, *where;

	memset(s, 0, sizeof *s);
	s->t = t;
	/* each kernel's launch event, found once for passes, modules and the stream merge */
	launch_of = big_alloc(nk, sizeof *launch_of);
	trace_link_kernels(t, launch_of, NULL);
	classify_trace(c, t, &s->classes);
	part = train_parts(t, &s->classes, launch_of, &n_backward, &node);
	if (n_backward == 0) {
		free(part);
		part = NULL;
	}
	module_map_build(t, launch_of, &mods);
	if (choose_passes(t, &mods, launch_of, part, o ? o->pass_regex : NULL, &plan, dropped,
			  err) < 0) {
		free(launch_of);
		free(part);
		free(node);
		module_map_clear(&mods);
		trace_classes_clear(&s->classes);
		return -1;
	}
	if (part && mods.n_calls)
		b.grad_of = grad_layers(t, &mods, node);
	free(node);
	side_stack(s, ""); /* stack 0: no name */
	b.part = part;

	/* Fresh memory costs a page fault per page, as much as reading the kernels a few times
	 * over: the bucket takes the array of launch events, which the passes and the modules
	 * were the last to need, and the execution order the one of the passes, once the bucket
	 * is made. */
	n_pass = plan.n_passes ? plan.n_passes : 1;
	start = bucket_by_pass(t, &plan, n_pass, launch_of);
	if (plan.pass_of) {
		s->order = (uint32_t *)plan.pass_of;
		plan.pass_of = NULL;
	} else {
		s->order = big_alloc(nk, sizeof *s->order);
	}
	s->steps = big_alloc(nk, sizeof *s->steps);
	prim = steps_prim_codes(&s->classes);
	build_init(&b, s, &mods, prim);
	build_passes(&b, &plan, n_pass, launch_of, start, &by_models, &split);
	describe_passes(s, &plan, by_models, split, dropped);
	where = xcalloc(nk ? nk : 1, 1);
	passes_drop_incomplete(s, where);
	s->n_unassigned = nk - s->n_order;
	coverage_build(s, where);
	free(where);
	summarize(s, &b, &mods);

	build_free(&b);
	free(part);
	free(prim);
	free(start);
	free(launch_of);
	module_map_clear(&mods);
	pass_plan_clear(&plan);
	return 0;
}

const char *side_model_name(const struct side *s, size_t m)
{
	const char *n;

	if (m >= s->n_models || !s->models[m].name)
		return "";
	n = trace_str(s->t, s->models[m].name);
	return strncmp(n, "nn.Module: ", 11) == 0 ? n + 11 : n;
}

void side_clear(struct side *s)
{
	trace_classes_clear(&s->classes);
	free(s->order);
	free(s->steps);
	free(s->layers);
	free(s->passes);
	free(s->models);
	for (size_t i = 0; i < s->n_stacks; i++)
		free(s->stacks[i]);
	free(s->stacks);
	memset(s, 0, sizeof *s);
}
