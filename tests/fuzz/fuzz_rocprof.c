/* fuzz_rocprof.c — libFuzzer target: the readers of rocprofv3's JSON and kernel_trace.csv.
 *
 * Inputs that do not start as one of those files (the loader would give them to another
 * format) are passed over, so that the whole budget goes to these two readers; the rest are
 * loaded with trace_load_mem(), as they are and gzip-compressed (the gzip reader hands them
 * over in other pieces). Besides crashes, leaks and undefined behaviour it aborts when a promise
 * of trace.h is broken (fuzz_load_check.h) or when the two loads disagree; libFuzzer's
 * -rss_limit_mb catches an allocation sized by a number in the file rather than by the file.
 *
 * Seeds (tests/fuzz/seeds/rocprof/): cuts of the rocprofv3 files of tests/data/profilers and
 * hand-made ones (a kernel_id of 10^8, operations looked up by index, NULs in a CSV). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

#define NAME	    "fuzz.json"
#define FUZZ_TARGET "fuzz_rocprof"
#include "fuzz_load_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when data starts like rocprofv3 JSON or a kernel_trace.csv (as their detect() functions
 * see them, roughly: the reader decides). */
static int rocprof_like(const uint8_t *data, size_t size)
{
	static const char *const starts[] = { "{\"rocprofiler-sdk-tool\"", "\"Kind\",\"Agent_Id\"",
					      "Kind,Agent_Id", "\"Guid\",\"Kind\"", "Guid,Kind" };

	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
		if (size >= strlen(starts[i]) && memcmp(data, starts[i], strlen(starts[i])) == 0)
			return 1;
	return 0;
}

/* data gzip-compressed, in a buffer to free; *out_len its length. */
static unsigned char *gzip(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream z;
	size_t cap = size + size / 100 + 64;
	unsigned char *out = malloc(cap);

	memset(&z, 0, sizeof z);
	if (!out || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = (struct trace *)1, *u = (struct trace *)1;
	struct fd_error err = { { 0 } }, err2 = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	unsigned char *gz;
	size_t gz_len;
	int rc, rc2;

	if (!rocprof_like(data, size))
		return 0;
	rc = trace_load_mem(&t, NAME, data, size, &lo, &err);
	if (rc < 0)
		check_error(t, &err);
	else
		check_trace(t);
	gz = gzip(data, size, &gz_len);
	rc2 = trace_load_mem(&u, NAME, gz, gz_len, &lo, &err2);
	free(gz);
	require(rc == rc2, "the gzip-compressed file loads as the file does");
	if (rc < 0) {
		require(strcmp(err.msg, err2.msg) == 0, "the same error, compressed or not");
	} else {
		require(t->n_kernels == u->n_kernels && t->n_events == u->n_events,
			"the same trace, compressed or not");
		trace_free(t);
		trace_free(u);
	}
	return 0;
}
