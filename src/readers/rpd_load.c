/* rpd_load.c — a rocmProfileData database (.rpd: the SQLite file of AMD's rpd_tracer, the
 * older ROCm profiling schema used with vLLM on ROCm) as a trace.
 *
 * Its tables (ROCm/rocmProfileData, rocpd_python/rocpd/schema_data/tableSchema.cmd): every
 * string once in rocpd_string(id, string); GPU work in rocpd_op(gpuId, queueId, start, end,
 * description_id, opType_id), a kernel being an op of type "KernelExecution" described by its
 * name, a copy one of type "CopyHostToDevice" and the like; host API calls in rocpd_api(pid,
 * tid, start, end, apiName_id, args_id), joined to the ops they caused by rocpd_api_ops(api_id,
 * op_id); a kernel launch's grid and workgroup in rocpd_kernelapi(api_ptr_id, gridX..Z,
 * workgroupX..Z, kernelName_id) (rocpd_kernelop(op_ptr_id, ...) in the first schema); roctx
 * ranges are API calls named "UserMarker" whose args are the text. Times are ns. The API call
 * that caused an op is its launch (its id the correlation); GPUs are numbered as HIP numbers
 * them, queues are the streams. */
#include <stdio.h>
#include <string.h>

#include "rocprof_int.h"
#include "sqlite_input.h"
#include "../trace/trace_build.h"

/* "T.col" when the table has the column, else "0", for SELECT lists. */
static const char *col(sqlite3 *db, const char *table, const char *c, const char *with)
{
	return sqlite_has_column(db, table, c) ? with : "0";
}

/* The platform from the API names recorded: HIP or CUDA (rpd_tracer records either). */
static void read_platform(sqlite3 *db, struct trace *t)
{
	sqlite3_stmt *st;

	t->platform = PLATFORM_UNKNOWN;
	if (sqlite3_prepare_v2(db,
			       "SELECT substr(string, 1, 3) FROM rocpd_string WHERE string LIKE "
			       "'hip%' OR string LIKE 'cuda%' LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);

		if (p && strcmp(p, "hip") == 0) {
			t->platform = PLATFORM_AMD;
			t->platform_reason = "the HIP API calls of the rocmProfileData trace";
		} else if (p) {
			t->platform = PLATFORM_NVIDIA;
			t->platform_reason = "the CUDA API calls of the rocmProfileData trace";
		}
	}
	sqlite3_finalize(st);
}

/* The API calls that caused an op (the launches), each with its id as the correlation. */
static int read_launches(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
			 struct fd_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!sqlite_has_table(db, "rocpd_api") || !sqlite_has_table(db, "rocpd_api_ops"))
		return 0;
	st = sqlite_prepare(db,
			    "SELECT a.id, a.start, a.end, a.tid, n.string FROM rocpd_api a JOIN "
			    "rocpd_string n ON n.id = a.apiName_id WHERE a.id IN (SELECT api_id "
			    "FROM rocpd_api_ops)",
			    name, "the rocpd_api table", err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, b)) == SQLITE_ROW) {
		size_t len;
		const char *api = sqlite_text(st, 4, b, &len);
		struct trace_launch l = { .start = sqlite3_column_int64(st, 1),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 1),
								sqlite3_column_int64(st, 2)),
					  .correlation = sqlite3_column_int64(st, 0),
					  .tid = sqlite3_column_int64(st, 3) };

		if (b->exhausted)
			break;
		t->n_events++;
		if (l.start <= 0 || l.dur < 0 || l.correlation <= 0 || !api)
			continue;
		l.name = trace_intern_text(t, api, len);
		trace_add_launch(t, &l);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(db, rc, name, "the rocpd_api table", err);
}

