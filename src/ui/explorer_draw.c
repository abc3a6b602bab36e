/* explorer_draw.c — drawing the explorer: header, view names, the table, the evidence pane,
 * the status line and the too-small screen (the sort picker, help and warnings draw in
 * popups.c). Pure output: every decision about state is in explorer.c and the files it
 * names. */
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

/* The two side lines share their columns: label, GPU (or file), kernels, passes, layers, time
 * per pass, the idle share of the pass's wall time, Other share, the share of the kernel time in
 * passes. When the screen is narrow the least useful columns go first. */
enum {
	HS_LABEL,
	HS_GPU,
	HS_DEVICE,
	HS_KERNELS,
	HS_PASSES,
	HS_LAYERS,
	HS_TIME,
	HS_IDLE,
	HS_OTHER,
	HS_COVER,
	HS_COUNT
};
/* the device compared goes late: the figures are of that one GPU of several */
static const int hs_drop_order[] = { HS_IDLE,	HS_OTHER,  HS_GPU,     HS_COVER, HS_PASSES,
				     HS_LAYERS, HS_DEVICE, HS_KERNELS, HS_TIME };

static void side_fields(struct ui *u, int side, char f[HS_COUNT][256])
{
	const struct comparison *c = u->c;
	const struct side *sd = c->side[side];
	const struct trace *t = sd->t;
	char time[32], n[40];
	double other;

	for (int i = 0; i < HS_COUNT; i++)
		f[i][0] = '\0';
	snprintf(f[HS_LABEL], 256, "%s", c->label[side] ? c->label[side] : "?");
	if (!t)
		return;
	{
		const char *plat = trace_platform_name(t->platform);
		const char *name = t->gpu_name ? trace_str(t, t->gpu_name) : "";

		/* "NVIDIA H200", not "NVIDIA NVIDIA H200"; "AMD (no GPU name)" when it is empty; the
		 * file name when the label already says the GPU */
		if (c->label[side] && *name && strstr(c->label[side], name))
			snprintf(f[HS_GPU], 256, "%s", path_basename(t->path));
		else if (strncmp(name, plat, strlen(plat)) == 0)
			snprintf(f[HS_GPU], 256, "%s", name);
		else
			snprintf(f[HS_GPU], 256, "%s %s", plat, *name ? name : "(no GPU name)");
		/* which GPU of several the figures are of */
		{
			size_t ran = 0;

			for (size_t i = 0; i < t->n_devices; i++)
				ran += t->devices[i].kernels > 0;
			if (ran > 1 && t->device == TRACE_ALL_DEVICES)
				snprintf(f[HS_DEVICE], 256, "all %zu devices", ran);
			else if (ran > 1)
				snprintf(f[HS_DEVICE], 256, "device %d of %zu", t->device, ran);
		}
	}
	text_duration(time, sizeof time, (int64_t)llround(c->ns[side]));
	snprintf(f[HS_KERNELS], 256, "%zu kernels", t->n_kernel_events);
	snprintf(f[HS_PASSES], 256, "%u pass%s", c->passes[side], c->passes[side] == 1 ? "" : "es");
	if (t->n_repeats > 1) /* pooled captures (fusediff A1 A2 -- B1 B2) */
		snprintf(f[HS_PASSES], 256, "%u pass%s of %zu captures", c->passes[side],
			 c->passes[side] == 1 ? "" : "es", t->n_repeats);
	snprintf(f[HS_LAYERS], 256, "%u layers", comparison_model(c, side)->layers_per_pass);
	snprintf(f[HS_TIME], 256, "%s/pass", time);
	/* the GPU's idle share of the pass's wall time: what launches and gaps cost */
	if (c->time[side].wall_ns > 0)
		snprintf(f[HS_IDLE], 256, "idle %s%%",
			 text_fixed(n, sizeof n,
				    100 * c->time[side].idle_ns / c->time[side].wall_ns, 0, 0));
	/* "Other 0.1%": a small share is not rounded away; none at all is "Other 0%" */
	other = 100 * sd->classes.other_share;
	snprintf(f[HS_OTHER], 256, "Other %s%%",
		 text_fixed(n, sizeof n, other, other > 0 && other < 9.95 ? 1 : 0, 0));
	/* the share of the kernel time the passes hold: what the figures speak for */
	{
		char pct[16];

		text_percent(pct, sizeof pct, side_coverage_share(&sd->cover));
		snprintf(f[HS_COVER], 256, "in passes %s", pct);
	}
}

