/* fuzz_sqlite.c — libFuzzer target: the SQLite readers (Nsight Systems, rocpd, rocmProfileData)
 * on databases of any schema.
 *
 * The input is SQL text: its statements run one by one in an in-memory database (each bounded:
 * a statement that fails is skipped, work and length are limited), which is then serialized
 * into the bytes of a database file and loaded with trace_load_mem() as a trace (through the
 * decompressed copy of a database on standard input). Mutating the SQL rather than the file's
 * pages reaches what a hostile database can hold: tables of any columns and types, views
 * (recursive, joined, sorting), NULs, huge values. Besides crashes, leaks and undefined
 * behaviour it aborts when a promise of trace.h is broken (fuzz_load_check.h), and libFuzzer's
 * -timeout and -rss_limit_mb catch a reader that is not bounded.
 *
 * Seeds (tests/fuzz/seeds/sqlite/): SQL dumps of the databases of the tests, cut to fit. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

#define NAME	    "fuzz.db"
#define FUZZ_TARGET "fuzz_sqlite"
#include "fuzz_load_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stop_building(void *arg)
{
	return ++*(int *)arg > 20000; /* 2 * 10^7 instructions to build the database */
}

/* The database file that data (SQL text) builds, or NULL; *len its bytes (sqlite3_free()). */
static unsigned char *build(const uint8_t *data, size_t size, sqlite3_int64 *len)
{
	char *sql = malloc(size + 1);
	const char *p, *tail;
	unsigned char *img;
	sqlite3 *db;
	int steps = 0;

	if (!sql || sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	memcpy(sql, data, size);
	sql[size] = '\0';
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_progress_handler(db, 1000, stop_building, &steps);
	for (p = sql; *p && steps <= 20000; p = tail) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK) {
			sqlite3_finalize(st);
			tail = strchr(p, ';'); /* skip to the next statement */
			if (!tail)
				break;
			tail++;
			continue;
		}
		if (!st) /* blanks or a comment */
			continue;
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
	}
	free(sql);
	img = sqlite3_serialize(db, "main", len, 0);
	sqlite3_close(db);
	return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = (struct trace *)1;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1, .tuning = { .input = { .tmpdir = "/tmp" } } };
	sqlite3_int64 len = 0;
	unsigned char *img;

	img = build(data, size, &len);
	if (!img)
		return 0;
	if (trace_load_mem(&t, NAME, img, (size_t)len, &lo, &err) < 0) {
		check_error(t, &err);
	} else {
		check_trace(t);
		trace_free(t);
	}
	sqlite3_free(img);
	return 0;
}
