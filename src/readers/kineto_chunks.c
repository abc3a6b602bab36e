/* kineto_chunks.c — traceEvents of a Kineto trace, on one core or both (kineto_load.c reads
 * the rest of the document).
 *
 * When traceEvents of a plain file has enough bytes left, the rest is cut into chunks at
 * places that look like the end of an event ('}', ',', '{', '"' with blanks between), each
 * parsed to the next one's start with a loader and trace of its own. The main loader parses
 * the first; a second thread takes the others in order, and so does the main loader once
 * it is done with its own, so that the two cores finish together whatever the cost of each
 * byte (Kineto writes the costly CPU operators first). The guesses are checked in order: a
 * parse that stops exactly at the next chunk's start, between two events, proves that start,
 * and that chunk is what one pass would have parsed from there on: its records are merged
 * after those before it (trace_merge: the same strings in the same order, the same records).
 * A parse that steps over a start (the pattern was inside a string) parses on to the next
 * one, and the chunk it stepped into is dropped. Once a chunk ends with the array, the main
 * loader goes on after it. An error in a chunk is reported only when the chunks before it
 * proved its start, with lines counted as one pass counts them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/input.h"
#include "fusediff/json.h"
#include "fusediff/trace.h"
#include "../trace/trace_build.h"
#include "kineto_int.h"

/* Bytes of traceEvents left below which one thread parses (trace_load_tuning.split_min, from
 * FUSEDIFF_SPLIT_MIN, for tests). */
#define SPLIT_MIN  (8 << 20)
#define SPLIT_LOOK (1 << 16) /* bytes searched for the end of an event */
/* The chunks: about CHUNKS_DEFAULT of them, none smaller than CHUNK_MIN; with split_min (the
 * tests set it to 1 so that every file is cut into many) up to CHUNKS of any size. Each chunk
 * has arrays, stashes and strings of its own, merged after: 16 chunks rather than 32 cost
 * 11 % less CPU at 4.5 GB on two threads (5.71 s against 6.43 s, wall 3.28 s against 3.81 s),
 * the same at 1.2 GB. */
#define CHUNKS	       32
#define CHUNKS_DEFAULT 16
#define CHUNK_MIN      (16 << 20)
/* A chunk of this many bytes or more builds a large trace (trace_expect_large): the 1.18 GB
 * Kineto trace's 442,296 kernels are 21 MB of records, 1.3 MB a chunk of 74 MB, and its
 * operators and launches stashed fill 2 MiB stash chunks. Its parts' arrays and stashes grew
 * through small pages: 21,222 page faults on two threads against 9,275 on one; 11,681 so. */
#define LARGE_CHUNK (4 << 20)
/* A file of this many bytes or more parsed by one thread alone builds a large trace too; a
 * smaller one would fault in whole huge pages for little (a 8 MB file has about 3,000
 * kernels, 170 KB of records). */
#define SERIAL_LARGE (64 << 20)
/* The policy of LARGE_CHUNK: a trace that will hold a chunk of bytes is made large */
static void expect_bytes(struct trace *t, int64_t bytes)
{
	if (bytes >= LARGE_CHUNK)
		trace_expect_large(t, bytes);
}

/* Merged chunks' kernel arrays kept for the next chunks (struct pool): the chunks parsed at
 * once and waiting to be merged are a few. */
#define ROOMS 2

/* A chunk's window: no larger than the main loader's */
#define CHUNK_WINDOW (WINDOW_INITIAL < (512u << 10) ? WINDOW_INITIAL : (512u << 10))

/* One chunk of traceEvents parsed by a loader of its own (loader_read_events). */
struct chunk {
	int64_t at;	  /* where it starts: just after the '}' of an event (a guess) */
	int state;	  /* CHUNK_FREE, CHUNK_TAKEN, CHUNK_DONE */
	struct loader ld; /* its loader, trace and error */
	struct fd_error err;
	int rc;	       /* 0: parsed to a later chunk's start or the array's end */
	size_t landed; /* then: the index of that chunk, n_chunks for the end */
	int64_t end;   /* the offset it stopped at (just after ']' at the end) */
};

enum { CHUNK_FREE, CHUNK_TAKEN, CHUNK_DONE };

