/* passes.c — forward passes from annotation ranges (see structure.h).
 *
 * An annotation is one record_function range: its CPU side (user_annotation) and the GPU
 * ranges Kineto derives from it, one per stream (gpu_user_annotation, same External id).
 * GPU ranges without a CPU side are grouped by name and overlap in time.
 *
 * A kernel belongs to the innermost annotation that launched it: the CPU range containing its
 * launch event (found through the correlation id; kernels run later than their CPU range, so
 * CPU and GPU times are never compared). Kernels without a launch event (work queued before
 * the profiler started, some graph replays) fall back to the GPU range on their own stream.
 *
 * Annotations nest (SGLang: step[DECODE] inside execute_..., ProfilerStep#N around prefill
 * and decode, vLLM: forward and sample ranges inside execute_model). An annotation is one pass
 * (with everything inside it) unless it is a container: it holds two or more annotations that
 * look like passes, or it does not look like a pass itself and holds two or more annotations,
 * or it does not look like a pass while its siblings do. So execute_... with its one
 * step[DECODE] child is one pass (not two), execute_model with forward and sample inside is one
 * pass, and a ProfilerStep around a prefill, 16 decodes and the sampling between gives 17
 * passes. With --pass every matching annotation looks like a pass. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fusediff/bigmem.h"
#include "fusediff/regex_guard.h"
#include "fusediff/text.h"
#include "structure_int.h"

struct ann {
	uint32_t name;
	int64_t start, end; /* CPU extent when has_cpu, else the GPU span */
	int64_t tid;	    /* CPU thread (0 for GPU-only annotations) */
	uint8_t has_cpu, has_gpu, passlike;
	int32_t parent;
	uint32_t n_direct, n_tree;	   /* kernels directly in it, in its subtree */
	uint32_t n_bwd_direct, n_bwd_tree; /* of which backward kernels */
	uint8_t kid_train;		   /* a child holds forward and backward kernels */
	uint32_t n_kids;		   /* children with kernels */
	uint32_t n_kids_passlike;	   /* of which look like a pass */
	uint8_t expect; /* its siblings look like passes: it must too, to be one */
	int32_t pass;	/* pass index, -1 */
	uint8_t state;
	uint32_t first_kernel;
};

enum { ANN_NONE, ANN_PASS, ANN_INSIDE, ANN_CONTAINER };

/* A range index with its sort keys. */
struct rkey {
	int64_t a, b, c, d;
	uint32_t i;
};

static int cmp_rkey(const void *pa, const void *pb)
{
	const struct rkey *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->a, y->a)) || (r = CMP(x->b, y->b)) || (r = CMP(x->c, y->c)) ||
	    (r = CMP(x->d, y->d)))
		return r;
	return CMP(x->i, y->i);
}

static void sort_keys(struct rkey *k, size_t n)
{
	if (n)
		qsort(k, n, sizeof *k, cmp_rkey);
}

/* Names that are never a forward pass: Inductor's "## Call CompiledFxGraph ... ##" and the
 * like. */
static int never_pass(const char *name)
{
	return strncmp(name, "##", 2) == 0 || *name == '\0';
}

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

