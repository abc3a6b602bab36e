/* trace_load.c — the streaming trace loader.
 *
 * The input is read in large chunks into a window. The parser works on one unit at a time
 * (the start of the document, one top-level key, one event) with the restartable cursor of
 * json.h: when a unit runs past the bytes read so far, more are read and the unit is parsed
 * again from its start. A unit commits its result only when it parsed completely, so a restart
 * never duplicates anything. Only deviceProperties and distributedInfo, which are small, are
 * handed to cJSON. */
#include <cjson/cJSON.h>
#include <pthread.h>
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

/* The fuzz build makes it tiny, so that every unit is restarted many times. */
#ifndef WINDOW_INITIAL
#define WINDOW_INITIAL (4u << 20)
#endif

/* Times kept, in ns: ts in [-2^60, 2^62] (epoch microseconds reach 2^62 ns in the year 2116),
 * dur in [0, 2^60] (36 years). Then every start relative to the trace start, plus its
 * duration, is at most TRACE_TIME_MAX. Events outside are counted as unreadable. */
#define LOAD_TS_MIN  (-(INT64_C(1) << 60))
#define LOAD_TS_MAX  (INT64_C(1) << 62)
#define LOAD_DUR_MAX (INT64_C(1) << 60)

/* deviceProperties and distributedInfo are parsed as a tree: only when they are this small
 * (real ones are a few KiB), and only this many devices. */
#define LOAD_CJSON_MAX	 (1 << 20)
#define LOAD_MAX_DEVICES 1024

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
	struct input *in;
	char *buf;
	size_t cap, len, pos;
	int eof;
	int64_t off0;	    /* stream offset of buf[0] */
	int64_t lines0;	    /* newlines before buf[0] */
	int64_t line_start; /* stream offset where the line containing buf[0] starts */
	struct trace *t;
	const struct trace_load_opts *opts;
	struct fd_error *err;
	struct json_buf kbuf, nbuf, cbuf, abuf;
	int saw_events;
	uint32_t cat_none;
	/* the categories seen last, so that most events find theirs without hashing */
	struct cat_cache {
		const char *s; /* interned copy */
		size_t len;
		uint32_t id;
		enum ev_kind kind;
	} cats[CAT_CACHE];
	unsigned cat_next; /* round-robin replacement */
	int64_t bad_time, bad_number;
};

/* ---- reading ------------------------------------------------------------------------ */

/* Newlines in s[0..n): kept for line:column in error messages. Pretty-printed traces have a
 * newline every 40 bytes, too many for a library call each: 16 (SSE2) or 8 bytes at a time,
 * with a counter per byte lane summed every 255 steps. */
static size_t count_newlines(const char *s, size_t n)
{
	size_t count = 0, i = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (i + 16 <= n) {
		__m128i acc = zero, sum;

		for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i));

			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(w, nl)); /* a match is -1 */
		}
		sum = _mm_sad_epu8(acc, zero); /* two 64-bit sums of eight lanes each */
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

/* Drop consumed bytes, grow the window when a unit fills it, and read more.
 * Returns 1 when bytes were added, 0 at the end of the input, -1 on error. */
static int fill(struct loader *ld)
{
	ssize_t n, added = 0;

	if (ld->pos > 0) {
		size_t lines = count_newlines(ld->buf, ld->pos);

		if (lines) {
			const char *nl = ld->buf + ld->pos;

			while (*--nl != '\n')
				;
			ld->lines0 += (int64_t)lines;
			ld->line_start = ld->off0 + (nl - ld->buf) + 1;
		}
		memmove(ld->buf, ld->buf + ld->pos, ld->len - ld->pos);
		ld->off0 += (int64_t)ld->pos;
		ld->len -= ld->pos;
		ld->pos = 0;
	}
	if (ld->len == ld->cap) {
		ld->cap *= 2;
		ld->buf = xrealloc(ld->buf, ld->cap);
	}
	/* Fill the whole window: the unit that ran out is parsed again from its start, so small
	 * reads (a pipe gives 64 KiB at a time) would make one huge unit quadratic. */
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
	} while (n > 0 && ld->len < ld->cap);
	if (n == 0)
		ld->eof = 1;
	if (ld->opts && ld->opts->progress &&
	    ld->opts->progress(ld->opts->progress_user, input_raw_done(ld->in),
			       input_raw_size(ld->in))) {
		fd_error_set(ld->err, "%s: loading cancelled", ld->name);
		return -1;
	}
	return added > 0;
}

