/* kineto_event.c — one element of traceEvents: its category decides what is kept (kernels,
 * copies, launches, operators that launched work, annotation ranges, module names of Python
 * functions), the rest is only counted. The fields are read in one pass over the object
 * without building a tree; args are parsed only for the kinds that need them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fusediff/json.h"
#include "fusediff/trace.h"
#include "../trace/trace_build.h"
#include "key_pred.h"
#include "kineto_int.h"

_Static_assert(CAT_CACHE + 1 <= KEY_CAT_CONTEXTS, "a key context for each remembered category");

/* Times kept, in ns: ts in [-2^60, 2^62] (epoch microseconds reach 2^62 ns in the year 2116),
 * dur in [0, 2^60] (36 years). Then every start relative to the trace start, plus its
 * duration, is at most TRACE_TIME_MAX. Events outside are counted as unreadable. */
#define LOAD_TS_MIN  (-(INT64_C(1) << 60))
#define LOAD_TS_MAX  (INT64_C(1) << 62)
#define LOAD_DUR_MAX (INT64_C(1) << 60)

struct event {
	struct json_str cat, name;
	int has_cat, has_ts, has_dur;
	int64_t ts, dur;
	int64_t pid, tid;
	const char *args, *args_end; /* raw slice of args, when present */
	/* from args */
	int64_t correlation, external_id, device, stream, seq;
	int has_seq;
	struct json_str kernel; /* a launch's args.kernel (graph captures record it) */
	int32_t grid[3], block[3];
	struct json_str dims;			    /* raw Input Dims */
	struct json_str types;			    /* raw Input type */
	struct json_str concrete;		    /* raw Concrete Inputs */
	uint32_t dims_raw, types_raw, concrete_raw; /* their ids in ld->raw_dims, or NO_RAW */
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
	if (json_short_uint(c, out))
		return JSON_OK;
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
	} else if (json_short_us_to_ns(c, out)) {
		return JSON_OK;
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

/* memcmp(a, b, len) == 0 for a remembered text b (max(len, 16) bytes readable) and window bytes a
 * (32 readable): sixteen bytes a compare, inline, where a library call per container cost
 * as much as the compare itself. */
static inline int same_text(const char *a, const char *b, size_t len)
{
#ifdef __SSE2__
	size_t i = 0;

	if (len < 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(
				 _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)a),
						_mm_loadu_si128((const __m128i *)(const void *)b))),
			 want = (1u << len) - 1;

		return (m & want) == want;
	}
	for (; i + 16 <= len; i += 16)
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(
			    _mm_loadu_si128((const __m128i *)(const void *)(a + i)),
			    _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) != 0xffff)
			return 0;
	return i == len ||
	       _mm_movemask_epi8(_mm_cmpeq_epi8(
		       _mm_loadu_si128((const __m128i *)(const void *)(a + len - 16)),
		       _mm_loadu_si128((const __m128i *)(const void *)(b + len - 16)))) == 0xffff;
#else
	return memcmp(a, b, len) == 0;
#endif
}

static int parse_dim3(struct json_cur *c, int32_t v[3], int *bad, struct json_buf *buf, int *n)
{
	int first = 1, done, rc;

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
		if (*n < 3)
			v[(*n)++] = x > INT32_MAX ? INT32_MAX : x < 0 ? 0 : (int32_t)x;
	}
}

/* A grid or a block, its text looked up first among the last few met (ld->dim3s[which]):
 * they repeat, and the text decides the values. */