/* Names that look like one forward pass or one engine step. */
static int looks_like_pass(const char *name)
{
	static const char *const words[] = { "prefill",	   "decode",   "extend", "context",
					     "generation", "execute",  "step",	 "forward",
					     "mixed",	   "iteration" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (contains_ci(name, words[i]))
			return 1;
	return 0;
}

/* The number after "word_" in name, or -1. */
static long number_after(const char *name, const char *word)
{
	const char *p = strstr(name, word);

	if (!p)
		return -1;
	p += strlen(word);
	if (*p < '0' || *p > '9')
		return -1;
	return strtol(p, NULL, 10);
}

int phase_of_annotation(const char *name)
{
	long ctx = number_after(name, "context_"), gen = number_after(name, "generation_");

	/* vLLM/TensorRT-LLM style: execute_16_context_0(...)_generation_16(...) counts the
	 * requests of each kind in the step. */
	if (ctx >= 0 && gen >= 0) {
		if (ctx > 0 && gen > 0)
			return PHASE_MIXED;
		if (ctx > 0)
			return PHASE_PREFILL;
		if (gen > 0)
			return PHASE_DECODE;
		return -1;
	}
	if (contains_ci(name, "mixed"))
		return PHASE_MIXED;
	if (contains_ci(name, "decode") || contains_ci(name, "generation"))
		return PHASE_DECODE;
	if (contains_ci(name, "prefill") || contains_ci(name, "extend") ||
	    contains_ci(name, "context"))
		return PHASE_PREFILL;
	return -1;
}

/* Whether annotation x holds forward and backward kernels. */
static int is_train(const struct ann *x)
{
	return x->n_bwd_tree > 0 && x->n_bwd_tree < x->n_tree;
}

/* Build the annotations. range_ann[i] receives the annotation of GPU range i, else -1. */
static size_t build_anns(const struct trace *t, const uint8_t *keep, struct ann **out,
			 int32_t *range_ann)
{
	struct rkey *k = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *k);
	size_t nk = 0, n = 0, cap = 0;
	struct ann *a = NULL;

	for (size_t i = 0; i < t->n_ranges; i++) {
		range_ann[i] = -1;
		if (!keep[i])
			continue;
		/* group by External id; GPU-only ranges (id 0) by name, then start */
		if (t->ranges[i].external_id != 0)
			k[nk++] = (struct rkey){ 0, t->ranges[i].external_id, t->ranges[i].kind,
						 t->ranges[i].start, (uint32_t)i };
		else
			k[nk++] = (struct rkey){ 1, t->ranges[i].kind, t->ranges[i].name,
						 t->ranges[i].start, (uint32_t)i };
	}
	sort_keys(k, nk);
	for (size_t j = 0; j < nk; j++) {
		const struct trace_range *r = &t->ranges[k[j].i];
		int64_t end = r->start + (r->dur > 0 ? r->dur : 0);
		struct ann *cur = n ? &a[n - 1] : NULL;
		int join;

		if (r->external_id != 0)
			join = j > 0 && k[j - 1].a == 0 && k[j - 1].b == r->external_id &&
			       r->kind == RANGE_GPU_USER;
		else
			join = j > 0 && k[j - 1].a == 1 && r->kind == RANGE_GPU_USER &&
			       k[j - 1].b == RANGE_GPU_USER && cur->name == r->name &&
			       !cur->has_cpu && r->start <= cur->end;
		if (!join) {
			VEC_RESERVE(a, n, cap);
			cur = &a[n++];
			memset(cur, 0, sizeof *cur);
			cur->name = r->name;
			cur->parent = -1;
			cur->pass = -1;
			cur->start = r->start;
			cur->end = end;
			cur->first_kernel = UINT32_MAX;
		}
		if (r->kind == RANGE_USER) {
			cur->has_cpu = 1;
			cur->start = r->start;
			cur->end = end;
			cur->tid = r->tid;
		} else {
			if (!cur->has_cpu) {
				if (!cur->has_gpu || r->start < cur->start)
					cur->start = r->start;
				if (!cur->has_gpu || end > cur->end)
					cur->end = end;
			}
			cur->has_gpu = 1;
			range_ann[k[j].i] = (int32_t)(n - 1);
		}
	}
	free(k);
	*out = a;
	return n;
}

/* Nest the annotations: parent = the innermost one (same domain and thread) containing it.
 * Returns the pre-order (parents before children) in order[]. */
static void nest_anns(struct ann *a, size_t n, uint32_t *order)
{
	struct rkey *k = xmalloc((n ? n : 1) * sizeof *k);
	uint32_t *stack = xmalloc((n ? n : 1) * sizeof *stack);
	size_t sp = 0;

	for (size_t i = 0; i < n; i++)
		k[i] = (struct rkey){ a[i].has_cpu ? 0 : 1, a[i].has_cpu ? a[i].tid : 0, a[i].start,
				      -a[i].end, (uint32_t)i };
	sort_keys(k, n);
	for (size_t j = 0; j < n; j++) {
		struct ann *x = &a[k[j].i];

		order[j] = k[j].i;
		while (sp > 0) {
			const struct rkey *top = &k[stack[sp - 1]];

			if (top->a == k[j].a && top->b == k[j].b && -top->d >= x->end)
				break;
			sp--;
		}
		x->parent = sp > 0 ? (int32_t)k[stack[sp - 1]].i : -1;
		stack[sp++] = (uint32_t)j;
	}
	free(stack);
	free(k);
}

