/* check_table.c — the generic table: sort, filter, groups, selection, search, layout, CSV. */
#include "testutil.h"

#include <math.h>

#include "fusediff/table.h"
#include "fusediff/table_cut.h"
#include "fusediff/util.h"

/* A small model: kernels with a name, a delta and a group (a fused kernel and the run it
 * replaces are one group). */
struct krow {
	const char *name;
	double delta;
	uint32_t group;
	int fused;
};

static const struct krow rows[] = {
	{ "gemm_qkv", 5, 0, 0 },		  /* 0 */
	{ "triton_fused_add_rmsnorm", -7, 1, 1 }, /* 1: group 1..3 */
	{ "pow, mean", 0, 1, 1 },		  /* 2 */
	{ "rsqrt \"kernel\"", 0, 1, 1 },	  /* 3 */
	{ "flash_fwd", 2, 4, 0 },		  /* 4 */
	{ "silu", NAN, 5, 0 },			  /* 5 */
	{ "gemm_o", 5, 6, 0 },			  /* 6: same delta as row 0 */
};
#define N_ROWS (sizeof rows / sizeof rows[0])

enum { COL_NAME, COL_DELTA, COL_ABS, N_COLS };

static const struct table_column cols[N_COLS] = {
	[COL_NAME] = { "Kernel", 10, 1, 0, TABLE_LEFT,
		       TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_SCROLL },
	[COL_DELTA] = { "Delta", 8, 0, 1, TABLE_RIGHT, 0 },
	[COL_ABS] = { "|Delta|", 8, 0, 2, TABLE_RIGHT, 0 },
};

static void cell(void *ctx, uint32_t r, int c, struct table_cell *out)
{
	(void)ctx;
	if (c == COL_NAME)
		out->text = rows[r].name;
	else
		snprintf(out->buf, out->cap, "%g",
			 c == COL_DELTA ? rows[r].delta : fabs(rows[r].delta));
}

static void key(void *ctx, uint32_t r, int c, struct table_key *out)
{
	(void)ctx;
	if (c == COL_NAME)
		out->str = rows[r].name;
	else
		out->num = c == COL_DELTA ? rows[r].delta : fabs(rows[r].delta);
}

static uint32_t group(void *ctx, uint32_t r)
{
	(void)ctx;
	return rows[r].group;
}

static int quick(void *ctx, uint32_t r, unsigned mask)
{
	(void)ctx;
	return !(mask & 1) || rows[r].fused;
}

static const struct table_def def = { cols, N_COLS, cell, key, group, quick, COL_ABS, 0 };

static void assert_view(const struct table *t, const char *want)
{
	char got[256] = "";

	for (uint32_t i = 0; i < t->n_view; i++) {
		char one[16];

		snprintf(one, sizeof one, "%s%u", i ? " " : "", t->view[i]);
		strcat(got, one);
	}
	ck_assert_str_eq(got, want);
}

START_TEST(test_default_sort_abs_delta)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS);
	/* |delta| largest first; the group 1..3 follows its leader (7) and stays in order; ties
	 * (rows 0 and 6) by row id; NAN last */
	assert_view(&t, "1 2 3 0 6 4 5");
	ck_assert_uint_eq(t.sel, 1);
	table_sort(&t, COL_ABS, 1);
	/* reversed: smallest first, but the group stays in order and NAN stays last */
	assert_view(&t, "4 0 6 1 2 3 5");
	table_clear(&t);
}
END_TEST

/* A MAGNITUDE column: by |delta| first, then the largest regression first, then the largest
 * gain first; the reverse key walks the three orders; a B-only row's NAN stays last. */