/* Kineto's name of a copy op type ("CopyHostToDevice" -> "Memcpy HtoD (Host -> Device)"). */
static uint32_t copy_name(struct trace *t, const char *type)
{
	static const struct {
		const char *type, *op;
	} map[] = {
		{ "CopyHostToDevice", "MEMORY_COPY_HOST_TO_DEVICE" },
		{ "CopyDeviceToHost", "MEMORY_COPY_DEVICE_TO_HOST" },
		{ "CopyDeviceToDevice", "MEMORY_COPY_DEVICE_TO_DEVICE" },
		{ "CopyHostToHost", "MEMORY_COPY_HOST_TO_HOST" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(type, map[i].type) == 0)
			return rocprof_copy_name(t, map[i].op);
	return rocprof_copy_name(t, NULL);
}

/* The kernels and copies of rocpd_op, with the launch and launch configuration of each kernel
 * when the API call that caused it is recorded. */
static int read_ops(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
		    struct fd_error *err)
{
	int api = sqlite_has_table(db, "rocpd_api_ops");
	int kapi = api && sqlite_has_table(db, "rocpd_kernelapi") &&
		   sqlite_has_column(db, "rocpd_kernelapi", "api_ptr_id");
	int kop = !kapi && sqlite_has_table(db, "rocpd_kernelop") &&
		  sqlite_has_column(db, "rocpd_kernelop", "op_ptr_id");
	const char *kt = kapi ? "rocpd_kernelapi" : "rocpd_kernelop";
	char sql[1400];
	sqlite3_stmt *st;
	int64_t last = -1;
	int rc;

	snprintf(sql, sizeof sql,
		 "SELECT o.id, o.start, o.end, o.gpuId, o.queueId, ty.string, d.string, %s, "
		 "%s, %s, %s, %s, %s, %s, %s FROM rocpd_op o JOIN rocpd_string ty ON ty.id = "
		 "o.opType_id LEFT JOIN rocpd_string d ON d.id = o.description_id %s %s WHERE "
		 "ty.string = 'KernelExecution' OR ty.string LIKE 'Copy%%'",
		 api ? "ao.api_id" : "0", kapi || kop ? col(db, kt, "gridX", "k.gridX") : "0",
		 kapi || kop ? col(db, kt, "gridY", "k.gridY") : "0",
		 kapi || kop ? col(db, kt, "gridZ", "k.gridZ") : "0",
		 kapi || kop ? col(db, kt, "workgroupX", "k.workgroupX") : "0",
		 kapi || kop ? col(db, kt, "workgroupY", "k.workgroupY") : "0",
		 kapi || kop ? col(db, kt, "workgroupZ", "k.workgroupZ") : "0",
		 kapi && sqlite_has_column(db, "rocpd_kernelapi", "kernelName_id")
			 ? "(SELECT string FROM rocpd_string WHERE id = k.kernelName_id)"
			 : "NULL",
		 api ? "LEFT JOIN rocpd_api_ops ao ON ao.op_id = o.id" : "",
		 kapi  ? "LEFT JOIN rocpd_kernelapi k ON k.api_ptr_id = ao.api_id"
		 : kop ? "LEFT JOIN rocpd_kernelop k ON k.op_ptr_id = o.id"
		       : "");
	st = sqlite_prepare(db, sql, name, "the rocpd_op table", err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, b)) == SQLITE_ROW) {
		size_t tlen, dlen, klen;
		const char *type = sqlite_text(st, 5, b, &tlen);
		const char *desc = sqlite_text(st, 6, b, &dlen);
		const char *kname = sqlite_text(st, 14, b, &klen);
		int64_t id = sqlite3_column_int64(st, 0);
		struct trace_kernel k = { .start = sqlite3_column_int64(st, 1),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 1),
								sqlite3_column_int64(st, 2)),
					  .device = trace_device_id(sqlite3_column_int64(st, 3)),
					  .stream = (int32_t)sqlite3_column_int64(st, 4),
					  .correlation = sqlite3_column_int64(st, 7),
					  .kind = KIND_KERNEL };
		int32_t grid[3], block[3];

		if (b->exhausted)
			break;
		if (id == last) /* a second API call for the same op: the first one counts */
			continue;
		last = id;
		t->n_events++;
		if (!type)
			continue;
		for (int d = 0; d < 3; d++) {
			grid[d] = (int32_t)sqlite3_column_int64(st, 8 + d);
			block[d] = (int32_t)sqlite3_column_int64(st, 11 + d);
		}
		k.dims = trace_add_dims(t, grid, block);
		if (strcmp(type, "KernelExecution") != 0) {
			k.kind = KIND_MEMCPY;
			k.name = copy_name(t, type);
		} else if (desc && dlen) {
			k.name = rocprof_kernel_name(t, desc, dlen);
		} else {
			k.name = rocprof_kernel_name(t, kname ? kname : "", klen);
		}
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(db, rc, name, "the rocpd_op table", err);
}

/* roctx ranges: API calls named UserMarker, their args the text. */
static void read_markers(sqlite3 *db, struct sqlite_budget *b, struct trace *t)
{
	sqlite3_stmt *st;

	if (!sqlite_has_table(db, "rocpd_api") ||
	    sqlite3_prepare_v2(
		    db,
		    "SELECT a.start, a.end, a.pid, a.tid, s.string FROM rocpd_api a JOIN "
		    "rocpd_string n ON n.id = a.apiName_id JOIN rocpd_string s ON s.id = "
		    "a.args_id WHERE n.string = 'UserMarker' AND a.end > a.start",
		    -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, b) == SQLITE_ROW) {
		size_t len;
		const char *text = sqlite_text(st, 4, b, &len);
		struct trace_range r = { .start = sqlite3_column_int64(st, 0),
					 .dur = trace_span_dur(sqlite3_column_int64(st, 0),
							       sqlite3_column_int64(st, 1)),
					 .seq = -1,
					 .pid = sqlite3_column_int64(st, 2),
					 .tid = sqlite3_column_int64(st, 3),
					 .kind = RANGE_USER };

		if (b->exhausted)
			break;
		t->n_events++;
		if (!text || !len || r.start <= 0 || r.dur <= 0)
			continue;
		r.name = trace_intern_text(t, text, len);
		trace_add_range(t, &r);
	}
	sqlite3_finalize(st);
}

int rpd_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	     struct fd_error *err)
{
	static const char *const need[] = { "start",	      "end",	  "gpuId", "queueId",
					    "description_id", "opType_id" };

	t->format = "rocmProfileData SQLite (.rpd)";
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!sqlite_has_column(db, "rocpd_op", need[i]) ||
		    !sqlite_has_column(db, "rocpd_string", "string")) {
			fd_error_set(err,
				     "%s: a rocmProfileData (.rpd) database whose rocpd_op table "
				     "has no %s column",
				     name, need[i]);
			return -1;
		}
	read_platform(db, t);
	if (read_launches(db, b, t, name, err) < 0 || read_ops(db, b, t, name, err) < 0)
		return -1;
	read_markers(db, b, t);
	return 0;
}