/* Intervals of one kind, sorted by (thread or stream, start), with the enclosing interval of
 * the same list, for "innermost interval containing time x". */
struct ivals {
	struct rkey *k; /* a = thread/stream, b = start, c = -end, d = -, i = annotation */
	int32_t *up;	/* index of the enclosing interval in k, -1 */
	size_t n;
};

static void ivals_finish(struct ivals *v)
{
	uint32_t *stack = xmalloc((v->n ? v->n : 1) * sizeof *stack);
	size_t sp = 0;

	sort_keys(v->k, v->n);
	v->up = xmalloc((v->n ? v->n : 1) * sizeof *v->up);
	for (size_t j = 0; j < v->n; j++) {
		while (sp > 0 && !(v->k[stack[sp - 1]].a == v->k[j].a &&
				   -v->k[stack[sp - 1]].c >= -v->k[j].c))
			sp--;
		v->up[j] = sp > 0 ? (int32_t)stack[sp - 1] : -1;
		stack[sp++] = (uint32_t)j;
	}
	free(stack);
}

/* Whether interval j starts at or before x on `where` (or lies on an earlier thread or stream):
 * true for a prefix of the sorted intervals. */
static int ivals_before(const struct ivals *v, size_t j, int64_t where, int64_t x)
{
	return v->k[j].a < where || (v->k[j].a == where && v->k[j].b <= x);
}

struct ivals_query {
	const struct ivals *v;
	int64_t where, x;
};

static int ivals_before_q(const void *ctx, size_t j)
{
	const struct ivals_query *q = ctx;

	return ivals_before(q->v, j, q->where, q->x);
}

/* The first interval that does not start at or before x on `where`, searched from *hint (the
 * answer of the previous query, which the next one is usually near: kernels come in time
 * order). */
static size_t ivals_upper(const struct ivals *v, int64_t where, int64_t x, size_t *hint)
{
	struct ivals_query q = { v, where, x };
	size_t lo = gallop_prefix(v->n, *hint, ivals_before_q, &q);

	*hint = lo;
	return lo;
}

/* The annotation of the innermost interval on `where` containing x, or -1. inclusive_end:
 * CPU ranges contain their end instant. hint: see ivals_upper(). */
static int32_t ivals_find(const struct ivals *v, int64_t where, int64_t x, int inclusive_end,
			  size_t *hint)
{
	int32_t j;

	for (j = (int32_t)ivals_upper(v, where, x, hint) - 1; j >= 0 && v->k[j].a == where;
	     j = v->up[j]) {
		int64_t end = -v->k[j].c;

		if (x < end || (inclusive_end && x == end))
			return (int32_t)v->k[j].i;
	}
	return -1;
}

DEFINE_LOWER_BOUND(rkey_lower, struct rkey, int64_t, a)

/* Whether any interval lies on `where`. */
static int ivals_has(const struct ivals *v, int64_t where)
{
	size_t lo = rkey_lower(v->k, v->n, where);

	return lo < v->n && v->k[lo].a == where;
}

static void ivals_clear(struct ivals *v)
{
	free(v->k);
	free(v->up);
}

