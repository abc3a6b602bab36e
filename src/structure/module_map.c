/* module_map.c — what nn.Module ranges ("nn.Module: LlamaDecoderLayer_3", recorded with Python
 * stacks) say about kernels: which layer call, which norm call and which top-level module call
 * launched each kernel. Kernels are mapped through their launch event (CPU time and thread,
 * trace_module_calls()), never by comparing GPU times with CPU ranges.
 *
 * A layer stack is the set of calls of one layer-like class (…Layer, …Block, …Block2D) with
 * parents of one class under one grandparent: LlamaDecoderLayer under LlamaModel_0; a vision
 * tower's CLIPEncoderLayer (under CLIPEncoder in CLIPVisionTransformer_0) and the text tower's
 * (in CLIPTextTransformer_0) are two stacks; ResNet's BasicBlocks, under four Sequentials of
 * one ResNet, are one. Wrappers (a module that calls one other and launches no kernel
 * itself, such as CheckpointWrapper) are looked through. A stack has at least two calls, and its class is never called inside a
 * layer-like call of another class (a MoE block inside a decoder layer is not a layer). */
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

#define MODULE_PREFIX "nn.Module: "

/* The class of a module range name: "LlamaDecoderLayer" of "nn.Module: LlamaDecoderLayer_3".
 * Sets *len; returns NULL for names that are not module ranges. */
static const char *module_class(const char *name, size_t *len)
{
	size_t n, pl = strlen(MODULE_PREFIX);

	if (strncmp(name, MODULE_PREFIX, pl) != 0)
		return NULL;
	name += pl;
	n = strlen(name);
	/* drop the "_N" instance suffix */
	{
		size_t d = n;

		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d < n && d > 0 && name[d - 1] == '_')
			n = d - 1;
	}
	*len = n;
	return n ? name : NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int contains(const char *s, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(s + i, needle, m) == 0)
			return 1;
	return 0;
}

/* Layer-like classes: LlamaDecoderLayer, BertLayer, GPT2Block, T5Block, UpDecoderBlock2D. */
static int layer_like(const char *c, size_t n)
{
	if (n > 2 && c[n - 1] == 'D' && c[n - 2] >= '1' && c[n - 2] <= '3')
		n -= 2;
	return ends_with(c, n, "Layer") || ends_with(c, n, "Block");
}

static int norm_like(const char *c, size_t n)
{
	return ends_with(c, n, "Norm");
}

/* What one distinct module range name is. */
struct mname {
	const char *cls;
	size_t len;
	uint32_t group; /* class number: equal for equal classes */
	uint8_t layer, norm;
};

static int cmp_class(const struct mname *x, const struct mname *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->cls, y->cls, n);

	return r ? r : CMP(x->len, y->len);
}

/* Indices of names (struct mname, ctx) by class name (sort_index()). */
static int cmp_class_index(const void *ctx, uint32_t a, uint32_t b)
{
	const struct mname *m = ctx;

	return cmp_class(&m[a], &m[b]);
}

/* The key of a stack: layer class, parent class, grandparent call name. */
struct skey {
	uint32_t cls, parent_cls, grand_name;
};

#define NONE  UINT32_MAX
#define UNSET (-2)

struct walk {
	const struct trace *t;
	const uint32_t *parent; /* per range: the next module call out, or NONE */
	const int32_t *call_of; /* per range: layer call id, -1 when not a stack call */
	const int32_t *norm_id; /* per range: norm call id, -1 when not a norm call */
	int32_t *memo_layer;	/* per range: the layer call around it (itself included) */
	int32_t *memo_norm;	/* per range: the norm call around it */
	int32_t *memo_top;	/* per range: the outermost module call around it */
};

