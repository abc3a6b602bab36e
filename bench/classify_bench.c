/* classify_bench.c — classification off the hot path: how long the classifier takes for N
 * distinct kernel names (default 100000), made from the real names of
 * tests/data/classify/families.tsv and kernels.tsv with a distinct number added to each, as a
 * trace of many shapes and tile sizes would bring them. Prints the CPU time, the time per
 * name and the names per second. Built and run by bench/classify.sh.
 *
 *   classify_bench NAMES.tsv... [-n N] */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusediff/classify.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char **base = NULL, *line = NULL;
	size_t n_base = 0, cap = 0, lcap = 0, n = 100000;
	struct classifier *c;
	struct fd_error err;
	double t0, dt;
	size_t other = 0;

	setlocale(LC_CTYPE, "");
	for (int i = 1; i < argc; i++) {
		FILE *fp;

		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			n = strtoul(argv[++i], NULL, 10);
			continue;
		}
		if (!(fp = fopen(argv[i], "r"))) {
			perror(argv[i]);
			return 1;
		}
		while (getline(&line, &lcap, fp) > 0) {
			char *f = line;

			if (line[0] == '#' || line[0] == '\n')
				continue;
			for (int k = 0; k < 5 && f; k++) /* the name is the sixth field */
				f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
			if (!f)
				continue;
			f[strcspn(f, "\t\n")] = '\0';
			if (n_base == cap)
				base = realloc(base, (cap = cap ? 2 * cap : 1024) * sizeof *base);
			base[n_base++] = strdup(f);
		}
		fclose(fp);
	}
	if (!n_base) {
		fprintf(stderr, "usage: classify_bench NAMES.tsv... [-n N]\n");
		return 2;
	}
	if (classifier_new(&c, NULL, NULL, &err) < 0) {
		fprintf(stderr, "classify_bench: %s\n", err.msg);
		return 1;
	}
	t0 = cpu_now();
	for (size_t i = 0; i < n; i++) {
		const char *b = base[i % n_base];
		size_t len = strlen(b);
		char *name = malloc(len + 24);
		struct kernel_info ki;

		/* a distinct name: the number where a tile size or template argument would be */
		snprintf(name, len + 24, "%s_%zu", b, i);
		classify_kernel(c, name, NULL, NULL, &ki);
		other += ki.cls == CLASS_OTHER;
		kernel_info_clear(&ki);
		free(name);
	}
	dt = cpu_now() - t0;
	printf("classified %zu distinct names (from %zu real ones) in %.3f s CPU: %.2f us per "
	       "name, %.0f names/s; %zu Other\n",
	       n, n_base, dt, dt / (double)n * 1e6, (double)n / dt, other);
	classifier_free(c);
	for (size_t i = 0; i < n_base; i++)
		free(base[i]);
	free(base);
	free(line);
	return 0;
}
