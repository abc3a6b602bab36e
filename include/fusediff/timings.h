/* timings.h — when asked (the program asks with FUSEDIFF_TIMINGS set, and not "0", in its
 * environment: session_opts.timings), the wall time of each stage of a run, and the CPU time
 * of all its threads, on standard error, one line, for benchmarks (bench/README.md):
 *
 *	fusediff: timings: load 2.912 s (cpu 5.630 s), structure 0.120 s (cpu 0.230 s), ...
 *
 * Otherwise nothing. */
#ifndef FUSEDIFF_TIMINGS_H
#define FUSEDIFF_TIMINGS_H

#include <stddef.h>

struct timings {
	int on;
	double last;	 /* seconds, monotonic */
	double last_cpu; /* seconds of CPU time, all threads */
	char line[512];
	size_t len;
};

/* Start timing; on: 0 keeps tm silent (every call does nothing). */
void timings_start(struct timings *tm, int on);
/* The stage that just ended: the time since the previous stage (or the start). */
void timings_stage(struct timings *tm, const char *name);
/* Print the line. */
void timings_print(struct timings *tm);

#endif
