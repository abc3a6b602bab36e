/* kernel_totals.c — the kernels of both whole traces by short name: calls and time on each
 * side, whatever pass or layer they ran in, and the class of most of that time (comparison.h,
 * struct comparison_kernel_total). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/comparison.h"
#include "fusediff/intern.h"
#include "fusediff/util.h"
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

/* c->kernel_totals, summed from both traces. */
static void sum_totals(struct comparison *c)
{
	struct comparison_kernel_total *v = NULL;
	uint32_t *link = NULL; /* per entry: the next entry of its name id on its side */
	size_t n = 0, cap = 0, link_cap = 0, out = 0;
	/* the time of the class chosen for v[out - 1], of this run: both sides' times, each side's
	 * at most TRACE_TIME_MAX in all (trace.h), so that their sum needs 64 bits unsigned */
	uint64_t best = 0, run = 0;
	uint8_t prev = 0; /* the class of the entry before */

	/* one entry per side, name id and class (a name's kernels, summed), then those sorted by
	 * name: the same totals as one entry per kernel, sorted (a phase switch sorted every
	 * kernel of both traces by strcmp) */
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		const struct trace_classes *tc = &c->side[s]->classes;
		uint32_t n_ids = intern_count(t->strings);
		uint32_t *head = xmalloc(((size_t)n_ids + 1) * sizeof *head);

		memset(head, 0xff, ((size_t)n_ids + 1) * sizeof *head);
		for (size_t k = 0; k < t->n_kernels; k++) {
			uint32_t id = t->kernels[k].name, e;
			uint8_t cls;

			if (t->kernels[k].kind != KIND_KERNEL)
				continue;
			cls = tc->info_of ? trace_classes_get(tc, k)->cls : CLASS_OTHER;
			e = id < n_ids ? head[id] : UINT32_MAX;
			while (e != UINT32_MAX && v[e].cls != cls)
				e = link[e];
			if (e == UINT32_MAX) {
				struct comparison_kernel_total fresh = { 0 };
				uint32_t none = UINT32_MAX;
				size_t n_links = n;

				fresh.name = comparison_short_name(c, s, id);
				fresh.cls = cls;
				e = (uint32_t)n;
				VEC_PUSH(v, n, cap, fresh);
				VEC_PUSH(link, n_links, link_cap, none);
				if (id < n_ids) {
					link[e] = head[id];
					head[id] = e;
				}
			}
			v[e].count[s]++;
			v[e].ns[s] += t->kernels[k].dur;
		}
		free(head);
	}
	free(link);
	if (n)
		qsort(v, n, sizeof *v, cmp_name);
	/* by name, and within a name by class: a run of one class after another; the name takes
	 * the class of its longest run (the first in class order among equals) */
	for (size_t i = 0; i < n; i++) {
		uint64_t t = (uint64_t)v[i].ns[0] + (uint64_t)v[i].ns[1];
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

static struct comparison_kernel_total *totals_dup(const struct comparison_kernel_total *v, size_t n)
{
	struct comparison_kernel_total *d = xmalloc((n + 1) * sizeof *d);

	if (n)
		memcpy(d, v, n * sizeof *d);
	return d;
}

void comparison_kernel_totals(struct comparison *c, struct comparison_memo *memo)
{
	if (!memo || memo->totals_of[0] != c->side[0] || memo->totals_of[1] != c->side[1]) {
		sum_totals(c);
		if (!memo)
			return;
		free(memo->totals);
		memo->totals = totals_dup(c->kernel_totals, c->n_kernel_totals);
		memo->n_totals = c->n_kernel_totals;
		memo->totals_of[0] = c->side[0];
		memo->totals_of[1] = c->side[1];
		return;
	}
	/* another phase of the same sides: the names are the sides' (borrowed) */
	c->kernel_totals = totals_dup(memo->totals, memo->n_totals);
	c->n_kernel_totals = memo->n_totals;
}
