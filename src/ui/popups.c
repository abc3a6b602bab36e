/* popups.c — what opens over the views, its keys and its drawing: the sort column picker (s)
 * and the sort order it shares with < > r and the column titles, the help (?) and the
 * warnings (w). */
#include <string.h>

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

/* --- drawing ------------------------------------------------------------------------------ */

/* The sort column picker (s): a framed list of the columns on the screen that sort. */
void ui_draw_picker(struct ui *u)
{
	struct table *t = &u->views[u->view].t;
	int n = 0, w = 30, y = u->layout.table_y, x = 2;

	for (int c = 0; c < t->def.n_cols; c++)
		n += ui_sort_offered(u, t, c);
	if (n + 2 > u->layout.rows - y)
		y = u->layout.rows - n - 2 > 0 ? u->layout.rows - n - 2 : 0;
	ui_frame(u->s, y, x, n + 2, w, " Sort by (Enter, Esc) ", ROLE_STATUS);
	y++;
	for (int c = 0; c < t->def.n_cols; c++) {
		if (!ui_sort_offered(u, t, c))
			continue;
		ui_putf(u->s, y++, x + 1, w - 2,
			c == u->pop.picker_sel ? ROLE_SELECTION : ROLE_STATUS, PUT_PAD, " %s %s",
			c != t->sort_col	   ? " "
			: table_sort_descending(t) ? u->s->g->down
						   : u->s->g->up,
			t->def.cols[c].title);
	}
}

/* The words of the explorer, after the keys in the help. */
const char *const ui_glossary[] = {
	"per pass     every figure is the average over the compared passes of each side (a layer's",
	"             over the passes that have it); B - A < 0: B is faster",
	"places       aligned positions: a kernel (with its helpers) or a run of kernels on each "
	"side",
	"match        the same work on both sides, one kernel (or run) against one",
	"fused        one kernel on one side for work the other side runs as several (A fuses, B "
	"fuses)",
	"horizontal   one merged GEMM on one side where the other runs separate GEMMs on the same",
	"fusion       input (q, k and v; gate and up): 'B merges'",
	"partial      the same kernel launched more often on one side (a copy or cast split in",
	"fusion       two): listed with the fusions, never counted as a fusion difference",
	"proof        why a fusion is one: the other side's working kernels do the fused kernel's",
	"             work (its class's: rmsnorm, rope, silu), casts and copies not counted",
	"A only       a kernel only A runs (yellow); B only: only B runs it (cyan)",
	"atoms        the elementary operations a kernel does (rmsnorm+add+cast): what a fusion "
	"covers",
	"prologue     what a pass runs before its first layer (embedding); epilogue: after the "
	"last",
	"             (final norm, LM head); backward, optimizer: the parts of a training step",
	"bars         Overview: centred on zero, gains left, regressions right",
};
const size_t ui_glossary_n = sizeof ui_glossary / sizeof ui_glossary[0];

/* The help replaces the views: every action of the table, grouped, with its keys, then the
 * words. */
void ui_help_text(struct ui *u, struct ui_text *out)
{
	int width = u->layout.cols - 6;

	for (size_t i = 0; i < ACT_COUNT - 1; i++) {
		const struct ui_action_def *d = &ui_actions[i];
		char keys[64], prefix[128];
		size_t n = 0;

		if (d->group) { /* a blank line, then the group's title */
			if (out->n)
				ui_text_add(out, ROLE_NORMAL, 1, "%s", "");
			ui_text_add(out, ROLE_HEADER, 1, "%s", d->group);
		}
		for (const char *k = d->keys; *k && n + 3 < sizeof keys; k++) {
			if (*k == ' ') {
				keys[n++] = ',';
				keys[n++] = ' ';
			} else {
				keys[n++] = *k;
			}
		}
		keys[n] = '\0';
		snprintf(prefix, sizeof prefix, "  %-18s %-16s ", keys, d->name);
		ui_text_wrap(u->s, out, ROLE_NORMAL, prefix, d->help, width, (int)strlen(prefix));
	}
	ui_text_add(out, ROLE_NORMAL, 1, "%s", "");
	ui_text_add(out, ROLE_HEADER, 1, "%s", "Words");
	for (size_t i = 0; i < ui_glossary_n; i++)
		ui_text_wrap(u->s, out, ROLE_NORMAL, "  ", ui_glossary[i], width, 15);
}

