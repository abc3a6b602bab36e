/* explorer_draw.c — drawing the explorer: header, view names, the table, the evidence pane,
 * the status line, and the help, sort picker and too-small screens. Pure output: every
 * decision about state is in explorer.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"
#include "fusediff/ui_actions.h"

static void signed_duration(char *buf, size_t cap, double ns)
{
	if (isnan(ns)) {
		snprintf(buf, cap, "-");
		return;
	}
	buf[0] = ns > 0 ? '+' : ns < 0 ? '-' : ' ';
	text_duration(buf + (ns != 0), cap - (ns != 0), (int64_t)llround(fabs(ns)));
}

static void draw_side(struct ui *u, int y, int side)
{
	const struct comparison *c = u->c;
	const struct side *sd = &c->side[side];
	const struct trace *t = sd->t;
	int w = u->layout.cols, x = 1;
	char gpu[256], time[32];

	ui_fill(u->s, y, 0, w, ROLE_NORMAL);
	x += ui_putf(u->s, y, x, w - x, side ? ROLE_BAR_B : ROLE_BAR_A, 0, "%c ", side ? 'B' : 'A');
	x += ui_put(u->s, y, x, w / 3, c->label[side] ? c->label[side] : "?", ROLE_HEADER, 0, 0) + 2;
	if (!t)
		return;
	{
		const char *plat = trace_platform_name(t->platform);
		const char *name = t->gpu_name ? trace_str(t, t->gpu_name) : "";

		/* "NVIDIA H200", not "NVIDIA NVIDIA H200"; "AMD (no GPU name)" when it is empty */
		if (strncmp(name, plat, strlen(plat)) == 0)
			snprintf(gpu, sizeof gpu, "%s", name);
		else
			snprintf(gpu, sizeof gpu, "%s %s", plat, *name ? name : "(no GPU name)");
	}
	text_duration(time, sizeof time, (int64_t)llround(c->ns[side]));
	x += ui_put(u->s, y, x, w - x, gpu, ROLE_DIM, 0, 0) + 2;
	x += ui_putf(u->s, y, x, w - x, ROLE_NORMAL, 0, "%zu kernels  %u passes  %u layers  %s/pass  Other %.0f%%",
		     t->n_kernel_events, c->passes[side], sd->layers_per_pass, time,
		     100 * sd->classes.other_share);
}

static void draw_header(struct ui *u)
{
	const struct comparison *c = u->c;
	int w = u->layout.cols, y = u->layout.header_y + 2, x = 1;
	char d[32], r[32];

	draw_side(u, u->layout.header_y, SIDE_A);
	draw_side(u, u->layout.header_y + 1, SIDE_B);
	ui_fill(u->s, y, 0, w, ROLE_NORMAL);
	signed_duration(d, sizeof d, c->delta_ns);
	fmt_ratio(r, sizeof r, c->ratio);
	x += ui_putf(u->s, y, x, w - x, ROLE_NORMAL, 0, "phase %s (p)  ", phase_name((enum phase)c->phase));
	x += ui_putf(u->s, y, x, w - x, delta_role(c->delta_ns), 0, "B-A %s/pass  B/A %s", d, r);
	x += ui_putf(u->s, y, x, w - x, c->n_fusions ? ROLE_FUSED : ROLE_NORMAL, 0, "  %zu fusion difference%s",
		     c->n_fusions, c->n_fusions == 1 ? "" : "s");
	if (c->note)
		ui_put(u->s, y, x + 2, w - x - 2, c->note, ROLE_ERROR, 0, 0);
}

static void draw_tabs(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct ui_view *v = &u->views[u->view];
	struct table *t = &v->t;
	int x = 0, w = l->cols;
	char info[512], scope[128] = "";
	size_t len = 0;

	ui_fill(u->s, l->tabs_y, 0, w, ROLE_TAB);
	for (int i = 0; i < VIEW_COUNT; i++) {
		u->tab_x[i] = x;
		x += ui_putf(u->s, l->tabs_y, x, w - x, i == u->view ? ROLE_TAB_ACTIVE : ROLE_TAB, 0, " %d %s ", i + 1,
			     u->views[i].ops->name);
	}
	u->tab_x[VIEW_COUNT] = x;
	if (v->ops->scope)
		v->ops->scope(v, scope, sizeof scope);
	if (scope[0])
		x += ui_putf(u->s, l->tabs_y, x, w - x, ROLE_HEADER, 0, " %s %s", u->s->g->arrow, scope);
	if (u->focus_evidence)
		x += ui_putf(u->s, l->tabs_y, x, w - x, ROLE_HEADER, 0, " %s evidence", u->s->g->arrow);
	info[0] = '\0';
	if (t->filter)
		len += (size_t)snprintf(info + len, sizeof info - len, "filter \"%s\"  ", t->filter);
	if (t->quick & QUICK_FUSIONS)
		len += (size_t)snprintf(info + len, sizeof info - len, "only fusions  ");
	if (t->quick & QUICK_MISMATCHES)
		len += (size_t)snprintf(info + len, sizeof info - len, "only mismatches  ");
	if (len < sizeof info) {
		uint32_t index, count;

		table_position(t, &index, &count);
		snprintf(info + len, sizeof info - len, "%u/%u", index, count);
	}
	{
		int iw = ui_text_width(u->s, info, 0);

		if (x + 2 + iw < w)
			ui_put(u->s, l->tabs_y, w - iw - 1, iw, info, ROLE_TAB, 0, 0);
	}
}

