/* formats.h — the input formats the loader reads, one entry each (private to src/readers).
 *
 * trace_load() (trace_load.c) peeks at the first decompressed bytes of the input and gives the
 * input to the first format in trace_formats[] whose detect() claims it, else to the last one,
 * whose errors then say what was expected. A format's load() adds what the input holds to a new
 * trace (trace_build.h); trace_load() finishes it (times, device, sorting, platform). A new
 * format is one file with its entry, and one line in trace_formats[]. */
#ifndef FUSEDIFF_FORMATS_H
#define FUSEDIFF_FORMATS_H

#include <stddef.h>

#include "fusediff/input.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

struct trace_format {
	const char *name; /* as shown to the user: "Kineto JSON" */
	/* 1 when head, the first n decompressed bytes (n <= INPUT_PEEK_MAX, fewer only at the end
	 * of a short input), starts a file of this format. */
	int (*detect)(const unsigned char *head, size_t n);
	/* Read in (borrowed) into t. name is the file's name for messages. Returns 0, or -1 with
	 * a message that names the file in err. */
	int (*load)(struct trace *t, struct input *in, const char *name,
		    const struct trace_load_opts *opts, struct fd_error *err);
};

extern const struct trace_format trace_format_kineto;
extern const struct trace_format trace_format_sqlite;
extern const struct trace_format trace_format_rocprof_json;
extern const struct trace_format trace_format_rocprof_csv;

#endif
