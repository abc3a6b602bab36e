/* trace_lookup.c — finding in a finished trace: launches by correlation, operators by
 * External id, the operator of each kernel, module calls, forward operators,
 * metadata and category counts. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace.h"
#include "fusediff/util.h"

const char *trace_platform_name(enum trace_platform p)
{
	switch (p) {
	case PLATFORM_AMD: return "AMD";
	case PLATFORM_NVIDIA: return "NVIDIA";
	default: return "unknown";
	}
}

/* An array of elements of the given size, sorted by the int64_t key at offset off, and a key. */
struct keyed {
	const char *base;
	size_t size, off;
	int64_t x;
};

static int key_before(const void *ctx, size_t i)
{
	const struct keyed *k = ctx;

	return *(const int64_t *)(const void *)(k->base + i * k->size + k->off) < k->x;
}

static int64_t key_at(const struct keyed *k, size_t i)
{
	return *(const int64_t *)(const void *)(k->base + i * k->size + k->off);
}

/* The first index in [0, n) whose key is >= x; n when none. The ids looked up are counters,
 * spread nearly evenly: the search starts where x would be if they were exactly even, so a
 * lookup costs a few nearby probes instead of twenty scattered ones. */
static size_t lower_bound_i64(const void *base, size_t n, size_t size, size_t off, int64_t x)
{
	const struct keyed k = { base, size, off, x };
	int64_t first, last;
	size_t g;

	if (n == 0 || x <= (first = key_at(&k, 0)))
		return 0;
	if (x > (last = key_at(&k, n - 1)))
		return n;
	g = (size_t)(((double)x - (double)first) / ((double)last - (double)first) *
		     (double)(n - 1));
	return gallop_prefix(n, g, key_before, &k);
}

const struct trace_launch *trace_find_launch(const struct trace *t, int64_t correlation)
{
	size_t i = lower_bound_i64(t->launches, t->n_launches, sizeof *t->launches,
				   offsetof(struct trace_launch, correlation), correlation);

	return i < t->n_launches && t->launches[i].correlation == correlation ? &t->launches[i]
									      : NULL;
}

const struct trace_op *trace_find_op(const struct trace *t, int64_t external_id)
{
	size_t i = lower_bound_i64(t->ops, t->n_ops, sizeof *t->ops,
				   offsetof(struct trace_op, external_id), external_id);

	return i < t->n_ops && t->ops[i].external_id == external_id ? &t->ops[i] : NULL;
}

/* The same lower bound, searched from a hint (the answer of a nearby query). */
static size_t lower_bound_near(const void *base, size_t n, size_t size, size_t off, int64_t x,
			       size_t h)
{
	const struct keyed k = { base, size, off, x };

	return gallop_prefix(n, h, key_before, &k);
}

/* CPU ranges (operators, module calls) by (thread, start, longest first): the ones around a
 * launch are the last that start at or before it on its thread, then out. */
struct span {
	int64_t tid, start, end;
	uint32_t index; /* into t->ops or t->ranges */
};

static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	int r = CMP(a->tid, b->tid);

	if (!r)
		r = CMP(a->start, b->start);
	if (!r)
		r = CMP(b->end, a->end);
	return r ? r : CMP(a->index, b->index);
}

struct span_query {
	const struct span *m;
	int64_t tid, ts;
};

/* Spans that start at or before the launch (on its thread or an earlier one). */
static int span_before(const void *ctx, size_t i)
{
	const struct span_query *q = ctx;

	return q->m[i].tid < q->tid || (q->m[i].tid == q->tid && q->m[i].start <= q->ts);
}

/* 1 when the launch (CPU time ts on thread tid) lies inside the operator's CPU range on its
 * thread: an operator launches its kernels while it runs. */
static int op_holds(const struct trace_op *o, int64_t tid, int64_t ts)
{
	return o->tid == tid && ts >= o->start && ts <= o->start + o->dur;
}

/* The innermost operator around a launch at CPU time ts on thread tid (the one that starts
 * last among those that hold it), or UINT32_MAX; *idx is built on first use (owned by the
 * caller: free()). */
static uint32_t op_around(const struct trace *t, int64_t tid, int64_t ts, struct span **idx)
{
	struct span_query q;
	size_t j;

	if (!*idx) {
		*idx = xmalloc((t->n_ops + 1) * sizeof **idx);
		for (size_t i = 0; i < t->n_ops; i++)
			(*idx)[i] = (struct span){ t->ops[i].tid, t->ops[i].start,
						   t->ops[i].start + t->ops[i].dur, (uint32_t)i };
		qsort(*idx, t->n_ops, sizeof **idx, cmp_span);
	}
	q = (struct span_query){ *idx, tid, ts };
	j = gallop_prefix(t->n_ops, 0, span_before, &q);
	for (size_t i = j, tries = 0; i-- > 0 && (*idx)[i].tid == tid && tries < 64; tries++)
		if (ts <= (*idx)[i].end)
			return (*idx)[i].index;
	return UINT32_MAX;
}

