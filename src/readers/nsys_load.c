/* nsys_load.c — an Nsight Systems SQLite export (`nsys export --type sqlite`) as a trace.
 *
 * Kernels come from CUPTI_ACTIVITY_KIND_KERNEL (demangled names through StringIds), copies
 * from the MEMCPY and MEMSET tables, launches from CUPTI_ACTIVITY_KIND_RUNTIME (joined by
 * correlation id within a process), annotations from NVTX_EVENTS. PyTorch's NVTX ranges
 * ("aten::mm, seq = 12, sizes = [[32, 4096], [4096, 4096]]" or "aten::mm, op_id = 7") are
 * the operators: a launch belongs to the innermost one around it on its thread, as a Kineto
 * cpu_op's External id says. The GPU's name comes from TARGET_INFO_GPU when the export has
 * it. Times are ns already. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/intern.h"
#include "sqlite_input.h"
#include "../trace/trace_build.h"

/* StringIds: the export's string id -> our interned id, sorted by the export's id. */
struct sid {
	int64_t id;
	uint32_t str;
};

struct nsys {
	sqlite3 *db;
	struct sqlite_budget *b;
	struct trace *t;
	const char *name;
	struct fd_error *err;
	struct sid *sids;
	size_t n_sids;
};

/* A PyTorch NVTX operator range or a runtime call, while they are joined. */
struct span {
	int64_t start, end, tid;
	int64_t correlation; /* launches */
	int64_t ext;	     /* operators: their synthetic External id; launches: the one found */
	uint32_t name, dims;
};

DEFINE_LOWER_BOUND(sid_lower, struct sid, int64_t, id)

static uint32_t str_of(const struct nsys *ns, int64_t id)
{
	size_t lo = sid_lower(ns->sids, ns->n_sids, id);

	return lo < ns->n_sids && ns->sids[lo].id == id ? ns->sids[lo].str : 0;
}

static int read_strings(struct nsys *ns)
{
	sqlite3_stmt *st = sqlite_prepare(ns->db, "SELECT id, value FROM StringIds ORDER BY id",
					  ns->name, "the StringIds table", ns->err);
	size_t cap = 0;
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite_step(st, ns->b)) == SQLITE_ROW) {
		size_t len;
		const char *s = sqlite_text(st, 1, ns->b, &len);
		struct sid e = { .id = sqlite3_column_int64(st, 0) };

		if (ns->b->exhausted)
			break;
		e.str = trace_intern_text(ns->t, s ? s : "", len);
		VEC_PUSH(ns->sids, ns->n_sids, cap, e);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(ns->db, rc, ns->name, "the StringIds table", ns->err);
}

/* The process id inside a serialized GlobalId (nsys: pid in bits 24..47). */
static int64_t gid_pid(int64_t gid)
{
	return (gid >> 24) & 0xFFFFFF;
}

/* Correlation ids count per process: make them unique across the processes of one export. */
static int64_t correlation_key(int64_t gid, int64_t corr)
{
	return corr ? (gid_pid(gid) << 32) | (corr & 0xFFFFFFFF) : 0;
}

/* An operator's range rather than an annotation: what PyTorch's NVTX mode writes for every op
 * ("aten::mm, seq = 12, op_id = 7, sizes = [...]", "FlashAttnFunc, seq = 3, op_id = 9"), a
 * namespaced name ("c10d::allreduce_"), or a call of NCCL, which marks its own (ncclSend). */
