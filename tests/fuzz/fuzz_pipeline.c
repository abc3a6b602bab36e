/* fuzz_pipeline.c — libFuzzer target: two traces from memory through the whole pipeline into
 * every report format. The input is a 4-byte little-endian length n, then trace A (n bytes,
 * clamped to what is there), then trace B (the rest); either may be any format the loader
 * reads. Both load, are compared for every phase and for all passes, and the comparison is
 * written as text, Markdown, JSON and CSV.
 *
 * Built by `make fuzz` (tests/fuzz/fuzz.mk, tests/fuzz/README.md); seeds are pairs of the
 * loader's seeds. Besides crashes, leaks and undefined behaviour it aborts when a promise of
 * comparison.h is broken (fuzz_check.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/report.h"
#include "fusediff/session.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"

#define FUZZ_TARGET "fuzz_pipeline"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t[2] = { NULL, NULL };
	struct session *s = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct session_opts so = { .device = -1 }; /* no per-user rules */
	size_t n;

	if (size < 4)
		return 0;
	n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
	data += 4;
	size -= 4;
	if (n > size)
		n = size;
	if (trace_load_mem(&t[0], "a.json", data, n, &lo, &err) == 0 &&
	    trace_load_mem(&t[1], "b.json", data + n, size - n, &lo, &err) == 0 &&
	    session_open_traces(&s, t[0], t[1], &so, &err) == 0) {
		for (int phase = -1; phase <= PHASE_COUNT; phase++) {
			const struct comparison *c = session_compare(s, phase, &err);

			if (c)
				check_comparison(c);
		}
		session_close(s);
	}
	trace_free(t[0]);
	trace_free(t[1]);
	return 0;
}
