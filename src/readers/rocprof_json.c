/* rocprof_json.c — rocprofv3's JSON output (`--output-format json`: one
 * {"rocprofiler-sdk-tool": [ {metadata, agents, kernel_symbols, strings, buffer_records, ...}
 * ]} per run) as a trace.
 *
 * Kernels are buffer_records.kernel_dispatch, named through kernel_symbols[kernel_id]
 * (formatted_kernel_name: demangled, without the ".kd" of the code object); the GPU of a
 * dispatch is its agent (agents[]: product name, wavefront size, compute units), numbered as
 * HIP numbers GPUs (logical_node_type_id); queues are the streams. HIP API records, when
 * traced, are the launches (by correlation id), memory copies are copies, and marker_api
 * ranges (roctxRangePush/Pop, texts in strings.marker_api) are annotations.
 *
 * The document is read as a stream on the loader's window (kineto_int.h: loader_unit() and
 * the JSON cursor of json.h), one record at a time: what a run holds is kept as small fixed
 * records (rocprof_run.h: a dispatch is 72 bytes, about a third of its text) and made into the
 * trace when the run ends (rocprof_run.c), in the order the members' meanings need (operation names, agents and symbols
 * before the records that refer to them), whatever order the file writes them in. A member
 * read is the first of its name, as a lookup in a parsed tree finds it; an array's elements
 * or an object's member values are the records; a record that is not an object counts as
 * one with no fields; a number is read as a double and truncated (0 beyond +-9.2e18), as
 * cJSON, which read these files whole before, gave it. Members nobody reads are skipped a
 * token at a time, so that no member needs the window to hold it whole. */
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "kineto_int.h"
#include "rocprof_int.h"
#include "rocprof_run.h"
#include "../trace/trace_build.h"

#define TOOL_KEY "\"rocprofiler-sdk-tool\""

static int rocprof_detect(const unsigned char *head, size_t n)
{
	size_t i = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i >= n || head[i++] != '{')
		return 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	return n - i >= strlen(TOOL_KEY) && memcmp(head + i, TOOL_KEY, strlen(TOOL_KEY)) == 0;
}

/* ---- values, inside a unit -------------------------------------------------------------- */

/* A number as cJSON read it: strtod() of its text, truncated; 0 beyond +-9.2e18. */
static int64_t number_value(struct json_str raw)
{
	double d = json_strtod(raw);

	return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : 0;
}

/* The value at c: a number's value in *out, 0 for anything else (skipped). */
static int val_num(struct json_cur *c, int64_t *out)
{
	int ch = json_peek(c);

	*out = 0;
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		struct json_str raw;
		int rc = json_number(c, &raw);

		if (rc == JSON_OK)
			*out = number_value(raw);
		return rc;
	}
	return json_skip(c);
}

/* The members of the object at c, each given to fn with its key (which parses or skips its
 * value); anything but an object is skipped. */
typedef int (*member_fn)(struct json_cur *c, struct json_str key, void *arg);

static int val_members(struct json_cur *c, struct json_buf *kbuf, member_fn fn, void *arg)
{
	int first = 1, done = 0, rc;

	if (json_peek(c) != '{')
		return json_skip(c);
	if ((rc = json_object_begin(c)))
		return rc;
	for (;;) {
		struct json_str key;

		if ((rc = json_object_next(c, &first, &key, kbuf, &done)) || done)
			return rc;
		if ((rc = fn(c, key, arg)))
			return rc;
	}
}

/* {"handle": N}'s N, or the value itself when it is a number (o[key].handle, or o[key]). */
struct handle_arg {
	int64_t v;
	int seen;
};

static int handle_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct handle_arg *h = arg;

	if (JSON_EQ(key, "handle") && !h->seen) {
		h->seen = 1;
		return val_num(c, &h->v);
	}
	return json_skip(c);
}

static int val_handle(struct json_cur *c, struct json_buf *kbuf, int64_t *out)
{
	struct handle_arg h = { 0, 0 };
	int rc;

	*out = 0;
	if (json_peek(c) != '{')
		return val_num(c, out);
	rc = val_members(c, kbuf, handle_member, &h);
	*out = h.v;
	return rc;
}