/* Assign every kernel to its innermost annotation (kernel_ann[k], -1). */
static void assign_kernels(const struct trace *t, const uint8_t *part, const struct ann *a,
			   size_t n, const int32_t *range_ann, int32_t *kernel_ann)
{
	struct ivals cpu = { 0 }, gpu = { 0 }, any = { 0 };
	size_t hint_cpu = 0, hint_gpu = 0, hint_any = 0;
	int64_t last_tid = 0;
	int last_has = -1; /* ivals_has(&cpu, last_tid); -1: not asked yet */

	cpu.k = xmalloc((n ? n : 1) * sizeof *cpu.k);
	for (size_t i = 0; i < n; i++)
		if (a[i].has_cpu)
			cpu.k[cpu.n++] =
				(struct rkey){ a[i].tid, a[i].start, -a[i].end, 0, (uint32_t)i };
	ivals_finish(&cpu);
	/* the same on every thread at once, for the backward pass: autograd's threads launch it
	 * while the thread that annotated the training step waits in backward() */
	any.k = xmalloc((n ? n : 1) * sizeof *any.k);
	for (size_t i = 0; part && i < n; i++)
		if (a[i].has_cpu)
			any.k[any.n++] = (struct rkey){ 0, a[i].start, -a[i].end, 0, (uint32_t)i };
	ivals_finish(&any);
	gpu.k = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *gpu.k);
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (range_ann[i] >= 0 && (r->pid == t->device || t->device == TRACE_ALL_DEVICES))
			gpu.k[gpu.n++] = (struct rkey){ r->tid, r->start, -(r->start + r->dur), 0,
							(uint32_t)range_ann[i] };
	}
	ivals_finish(&gpu);

	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int launched = k->launch >= 0;

		if (launched && (last_has < 0 || trace_launch_tid(t, k) != last_tid)) {
			last_tid = trace_launch_tid(t, k);
			last_has = ivals_has(&cpu, last_tid);
		}
		/* The launch is the truth when the thread that launched it recorded annotations:
		 * a kernel launched outside all of them is outside every pass, whatever the GPU
		 * ranges say. Without a launch event, the GPU range on the kernel's stream. */
		if (launched && last_has)
			kernel_ann[i] = ivals_find(&cpu, last_tid, k->launch, 1, &hint_cpu);
		else
			kernel_ann[i] =
				gpu.n ? ivals_find(&gpu, k->stream, k->start, 0, &hint_gpu) : -1;
		if (kernel_ann[i] < 0 && launched && part && part[i] != PART_FORWARD && any.n)
			kernel_ann[i] = ivals_find(&any, 0, k->launch, 1, &hint_any);
	}
	ivals_clear(&any);
	ivals_clear(&cpu);
	ivals_clear(&gpu);
}

static int cmp_i64(const void *pa, const void *pb)
{
	const int64_t *x = pa, *y = pb;

	return CMP(*x, *y);
}

size_t passes_sort_unique(int64_t *v, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(v, n, sizeof *v, cmp_i64);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

int passes_has_i64(const int64_t *v, size_t n, int64_t x)
{
	return n && bsearch(&x, v, n, sizeof *v, cmp_i64) != NULL;
}

void passes_place_by_window(const struct trace *t, int32_t *pass_of, size_t n_passes,
			    const uint8_t *eligible)
{
	int64_t *lo, *hi;
	size_t p = 0;

	if (n_passes == 0)
		return;
	lo = xmalloc(n_passes * sizeof *lo);
	hi = xmalloc(n_passes * sizeof *hi);
	for (size_t i = 0; i < n_passes; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
	}
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int32_t q = pass_of[i];

		if (q < 0)
			continue;
		if (k->start < lo[q])
			lo[q] = k->start;
		if (k->start + k->dur > hi[q])
			hi[q] = k->start + k->dur;
	}
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		if (pass_of[i] >= 0)
			continue;
		while (p + 1 < n_passes && lo[p + 1] <= k->start)
			p++;
		if (!eligible[i])
			continue;
		for (size_t q = p + 1, tries = 0; q-- > 0 && tries < 8; tries++)
			if (lo[q] <= k->start && k->start < hi[q]) {
				pass_of[i] = (int32_t)q;
				break;
			}
	}
	free(lo);
	free(hi);
}

/* A pass's CPU range (the annotation that is the pass), for kernels other threads launched. */
struct cpu_win {
	int64_t start, end;
	int32_t pass;
};

static int cmp_cpu_win(const void *pa, const void *pb)
{
	const struct cpu_win *x = pa, *y = pb;
	int r = CMP(x->start, y->start);

	return r ? r : CMP(x->pass, y->pass);
}

struct win_query {
	const struct cpu_win *v;
	int64_t x;
};

static int win_before(const void *ctx, size_t j)
{
	const struct win_query *q = ctx;

	return q->v[j].start <= q->x;
}

/* Kernels that no pass holds, of passes found from annotations (renum: annotation's pass index
 * to the final one). A kernel that a thread without passes launched while a pass's CPU range
 * was open (a data-parallel reducer's all-reduce, a collective on its own thread) belongs to
 * that pass; the rest, to the pass whose GPU window holds it (passes_place_by_window()) — not
 * one that the thread of a pass launched outside every pass (a serving loop preparing the next
 * step on a side stream while the GPU still runs this one), nor one without a launch event on
 * a stream where the passes' GPU ranges say where it belongs. */
