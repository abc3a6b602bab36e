/* trace_finish.c — the loaded trace finished (trace_finish): the stashed operators and
 * launches unpacked, times made relative, the device chosen, the records sorted, the platform
 * and the GPU named. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "fusediff/text.h"
#include "fusediff/trace.h"
#include "trace_impl.h"

/* The next stashed launch (as trace_add_launch() packs it), renamed when its segment is a
 * merged part's. */
static void next_launch(const struct trace_impl *ti, struct stash_reader *r, struct trace_launch *l)
{
	const struct seg_map *m;

	memset(l, 0, sizeof *l);
	stash_next(r);
	l->start = stash_get_delta(r, 0);
	l->correlation = stash_get_delta(r, 1);
	l->external_id = stash_get_delta(r, 2);
	l->tid = stash_get_delta(r, 3);
	l->dur = (int64_t)stash_get(r);
	l->name = (uint32_t)stash_get(r);
	l->kernel = (uint32_t)stash_get(r);
	if (l->kernel)
		l->dims = (uint32_t)stash_get(r);
	if ((m = seg_map_of(ti->launch_seg, ti->n_launch_seg, r->segment))) {
		l->name = m->map[l->name];
		l->kernel = m->map[l->kernel];
		l->dims = l->dims < m->nd ? m->dmap[l->dims] : 0;
	}
}

static int cmp_launch(const void *pa, const void *pb);

/* Stashes with this many records in more than one segment (the parts of a file parsed by two
 * threads) are unpacked by two threads too, a share of the segments each. */
#define UNPACK_PARALLEL 16384

/* The segment before which about share (0 to 1) of stash s's records lie, or s->n_seg + 1 (one
 * thread for all) when the stash is too small or has one segment. */
static size_t segment_at(const struct stash *s, double share)
{
	size_t nseg = s->n_seg + 1, mid = 1;

	if (nseg < 2 || s->n < UNPACK_PARALLEL)
		return nseg;
	while (mid + 1 < nseg && (double)stash_segment_first(s, mid) < share * (double)s->n)
		mid++;
	return mid;
}

/* A reader of the segments [seg0, ...) of s: one of all of them reads as stash_read() does,
 * unmapping the stash as it goes; one of some takes them from the first, giving back the
 * pages it leaves (stash_take_segment()). */
static void segments_read(struct stash *s, size_t seg0, size_t seg1, struct stash_reader *r)
{
	if (seg0 == 0 && seg1 == s->n_seg + 1)
		stash_read(s, r);
	else
		stash_take_segment(s, seg0, r);
}

/* The kernels of each correlation id, to find a launch's. Where the ids are dense (the
 * counters of most traces), a table by id of each one's first kernel and a chain to the next
 * of the same id: two arrays of 4 bytes, made in one pass whatever the kernels' order; else
 * the kernel indices sorted by id (sort_index()), searched from the last answer. Either way
 * the kernels of an id come in kernel order. */
struct corr_index {
	const struct trace *t;
	int64_t lo;	       /* the table's first id */
	size_t span;	       /* ids in the table (lo .. lo + span - 1); 0: sorted */
	uint32_t *head, *next; /* the table: an id's first kernel, a kernel's next of its id */
	uint32_t *v;	       /* sorted: the kernels with an id, by id */
	size_t n, at;	       /* sorted: how many; where the last search ended */
	int64_t x;	       /* sorted: the id searched */
};

/* Kernel indices by correlation id, then index (sort_index()). */
static int cmp_kernel_corr(const void *ctx, uint32_t a, uint32_t b)
{
	const struct trace *t = ctx;
	int r = CMP(t->kernels[a].correlation, t->kernels[b].correlation);

	return r ? r : CMP(a, b);
}

static int corr_before(const void *ctx, size_t i)
{
	const struct corr_index *x = ctx;

	return x->t->kernels[x->v[i]].correlation < x->x;
}

