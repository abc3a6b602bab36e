/* kineto_load.c — the streaming loader of PyTorch-profiler (Kineto) Chrome-trace JSON.
 *
 * The input is read in large chunks into a window. The parser works on one unit at a time
 * (the start of the document, one top-level key, one event) with the restartable cursor of
 * json.h: when a unit runs past the bytes read so far, more are read and the unit is parsed
 * again from its start. A unit commits its result only when it parsed completely, so a restart
 * never duplicates anything. Only deviceProperties and distributedInfo, which are small, are
 * handed to cJSON. One event is parsed by kineto_event.c. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fusediff/input.h"
#include "fusediff/json.h"
#include "fusediff/trace.h"
#include "trace_build.h"
#include "formats.h"
#include "kineto_int.h"

/* The window's first size (it doubles when one unit fills it): small enough that what read()
 * copies into it is still in the core's cache when it is parsed, which is faster than 4 MiB
 * was. The fuzz build makes it tiny, so that every unit is restarted many times. */
#ifndef WINDOW_INITIAL
#define WINDOW_INITIAL (512u << 10)
#endif

/* deviceProperties and distributedInfo are parsed as a tree: only when they are this small
 * (real ones are a few KiB), and only this many devices. */
#define LOAD_CJSON_MAX	 (1 << 20)
#define LOAD_MAX_DEVICES 1024

/* ---- reading ------------------------------------------------------------------------ */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define NEWLINES_AVX2 1
#include <immintrin.h>

/* count_newlines() 128 bytes a step, on a CPU that has AVX2 (chosen when the program runs: the
 * build stays portable). Counts the newlines of the whole 128-byte steps of s[0..n) and says
 * in *done how far it got. */
__attribute__((target("avx2"))) static size_t newlines_avx2(const char *s, size_t n, size_t *done)
{
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	size_t count = 0, i = 0;

	while (i + 128 <= n) {
		__m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero, sum;

		for (int k = 0; k < 255 && i + 128 <= n; k++, i += 128) {
			const __m256i *q = (const __m256i *)(const void *)(s + i);

			a0 = _mm256_sub_epi8(a0, _mm256_cmpeq_epi8(_mm256_loadu_si256(q), nl));
			a1 = _mm256_sub_epi8(a1, _mm256_cmpeq_epi8(_mm256_loadu_si256(q + 1), nl));
			a2 = _mm256_sub_epi8(a2, _mm256_cmpeq_epi8(_mm256_loadu_si256(q + 2), nl));
			a3 = _mm256_sub_epi8(a3, _mm256_cmpeq_epi8(_mm256_loadu_si256(q + 3), nl));
		}
		sum = _mm256_add_epi64(
			_mm256_add_epi64(_mm256_sad_epu8(a0, zero), _mm256_sad_epu8(a1, zero)),
			_mm256_add_epi64(_mm256_sad_epu8(a2, zero), _mm256_sad_epu8(a3, zero)));
		count += (size_t)_mm256_extract_epi64(sum, 0) +
			 (size_t)_mm256_extract_epi64(sum, 1) +
			 (size_t)_mm256_extract_epi64(sum, 2) +
			 (size_t)_mm256_extract_epi64(sum, 3);
	}
	*done = i;
	return count;
}
#endif

/* Newlines in s[0..n): kept for line:column in error messages. Pretty-printed traces have a
 * newline every 40 bytes, too many for a library call each: 128 (AVX2, where the CPU has it),
 * 16 (SSE2) or 8 bytes at a time, with a counter per byte lane summed every 255 steps. */
