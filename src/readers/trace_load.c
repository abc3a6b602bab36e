/* trace_load.c — open a trace of any format the loader knows (formats.h) and finish it. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats.h"
#include "fusediff/trace_load.h"
#include "../trace/trace_build.h"

/* Every format, in the order they are tried; the last one takes what no format claims. */
static const struct trace_format *const trace_formats[] = {
	&trace_format_sqlite,
	&trace_format_rocprof_json,
	&trace_format_rocprof_csv,
	&trace_format_kineto,
};
#define N_FORMATS (sizeof trace_formats / sizeof trace_formats[0])

/* What a file that no format claims looks like, when its first bytes say: an encoding or a
 * compressor fusediff does not read. NULL when they say nothing (the last format's parser
 * then reports where it fails). */
static const char *what_it_is(const unsigned char *h, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{ "\xff\xfe\0\0", 4,
		  "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)" },
		{ "\0\0\xfe\xff", 4,
		  "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)" },
		{ "\xff\xfe", 2,
		  "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)" },
		{ "\xfe\xff", 2,
		  "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)" },
		{ "BZh", 3,
		  "bzip2-compressed: fusediff reads gzip; decompress it first (bzip2 -dc)" },
		{ "\xfd"
		  "7zXZ\0",
		  6, "xz-compressed: fusediff reads gzip; decompress it first (xz -dc)" },
		{ "\x28\xb5\x2f\xfd", 4,
		  "zstd-compressed: fusediff reads gzip; decompress it first (zstd -dc)" },
		{ "PK\x03\x04", 4, "a zip archive: extract the trace first (unzip)" },
		{ "\x1f\x8b", 2,
		  "gzip inside gzip: decompress it once first (gzip -dc FILE | gzip -dc)" },
	};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (n >= known[i].len && memcmp(h, known[i].magic, known[i].len) == 0)
			return known[i].what;
	/* zlib: CMF 0x78 and a header checksum divisible by 31 */
	if (n >= 2 && h[0] == 0x78 && ((h[0] << 8) | h[1]) % 31 == 0)
		return "zlib data without a gzip header: fusediff reads gzip (.gz) files";
	if (n >= 2 && h[0] == 0 && h[1] != 0)
		return "UTF-16 text (big-endian, no byte order mark): convert it to UTF-8 first";
	if (n >= 2 && h[0] != 0 && h[1] == 0)
		return "UTF-16 text (no byte order mark): convert it to UTF-8 first";
	return NULL;
}

static const struct trace_format *detect(struct input *in, struct fd_error *err)
{
	const unsigned char *head;
	ssize_t n = input_peek(in, &head, INPUT_PEEK_MAX, err);
	const char *what;

	if (n < 0)
		return NULL;
	/* first: no format starts like these, and the last one takes anything ('{' then NUL:
	 * UTF-16 without a byte order mark was parsed as JSON) */
	what = what_it_is(head, (size_t)n);
	if (what) {
		fd_error_set(err, "%s", what);
		return NULL;
	}
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
	if (opts && opts->sha256)
		input_hash(in);
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
	t->file_size = input_raw_size(in);
	if (rc == 0 && opts && opts->sha256)
		input_sha256(in, t->sha256);
	input_close(in); /* before finishing: its buffers (and a reader's ring) are not needed */
	if (rc == 0)
		rc = trace_finish(t, opts ? opts->device : -1, opts ? opts->capture : 0, err);
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
	const struct input_opts *io = opts ? &opts->tuning.input : NULL;

	*out = NULL;
	if ((opts && opts->regular_only ? input_open_regular(&in, path, io, err)
					: input_open(&in, path, io, err)) < 0) {
		char msg[FD_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		fd_error_set(err, "%s: %s", name, msg);
		return -1;
	}
	if (opts && opts->reads) { /* read from here on: no output may replace it */
		struct stat st;

		if (input_stat(in, &st) == 0)
			file_set_add_stat(opts->reads, &st, name);
	}
	return load(out, name, in, opts, err);
}

int trace_load_mem(struct trace **out, const char *name, const void *data, size_t len,
		   const struct trace_load_opts *opts, struct fd_error *err)
{
	return load(out, name, input_open_mem(data, len, opts ? &opts->tuning.input : NULL), opts,
		    err);
}