static void corr_index_make(struct corr_index *x, const struct trace *t)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t n = 0;

	memset(x, 0, sizeof *x);
	x->t = t;
	for (size_t i = 0; i < t->n_kernels; i++) {
		int64_t c = t->kernels[i].correlation;

		if (c) {
			lo = c < lo ? c : lo;
			hi = c > hi ? c : hi;
			n++;
		}
	}
	if (n && (uint64_t)hi - (uint64_t)lo < 2 * (uint64_t)t->n_kernels + 4096) {
		x->lo = lo;
		x->span = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
		x->head = big_alloc(x->span, sizeof *x->head);
		memset(x->head, 0xff, x->span * sizeof *x->head);
		x->next = big_alloc(t->n_kernels, sizeof *x->next);
		for (size_t i = t->n_kernels;
		     i-- > 0;) { /* backwards: each chain in kernel order */
			int64_t c = t->kernels[i].correlation;
			size_t id = (size_t)((uint64_t)c - (uint64_t)lo);

			if (c) {
				x->next[i] = x->head[id];
				x->head[id] = (uint32_t)i;
			}
		}
		return;
	}
	x->v = big_alloc(n, sizeof *x->v);
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].correlation)
			x->v[x->n++] = (uint32_t)i;
	sort_index(x->v, x->n, cmp_kernel_corr, t);
}

/* The first kernel (index) of id c, or UINT32_MAX; corr_next() the next of that id. */
static uint32_t corr_first(struct corr_index *x, int64_t c)
{
	if (c == 0)
		return UINT32_MAX;
	if (x->span)
		return c < x->lo || (uint64_t)c - (uint64_t)x->lo >= x->span
			       ? UINT32_MAX
			       : x->head[(uint64_t)c - (uint64_t)x->lo];
	x->x = c;
	x->at = gallop_prefix(x->n, x->at, corr_before, x);
	return x->at < x->n && x->t->kernels[x->v[x->at]].correlation == c ? x->v[x->at]
									   : UINT32_MAX;
}

static uint32_t corr_next(struct corr_index *x, uint32_t k)
{
	if (x->span)
		return x->next[k];
	return x->at + 1 < x->n && x->t->kernels[x->v[x->at + 1]].correlation == x->x
		       ? x->v[++x->at]
		       : UINT32_MAX;
}

static void corr_index_free(struct corr_index *x)
{
	free(x->head);
	free(x->next);
	free(x->v);
}

/* Whether name id (a launch's) is a graph launch: a trace's launches have a few distinct
 * names, each remembered in a slot by its id. */
struct graph_memo {
	uint32_t name_1; /* the name id + 1; 0: empty */
	int graph;
};

static int graph_launch_name(const struct trace *t, uint32_t name, struct graph_memo memo[8])
{
	struct graph_memo *m = &memo[name & 7];

	if (m->name_1 != name + 1)
		*m = (struct graph_memo){ name + 1, trace_is_graph_launch(trace_str(t, name)) };
	return m->graph;
}

/* The stashed launches folded into the kernels they launched (trace_kernel.launch: the
 * correlation id links them; of several launches with one id, the one that starts first, the
 * first stashed on a tie), and into t->launches only those that are more than one kernel's
 * launch (struct trace_launch), sorted by correlation, then start, then stash order; their
 * times made relative like the others' (make_relative counted them in). Last in trace_finish:
 * the kernels are in their final order (struct corr_index finds the kernels of an id). */
static void fold_launches(struct trace *t)
{
	struct trace_impl *ti = impl(t);
	size_t n = ti->launches.n, lost = 0;
	struct graph_memo memo[8] = { { 0, 0 } };
	struct stash_reader r;
	struct corr_index x;
	int64_t last_tid = 0;
	int32_t last_thread = -1;

	ti->finished = 1;
	free(ti->kernel_ids); /* the launches that name their kernel are in the array now */
	ti->kernel_ids = NULL;
	ti->n_kernel_ids = ti->cap_kernel_ids = 0;
	t->n_launches = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		t->kernels[i].launch = -1;
		t->kernels[i].launch_thread = 0;
	}
	if (!n)
		return;
	if (n >= UINT32_MAX)
		die("too many launches (%zu)", n);
	corr_index_make(&x, t);
	stash_read(&ti->launches, &r);
	for (size_t i = 0; i < n; i++) {
		struct trace_launch l;
		size_t kernels = 0;

		next_launch(ti, &r, &l);
		l.start -= t->start_ns;
		for (uint32_t kk = corr_first(&x, l.correlation); kk != UINT32_MAX;
		     kk = corr_next(&x, kk)) {
			struct trace_kernel *k = &t->kernels[kk];

			kernels++;
			if (k->launch >= 0 && l.start >= k->launch)
				continue;
			if (last_thread < 0 || l.tid != last_tid) {
				last_tid = l.tid;
				last_thread = trace_thread_index(t, l.tid);
			}
			if (last_thread < 0) {
				lost++;
				continue;
			}
			k->launch = l.start;
			k->launch_thread = (uint16_t)last_thread;
		}
		if (l.kernel || kernels > 1 || (kernels == 1 && graph_launch_name(t, l.name, memo)))
			VEC_PUSH(t->launches, t->n_launches, ti->cap_launches, l);
	}
	stash_free(&ti->launches);
	corr_index_free(&x);
	sort_runs(t->launches, t->n_launches, sizeof *t->launches, cmp_launch);
	if (lost)
		trace_warn(t,
			   "%zu launch events came from threads beyond the first %u: their kernels "
			   "count as launched from nowhere",
			   lost, TRACE_THREADS_MAX);
}