static int is_operator(const char *s)
{
	const char *colon = strstr(s, "::");

	if (strstr(s, ", op_id = ") || strstr(s, ", seq = ") || strstr(s, ", sizes = "))
		return 1;
	if (strncmp(s, "nccl", 4) == 0 && s[4] >= 'A' && s[4] <= 'Z')
		return 1;
	if (!colon || colon == s)
		return 0;
	for (const char *p = s; p < colon; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* "sizes = [[32, 4096], []]" -> "[[32,4096],[]]" (the compact form of Kineto's Input Dims). */
static uint32_t dims_of(struct trace *t, const char *s)
{
	const char *p = strstr(s, "sizes = [");
	char buf[4096];
	size_t n = 0;
	int depth = 0;

	if (!p)
		return 0;
	for (p += 8; *p && n < sizeof buf - 1; p++) {
		if (*p == ' ')
			continue;
		buf[n++] = *p;
		if (*p == '[')
			depth++;
		else if (*p == ']' && --depth == 0)
			return intern_add(t->strings, buf, n);
	}
	return 0;
}

static int cmp_span_thread(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* longest first */
}

static int cmp_span_corr(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->correlation > y->correlation) - (x->correlation < y->correlation);
}

/* NVTX ranges: operators into ops, the rest added as annotations. */
static int read_nvtx(struct nsys *ns, struct span **ops, size_t *n_ops)
{
	const char *sql = sqlite_has_column(ns->db, "NVTX_EVENTS", "textId")
				  ? "SELECT start, end, text, textId, globalTid FROM NVTX_EVENTS "
				    "WHERE end IS NOT NULL AND end >= start"
				  : "SELECT start, end, text, NULL, globalTid FROM NVTX_EVENTS "
				    "WHERE end IS NOT NULL AND end >= start";
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*ops = NULL;
	*n_ops = 0;
	if (!sqlite_has_table(ns->db, "NVTX_EVENTS"))
		return 0;
	st = sqlite_prepare(ns->db, sql, ns->name, "the NVTX_EVENTS table", ns->err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, ns->b)) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(st, 0), end = sqlite3_column_int64(st, 1);
		int64_t gtid = sqlite3_column_int64(st, 4);
		size_t text_len;
		const char *text = sqlite_text(st, 2, ns->b, &text_len);
		uint32_t whole = 0;

		if (ns->b->exhausted)
			break;
		if (!text && sqlite3_column_type(st, 3) != SQLITE_NULL) {
			whole = str_of(ns, sqlite3_column_int64(st, 3));
			text = trace_str(ns->t, whole);
			text_len = intern_len(ns->t->strings, whole);
		}
		if (!text || !*text || trace_span_dur(start, end) < 0)
			continue;
		ns->t->n_events++;
		if (is_operator(text)) {
			size_t len = strcspn(text, ",");
			struct span o = { .start = start, .end = end, .tid = gtid };

			while (len && text[len - 1] == ' ')
				len--;
			o.dims = dims_of(ns->t, text);
			o.name = intern_add(ns->t->strings, text, len);
			VEC_PUSH(*ops, *n_ops, cap, o);
		} else {
			struct trace_range r = { .start = start,
						 .dur = end - start,
						 .seq = -1,
						 .pid = gid_pid(gtid),
						 .tid = gtid,
						 .kind = RANGE_USER };

			r.name = whole ? whole : trace_intern_text(ns->t, text, text_len);
			trace_add_range(ns->t, &r);
		}
	}
	sqlite3_finalize(st);
	return sqlite_step_done(ns->db, rc, ns->name, "the NVTX_EVENTS table", ns->err);
}

static int read_runtime(struct nsys *ns, struct span **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!sqlite_has_table(ns->db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
		return 0;
	st = sqlite_prepare(ns->db,
			    "SELECT start, end, globalTid, correlationId, nameId FROM "
			    "CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL AND "
			    "correlationId != 0 AND end >= start",
			    ns->name, "the CUPTI_ACTIVITY_KIND_RUNTIME table", ns->err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, ns->b)) == SQLITE_ROW) {
		int64_t gtid = sqlite3_column_int64(st, 2);
		struct span l = { .start = sqlite3_column_int64(st, 0),
				  .end = sqlite3_column_int64(st, 1),
				  .tid = gtid,
				  .correlation = correlation_key(gtid, sqlite3_column_int64(st, 3)),
				  .name = str_of(ns, sqlite3_column_int64(st, 4)) };

		ns->t->n_events++;
		if (trace_span_dur(l.start, l.end) >= 0)
			VEC_PUSH(*out, *n, cap, l);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(ns->db, rc, ns->name, "the CUPTI_ACTIVITY_KIND_RUNTIME table",
				ns->err);
}