/* The chunks of one file's traceEvents and the thread that helps parse them. */
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cond; /* a chunk is done */
	pthread_t thread;
	int has_thread;
	atomic_int cancel; /* the main loader needs no more chunks */
	struct chunk *c;   /* c[0] is the main loader's own (its loader is not used) */
	int64_t *starts;   /* c[k].at, apart: every event looks at the next chunk's start, and
			      c[k].at shares a cache line with the fields that chunk k's thread
			      writes at every event */
	size_t n;
	int64_t size;	  /* the file's, for the last chunk's bytes */
	size_t next_free; /* the lowest chunk not taken yet */
	/* the window of a thread's last chunk, for its next one (fresh memory costs a page fault
	 * a page): [0] the main thread's, [1] the helper's */
	struct spare_window {
		char *buf;
		size_t cap;
		struct loader_memo memo; /* and its memos */
	} spare[2];
	/* the kernel arrays of merged chunks (trace_take_kernel_room()), for chunks yet to be
	 * parsed: their pages are faulted already (at 4.46 GB, the chunks' arrays faulted anew
	 * were 4.3 % of the CPU of --summary) */
	struct room {
		struct trace_kernel *v;
		size_t cap;
	} rooms[ROOMS];
	size_t n_rooms;
};

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* The offset just after an event's '}' at or after `from`, or -1 (a guess: see above). */
static int64_t find_boundary(struct input *in, int64_t from)
{
	struct input *p = input_open_part(in, from);
	char *buf = xmalloc(SPLIT_LOOK);
	struct fd_error err;
	size_t len = 0;
	int64_t at = -1;
	ssize_t n;

	while (len < SPLIT_LOOK && (n = input_read(p, buf + len, SPLIT_LOOK - len, &err)) > 0)
		len += (size_t)n;
	input_close(p);
	for (size_t i = 0; i < len && at < 0; i++) {
		size_t j = i + 1;

		if (buf[i] != '}')
			continue;
		while (j < len && is_blank(buf[j]))
			j++;
		if (j == len || buf[j++] != ',')
			continue;
		while (j < len && is_blank(buf[j]))
			j++;
		if (j == len || buf[j++] != '{')
			continue;
		while (j < len && is_blank(buf[j]))
			j++;
		if (j < len && buf[j] == '"')
			at = from + (int64_t)i + 1;
	}
	free(buf);
	return at;
}

/* Whether ld stands exactly at the start of chunk *next or a later one (*next is then that
 * chunk); chunks whose start it went past are stepped over. */
static int at_chunk_start(const struct pool *pl, const struct loader *ld, size_t *next)
{
	int64_t off = ld->off0 + (int64_t)ld->pos;

	while (*next < pl->n && off > pl->starts[*next])
		(*next)++;
	return *next < pl->n && off == pl->starts[*next];
}

/* The elements of traceEvents one after the other, as one unit: ld->pos is moved past each
 * event as it is parsed, so that a restart goes on from the event that ran out of bytes, not
 * from the first. Stops at the end of the array (*first is -1) or, with chunks, where ld stands
 * at a chunk's start (*next is that chunk, at_chunk set): one call per window instead of one
 * per event. */
struct events {
	int first;   /* trace_load_event()'s: 1 before the first element, 2 after a separator that
			was consumed without its element, -1 after the last */
	size_t next; /* the next chunk start the loader may reach */
	int at_chunk;
};

/* Blanks between events (spaces and newlines) that end the window, and the ',' among them,
 * are consumed rather than kept for the next event to parse again, once there are
 * BLANK_RUN_MIN of them: the window stays its size (2 MB of gzip-compressed blanks took 2.1 GB
 * of memory). The separator consumed, the next element is parsed with first 2: one must come. */
#define BLANK_RUN_MIN (64 << 10)

static void consume_blank_run(struct loader *ld, struct events *ev)
{
	const char *p = ld->buf + ld->pos, *end = ld->buf + ld->len, *q = p;
	int comma = 0;

	while (q < end && is_blank(*q))
		q++;
	if (q < end && *q == ',' && ev->first == 0) {
		comma = 1;
		for (q++; q < end && is_blank(*q);)
			q++;
	}
	if (q < end || q - p < BLANK_RUN_MIN)
		return;
	ld->pos = ld->len;
	if (comma)
		ev->first = 2;
}