/* The next stashed operator: its first fields (start, external id, tid), then next_op_rest() for
 * the others or stash_skip() of OP_REST fields to pass them by. */
#define OP_REST 5
static void next_op_head(struct stash_reader *r, struct trace_op *o)
{
	stash_next(r);
	o->start = stash_get_delta(r, 0);
	o->external_id = stash_get_delta(r, 1);
	o->tid = stash_get_delta(r, 2);
}

static void next_op_rest(const struct trace_impl *ti, struct stash_reader *r, struct trace_op *o)
{
	const struct seg_map *m;

	o->dur = (int64_t)stash_get(r);
	o->name = (uint32_t)stash_get(r);
	o->input_dims = (uint32_t)stash_get(r);
	o->input_types = (uint32_t)stash_get(r);
	o->concrete = (uint32_t)stash_get(r);
	if ((m = seg_map_of(ti->op_seg, ti->n_op_seg, r->segment)))
		*o = op_renamed(*o, m->map);
}

/* ---- sorting, the device, the platform ------------------------------------------------ */

static int cmp_kernel(const void *pa, const void *pb)
{
	const struct trace_kernel *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->start, b->start)))
		return c;
	if ((c = CMP(a->stream, b->stream)))
		return c;
	if ((c = CMP(a->correlation, b->correlation)))
		return c;
	if ((c = CMP(a->dur, b->dur)))
		return c;
	return CMP(a->name, b->name);
}

static int cmp_launch(const void *pa, const void *pb)
{
	const struct trace_launch *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->correlation, b->correlation)))
		return c;
	return CMP(a->start, b->start);
}

static int cmp_op(const void *pa, const void *pb)
{
	const struct trace_op *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->external_id, b->external_id)))
		return c;
	return CMP(a->start, b->start);
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct trace_range *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->start, b->start)))
		return c;
	if ((c = CMP(b->dur, a->dur)))
		return c;
	if ((c = CMP(a->kind, b->kind)))
		return c;
	return CMP(a->name, b->name);
}

static int cmp_device(const void *pa, const void *pb)
{
	const struct trace_device *a = pa, *b = pb;

	return CMP(a->id, b->id);
}

static int cmp_int64(const void *pa, const void *pb)
{
	return CMP(*(const int64_t *)pa, *(const int64_t *)pb);
}

static int cmp_fwd_op(const void *pa, const void *pb)
{
	const struct trace_fwd_op *x = pa, *y = pb;
	int r = CMP(x->seq, y->seq);

	return r ? r : CMP(x->start, y->start);
}

/* The external ids that kernels and launches refer to: a bitmap of [lo, lo + span) where the
 * ids are dense enough (a profiler numbers its operators 1, 2, 3, ...: R's 49144 kernels name
 * ids within a span of 154397), else the ids sorted, searched by galloping from the place of
 * the query before (operators come in about the order of their ids). */
struct id_set {
	int64_t lo;
	uint64_t span; /* 0: no bitmap */
	uint64_t *bits;
	int64_t *ids; /* sorted, without a bitmap */
	size_t n;
};

struct id_query {
	const int64_t *ids;
	int64_t id;
};

static int id_before(const void *ctx, size_t i)
{
	const struct id_query *q = ctx;

	return q->ids[i] < q->id;
}

/* The set of ids[0..n) (owned by it from now on). */
static void id_set_make(struct id_set *set, int64_t *ids, size_t n)
{
	int64_t lo = n ? ids[0] : 0, hi = lo;

	for (size_t i = 1; i < n; i++) {
		lo = ids[i] < lo ? ids[i] : lo;
		hi = ids[i] > hi ? ids[i] : hi;
	}
	*set = (struct id_set){ .lo = lo, .ids = ids, .n = n };
	if (n && (uint64_t)hi - (uint64_t)lo < 64 * (uint64_t)n) { /* no more than the array */
		set->span = (uint64_t)hi - (uint64_t)lo + 1;
		set->bits = xcalloc((size_t)(set->span / 64 + 1), sizeof *set->bits);
		for (size_t i = 0; i < n; i++) {
			uint64_t b = (uint64_t)ids[i] - (uint64_t)lo;

			set->bits[b / 64] |= (uint64_t)1 << (b % 64);
		}
		free(ids);
		set->ids = NULL;
		return;
	}
	sort_runs(ids, n, sizeof *ids, cmp_int64);
}

