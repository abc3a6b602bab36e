/* kernel_totals.c — the kernels of both whole traces by short name: calls and time on each
 * side, whatever pass or layer they ran in, and the class of most of that time (comparison.h,
 * struct comparison_kernel_total). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/comparison.h"
#include "compare_int.h"

static int cmp_name(const void *a, const void *b)
{
	const struct comparison_kernel_total *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x->cls > y->cls) - (x->cls < y->cls);
}

static int cmp_delta(const void *a, const void *b)
{
	const struct comparison_kernel_total *x = a, *y = b;
	double dx = fabs((double)(x->ns[1] - x->ns[0])), dy = fabs((double)(y->ns[1] - y->ns[0]));

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void comparison_kernel_totals(struct comparison *c)
{
	struct comparison_kernel_total *v = NULL;
	size_t n = 0, cap = 0, out = 0;
	int64_t best = 0, run = 0; /* the time of the class chosen for v[out - 1], of this run */
	uint8_t prev = 0;	   /* the class of the entry before */

	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		const struct trace_classes *tc = &c->side[s]->classes;

		for (size_t k = 0; k < t->n_kernels; k++) {
			struct comparison_kernel_total e = { 0 };

			if (t->kernels[k].kind != KIND_KERNEL)
				continue;
			e.name = comparison_short_name(c, s, t->kernels[k].name);
			e.cls = tc->info_of ? trace_classes_get(tc, k)->cls : CLASS_OTHER;
			e.count[s] = 1;
			e.ns[s] = t->kernels[k].dur;
			VEC_PUSH(v, n, cap, e);
		}
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_name);
	/* by name, and within a name by class: a run of one class after another; the name takes
	 * the class of its longest run (the first in class order among equals) */
	for (size_t i = 0; i < n; i++) {
		int64_t t = v[i].ns[0] + v[i].ns[1];
		uint8_t cls = v[i].cls;

		if (out && strcmp(v[out - 1].name, v[i].name) == 0) {
			run = prev == cls ? run + t : t;
			if (run > best) {
				best = run;
				v[out - 1].cls = cls;
			}
			for (int s = 0; s < 2; s++) {
				v[out - 1].count[s] += v[i].count[s];
				v[out - 1].ns[s] += v[i].ns[s];
			}
		} else {
			v[out++] = v[i];
			best = run = t;
		}
		prev = cls;
	}
	if (out)
		qsort(v, out, sizeof *v, cmp_delta);
	c->kernel_totals = v;
	c->n_kernel_totals = out;
}
