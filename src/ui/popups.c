/* popups.c — the keys of what opens over the views: the sort column picker (s) and the sort
 * order it shares with < > r and the column titles, the help (?) and the warnings (w). */
#include "explorer_int.h"
#include "fusediff/ui_actions.h"

int ui_sort_offered(const struct ui *u, const struct table *t, int col)
{
	struct table_layout tl;

	if (col < 0 || col >= t->def.n_cols ||
	    (t->def.cols[col].flags & (TABLE_COL_NOSORT | TABLE_COL_BAR)))
		return 0;
	table_layout_of(t, u->layout.cols, &tl);
	for (int i = 0; i < tl.n; i++)
		if (tl.col[i] == col)
			return 1;
	return 0;
}

/* The next sortable column after (dir 1) or before (dir -1) col, wrapping; shown: only the
 * columns on the screen (the picker; < and > reach the others, and the tab line then says
 * the order). */
int ui_next_sort_col(const struct ui *u, const struct table *t, int col, int dir, int shown)
{
	for (int i = 0; i < t->def.n_cols; i++) {
		col = col < 0 ? (dir > 0 ? 0 : t->def.n_cols - 1)
			      : (col + dir + t->def.n_cols) % t->def.n_cols;
		if (shown ? ui_sort_offered(u, t, col)
			  : !(t->def.cols[col].flags & (TABLE_COL_NOSORT | TABLE_COL_BAR)))
			return col;
	}
	return -1;
}

void ui_sort_message(struct ui *u)
{
	struct table *t = &ui_shown_view(u)->t;

	if (t->sort_col < 0)
		ui_set_message(u, ROLE_NORMAL, "sorted in alignment order%s",
			       t->reverse ? ", reversed" : "");
	else if (t->def.cols[t->sort_col].flags & TABLE_COL_MAGNITUDE)
		ui_set_message(u, ROLE_NORMAL, "sorted by %s: %s (r: %s)",
			       t->def.cols[t->sort_col].title,
			       t->reverse == 0	 ? "the largest difference either way first"
			       : t->reverse == 1 ? "the largest regression (B slower) first"
						 : "the largest gain (B faster) first",
			       t->reverse == 0	 ? "regressions first"
			       : t->reverse == 1 ? "gains first"
						 : "either way");
	else
		ui_set_message(u, ROLE_NORMAL, "sorted by %s%s", t->def.cols[t->sort_col].title,
			       t->reverse ? ", reversed" : "");
}

void ui_picker_key(struct ui *u, int key)
{
	struct table *t = &ui_shown_view(u)->t;
	enum ui_action a = ui_action_for_key(key);

	if (a == ACT_UP)
		u->pop.picker_sel = ui_next_sort_col(u, t, u->pop.picker_sel, -1, 1);
	else if (a == ACT_DOWN)
		u->pop.picker_sel = ui_next_sort_col(u, t, u->pop.picker_sel, 1, 1);
	else if (key == UI_KEY_ENTER) {
		u->pop.picker = 0;
		table_sort(t, u->pop.picker_sel,
			   t->sort_col == u->pop.picker_sel ? table_next_reverse(t) : 0);
		ui_sort_message(u);
		u->ev.valid = 0;
	} else if (key == UI_KEY_ESC || a == ACT_QUIT || a == ACT_SORT || a == ACT_BACK) {
		u->pop.picker = 0;
	}
}

static int help_lines(struct ui *u)
{
	struct ui_text t = { 0 };
	int n;

	ui_help_text(u, &t);
	n = (int)t.n;
	ui_text_clear(&t);
	return n;
}

void ui_help_key(struct ui *u, int key)
{
	enum ui_action a = ui_action_for_key(key);
	int h = u->layout.rows - 2, max = help_lines(u) - h;

	if (a == ACT_DOWN)
		u->pop.help_top++;
	else if (a == ACT_UP)
		u->pop.help_top--;
	else if (a == ACT_PAGE_DOWN)
		u->pop.help_top += h;
	else if (a == ACT_PAGE_UP)
		u->pop.help_top -= h;
	else
		u->pop.help = 0;
	if (u->pop.help_top > max)
		u->pop.help_top = max;
	if (u->pop.help_top < 0)
		u->pop.help_top = 0;
}

/* The warnings popup: arrows and pages scroll (explorer_draw.c keeps pop.warnings_top in range),
 * any other key closes it. */
void ui_warnings_key(struct ui *u, int key)
{
	enum ui_action a = ui_action_for_key(key);
	int h = u->layout.rows - 6;

	if (a == ACT_DOWN)
		u->pop.warnings_top++;
	else if (a == ACT_UP)
		u->pop.warnings_top--;
	else if (a == ACT_PAGE_DOWN)
		u->pop.warnings_top += h;
	else if (a == ACT_PAGE_UP)
		u->pop.warnings_top -= h;
	else
		u->pop.warnings = 0;
	if (u->pop.warnings_top < 0)
		u->pop.warnings_top = 0;
}
