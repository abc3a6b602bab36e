/* graph_times.c — repair the times of graph-replayed kernels that a profiler attached to the
 * wrong kernels.
 *
 * All kernels of one CUDA/HIP graph launch share the launch's correlation id. A stream runs
 * them one after the other in launch order, and the trace lists them in launch order. In the
 * SGLang MI300X trace (ROCm graph replay) the (ts, dur) pairs are those of the right time
 * slots but attached to the wrong kernels: sorted by time, a layer reads "norm, act_and_mul,
 * GEMM, norm, GEMM, rope, ..." and a rotary-embedding kernel lasts 94 us where its 31 siblings
 * last 5 us. Listed in launch order, the names are right; sorted by start, the slots are right.
 * So for each (stream, correlation) group whose listed order disagrees with its time order, the
 * kernels in listed order get the group's time slots in time order. Groups whose listed order
 * agrees with time (every CUDA trace here) are left alone.
 *
 * The listed order is trusted only where it looks like launch order: the profiler's mistake
 * shifts a few slots (the MI300X group of 356 kernels reads as two increasing runs), while a
 * file whose events were reordered (merged, filtered or rewritten by a tool) lists the kernels
 * of a group and those around it in no particular order. So nothing is reassigned when the
 * kernels outside such groups are listed out of time order on their stream more than one time
 * in eight, and a group is reassigned only when its listed times go backwards at most
 * max(2, (n - 1) / 8) times. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "trace_build.h"

struct gkey {
	int64_t corr;
	int32_t stream;
	uint32_t i; /* index in listed order */
};

static int cmp_gkey(const void *pa, const void *pb)
{
	const struct gkey *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->stream, y->stream)) || (r = CMP(x->corr, y->corr)))
		return r;
	return CMP(x->i, y->i);
}

struct slot {
	int64_t start, dur;
};

static int cmp_slot(const void *pa, const void *pb)
{
	const struct slot *x = pa, *y = pb;
	int r = CMP(x->start, y->start);

	return r ? r : CMP(x->dur, y->dur);
}

/* Is the trace's listed order of kernels launch order, apart from graph launches? Over
 * kernels listed one after the other on the same stream that are not of one launch, at most one
 * in eight goes back in time. k is sorted by (stream, correlation, listed index). */
static int listed_in_order(const struct trace *t, struct gkey *k, size_t n)
{
	size_t steps = 0, back = 0;

	/* by (stream, listed index): the stream's kernels in listed order */
	for (size_t i = 0; i < n; i++)
		k[i].corr = 0;
	qsort(k, n, sizeof *k, cmp_gkey);
	for (size_t i = 1; i < n; i++) {
		const struct trace_kernel *a = &t->kernels[k[i - 1].i], *b = &t->kernels[k[i].i];

		if (k[i].stream != k[i - 1].stream ||
		    (a->correlation == b->correlation && a->correlation != 0))
			continue;
		steps++;
		back += b->start < a->start;
	}
	return back * 8 <= steps;
}

/* Most traces list each stream's correlation ids (other than 0) in increasing runs: one run
 * for an eager trace, a few where the profiler's buffers were written out of order. Within a run
 * no two are equal, so only the runs of a stream whose ranges overlap need looking at, walked
 * side by side for an id in both (group_in_runs). */
#define STREAMS_SEEN 16
/* Runs followed at most: a long trace made of many captures or steps starts its ids over, or
 * interleaves them, hundreds of times (34 repetitions of a decode trace, 4.2 GB: 238 runs),
 * and the hash set below costs a cache miss and 16 bytes a kernel. */
#define RUNS_SEEN 1024

struct corr_run {
	size_t i0, i1; /* the kernels [i0, i1) hold it, with those of other streams */
	int32_t stream;
	int64_t lo, hi; /* its first and last id */
};

/* The next kernel of run r at or after *i with an id, or 0 at the run's end. */
static int64_t run_next(const struct trace *t, const struct corr_run *r, size_t *i)
{
	for (; *i < r->i1; ++*i)
		if (t->kernels[*i].stream == r->stream && t->kernels[*i].correlation)
			return t->kernels[*i].correlation;
	return 0;
}

static int runs_share_id(const struct trace *t, const struct corr_run *a, const struct corr_run *b)
{
	size_t i = a->i0, j = b->i0;
	int64_t x = run_next(t, a, &i), y = run_next(t, b, &j);

	while (x && y) {
		if (x == y)
			return 1;
		if (x < y)
			i++, x = run_next(t, a, &i);
		else
			j++, y = run_next(t, b, &j);
	}
	return 0;
}

/* Whether two kernels of one stream share an id, found in the runs; -1 when there are too many
 * streams or runs, or the walks would be too long, for this to be the quick way. */
