/* table.c — the generic sorted, filtered, selectable table (see table.h). */
#define _GNU_SOURCE /* strcasestr */
#include "fusediff/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

static uint32_t group_of(const struct table *t, uint32_t row)
{
	return t->def.group ? t->def.group(t->ctx, row) : row;
}

/* Natural direction: numbers largest first, text and ASC columns smallest first. */
static int col_descending(const struct table *t, int col)
{
	return !(t->def.cols[col].flags & (TABLE_COL_TEXT | TABLE_COL_ASC));
}

struct sort_ctx {
	const struct table *t;
	const struct table_key *keys; /* per row (the group leader's key) */
	int text, desc;
};

/* Order of rows a and b: by key in the chosen direction (missing keys last), then by row id. */
static int row_cmp(const struct sort_ctx *s, uint32_t a, uint32_t b)
{
	const struct table_key *ka = &s->keys[a], *kb = &s->keys[b];
	int r;

	if (s->text) {
		if (!ka->str || !kb->str)
			r = ka->str ? -1 : kb->str ? 1 : 0;
		else
			r = CMP(strcmp(ka->str, kb->str), 0) * (s->desc ? -1 : 1);
	} else {
		int na = isnan(ka->num), nb = isnan(kb->num);

		if (na || nb)
			r = na && nb ? 0 : na ? 1 : -1;
		else
			r = s->desc ? CMP(kb->num, ka->num) : CMP(ka->num, kb->num);
	}
	return r ? r : CMP(a, b);
}

/* Stable merge sort of idx[0..n) using tmp[0..n). */
static void merge_sort(const struct sort_ctx *s, uint32_t *idx, uint32_t *tmp, uint32_t n)
{
	uint32_t mid, i, j, k;

	if (n < 2)
		return;
	if (n <= 8) { /* insertion sort */
		for (i = 1; i < n; i++) {
			uint32_t v = idx[i];

			for (j = i; j > 0 && row_cmp(s, idx[j - 1], v) > 0; j--)
				idx[j] = idx[j - 1];
			idx[j] = v;
		}
		return;
	}
	mid = n / 2;
	merge_sort(s, idx, tmp, mid);
	merge_sort(s, idx + mid, tmp, n - mid);
	if (row_cmp(s, idx[mid - 1], idx[mid]) <= 0)
		return;
	memcpy(tmp, idx, mid * sizeof *idx);
	i = 0, j = mid, k = 0;
	while (i < mid && j < n)
		idx[k++] = row_cmp(s, idx[j], tmp[i]) < 0 ? idx[j++] : tmp[i++];
	while (i < mid)
		idx[k++] = tmp[i++];
}

/* Position of row in the view, or TABLE_NONE. */
static uint32_t view_find(const struct table *t, uint32_t row)
{
	for (uint32_t i = 0; i < t->n_view; i++)
		if (t->view[i] == row)
			return i;
	return TABLE_NONE;
}

static int is_leader(const struct table *t, uint32_t pos)
{
	return group_of(t, t->view[pos]) == t->view[pos];
}

/* Select the group at pos (its first row: rows of a group are consecutive in the view). */
static void set_sel_pos(struct table *t, uint32_t pos)
{
	if (t->n_view == 0) {
		t->sel = TABLE_NONE;
		t->sel_pos = 0;
		t->top = 0;
		return;
	}
	if (pos >= t->n_view)
		pos = t->n_view - 1;
	while (pos > 0 && !is_leader(t, pos))
		pos--;
	t->sel_pos = pos;
	t->sel = t->view[pos];
}

/* The first group that starts at or after pos, or TABLE_NONE. */
static uint32_t leader_from(const struct table *t, uint32_t pos)
{
	while (pos < t->n_view && !is_leader(t, pos))
		pos++;
	return pos < t->n_view ? pos : TABLE_NONE;
}

/* The last position of the group that starts at pos. */
static uint32_t group_end(const struct table *t, uint32_t pos)
{
	uint32_t next = pos + 1 < t->n_view ? leader_from(t, pos + 1) : TABLE_NONE;

	return next == TABLE_NONE ? t->n_view - 1 : next - 1;
}

