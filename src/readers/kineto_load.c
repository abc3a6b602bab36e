/* kineto_load.c — the streaming loader of PyTorch-profiler (Kineto) Chrome-trace JSON.
 *
 * The input is read in large chunks into a window. The parser works on one unit at a time
 * (the start of the document, one top-level key, one event) with the restartable cursor of
 * json.h: when a unit runs past the bytes read so far, more are read and the unit is parsed
 * again from its start. A unit commits its result only when it parsed completely, so a restart
 * never duplicates anything. Only deviceProperties and distributedInfo, which are small, are
 * handed to cJSON. One event is parsed by kineto_event.c; traceEvents is read, on one core or
 * both, by kineto_chunks.c. */
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
#include "../trace/trace_build.h"
#include "formats.h"
#include "kineto_int.h"

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
void loader_drop_consumed(struct loader *ld)
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

	loader_drop_consumed(ld);
	if (ld->part && loader_part_cancelled(ld)) {
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
void loader_error_at(struct loader *ld, int64_t off, const char *msg)
{
	int64_t lines = ld->lines0, line_start = ld->line_start;

	if (ld->lines_later)
		lines_later(ld, off, &lines, &line_start);
	else
		count_lines(ld->buf, (size_t)(off - ld->off0), ld->off0, &lines, &line_start);
	fd_error_set(ld->err, "%s: line %lld, column %lld: %s%s%s%s", ld->name,
		     (long long)(lines + 1), (long long)(off - line_start + 1), msg,
		     ld->what ? " (" : "", ld->what ? ld->what : "", ld->what ? ")" : "");
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
	loader_error_at(ld, off, msg);
}

/* A unit that ran out of bytes while the window from its start holds nothing but blanks
 * (spaces and newlines between tokens): they are consumed, so that the window does not grow to
 * hold them (a gzip file of a few MB can inflate to GBs of blanks). */
static void skip_blank_window(struct loader *ld)
{
	size_t i = ld->pos;

	if (ld->len - ld->pos < (64 << 10))
		return;
	while (i < ld->len && (ld->buf[i] == ' ' || ld->buf[i] == '\n' || ld->buf[i] == '\r' ||
			       ld->buf[i] == '\t'))
		i++;
	if (i == ld->len)
		ld->pos = i;
}

/* Parse one unit, reading more input and restarting it until it fits. */
int loader_unit(struct loader *ld, unit_fn fn, void *arg)
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
		skip_blank_window(ld);
		if (fill(ld) < 0)
			return -1;
	}
}

/* The loader's buffers and remembered state, freed (each NULL after, so that a loader may be
 * freed twice). */
void loader_bufs_free(struct loader *ld)
{
	json_buf_free(&ld->kbuf);
	json_buf_free(&ld->nbuf);
	json_buf_free(&ld->cbuf);
	json_buf_free(&ld->abuf);
	json_buf_free(&ld->lbuf);
	free(ld->seen);
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

	if (loader_unit(ld, unit_begin, &open) < 0) {
		if (!open && ld->eof && !ld->err->msg[0]) {
			fd_error_set(ld->err, "%s: empty file", ld->name);
		}
		return -1;
	}
	if (open == '[') {
		/* A bare array of events, as the Chrome trace format also allows. */
		ld->pos--;
		if (loader_unit(ld, unit_array_begin, NULL) < 0 || loader_read_events(ld) < 0)
			return -1;
	} else {
		struct top_key k = { .first = 1 };

		for (;;) {
			int rc;

			if (loader_unit(ld, unit_key, &k) < 0)
				return -1;
			if (k.done)
				break;
			if (strcmp(k.name, "traceEvents") == 0) {
				if (ld->saw_events) {
					json_error(ld, ld->buf + ld->pos,
						   "a second \"traceEvents\" array");
					return -1;
				}
				rc = loader_unit(ld, unit_array_begin, NULL);
				if (rc == 0)
					rc = loader_read_events(ld);
			} else if (strcmp(k.name, "deviceProperties") == 0 ||
				   strcmp(k.name, "distributedInfo") == 0) {
				rc = loader_unit(ld, unit_cjson, k.name);
			} else if (k.len < sizeof k.name - 1) {
				rc = loader_unit(ld, unit_meta, k.name);
			} else {
				rc = loader_unit(ld, unit_skip, NULL);
			}
			if (rc < 0)
				return -1;
		}
	}
	if (loader_unit(ld, unit_trailer, NULL) < 0)
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

void loader_start(struct loader *ld, struct trace *t, struct input *in, const char *name,
		  const struct trace_load_opts *opts, struct fd_error *err)
{
	ld->name = name;
	ld->in = in;
	ld->cap = WINDOW_INITIAL;
	ld->buf = xmalloc(ld->cap);
	ld->opts = opts;
	ld->err = err;
	ld->t = t;
	ld->lines_later = input_split_size(in) >= 0;
}

static int kineto_load(struct trace *t, struct input *in, const char *name,
		       const struct trace_load_opts *opts, struct fd_error *err)
{
	struct loader ld = { 0 };
	int rc;

	loader_start(&ld, t, in, name, opts, err);
	ld.cat_none = intern_add(t->strings, "(none)", 6);
	ld.no_memo = opts && opts->tuning.no_memo;

	rc = parse_document(&ld);
	loader_pool_free(&ld);
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