START_TEST(test_magnitude_three_orders)
{
	static struct table_column mcols[N_COLS];
	struct table_def mdef = def;
	struct table t;

	memcpy(mcols, cols, sizeof mcols);
	mcols[COL_DELTA].flags |= TABLE_COL_MAGNITUDE;
	mdef.cols = mcols;
	mdef.default_sort = COL_DELTA;
	table_init(&t, &mdef, NULL, N_ROWS);
	ck_assert(table_sort_by_magnitude(&t) && table_sort_descending(&t));
	assert_view(&t, "1 2 3 0 6 4 5");
	table_sort(&t, COL_DELTA, table_next_reverse(&t));
	ck_assert_int_eq(t.reverse, 1);
	ck_assert(!table_sort_by_magnitude(&t) && table_sort_descending(&t));
	assert_view(&t, "0 6 4 1 2 3 5"); /* +5 +5 +2 -7 */
	table_sort(&t, COL_DELTA, table_next_reverse(&t));
	ck_assert(!table_sort_descending(&t));
	assert_view(&t, "1 2 3 4 0 6 5"); /* -7 first: the largest gain */
	table_sort(&t, COL_DELTA, table_next_reverse(&t));
	ck_assert_int_eq(t.reverse, 0); /* back to |delta| */
	assert_view(&t, "1 2 3 0 6 4 5");
	/* other columns keep two directions */
	table_sort(&t, COL_ABS, 0);
	ck_assert_int_eq(table_next_reverse(&t), 1);
	table_sort(&t, COL_ABS, 1);
	ck_assert_int_eq(table_next_reverse(&t), 0);
	table_clear(&t);
}
END_TEST

START_TEST(test_sort_text_and_selection_kept)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS);
	table_move(&t, 3); /* row 0 */
	ck_assert_uint_eq(t.sel, 0);
	table_sort(&t, COL_NAME, 0);
	assert_view(&t, "4 6 0 5 1 2 3");
	ck_assert_uint_eq(t.sel, 0);
	ck_assert_uint_eq(t.sel_pos, 2);
	table_sort(&t, COL_DELTA, 0); /* signed, largest first */
	assert_view(&t, "0 6 4 1 2 3 5");
	ck_assert_uint_eq(t.sel, 0);
	table_sort(&t, -1, 0);
	assert_view(&t, "0 1 2 3 4 5 6");
	table_sort(&t, -1, 1); /* row order reversed; groups still read top-down */
	assert_view(&t, "6 5 4 1 2 3 0");
	ck_assert_uint_eq(t.sel, 0);
	table_clear(&t);
}
END_TEST

START_TEST(test_filter_keeps_groups_and_selection)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS);
	table_select_row(&t, 4);
	table_filter(&t, "GEMM", 0);
	assert_view(&t, "0 6");
	/* the selected row is gone: the next row in sort order that passes is selected */
	ck_assert_uint_eq(t.sel, 6);
	table_filter(&t, "rsqrt", 0); /* a continuation row matches: its whole group shows */
	assert_view(&t, "1 2 3");
	table_filter(&t, NULL, 1); /* quick filter: fused only */
	assert_view(&t, "1 2 3");
	table_filter(&t, "nothing matches this", 0);
	ck_assert_uint_eq(t.n_view, 0);
	ck_assert_uint_eq(t.sel, TABLE_NONE);
	table_move(&t, 1); /* harmless on an empty view */
	ck_assert_int_eq(table_search(&t, "gemm", 1), -1);
	table_filter(&t, NULL, 0);
	ck_assert_uint_eq(t.n_view, N_ROWS);
	ck_assert_uint_eq(t.sel, 1);
	table_clear(&t);
}
END_TEST