/* Give each launch the innermost operator around it on its thread (both sorted by thread,
 * start, longest first), then add both to the trace. */
static void join_ops(struct nsys *ns, struct span *ops, size_t n_ops, struct span *l, size_t n_l)
{
	size_t *stack = xmalloc((n_ops + 1) * sizeof *stack), depth = 0, o = 0;

	for (size_t i = 0; i < n_ops; i++) {
		struct trace_op op = { .start = ops[i].start,
				       .dur = ops[i].end - ops[i].start,
				       .external_id = (int64_t)i + 1,
				       .tid = ops[i].tid,
				       .name = ops[i].name,
				       .input_dims = ops[i].dims };

		ops[i].ext = op.external_id;
		trace_add_op(ns->t, &op);
	}
	if (n_ops)
		qsort(ops, n_ops, sizeof *ops, cmp_span_thread);
	if (n_l)
		qsort(l, n_l, sizeof *l, cmp_span_thread);
	for (size_t i = 0; i < n_l; i++) {
		if (i && l[i].tid != l[i - 1].tid)
			depth = 0;
		while (o < n_ops && (ops[o].tid < l[i].tid ||
				     (ops[o].tid == l[i].tid && ops[o].start <= l[i].start))) {
			if (ops[o].tid == l[i].tid) {
				while (depth && ops[stack[depth - 1]].end < ops[o].start)
					depth--;
				stack[depth++] = o;
			}
			o++;
		}
		while (depth && (ops[stack[depth - 1]].tid != l[i].tid ||
				 ops[stack[depth - 1]].end < l[i].end))
			depth--;
		l[i].ext = depth ? ops[stack[depth - 1]].ext : 0;
	}
	free(stack);
	for (size_t i = 0; i < n_l; i++) {
		struct trace_launch tl = { .start = l[i].start,
					   .dur = l[i].end - l[i].start,
					   .correlation = l[i].correlation,
					   .external_id = l[i].ext,
					   .tid = l[i].tid,
					   .name = l[i].name };

		trace_add_launch(ns->t, &tl);
	}
	if (n_l)
		qsort(l, n_l, sizeof *l, cmp_span_corr);
}

DEFINE_LOWER_BOUND(span_corr_lower, struct span, int64_t, correlation)

static int64_t ext_of(const struct span *l, size_t n, int64_t corr)
{
	size_t lo = span_corr_lower(l, n, corr);

	return lo < n && l[lo].correlation == corr ? l[lo].ext : 0;
}

/* Kineto's names for copies: "Memcpy DtoD (Device -> Device)", "Memset (Device)". */
static uint32_t memcpy_name(struct nsys *ns, int64_t kind)
{
	sqlite3_stmt *st;
	char buf[160] = "Memcpy";

	if (sqlite_has_table(ns->db, "ENUM_CUDA_MEMCPY_OPER") &&
	    sqlite3_prepare_v2(ns->db,
			       "SELECT name, label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?1", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, kind);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *sym = (const char *)sqlite3_column_text(st, 0);
			const char *label = (const char *)sqlite3_column_text(st, 1);
			const char *k = sym ? strstr(sym, "KIND_") : NULL;
			char code[32] = "", *to;
			size_t n = 0;

			for (k = k ? k + 5 : ""; *k && n < sizeof code - 1; k++)
				code[n++] = *k;
			code[n] = '\0';
			to = n ? strstr(code + 1, "TO") : NULL;
			if (to) /* HTOD -> HtoD */
				to[0] = 't', to[1] = 'o';
			if (label) {
				char pretty[96];
				const char *dash = strstr(label, "-to-");

				if (dash)
					snprintf(pretty, sizeof pretty, "%.*s -> %s",
						 (int)(dash - label), label, dash + 4);
				else
					snprintf(pretty, sizeof pretty, "%s", label);
				snprintf(buf, sizeof buf, "Memcpy %s (%s)", code, pretty);
			}
		}
		sqlite3_finalize(st);
	}
	return intern_add(ns->t->strings, buf, strlen(buf));
}