static int grid_or_block(struct loader *ld, struct json_cur *c, int which, int32_t v[3], int *bad)
{
	struct dim3_seen *d = ld->dim3s[which];
	const char *s = c->p;
	int32_t got[3] = { 0, 0, 0 };
	int n = 0, was_bad = *bad, rc;
	size_t len;

	if (c->end - s >= 64)
		for (int w = 0; w < DIM3_WAYS; w++)
			if (d[w].len && same_text(s, d[w].text, d[w].len)) {
				c->p = s + d[w].len;
				memcpy(v, d[w].v, (size_t)d[w].n * sizeof *v);
				return JSON_OK;
			}
	if ((rc = parse_dim3(c, got, bad, &ld->abuf, &n)))
		return rc;
	memcpy(v, got, (size_t)n * sizeof *v);
	len = (size_t)(c->p - s);
	if (len <= DIM3_TEXT && *bad == was_bad && *s == '[' && !ld->no_memo) {
		memmove(d + 1, d, (DIM3_WAYS - 1) * sizeof *d); /* the newest first */
		memcpy(d->text, s, len);
		d->len = (uint8_t)len;
		d->n = (uint8_t)n;
		memcpy(d->v, got, sizeof got);
	}
	return JSON_OK;
}

/* json_skip(), with the usual scalars inline: a short plain number, a short string without
 * escapes (its closing quote within 16 bytes, no backslash or NUL before it). Anything else,
 * blanks before the value included, goes to json_skip(), which validates it the same way. */
static inline int skip_value(struct json_cur *c)
{
	const char *p = c->p;
	int64_t v;

	if (c->end - p >= 32) {
#ifdef __SSE2__
		if (*p == '"') {
			int n = json_plain_string16(p + 1);

			if (n < 0)
				return json_skip(c);
			c->p = p + 2 + n;
			return JSON_OK;
		}
#endif
		if (json_short_us_to_ns(c, &v))
			return JSON_OK;
	}
	return json_skip(c);
}

/* ---- containers seen before ------------------------------------------------------------
 *
 * The arrays in the args of operators (Input Dims, Input Strides, Input type, Concrete Inputs)
 * take a few hundred distinct texts in a trace of a million. The bytes of a container decide
 * where it ends and whether it is valid, so text that json_skip() accepted once, met again
 * byte for byte, is accepted again and ends at the same byte: it is found by a memcmp()
 * instead of being walked. The texts are remembered in a small set-associative table, by a
 * hash of the first 32 bytes from the container's first (those after a short one included:
 * only a locator, the memcmp() decides). */
#define SEEN_SETS 512
#define SEEN_WAYS 4
#define SEEN_MAX  160 /* longer texts are not remembered */

#define NO_RAW UINT32_MAX

struct seen_values {
	uint16_t len[SEEN_SETS][SEEN_WAYS]; /* 0: empty */
	uint32_t raw[SEEN_SETS][SEEN_WAYS]; /* the text's id in ld->raw_dims, once it has one;
					       NO_RAW before */
	uint8_t next[SEEN_SETS];	    /* the way replaced next */
	char text[SEEN_SETS][SEEN_WAYS][SEEN_MAX];
};

static inline unsigned seen_set(const char *p)
{
	uint64_t a, b, c, d;

	memcpy(&a, p, 8);
	memcpy(&b, p + 8, 8);
	memcpy(&c, p + 16, 8);
	memcpy(&d, p + 24, 8);
	return (unsigned)(((a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full) ^
			   (c * 0x165667b19e3779f9ull) ^ (d * 0xd6e8feb86659fd93ull)) >>
			  40) &
	       (SEEN_SETS - 1);
}

/* The id of raw (Input Dims as written) in ld->raw_dims, which remembers every such text met. */
static uint32_t raw_dims_add(struct loader *ld, struct json_str raw)
{
	uint32_t id;

	if (!ld->raw_dims)
		ld->raw_dims = intern_new();
	id = intern_add(ld->raw_dims, raw.s, raw.len);
	if (id >= ld->raw_dims_cap) {
		size_t cap = ld->raw_dims_cap ? 2 * ld->raw_dims_cap : 1024;

		while (cap <= id)
			cap *= 2;
		ld->raw_dims_id = xreallocarray(ld->raw_dims_id, cap, sizeof *ld->raw_dims_id);
		for (size_t i = ld->raw_dims_cap; i < cap; i++)
			ld->raw_dims_id[i] = NO_RAW; /* not compacted yet */
		ld->raw_dims_cap = cap;
	}
	return id;
}