static size_t count_newlines(const char *s, size_t n)
{
	size_t count = 0, i = 0;
#ifdef NEWLINES_AVX2
	if (n >= 128 && __builtin_cpu_supports("avx2"))
		count = newlines_avx2(s, n, &i);
#endif
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (i + 16 <= n) {
		__m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero, sum;

		if (i + 64 <= n) { /* four counters per lane, 64 bytes a step */
			for (int k = 0; k < 255 && i + 64 <= n; k++, i += 64) {
				const __m128i *q = (const __m128i *)(const void *)(s + i);

				/* a match is -1 */
				a0 = _mm_sub_epi8(a0, _mm_cmpeq_epi8(_mm_loadu_si128(q), nl));
				a1 = _mm_sub_epi8(a1, _mm_cmpeq_epi8(_mm_loadu_si128(q + 1), nl));
				a2 = _mm_sub_epi8(a2, _mm_cmpeq_epi8(_mm_loadu_si128(q + 2), nl));
				a3 = _mm_sub_epi8(a3, _mm_cmpeq_epi8(_mm_loadu_si128(q + 3), nl));
			}
		} else { /* the last 16 to 63 bytes */
			for (; i + 16 <= n; i += 16)
				a0 = _mm_sub_epi8(
					a0, _mm_cmpeq_epi8(
						    _mm_loadu_si128(
							    (const __m128i *)(const void *)(s + i)),
						    nl));
		}
		/* two 64-bit sums of eight lanes each, of each counter */
		sum = _mm_add_epi64(_mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero)),
				    _mm_add_epi64(_mm_sad_epu8(a2, zero), _mm_sad_epu8(a3, zero)));
		count += (size_t)_mm_cvtsi128_si64(sum) +
			 (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
	}
#else
	const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
	const uint64_t lanes16 = 0x00ff00ff00ff00ffull;

	while (i + 8 <= n) {
		uint64_t acc = 0;

		for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
			uint64_t w, x;

			memcpy(&w, s + i, 8);
			x = w ^ (ones * '\n');
			/* the high bit of x | ((x & low7) + low7) is clear exactly in the bytes where
			 * x is 0, that is where w has a newline */
			acc += (~(((x & low7) + low7) | x) & ~low7) >> 7;
		}
		acc = (acc & lanes16) + ((acc >> 8) & lanes16);
		count += (size_t)((acc * 0x0001000100010001ull) >> 48);
	}
#endif
	for (; i < n; i++)
		count += s[i] == '\n';
	return count;
}

/* One chunk of traceEvents parsed by a loader of its own (read_events). */
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
	size_t next_free; /* the lowest chunk not taken yet */
	/* the window of a thread's last chunk, for its next one (fresh memory costs a page fault
	 * a page): [0] the main thread's, [1] the helper's */
	struct spare_window {
		char *buf;
		size_t cap;
	} spare[2];
};

/* The newlines of s[0..n), whose first byte is byte base of the input, added to *lines; the
 * offset after the last one in *line_start (unchanged when there is none). */
static void count_lines(const char *s, size_t n, int64_t base, int64_t *lines, int64_t *line_start)
{
	size_t k = count_newlines(s, n);

	if (k) {
		const char *nl = s + n;

		while (*--nl != '\n')
			;
		*lines += (int64_t)k;
		*line_start = base + (nl - s) + 1;
	}
}

/* The newlines before byte off of the input and the offset where its line starts, counted by
 * reading it again from its start: for a loader whose input can be (ld->lines_later). */
static void lines_later(const struct loader *ld, int64_t off, int64_t *lines, int64_t *line_start)
{
	struct input *in = input_open_part(ld->in, 0);
	size_t cap = (size_t)1 << 20;
	char *buf = xmalloc(cap);
	int64_t pos = 0;
	ssize_t n;

	*lines = 0;
	*line_start = 0;
	while (pos < off &&
	       (n = input_read(in, buf, off - pos < (int64_t)cap ? (size_t)(off - pos) : cap,
			       NULL)) > 0) {
		count_lines(buf, (size_t)n, pos, lines, line_start);
		pos += n;
	}
	free(buf);
	input_close(in);
}

/* Drop the consumed bytes from the window, counting their newlines (unless they are counted
 * when an error needs them: ld->lines_later). */
static void drop_consumed(struct loader *ld)
{
	if (ld->pos > 0) {
		if (!ld->lines_later)
			count_lines(ld->buf, ld->pos, ld->off0, &ld->lines0, &ld->line_start);
		memmove(ld->buf, ld->buf + ld->pos, ld->len - ld->pos);
		ld->off0 += (int64_t)ld->pos;
		ld->len -= ld->pos;
		ld->pos = 0;
	}
}

