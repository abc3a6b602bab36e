/* trim.c — passes the recording cut at either end of a trace, left out (structure.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure_int.h"

/* Remove pass p (the first or the last one): its kernels, steps and layers go, the others move
 * down. Its kernels become unassigned, marked COVER_PARTIAL in where[] (per trace kernel). */
static void remove_edge_pass(struct side *s, size_t p, uint8_t *where)
{
	const struct pass *ps = &s->passes[p];
	const struct layer *last = &s->layers[ps->layer_first + ps->layer_n - 1];
	uint32_t k0 = ps->first, kn = ps->n, l0 = ps->layer_first, ln = ps->layer_n;
	uint32_t st0 = s->layers[l0].step_first, stn = last->step_first + last->step_n - st0;

	for (uint32_t i = k0; i < k0 + kn; i++)
		where[s->order[i]] = COVER_PARTIAL;

	if (p + 1 == s->n_passes) {
		s->n_order -= kn;
		s->n_steps -= stn;
		s->n_layers -= ln;
		s->n_passes--;
		return;
	}
	/* the first pass: everything after it moves to the front */
	memmove(s->order + k0, s->order + k0 + kn, (s->n_order - k0 - kn) * sizeof *s->order);
	memmove(s->steps + st0, s->steps + st0 + stn, (s->n_steps - st0 - stn) * sizeof *s->steps);
	memmove(s->layers + l0, s->layers + l0 + ln, (s->n_layers - l0 - ln) * sizeof *s->layers);
	memmove(s->passes + p, s->passes + p + 1, (s->n_passes - p - 1) * sizeof *s->passes);
	s->n_order -= kn;
	s->n_steps -= stn;
	s->n_layers -= ln;
	s->n_passes--;
	for (size_t i = 0; i < s->n_steps; i++)
		s->steps[i].first -= kn;
	for (size_t i = 0; i < s->n_layers; i++)
		s->layers[i].step_first -= stn;
	for (size_t i = 0; i < s->n_passes; i++) {
		s->passes[i].first -= kn;
		s->passes[i].layer_first -= ln;
	}
}

/* A pass at either end of the trace with fewer layers than the passes between them (every one
 * of those with the same count; with two passes, than the other one) was cut by the start or
 * the end of the recording: the tail of a step queued before the profiler started, or a step
 * the profiler stopped inside. Compared with whole passes it would halve the per-pass figures
 * of the layers it lacks, so it is left out (its kernels are unassigned) and the pass source
 * says so. */
void passes_drop_incomplete(struct side *s, uint8_t *where)
{
	uint32_t usual = 0;
	size_t n, len, first_p = 0, last_p = 0, *of;
	int first = 0, last = 0;
	char note[96];

	if (s->n_passes < 2)
		return;
	/* the passes of the model of the first pass or the last: other models' passes have
	 * other depths */
	of = xmalloc(s->n_passes * sizeof *of);
	for (int end = 0; end < 2 && !first && !last; end++) {
		uint16_t model = s->passes[end ? s->n_passes - 1 : 0].model;

		n = 0;
		for (size_t i = 0; i < s->n_passes; i++)
			if (s->passes[i].model == model)
				of[n++] = i;
		if (n < 2 || (of[0] != 0 && of[n - 1] != s->n_passes - 1))
			continue;
		if (n == 2) {
			usual = s->passes[of[0]].n_layers > s->passes[of[1]].n_layers
					? s->passes[of[0]].n_layers
					: s->passes[of[1]].n_layers;
		} else {
			size_t i;

			usual = s->passes[of[1]].n_layers;
			for (i = 2; i + 1 < n; i++)
				if (s->passes[of[i]].n_layers != usual)
					break;
			if (i + 1 < n)
				continue;
		}
		if (usual == 0)
			continue;
		first = of[0] == 0 && s->passes[of[0]].n_layers < usual;
		last = of[n - 1] == s->n_passes - 1 && s->passes[of[n - 1]].n_layers < usual;
		first_p = of[0];
		last_p = of[n - 1];
	}
	free(of);
	if (!first && !last)
		return;
	if (first && last)
		snprintf(note, sizeof note,
			 "; the first and the last pass are incomplete (%u and %u of %u layers): "
			 "left out",
			 s->passes[first_p].n_layers, s->passes[last_p].n_layers, usual);
	else
		snprintf(note, sizeof note,
			 "; the %s pass is incomplete (%u of %u layers): left out",
			 first ? "first" : "last", s->passes[first ? first_p : last_p].n_layers,
			 usual);
	if (last)
		remove_edge_pass(s, s->n_passes - 1, where);
	if (first)
		remove_edge_pass(s, 0, where);
	len = strlen(s->pass_source);
	snprintf(s->pass_source + len, sizeof s->pass_source - len, "%s", note);
}
