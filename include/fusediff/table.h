/* table.h — the one generic table behind every view of the explorer (curses-free).
 *
 * A view describes its columns and answers three callbacks: the text of a cell, the sort key
 * of a cell, and (optionally) which rows pass a quick filter. The table owns everything else:
 * a sorted index of the rows (stable, with the row id as the final tie-breaker), a filtered
 * subset of it, the selection (kept by row id across sort and filter), the first visible row,
 * horizontal scrolling of long text columns, search, the column layout for a given width and
 * CSV export. Rows are named by a stable id 0..n_rows-1 that the view chooses.
 *
 * Groups: a view may declare that consecutive rows form a group (a fused kernel and the run
 * of kernels it replaces). A group sorts by its first row's keys, always stays together and
 * in order, and passes a filter when any of its rows does. */
#ifndef FUSEDIFF_TABLE_H
#define FUSEDIFF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TABLE_MAX_COLS 24
#define TABLE_NONE     UINT32_MAX
#define TABLE_MIN_FLEX 8 /* a flexible column shrinks no further when the table is narrow */

enum table_align { TABLE_LEFT, TABLE_RIGHT };

enum table_col_flags {
	TABLE_COL_TEXT = 1 << 0,   /* sort by the text key (ascending first); else by the number */
	TABLE_COL_SCROLL = 1 << 1, /* long text: shifted by the horizontal scroll */
	TABLE_COL_SEARCH = 1 << 2, /* searched by / and the text filter (uses the text key) */
	TABLE_COL_BAR = 1 << 3,	   /* drawn as a horizontal bar of cell.bar (0..1) */
	TABLE_COL_ASC = 1 << 4,	   /* numeric column that sorts ascending first (positions) */
	TABLE_COL_NOSORT = 1 << 5, /* cannot be sorted by */
	TABLE_COL_SIGNED = 1 << 6, /* with TABLE_COL_BAR: cell.bar is -1..1, drawn from the middle
				      (negative to the left) */
	TABLE_COL_HIDDEN = 1 << 7, /* never drawn: only searched (with TABLE_COL_SEARCH), such as
				      the names of the kernels a row holds */
	TABLE_COL_MAGNITUDE = 1 << 8, /* a signed number (B - A): three orders, reverse 0 by
					 magnitude, largest first; 1 largest first (the largest
					 regression); 2 smallest first (the largest gain) */
	TABLE_COL_DECIMAL = 1 << 9,   /* numbers with up to two decimals, aligned on the decimal
					 point (blanks after "12.5" and "1513") */
	TABLE_COL_UNIFORM_FIRST = 1 << 10, /* dropped before any other column on a narrow screen
					      while every row in view shows the same text in it
					      (Kind when every row is a match) */
};

struct table_column {
	const char *title; /* header text, also the CSV header */
	int width;	   /* preferred width in cells; the minimum for flexible columns */
	int flex;	   /* share of the width left over (0: fixed width) */
	int priority;	   /* 0: always shown; larger numbers are dropped first when narrow */
	uint8_t align;	   /* enum table_align */
	uint16_t flags;	   /* enum table_col_flags */
};

/* What a cell callback fills in. text may point into buf (capacity cap) or to any string that
 * lives as long as the table's model; it is raw (the drawer escapes it). */
struct table_cell {
	char *buf;
	size_t cap;
	const char *text;
	int role;   /* colour role for the drawer, 0 for the default */
	double bar; /* TABLE_COL_BAR: fraction of the width, 0..1 (-1..1 when signed) */
	int indent; /* cells of indentation (group continuation rows) */
	int list;   /* TABLE_COL_SCROLL: a list ("3 kernels: a + b + c"), cut at its end rather
		       than in the middle, so that no cut reads like one name */
};

/* A sort key: num for numeric columns (NAN sorts last in both directions), str for TEXT
 * columns (borrowed; NULL sorts last). The text keys of SEARCH columns are asked once per table
 * and must stay valid and unchanged while it lives (rebuild the table when they change). */
