/* trace_impl.h — private to the trace module: what a struct trace holds while it is built
 * (trace.c) and until it is finished (trace_finish.c). */
#ifndef FUSEDIFF_TRACE_IMPL_H
#define FUSEDIFF_TRACE_IMPL_H

#include "stash.h"
#include "trace_build.h"

struct trace_impl {
	struct trace t; /* first: a struct trace * is a struct trace_impl * */
	size_t cap_kernels, cap_launches, cap_ops, cap_ranges, cap_devices, cap_categories,
		cap_meta, cap_fwd_ops;
	size_t cap_threads;
	struct intern *thread_ids; /* t->threads: a thread id's 8 bytes -> index + 1 */
	size_t *cat_index;	   /* category id -> index + 1 */
	size_t cat_index_len;
	size_t *meta_index; /* key id -> index + 1 */
	size_t meta_index_len;
	/* Operators stashed while loading (trace_stash_op), packed: the deltas of start,
	 * external_id and tid from the previous operator's, then dur, name, dims, types,
	 * concrete inputs. */
	struct stash ops;
	int64_t ops_t0; /* the earliest start of every stashed operator, kept or not */
	int has_ops_t0;
	/* Launches until trace_finish() (trace_add_launch): the deltas of start, correlation,
	 * external_id and tid, then dur, name, kernel and, with a kernel, its dims. A launch
	 * is 12-16 bytes so, not 56, until trace_finish() folds it into its kernels. */
	struct stash launches;
	int64_t launches_t0; /* the earliest start of a stashed launch */
	int has_launches_t0;
	int finished;	     /* trace_finish() ran: a launch added goes straight into the array */
	int64_t *kernel_ids; /* the external_id of each stashed launch that names its kernel */
	size_t n_kernel_ids, cap_kernel_ids;
	/* The stashes of merged parts are appended as they are (stash_append): their records
	 * name strings and launch configurations by the part's ids, renamed as they are read.
	 * op_seg[k], launch_seg[k]: the renaming of segment k (none for a segment of our own). */
	struct seg_map {
		uint32_t *map;	/* string ids: owned by maps below */
		uint32_t *dmap; /* launch configurations, nd of them */
		uint32_t nd;
	} * op_seg, *launch_seg;
	size_t n_op_seg, n_launch_seg;
	uint32_t **maps; /* the renamings, owned */
	size_t n_maps;
};

static inline struct trace_impl *impl(struct trace *t)
{
	return (struct trace_impl *)t;
}

/* The renaming of segment k of a stash (NULL: its ids are the trace's own). */
static inline const struct seg_map *seg_map_of(const struct seg_map *v, size_t n, size_t k)
{
	return k < n && v[k].map ? &v[k] : NULL;
}

/* An operator of a part with its string ids in the merged trace's table. */
static inline struct trace_op op_renamed(struct trace_op o, const uint32_t *map)
{
	o.name = map[o.name];
	o.input_dims = map[o.input_dims];
	o.input_types = map[o.input_types];
	o.concrete = map[o.concrete];
	return o;
}

/* Free the renamings of the merged parts' segments (every stash is read). */
void trace_free_seg_maps(struct trace_impl *ti);

#endif