START_TEST(test_search_wraps)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS); /* view 1 2 3 0 6 4 5, selection on 1 */
	ck_assert_int_eq(table_search(&t, "GEMM", 1), 0);
	ck_assert_uint_eq(t.sel, 0);
	ck_assert_int_eq(table_search(&t, "gemm", 1), 0);
	ck_assert_uint_eq(t.sel, 6);
	ck_assert_int_eq(table_search(&t, "gemm", 1), 0); /* wraps to the top */
	ck_assert_uint_eq(t.sel, 0);
	ck_assert_int_eq(table_search(&t, "gemm", -1), 0); /* backwards wraps to the bottom */
	ck_assert_uint_eq(t.sel, 6);
	ck_assert_int_eq(table_search(&t, "no such kernel", 1), -1);
	ck_assert_uint_eq(t.sel, 6);
	/* a match in the selected group's own rows is not the next match: "m" is in its second
	 * row ("pow, mean") and in the next group (gemm_qkv) */
	table_select_row(&t, 1);
	ck_assert_int_eq(table_search(&t, "m", 1), 0);
	ck_assert_uint_eq(t.sel, 0);
	/* ...but it is a match when nothing else is */
	table_select_row(&t, 1);
	ck_assert_int_eq(table_search(&t, "mean", 1), 0);
	ck_assert_uint_eq(t.sel, 1);
	table_clear(&t);
}
END_TEST

/* Search keys given as ids (key_ids, id_key) match as the strings key() gives: two columns
 * sharing one array of ids, a third with rows of no key (TABLE_NONE) and an id out of range. */
enum { IC_NAME, IC_ALIAS, IC_KIND, IC_N };

static const struct table_column icols[IC_N] = {
	[IC_NAME] = { "Kernel", 10, 1, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[IC_ALIAS] = { "Alias", 0, 0, 9, TABLE_LEFT,
		       TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN },
	[IC_KIND] = { "Kind", 6, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
};
static const char *const ialias[N_ROWS] = { "qkv", "fused", NULL, "Rsqrt", "fa", NULL, "o_proj" };
static const char *const ikinds[] = { "matmul", "attention" };
static const uint32_t iname_ids[N_ROWS] = { 0, 1, 2, 3, 4, 5, 6 };
static const uint32_t ikind_ids[N_ROWS] = { 0, 0, TABLE_NONE, 0, 1, 7, 0 };

static const char *ikey_of(int c, uint32_t id)
{
	if (c == IC_KIND)
		return id < 2 ? ikinds[id] : NULL;
	return c == IC_NAME ? rows[id].name : ialias[id];
}

static void ikey(void *ctx, uint32_t r, int c, struct table_key *out)
{
	(void)ctx;
	out->str = ikey_of(c, c == IC_KIND ? ikind_ids[r] : iname_ids[r]);
}

static const uint32_t *ikey_ids(void *ctx, int c, uint32_t *n_ids)
{
	(void)ctx;
	*n_ids = c == IC_KIND ? 2 : N_ROWS;
	return c == IC_KIND ? ikind_ids : iname_ids;
}

static const char *iid_key(void *ctx, int c, uint32_t id)
{
	(void)ctx;
	return ikey_of(c, id);
}

START_TEST(test_search_by_ids)
{
	static const char *const pats[] = { "gemm", "FUSED", "o", "attention", "MAT",
					    "rsq",  "zzz",   "m", "a" };
	struct table_def sdef = { icols, IC_N, cell, ikey, group, quick, -1, 0 };
	struct table_def idef = sdef;
	struct table ts, ti;

	idef.key_ids = ikey_ids;
	idef.id_key = iid_key;
	table_init(&ts, &sdef, NULL, N_ROWS);
	table_init(&ti, &idef, NULL, N_ROWS);
	for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
		uint32_t ks, ns, ki, ni;

		for (int dir = -1; dir <= 1; dir += 2)
			for (int step = 0; step < 3; step++) {
				ck_assert_int_eq(table_search(&ts, pats[p], dir),
						 table_search(&ti, pats[p], dir));
				ck_assert_uint_eq(ts.sel, ti.sel);
				table_search_count(&ts, pats[p], &ks, &ns);
				table_search_count(&ti, pats[p], &ki, &ni);
				ck_assert_uint_eq(ks, ki);
				ck_assert_uint_eq(ns, ni);
			}
		table_filter(&ts, pats[p], 0);
		table_filter(&ti, pats[p], 0);
		ck_assert_uint_eq(ts.n_view, ti.n_view);
		for (uint32_t i = 0; i < ts.n_view; i++)
			ck_assert_uint_eq(ts.view[i], ti.view[i]);
		table_filter(&ts, NULL, 0);
		table_filter(&ti, NULL, 0);
	}
	/* the matches by hand: "a" is in every row but silu's (row 5: no alias, its kind an id out
	 * of range), row 0 by its kind, row 2 by its name (no alias, no kind) */
	table_filter(&ti, "a", 0);
	assert_view(&ti, "0 1 2 3 4 6");
	table_filter(&ti, "rsq", 0); /* row 3: its whole group */
	assert_view(&ti, "1 2 3");
	table_clear(&ts);
	table_clear(&ti);
}
END_TEST

START_TEST(test_move_and_scroll)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS);
	table_move(&t, 100);
	ck_assert_uint_eq(t.sel_pos, N_ROWS - 1);
	table_scroll_to_sel(&t, 3);
	ck_assert_uint_eq(t.top, N_ROWS - 3);
	table_move(&t, -100);
	ck_assert_uint_eq(t.sel_pos, 0);
	table_scroll_to_sel(&t, 3);
	ck_assert_uint_eq(t.top, 0);
	table_scroll(&t, 2, 3); /* wheel: the selection follows when it would leave the window, */
	ck_assert_uint_eq(t.top, 2);
	ck_assert_uint_eq(t.sel_pos, 3); /* to the first group that starts in the window */
	table_scroll(&t, 100, 3);
	ck_assert_uint_eq(t.top, N_ROWS - 3);
	ck_assert_int_eq(table_select_row(&t, 99), -1);
	table_clear(&t);
}
END_TEST