static void draw_sides(struct ui *u)
{
	static char f[2][HS_COUNT][256];
	int w = u->layout.cols, width[HS_COUNT], shown[HS_COUNT], total;
	size_t d;

	side_fields(u, SIDE_A, f[0]);
	side_fields(u, SIDE_B, f[1]);
	for (int i = 0; i < HS_COUNT; i++) {
		int a = ui_text_width(u->s, f[0][i], 0), b = ui_text_width(u->s, f[1][i], 0);

		width[i] = a > b ? a : b;
		shown[i] = width[i] > 0;
	}
	if (width[HS_LABEL] > w / 3)
		width[HS_LABEL] = w / 3;
	for (d = 0;; d++) {
		total = 3; /* " A " */
		for (int i = 0; i < HS_COUNT; i++)
			total += shown[i] ? width[i] + 2 : 0;
		if (total <= w || d >= sizeof hs_drop_order / sizeof hs_drop_order[0])
			break;
		shown[hs_drop_order[d]] = 0;
	}
	/* a long file name dropped makes room again for the short fields dropped before it */
	while (d-- > 1) {
		int i = hs_drop_order[d - 1];

		if (!shown[i] && width[i] > 0 && total + width[i] + 2 <= w) {
			shown[i] = 1;
			total += width[i] + 2;
		}
	}
	for (int side = 0; side < 2; side++) {
		int y = u->layout.header_y + side, x = 1;

		ui_fill(u->s, y, 0, w, ROLE_NORMAL);
		x += ui_putf(u->s, y, x, w - x, side ? ROLE_BAR_B : ROLE_BAR_A, 0, "%c ",
			     side ? 'B' : 'A');
		for (int i = 0; i < HS_COUNT; i++) {
			int right =
				i >= HS_KERNELS && i != HS_OTHER && i != HS_IDLE && i != HS_COVER;

			if (!shown[i])
				continue;
			ui_put(u->s, y, x, width[i] < w - x ? width[i] : w - x, f[side][i],
			       i == HS_LABEL		       ? ROLE_HEADER
			       : i == HS_GPU || i == HS_DEVICE ? ROLE_DIM
							       : ROLE_NORMAL,
			       right ? PUT_RIGHT : 0, 0);
			x += width[i] + 2;
			if (x >= w)
				break;
		}
	}
}

/* text in at most w cells from x, cut at a word (never in one) with the ellipsis. Returns the
 * cells used. */
static int put_words(struct ui *u, int y, int x, int w, const char *text, int role)
{
	char *cut;
	size_t end;
	int used;

	if (w <= 0)
		return 0;
	if (ui_text_width(u->s, text, 0) <= w)
		return ui_put(u->s, y, x, w, text, role, 0, 0);
	cut = xstrdup(text);
	for (end = strlen(cut); end > 0;) {
		while (end > 0 && cut[end - 1] != ' ') /* back to the blank before the word */
			end--;
		while (end > 0 && strchr(" ,:;(", cut[end - 1])) /* and what ends a clause */
			end--;
		cut[end] = '\0';
		if (ui_text_width(u->s, cut, 0) + ui_text_width(u->s, u->s->g->ellipsis, 1) <= w)
			break;
	}
	used = end ? ui_put(u->s, y, x, w, cut, role, 0, 0) : 0;
	free(cut);
	return used + ui_put(u->s, y, x + used, 1, u->s->g->ellipsis, role, PUT_RAW, 0);
}

/* The header's fourth line, when there is something the figures must be read with: why the
 * comparison is partial (its note), the number of warnings (w lists them) and the most severe
 * one, cut at a word. */
static void draw_warnings(struct ui *u)
{
	const struct comparison *c = u->c;
	int w = u->layout.cols, y = u->layout.header_y + 3, x = 1;
	size_t worst = comparison_worst_warning(c);

	if (u->layout.header_h < 4)
		return;
	ui_fill(u->s, y, 0, w, ROLE_NORMAL);
	if (c->note)
		x += put_words(u, y, x, w - x - 1, c->note, ROLE_ERROR) + 2;
	if (worst == SIZE_MAX || x >= w - 1)
		return;
	x += ui_putf(u->s, y, x, w - x - 1, ROLE_ERROR, 0, "%zu warning%s (w): ", c->n_warnings,
		     c->n_warnings == 1 ? "" : "s");
	put_words(u, y, x, w - x - 1, c->warnings[worst].message, ROLE_ERROR);
}

