/* trace_build.h — private to the trace module: how the loader fills a struct trace. */
#ifndef FUSEDIFF_TRACE_BUILD_H
#define FUSEDIFF_TRACE_BUILD_H

#include "fusediff/trace.h"

/* end - start for an event of a profiler's table, or -1 when the times cannot be kept (before
 * 0, beyond TRACE_TIME_MAX, or ending before they start): never an overflow, whatever the
 * file holds. */
static inline int64_t trace_span_dur(int64_t start, int64_t end)
{
	return start >= 0 && end >= start && end <= TRACE_TIME_MAX ? end - start : -1;
}

struct trace *trace_new(const char *path);
/* Said of a trace that will be large (a part of a big file, bytes of it: kineto_chunks.c):
 * its kernels and stashes start on huge pages rather than growing through small ones, a page
 * fault each 4 KiB (a part's arrays start empty, where one pass's had grown already). */
void trace_expect_large(struct trace *t, int64_t bytes);
/* The room of a trace without kernels: its kernel array (NULL when it has none) and its
 * capacity in *cap, taken from it, for another trace (trace_give_kernel_room()): the pages of
 * a merged part's array, already faulted, for the next part. */
struct trace_kernel *trace_take_kernel_room(struct trace *t, size_t *cap);
/* Give a trace without kernels the array room of cap kernels (trace_take_kernel_room()), in
 * place of its own when it is larger. */
void trace_give_kernel_room(struct trace *t, struct trace_kernel *room, size_t cap);
void trace_add_kernel(struct trace *t, const struct trace_kernel *k);
/* The id of a launch configuration (0 when every dimension is 0), for .dims. */
uint32_t trace_add_dims(struct trace *t, const int32_t grid[3], const int32_t block[3]);
void trace_add_launch(struct trace *t, const struct trace_launch *l);
void trace_add_op(struct trace *t, const struct trace_op *o);
/* An operator kept packed until trace_finish(), which unpacks only those that a kernel or a
 * launch refers to (the Kineto loader: operators outnumber kernels several times over). */
void trace_stash_op(struct trace *t, const struct trace_op *o);
void trace_add_range(struct trace *t, const struct trace_range *r);
void trace_add_fwd_op(struct trace *t, const struct trace_fwd_op *o);
void trace_add_device(struct trace *t, const struct trace_device *d);
void trace_add_meta(struct trace *t, uint32_t key, uint32_t value);
void trace_count_category(struct trace *t, uint32_t cat);
/* Intern len bytes of text from a profiler's table, a NUL byte written as the two characters
 * "\\0" as the JSON reader writes one (json.h): a name never ends early, and two names that
 * differ after a NUL stay two. */
uint32_t trace_intern_text(struct trace *t, const char *s, size_t len);
/* Append what a part of the same file (loaded into a trace of its own, kineto_chunks.c) holds:
 * its strings (and launch configurations) interned in its order, its records with their names
 * (and configurations) renamed, its category counts
 * and events. The result is what one pass over both parts would have built. Only the event
 * records: a part holds no devices, metadata or warnings. The part's record arrays are taken
 * (its kernels, while t has none) or freed as they are copied (its kernel array is kept,
 * empty: trace_take_kernel_room()): only trace_free() it afterwards. */
void trace_merge(struct trace *t, struct trace *part);
/* Kernels of one graph launch whose times are attached to the wrong kernels (listed order
 * and time order disagree) get the group's time slots in listed order (graph_times.c).
 * Returns how many kernels were changed; adds a warning when any was. */
size_t trace_repair_graph_times(struct trace *t);
/* After the last event: make times relative, select the device, sort, detect the platform.
 * Fails when no kernel is left. */
int trace_finish(struct trace *t, int32_t device, int capture, struct fd_error *err);
/* Sort launches, operators and ranges again after they were added to (capture.c). */
void trace_resort(struct trace *t);
/* The same for every array a finished trace sorts, kernels and forward operators too
 * (trace_append.c). */
void trace_sort_all(struct trace *t);
/* Count n more events of category cat (string id). */
void trace_add_category(struct trace *t, uint32_t cat, int64_t n);
/* Make room for n more kernels, launches, operators, ranges and forward operators of
 * the sizes given (trace_append.c). */
void trace_reserve(struct trace *t, size_t kernels, size_t launches, size_t ops, size_t ranges,
		   size_t fwd_ops);

#endif
