/* comparison_repeats.c — the captures of a side that pools several (fusediff A1 A2 -- B1 B2,
 * --repeats) held to the structure of the side's first capture.
 *
 * Every capture of a side is cut into passes, layers and steps with the others, as one trace;
 * a pass of a later capture is compared only when its capture's usual pass has the shape of
 * the first capture's: as many layers, and in them as many steps of each class. A capture of
 * another shape (another model, another attention backend, a compiled run among eager ones)
 * is left out, so that its passes never mix with the first capture's in a row's samples, and
 * is the warning repeat_differs, naming it and what differs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/text.h"
#include "fusediff/util.h"

/* The shape of a pass: its repeated layers and the steps of each class in them (the prologue
 * and the epilogue, where sampling and the like come and go, are not counted). */
struct shape {
	uint32_t layers;
	uint32_t steps[CLASS_COUNT];
};

static int cmp_shape(const struct shape *a, const struct shape *b)
{
	if (a->layers != b->layers)
		return CMP(a->layers, b->layers);
	for (int k = 0; k < CLASS_COUNT; k++)
		if (a->steps[k] != b->steps[k])
			return CMP(a->steps[k], b->steps[k]);
	return 0;
}

static int cmp_shape_v(const void *a, const void *b)
{
	return cmp_shape(a, b);
}

/* Whether pass p of side s is of the compared phase and model (whatever its capture). */
static int of_phase(const struct comparison *c, int s, const struct pass *p)
{
	return (c->phase == PHASE_COUNT || p->phase == c->phase) && p->model == c->model[s];
}

size_t comparison_pass_capture(const struct side *sd, const struct pass *p)
{
	if (sd->t->n_repeats < 2 || !p->n)
		return 0;
	return trace_repeat_at(sd->t, sd->t->kernels[sd->order[p->first]].start);
}

static void pass_shape(const struct side *sd, const struct pass *p, struct shape *out)
{
	memset(out, 0, sizeof *out);
	out->layers = p->n_layers;
	for (uint32_t l = 0; l < p->layer_n; l++) {
		const struct layer *ly = &sd->layers[p->layer_first + l];

		if (ly->index < 0)
			continue;
		for (uint32_t i = 0; i < ly->step_n; i++) {
			uint8_t k = sd->steps[ly->step_first + i].cls;

			if (k < CLASS_COUNT)
				out->steps[k]++;
		}
	}
}

/* Each capture's usual shape among side s's passes of the phase: the most frequent, the
 * smallest among equals (usual[r]), and how many such passes it has (n[r]; 0: none, usual[r]
 * zero). Arrays of t->n_repeats, owned by caller: free with free(). */
static void capture_shapes(const struct comparison *c, int s, struct shape **usual, uint32_t **n)
{
	const struct side *sd = c->side[s];
	size_t nr = sd->t->n_repeats, m = 0;
	struct shape *v = xmalloc((sd->n_passes + 1) * sizeof *v);
	size_t *cap = xmalloc((sd->n_passes + 1) * sizeof *cap);

	*usual = xcalloc(nr, sizeof **usual);
	*n = xcalloc(nr, sizeof **n);
	for (size_t i = 0; i < sd->n_passes; i++) {
		const struct pass *p = &sd->passes[i];

		if (!of_phase(c, s, p) || !p->n)
			continue;
		cap[m] = comparison_pass_capture(sd, p);
		pass_shape(sd, p, &v[m]);
		m++;
	}
	for (size_t r = 0; r < nr; r++) {
		struct shape *w = xmalloc((m + 1) * sizeof *w);
		size_t k = 0, best_count = 0;

		for (size_t i = 0; i < m; i++)
			if (cap[i] == r)
				w[k++] = v[i];
		qsort(w, k, sizeof *w, cmp_shape_v);
		for (size_t i = 0, j; i < k; i = j) {
			for (j = i; j < k && cmp_shape(&w[j], &w[i]) == 0; j++)
				;
			if (j - i > best_count) {
				best_count = j - i;
				(*usual)[r] = w[i];
			}
		}
		(*n)[r] = (uint32_t)k;
		free(w);
	}
	free(cap);
	free(v);
}

