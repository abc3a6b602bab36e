/* analysis_bench.c — the analysis after loading, alone: load two traces once, then classify and
 * structure each side and compare them ROUNDS times on one thread, and print the fastest and the
 * median time of each stage. Loading dominates a whole run and varies with the page cache and
 * the other jobs on the machine; this isolates the part the analysis engineer can change.
 * Built and run by bench/analysis.sh.
 *
 *   analysis_bench A B [ROUNDS]
 *
 * Stages: "classify" is classify_trace() alone (a part of "structure"); "structure" is
 * side_build() (links, passes, classification, modules, steps, layers); "compare" is
 * comparison_build() (alignment, fusions, figures). Times are CPU seconds of this thread.
 * "session" is the same through the pipeline the program uses (session_open_traces() and
 * session_compare(), both sides in parallel): CPU seconds of the whole process. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/session.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"

#define MAX_ROUNDS 100

static double process_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Minor page faults of the process so far (fresh memory costs one per page). */
static long faults_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static void report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	printf("  %-14s min %8.1f ms   median %8.1f ms\n", what, v[0] * 1e3, v[n / 2] * 1e3);
}

int main(int argc, char **argv)
{
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct trace *t[2] = { NULL, NULL };
	struct classifier *cl;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	double t_rules, flt[MAX_ROUNDS];
	size_t n_steps[2] = { 0, 0 }, n_passes[2] = { 0, 0 };
	long flt_stage[3] = { 0, 0, 0 }; /* first round: structure A, structure B, compare */
	static double cls[2][MAX_ROUNDS], st[2][MAX_ROUNDS], cmp[MAX_ROUNDS], all[MAX_ROUNDS],
		ses[MAX_ROUNDS];

	if (argc < 3) {
		fprintf(stderr, "usage: analysis_bench A B [ROUNDS]\n");
		return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 5;
	setlocale(LC_CTYPE, ""); /* as fusediff does: regexec's cost depends on it */
	for (int s = 0; s < 2; s++)
		if (trace_load(&t[s], argv[1 + s], &lo, &err) < 0) {
			fprintf(stderr, "analysis_bench: %s\n", err.msg);
			return 1;
		}
	t_rules = cpu_now();
	if (classifier_new(&cl, NULL, NULL, &err) < 0) {
		fprintf(stderr, "analysis_bench: %s\n", err.msg);
		return 1;
	}
	t_rules = cpu_now() - t_rules;
	for (int r = 0; r < rounds; r++) {
		struct side side[2];
		struct comparison *c;
		struct session *sn;
		struct session_opts so = { .classifier = cl, .device = -1 };
		double t0;
		long f0 = faults_now();

		for (int s = 0; s < 2; s++) {
			struct trace_classes tc;

			t0 = cpu_now();
			classify_trace(cl, t[s], &tc);
			cls[s][r] = cpu_now() - t0;
			trace_classes_clear(&tc);
			t0 = cpu_now();
			if (r == 0)
				flt_stage[s] = faults_now();
			if (side_build(&side[s], t[s], cl, NULL, &err) < 0) {
				fprintf(stderr, "analysis_bench: %s: %s\n", t[s]->path, err.msg);
				return 1;
			}
			st[s][r] = cpu_now() - t0;
			n_steps[s] = side[s].n_steps;
			n_passes[s] = side[s].n_passes;
			if (r == 0)
				flt_stage[s] = faults_now() - flt_stage[s];
		}
		t0 = cpu_now();
		if (r == 0)
			flt_stage[2] = faults_now();
		if (comparison_build(&c, &side[0], &side[1], cl, NULL, &err) < 0) {
			fprintf(stderr, "analysis_bench: %s\n", err.msg);
			return 1;
		}
		cmp[r] = cpu_now() - t0;
		if (r == 0)
			flt_stage[2] = faults_now() - flt_stage[2];
		all[r] = st[0][r] + st[1][r] + cmp[r];
		flt[r] = (double)(faults_now() - f0);
		comparison_free(c);
		side_clear(&side[0]);
		side_clear(&side[1]);
		t0 = process_cpu_now();
		if (session_open_traces(&sn, t[0], t[1], &so, &err) < 0 ||
		    !session_compare(sn, -1, &err)) {
			fprintf(stderr, "analysis_bench: %s\n", err.msg);
			return 1;
		}
		ses[r] = process_cpu_now() - t0;
		session_close(sn);
	}
	printf("analysis of %s (A, %zu kernels) and %s (B, %zu kernels), %d rounds, CPU time:\n",
	       argv[1], t[0]->n_kernels, argv[2], t[1]->n_kernels, rounds);
	for (int s = 0; s < 2; s++)
		printf("  %c: %zu kernels, %zu passes, %zu steps\n", "AB"[s], t[s] -> n_kernels,
		       n_passes[s], n_steps[s]);
	printf("  %-14s %8.1f ms\n", "rules", t_rules * 1e3);
	printf("  %-14s %8.1f ms (structure A and B and compare)\n", "first round", all[0] * 1e3);
	printf("  %-14s %8.0f in the first round (structure A %ld, B %ld, compare %ld)\n",
	       "page faults", flt[0], flt_stage[0], flt_stage[1], flt_stage[2]);
	report("classify A", cls[0], rounds);
	report("classify B", cls[1], rounds);
	report("structure A", st[0], rounds);
	report("structure B", st[1], rounds);
	report("compare", cmp, rounds);
	report("all", all, rounds);
	report("session", ses, rounds);
	qsort(flt, (size_t)rounds, sizeof *flt, cmp_double);
	printf("  %-14s min %8.0f      median %8.0f\n", "page faults", flt[0], flt[rounds / 2]);
	classifier_free(cl);
	trace_free(t[0]);
	trace_free(t[1]);
	return 0;
}