static int read_kernels(struct nsys *ns, const struct span *l, size_t n_l)
{
	const char *name_col =
		sqlite_has_column(ns->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName")
			? "demangledName"
			: "shortName";
	char sql[512];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof sql,
		 "SELECT start, end, deviceId, streamId, correlationId, %s, gridX, gridY, gridZ, "
		 "blockX, blockY, blockZ, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL",
		 name_col);
	st = sqlite_prepare(ns->db, sql, ns->name, "the CUPTI_ACTIVITY_KIND_KERNEL table", ns->err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, ns->b)) == SQLITE_ROW) {
		struct trace_kernel k = { .start = sqlite3_column_int64(st, 0),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 0),
								sqlite3_column_int64(st, 1)),
					  .device = trace_device_id(sqlite3_column_int64(st, 2)),
					  .stream = (int32_t)sqlite3_column_int64(st, 3),
					  .name = str_of(ns, sqlite3_column_int64(st, 5)),
					  .kind = KIND_KERNEL };

		int32_t grid[3], block[3];

		for (int d = 0; d < 3; d++) {
			grid[d] = (int32_t)sqlite3_column_int64(st, 6 + d);
			block[d] = (int32_t)sqlite3_column_int64(st, 9 + d);
		}
		k.dims = trace_add_dims(ns->t, grid, block);
		k.correlation =
			correlation_key(sqlite3_column_int64(st, 12), sqlite3_column_int64(st, 4));
		k.external_id = ext_of(l, n_l, k.correlation);
		ns->t->n_events++;
		if (k.start >= 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(ns->t, &k);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(ns->db, rc, ns->name, "the CUPTI_ACTIVITY_KIND_KERNEL table",
				ns->err);
}

/* The MEMCPY and MEMSET tables, when the export has them. */
static int read_copies(struct nsys *ns, const struct span *l, size_t n_l, int memset)
{
	const char *table = memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
	char sql[320];
	uint32_t names[32] = { 0 };
	sqlite3_stmt *st;
	int rc;

	if (!sqlite_has_table(ns->db, table))
		return 0;
	snprintf(sql, sizeof sql,
		 "SELECT start, end, deviceId, streamId, correlationId, %s, globalPid FROM %s",
		 memset ? "0" : "copyKind", table);
	st = sqlite_prepare(ns->db, sql, ns->name, table, ns->err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, ns->b)) == SQLITE_ROW) {
		int64_t kind = sqlite3_column_int64(st, 5);
		struct trace_kernel k = { .start = sqlite3_column_int64(st, 0),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 0),
								sqlite3_column_int64(st, 1)),
					  .device = trace_device_id(sqlite3_column_int64(st, 2)),
					  .stream = (int32_t)sqlite3_column_int64(st, 3),
					  .kind = memset ? KIND_MEMSET : KIND_MEMCPY };

		if (memset)
			k.name = intern_add(ns->t->strings, "Memset (Device)", 15);
		else if (kind >= 0 && kind < 32)
			k.name = names[kind] ? names[kind] : (names[kind] = memcpy_name(ns, kind));
		else
			k.name = memcpy_name(ns, kind);
		k.correlation =
			correlation_key(sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 4));
		k.external_id = ext_of(l, n_l, k.correlation);
		ns->t->n_events++;
		if (k.start >= 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(ns->t, &k);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(ns->db, rc, ns->name, table, ns->err);
}

