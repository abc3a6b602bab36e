/* trace.h — one loaded PyTorch-profiler (Kineto) trace: the events fusediff keeps (the readers
 * fill it: trace_load(), trace_load.h): GPU kernels and copies, the CPU launch events that link
 * them to operators, operator names and input shapes, annotation ranges, nn.Module ranges,
 * device properties and the version keys.
 *
 * Times are integer nanoseconds relative to the trace start (the earliest kept event).
 * All strings are interned in trace->strings; fields named `name` and the like are ids
 * (look them up with trace_str()). */
#ifndef FUSEDIFF_TRACE_H
#define FUSEDIFF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/intern.h"
#include "fusediff/util.h"

enum trace_platform { PLATFORM_UNKNOWN, PLATFORM_AMD, PLATFORM_NVIDIA };

enum kernel_kind { KIND_KERNEL, KIND_MEMCPY, KIND_MEMSET };

/* Every kept event has 0 <= start, 0 <= dur and start + dur <= TRACE_TIME_MAX (ns, about 219
 * years), and the durations of the kernels and copies on the selected device add up to at most
 * TRACE_TIME_MAX: adding them up cannot overflow. The loader skips events whose times are
 * beyond this (counted in a warning) and rejects a trace whose kernel times add up to more. */
#define TRACE_TIME_MAX (INT64_C(3) << 61)

/* A launch configuration. Kernels and launches name theirs by an id into trace.dims
 * (trace_add_dims, trace_dims_get): a trace has a few hundred distinct ones, and 24 bytes in
 * every record of a 1 GB trace are 20 MB. Id 0 is all zeros (absent). */
struct trace_dims {
	int32_t grid[3], block[3];
};
#define TRACE_DIMS_MAX (1u << 30) /* ids that struct trace_kernel.dims holds */

/* A GPU kernel, memcpy or memset on the selected device, sorted by start. */
struct trace_kernel {
	int64_t start, dur;
	int64_t correlation; /* links to the launch event; 0 when absent */
	int64_t external_id; /* links to the cpu_op; 0 when absent */
	/* Its launch event (the runtime call of the same correlation id; of several, the one
	 * that starts first), folded in by trace_finish(): the CPU time it started, -1 when the
	 * trace has none; launch_thread names the thread that made it (trace_launch_tid()). */
	int64_t launch;
	uint32_t name;
	int32_t stream;
	int16_t device;		/* trace_device_id() */
	uint16_t launch_thread; /* index into trace.threads */
	uint32_t dims : 30;	/* grid and block (trace_dims_get); a bit field, so that a kernel */
	uint32_t kind : 2;	/* enum kernel_kind                 takes 56 bytes, not 64 */
};

/* A device id as a kernel holds it: -1 for one beyond int16 (a GPU numbers its devices from
 * 0; a damaged trace may say anything). */
static inline int16_t trace_device_id(int64_t id)
{
	return id < INT16_MIN || id > INT16_MAX ? -1 : (int16_t)id;
}

/* Threads that a trace can name as a kernel's launcher (trace_kernel.launch_thread): a
 * kernel launched by another has no launch (trace_finish() warns). */
#define TRACE_THREADS_MAX 65535u

/* A runtime/driver call (cudaLaunchKernel, hipLaunchKernel, cuLaunchKernel, ...), sorted by
 * correlation. A finished trace keeps only the calls that are more than one kernel's launch:
 * a graph launch (cudaGraphLaunch, hipGraphLaunch: the kernels it replays share its
 * correlation id), a call that several kernels name, and a graph capture's launches (they
 * name the kernel they record). The launch of one kernel is folded into it
 * (trace_kernel.launch) and the calls that launched no kept kernel are dropped, as the
 * operators are: a launch record per kernel would take as much memory as the kernels. */
struct trace_launch {
	int64_t start, dur;
	int64_t correlation, external_id;
	int64_t tid;
	uint32_t name;
	uint32_t kernel; /* the kernel it launches, when the trace says (args.kernel: a graph
			    capture records it); 0 otherwise */
	uint32_t dims;	 /* with kernel: its grid and block (trace_dims_get) */
};

/* A CPU operator (cpu_op) that launched a kept kernel (the loader drops the others, which
 * outnumber kernels several times over), sorted by external_id. input_dims is the compact JSON
 * text of args["Input Dims"] ("[[4,512],[]]"), input_types that of args["Input type"]
 * ("[\"c10::BFloat16\",\"\"]") and concrete that of args["Concrete Inputs"]
 * ("[\"\",\"0.\",\"True\"]"); each 0 when absent (the shapes and the efficiency figures,
 * efficiency.h, come from them). */
