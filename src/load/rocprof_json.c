/* rocprof_json.c — rocprofv3's JSON output (`--output-format json`: one
 * {"rocprofiler-sdk-tool": [ {metadata, agents, kernel_symbols, strings, buffer_records, ...}
 * ]} per run) as a trace.
 *
 * Kernels are buffer_records.kernel_dispatch, named through kernel_symbols[kernel_id]
 * (formatted_kernel_name: demangled, without the ".kd" of the code object); the GPU of a
 * dispatch is its agent (agents[]: product name, wavefront size, compute units), numbered as
 * HIP numbers GPUs (logical_node_type_id); queues are the streams. HIP API records, when
 * traced, are the launches (by correlation id), memory copies are copies, and marker_api
 * ranges (roctxRangePush/Pop, texts in strings.marker_api) are annotations.
 *
 * The document is parsed whole with cJSON: rocprofv3 writes one object, not a stream of
 * events, and its files are tens of MB where Kineto traces reach GBs. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "rocprof_int.h"
#include "fusediff/intern.h"
#include "trace_build.h"

#define TOOL_KEY "\"rocprofiler-sdk-tool\""

/* The largest file read (rocprofv3 writes tens of MB; a gzip file of a few MB can inflate to
 * any size). */
#define ROCPROF_JSON_MAX ((size_t)1 << 30)

static int rocprof_detect(const unsigned char *head, size_t n)
{
	size_t i = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i >= n || head[i++] != '{')
		return 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	return n - i >= strlen(TOOL_KEY) && memcmp(head + i, TOOL_KEY, strlen(TOOL_KEY)) == 0;
}

static int64_t num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= -9.2e18 && v->valuedouble <= 9.2e18
		       ? (int64_t)v->valuedouble
		       : 0;
}