static int unit_events(struct loader *ld, struct json_cur *c, void *arg)
{
	struct events *ev = arg;

	for (;;) {
		int rc;

		if (ld->pool && !ev->first && at_chunk_start(ld->pool, ld, &ev->next)) {
			ev->at_chunk = 1;
			return JSON_OK;
		}
		if ((rc = trace_load_event(ld, c, &ev->first))) {
			if (rc == JSON_MORE)
				consume_blank_run(ld, ev);
			return rc;
		}
		ld->pos = (size_t)(c->p - ld->buf);
		if (ev->first < 0)
			return JSON_OK;
	}
}

/* The bytes of chunk i, as guessed (to the next chunk's start; the last: to the file's end) */
static int64_t chunk_bytes(const struct pool *pl, size_t i)
{
	return (i + 1 < pl->n ? pl->starts[i + 1] : pl->size) - pl->starts[i];
}

/* A merged chunk's kernel array (trace_take_kernel_room() of part) kept for a chunk yet to be
 * parsed, if any is left (else freed: kept, it would add to the peak). */
static void room_keep(struct pool *pl, struct trace *part)
{
	struct room r;

	r.v = trace_take_kernel_room(part, &r.cap);
	pthread_mutex_lock(&pl->mu);
	if (r.v && pl->n_rooms < ROOMS && pl->next_free < pl->n) {
		pl->rooms[pl->n_rooms++] = r;
		r.v = NULL;
	}
	pthread_mutex_unlock(&pl->mu);
	free(r.v);
}

/* The kernel array of a merged chunk (room_keep()), if one is kept, for trace t of a chunk
 * about to be parsed; the others freed when no chunk is left to take them. */
static void room_take(struct pool *pl, struct trace *t)
{
	struct room r = { NULL, 0 }, left[ROOMS];
	size_t n_left = 0;

	pthread_mutex_lock(&pl->mu);
	if (pl->n_rooms)
		r = pl->rooms[--pl->n_rooms];
	if (pl->next_free >= pl->n) {
		n_left = pl->n_rooms;
		memcpy(left, pl->rooms, n_left * sizeof *left);
		pl->n_rooms = 0;
	}
	pthread_mutex_unlock(&pl->mu);
	if (r.v)
		trace_give_kernel_room(t, r.v, r.cap);
	for (size_t k = 0; k < n_left; k++)
		free(left[k].v);
}

/* Parse chunk i with its own loader from its start until the parse stops exactly at a later
 * chunk's start (stepping over one means that guess was inside a string: parse on to the
 * next) or the array ends. */
static void chunk_parse(struct pool *pl, struct loader *main_ld, size_t i, struct spare_window *sw)
{
	struct chunk *ch = &pl->c[i];
	struct loader *ld = &ch->ld;
	struct events ev = { .first = 0, .next = i + 1 };

	ld->name = main_ld->name;
	ld->in = input_open_part(main_ld->in, ch->at);
	input_hash_track(ld->in);
	ld->cap = sw->buf ? sw->cap : CHUNK_WINDOW;
	ld->buf = sw->buf ? sw->buf : xmalloc(ld->cap);
	sw->buf = NULL;
	ld->err = &ch->err;
	ld->t = trace_new(main_ld->name);
	room_take(pl, ld->t);
	expect_bytes(ld->t, chunk_bytes(pl, i));
	ld->cat_none = intern_add(ld->t->strings, "(none)", 6);
	ld->part = 1;
	ld->pool = pl;
	ld->off0 = ch->at;
	ld->lines_later = main_ld->lines_later;
	ld->no_memo = main_ld->no_memo;
	loader_memo_reuse(ld, &sw->memo);
	ch->rc = -1;
	if (loader_unit(ld, unit_events, &ev) < 0)
		goto out;
	loader_drop_consumed(ld);
	ch->landed = ev.first < 0 ? pl->n : ev.next;
	ch->end = ld->off0;
	ch->rc = 0;
out:
	input_close(ld->in);
	ld->in = NULL;
	sw->buf = ld->buf; /* the window and memos for the thread's next */
	sw->cap = ld->cap;
	ld->buf = NULL;
	loader_memo_keep(ld, &sw->memo);
	loader_bufs_free(ld); /* before the chunk waits to be merged */
}

int loader_part_cancelled(const struct loader *ld)
{
	return atomic_load(&ld->pool->cancel);
}

