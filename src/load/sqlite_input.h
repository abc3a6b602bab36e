/* sqlite_input.h — an input that is an SQLite database (Nsight Systems exports, rocpd), opened
 * read-only and immutable with SQLite's own library. Private to src/load.
 *
 * A plain file is opened where it is. Anything else (a .sqlite.gz, standard input) is first
 * copied, decompressed, to a private temporary file (mode 0600 in $TMPDIR, else /tmp), which
 * is removed before sqlite_input_open() returns, on success as on failure: SQLite keeps its
 * descriptor, so nothing is left behind on any later exit. */
#ifndef FUSEDIFF_SQLITE_INPUT_H
#define FUSEDIFF_SQLITE_INPUT_H

#include <sqlite3.h>
#include <stdint.h>

#include "fusediff/input.h"
#include "fusediff/trace.h"
#include "fusediff/util.h"

/* 1 when head (n bytes) starts an SQLite database file. */
int sqlite_detect(const unsigned char *head, size_t n);

/* Open in as a database. Returns it (close with sqlite3_close()), or NULL with a message that
 * names the file in err. *bytes receives the database size in bytes. */
sqlite3 *sqlite_input_open(struct input *in, const char *name, const struct trace_load_opts *opts,
			   int64_t *bytes, struct fd_error *err);

/* 1 when the database has a table or view of this name. */
int sqlite_has_table(sqlite3 *db, const char *table);
/* 1 when the table has this column. */
int sqlite_has_column(sqlite3 *db, const char *table, const char *column);
/* Prepare sql; NULL with "NAME: SQLite: <what> (<why>)" in err. */
sqlite3_stmt *sqlite_prepare(sqlite3 *db, const char *sql, const char *name, const char *what,
			     struct fd_error *err);
/* After sqlite3_step() returned rc: 0 when it is SQLITE_DONE, else -1 with the message. */
int sqlite_step_done(sqlite3 *db, int rc, const char *name, const char *what, struct fd_error *err);

/* The readers of the databases (sqlite_load.c chooses by the tables): they add what db holds
 * to t and set t->format and the platform. 0, or -1 with a message naming the file. */
int nsys_read(sqlite3 *db, struct trace *t, const char *name, struct fd_error *err);
int rocpd_read(sqlite3 *db, struct trace *t, const char *name, struct fd_error *err);

#endif
