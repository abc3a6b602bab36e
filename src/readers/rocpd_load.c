/* rocpd_load.c — a rocpd database (rocprofv3's default output, `--output-format rocpd`, a
 * .db file) as a trace, through the views rocprofv3 documents: `kernels` (one row per
 * dispatch: name, start, end, agent indices, queue, grid and workgroup sizes),
 * `memory_copies`, `regions` (API calls and markers, by category) and the table
 * rocpd_info_agent (GPU names). GPUs are numbered as HIP numbers them (agent_type_index),
 * queues are the streams. Columns a database lacks are read as 0. */
#include <stdio.h>
#include <string.h>

#include "rocprof_int.h"
#include "sqlite_input.h"
#include "../trace/trace_build.h"

/* "kernels.col" when the view has it, else "0": for SELECT lists. */
static const char *col(sqlite3 *db, const char *table, const char *c, const char *fallback)
{
	return sqlite_has_column(db, table, c) ? c : fallback;
}

static int read_kernels(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
			struct fd_error *err)
{
	const char *dev = col(
		db, "kernels", "agent_type_index",
		col(db, "kernels", "agent_log_index", col(db, "kernels", "agent_abs_index", "0")));
	char sql[512];
	sqlite3_stmt *st;
	int rc;

	if (!sqlite_has_column(db, "kernels", "name") ||
	    !sqlite_has_column(db, "kernels", "start") ||
	    !sqlite_has_column(db, "kernels", "end")) {
		fd_error_set(err,
			     "%s: a rocpd database whose kernels view has no name, start and end",
			     name);
		return -1;
	}
	snprintf(sql, sizeof sql,
		 "SELECT name, start, end, %s, %s, %s, %s, %s, %s, %s, %s FROM kernels", dev,
		 col(db, "kernels", "queue_id", "0"), col(db, "kernels", "grid_x", "0"),
		 col(db, "kernels", "grid_y", "0"), col(db, "kernels", "grid_z", "0"),
		 col(db, "kernels", "workgroup_x", "0"), col(db, "kernels", "workgroup_y", "0"),
		 col(db, "kernels", "workgroup_z", "0"));
	st = sqlite_prepare(db, sql, name, "the kernels view", err);
	if (!st)
		return -1;
	while ((rc = sqlite_step(st, b)) == SQLITE_ROW) {
		size_t kn_len;
		const char *kn = sqlite_text(st, 0, b, &kn_len);
		struct trace_kernel k = { .start = sqlite3_column_int64(st, 1),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 1),
								sqlite3_column_int64(st, 2)),
					  .device = trace_device_id(sqlite3_column_int64(st, 3)),
					  .stream = (int32_t)sqlite3_column_int64(st, 4),
					  .kind = KIND_KERNEL };

		int32_t grid[3], block[3];

		for (int d = 0; d < 3; d++) {
			grid[d] = (int32_t)sqlite3_column_int64(st, 5 + d);
			block[d] = (int32_t)sqlite3_column_int64(st, 8 + d);
		}
		k.dims = trace_add_dims(t, grid, block);
		if (b->exhausted)
			break;
		/* the bytes SQLite holds: a NUL inside a name does not cut it */
		k.name = rocprof_kernel_name(t, kn ? kn : "", kn_len);
		t->n_events++;
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
	sqlite3_finalize(st);
	return sqlite_step_done(db, rc, name, "the kernels view", err);
}