/* json_skip(), for a container first looked up among those seen before. With raw (Input Dims
 * and the like), also the text's id in ld->raw_dims (NO_RAW when it is not a container or too
 * long to remember): a text seen before has it already, without hashing it again. */
static int skip_seen(struct loader *ld, struct json_cur *c, uint32_t *raw)
{
	struct seen_values *sv = ld->seen;
	int ch = json_peek(c), rc;
	const char *s = c->p;
	unsigned set, w;
	size_t len;

	if (raw)
		*raw = NO_RAW;
	if (ch != '[' && ch != '{')
		return skip_value(c);
	if (c->end - s < 32)
		return json_skip(c);
	set = seen_set(s);
	if (sv)
		for (w = 0; w < SEEN_WAYS; w++) {
			len = sv->len[set][w];
			if (len && len <= (size_t)(c->end - s) &&
			    same_text(s, sv->text[set][w], len)) {
				c->p = s + len;
				goto found;
			}
		}
	if ((rc = json_skip(c)))
		return rc;
	len = (size_t)(c->p - s);
	if (len > SEEN_MAX || ld->no_memo)
		return JSON_OK;
	if (!sv)
		sv = ld->seen = xcalloc(1, sizeof *sv);
	w = sv->next[set]++ % SEEN_WAYS;
	sv->len[set][w] = (uint16_t)len;
	sv->raw[set][w] = NO_RAW;
	memcpy(sv->text[set][w], s, len);
found:
	if (raw) {
		if (sv->raw[set][w] == NO_RAW)
			sv->raw[set][w] = raw_dims_add(ld, (struct json_str){ s, len });
		*raw = sv->raw[set][w];
	}
	return JSON_OK;
}