static void place_by_window(const struct trace *t, const struct ann *a, size_t n_ann,
			    const int32_t *range_ann, const int32_t *renum, int32_t *pass_of,
			    size_t n_passes)
{
	int64_t *tids, *streams;
	size_t n_tids = 0, n_streams = 0, n_win = 0, hint = 0;
	uint8_t *eligible = big_alloc(t->n_kernels, 1);
	struct cpu_win *win = xmalloc((n_ann ? n_ann : 1) * sizeof *win);

	tids = xmalloc((n_ann ? n_ann : 1) * sizeof *tids);
	for (size_t i = 0; i < n_ann; i++)
		if (a[i].pass >= 0 && a[i].has_cpu) {
			tids[n_tids++] = a[i].tid;
			if (a[i].state == ANN_PASS)
				win[n_win++] =
					(struct cpu_win){ a[i].start, a[i].end, renum[a[i].pass] };
		}
	n_tids = passes_sort_unique(tids, n_tids);
	if (n_win)
		qsort(win, n_win, sizeof *win, cmp_cpu_win);
	streams = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *streams);
	for (size_t i = 0; i < t->n_ranges; i++)
		if (range_ann[i] >= 0 && a[range_ann[i]].pass >= 0)
			streams[n_streams++] = t->ranges[i].tid;
	n_streams = passes_sort_unique(streams, n_streams);
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int launched = k->launch >= 0;

		eligible[i] = launched ? !passes_has_i64(tids, n_tids, trace_launch_tid(t, k))
				       : !passes_has_i64(streams, n_streams, k->stream);
		if (pass_of[i] >= 0 || !eligible[i] || !launched || !n_win)
			continue;
		{
			/* the last pass whose CPU range opened before the launch, if still open */
			struct win_query q = { win, k->launch };
			size_t lo = gallop_prefix(n_win, hint, win_before, &q);

			hint = lo;
			for (size_t j = lo, tries = 0; j-- > 0 && tries < 8; tries++)
				if (k->launch <= win[j].end) {
					pass_of[i] = win[j].pass;
					break;
				}
		}
	}
	passes_place_by_window(t, pass_of, n_passes, eligible);
	free(eligible);
	free(tids);
	free(streams);
	free(win);
}

/* Append "'name'" (shortened) to buf. */
static void append_name(char *buf, size_t cap, const char *name)
{
	size_t len = strlen(buf);
	char cut[48];

	snprintf(cut, sizeof cut, "%s", name);
	if (strlen(name) > 40)
		cut[41] = '\0';
	text_cut(cut, 40);
	snprintf(buf + len, cap - len, "'%s'", cut);
	text_utf8_trim(buf);
}

static void describe(const struct trace *t, struct pass_plan *p, const char *regex, int any_gpu)
{
	char *buf = p->source;
	size_t cap = sizeof p->source, shown = 0, len;
	uint32_t seen[3];

	if (regex)
		snprintf(buf, cap, "--pass '%s': %s ", regex,
			 any_gpu ? "gpu_user_annotation" : "user_annotation");
	else
		snprintf(buf, cap, "%s ", any_gpu ? "gpu_user_annotation" : "user_annotation");
	for (size_t i = 0; i < p->n_passes; i++) {
		size_t j;

		for (j = 0; j < shown && seen[j] != p->passes[i].name; j++)
			;
		if (j < shown)
			continue;
		if (shown == 3) {
			len = strlen(buf);
			snprintf(buf + len, cap - len, ", ...");
			break;
		}
		if (shown) {
			len = strlen(buf);
			snprintf(buf + len, cap - len, ", ");
		}
		seen[shown++] = p->passes[i].name;
		append_name(buf, cap, trace_str(t, p->passes[i].name));
	}
	if (!any_gpu) {
		len = strlen(buf);
		snprintf(buf + len, cap - len, " (kernels by launch correlation)");
	}
}

/* keep[i]: range i is an annotation to consider: its name matches regex (when given), else
 * it is not a name that is never a pass. Returns how many; -1 with err for a bad regex. */
