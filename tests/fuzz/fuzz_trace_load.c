/* fuzz_trace_load.c — libFuzzer target: trace_load_mem() and --summary on arbitrary bytes.
 *
 * Built by `make fuzz` with clang and ASan/UBSan (tests/fuzz/fuzz.mk, tests/fuzz/README.md).
 * Besides crashes, leaks and undefined behaviour, it aborts when a promise of trace.h is
 * broken: a failed load leaves *out NULL and one non-empty line that names the file; a
 * successful one has at least one kernel, sorted by start, with times that cannot overflow
 * when added, and every array sorted as documented. Each input is also loaded with its
 * traceEvents cut into chunks that two threads parse (split_min 1, as FUSEDIFF_SPLIT_MIN=1: up
 * to 32 chunks), which must fail with the same message or print the same summary as the load
 * by one thread with its fast paths: for an input of odd size with nothing remembered from one
 * event for the next (no_memo, as FUSEDIFF_NO_MEMO=1: every byte parsed by the strict parser
 * alone), for one of even size with the fast paths too (each thread's memos serve its next
 * chunk, emptied). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace_summary.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

#define NAME	    "fuzz.json"
#define FUZZ_TARGET "fuzz_trace_load"
#include "fuzz_load_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The summary of t, in a buffer to free. */
static char *summary_text(const struct trace *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	require(f != NULL, "open_memstream()");
	require(trace_summary_print(f, t, NULL, NULL, NULL, NULL) == 0,
		"trace_summary_print() writes");
	fclose(f);
	return buf;
}

/* The same bytes loaded by two threads (without the fast paths where size is odd): the same
 * error, or the same summary. */
static void check_split(const uint8_t *data, size_t size, const struct trace *t,
			const struct fd_error *err)
{
	struct trace *u = (struct trace *)1;
	struct fd_error err2 = { { 0 } };
	struct trace_load_opts lo = { .device = -1, .tuning = { .split_min = 1 } };
	int rc;

	lo.tuning.no_memo = size & 1;

	rc = trace_load_mem(&u, NAME, data, size, &lo, &err2);
	if (!t) {
		require(rc < 0, "two threads load what one thread rejects");
		require(strcmp(err->msg, err2.msg) == 0, "two threads fail with the same message");
		return;
	}
	require(rc == 0, "two threads reject what one thread loads");
	{
		size_t la, lb;
		char *a = summary_text(t, &la), *b = summary_text(u, &lb);

		require(la == lb && memcmp(a, b, la) == 0, "two threads print the same summary");
		free(a);
		free(b);
	}
	trace_free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct trace *t = (struct trace *)1;
	struct fd_error err = { { 0 } };
	/* one thread: no input is that large */
	struct trace_load_opts lo = { .device = -1, .tuning = { .split_min = 999999999999 } };

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	if (trace_load_mem(&t, NAME, data, size, &lo, &err) < 0) {
		check_error(t, &err);
		check_split(data, size, NULL, &err);
		return 0;
	}
	check_trace(t);
	require(trace_summary_print(sink, t, NULL, NULL, NULL, NULL) == 0,
		"trace_summary_print() writes");
	check_split(data, size, t, &err);
	/* --device N: the device with the fewest kernels must load as well. */
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].kernels && t->devices[i].id != t->device && t->devices[i].id >= 0)
			lo.device = t->devices[i].id;
	if (lo.device >= 0) {
		struct trace *u = (struct trace *)1;

		if (trace_load_mem(&u, NAME, data, size, &lo, &err) == 0) {
			require(u->device == lo.device, "--device selects that device");
			check_trace(u);
			trace_free(u);
		} else {
			check_error(u, &err);
		}
	}
	trace_free(t);
	return 0;
}
