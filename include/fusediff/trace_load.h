/* trace_load.h — a trace file of any format the readers know (Kineto JSON; the SQLite databases
 * of Nsight Systems, rocpd and rocmProfileData; rocprofv3's JSON and CSV) loaded into a struct
 * trace (trace.h): the format found from the first decompressed bytes, read, and the trace
 * finished (times, device, sorting, platform). Kineto JSON is streamed and only what the analysis needs is kept: GPU
 * kernels and copies, the CPU launch events that link them to operators, operator names and
 * input shapes, annotation ranges, nn.Module ranges, device properties and the version keys;
 * everything else is counted and skipped without building a tree. */
#ifndef FUSEDIFF_TRACE_LOAD_H
#define FUSEDIFF_TRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/fileset.h"
#include "fusediff/input.h"
#include "fusediff/trace.h"
#include "fusediff/util.h"

/* Called while loading with the compressed bytes read so far and the file size (-1 when
 * unknown). Return nonzero to cancel the load. */
typedef int (*trace_progress_fn)(void *user, int64_t done, int64_t total);

/* How the loader works, not what it yields: a trace loads the same whatever these say (for
 * benchmarks and tests). The program fills them from its environment (fusediff(1),
 * ENVIRONMENT); zeros are the defaults. */
struct trace_load_tuning {
	/* .serial (FUSEDIFF_SERIAL): gzip inflated on the loading thread, and a plain Kineto
	 * file parsed by one thread; .zlib (FUSEDIFF_INFLATE=zlib); .tmpdir (TMPDIR): also where a
	 * compressed SQLite file is decompressed for SQLite to open it */
	struct input_opts input;
	/* FUSEDIFF_SPLIT_MIN: > 0, the bytes of traceEvents a plain Kineto file must have left
	 * for two threads to parse them, cut into chunks of any size (1: even the smallest file
	 * into up to 32); 0: 8 MiB, in chunks of at least 16 MiB */
	int64_t split_min;
	int no_memo; /* FUSEDIFF_NO_MEMO: nothing remembered from one Kineto event for the next
			(every byte through the strict parser) */
};

struct trace_load_opts {
	int32_t device; /* select this device; -1: the one with the most kernel time;
			   TRACE_ALL_DEVICES: keep every device */
	trace_progress_fn progress;
	void *progress_user;
	/* Called once on the loading thread as a Kineto trace's events begin, once the loader's
	 * own threads run (the helper that parses part of a plain file, the reader that inflates
	 * a gzip one); not called for other formats. Work that the caller wants done meanwhile on
	 * a thread of its own is best started here: Linux put a thread started as the program
	 * began on the loader's core in 10 of 16 runs, holding it there for up to a scheduler
	 * tick (2 ms) while the other core idled. */
	void (*started)(void *user);
	void *started_user;
	int capture; /* a graph capture (capture.h): no kernel need have run */
	int sha256;  /* compute trace.sha256 (the JSON report's provenance) */
	/* a file found in a directory (a rank, a capture): opened only when it is a regular
	 * file (input_open_regular()) */
	int regular_only;
	struct file_set
		*reads; /* borrowed, or NULL: the file opened is recorded here (fileset.h) */
	struct trace_load_tuning tuning;
};

/* Load the trace at path ("-" reads standard input).
 * On success *out is owned by the caller: free with trace_free().
 * On failure returns -1 and err holds one line naming the file and, for bad JSON, the line
 * and column: "bad.json: line 3, column 17: expected ',' or '}' in object". */
int trace_load(struct trace **out, const char *path, const struct trace_load_opts *opts,
	       struct fd_error *err);
/* The same from memory (the name is used in messages). */
int trace_load_mem(struct trace **out, const char *name, const void *data, size_t len,
		   const struct trace_load_opts *opts, struct fd_error *err);

#endif