void comparison_repeats_choose(struct comparison *c)
{
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		struct shape *usual;
		uint32_t *n;

		if (t->n_repeats < 2)
			continue;
		capture_shapes(c, s, &usual, &n);
		for (size_t r = 1; r < t->n_repeats && n[0]; r++)
			if (n[r] && cmp_shape(&usual[r], &usual[0]) != 0) {
				if (!c->repeat_out[s])
					c->repeat_out[s] = xcalloc(t->n_repeats, 1);
				c->repeat_out[s][r] = 1;
			}
		free(usual);
		free(n);
	}
}

/* What differs between shapes a (a later capture's) and b (the first's), in words: "has 32
 * layers per pass where its first capture (F) has 8 layers per pass", or the classes whose
 * steps differ most: "has other steps in its 8 layers per pass than its first capture (F),
 * per pass 8 Reduce steps against 0, ...". */
static void shape_diff_text(const struct shape *a, const struct shape *b, const char *first,
			    char *buf, size_t cap)
{
	size_t len;
	int shown = 0;
	uint8_t done[CLASS_COUNT] = { 0 };

	if (a->layers != b->layers) {
		snprintf(buf, cap,
			 "has %u layers per pass where its first capture (%s) has %u layers per "
			 "pass",
			 a->layers, first, b->layers);
		return;
	}
	len = (size_t)snprintf(buf, cap,
			       "has other steps in its %u layers per pass than its first "
			       "capture (%s), per pass",
			       a->layers, first);
	while (shown < 3 && len < cap) { /* the three largest differences, by class */
		int best = -1;
		uint32_t best_d = 0;

		for (int k = 0; k < CLASS_COUNT; k++) {
			uint32_t d = a->steps[k] > b->steps[k] ? a->steps[k] - b->steps[k]
							       : b->steps[k] - a->steps[k];

			if (!done[k] && d > best_d)
				best = k, best_d = d;
		}
		if (best < 0)
			break;
		done[best] = 1;
		len += (size_t)snprintf(buf + len, cap - len, "%s %u %s steps against %u",
					shown++ ? "," : "", a->steps[best],
					class_name((enum op_class)best), b->steps[best]);
	}
}

const char *comparison_repeats_warn(struct comparison *c)
{
	const char *why = NULL;

	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		struct shape *usual;
		uint32_t *n;
		size_t differ = 0, first = 0;
		char *f, *f0, what[512], others[64] = "";
		const char *m;

		if (t->n_repeats < 2)
			continue;
		capture_shapes(c, s, &usual, &n);
		for (size_t r = 1; r < t->n_repeats; r++)
			if ((n[r] == 0) != (n[0] == 0) ||
			    (n[r] && cmp_shape(&usual[r], &usual[0]) != 0)) {
				if (!differ++)
					first = r;
			}
		if (!differ) {
			free(usual);
			free(n);
			continue;
		}
		f = text_escape_dup(t->repeats[first].path, strlen(t->repeats[first].path));
		f0 = text_escape_dup(t->repeats[0].path, strlen(t->repeats[0].path));
		if (differ > 1)
			snprintf(others, sizeof others, " (and %zu more)", differ - 1);
		if (!n[0])
			snprintf(what, sizeof what,
				 "has %u layers per pass where its first capture (%s) has no "
				 "compared pass: its samples are not of one workload",
				 usual[first].layers, f0);
		else if (!n[first])
			snprintf(what, sizeof what,
				 "has no compared pass where its first capture (%s) has %u layers "
				 "per pass: its samples are not of one workload",
				 f0, usual[0].layers);
		else {
			size_t len;

			shape_diff_text(&usual[first], &usual[0], f0, what, sizeof what);
			len = strlen(what);
			snprintf(what + len, sizeof what - len,
				 "; %s passes are left out, and the side's captures are not of "
				 "one workload",
				 differ > 1 ? "their" : "its");
		}
		m = comparison_warn(c, "repeat_differs", "%c's capture %s%s %s", s ? 'B' : 'A', f,
				    others, what);
		why = why ? why : m;
		free(f);
		free(f0);
		free(usual);
		free(n);
	}
	return why;
}