/* Take the lowest chunk not taken yet (pl->mu held): its index, or 0 when there is none. */
static size_t chunk_take(struct pool *pl)
{
	if (pl->next_free >= pl->n || atomic_load(&pl->cancel))
		return 0;
	pl->c[pl->next_free].state = CHUNK_TAKEN;
	return pl->next_free++;
}

static void chunk_done(struct pool *pl, size_t i)
{
	pthread_mutex_lock(&pl->mu);
	pl->c[i].state = CHUNK_DONE;
	pthread_cond_broadcast(&pl->cond);
	pthread_mutex_unlock(&pl->mu);
}

static void *pool_main(void *arg)
{
	struct loader *main_ld = arg;
	struct pool *pl = main_ld->pool;

	for (;;) {
		size_t i;

		/* the bytes read ahead of the hash (--report's SHA-256), before the next chunk */
		while (!atomic_load(&pl->cancel) && input_hash_work(main_ld->in, -1))
			;
		pthread_mutex_lock(&pl->mu);
		i = chunk_take(pl);
		pthread_mutex_unlock(&pl->mu);
		if (!i)
			return NULL;
		chunk_parse(pl, main_ld, i, &pl->spare[1]);
		chunk_done(pl, i);
	}
}

/* Stop the helper and free every chunk. */
void loader_pool_free(struct loader *ld)
{
	struct pool *pl = ld->pool;

	if (!pl)
		return;
	atomic_store(&pl->cancel, 1);
	if (pl->has_thread)
		pthread_join(pl->thread, NULL);
	for (size_t i = 1; i < pl->n; i++) {
		struct loader *c = &pl->c[i].ld;

		if (c->in)
			input_close(c->in);
		if (c->t)
			trace_free(c->t);
		loader_bufs_free(c);
	}
	for (int k = 0; k < 2; k++) {
		free(pl->spare[k].buf);
		loader_memo_free(&pl->spare[k].memo);
	}
	for (size_t k = 0; k < pl->n_rooms; k++)
		free(pl->rooms[k].v);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cond);
	free(pl->c);
	free(pl->starts);
	free(pl);
	ld->pool = NULL;
}

/* Cut what is left of traceEvents into chunks at guessed event ends and start the helper
 * thread on them (plain files with enough bytes left, see above). */
static void pool_start(struct loader *ld)
{
	int64_t size = input_split_size(ld->in), from = ld->off0 + (int64_t)ld->pos, step;
	const struct trace_load_tuning *tu = ld->opts ? &ld->opts->tuning : NULL;
	int64_t min = tu && tu->split_min > 0 ? tu->split_min : SPLIT_MIN;
	struct pool *pl;

	if (size < 0 || size - from < 2 || ld->part)
		return;
	if (size - from < min || (tu && tu->input.serial)) {
		/* parsed by this thread alone (FUSEDIFF_SERIAL, or one of two traces loaded at
		 * once): a large one gets room for its records all the same (the 4.46 GB trace's
		 * kernels grew by copying into fresh huge pages, 8 % of the CPU of
		 * FUSEDIFF_SERIAL=1 --summary in page faults) */
		if (size - from >= SERIAL_LARGE)
			expect_bytes(ld->t, size - from);
		return;
	}
	if (tu && tu->split_min > 0) {
		step = (size - from) / CHUNKS;
	} else {
		step = (size - from) / CHUNKS_DEFAULT;
		if (step < CHUNK_MIN)
			step = CHUNK_MIN;
	}
	if (step < 1)
		step = 1;
	pl = xcalloc(1, sizeof *pl);
	pl->c = xcalloc(CHUNKS + 2, sizeof *pl->c);
	pl->c[0].at = from;
	pl->n = 1;
	for (int64_t guess = from + step; guess < size && pl->n < CHUNKS + 1; guess += step) {
		int64_t at = find_boundary(ld->in, guess);

		if (at < 0)
			break;
		if (at > pl->c[pl->n - 1].at)
			pl->c[pl->n++].at = at;
		if (at > guess)
			guess = at - 1; /* the next guess a step after this one */
	}
	pl->size = size;
	pl->starts = xmalloc(pl->n * sizeof *pl->starts);
	for (size_t k = 0; k < pl->n; k++)
		pl->starts[k] = pl->c[k].at;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cond, NULL);
	pl->next_free = 1;
	ld->pool = pl;
	if (pl->n < 2 || thread_start(&pl->thread, pool_main, ld) != 0) {
		loader_pool_free(ld);
		return;
	}
	pl->has_thread = 1;
	/* the chunks' records are merged into ld's trace: room for them all (trace_merge copies a
	 * part's kernels into it rather than growing it by copying, 1,140 of the 1.18 GB trace's
	 * 8,860 page faults on two threads) */
	expect_bytes(ld->t, size - from);
}