/* Drop consumed bytes, grow the window when a unit fills it, and read more.
 * Returns 1 when bytes were added, 0 at the end of the input, -1 on error. */
static int fill(struct loader *ld)
{
	ssize_t n, added = 0;

	drop_consumed(ld);
	if (ld->part && atomic_load(&ld->pool->cancel)) {
		fd_error_set(ld->err, "%s: cancelled", ld->name);
		return -1;
	}
	if (ld->len == ld->cap) {
		ld->cap *= 2;
		ld->buf = xrealloc(ld->buf, ld->cap);
	}
	/* Fill the whole window: the unit that ran out is parsed again from its start, so small
	 * reads (a pipe gives 64 KiB at a time) would make one huge unit quadratic. */
	/* Progress after every read, so that a slow pipe shows it while the window fills. */
	do {
		n = input_read(ld->in, ld->buf + ld->len, ld->cap - ld->len, ld->err);
		if (n < 0) {
			char msg[FD_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", ld->err->msg);
			fd_error_set(ld->err, "%s: %s", ld->name, msg);
			return -1;
		}
		ld->len += (size_t)n;
		ld->t->bytes += n;
		added += n;
		if (ld->opts && ld->opts->progress &&
		    ld->opts->progress(ld->opts->progress_user, input_raw_done(ld->in),
				       input_raw_size(ld->in))) {
			fd_error_set(ld->err, "%s: loading cancelled", ld->name);
			return -1;
		}
	} while (n > 0 && ld->len < ld->cap);
	if (n == 0)
		ld->eof = 1;
	return added > 0;
}

/* "NAME: line N, column M: MSG" for an error at byte off of the input, its lines counted from
 * the start again (ld->lines_later) or those before the window and in it. */
static void error_at(struct loader *ld, int64_t off, const char *msg)
{
	int64_t lines = ld->lines0, line_start = ld->line_start;

	if (ld->lines_later)
		lines_later(ld, off, &lines, &line_start);
	else
		count_lines(ld->buf, (size_t)(off - ld->off0), ld->off0, &lines, &line_start);
	fd_error_set(ld->err, "%s: line %lld, column %lld: %s", ld->name, (long long)(lines + 1),
		     (long long)(off - line_start + 1), msg);
}

/* Report a JSON error at byte `at` of the window. */
static void json_error(struct loader *ld, const char *at, const char *msg)
{
	int64_t off;

	if (at < ld->buf || at > ld->buf + ld->len)
		at = ld->buf + ld->pos;
	off = ld->off0 + (at - ld->buf);
	if (ld->part) { /* a chunk (of a file read again for the lines): the main loader says it */
		ld->perr = (struct part_error){ 1, off, msg };
		fd_error_set(ld->err, "%s", msg);
		return;
	}
	error_at(ld, off, msg);
}

typedef int (*unit_fn)(struct loader *ld, struct json_cur *c, void *arg);

/* Parse one unit, reading more input and restarting it until it fits. */
static int unit(struct loader *ld, unit_fn fn, void *arg)
{
	for (;;) {
		struct json_cur c = { ld->buf + ld->pos, ld->buf + ld->len, ld->eof, NULL, NULL };
		int rc = fn(ld, &c, arg);

		if (rc == JSON_OK) {
			ld->pos = (size_t)(c.p - ld->buf);
			return 0;
		}
		if (rc == JSON_ERR) {
			if (c.err_msg)
				json_error(ld, c.err_at, c.err_msg);
			return -1;
		}
		if (fill(ld) < 0)
			return -1;
	}
}

/* ---- the top level -------------------------------------------------------------------- */

static int unit_begin(struct loader *ld, struct json_cur *c, void *arg)
{
	int ch = json_peek(c);

	if (ch < 0) {
		if (!c->at_eof)
			return JSON_MORE;
		return JSON_ERR; /* empty: reported by the caller */
	}
	if (ch != '{' && ch != '[') {
		c->err_at = c->p;
		c->err_msg = "not JSON: expected '{' at the start of a trace";
		return JSON_ERR;
	}
	*(int *)arg = ch;
	c->p++;
	return JSON_OK;
}

struct top_key {
	int first, done;
	struct json_str key;
	char name[64]; /* copy of the key (keys longer than this are never ours) */
	size_t len;
};

static int unit_key(struct loader *ld, struct json_cur *c, void *arg)
{
	struct top_key *k = arg;
	int f = k->first, rc;

	if ((rc = json_object_next(c, &f, &k->key, &ld->kbuf, &k->done)))
		return rc;
	k->first = 0;
	k->len = k->done ? 0 : k->key.len < sizeof k->name ? k->key.len : sizeof k->name - 1;
	if (!k->done)
		memcpy(k->name, k->key.s, k->len);
	k->name[k->len] = '\0';
	return JSON_OK;
}

static int unit_array_begin(struct loader *ld, struct json_cur *c, void *arg)
{
	if (json_peek(c) >= 0 && json_peek(c) != '[') {
		c->err_at = c->p;
		c->err_msg = "\"traceEvents\" is not an array";
		return JSON_ERR;
	}
	return json_array_begin(c);
}

static int unit_skip(struct loader *ld, struct json_cur *c, void *arg)
{
	return json_skip(c);
}

/* A top-level scalar: kept as text in trace->meta. Containers are skipped. */
static int unit_meta(struct loader *ld, struct json_cur *c, void *arg)
{
	const char *key = arg, *s;
	struct json_str v;
	int ch = json_peek(c), rc;

	if (ch < 0)
		return json_skip(c);
	if (ch == '{' || ch == '[')
		return json_skip(c);
	if (ch == '"') {
		if ((rc = json_string(c, &v, &ld->abuf)))
			return rc;
	} else {
		s = c->p;
		if ((rc = json_skip(c)))
			return rc;
		v.s = s;
		v.len = (size_t)(c->p - s);
	}
	trace_add_meta(ld->t, intern_add(ld->t->strings, key, strlen(key)),
		       intern_add(ld->t->strings, v.s, v.len));
	return JSON_OK;
}

static int64_t cj_int(const cJSON *obj, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsNumber(v) && v->valuedouble > -9.2e18 && v->valuedouble < 9.2e18)
		return (int64_t)v->valuedouble;
	if (cJSON_IsString(v))
		return strtoll(v->valuestring, NULL, 10);
	return dflt;
}