/* Fill the memos of range r and of the ranges between it and the first one already known. */
static void resolve(struct walk *w, uint32_t r)
{
	uint32_t path[64], n = 0, x = r;

	while (x != NONE && w->memo_top[x] == UNSET && n < 64) {
		path[n++] = x;
		x = w->parent[x];
	}
	while (n-- > 0) {
		uint32_t y = path[n], up = w->parent[y];
		int known = up != NONE && w->memo_top[up] != UNSET;

		w->memo_layer[y] = w->call_of[y] >= 0 ? w->call_of[y]
				   : known	      ? w->memo_layer[up]
						      : -1;
		w->memo_norm[y] = w->norm_id[y] >= 0 ? w->norm_id[y]
				  : known	     ? w->memo_norm[up]
						     : -1;
		w->memo_top[y] = known ? w->memo_top[up] : (int32_t)y;
	}
}

static int cmp_call_ival(const void *pa, const void *pb)
{
	const struct call_ival *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->tid, y->tid)) || (r = CMP(x->start, y->start)))
		return r;
	return CMP(x->call, y->call);
}

/* r, or the first call out from it that is not a wrapper (one child call, no kernel). */
static uint32_t up_past_wrappers(const uint32_t *parent, const uint8_t *kids, uint32_t r)
{
	for (int hops = 0; r != NONE && kids[r] == 1 && parent[r] != NONE && hops < 64; hops++)
		r = parent[r];
	return r;
}

/* What module_map_build() works with, between its steps. */
struct mbuild {
	const struct trace *t;
	size_t nr, nk;
	struct mname *dn; /* distinct module names, parsed */
	size_t nd;
	uint32_t *range_d;	      /* per range: index into dn, NONE for other ranges */
	uint32_t n_groups;	      /* distinct classes */
	uint32_t *module_of, *parent; /* trace_module_calls() */
	uint8_t *kids;	   /* per range: its child calls, 0, 1 or 2 (two or more, or kernels of its
			  own) */
	struct skey *keys; /* the stacks' keys */
	uint32_t *key_calls, n_keys, cap_keys, *range_key;
	int32_t *call_of, *norm_id; /* per range: layer call and norm call ids, -1 */
};

/* Each distinct module name parsed once (dn, range_d); the classes numbered in the sorted order
 * of their names (dn[].group). */
static void parse_names(struct mbuild *mb)
{
	const struct trace *t = mb->t;
	size_t cap_d = 0;
	uint32_t *name_d, *idx;

	mb->range_d = xmalloc(mb->nr * sizeof *mb->range_d);
	name_d = xcalloc(intern_count(t->strings) + 1, sizeof *name_d); /* index + 1 */
	for (size_t i = 0; i < mb->nr; i++) {
		const struct trace_range *r = &t->ranges[i];

		mb->range_d[i] = NONE;
		if (r->kind != RANGE_MODULE)
			continue;
		if (!name_d[r->name]) {
			size_t len = 0;
			const char *c = module_class(trace_str(t, r->name), &len);

			VEC_RESERVE(mb->dn, mb->nd, cap_d);
			mb->dn[mb->nd] = (struct mname){ .cls = c ? c : "", .len = c ? len : 0 };
			mb->dn[mb->nd].layer = c && layer_like(c, len);
			mb->dn[mb->nd].norm = c && norm_like(c, len);
			name_d[r->name] = (uint32_t)++mb->nd;
		}
		mb->range_d[i] = name_d[r->name] - 1;
	}
	free(name_d);
	idx = xmalloc((mb->nd ? mb->nd : 1) * sizeof *idx);
	for (size_t i = 0; i < mb->nd; i++)
		idx[i] = (uint32_t)i;
	sort_index(idx, mb->nd, cmp_class_index, mb->dn);
	for (size_t j = 0; j < mb->nd; j++) {
		if (j > 0 && cmp_class(&mb->dn[idx[j]], &mb->dn[idx[j - 1]]) != 0)
			mb->n_groups++;
		mb->dn[idx[j]].group = mb->n_groups;
	}
	mb->n_groups++;
	free(idx);
}

/* The range's parsed name, or NULL when it is not a module call. */
static const struct mname *name_of(const struct mbuild *mb, size_t i)
{
	return mb->range_d[i] != NONE ? &mb->dn[mb->range_d[i]] : NULL;
}

