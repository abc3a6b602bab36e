/* calls.c — passes from nn.Module calls (see structure.h), for traces whose annotations do not
 * mark the passes: each call of the model's top-level module is one pass, or each call of the
 * modules --pass names.
 *
 * A kernel belongs to the call whose CPU range holds its launch (found through the correlation
 * id, on the launching thread). In training, a step is a forward call with the backward and
 * optimizer work up to the next call: the kernels that autograd's threads, the optimizer or a
 * communication thread launched outside every call go to the last call whose first kernel
 * started on the GPU before them. In inference, kernels launched outside the calls by another
 * thread (or without a launch event) go to the call whose GPU window holds them. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "fusediff/regex_guard.h"
#include "structure_int.h"

#define MODULE_PREFIX "nn.Module: "

/* The call (index into t->ranges) of the pass module around kernel k's launch, or -1. */
struct call_pick {
	const struct trace *t;
	const struct module_map *m;
	const uint8_t *part;
	uint32_t *module_of, *parent; /* with a regex: trace_module_calls() */
	const uint8_t *match;	      /* with a regex: per range, its name matches */
	const char *cls;	      /* without: the class of the model's top-level calls */
	size_t cls_len;
};

static int32_t pick(const struct call_pick *c, size_t k)
{
	if (c->match) {
		int32_t found = -1;
		int hops = 0;

		/* the outermost matching call around the launch */
		for (uint32_t r = c->module_of[k]; r != UINT32_MAX && hops < 256;
		     r = c->parent[r], hops++)
			if (c->match[r])
				found = (int32_t)r;
		return found;
	}
	if (c->m->top && c->m->top[k] >= 0) {
		const char *cls;
		size_t len = module_class_name(c->t, (uint32_t)c->m->top[k], &cls);

		if (len == c->cls_len && memcmp(cls, c->cls, len) == 0)
			return c->m->top[k];
	}
	return -1;
}

struct cls_time {
	const char *cls;
	size_t len;
	int64_t ns;
};

static int cmp_cls(const void *pa, const void *pb)
{
	const struct cls_time *x = pa, *y = pb;
	int r = memcmp(x->cls, y->cls, x->len < y->len ? x->len : y->len);

	return r ? r : CMP(x->len, y->len);
}

/* The class of the top-level calls that launched the most forward kernel time, into c; 0 when
 * the trace has no module calls. */
static int main_class(const struct trace *t, const struct module_map *m, const uint8_t *part,
		      struct call_pick *c)
{
	struct cls_time *v = NULL;
	size_t n = 0, cap = 0, best = 0;

	if (!m->top)
		return 0;
	for (size_t k = 0; k < t->n_kernels; k++) {
		const char *cls;
		size_t len;

		if (m->top[k] < 0 || (part && part[k] != PART_FORWARD))
			continue;
		len = module_class_name(t, (uint32_t)m->top[k], &cls);
		if (!len)
			continue;
		if (n && v[n - 1].len == len && memcmp(v[n - 1].cls, cls, len) == 0) {
			v[n - 1].ns += t->kernels[k].dur;
			continue;
		}
		VEC_RESERVE(v, n, cap);
		v[n++] = (struct cls_time){ cls, len, t->kernels[k].dur };
	}
	if (!n) {
		free(v);
		return 0;
	}
	qsort(v, n, sizeof *v, cmp_cls);
	{
		size_t m2 = 0;

		for (size_t i = 0; i < n; i++) {
			if (m2 && cmp_cls(&v[m2 - 1], &v[i]) == 0)
				v[m2 - 1].ns += v[i].ns;
			else
				v[m2++] = v[i];
		}
		n = m2;
	}
	for (size_t i = 1; i < n; i++)
		if (v[i].ns > v[best].ns)
			best = i;
	c->cls = v[best].cls;
	c->cls_len = v[best].len;
	free(v);
	return 1;
}