/* args of an event of category context cctx (key_pred.h: the args' layout is the category's). */
static int parse_args(struct json_cur *c, struct event *ev, enum ev_kind kind, struct loader *ld,
		      unsigned cctx)
{
	int first = 1, done, rc, kid = KEY_OTHER;
	unsigned state = KEY_START;

	if (json_peek(c) != '{')
		return json_skip(c);
	if ((rc = json_object_begin(c)))
		return rc;
	for (;;) {
		if ((rc = key_next(ld->kp, KEY_CAT_CONTEXTS + cctx, c, &first, &state, &kid,
				   &ld->kbuf, &done)))
			return rc;
		if (done)
			return JSON_OK;
		switch (kid) {
		case KEY_EXTERNAL_ID:
			rc = parse_int(c, &ev->external_id, &ev->bad_number, &ld->abuf);
			break;
		case KEY_CORRELATION:
			rc = parse_int(c, &ev->correlation, &ev->bad_number, &ld->abuf);
			break;
		case KEY_SEQUENCE:
			if (kind != EV_CPU_OP)
				goto other;
			rc = parse_int(c, &ev->seq, &ev->bad_number, &ld->abuf);
			ev->has_seq = 1;
			break;
		case KEY_DEVICE:
		case KEY_STREAM:
			if (kind > EV_MEMSET)
				goto other;
			rc = parse_int(c, kid == KEY_DEVICE ? &ev->device : &ev->stream,
				       &ev->bad_number, &ld->abuf);
			break;
		case KEY_GRID:
		case KEY_BLOCK:
			if (kind != EV_KERNEL && kind != EV_LAUNCH)
				goto other;
			rc = grid_or_block(ld, c, kid == KEY_BLOCK,
					   kid == KEY_GRID ? ev->grid : ev->block, &ev->bad_number);
			break;
		case KEY_KERNEL:
			if (kind != EV_LAUNCH || json_peek(c) != '"')
				goto other;
			rc = json_string(c, &ev->kernel, &ld->lbuf);
			break;
		case KEY_INPUT_DIMS:
		case KEY_INPUT_TYPE:
		case KEY_CONCRETE_INPUTS: {
			int d = kid == KEY_INPUT_DIMS, ty = kid == KEY_INPUT_TYPE;
			struct json_str *raw = d ? &ev->dims : ty ? &ev->types : &ev->concrete;
			uint32_t *id = d ? &ev->dims_raw : ty ? &ev->types_raw : &ev->concrete_raw;
			const char *s = c->p;

			if (kind != EV_CPU_OP)
				goto other;
			if ((rc = skip_seen(ld, c, id)))
				return rc;
			raw->s = s;
			raw->len = (size_t)(c->p - s);
			break;
		}
		default:
		other: /* numbers and strings inline, containers looked up among those seen */
			rc = c->p < c->end && *c->p != '[' && *c->p != '{' ? skip_value(c)
									   : skip_seen(ld, c, NULL);
		}
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
	e->qlen = 0;
	if (cat.len + 2 <= sizeof e->quoted && !ld->no_memo) {
		e->quoted[0] = '"';
		memcpy(e->quoted + 1, cat.s, cat.len);
		e->quoted[cat.len + 1] = '"';
		e->qlen = (unsigned char)(cat.len + 2);
	}
	return e;
}

/* The remembered category whose value is the string at p (32 bytes readable), written plain as
 * when it was met (no escapes: the bytes are the text, quotes included); NULL when none. */
static const struct cat_cache *cat_written(const struct loader *ld, const char *p)
{
	for (unsigned i = 0; i < CAT_CACHE; i++) {
		const struct cat_cache *e = &ld->cats[i];

		if (e->qlen && same_text(p, e->quoted, e->qlen))
			return e;
	}
	return NULL;
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

/* Copy Input Dims (Input type, Concrete Inputs) without whitespace outside strings, interned;
 * text seen before (as written) is found by its id in ld->raw_dims instead (raw: that id, or
 * NO_RAW when the parse did not find it). */
static uint32_t intern_dims(struct loader *ld, struct json_str dims, uint32_t raw)
{
	struct json_buf *b = &ld->abuf;
	int in_str = 0;
	size_t i = 0;
	uint32_t id;

	if (!dims.len)
		return 0;
	if (raw == NO_RAW)
		raw = raw_dims_add(ld, dims);
	if (ld->raw_dims_id[raw] != NO_RAW)
		return ld->raw_dims_id[raw];
	if (b->cap < dims.len + 16) { /* room for a 16-byte store at any output position */
		b->s = xrealloc(b->s, dims.len + 16);
		b->cap = dims.len + 16;
	}
	b->len = 0;
#ifdef __SSE2__
	/* Sixteen bytes at a time: the bytes before the next quote (or blank, outside strings)
	 * are copied by one store, that byte on its own as below. */
	while (i + 16 <= dims.len) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(dims.s + i));
		unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')));
		unsigned m = q;
		char ch;

		if (!in_str)
			m |= (unsigned)_mm_movemask_epi8(
				_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')),
							  _mm_cmpeq_epi8(w, _mm_set1_epi8('\n'))),
					     _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('\r')),
							  _mm_cmpeq_epi8(w, _mm_set1_epi8('\t')))));
		_mm_storeu_si128((__m128i *)(void *)(b->s + b->len), w);
		if (!m) {
			b->len += 16;
			i += 16;
			continue;
		}
		b->len += (unsigned)__builtin_ctz(m);
		i += (unsigned)__builtin_ctz(m);
		ch = dims.s[i];
		if (ch == '"' && (i == 0 || dims.s[i - 1] != '\\'))
			in_str = !in_str;
		if (in_str || ch == '"')
			b->s[b->len++] = ch;
		i++;
	}
