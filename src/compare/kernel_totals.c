/* kernel_totals.c — the kernels of both whole traces by short name: calls and time on each
 * side, whatever pass or layer they ran in (comparison.h, struct comparison_kernel_total). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/comparison.h"
#include "compare_int.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct comparison_kernel_total *)a)->name,
		      ((const struct comparison_kernel_total *)b)->name);
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

	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;

		for (size_t k = 0; k < t->n_kernels; k++) {
			struct comparison_kernel_total e = { 0 };

			if (t->kernels[k].kind != KIND_KERNEL)
				continue;
			e.name = comparison_short_name(c, s, t->kernels[k].name);
			e.count[s] = 1;
			e.ns[s] = t->kernels[k].dur;
			VEC_PUSH(v, n, cap, e);
		}
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (out && strcmp(v[out - 1].name, v[i].name) == 0) {
			for (int s = 0; s < 2; s++) {
				v[out - 1].count[s] += v[i].count[s];
				v[out - 1].ns[s] += v[i].ns[s];
			}
		} else {
			v[out++] = v[i];
		}
	}
	if (out)
		qsort(v, out, sizeof *v, cmp_delta);
	c->kernel_totals = v;
	c->n_kernel_totals = out;
}