struct trace_op {
	int64_t start, dur;
	int64_t external_id;
	int64_t tid;
	uint32_t name, input_dims, input_types, concrete;
};

/* A forward operator that autograd numbered (args["Sequence number"]): the backward node of the
 * same number computes its gradient. Sorted by seq, then start. */
struct trace_fwd_op {
	int64_t seq;
	int64_t start, tid;
};

enum range_kind {
	RANGE_USER,	/* user_annotation: CPU side of record_function */
	RANGE_GPU_USER, /* gpu_user_annotation: the same range on the GPU timeline */
	RANGE_MODULE,	/* python_function "nn.Module: Name_N" */
	RANGE_BACKWARD, /* cpu_op "autograd::engine::evaluate_function: MulBackward0": one node
			   of the backward pass */
};

/* A time range, sorted by start (then longest first). For RANGE_GPU_USER, pid/tid are the
 * device and stream. */
struct trace_range {
	int64_t start, dur;
	int64_t external_id;
	int64_t seq; /* RANGE_BACKWARD: the sequence number of the forward op it is the gradient
			of (struct trace_fwd_op), -1 when absent; -1 for other ranges */
	int64_t pid, tid;
	uint32_t name;
	uint8_t kind; /* enum range_kind */
};

/* A GPU, from deviceProperties, plus what the trace ran on it. Devices that ran kernels but
 * are missing from deviceProperties are listed too, with name 0 and warp_size 0. */
struct trace_device {
	int32_t id;
	uint32_t name;
	int32_t warp_size, num_sms, compute_major, compute_minor;
	int64_t total_mem;
	int64_t kernels;       /* kernel, memcpy and memset events on this device */
	int64_t kernel_events; /* of which kernels */
	int64_t kernel_time;   /* their total duration, ns */
};

/* Events counted by their "cat" (events without one are counted as "(none)"). */
struct trace_category {
	uint32_t name;
	int64_t count;
};

/* A top-level scalar key (cuda_runtime_version, trace_id, ...) and its value as text. */
struct trace_meta {
	uint32_t key, value;
};

#define TRACE_MAX_WARNINGS 20

/* The graph capture joined to a replay trace (capture.h). */
struct trace_capture {
	char *path;	      /* the capture trace joined, NULL when none */
	size_t graphs;	      /* graph launches of the replay */
	size_t graph_kernels; /* kernels they replayed */
	size_t joined;	      /* of which joined to a captured launch */
};

/* One capture of a trace that pools several (trace_append()). */
struct trace_repeat {
	char *path;	   /* as given */
	int64_t start;	   /* where its times begin in the pooled trace, ns: its records lie in
			      [start, the next capture's start) */
	int64_t file_size; /* its trace.file_size: bytes of the file, -1 when unknown */
	char sha256[65];   /* its trace.sha256: "" when not asked for */
};

struct trace {
	char *path;		/* as given */
	struct intern *strings; /* all names */
	struct intern *dims;	/* the launch configurations, as 24-byte struct trace_dims */
	struct trace_kernel *kernels;
	size_t n_kernels;	/* kernels + copies on the selected device */
	size_t n_kernel_events; /* of which KIND_KERNEL */
	size_t n_other_device;	/* kernels and copies on other devices, dropped */
	struct trace_launch *launches;
	size_t n_launches;
	int64_t *threads; /* the threads that launched kernels (trace_kernel.launch_thread) */
	size_t n_threads;
	struct trace_op *ops;
	size_t n_ops;
	struct trace_range *ranges;
	size_t n_ranges;
	struct trace_fwd_op *fwd_ops;
	size_t n_fwd_ops;
	struct trace_device *devices;
	size_t n_devices;
	struct trace_category *categories;
	size_t n_categories;
	struct trace_meta *meta;
	size_t n_meta;
	int64_t n_events; /* all entries of traceEvents */
	int64_t bytes;	  /* uncompressed JSON bytes read */
	int gzip;
	const char *format; /* static text: the input format, "Kineto JSON" */
	int64_t file_size;  /* bytes of the file as it is (compressed), -1 when unknown (a pipe) */
	char sha256[65];    /* of the file as it is, when trace_load_opts.sha256 asked; "" else */

	enum trace_platform platform;
	const char *platform_reason; /* static text: which key decided it */
	int32_t device;		     /* the selected device id, or TRACE_ALL_DEVICES */
	uint32_t gpu_name;	     /* of the selected device; 0 when unknown */
	int64_t start_ns;	     /* absolute time of the trace start, ns */
	int64_t rank, world_size;    /* from distributedInfo; -1 when absent */

	struct trace_capture capture;
	/* The captures pooled by trace_append(), the first (this trace's own) included, in
	 * order; none (NULL, 0) when the trace is one file. */
	struct trace_repeat *repeats;
	size_t n_repeats;