static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

/* deviceProperties or distributedInfo: small, parsed with cJSON. */
static int unit_cjson(struct loader *ld, struct json_cur *c, void *arg)
{
	const char *key = arg, *s;
	cJSON *root;
	int rc;

	json_peek(c);
	s = c->p;
	if ((rc = json_skip(c)))
		return rc;
	if ((size_t)(c->p - s) > LOAD_CJSON_MAX) {
		trace_warn(ld->t, "\"%s\" is larger than %d KiB and was ignored", key,
			   LOAD_CJSON_MAX >> 10);
		return JSON_OK;
	}
	/* cJSON's parser records its error position in a global: two traces loading in parallel
	 * must take turns (the tree it returns is theirs alone). */
	pthread_mutex_lock(&cjson_parse_lock);
	root = cJSON_ParseWithLength(s, (size_t)(c->p - s));
	pthread_mutex_unlock(&cjson_parse_lock);
	if (!root)
		return JSON_OK; /* valid JSON that cJSON refuses (too deep): ignore */
	if (strcmp(key, "deviceProperties") == 0 && cJSON_IsArray(root)) {
		const cJSON *d;
		int n = 0;

		cJSON_ArrayForEach(d, root)
		{
			if (n++ == LOAD_MAX_DEVICES) {
				trace_warn(ld->t,
					   "\"deviceProperties\" lists more than %d devices: the "
					   "rest were ignored",
					   LOAD_MAX_DEVICES);
				break;
			}
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
			struct trace_device dev = {
				.id = (int32_t)cj_int(d, "id", -1),
				.name = cJSON_IsString(name)
						? intern_add(ld->t->strings, name->valuestring,
							     strlen(name->valuestring))
						: 0,
				.warp_size = (int32_t)cj_int(d, "warpSize", 0),
				.num_sms = (int32_t)cj_int(d, "numSms", 0),
				.compute_major = (int32_t)cj_int(d, "computeMajor", 0),
				.compute_minor = (int32_t)cj_int(d, "computeMinor", 0),
				.total_mem = cj_int(d, "totalGlobalMem", 0),
			};
			if (cJSON_IsObject(d))
				trace_add_device(ld->t, &dev);
		}
	} else if (strcmp(key, "distributedInfo") == 0 && cJSON_IsObject(root)) {
		ld->t->rank = cj_int(root, "rank", -1);
		ld->t->world_size = cj_int(root, "world_size", -1);
	}
	cJSON_Delete(root);
	return JSON_OK;
}