/* The selection is a group: one step moves over a whole group, and selecting or finding one
 * of its rows selects its first row. */
START_TEST(test_move_by_groups)
{
	struct table t;

	table_init(&t, &def, NULL, N_ROWS); /* view 1 2 3 0 6 4 5 */
	ck_assert_uint_eq(t.sel, 1);
	table_move(&t, 1);
	ck_assert_uint_eq(t.sel, 0);
	ck_assert_uint_eq(t.sel_pos, 3);
	table_move(&t, -1);
	ck_assert_uint_eq(t.sel, 1);
	ck_assert_uint_eq(t.sel_pos, 0);
	table_move(&t, 2); /* two lines: still inside the group, so the next group */
	ck_assert_uint_eq(t.sel, 0);
	table_move(&t, -2); /* back into the group: its first row */
	ck_assert_uint_eq(t.sel, 1);
	ck_assert_int_eq(table_select_row(&t, 3), 0);
	ck_assert_uint_eq(t.sel, 1);
	table_move(&t, 4); /* four lines: the group that starts there */
	ck_assert_uint_eq(t.sel, 6);
	ck_assert_int_eq(table_search(&t, "rsqrt", 1), 0);
	ck_assert_uint_eq(t.sel, 1);
	ck_assert_uint_eq(table_group(&t, 3), 1);
	{
		uint32_t index, count;

		table_move(&t, 1);
		table_position(&t, &index, &count);
		ck_assert_uint_eq(index, 2); /* the second of five groups */
		ck_assert_uint_eq(count, 5);
		table_move(&t, -1);
	}
	/* the window shows the whole selected group when it fits */
	t.top = 3;
	table_scroll_to_sel(&t, 4);
	ck_assert_uint_eq(t.top, 0);
	table_move(&t, 100);
	ck_assert_uint_eq(t.sel, 5);
	table_move(&t, 1); /* at the end: stays */
	ck_assert_uint_eq(t.sel, 5);
	ck_assert_uint_eq(table_groups(&t), 5); /* "N of 5 rows", as the position counts */
	/* the last row (G) below a group of three: the window starts on a group's first row,
	 * never inside one, even when that leaves empty lines */
	table_sort(&t, COL_ABS, 1); /* view 4 0 6 1 2 3 5 */
	table_move(&t, 100);
	ck_assert_uint_eq(t.sel, 5);
	for (int h = 1; h <= 7; h++) {
		table_scroll_to_sel(&t, h);
		ck_assert_msg(table_group(&t, t.view[t.top]) == t.view[t.top], "height %d: top %u",
			      h, t.top);
		ck_assert_uint_le(t.top, t.sel_pos);
		ck_assert_uint_gt(t.top + (uint32_t)h, t.sel_pos);
	}
	table_clear(&t);
}
END_TEST