/* o[key].handle, or o[key] when it is a number. */
static int64_t handle(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsObject(v) ? num(v, "handle") : num(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
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

/* strings.buffer_records[kind].operations, as arrays (cJSON's are lists: an operation looked
 * up by index for every record walked them, 60k HIP records x 100k operations took 13 s). */
struct ops {
	const char **name;
	size_t n;
};

struct rp {
	struct trace *t;
	struct agent *agents; /* sorted by handle */
	size_t n_agents;
	struct symbol *symbols; /* sorted by kernel_id: an array indexed by the id let a
				   650-byte file allocate 394 MB (a kernel_id of 10^8) */
	size_t n_symbols;
	struct ops *kinds; /* strings.buffer_records, by kind */
	size_t n_kinds;
	const cJSON *strings;
};

static int cmp_agent(const void *pa, const void *pb)
{
	const struct agent *a = pa, *b = pb;
	int c = CMP(a->handle, b->handle);

	return c ? c : CMP(a->order, b->order);
}

DEFINE_LOWER_BOUND(agent_lower, struct agent, int64_t, handle)

static int32_t device_of(const struct rp *r, int64_t h)
{
	size_t lo = agent_lower(r->agents, r->n_agents, h);

	if (lo < r->n_agents && r->agents[lo].handle == h)
		return r->agents[lo].device;
	return (int32_t)(h & 0x7fffffff);
}

static void read_agents(struct rp *r, const cJSON *agents)
{
	const cJSON *a;
	size_t cap = 0;

	cJSON_ArrayForEach(a, agents)
	{
		struct agent e = { .handle = handle(a, "id"), .device = -1, .order = r->n_agents };

		if (num(a, "type") == 2) { /* ROCPROFILER_AGENT_TYPE_GPU */
			const char *name = str(a, "product_name");
			struct trace_device d = { .warp_size = (int32_t)num(a, "wave_front_size"),
						  .num_sms = (int32_t)num(a, "cu_count") };

			if (!name || !*name)
				name = str(a, "name");
			e.device = d.id = (int32_t)num(a, "logical_node_type_id");
			if (name && *name)
				d.name = intern_add(r->t->strings, name, strlen(name));
			trace_add_device(r->t, &d);
		}
		VEC_PUSH(r->agents, r->n_agents, cap, e);
	}
	if (r->n_agents)
		qsort(r->agents, r->n_agents, sizeof *r->agents, cmp_agent);
}

static int cmp_symbol(const void *pa, const void *pb)
{
	const struct symbol *a = pa, *b = pb;
	int c = CMP(a->id, b->id);

	return c ? c : CMP(a->order, b->order);
}

static void read_symbols(struct rp *r, const cJSON *symbols)
{
	const cJSON *s;
	size_t cap = 0, n = 0;

	cJSON_ArrayForEach(s, symbols)
	{
		int64_t id = num(s, "kernel_id");
		const char *name = str(s, "formatted_kernel_name");
		struct symbol e = { .id = id, .order = r->n_symbols };

		if (!name || !*name || strcmp(name, "0") == 0)
			name = str(s, "demangled_kernel_name");
		if (!name || !*name)
			name = str(s, "kernel_name");
		if (!name)
			continue;
		e.name = rocprof_kernel_name(r->t, name, strlen(name));
		VEC_PUSH(r->symbols, r->n_symbols, cap, e);
	}
	if (!r->n_symbols)
		return;
	qsort(r->symbols, r->n_symbols, sizeof *r->symbols, cmp_symbol);
	for (size_t i = 0; i < r->n_symbols; i++) /* the last of each id */
		if (i + 1 == r->n_symbols || r->symbols[i + 1].id != r->symbols[i].id)
			r->symbols[n++] = r->symbols[i];
	r->n_symbols = n;
}

DEFINE_LOWER_BOUND(symbol_lower, struct symbol, int64_t, id)

/* The interned name of kernel_id id, or 0. */
static uint32_t symbol_name(const struct rp *r, int64_t id)
{
	size_t lo = symbol_lower(r->symbols, r->n_symbols, id);

	return lo < r->n_symbols && r->symbols[lo].id == id ? r->symbols[lo].name : 0;
}

/* strings.buffer_records as arrays of operation names, by kind. */
static void read_operations(struct rp *r)
{
	const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(r->strings, "buffer_records"), *k;
	size_t cap = 0;

	cJSON_ArrayForEach(k, kinds)
	{
		const cJSON *ops = cJSON_GetObjectItemCaseSensitive(k, "operations"), *o;
		struct ops e = { NULL, 0 };
		size_t ocap = 0;

		cJSON_ArrayForEach(o, ops)
		{
			const char *name = cJSON_IsString(o) ? o->valuestring : NULL;

			VEC_PUSH(e.name, e.n, ocap, name);
		}
		VEC_PUSH(r->kinds, r->n_kinds, cap, e);
	}
}

/* The name of operation `op` of buffer record kind `kind` (strings.buffer_records[kind]). */
static const char *operation_name(const struct rp *r, int64_t kind, int64_t op)
{
	if (kind < 0 || (uint64_t)kind >= r->n_kinds || op < 0 || (uint64_t)op >= r->kinds[kind].n)
		return NULL;
	return r->kinds[kind].name[op];
}

static void read_dispatches(struct rp *r, const cJSON *records)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, records)
	{
		const cJSON *info = cJSON_GetObjectItemCaseSensitive(d, "dispatch_info");
		const cJSON *grid = cJSON_GetObjectItemCaseSensitive(info, "grid_size");
		const cJSON *wg = cJSON_GetObjectItemCaseSensitive(info, "workgroup_size");
		int64_t id = num(info, "kernel_id");
		struct trace_kernel k = {
			.start = num(d, "start_timestamp"),
			.dur = trace_span_dur(num(d, "start_timestamp"), num(d, "end_timestamp")),
			.correlation = num(cJSON_GetObjectItemCaseSensitive(d, "correlation_id"),
					   "internal"),
			.device = device_of(r, handle(info, "agent_id")),
			.stream = (int32_t)handle(info, "queue_id"),
			.kind = KIND_KERNEL
		};
		static const char *const xyz[3] = { "x", "y", "z" };

		r->t->n_events++;
		k.name = symbol_name(r, id);
		if (!k.name) {
			char buf[40];
			int n = snprintf(buf, sizeof buf, "kernel_id %lld", (long long)id);

			k.name = intern_add(r->t->strings, buf, (size_t)n);
		}
		int32_t g[3], b[3];

		for (int i = 0; i < 3; i++) {
			g[i] = (int32_t)num(grid, xyz[i]);
			b[i] = (int32_t)num(wg, xyz[i]);
		}
		k.dims = trace_add_dims(r->t, g, b);
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(r->t, &k);
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

static void read_copies(struct rp *r, const cJSON *records)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, records)
	{
		int32_t dst = device_of(r, handle(m, "dst_agent_id"));
		struct trace_kernel k = {
			.start = num(m, "start_timestamp"),
			.dur = trace_span_dur(num(m, "start_timestamp"), num(m, "end_timestamp")),
			.correlation = num(cJSON_GetObjectItemCaseSensitive(m, "correlation_id"),
					   "internal"),
			.device = dst >= 0 ? dst : device_of(r, handle(m, "src_agent_id")),
			.kind = KIND_MEMCPY
		};

		r->t->n_events++;
		k.name = rocprof_copy_name(r->t,
					   operation_name(r, num(m, "kind"), num(m, "operation")));
		if (k.device >= 0 && k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(r->t, &k);
	}
}

static void read_hip(struct rp *r, const cJSON *records)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, records)
	{
		const char *name = operation_name(r, num(h, "kind"), num(h, "operation"));
		struct trace_launch l = {
			.start = num(h, "start_timestamp"),
			.dur = trace_span_dur(num(h, "start_timestamp"), num(h, "end_timestamp")),
			.correlation = num(cJSON_GetObjectItemCaseSensitive(h, "correlation_id"),
					   "internal"),
			.tid = num(h, "thread_id")
		};

		r->t->n_events++;
		if (!name || !strstr(name, "Launch") || l.start <= 0 || l.dur < 0)
			continue;
		l.name = intern_add(r->t->strings, name, strlen(name));
		trace_add_launch(r->t, &l);
	}
}

