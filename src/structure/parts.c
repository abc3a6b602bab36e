/* parts.c — a pass that holds several (structure.h): split where the layer structure shows
 * the end of one forward pass and the start of the next, or into the calls of several
 * top-level nn.Modules with layers (a diffusion pipeline's models). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

/* The pass just built (from the marks: order, steps, layers and passes before it) may hold
 * several forward passes: a trace without pass annotations, or one ProfilerStep#N around a
 * whole generate(). Split it where the layer structure shows the end of one forward pass and
 * the start of the next (layers_pass_starts), and build each part as a pass.
 * Returns the number of parts, 0 when it stays one pass. */
size_t split_pass(struct build *b, size_t o0, size_t st0, size_t l0, size_t p0, uint32_t name,
		  uint16_t model)
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

/* The model named `name` (a range name id, 0: none): found, or added. */
uint16_t side_model(struct side *s, uint32_t name)
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
int build_model_passes(struct build *b, const uint32_t *k, size_t n, int phase)
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
