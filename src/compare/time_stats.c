/* time_stats.c — wall, busy, idle and overlap of runs of kernels (time_stats.h). */
#include "fusediff/time_stats.h"

#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

static int cmp_u32(const void *a, const void *b)
{
	return CMP(*(const uint32_t *)a, *(const uint32_t *)b);
}

void time_span_of(const struct trace *t, const uint32_t *idx, size_t n, struct time_span *out,
		  struct busy_set *keep)
{
	uint32_t *k;
	int64_t cur_s = 0, cur_e = 0, first = 0, last = 0;
	size_t nb = 0;

	memset(out, 0, sizeof *out);
	if (keep)
		memset(keep, 0, sizeof *keep);
	if (!n)
		return;
	/* t->kernels is sorted by start: sorting the indices sorts the intervals */
	k = xmalloc(n * sizeof *k);
	memcpy(k, idx, n * sizeof *k);
	for (size_t i = 1; i < n; i++)
		if (k[i] < k[i - 1]) { /* one stream's pass is in order already: no sort */
			qsort(k, n, sizeof *k, cmp_u32);
			break;
		}
	if (keep) {
		keep->start = xmalloc(n * sizeof *keep->start);
		keep->end = xmalloc(n * sizeof *keep->end);
	}
	for (size_t i = 0; i < n; i++) {
		const struct trace_kernel *kr = &t->kernels[k[i]];
		int64_t s = kr->start, e = kr->start + (kr->dur > 0 ? kr->dur : 0);

		out->sum += kr->dur > 0 ? kr->dur : 0;
		if (i == 0 || s < first)
			first = s;
		if (i == 0 || e > last)
			last = e;
		if (i == 0) {
			cur_s = s, cur_e = e;
			continue;
		}
		if (s <= cur_e) { /* overlaps or touches the current interval */
			if (e > cur_e)
				cur_e = e;
			continue;
		}
		out->busy += cur_e - cur_s;
		if (keep)
			keep->start[nb] = cur_s, keep->end[nb] = cur_e;
		nb++;
		cur_s = s, cur_e = e;
	}
	out->busy += cur_e - cur_s;
	if (keep) {
		keep->start[nb] = cur_s, keep->end[nb] = cur_e;
		keep->n = nb + 1;
	}
	out->wall = last - first;
	out->n = n;
	free(k);
}

/* gallop_prefix(): interval i of a busy set ends at or before a time */
struct ends_before {
	const int64_t *end;
	int64_t t;
};

static int ends_before(const void *ctx, size_t i)
{
	const struct ends_before *q = ctx;

	return q->end[i] <= q->t;
}

int64_t busy_set_idle(const struct busy_set *b, int64_t from, int64_t to, size_t *near)
{
	const struct ends_before q = { b->end, from };
	size_t lo;
	int64_t idle;

	if (to <= from)
		return 0;
	idle = to - from;
	/* the first that ends after from (once per kernel of a chain found) */
	lo = gallop_prefix(b->n, near ? *near : b->n / 2, ends_before, &q);
	if (near)
		*near = lo;
	for (size_t i = lo; i < b->n && b->start[i] < to; i++) {
		int64_t s = b->start[i] > from ? b->start[i] : from;
		int64_t e = b->end[i] < to ? b->end[i] : to;

		if (e > s)
			idle -= e - s;
	}
	return idle;
}

void busy_set_free(struct busy_set *b)
{
	free(b->start);
	free(b->end);
	memset(b, 0, sizeof *b);
}