struct table_key {
	double num;
	const char *str;
};

struct table_def {
	const struct table_column *cols; /* borrowed, must outlive the table */
	int n_cols;
	void (*cell)(void *ctx, uint32_t row, int col, struct table_cell *out);
	void (*key)(void *ctx, uint32_t row, int col, struct table_key *out);
	/* Optional: the first row of row's group (rows of a group are consecutive ids). */
	uint32_t (*group)(void *ctx, uint32_t row);
	/* Optional: 1 when row passes the quick filter bits in mask (view-defined). */
	int (*quick)(void *ctx, uint32_t row, unsigned mask);
	int default_sort;    /* column sorted by at start, -1 for row order */
	int default_reverse; /* 1: the opposite of the column's natural direction */
	/* Optional, both or neither: the text keys of SEARCH column col of every row as ids
	 * (ids[r] for r < n_rows, TABLE_NONE for no key), each below *n_ids, the key of an id
	 * being id_key(ctx, col, id): the string key() gives for such a row. The array is the
	 * view's and stays unchanged while the table lives; columns may share one. NULL when col
	 * has no ids (key() is then asked row by row). Views whose keys are interned names give
	 * their name ids: a search matches each distinct id once, found by index. */
	const uint32_t *(*key_ids)(void *ctx, int col, uint32_t *n_ids);
	const char *(*id_key)(void *ctx, int col, uint32_t id);
};

struct table_names; /* table_cut.h */
struct table_skeys; /* table.c */

struct table {
	struct table_def def;
	void *ctx;
	uint32_t n_rows;
	uint32_t *order; /* every row, sorted */
	uint32_t *view;	 /* the rows that pass the filter, in sorted order */
	uint32_t n_view;
	int sort_col;	       /* -1: row order */
	int reverse;	       /* 1: against the column's natural direction */
	char *filter;	       /* text filter (owned), NULL when none */
	unsigned quick;	       /* quick filter bits, 0 when none */
	uint32_t sel;	       /* selected row id (a group's first row), TABLE_NONE when empty */
	uint32_t sel_pos;      /* its position in view */
	uint32_t top;	       /* first visible position */
	int hscroll;	       /* cells the TABLE_COL_SCROLL columns are shifted by */
	int flex_extra;	       /* cells added to the flexible columns' width (table_layout_flex) */
	void *scratch;	       /* sort buffers, kept between sorts (and by table_reinit) */
	uint32_t scratch_rows; /* rows they have room for */
	struct table_skeys *skeys; /* the SEARCH columns' keys of every row, asked once */
	struct table_match {	   /* per row: do its SEARCH keys contain pat? For the last two
				  patterns searched or filtered by, worked out once each */
		char *pat;
		uint8_t *hit;
	} match[2];
	int match_next; /* the entry to replace next */
	uint32_t
		uniform; /* bit i: every row in view shows the same text in UNIFORM_FIRST column i */
	struct table_names *names[TABLE_MAX_COLS]; /* SCROLL columns: every row's text, for
						      table_cut_head(), built on first use */
};

/* Set up t over rows 0..n_rows-1 of a model described by def, with ctx passed to the
 * callbacks (both borrowed). Sorts by def->default_sort and selects the first row.
 * Release with table_clear(). */
void table_init(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows);
void table_clear(struct table *t);
/* table_clear() then table_init(), keeping the sort buffers when they are large enough: a view
 * rebuilt with as many rows sorts without touching fresh memory. */
void table_reinit(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows);

/* Sort by column col (-1: row order), reverse 1 for the opposite of the column's natural
 * direction (numbers descending, TEXT and ASC columns ascending). Keeps the selection. */
void table_sort(struct table *t, int col, int reverse);
/* The reverse value that the next press of "reverse" (or a click on the sorted column) gives:
 * the other direction, or the next of a MAGNITUDE column's three orders. */
