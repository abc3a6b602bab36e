/* rocprof_run.c — a run of a rocprofv3 JSON file, read into records (rocprof_run.h), made into
 * the trace: agents are the GPUs (numbered as HIP numbers them), kernel symbols name the
 * dispatches, HIP API records are the launches, memory copies are copies, and marker_api
 * ranges with their texts are annotations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprof_int.h"
#include "rocprof_run.h"
#include "fusediff/intern.h"
#include "../trace/trace_build.h"

static void text_free(struct text *t)
{
	free(t->s);
	t->s = NULL;
}

void rocprof_run_free(struct run *r)
{
	for (size_t i = 0; i < r->n_agents; i++) {
		text_free(&r->agents[i].product_name);
		text_free(&r->agents[i].name);
	}
	for (size_t i = 0; i < r->n_syms; i++) {
		text_free(&r->syms[i].formatted);
		text_free(&r->syms[i].demangled);
		text_free(&r->syms[i].plain);
	}
	for (size_t i = 0; i < r->n_kinds; i++) {
		for (size_t j = 0; j < r->kinds[i].n; j++)
			text_free(&r->kinds[i].name[j]);
		free(r->kinds[i].name);
	}
	for (size_t i = 0; i < r->n_texts; i++)
		free((char *)r->texts[i].text);
	free(r->agents);
	free(r->syms);
	free(r->kinds);
	free(r->texts);
	free(r->disp);
	free(r->copies);
	free(r->hip);
	free(r->markers);
	memset(r, 0, sizeof *r);
}

struct agent {
	int64_t handle;
	int32_t device; /* -1: not a GPU */
	size_t order;	/* in the file: the first of equal handles wins */
};

struct symbol {
	int64_t id;
	uint32_t name;
	size_t order; /* in the file: the last of equal ids wins */
};

struct maps {
	struct agent *agents; /* sorted by handle */
	size_t n_agents;
	struct symbol *symbols; /* sorted by kernel_id: an array indexed by the id let a
				   650-byte file allocate 394 MB (a kernel_id of 10^8) */
	size_t n_symbols;
};

static int cmp_agent(const void *pa, const void *pb)
{
	const struct agent *a = pa, *b = pb;
	int c = CMP(a->handle, b->handle);

	return c ? c : CMP(a->order, b->order);
}

DEFINE_LOWER_BOUND(agent_lower, struct agent, int64_t, handle)

static int32_t device_of(const struct maps *m, int64_t h)
{
	size_t lo = agent_lower(m->agents, m->n_agents, h);

	if (lo < m->n_agents && m->agents[lo].handle == h)
		return m->agents[lo].device;
	return (int32_t)(h & 0x7fffffff);
}

static void make_agents(struct trace *t, const struct run *r, struct maps *m)
{
	m->agents = r->n_agents ? xcalloc(r->n_agents, sizeof *m->agents) : NULL;
	for (size_t i = 0; i < r->n_agents; i++) {
		const struct agent_rec *a = &r->agents[i];
		struct agent e = { .handle = a->handle, .device = -1, .order = i };

		if (a->type == 2) { /* ROCPROFILER_AGENT_TYPE_GPU */
			const struct text *name = &a->product_name;
			struct trace_device d = { .warp_size = (int32_t)a->wave_front_size,
						  .num_sms = (int32_t)a->cu_count };

			if (!name->s || !name->len)
				name = &a->name;
			e.device = d.id = (int32_t)a->node;
			if (name->s && name->len)
				d.name = intern_add(t->strings, name->s, name->len);
			trace_add_device(t, &d);
		}
		m->agents[m->n_agents++] = e;
	}
	if (m->n_agents)
		qsort(m->agents, m->n_agents, sizeof *m->agents, cmp_agent);
}

static int cmp_symbol(const void *pa, const void *pb)
{
	const struct symbol *a = pa, *b = pb;
	int c = CMP(a->id, b->id);

	return c ? c : CMP(a->order, b->order);
}

static void make_symbols(struct trace *t, const struct run *r, struct maps *m)
{
	size_t n = 0;

	m->symbols = r->n_syms ? xcalloc(r->n_syms, sizeof *m->symbols) : NULL;
	for (size_t i = 0; i < r->n_syms; i++) {
		const struct symbol_rec *s = &r->syms[i];
		const struct text *name = &s->formatted;

		if (!name->s || !name->len || (name->len == 1 && name->s[0] == '0'))
			name = &s->demangled;
		if (!name->s || !name->len)
			name = &s->plain;
		if (!name->s)
			continue;
		m->symbols[m->n_symbols++] = (struct symbol){
			.id = s->id,
			.name = rocprof_kernel_name(t, name->s, name->len),
			.order = m->n_symbols,
		};
	}
	if (!m->n_symbols)
		return;
	qsort(m->symbols, m->n_symbols, sizeof *m->symbols, cmp_symbol);
	for (size_t i = 0; i < m->n_symbols; i++) /* the last of each id */
		if (i + 1 == m->n_symbols || m->symbols[i + 1].id != m->symbols[i].id)
			m->symbols[n++] = m->symbols[i];
	m->n_symbols = n;
}

DEFINE_LOWER_BOUND(symbol_lower, struct symbol, int64_t, id)

/* The interned name of kernel_id id, or 0. */
static uint32_t symbol_name(const struct maps *m, int64_t id)
{
	size_t lo = symbol_lower(m->symbols, m->n_symbols, id);

	return lo < m->n_symbols && m->symbols[lo].id == id ? m->symbols[lo].name : 0;
}