/* The third line: the phase, the rank, B - A, the fusion differences. A narrow screen gets
 * shorter words ("3 fusions", "decode (p)") and loses the noise before anything is cut. */
static void draw_header(struct ui *u)
{
	const struct comparison *c = u->c;
	int w = u->layout.cols, y = u->layout.header_y + 2, x = 1;
	size_t n = c->n_fusions - c->n_partial;
	char d[32], r[32], phase[64], rank[64] = "", delta[96], noise[96] = "", fus[64],
				      partial[48] = "";

	draw_sides(u);
	ui_fill(u->s, y, 0, w, ROLE_NORMAL);
	signed_duration(d, sizeof d, c->delta_ns);
	fmt_ratio(r, sizeof r, c->ratio);
	snprintf(phase, sizeof phase, "phase %s (p)  ", phase_name((enum phase)c->phase));
	if (c->ranks && c->ranks->chosen < c->ranks->n) /* which rank every view shows */
		snprintf(rank, sizeof rank, "rank %lld of %zu  ",
			 (long long)c->ranks->r[c->ranks->chosen].rank, c->ranks->n);
	snprintf(delta, sizeof delta, "B-A %s/pass  B/A %s", d, r);
	if (c->ci_known) { /* how much of it the passes' spread cannot explain */
		char bn[32];

		signed_duration(bn, sizeof bn, c->beyond_noise_ns);
		snprintf(noise, sizeof noise, " (%s beyond noise)", bn);
	}
	snprintf(fus, sizeof fus, "  %zu fusion difference%s", n, n == 1 ? "" : "s");
	if (c->n_partial)
		snprintf(partial, sizeof partial, " (+%zu partial)", c->n_partial);
	for (int step = 0; step < 3; step++) {
		int need = 1 + (int)(strlen(phase) + strlen(rank) + strlen(delta) + strlen(noise) +
				     strlen(fus) + strlen(partial));

		if (need <= w - 1)
			break;
		if (step == 0)
			snprintf(fus, sizeof fus, "  %zu fusion%s", n, n == 1 ? "" : "s");
		else if (step == 1)
			snprintf(phase, sizeof phase, "%s (p)  ", phase_name((enum phase)c->phase));
		else
			noise[0] = '\0';
	}
	x += ui_put(u->s, y, x, w - x, phase, ROLE_NORMAL, PUT_RAW, 0);
	x += ui_put(u->s, y, x, w - x, rank, ROLE_HEADER, PUT_RAW, 0);
	x += ui_put(u->s, y, x, w - x, delta, delta_role_ci(c->delta_ns, &c->ci), PUT_RAW, 0);
	x += ui_put(u->s, y, x, w - x, noise, ROLE_DIM, PUT_RAW, 0);
	x += ui_put(u->s, y, x, w - x, fus, n ? ROLE_FUSED : ROLE_NORMAL, PUT_RAW, 0);
	ui_put(u->s, y, x, w - x, partial, ROLE_DIM, PUT_RAW, 0);
	draw_warnings(u);
}