/* A string value, borrowed from the window or buf (NULL when not a string: skipped). */
static int val_str(struct json_cur *c, struct json_buf *buf, struct json_str *out)
{
	out->s = NULL;
	out->len = 0;
	if (json_peek(c) != '"')
		return json_skip(c);
	return json_string(c, out, buf);
}

static struct text text_copy(struct json_str s)
{
	struct text t = { NULL, 0 };

	if (s.s) {
		t.s = xmalloc(s.len + 1);
		memcpy(t.s, s.s, s.len);
		t.s[s.len] = '\0';
		t.len = s.len;
	}
	return t;
}

/* ---- records, each one unit ------------------------------------------------------------- */

/* What a record unit needs: its output and the buffers of its decoded strings. */
struct rec_ctx {
	struct run *run;
	struct json_buf kbuf, sbuf[3];
	unsigned seen; /* the record's members found, one bit each */
	union {
		struct agent_rec agent;
		struct symbol_rec sym;
		struct dispatch_rec disp;
		struct copy_rec copy;
		struct hip_rec hip;
		struct marker_rec marker;
	} u;
	struct json_str str[3];
	int64_t key; /* strings.marker_api's key */
};

/* The member key, when it is the first of its name (bit in x->seen). */
static int first_of(struct rec_ctx *x, struct json_str key, const char *name, unsigned bit)
{
	if (strlen(name) != key.len || memcmp(key.s, name, key.len) != 0 || (x->seen & bit))
		return 0;
	x->seen |= bit;
	return 1;
}

struct xyz_arg {
	int32_t *v;
	unsigned seen;
};

static int xyz_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct xyz_arg *a = arg;
	static const char *const names[3] = { "x", "y", "z" };

	for (int i = 0; i < 3; i++)
		if (key.len == 1 && key.s[0] == names[i][0] && !(a->seen & (1u << i))) {
			int64_t v;
			int rc = val_num(c, &v);

			a->seen |= 1u << i;
			a->v[i] = (int32_t)v;
			return rc;
		}
	return json_skip(c);
}

static int val_xyz(struct json_cur *c, struct json_buf *kbuf, int32_t v[3])
{
	struct xyz_arg a = { v, 0 };

	return val_members(c, kbuf, xyz_member, &a);
}

/* correlation_id.internal */
static int corr_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct handle_arg *h = arg;

	if (JSON_EQ(key, "internal") && !h->seen) {
		h->seen = 1;
		return val_num(c, &h->v);
	}
	return json_skip(c);
}

static int val_corr(struct json_cur *c, struct json_buf *kbuf, int64_t *out)
{
	struct handle_arg h = { 0, 0 };
	int rc = val_members(c, kbuf, corr_member, &h);

	*out = h.v;
	return rc;
}

static int info_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct dispatch_rec *d = &x->u.disp;

	if (first_of(x, key, "kernel_id", 1u << 8))
		return val_num(c, &d->kernel_id);
	if (first_of(x, key, "agent_id", 1u << 9))
		return val_handle(c, &x->kbuf, &d->agent);
	if (first_of(x, key, "queue_id", 1u << 10))
		return val_handle(c, &x->kbuf, &d->queue);
	if (first_of(x, key, "grid_size", 1u << 11))
		return val_xyz(c, &x->kbuf, d->grid);
	if (first_of(x, key, "workgroup_size", 1u << 12))
		return val_xyz(c, &x->kbuf, d->wg);
	return json_skip(c);
}

/* The members every buffer record has. */
static int times_member(struct json_cur *c, struct json_str key, struct rec_ctx *x, int64_t *start,
			int64_t *end, int64_t *corr, int *rc)
{
	if (first_of(x, key, "start_timestamp", 1u << 0))
		*rc = val_num(c, start);
	else if (first_of(x, key, "end_timestamp", 1u << 1))
		*rc = val_num(c, end);
	else if (first_of(x, key, "correlation_id", 1u << 2))
		*rc = val_corr(c, &x->kbuf, corr);
	else
		return 0;
	return 1;
}

static int dispatch_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct dispatch_rec *d = &x->u.disp;
	int rc;

	if (times_member(c, key, x, &d->start, &d->end, &d->corr, &rc))
		return rc;
	if (first_of(x, key, "dispatch_info", 1u << 3))
		return val_members(c, &x->kbuf, info_member, x);
	return json_skip(c);
}