static void draw_empty_table(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct table *t = &u->views[u->view].t;
	const char *why = t->n_rows == 0 ? "(nothing to show in this phase)"
					 : "(no row passes the filter: c clears it)";

	if (t->n_view == 0 && l->table_h > 1)
		ui_put(u->s, l->table_y + 1, 2, l->cols - 4, why, ROLE_DIM, PUT_RAW, 0);
}

static void evidence_title(struct ui *u, char *buf, size_t cap)
{
	struct ui_view *v = &u->views[u->view];

	if (v->t.sel == TABLE_NONE)
		snprintf(buf, cap, " Evidence ");
	else if (u->focus_evidence)
		snprintf(buf, cap, " Evidence (Esc: back, arrows scroll, m: names, v: size) ");
	else
		snprintf(buf, cap, " Evidence (Enter: %s, v: size, m: names) ",
			 u->view == VIEW_LAYERS || u->view == VIEW_OVERVIEW ? "kernel pairs" : "focus");
}

static void draw_evidence(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct ui_view *v = &u->views[u->view];
	int h = l->evidence_h - 1, w = l->cols;
	char title[160];

	if (!l->evidence_h)
		return;
	if (!u->ev_valid || u->ev_view != u->view || u->ev_row != v->t.sel || u->ev_names != u->names ||
	    u->ev_width != w) {
		int same = u->ev_valid && u->ev_view == u->view && u->ev_row == v->t.sel;

		ui_text_clear(&u->ev);
		if (v->t.sel != TABLE_NONE && v->ops->evidence)
			v->ops->evidence(v, v->t.sel, &u->ev, w - 2);
		if (!same) {
			u->ev_top = 0;
			u->ev_hscroll = 0;
		}
		u->ev_valid = 1;
		u->ev_view = u->view;
		u->ev_row = v->t.sel;
		u->ev_names = u->names;
		u->ev_width = w;
	}
	if (u->ev_top > u->ev.n)
		u->ev_top = 0;
	evidence_title(u, title, sizeof title);
	ui_fill(u->s, l->evidence_y, 0, w, u->focus_evidence ? ROLE_TAB_ACTIVE : ROLE_TITLE);
	ui_put(u->s, l->evidence_y, 0, w, title, u->focus_evidence ? ROLE_TAB_ACTIVE : ROLE_TITLE, PUT_RAW, 0);
	if (u->ev.n > (size_t)h) {
		char more[64];

		snprintf(more, sizeof more, " lines %u-%u of %zu ", u->ev_top + 1,
			 (unsigned)(u->ev_top + (uint32_t)h < u->ev.n ? u->ev_top + (uint32_t)h : u->ev.n), u->ev.n);
		ui_put(u->s, l->evidence_y, w - (int)strlen(more), (int)strlen(more), more,
		       u->focus_evidence ? ROLE_TAB_ACTIVE : ROLE_TITLE, PUT_RAW, 0);
	}
	for (int i = 0; i < h; i++) {
		size_t li = u->ev_top + (size_t)i;

		ui_fill(u->s, l->evidence_y + 1 + i, 0, w, ROLE_NORMAL);
		if (li >= u->ev.n)
			continue;
		ui_put(u->s, l->evidence_y + 1 + i, 1, w - 1, u->ev.lines[li].text, u->ev.lines[li].role,
		       u->ev.lines[li].raw ? PUT_RAW : 0, u->ev_hscroll);
	}
}