/* strings.marker_api: [{"key": correlation id, "value": the range's text}]. */
struct marker {
	int64_t key;
	const char *text;
};

static int cmp_marker(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static const char *marker_text(const struct marker *v, size_t n, int64_t corr)
{
	struct marker key = { .key = corr };
	const struct marker *m = n ? bsearch(&key, v, n, sizeof *v, cmp_marker) : NULL;

	return m ? m->text : NULL;
}

static void read_markers(struct rp *r, const cJSON *records)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(r->strings, "marker_api"), *m;
	struct marker *v = NULL;
	size_t n = 0, cap = 0;

	if (!cJSON_GetArraySize(records))
		return;
	cJSON_ArrayForEach(m, list)
	{
		struct marker e = { .key = num(m, "key"), .text = str(m, "value") };

		if (e.text)
			VEC_PUSH(v, n, cap, e);
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_marker);

	cJSON_ArrayForEach(m, records)
	{
		int64_t corr =
			num(cJSON_GetObjectItemCaseSensitive(m, "correlation_id"), "internal");
		const char *text = marker_text(v, n, corr);
		struct trace_range g = { .start = num(m, "start_timestamp"),
					 .dur = trace_span_dur(num(m, "start_timestamp"),
							       num(m, "end_timestamp")),
					 .seq = -1,
					 .tid = num(m, "thread_id"),
					 .kind = RANGE_USER };

		r->t->n_events++;
		if (!text || !*text || g.start <= 0 || g.dur <= 0)
			continue;
		g.name = intern_add(r->t->strings, text, strlen(text));
		trace_add_range(r->t, &g);
	}
	free(v);
}

/* The line and column of byte off in buf, for the message of a parse error. */
static void where(const char *buf, size_t off, long *line, long *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/* cJSON's allocations, which say when one failed: out of memory is not "not valid JSON". */
static _Thread_local int cjson_oom;

static void *cjson_malloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		cjson_oom = 1;
	return p;
}

static void cjson_hooks(void)
{
	cJSON_Hooks h = { cjson_malloc, free };

	cJSON_InitHooks(&h);
}