#endif
	for (; i < dims.len; i++) {
		char ch = dims.s[i];

		if (ch == '"' && (i == 0 || dims.s[i - 1] != '\\'))
			in_str = !in_str;
		if (!in_str && (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'))
			continue;
		b->s[b->len++] = ch;
	}
	id = intern_add(ld->t->strings, b->s, b->len);
	ld->raw_dims_id[raw] = id;
	return id;
}

#define BACKWARD_OP   "autograd::engine::evaluate_function: "
#define PROFILER_STEP "ProfilerStep#"

/* A backward node's own operator ("MulBackward0", "autograd::..."): numbered like the forward
 * op it differentiates, but not a forward op. */
static int backward_node(struct json_str name)
{
	for (size_t i = 0; i + 8 <= name.len; i++)
		if (memcmp(name.s + i, "Backward", 8) == 0)
			return 1;
	return name.len >= 10 && memcmp(name.s, "autograd::", 10) == 0;
}

/* intern_add() of an event's name, by way of the names met before: a trace has a few hundred
 * distinct names in a million events, and most names are found here by their length and five
 * of their words, then one compare, without hashing the whole name (kernel names run to
 * kilobytes). Names of one length often differ in a few bytes only (template arguments): a
 * set holds four. */
static uint32_t intern_name(struct loader *ld, struct json_str name)
{
	uint64_t h = name.len * 0x9e3779b97f4a7c15ull, w = 0;
	struct name_seen *set;

	if (ld->no_memo)
		return intern_add(ld->t->strings, name.s, name.len);
	if (name.len >= 8) {
		for (int i = 0; i < 4; i++) {
			memcpy(&w, name.s + (name.len - 8) * (size_t)i / 4, 8);
			h = (h ^ w) * 0xff51afd7ed558ccdull;
		}
		memcpy(&w, name.s + name.len - 8, 8);
	} else {
		memcpy(&w, name.s, name.len);
	}
	h = (h ^ w) * 0xc2b2ae3d27d4eb4full;
	set = ld->names[(h >> 40) & (NAMES_SETS - 1)];
	for (int i = 0; i < NAMES_WAYS; i++)
		if (set[i].s && set[i].len == name.len && memcmp(set[i].s, name.s, name.len) == 0)
			return set[i].id;
	memmove(set + 1, set, (NAMES_WAYS - 1) * sizeof *set); /* the newest first */
	set->id = intern_add(ld->t->strings, name.s, name.len);
	set->s = intern_str(ld->t->strings, set->id);
	set->len = name.len;
	return set->id;
}

/* The range of event ev (its times, ids and thread), named name, of kind. */
static void add_range(struct trace *t, const struct event *ev, uint32_t name, int64_t seq,
		      enum range_kind kind)
{
	struct trace_range r = { .start = ev->ts,
				 .dur = ev->dur,
				 .external_id = ev->external_id,
				 .seq = seq,
				 .pid = ev->pid,
				 .tid = ev->tid,
				 .name = name,
				 .kind = kind };

	trace_add_range(t, &r);
}

static void commit(struct loader *ld, struct event *ev, enum ev_kind kind)
{
	struct trace *t = ld->t;
	uint32_t name;

	if (ev->bad_number)
		ld->bad_number++;
	if (!ev->has_ts || ev->bad_time ||
	    (kind != EV_LAUNCH && kind != EV_CPU_OP && !ev->has_dur) || ev->dur < 0 ||
	    ev->dur > LOAD_DUR_MAX || ev->ts < LOAD_TS_MIN || ev->ts > LOAD_TS_MAX) {
		ld->bad_time++;
		ld->bad_kernels += kind == EV_KERNEL;
		return;
	}
	name = intern_name(ld, ev->name);
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
			.device = trace_device_id(ev->device),
			.stream = ev->stream > INT32_MAX || ev->stream < INT32_MIN
					  ? -1
					  : (int32_t)ev->stream,
			.kind = kind == EV_KERNEL   ? KIND_KERNEL
				: kind == EV_MEMCPY ? KIND_MEMCPY
						    : KIND_MEMSET,
		};
		k.dims = trace_add_dims(ld->t, ev->grid, ev->block);
		trace_add_kernel(t, &k);
		break;
	}
	case EV_LAUNCH: {
		struct trace_launch l = { ev->ts,	   ev->dur, ev->correlation,
					  ev->external_id, ev->tid, name };

		if (ev->kernel.len) { /* a graph capture's launch names the kernel it records */
			l.kernel = intern_name(ld, ev->kernel);
			l.dims = trace_add_dims(ld->t, ev->grid, ev->block);
		}
		if (ev->correlation)
			trace_add_launch(t, &l);
		break;
	}
	case EV_CPU_OP: {
		struct trace_op o = { .start = ev->ts,
				      .dur = ev->dur,
				      .external_id = ev->external_id,
				      .tid = ev->tid,
				      .name = name,
				      .input_dims = intern_dims(ld, ev->dims, ev->dims_raw),
				      .input_types = intern_dims(ld, ev->types, ev->types_raw),
				      .concrete = intern_dims(ld, ev->concrete, ev->concrete_raw) };

		trace_stash_op(t, &o);
		/* autograd runs one backward node in each of these: the kernels launched inside
		 * are the backward pass, the gradient of the forward op of the same number */
		if (ev->name.len > sizeof BACKWARD_OP - 1 &&
		    memcmp(ev->name.s, BACKWARD_OP, sizeof BACKWARD_OP - 1) == 0) {
			add_range(t, ev, name, ev->has_seq ? ev->seq : -1, RANGE_BACKWARD);
		} else if (ev->has_seq && !backward_node(ev->name)) {
			struct trace_fwd_op f = { ev->seq, ev->ts, ev->tid };

			trace_add_fwd_op(t, &f);
		} else if (ev->name.len > sizeof PROFILER_STEP - 1 &&
			   memcmp(ev->name.s, PROFILER_STEP, sizeof PROFILER_STEP - 1) == 0) {
			/* PyTorch 1.x records the profiler's steps as operators (category
			 * "Operator"): they are the same ranges as a user_annotation's */
			add_range(t, ev, name, -1, RANGE_USER);
		}
		break;
	}
	case EV_USER_ANN:
	case EV_GPU_ANN:
	case EV_PYTHON:
		add_range(t, ev, name, -1,
			  kind == EV_USER_ANN  ? RANGE_USER
			  : kind == EV_GPU_ANN ? RANGE_GPU_USER
					       : RANGE_MODULE);
		break;
	default: break;
	}
}