/* "by |Delta|▼", "by Class▲": the order of table t (sorted by a column) into buf. */
static const char *sort_words(const struct ui *u, const struct table *t, char *buf, size_t cap)
{
	int mag = table_sort_by_magnitude(t);

	snprintf(buf, cap, "by %s%s%s%s", mag ? "|" : "", t->def.cols[t->sort_col].title,
		 mag ? "|" : "", table_sort_descending(t) ? u->s->g->down : u->s->g->up);
	return buf;
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
		u->mouse.tab_x[i] = x;
		if (!ui_view_shown(u, i))
			continue;
		x += ui_putf(u->s, l->tabs_y, x, w - x, i == u->view ? ROLE_TAB_ACTIVE : ROLE_TAB,
			     0, " %d %s ", i + 1, u->views[i].def->name);
	}
	u->mouse.tab_x[VIEW_COUNT] = x;
	if (v->def->describe_scope)
		v->def->describe_scope(v, scope, sizeof scope);
	if (scope[0])
		x += ui_putf(u->s, l->tabs_y, x, w - x, ROLE_HEADER, 0, " %s %s", u->s->g->arrow,
			     scope);
	if (u->ev.focus)
		x += ui_putf(u->s, l->tabs_y, x, w - x, ROLE_HEADER, 0, " %s evidence",
			     u->s->g->arrow);
	info[0] = '\0';
	if (t->filter)
		len += (size_t)snprintf(info + len, sizeof info - len, "filter \"%s\"  ",
					t->filter);
	if (t->quick & QUICK_FUSIONS)
		len += (size_t)snprintf(info + len, sizeof info - len, "only fusions  ");
	if (t->quick & QUICK_MISMATCHES)
		len += (size_t)snprintf(info + len, sizeof info - len, "only mismatches  ");
	if (t->hscroll > 0) /* how far the names are scrolled (the left arrow brings them back) */
		len += (size_t)snprintf(info + len, sizeof info - len, "names +%d  ", t->hscroll);
	if (t->sort_col >= 0 && t->sort_col < t->def.n_cols && len < sizeof info) {
		struct table_layout tl;
		int shown = 0;

		table_layout_of(t, l->cols, &tl);
		for (int i = 0; i < tl.n; i++)
			shown |= tl.col[i] == t->sort_col;
		if (!shown) { /* too narrow for the sorted column: say what the order is */
			char by[128];

			len += (size_t)snprintf(info + len, sizeof info - len, "%s  ",
						sort_words(u, t, by, sizeof by));
		}
	}
	if (len < sizeof info) {
		uint32_t index, count;

		table_position(t, &index, &count);
		snprintf(info + len, sizeof info - len, "%u/%u", index, count);
	}
	{ /* all of it when it fits, else the scroll offset and the position */
		char short_info[64];
		const char *shown = info;
		int iw = ui_text_width(u->s, info, 0);

		if (x + 2 + iw >= w && len < strlen(info)) {
			if (t->hscroll > 0)
				snprintf(short_info, sizeof short_info, "+%d  %s", t->hscroll,
					 info + len);
			else
				snprintf(short_info, sizeof short_info, "%s", info + len);
			shown = short_info;
			iw = ui_text_width(u->s, shown, 0);
		}
		if (x + 2 + iw < w)
			ui_put(u->s, l->tabs_y, w - iw - 1, iw, shown, ROLE_TAB, 0, 0);
	}
}

static void draw_empty_table(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct table *t = &u->views[u->view].t;
	char why[160];

	if (t->n_rows == 0 && u->views[u->view].def->empty)
		snprintf(why, sizeof why, "(%s)", u->views[u->view].def->empty);
	else if (t->n_rows == 0)
		snprintf(why, sizeof why, "(no %s in this phase)", u->views[u->view].def->what);
	else
		snprintf(why, sizeof why, "(no row passes the filter: c clears it)");
	if (t->n_view == 0 && l->table_h > 1)
		ui_put(u->s, l->table_y + 1, 2, l->cols - 4, why, ROLE_DIM, PUT_RAW, 0);
}

static void evidence_title(struct ui *u, char *buf, size_t cap)
{
	struct ui_view *v = &u->views[u->view];

	if (v->t.sel == TABLE_NONE)
		snprintf(buf, cap, " Evidence ");
	else if (u->ev.focus)
		snprintf(buf, cap, " Evidence (Esc: back, arrows scroll, m: names, v: size) ");
	else
		snprintf(buf, cap, " Evidence (%s, v: size, m: names) ",
			 v->def->enter_hint ? "o: focus"
					    : "Enter: focus"); /* Enter does another thing */
}