static int copy_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct copy_rec *m = &x->u.copy;
	int rc;

	if (times_member(c, key, x, &m->start, &m->end, &m->corr, &rc))
		return rc;
	if (first_of(x, key, "dst_agent_id", 1u << 3))
		return val_handle(c, &x->kbuf, &m->dst);
	if (first_of(x, key, "src_agent_id", 1u << 4))
		return val_handle(c, &x->kbuf, &m->src);
	if (first_of(x, key, "kind", 1u << 5))
		return val_num(c, &m->kind);
	if (first_of(x, key, "operation", 1u << 6))
		return val_num(c, &m->op);
	return json_skip(c);
}

static int hip_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct hip_rec *h = &x->u.hip;
	int rc;

	if (times_member(c, key, x, &h->start, &h->end, &h->corr, &rc))
		return rc;
	if (first_of(x, key, "thread_id", 1u << 3))
		return val_num(c, &h->tid);
	if (first_of(x, key, "kind", 1u << 4))
		return val_num(c, &h->kind);
	if (first_of(x, key, "operation", 1u << 5))
		return val_num(c, &h->op);
	return json_skip(c);
}

static int marker_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct marker_rec *m = &x->u.marker;
	int rc;

	if (times_member(c, key, x, &m->start, &m->end, &m->corr, &rc))
		return rc;
	if (first_of(x, key, "thread_id", 1u << 3))
		return val_num(c, &m->tid);
	return json_skip(c);
}

static int agent_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;
	struct agent_rec *a = &x->u.agent;

	if (first_of(x, key, "id", 1u << 0))
		return val_handle(c, &x->kbuf, &a->handle);
	if (first_of(x, key, "type", 1u << 1))
		return val_num(c, &a->type);
	if (first_of(x, key, "wave_front_size", 1u << 2))
		return val_num(c, &a->wave_front_size);
	if (first_of(x, key, "cu_count", 1u << 3))
		return val_num(c, &a->cu_count);
	if (first_of(x, key, "logical_node_type_id", 1u << 4))
		return val_num(c, &a->node);
	if (first_of(x, key, "product_name", 1u << 5))
		return val_str(c, &x->sbuf[0], &x->str[0]);
	if (first_of(x, key, "name", 1u << 6))
		return val_str(c, &x->sbuf[1], &x->str[1]);
	return json_skip(c);
}

static int symbol_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;

	if (first_of(x, key, "kernel_id", 1u << 0))
		return val_num(c, &x->u.sym.id);
	if (first_of(x, key, "formatted_kernel_name", 1u << 1))
		return val_str(c, &x->sbuf[0], &x->str[0]);
	if (first_of(x, key, "demangled_kernel_name", 1u << 2))
		return val_str(c, &x->sbuf[1], &x->str[1]);
	if (first_of(x, key, "kernel_name", 1u << 3))
		return val_str(c, &x->sbuf[2], &x->str[2]);
	return json_skip(c);
}

static int text_member(struct json_cur *c, struct json_str key, void *arg)
{
	struct rec_ctx *x = arg;

	if (first_of(x, key, "key", 1u << 0))
		return val_num(c, &x->key);
	if (first_of(x, key, "value", 1u << 1))
		return val_str(c, &x->sbuf[0], &x->str[0]);
	return json_skip(c);
}

/* One record of each kind: parsed into x, then kept in the run (only once it parsed whole:
 * a unit that ran out of bytes is parsed again). */
enum rec_kind { REC_AGENT, REC_SYMBOL, REC_DISPATCH, REC_COPY, REC_HIP, REC_MARKER, REC_TEXT };

static const member_fn rec_fns[] = { agent_member, symbol_member, dispatch_member, copy_member,
				     hip_member,   marker_member, text_member };

static int parse_record(struct json_cur *c, struct rec_ctx *x, enum rec_kind kind)
{
	memset(&x->u, 0, sizeof x->u);
	memset(x->str, 0, sizeof x->str);
	x->seen = 0;
	x->key = 0;
	return val_members(c, &x->kbuf, rec_fns[kind], x);
}