/* "NAME: out of memory ...": the whole file and its tree do not fit. */
static int out_of_memory(const char *name, size_t len, struct fd_error *err)
{
	fd_error_set(err,
		     "%s: out of memory reading a rocprofv3 JSON file of %zu MiB (it is parsed "
		     "whole, in about six times its size): record fewer kernels, or use "
		     "--output-format rocpd",
		     name, len >> 20);
	return -1;
}

static int rocprof_load(struct trace *t, struct input *in, const char *name,
			const struct trace_load_opts *opts, struct fd_error *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	const cJSON *runs, *run;
	cJSON *doc;
	ssize_t n;
	int any = 0;

	pthread_once(&once, cjson_hooks);
	while ((n = input_read(in, buf + len, cap - len - 1, err)) > 0) {
		len += (size_t)n;
		if (len > ROCPROF_JSON_MAX) {
			fd_error_set(
				err,
				"%s: a rocprofv3 JSON file of more than %d MiB (it is parsed "
				"whole, in about six times its size): record fewer kernels, or "
				"use --output-format rocpd",
				name, (int)(ROCPROF_JSON_MAX >> 20));
			free(buf);
			return -1;
		}
		if (cap - len < 2) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				return out_of_memory(name, len, err);
			}
			buf = more;
			cap *= 2;
		}
		if (opts && opts->progress &&
		    opts->progress(opts->progress_user, input_raw_done(in), input_raw_size(in))) {
			fd_error_set(err, "%s: cancelled", name);
			free(buf);
			return -1;
		}
	}
	if (n < 0) {
		char msg[FD_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		fd_error_set(err, "%s: %s", name, msg);
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	t->bytes = (int64_t)len;
	cjson_oom = 0;
	doc = cJSON_ParseWithLength(buf, len);
	if (!doc && cjson_oom) {
		free(buf);
		return out_of_memory(name, len, err);
	}
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
		long line, col;

		where(buf, off, &line, &col);
		fd_error_set(err,
			     "%s: line %ld, column %ld: not valid JSON (a rocprofv3 JSON file)",
			     name, line, col);
		free(buf);
		return -1;
	}
	free(buf);
	t->platform = PLATFORM_AMD;
	t->platform_reason = "the rocprofiler-sdk agents";
	runs = cJSON_GetObjectItemCaseSensitive(doc, "rocprofiler-sdk-tool");
	cJSON_ArrayForEach(run, runs)
	{
		struct rp r = { .t = t,
				.strings = cJSON_GetObjectItemCaseSensitive(run, "strings") };
		const cJSON *br = cJSON_GetObjectItemCaseSensitive(run, "buffer_records");
		const cJSON *kd = cJSON_GetObjectItemCaseSensitive(br, "kernel_dispatch");

		if (!cJSON_IsArray(kd))
			continue;
		any = 1;
		read_operations(&r);
		read_agents(&r, cJSON_GetObjectItemCaseSensitive(run, "agents"));
		read_symbols(&r, cJSON_GetObjectItemCaseSensitive(run, "kernel_symbols"));
		read_dispatches(&r, kd);
		read_copies(&r, cJSON_GetObjectItemCaseSensitive(br, "memory_copy"));
		read_hip(&r, cJSON_GetObjectItemCaseSensitive(br, "hip_api"));
		read_markers(&r, cJSON_GetObjectItemCaseSensitive(br, "marker_api"));
		free(r.agents);
		free(r.symbols);
		for (size_t i = 0; i < r.n_kinds; i++)
			free(r.kinds[i].name);
		free(r.kinds);
	}
	cJSON_Delete(doc);
	if (!any) {
		fd_error_set(err,
			     "%s: a rocprofv3 JSON file without buffer_records.kernel_dispatch "
			     "(record it with rocprofv3 --kernel-trace)",
			     name);
		return -1;
	}
	return 0;
}

const struct trace_format trace_format_rocprof_json = {
	.name = "rocprofv3 JSON",
	.detect = rocprof_detect,
	.load = rocprof_load,
};
