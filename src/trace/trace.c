/* trace.c — the loaded trace as the loaders build it: records added, stashed and merged;
 * trace_finish.c finishes it, trace_lookup.c looks things up in it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "fusediff/trace.h"
#include "trace_impl.h"

void trace_free_seg_maps(struct trace_impl *ti)
{
	for (size_t i = 0; i < ti->n_maps; i++)
		free(ti->maps[i]);
	free(ti->maps);
	free(ti->op_seg);
	free(ti->launch_seg);
	ti->maps = NULL;
	ti->op_seg = ti->launch_seg = NULL;
	ti->n_maps = ti->n_op_seg = ti->n_launch_seg = 0;
}

static void seg_map_set(struct seg_map **v, size_t *n, size_t k, struct seg_map m)
{
	if (k >= *n) {
		*v = xreallocarray(*v, k + 1, sizeof **v);
		memset(*v + *n, 0, (k + 1 - *n) * sizeof **v);
		*n = k + 1;
	}
	(*v)[k] = m;
}

struct trace *trace_new(const char *path)
{
	struct trace_impl *ti = xcalloc(1, sizeof *ti);

	ti->t.path = xstrdup(path);
	ti->t.strings = intern_new();
	ti->t.dims = intern_new();
	{
		static const struct trace_dims none;

		intern_add(ti->t.dims, (const char *)&none, sizeof none); /* id 0 */
	}
	ti->t.rank = ti->t.world_size = -1;
	ti->t.device = -1;
	return &ti->t;
}

void trace_free(struct trace *t)
{
	struct trace_impl *ti;

	if (!t)
		return;
	ti = impl(t);
	free(t->path);
	free(t->capture.path);
	for (size_t i = 0; i < t->n_repeats; i++)
		free(t->repeats[i].path);
	free(t->repeats);
	intern_free(t->strings);
	intern_free(t->dims);
	free(t->kernels);
	free(t->launches);
	free(t->threads);
	if (ti->thread_ids)
		intern_free(ti->thread_ids);
	free(t->ops);
	free(t->ranges);
	free(t->fwd_ops);
	free(t->devices);
	free(t->categories);
	free(t->meta);
	for (size_t i = 0; i < t->n_warnings; i++)
		free(t->warnings[i]);
	free(ti->cat_index);
	free(ti->meta_index);
	stash_free(&ti->ops);
	stash_free(&ti->launches);
	free(ti->kernel_ids);
	trace_free_seg_maps(ti);
	free(ti);
}

int32_t trace_thread_index(struct trace *t, int64_t tid)
{
	struct trace_impl *ti = impl(t);
	uint32_t id;

	if (!ti->thread_ids)
		ti->thread_ids = intern_new();
	if (t->n_threads >= TRACE_THREADS_MAX) {
		id = intern_find(ti->thread_ids, (const char *)&tid, sizeof tid);
		return id == UINT32_MAX ? -1 : (int32_t)id - 1;
	}
	id = intern_add(ti->thread_ids, (const char *)&tid, sizeof tid);
	if (id > t->n_threads)
		VEC_PUSH(t->threads, t->n_threads, ti->cap_threads, tid);
	return (int32_t)id - 1;
}

void trace_expect_large(struct trace *t, int64_t bytes)
{
	struct trace_impl *ti = impl(t);
	/* room for a kernel per KB of the part (the 1.18 GB trace has one per 2.7 KB), two huge
	 * pages at least, touched as they fill: a part's array that grew by copying faulted in
	 * its copy's small pages where the freed blocks of earlier parts lay (24,482 page faults
	 * at 4.2 GB against 16,453 with room enough) */
	size_t n = ((size_t)4 << 20) / sizeof *t->kernels;

	if (bytes > 0 && (uint64_t)bytes / 1024 > n)
		n = (size_t)((uint64_t)bytes / 1024);
	if (ti->cap_kernels < n) {
		struct trace_kernel *k = big_alloc(n, sizeof *k);

		if (t->n_kernels)
			memcpy(k, t->kernels, t->n_kernels * sizeof *k);
		free(t->kernels);
		t->kernels = k;
		ti->cap_kernels = n;
	}
	ti->ops.large = ti->launches.large = 1;
}

struct trace_kernel *trace_take_kernel_room(struct trace *t, size_t *cap)
{
	struct trace_kernel *room = t->kernels;