static void keep_record(struct rec_ctx *x, enum rec_kind kind)
{
	struct run *r = x->run;

	switch (kind) {
	case REC_AGENT:
		x->u.agent.product_name = text_copy(x->str[0]);
		x->u.agent.name = text_copy(x->str[1]);
		VEC_PUSH(r->agents, r->n_agents, r->cap_agents, x->u.agent);
		break;
	case REC_SYMBOL:
		x->u.sym.formatted = text_copy(x->str[0]);
		x->u.sym.demangled = text_copy(x->str[1]);
		x->u.sym.plain = text_copy(x->str[2]);
		VEC_PUSH(r->syms, r->n_syms, r->cap_syms, x->u.sym);
		break;
	case REC_DISPATCH: VEC_PUSH(r->disp, r->n_disp, r->cap_disp, x->u.disp); break;
	case REC_COPY: VEC_PUSH(r->copies, r->n_copies, r->cap_copies, x->u.copy); break;
	case REC_HIP: VEC_PUSH(r->hip, r->n_hip, r->cap_hip, x->u.hip); break;
	case REC_MARKER: VEC_PUSH(r->markers, r->n_markers, r->cap_markers, x->u.marker); break;
	case REC_TEXT:
		if (x->str[0].s) {
			struct text t = text_copy(x->str[0]);
			struct marker m = { .key = x->key, .text = t.s, .len = t.len };

			VEC_PUSH(r->texts, r->n_texts, r->cap_texts, m);
		}
		break;
	}
}

/* ---- the stream: containers walked a unit at a time ------------------------------------- */

struct rp {
	struct loader *ld;
	struct run run;
	struct rec_ctx x;
	int any; /* a run had buffer_records.kernel_dispatch */
};

/* The first byte of the next value (after blanks), in *(int *)arg; the cursor is left on it. */
static int unit_peek(struct loader *ld, struct json_cur *c, void *arg)
{
	int ch = json_peek(c);

	if (ch < 0)
		return c->at_eof ? json_skip(c) : JSON_MORE; /* json_skip() says what is missing */
	*(int *)arg = ch;
	return JSON_OK;
}

static int unit_open(struct loader *ld, struct json_cur *c, void *arg)
{
	return *(int *)arg == '{' ? json_object_begin(c) : json_array_begin(c);
}

static int unit_skip(struct loader *ld, struct json_cur *c, void *arg)
{
	return json_skip(c);
}

/* The next element of an array, or member of an object (its key, borrowed until the next
 * unit, in key); done at the end. */
struct step {
	int kind; /* '[' or '{' */
	int first, done;
	struct json_str key;
	struct json_buf *kbuf;
};

static int unit_step(struct loader *ld, struct json_cur *c, void *arg)
{
	struct step *s = arg;
	int first = s->first, rc;

	rc = s->kind == '[' ? json_array_next(c, &first, &s->done)
			    : json_object_next(c, &first, &s->key, s->kbuf, &s->done);
	if (rc == JSON_OK)
		s->first = first;
	return rc;
}

/* A value handled by fn (which consumes it with units), called with the value's first byte. */
typedef int (*walk_fn)(struct rp *p, int ch, struct json_str key, void *arg);

static int walk_skip(struct rp *p, int depth);

/* The children of the value next in the stream: an array's elements, an object's member
 * values (with their keys), each given to fn; any other value is skipped. -1 on error. */
static int walk_children(struct rp *p, int depth, walk_fn fn, void *arg)
{
	struct json_buf kbuf = { 0 }, keep = { 0 };
	struct step s = { .first = 1, .kbuf = &kbuf };
	int ch, rc = 0;

	if (loader_unit(p->ld, unit_peek, &ch) < 0)
		return -1;
	if (ch != '[' && ch != '{')
		return loader_unit(p->ld, unit_skip, NULL);
	if (depth >= JSON_MAX_DEPTH) {
		loader_error_at(p->ld, p->ld->off0 + (int64_t)p->ld->pos, "nesting too deep");
		return -1;
	}
	s.kind = ch;
	if (loader_unit(p->ld, unit_open, &ch) < 0)
		return -1;
	for (;;) {
		int vch;

		if (loader_unit(p->ld, unit_step, &s) < 0) {
			rc = -1;
			break;
		}
		if (s.done)
			break;
		if (s.kind == '{') { /* the key, kept past the units that read the value */
			if (keep.cap < s.key.len + 1) {
				keep.cap = s.key.len + 1;
				keep.s = xrealloc(keep.s, keep.cap);
			}
			memcpy(keep.s, s.key.s, s.key.len);
			s.key.s = keep.s;
		}
		if (loader_unit(p->ld, unit_peek, &vch) < 0 || fn(p, vch, s.key, arg) < 0) {
			rc = -1;
			break;
		}
	}
	json_buf_free(&kbuf);
	json_buf_free(&keep);
	return rc;
}