START_TEST(test_layout)
{
	struct table_layout l;

	/* wide: all columns, the flexible name takes the rest */
	table_layout(cols, N_COLS, 40, &l);
	ck_assert_int_eq(l.n, 3);
	ck_assert_int_eq(l.w[0], 40 - 8 - 8 - 2);
	ck_assert_int_eq(l.x[1], l.w[0] + 1);
	ck_assert_int_eq(l.x[2] + l.w[2], 40);
	/* narrow: |Delta| (priority 2) goes first, then Delta */
	table_layout(cols, N_COLS, 25, &l);
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(l.col[1], COL_DELTA);
	table_layout(cols, N_COLS, 12, &l);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(l.w[0], 12);
	/* columns that cannot be dropped: the flexible one shrinks so the number stays whole */
	{
		static const struct table_column two[] = { { "Name", 20, 1, 0, TABLE_LEFT,
							     TABLE_COL_TEXT },
							   { "Num", 8, 0, 0, TABLE_RIGHT, 0 } };

		table_layout(two, 2, 20, &l);
		ck_assert_int_eq(l.n, 2);
		ck_assert_int_eq(l.w[0], 11);
		ck_assert_int_eq(l.x[1], 12);
		ck_assert_int_eq(l.w[1], 8);
		table_layout(two, 2, 12, &l); /* the name stops at TABLE_MIN_FLEX */
		ck_assert_int_eq(l.w[0], TABLE_MIN_FLEX);
		ck_assert_int_eq(l.w[1], 3);
	}
	/* narrower than the one remaining column: clipped, never past the width */
	table_layout(cols, N_COLS, 5, &l);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(l.w[0], 5);
}
END_TEST

/* A column whose rows all say the same goes first on a narrow screen (Kind when every row is a
 * match); while the rows differ it stays and the priorities decide. */
enum { UC_NAME, UC_KIND, UC_ABS, UC_N };

static const struct table_column ucols[UC_N] = {
	[UC_NAME] = { "Kernel", 10, 1, 0, TABLE_LEFT, TABLE_COL_TEXT },
	[UC_KIND] = { "Kind", 7, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_UNIFORM_FIRST },
	[UC_ABS] = { "|Delta|", 8, 0, 2, TABLE_RIGHT, 0 },
};

static void ucell(void *ctx, uint32_t r, int c, struct table_cell *out)
{
	(void)ctx;
	if (c == UC_KIND)
		out->text = rows[r].fused ? "fused" : "match";
	else
		cell(ctx, r, c == UC_NAME ? COL_NAME : COL_ABS, out);
}

START_TEST(test_layout_uniform_first)
{
	static const struct table_def udef = { ucols, UC_N, ucell, key, group, quick, -1, 0 };
	struct table t;
	struct table_layout l;

	table_init(&t, &udef, NULL, N_ROWS);
	ck_assert_uint_eq(t.uniform, 0);
	table_layout_of(&t, 20, &l); /* kinds differ: |Delta| (priority 2) goes */
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(l.col[1], UC_KIND);
	table_filter(&t, NULL, 1); /* only the fused rows: every Kind says "fused" */
	ck_assert_uint_eq(t.uniform, 1u << UC_KIND);
	table_layout_of(&t, 20, &l);
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(l.col[1], UC_ABS);
	table_layout_of(&t, 40, &l); /* wide enough: nothing goes */
	ck_assert_int_eq(l.n, 3);
	table_clear(&t);
}
END_TEST

