/* table.c — the generic sorted, filtered, selectable table (see table.h). */
#define _GNU_SOURCE /* strcasestr */
#include "fusediff/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/table_cut.h"
#include "fusediff/text.h"
#include "fusediff/util.h"

/* Slot of a pointer in an open-addressing table of cap slots (a power of two). */
static inline size_t ptr_slot(const void *p, size_t cap)
{
	return (size_t)(((uint64_t)(uintptr_t)p * UINT64_C(0x9e3779b97f4a7c15)) >>
			(64 - __builtin_ctzll(cap)));
}

static uint32_t group_of(const struct table *t, uint32_t row)
{
	return t->def.group ? t->def.group(t->ctx, row) : row;
}

/* Natural direction: numbers largest first, text and ASC columns smallest first. */
static int col_descending(const struct table *t, int col)
{
	return !(t->def.cols[col].flags & (TABLE_COL_TEXT | TABLE_COL_ASC));
}

/* A group's sort key with its first row. */
struct sort_item {
	double num;
	const char *str;
	uint32_t row;
};

/* What the radix sort moves: the key as an unsigned number in sort order, and the row. */
struct radix_item {
	uint64_t key;
	uint32_t row;
};

/* The key of x as an unsigned number that sorts in the chosen direction, NAN last in both. */
static uint64_t sort_key(double x, int desc)
{
	uint64_t u;

	if (isnan(x))
		return UINT64_MAX;
	if (x == 0)
		x = 0; /* -0 sorts with 0 */
	memcpy(&u, &x, sizeof u);
	u = (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
	return desc ? ~u : u; /* a finite key is never 0 nor all ones here */
}

/* Stable LSD radix sort of v[0..n) by key (8 bits a pass, skipping passes where every key has
 * the same digit), using tmp[0..n). Equal keys keep their order: rows ascending. */
static void radix_sort(struct radix_item *v, struct radix_item *tmp, size_t n)
{
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;
		unsigned first = (unsigned)(v[0].key >> shift) & 0xff;
		int uniform = 1;

		for (size_t i = 0; i < n; i++) {
			unsigned d = (unsigned)(v[i].key >> shift) & 0xff;

			count[d]++;
			uniform &= d == first;
		}
		if (uniform)
			continue;
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i].key >> shift) & 0xff]++] = v[i];
		memcpy(v, tmp, n * sizeof *v);
	}
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Replace each item's text key by its rank among the distinct strings (NAN for none), so that
 * the sort compares numbers. Views return the same interned name for many rows: the distinct
 * strings are few and sorted once. */
