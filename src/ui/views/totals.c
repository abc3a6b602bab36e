/* totals.c — the Totals view: every kernel of both whole traces by short name, with its class,
 * calls and time on each side (comparison.kernel_totals, the text report's "Whole traces"
 * table and the kernel_totals table of JSON and CSV), largest |B - A| first. Not per pass: the
 * whole capture on the device compared, passes and what lies between and around them, which
 * answers a pair whose passes are not alike (a profiler's own kernel summary diff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/text.h"

enum { TO_NAME, TO_CLASS, TO_A_N, TO_B_N, TO_A_MS, TO_B_MS, TO_DELTA, TO_BAR, TO_COLS };

static const struct table_column to_cols[TO_COLS] = {
	[TO_NAME] = { "Kernel", 24, 3, 0, TABLE_LEFT,
		      TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[TO_CLASS] = { "Class", 11, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[TO_A_N] = { "A calls", 7, 0, 3, TABLE_RIGHT, 0 },
	[TO_B_N] = { "B calls", 7, 0, 3, TABLE_RIGHT, 0 },
	[TO_A_MS] = { "A ms", 8, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[TO_B_MS] = { "B ms", 8, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[TO_DELTA] = { "B-A ms", 8, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[TO_BAR] = { "gain | regression", 17, 1, 4, TABLE_LEFT, TABLE_COL_BAR | TABLE_COL_SIGNED },
};

/* Row r is c->kernel_totals[r]: no state. */
static const struct comparison_kernel_total *total(const struct ui_view *v, uint32_t row)
{
	return &v->u->c->kernel_totals[row];
}

static void to_build(struct ui_view *v)
{
	v->n_rows = (uint32_t)v->u->c->n_kernel_totals;
}

static void to_release(struct ui_view *v)
{
	v->n_rows = 0;
}

static double to_max(const struct comparison *c)
{
	double m = 0;

	for (size_t i = 0; i < c->n_kernel_totals; i++)
		m = fmax(m, fabs((double)(c->kernel_totals[i].ns[1] - c->kernel_totals[i].ns[0])));
	return m;
}

/* Time per call on side s, NAN without a call. */
static double per_call(const struct comparison_kernel_total *k, int s)
{
	return k->count[s] ? (double)k->ns[s] / (double)k->count[s] : NAN;
}

static void to_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison_kernel_total *k = total(v, row);
	int64_t d = k->ns[1] - k->ns[0];
	double m;

	switch (col) {
	case TO_NAME:
		out->text = k->name;
		out->role = !k->count[1] ? ROLE_UNMATCHED : !k->count[0] ? ROLE_B_ONLY : 0;
		break;
	case TO_CLASS: out->text = class_name((enum op_class)k->cls); break;
	case TO_A_N:
	case TO_B_N:
		snprintf(out->buf, out->cap, "%lld", (long long)k->count[col == TO_B_N]);
		break;
	case TO_A_MS:
	case TO_B_MS: text_ms(out->buf, out->cap, k->ns[col == TO_B_MS], 0); break;
	case TO_DELTA:
		text_ms(out->buf, out->cap, d, 1);
		out->role = delta_role((double)d);
		break;
	case TO_BAR:
		m = to_max(v->u->c);
		out->bar = m > 0 ? (double)d / m : 0;
		break;
	}
}

static void to_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison_kernel_total *k = total(v, row);

	switch (col) {
	case TO_NAME: out->str = k->name; break;
	case TO_CLASS: out->str = class_name((enum op_class)k->cls); break;
	case TO_A_N: out->num = (double)k->count[0]; break;
	case TO_B_N: out->num = (double)k->count[1]; break;
	case TO_A_MS: out->num = (double)k->ns[0]; break;
	case TO_B_MS: out->num = (double)k->ns[1]; break;
	case TO_DELTA:
	case TO_BAR: out->num = (double)(k->ns[1] - k->ns[0]); break;
	}
}

/* The mismatch filter: the kernels one side never runs. */
static int to_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;
	const struct comparison_kernel_total *k = total(v, row);
	unsigned have = !k->count[0] || !k->count[1] ? QUICK_MISMATCHES : 0;

	return (have & mask) == mask;
}

/* The whole traces' sums (the text report's sentence), then the kernel: its name in full, its
 * class, each side's calls, time and time per call. */
static void to_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison_kernel_total *k = total(v, row);
	char sum[256], ms[2][32], d[32], call[2][32];

	ui_text_wrap(u->s, out, ROLE_HEADER, "", report_kernel_totals_sum(u->c, sum, sizeof sum),
		     width, 2);
	ui_text_wrap(u->s, out, ROLE_NORMAL, "", k->name, width, 2);
	for (int s = 0; s < 2; s++) {
		text_ms(ms[s], sizeof ms[s], k->ns[s], 0);
		fmt_us(call[s], sizeof call[s], per_call(k, s));
	}
	text_ms(d, sizeof d, k->ns[1] - k->ns[0], 1);
	ui_text_add(out, ROLE_NORMAL, 1, "  %s; A: %lld calls, %s ms (%s us a call)",
		    class_name((enum op_class)k->cls), (long long)k->count[0], ms[0], call[0]);
	ui_text_add(out, ROLE_NORMAL, 1, "  B: %lld calls, %s ms (%s us a call); B - A %s ms",
		    (long long)k->count[1], ms[1], call[1], d);
	ui_text_wrap(u->s, out, ROLE_DIM, "",
		     "Totals of the whole traces on the device compared (every pass, and what "
		     "lies between and around them), not per pass; the other views compare the "
		     "passes of one phase.",
		     width, 0);
}

const struct ui_view_def ui_view_totals = {
	.name = "Totals",
	.what = "kernels of the whole traces",
	.table = { .cols = to_cols,
		   .n_cols = TO_COLS,
		   .cell = to_cell,
		   .key = to_key,
		   .quick = to_quick,
		   .default_sort = TO_DELTA },
	.quick_bits = QUICK_MISMATCHES,
	.csv_table = CSV_KERNEL_TOTALS,
	.csv_item = ui_row_is_item,
	.build = to_build,
	.release = to_release,
	.evidence = to_evidence,
	.drill_view = VIEW_COUNT, /* Enter focuses the evidence */
};