static void id_set_free(struct id_set *set)
{
	free(set->bits);
	free(set->ids);
}

/* Whether the set holds id; *at: the place of the query before, for the sorted ids. */
static int id_set_has(const struct id_set *set, int64_t id, size_t *at)
{
	struct id_query q = { set->ids, id };
	uint64_t b = (uint64_t)id - (uint64_t)set->lo;

	if (set->span)
		return b < set->span && (set->bits[b / 64] >> (b % 64) & 1);
	*at = gallop_prefix(set->n, *at, id_before, &q);
	return *at < set->n && set->ids[*at] == id;
}

/* Keep only the cpu_ops that launched a kept kernel, in their order: nothing else refers to an
 * operator, and operators outnumber kernels several times over, so memory now grows with the
 * kernels. */
static void keep_launching_ops(struct trace *t)
{
	struct trace_impl *ti = impl(t);
	int64_t *ids = xmalloc((t->n_kernels + t->n_launches + ti->n_kernel_ids + 1) * sizeof *ids);
	size_t n = 0, kept = 0, at = 0;
	struct id_set set;

	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].external_id)
			ids[n++] = t->kernels[i].external_id;
	/* a graph capture's launches name their kernels: their operators are kept too (listed
	 * aside while the launches are stashed) */
	for (size_t i = 0; i < ti->n_kernel_ids; i++)
		ids[n++] = ti->kernel_ids[i];
	for (size_t i = 0; i < t->n_launches; i++)
		if (t->launches[i].kernel && t->launches[i].external_id)
			ids[n++] = t->launches[i].external_id;
	id_set_make(&set, ids, n);
	for (size_t i = 0; i < t->n_ops; i++)
		if (id_set_has(&set, t->ops[i].external_id, &at))
			t->ops[kept++] = t->ops[i];
	id_set_free(&set);
	if (kept < t->n_ops) {
		t->n_ops = kept;
		t->ops = xreallocarray(t->ops, kept ? kept : 1, sizeof *t->ops);
		impl(t)->cap_ops = kept ? kept : 1;
	}
}

static int cmp_int32(const void *pa, const void *pb)
{
	return CMP(*(const int32_t *)pa, *(const int32_t *)pb);
}

DEFINE_LOWER_BOUND(device_lower, struct trace_device, int32_t, id)

/* The device with this id among devs[0..n), sorted by id, or NULL. */
static struct trace_device *device_find(struct trace_device *devs, size_t n, int32_t id)
{
	size_t lo = device_lower(devs, n, id);

	return lo < n && devs[lo].id == id ? &devs[lo] : NULL;
}

/* List every device the kernels ran on (sorted by id) and count its kernels and kernel time.
 * n log n, also for a hostile trace with a million kernels on as many devices. */
static void count_devices(struct trace *t)
{
	struct trace_impl *ti = impl(t);
	int32_t *ids = xmalloc((t->n_kernels + 1) * sizeof *ids);
	size_t n_listed;

	for (size_t i = 0; i < t->n_kernels; i++)
		ids[i] = t->kernels[i].device;
	sort_runs(ids, t->n_kernels, sizeof *ids, cmp_int32);
	sort_runs(t->devices, t->n_devices, sizeof *t->devices, cmp_device);
	n_listed = t->n_devices;
	for (size_t i = 0; i < t->n_kernels; i++)
		if ((i == 0 || ids[i] != ids[i - 1]) && !device_find(t->devices, n_listed, ids[i]))
			VEC_PUSH(t->devices, t->n_devices, ti->cap_devices,
				 ((struct trace_device){ .id = ids[i] }));
	free(ids);
	sort_runs(t->devices, t->n_devices, sizeof *t->devices, cmp_device);
	for (size_t i = 0; i < t->n_kernels; i++) {
		struct trace_device *d =
			device_find(t->devices, t->n_devices, t->kernels[i].device);

		d->kernels++;
		d->kernel_events += t->kernels[i].kind == KIND_KERNEL;
		if (t->kernels[i].kind == KIND_KERNEL)
			d->kernel_time = t->kernels[i].dur > INT64_MAX - d->kernel_time
						 ? INT64_MAX
						 : d->kernel_time + t->kernels[i].dur;
	}
}