/* ---- both cores for one plain file ------------------------------------------------------ *
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

/* Bytes of traceEvents left below which one thread parses (FUSEDIFF_SPLIT_MIN for tests). */
#define SPLIT_MIN  (8 << 20)
#define SPLIT_LOOK (1 << 16) /* bytes searched for the end of an event */
/* The chunks: about CHUNKS of them, none smaller than CHUNK_MIN (but with FUSEDIFF_SPLIT_MIN,
 * which the tests set to 1 so that every file is cut into many). */
#define CHUNKS	  32
#define CHUNK_MIN (16 << 20)
/* A chunk's window: no larger than the main loader's */
#define CHUNK_WINDOW (WINDOW_INITIAL < (512u << 10) ? WINDOW_INITIAL : (512u << 10))

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

static void loader_bufs_free(struct loader *ld)
{
	json_buf_free(&ld->kbuf);
	json_buf_free(&ld->nbuf);
	json_buf_free(&ld->cbuf);
	json_buf_free(&ld->abuf);
	json_buf_free(&ld->lbuf);
	free(ld->seen); /* each NULL after, so that a loader may be freed twice */
	ld->seen = NULL;
	free(ld->kp);
	ld->kp = NULL;
	if (ld->raw_dims)
		intern_free(ld->raw_dims);
	ld->raw_dims = NULL;
	free(ld->raw_dims_id);
	ld->raw_dims_id = NULL;
	ld->raw_dims_cap = 0;
	free(ld->buf);
	ld->buf = NULL;
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
	int first;   /* trace_load_event()'s: 1 before the first element, -1 after the last */
	size_t next; /* the next chunk start the loader may reach */
	int at_chunk;
};

