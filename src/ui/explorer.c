/* explorer.c — the explorer's state, its views, and the dispatch of every key and mouse event:
 * moving, views, drill-down and back, the evidence pane. The prompts (search, filter, export
 * path, copy) are in prompt.c, the exports in export.c, the comparison shown (phases, ranks,
 * devices, name forms) in explorer_switch.c, the sort picker, help and warnings in popups.c;
 * drawing in explorer_draw.c; the views supply their tables and hooks (in views/). */
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/ui_actions.h"

/* The views in tab order (UI_VIEW_LIST). */
static const struct ui_view_def *const view_defs[VIEW_COUNT] = {
#define VIEW_DEF(id, name, key, help) [VIEW_##id] = &ui_view_##name,
	UI_VIEW_LIST(VIEW_DEF)
#undef VIEW_DEF
};

/* The view an action shows (ACT_VIEW_OVERVIEW, ...), or -1. */
static int view_of_action(enum ui_action a)
{
#define VIEW_OF(id, name, key, help) \
	if (a == ACT_VIEW_##id)      \
		return VIEW_##id;
	UI_VIEW_LIST(VIEW_OF)
#undef VIEW_OF
	return -1;
}

static void view_open(struct ui_view *v)
{
	v->state = xcalloc(1, v->def->state_size ? v->def->state_size : 1);
	v->def->build(v);
	table_init(&v->t, &v->def->table, v, v->n_rows);
	v->built = 1;
}

static void view_close(struct ui_view *v)
{
	if (!v->built)
		return;
	table_clear(&v->t);
	v->def->release(v);
	free(v->state);
	v->state = NULL;
	v->built = 0;
}

void ui_view_rebuild(struct ui_view *v)
{
	int col = v->t.sort_col, rev = v->t.reverse;
	unsigned quick = v->t.quick;
	char *filter = v->t.filter ? xstrdup(v->t.filter) : NULL;
	uint32_t sel = v->t.sel;
	int hscroll = v->t.hscroll, flex_extra = v->t.flex_extra;

	v->stale = STALE_NO;
	v->def->release(v);
	v->n_rows = 0;
	v->def->build(v);
	table_reinit(&v->t, &v->def->table, v, v->n_rows);
	table_sort(&v->t, col, rev);
	table_filter(&v->t, filter, quick);
	if (sel != TABLE_NONE)
		table_select_row(&v->t, sel);
	v->t.hscroll = hscroll;
	v->t.flex_extra = flex_extra;
	free(filter);
	v->u->ev.valid = 0;
}

/* The one place the layout is computed: on every draw and on KEY_RESIZE. */
void ui_relayout(struct ui *u)
{
	int cols, rows;

	ui_screen_size(u->s, &cols, &rows);
	ui_layout_compute(cols, rows, u->c->note || u->c->n_warnings ? 4 : 3, u->ev.size,
			  u->views[u->view].built ? u->views[u->view].t.n_view : -1, &u->layout);
}

struct ui *ui_new_comparison(struct ui_screen *s, const struct comparison *c)
{
	struct ui *u = xcalloc(1, sizeof *u);

	u->s = s;
	u->c = c;
	ui_name_maps_build(u);
	for (int i = 0; i < VIEW_COUNT; i++) {
		u->views[i].def = view_defs[i];
		u->views[i].u = u;
		u->views[i].scope = SCOPE_NONE;
		view_open(&u->views[i]);
	}
	u->view = UI_FIRST_VIEW;
	u->ev.size = EVIDENCE_SMALL;
	ui_relayout(u);
	return u;
}

struct ui *ui_new(struct ui_screen *s, struct session *session, int phase)
{
	struct fd_error err;
	const struct comparison *c = session_compare(session, phase, &err);
	struct ui *u;

	if (!c)
		die("ui_new: %s", err.msg); /* the caller asked for this phase before */
	u = ui_new_comparison(s, c);
	u->src.session = session;
	return u;
}

void ui_free(struct ui *u)
{
	if (!u)
		return;
	for (int i = 0; i < VIEW_COUNT; i++)
		view_close(&u->views[i]);
	ui_text_clear(&u->ev.text);
	ui_timeline_close(u);
	free(u->names.info[0]);
	free(u->names.info[1]);
	free(u->export.path);
	if (u->src.owns)
		session_close(u->src.session);
	free(u);
}

const char *ui_message(const struct ui *u)
{
	return u->msg.text;
}

enum ui_view_id ui_view(const struct ui *u)
{
	return (enum ui_view_id)u->view;
}

/* Rebuild v if a change of names or of comparison left it stale (only the view shown is
 * rebuilt at once: a phase switch or the names key rebuilds one table, not all of them). */
static void view_freshen(struct ui_view *v)
{
	int how = v->stale;

	if (!how)
		return;
	ui_view_rebuild(v);
	if (how == STALE_RESET)
		table_select_pos(&v->t, 0);
}

static struct ui_view *cur(struct ui *u)
{
	view_freshen(&u->views[u->view]);
	return &u->views[u->view];
}

struct ui_view *ui_shown_view(struct ui *u)
{
	return cur(u);
}

static int table_rows(const struct ui *u)
{
	return u->layout.table_h > 1 ? u->layout.table_h - 1 : 1;
}

static int scoped(const struct ui *u)
{
	return !ui_scope_eq(u->views[u->view].scope, SCOPE_NONE);
}

static int can_go_back(const struct ui *u)
{
	return u->ev.focus || u->hist.depth > 0 || scoped(u);
}

static void set_scope(struct ui_view *v, struct ui_scope scope)
{
	if (ui_scope_eq(v->scope, scope)) {
		view_freshen(v);
		return;
	}
	v->scope = scope;
	ui_view_rebuild(v);
	table_select_pos(&v->t, 0);
	v->t.top = 0;
}

void ui_goto(struct ui *u, int view, struct ui_scope scope)
{
	if (u->hist.depth < (int)(sizeof u->hist.nav / sizeof u->hist.nav[0]))
		u->hist.nav[u->hist.depth++] =
			(struct ui_nav){ u->view, view, u->views[view].scope, cur(u)->t.sel };
	set_scope(&u->views[view], scope);
	u->view = view;
	u->ev.focus = 0;
	u->ev.valid = 0;
}

static void go_back(struct ui *u)
{
	if (u->ev.focus) {
		u->ev.focus = 0;
	} else if (u->hist.depth > 0) {
		struct ui_nav n = u->hist.nav[--u->hist.depth];

		set_scope(&u->views[n.target], n.target_scope);
		u->view = n.view;
		if (n.sel != TABLE_NONE)
			table_select_row(&cur(u)->t, n.sel);
	} else if (scoped(u)) {
		set_scope(cur(u), SCOPE_NONE);
	}
	u->ev.valid = 0;
}

/* Enter on row: the view's drill-down, else focus the evidence (1 when it went somewhere). */
static int drill(struct ui *u, uint32_t row)
{
	struct ui_view *v = cur(u);

	if (v->def->enter)
		return v->def->enter(v, row);
	if (v->def->drill_view >= VIEW_COUNT || !v->def->drill_scope)
		return 0;
	ui_goto(u, v->def->drill_view, v->def->drill_scope(v, row));
	return 1;
}

int ui_view_shown(const struct ui *u, int view)
{
	const struct ui_view_def *d = u->views[view].def;

	return !d->shown || d->shown(u);
}

static void switch_view(struct ui *u, int view)
{
	int step = view < u->view ? -1 : 1;

	view = (view + VIEW_COUNT) % VIEW_COUNT;
	while (!ui_view_shown(u, view))
		view = (view + step + VIEW_COUNT) % VIEW_COUNT;
	u->view = view;
	u->hist.depth = 0;
	u->ev.focus = 0;
	u->ev.valid = 0;
}

/* --- the evidence pane ------------------------------------------------------------------ */

/* Enter in the evidence pane: the view follows its row into another view (Esc comes back). */
static void follow(struct ui *u)
{
	struct ui_view *v = cur(u);

	if (v->def->follow && v->t.sel != TABLE_NONE)
		v->def->follow(v, v->t.sel);
}

static int evidence_key(struct ui *u, enum ui_action a)
{
	int h = u->layout.evidence_h - 1;
	long top = (long)u->ev.top, max = (long)u->ev.text.n - h;

	switch (a) {
	case ACT_UP: top--; break;
	case ACT_DOWN: top++; break;
	case ACT_PAGE_UP: top -= h; break;
	case ACT_PAGE_DOWN: top += h; break;
	case ACT_TOP: top = 0; break;
	case ACT_BOTTOM: top = max; break;
	case ACT_RIGHT: u->ev.hscroll += 8; return 1;
	case ACT_LEFT: /* back to the left edge, no further: Esc leaves the pane */
		if (u->ev.hscroll > 0)
			u->ev.hscroll = u->ev.hscroll > 8 ? u->ev.hscroll - 8 : 0;
		else
			ui_set_message(u, ROLE_NORMAL, "at the left edge (Esc: back)");
		return 1;
	case ACT_ENTER: follow(u); return 1;
	default: return 0;
	}
	if (top > max)
		top = max;
	if (top < 0)
		top = 0;
	u->ev.top = (uint32_t)top;
	return 1;
}

/* --- the mouse ---------------------------------------------------------------------------- */

static void mouse(struct ui *u, const struct ui_event *ev)
{
	const struct ui_layout *l = &u->layout;
	struct table *t = &cur(u)->t;
	int in_evidence =
		l->evidence_h && ev->y >= l->evidence_y && ev->y < l->evidence_y + l->evidence_h;

	if (l->too_small || u->pop.help || u->pop.warnings || u->pop.picker || u->prompt.kind ||
	    u->tl.open)
		return;
	if (ev->mouse == UI_MOUSE_WHEEL_UP || ev->mouse == UI_MOUSE_WHEEL_DOWN) {
		int d = ev->mouse == UI_MOUSE_WHEEL_UP ? -3 : 3;

		if (in_evidence) {
			long top = (long)u->ev.top + d,
			     max = (long)u->ev.text.n - (l->evidence_h - 1);

			u->ev.top = (uint32_t)(top > max ? (max > 0 ? max : 0) : top < 0 ? 0 : top);
		} else {
			table_scroll(t, d, table_rows(u));
			u->ev.valid = 0;
		}
		return;
	}
	if (ev->y == l->tabs_y) {
		for (int i = 0; i < VIEW_COUNT; i++)
			if (ui_view_shown(u, i) && ev->x >= u->mouse.tab_x[i] &&
			    ev->x < u->mouse.tab_x[i + 1])
				switch_view(u, i);
		return;
	}
	if (ev->y == l->table_y) { /* a column title: sort by it */
		struct table_layout tl;

		table_layout_of(t, l->cols, &tl);
		for (int i = 0; i < tl.n; i++)
			if (ev->x >= tl.x[i] && ev->x < tl.x[i] + tl.w[i] &&
			    !(t->def.cols[tl.col[i]].flags & (TABLE_COL_NOSORT | TABLE_COL_BAR))) {
				table_sort(t, tl.col[i],
					   t->sort_col == tl.col[i] ? table_next_reverse(t) : 0);
				ui_sort_message(u);
			}
		return;
	}
	if (in_evidence) {
		u->ev.focus = 1;
		return;
	}
	{
		uint32_t row = ui_table_row_at(t, l->table_y, l->table_h, ev->y);

		if (row == TABLE_NONE)
			return;
		table_select_row(t, row);
		u->ev.focus = 0;
		u->ev.valid = 0;
		if (ev->mouse == UI_MOUSE_DOUBLE && !drill(u, row)) {
			u->ev.focus = 1;
		}
	}
}

/* --- actions ------------------------------------------------------------------------------ */

static void focus_evidence(struct ui *u)
{
	if (u->ev.size == EVIDENCE_HIDDEN) {
		u->ev.size = EVIDENCE_LARGE;
		ui_relayout(u);
	}
	u->ev.focus = 1;
	u->ev.top = 0;
	u->ev.hscroll = 0;
}

static int act(struct ui *u, enum ui_action a)
{
	struct ui_view *v = cur(u);
	struct table *t = &v->t;

	switch (a) {
	case ACT_UP: table_move(t, -1); break;
	case ACT_DOWN: table_move(t, 1); break;
	case ACT_PAGE_UP: table_move(t, -table_rows(u)); break;
	case ACT_PAGE_DOWN: table_move(t, table_rows(u)); break;
	case ACT_TOP: table_move(t, -(long)t->n_view); break;
	case ACT_BOTTOM: table_move(t, (long)t->n_view); break;
	case ACT_LEFT: /* names scrolled right come back to the left edge, no further: Esc and
			  Backspace go back, so that scrolling never leaves a drill-down */
		if (t->hscroll > 0)
			t->hscroll = t->hscroll > 8 ? t->hscroll - 8 : 0;
		else
			ui_set_message(u, ROLE_NORMAL, "names at the left edge%s",
				       can_go_back(u) ? " (Esc: back)" : "");
		break;
	case ACT_RIGHT: t->hscroll += 8; break;
	case ACT_ENTER:
		if (t->sel == TABLE_NONE)
			break;
		if (!drill(u, t->sel))
			focus_evidence(u);
		break;
	case ACT_COPY: ui_copy_start(u); break;
	case ACT_NAMES_WIDER:
	case ACT_NAMES_NARROWER: {
		int e = t->flex_extra + (a == ACT_NAMES_WIDER ? 8 : -8);

		t->flex_extra = e < -40 ? -40 : e > 120 ? 120 : e;
		ui_set_message(u, ROLE_NORMAL, "name columns %+d cells (+ wider, - narrower)",
			       t->flex_extra);
		break;
	}
	case ACT_FOCUS_EVIDENCE:
		if (t->sel != TABLE_NONE)
			focus_evidence(u);
		break;
	case ACT_BACK:
		if (can_go_back(u))
			go_back(u);
		break;
	case ACT_VIEW_NEXT: switch_view(u, u->view + 1); break;
	case ACT_VIEW_PREV: switch_view(u, u->view - 1); break;
	case ACT_PHASE: ui_next_phase(u); break;
	case ACT_DEVICE: ui_next_device(u); break;
	case ACT_WARNINGS:
		u->pop.warnings = 1;
		u->pop.warnings_top = 0;
		break;
	case ACT_EVIDENCE:
		u->ev.size = (u->ev.size + 1) % EVIDENCE_SIZES;
		if (u->ev.size == EVIDENCE_HIDDEN)
			u->ev.focus = 0;
		ui_relayout(u);
		break;
	case ACT_NAMES: ui_set_names(u, u->names.form + 1); break;
	case ACT_TIMELINE: {
		int32_t layer = -1;
		uint32_t pair = UINT32_MAX;

		if (t->sel == TABLE_NONE || !v->def->timeline ||
		    !v->def->timeline(v, t->sel, &layer, &pair))
			layer = -1;
		ui_timeline_open(u, layer, pair);
		break;
	}
	case ACT_SORT:
		u->pop.picker = 1;
		u->pop.picker_sel = ui_sort_offered(u, t, t->sort_col)
					    ? t->sort_col
					    : ui_next_sort_col(u, t, -1, 1, 1);
		break;
	case ACT_SORT_LEFT:
	case ACT_SORT_RIGHT:
		table_sort(t, ui_next_sort_col(u, t, t->sort_col, a == ACT_SORT_LEFT ? -1 : 1, 0),
			   0);
		ui_sort_message(u);
		break;
	case ACT_REVERSE:
		table_sort(t, t->sort_col, table_next_reverse(t));
		ui_sort_message(u);
		break;
	case ACT_SEARCH: ui_prompt_open(u, PROMPT_SEARCH, ""); break;
	case ACT_SEARCH_NEXT: ui_search(u, 1); break;
	case ACT_SEARCH_PREV: ui_search(u, -1); break;
	case ACT_FILTER: ui_prompt_open(u, PROMPT_FILTER, t->filter); break;
	case ACT_ONLY_FUSIONS:
	case ACT_ONLY_MISMATCHES: {
		unsigned bit = a == ACT_ONLY_FUSIONS ? QUICK_FUSIONS : QUICK_MISMATCHES;

		if (!v->def->table.quick || !(v->def->quick_bits & bit)) {
			ui_set_message(u, ROLE_NORMAL, "%s has no %s filter: its rows are %s",
				       v->def->name, bit == QUICK_FUSIONS ? "fusion" : "mismatch",
				       v->def->what);
			break;
		}
		ui_filter(u, t->filter, t->quick ^ bit);
		break;
	}
	case ACT_CLEAR_FILTER: ui_filter(u, NULL, 0); break;
	case ACT_EXPORT: {
		char *path = ui_export_default_path(u);

		u->export.trace = 0;
		ui_prompt_open(u, PROMPT_EXPORT, path);
		free(path);
		break;
	}
	case ACT_PERFETTO: {
		char *path;

		ui_trace_scope(u, v);
		path = ui_trace_default_path(u);
		u->export.trace = 1;
		ui_prompt_open(u, PROMPT_EXPORT, path);
		free(path);
		break;
	}
	case ACT_HELP:
		u->pop.help = 1;
		u->pop.help_top = 0;
		break;
	case ACT_REDRAW:
		if (!ui_screen_headless(u->s))
			clearok(curscr, TRUE);
		break;
	case ACT_QUIT:
		if (can_go_back(u)) {
			go_back(u);
			break;
		}
		return 1;
	case ACT_QUIT_NOW: return 1;
	default: {
		int view = view_of_action(a);

		if (view < 0)
			break;
		if (ui_view_shown(u, view))
			switch_view(u, view);
		else
			ui_set_message(u, ROLE_NORMAL, "%s", u->views[view].def->absent);
		break;
	}
	}
	return 0;
}

int ui_handle(struct ui *u, const struct ui_event *ev)
{
	enum ui_action a;

	if (ev->key == UI_KEY_RESIZE) {
		ui_relayout(u);
		return 0;
	}
	if (u->layout.too_small) {
		a = ui_action_for_key(ev->key);
		return a == ACT_QUIT || a == ACT_QUIT_NOW;
	}
	if (ev->key == UI_KEY_MOUSE) {
		mouse(u, ev);
		return 0;
	}
	u->msg.text[0] = '\0';
	if (u->pop.help) {
		ui_help_key(u, ev->key);
		return 0;
	}
	if (u->pop.warnings) {
		ui_warnings_key(u, ev->key);
		return 0;
	}
	if (u->tl.open) {
		ui_timeline_key(u, ev->key);
		return 0;
	}
	if (u->pop.picker) {
		ui_picker_key(u, ev->key);
		return 0;
	}
	if (u->prompt.kind) {
		ui_prompt_key(u, ev->key);
		return 0;
	}
	a = ui_action_for_key(ev->key);
	if (u->ev.focus && evidence_key(u, a))
		return 0;
	return act(u, a);
}

int ui_key(struct ui *u, int key)
{
	struct ui_event ev = { key, UI_MOUSE_NONE, 0, 0 };

	return ui_handle(u, &ev);
}