static void draw_status(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	int w = l->cols;

	ui_fill(u->s, l->status_y, 0, w, ROLE_STATUS);
	if (u->prompt) {
		static const char *const label[] = { "", "Search: ", "Filter: ", "Export CSV to: ", "" };
		int x = 0;

		if (u->prompt == PROMPT_OVERWRITE) {
			x = ui_putf(u->s, l->status_y, 0, w, ROLE_ERROR, 0, "%s exists: overwrite it? (y/n)",
				    u->export_path);
			return;
		}
		x = ui_put(u->s, l->status_y, 0, w, label[u->prompt], ROLE_STATUS, PUT_RAW, 0);
		x += ui_put(u->s, l->status_y, x, w - x - 1, u->input, ROLE_STATUS, 0, 0);
		ui_put(u->s, l->status_y, x, 1, "_", ROLE_STATUS, PUT_RAW, 0);
		return;
	}
	if (u->message[0]) {
		ui_put(u->s, l->status_y, 0, w, u->message, u->message_role == ROLE_ERROR ? ROLE_ERROR : ROLE_STATUS,
		       0, 0);
		return;
	}
	ui_put(u->s, l->status_y, 0, w,
	       "?:help  Tab/1-4:views  Enter:drill down  Esc:back  s:sort  /:search  f:filter  F:fusions"
	       "  p:phase  e:export  q:quit",
	       ROLE_STATUS, PUT_RAW, 0);
}

static void draw_box(struct ui *u, int y, int x, int h, int w, const char *title)
{
	for (int i = 0; i < h; i++)
		ui_fill(u->s, y + i, x, w, ROLE_STATUS);
	ui_put(u->s, y, x, w, title, ROLE_TITLE, PUT_RAW | PUT_PAD, 0);
}

static void draw_picker(struct ui *u)
{
	struct table *t = &u->views[u->view].t;
	int n = 0, w = 34, y = u->layout.table_y, x = 2;

	for (int c = 0; c < t->def.n_cols; c++)
		n += !(t->def.cols[c].flags & (TABLE_COL_NOSORT | TABLE_COL_BAR));
	if (n + 2 > u->layout.rows - y)
		y = u->layout.rows - n - 2 > 0 ? u->layout.rows - n - 2 : 0;
	draw_box(u, y, x, n + 2, w, " Sort by (Enter, Esc) ");
	y++;
	for (int c = 0; c < t->def.n_cols; c++) {
		if (t->def.cols[c].flags & (TABLE_COL_NOSORT | TABLE_COL_BAR))
			continue;
		ui_putf(u->s, y++, x, w, c == u->picker_sel ? ROLE_SELECTION : ROLE_STATUS, PUT_PAD, "  %s %s",
			c == t->sort_col ? (t->reverse ? u->s->g->up : u->s->g->down) : " ", t->def.cols[c].title);
	}
}

static void draw_help(struct ui *u)
{
	int h = u->layout.rows - 2, w = u->layout.cols - 4, y = 1, x = 2, line = 0;

	draw_box(u, y, x, h, w, " Keys (any other key closes; arrows scroll) ");
	for (size_t i = 0; i < ACT_COUNT - 1; i++) {
		const struct ui_action_def *d = &ui_actions[i];
		char keys[64], *p;

		if (d->group) {
			if (line - u->help_top >= 0 && line - u->help_top < h - 2)
				ui_putf(u->s, y + 1 + line - u->help_top, x + 2, w - 4, ROLE_STATUS, 0, " ");
			line++;
			if (line - u->help_top >= 0 && line - u->help_top < h - 2)
				ui_put(u->s, y + 1 + line - u->help_top, x + 2, w - 4, d->group, ROLE_TITLE, PUT_RAW, 0);
			line++;
		}
		snprintf(keys, sizeof keys, "%s", d->keys);
		for (p = keys; *p; p++)
			if (*p == ' ')
				*p = ',';
		if (line - u->help_top >= 0 && line - u->help_top < h - 2)
			ui_putf(u->s, y + 1 + line - u->help_top, x + 2, w - 4, ROLE_STATUS, 0, "%-16s %-16s %s", keys,
				d->name, d->help);
		line++;
	}
}

static void draw_too_small(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	char a[96], b[96];
	int y = l->rows / 2 - 1;

	snprintf(a, sizeof a, "Terminal too small: %dx%d", l->cols, l->rows);
	snprintf(b, sizeof b, "fusediff needs at least %dx%d. Enlarge it, or press q to quit.", UI_MIN_COLS,
		 UI_MIN_ROWS);
	if (y < 0)
		y = 0;
	ui_put(u->s, y, 0, l->cols, a, ROLE_ERROR, PUT_RAW, 0);
	ui_put(u->s, y + 1, 0, l->cols, b, ROLE_NORMAL, PUT_RAW, 0);
}

void ui_draw(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct ui_view *v = &u->views[u->view];

	ui_relayout(u);
	attrset(u->s->attr[ROLE_NORMAL]);
	erase();
	if (l->too_small) {
		draw_too_small(u);
		return;
	}
	draw_header(u);
	ui_draw_table(u->s, &v->t, l->table_y, 0, l->cols, l->table_h, !u->focus_evidence);
	draw_empty_table(u);
	draw_tabs(u);
	draw_evidence(u);
	draw_status(u);
	if (u->picker)
		draw_picker(u);
	if (u->help)
		draw_help(u);
}
