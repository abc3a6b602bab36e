/* fuzz_trace_load.c — libFuzzer target: trace_load_mem() and --summary on arbitrary bytes.
 *
 * Built by `make fuzz` with clang and ASan/UBSan (tests/fuzz/fuzz.mk, tests/fuzz/README.md).
 * Besides crashes, leaks and undefined behaviour, it aborts when a promise of trace.h is
 * broken: a failed load leaves *out NULL and one non-empty line that names the file; a
 * successful one has at least one kernel, sorted by start, with times that cannot overflow
 * when added, and every array sorted as documented. Each input is also loaded with its
 * traceEvents cut into chunks that two threads parse (FUSEDIFF_SPLIT_MIN=1: up to 32 chunks)
 * and nothing remembered from one event for the next (FUSEDIFF_NO_MEMO=1: every byte parsed
 * by the strict parser alone), which must fail with the same message or print the same
 * summary as the load by one thread with its fast paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace_summary.h"
#include "fusediff/trace.h"

#define NAME "fuzz.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_trace_load: broken promise: %s\n", what);
		abort();
	}
}

static void check_error(const struct trace *t, const struct fd_error *err)
{
	size_t n = strlen(NAME ": ");

	require(t == NULL, "a failed load leaves *out NULL");
	require(strncmp(err->msg, NAME ": ", n) == 0, "the error names the file");
	require(err->msg[n] != '\0', "the error says what is wrong");
	require(strchr(err->msg, '\n') == NULL, "the error is one line");
}

static void check_trace(const struct trace *t)
{
	uint32_t n_strings = intern_count(t->strings);
	int64_t total = 0, all = 0;
	size_t kernels = 0;

	require(t->n_kernels > 0 && t->n_kernel_events > 0, "a loaded trace has a kernel");
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		require(k->start >= 0 && k->dur >= 0, "kernel times are not negative");
		require(k->start <= TRACE_TIME_MAX - k->dur,
			"kernel start + dur <= TRACE_TIME_MAX");
		require(i == 0 || t->kernels[i - 1].start <= k->start, "kernels sorted by start");
		require(k->device == t->device, "kernels are on the selected device");
		require(k->name < n_strings, "kernel names are interned");
		require(k->dur <= TRACE_TIME_MAX - all,
			"kernel and copy times add up to <= TRACE_TIME_MAX");
		all += k->dur;
		if (k->kind == KIND_KERNEL) {
			kernels++;
			total += k->dur;
		}
	}
	require(kernels == t->n_kernel_events, "n_kernel_events counts the kernels");
	require(total == trace_kernel_time(t), "trace_kernel_time() is the total");
	for (size_t i = 0; i < t->n_launches; i++) {
		require(t->launches[i].start >= 0 && t->launches[i].dur >= 0, "launch times");
		require(t->launches[i].start <= TRACE_TIME_MAX - t->launches[i].dur, "launch end");
		require(i == 0 || t->launches[i - 1].correlation <= t->launches[i].correlation,
			"launches sorted by correlation");
	}
	for (size_t i = 0; i < t->n_ops; i++) {
		require(t->ops[i].start >= 0 && t->ops[i].dur >= 0, "op times");
		require(t->ops[i].start <= TRACE_TIME_MAX - t->ops[i].dur, "op end");
		require(i == 0 || t->ops[i - 1].external_id <= t->ops[i].external_id,
			"ops sorted by External id");
	}
	for (size_t i = 0; i < t->n_ranges; i++) {
		require(t->ranges[i].start >= 0 && t->ranges[i].dur >= 0, "range times");
		require(t->ranges[i].start <= TRACE_TIME_MAX - t->ranges[i].dur, "range end");
		require(i == 0 || t->ranges[i - 1].start <= t->ranges[i].start,
			"ranges sorted by start");
	}
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_launch *l = trace_find_launch(t, t->kernels[i].correlation);

		require(!l || l->correlation == t->kernels[i].correlation, "trace_find_launch()");
	}
	for (size_t i = 1; i < t->n_devices; i++)
		require(t->devices[i - 1].id < t->devices[i].id, "devices sorted by id, once each");
}

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

/* The same bytes loaded by two threads, without the fast paths: the same error, or the same
 * summary. */
static void check_split(const uint8_t *data, size_t size, const struct trace *t,
			const struct fd_error *err)
{
	struct trace *u = (struct trace *)1;
	struct fd_error err2 = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	int rc;

	setenv("FUSEDIFF_SPLIT_MIN", "1", 1);
	setenv("FUSEDIFF_NO_MEMO", "1", 1);
	rc = trace_load_mem(&u, NAME, data, size, &lo, &err2);
	setenv("FUSEDIFF_SPLIT_MIN", "999999999999", 1);
	unsetenv("FUSEDIFF_NO_MEMO");
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
	struct trace_load_opts lo = { .device = -1 };

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	setenv("FUSEDIFF_SPLIT_MIN", "999999999999", 1);
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