	*cap = room ? impl(t)->cap_kernels : 0;
	t->kernels = NULL;
	impl(t)->cap_kernels = 0;
	return room;
}

void trace_give_kernel_room(struct trace *t, struct trace_kernel *room, size_t cap)
{
	struct trace_impl *ti = impl(t);

	if (cap <= ti->cap_kernels || t->n_kernels) {
		free(room);
		return;
	}
	free(t->kernels);
	t->kernels = room;
	ti->cap_kernels = cap;
}

void trace_add_kernel(struct trace *t, const struct trace_kernel *k)
{
	VEC_PUSH(t->kernels, t->n_kernels, impl(t)->cap_kernels, *k);
}

uint32_t trace_add_dims(struct trace *t, const int32_t grid[3], const int32_t block[3])
{
	struct trace_dims d;
	uint32_t id;

	memcpy(d.grid, grid, sizeof d.grid);
	memcpy(d.block, block, sizeof d.block);
	if (!(d.grid[0] | d.grid[1] | d.grid[2] | d.block[0] | d.block[1] | d.block[2]))
		return 0;
	id = intern_add(t->dims, (const char *)&d, sizeof d);
	return id < TRACE_DIMS_MAX ? id : 0; /* beyond the bit field: none rather than another */
}

void trace_dims_get(const struct trace *t, uint32_t id, struct trace_dims *out)
{
	memset(out, 0, sizeof *out);
	if (t->dims && id < intern_count(t->dims) && intern_len(t->dims, id) == sizeof *out)
		memcpy(out, intern_str(t->dims, id), sizeof *out);
}

void trace_add_launch(struct trace *t, const struct trace_launch *l)
{
	struct trace_impl *ti = impl(t);
	struct stash *s = &ti->launches;

	if (ti->finished) { /* nothing folds it now: kept as it is */
		VEC_PUSH(t->launches, t->n_launches, ti->cap_launches, *l);
		return;
	}
	if (!ti->has_launches_t0 || l->start < ti->launches_t0)
		ti->launches_t0 = l->start;
	ti->has_launches_t0 = 1;
	stash_begin(s);
	stash_put_delta(s, 0, l->start);
	stash_put_delta(s, 1, l->correlation);
	stash_put_delta(s, 2, l->external_id);
	stash_put_delta(s, 3, l->tid);
	stash_put(s, (uint64_t)l->dur);
	stash_put(s, l->name);
	stash_put(s, l->kernel);
	if (l->kernel) {
		stash_put(s, l->dims);
		if (l->external_id)
			VEC_PUSH(ti->kernel_ids, ti->n_kernel_ids, ti->cap_kernel_ids,
				 l->external_id);
	}
}

void trace_add_op(struct trace *t, const struct trace_op *o)
{
	VEC_PUSH(t->ops, t->n_ops, impl(t)->cap_ops, *o);
}

void trace_stash_op(struct trace *t, const struct trace_op *o)
{
	struct trace_impl *ti = impl(t);
	struct stash *s = &ti->ops;

	stash_begin(s);
	stash_put_delta(s, 0, o->start);
	stash_put_delta(s, 1, o->external_id);
	stash_put_delta(s, 2, o->tid);
	stash_put(s, (uint64_t)o->dur);
	stash_put(s, o->name);
	stash_put(s, o->input_dims);
	stash_put(s, o->input_types);
	stash_put(s, o->concrete);
	if (!ti->has_ops_t0 || o->start < ti->ops_t0)
		ti->ops_t0 = o->start;
	ti->has_ops_t0 = 1;
}

void trace_add_range(struct trace *t, const struct trace_range *r)
{
	VEC_PUSH(t->ranges, t->n_ranges, impl(t)->cap_ranges, *r);
}

void trace_add_fwd_op(struct trace *t, const struct trace_fwd_op *o)
{
	VEC_PUSH(t->fwd_ops, t->n_fwd_ops, impl(t)->cap_fwd_ops, *o);
}

void trace_add_device(struct trace *t, const struct trace_device *d)
{
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].id == d->id) {
			t->devices[i] = *d;
			return;
		}
	VEC_PUSH(t->devices, t->n_devices, impl(t)->cap_devices, *d);
}