START_TEST(test_csv)
{
	struct table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	table_init(&t, &def, NULL, N_ROWS);
	table_filter(&t, "rmsnorm", 0);
	ck_assert_int_eq(table_write_csv(f, &t), 0);
	fclose(f);
	ck_assert_str_eq(buf, "Kernel,Delta,|Delta|\r\n"
			      "triton_fused_add_rmsnorm,-7,7\r\n"
			      "\"pow, mean\",0,0\r\n"
			      "\"rsqrt \"\"kernel\"\"\",0,0\r\n");
	free(buf);
	table_clear(&t);
}
END_TEST

START_TEST(test_empty_table)
{
	struct table t;

	table_init(&t, &def, NULL, 0);
	ck_assert_uint_eq(t.n_view, 0);
	ck_assert_uint_eq(t.sel, TABLE_NONE);
	table_sort(&t, COL_NAME, 1);
	table_move(&t, -1);
	table_scroll(&t, 5, 10);
	table_scroll_to_sel(&t, 10);
	ck_assert_int_eq(table_search(&t, "x", 1), -1);
	table_clear(&t);
}
END_TEST

/* A large table: sort and filter of 10^5 rows keep order and selection (the timing is measured
 * in bench/, not here). */
struct big {
	double *v;
};

static void big_cell(void *ctx, uint32_t r, int c, struct table_cell *out)
{
	snprintf(out->buf, out->cap, "%g", ((struct big *)ctx)->v[r]);
}

static void big_key(void *ctx, uint32_t r, int c, struct table_key *out)
{
	out->num = ((struct big *)ctx)->v[r];
}

START_TEST(test_large)
{
	static const struct table_column bc[] = { { "v", 8, 0, 0, TABLE_RIGHT, 0 } };
	struct table_def bd = { bc, 1, big_cell, big_key, NULL, NULL, 0, 0 };
	struct big b;
	struct table t;
	uint32_t n = 100000;

	b.v = xmalloc(n * sizeof *b.v);
	for (uint32_t i = 0; i < n; i++)
		b.v[i] = (double)((i * 7919u) % 1000);
	table_init(&t, &bd, &b, n);
	for (uint32_t i = 1; i < n; i++) {
		double x = b.v[t.view[i - 1]], y = b.v[t.view[i]];

		ck_assert(x > y || (x == y && t.view[i - 1] < t.view[i]));
	}
	table_select_row(&t, 12345);
	table_sort(&t, 0, 1);
	ck_assert_uint_eq(t.sel, 12345);
	ck_assert_uint_eq(t.view[t.sel_pos], 12345);
	/* rebuilt with fewer rows: the sort buffers are kept, the order is right */
	{
		void *scratch = t.scratch;

		table_reinit(&t, &bd, &b, n / 2);
		ck_assert_ptr_eq(t.scratch, scratch);
		ck_assert_uint_eq(t.n_view, n / 2);
		for (uint32_t i = 1; i < n / 2; i++) {
			double x = b.v[t.view[i - 1]], y = b.v[t.view[i]];

			ck_assert(x > y || (x == y && t.view[i - 1] < t.view[i]));
		}
	}
	table_clear(&t);
	free(b.v);
}
END_TEST

/* Could text y be behind cut (its parts around '~': head, tail; or head, middle, "")? */
static int behind(const char *y, const char *cut)
{
	const char *e1 = strchr(cut, '~'), *e2 = e1 ? strchr(e1 + 1, '~') : NULL;
	size_t hl = (size_t)(e1 - cut), yl = strlen(y);

	if (!e1 || strncmp(y, cut, hl) != 0)
		return 0;
	if (e2) { /* head~middle~ */
		char mid[256];

		snprintf(mid, sizeof mid, "%.*s", (int)(e2 - e1 - 1), e1 + 1);
		return strstr(y + hl, mid) != NULL;
	}
	return yl >= hl + strlen(e1 + 1) && strcmp(y + yl - strlen(e1 + 1), e1 + 1) == 0;
}