static int skip_child(struct rp *p, int ch, struct json_str key, void *arg)
{
	return walk_skip(p, *(int *)arg);
}

/* Skip the value next in the stream, a container a unit per element. */
static int walk_skip(struct rp *p, int depth)
{
	int ch, next = depth + 1;

	if (loader_unit(p->ld, unit_peek, &ch) < 0)
		return -1;
	if (ch != '[' && ch != '{')
		return loader_unit(p->ld, unit_skip, NULL);
	return walk_children(p, depth, skip_child, &next);
}

/* One record of a run, as a unit. */
struct rec_unit {
	struct rp *p;
	enum rec_kind kind;
};

static int unit_record(struct loader *ld, struct json_cur *c, void *arg)
{
	struct rec_unit *u = arg;
	int rc = parse_record(c, &u->p->x, u->kind);

	if (rc == JSON_OK)
		keep_record(&u->p->x, u->kind);
	return rc;
}

static int record_child(struct rp *p, int ch, struct json_str key, void *arg)
{
	struct rec_unit u = { p, *(enum rec_kind *)arg };

	if (u.kind == REC_MARKER)
		p->run.n_marker_elems++;
	return loader_unit(p->ld, unit_record, &u);
}

/* The records of a member's value (its elements, or its members' values). */
static int walk_records(struct rp *p, enum rec_kind kind)
{
	return walk_children(p, 1, record_child, &kind);
}

/* strings.buffer_records[k].operations[i]: a name, or none (not a string). */
static int unit_operation(struct loader *ld, struct json_cur *c, void *arg)
{
	struct rp *p = arg;
	struct ops *k = &p->run.kinds[p->run.n_kinds - 1];
	struct json_str s;
	int rc = val_str(c, &p->x.sbuf[0], &s);

	if (rc == JSON_OK)
		VEC_PUSH(k->name, k->n, k->cap, text_copy(s));
	return rc;
}

static int operation_child(struct rp *p, int ch, struct json_str key, void *arg)
{
	return loader_unit(p->ld, unit_operation, p);
}

static int kind_member(struct rp *p, int ch, struct json_str key, void *arg)
{
	int *seen = arg;

	if (JSON_EQ(key, "operations") && !*seen) {
		*seen = 1;
		return walk_children(p, 3, operation_child, NULL);
	}
	return walk_skip(p, 3);
}

/* One element of strings.buffer_records: its operations, in a new kind. */
static int kind_child(struct rp *p, int ch, struct json_str key, void *arg)
{
	struct ops none = { NULL, 0, 0 };
	int seen = 0;

	VEC_PUSH(p->run.kinds, p->run.n_kinds, p->run.cap_kinds, none);
	if (ch != '{')
		return walk_skip(p, 2);
	return walk_children(p, 2, kind_member, &seen);
}

static int strings_member(struct rp *p, int ch, struct json_str key, void *arg)
{
	struct run *r = &p->run;

	if (JSON_EQ(key, "buffer_records") && !(r->seen & SEEN_S_BUFFERS)) {
		r->seen |= SEEN_S_BUFFERS;
		return walk_children(p, 2, kind_child, NULL);
	}
	if (JSON_EQ(key, "marker_api") && !(r->seen & SEEN_S_MARKER)) {
		r->seen |= SEEN_S_MARKER;
		return walk_records(p, REC_TEXT);
	}
	return walk_skip(p, 2);
}

static int buffers_member(struct rp *p, int ch, struct json_str key, void *arg)
{
	static const struct {
		const char *name;
		unsigned bit;
		enum rec_kind kind;
	} lists[] = { { "kernel_dispatch", SEEN_DISPATCH, REC_DISPATCH },
		      { "memory_copy", SEEN_COPY, REC_COPY },
		      { "hip_api", SEEN_HIP, REC_HIP },
		      { "marker_api", SEEN_MARKER, REC_MARKER } };
	struct run *r = &p->run;

	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
		if (json_str_eq(key, lists[i].name, strlen(lists[i].name)) &&
		    !(r->seen & lists[i].bit)) {
			r->seen |= lists[i].bit;
			if (lists[i].kind == REC_DISPATCH)
				r->kd_array = ch == '[';
			return walk_records(p, lists[i].kind);
		}
	return walk_skip(p, 2);
}

