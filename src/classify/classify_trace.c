/* classify_trace.c — the classes of every kernel of one trace (classify.h): each distinct
 * kernel name, kind and context classified once, the context being the launching operator
 * (and its concrete inputs where they matter), the nn.Module calls and the MoE annotations
 * around the launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "fusediff/bigmem.h"
#include "fusediff/intern.h"

/* What a kernel's class depends on: its name, kind and context (ids; UINT32_MAX for none). */
struct slot_key {
	uint32_t name, op, ctx, ann, args; /* ctx, ann: ids in struct contexts.names; args: the
					      operator's concrete inputs, when its class reads
					      them */
	uint32_t dims; /* the operator's input shapes, when the operator is Inductor's record
			  of its own kernel (named like it) */
	uint8_t kind;
};

struct slot {
	struct slot_key key;
	uint32_t info; /* UINT32_MAX: empty */
};

static uint64_t slot_hash(const struct slot_key *k)
{
	uint64_t h = ((uint64_t)k->name << 32 | k->op) ^ ((uint64_t)k->kind << 61) ^
		     ((uint64_t)k->ctx * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)k->ann << 32 | k->args) * 0xbf58476d1ce4e5b9ull ^
		     (uint64_t)k->dims * 0x94d049bb133111ebull;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static int slot_key_eq(const struct slot_key *a, const struct slot_key *b)
{
	return a->name == b->name && a->op == b->op && a->ctx == b->ctx && a->ann == b->ann &&
	       a->args == b->args && a->dims == b->dims && a->kind == b->kind;
}

/* Double the table of distinct keys and put its slots back. */
static struct slot *slots_grow(struct slot *tab, size_t *cap)
{
	size_t ncap = *cap * 2;
	struct slot *nt = xmalloc(ncap * sizeof *nt);

	for (size_t i = 0; i < ncap; i++)
		nt[i].info = UINT32_MAX;
	for (size_t i = 0; i < *cap; i++) {
		size_t h;

		if (tab[i].info == UINT32_MAX)
			continue;
		h = (size_t)slot_hash(&tab[i].key) & (ncap - 1);
		while (nt[h].info != UINT32_MAX)
			h = (h + 1) & (ncap - 1);
		nt[h] = tab[i];
	}
	free(tab);
	*cap = ncap;
	return nt;
}

#define MODULE_PREFIX "nn.Module: "
#define MODULE_DEPTH  3 /* module classes in a kernel's context */

/* The class of a module range: "LlamaDecoderLayer" of "nn.Module: LlamaDecoderLayer_3". */
static size_t module_class(const char *name, const char **cls)
{
	size_t n, d;

	if (strncmp(name, MODULE_PREFIX, sizeof MODULE_PREFIX - 1) == 0)
		name += sizeof MODULE_PREFIX - 1;
	n = strlen(name);
	d = n;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d < n && d > 1 && name[d - 1] == '_')
		n = d - 1;
	*cls = name;
	return n;
}

/* The module context of every module range that kernels launch in: "Conv2d < BasicBlock <
 * Sequential", as ids into ctx (built on demand, one per range). */
struct contexts {
	const struct trace *t;
	uint32_t *parent;
	uint32_t *of_range; /* per range: id in names, UINT32_MAX not made yet */
	struct intern *names;
};

static uint32_t context_of(struct contexts *cx, uint32_t range)
{
	char buf[512];
	size_t len = 0;
	uint32_t r = range;

	if (cx->of_range[range] != UINT32_MAX)
		return cx->of_range[range];
	for (int d = 0; d < MODULE_DEPTH && r != UINT32_MAX; d++, r = cx->parent[r]) {
		const char *c;
		size_t n = module_class(trace_str(cx->t, cx->t->ranges[r].name), &c);
		int w = snprintf(buf + len, sizeof buf - len, "%s%.*s", d ? " < " : "", (int)n, c);

		if (w < 0 || (size_t)w >= sizeof buf - len)
			break;
		len += (size_t)w;
	}
	return cx->of_range[range] = intern_add(cx->names, buf, len);
}

/* The annotations (record_function ranges) that name a MoE block, its experts or router, by
 * thread and start. */
