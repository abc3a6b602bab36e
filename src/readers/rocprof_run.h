/* rocprof_run.h — what one run of a rocprofv3 JSON file holds (an element of
 * "rocprofiler-sdk-tool"), as small fixed records: rocprof_json.c reads them from the document,
 * rocprof_run.c makes them into the trace. Private to src/readers. */
#ifndef FUSEDIFF_ROCPROF_RUN_H
#define FUSEDIFF_ROCPROF_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/trace.h"

/* A string of a record (a copy, NUL-terminated; NULL: the member was missing or not a
 * string). */
struct text {
	char *s;
	size_t len;
};

struct agent_rec {
	int64_t handle, type, wave_front_size, cu_count, node;
	struct text product_name, name;
};

struct symbol_rec {
	int64_t id;
	struct text formatted, demangled, plain;
};

struct dispatch_rec {
	int64_t start, end, corr, kernel_id, agent, queue;
	int32_t grid[3], wg[3];
};

struct copy_rec {
	int64_t start, end, corr, dst, src, kind, op;
};

struct hip_rec {
	int64_t start, end, corr, tid, kind, op;
};

struct marker_rec {
	int64_t start, end, corr, tid;
};

/* strings.marker_api: [{"key": correlation id, "value": the range's text}]. */
struct marker {
	int64_t key;
	const char *text;
	size_t len;
};

/* strings.buffer_records[kind].operations, by kind. */
struct ops {
	struct text *name;
	size_t n, cap;
};

/* The members of a run, each the first of its name (seen: found, whatever its value). */
enum {
	SEEN_AGENTS = 1 << 0,
	SEEN_SYMBOLS = 1 << 1,
	SEEN_STRINGS = 1 << 2,
	SEEN_BUFFERS = 1 << 3,
	SEEN_DISPATCH = 1 << 4,
	SEEN_COPY = 1 << 5,
	SEEN_HIP = 1 << 6,
	SEEN_MARKER = 1 << 7,
	SEEN_S_BUFFERS = 1 << 8, /* strings.buffer_records */
	SEEN_S_MARKER = 1 << 9,	 /* strings.marker_api */
};

struct run {
	unsigned seen;
	int kd_array; /* buffer_records.kernel_dispatch is an array: the run is read */
	struct agent_rec *agents;
	size_t n_agents, cap_agents;
	struct symbol_rec *syms;
	size_t n_syms, cap_syms;
	struct ops *kinds;
	size_t n_kinds, cap_kinds;
	struct marker *texts;
	size_t n_texts, cap_texts;
	struct dispatch_rec *disp;
	size_t n_disp, cap_disp;
	struct copy_rec *copies;
	size_t n_copies, cap_copies;
	struct hip_rec *hip;
	size_t n_hip, cap_hip;
	struct marker_rec *markers;
	size_t n_markers, cap_markers;
	size_t n_marker_elems; /* buffer_records.marker_api's elements (records or not) */
};

/* Free what r holds and zero it (a run read again starts empty). */
void rocprof_run_free(struct run *r);

/* Make run r into t when it had buffer_records.kernel_dispatch (an array), in the order the
 * records' references need (agents and symbols before the dispatches, copies, HIP launches
 * and markers that name them): 1. 0 when it had none (nothing added). r is freed either
 * way. */
int rocprof_run_make(struct trace *t, struct run *r);

#endif
