/* sqlite_load.c — the input format "SQLite database": an Nsight Systems export, a rocpd
 * database or a rocmProfileData (.rpd) one, told apart by their tables (formats.h,
 * sqlite_input.h). */
#include <sqlite3.h>

#include "formats.h"
#include "sqlite_input.h"
#include "../trace/trace_build.h"

static int sqlite_load(struct trace *t, struct input *in, const char *name,
		       const struct trace_load_opts *opts, struct fd_error *err)
{
	int64_t bytes = 0;
	struct sqlite_budget budget;
	sqlite3 *db = sqlite_input_open(in, name, opts, &budget, &bytes, err);
	int rc;

	if (!db)
		return -1;
	t->bytes = bytes;
	if (sqlite_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
		rc = nsys_read(db, &budget, t, name, err);
	else if (sqlite_has_table(db, "kernels") || sqlite_has_table(db, "rocpd_kernel_dispatch"))
		rc = rocpd_read(db, &budget, t, name, err);
	else if (sqlite_has_table(db, "rocpd_op") && sqlite_has_table(db, "rocpd_string"))
		rc = rpd_read(db, &budget, t, name, err);
	else if (sqlite_has_table(db, "StringIds") ||
		 sqlite_has_table(db, "TARGET_INFO_SESSION_START_TIME")) {
		fd_error_set(err,
			     "%s: an Nsight Systems export without kernels (no "
			     "CUPTI_ACTIVITY_KIND_KERNEL table: profile with --trace=cuda)",
			     name);
		rc = -1;
	} else if (sqlite_has_table(db, "rocpd_metadata")) {
		fd_error_set(err,
			     "%s: a rocpd database without kernels (no kernels view: profile "
			     "with rocprofv3 --kernel-trace)",
			     name);
		rc = -1;
	} else {
		fd_error_set(err,
			     "%s: an SQLite database that is neither an Nsight Systems export (no "
			     "CUPTI_ACTIVITY_KIND_KERNEL table), a rocpd database (no kernels "
			     "view) nor a rocmProfileData one (no rocpd_op table)",
			     name);
		rc = -1;
	}
	if (sqlite_bounds_error(db, &budget, name, err) < 0) /* its message over the reader's */
		rc = -1;
	sqlite3_close(db);
	return rc;
}

const struct trace_format trace_format_sqlite = {
	.name = "SQLite",
	.detect = sqlite_detect,
	.load = sqlite_load,
};