/* One element of traceEvents, with the separator before it. */
int trace_load_event(struct loader *ld, struct json_cur *c, void *arg)
{
	int *first = arg, f = *first, done, rc, ok_ts = 1, ok_dur = 1;
	struct event ev;
	unsigned state = KEY_START, cctx = 0; /* the category's context: 0 before it is known */
	enum ev_kind kind = EV_OTHER;
	int kind_known = 0, has_name = 0, drop = 0;
	const struct cat_cache *ce = NULL; /* the category's entry, when kind_known */

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
	ev.dims_raw = ev.types_raw = ev.concrete_raw = NO_RAW;
	if (!ld->kp) {
		ld->kp = xcalloc(1, sizeof *ld->kp);
		ld->kp->off = ld->no_memo;
	}
	if ((rc = json_object_begin(c)))
		return rc;
	for (int kf = 1, kid = KEY_OTHER;;) {
		if ((rc = key_next(ld->kp, cctx, c, &kf, &state, &kid, &ld->kbuf, &done)))
			return rc;
		if (done)
			break;
		/* Once cat and name say the event is not kept, its other members are only
		 * validated as the parse below would: strings of ts, dur, pid and tid decoded,
		 * everything else skipped (numbers not converted, args not looked into). */
		if (drop && kid != KEY_CAT && kid != KEY_NAME) {
			if ((kid == KEY_TS || kid == KEY_DUR || kid == KEY_PID || kid == KEY_TID) &&
			    json_peek(c) == '"') {
				struct json_str v;

				rc = json_string(c, &v, &ld->abuf);
			} else {
				rc = skip_value(c);
			}
			goto next;
		}
		switch (kid) {
		case KEY_TS:
			ev.has_ts = 1;
			rc = parse_time(c, &ev.ts, &ok_ts, &ld->abuf);
			goto next;
		case KEY_CAT:
			if (c->end - c->p >= 32 && *c->p == '"' && (ce = cat_written(ld, c->p))) {
				ev.cat = (struct json_str){ c->p + 1, ce->len };
				ev.has_cat = 1;
				c->p += ce->len + 2;
				kind = ce->kind;
				kind_known = 1;
				cctx = 1 + (unsigned)(ce - ld->cats);
				rc = JSON_OK;
				goto known;
			}
			if (json_peek(c) == '"') {
				rc = json_string(c, &ev.cat, &ld->cbuf);
				ev.has_cat = rc == JSON_OK;
			} else {
				rc = skip_value(c);
			}
			kind_known = 0;
			goto known;
		case KEY_DUR:
			ev.has_dur = 1;
			rc = parse_time(c, &ev.dur, &ok_dur, &ld->abuf);
			goto next;
		case KEY_PID: rc = parse_int(c, &ev.pid, &ev.bad_number, &ld->abuf); goto next;
		case KEY_TID: rc = parse_int(c, &ev.tid, &ev.bad_number, &ld->abuf); goto next;
		case KEY_NAME:
			if (json_peek(c) == '"')
				rc = json_string(c, &ev.name, &ld->nbuf);
			else
				rc = skip_value(c);
			has_name = 1;
			goto known;
		case KEY_ARGS: {
			const char *s = c->p;

			/* a cat before it was looked up when read (known: below) */
			if (kind_known && kind != EV_OTHER && kind != EV_PYTHON) {
				rc = parse_args(c, &ev, kind, ld, cctx);
				ev.args = NULL;
			} else {
				rc = skip_value(c);
				ev.args = s;
				ev.args_end = c->p;
			}
			goto next;
		}
		default: break;
		}
		rc = skip_value(c);
	next:
		if (rc)
			return rc;
		continue;
	known: /* after cat or name: is the event kept? */
		if (rc)
			return rc;
		if (ev.has_cat && !kind_known) { /* the cat just read */
			ce = cat_lookup(ld, ev.cat);
			kind = ce->kind;
			kind_known = 1;
			cctx = 1 + (unsigned)(ce - ld->cats);
		}
		drop = kind_known && has_name && !kept(kind, ev.name);
	}
	/* The event parsed completely: from here on nothing can ask for a restart. */
	*first = 0;
	ld->t->n_events++;
	if (kind_known && ev.has_cat) { /* looked up already (and cat has not changed since) */
		trace_count_category(ld->t, ce->id);
		kind = ce->kind;
	} else {
		kind = category(ld, &ev);
	}
	if (!kept(kind, ev.name))
		return JSON_OK;
	if (ev.args) {
		struct json_cur a = { ev.args, ev.args_end, 1, NULL, NULL };

		/* json_skip() validated the structure but not the escapes in strings. */
		if (parse_args(&a, &ev, kind, ld, 0) != JSON_OK) {
			c->err_at = a.err_at;
			c->err_msg = a.err_msg;
			return JSON_ERR;
		}
	}
	ev.bad_time = !ok_ts || !ok_dur;
	commit(ld, &ev, kind);
	return JSON_OK;
}

void loader_memo_keep(struct loader *ld, struct loader_memo *m)
{
	loader_memo_free(m);
	m->seen = ld->seen;
	m->kp = ld->kp;
	ld->seen = NULL;
	ld->kp = NULL;
}

void loader_memo_reuse(struct loader *ld, struct loader_memo *m)
{
	if (m->seen && !ld->seen) {
		memset(m->seen, 0, sizeof *m->seen); /* as xcalloc() left it */
		ld->seen = m->seen;
		m->seen = NULL;
	}
	if (m->kp && !ld->kp) {
		memset(m->kp, 0, sizeof *m->kp);
		m->kp->off = ld->no_memo;
		ld->kp = m->kp;
		m->kp = NULL;
	}
}

void loader_memo_free(struct loader_memo *m)
{
	free(m->seen);
	free(m->kp);
	m->seen = NULL;
	m->kp = NULL;
}