/* The main loader stopped exactly at chunk k's start: from there the records are the chunks',
 * merged in order (each where the one before it stopped), parsing chunks itself while the
 * next one is not done. Returns 0 (*first is -1: traceEvents ended), -1 on an error. */
static int pool_finish(struct loader *ld, size_t k, int *first)
{
	struct pool *pl = ld->pool;
	int64_t end = -1, skip;

	loader_drop_consumed(ld);   /* the newlines before chunk k */
	input_hash_untrack(ld->in); /* it reads nothing until the chunks are merged */
	while (end < 0) {
		struct chunk *ch = &pl->c[k];
		size_t i;

		pthread_mutex_lock(&pl->mu);
		while (ch->state != CHUNK_DONE) {
			/* first the bytes read ahead of the hash, up to the nearest part being
			 * read: that part then hashes what it reads */
			pthread_mutex_unlock(&pl->mu);
			while (input_hash_work(ld->in, -1))
				;
			pthread_mutex_lock(&pl->mu);
			if (ch->state == CHUNK_DONE)
				break;
			if ((i = chunk_take(pl))) {
				pthread_mutex_unlock(&pl->mu);
				chunk_parse(pl, ld, i, &pl->spare[0]);
				chunk_done(pl, i);
				pthread_mutex_lock(&pl->mu);
			} else {
				pthread_cond_wait(&pl->cond, &pl->mu);
			}
		}
		pthread_mutex_unlock(&pl->mu);
		if (ch->rc < 0) {
			const struct part_error *e = &ch->ld.perr;

			if (e->set)
				loader_error_at(ld, e->off, e->msg);
			else
				fd_error_set(ld->err, "%s", ch->err.msg);
			loader_pool_free(ld);
			return -1;
		}
		trace_merge(ld->t, ch->ld.t);
		room_keep(pl, ch->ld.t);
		trace_free(ch->ld.t);
		ch->ld.t = NULL;
		ld->bad_time += ch->ld.bad_time;
		ld->bad_number += ch->ld.bad_number;
		ld->bad_kernels += ch->ld.bad_kernels;
		if (ld->opts && ld->opts->progress &&
		    ld->opts->progress(ld->opts->progress_user, ch->end, input_raw_size(ld->in))) {
			fd_error_set(ld->err, "%s: loading cancelled", ld->name);
			loader_pool_free(ld);
			return -1;
		}
		if (ch->landed >= pl->n)
			end = ch->end;
		else
			k = ch->landed;
	}
	loader_pool_free(ld);
	/* every byte up to the array's end hashed, so that the skip below can seek */
	while (input_hash_work(ld->in, end))
		;
	/* on after the array: what the window holds of the chunks is dropped, the rest skipped */
	skip = end - ld->off0;
	if (skip <= (int64_t)ld->len) {
		memmove(ld->buf, ld->buf + skip, ld->len - (size_t)skip);
		ld->len -= (size_t)skip;
	} else {
		int64_t more = skip - (int64_t)ld->len;

		if (input_skip(ld->in, more, ld->err) < 0) {
			char msg[FD_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", ld->err->msg);
			fd_error_set(ld->err, "%s: %s", ld->name, msg);
			return -1;
		}
		ld->t->bytes += more;
		ld->len = 0;
	}
	ld->off0 = end;
	*first = -1;
	return 0;
}

int loader_read_events(struct loader *ld)
{
	struct events ev = { .first = 1, .next = 1 };

	ld->saw_events = 1;
	pool_start(ld);
	if (ld->opts && ld->opts->started)
		ld->opts->started(ld->opts->started_user);
	while (ev.first >= 0) {
		if (loader_unit(ld, unit_events, &ev) < 0)
			return -1;
		if (ev.at_chunk) {
			ev.at_chunk = 0;
			if (pool_finish(ld, ev.next, &ev.first) < 0)
				return -1;
		}
	}
	loader_pool_free(ld); /* the array ended before every chunk's start */
	return 0;
}