/* The help: every key, wrapped to the width (a narrow screen gets more lines, not cut ones). */
void ui_draw_help(struct ui *u)
{
	int h = u->layout.rows - 2, w = u->layout.cols;
	struct ui_text t = { 0 };

	attrset(u->s->attr[ROLE_NORMAL]);
	erase();
	ui_put(u->s, 0, 0, w, " fusediff keys (arrows, PgUp/PgDn: scroll; other keys: close)",
	       ROLE_TITLE, PUT_RAW | PUT_PAD, 0);
	ui_help_text(u, &t);
	for (int i = 0; i < h && u->pop.help_top + i < (int)t.n; i++) {
		const struct ui_line *ln = &t.lines[u->pop.help_top + i];

		ui_put(u->s, 1 + i, 2, w - 4, ln->text, ln->role, ln->raw ? PUT_RAW : 0, 0);
	}
	ui_text_clear(&t);
	ui_put(u->s, u->layout.rows - 1, 0, w,
	       w >= 88 ? "In --headless scripts an action is named as in the second column; see "
			 "fusediff(1), KEYS."
		       : "--headless scripts name actions as in the second column",
	       ROLE_STATUS, PUT_RAW | PUT_PAD, 0);
}

/* The warnings popup (w): every warning of the comparison, its code and its whole sentence,
 * the most severe first; the note of a partial comparison above them. */
void ui_draw_warnings(struct ui *u)
{
	const struct comparison *c = u->c;
	const struct ui_layout *l = &u->layout;
	int w = l->cols - 4 < 100 ? l->cols - 4 : 100, x = (l->cols - w) / 2, y, h, inner;
	size_t worst = comparison_worst_warning(c);
	struct ui_text t = { 0 };
	char title[64];

	if (c->note)
		ui_text_wrap(u->s, &t, ROLE_ERROR, "", c->note, w - 4, 0);
	if (!c->n_warnings)
		ui_text_wrap(u->s, &t, ROLE_NORMAL, "",
			     "None: nothing fusediff checks (depths, phases, batches, GEMM shapes, "
			     "coverage, classes, noise) makes these figures less comparable than "
			     "they look.",
			     w - 4, 0);
	/* the most severe first, then the others in their order */
	for (size_t k = 0; k < c->n_warnings; k++) {
		size_t i = k == 0 ? worst : k <= worst ? k - 1 : k;

		if (t.n)
			ui_text_add(&t, ROLE_NORMAL, 1, "%s", "");
		ui_text_add(&t, ROLE_HEADER, 0, "%s", c->warnings[i].code);
		ui_text_wrap(u->s, &t, ROLE_NORMAL, "  ", c->warnings[i].message, w - 4, 2);
	}
	inner = l->rows - 4 - 1; /* frame, a line of keys */
	h = (int)t.n < inner ? (int)t.n : inner;
	if (u->pop.warnings_top > (int)t.n - h)
		u->pop.warnings_top = (int)t.n - h;
	y = (l->rows - h - 3) / 2;
	snprintf(title, sizeof title, " Warnings (%zu) ", c->n_warnings);
	ui_frame(u->s, y, x, h + 3, w, title, ROLE_NORMAL);
	for (int i = 0; i < h; i++) {
		const struct ui_line *ln = &t.lines[u->pop.warnings_top + i];

		ui_put(u->s, y + 1 + i, x + 2, w - 4, ln->text, ln->role, ln->raw ? PUT_RAW : 0, 0);
	}
	ui_putf(u->s, y + h + 1, x + 2, w - 4, ROLE_DIM, 0, "%s",
		(int)t.n > h ? "arrows, PgUp/PgDn: scroll; any other key: close"
			     : "any key: close");
	ui_text_clear(&t);
}
