/* report_perfetto.c — the comparison as one Chrome Trace Event Format file that Perfetto and
 * chrome://tracing open (fusediff(1), REPORT FORMATS: perfetto).
 *
 * The JSON object form: {"displayTimeUnit", "traceEvents", "otherData" (the provenance)}.
 * Process 1 is side A, process 2 side B (sort indices put A above B). Each has a track of
 * passes and layers (the side's summary slice holds its pass slices, which hold their layer
 * slices; a layer that starts before the one before it ends is drawn from that end), tracks
 * of fusion differences (a place that overlaps another goes to a second one), and a track per
 * stream with a slice ("X") per kernel, copy and memset of the compared passes (a kernel that
 * overlaps the one before, by programmatic dependent launch, goes to a second track of the
 * stream). B's tracks come in the reverse order, so that the two sides' kernels meet in the
 * middle. The compared passes are laid out one after the other, pass k of A beside pass k of
 * B, each starting at the same time (--align layers: each layer too). A flow arrow ("s" and
 * "f" events, bound to the kernel slices) joins each kernel to its counterpart in the same pass
 * of the other side: for a pair whose sides run m and n kernels in a pass, max(m, n) arrows,
 * the kernels of the side with fewer spread over the others (a fused kernel gets one to each
 * unfused kernel).
 *
 * Perfetto binds a flow's start to the slice open on its track at the start event's time and
 * drops a flow whose end comes before its start, so each arrow starts in the kernel that starts
 * first (1 ns into it) and ends 1 ns before the end of the other. Its name ("match", "fused")
 * says what the pair is; both ends have it, with the category and id (Perfetto keys legacy
 * flows by all three). Events carry no array outside args (Perfetto's tokenizer refuses one
 * before the keys it looks for).
 *
 * Written as it goes: the layout first (per pass and layer, an offset), then every slice and
 * arrow through a 64 KiB buffer to the stream; only the places of fusion differences wait, to
 * be written in time order. Memory is linear in the kernels (a pair, a start and a lane per
 * kernel), time too, but for sorting each pair's kernels by pass and the places by time. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fusediff/classify.h"
#include "fusediff/structure.h"
#include "report_int.h"

#define NONE	  UINT32_MAX
#define MAX_LANES 16 /* tracks of overlapping layer or fusion slices, each side */

/* Track ids: unique in the file (Perfetto treats a tid as the system's), in the order of the
 * sort indices. Side A: its lanes of passes and layers, of fusions, then its streams (the one
 * with the most kernels last); B the other way round. */
#define TID_BASE(s)   (100000 * ((s) + 1))
#define SORT_LAYERS   0
#define SORT_FUSIONS  100
#define SORT_STREAMS  200
#define SORT_B_FUSION 100000
#define SORT_B_LAYERS 100100

struct pf_stream {
	int32_t id;
	uint32_t kernels;	/* written on this stream */
	uint32_t rank;		/* its place among the side's streams (stream_order()) */
	uint32_t n_lanes;	/* its tracks: kernels that overlap (programmatic dependent */
	int64_t end[MAX_LANES]; /* launch lets one start before the last ends) go to another */
};

struct pf_place;

struct pf_side {
	const struct side *sd;
	const struct trace *t;
	uint32_t *pair_of; /* per trace kernel: index into c->pairs, or NONE */
	int64_t *ts;	   /* per trace kernel: its start in the file (ns), -1: not written */
	uint8_t *lane_of;  /* per trace kernel written: its lane of its stream */
	int64_t *shift;	   /* per side layer: what its kernels' starts move by */
	int64_t *lo, *hi;  /* per side layer: the span of its written kernels (lo > hi: none) */
	uint32_t *passes;  /* the compared passes, in order (the k-th is in slot k) */
	uint32_t n_passes;
	struct pf_stream *streams;
	size_t n_streams;
	uint32_t *slot_of; /* stream_index()'s table */
	size_t cap_slots;
	int64_t lane_end[2][MAX_LANES]; /* [0] layers, [1] fusions: where each lane is free */
	uint32_t n_lanes[2];
	size_t kernels; /* slices of kernels written */
};

struct pf {
	FILE *out;
	const struct comparison *c;
	struct perfetto_opts o;
	struct pf_side s[2];
	uint8_t *keep;	   /* per pair: its kernels are written */
	int32_t *fusion;   /* per pair: the fusion it belongs to, -1 */
	uint8_t *extra;	   /* per pair: one of that fusion's extra pairs */
	char (*label)[64]; /* per comparison layer: comparison_layer_label() */
	uint32_t n_slots;
	int64_t *slot_start; /* per slot */
	uint64_t flows[2];   /* arrows of matched pairs, of fused pairs */
	uint64_t fusion_slices;
	struct pf_place *places; /* of fusion differences, until written (emit_pairs()) */
	size_t n_places, cap_places;
	int first;	   /* no event written yet */
	size_t n;	   /* bytes in buf */
	char buf[1 << 16]; /* what is written goes here first: one fwrite() per 64 KiB */
};

/* --- output ----------------------------------------------------------------------------- */

static void flush(struct pf *w)
{
	if (w->n)
		fwrite(w->buf, 1, w->n, w->out);
	w->n = 0;
}