static void rank_strings(struct sort_item *items, size_t n)
{
	size_t cap = 0, n_distinct = 0, i, h;
	const char **slot = NULL, **distinct = NULL;
	double *rank = NULL;

	for (i = 0; i < n; i++) {
		if (!items[i].str)
			continue;
		if (2 * (n_distinct + 1) > cap) { /* grow and rehash */
			size_t old = cap;
			const char **os = slot;

			cap = cap ? cap * 2 : 1024;
			slot = xcalloc(cap, sizeof *slot);
			for (size_t j = 0; j < old; j++)
				if (os[j]) {
					for (h = ptr_slot(os[j], cap); slot[h];
					     h = (h + 1) & (cap - 1))
						;
					slot[h] = os[j];
				}
			free(os);
			distinct = xreallocarray(distinct, cap / 2, sizeof *distinct);
		}
		for (h = ptr_slot(items[i].str, cap); slot[h] && slot[h] != items[i].str;
		     h = (h + 1) & (cap - 1))
			;
		if (!slot[h]) {
			slot[h] = items[i].str;
			distinct[n_distinct++] = items[i].str;
		}
	}
	if (n_distinct)
		qsort(distinct, n_distinct, sizeof *distinct, str_ptr_cmp);
	rank = xcalloc(cap ? cap : 1, sizeof *rank);
	for (size_t d = 0, r = 0; d < n_distinct; d++) {
		if (d > 0 && strcmp(distinct[d - 1], distinct[d]) != 0)
			r++; /* equal strings at different addresses share a rank */
		for (h = ptr_slot(distinct[d], cap); slot[h] != distinct[d];
		     h = (h + 1) & (cap - 1))
			;
		rank[h] = (double)r;
	}
	for (i = 0; i < n; i++) {
		if (!items[i].str) {
			items[i].num = NAN;
			continue;
		}
		for (h = ptr_slot(items[i].str, cap); slot[h] != items[i].str;
		     h = (h + 1) & (cap - 1))
			;
		items[i].num = rank[h];
	}
	free(slot);
	free(rank);
	free(distinct);
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

/* Whether a string contains the pattern, remembered by the string's address for one search
 * or filter: views hand out the same interned name for thousands of rows, so each distinct
 * name is searched once. */
struct match_memo {
	const char **str;
	uint8_t *hit;
	size_t cap, n;
};

static int memo_match(struct match_memo *m, const char *str, const char *pattern)
{
	size_t h, i;

	if (!m)
		return strcasestr(str, pattern) != NULL;
	if (2 * (m->n + 1) > m->cap) { /* grow and rehash */
		struct match_memo old = *m;

		m->cap = old.cap ? old.cap * 2 : 1024;
		m->str = xcalloc(m->cap, sizeof *m->str);
		m->hit = xcalloc(m->cap, 1);
		m->n = 0;
		for (size_t j = 0; j < old.cap; j++)
			if (old.str[j]) {
				for (i = ptr_slot(old.str[j], m->cap); m->str[i];
				     i = (i + 1) & (m->cap - 1))
					;
				m->str[i] = old.str[j];
				m->hit[i] = old.hit[j];
				m->n++;
			}
		free(old.str);
		free(old.hit);
	}
	h = ptr_slot(str, m->cap);
	for (i = h; m->str[i]; i = (i + 1) & (m->cap - 1))
		if (m->str[i] == str)
			return m->hit[i];
	m->str[i] = str;
	m->hit[i] = strcasestr(str, pattern) != NULL;
	m->n++;
	return m->hit[i];
}

static void memo_clear(struct match_memo *m)
{
	free(m->str);
	free(m->hit);
	memset(m, 0, sizeof *m);
}

/* The keys of the SEARCH columns of every row, column by column: the view's ids of them
 * (key_ids) or else the strings key() gives. */
struct table_skeys {
	int n;
	int col[TABLE_MAX_COLS];
	const uint32_t *ids[TABLE_MAX_COLS]; /* the view's; NULL: the strings in str[i] */
	uint32_t n_ids[TABLE_MAX_COLS];
	const char **str[TABLE_MAX_COLS];
};

static void skeys_free(struct table_skeys *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		free(s->str[i]);
	free(s);
}

/* The keys of the SEARCH columns of every row, asked once per table (a view rebuilds its table
 * when its strings change). */
static const struct table_skeys *search_keys(struct table *t)
{
	struct table_skeys *s;

	if (t->skeys)
		return t->skeys;
	s = t->skeys = xcalloc(1, sizeof *s);
	for (int c = 0; c < t->def.n_cols && c < TABLE_MAX_COLS; c++) {
		int i;

		if (!(t->def.cols[c].flags & TABLE_COL_SEARCH))
			continue;
		i = s->n++;
		s->col[i] = c;
		if (t->def.key_ids && t->def.id_key) {
			s->ids[i] = t->def.key_ids(t->ctx, c, &s->n_ids[i]);
			if (s->ids[i])
				continue;
		}
		s->str[i] = xmalloc((t->n_rows ? t->n_rows : 1) * sizeof *s->str[i]);
		for (uint32_t r = 0; r < t->n_rows; r++) {
			struct table_key k = { NAN, NULL };

			t->def.key(t->ctx, r, c, &k);
			s->str[i][r] = k.str;
		}
	}
	return s;
}

/* Whether any of the SEARCH columns that share column i's ids (i and those after it) has a key
 * for id that contains pattern: 2, else 1. */
static uint8_t id_match(const struct table *t, const struct table_skeys *s, int i, uint32_t id,
			const char *pattern)
{
	for (int j = i; j < s->n; j++) {
		const char *k;

		if (s->ids[j] != s->ids[i] || s->n_ids[j] != s->n_ids[i])
			continue;
		k = t->def.id_key(t->ctx, s->col[j], id);
		if (k && strcasestr(k, pattern))
			return 2;
	}
	return 1;
}

/* Per row, whether its SEARCH keys contain pattern: worked out once per pattern (a search's
 * next match and its count, and every rebuild of a filtered view, read it), each distinct key
 * matched once (by id, or by address through the memo). */
static const uint8_t *row_hits(struct table *t, const char *pattern)
{
	const struct table_skeys *s = search_keys(t);
	struct table_match *m;
	struct match_memo memo = { 0 };
	uint8_t *hit;

	for (int i = 0; i < 2; i++)
		if (t->match[i].pat && strcmp(t->match[i].pat, pattern) == 0)
			return t->match[i].hit;
	m = &t->match[t->match_next];
	t->match_next ^= 1;
	free(m->pat);
	m->pat = xstrdup(pattern);
	if (!m->hit)
		m->hit = xmalloc(t->n_rows ? t->n_rows : 1);
	hit = m->hit;
	memset(hit, 0, t->n_rows);
	for (int i = 0; i < s->n; i++) {
		const uint32_t *ids = s->ids[i];
		uint32_t n_ids = s->n_ids[i];
		uint8_t *seen; /* per id: 0 not matched yet, 1 no, 2 yes; n_ids: no key */
		int done = 0;

		if (!ids) {
			const char **str = s->str[i];

			for (uint32_t r = 0; r < t->n_rows; r++)
				if (!hit[r] && str[r])
					hit[r] = (uint8_t)memo_match(&memo, str[r], pattern);
			continue;
		}
		for (int j = 0; j < i && !done; j++) /* matched with an earlier column's */
			done = s->ids[j] == ids && s->n_ids[j] == n_ids;
		if (done)
			continue;
		seen = xcalloc((size_t)n_ids + 1, 1);
		seen[n_ids] = 1;
		for (uint32_t r = 0; r < t->n_rows; r++) {
			uint32_t id = ids[r] < n_ids ? ids[r] : n_ids;
			uint8_t v = seen[id];

			if (!v)
				v = seen[id] = id_match(t, s, i, id, pattern);
			hit[r] |= v >> 1;
		}
		free(seen);
	}
	memo_clear(&memo);
	return hit;
}

static int row_passes(const struct table *t, uint32_t row, const uint8_t *filter_hits)
{
	if (t->quick && t->def.quick && !t->def.quick(t->ctx, row, t->quick))
		return 0;
	if (filter_hits && !filter_hits[row])
		return 0;
	return 1;
}

/* Rebuild view from order and the filter, keeping the selected row when it passes and else
 * the first passing row at or after its old place in the sorted order. */
/* The UNIFORM_FIRST columns in which every row in view shows the same text. */
static uint32_t uniform_columns(const struct table *t)
{
	uint32_t mask = 0;

	for (int c = 0; c < t->def.n_cols && c < TABLE_MAX_COLS; c++) {
		char first[64], buf[64];
		struct table_cell cell;
		uint32_t i;

		if (!(t->def.cols[c].flags & TABLE_COL_UNIFORM_FIRST) || t->n_view == 0)
			continue;
		table_cell(t, t->view[0], c, &cell, first, sizeof first);
		if (cell.text != first)
			snprintf(first, sizeof first, "%s", cell.text);
		for (i = 1; i < t->n_view; i++) {
			table_cell(t, t->view[i], c, &cell, buf, sizeof buf);
			if (strcmp(cell.text, first) != 0)
				break;
		}
		if (i == t->n_view)
			mask |= 1u << c;
	}
	return mask;
}

static void rebuild_view(struct table *t)
{
	uint32_t old = t->sel, old_order_pos = TABLE_NONE, pos = TABLE_NONE;
	uint8_t *pass = xcalloc(t->n_rows ? t->n_rows : 1, 1);
	const uint8_t *hits = t->filter && *t->filter ? row_hits(t, t->filter) : NULL;

	for (uint32_t r = 0; r < t->n_rows; r++)
		if (row_passes(t, r, hits))
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
	t->uniform = uniform_columns(t);
	set_sel_pos(t, pos == TABLE_NONE ? (t->n_view ? t->n_view - 1 : 0) : pos);
	if (old == TABLE_NONE)
		set_sel_pos(t, 0);
}

static void init(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows,
		 void *scratch, uint32_t scratch_rows)
{
	memset(t, 0, sizeof *t);
	t->def = *def;
	t->ctx = ctx;
	t->n_rows = n_rows;
	t->scratch = scratch;
	t->scratch_rows = scratch_rows;
	if (!scratch && n_rows > 4096) {
		/* touched now, while the view is being built, so that no sort key waits for the
		 * kernel to hand out fresh pages */
		size_t size =
			(size_t)n_rows * (sizeof(struct sort_item) + 2 * sizeof(struct radix_item));

		t->scratch = xmalloc(size);
		memset(t->scratch, 0, size);
		t->scratch_rows = n_rows;
	}
	t->order = xmalloc((n_rows ? n_rows : 1) * sizeof *t->order);
	t->view = xmalloc((n_rows ? n_rows : 1) * sizeof *t->view);
	for (uint32_t i = 0; i < n_rows; i++)
		t->order[i] = i;
	t->sel = TABLE_NONE;
	t->sort_col = -1;
	table_sort(t, def->default_sort, def->default_reverse);
	set_sel_pos(t, 0);
}

void table_init(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows)
{
	init(t, def, ctx, n_rows, NULL, 0);
}

void table_reinit(struct table *t, const struct table_def *def, void *ctx, uint32_t n_rows)
{
	void *scratch = t->scratch;
	uint32_t rows = t->scratch_rows;

	t->scratch = NULL;
	table_clear(t);
	if (rows < n_rows) { /* too small to keep */
		free(scratch);
		scratch = NULL;
		rows = 0;
	}
	init(t, def, ctx, n_rows, scratch, rows);
}

void table_clear(struct table *t)
{
	free(t->order);
	free(t->view);
	free(t->filter);
	free(t->scratch);
	skeys_free(t->skeys);
	for (int i = 0; i < TABLE_MAX_COLS; i++)
		table_names_free(t->names[i]);
	for (int i = 0; i < 2; i++) {
		free(t->match[i].pat);
		free(t->match[i].hit);
	}
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

				while (j < t->n_rows &&
				       group_of(t, t->order[j]) == group_of(t, t->order[i]))
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
		/* sort the groups by their first row's key (ties by row id), then lay out each
		 * group's rows */
		size_t nr = t->n_rows ? t->n_rows : 1;
		struct sort_item *items;
		struct radix_item *keys, *tmp;

		/* scratch kept between sorts: fresh large blocks cost a page fault per page */
		if (!t->scratch) {
			t->scratch = xmalloc(nr * (sizeof *items + 2 * sizeof *keys));
			t->scratch_rows = (uint32_t)nr;
		}
		nr = t->scratch_rows;
		keys = t->scratch;
		tmp = keys + nr;
		items = (struct sort_item *)(tmp + nr);
		int mag = (t->def.cols[col].flags & TABLE_COL_MAGNITUDE) != 0;
		int desc = mag ? reverse != 2 : col_descending(t, col) ^ !!reverse;
		size_t n = 0, k = 0;

		for (uint32_t r = 0; r < t->n_rows; r++) {
			struct table_key key = { NAN, NULL };

			if (group_of(t, r) != r)
				continue;
			t->def.key(t->ctx, r, col, &key);
			if (mag && reverse == 0)
				key.num = fabs(key.num);
			items[n++] = (struct sort_item){ key.num, key.str, r };
		}
		if (t->def.cols[col].flags &
		    TABLE_COL_TEXT) /* each distinct string compared once */
			rank_strings(items, n);
		for (size_t i = 0; i < n; i++)
			keys[i] = (struct radix_item){ sort_key(items[i].num, desc), items[i].row };
		if (n)
			radix_sort(keys, tmp, n);
		for (size_t i = 0; i < n; i++) {
			uint32_t r = keys[i].row;

			t->order[k++] = r;
			while (r + 1 < t->n_rows && group_of(t, r + 1) == keys[i].row)
				t->order[k++] = ++r;
		}
	}
	rebuild_view(t);
}