static int row_passes(const struct table *t, uint32_t row)
{
	if (t->quick && t->def.quick && !t->def.quick(t->ctx, row, t->quick))
		return 0;
	if (t->filter && *t->filter && !table_row_matches(t, row, t->filter))
		return 0;
	return 1;
}

/* Rebuild view from order and the filter, keeping the selected row when it passes and else
 * the first passing row at or after its old place in the sorted order. */
static void rebuild_view(struct table *t)
{
	uint32_t old = t->sel, old_order_pos = TABLE_NONE, pos = TABLE_NONE;
	uint8_t *pass = xcalloc(t->n_rows ? t->n_rows : 1, 1);

	for (uint32_t r = 0; r < t->n_rows; r++)
		if (row_passes(t, r))
			pass[group_of(t, r)] = 1;
	t->n_view = 0;
	for (uint32_t i = 0; i < t->n_rows; i++) {
		uint32_t r = t->order[i];

		if (r == old)
			old_order_pos = i;
		if (!pass[group_of(t, r)])
			continue;
		if (r == old || (pos == TABLE_NONE && old_order_pos != TABLE_NONE))
			pos = t->n_view;
		t->view[t->n_view++] = r;
	}
	free(pass);
	set_sel_pos(t, pos == TABLE_NONE ? (t->n_view ? t->n_view - 1 : 0) : pos);
	if (old == TABLE_NONE)
		set_sel_pos(t, 0);
}

void table_init(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows)
{
	memset(t, 0, sizeof *t);
	t->def = *def;
	t->ctx = ctx;
	t->n_rows = n_rows;
	t->order = xcalloc(n_rows ? n_rows : 1, sizeof *t->order);
	t->view = xcalloc(n_rows ? n_rows : 1, sizeof *t->view);
	for (uint32_t i = 0; i < n_rows; i++)
		t->order[i] = i;
	t->sel = TABLE_NONE;
	t->sort_col = -1;
	table_sort(t, def->default_sort, def->default_reverse);
	set_sel_pos(t, 0);
}

void table_clear(struct table *t)
{
	free(t->order);
	free(t->view);
	free(t->filter);
	memset(t, 0, sizeof *t);
	t->sel = TABLE_NONE;
}

void table_sort(struct table *t, int col, int reverse)
{
	if (col >= t->def.n_cols || (col >= 0 && (t->def.cols[col].flags & TABLE_COL_NOSORT)))
		return;
	t->sort_col = col;
	t->reverse = reverse;
	if (col < 0) {
		for (uint32_t i = 0; i < t->n_rows; i++)
			t->order[i] = reverse ? t->n_rows - 1 - i : i;
		/* keep groups in order even when reversed */
		if (reverse && t->def.group) {
			for (uint32_t i = 0; i < t->n_rows;) {
				uint32_t j = i + 1;

				while (j < t->n_rows && group_of(t, t->order[j]) == group_of(t, t->order[i]))
					j++;
				for (uint32_t a = i, b = j - 1; a < b; a++, b--) {
					uint32_t v = t->order[a];

					t->order[a] = t->order[b];
					t->order[b] = v;
				}
				i = j;
			}
		}
	} else {
		struct table_key *keys = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *keys);
		uint32_t *tmp = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *tmp);
		struct sort_ctx s = { t, keys, !!(t->def.cols[col].flags & TABLE_COL_TEXT),
				      col_descending(t, col) ^ !!reverse };

		for (uint32_t r = 0; r < t->n_rows; r++) {
			uint32_t g = group_of(t, r);

			if (g != r && g < r) {
				keys[r] = keys[g];
				continue;
			}
			keys[r].num = NAN;
			keys[r].str = NULL;
			t->def.key(t->ctx, r, col, &keys[r]);
		}
		/* rows of one group share the leader's key; ties break by row id */
		for (uint32_t i = 0; i < t->n_rows; i++)
			t->order[i] = i;
		merge_sort(&s, t->order, tmp, t->n_rows);
		free(tmp);
		free(keys);
	}
	rebuild_view(t);
}

