/* trace_append.c — several captures of one run pooled into one trace (trace_append(), see
 * trace.h): the samples of one comparison, one capture after the other on one timeline. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace.h"
#include "trace_impl.h"

/* The end of t's last event (kernels, launches, operators, ranges; forward operators and the
 * launches folded into kernels have a start only), ns. */
static int64_t trace_end(const struct trace *t)
{
	int64_t end = 0;

#define END_OF(arr, n)                                   \
	for (size_t i = 0; i < (n); i++)                 \
		if ((arr)[i].start + (arr)[i].dur > end) \
			end = (arr)[i].start + (arr)[i].dur;
	for (size_t i = 0; i < t->n_kernels; i++) { /* its folded launch has a start only */
		const struct trace_kernel *k = &t->kernels[i];

		if (k->start + k->dur > end)
			end = k->start + k->dur;
		if (k->launch > end)
			end = k->launch;
	}
	END_OF(t->launches, t->n_launches)
	END_OF(t->ops, t->n_ops)
	END_OF(t->ranges, t->n_ranges)
#undef END_OF
	for (size_t i = 0; i < t->n_fwd_ops; i++)
		if (t->fwd_ops[i].start > end)
			end = t->fwd_ops[i].start;
	return end;
}

/* The span of a kind of id: the largest positive and the smallest negative (0 when none). */
struct id_span {
	int64_t max, min;
};

static void span_add(struct id_span *s, int64_t id)
{
	if (id > s->max)
		s->max = id;
	if (id < s->min)
		s->min = id;
}

/* How an id of src moves past dst's: positive ids up past dst's largest, negative ones down
 * past its smallest; 0 (absent) stays. */
struct id_shift {
	int64_t up, down; /* up >= 0, down <= 0 */
};

static int64_t shifted(const struct id_shift *m, int64_t id)
{
	return id > 0 ? id + m->up : id < 0 ? id + m->down : 0;
}

/* Whether src's ids of span s fit once moved past dst's of span d. */
static int shift_fits(const struct id_span *d, const struct id_span *s, struct id_shift *m)
{
	m->up = d->max;
	m->down = d->min;
	return s->max <= INT64_MAX - m->up && s->min >= INT64_MIN - m->down;
}

/* One past sequence number seq >= 0 (saturated). */
static int64_t seq_end(int64_t seq)
{
	return seq < INT64_MAX ? seq + 1 : INT64_MAX;
}

/* The correlation ids (kernels, launches), External ids (kernels, launches, operators,
 * ranges) and sequence numbers (forward operators, backward ranges: -1 there is absent, so
 * sequence numbers move as positive ids with 0 included) of t. */
static void id_spans(const struct trace *t, struct id_span *corr, struct id_span *ext,
		     struct id_span *seq)
{
	*corr = *ext = *seq = (struct id_span){ 0, 0 };
	for (size_t i = 0; i < t->n_kernels; i++) {
		span_add(corr, t->kernels[i].correlation);
		span_add(ext, t->kernels[i].external_id);
	}
	for (size_t i = 0; i < t->n_launches; i++) {
		span_add(corr, t->launches[i].correlation);
		span_add(ext, t->launches[i].external_id);
	}
	for (size_t i = 0; i < t->n_ops; i++)
		span_add(ext, t->ops[i].external_id);
	for (size_t i = 0; i < t->n_ranges; i++) {
		span_add(ext, t->ranges[i].external_id);
		if (t->ranges[i].seq >= 0)
			span_add(seq, seq_end(t->ranges[i].seq));
	}
	for (size_t i = 0; i < t->n_fwd_ops; i++)
		if (t->fwd_ops[i].seq >= 0)
			span_add(seq, seq_end(t->fwd_ops[i].seq));
}

static int64_t seq_shifted(const struct id_shift *m, int64_t seq)
{
	return seq >= 0 ? seq + m->up : seq;
}

static int64_t kernel_time(const struct trace *t)
{
	int64_t sum = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		sum += t->kernels[i].dur; /* at most TRACE_TIME_MAX (trace.h) */
	return sum;
}