static int magnitude_col(const struct table *t)
{
	return t->sort_col >= 0 && (t->def.cols[t->sort_col].flags & TABLE_COL_MAGNITUDE);
}

int table_next_reverse(const struct table *t)
{
	return magnitude_col(t) ? (t->reverse + 1) % 3 : !t->reverse;
}

int table_sort_descending(const struct table *t)
{
	if (t->sort_col < 0)
		return 0;
	return magnitude_col(t) ? t->reverse != 2 : col_descending(t, t->sort_col) ^ !!t->reverse;
}

int table_sort_by_magnitude(const struct table *t)
{
	return magnitude_col(t) && t->reverse == 0;
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
	/* never start on the continuation lines of a group that is cut at the top (a few empty
	 * lines at the bottom rather) */
	if (t->top < t->sel_pos && !is_leader(t, t->top)) {
		uint32_t p = leader_from(t, t->top);

		if (p != TABLE_NONE && p <= t->sel_pos)
			t->top = p;
	}
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

uint32_t table_groups(const struct table *t)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < t->n_rows; r++)
		n += group_of(t, r) == r;
	return n;
}

uint32_t table_group(const struct table *t, uint32_t row)
{
	return group_of(t, row);
}

int table_search(struct table *t, const char *pattern, int dir)
{
	const uint8_t *hit;
	int rc = -1;

	if (!pattern || !*pattern || t->n_view == 0)
		return -1;
	hit = row_hits(t, pattern);
	for (uint32_t i = 1; i <= t->n_view; i++) {
		uint32_t pos = dir >= 0 ? (t->sel_pos + i) % t->n_view
					: (t->sel_pos + t->n_view - i % t->n_view) % t->n_view;

		/* the selected group's own rows are looked at last */
		if (table_group(t, t->view[pos]) == t->sel)
			continue;
		if (hit[t->view[pos]]) {
			set_sel_pos(t, pos);
			rc = 0;
			break;
		}
	}
	for (uint32_t pos = t->sel_pos; rc < 0 && pos <= group_end(t, t->sel_pos); pos++)
		if (hit[t->view[pos]])
			rc = 0;
	return rc;
}