/* Per class group: called inside a layer-like call of another class (then not a layer).
 * Owned by caller. */
static uint8_t *nested_layer_groups(const struct mbuild *mb)
{
	uint8_t *bad = xcalloc(mb->n_groups, 1);

	for (size_t i = 0; i < mb->nr; i++) {
		const struct mname *x = name_of(mb, i);
		int hops = 0;

		if (!x || !x->layer)
			continue;
		for (uint32_t p = mb->parent[i]; p != NONE && hops < 64;
		     p = mb->parent[p], hops++) {
			const struct mname *y = &mb->dn[mb->range_d[p]];

			if (y->layer && y->group != x->group) {
				bad[x->group] = 1;
				break;
			}
		}
	}
	return bad;
}

/* A wrapper calls one module and launches nothing itself (CheckpointWrapper, a Sequential of
 * one): it is skipped on the way up (mb->kids). */
static void find_wrappers(struct mbuild *mb)
{
	mb->kids = xcalloc(mb->nr, sizeof *mb->kids);
	for (size_t i = 0; i < mb->nr; i++)
		if (mb->parent[i] != NONE && mb->kids[mb->parent[i]] < 2)
			mb->kids[mb->parent[i]]++;
	for (size_t k = 0; k < mb->nk; k++) /* a call that launches kernels itself is no wrapper */
		if (mb->module_of[k] != NONE)
			mb->kids[mb->module_of[k]] = 2;
}

/* The stack key of every layer-like call: (class, parent class, grandparent name). */
static void stack_keys(struct mbuild *mb, const uint8_t *bad)
{
	mb->range_key = xmalloc(mb->nr * sizeof *mb->range_key);
	for (size_t i = 0; i < mb->nr; i++) {
		const struct mname *x = name_of(mb, i);
		struct skey k;
		uint32_t p, g, j;

		mb->range_key[i] = NONE;
		if (!x || !x->layer || bad[x->group])
			continue;
		p = up_past_wrappers(mb->parent, mb->kids, mb->parent[i]);
		g = p != NONE ? up_past_wrappers(mb->parent, mb->kids, mb->parent[p]) : NONE;
		k = (struct skey){ x->group, p != NONE ? mb->dn[mb->range_d[p]].group : NONE,
				   g != NONE ? mb->t->ranges[g].name : NONE };
		/* few stacks: a linear search, starting with the last one found */
		for (j = mb->n_keys; j-- > 0;)
			if (mb->keys[j].cls == k.cls && mb->keys[j].parent_cls == k.parent_cls &&
			    mb->keys[j].grand_name == k.grand_name)
				break;
		if (j == UINT32_MAX) {
			VEC_RESERVE(mb->keys, mb->n_keys, mb->cap_keys);
			mb->key_calls =
				xreallocarray(mb->key_calls, mb->cap_keys, sizeof *mb->key_calls);
			mb->keys[mb->n_keys] = k;
			mb->key_calls[mb->n_keys] = 0;
			j = mb->n_keys++;
		}
		mb->key_calls[j]++;
		mb->range_key[i] = j;
	}
}

/* Keys whose calls alternate under one parent call (A, B, A) are parts of one layer, not two
 * stacks: only the one with more calls stays (ties: the first class by name). */
static void merge_alternating(struct mbuild *mb)
{
	size_t nr = mb->nr;
	uint64_t *ended = xcalloc(nr + 1, sizeof *ended); /* per parent: keys (< 64) whose run
							     under it ended */
	uint32_t *last = xmalloc((nr + 1) * sizeof *last);

	for (size_t i = 0; i <= nr; i++)
		last[i] = NONE;
	for (size_t i = 0; i < nr; i++) {
		uint32_t k = mb->range_key[i],
			 p = mb->parent[i] != NONE ? mb->parent[i] : (uint32_t)nr;
		uint32_t prev = last[p];

		if (k == NONE || mb->key_calls[k] < 2 || prev == k)
			continue;
		if (prev != NONE && prev < 64)
			ended[p] |= UINT64_C(1) << prev;
		if (prev != NONE && mb->key_calls[prev] >= 2 && k < 64 && (ended[p] >> k & 1)) {
			uint32_t weak =
				mb->key_calls[k] != mb->key_calls[prev]
					? (mb->key_calls[k] < mb->key_calls[prev] ? k : prev)
				: mb->keys[k].cls > mb->keys[prev].cls ? k
								       : prev;

			mb->key_calls[weak] = 0;
			if (weak == k)
				continue;
		}
		last[p] = k;
	}
	free(ended);
	free(last);
}

