/* fuzz_check.h — the promises of comparison.h that the analysis targets (fuzz_compare,
 * fuzz_pipeline) check on every comparison they build: the attribution's parts add up to
 * B - A, every pair's layer is a layer of the comparison, every layer is had by at most the
 * compared passes, the whole-trace kernel totals add up to each trace's kernel time, busy time
 * stays within the wall time, and every report format is written. A broken promise aborts with
 * its text, which libFuzzer reports as a crash. FUZZ_TARGET names the target in the message. */
#ifndef FUSEDIFF_FUZZ_CHECK_H
#define FUSEDIFF_FUZZ_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fusediff/comparison.h"
#include "fusediff/report.h"

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: broken promise: %s\n", FUZZ_TARGET, what);
		abort();
	}
}

static void check_comparison(const struct comparison *c)
{
	static const enum report_format fmts[] = { REPORT_TEXT, REPORT_MD, REPORT_JSON,
						   REPORT_CSV };
	double sum = 0;

	for (size_t i = 0; i < c->n_attribution; i++)
		sum += c->attribution[i].delta_ns;
	require(fabs(sum - c->delta_ns) <= 1e-6 * fmax(1e3, fabs(c->delta_ns)),
		"the attribution adds up to B - A");
	for (size_t i = 0; i < c->n_pairs; i++)
		require(c->pairs[i].layer >= 0 && (size_t)c->pairs[i].layer < c->n_layers,
			"a pair's layer is a layer of the comparison");
	for (size_t i = 0; i < c->n_layers; i++)
		for (int s = 0; s < 2; s++) {
			require(c->layers[i].passes[s] <= c->passes[s],
				"a layer is had by at most the compared passes");
			require(c->layers[i].busy_ns[s] <= c->layers[i].wall_ns[s] + 1e-3,
				"a layer's busy time is within its wall time");
		}
	for (int s = 0; s < 2; s++) {
		int64_t total = 0;

		for (size_t i = 0; i < c->n_kernel_totals; i++)
			total += c->kernel_totals[i].ns[s];
		require(total == trace_kernel_time(c->side[s]->t),
			"the kernel totals add up to the trace's kernel time");
		require(c->time[s].busy_ns <= c->time[s].wall_ns + 1e-3 &&
				c->time[s].idle_ns >= -1e-3,
			"a pass's busy time is within its wall time");
	}
	for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		require(out != NULL, "open_memstream");
		require(report_write(out, c, fmts[f]) == 0, "the report is written");
		fclose(out);
		free(buf);
	}
}

#endif
