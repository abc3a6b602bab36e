/* fuzz_compare.c — libFuzzer target: the whole analysis on arbitrary bytes. A trace that loads
 * is classified, structured and compared with itself for the default phase and for all passes,
 * and written as a JSON and a text report.
 *
 * Built by `make fuzz` (tests/fuzz/fuzz.mk, tests/fuzz/README.md). Besides crashes, leaks and
 * undefined behaviour, it aborts when a promise of comparison.h is broken (fuzz_check.h), or
 * when a trace compared with itself has a fusion difference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/report.h"
#include "fusediff/session.h"
#include "fusediff/trace.h"

#define FUZZ_TARGET "fuzz_compare"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct comparison *c)
{
	check_comparison(c);
	require(c->n_fusions == 0, "a trace compared with itself has no fusion difference");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = NULL;
	struct session *s = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct session_opts so = { .device = -1 }; /* no per-user rules */

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