struct moe_ann {
	int64_t tid, start, end;
	uint32_t id; /* the annotation's name without its trailing number, in names */
};

/* By thread and start. */
static int moe_ann_cmp_start(const void *a, const void *b)
{
	const struct moe_ann *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->start > y->start) - (x->start < y->start);
}

static int moe_ann_cmp(const void *a, const void *b)
{
	const struct moe_ann *x = a, *y = b;
	int r = moe_ann_cmp_start(a, b);

	return r ? r : (x->end < y->end) - (x->end > y->end); /* the outer one first */
}

/* The MoE annotations of t, sorted (owned by the caller: free()); *n of them. */
static struct moe_ann *moe_annotations(const struct trace *t, struct intern **names, size_t *n)
{
	struct moe_ann *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *nm;
		size_t len;

		if (r->kind != RANGE_USER)
			continue;
		len = module_class(trace_str(t, r->name), &nm);
		if (!classify_names_moe(nm, len))
			continue;
		if (!*names)
			*names = intern_new();
		VEC_PUSH(v, *n, cap,
			 ((struct moe_ann){ r->tid, r->start, r->start + r->dur,
					    intern_add(*names, nm, len) }));
	}
	if (*n)
		qsort(v, *n, sizeof *v, moe_ann_cmp);
	return v;
}

/* The innermost MoE annotation around a launch on thread tid at time at, or UINT32_MAX. */
static uint32_t moe_ann_at(const struct moe_ann *v, size_t n, int64_t tid, int64_t at)
{
	/* the first one after (tid, at) */
	size_t lo = upper_bound(v, n, sizeof *v, &(struct moe_ann){ .tid = tid, .start = at },
				moe_ann_cmp_start);

	/* back through those that start before it: the latest that holds it is the innermost
	 * (annotations nest) */
	for (size_t i = lo, tries = 0; i-- > 0 && v[i].tid == tid && tries < 64; tries++)
		if (at <= v[i].end)
			return v[i].id;
	return UINT32_MAX;
}

/* 1 when the class of a kernel launched by the operator named op may depend on the
 * operator's concrete inputs (effective_op()). */
static int op_reads_args(const char *op)
{
	return strncmp(op, "aten::clamp_min", 15) == 0;
}

/* The key of kernel k; op_of, module_of and ann_of as classify_trace() found them. */
static struct slot_key kernel_key(const struct trace *t, size_t k, const uint32_t *op_of,
				  const uint32_t *module_of, uint32_t ann, struct contexts *cx)
{
	const struct trace_kernel *tk = &t->kernels[k];
	const struct trace_op *op = op_of[k] != UINT32_MAX ? &t->ops[op_of[k]] : NULL;
	struct slot_key key = { tk->name,   UINT32_MAX, UINT32_MAX,	  ann,
				UINT32_MAX, UINT32_MAX, (uint8_t)tk->kind };

	if (op) {
		key.op = op->name;
		if (op->concrete && op_reads_args(trace_str(t, op->name)))
			key.args = op->concrete;
		if (op->name == tk->name && op->input_dims)
			key.dims = op->input_dims;
	}
	if (module_of && module_of[k] != UINT32_MAX)
		key.ctx = context_of(cx, module_of[k]);
	return key;
}

/* Classify the kernel of key (a new one) into ki. */
static void classify_key(const struct classifier *c, const struct trace *t,
			 const struct slot_key *key, const struct contexts *cx,
			 struct kernel_info *ki)
{
	struct classify_context ctx = {
		.op = key->op != UINT32_MAX ? trace_str(t, key->op) : NULL,
		.op_args = key->args != UINT32_MAX ? trace_str(t, key->args) : NULL,
		.op_dims = key->dims != UINT32_MAX ? trace_str(t, key->dims) : NULL,
		.modules = key->ctx != UINT32_MAX ? intern_str(cx->names, key->ctx) : NULL,
		.annotation = key->ann != UINT32_MAX ? intern_str(cx->names, key->ann) : NULL,
	};