/* t->start_ns, the earliest start of everything (kernels_t0: the kernels' earliest start,
 * INT64_MAX without kernels), and the starts of the launches, operators, ranges and forward
 * operators held in arrays made relative to it: the kernels' are made relative later
 * (finish_kernels()), the stashed operators' and launches' as they are unpacked. */
static void make_relative(struct trace *t, int64_t kernels_t0)
{
	int64_t t0 = kernels_t0;

	for (size_t i = 0; i < t->n_launches; i++)
		if (t->launches[i].start < t0)
			t0 = t->launches[i].start;
	for (size_t i = 0; i < t->n_ops; i++)
		if (t->ops[i].start < t0)
			t0 = t->ops[i].start;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].start < t0)
			t0 = t->ranges[i].start;
	if (impl(t)->has_ops_t0 && impl(t)->ops_t0 < t0) /* stashed operators that were dropped */
		t0 = impl(t)->ops_t0;
	if (impl(t)->has_launches_t0 && impl(t)->launches_t0 < t0) /* launches still stashed */
		t0 = impl(t)->launches_t0;
	if (t0 == INT64_MAX)
		t0 = 0;
	t->start_ns = t0;
	for (size_t i = 0; i < t->n_launches; i++)
		t->launches[i].start -= t0;
	for (size_t i = 0; i < t->n_ops; i++)
		t->ops[i].start -= t0;
	for (size_t i = 0; i < t->n_ranges; i++)
		t->ranges[i].start -= t0;
	for (size_t i = 0; i < t->n_fwd_ops; i++)
		t->fwd_ops[i].start -= t0;
}

static void detect_platform(struct trace *t)
{
	static const char *const amd_keys[] = { "roctracer_version", "hip_runtime_version",
						"hip_driver_version" };
	static const char *const nv_keys[] = { "cuda_runtime_version", "cupti_version",
					       "cuda_driver_version" };
	const char *amd = NULL, *nv = NULL;
	int32_t warp = 0;

	if (t->platform != PLATFORM_UNKNOWN && t->platform_reason)
		return; /* the format says (a CUPTI or rocprofiler export) */

	for (size_t i = 0; i < 3; i++) {
		if (!amd && trace_meta_get(t, amd_keys[i]))
			amd = amd_keys[i];
		if (!nv && trace_meta_get(t, nv_keys[i]))
			nv = nv_keys[i];
	}
	for (size_t i = 0; i < t->n_devices; i++)
		if ((t->devices[i].id == t->device || t->device == TRACE_ALL_DEVICES) &&
		    t->devices[i].warp_size)
			warp = t->devices[i].warp_size;
	for (size_t i = 0; !warp && i < t->n_devices; i++)
		warp = t->devices[i].warp_size;

	if (amd && !nv) {
		t->platform = PLATFORM_AMD;
		t->platform_reason = amd;
	} else if (nv && !amd) {
		t->platform = PLATFORM_NVIDIA;
		t->platform_reason = nv;
	} else if (warp == 64) {
		t->platform = PLATFORM_AMD;
		t->platform_reason = "warpSize 64";
	} else if (warp == 32) {
		t->platform = PLATFORM_NVIDIA;
		t->platform_reason = "warpSize 32";
	} else {
		t->platform = PLATFORM_UNKNOWN;
		t->platform_reason =
			amd ? "both AMD and NVIDIA version keys" : "no version keys or warpSize";
	}
}

static void pick_gpu_name(struct trace *t)
{
	uint32_t only = 0;
	int same = 1;

	for (size_t i = 0; i < t->n_devices; i++) {
		const struct trace_device *d = &t->devices[i];

		if (d->id == t->device && d->name && t->device != TRACE_ALL_DEVICES) {
			t->gpu_name = d->name;
			return;
		}
		if (d->name) {
			if (only && only != d->name)
				same = 0;
			only = d->name;
		}
	}
	/* The kernels' device is not listed (the process saw one GPU under another number, as
	 * with HIP_VISIBLE_DEVICES): when all listed devices are the same GPU, it is that one. */
	if (same)
		t->gpu_name = only;
}

void trace_resort(struct trace *t)
{
	sort_runs(t->launches, t->n_launches, sizeof *t->launches, cmp_launch);
	sort_runs(t->ops, t->n_ops, sizeof *t->ops, cmp_op);
	sort_runs(t->ranges, t->n_ranges, sizeof *t->ranges, cmp_range);
}

void trace_sort_all(struct trace *t)
{
	sort_runs(t->kernels, t->n_kernels, sizeof *t->kernels, cmp_kernel);
	trace_resort(t);
	sort_runs(t->fwd_ops, t->n_fwd_ops, sizeof *t->fwd_ops, cmp_fwd_op);
}

