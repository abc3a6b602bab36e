/* kineto_int.h — what the streaming loader (kineto_load.c: the window, units, the top
 * level), its traceEvents on one or both cores (kineto_chunks.c) and the parser of one event
 * (kineto_event.c) share. Private to src/readers. */
#ifndef FUSEDIFF_KINETO_INT_H
#define FUSEDIFF_KINETO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/json.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

/* Grids and blocks remembered (kineto_event.c), as texts of up to DIM3_TEXT bytes. */
#define DIM3_WAYS 4
#define DIM3_TEXT 32

/* Names remembered (kineto_event.c: intern_name). */
#define NAMES_SETS 256
#define NAMES_WAYS 4

/* Categories remembered by the loader (Kineto interleaves about five). */
#define CAT_CACHE 8

/* What we do with an event, from its category. */
enum ev_kind {
	EV_OTHER,
	EV_KERNEL,
	EV_MEMCPY,
	EV_MEMSET,
	EV_LAUNCH,
	EV_CPU_OP,
	EV_USER_ANN,
	EV_GPU_ANN,
	EV_PYTHON,
};

struct loader {
	const char *name; /* file name for messages */
	const char *what; /* NULL, or what the file is read as, said after a JSON error's
			     message: "... (a rocprofv3 JSON file)" */
	struct input *in;
	char *buf;
	size_t cap, len, pos;
	int eof;
	int64_t off0;	    /* stream offset of buf[0] */
	int64_t lines0;	    /* newlines before buf[0] (0 with lines_later) */
	int lines_later;    /* the input can be read again from its start (a plain file, memory):
			       newlines are counted only for an error's line and column */
	int no_memo;	    /* trace_load_tuning.no_memo: nothing remembered from one event for
			       the next (runs of keys, categories, grids, names, containers), so that
			       tests can compare what the fast paths make of a trace with what
			       the parser alone makes of it */
	int64_t line_start; /* stream offset where the line containing buf[0] starts */
	struct trace *t;
	const struct trace_load_opts *opts;
	struct fd_error *err;
	struct json_buf kbuf, nbuf, cbuf, abuf, lbuf; /* lbuf: a launch's kernel name */
	int saw_events;
	uint32_t cat_none;
	/* the categories seen last, so that most events find theirs without hashing */
	struct cat_cache {
		const char *s; /* interned copy */
		size_t len;
		uint32_t id;
		enum ev_kind kind;
		char quoted[16];    /* "s", as a plain JSON string of up to 16 bytes is written */
		unsigned char qlen; /* its length; 0: longer */
	} cats[CAT_CACHE];
	unsigned cat_next; /* round-robin replacement */
	/* Input Dims, Input type and Concrete Inputs as written (blanks and all), each with the
	 * id of its compacted copy in t->strings: they repeat, and compacting costs more than
	 * finding */
	struct seen_values *seen; /* kineto_event.c; NULL until the first; owned: free() */
	/* the grids and blocks met last, the newest first (kineto_event.c) */
	struct dim3_seen {
		char text[DIM3_TEXT];
		uint8_t len, n; /* len 0: empty */
		int32_t v[3];
	} dim3s[2][DIM3_WAYS];
	/* names interned before (kineto_event.c: intern_name) */
	struct name_seen {
		const char *s; /* the interned copy; NULL: empty */
		size_t len;
		uint32_t id;
	} names[NAMES_SETS][NAMES_WAYS];
	struct key_pred *kp;	 /* key_pred.h; NULL until the first event; owned: free() */
	struct intern *raw_dims; /* NULL until the first; owned: free with intern_free() */
	uint32_t *raw_dims_id;	 /* by id in raw_dims */
	size_t raw_dims_cap;
	int64_t bad_time, bad_number;
	int64_t bad_kernels; /* kernel events of bad_time */
	/* A chunk of the file parsed by a loader of its own (kineto_chunks.c): in the loader of
	 * the chunk, where an error was found, kept for the main loader to report (its line and
	 * column counted by reading the file again: chunks are made only of inputs that can be,
	 * lines_later); pool: the chunks (the main loader's, shared with its chunks'). */
	int part;
	struct part_error {
		int set;
		int64_t off;
		const char *msg;
	} perr;
	struct pool *pool;
};

/* The window's first size (it doubles when one unit fills it): small enough that what read()
 * copies into it is still in the core's cache when it is parsed, which is faster than 4 MiB
 * was. The fuzz build makes it tiny, so that every unit is restarted many times. */
#ifndef WINDOW_INITIAL
#define WINDOW_INITIAL (512u << 10)
#endif

/* kineto_load.c: the window and its units. A unit parses from c and returns JSON_OK, JSON_MORE
 * (restart it with more bytes) or JSON_ERR; loader_unit() reads more and restarts it until it
 * fits, reporting an error in ld->err (-1). */
typedef int (*unit_fn)(struct loader *ld, struct json_cur *c, void *arg);
/* A loader (zeroed) of t from in, its window allocated: what every reader on the window sets. */
void loader_start(struct loader *ld, struct trace *t, struct input *in, const char *name,
		  const struct trace_load_opts *opts, struct fd_error *err);
int loader_unit(struct loader *ld, unit_fn fn, void *arg);
/* Drop the consumed bytes from the window, counting their newlines where they are counted. */
void loader_drop_consumed(struct loader *ld);
/* "NAME: line N, column M: MSG" for an error at byte off of the input, in ld->err. */
void loader_error_at(struct loader *ld, int64_t off, const char *msg);
void loader_bufs_free(struct loader *ld);

/* kineto_chunks.c: the elements of traceEvents, from after its '[' to after its ']', cut into
 * chunks for both cores where the input allows (0, or -1 with ld->err set); and the chunks
 * freed, their helper stopped (may be called again). */
int loader_read_events(struct loader *ld);
void loader_pool_free(struct loader *ld);
/* Whether the main loader needs no more of what the chunk's loader ld parses. */
int loader_part_cancelled(const struct loader *ld);

/* A loader's memos of the event texts it met (seen, kp), kept from one chunk for the next
 * chunk that the same thread parses (kineto_chunks.c): fresh memory costs a page fault each
 * 4 KiB, and the two are ~900 KB. loader_memo_keep() moves ld's into m; loader_memo_reuse()
 * gives m's to ld emptied, as a first event finds them (nothing of the chunk before is
 * remembered); loader_memo_free() frees m's. */
struct loader_memo {
	struct seen_values *seen;
	struct key_pred *kp;
};
void loader_memo_keep(struct loader *ld, struct loader_memo *m);
void loader_memo_reuse(struct loader *ld, struct loader_memo *m);
void loader_memo_free(struct loader_memo *m);

/* One element of traceEvents, with the separator before it, as a unit of the loader: parse
 * it from c and, once it parsed completely, add what it holds to ld->t (a kernel, launch,
 * operator, annotation range, or only a count). *arg is an int: 1 before the first element,
 * 0 after one, set to -1 at the end of the array. Returns JSON_OK, JSON_MORE (restart the unit
 * with more bytes: nothing was added) or JSON_ERR (c's err_msg says why). */
int trace_load_event(struct loader *ld, struct json_cur *c, void *arg);

#endif
