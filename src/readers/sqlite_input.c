/* sqlite_input.c — open an SQLite input read-only and immutable, bounded (sqlite_input.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusediff/cleanup.h"
#include "sqlite_input.h"

static const char sqlite_magic[16] = "SQLite format 3";

int sqlite_detect(const unsigned char *head, size_t n)
{
	return n >= sizeof sqlite_magic && memcmp(head, sqlite_magic, sizeof sqlite_magic) == 0;
}

/* "file:PATH?mode=ro&immutable=1" with the characters a URI reserves escaped; an absolute path
 * after an empty authority ("file:///abs"), so that one starting with "//" is not read as
 * one. */
static char *file_uri(const char *path)
{
	size_t n = strlen(path), k = 0;
	char *uri = xmalloc(3 * n + 32);

	k += (size_t)sprintf(uri, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x21 || *p >= 0x7f)
			k += (size_t)sprintf(uri + k, "%%%02X", *p);
		else
			uri[k++] = (char)*p;
	strcpy(uri + k, "?mode=ro&immutable=1");
	return uri;
}

/* Copy the decompressed input to a new private file; returns its path (owned) or NULL. The
 * file is registered for removal by a signal (cleanup.h) in *slot until it is unlinked. */
static char *copy_to_temp(struct input *in, const char *name, const struct trace_load_opts *opts,
			  int64_t *bytes, int *slot, struct fd_error *err)
{
	const char *dir = opts ? opts->tuning.input.tmpdir : NULL;
	char *path, *buf;
	int fd;
	ssize_t n;

	if (!dir || !*dir)
		dir = "/tmp";
	path = xasprintf("%s/fusediff-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		fd_error_set(err, "%s: cannot create a temporary file in %s to decompress it: %s",
			     name, dir, strerror(errno));
		free(path);
		return NULL;
	}
	*slot = cleanup_add(path);
	buf = xmalloc(1 << 20);
	*bytes = 0;
	while ((n = input_read(in, buf, 1 << 20, err)) > 0) {
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				fd_error_set(err,
					     "%s: cannot write the decompressed copy to %s: %s",
					     name, dir, strerror(errno));
				n = -1;
				break;
			}
			done += w;
		}
		if (n < 0)
			break;
		*bytes += n;
		if (opts && opts->progress &&
		    opts->progress(opts->progress_user, input_raw_done(in), input_raw_size(in))) {
			fd_error_set(err, "%s: cancelled", name);
			n = -1;
			break;
		}
	}
	free(buf);
	if (n < 0) { /* input_read() named the file when it failed */
		if (strncmp(err->msg, name, strlen(name)) != 0) {
			char msg[FD_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			fd_error_set(err, "%s: %s", name, msg);
		}
		close(fd);
		unlink(path);
		cleanup_remove(*slot);
		free(path);
		return NULL;
	}
	if (close(fd) < 0) {
		fd_error_set(err, "%s: cannot write the decompressed copy to %s: %s", name, dir,
			     strerror(errno));
		unlink(path);
		cleanup_remove(*slot);
		free(path);
		return NULL;
	}
	return path;
}

/* 1 when the database at path is in WAL mode (bytes 18 and 19 of its header are 2) with
 * frames in path-wal, which an immutable reader would not see; *wal_bytes: that file's size. */
static int wal_pending(const char *path, int64_t *wal_bytes)
{
	unsigned char h[20];
	char *wal = xasprintf("%s-wal", path);
	struct stat st;
	FILE *f = fopen(path, "rb");
	int r = 0;

	if (f && fread(h, 1, sizeof h, f) == sizeof h && (h[18] == 2 || h[19] == 2) &&
	    stat(wal, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 32) {
		*wal_bytes = st.st_size;
		r = 1; /* a WAL header is 32 bytes: frames follow */
	}
	if (f)
		fclose(f);
	free(wal);
	return r;
}

/* SQLite's progress handler: interrupts a statement once the budget is spent. */
static int on_progress(void *arg)
{
	struct sqlite_budget *b = arg;

	if (++b->steps <= b->max_steps)
		return 0;
	b->exhausted = 1;
	return 1;
}

/* Every connection's memory together (SQLite's own allocations: page cache, sorters, temporary
 * tables held in memory): a view of unexpected shape fails with SQLITE_NOMEM instead of taking
 * the machine's memory. Real exports need a few MiB. */
static void limit_heap(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, sqlite_limit_heap_once);
}

void sqlite_limit_heap_once(void)
{
	sqlite3_hard_heap_limit64(SQLITE_HEAP_LIMIT);
}

/* 1 when a view of db recurses (WITH RECURSIVE): rocprofv3 and Nsight Systems write none, and
 * one can grow without bound; *view receives its name (owned). */
static int has_recursive_view(sqlite3 *db, char **view)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'view' AND "
			       "lower(sql) GLOB '*recursive*'",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		*view = xstrdup(v ? v : "");
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

sqlite3 *sqlite_input_open(struct input *in, const char *name, const struct trace_load_opts *opts,
			   struct sqlite_budget *budget, int64_t *bytes, struct fd_error *err)
{
	const char *path = input_file(in);
	char *temp = NULL, *uri;
	sqlite3 *db = NULL;
	int rc, slot = -1;