int trace_is_graph_launch(const char *name)
{
	return strstr(name, "GraphLaunch") != NULL;
}

size_t trace_link_kernels(const struct trace *t, uint32_t *op_of)
{
	size_t rejected = 0;
	const size_t o_off = offsetof(struct trace_op, external_id);
	size_t ho = 0, no = t->n_ops;
	struct span *idx = NULL;

	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		op_of[i] = UINT32_MAX;
		if (k->external_id) {
			ho = lower_bound_near(t->ops, no, sizeof *t->ops, o_off, k->external_id,
					      ho);
			if (ho < no && t->ops[ho].external_id == k->external_id)
				op_of[i] = (uint32_t)ho;
		}
		/* the link holds only when the launch lies inside the operator's CPU range on
		 * its thread (some PyTorch versions write the correlation id as External id):
		 * else the innermost operator around the launch */
		if (op_of[i] != UINT32_MAX && k->launch >= 0 &&
		    !op_holds(&t->ops[op_of[i]], trace_launch_tid(t, k), k->launch)) {
			op_of[i] = op_around(t, trace_launch_tid(t, k), k->launch, &idx);
			rejected++;
		}
	}
	free(idx);
	return rejected;
}

void trace_module_calls(const struct trace *t, uint32_t *module_of, uint32_t *parent)
{
	struct span *m = NULL;
	uint32_t *up, *stack;
	size_t n = 0, sp = 0, hint = 0;

	for (size_t i = 0; parent && i < t->n_ranges; i++)
		parent[i] = UINT32_MAX;
	for (size_t k = 0; k < t->n_kernels; k++)
		module_of[k] = UINT32_MAX;
	for (size_t i = 0; i < t->n_ranges; i++)
		n += t->ranges[i].kind == RANGE_MODULE;
	if (n == 0)
		return;
	m = xmalloc(n * sizeof *m);
	n = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (r->kind == RANGE_MODULE)
			m[n++] = (struct span){ r->tid, r->start, r->start + r->dur, (uint32_t)i };
	}
	qsort(m, n, sizeof *m, cmp_span);
	/* each range's parent: the innermost earlier range on its thread that contains it */
	up = xmalloc(n * sizeof *up);
	stack = xmalloc(n * sizeof *stack);
	for (size_t i = 0; i < n; i++) {
		while (sp > 0 &&
		       (m[stack[sp - 1]].tid != m[i].tid || m[stack[sp - 1]].end < m[i].end))
			sp--;
		up[i] = sp > 0 ? stack[sp - 1] : UINT32_MAX;
		if (parent)
			parent[m[i].index] = up[i] != UINT32_MAX ? m[up[i]].index : UINT32_MAX;
		stack[sp++] = (uint32_t)i;
	}
	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct trace_kernel *kr = &t->kernels[k];
		struct span_query q;
		size_t j;

		if (kr->launch < 0)
			continue;
		q = (struct span_query){ m, trace_launch_tid(t, kr), kr->launch };
		hint = j = gallop_prefix(n, hint, span_before, &q);
		/* the last range starting at or before the launch, then out to one around it */
		for (uint32_t x = j > 0 ? (uint32_t)(j - 1) : UINT32_MAX;
		     x != UINT32_MAX && m[x].tid == q.tid; x = up[x])
			if (kr->launch <= m[x].end) {
				module_of[k] = m[x].index;
				break;
			}
	}
	free(stack);
	free(up);
	free(m);
}

DEFINE_LOWER_BOUND(fwd_op_lower, struct trace_fwd_op, int64_t, seq)

const struct trace_fwd_op *trace_find_fwd_op(const struct trace *t, int64_t seq)
{
	size_t lo = fwd_op_lower(t->fwd_ops, t->n_fwd_ops, seq);

	return lo < t->n_fwd_ops && t->fwd_ops[lo].seq == seq ? &t->fwd_ops[lo] : NULL;
}

const char *trace_meta_get(const struct trace *t, const char *key)
{
	uint32_t id = intern_find(t->strings, key, strlen(key));

	if (id == UINT32_MAX)
		return NULL;
	for (size_t i = 0; i < t->n_meta; i++)
		if (t->meta[i].key == id)
			return trace_str(t, t->meta[i].value);
	return NULL;
}

int64_t trace_category_count(const struct trace *t, const char *cat)
{
	uint32_t id = intern_find(t->strings, cat, strlen(cat));

	for (size_t i = 0; id != UINT32_MAX && i < t->n_categories; i++)
		if (t->categories[i].name == id)
			return t->categories[i].count;
	return 0;
}

int64_t trace_kernel_time(const struct trace *t)
{
	int64_t sum = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].kind == KIND_KERNEL)
			sum += t->kernels[i].dur;
	return sum;
}