/* Stacks (keys with two calls or more, numbered by their first call), layer calls and norm
 * calls into m; mb->call_of and mb->norm_id per range. */
static void number_calls(struct mbuild *mb, struct module_map *m)
{
	size_t nr = mb->nr;
	int32_t *stack_of_key = xmalloc((mb->n_keys ? mb->n_keys : 1) * sizeof *stack_of_key);

	for (uint32_t j = 0; j < mb->n_keys; j++)
		stack_of_key[j] = -1;
	mb->call_of = xmalloc(nr * sizeof *mb->call_of);
	mb->norm_id = xmalloc(nr * sizeof *mb->norm_id);
	m->norm_is_rms = xmalloc(nr);
	m->call_stack = xmalloc(nr * sizeof *m->call_stack);
	m->call_range = xmalloc(nr * sizeof *m->call_range);
	for (size_t i = 0; i < nr; i++) {
		const struct mname *x = name_of(mb, i);
		uint32_t k = mb->range_key[i];

		mb->call_of[i] = mb->norm_id[i] = -1;
		if (k != NONE && mb->key_calls[k] >= 2) {
			if (stack_of_key[k] < 0) {
				struct module_stack *st;

				stack_of_key[k] = (int32_t)m->n_stacks;
				m->stacks = xreallocarray(m->stacks, m->n_stacks + 1,
							  sizeof *m->stacks);
				st = &m->stacks[m->n_stacks++];
				memset(st, 0, sizeof *st);
				st->cls = x->cls;
				st->cls_len = x->len;
				st->parent_range =
					up_past_wrappers(mb->parent, mb->kids, mb->parent[i]);
				st->grand_range =
					st->parent_range != NONE
						? up_past_wrappers(mb->parent, mb->kids,
								   mb->parent[st->parent_range])
						: NONE;
			}
			m->call_stack[m->n_calls] = (uint16_t)stack_of_key[k];
			m->call_range[m->n_calls] = (uint32_t)i;
			mb->call_of[i] = (int32_t)m->n_calls++;
		} else if (x && x->norm) {
			m->norm_is_rms[m->n_norm] =
				contains(x->cls, x->len, "RMS") || contains(x->cls, x->len, "Rms");
			mb->norm_id[i] = (int32_t)m->n_norm++;
		}
	}
	free(stack_of_key);
}

/* The layer calls by thread and time, for module_layer_at(); the first stack's class. */
static void call_intervals(const struct trace *t, struct module_map *m)
{
	m->call_ivals = xmalloc((m->n_calls ? m->n_calls : 1) * sizeof *m->call_ivals);
	for (size_t i = 0; i < m->n_calls; i++) {
		const struct trace_range *r = &t->ranges[m->call_range[i]];

		m->call_ivals[i] =
			(struct call_ival){ r->tid, r->start, r->start + r->dur, (int32_t)i };
	}
	if (m->n_calls)
		qsort(m->call_ivals, m->n_calls, sizeof *m->call_ivals, cmp_call_ival);
	if (m->n_stacks) {
		const struct module_stack *st = &m->stacks[0];
		size_t n = st->cls_len < sizeof m->layer_class - 1 ? st->cls_len
								   : sizeof m->layer_class - 1;

		memcpy(m->layer_class, st->cls, n);
		m->layer_class[n] = '\0';
	}
}