static int unit_events(struct loader *ld, struct json_cur *c, void *arg)
{
	struct events *ev = arg;

	for (;;) {
		int rc;

		if (ld->pool && !ev->first && at_chunk_start(ld->pool, ld, &ev->next)) {
			ev->at_chunk = 1;
			return JSON_OK;
		}
		if ((rc = trace_load_event(ld, c, &ev->first)))
			return rc;
		ld->pos = (size_t)(c->p - ld->buf);
		if (ev->first < 0)
			return JSON_OK;
	}
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
	ld->cap = sw->buf ? sw->cap : CHUNK_WINDOW;
	ld->buf = sw->buf ? sw->buf : xmalloc(ld->cap);
	sw->buf = NULL;
	ld->err = &ch->err;
	ld->t = trace_new(main_ld->name);
	ld->cat_none = intern_add(ld->t->strings, "(none)", 6);
	ld->part = 1;
	ld->pool = pl;
	ld->off0 = ch->at;
	ld->lines_later = main_ld->lines_later;
	ld->no_memo = main_ld->no_memo;
	ch->rc = -1;
	if (unit(ld, unit_events, &ev) < 0)
		goto out;
	drop_consumed(ld);
	ch->landed = ev.first < 0 ? pl->n : ev.next;
	ch->end = ld->off0;
	ch->rc = 0;
out:
	input_close(ld->in);
	ld->in = NULL;
	*sw = (struct spare_window){ ld->buf, ld->cap }; /* the window for the thread's next */
	ld->buf = NULL;
	loader_bufs_free(ld); /* before the chunk waits to be merged */
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
static void pool_free(struct loader *ld)
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
	free(pl->spare[0].buf);
	free(pl->spare[1].buf);
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
	const char *env = getenv("FUSEDIFF_SPLIT_MIN"), *serial = getenv("FUSEDIFF_SERIAL");
	int64_t min = env && *env ? strtoll(env, NULL, 10) : SPLIT_MIN;
	struct pool *pl;

	if (size < 0 || size - from < min || size - from < 2 || ld->part ||
	    (serial && *serial && strcmp(serial, "0") != 0))
		return;
	step = (size - from) / CHUNKS;
	if (step < CHUNK_MIN && !(env && *env))
		step = CHUNK_MIN;
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
	pl->starts = xmalloc(pl->n * sizeof *pl->starts);
	for (size_t k = 0; k < pl->n; k++)
		pl->starts[k] = pl->c[k].at;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cond, NULL);
	pl->next_free = 1;
	ld->pool = pl;
	if (pl->n < 2 || thread_start(&pl->thread, pool_main, ld) != 0) {
		pool_free(ld);
		return;
	}
	pl->has_thread = 1;
}

/* The main loader stopped exactly at chunk k's start: from there the records are the chunks',
 * merged in order (each where the one before it stopped), parsing chunks itself while the
 * next one is not done. Returns 0 (*first is -1: traceEvents ended), -1 on an error. */