/* A member of a run: the first of each name that is read; the others are skipped. */
static int run_member(struct rp *p, int ch, struct json_str key, void *arg)
{
	struct run *r = &p->run;

	if (JSON_EQ(key, "agents") && !(r->seen & SEEN_AGENTS)) {
		r->seen |= SEEN_AGENTS;
		return walk_records(p, REC_AGENT);
	}
	if (JSON_EQ(key, "kernel_symbols") && !(r->seen & SEEN_SYMBOLS)) {
		r->seen |= SEEN_SYMBOLS;
		return walk_records(p, REC_SYMBOL);
	}
	if (JSON_EQ(key, "strings") && !(r->seen & SEEN_STRINGS)) {
		r->seen |= SEEN_STRINGS;
		if (ch != '{') /* (an array's elements have no names) */
			return walk_skip(p, 1);
		return walk_children(p, 1, strings_member, NULL);
	}
	if (JSON_EQ(key, "buffer_records") && !(r->seen & SEEN_BUFFERS)) {
		r->seen |= SEEN_BUFFERS;
		if (ch != '{')
			return walk_skip(p, 1);
		return walk_children(p, 1, buffers_member, NULL);
	}
	return walk_skip(p, 1);
}

/* One run: an element of rocprofiler-sdk-tool (an object; anything else holds nothing). */
static int run_child(struct rp *p, int ch, struct json_str key, void *arg)
{
	int rc;

	if (ch != '{')
		return walk_skip(p, 1);
	rc = walk_children(p, 1, run_member, NULL);
	if (rc == 0)
		p->any |= rocprof_run_make(p->ld->t, &p->run);
	rocprof_run_free(&p->run);
	return rc;
}

/* A member of the document: the runs (the first rocprofiler-sdk-tool), or skipped. */
static int doc_member(struct rp *p, int ch, struct json_str key, void *arg)
{
	int *seen = arg;

	if (JSON_EQ(key, "rocprofiler-sdk-tool") && !*seen) {
		*seen = 1;
		return walk_children(p, 1, run_child, NULL);
	}
	return walk_skip(p, 1);
}

/* What follows the document is not read as JSON (as before), only counted: the window's
 * bytes consumed, then more read. */
static int unit_rest(struct loader *ld, struct json_cur *c, void *arg)
{
	if (c->p == c->end && !c->at_eof)
		return JSON_MORE;
	c->p = c->end;
	return JSON_OK;
}

static int rocprof_load(struct trace *t, struct input *in, const char *name,
			const struct trace_load_opts *opts, struct fd_error *err)
{
	struct loader ld = { 0 };
	struct rp p = { .ld = &ld };
	int seen = 0, rc;

	loader_start(&ld, t, in, name, opts, err);
	ld.what = "a rocprofv3 JSON file";
	p.x.run = &p.run;
	t->platform = PLATFORM_AMD;
	t->platform_reason = "the rocprofiler-sdk agents";
	rc = walk_children(&p, 0, doc_member, &seen);
	while (rc == 0 && !(ld.eof && ld.pos == ld.len)) /* the bytes after it: read, not parsed */
		rc = loader_unit(&ld, unit_rest, NULL);
	json_buf_free(&p.x.kbuf);
	for (int i = 0; i < 3; i++)
		json_buf_free(&p.x.sbuf[i]);
	rocprof_run_free(&p.run);
	loader_bufs_free(&ld);
	if (rc < 0)
		return -1;
	if (!p.any) {
		fd_error_set(err,
			     "%s: a rocprofv3 JSON file without buffer_records.kernel_dispatch "
			     "(record it with rocprofv3 --kernel-trace)",
			     name);
		return -1;
	}
	return 0;
}

const struct trace_format trace_format_rocprof_json = {
	.name = "rocprofv3 JSON",
	.detect = rocprof_detect,
	.load = rocprof_load,
};