static void draw_evidence(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct ui_view *v = &u->views[u->view];
	int h = l->evidence_h - 1, w = l->cols;
	char title[160];

	if (!l->evidence_h)
		return;
	if (!u->ev.valid || u->ev.view != u->view || u->ev.row != v->t.sel ||
	    u->ev.names != u->names.form || u->ev.width != w) {
		int same = u->ev.valid && u->ev.view == u->view && u->ev.row == v->t.sel;

		ui_text_clear(&u->ev.text);
		if (v->t.sel != TABLE_NONE && v->def->evidence)
			v->def->evidence(v, v->t.sel, &u->ev.text, w - 2);
		if (!same) {
			u->ev.top = 0;
			u->ev.hscroll = 0;
		}
		u->ev.valid = 1;
		u->ev.view = u->view;
		u->ev.row = v->t.sel;
		u->ev.names = u->names.form;
		u->ev.width = w;
	}
	if (u->ev.top > u->ev.text.n)
		u->ev.top = 0;
	evidence_title(u, title, sizeof title);
	ui_fill(u->s, l->evidence_y, 0, w, u->ev.focus ? ROLE_TAB_ACTIVE : ROLE_TITLE);
	ui_put(u->s, l->evidence_y, 0, w, title, u->ev.focus ? ROLE_TAB_ACTIVE : ROLE_TITLE,
	       PUT_RAW, 0);
	if (u->ev.text.n > (size_t)h) {
		char more[64];

		snprintf(more, sizeof more, " lines %u-%u of %zu ", u->ev.top + 1,
			 (unsigned)(u->ev.top + (uint32_t)h < u->ev.text.n ? u->ev.top + (uint32_t)h
									   : u->ev.text.n),
			 u->ev.text.n);
		ui_put(u->s, l->evidence_y, w - (int)strlen(more), (int)strlen(more), more,
		       u->ev.focus ? ROLE_TAB_ACTIVE : ROLE_TITLE, PUT_RAW, 0);
	}
	for (int i = 0; i < h; i++) {
		size_t li = u->ev.top + (size_t)i;

		ui_fill(u->s, l->evidence_y + 1 + i, 0, w, ROLE_NORMAL);
		if (li >= u->ev.text.n)
			continue;
		ui_put(u->s, l->evidence_y + 1 + i, 1, w - 1, u->ev.text.lines[li].text,
		       u->ev.text.lines[li].role, u->ev.text.lines[li].raw ? PUT_RAW : 0,
		       u->ev.hscroll);
	}
}

/* The keys that do something here, in at most width cells: help and quit (or back) always,
 * then what Enter does, back, the views, sort, search, filter, phase, and the timeline, copy,
 * the evidence and export where there is room; shown in that order, never cut mid-word. */
static void status_hints(struct ui *u, char *buf, size_t cap, int width)
{
	const struct ui_view *v = &u->views[u->view];
	const struct ui_view_def *d = v->def;
	int back = u->ev.focus || u->hist.depth > 0 || !ui_scope_eq(v->scope, SCOPE_NONE);
	char enter[64], views[32];
	int last = 0;
	/* in the order shown; rank: the lowest are dropped first when narrow */
	const struct {
		int on, rank;
		const char *text;
	} h[] = {
		{ 1, 0, "?:help" },
		{ v->n_rows > 0, 1, enter },
		{ back, 1, "Esc:back" },
		{ d->timeline && v->n_rows, 6, "t:timeline" },
		{ 1, 2, views },
		{ 1, 3, "s/r:sort" },
		{ 1, 4, "/:search" },
		{ 1, 5, "f:filter" },
		{ 1, 5, "p:phase" },
		{ u->c->n_warnings > 0, 4, "w:warnings" },
		{ d->kernel_of && v->n_rows, 7, "y:copy" },
		{ d->enter_hint && v->n_rows, 7, "o:evidence" },
		{ 1, 8, "e:export" },
		{ 1, 0, back ? "q:back" : "q:quit" },
	};
	enum { N = sizeof h / sizeof h[0] };
	int keep = 9, len;

	snprintf(enter, sizeof enter, "Enter:%s", d->enter_hint ? d->enter_hint : "evidence");
	for (int i = 0; i < VIEW_COUNT; i++) /* the keys of the views that have a tab */
		if (ui_view_shown(u, i))
			last = i + 1;
	snprintf(views, sizeof views, "Tab/1-%d:views", last);

	do { /* the most ranks that fit */
		len = -2;
		for (int i = 0; i < N; i++)
			if (h[i].on && h[i].rank < keep)
				len += 2 + (int)strlen(h[i].text);
	} while (len > width && --keep > 1);
	buf[0] = '\0';
	for (int i = 0, n = 0; i < N; i++)
		if (h[i].on && h[i].rank < keep)
			n += snprintf(buf + n, cap - (size_t)n, "%s%s", n ? "  " : "", h[i].text);
}

