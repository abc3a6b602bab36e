/* time_stats.h — time beyond kernel sums: how long a run of kernels took on the GPU from its
 * first start to its last end (wall), how much of that at least one kernel ran (busy: the union
 * of the kernels' intervals over every stream), the rest (idle), and the time kernels ran at
 * the same time (overlap: the sum of their durations minus busy). Fusion saves launches and the
 * idle gaps between them, which dominate small decode steps; these figures show it. */
#ifndef FUSEDIFF_TIME_STATS_H
#define FUSEDIFF_TIME_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/trace.h"

/* The busy intervals of some kernels: disjoint, sorted, merged where they touch or overlap. */
struct busy_set {
	int64_t *start, *end;
	size_t n;
};

struct time_span {
	int64_t wall; /* first start to last end, ns; 0 without kernels */
	int64_t busy; /* union of the intervals */
	int64_t sum;  /* sum of the durations (what every other figure adds up) */
	size_t n;     /* kernels (launches: kernels, copies and memsets) */
};

/* The span of kernels idx[0..n-1] (indices into t->kernels, any order) into *out; their busy
 * intervals into *keep when it is not NULL (free with busy_set_free()). */
void time_span_of(const struct trace *t, const uint32_t *idx, size_t n, struct time_span *out,
		  struct busy_set *keep);
/* The time in [from, to) when no interval of b runs. near: NULL, or where the last query
 * found its first interval (0 at first), a guess that queries in order of time make cheap;
 * updated. */
int64_t busy_set_idle(const struct busy_set *b, int64_t from, int64_t to, size_t *near);
void busy_set_free(struct busy_set *b);

#endif
