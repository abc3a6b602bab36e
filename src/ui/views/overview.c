/* overview.c — the Overview view: time per operation class on each side; columns, cells, sort
 * keys, quick filters, evidence and drill-down. Everything else is the generic table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

/* --- Overview ------------------------------------------------------------------------- */

enum {
	OV_CLASS,
	OV_A,
	OV_B,
	OV_DELTA,
	OV_RATIO,
	OV_SHARE_A,
	OV_SHARE_B,
	OV_BAR_A,
	OV_BAR_B,
	OV_COLS
};

static const struct table_column ov_cols[OV_COLS] = {
	[OV_CLASS] = { "Class", 12, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[OV_A] = { "A us/pass", 10, 0, 0, TABLE_RIGHT, 0 },
	[OV_B] = { "B us/pass", 10, 0, 0, TABLE_RIGHT, 0 },
	[OV_DELTA] = { "Delta us", 9, 0, 0, TABLE_RIGHT, 0 },
	[OV_RATIO] = { "B/A", 5, 0, 1, TABLE_RIGHT, 0 },
	[OV_SHARE_A] = { "A %", 5, 0, 2, TABLE_RIGHT, 0 },
	[OV_SHARE_B] = { "B %", 5, 0, 2, TABLE_RIGHT, 0 },
	[OV_BAR_A] = { "A", 8, 1, 3, TABLE_LEFT, TABLE_COL_BAR },
	[OV_BAR_B] = { "B", 8, 1, 3, TABLE_LEFT, TABLE_COL_BAR },
};

/* Row r is one operation class. */
struct ov_state {
	uint32_t *ref;	/* row -> enum op_class */
	uint8_t *flags; /* row -> QUICK_* bits the class's pairs have */
};

static struct ov_state *st(const struct ui_view *v)
{
	return v->state;
}

static void ov_build(struct ui_view *v)
{
	const struct comparison *c = v->u->c;

	st(v)->ref = xcalloc(CLASS_COUNT, sizeof *st(v)->ref);
	st(v)->flags = xcalloc(CLASS_COUNT, 1);
	v->n_rows = 0;
	for (int k = 0; k < CLASS_COUNT; k++)
		if (c->class_ns[0][k] > 0 || c->class_ns[1][k] > 0)
			st(v)->ref[v->n_rows++] = (uint32_t)k;
	/* quick filters: classes with a fusion, with a mismatch */
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		for (uint32_t r = 0; r < v->n_rows; r++)
			if (st(v)->ref[r] == p->cls) {
				st(v)->flags[r] |= (p->fusion >= 0 || p->kind == PAIR_FUSED)
							   ? QUICK_FUSIONS
							   : 0;
				st(v)->flags[r] |= p->kind != PAIR_MATCH ? QUICK_MISMATCHES : 0;
			}
	}
}

static void ov_release(struct ui_view *v)
{
	free(st(v)->ref);
	free(st(v)->flags);
	st(v)->ref = NULL;
	st(v)->flags = NULL;
}

/* One pair group: its delta, where it occurs, how often, its kernels. */
static void group_line(struct ui *u, struct ui_text *out, const struct summed_pair *g)
{
	const struct comparison_pair *p = &u->c->pairs[g->first];
	char layers[128], d[32];
	const char *a = p->side[0].n_names ? ui_name(u, 0, p->side[0].names[0]) : "-";
	const char *b = p->side[1].n_names ? ui_name(u, 1, p->side[1].names[0]) : "-";
	char *ea = text_escape_dup(a, strlen(a)), *eb = text_escape_dup(b, strlen(b));

	comparison_layer_ranges(u->c, g->layers, g->n_layers, layers, sizeof layers);
	fmt_delta(d, sizeof d, g->delta_ns);
	ui_text_add(out, delta_role(g->delta_ns), 1,
		    "  %8s us  layers %-10s x%-3u %-7s A %s%s  B %s%s", d, layers, g->n_pairs,
		    pair_kind_name((enum pair_kind)p->kind), ea,
		    p->side[0].n_names > 1 || g->similar[0] ? " +" : "", eb,
		    p->side[1].n_names > 1 || g->similar[1] ? " +" : "");
	free(ea);
	free(eb);
}