/* The kept operators of the stash's segments [seg0, seg1): those whose external id is among
 * ids, into an array of their own, their starts made relative (by start_ns). A job of
 * its own, so that two threads can take a share each; one job of all segments reads the stash
 * as stash_read() does, unmapping it as it goes. With kernels, the job goes on with the
 * kernels' part of trace_finish (which touches no operator). */
struct op_job {
	struct trace *t;
	struct stash *s;
	size_t seg0, seg1;
	const struct id_set *ids;
	struct trace_op *ops; /* owned: free() */
	size_t n, cap;
	struct kernel_job *kernels;
};

/* The kernels' part of trace_finish (finish_kernels()) and what it returns. */
struct kernel_job {
	int32_t want;
	struct fd_error *err;
	int rc;
};

static int finish_kernels(struct trace *t, int32_t want, struct fd_error *err);

static void *unpack_op_job(void *arg)
{
	struct op_job *j = arg;
	const struct trace_impl *ti = impl(j->t);
	struct stash_reader r;
	size_t at = 0, end = stash_segment_first(j->s, j->seg1);

	segments_read(j->s, j->seg0, j->seg1, &r);
	for (size_t i = stash_segment_first(j->s, j->seg0); i < end; i++) {
		struct trace_op o;

		next_op_head(&r, &o);
		if (!id_set_has(j->ids, o.external_id, &at)) {
			stash_skip(&r, OP_REST); /* most operators launched nothing */
			continue;
		}
		next_op_rest(ti, &r, &o);
		o.start -= j->t->start_ns;
		VEC_PUSH(j->ops, j->n, j->cap, o);
	}
	if (j->kernels)
		j->kernels->rc = finish_kernels(j->t, j->kernels->want, j->kernels->err);
	return NULL;
}

/* Below this many operators a job's array grows as it fills */
#define OPS_ROOM_MIN 4096

/* The stashed operators that a kernel (ids[0..n), owned from now on: the External ids of every
 * kernel) or a launch that names its kernel may refer to, after t->ops in the order they were
 * stashed (a superset of what keep_launching_ops keeps: it runs after the device is chosen, so
 * that the result is the same as if all had been added), their starts made relative; with kj,
 * finish_kernels() meanwhile: two threads share the work (the one that takes the kernels a
 * third of the operators) where the stash has several segments. Returns kj's result, or 0. */
static int unpack_ops(struct trace *t, int64_t *ids, size_t n, struct kernel_job *kj)
{
	struct trace_impl *ti = impl(t);
	size_t nseg = ti->ops.n_seg + 1, mid;
	struct op_job j[2];
	struct id_set set;

	/* the launches are still stashed: those that name their kernel were listed */
	ids = xreallocarray(ids, n + ti->n_kernel_ids + 1, sizeof *ids);
	for (size_t i = 0; i < ti->n_kernel_ids; i++)
		ids[n++] = ti->kernel_ids[i];
	id_set_make(&set, ids, n);
	mid = segment_at(&ti->ops, kj ? 2.0 / 3 : 0.5);
	for (int k = 0; k < 2; k++)
		j[k] = (struct op_job){ .t = t,
					.s = &ti->ops,
					.seg0 = k ? mid : 0,
					.seg1 = k ? nseg : mid,
					.ids = &set,
					.kernels = k ? kj : NULL };
	if (mid >= nseg) {
		j[0].seg1 = nseg; /* all of them, then the kernels */
		j[0].kernels = kj;
	}
	/* Room for what each job may keep (no more than its records, nor than the ids: an
	 * operator per External id), touched as it fills: the first job's array is kept and the
	 * second's appended to it, so it has room for both. Grown from nothing, the two arrays
	 * took their first 4 MiB in small pages and were copied as they grew (1,350 of the
	 * 1.18 GB trace's page faults on two threads). */
	for (int k = 0; k < (mid < nseg ? 2 : 1); k++) {
		size_t recs = stash_segment_first(&ti->ops, k ? j[1].seg1 : nseg) -
			      stash_segment_first(&ti->ops, j[k].seg0);

		j[k].cap = recs < set.n ? recs : set.n;
		if (j[k].cap >= OPS_ROOM_MIN)
			j[k].ops = big_alloc(j[k].cap, sizeof *j[k].ops);
		else
			j[k].cap = 0;
	}
	if (mid < nseg)
		run_both(unpack_op_job, &j[0], &j[1]);
	else
		unpack_op_job(&j[0]);
	/* read: the stash's memory goes back before the second job's operators are appended */
	id_set_free(&set);
	stash_free(&ti->ops);
	for (int k = 0; k < 2; k++) {
		if (!t->n_ops && j[k].n) { /* taken as it is */
			free(t->ops);
			t->ops = j[k].ops;
			t->n_ops = j[k].n;
			ti->cap_ops = j[k].cap;
			continue;
		}
		for (size_t i = 0; i < j[k].n; i++)
			trace_add_op(t, &j[k].ops[i]);
		free(j[k].ops);
	}
	return kj ? kj->rc : 0;
}

