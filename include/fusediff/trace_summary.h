/* trace_summary.h — the one-trace summary printed by `fusediff --summary TRACE`. */
#ifndef FUSEDIFF_SUMMARY_H
#define FUSEDIFF_SUMMARY_H

#include <stdio.h>

#include "fusediff/classify.h"
#include "fusediff/efficiency.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"

#define SUMMARY_TOP_KERNELS 15

/* One row of the top-kernels table: all kernels with the same name. */
struct trace_summary_kernel {
	uint32_t name;
	int64_t count, total_ns;
};

/* Kernels grouped by name, sorted by total time (largest first, then by name). Only
 * KIND_KERNEL events. Owned by caller: free with free(); *n receives the length. */
struct trace_summary_kernel *trace_summary_kernels(const struct trace *t, size_t *n);

/* Print the summary of t as text; with tc (may be NULL), also the kernel time by class and
 * the Other share and a rules line for each kernel of class Other (naming cl's per-user rules
 * file, classifier_user_path(), as a place for it); with sd (t's structure, may be NULL), its
 * passes, layers and coverage and the chains of cl's catalogue (NULL: the built-in one) it
 * runs unfused. The
 * GPU's peaks come from peaks (--peaks rows, may be NULL) or the built-in table
 * (efficiency.h). Returns 0, or -1 when writing fails. */
int trace_summary_print(FILE *out, const struct trace *t, const struct trace_classes *tc,
			const struct side *sd, const struct classifier *cl,
			const struct peak_table *peaks);

#endif
