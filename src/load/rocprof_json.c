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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "rocprof_int.h"
#include "fusediff/intern.h"
#include "trace_build.h"

#define TOOL_KEY "\"rocprofiler-sdk-tool\""

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
};

struct rp {
	struct trace *t;
	struct agent *agents;
	size_t n_agents;
	uint32_t *symbols; /* kernel_id -> interned name */
	size_t n_symbols;
	const cJSON *strings;
};

static int32_t device_of(const struct rp *r, int64_t h)
{
	for (size_t i = 0; i < r->n_agents; i++)
		if (r->agents[i].handle == h)
			return r->agents[i].device;
	return (int32_t)(h & 0x7fffffff);
}

static void read_agents(struct rp *r, const cJSON *agents)
{
	const cJSON *a;
	size_t cap = 0;

	cJSON_ArrayForEach(a, agents)
	{
		struct agent e = { .handle = handle(a, "id"), .device = -1 };

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
}

static void read_symbols(struct rp *r, const cJSON *symbols)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, symbols)
	{
		int64_t id = num(s, "kernel_id");
		const char *name = str(s, "formatted_kernel_name");

		if (id < 0 || id > 100000000)
			continue;
		if (!name || !*name || strcmp(name, "0") == 0)
			name = str(s, "demangled_kernel_name");
		if (!name || !*name)
			name = str(s, "kernel_name");
		if (!name)
			continue;
		if ((size_t)id >= r->n_symbols) {
			size_t n = (size_t)id + 1 > 2 * r->n_symbols ? (size_t)id + 1
								     : 2 * r->n_symbols;

			r->symbols = xreallocarray(r->symbols, n, sizeof *r->symbols);
			memset(r->symbols + r->n_symbols, 0,
			       (n - r->n_symbols) * sizeof *r->symbols);
			r->n_symbols = n;
		}
		r->symbols[id] = rocprof_kernel_name(r->t, name, strlen(name));
	}
}

/* The name of operation `op` of buffer record kind `kind` (strings.buffer_records[kind]). */
static const char *operation_name(const struct rp *r, int64_t kind, int64_t op)
{
	const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(r->strings, "buffer_records");
	const cJSON *k = kind >= 0 && kind < 1000 ? cJSON_GetArrayItem(kinds, (int)kind) : NULL;
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(k, "operations");
	const cJSON *o = op >= 0 && op < 100000 ? cJSON_GetArrayItem(ops, (int)op) : NULL;

	return cJSON_IsString(o) ? o->valuestring : NULL;
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
		k.name = id >= 0 && (size_t)id < r->n_symbols ? r->symbols[id] : 0;
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

static int rocprof_load(struct trace *t, struct input *in, const char *name,
			const struct trace_load_opts *opts, struct fd_error *err)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	const cJSON *runs, *run;
	cJSON *doc;
	ssize_t n;
	int any = 0;

	while ((n = input_read(in, buf + len, cap - len - 1, err)) > 0) {
		len += (size_t)n;
		if (cap - len < 2)
			buf = xrealloc(buf, cap *= 2);
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
	doc = cJSON_ParseWithLength(buf, len);
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
		read_agents(&r, cJSON_GetObjectItemCaseSensitive(run, "agents"));
		read_symbols(&r, cJSON_GetObjectItemCaseSensitive(run, "kernel_symbols"));
		read_dispatches(&r, kd);
		read_copies(&r, cJSON_GetObjectItemCaseSensitive(br, "memory_copy"));
		read_hip(&r, cJSON_GetObjectItemCaseSensitive(br, "hip_api"));
		read_markers(&r, cJSON_GetObjectItemCaseSensitive(br, "marker_api"));
		free(r.agents);
		free(r.symbols);
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