/* The kernels' part of trace_finish: their starts made relative, the device chosen (its
 * kernels kept), the times checked and repaired, the kernels sorted. 0, or -1 with err set. */
static int finish_kernels(struct trace *t, int32_t want, struct fd_error *err)
{
	size_t kept = 0;
	struct trace_device *best = NULL;
	int64_t total;

	for (size_t i = 0; i < t->n_kernels; i++)
		t->kernels[i].start -= t->start_ns;
	count_devices(t);
	if (want == TRACE_ALL_DEVICES) { /* --device all: every device's kernels, as one */
		t->device = TRACE_ALL_DEVICES;
		goto kept;
	}
	for (size_t i = 0; i < t->n_devices; i++) {
		struct trace_device *d = &t->devices[i];

		if (want >= 0 ? d->id == want
			      : d->kernels && (!best || d->kernel_time > best->kernel_time))
			best = d;
	}
	if (!best || !best->kernels) {
		char list[256] = "";
		size_t n = 0;

		for (size_t i = 0; i < t->n_devices && n < sizeof list - 16; i++)
			if (t->devices[i].kernels)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%d",
						      n ? ", " : "", t->devices[i].id);
		fd_error_set(err, "%s: no kernels on device %d (kernels ran on device %s)", t->path,
			     want, list);
		return -1;
	}
	t->device = best->id;
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].device == t->device)
			t->kernels[kept++] = t->kernels[i];
	t->n_other_device = t->n_kernels - kept;
	t->n_kernels = kept;
kept:
	kept = t->n_kernels;
	t->n_kernel_events = 0;
	for (size_t i = 0; i < kept; i++)
		t->n_kernel_events += t->kernels[i].kind == KIND_KERNEL;
	if (t->n_kernel_events == 0) {
		fd_error_set(err, "%s: no GPU kernels on device %d", t->path, t->device);
		return -1;
	}
	/* The sum of the durations must fit too, for everyone who adds them up. */
	total = 0;
	for (size_t i = 0; i < kept && total <= TRACE_TIME_MAX; i++)
		total = t->kernels[i].dur > TRACE_TIME_MAX - total ? TRACE_TIME_MAX + 1
								   : total + t->kernels[i].dur;
	if (total > TRACE_TIME_MAX) {
		fd_error_set(
			err,
			"%s: kernel durations add up to more than 200 years: the times are damaged",
			t->path);
		return -1;
	}
	trace_repair_graph_times(t); /* kernels are still in listed order here */
	sort_runs(t->kernels, t->n_kernels, sizeof *t->kernels, cmp_kernel);
	return 0;
}

/* The accelerator whose events t holds instead of GPU kernels (Kineto's event categories for
 * devices fusediff does not read), written as "an MTIA device (events: 3 mtia_runtime, 12
 * mtia_ccp_events)" into buf; NULL when there is none. */
static const char *other_device(const struct trace *t, char *buf, size_t cap)
{
	static const struct {
		const char *prefix, *device;
	} devices[] = {
		{ "mtia_", "an MTIA device" },
		{ "hpu_", "an Intel Gaudi (HPU) device" },
		{ "xpu_", "an Intel XPU device" },
		{ "privateuse1_", "a PrivateUse1 backend's device" },
		{ "glow_", "a Glow runtime" },
		{ "mlu_", "a Cambricon MLU device" },
		{ "npu_", "an Ascend NPU device" },
	};
	int dev = -1, listed = 0;
	size_t n = 0;

	for (size_t i = 0; i < t->n_categories && dev < 0; i++)
		for (size_t d = 0; d < sizeof devices / sizeof devices[0] && dev < 0; d++)
			if (strncmp(trace_str(t, t->categories[i].name), devices[d].prefix,
				    strlen(devices[d].prefix)) == 0)
				dev = (int)d;
	if (dev < 0)
		return NULL;
	n = (size_t)snprintf(buf, cap, "%s (events: ", devices[dev].device);
	for (size_t i = 0; i < t->n_categories && listed < 3 && n < cap; i++) {
		const char *c = trace_str(t, t->categories[i].name);
		char esc[96]; /* the rest of the name is the trace's: escaped (one line) */

		if (strncmp(c, devices[dev].prefix, strlen(devices[dev].prefix)) != 0)
			continue;
		text_escape(esc, sizeof esc, c, intern_len(t->strings, t->categories[i].name));
		text_utf8_trim(esc);
		n += (size_t)snprintf(buf + n, cap - n, "%s%lld %s", listed ? ", " : "",
				      (long long)t->categories[i].count, esc);
		listed++;
	}
	if (n < cap)
		snprintf(buf + n, cap - n, ")");
	return buf;
}