	classify_kernel_ctx(c, trace_str(t, key->name), &ctx, ki);
	if (key->kind != KIND_KERNEL) {
		ki->cls = CLASS_COPY;
		ki->atoms = A(COPY);
		ki->aux = ki->decode_attn = 0;
		ki->prim = key->kind == KIND_MEMSET ? "fill" : "copy";
	}
}

void classify_trace(const struct classifier *c, const struct trace *t, struct trace_classes *out)
{
	size_t cap = 256, infos_cap = 0, n_infos = 0, n_ann;
	struct slot *tab;
	struct kernel_info *infos = NULL;
	uint32_t *op_of, *module_of = NULL, *ann_of = NULL;
	struct contexts cx = { t, NULL, NULL, NULL };
	struct moe_ann *anns;
	int64_t total = 0, other = 0;
	locale_t loc = classify_locale_enter(); /* module and annotation names too */

	memset(out, 0, sizeof *out);
	/* The table holds the distinct keys (a few hundred in a real trace, however long): it
	 * stays in the cache, where one sized by the kernels would not. */
	tab = xmalloc(cap * sizeof *tab);
	for (size_t i = 0; i < cap; i++)
		tab[i].info = UINT32_MAX;
	out->info_of = big_alloc(t->n_kernels, sizeof *out->info_of);
	/* each kernel's operator, written over by the info indices below */
	op_of = out->info_of;
	out->links_rejected = trace_link_kernels(t, op_of);
	anns = moe_annotations(t, &cx.names, &n_ann);
	if (n_ann) {
		ann_of = big_alloc(t->n_kernels, sizeof *ann_of);
		for (size_t k = 0; k < t->n_kernels; k++) {
			const struct trace_kernel *kr = &t->kernels[k];

			ann_of[k] = kr->launch >= 0
					    ? moe_ann_at(anns, n_ann, trace_launch_tid(t, kr),
							 kr->launch)
					    : UINT32_MAX;
		}
	}
	free(anns);
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].kind == RANGE_MODULE) {
			module_of = big_alloc(t->n_kernels, sizeof *module_of);
			cx.parent = xmalloc(t->n_ranges * sizeof *cx.parent);
			cx.of_range = xmalloc(t->n_ranges * sizeof *cx.of_range);
			memset(cx.of_range, 0xff, t->n_ranges * sizeof *cx.of_range);
			if (!cx.names)
				cx.names = intern_new();
			trace_module_calls(t, module_of, cx.parent);
			break;
		}

	for (size_t k = 0; k < t->n_kernels; k++) {
		struct slot_key key =
			kernel_key(t, k, op_of, module_of, ann_of ? ann_of[k] : UINT32_MAX, &cx);
		size_t h = (size_t)slot_hash(&key) & (cap - 1);

		while (tab[h].info != UINT32_MAX && !slot_key_eq(&tab[h].key, &key))
			h = (h + 1) & (cap - 1);
		if (tab[h].info == UINT32_MAX) {
			struct kernel_info ki;

			classify_key(c, t, &key, &cx, &ki);
			VEC_PUSH(infos, n_infos, infos_cap, ki);
			tab[h] = (struct slot){ key, (uint32_t)(n_infos - 1) };
			out->info_of[k] = tab[h].info;
			if (n_infos * 2 > cap)
				tab = slots_grow(tab, &cap);
			continue;
		}
		out->info_of[k] = tab[h].info;
	}
	free(tab);
	free(module_of);
	free(ann_of);
	free(cx.parent);
	free(cx.of_range);
	if (cx.names)
		intern_free(cx.names);

	for (size_t k = 0; k < t->n_kernels; k++) {
		if (t->kernels[k].kind != KIND_KERNEL)
			continue;
		total += t->kernels[k].dur;
		if (infos[out->info_of[k]].cls == CLASS_OTHER)
			other += t->kernels[k].dur;
	}
	out->infos = infos;
	out->n_infos = n_infos;
	out->other_share = total > 0 ? (double)other / (double)total : 0.0;
	classify_locale_leave(loc);
}

void trace_classes_clear(struct trace_classes *tc)
{
	for (size_t i = 0; i < tc->n_infos; i++)
		kernel_info_clear(&tc->infos[i]);
	free(tc->infos);
	free(tc->info_of);
	memset(tc, 0, sizeof *tc);
}
