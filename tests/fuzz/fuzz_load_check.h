/* fuzz_load_check.h — the promises of trace.h that the loader targets (fuzz_trace_load,
 * fuzz_sqlite, fuzz_rocprof) check on every load: a failed load leaves *out NULL and one
 * non-empty line that starts with the file's name (NAME); a successful one has a kernel, sorted
 * by start on the selected device, times that cannot overflow when added, and every array
 * sorted as documented. A broken promise aborts with its text, which libFuzzer reports as a
 * crash; FUZZ_TARGET names the target in it. */
#ifndef FUSEDIFF_FUZZ_LOAD_CHECK_H
#define FUSEDIFF_FUZZ_LOAD_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: broken promise: %s\n", FUZZ_TARGET, what);
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
	require(t->n_threads <= TRACE_THREADS_MAX, "threads a kernel can name");
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_launch *l = trace_find_launch(t, k->correlation);

		require(!l || l->correlation == k->correlation, "trace_find_launch()");
		require(k->launch >= -1 && k->launch <= TRACE_TIME_MAX, "a kernel's launch time");
		require(k->launch < 0 || (k->correlation != 0 && k->launch_thread < t->n_threads),
			"a kernel's launch: its id and thread");
	}
	for (size_t i = 1; i < t->n_devices; i++)
		require(t->devices[i - 1].id < t->devices[i].id, "devices sorted by id, once each");
}

#endif
