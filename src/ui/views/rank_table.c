/* rank_table.c — the Ranks view, shown when two directories of per-rank traces are compared: one
 * row per rank with each side's time per pass, B - A and B/A; the rank analysed in the other
 * views is marked. Enter opens that rank's comparison in every view. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"

enum {
	RK_RANK,
	RK_A,
	RK_B,
	RK_DELTA,
	RK_RATIO,
	RK_BAR,
	RK_AK,
	RK_BK,
	RK_ATRACE,
	RK_BTRACE,
	RK_COLS
};

static const struct table_column rk_cols[RK_COLS] = {
	[RK_RANK] = { "Rank", 6, 0, 0, TABLE_LEFT, TABLE_COL_ASC },
	[RK_A] = { "A us/pass", 10, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[RK_B] = { "B us/pass", 10, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[RK_DELTA] = { "B-A us", 9, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[RK_RATIO] = { "B/A", 5, 0, 1, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[RK_BAR] = { "gain | regression", 17, 1, 3, TABLE_LEFT, TABLE_COL_BAR | TABLE_COL_SIGNED },
	[RK_AK] = { "A kernels", 9, 0, 4, TABLE_RIGHT, 0 },
	[RK_BK] = { "B kernels", 9, 0, 4, TABLE_RIGHT, 0 },
	[RK_ATRACE] = { "A trace", 12, 1, 2, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[RK_BTRACE] = { "B trace", 12, 1, 2, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
};

static void rk_build(struct ui_view *v)
{
	v->n_rows = v->u->c->ranks ? (uint32_t)v->u->c->ranks->n : 0;
}

static void rk_release(struct ui_view *v)
{
	v->n_rows = 0;
}

static double rk_max(const struct comparison_ranks *r)
{
	double m = 0;

	for (size_t i = 0; i < r->n; i++)
		m = fmax(m, fabs(r->r[i].delta_ns));
	return m;
}

static void rk_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison_ranks *r = v->u->c->ranks;
	const struct comparison_rank *e = &r->r[row];
	double m;

	switch (col) {
	case RK_RANK:
		snprintf(out->buf, out->cap, "%lld%s", (long long)e->rank,
			 row == r->chosen ? " *" : "");
		if (row == r->chosen)
			out->role = ROLE_HEADER;
		break;
	case RK_A: fmt_us(out->buf, out->cap, e->ns[0]); break;
	case RK_B: fmt_us(out->buf, out->cap, e->ns[1]); break;
	case RK_DELTA:
		fmt_delta(out->buf, out->cap, e->delta_ns);
		out->role = delta_role(e->delta_ns);
		break;
	case RK_RATIO: fmt_ratio(out->buf, out->cap, e->ratio); break;
	case RK_BAR:
		m = rk_max(r);
		out->bar = m > 0 ? e->delta_ns / m : 0;
		out->role = delta_role(e->delta_ns);
		break;
	case RK_AK: snprintf(out->buf, out->cap, "%zu", e->kernels[0]); break;
	case RK_BK: snprintf(out->buf, out->cap, "%zu", e->kernels[1]); break;
	case RK_ATRACE: out->text = path_basename(e->path[0]); break;
	case RK_BTRACE: out->text = path_basename(e->path[1]); break;
	}
}

static void rk_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison_rank *e = &v->u->c->ranks->r[row];

	switch (col) {
	case RK_RANK: out->num = (double)e->rank; break;
	case RK_A: out->num = e->ns[0]; break;
	case RK_B: out->num = e->ns[1]; break;
	case RK_DELTA: out->num = e->delta_ns; break;
	case RK_RATIO: out->num = ratio_key(e->ns[0], e->ns[1]); break;
	case RK_AK: out->num = (double)e->kernels[0]; break;
	case RK_BK: out->num = (double)e->kernels[1]; break;
	case RK_ATRACE: out->str = path_basename(e->path[0]); break;
	case RK_BTRACE: out->str = path_basename(e->path[1]); break;
	}
}

static void rk_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison_ranks *r = u->c->ranks;
	const struct comparison_rank *e = &r->r[row];
	char a[32], b[32], d[32], q[32];

	fmt_us(a, sizeof a, e->ns[0]);
	fmt_us(b, sizeof b, e->ns[1]);
	fmt_delta(d, sizeof d, e->delta_ns);
	fmt_ratio(q, sizeof q, e->ratio);
	ui_text_add(out, ROLE_TITLE, 1,
		    "Rank %lld%s: A %s us/pass (%u pass%s), B %s us/pass (%u "
		    "pass%s), B-A %s us, B/A %s",
		    (long long)e->rank, row == r->chosen ? " (shown in the other views)" : "", a,
		    e->passes[0], e->passes[0] == 1 ? "" : "es", b, e->passes[1],
		    e->passes[1] == 1 ? "" : "es", d, q);
	ui_text_wrap(u->s, out, ROLE_NORMAL, "A: ", e->path[0], width, 3);
	ui_text_wrap(u->s, out, ROLE_NORMAL, "B: ", e->path[1], width, 3);
	fmt_us(a, sizeof a, r->spread_ns[0]);
	fmt_us(b, sizeof b, r->spread_ns[1]);
	ui_text_add(
		out, ROLE_DIM, 1,
		"Paired by %s. Spread (slowest - fastest rank): A %s us (slowest %lld), B %s us "
		"(slowest %lld).",
		r->paired_by, a, (long long)r->r[r->slowest[0]].rank, b,
		(long long)r->r[r->slowest[1]].rank);
	if (row != r->chosen)
		ui_text_add(out, ROLE_DIM, 1, "Enter opens this rank's comparison.");
}

/* Enter: the rank's comparison in every view. */
static int rk_enter(struct ui_view *v, uint32_t row)
{
	return ui_open_rank(v->u, row);
}

/* The tab only when directories of ranks are compared. */
static int rk_shown(const struct ui *u)
{
	return u->c->ranks != NULL;
}

/* Every comparison of the run has the same ranks: the selected one stays selected. */
static int rk_on_comparison(const struct ui_view *v)
{
	return STALE_KEEP;
}

const struct ui_view_def ui_view_ranks = {
	.name = "Ranks",
	.what = "ranks",
	.table = { .cols = rk_cols,
		   .n_cols = RK_COLS,
		   .cell = rk_cell,
		   .key = rk_key,
		   .default_sort = RK_RANK },
	.csv_table = CSV_RANKS,
	.csv_item = ui_row_is_item,
	.build = rk_build,
	.release = rk_release,
	.evidence = rk_evidence,
	.drill_view = VIEW_COUNT,
	.enter = rk_enter,
	.enter_hint = "show rank",
	.shown = rk_shown,
	.absent = "no ranks: give two directories of per-rank traces",
	.on_comparison = rk_on_comparison,
};