static long keep_ranges(const struct trace *t, const char *regex, uint8_t *keep,
			struct fd_error *err)
{
	regex_t re;
	long n = 0;
	int rc;

	if (regex) {
		char why[160];

		if (regex_guard(regex, why, sizeof why) < 0) {
			char *esc = text_escape_dup(regex, strlen(regex));

			fd_error_set(err, "--pass '%.200s%s': %s", esc,
				     strlen(esc) > 200 ? "..." : "", why);
			free(esc);
			return -1;
		}
		if ((rc = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB)) != 0) {
			char msg[256];

			regerror(rc, &re, msg, sizeof msg);
			fd_error_set(err, "--pass '%s': invalid regular expression: %s", regex,
				     msg);
			return -1;
		}
	}
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *name = trace_str(t, r->name);

		if (r->kind != RANGE_USER && r->kind != RANGE_GPU_USER)
			continue;
		keep[i] = regex ? regexec(&re, name, 0, NULL, 0) == 0 : !never_pass(name);
		n += keep[i];
	}
	if (regex)
		regfree(&re);
	return n;
}

/* Each annotation's kernels, directly and in its subtree (order: parents before children),
 * its children with kernels and which of them look like passes. */
static void count_kernels(const struct trace *t, const uint8_t *part, struct ann *a, size_t n,
			  const uint32_t *order, const int32_t *kernel_ann)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		if (kernel_ann[i] >= 0) {
			struct ann *x = &a[kernel_ann[i]];

			x->n_direct++;
			x->n_bwd_direct += part && part[i] == PART_BACKWARD;
			if (x->first_kernel == UINT32_MAX)
				x->first_kernel = (uint32_t)i;
		}
	/* subtree counts, children with kernels: children come after parents in order[] */
	for (size_t j = n; j-- > 0;) {
		struct ann *x = &a[order[j]];

		x->n_tree += x->n_direct;
		x->n_bwd_tree += x->n_bwd_direct;
		if (x->parent >= 0 && x->n_tree > 0) {
			struct ann *p = &a[x->parent];

			p->n_tree += x->n_tree;
			p->n_bwd_tree += x->n_bwd_tree;
			p->kid_train |= x->kid_train || is_train(x);
			p->n_kids++;
			p->n_kids_passlike += x->passlike;
			if (x->first_kernel < p->first_kernel)
				p->first_kernel = x->first_kernel;
		}
	}
}

/* A new pass of out for annotation x. */
static void add_pass(struct pass_plan *out, size_t *cap, struct ann *x, int phase)
{
	x->state = ANN_PASS;
	x->pass = (int32_t)out->n_passes;
	VEC_RESERVE(out->passes, out->n_passes, *cap);
	out->passes[out->n_passes++] =
		(struct plan_pass){ x->name, (int8_t)phase, x->first_kernel };
}

/* Which annotations are passes, which are inside one and which are containers, parents first
 * (see the file comment); the passes go to out in that order. Returns whether any pass has a
 * GPU range. */
static int decide_passes(const struct trace *t, struct ann *a, size_t n, const uint32_t *order,
			 int regex, struct pass_plan *out)
{
	size_t cap = 0;
	int any_gpu = 0, root_passlike = 0;

	for (size_t i = 0; i < n; i++)
		root_passlike |= a[i].parent < 0 && a[i].n_tree > 0 && a[i].passlike;
	for (size_t j = 0; j < n; j++) {
		struct ann *x = &a[order[j]];
		const struct ann *p = x->parent >= 0 ? &a[x->parent] : NULL;

		if (p && (p->state == ANN_PASS || p->state == ANN_INSIDE)) {
			x->state = ANN_INSIDE;
			x->pass = p->pass;
			if (out->passes[x->pass].phase < 0)
				out->passes[x->pass].phase =
					(int8_t)phase_of_annotation(trace_str(t, x->name));
			continue;
		}
		if (x->n_tree == 0)
			continue;
		/* the smallest range around forward and backward work is one training step */
		if (is_train(x) && !regex) {
			if (x->kid_train) {
				x->state = ANN_CONTAINER;
				continue;
			}
			add_pass(out, &cap, x, PHASE_TRAIN);
			any_gpu |= x->has_gpu;
			continue;
		}
		x->expect = p ? p->n_kids_passlike > 0 || p->expect : root_passlike;
		/* a container: around two passes or more (ProfilerStep around a prefill and the
		 * decodes), or a neutral wrapper of several ranges; a range that does not look like
		 * a pass among siblings that do (a sampling range between decode steps) is not one
		 * either, but what is inside it may be */
		if (x->n_kids_passlike >= 2 || (!x->passlike && x->n_kids >= 2) ||
		    (x->expect && !x->passlike)) {
			x->state = ANN_CONTAINER;
			continue;
		}
		add_pass(out, &cap, x, phase_of_annotation(trace_str(t, x->name)));
		any_gpu |= x->has_gpu;
	}
	return any_gpu;
}