static int cmp_device(const void *pa, const void *pb)
{
	const struct trace_device *a = pa, *b = pb;

	return CMP(a->id, b->id);
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* src's devices into dst's: the counts of a device both list add up, the others are added;
 * sorted by id. */
static void append_devices(struct trace *dst, const struct trace *src, const uint32_t *map)
{
	size_t n = dst->n_devices;

	for (size_t i = 0; i < src->n_devices; i++) {
		const struct trace_device *sd = &src->devices[i];
		struct trace_device *dd = NULL;

		for (size_t j = 0; j < n && !dd; j++) /* few devices: a GPU's id is small */
			if (dst->devices[j].id == sd->id)
				dd = &dst->devices[j];
		if (!dd) {
			struct trace_device d = *sd;

			d.name = map[sd->name];
			VEC_PUSH(dst->devices, dst->n_devices, impl(dst)->cap_devices, d);
			continue;
		}
		if (!dd->name && sd->name) {
			dd->name = map[sd->name];
			dd->warp_size = sd->warp_size;
			dd->num_sms = sd->num_sms;
			dd->compute_major = sd->compute_major;
			dd->compute_minor = sd->compute_minor;
			dd->total_mem = sd->total_mem;
		}
		dd->kernels = add_sat(dd->kernels, sd->kernels);
		dd->kernel_events = add_sat(dd->kernel_events, sd->kernel_events);
		dd->kernel_time = add_sat(dd->kernel_time, sd->kernel_time);
	}
	sort_runs(dst->devices, dst->n_devices, sizeof *dst->devices, cmp_device);
}

/* A capture (path, file size and hash as r has them, its times from start on) to t's list. */
static void add_repeat(struct trace *t, const struct trace_repeat *r, int64_t start)
{
	struct trace_repeat *n;

	t->repeats = xreallocarray(t->repeats, t->n_repeats + 1, sizeof *t->repeats);
	n = &t->repeats[t->n_repeats++];
	*n = *r;
	n->path = xstrdup(r->path);
	n->start = start;
}

/* The capture that trace t (one file) is. */
static struct trace_repeat own_repeat(const struct trace *t)
{
	struct trace_repeat r = { .path = t->path, .file_size = t->file_size };

	memcpy(r.sha256, t->sha256, sizeof r.sha256);
	return r;
}

int trace_append(struct trace *dst, const struct trace *src, int64_t gap_ns, struct fd_error *err)
{
	struct id_span dc, de, ds, sc, se, ss;
	struct id_shift mc, me, ms;
	int64_t shift, src_end = trace_end(src);
	uint32_t n_str = intern_count(src->strings), n_dims = intern_count(src->dims);
	uint32_t *map, *dmap;
	int32_t *tmap;

	if (gap_ns < 1)
		gap_ns = 1;
	shift = trace_end(dst);
	if (gap_ns > TRACE_TIME_MAX - shift || src_end > TRACE_TIME_MAX - (shift + gap_ns) ||
	    kernel_time(src) > TRACE_TIME_MAX - kernel_time(dst)) {
		fd_error_set(err, "%s: its times do not fit after those of %s", src->path,
			     dst->path);
		return -1;
	}
	shift += gap_ns;
	id_spans(dst, &dc, &de, &ds);
	id_spans(src, &sc, &se, &ss);
	if (!shift_fits(&dc, &sc, &mc) || !shift_fits(&de, &se, &me) ||
	    !shift_fits(&ds, &ss, &ms)) {
		fd_error_set(err, "%s: its ids do not fit after those of %s", src->path, dst->path);
		return -1;
	}
	if (src->n_kernels > UINT32_MAX - 1 - dst->n_kernels ||
	    src->n_launches > UINT32_MAX - 1 - dst->n_launches ||
	    src->n_ops > UINT32_MAX - 1 - dst->n_ops ||
	    src->n_ranges > UINT32_MAX - 1 - dst->n_ranges) {
		fd_error_set(err, "%s: too many events after those of %s", src->path, dst->path);
		return -1;
	}

	map = xmalloc((n_str ? n_str : 1) * sizeof *map);
	dmap = xmalloc((n_dims ? n_dims : 1) * sizeof *dmap);
	for (uint32_t i = 0; i < n_str; i++)
		map[i] = intern_add(dst->strings, intern_str(src->strings, i),
				    intern_len(src->strings, i));
	for (uint32_t i = 0; i < n_dims; i++) {
		uint32_t id =
			intern_add(dst->dims, intern_str(src->dims, i), intern_len(src->dims, i));

		dmap[i] = id < TRACE_DIMS_MAX ? id : 0; /* beyond the bit field: none */
	}
	dmap[0] = 0;
	if (!dst->n_repeats) {
		struct trace_repeat r = own_repeat(dst);

		add_repeat(dst, &r, 0);
	}
	if (src->n_repeats)
		for (size_t i = 0; i < src->n_repeats; i++)
			add_repeat(dst, &src->repeats[i], src->repeats[i].start + shift);
	else {
		struct trace_repeat r = own_repeat(src);

		add_repeat(dst, &r, shift);
	}

	trace_reserve(dst, src->n_kernels, src->n_launches, src->n_ops, src->n_ranges,
		      src->n_fwd_ops);
	tmap = xmalloc((src->n_threads + 1) * sizeof *tmap);
	for (size_t i = 0; i < src->n_threads; i++)
		tmap[i] = trace_thread_index(dst, src->threads[i]);
	for (size_t i = 0; i < src->n_kernels; i++) {
		struct trace_kernel k = src->kernels[i];

		k.start += shift;
		if (k.launch >= 0 && tmap[k.launch_thread] >= 0) {
			k.launch += shift;
			k.launch_thread = (uint16_t)tmap[k.launch_thread];
		} else {
			k.launch = -1;
			k.launch_thread = 0;
		}
		k.correlation = shifted(&mc, k.correlation);
		k.external_id = shifted(&me, k.external_id);
		k.name = map[k.name];
		k.dims = k.dims < n_dims ? dmap[k.dims] : 0;
		dst->kernels[dst->n_kernels++] = k;
	}
	free(tmap);
	for (size_t i = 0; i < src->n_launches; i++) {
		struct trace_launch l = src->launches[i];

		l.start += shift;
		l.correlation = shifted(&mc, l.correlation);
		l.external_id = shifted(&me, l.external_id);
		l.name = map[l.name];
		l.kernel = map[l.kernel];
		l.dims = l.dims < n_dims ? dmap[l.dims] : 0;
		dst->launches[dst->n_launches++] = l;
	}
	for (size_t i = 0; i < src->n_ops; i++) {
		struct trace_op o = src->ops[i];

		o.start += shift;
		o.external_id = shifted(&me, o.external_id);
		o.name = map[o.name];
		o.input_dims = map[o.input_dims];
		o.input_types = map[o.input_types];
		o.concrete = map[o.concrete];
		dst->ops[dst->n_ops++] = o;
	}
	for (size_t i = 0; i < src->n_ranges; i++) {
		struct trace_range r = src->ranges[i];

		r.start += shift;
		r.external_id = shifted(&me, r.external_id);
		r.seq = seq_shifted(&ms, r.seq);
		r.name = map[r.name];
		dst->ranges[dst->n_ranges++] = r;
	}
	for (size_t i = 0; i < src->n_fwd_ops; i++) {
		struct trace_fwd_op f = src->fwd_ops[i];

		f.start += shift;
		f.seq = seq_shifted(&ms, f.seq);
		dst->fwd_ops[dst->n_fwd_ops++] = f;
	}
	trace_sort_all(dst); /* in order already but for absent and negative ids: about n steps */

	append_devices(dst, src, map);
	for (size_t i = 0; i < src->n_categories; i++)
		trace_add_category(dst, map[src->categories[i].name], src->categories[i].count);
	dst->n_kernel_events += src->n_kernel_events;
	dst->n_other_device += src->n_other_device;
	dst->n_events = add_sat(dst->n_events, src->n_events);
	dst->bytes = add_sat(dst->bytes, src->bytes);
	for (size_t i = 0; i < src->n_warnings; i++)
		trace_warn(dst, "%s: %s", src->path, src->warnings[i]);
	dst->n_warnings_total += src->n_warnings_total - src->n_warnings;
	free(map);
	free(dmap);
	return 0;
}

/* upper_bound(): a time against a capture's start. */
static int cmp_time_repeat(const void *key, const void *elem)
{
	const int64_t *time = key;
	const struct trace_repeat *r = elem;

	return CMP(*time, r->start);
}

size_t trace_repeat_at(const struct trace *t, int64_t time)
{
	/* the last capture that starts at or before time: the one before the first after it */
	size_t after =
		upper_bound(t->repeats, t->n_repeats, sizeof *t->repeats, &time, cmp_time_repeat);

	return after ? after - 1 : 0;
}