/* Where the table stands: its order, its filter, the phase. */
static void status_context(struct ui *u, char *buf, size_t cap)
{
	const struct table *t = &u->views[u->view].t;
	size_t len = 0;

	buf[0] = '\0';
	if (t->sort_col >= 0)
		len += strlen(sort_words(u, t, buf, cap));
	if ((t->filter || t->quick) && len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "%sfiltered", len ? "  " : "");
	if (len < cap)
		snprintf(buf + len, cap - len, "%s%s", len ? "  " : "",
			 phase_name((enum phase)u->c->phase));
}

static void draw_status(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	int w = l->cols;

	ui_fill(u->s, l->status_y, 0, w, ROLE_STATUS);
	if (u->prompt.kind) {
		static const char *const label[] = { "", "Search: ", "Filter: ", "Export CSV to: ",
						     "" };
		int x = 0;

		if (u->prompt.kind == PROMPT_COPY) {
			ui_put(u->s, l->status_y, 0, w,
			       "Copy the kernel names of a: A, b: B, Enter: both (Esc: cancel)",
			       ROLE_STATUS, PUT_RAW, 0);
			return;
		}
		if (u->prompt.kind == PROMPT_OVERWRITE) {
			x = ui_putf(u->s, l->status_y, 0, w, ROLE_ERROR, 0,
				    "%s exists: overwrite it? (y/n)", u->export.path);
			return;
		}
		x = ui_put(u->s, l->status_y, 0, w,
			   u->prompt.kind == PROMPT_EXPORT && u->export.trace
				   ? "Export trace to: "
				   : label[u->prompt.kind],
			   ROLE_STATUS, PUT_RAW, 0);
		x += ui_put(u->s, l->status_y, x, w - x - 1, u->prompt.input, ROLE_STATUS, 0, 0);
		ui_put(u->s, l->status_y, x, 1, "_", ROLE_STATUS, PUT_RAW, 0);
		return;
	}
	if (u->msg.text[0]) {
		ui_put(u->s, l->status_y, 0, w, u->msg.text,
		       u->msg.role == ROLE_ERROR ? ROLE_ERROR : ROLE_STATUS, 0, 0);
		return;
	}
	{
		char hints[512], right[256];
		int rw;

		status_context(u, right, sizeof right);
		rw = ui_text_width(u->s, right, 1);
		if (rw + 20 > w) /* too narrow for both: the keys */
			right[0] = '\0', rw = 0;
		status_hints(u, hints, sizeof hints, w - rw - (rw ? 2 : 0));
		ui_put(u->s, l->status_y, 0, w - rw - (rw ? 2 : 0), hints, ROLE_STATUS, PUT_RAW, 0);
		if (rw)
			ui_put(u->s, l->status_y, w - rw - 1, rw, right, ROLE_STATUS, PUT_RAW, 0);
	}
}

static void draw_too_small(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	char lines[4][96];
	int y = l->rows / 2 - 2;

	snprintf(lines[0], sizeof lines[0], "Terminal too small: %dx%d", l->cols, l->rows);
	snprintf(lines[1], sizeof lines[1], "fusediff needs at least %dx%d.", UI_MIN_COLS,
		 UI_MIN_ROWS);
	snprintf(lines[2], sizeof lines[2], "Enlarge the window,");
	snprintf(lines[3], sizeof lines[3], "or press q to quit.");
	if (y < 0)
		y = 0;
	for (int i = 0; i < 4; i++) {
		int len = (int)strlen(lines[i]), x = (l->cols - len) / 2;

		ui_put(u->s, y + i, x > 0 ? x : 0, l->cols, lines[i], i ? ROLE_NORMAL : ROLE_ERROR,
		       PUT_RAW, 0);
	}
}

void ui_draw(struct ui *u)
{
	const struct ui_layout *l = &u->layout;
	struct ui_view *v = ui_shown_view(u);

	ui_relayout(u);
	attrset(u->s->attr[ROLE_NORMAL]);
	erase();
	if (l->too_small) {
		draw_too_small(u);
		return;
	}
	if (u->pop.help) {
		ui_draw_help(u);
		return;
	}
	if (u->tl.open) {
		ui_timeline_draw(u);
		return;
	}
	draw_header(u);
	ui_draw_table(u->s, &v->t, l->table_y, 0, l->cols, l->table_h, !u->ev.focus);
	draw_empty_table(u);
	draw_tabs(u);
	draw_evidence(u);
	draw_status(u);
	if (u->pop.picker)
		ui_draw_picker(u);
	if (u->pop.warnings)
		ui_draw_warnings(u);
}