/* The entry for string id in an index by id (0: none yet), growing it geometrically: a trace
 * with a million distinct keys or categories stays linear. */
static size_t *index_slot(size_t **index, size_t *len, uint32_t id)
{
	if (id >= *len) {
		size_t n = *len * 2 > (size_t)id + 64 ? *len * 2 : (size_t)id + 64;

		*index = xreallocarray(*index, n, sizeof **index);
		memset(*index + *len, 0, (n - *len) * sizeof **index);
		*len = n;
	}
	return &(*index)[id];
}

uint32_t trace_intern_text(struct trace *t, const char *s, size_t len)
{
	size_t nuls = 0, k = 0;
	char *buf;
	uint32_t id;

	for (const char *p = s; (p = memchr(p, '\0', len - (size_t)(p - s))); p++)
		nuls++;
	if (!nuls)
		return intern_add(t->strings, s, len);
	buf = xmalloc(len + nuls);
	for (size_t i = 0; i < len; i++) {
		if (s[i]) {
			buf[k++] = s[i];
		} else {
			buf[k++] = '\\';
			buf[k++] = '0';
		}
	}
	id = intern_add(t->strings, buf, k);
	free(buf);
	return id;
}

void trace_add_meta(struct trace *t, uint32_t key, uint32_t value)
{
	struct trace_impl *ti = impl(t);
	size_t *slot = index_slot(&ti->meta_index, &ti->meta_index_len, key);

	if (*slot) {
		t->meta[*slot - 1].value = value;
		return;
	}
	VEC_PUSH(t->meta, t->n_meta, ti->cap_meta, ((struct trace_meta){ key, value }));
	*slot = t->n_meta;
}

void trace_count_category(struct trace *t, uint32_t cat)
{
	struct trace_impl *ti = impl(t);
	size_t *slot = index_slot(&ti->cat_index, &ti->cat_index_len, cat);

	if (!*slot) {
		VEC_PUSH(t->categories, t->n_categories, ti->cap_categories,
			 ((struct trace_category){ cat, 0 }));
		*slot = t->n_categories;
	}
	t->categories[*slot - 1].count++;
}

void trace_add_category(struct trace *t, uint32_t cat, int64_t n)
{
	struct trace_impl *ti = impl(t);
	size_t *slot = index_slot(&ti->cat_index, &ti->cat_index_len, cat);

	if (!*slot) {
		VEC_PUSH(t->categories, t->n_categories, ti->cap_categories,
			 ((struct trace_category){ cat, 0 }));
		*slot = t->n_categories;
	}
	t->categories[*slot - 1].count += n;
}

/* Room for n more in an array of len with capacity *cap. */
static void *reserve(void *p, size_t len, size_t *cap, size_t n, size_t size)
{
	if (len + n > *cap) {
		*cap = len + n;
		p = xreallocarray(p, *cap ? *cap : 1, size);
	}
	return p;
}

void trace_reserve(struct trace *t, size_t kernels, size_t launches, size_t ops, size_t ranges,
		   size_t fwd_ops)
{
	struct trace_impl *ti = impl(t);

	t->kernels =
		reserve(t->kernels, t->n_kernels, &ti->cap_kernels, kernels, sizeof *t->kernels);
	t->launches = reserve(t->launches, t->n_launches, &ti->cap_launches, launches,
			      sizeof *t->launches);
	t->ops = reserve(t->ops, t->n_ops, &ti->cap_ops, ops, sizeof *t->ops);
	t->ranges = reserve(t->ranges, t->n_ranges, &ti->cap_ranges, ranges, sizeof *t->ranges);
	t->fwd_ops =
		reserve(t->fwd_ops, t->n_fwd_ops, &ti->cap_fwd_ops, fwd_ops, sizeof *t->fwd_ops);
}