/* Report a JSON error at byte `at` of the window. */
static void json_error(struct loader *ld, const char *at, const char *msg)
{
	int64_t line = ld->lines0 + 1, line_start = ld->line_start;
	const char *p = ld->buf, *nl;
	int64_t off;

	if (at < ld->buf || at > ld->buf + ld->len)
		at = ld->buf + ld->pos;
	off = ld->off0 + (at - ld->buf);
	while ((nl = memchr(p, '\n', (size_t)(at - p)))) {
		line++;
		line_start = ld->off0 + (nl - ld->buf) + 1;
		p = nl + 1;
	}
	fd_error_set(ld->err, "%s: line %lld, column %lld: %s", ld->name, (long long)line,
		     (long long)(off - line_start + 1), msg);
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

/* ---- events --------------------------------------------------------------------------- */

struct event {
	struct json_str cat, name;
	int has_cat, has_ts, has_dur;
	int64_t ts, dur;
	int64_t pid, tid;
	const char *args, *args_end; /* raw slice of args, when present */
	/* from args */
	int64_t correlation, external_id, device, stream;
	int32_t grid[3], block[3];
	struct json_str dims; /* raw Input Dims */
	int bad_number;
	int bad_time;
};

static enum ev_kind kind_of(struct json_str cat)
{
	/* clang-format off */
#define CAT(s, k) { s, sizeof s - 1, k }
	/* clang-format on */
	static const struct {
		const char *cat;
		size_t len;
		enum ev_kind kind;
	} map[] = {
		CAT("kernel", EV_KERNEL),
		CAT("Kernel", EV_KERNEL),
		CAT("gpu_memcpy", EV_MEMCPY),
		CAT("Memcpy", EV_MEMCPY),
		CAT("gpu_memset", EV_MEMSET),
		CAT("Memset", EV_MEMSET),
		CAT("cuda_runtime", EV_LAUNCH),
		CAT("hip_runtime", EV_LAUNCH),
		CAT("cuda_driver", EV_LAUNCH),
		CAT("hip_driver", EV_LAUNCH),
		CAT("Runtime", EV_LAUNCH),
		CAT("cpu_op", EV_CPU_OP),
		CAT("Operator", EV_CPU_OP),
		CAT("user_annotation", EV_USER_ANN),
		CAT("gpu_user_annotation", EV_GPU_ANN),
		CAT("python_function", EV_PYTHON),
	};
#undef CAT

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (json_str_eq(cat, map[i].cat, map[i].len))
			return map[i].kind;
	return EV_OTHER;
}

/* An integer value: a number, or a string holding one (pid and tid can be names). */
static int parse_int(struct json_cur *c, int64_t *out, int *bad, struct json_buf *buf)
{
	struct json_str raw;
	int ch = json_peek(c), rc, overflow = 0;

	if (ch < 0)
		return json_skip(c); /* produces MORE or the EOF error */
	if (ch == '"') {
		if ((rc = json_string(c, &raw, buf)))
			return rc;
		if (json_to_int64(raw, out, &overflow) < 0) {
			/* a name: hash it to a stable number */
			uint64_t h = 1469598103934665603ull;

			for (size_t i = 0; i < raw.len; i++)
				h = (h ^ (unsigned char)raw.s[i]) * 1099511628211ull;
			*out = (int64_t)(h >> 1);
		}
		return JSON_OK;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9') || ch == 'N' || ch == 'I') {
		int conv;

		if ((rc = json_number_int64(c, out, &overflow, &conv)))
			return rc;
		if (conv < 0)
			*out = 0;
		if (overflow)
			*bad = 1;
		return JSON_OK;
	}
	return json_skip(c); /* null, objects and the like: absent */
}

/* A time in microseconds (number or numeric string) to ns. *ok is cleared when unusable. */
static int parse_time(struct json_cur *c, int64_t *out, int *ok, struct json_buf *buf)
{
	struct json_str raw;
	int ch = json_peek(c), rc, overflow = 0;

	if (ch < 0)
		return json_skip(c);
	if (ch == '"') {
		if ((rc = json_string(c, &raw, buf)))
			return rc;
		if (json_us_to_ns(raw, out, &overflow) < 0 || overflow)
			*ok = 0;
	} else if (ch == '-' || (ch >= '0' && ch <= '9') || ch == 'N' || ch == 'I') {
		int conv;

		if ((rc = json_number_us_to_ns(c, out, &overflow, &conv)))
			return rc;
		if (conv < 0 || overflow)
			*ok = 0;
	} else {
		*ok = 0;
		return json_skip(c);
	}
	return JSON_OK;
}

static int parse_dim3(struct json_cur *c, int32_t v[3], int *bad, struct json_buf *buf)
{
	int first = 1, done, rc, i = 0;

	if (json_peek(c) != '[')
		return json_skip(c);
	if ((rc = json_array_begin(c)))
		return rc;
	for (;;) {
		int64_t x = 0;

		if ((rc = json_array_next(c, &first, &done)))
			return rc;
		if (done)
			return JSON_OK;
		if ((rc = parse_int(c, &x, bad, buf)))
			return rc;
		if (i < 3)
			v[i++] = x > INT32_MAX ? INT32_MAX : x < 0 ? 0 : (int32_t)x;
	}
}

static int parse_args(struct json_cur *c, struct event *ev, enum ev_kind kind, struct loader *ld)
{
	int first = 1, done, rc;
	struct json_str key;

	if (json_peek(c) != '{')
		return json_skip(c);
	if ((rc = json_object_begin(c)))
		return rc;
	for (;;) {
		if ((rc = json_object_next(c, &first, &key, &ld->kbuf, &done)))
			return rc;
		if (done)
			return JSON_OK;
		if (JSON_EQ(key, "External id"))
			rc = parse_int(c, &ev->external_id, &ev->bad_number, &ld->abuf);
		else if (JSON_EQ(key, "correlation"))
			rc = parse_int(c, &ev->correlation, &ev->bad_number, &ld->abuf);
		else if (kind <= EV_MEMSET && JSON_EQ(key, "device"))
			rc = parse_int(c, &ev->device, &ev->bad_number, &ld->abuf);
		else if (kind <= EV_MEMSET && JSON_EQ(key, "stream"))
			rc = parse_int(c, &ev->stream, &ev->bad_number, &ld->abuf);
		else if (kind == EV_KERNEL && JSON_EQ(key, "grid"))
			rc = parse_dim3(c, ev->grid, &ev->bad_number, &ld->abuf);
		else if (kind == EV_KERNEL && JSON_EQ(key, "block"))
			rc = parse_dim3(c, ev->block, &ev->bad_number, &ld->abuf);
		else if (kind == EV_CPU_OP && JSON_EQ(key, "Input Dims")) {
			const char *s = c->p;

			if ((rc = json_skip(c)))
				return rc;
			ev->dims.s = s;
			ev->dims.len = (size_t)(c->p - s);
		} else
			rc = json_skip(c);
		if (rc)
			return rc;
	}
}

static int kept(enum ev_kind kind, struct json_str name)
{
	if (kind == EV_OTHER)
		return 0;
	if (kind == EV_PYTHON)
		return JSON_EQ(name, "nn.Module: ") ||
		       (name.len > 11 && memcmp(name.s, "nn.Module: ", 11) == 0);
	return 1;
}

/* The interned category and what it means. Interning is idempotent, so a unit that is
 * restarted may call this again. */
static const struct cat_cache *cat_lookup(struct loader *ld, struct json_str cat)
{
	struct cat_cache *e;

	for (unsigned i = 0; i < CAT_CACHE; i++) {
		e = &ld->cats[i];
		if (e->s && e->len == cat.len && memcmp(e->s, cat.s, cat.len) == 0)
			return e;
	}
	e = &ld->cats[ld->cat_next++ % CAT_CACHE];
	e->id = intern_add(ld->t->strings, cat.s, cat.len);
	e->s = intern_str(ld->t->strings, e->id);
	e->len = cat.len;
	e->kind = kind_of(cat);
	return e;
}

/* Count the event's category; what kind of event it is. */
static enum ev_kind category(struct loader *ld, const struct event *ev)
{
	const struct cat_cache *e;

	if (!ev->has_cat) {
		trace_count_category(ld->t, ld->cat_none);
		return EV_OTHER;
	}
	e = cat_lookup(ld, ev->cat);
	trace_count_category(ld->t, e->id);
	return e->kind;
}

/* Copy Input Dims without whitespace, interned. */
static uint32_t intern_dims(struct loader *ld, struct json_str dims)
{
	struct json_buf *b = &ld->abuf;
	int in_str = 0;

	if (!dims.len)
		return 0;
	if (b->cap < dims.len + 1) {
		b->s = xrealloc(b->s, dims.len + 1);
		b->cap = dims.len + 1;
	}
	b->len = 0;
	for (size_t i = 0; i < dims.len; i++) {
		char ch = dims.s[i];

		if (ch == '"' && (i == 0 || dims.s[i - 1] != '\\'))
			in_str = !in_str;
		if (!in_str && (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'))
			continue;
		b->s[b->len++] = ch;
	}
	return intern_add(ld->t->strings, b->s, b->len);
}

static void commit(struct loader *ld, struct event *ev, enum ev_kind kind)
{
	struct trace *t = ld->t;
	uint32_t name;

	if (ev->bad_number)
		ld->bad_number++;
	if (!ev->has_ts || ev->bad_time ||
	    (kind != EV_LAUNCH && kind != EV_CPU_OP && !ev->has_dur)) {
		ld->bad_time++;
		return;
	}
	if (ev->dur < 0 || ev->dur > LOAD_DUR_MAX || ev->ts < LOAD_TS_MIN || ev->ts > LOAD_TS_MAX) {
		ld->bad_time++;
		return;
	}
	name = intern_add(t->strings, ev->name.s, ev->name.len);
	switch (kind) {
	case EV_KERNEL:
	case EV_MEMCPY:
	case EV_MEMSET: {
		struct trace_kernel k = {
			.start = ev->ts,
			.dur = ev->dur,
			.correlation = ev->correlation,
			.external_id = ev->external_id,
			.name = name,
			.device = ev->device > INT32_MAX || ev->device < INT32_MIN
					  ? -1
					  : (int32_t)ev->device,
			.stream = ev->stream > INT32_MAX || ev->stream < INT32_MIN
					  ? -1
					  : (int32_t)ev->stream,
			.kind = kind == EV_KERNEL   ? KIND_KERNEL
				: kind == EV_MEMCPY ? KIND_MEMCPY
						    : KIND_MEMSET,
		};
		memcpy(k.grid, ev->grid, sizeof k.grid);
		memcpy(k.block, ev->block, sizeof k.block);
		trace_add_kernel(t, &k);
		break;
	}
	case EV_LAUNCH: {
		struct trace_launch l = { ev->ts,	   ev->dur, ev->correlation,
					  ev->external_id, ev->tid, name };

		if (ev->correlation)
			trace_add_launch(t, &l);
		break;
	}
	case EV_CPU_OP: {
		struct trace_op o = { ev->ts,  ev->dur, ev->external_id,
				      ev->tid, name,	intern_dims(ld, ev->dims) };

		trace_add_op(t, &o);
		break;
	}
	case EV_USER_ANN:
	case EV_GPU_ANN:
	case EV_PYTHON: {
		struct trace_range r = { ev->ts,
					 ev->dur,
					 ev->external_id,
					 ev->pid,
					 ev->tid,
					 name,
					 kind == EV_USER_ANN  ? RANGE_USER
					 : kind == EV_GPU_ANN ? RANGE_GPU_USER
							      : RANGE_MODULE };

		trace_add_range(t, &r);
		break;
	}
	default: break;
	}
}

/* One element of traceEvents, with the separator before it. */
static int unit_event(struct loader *ld, struct json_cur *c, void *arg)
{
	int *first = arg, f = *first, done, rc, ok_ts = 1, ok_dur = 1;
	struct event ev;
	struct json_str key;
	enum ev_kind kind = EV_OTHER;
	int kind_known = 0;

	if ((rc = json_array_next(c, &f, &done)))
		return rc;
	if (done) {
		*first = -1; /* end of the array */
		return JSON_OK;
	}
	if (json_peek(c) != '{') {
		if (json_peek(c) < 0)
			return c->at_eof ? json_skip(c) : JSON_MORE;
		c->err_at = c->p;
		c->err_msg = "expected an event object in traceEvents";
		return JSON_ERR;
	}
	memset(&ev, 0, sizeof ev);
	ev.name.s = "";
	if ((rc = json_object_begin(c)))
		return rc;
	for (int kf = 1;;) {
		if ((rc = json_object_next(c, &kf, &key, &ld->kbuf, &done)))
			return rc;
		if (done)
			break;
		switch (key.len) {
		case 2:
			if (JSON_EQ(key, "ts")) {
				ev.has_ts = 1;
				rc = parse_time(c, &ev.ts, &ok_ts, &ld->abuf);
				goto next;
			}
			break;
		case 3:
			if (JSON_EQ(key, "cat")) {
				if (json_peek(c) == '"') {
					rc = json_string(c, &ev.cat, &ld->cbuf);
					ev.has_cat = rc == JSON_OK;
				} else {
					rc = json_skip(c);
				}
				goto next;
			}
			if (JSON_EQ(key, "dur")) {
				ev.has_dur = 1;
				rc = parse_time(c, &ev.dur, &ok_dur, &ld->abuf);
				goto next;
			}
			if (JSON_EQ(key, "pid")) {
				rc = parse_int(c, &ev.pid, &ev.bad_number, &ld->abuf);
				goto next;
			}
			if (JSON_EQ(key, "tid")) {
				rc = parse_int(c, &ev.tid, &ev.bad_number, &ld->abuf);
				goto next;
			}
			break;
		case 4:
			if (JSON_EQ(key, "name")) {
				if (json_peek(c) == '"')
					rc = json_string(c, &ev.name, &ld->nbuf);
				else
					rc = json_skip(c);
				goto next;
			}
			if (JSON_EQ(key, "args")) {
				const char *s = c->p;

				if (ev.has_cat && !kind_known) {
					kind = cat_lookup(ld, ev.cat)->kind;
					kind_known = 1;
				}
				if (kind_known && kind != EV_OTHER && kind != EV_PYTHON) {
					rc = parse_args(c, &ev, kind, ld);
					ev.args = NULL;
				} else {
					rc = json_skip(c);
					ev.args = s;
					ev.args_end = c->p;
				}
				goto next;
			}
			break;
		}
		rc = json_skip(c);
	next:
		if (rc)
			return rc;
	}
	/* The event parsed completely: from here on nothing can ask for a restart. */
	*first = 0;
	ld->t->n_events++;
	kind = category(ld, &ev);
	if (!kept(kind, ev.name))
		return JSON_OK;
	if (ev.args) {
		struct json_cur a = { ev.args, ev.args_end, 1, NULL, NULL };

		/* json_skip() validated the structure but not the escapes in strings. */
		if (parse_args(&a, &ev, kind, ld) != JSON_OK) {
			c->err_at = a.err_at;
			c->err_msg = a.err_msg;
			return JSON_ERR;
		}
	}
	ev.bad_time = !ok_ts || !ok_dur;
	commit(ld, &ev, kind);
	return JSON_OK;
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

static int read_events(struct loader *ld)
{
	int first = 1;

	ld->saw_events = 1;
	while (first >= 0)
		if (unit(ld, unit_event, &first) < 0)
			return -1;
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

static int load(struct trace **out, const char *name, struct input *in,
		const struct trace_load_opts *opts, struct fd_error *err)
{
	struct loader ld = { 0 };
	int rc;

	*out = NULL;
	err->msg[0] = '\0';
	ld.name = name;
	ld.in = in;
	ld.cap = WINDOW_INITIAL;
	ld.buf = xmalloc(ld.cap);
	ld.opts = opts;
	ld.err = err;
	ld.t = trace_new(name);
	ld.t->gzip = input_is_gzip(in);
	ld.cat_none = intern_add(ld.t->strings, "(none)", 6);

	rc = parse_document(&ld);
	if (rc == 0) {
		if (ld.bad_time)
			trace_warn(ld.t,
				   "%lld kept events had a missing, negative or unreadable ts/dur "
				   "and were skipped",
				   (long long)ld.bad_time);
		if (ld.bad_number)
			trace_warn(ld.t, "%lld events had numbers beyond 64 bits (clamped)",
				   (long long)ld.bad_number);
		rc = trace_finish(ld.t, opts ? opts->device : -1, err);
	}
	json_buf_free(&ld.kbuf);
	json_buf_free(&ld.nbuf);
	json_buf_free(&ld.cbuf);
	json_buf_free(&ld.abuf);
	free(ld.buf);
	input_close(in);
	if (rc < 0) {
		trace_free(ld.t);
		return -1;
	}
	*out = ld.t;
	return 0;
}

int trace_load(struct trace **out, const char *path, const struct trace_load_opts *opts,
	       struct fd_error *err)
{
	struct input *in;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;

	*out = NULL;
	if (input_open(&in, path, err) < 0) {
		char msg[FD_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		fd_error_set(err, "%s: %s", name, msg);
		return -1;
	}
	return load(out, name, in, opts, err);
}

int trace_load_mem(struct trace **out, const char *name, const void *data, size_t len,
		   const struct trace_load_opts *opts, struct fd_error *err)
{
	return load(out, name, input_open_mem(data, len), opts, err);
}