static int pool_finish(struct loader *ld, size_t k, int *first)
{
	struct pool *pl = ld->pool;
	int64_t end = -1, skip;

	drop_consumed(ld); /* the newlines before chunk k */
	while (end < 0) {
		struct chunk *ch = &pl->c[k];
		size_t i;

		pthread_mutex_lock(&pl->mu);
		while (ch->state != CHUNK_DONE) {
			if ((i = chunk_take(pl))) {
				pthread_mutex_unlock(&pl->mu);
				chunk_parse(pl, ld, i, &pl->spare[0]);
				chunk_done(pl, i);
				pthread_mutex_lock(&pl->mu);
			} else if (ch->state != CHUNK_DONE) {
				pthread_cond_wait(&pl->cond, &pl->mu);
			}
		}
		pthread_mutex_unlock(&pl->mu);
		if (ch->rc < 0) {
			const struct part_error *e = &ch->ld.perr;

			if (e->set)
				error_at(ld, e->off, e->msg);
			else
				fd_error_set(ld->err, "%s", ch->err.msg);
			pool_free(ld);
			return -1;
		}
		trace_merge(ld->t, ch->ld.t);
		trace_free(ch->ld.t);
		ch->ld.t = NULL;
		ld->bad_time += ch->ld.bad_time;
		ld->bad_number += ch->ld.bad_number;
		ld->bad_kernels += ch->ld.bad_kernels;
		if (ld->opts && ld->opts->progress &&
		    ld->opts->progress(ld->opts->progress_user, ch->end, input_raw_size(ld->in))) {
			fd_error_set(ld->err, "%s: loading cancelled", ld->name);
			pool_free(ld);
			return -1;
		}
		if (ch->landed >= pl->n)
			end = ch->end;
		else
			k = ch->landed;
	}
	pool_free(ld);
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

static int read_events(struct loader *ld)
{
	struct events ev = { .first = 1, .next = 1 };

	ld->saw_events = 1;
	pool_start(ld);
	if (ld->opts && ld->opts->started)
		ld->opts->started(ld->opts->started_user);
	while (ev.first >= 0) {
		if (unit(ld, unit_events, &ev) < 0)
			return -1;
		if (ev.at_chunk) {
			ev.at_chunk = 0;
			if (pool_finish(ld, ev.next, &ev.first) < 0)
				return -1;
		}
	}
	pool_free(ld); /* the array ended before every chunk's start */
	return 0;
}

static int unit_trailer(struct loader *ld, struct json_cur *c, void *arg)
{
	int ch = json_peek(c);

	if (ch < 0)
		return c->at_eof ? JSON_OK : JSON_MORE;
	c->err_at = c->p;
	c->err_msg = "unexpected data after the end of the JSON document";
	return JSON_ERR;
}

static int parse_document(struct loader *ld)
{
	int open = 0;

	if (unit(ld, unit_begin, &open) < 0) {
		if (!open && ld->eof && !ld->err->msg[0]) {
			fd_error_set(ld->err, "%s: empty file", ld->name);
		}
		return -1;
	}
	if (open == '[') {
		/* A bare array of events, as the Chrome trace format also allows. */
		ld->pos--;
		if (unit(ld, unit_array_begin, NULL) < 0 || read_events(ld) < 0)
			return -1;
	} else {
		struct top_key k = { .first = 1 };

		for (;;) {
			int rc;

			if (unit(ld, unit_key, &k) < 0)
				return -1;
			if (k.done)
				break;
			if (strcmp(k.name, "traceEvents") == 0) {
				if (ld->saw_events) {
					json_error(ld, ld->buf + ld->pos,
						   "a second \"traceEvents\" array");
					return -1;
				}
				rc = unit(ld, unit_array_begin, NULL);
				if (rc == 0)
					rc = read_events(ld);
			} else if (strcmp(k.name, "deviceProperties") == 0 ||
				   strcmp(k.name, "distributedInfo") == 0) {
				rc = unit(ld, unit_cjson, k.name);
			} else if (k.len < sizeof k.name - 1) {
				rc = unit(ld, unit_meta, k.name);
			} else {
				rc = unit(ld, unit_skip, NULL);
			}
			if (rc < 0)
				return -1;
		}
	}
	if (unit(ld, unit_trailer, NULL) < 0)
		return -1;
	if (!ld->saw_events) {
		fd_error_set(ld->err, "%s: no \"traceEvents\" array: not a PyTorch profiler trace",
			     ld->name);
		return -1;
	}
	return 0;
}

/* A Kineto trace is a JSON object: the first byte after blanks is '{'. Anything else still
 * goes to this loader when no other format claims it (formats.h), for its JSON error. */
static int kineto_detect(const unsigned char *head, size_t n)
{
	size_t i = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	return i < n && head[i] == '{';
}

static int kineto_load(struct trace *t, struct input *in, const char *name,
		       const struct trace_load_opts *opts, struct fd_error *err)
{
	struct loader ld = { 0 };
	int rc;

	ld.name = name;
	ld.in = in;
	ld.cap = WINDOW_INITIAL;
	ld.buf = xmalloc(ld.cap);
	ld.opts = opts;
	ld.err = err;
	ld.t = t;
	ld.cat_none = intern_add(t->strings, "(none)", 6);
	ld.lines_later = input_split_size(in) >= 0;
	{
		const char *nm = getenv("FUSEDIFF_NO_MEMO");

		ld.no_memo = nm && *nm && strcmp(nm, "0") != 0;
	}

	rc = parse_document(&ld);
	pool_free(&ld);
	if (rc == 0 && ld.bad_kernels && !t->n_kernels) {
		fd_error_set(
			err,
			"%s: none of its %lld kernel events has a readable ts and dur (kernels "
			"written as B/E pairs or with damaged times cannot be used)",
			name, (long long)ld.bad_kernels);
		rc = -1;
	} else if (rc == 0) {
		if (ld.bad_time)
			trace_warn(t,
				   "%lld kept events had a missing, negative or unreadable ts/dur "
				   "and were skipped",
				   (long long)ld.bad_time);
		if (ld.bad_number)
			trace_warn(t, "%lld events had numbers beyond 64 bits (clamped)",
				   (long long)ld.bad_number);
	}
	loader_bufs_free(&ld);
	return rc;
}

const struct trace_format trace_format_kineto = {
	.name = "Kineto JSON",
	.detect = kineto_detect,
	.load = kineto_load,
};
