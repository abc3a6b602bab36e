/* sqlite_input.h — an input that is an SQLite database (Nsight Systems exports, rocpd), opened
 * read-only and immutable with SQLite's own library. Private to src/readers.
 *
 * A plain file is opened where it is. Anything else (a .sqlite.gz, standard input) is first
 * copied, decompressed, to a private temporary file (mode 0600 in trace_load_tuning's tmpdir,
 * from TMPDIR, else /tmp), which
 * is removed before sqlite_input_open() returns, on success as on failure: SQLite keeps its
 * descriptor, so nothing is left behind on any later exit. */
#ifndef FUSEDIFF_SQLITE_INPUT_H
#define FUSEDIFF_SQLITE_INPUT_H

#include <sqlite3.h>
#include <stdint.h>

#include "fusediff/input.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"
#include "fusediff/util.h"

/* 1 when head (n bytes) starts an SQLite database file. */
int sqlite_detect(const unsigned char *head, size_t n);

/* The work a database may cost: every SQLITE_PROGRESS_OPS virtual-machine instructions are one
 * step, and a database of n bytes may take SQLITE_BUDGET_BASE + n / SQLITE_BUDGET_BYTES steps
 * (the real exports of tests/data/profilers take under 1 % of it); then every statement is
 * interrupted. SQLite's memory, every connection together, is limited to SQLITE_HEAP_LIMIT. */
#define SQLITE_PROGRESS_OPS 1000
#define SQLITE_BUDGET_BASE  10000
#define SQLITE_BUDGET_BYTES 8
#define SQLITE_HEAP_LIMIT   ((int64_t)512 << 20)
#define SQLITE_LENGTH_LIMIT (16 << 20) /* the longest string, blob or row */
struct sqlite_budget {
	int64_t steps, max_steps;
	int64_t rows, max_rows; /* rows read (sqlite_step()) */
	int64_t text, max_text; /* bytes of text read (sqlite_text()) */
	int exhausted;		/* a statement was interrupted: what was read is incomplete */
};
/* The text a database of n bytes may give: SQLITE_TEXT_BASE + n * SQLITE_TEXT_PER_BYTE bytes
 * (a name is read once per row that names it: a kernel's 2 KB template name in each 100-byte
 * row of a rocpd view is 20 times the file). */
#define SQLITE_TEXT_BASE     ((int64_t)64 << 20)
#define SQLITE_TEXT_PER_BYTE 64
void sqlite_limit_heap_once(void);

/* Open in as a database, bounded by *budget (which must outlive db). Refused: a database in WAL
 * mode whose -wal file holds frames (an immutable reader would miss them), a recursive view.
 * Returns it (close with sqlite3_close()), or NULL with a message that names the file in err.
 * *bytes receives the database size in bytes. */
sqlite3 *sqlite_input_open(struct input *in, const char *name, const struct trace_load_opts *opts,
			   struct sqlite_budget *budget, int64_t *bytes, struct fd_error *err);
/* The rows a database of n bytes may give, all statements together: SQLITE_ROWS_BASE + n /
 * SQLITE_BYTES_PER_ROW (a row of a table takes more than 8 bytes of the file; a view joins a
 * row to its names, it does not multiply them: a 12 KB file's cross join gave 575 000). */
#define SQLITE_ROWS_BASE     10000
#define SQLITE_BYTES_PER_ROW 2
/* sqlite3_step(), counted against b: SQLITE_INTERRUPT (b->exhausted set) once the rows read
 * exceed what a database of this size can hold. */
int sqlite_step(sqlite3_stmt *st, struct sqlite_budget *b);
/* Column col of st's row as text, counted against b: NULL when it is NULL, or when the text
 * read so far exceeds what a database of this size can hold (b->exhausted is then set, and
 * every statement of the connection interrupted). *len receives its bytes (NULs included). */
const char *sqlite_text(sqlite3_stmt *st, int col, struct sqlite_budget *b, size_t *len);
/* After reading db: -1 with a message naming the file when the budget ran out or SQLite ran
 * out of memory (what was read is incomplete), else 0. */
int sqlite_bounds_error(sqlite3 *db, const struct sqlite_budget *b, const char *name,
			struct fd_error *err);

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
int nsys_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	      struct fd_error *err);
int rocpd_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	       struct fd_error *err);
int rpd_read(sqlite3 *db, struct sqlite_budget *b, struct trace *t, const char *name,
	     struct fd_error *err);

#endif
