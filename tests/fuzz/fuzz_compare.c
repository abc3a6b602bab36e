/* fuzz_compare.c — libFuzzer target: the whole analysis on arbitrary bytes. A trace that loads
 * is classified, structured and compared with itself for the default phase and for all passes,
 * and written as a JSON and a text report.
 *
 * Built by `make fuzz` (tests/fuzz/fuzz.mk, tests/fuzz/README.md). Besides crashes, leaks and
 * undefined behaviour, it aborts when a promise of comparison.h is broken: the attribution's
 * parts add up to B - A, every pair's layer is a layer of the comparison, every layer is had by
 * at most the compared passes, and a trace compared with itself has no fusion difference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/report.h"
#include "fusediff/session.h"
#include "fusediff/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_compare: broken promise: %s\n", what);
		abort();
	}
}

static void check(const struct comparison *c)
{
	double sum = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < c->n_attribution; i++)
		sum += c->attribution[i].delta_ns;
	require(fabs(sum - c->delta_ns) <= 1e-6 * fmax(1e3, fabs(c->delta_ns)),
		"the attribution adds up to B - A");
	for (size_t i = 0; i < c->n_pairs; i++)
		require(c->pairs[i].layer >= 0 && (size_t)c->pairs[i].layer < c->n_layers,
			"a pair's layer is a layer of the comparison");
	for (size_t i = 0; i < c->n_layers; i++)
		for (int s = 0; s < 2; s++)
			require(c->layers[i].passes[s] <= c->passes[s],
				"a layer is had by at most the compared passes");
	require(c->n_fusions == 0, "a trace compared with itself has no fusion difference");
	for (int fmt = 0; fmt < 2; fmt++) {
		f = open_memstream(&buf, &len);
		require(f != NULL, "open_memstream");
		require(report_write(f, c, fmt ? REPORT_TEXT : REPORT_JSON) == 0,
			"the report is written");
		fclose(f);
		free(buf);
		buf = NULL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = NULL;
	struct session *s = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct session_opts so = { .device = -1 };
	static int env;

	if (!env) {
		setenv("XDG_CONFIG_HOME", "/nonexistent", 1); /* no per-user rules */
		env = 1;
	}
	if (trace_load_mem(&t, "fuzz.json", data, size, &lo, &err) < 0)
		return 0;
	if (session_open_traces(&s, t, t, &so, &err) == 0) {
		const struct comparison *c = session_compare(s, -1, &err);

		if (c)
			check(c);
		c = session_compare(s, PHASE_COUNT, &err);
		if (c)
			check(c);
		session_close(s);
	}
	trace_free(t);
	return 0;
}