int table_next_reverse(const struct table *t);
/* Whether the rows are in descending order of the sorted column (for its marker), and whether
 * by magnitude (a MAGNITUDE column in its first order). */
int table_sort_descending(const struct table *t);
int table_sort_by_magnitude(const struct table *t);
/* Filter by text (case-insensitive substring of any SEARCH column; NULL or "" for none) and
 * by quick filter bits (0 for none). Keeps the selection when it still passes, else selects
 * the nearest row that does. */
void table_filter(struct table *t, const char *text, unsigned quick);

/* Move the selection by delta lines (clamped; one step down is to the next group), to a
 * position, or to a row id (returns -1 when the row is filtered out or does not exist). The
 * selection is always the first row of a group. */
void table_move(struct table *t, long delta);
void table_select_pos(struct table *t, uint32_t pos);
int table_select_row(struct table *t, uint32_t row);
/* The selected group's number (1-based, 0 when empty) and the number of groups shown. */
void table_position(const struct table *t, uint32_t *index, uint32_t *count);
/* The number of groups (a row that is no group's continuation is one) of all rows, filtered or
 * not: what "N of M rows" counts, as table_position() does. */
uint32_t table_groups(const struct table *t);
/* The first row of row's group (row itself when the table has no groups). */
uint32_t table_group(const struct table *t, uint32_t row);
/* Adjust top so that the selection is visible in a window of height rows. */
void table_scroll_to_sel(struct table *t, int height);
/* Scroll the window by delta rows (the mouse wheel), moving the selection only when it would
 * leave the window. */
void table_scroll(struct table *t, long delta, int height);

/* Search for pattern (case-insensitive substring of the SEARCH columns) from the row after
 * the selection (dir 1) or before it (dir -1), wrapping around. Selects the match and
 * returns 0, or returns -1 when no row matches. */
int table_search(struct table *t, const char *pattern, int dir);
/* How many groups of the view match pattern (*n), and which of them, counting from 1 in view
 * order, is the selected one (*k; 0 when it does not match): "match k of n". */
void table_search_count(struct table *t, const char *pattern, uint32_t *k, uint32_t *n);

/* Where each column goes in a table width cells wide: visible columns in order, their x and
 * width. Pure: depends on the columns and width only. Columns are separated by one space.
 * When the columns do not fit, those with the largest priority are dropped, then flexible
 * columns shrink (to TABLE_MIN_FLEX), then the last column is cut at the edge. */
struct table_layout {
	int n;
	int col[TABLE_MAX_COLS];
	int x[TABLE_MAX_COLS];
	int w[TABLE_MAX_COLS];
};
void table_layout(const struct table_column *cols, int n_cols, int width, struct table_layout *out);
/* The same with every flexible column's preferred width changed by flex_extra cells (never
 * below TABLE_MIN_FLEX): wider names push columns out by priority, narrower ones let them in. */
void table_layout_flex(const struct table_column *cols, int n_cols, int width, int flex_extra,
		       struct table_layout *out);
/* The layout of t's columns: its flex_extra, and its uniform columns dropped first. */
void table_layout_of(const struct table *t, int width, struct table_layout *out);

/* Cut text, a cell of TABLE_COL_SCROLL column col wider than w cells, so that it reads unlike
 * every other row's text of the column (table_names_cut(), table_cut.h, with ellipsis ell of
 * ew cells): 1 with out filled, 0 for the usual middle cut. The texts of the column are asked
 * once, the first time (table_clear() forgets them). */
int table_cut(struct table *t, int col, const char *text, int w, const char *ell, int ew, char *out,
	      size_t cap);

/* The text of one cell (scratch buf of cap bytes). */
void table_cell(const struct table *t, uint32_t row, int col, struct table_cell *c, char *buf,
		size_t cap);

/* Write the filtered rows in sorted order as CSV (RFC 4180 quoting, CRLF line ends) with a
 * header line; bar columns are written as their fraction. Returns 0, or -1 when writing
 * fails (errno set). */
int table_write_csv(FILE *f, const struct table *t);

#endif