	*bytes = input_raw_size(in);
	if (path) {
		int64_t wal = 0;

		if (wal_pending(path, &wal)) {
			fd_error_set(err,
				     "%s: a database in WAL mode whose %s-wal holds %lld bytes of "
				     "commits not yet in the file, which fusediff reads alone: let "
				     "the program writing it finish, or run sqlite3 %s 'PRAGMA "
				     "wal_checkpoint(TRUNCATE)' first",
				     name, name, (long long)wal, name);
			return NULL;
		}
	} else {
		temp = copy_to_temp(in, name, opts, bytes, &slot, err);
		if (!temp)
			return NULL;
		path = temp;
	}
	uri = file_uri(path);
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
			     NULL); /* one thread uses the connection */
	free(uri);
	if (rc == SQLITE_OK) { /* bounded: *budget steps of work, SQLITE_HEAP_LIMIT of memory */
		limit_heap();
		budget->steps = budget->exhausted = 0;
		budget->max_steps = SQLITE_BUDGET_BASE + *bytes / SQLITE_BUDGET_BYTES;
		budget->rows = 0;
		budget->max_rows = SQLITE_ROWS_BASE + *bytes / SQLITE_BYTES_PER_ROW;
		budget->text = 0;
		budget->max_text = SQLITE_TEXT_BASE + *bytes * SQLITE_TEXT_PER_BYTE;
		sqlite3_progress_handler(db, SQLITE_PROGRESS_OPS, on_progress, budget);
		/* no string or row longer (a view can make one of any length in one step) */
		sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SQLITE_LENGTH_LIMIT);
		/* a sorter's or a temporary table's spill in memory, within the heap limit, not
		 * in TMPDIR without one */
		sqlite3_exec(db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
		/* reads the schema: the file is open and checked from here on */
		rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	if (temp) { /* SQLite keeps its descriptor: the name can go now */
		unlink(temp);
		cleanup_remove(slot);
		free(temp);
	}
	if (rc != SQLITE_OK) {
		fd_error_set(err, "%s: not a readable SQLite database (%s)", name,
			     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	{
		char *view = NULL;

		if (has_recursive_view(db, &view)) {
			fd_error_set(err,
				     "%s: its view %s is recursive (WITH RECURSIVE), which no "
				     "profiler writes and which can grow without bound: not read",
				     name, view);
			free(view);
			sqlite3_close(db);
			return NULL;
		}
	}
	return db;
}

int sqlite_step(sqlite3_stmt *st, struct sqlite_budget *b)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW && ++b->rows > b->max_rows) {
		b->exhausted = 1;
		b->steps = b->max_steps; /* the next progress call interrupts */
		sqlite3_interrupt(sqlite3_db_handle(st));
		return SQLITE_INTERRUPT;
	}
	return rc;
}

const char *sqlite_text(sqlite3_stmt *st, int col, struct sqlite_budget *b, size_t *len)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	*len = s ? (size_t)sqlite3_column_bytes(st, col) : 0;
	b->text += (int64_t)*len;
	if (b->text > b->max_text) {
		b->exhausted = 1;
		b->steps = b->max_steps; /* the next progress call interrupts */
		sqlite3_interrupt(sqlite3_db_handle(st));
		*len = 0;
		return NULL;
	}
	return s;
}

int sqlite_bounds_error(sqlite3 *db, const struct sqlite_budget *b, const char *name,
			struct fd_error *err)
{
	if (b->exhausted) {
		fd_error_set(err,
			     "%s: reading it took more %s than a database of its size can give "
			     "(a view or table of unexpected shape?): stopped",
			     name,
			     b->text > b->max_text   ? "text"
			     : b->rows > b->max_rows ? "rows"
						     : "work");
		return -1;
	}
	if (sqlite3_errcode(db) == SQLITE_TOOBIG) {
		fd_error_set(err, "%s: a value longer than %d MiB (a view of unexpected shape?)",
			     name, SQLITE_LENGTH_LIMIT >> 20);
		return -1;
	}
	if (sqlite3_errcode(db) == SQLITE_NOMEM) {
		fd_error_set(err,
			     "%s: reading it needed more than the %d MiB of memory fusediff gives "
			     "SQLite (a view or table of unexpected shape?)",
			     name, (int)(SQLITE_HEAP_LIMIT >> 20));
		return -1;
	}
	return 0;
}

int sqlite_has_table(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND "
			       "name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int sqlite_has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

sqlite3_stmt *sqlite_prepare(sqlite3 *db, const char *sql, const char *name, const char *what,
			     struct fd_error *err)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fd_error_set(err, "%s: cannot read %s (%s)", name, what, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

int sqlite_step_done(sqlite3 *db, int rc, const char *name, const char *what, struct fd_error *err)
{
	if (rc == SQLITE_DONE)
		return 0;
	fd_error_set(err, "%s: cannot read %s (%s)", name, what, sqlite3_errmsg(db));
	return -1;
}