void table_filter(struct table *t, const char *text, unsigned quick)
{
	free(t->filter);
	t->filter = text && *text ? xstrdup(text) : NULL;
	t->quick = quick;
	rebuild_view(t);
}

void table_move(struct table *t, long delta)
{
	uint32_t old = t->sel_pos, end;
	long pos = (long)old + delta;

	if (t->n_view == 0 || delta == 0)
		return;
	if (pos < 0)
		pos = 0;
	if (pos >= (long)t->n_view)
		pos = (long)t->n_view - 1;
	/* positions count lines; the selection lands on the start of a group */
	set_sel_pos(t, delta == 1 ? old : (uint32_t)pos);
	if (delta > 0 && t->sel_pos == old) { /* still in the same group: the next one */
		end = group_end(t, old);
		if (end + 1 < t->n_view)
			set_sel_pos(t, end + 1);
	}
}

void table_select_pos(struct table *t, uint32_t pos)
{
	set_sel_pos(t, pos);
}

int table_select_row(struct table *t, uint32_t row)
{
	uint32_t pos = row < t->n_rows ? view_find(t, row) : TABLE_NONE;

	if (pos == TABLE_NONE)
		return -1;
	set_sel_pos(t, pos);
	return 0;
}

void table_scroll_to_sel(struct table *t, int height)
{
	uint32_t end;

	if (height < 1)
		height = 1;
	if (t->n_view == 0) {
		t->top = 0;
		return;
	}
	/* the whole selected group when it fits, else its start */
	end = group_end(t, t->sel_pos);
	if (end >= t->top + (uint32_t)height)
		t->top = end - (uint32_t)height + 1;
	if (t->sel_pos < t->top)
		t->top = t->sel_pos;
	/* no empty space below the last row when the table could fill the window */
	if (t->n_view >= (uint32_t)height && t->top > t->n_view - (uint32_t)height)
		t->top = t->n_view - (uint32_t)height;
	if (t->n_view < (uint32_t)height)
		t->top = 0;
}

void table_scroll(struct table *t, long delta, int height)
{
	long top = (long)t->top + delta, max;

	if (height < 1)
		height = 1;
	max = (long)t->n_view - height;
	if (top > max)
		top = max;
	if (top < 0)
		top = 0;
	t->top = (uint32_t)top;
	if (t->n_view == 0)
		return;
	/* the selection follows when it would leave the window: the first group that starts
	 * inside it, or the last one that does */
	if (t->sel_pos < t->top) {
		uint32_t p = leader_from(t, t->top);

		set_sel_pos(t, p == TABLE_NONE ? t->top : p);
	} else if (t->sel_pos >= t->top + (uint32_t)height) {
		set_sel_pos(t, t->top + (uint32_t)height - 1);
	}
}

void table_position(const struct table *t, uint32_t *index, uint32_t *count)
{
	*index = *count = 0;
	for (uint32_t pos = 0; pos < t->n_view; pos++)
		if (is_leader(t, pos)) {
			if (pos <= t->sel_pos)
				(*index)++;
			(*count)++;
		}
}

uint32_t table_group(const struct table *t, uint32_t row)
{
	return group_of(t, row);
}

int table_row_matches(const struct table *t, uint32_t row, const char *pattern)
{
	for (int c = 0; c < t->def.n_cols; c++) {
		struct table_key k = { NAN, NULL };

		if (!(t->def.cols[c].flags & TABLE_COL_SEARCH))
			continue;
		t->def.key(t->ctx, row, c, &k);
		if (k.str && strcasestr(k.str, pattern))
			return 1;
	}
	return 0;
}

int table_search(struct table *t, const char *pattern, int dir)
{
	if (!pattern || !*pattern || t->n_view == 0)
		return -1;
	for (uint32_t i = 1; i <= t->n_view; i++) {
		uint32_t pos = dir >= 0 ? (t->sel_pos + i) % t->n_view
					: (t->sel_pos + t->n_view - i % t->n_view) % t->n_view;

		if (table_row_matches(t, t->view[pos], pattern)) {
			set_sel_pos(t, pos);
			return 0;
		}
	}
	return -1;
}