static void put_mem(struct pf *w, const char *s, size_t n)
{
	if (w->n + n > sizeof w->buf) {
		flush(w);
		if (n > sizeof w->buf) {
			fwrite(s, 1, n, w->out);
			return;
		}
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

static void put(struct pf *w, const char *s)
{
	put_mem(w, s, strlen(s));
}

static void put_c(struct pf *w, char c)
{
	if (w->n == sizeof w->buf)
		flush(w);
	w->buf[w->n++] = c;
}

static void put_i64(struct pf *w, int64_t v)
{
	char buf[24], *p = buf + sizeof buf;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put_mem(w, p, (size_t)(buf + sizeof buf - p));
}

/* Nanoseconds as microseconds, exactly: "12.345", "12.3", "12". */
static void put_us(struct pf *w, int64_t ns)
{
	uint64_t u = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(u % 1000);
	char buf[8];
	int n = 0;

	if (ns < 0)
		put_c(w, '-');
	put_i64(w, (int64_t)(u / 1000));
	if (!frac)
		return;
	buf[n++] = '.';
	buf[n++] = (char)('0' + frac / 100);
	if (frac % 100) {
		buf[n++] = (char)('0' + frac / 10 % 10);
		if (frac % 10)
			buf[n++] = (char)('0' + frac % 10);
	}
	put_mem(w, buf, (size_t)n);
}

/* A figure in ns (double) as microseconds with 3 decimals, null when not finite. */
static void put_dus(struct pf *w, double ns)
{
	char buf[64];

	put(w, report_us(buf, sizeof buf, ns) < 0 ? "null" : buf);
}

/* s[0..len) as a JSON string: printable ASCII without quotes or backslashes as it is (kernel
 * names mostly are), anything else through report_json_str(). */
static void put_json(struct pf *w, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '"' ||
		    s[i] == '\\') {
			flush(w);
			report_json_str(w->out, s, len);
			return;
		}
	put_c(w, '"');
	put_mem(w, s, len);
	put_c(w, '"');
}

static void put_str(struct pf *w, const char *s)
{
	if (s)
		put_json(w, s, strlen(s));
	else
		put(w, "null");
}

static void put_name(struct pf *w, int s, uint32_t id)
{
	const struct trace *t = w->s[s].t;

	put_json(w, trace_str(t, id), intern_len(t->strings, id));
}

/* The short names of side s's kernels (name ids) as a JSON array. */
static void put_short_names(struct pf *w, int s, const uint32_t *names, uint32_t n)
{
	put_c(w, '[');
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			put_c(w, ',');
		put_str(w, comparison_short_name(w->c, s, names[i]));
	}
	put_c(w, ']');
}

/* The start of an event: the separator, then {"ph":"PH","pid":..,"tid":..; the caller adds the
 * rest and the closing brace. */
