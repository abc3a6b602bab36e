/* sqlite_input.c — open an SQLite input read-only and immutable (sqlite_input.h). */
#include <errno.h>
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

/* "file:PATH?mode=ro&immutable=1" with the characters a URI reserves escaped. */
static char *file_uri(const char *path)
{
	size_t n = strlen(path), k = 0;
	char *uri = xmalloc(3 * n + 32);

	k += (size_t)sprintf(uri, "file:");
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
	const char *dir = getenv("TMPDIR");
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

sqlite3 *sqlite_input_open(struct input *in, const char *name, const struct trace_load_opts *opts,
			   int64_t *bytes, struct fd_error *err)
{
	const char *path = input_file(in);
	char *temp = NULL, *uri;
	sqlite3 *db = NULL;
	int rc, slot = -1;

	*bytes = input_raw_size(in);
	if (!path) {
		temp = copy_to_temp(in, name, opts, bytes, &slot, err);
		if (!temp)
			return NULL;
		path = temp;
	}
	uri = file_uri(path);
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
			     NULL); /* one thread uses the connection */
	free(uri);
	if (rc == SQLITE_OK) /* reads the schema: the file is open and checked from here on */
		rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
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
	return db;
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