static int group_in_runs(const struct trace *t)
{
	struct corr_run *run = NULL;
	size_t cur[STREAMS_SEEN], n_streams = 0, n = 0, cap = 0, at = 0, work = 0;
	int found = 0;

	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *kn = &t->kernels[i];
		struct corr_run *r;

		if (kn->correlation == 0)
			continue;
		if (n_streams == 0 || run[cur[at]].stream != kn->stream) {
			for (at = 0; at < n_streams && run[cur[at]].stream != kn->stream; at++)
				;
			if (at == n_streams && n_streams == STREAMS_SEEN)
				goto give_up;
		}
		r = at < n_streams ? &run[cur[at]] : NULL;
		if (r && kn->correlation > r->hi) {
			r->hi = kn->correlation;
			r->i1 = i + 1;
			continue;
		}
		if (n == RUNS_SEEN)
			goto give_up;
		if (at == n_streams)
			n_streams++;
		cur[at] = n;
		VEC_RESERVE(run, n, cap);
		run[n++] =
			(struct corr_run){ i, i + 1, kn->stream, kn->correlation, kn->correlation };
	}
	for (size_t a = 0; a < n && !found; a++)
		for (size_t b = a + 1; b < n && !found; b++)
			if (run[a].stream == run[b].stream && run[a].lo <= run[b].hi &&
			    run[b].lo <= run[a].hi) {
				work += (run[a].i1 - run[a].i0) + (run[b].i1 - run[b].i0);
				if (work > 4 * t->n_kernels)
					goto give_up;
				found = runs_share_id(t, &run[a], &run[b]);
			}
	free(run);
	return found;
give_up:
	free(run);
	return -1;
}

/* Do two kernels of one stream share a correlation id (other than 0)? Without such a pair there
 * is no group to repair, and the sorts below are not needed: found in the increasing runs of
 * ids (above), or else with a hash set of (stream, correlation), in one pass. */
static int any_group(const struct trace *t)
{
	size_t cap = 16, found = 0;
	struct gkey *set;
	int quick = group_in_runs(t);

	if (quick >= 0)
		return quick;
	while (cap < 2 * t->n_kernels)
		cap *= 2;
	set = big_alloc(cap, sizeof *set); /* on huge pages: each probe lands anywhere in it */
	memset(set, 0, cap * sizeof *set); /* corr 0: empty */
	for (size_t i = 0; i < t->n_kernels && !found; i++) {
		const struct trace_kernel *kn = &t->kernels[i];
		uint64_t h = ((uint64_t)kn->correlation ^ ((uint64_t)(uint32_t)kn->stream << 40)) *
			     0x9e3779b97f4a7c15ull;
		size_t j = (size_t)(h >> 20) & (cap - 1);

		if (kn->correlation == 0)
			continue;
		for (; set[j].corr; j = (j + 1) & (cap - 1))
			if (set[j].corr == kn->correlation && set[j].stream == kn->stream) {
				found = 1;
				break;
			}
		set[j] = (struct gkey){ kn->correlation, kn->stream, (uint32_t)i };
	}
	free(set);
	return found != 0;
}

size_t trace_repair_graph_times(struct trace *t)
{
	struct gkey *k;
	struct slot *s;
	size_t n = 0, fixed = 0, groups = 0;

	if (!any_group(t))
		return 0;
	k = xmalloc((t->n_kernels ? t->n_kernels : 1) * sizeof *k);
	s = xmalloc((t->n_kernels ? t->n_kernels : 1) * sizeof *s);

	for (size_t i = 0; i < t->n_kernels; i++)
		k[n++] = (struct gkey){ t->kernels[i].correlation, t->kernels[i].stream,
					(uint32_t)i };
	if (!listed_in_order(t, k, n))
		n = 0;
	for (size_t i = 0; i < n; i++)
		k[i].corr = t->kernels[k[i].i].correlation;
	if (n)
		qsort(k, n, sizeof *k, cmp_gkey);
	for (size_t g = 0, e; g < n; g = e) {
		size_t back = 0;

		for (e = g + 1; e < n && k[e].stream == k[g].stream && k[e].corr == k[g].corr; e++)
			if (t->kernels[k[e].i].start < t->kernels[k[e - 1].i].start)
				back++;
		if (back == 0 || k[g].corr == 0)
			continue;
		if (back > 2 && back > (e - g - 1) / 8)
			continue; /* not launch order: the times are all we have */
		for (size_t j = g; j < e; j++)
			s[j - g] =
				(struct slot){ t->kernels[k[j].i].start, t->kernels[k[j].i].dur };
		qsort(s, e - g, sizeof *s, cmp_slot);
		for (size_t j = g; j < e; j++) {
			t->kernels[k[j].i].start = s[j - g].start;
			t->kernels[k[j].i].dur = s[j - g].dur;
		}
		fixed += e - g;
		groups++;
	}
	if (fixed)
		trace_warn(t,
			   "the times of %zu kernels of %zu graph launch%s disagreed with their "
			   "launch "
			   "order: reassigned in stream order",
			   fixed, groups, groups == 1 ? "" : "es");
	free(k);
	free(s);
	return fixed;
}
