/* trace_load.c — open a trace of any format the loader knows (formats.h) and finish it. */
#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "fusediff/trace.h"
#include "trace_build.h"

/* Every format, in the order they are tried; the last one takes what no format claims. */
static const struct trace_format *const trace_formats[] = {
	&trace_format_sqlite,
	&trace_format_rocprof_json,
	&trace_format_rocprof_csv,
	&trace_format_kineto,
};
#define N_FORMATS (sizeof trace_formats / sizeof trace_formats[0])

static const struct trace_format *detect(struct input *in, struct fd_error *err)
{
	const unsigned char *head;
	ssize_t n = input_peek(in, &head, INPUT_PEEK_MAX, err);

	if (n < 0)
		return NULL;
	for (size_t i = 0; i < N_FORMATS; i++)
		if (trace_formats[i]->detect(head, (size_t)n))
			return trace_formats[i];
	return trace_formats[N_FORMATS - 1];
}

static int load(struct trace **out, const char *name, struct input *in,
		const struct trace_load_opts *opts, struct fd_error *err)
{
	const struct trace_format *f;
	struct trace *t;
	int rc;

	*out = NULL;
	err->msg[0] = '\0';
	f = detect(in, err);
	if (!f) {
		char msg[FD_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		fd_error_set(err, "%s: %s", name, msg);
		input_close(in);
		return -1;
	}
	t = trace_new(name);
	t->gzip = input_is_gzip(in);
	t->format = f->name;
	rc = f->load(t, in, name, opts, err);
	if (rc == 0)
		rc = trace_finish(t, opts ? opts->device : -1, opts ? opts->capture : 0, err);
	input_close(in);
	if (rc < 0) {
		trace_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

int trace_load(struct trace **out, const char *path, const struct trace_load_opts *opts,
	       struct fd_error *err)
{
	struct input *in;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;

	*out = NULL;
	if (input_open(&in, path, err) < 0) {
		char msg[FD_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		fd_error_set(err, "%s: %s", name, msg);
		return -1;
	}
	return load(out, name, in, opts, err);
}

int trace_load_mem(struct trace **out, const char *name, const void *data, size_t len,
		   const struct trace_load_opts *opts, struct fd_error *err)
{
	return load(out, name, input_open_mem(data, len), opts, err);
}