	char *warnings[TRACE_MAX_WARNINGS]; /* damage that was tolerated */
	size_t n_warnings, n_warnings_total;
};

/* trace_load_opts.device and trace.device: the kernels of every device, as one timeline. */
#define TRACE_ALL_DEVICES (-2)

/* Free a trace (trace_load(), trace_load.h); NULL is ignored. */
void trace_free(struct trace *t);

/* The thread that launched kernel k (its launch_thread; when k->launch >= 0). */
static inline int64_t trace_launch_tid(const struct trace *t, const struct trace_kernel *k)
{
	return t->threads[k->launch_thread];
}

/* The index of thread tid in t->threads, added when new; -1 when TRACE_THREADS_MAX are there
 * already. */
int32_t trace_thread_index(struct trace *t, int64_t tid);

/* The grid and block of dims id (struct trace_kernel.dims, struct trace_launch.dims): all
 * zeros for 0 or an unknown id. */
void trace_dims_get(const struct trace *t, uint32_t id, struct trace_dims *out);

/* The interned string with this id (borrowed). */
static inline const char *trace_str(const struct trace *t, uint32_t id)
{
	return intern_str(t->strings, id);
}

/* "AMD", "NVIDIA" or "unknown". */
const char *trace_platform_name(enum trace_platform p);
/* The launch event with this correlation id that the trace keeps (struct trace_launch: a
 * graph launch, a captured launch), or NULL. */
const struct trace_launch *trace_find_launch(const struct trace *t, int64_t correlation);
/* The cpu_op with this External id, or NULL. */
const struct trace_op *trace_find_op(const struct trace *t, int64_t external_id);
/* Whether a runtime call of this name launches a CUDA or HIP graph (cudaGraphLaunch, ...). */
int trace_is_graph_launch(const char *name);
/* What trace_find_op() gives for every kernel, in one pass (each search starts from the
 * previous kernel's answer): op_of[i] (room for t->n_kernels, owned by the caller) receives
 * the index into t->ops, or UINT32_MAX when kernel i has none (or its id is 0). The operator
 * of the kernel's External id counts only when the kernel's launch (when known) lies inside
 * its CPU range on the launching thread; else op_of[i] is the innermost operator around the
 * launch, or none (traces whose External ids are correlation ids). Returns how many
 * External-id links were rejected so. */
size_t trace_link_kernels(const struct trace *t, uint32_t *op_of);
/* The nn.Module calls (RANGE_MODULE ranges) around each kernel's launch: module_of[k] (room
 * for t->n_kernels) is the innermost one whose CPU interval holds kernel k's launch on the
 * launching thread, as an index into t->ranges, or UINT32_MAX; parent[r] (room for
 * t->n_ranges, or NULL) the next module call out around range r, or UINT32_MAX. Owned by the
 * caller. */
void trace_module_calls(const struct trace *t, uint32_t *module_of, uint32_t *parent);
/* The forward operator with sequence number seq (the first of that number), or NULL. */
const struct trace_fwd_op *trace_find_fwd_op(const struct trace *t, int64_t seq);
/* The value of a top-level scalar key, or NULL. */
const char *trace_meta_get(const struct trace *t, const char *key);
/* Count of events with this category, 0 when none. */
int64_t trace_category_count(const struct trace *t, const char *cat);
/* Total duration of the kernels (KIND_KERNEL only), ns. */
int64_t trace_kernel_time(const struct trace *t);
/* Pool src, another capture of the same run, into dst as samples of one comparison: src's
 * records are appended after dst's, every time shifted so that src begins gap_ns (at least 1)
 * after dst's last event ends; its correlation and External ids and its autograd sequence
 * numbers are moved past dst's (0 and -1, absent, stay so), so that nothing links across
 * captures; its names and launch configurations are interned into dst's tables; every array
 * stays sorted as documented above. Device kernel counts and times, categories, events, bytes
 * and the kernel counts add up; dst keeps its own path, metadata, platform, device, start
 * and graph capture; src's warnings become dst's, prefixed with src's path. dst->repeats
 * records both captures (dst's own first), each with its path, file size and SHA-256. src is unchanged. Returns 0, or -1 with a message
 * naming src (the pooled times or ids would not fit) and dst unchanged. */
int trace_append(struct trace *dst, const struct trace *src, int64_t gap_ns, struct fd_error *err);
/* The capture of dst->repeats that time t (ns, in the pooled trace) lies in: its index, 0 when
 * the trace pools none. */
size_t trace_repeat_at(const struct trace *t, int64_t time);
/* Add a warning (formatted); only the first TRACE_MAX_WARNINGS are kept, all are counted. */
void trace_warn(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