void trace_merge(struct trace *t, struct trace *part)
{
	uint32_t n = intern_count(part->strings), *map = xmalloc((n ? n : 1) * sizeof *map);
	uint32_t nd = intern_count(part->dims), *dmap = xmalloc((nd ? nd : 1) * sizeof *dmap);

	/* the part's strings in the order it met them: after t's own, as one pass would have */
	for (uint32_t i = 0; i < n; i++)
		map[i] = intern_add(t->strings, intern_str(part->strings, i),
				    intern_len(part->strings, i));
	for (uint32_t i = 0; i < nd; i++) /* and its launch configurations (0 stays 0) */
		dmap[i] = intern_add(t->dims, intern_str(part->dims, i), intern_len(part->dims, i));
	/* the kernels renamed in place and taken as they are while t has none and no more room
	 * (they come last, most of them in one part), else copied, as the other arrays are below
	 * (and freed): the peak grows by one array, not all */
	for (size_t i = 0; i < part->n_kernels; i++) {
		struct trace_kernel *k = &part->kernels[i];

		k->name = map[k->name];
		k->dims = k->dims < nd ? dmap[k->dims] : 0;
	}
	if (!t->n_kernels && impl(part)->cap_kernels >= impl(t)->cap_kernels) {
		free(t->kernels);
		t->kernels = part->kernels;
		t->n_kernels = part->n_kernels;
		impl(t)->cap_kernels = impl(part)->cap_kernels;
		part->kernels = NULL;
		impl(part)->cap_kernels = 0;
	} else {
		for (size_t i = 0; i < part->n_kernels; i++)
			trace_add_kernel(t, &part->kernels[i]);
		/* the array kept, empty, for trace_take_kernel_room() */
	}
	part->n_kernels = 0;
	{ /* the stashed launches as they are, renamed when they are read */
		struct trace_impl *ti = impl(t), *pi = impl(part);
		size_t k;

		if (pi->has_launches_t0 &&
		    (!ti->has_launches_t0 || pi->launches_t0 < ti->launches_t0))
			ti->launches_t0 = pi->launches_t0;
		ti->has_launches_t0 |= pi->has_launches_t0;
		for (size_t i = 0; i < pi->n_kernel_ids; i++)
			VEC_PUSH(ti->kernel_ids, ti->n_kernel_ids, ti->cap_kernel_ids,
				 pi->kernel_ids[i]);
		k = stash_append(&ti->launches, &pi->launches);
		if (k)
			seg_map_set(&ti->launch_seg, &ti->n_launch_seg, k,
				    (struct seg_map){ map, dmap, nd });
	}
	for (size_t i = 0; i < part->n_ops; i++) {
		struct trace_op o = op_renamed(part->ops[i], map);

		trace_add_op(t, &o);
	}
	free(part->ops);
	part->ops = NULL;
	for (size_t i = 0; i < part->n_ranges; i++) {
		struct trace_range r = part->ranges[i];

		r.name = map[r.name];
		trace_add_range(t, &r);
	}
	free(part->ranges);
	part->ranges = NULL;
	{ /* the stashed operators as they are, renamed when they are read */
		struct trace_impl *ti = impl(t), *pi = impl(part);
		size_t k;

		if (pi->has_ops_t0 && (!ti->has_ops_t0 || pi->ops_t0 < ti->ops_t0))
			ti->ops_t0 = pi->ops_t0;
		ti->has_ops_t0 |= pi->has_ops_t0;
		k = stash_append(&ti->ops, &pi->ops);
		if (k)
			seg_map_set(&ti->op_seg, &ti->n_op_seg, k,
				    (struct seg_map){ map, NULL, 0 });
	}
	for (size_t i = 0; i < part->n_fwd_ops; i++)
		trace_add_fwd_op(t, &part->fwd_ops[i]);
	for (size_t i = 0; i < part->n_categories; i++) {
		struct trace_impl *ti = impl(t);
		uint32_t cat = map[part->categories[i].name];
		size_t *slot = index_slot(&ti->cat_index, &ti->cat_index_len, cat);

		if (!*slot) {
			VEC_PUSH(t->categories, t->n_categories, ti->cap_categories,
				 ((struct trace_category){ cat, 0 }));
			*slot = t->n_categories;
		}
		t->categories[*slot - 1].count += part->categories[i].count;
	}
	t->n_events += part->n_events;
	{ /* the renamings live as long as the segments that use them */
		struct trace_impl *ti = impl(t);

		ti->maps = xreallocarray(ti->maps, ti->n_maps + 2, sizeof *ti->maps);
		ti->maps[ti->n_maps++] = map;
		ti->maps[ti->n_maps++] = dmap;
	}
}

void trace_warn(struct trace *t, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	t->n_warnings_total++;
	if (t->n_warnings >= TRACE_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	t->warnings[t->n_warnings++] = xstrdup(buf);
}