void table_search_count(struct table *t, const char *pattern, uint32_t *k, uint32_t *n)
{
	const uint8_t *hit;
	uint32_t last = TABLE_NONE;

	*k = *n = 0;
	if (!pattern || !*pattern || t->n_view == 0)
		return;
	hit = row_hits(t, pattern);
	/* the rows of a group are consecutive in the view: a matching row whose group is not the
	 * last matching row's is the first match of a new group */
	for (uint32_t pos = 0; pos < t->n_view; pos++) {
		uint32_t g;

		if (!hit[t->view[pos]])
			continue;
		g = table_group(t, t->view[pos]);
		if (g == last)
			continue;
		last = g;
		++*n;
		if (g == t->sel)
			*k = *n;
	}
}

static void layout(const struct table_column *cols, int n_cols, int width, int flex_extra,
		   uint32_t drop_first, struct table_layout *out)
{
	int cw[TABLE_MAX_COLS];
	int shown[TABLE_MAX_COLS], cut[TABLE_MAX_COLS] = { 0 }, total, flex, n;

	if (n_cols > TABLE_MAX_COLS)
		n_cols = TABLE_MAX_COLS;
	for (int i = 0; i < n_cols; i++) /* flexible columns widened or narrowed by + and - */
		cw[i] = cols[i].flex && cols[i].width + flex_extra > TABLE_MIN_FLEX
				? cols[i].width + flex_extra
			: cols[i].flex ? TABLE_MIN_FLEX
				       : cols[i].width;
	for (int i = 0; i < n_cols; i++)
		shown[i] = !(cols[i].flags & TABLE_COL_HIDDEN);
	/* drop the uniform columns first, then those with the largest priority, until the rest
	 * fit */
	for (;;) {
		int drop = -1;

		total = -1, n = 0;
		for (int i = 0; i < n_cols; i++)
			if (shown[i]) {
				total += cw[i] + 1;
				n++;
			}
		if (total <= width)
			break;
		for (int i = 0; i < n_cols && drop < 0; i++)
			if (shown[i] && (drop_first >> i & 1))
				drop = i;
		if (drop < 0)
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
			if (shown[i] && cols[i].flex > 0 && cw[i] - cut[i] > TABLE_MIN_FLEX) {
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
			w = cw[i] - cut[i];
			if (extra > 0 && cols[i].flex > 0) {
				int add;

				seen += cols[i].flex;
				add = (int)((long)extra * seen / flex) -
				      given; /* rounding spread evenly */
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

void table_layout_flex(const struct table_column *cols, int n_cols, int width, int flex_extra,
		       struct table_layout *out)
{
	layout(cols, n_cols, width, flex_extra, 0, out);
}

void table_layout(const struct table_column *cols, int n_cols, int width, struct table_layout *out)
{
	layout(cols, n_cols, width, 0, 0, out);
}

void table_layout_of(const struct table *t, int width, struct table_layout *out)
{
	layout(t->def.cols, t->def.n_cols, width, t->flex_extra, t->uniform, out);
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

int table_cut(struct table *t, int col, const char *text, int w, const char *ell, int ew, char *out,
	      size_t cap)
{
	if (col < 0 || col >= t->def.n_cols || col >= TABLE_MAX_COLS ||
	    !(t->def.cols[col].flags & TABLE_COL_SCROLL))
		return 0;
	if (!t->names[col]) {
		char **texts = xmalloc(((size_t)t->n_rows + 1) * sizeof *texts), buf[4096];

		for (uint32_t r = 0; r < t->n_rows; r++) {
			struct table_cell c;

			table_cell(t, r, col, &c, buf, sizeof buf);
			texts[r] = xstrdup(c.text);
		}
		t->names[col] = table_names_new((const char *const *)texts, t->n_rows);
		for (uint32_t r = 0; r < t->n_rows; r++)
			free(texts[r]);
		free(texts);
	}
	return table_names_cut(t->names[col], text, w, ell, ew, out, cap);
}

/* A field as RFC 4180 quotes it; a cell a spreadsheet would run as a formula starts with "'"
 * (text_csv_formula()). */
static int csv_field(FILE *f, const char *s)
{
	int formula = text_csv_formula(s, strlen(s));

	if (!strpbrk(s, ",\"\r\n"))
		return (formula && fputc('\'', f) == EOF) || fputs(s, f) < 0 ? -1 : 0;
	if (fputc('"', f) == EOF || (formula && fputc('\'', f) == EOF))
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
		if (!(t->def.cols[c].flags & TABLE_COL_HIDDEN) &&
		    ((c && fputc(',', f) == EOF) || csv_field(f, t->def.cols[c].title) < 0))
			return -1;
	if (fputs("\r\n", f) < 0)
		return -1;
	for (uint32_t i = 0; i < t->n_view; i++) {
		for (int c = 0; c < t->def.n_cols; c++) {
			struct table_cell cell;

			if (t->def.cols[c].flags & TABLE_COL_HIDDEN)
				continue;
			table_cell(t, t->view[i], c, &cell, buf, sizeof buf);
			if (t->def.cols[c].flags & TABLE_COL_BAR) {
				text_fixed(buf, sizeof buf, cell.bar, 4, 0);
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