void table_layout(const struct table_column *cols, int n_cols, int width, struct table_layout *out)
{
	int shown[TABLE_MAX_COLS], cut[TABLE_MAX_COLS] = { 0 }, total, flex, n;

	if (n_cols > TABLE_MAX_COLS)
		n_cols = TABLE_MAX_COLS;
	for (int i = 0; i < n_cols; i++)
		shown[i] = 1;
	/* drop the columns with the largest priority until the rest fit */
	for (;;) {
		int drop = -1;

		total = -1, n = 0;
		for (int i = 0; i < n_cols; i++)
			if (shown[i]) {
				total += cols[i].width + 1;
				n++;
			}
		if (total <= width)
			break;
		for (int i = 0; i < n_cols; i++)
			if (shown[i] && cols[i].priority > 0 &&
			    (drop < 0 || cols[i].priority >= cols[drop].priority))
				drop = i;
		if (drop < 0)
			break;
		shown[drop] = 0;
	}
	flex = 0;
	for (int i = 0; i < n_cols; i++)
		if (shown[i])
			flex += cols[i].flex;
	/* still too wide: the flexible columns give up width, down to TABLE_MIN_FLEX each */
	while (total > width && flex > 0) {
		int shrunk = 0;

		for (int i = 0; i < n_cols && total > width; i++)
			if (shown[i] && cols[i].flex > 0 && cols[i].width - cut[i] > TABLE_MIN_FLEX) {
				cut[i]++;
				total--;
				shrunk = 1;
			}
		if (!shrunk)
			break;
	}
	out->n = 0;
	{
		int extra = width - total, x = 0, given = 0, seen = 0;

		for (int i = 0; i < n_cols; i++) {
			int w;

			if (!shown[i])
				continue;
			w = cols[i].width - cut[i];
			if (extra > 0 && cols[i].flex > 0) {
				int add;

				seen += cols[i].flex;
				add = (int)((long)extra * seen / flex) - given; /* rounding spread evenly */
				given += add;
				w += add;
			}
			if (x + w > width)
				w = width - x;
			if (w <= 0)
				break;
			out->col[out->n] = i;
			out->x[out->n] = x;
			out->w[out->n] = w;
			out->n++;
			x += w + 1;
		}
	}
}

void table_cell(const struct table *t, uint32_t row, int col, struct table_cell *c, char *buf,
		size_t cap)
{
	memset(c, 0, sizeof *c);
	c->buf = buf;
	c->cap = cap;
	if (cap)
		buf[0] = '\0';
	c->text = buf;
	t->def.cell(t->ctx, row, col, c);
	if (!c->text)
		c->text = "";
}

static int csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n"))
		return fputs(s, f) < 0 ? -1 : 0;
	if (fputc('"', f) == EOF)
		return -1;
	for (; *s; s++)
		if ((*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF)
			return -1;
	return fputc('"', f) == EOF ? -1 : 0;
}

int table_write_csv(FILE *f, const struct table *t)
{
	char buf[512];

	for (int c = 0; c < t->def.n_cols; c++)
		if ((c && fputc(',', f) == EOF) || csv_field(f, t->def.cols[c].title) < 0)
			return -1;
	if (fputs("\r\n", f) < 0)
		return -1;
	for (uint32_t i = 0; i < t->n_view; i++) {
		for (int c = 0; c < t->def.n_cols; c++) {
			struct table_cell cell;

			table_cell(t, t->view[i], c, &cell, buf, sizeof buf);
			if (t->def.cols[c].flags & TABLE_COL_BAR) {
				snprintf(buf, sizeof buf, "%.4f", cell.bar);
				cell.text = buf;
			}
			if ((c && fputc(',', f) == EOF) || csv_field(f, cell.text) < 0)
				return -1;
		}
		if (fputs("\r\n", f) < 0)
			return -1;
	}
	return 0;
}