static double ov_max(const struct comparison *c)
{
	double m = 0;

	for (int s = 0; s < 2; s++)
		for (int k = 0; k < CLASS_COUNT; k++)
			if (c->class_ns[s][k] > m)
				m = c->class_ns[s][k];
	return m;
}

static void ov_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	int k = (int)st(v)->ref[row];
	double a = c->class_ns[0][k], b = c->class_ns[1][k], m;

	switch (col) {
	case OV_CLASS: out->text = class_name((enum op_class)k); break;
	case OV_A: fmt_us(out->buf, out->cap, a); break;
	case OV_B: fmt_us(out->buf, out->cap, b); break;
	case OV_DELTA:
		fmt_delta(out->buf, out->cap, b - a);
		out->role = delta_role(b - a);
		break;
	case OV_RATIO: fmt_ratio(out->buf, out->cap, comparison_ratio(a, b)); break;
	case OV_SHARE_A:
	case OV_SHARE_B: {
		double t = c->ns[col - OV_SHARE_A], x = col == OV_SHARE_A ? a : b;

		if (t > 0)
			snprintf(out->buf, out->cap, "%.1f", 100 * x / t);
		else
			snprintf(out->buf, out->cap, "-");
		break;
	}
	case OV_BAR_A:
	case OV_BAR_B:
		m = ov_max(c);
		out->bar = m > 0 ? (col == OV_BAR_A ? a : b) / m : 0;
		out->role = col == OV_BAR_A ? ROLE_BAR_A : ROLE_BAR_B;
		break;
	}
}

static void ov_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	int k = (int)st(v)->ref[row];
	double a = c->class_ns[0][k], b = c->class_ns[1][k];

	switch (col) {
	case OV_CLASS: out->str = class_name((enum op_class)k); break;
	case OV_A:
	case OV_SHARE_A:
	case OV_BAR_A: out->num = a; break;
	case OV_B:
	case OV_SHARE_B:
	case OV_BAR_B: out->num = b; break;
	case OV_DELTA: out->num = fabs(b - a); break;
	case OV_RATIO: out->num = comparison_ratio(a, b); break;
	}
}

static int ov_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;

	return (st(v)->flags[row] & mask) == mask;
}

static void ov_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	int k = (int)st(v)->ref[row];
	const struct summed_pair *g;
	size_t n, n_groups;
	char a[32], b[32], d[32], r[32];

	(void)width;
	fmt_us(a, sizeof a, c->class_ns[0][k]);
	fmt_us(b, sizeof b, c->class_ns[1][k]);
	fmt_delta(d, sizeof d, c->class_ns[1][k] - c->class_ns[0][k]);
	fmt_ratio(r, sizeof r, comparison_ratio(c->class_ns[0][k], c->class_ns[1][k]));
	ui_text_add(out, ROLE_HEADER, 1, "%s: A %s us/pass, B %s us/pass, delta %s us, B/A %s",
		    class_name((enum op_class)k), a, b, d, r);
	g = ui_groups(u, &n_groups);
	n = 0;
	for (size_t i = 0; i < n_groups; i++)
		n += c->pairs[g[i].first].cls == k;
	ui_text_add(out, ROLE_DIM, 1, "%s",
		    n ? "Largest differences, kernel pairs summed over the layers (Enter: every "
			"kernel pair of this class):"
		      : "No kernel pair of this class in the phase shown.");
	for (size_t i = 0, shown = 0; i < n_groups && shown < 12; i++)
		if (c->pairs[g[i].first].cls == k) {
			group_line(u, out, &g[i]);
			shown++;
		}
}

/* Enter: the class's kernel pairs. */
static struct ui_scope ov_drill(const struct ui_view *v, uint32_t row)
{
	return (struct ui_scope){ SCOPE_ALL, (int)st(v)->ref[row], -1 };
}

const struct ui_view_def ui_view_overview = {
	.name = "Overview",
	.what = "time per operation class",
	.table = { .cols = ov_cols,
		   .n_cols = OV_COLS,
		   .cell = ov_cell,
		   .key = ov_key,
		   .quick = ov_quick,
		   .default_sort = OV_DELTA },
	.state_size = sizeof(struct ov_state),
	.build = ov_build,
	.release = ov_release,
	.evidence = ov_evidence,
	.drill_view = VIEW_PAIRS,
	.drill_scope = ov_drill,
};