/* Per range: its name ("nn.Module: Net_0") matches regex as "Net_0" or as its class "Net".
 * Returns how many module calls match. */
static size_t match_calls(const struct trace *t, const regex_t *re, uint8_t *match)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_ranges; i++) {
		const char *name = trace_str(t, t->ranges[i].name), *cls;
		size_t len;

		match[i] = 0;
		if (t->ranges[i].kind != RANGE_MODULE ||
		    !(len = module_class_name(t, (uint32_t)i, &cls)))
			continue;
		if (strncmp(name, MODULE_PREFIX, sizeof MODULE_PREFIX - 1) == 0)
			name += sizeof MODULE_PREFIX - 1;
		if (regexec(re, name, 0, NULL, 0) == 0) {
			match[i] = 1;
		} else {
			char buf[256];

			snprintf(buf, sizeof buf, "%.*s", (int)len, cls);
			match[i] = regexec(re, buf, 0, NULL, 0) == 0;
		}
		n += match[i];
	}
	return n;
}

struct call_first {
	int32_t call;
	uint32_t first; /* its earliest kernel */
};

static int cmp_first(const void *pa, const void *pb)
{
	const struct call_first *x = pa, *y = pb;

	return CMP(x->first, y->first);
}

static int cmp_call(const void *pa, const void *pb)
{
	const struct call_first *x = pa, *y = pb;

	return CMP(x->call, y->call);
}

/* The pick for regex: the calls whose name or class it matches, and the module calls around
 * each kernel's launch. Returns 0 when the regex matches no call (or does not compile:
 * passes_from_annotations() said why). */
static int pick_by_regex(const struct trace *t, const char *regex, struct call_pick *c,
			 uint8_t **match)
{
	char why[160];
	regex_t re;

	if (regex_guard(regex, why, sizeof why) < 0 ||
	    regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	*match = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof **match);
	if (match_calls(t, &re, *match) == 0) {
		regfree(&re);
		free(*match);
		*match = NULL;
		return 0;
	}
	regfree(&re);
	c->match = *match;
	c->module_of = big_alloc(t->n_kernels, sizeof *c->module_of);
	c->parent = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *c->parent);
	trace_module_calls(t, c->module_of, c->parent);
	return 1;
}

/* Each kernel's call (call_of, -1) and the distinct calls that launched kernels, numbered by
 * their first kernel (*calls, owned by caller); returns how many. */
static size_t list_calls(const struct trace *t, const struct call_pick *c, int32_t *call_of,
			 struct call_first **calls)
{
	size_t n = 0, cap = 0, u = 0;

	*calls = NULL;
	for (size_t k = 0; k < t->n_kernels; k++) {
		call_of[k] = pick(c, k);
		if (call_of[k] >= 0) {
			VEC_RESERVE(*calls, n, cap);
			(*calls)[n++] = (struct call_first){ call_of[k], (uint32_t)k };
		}
	}
	if (!n)
		return 0;
	/* one entry per call, its first kernel (kernels are in time order) */
	sort_runs(*calls, n, sizeof **calls, cmp_call);
	for (size_t i = 0; i < n; i++)
		if (!u || (*calls)[u - 1].call != (*calls)[i].call)
			(*calls)[u++] = (*calls)[i];
	qsort(*calls, u, sizeof **calls, cmp_first);
	return u;
}

/* call_of[k]: from the call's range to its pass index (its place in calls[]). */
static void calls_to_passes(size_t nk, int32_t *call_of, const struct call_first *calls,
			    size_t n_calls)
{
	struct call_first *byid = xmalloc(n_calls * sizeof *byid);

	for (size_t i = 0; i < n_calls; i++)
		byid[i] = (struct call_first){ calls[i].call, (uint32_t)i };
	qsort(byid, n_calls, sizeof *byid, cmp_call);
	for (size_t k = 0; k < nk; k++) {
		struct call_first key = { call_of[k], 0 }, *f;

		if (call_of[k] < 0)
			continue;
		f = bsearch(&key, byid, n_calls, sizeof *byid, cmp_call);
		call_of[k] = (int32_t)f->first;
	}
	free(byid);
}