static void ev_begin(struct pf *w, char ph, int s, uint32_t tid_local)
{
	put(w, w->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	w->first = 0;
	put_c(w, ph);
	put(w, "\",\"pid\":");
	put_i64(w, s + 1);
	put(w, ",\"tid\":");
	put_i64(w, TID_BASE(s) + tid_local);
}

/* A complete slice: ph X with its name (already JSON), category, start and duration; args
 * follow (the caller writes ",\"args\":{...}}" or "}"). */
static void slice_begin(struct pf *w, int s, uint32_t tid_local, const char *cat, int64_t ts,
			int64_t dur)
{
	ev_begin(w, 'X', s, tid_local);
	put(w, ",\"cat\":\"");
	put(w, cat);
	put(w, "\",\"ts\":");
	put_us(w, ts);
	put(w, ",\"dur\":");
	put_us(w, dur);
	put(w, ",\"name\":");
}

/* --- layout ----------------------------------------------------------------------------- */

/* The comparison layer of side layer ly of side s: the layer of the pair of its first kernel
 * (a layer's pairs hold its kernels and no other); -1 for a layer without kernels. */
static int32_t cmp_layer(const struct pf *w, int s, const struct layer *ly)
{
	const struct pf_side *ps = &w->s[s];

	for (uint32_t i = 0; i < ly->step_n; i++) {
		const struct step *st = &ps->sd->steps[ly->step_first + i];

		for (uint32_t k = 0; k < st->n; k++) {
			uint32_t p = ps->pair_of[ps->sd->order[st->first + k]];

			if (p != NONE)
				return w->c->pairs[p].layer;
		}
	}
	return -1;
}

/* The span of side layer ly's kernels (all of them: the layout is the same whatever is
 * written). lo > hi when it has none. */
static void layer_span(const struct side *sd, const struct layer *ly, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	for (uint32_t i = 0; i < ly->step_n; i++) {
		const struct step *st = &sd->steps[ly->step_first + i];

		for (uint32_t k = 0; k < st->n; k++) {
			const struct trace_kernel *kn = side_step_kernel(sd, st, k);

			if (kn->start < *lo)
				*lo = kn->start;
			if (kn->start + kn->dur > *hi)
				*hi = kn->start + kn->dur;
		}
	}
}

/* The gap after a slot of this width: a tenth of it, at least 1 us. */
static int64_t slot_gap(int64_t width)
{
	return width / 10 > 1000 ? width / 10 : 1000;
}

/* Each side layer's shift: pass k of both sides starts at slot k's start; with align_layers,
 * each comparison layer of slot k starts at the same time on both sides, the slot's layers one
 * after the other, each as long as the longer side's. */
static void layout(struct pf *w)
{
	const struct comparison *c = w->c;
	int64_t *at[2] = { xcalloc(c->n_layers + 1, sizeof(int64_t)),
			   xcalloc(c->n_layers + 1, sizeof(int64_t)) };
	int64_t *len[2] = { xcalloc(c->n_layers + 1, sizeof(int64_t)),
			    xcalloc(c->n_layers + 1, sizeof(int64_t)) };
	int64_t t = 0;

	w->slot_start = xcalloc(w->n_slots + 1, sizeof *w->slot_start);
	for (uint32_t k = 0; k < w->n_slots; k++) {
		int64_t width = 0;

		w->slot_start[k] = t;
		for (size_t l = 0; l < c->n_layers; l++)
			len[0][l] = len[1][l] = -1;
		for (int s = 0; s < 2; s++) {
			struct pf_side *ps = &w->s[s];
			const struct pass *pa;
			int64_t plo = INT64_MAX, phi = INT64_MIN;

			if (k >= ps->n_passes)
				continue;
			pa = &ps->sd->passes[ps->passes[k]];
			for (uint32_t i = 0; i < pa->layer_n; i++) {
				uint32_t li = pa->layer_first + i;
				const struct layer *ly = &ps->sd->layers[li];
				int64_t lo, hi;
				int32_t cl;

				layer_span(ps->sd, ly, &lo, &hi);
				if (lo > hi)
					continue;
				plo = lo < plo ? lo : plo;
				phi = hi > phi ? hi : phi;
				cl = cmp_layer(w, s, ly);
				if (w->o.align_layers && cl >= 0 && len[s][cl] < 0) {
					at[s][cl] = lo;
					len[s][cl] = hi - lo;
				}
			}
			if (plo > phi)
				continue;
			/* passes aligned: every layer of the pass moves as the pass does */
			for (uint32_t i = 0; i < pa->layer_n; i++)
				ps->shift[pa->layer_first + i] = t - plo;
			if (phi - plo > width)
				width = phi - plo;
		}
		if (w->o.align_layers) {
			int64_t x = t;

			for (size_t l = 0; l < c->n_layers; l++) {
				int64_t m = len[0][l] > len[1][l] ? len[0][l] : len[1][l];

				if (m < 0)
					continue;
				for (int s = 0; s < 2; s++)
					at[s][l] = len[s][l] >= 0 ? x - at[s][l] : 0;
				x += m;
			}
			for (int s = 0; s < 2; s++) {
				struct pf_side *ps = &w->s[s];
				const struct pass *pa;

				if (k >= ps->n_passes)
					continue;
				pa = &ps->sd->passes[ps->passes[k]];
				for (uint32_t i = 0; i < pa->layer_n; i++) {
					const struct layer *ly =
						&ps->sd->layers[pa->layer_first + i];
					int32_t cl = cmp_layer(w, s, ly);

					if (cl >= 0 && len[s][cl] >= 0)
						ps->shift[pa->layer_first + i] = at[s][cl];
				}
			}
			width = x - t;
		}
		t += width + slot_gap(width);
	}
	w->slot_start[w->n_slots] = t;
	for (int s = 0; s < 2; s++) {
		free(at[s]);
		free(len[s]);
	}
}

/* Whether kernel k of side s is written: in a pair that is. */
static int kept(const struct pf *w, int s, uint32_t k)
{
	uint32_t p = w->s[s].pair_of[k];

	return p != NONE && w->keep[p];
}

/* The index in ps->streams of stream id, added when new (an open-addressing table of
 * indices + 1 in ps->slot_of, grown at half full). */
static size_t stream_index(struct pf_side *ps, int32_t id)
{
	size_t mask, h;

	if (ps->n_streams * 2 >= ps->cap_slots) {
		size_t cap = ps->cap_slots ? ps->cap_slots * 2 : 16;
		uint32_t *slots = xcalloc(cap, sizeof *slots);

		for (size_t i = 0; i < ps->n_streams; i++) {
			h = ((uint32_t)ps->streams[i].id * 0x9e3779b1u) & (cap - 1);
			while (slots[h])
				h = (h + 1) & (cap - 1);
			slots[h] = (uint32_t)i + 1;
		}
		free(ps->slot_of);
		ps->slot_of = slots;
		ps->cap_slots = cap;
		ps->streams = xreallocarray(ps->streams, cap / 2, sizeof *ps->streams);
	}
	mask = ps->cap_slots - 1;
	h = ((uint32_t)id * 0x9e3779b1u) & mask;
	while (ps->slot_of[h]) {
		if (ps->streams[ps->slot_of[h] - 1].id == id)
			return ps->slot_of[h] - 1;
		h = (h + 1) & mask;
	}
	memset(&ps->streams[ps->n_streams], 0, sizeof *ps->streams);
	ps->streams[ps->n_streams].id = id;
	ps->slot_of[h] = (uint32_t)++ps->n_streams;
	return ps->n_streams - 1;
}

/* The track of lane l of the stream of rank r on side s (relative to TID_BASE(s)): lane 0
 * nearest the other side. */
static uint32_t stream_tid(int s, uint32_t r, uint32_t l)
{
	return s ? r * MAX_LANES + l : SORT_STREAMS + r * MAX_LANES + (MAX_LANES - 1 - l);
}

/* The spans of what is written, per side layer; and the streams, with their kernels. */
static void spans(struct pf *w, int s)
{
	struct pf_side *ps = &w->s[s];

	for (size_t i = 0; i < ps->sd->n_layers; i++) {
		ps->lo[i] = INT64_MAX;
		ps->hi[i] = INT64_MIN;
	}
	for (uint32_t k = 0; k < ps->n_passes; k++) {
		const struct pass *pa = &ps->sd->passes[ps->passes[k]];

		for (uint32_t i = 0; i < pa->layer_n; i++) {
			uint32_t li = pa->layer_first + i;
			const struct layer *ly = &ps->sd->layers[li];

			for (uint32_t j = 0; j < ly->step_n; j++) {
				const struct step *st = &ps->sd->steps[ly->step_first + j];

				for (uint32_t n = 0; n < st->n; n++) {
					uint32_t kk = ps->sd->order[st->first + n];
					const struct trace_kernel *kn = &ps->t->kernels[kk];
					int64_t a = kn->start + ps->shift[li], b = a + kn->dur;

					if (!kept(w, s, kk))
						continue;
					ps->lo[li] = a < ps->lo[li] ? a : ps->lo[li];
					ps->hi[li] = b > ps->hi[li] ? b : ps->hi[li];
					size_t x = stream_index(ps, kn->stream);

					ps->streams[x].kernels++;
				}
			}
		}
	}
}

/* Order of the stream tracks: A's busiest last, B's busiest first (the two meet in the
 * middle); then by id. */
static int cmp_stream_a(const void *pa, const void *pb)
{
	const struct pf_stream *a = pa, *b = pb;
	int r = CMP(a->kernels, b->kernels);

	return r ? r : CMP(b->id, a->id);
}

static int cmp_stream_b(const void *pa, const void *pb)
{
	return cmp_stream_a(pb, pa);
}

/* The sort index (and track id) of each stream. */
static void stream_order(struct pf_side *ps, int s)
{
	struct pf_stream *o = xmalloc(ps->n_streams * sizeof *o + 1);

	memcpy(o, ps->streams, ps->n_streams * sizeof *o);
	qsort(o, ps->n_streams, sizeof *o, s ? cmp_stream_b : cmp_stream_a);
	for (size_t i = 0; i < ps->n_streams; i++) {
		size_t x = stream_index(ps, o[i].id);

		ps->streams[x].rank = (uint32_t)i;
	}
	free(o);
}

/* --- slices ----------------------------------------------------------------------------- */

/* The lane (0..MAX_LANES-1) of a slice [a, b) on the tracks of kind (0 layers, 1 fusions) of
 * side s: the first whose slices all end by a; the last one when every lane is taken (its
 * slices then overlap). */
static uint32_t lane_in(int64_t end[MAX_LANES], uint32_t *n, int64_t a, int64_t b)
{
	uint32_t l;

	for (l = 0; l < *n; l++)
		if (end[l] <= a)
			break;
	if (l == MAX_LANES)
		l = MAX_LANES - 1;
	if (l == *n)
		end[(*n)++] = INT64_MIN;
	if (b > end[l])
		end[l] = b;
	return l;
}

static uint32_t lane(struct pf_side *ps, int kind, int64_t a, int64_t b)
{
	return lane_in(ps->lane_end[kind], &ps->n_lanes[kind], a, b);
}

static uint32_t layer_tid(int s, uint32_t lane)
{
	return s ? SORT_B_LAYERS + (MAX_LANES - 1 - lane) : SORT_LAYERS + lane;
}

static uint32_t fusion_tid(int s, uint32_t lane)
{
	return s ? SORT_B_FUSION + (MAX_LANES - 1 - lane) : SORT_FUSIONS + lane;
}

/* The name of comparison layer l as a slice: "layer 3", "layer vision.3", "prologue". */
static void put_layer_name(struct pf *w, int32_t l)
{
	char buf[80];

	if (l >= 0 && (size_t)l < w->c->n_layers && w->c->layers[l].index >= 0)
		snprintf(buf, sizeof buf, "layer %s", w->label[l]);
	else
		snprintf(buf, sizeof buf, "%s", l >= 0 ? w->label[l] : "?");
	put_str(w, buf);
}

/* The side's summary slice, around all its passes: where the side comes from. */
static void side_slice(struct pf *w, int s, int64_t lo, int64_t hi)
{
	const struct comparison *c = w->c;
	const struct trace *t = w->s[s].t;
	char *name = xasprintf("%c: %s", "AB"[s], c -> label[s]);

	slice_begin(w, s, layer_tid(s, 0), "comparison", lo, hi - lo);
	put_str(w, name);
	free(name);
	put(w, ",\"args\":{\"path\":");
	put_str(w, t->path);
	put(w, ",\"format\":");
	put_str(w, t->format);
	put(w, ",\"sha256\":");
	put_str(w, t->sha256[0] ? t->sha256 : NULL);
	put(w, ",\"device\":");
	if (t->device == TRACE_ALL_DEVICES)
		put(w, "\"all\"");
	else
		put_i64(w, t->device);
	put(w, ",\"phase\":\"");
	put(w, phase_name((enum phase)c->phase));
	put(w, "\",\"compared_passes\":");
	put_i64(w, c->passes[s]);
	put(w, ",\"pass_us\":");
	put_dus(w, c->ns[s]);
	put(w, ",\"a_us\":");
	put_dus(w, c->ns[0]);
	put(w, ",\"b_us\":");
	put_dus(w, c->ns[1]);
	put(w, ",\"delta_us\":");
	put_dus(w, c->delta_ns);
	put(w, "}}");
}

/* Slot k's pass of side s as a slice over [lo, hi). */
static void pass_slice(struct pf *w, int s, uint32_t k, int64_t lo, int64_t hi)
{
	const struct pf_side *ps = &w->s[s];
	const struct pass *pa = &ps->sd->passes[ps->passes[k]];
	char name[64];

	snprintf(name, sizeof name, "%s pass %u", phase_name((enum phase)pa->phase), k + 1);
	slice_begin(w, s, layer_tid(s, 0), "pass", lo, hi - lo);
	put_str(w, name);
	put(w, ",\"args\":{\"pass\":");
	put_i64(w, k + 1);
	put(w, ",\"annotation\":");
	if (pa->name)
		put_name(w, s, pa->name);
	else
		put(w, "null");
	put(w, ",\"kernels\":");
	put_i64(w, pa->n);
	put(w, ",\"kernel_us\":");
	put_us(w, pa->dur);
	for (int x = 0; x < 2; x++) {
		const struct pf_side *o = &w->s[x];

		put(w, x ? ",\"b_kernel_us\":" : ",\"a_kernel_us\":");
		if (k < o->n_passes)
			put_us(w, o->sd->passes[o->passes[k]].dur);
		else
			put(w, "null");
	}
	put(w, "}}");
}

/* Side layer li (comparison layer l) of slot k as a slice over [lo, hi). */
static void layer_slice(struct pf *w, int s, uint32_t k, uint32_t li, int32_t l, int64_t lo,
			int64_t hi)
{
	struct pf_side *ps = &w->s[s];
	const struct layer *ly = &ps->sd->layers[li];
	int64_t from = lo;
	uint32_t n = 0;

	for (uint32_t i = 0; i < ly->step_n; i++)
		n += ps->sd->steps[ly->step_first + i].n;
	/* a layer whose first kernel starts before the last one of the layer before ends (by
	 * programmatic dependent launch) is drawn from there: one track of layers, not two */
	if (ps->n_lanes[0] && ps->lane_end[0][0] > lo && ps->lane_end[0][0] < hi)
		from = ps->lane_end[0][0];
	slice_begin(w, s, layer_tid(s, lane(ps, 0, from, hi)), "layer", from, hi - from);
	put_layer_name(w, l);
	put(w, ",\"args\":{\"layer\":");
	put_str(w, l >= 0 ? w->label[l] : NULL);
	if (from > lo) {
		put(w, ",\"overlap_us\":");
		put_us(w, from - lo);
	}
	put(w, ",\"pass\":");
	put_i64(w, k + 1);
	put(w, ",\"kernels\":");
	put_i64(w, n);
	put(w, ",\"kernel_us\":");
	put_us(w, ly->dur);
	if (l >= 0) {
		const struct comparison_layer *cl = &w->c->layers[l];

		put(w, ",\"a_us\":");
		put_dus(w, cl->ns[0]);
		put(w, ",\"b_us\":");
		put_dus(w, cl->ns[1]);
		put(w, ",\"delta_us\":");
		put_dus(w, cl->delta_ns);
		put(w, ",\"fusions\":");
		put_i64(w, cl->n_fusions);
	}
	put(w, "}}");
}

/* The category of a kernel as the profilers name it (what fusediff's loader reads back). */
static const char *kernel_cat(const struct trace_kernel *kn)
{
	return kn->kind == KIND_MEMCPY	 ? "gpu_memcpy"
	       : kn->kind == KIND_MEMSET ? "gpu_memset"
					 : "kernel";
}

static void put_dims(struct pf *w, const char *key, const int32_t v[3])
{
	put(w, key);
	for (int i = 0; i < 3; i++) {
		put_c(w, i ? ',' : '[');
		put_i64(w, v[i]);
	}
	put_c(w, ']');
}

/* Kernel kk of side s, in slot k, starting at ts. */
static void kernel_slice(struct pf *w, int s, uint32_t k, uint32_t kk, int64_t ts)
{
	struct pf_side *ps = &w->s[s];
	const struct trace_kernel *kn = &ps->t->kernels[kk];
	const struct kernel_info *ki = trace_classes_get(&ps->sd->classes, kk);
	const struct comparison_pair *p = &w->c->pairs[ps->pair_of[kk]];
	char atoms[256];

	struct pf_stream *st = &ps->streams[stream_index(ps, kn->stream)];
	uint32_t l = lane_in(st->end, &st->n_lanes, ts, ts + kn->dur);

	ps->lane_of[kk] = (uint8_t)l;
	slice_begin(w, s, stream_tid(s, st->rank, l), kernel_cat(kn), ts, kn->dur);
	put_name(w, s, kn->name);
	put(w, ",\"args\":{\"device\":");
	put_i64(w, s);
	put(w, ",\"stream\":");
	put_i64(w, kn->stream);
	put(w, ",\"class\":\"");
	put(w, class_name((enum op_class)ki->cls));
	put(w, "\",\"atoms\":\"");
	put(w, atoms_format(ki->atoms, "+", atoms, sizeof atoms));
	put(w, "\",\"pass\":");
	put_i64(w, k + 1);
	put(w, ",\"layer\":");
	put_str(w, w->label[p->layer]);
	put(w, ",\"pair\":");
	put_i64(w, ps->pair_of[kk]);
	put(w, ",\"pair_kind\":\"");
	put(w, pair_kind_name((enum pair_kind)p->kind));
	if (p->cls != ki->cls || p->atoms != ki->atoms) { /* a step of several kernels */
		put(w, "\",\"pair_class\":\"");
		put(w, class_name((enum op_class)p->cls));
		put(w, "\",\"pair_atoms\":\"");
		put(w, atoms_format(p->atoms, "+", atoms, sizeof atoms));
	}
	put(w, "\",\"other\":");
	put_short_names(w, !s, p->side[!s].names, p->side[!s].n_names);
	put(w, ",\"pair_a_us\":");
	put_dus(w, p->side[0].total_ns);
	put(w, ",\"pair_b_us\":");
	put_dus(w, p->side[1].total_ns);
	put(w, ",\"pair_delta_us\":");
	put_dus(w, p->delta_ns);
	if (w->fusion[ps->pair_of[kk]] >= 0) {
		put(w, ",\"fusion\":");
		put_i64(w, w->c->fusions[w->fusion[ps->pair_of[kk]]].id);
	}
	put(w, ",\"trace_ts\":");
	put_us(w, ps->t->start_ns + kn->start);
	if (kn->dims) {
		struct trace_dims d;

		trace_dims_get(ps->t, kn->dims, &d);
		put_dims(w, ",\"grid\":", d.grid);
		put_dims(w, ",\"block\":", d.block);
	}
	put(w, "}}");
	ps->ts[kk] = ts;
	ps->kernels++;
}

/* Widen [*lo, *hi] to the layers of pass pa that hold slices. */
static void pass_span(const struct pf_side *ps, const struct pass *pa, int64_t *lo, int64_t *hi)
{
	for (uint32_t i = 0; i < pa->layer_n; i++) {
		uint32_t li = pa->layer_first + i;

		if (ps->lo[li] <= ps->hi[li]) {
			*lo = ps->lo[li] < *lo ? ps->lo[li] : *lo;
			*hi = ps->hi[li] > *hi ? ps->hi[li] : *hi;
		}
	}
}

/* Every slice of side s: its summary, its passes, their layers and their kernels. */
static void emit_side(struct pf *w, int s)
{
	struct pf_side *ps = &w->s[s];
	int64_t slo = INT64_MAX, shi = INT64_MIN;

	for (uint32_t k = 0; k < ps->n_passes; k++)
		pass_span(ps, &ps->sd->passes[ps->passes[k]], &slo, &shi);
	if (slo > shi)
		return;
	side_slice(w, s, slo, shi);
	ps->n_lanes[0] = 1;
	for (uint32_t k = 0; k < ps->n_passes; k++) {
		const struct pass *pa = &ps->sd->passes[ps->passes[k]];
		int64_t plo = INT64_MAX, phi = INT64_MIN;

		pass_span(ps, pa, &plo, &phi);
		if (plo > phi)
			continue;
		pass_slice(w, s, k, plo, phi);
		for (uint32_t i = 0; i < pa->layer_n; i++) {
			uint32_t li = pa->layer_first + i;
			const struct layer *ly = &ps->sd->layers[li];

			if (ps->lo[li] > ps->hi[li])
				continue;
			layer_slice(w, s, k, li, cmp_layer(w, s, ly), ps->lo[li], ps->hi[li]);
			for (uint32_t j = 0; j < ly->step_n; j++) {
				const struct step *st = &ps->sd->steps[ly->step_first + j];

				for (uint32_t n = 0; n < st->n; n++) {
					uint32_t kk = ps->sd->order[st->first + n];

					if (kept(w, s, kk))
						kernel_slice(w, s, k, kk,
							     ps->t->kernels[kk].start +
								     ps->shift[li]);
				}
			}
		}
	}
}

/* --- arrows and fusions --------------------------------------------------------------------- */

static int cmp_inst(const void *pa, const void *pb)
{
	const struct comparison_instance *a = pa, *b = pb;
	int r = CMP(a->pass, b->pass);

	return r ? r : CMP(a->kernel, b->kernel);
}

/* One end of an arrow: ph 's' or 'f' on kernel kk of side s at ts. */
static void flow_end(struct pf *w, char ph, int s, uint32_t kk, const char *name, uint64_t id,
		     int64_t ts)
{
	struct pf_side *ps = &w->s[s];

	const struct pf_stream *st = &ps->streams[stream_index(ps, ps->t->kernels[kk].stream)];

	ev_begin(w, ph, s, stream_tid(s, st->rank, ps->lane_of[kk]));
	put(w, ph == 'f' ? ",\"bp\":\"e\",\"cat\":\"pair\",\"name\":\""
			 : ",\"cat\":\"pair\",\"name\":\"");
	put(w, name);
	put(w, "\",\"id\":");
	put_i64(w, (int64_t)id);
	put(w, ",\"ts\":");
	put_us(w, ts);
	put_c(w, '}');
}

/* An arrow between kernel ka of A and kb of B: from the one that starts first (1 ns into it)
 * to 1 ns before the other's end, so that both viewers bind each end to its kernel. */
static void arrow(struct pf *w, const char *name, uint32_t ka, uint32_t kb)
{
	uint32_t kk[2] = { ka, kb };
	int64_t ts[2] = { w->s[0].ts[ka], w->s[1].ts[kb] };
	int64_t dur[2] = { w->s[0].t->kernels[ka].dur, w->s[1].t->kernels[kb].dur };
	int from = ts[1] < ts[0], to = !from;
	uint64_t id = w->flows[0] + w->flows[1] + 1;

	if (ts[0] < 0 || ts[1] < 0)
		return;
	flow_end(w, 's', from, kk[from], name, id, ts[from] + (dur[from] >= 2));
	flow_end(w, 'f', to, kk[to], name, id, ts[to] + (dur[to] >= 3 ? dur[to] - 1 : dur[to] / 2));
	w->flows[name[0] == 'f']++;
}

/* One place of a fusion difference on side s (pair p, slot k): its kernels' span, count and
 * time. Kept until every place is known, then written in time order (fusion_slices()). */
struct pf_place {
	int64_t lo, hi, sum;
	uint32_t p, k, n;
	int s;
};

/* The place of pair p's kernels in[0..n) of slot k on side s. */
static void fusion_place(struct pf *w, int s, uint32_t p, uint32_t k,
			 const struct comparison_instance *in, uint32_t n)
{
	const struct pf_side *ps = &w->s[s];
	struct pf_place pl = { INT64_MAX, INT64_MIN, 0, p, k, n, s };

	for (uint32_t i = 0; i < n; i++) {
		const struct trace_kernel *kn = &ps->t->kernels[in[i].kernel];
		int64_t a = ps->ts[in[i].kernel];

		if (a < 0)
			continue;
		pl.lo = a < pl.lo ? a : pl.lo;
		pl.hi = a + kn->dur > pl.hi ? a + kn->dur : pl.hi;
		pl.sum += kn->dur;
	}
	if (pl.lo <= pl.hi)
		VEC_PUSH(w->places, w->n_places, w->cap_places, pl);
}

static int cmp_place(const void *pa, const void *pb)
{
	const struct pf_place *a = pa, *b = pb;
	int r = CMP(a->s, b->s);

	if (!r)
		r = CMP(a->lo, b->lo);
	if (!r)
		r = CMP(a->hi, b->hi);
	return r ? r : CMP(a->p, b->p);
}

/* The slice of one place of a fusion difference. */
static void fusion_slice(struct pf *w, const struct pf_place *pl)
{
	int s = pl->s;
	uint32_t p = pl->p, k = pl->k, n = pl->n;
	struct pf_side *ps = &w->s[s];
	const struct comparison_fusion *f = &w->c->fusions[w->fusion[p]];
	int64_t lo = pl->lo, hi = pl->hi, sum = pl->sum;
	char name[320], atoms[256];

	snprintf(name, sizeof name, "%s %d: %s",
		 f->partial	 ? "partial fusion"
		 : f->horizontal ? "horizontal fusion"
				 : "fusion",
		 f->id, atoms_format(f->atoms, "+", atoms, sizeof atoms));
	slice_begin(w, s, fusion_tid(s, lane(ps, 1, lo, hi)), "fusion", lo, hi - lo);
	put_str(w, name);
	put(w, ",\"cname\":\"");
	put(w, w->extra[p] ? "grey" : s == f->fused_side ? "good" : "bad");
	put(w, "\",\"args\":{\"fusion\":");
	put_i64(w, f->id);
	put(w, ",\"role\":\"");
	put(w, w->extra[p] ? "extra" : s == f->fused_side ? "fused" : "unfused");
	put(w, "\",\"fused_side\":\"");
	put_c(w, "AB"[f->fused_side]);
	put(w, "\",\"pass\":");
	put_i64(w, k + 1);
	put(w, ",\"layer\":");
	put_str(w, w->label[w->c->pairs[p].layer]);
	put(w, ",\"pair\":");
	put_i64(w, p);
	put(w, ",\"kernels\":");
	put_i64(w, n);
	put(w, ",\"kernel_us\":");
	put_us(w, sum);
	put(w, ",\"fused_kernel\":");
	put_str(w, comparison_short_name(w->c, f->fused_side, f->fused_name));
	put(w, ",\"proof\":\"");
	put(w, comparison_proof_name(f));
	put(w, "\",\"occurrences\":");
	put_i64(w, f->occurrences);
	put(w, ",\"a_us\":");
	put_dus(w, f->ns[0]);
	put(w, ",\"b_us\":");
	put_dus(w, f->ns[1]);
	put(w, ",\"delta_us\":");
	put_dus(w, f->delta_ns);
	put(w, ",\"evidence\":");
	put_str(w, f->evidence);
	put(w, "}}");
	w->fusion_slices++;
}

/* The arrows of pair p in one slot: A's kernels a[0..na), B's b[0..nb). */
static void pair_arrows(struct pf *w, const struct comparison_pair *p,
			const struct comparison_instance *a, uint32_t na,
			const struct comparison_instance *b, uint32_t nb)
{
	const char *name = p->kind == PAIR_FUSED ? "fused" : "match";
	uint32_t n = na > nb ? na : nb;

	for (uint32_t i = 0; i < n; i++)
		arrow(w, name, a[na >= nb ? i : (uint64_t)i * na / nb].kernel,
		      b[nb >= na ? i : (uint64_t)i * nb / na].kernel);
}

/* The arrows and fusion slices of every written pair, slot by slot. */
static void emit_pairs(struct pf *w)
{
	const struct comparison *c = w->c;
	struct comparison_instance *in[2] = { NULL, NULL };
	size_t cap[2] = { 0, 0 };
	int32_t *slot[2];

	for (int s = 0; s < 2; s++) {
		slot[s] = xmalloc((w->s[s].sd->n_passes + 1) * sizeof *slot[s]);
		for (size_t i = 0; i < w->s[s].sd->n_passes; i++)
			slot[s][i] = -1;
		for (uint32_t k = 0; k < w->s[s].n_passes; k++)
			slot[s][w->s[s].passes[k]] = (int32_t)k;
	}
	for (size_t pi = 0; pi < c->n_pairs; pi++) {
		const struct comparison_pair *p = &c->pairs[pi];
		uint32_t n[2], at[2] = { 0, 0 };

		if (!w->keep[pi])
			continue;
		for (int s = 0; s < 2; s++) {
			n[s] = p->side[s].n_inst;
			if (n[s] > cap[s]) {
				cap[s] = n[s];
				in[s] = xreallocarray(in[s], cap[s], sizeof *in[s]);
			}
			if (n[s])
				memcpy(in[s], p->side[s].inst, n[s] * sizeof *in[s]);
			sort_runs(in[s], n[s], sizeof *in[s], cmp_inst);
		}
		while (at[0] < n[0] || at[1] < n[1]) {
			int32_t k[2], kmin;
			uint32_t end[2];

			for (int s = 0; s < 2; s++)
				k[s] = at[s] < n[s] ? slot[s][in[s][at[s]].pass] : INT32_MAX;
			kmin = k[0] < k[1] ? k[0] : k[1];
			for (int s = 0; s < 2; s++) {
				end[s] = at[s];
				while (end[s] < n[s] && slot[s][in[s][end[s]].pass] == kmin)
					end[s]++;
			}
			if (kmin >= 0 && end[0] > at[0] && end[1] > at[1])
				pair_arrows(w, p, in[0] + at[0], end[0] - at[0], in[1] + at[1],
					    end[1] - at[1]);
			if (kmin >= 0 && w->fusion[pi] >= 0)
				for (int s = 0; s < 2; s++)
					if (end[s] > at[s])
						fusion_place(w, s, (uint32_t)pi, (uint32_t)kmin,
							     in[s] + at[s], end[s] - at[s]);
			at[0] = end[0];
			at[1] = end[1];
		}
	}
	for (int s = 0; s < 2; s++) {
		free(in[s]);
		free(slot[s]);
	}
	/* in time order, so that a place goes to another track only when it overlaps one */
	if (w->n_places) /* none when no fusion has a place in the passes drawn */
		qsort(w->places, w->n_places, sizeof *w->places, cmp_place);
	for (size_t i = 0; i < w->n_places; i++)
		fusion_slice(w, &w->places[i]);
	free(w->places);
	w->places = NULL;
}

/* --- metadata ------------------------------------------------------------------------------ */

static void meta(struct pf *w, int s, uint32_t tid_local, const char *what, const char *key,
		 const char *str, int64_t num)
{
	ev_begin(w, 'M', s, tid_local);
	put(w, ",\"name\":\"");
	put(w, what);
	put(w, "\",\"args\":{\"");
	put(w, key);
	put(w, "\":");
	if (str)
		put_str(w, str);
	else
		put_i64(w, num);
	put(w, "}}");
}

/* The names and order of the processes and their tracks. */
static void emit_meta(struct pf *w)
{
	for (int s = 0; s < 2; s++) {
		struct pf_side *ps = &w->s[s];
		char *name = xasprintf("%c: %s", "AB"[s], w -> c -> label[s]);
		char buf[64];

		meta(w, s, layer_tid(s, 0), "process_name", "name", name, 0);
		meta(w, s, layer_tid(s, 0), "process_sort_index", "sort_index", NULL, s + 1);
		free(name);
		for (uint32_t l = 0; l < ps->n_lanes[0]; l++) {
			snprintf(buf, sizeof buf,
				 l ? "layers (overlapping, %u)" : "passes and layers", l + 1);
			meta(w, s, layer_tid(s, l), "thread_name", "name", buf, 0);
			meta(w, s, layer_tid(s, l), "thread_sort_index", "sort_index", NULL,
			     layer_tid(s, l));
		}
		for (uint32_t l = 0; l < ps->n_lanes[1]; l++) {
			snprintf(buf, sizeof buf,
				 l ? "fusion differences (%u)" : "fusion differences", l + 1);
			meta(w, s, fusion_tid(s, l), "thread_name", "name", buf, 0);
			meta(w, s, fusion_tid(s, l), "thread_sort_index", "sort_index", NULL,
			     fusion_tid(s, l));
		}
		for (size_t i = 0; i < ps->n_streams; i++) {
			for (uint32_t l = 0; l < ps->streams[i].n_lanes; l++) {
				uint32_t tid = stream_tid(s, ps->streams[i].rank, l);

				if (l)
					snprintf(buf, sizeof buf, "stream %d (overlapping, %u)",
						 (int)ps->streams[i].id, l + 1);
				else
					snprintf(buf, sizeof buf, "stream %d",
						 (int)ps->streams[i].id);
				meta(w, s, tid, "thread_name", "name", buf, 0);
				meta(w, s, tid, "thread_sort_index", "sort_index", NULL, tid);
			}
		}
	}
}

/* "otherData": what was compared and what the file holds. */
static void emit_other(struct pf *w)
{
	const struct comparison *c = w->c;

	put(w,
	    "\n],\n\"otherData\":{\"tool_version\":\"fusediff " PACKAGE_VERSION "\",\"phase\":\"");
	put(w, phase_name((enum phase)c->phase));
	put(w, "\",\"align\":\"");
	put(w, w->o.align_layers ? "layers" : "passes");
	put(w, "\",\"layer\":");
	put_str(w,
		w->o.layer >= 0 && (size_t)w->o.layer < c->n_layers ? w->label[w->o.layer] : NULL);
	put(w, ",\"fusion\":");
	if (w->o.fusion >= 0 && (size_t)w->o.fusion < c->n_fusions)
		put_i64(w, c->fusions[w->o.fusion].id);
	else
		put(w, "null");
	put(w, ",\"note\":");
	put_str(w, c->note);
	for (int s = 0; s < 2; s++) {
		const struct trace *t = w->s[s].t;

		put(w, s ? ",\"b\":{\"label\":" : ",\"a\":{\"label\":");
		put_str(w, c->label[s]);
		put(w, ",\"path\":");
		put_str(w, t->path);
		put(w, ",\"format\":");
		put_str(w, t->format);
		put(w, ",\"sha256\":");
		put_str(w, t->sha256[0] ? t->sha256 : NULL);
		put(w, ",\"compared_passes\":");
		put_i64(w, c->passes[s]);
		put(w, ",\"kernels\":");
		put_i64(w, (int64_t)w->s[s].kernels);
		put(w, "}");
	}
	put(w, ",\"a_us\":");
	put_dus(w, c->ns[0]);
	put(w, ",\"b_us\":");
	put_dus(w, c->ns[1]);
	put(w, ",\"delta_us\":");
	put_dus(w, c->delta_ns);
	put(w, ",\"pairs\":");
	put_i64(w, (int64_t)c->n_pairs);
	put(w, ",\"fusions\":");
	put_i64(w, (int64_t)c->n_fusions);
	put(w, ",\"flows\":{\"match\":");
	put_i64(w, (int64_t)w->flows[0]);
	put(w, ",\"fused\":");
	put_i64(w, (int64_t)w->flows[1]);
	put(w, "},\"fusion_slices\":");
	put_i64(w, (int64_t)w->fusion_slices);
	put(w, "}}\n");
}

/* --- the file ------------------------------------------------------------------------------ */

/* Which pairs are written, and which fusion each belongs to. */
static void select_pairs(struct pf *w)
{
	const struct comparison *c = w->c;

	w->keep = xcalloc(c->n_pairs + 1, 1);
	w->extra = xcalloc(c->n_pairs + 1, 1);
	w->fusion = xmalloc((c->n_pairs + 1) * sizeof *w->fusion);
	for (size_t i = 0; i < c->n_pairs; i++)
		w->fusion[i] = -1;
	for (size_t f = 0; f < c->n_fusions; f++) {
		const struct comparison_fusion *fu = &c->fusions[f];

		for (uint32_t i = 0; i < fu->n_pairs; i++)
			if (fu->pairs[i] < c->n_pairs && w->fusion[fu->pairs[i]] < 0) {
				w->fusion[fu->pairs[i]] = (int32_t)f;
				w->extra[fu->pairs[i]] = i >= fu->n_pairs - fu->extra;
			}
	}
	for (size_t i = 0; i < c->n_pairs; i++)
		w->keep[i] = (w->o.layer < 0 || c->pairs[i].layer == w->o.layer) &&
			     (w->o.fusion < 0 || w->fusion[i] == w->o.fusion);
}

static void side_init(struct pf *w, int s)
{
	const struct comparison *c = w->c;
	struct pf_side *ps = &w->s[s];

	ps->sd = c->side[s];
	ps->t = ps->sd->t;
	ps->pair_of = xmalloc((ps->t->n_kernels + 1) * sizeof *ps->pair_of);
	ps->ts = xmalloc((ps->t->n_kernels + 1) * sizeof *ps->ts);
	ps->lane_of = xcalloc(ps->t->n_kernels + 1, 1);
	for (size_t i = 0; i < ps->t->n_kernels; i++) {
		ps->pair_of[i] = NONE;
		ps->ts[i] = -1;
	}
	for (size_t i = 0; i < c->n_pairs; i++)
		for (uint32_t j = 0; j < c->pairs[i].side[s].n_inst; j++)
			ps->pair_of[c->pairs[i].side[s].inst[j].kernel] = (uint32_t)i;
	ps->shift = xcalloc(ps->sd->n_layers + 1, sizeof *ps->shift);
	ps->lo = xmalloc((ps->sd->n_layers + 1) * sizeof *ps->lo);
	ps->hi = xmalloc((ps->sd->n_layers + 1) * sizeof *ps->hi);
	ps->passes = xmalloc((ps->sd->n_passes + 1) * sizeof *ps->passes);
	for (size_t i = 0; i < ps->sd->n_passes; i++)
		if (comparison_pass_compared(c, s, &ps->sd->passes[i]))
			ps->passes[ps->n_passes++] = (uint32_t)i;
}

static void side_free(struct pf_side *ps)
{
	free(ps->pair_of);
	free(ps->ts);
	free(ps->lane_of);
	free(ps->shift);
	free(ps->lo);
	free(ps->hi);
	free(ps->passes);
	free(ps->streams);
	free(ps->slot_of);
}

int report_write_perfetto(FILE *out, const struct comparison *c, const struct perfetto_opts *o)
{
	struct pf w = { .out = out, .c = c, .first = 1 };

	w.o = o ? *o : (struct perfetto_opts){ .layer = -1, .fusion = -1 };
	w.label = xcalloc(c->n_layers + 1, sizeof *w.label);
	for (size_t l = 0; l < c->n_layers; l++)
		comparison_layer_label(c, (int32_t)l, w.label[l], sizeof w.label[l]);
	select_pairs(&w);
	for (int s = 0; s < 2; s++)
		side_init(&w, s);
	w.n_slots = w.s[0].n_passes > w.s[1].n_passes ? w.s[0].n_passes : w.s[1].n_passes;
	layout(&w);
	for (int s = 0; s < 2; s++) {
		spans(&w, s);
		stream_order(&w.s[s], s);
	}
	put(&w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (int s = 0; s < 2; s++)
		emit_side(&w, s);
	emit_pairs(&w);
	emit_meta(&w);
	emit_other(&w);
	flush(&w);
	for (int s = 0; s < 2; s++)
		side_free(&w.s[s]);
	free(w.keep);
	free(w.extra);
	free(w.fusion);
	free(w.label);
	free(w.slot_start);
	return ferror(out) ? -1 : 0;
}