/* TARGET_INFO_GPU (and TARGET_INFO_CUDA_DEVICE for the CUDA device numbers), when present. */
static void read_gpus(struct nsys *ns)
{
	int by_cuda = sqlite_has_table(ns->db, "TARGET_INFO_CUDA_DEVICE") &&
		      sqlite_has_column(ns->db, "TARGET_INFO_CUDA_DEVICE", "cudaId") &&
		      sqlite_has_column(ns->db, "TARGET_INFO_CUDA_DEVICE", "gpuId");
	const char *cols[] = { "smCount", "computeMajor", "computeMinor", "totalMemory" };
	char sql[512];
	size_t n = 0;
	sqlite3_stmt *st;

	if (!sqlite_has_table(ns->db, "TARGET_INFO_GPU") ||
	    !sqlite_has_column(ns->db, "TARGET_INFO_GPU", "name") ||
	    !sqlite_has_column(ns->db, "TARGET_INFO_GPU", "id"))
		return;
	n += (size_t)snprintf(sql + n, sizeof sql - n, "SELECT %s, g.name",
			      by_cuda ? "(SELECT c.cudaId FROM TARGET_INFO_CUDA_DEVICE c WHERE "
					"c.gpuId = g.id LIMIT 1)"
				      : "g.id");
	for (size_t i = 0; i < 4; i++)
		n += (size_t)snprintf(
			sql + n, sizeof sql - n, ", %s%s",
			sqlite_has_column(ns->db, "TARGET_INFO_GPU", cols[i]) ? "g." : "0 AS ",
			cols[i]);
	snprintf(sql + n, sizeof sql - n, " FROM TARGET_INFO_GPU g");
	if (sqlite3_prepare_v2(ns->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, ns->b) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		struct trace_device d = { .id = (int32_t)sqlite3_column_int64(st, 0),
					  .warp_size = 32,
					  .num_sms = (int32_t)sqlite3_column_int64(st, 2),
					  .compute_major = (int32_t)sqlite3_column_int64(st, 3),
					  .compute_minor = (int32_t)sqlite3_column_int64(st, 4),
					  .total_mem = sqlite3_column_int64(st, 5) };

		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		if (name && *name)
			d.name = intern_add(ns->t->strings, name, strlen(name));
		trace_add_device(ns->t, &d);
	}
	sqlite3_finalize(st);
}

/* The export's version keys, shown as the trace's metadata. */
static void read_meta(struct nsys *ns)
{
	sqlite3_stmt *st;

	if (!sqlite_has_table(ns->db, "META_DATA_EXPORT") ||
	    sqlite3_prepare_v2(ns->db,
			       "SELECT name, value FROM META_DATA_EXPORT WHERE name IN "
			       "('EXPORT_PRODUCT_VERSION', 'EXPORT_SCHEMA_VERSION')",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, ns->b) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (k && v)
			trace_add_meta(ns->t, intern_add(ns->t->strings, k, strlen(k)),
				       intern_add(ns->t->strings, v, strlen(v)));
	}
	sqlite3_finalize(st);
}

int nsys_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	      struct fd_error *err)
{
	struct nsys ns = { .db = db, .b = b, .t = t, .name = name, .err = err };
	struct span *ops = NULL, *launches = NULL;
	size_t n_ops = 0, n_launches = 0;
	int rc = -1;

	t->format = "Nsight Systems SQLite";
	t->platform = PLATFORM_NVIDIA;
	t->platform_reason = "CUPTI tables of the Nsight Systems export";
	if (!sqlite_has_table(db, "StringIds")) {
		fd_error_set(err, "%s: an Nsight Systems export without its StringIds table", name);
		return -1;
	}
	if (read_strings(&ns) < 0 || read_nvtx(&ns, &ops, &n_ops) < 0 ||
	    read_runtime(&ns, &launches, &n_launches) < 0)
		goto out;
	join_ops(&ns, ops, n_ops, launches, n_launches);
	if (read_kernels(&ns, launches, n_launches) < 0 ||
	    read_copies(&ns, launches, n_launches, 0) < 0 ||
	    read_copies(&ns, launches, n_launches, 1) < 0)
		goto out;
	read_gpus(&ns);
	read_meta(&ns);
	rc = 0;
out:
	free(ops);
	free(launches);
	free(ns.sids);
	return rc;
}
