/* pass.c — one pass built from its kernels (structure.h): its streams merged into steps
 * (merge.c), its layers found (layers.c) and pushed as prologue, layers and epilogue, and a
 * training step's backward and optimizer parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

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
uint16_t side_stack(struct side *s, const char *name)
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
int phase_is_train(const struct build *b, const uint32_t *k, size_t n, int phase)
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

DEFINE_LOWER_BOUND(call_lower, struct call_layer, int32_t, call)

/* The forward layer (index into cuts) of the layer call a backward step computes the gradient
 * of, from the calls of the forward layers' steps (map, sorted by call); -1 when unknown. */
static int32_t grad_layer(const struct build *b, const struct step *st,
			  const struct call_layer *map, size_t n_map)
{
	for (uint32_t i = 0; i < st->n; i++) {
		int32_t call = b->grad_of[b->s->order[st->first + i]];
		size_t lo;

		if (call < 0)
			continue;
		lo = call_lower(map, n_map, call);
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
void build_pass(struct build *b, const uint32_t *k, size_t n, uint32_t name, int phase,
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