/* The name of operation `op` of buffer record kind `kind` (strings.buffer_records[kind]). */
static const struct text *operation_name(const struct run *r, int64_t kind, int64_t op)
{
	if (kind < 0 || (uint64_t)kind >= r->n_kinds || op < 0 || (uint64_t)op >= r->kinds[kind].n)
		return NULL;
	return r->kinds[kind].name[op].s ? &r->kinds[kind].name[op] : NULL;
}

static void make_dispatches(struct trace *t, const struct run *r, const struct maps *m)
{
	for (size_t i = 0; i < r->n_disp; i++) {
		const struct dispatch_rec *d = &r->disp[i];
		struct trace_kernel k = { .start = d->start,
					  .dur = trace_span_dur(d->start, d->end),
					  .correlation = d->corr,
					  .device = trace_device_id(device_of(m, d->agent)),
					  .stream = (int32_t)d->queue,
					  .kind = KIND_KERNEL };

		t->n_events++;
		k.name = symbol_name(m, d->kernel_id);
		if (!k.name) {
			char buf[40];
			int n = snprintf(buf, sizeof buf, "kernel_id %lld",
					 (long long)d->kernel_id);

			k.name = intern_add(t->strings, buf, (size_t)n);
		}
		k.dims = trace_add_dims(t, d->grid, d->wg);
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
}

uint32_t rocprof_kernel_name(struct trace *t, const char *name, size_t len)
{
	if (len > 3 && memcmp(name + len - 3, ".kd", 3) == 0)
		len -= 3;
	return trace_intern_text(t, name, len);
}

/* MEMORY_COPY_DEVICE_TO_HOST -> "Memcpy DtoH (Device -> Host)" as Kineto names copies. */
uint32_t rocprof_copy_name(struct trace *t, const char *op)
{
	static const struct {
		const char *op, *name;
	} names[] = {
		{ "MEMORY_COPY_HOST_TO_DEVICE", "Memcpy HtoD (Host -> Device)" },
		{ "MEMORY_COPY_DEVICE_TO_HOST", "Memcpy DtoH (Device -> Host)" },
		{ "MEMORY_COPY_DEVICE_TO_DEVICE", "Memcpy DtoD (Device -> Device)" },
		{ "MEMORY_COPY_HOST_TO_HOST", "Memcpy HtoH (Host -> Host)" },
	};

	for (size_t i = 0; op && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(op, names[i].op) == 0)
			return intern_add(t->strings, names[i].name, strlen(names[i].name));
	return intern_add(t->strings, "Memcpy", 6);
}

static void make_copies(struct trace *t, const struct run *r, const struct maps *m)
{
	for (size_t i = 0; i < r->n_copies; i++) {
		const struct copy_rec *c = &r->copies[i];
		const struct text *op = operation_name(r, c->kind, c->op);
		int32_t dst = device_of(m, c->dst);
		struct trace_kernel k = { .start = c->start,
					  .dur = trace_span_dur(c->start, c->end),
					  .correlation = c->corr,
					  .device = trace_device_id(
						  dst >= 0 ? dst : device_of(m, c->src)),
					  .kind = KIND_MEMCPY };

		t->n_events++;
		k.name = rocprof_copy_name(t, op ? op->s : NULL);
		if (k.device >= 0 && k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
}

static void make_hip(struct trace *t, const struct run *r)
{
	for (size_t i = 0; i < r->n_hip; i++) {
		const struct hip_rec *h = &r->hip[i];
		const struct text *name = operation_name(r, h->kind, h->op);
		struct trace_launch l = { .start = h->start,
					  .dur = trace_span_dur(h->start, h->end),
					  .correlation = h->corr,
					  .tid = h->tid };

		t->n_events++;
		if (!name || !strstr(name->s, "Launch") || l.start <= 0 || l.dur < 0)
			continue;
		l.name = intern_add(t->strings, name->s, name->len);
		trace_add_launch(t, &l);
	}
}

static int cmp_marker(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static const struct marker *marker_text(const struct marker *v, size_t n, int64_t corr)
{
	struct marker key = { .key = corr };

	return n ? bsearch(&key, v, n, sizeof *v, cmp_marker) : NULL;
}

static void make_markers(struct trace *t, struct run *r)
{
	if (!r->n_marker_elems)
		return;
	if (r->n_texts)
		qsort(r->texts, r->n_texts, sizeof *r->texts, cmp_marker);
	for (size_t i = 0; i < r->n_markers; i++) {
		const struct marker_rec *m = &r->markers[i];
		const struct marker *text = marker_text(r->texts, r->n_texts, m->corr);
		struct trace_range g = { .start = m->start,
					 .dur = trace_span_dur(m->start, m->end),
					 .seq = -1,
					 .tid = m->tid,
					 .kind = RANGE_USER };

		t->n_events++;
		if (!text || !text->len || g.start <= 0 || g.dur <= 0)
			continue;
		g.name = intern_add(t->strings, text->text, text->len);
		trace_add_range(t, &g);
	}
}

int rocprof_run_make(struct trace *t, struct run *r)
{
	struct maps m = { 0 };
	int made = r->kd_array;

	if (made) {
		make_agents(t, r, &m);
		make_symbols(t, r, &m);
		make_dispatches(t, r, &m);
		make_copies(t, r, &m);
		make_hip(t, r);
		make_markers(t, r);
		free(m.agents);
		free(m.symbols);
	}
	rocprof_run_free(r);
	return made;
}