static void read_copies(sqlite3 *db, struct sqlite_budget *b, struct trace *t)
{
	char sql[256];
	sqlite3_stmt *st;

	if (!sqlite_has_table(db, "memory_copies") ||
	    !sqlite_has_column(db, "memory_copies", "dst_agent_type"))
		return;
	snprintf(sql, sizeof sql,
		 "SELECT name, start, end, dst_agent_type, dst_agent_type_index, "
		 "src_agent_type_index, %s FROM memory_copies",
		 col(db, "memory_copies", "queue_id", "0"));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, b) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 3);
		struct trace_kernel k = { .start = sqlite3_column_int64(st, 1),
					  .dur = trace_span_dur(sqlite3_column_int64(st, 1),
								sqlite3_column_int64(st, 2)),
					  .stream = (int32_t)sqlite3_column_int64(st, 6),
					  .kind = KIND_MEMCPY };

		k.device = trace_device_id(
			sqlite3_column_int64(st, type && strcmp(type, "GPU") == 0 ? 4 : 5));
		k.name = rocprof_copy_name(t, (const char *)sqlite3_column_text(st, 0));
		t->n_events++;
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
	sqlite3_finalize(st);
}

/* roctx ranges: regions of a MARKER category. */
static void read_markers(sqlite3 *db, struct sqlite_budget *b, struct trace *t)
{
	sqlite3_stmt *st;

	if (!sqlite_has_table(db, "regions") || !sqlite_has_column(db, "regions", "category") ||
	    sqlite3_prepare_v2(db,
			       "SELECT name, start, end, pid, tid FROM regions WHERE category "
			       "LIKE 'MARKER%' AND end > start",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, b) == SQLITE_ROW) {
		size_t len;
		const char *text = sqlite_text(st, 0, b, &len);
		struct trace_range r = { .start = sqlite3_column_int64(st, 1),
					 .dur = trace_span_dur(sqlite3_column_int64(st, 1),
							       sqlite3_column_int64(st, 2)),
					 .seq = -1,
					 .pid = sqlite3_column_int64(st, 3),
					 .tid = sqlite3_column_int64(st, 4),
					 .kind = RANGE_USER };

		t->n_events++;
		if (b->exhausted)
			break;
		if (!text || !*text || r.start <= 0)
			continue;
		r.name = trace_intern_text(t, text, len);
		trace_add_range(t, &r);
	}
	sqlite3_finalize(st);
}

static void read_agents(sqlite3 *db, struct sqlite_budget *b, struct trace *t)
{
	int ext = sqlite_has_column(db, "rocpd_info_agent", "extdata");
	char sql[320];
	sqlite3_stmt *st;

	if (!sqlite_has_table(db, "rocpd_info_agent") ||
	    !sqlite_has_column(db, "rocpd_info_agent", "type_index"))
		return;
	snprintf(sql, sizeof sql,
		 "SELECT type_index, %s, %s, %s, %s FROM rocpd_info_agent WHERE type = 'GPU'",
		 col(db, "rocpd_info_agent", "product_name", "NULL"),
		 col(db, "rocpd_info_agent", "name", "NULL"),
		 ext ? "json_extract(extdata, '$.wave_front_size')" : "0",
		 ext ? "json_extract(extdata, '$.cu_count')" : "0");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite_step(st, b) == SQLITE_ROW) {
		const char *pn = (const char *)sqlite3_column_text(st, 1);
		struct trace_device d = { .id = (int32_t)sqlite3_column_int64(st, 0),
					  .warp_size = (int32_t)sqlite3_column_int64(st, 3),
					  .num_sms = (int32_t)sqlite3_column_int64(st, 4) };

		if (!pn || !*pn)
			pn = (const char *)sqlite3_column_text(st, 2);
		if (pn && *pn)
			d.name = intern_add(t->strings, pn, strlen(pn));
		trace_add_device(t, &d);
	}
	sqlite3_finalize(st);
}

int rocpd_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	       struct fd_error *err)
{
	t->format = "rocpd SQLite";
	t->platform = PLATFORM_AMD;
	t->platform_reason = "a rocprofiler-sdk database";
	if (!sqlite_has_table(db, "kernels")) {
		fd_error_set(err, "%s: a rocpd database without its kernels view", name);
		return -1;
	}
	if (read_kernels(db, b, t, name, err) < 0)
		return -1;
	read_copies(db, b, t);
	read_markers(db, b, t);
	read_agents(db, b, t);
	return 0;
}