/* Number the passes of out by their first kernel (distinct for distinct passes); renum[i]
 * receives the new number of pass i, and each kernel's annotation in kernel_ann becomes its
 * pass (-1 when none). */
static void renumber(const struct trace *t, const struct ann *a, struct pass_plan *out,
		     int32_t *renum, int32_t *kernel_ann)
{
	struct rkey *k = xmalloc(out->n_passes * sizeof *k);
	struct plan_pass *sorted = xmalloc(out->n_passes * sizeof *sorted);

	for (size_t i = 0; i < out->n_passes; i++)
		k[i] = (struct rkey){ out->passes[i].first, 0, 0, 0, (uint32_t)i };
	sort_keys(k, out->n_passes);
	for (size_t i = 0; i < out->n_passes; i++) {
		renum[k[i].i] = (int32_t)i;
		sorted[i] = out->passes[k[i].i];
	}
	free(k);
	free(out->passes);
	out->passes = sorted;
	for (size_t i = 0; i < t->n_kernels; i++) {
		int32_t an = kernel_ann[i];

		kernel_ann[i] = an >= 0 && a[an].pass >= 0 ? renum[a[an].pass] : -1;
	}
}

int passes_from_annotations(const struct trace *t, const uint8_t *part, const char *regex,
			    struct pass_plan *out, struct fd_error *err)
{
	uint8_t *keep = xcalloc(t->n_ranges ? t->n_ranges : 1, 1);
	int32_t *range_ann = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *range_ann);
	int32_t *kernel_ann;
	struct ann *a = NULL;
	uint32_t *order;
	size_t n;
	long n_matched;
	int any_gpu;

	memset(out, 0, sizeof *out);
	if ((n_matched = keep_ranges(t, regex, keep, err)) < 0) {
		free(keep);
		free(range_ann);
		return -1;
	}
	kernel_ann = big_alloc(t->n_kernels, sizeof *kernel_ann);
	n = build_anns(t, keep, &a, range_ann);
	order = xmalloc((n ? n : 1) * sizeof *order);
	nest_anns(a, n, order);
	assign_kernels(t, part, a, n, range_ann, kernel_ann);
	for (size_t i = 0; i < n; i++)
		a[i].passlike = regex ? 1 : (uint8_t)looks_like_pass(trace_str(t, a[i].name));
	count_kernels(t, part, a, n, order, kernel_ann);
	any_gpu = decide_passes(t, a, n, order, regex != NULL, out);
	if (regex && out->n_passes == 0) {
		if (n_matched == 0)
			fd_error_set(err, "--pass '%s' matches no annotation", regex);
		else
			fd_error_set(err,
				     "--pass '%s' matches only annotations without GPU kernels",
				     regex);
		pass_plan_clear(out);
	} else if (out->n_passes) {
		int32_t *renum = xmalloc(out->n_passes * sizeof *renum);

		renumber(t, a, out, renum, kernel_ann);
		place_by_window(t, a, n, range_ann, renum, kernel_ann, out->n_passes);
		out->pass_of = kernel_ann;
		kernel_ann = NULL;
		free(renum);
		describe(t, out, regex, any_gpu);
	}
	free(keep);
	free(range_ann);
	free(kernel_ann);
	free(order);
	free(a);
	return regex && out->n_passes == 0 ? -1 : 0;
}

void pass_plan_clear(struct pass_plan *p)
{
	free(p->pass_of);
	free(p->passes);
	memset(p, 0, sizeof *p);
}
