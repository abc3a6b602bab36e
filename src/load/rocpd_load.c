/* rocpd_load.c — a rocpd database (rocprofv3's default SQLite output) as a trace. */
#include "sqlite_input.h"
#include "trace_build.h"

int rocpd_read(sqlite3 *db, struct trace *t, const char *name, struct fd_error *err)
{
	(void)db;
	(void)t;
	fd_error_set(err, "%s: rocpd not yet", name);
	return -1;
}
