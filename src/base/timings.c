/* timings.c — stage times on standard error for benchmarks (see timings.h). */
#include "fusediff/timings.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fusediff/text.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the whole process (every thread), user and system. */
static double cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void timings_start(struct timings *tm, int on)
{
	memset(tm, 0, sizeof *tm);
	tm->on = on;
	tm->last = now_s();
	tm->last_cpu = cpu_s();
}

void timings_stage(struct timings *tm, const char *name)
{
	double t, c;
	char wall[40], cpu[40];
	int n;

	if (!tm->on)
		return;
	t = now_s();
	c = cpu_s();
	n = snprintf(tm->line + tm->len, sizeof tm->line - tm->len, "%s%s %s s (cpu %s s)",
		     tm->len ? ", " : "", name, text_fixed(wall, sizeof wall, t - tm->last, 3, 0),
		     text_fixed(cpu, sizeof cpu, c - tm->last_cpu, 3, 0));
	if (n > 0 && (size_t)n < sizeof tm->line - tm->len)
		tm->len += (size_t)n;
	tm->last = t;
	tm->last_cpu = c;
}

void timings_print(struct timings *tm)
{
	if (tm->on && tm->len)
		fprintf(stderr, "fusediff: timings: %s\n", tm->line);
}