/* Names that the usual middle cut makes read alike stay apart (issue 33): A100 CUTLASS GEMMs
 * that differ only in their tile shape, embedding kernels that differ only in the middle
 * (weighted, unweighted), nvjet GEMMs; no cut could be another name's of the column; a name
 * that reads unlike the others keeps the usual cut; a cut moved to the tail starts at a
 * word. */
START_TEST(test_cut_distinct)
{
	static const char *const names[] = {
		"cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
		"cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4",
		"cutlass_80_tensorop_s1688gemm_64x64_32x3_nn_align4",
		"cutlass_80_tensorop_s1688gemm_128x128_32x3_tn_align4",
		"cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1",
		"nvjet_sm103_tst_64x8_64x16_4x1_v_bz_TNT",
		"nvjet_sm103_tst_128x8_64x16_4x1_v_bz_TNT",
		"vectorized_elementwise_kernel<CUDAFunctor_add>",
		"vectorized_elementwise_kernel<CUDAFunctor_add>", /* twice: one name */
		"split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1",
		"split_embedding_backward_codegen_rowwise_adagrad_weighted_kernel_cta_per_row_1",
		"split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1",
		"short",
	};
	enum { N = sizeof names / sizeof names[0] };
	struct table_names *tn = table_names_new(names, N);
	char cut[N][256];
	int moved[N];

	/* from 30 cells every name can be told apart: 7 of head, 22 of tail tell
	 * ..._128x128_32x3_nn_align4 from ..._256x128_32x3_nn_align4 and ..._nn_align1; below, a
	 * name that none can keeps the usual cut */
	for (int w = 20; w <= 60; w++) {
		for (int i = 0; i < N; i++) {
			int len = (int)strlen(names[i]);

			moved[i] = w >= 30;
			if (len <= w)
				snprintf(cut[i], sizeof cut[i], "%s", names[i]);
			else if (table_names_cut(tn, names[i], w, "~", 1, cut[i], sizeof cut[i]))
				moved[i] = 1;
			else
				snprintf(cut[i], sizeof cut[i], "%.*s~%s", w / 2, names[i],
					 names[i] + len - (w - 1 - w / 2));
			ck_assert_int_le(strlen(cut[i]), w);
			ck_assert_msg(len <= w || behind(names[i], cut[i]), "%s: %s", names[i],
				      cut[i]);
		}
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++)
				if (moved[i] && strcmp(names[i], names[j]) != 0 &&
				    (int)strlen(names[j]) > w)
					ck_assert_msg(!behind(names[j], cut[i]),
						      "%d cells: %s reads like %s too", w, cut[i],
						      names[j]);
	}
	/* nothing else reads like it: the usual cut */
	ck_assert_int_eq(table_names_cut(tn, names[7], 20, "~", 1, cut[0], sizeof cut[0]), 0);
	/* the tile shape is kept, from its start */
	ck_assert_int_eq(table_names_cut(tn, names[0], 30, "~", 1, cut[0], sizeof cut[0]), 1);
	ck_assert_str_eq(cut[0], "cutlass~128x128_32x3_nn_align4");
	table_names_free(tn);
}
END_TEST

static Suite *table_suite(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_default_sort_abs_delta);
	tcase_add_test(tc, test_sort_text_and_selection_kept);
	tcase_add_test(tc, test_magnitude_three_orders);
	tcase_add_test(tc, test_filter_keeps_groups_and_selection);
	tcase_add_test(tc, test_search_wraps);
	tcase_add_test(tc, test_search_by_ids);
	tcase_add_test(tc, test_move_and_scroll);
	tcase_add_test(tc, test_move_by_groups);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_layout_uniform_first);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_empty_table);
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_cut_distinct);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(table_suite());
}