/* The kernels launched outside the calls: in training, the work after a call's first kernel, up
 * to the next call's, is its step (backward, optimizer, collectives); in inference, kernels of
 * other threads (or without a launch) in a call's window. */
static void place_the_rest(const struct trace *t, int training, int32_t *call_of,
			   const struct call_first *calls, size_t n_calls)
{
	size_t nk = t->n_kernels;

	if (training) {
		size_t p = 0;

		for (size_t k = 0; k < nk; k++) {
			while (p + 1 < n_calls &&
			       t->kernels[calls[p + 1].first].start <= t->kernels[k].start)
				p++;
			if (call_of[k] < 0 &&
			    t->kernels[calls[p].first].start <= t->kernels[k].start)
				call_of[k] = (int32_t)p;
		}
	} else {
		int64_t *tids = xmalloc(nk ? nk * sizeof *tids : sizeof *tids);
		size_t n_tids = 0;
		uint8_t *eligible = big_alloc(nk, 1);

		for (size_t k = 0; k < nk; k++)
			if (call_of[k] >= 0 && t->kernels[k].launch >= 0)
				tids[n_tids++] = trace_launch_tid(t, &t->kernels[k]);
		n_tids = passes_sort_unique(tids, n_tids);
		for (size_t k = 0; k < nk; k++)
			eligible[k] =
				t->kernels[k].launch < 0 ||
				!passes_has_i64(tids, n_tids, trace_launch_tid(t, &t->kernels[k]));
		passes_place_by_window(t, call_of, n_calls, eligible);
		free(tids);
		free(eligible);
	}
}

int passes_from_calls(const struct trace *t, const struct module_map *m, const uint8_t *part,
		      const char *regex, struct pass_plan *out, struct fd_error *err)
{
	struct call_pick c = { t, m, part, NULL, NULL, NULL, NULL, 0 };
	uint8_t *match = NULL;
	int32_t *call_of;
	struct call_first *calls;
	size_t n_calls;

	memset(out, 0, sizeof *out);
	if (regex ? !pick_by_regex(t, regex, &c, &match) : !main_class(t, m, part, &c))
		return 0;
	call_of = big_alloc(t->n_kernels, sizeof *call_of);
	n_calls = list_calls(t, &c, call_of, &calls);
	free(c.module_of);
	free(c.parent);
	free(match);
	/* one call of the model is no split of the trace; with --pass it is what was asked */
	if (n_calls == 0 || (!regex && n_calls < 2)) {
		if (regex)
			fd_error_set(err,
				     "--pass '%s' matches only nn.Module calls without GPU kernels",
				     regex);
		free(call_of);
		free(calls);
		return regex ? -1 : 0;
	}
	out->passes = xmalloc(n_calls * sizeof *out->passes);
	out->n_passes = n_calls;
	for (size_t i = 0; i < n_calls; i++)
		out->passes[i] =
			(struct plan_pass){ t->ranges[calls[i].call].name, -1, calls[i].first };
	calls_to_passes(t->n_kernels, call_of, calls, n_calls);
	place_the_rest(t, part != NULL, call_of, calls, n_calls);
	out->pass_of = call_of;
	{
		const char *cls;
		size_t len = module_class_name(t, (uint32_t)calls[0].call, &cls);

		if (regex)
			snprintf(out->source, sizeof out->source, "--pass '%s': nn.Module calls",
				 regex);
		else
			snprintf(out->source, sizeof out->source, "calls of nn.Module %.*s%s",
				 (int)(len > 60 ? 60 : len), cls,
				 part ? ", each with the work up to the next" : "");
	}
	free(calls);
	return 0;
}
