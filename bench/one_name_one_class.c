/* one_name_one_class.c — the classifier's promise over any traces: a kernel name that decides
 * (classify_name_decides()) has, in every trace given and whatever launched it, the class and
 * atoms of its name alone. Prints one line per trace and each broken promise; exits 1 when
 * there is one. Built and run by bench/one_name_one_class.sh.
 *
 *   one_name_one_class TRACE... */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/classify.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

struct seen {
	char *name, *trace;
	uint8_t cls;
	atom_set atoms;
};

int main(int argc, char **argv)
{
	struct classifier *c;
	struct fd_error err;
	struct seen *seen = NULL;
	size_t n_seen = 0, cap = 0;
	int broken = 0;

	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		fprintf(stderr, "usage: one_name_one_class TRACE...\n");
		return 2;
	}
	if (classifier_new(&c, NULL, NULL, &err) < 0) {
		fprintf(stderr, "one_name_one_class: %s\n", err.msg);
		return 2;
	}
	for (int a = 1; a < argc; a++) {
		struct trace_load_opts lo = { .device = -1 };
		struct trace *t;
		struct trace_classes tc;
		uint8_t *done;
		size_t decisive = 0, generic = 0;
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

		if (trace_load(&t, argv[a], &lo, &err) < 0) {
			printf("%-60s  not read: %s\n", base, err.msg);
			continue;
		}
		classify_trace(c, t, &tc);
		done = calloc(tc.n_infos ? tc.n_infos : 1, 1);
		for (size_t k = 0; k < t->n_kernels; k++) {
			const struct kernel_info *ki = trace_classes_get(&tc, k);
			const char *name = trace_str(t, t->kernels[k].name);
			struct kernel_info alone;
			size_t j;

			if (done[tc.info_of[k]]++ || t->kernels[k].kind != KIND_KERNEL)
				continue;
			if (!classify_name_decides(c, name)) {
				generic++;
				continue;
			}
			decisive++;
			classify_kernel(c, name, NULL, NULL, &alone);
			if (alone.cls != ki->cls || alone.atoms != ki->atoms) {
				printf("  BROKEN %s: %s alone, %s (from %s) here\n", ki->short_name,
				       class_name(alone.cls), class_name(ki->cls),
				       class_source_name(ki->source));
				broken = 1;
			}
			kernel_info_clear(&alone);
			for (j = 0; j < n_seen && strcmp(seen[j].name, name) != 0; j++)
				;
			if (j < n_seen) {
				if (seen[j].cls != ki->cls || seen[j].atoms != ki->atoms) {
					printf("  BROKEN %s: %s in %s, %s here\n", ki->short_name,
					       class_name(seen[j].cls), seen[j].trace,
					       class_name(ki->cls));
					broken = 1;
				}
				continue;
			}
			if (n_seen == cap)
				seen = realloc(seen, (cap = cap ? 2 * cap : 256) * sizeof *seen);
			seen[n_seen++] =
				(struct seen){ strdup(name), strdup(base), ki->cls, ki->atoms };
		}
		printf("%-60s %6zu names that decide, %5zu generic (their context decides)\n", base,
		       decisive, generic);
		free(done);
		trace_classes_clear(&tc);
		trace_free(t);
	}
	printf("%s: %zu distinct names that decide, each one class and one set of atoms\n",
	       broken ? "BROKEN" : "ok", n_seen);
	for (size_t j = 0; j < n_seen; j++) {
		free(seen[j].name);
		free(seen[j].trace);
	}
	free(seen);
	classifier_free(c);
	return broken;
}