/* "no GPU kernels", with the advice of the profiler that wrote t, or what t holds instead. */
static void no_kernels(const struct trace *t, struct fd_error *err)
{
	const char *f = t->format ? t->format : "";
	char dev[512];

	if (other_device(t, dev, sizeof dev))
		fd_error_set(err,
			     "%s: no GPU kernels: this trace records %s, which fusediff does not "
			     "read (it reads CUDA and ROCm GPU kernels)",
			     t->path, dev);
	else if (strncmp(f, "rocprofv3 kernel_trace.csv", 26) == 0 && t->n_events)
		fd_error_set(err,
			     "%s: none of its %lld kernel rows has a Start_Timestamp and "
			     "End_Timestamp that can be used",
			     t->path, (long long)t->n_events);
	else if (strncmp(f, "rocprofv3", 9) == 0 || strncmp(f, "rocpd", 5) == 0)
		fd_error_set(err,
			     "%s: no GPU kernels in this trace (record it with rocprofv3 "
			     "--kernel-trace)",
			     t->path);
	else if (strncmp(f, "Nsight", 6) == 0)
		fd_error_set(err,
			     "%s: no GPU kernels in this export (profile with nsys --trace=cuda)",
			     t->path);
	else
		fd_error_set(
			err,
			"%s: no GPU kernels in this trace (record it with ProfilerActivity.CUDA)",
			t->path);
}

int trace_finish(struct trace *t, int32_t want, int capture, struct fd_error *err)
{
	struct kernel_job kj = { want, err, 0 };
	int64_t total = 0, t0 = INT64_MAX;
	int64_t *ids = xmalloc((t->n_kernels + 1) * sizeof *ids);
	size_t n = 0, ops_before = t->n_ops;

	/* one pass over the kernels for what comes before the operators are unpacked */
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		total += k->kind == KIND_KERNEL;
		t0 = k->start < t0 ? k->start : t0;
		if (k->external_id)
			ids[n++] = k->external_id;
	}
	if (total == 0 && !capture) {
		free(ids);
		no_kernels(t, err);
		return -1;
	}
	make_relative(t, t0);
	if (total == 0) { /* a graph capture: its launches ran no kernel */
		unpack_ops(t, ids, n, NULL);
		for (size_t i = 0; i < t->n_kernels; i++)
			t->kernels[i].start -= t->start_ns;
		count_devices(t);
		fold_launches(t); /* sorted */
		t->device = -1;
		t->n_other_device = t->n_kernels;
		t->n_kernels = t->n_kernel_events = 0;
		sort_runs(t->ops, t->n_ops, sizeof *t->ops, cmp_op);
		keep_launching_ops(t);
		sort_runs(t->ranges, t->n_ranges, sizeof *t->ranges, cmp_range);
		sort_runs(t->fwd_ops, t->n_fwd_ops, sizeof *t->fwd_ops, cmp_fwd_op);
		detect_platform(t);
		return 0;
	}
	if (unpack_ops(t, ids, n, &kj) < 0)
		return -1;
	sort_runs(t->ops, t->n_ops, sizeof *t->ops, cmp_op);
	/* unpack_ops kept what keep_launching_ops would where every operator came from the stash
	 * and every kernel stayed */
	if (ops_before || t->n_other_device || t->n_launches)
		keep_launching_ops(t);
	sort_runs(t->ranges, t->n_ranges, sizeof *t->ranges, cmp_range);
	sort_runs(t->fwd_ops, t->n_fwd_ops, sizeof *t->fwd_ops, cmp_fwd_op);
	fold_launches(t);	      /* sorted */
	trace_free_seg_maps(impl(t)); /* the merged parts' renamings: every stash is read */
	detect_platform(t);
	pick_gpu_name(t);
	return 0;
}