/* Per kernel: its layer call, norm call and top-level call. */
static void per_kernel(const struct mbuild *mb, struct module_map *m)
{
	size_t nr = mb->nr, nk = mb->nk;
	struct walk w = { mb->t,
			  mb->parent,
			  mb->call_of,
			  mb->norm_id,
			  xmalloc(nr * sizeof(int32_t)),
			  xmalloc(nr * sizeof(int32_t)),
			  xmalloc(nr * sizeof(int32_t)) };

	for (size_t i = 0; i < nr; i++)
		w.memo_top[i] = UNSET;
	if (m->n_calls)
		m->layer = big_alloc(nk, sizeof *m->layer);
	if (m->n_norm)
		m->norm = big_alloc(nk, sizeof *m->norm);
	m->top = big_alloc(nk, sizeof *m->top);
	for (size_t k = 0; k < nk; k++) {
		uint32_t r = mb->module_of[k];

		if (r != NONE && w.memo_top[r] == UNSET)
			resolve(&w, r);
		if (m->layer)
			m->layer[k] = r != NONE ? w.memo_layer[r] : -1;
		if (m->norm)
			m->norm[k] = r != NONE ? w.memo_norm[r] : -1;
		m->top[k] = r != NONE ? w.memo_top[r] : -1;
	}
	free(w.memo_layer);
	free(w.memo_norm);
	free(w.memo_top);
}

void module_map_build(const struct trace *t, struct module_map *m)
{
	struct mbuild mb = { .t = t, .nr = t->n_ranges, .nk = t->n_kernels };
	size_t n_mod = 0;
	uint8_t *bad;

	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < mb.nr; i++)
		n_mod += t->ranges[i].kind == RANGE_MODULE;
	if (n_mod == 0)
		return;
	parse_names(&mb);
	mb.module_of = big_alloc(mb.nk, sizeof *mb.module_of);
	mb.parent = xmalloc(mb.nr * sizeof *mb.parent);
	trace_module_calls(t, mb.module_of, mb.parent);
	bad = nested_layer_groups(&mb);
	find_wrappers(&mb);
	stack_keys(&mb, bad);
	free(bad);
	merge_alternating(&mb);
	number_calls(&mb, m);
	call_intervals(t, m);
	per_kernel(&mb, m);
	free(mb.range_key);
	free(mb.kids);
	free(mb.keys);
	free(mb.key_calls);
	free(mb.call_of);
	free(mb.norm_id);
	free(mb.module_of);
	free(mb.parent);
	free(mb.range_d);
	free(mb.dn);
}

struct call_query {
	const struct call_ival *v;
	int64_t tid, ts;
};

static int call_before(const void *ctx, size_t j)
{
	const struct call_query *q = ctx;

	return q->v[j].tid < q->tid || (q->v[j].tid == q->tid && q->v[j].start <= q->ts);
}

int32_t module_layer_at(const struct module_map *m, int64_t tid, int64_t ts, size_t *hint)
{
	struct call_query q = { m->call_ivals, tid, ts };
	size_t j;

	if (!m->n_calls)
		return -1;
	j = gallop_prefix(m->n_calls, *hint, call_before, &q);
	*hint = j;
	/* layer calls do not nest; look back a few for safety */
	for (size_t b = j, tries = 0; b-- > 0 && tries < 4 && m->call_ivals[b].tid == tid; tries++)
		if (ts <= m->call_ivals[b].end)
			return m->call_ivals[b].call;
	return -1;
}

void module_map_clear(struct module_map *m)
{
	free(m->layer);
	free(m->norm);
	free(m->norm_is_rms);
	free(m->top);
	free(m->call_stack);
	free(m->call_range);
	free(m->call_ivals);
	free(m->stacks);
	memset(m, 0, sizeof *m);
}

size_t module_class_name(const struct trace *t, uint32_t range, const char **cls)
{
	size_t len = 0;
	const char *c = range < t->n_ranges
				? module_class(trace_str(t, t->ranges[range].name), &len)
				: NULL;

	*cls = c ? c : "";
	return c ? len : 0;
}
