/* explorer.c — the explorer's state and its answer to every action: moving, views, drill-down
 * and back, sorting, searching, filtering, phases, prompts, help and CSV export. Drawing is
 * in explorer_draw.c; the views only supply columns and cells (in views/). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explorer_int.h"
#include "fusediff/fileset.h"
#include "fusediff/outfile.h"
#include "fusediff/report.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"
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
	v->u->ev_valid = 0;
}

static void build_name_maps(struct ui *u)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = u->c->side[s];
		uint32_t n;

		if (!sd->t || !sd->classes.infos || !sd->classes.info_of)
			continue;
		n = intern_count(sd->t->strings);
		u->name_info[s] = xmalloc((n ? n : 1) * sizeof *u->name_info[s]);
		memset(u->name_info[s], 0xff, (n ? n : 1) * sizeof *u->name_info[s]);
		u->n_name_info[s] = n;
		for (size_t k = 0; k < sd->t->n_kernels; k++) {
			uint32_t id = sd->t->kernels[k].name;

			if (id < n && u->name_info[s][id] == UINT32_MAX)
				u->name_info[s][id] = sd->classes.info_of[k];
		}
	}
}

/* The one place the layout is computed: on every draw and on KEY_RESIZE. */
void ui_relayout(struct ui *u)
{
	int cols, rows;

	ui_screen_size(u->s, &cols, &rows);
	ui_layout_compute(cols, rows, u->c->note || u->c->n_warnings ? 4 : 3, u->evidence_size,
			  u->views[u->view].built ? u->views[u->view].t.n_view : -1, &u->layout);
}

struct ui *ui_new_comparison(struct ui_screen *s, const struct comparison *c)
{
	struct ui *u = xcalloc(1, sizeof *u);

	u->s = s;
	u->c = c;
	build_name_maps(u);
	for (int i = 0; i < VIEW_COUNT; i++) {
		u->views[i].def = view_defs[i];
		u->views[i].u = u;
		u->views[i].scope = SCOPE_NONE;
		view_open(&u->views[i]);
	}
	u->view = UI_FIRST_VIEW;
	u->evidence_size = EVIDENCE_SMALL;
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
	u->session = session;
	return u;
}

void ui_free(struct ui *u)
{
	if (!u)
		return;
	for (int i = 0; i < VIEW_COUNT; i++)
		view_close(&u->views[i]);
	ui_text_clear(&u->ev);
	ui_timeline_close(u);
	free(u->name_info[0]);
	free(u->name_info[1]);
	free(u->export_path);
	if (u->owns_session)
		session_close(u->session);
	free(u);
}

const char *ui_message(const struct ui *u)
{
	return u->message;
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
	return u->focus_evidence || u->depth > 0 || scoped(u);
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
	if (u->depth < (int)(sizeof u->nav / sizeof u->nav[0]))
		u->nav[u->depth++] =
			(struct ui_nav){ u->view, view, u->views[view].scope, cur(u)->t.sel };
	set_scope(&u->views[view], scope);
	u->view = view;
	u->focus_evidence = 0;
	u->ev_valid = 0;
}

static void go_back(struct ui *u)
{
	if (u->focus_evidence) {
		u->focus_evidence = 0;
	} else if (u->depth > 0) {
		struct ui_nav n = u->nav[--u->depth];

		set_scope(&u->views[n.target], n.target_scope);
		u->view = n.view;
		if (n.sel != TABLE_NONE)
			table_select_row(&cur(u)->t, n.sel);
	} else if (scoped(u)) {
		set_scope(cur(u), SCOPE_NONE);
	}
	u->ev_valid = 0;
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
	u->depth = 0;
	u->focus_evidence = 0;
	u->ev_valid = 0;
}

/* Show comparison c (another phase, or another rank's) in every view. */
static void set_comparison(struct ui *u, const struct comparison *c)
{
	int sides = c->side[0] != u->c->side[0] || c->side[1] != u->c->side[1];

	ui_timeline_close(u);
	u->c = c;
	if (sides) { /* another rank: other traces, other names */
		free(u->name_info[0]);
		free(u->name_info[1]);
		u->name_info[0] = u->name_info[1] = NULL;
		u->n_name_info[0] = u->n_name_info[1] = 0;
		build_name_maps(u);
		u->depth = 0;
		for (int v = 0; v < VIEW_COUNT; v++)
			u->views[v].scope = SCOPE_NONE;
	}
	/* a scope's group is a row of comparison.summed: another comparison's now */
	for (int v = 0; v < VIEW_COUNT; v++)
		u->views[v].scope.group = -1;
	for (int d = 0; d < u->depth; d++)
		u->nav[d].target_scope.group = -1;
	for (int v = 0; v < VIEW_COUNT; v++) {
		const struct ui_view_def *d = u->views[v].def;
		int how = d->on_comparison ? d->on_comparison(&u->views[v]) : STALE_RESET;
		uint32_t keep = how == STALE_KEEP ? u->views[v].t.sel : TABLE_NONE;

		if (v != u->view) { /* when it is shown */
			if (u->views[v].stale != STALE_RESET)
				u->views[v].stale = how;
			continue;
		}
		ui_view_rebuild(&u->views[v]);
		table_select_pos(&u->views[v].t, 0);
		if (keep != TABLE_NONE)
			table_select_row(&u->views[v].t, keep);
	}
	u->focus_evidence = 0;
	u->ev_valid = 0;
}

void ui_set_inputs(struct ui *u, const struct file_set *reads)
{
	u->reads = reads;
}

void ui_set_rank_opener(struct ui *u, ui_rank_opener fn, void *user)
{
	u->open_rank = fn;
	u->open_rank_user = user;
}

/* Show session s (opened for what: "rank 1", "device 0", "all devices"), which the explorer
 * then owns, in the phase shown (else its first); the session shown before is closed when the
 * explorer owned it. On failure s is closed and the message says why. */
static void adopt_session(struct ui *u, struct session *s, const char *what, const char *shown)
{
	struct fd_error err = { { 0 } };
	struct session *old = u->owns_session ? u->session : NULL;
	const struct comparison *c = session_compare(s, u->c->phase, &err);

	if (!c)
		c = session_compare(s, -1, &err); /* it lacks this phase: its first */
	if (!c) {
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
		session_close(s);
		return;
	}
	set_comparison(u, c);
	u->session = s;
	u->owns_session = 1;
	session_close(old);
	ui_set_message(u, ROLE_NORMAL, "%s%s: B-A %+.1f us/pass; every view shows it now", what,
		       shown, c->delta_ns / 1000.0);
}

int ui_open_rank(struct ui *u, uint32_t index)
{
	const struct comparison_ranks *r = u->c->ranks;
	struct fd_error err = { { 0 } };
	struct session *s;
	char what[40];

	if (!r || index >= r->n)
		return 0;
	snprintf(what, sizeof what, "rank %lld", (long long)r->r[index].rank);
	if (index == r->chosen) {
		ui_set_message(u, ROLE_NORMAL, "%s is the one shown", what);
		return 1;
	}
	if (!u->open_rank) {
		ui_set_message(u, ROLE_NORMAL, "this explorer cannot open another rank");
		return 1;
	}
	if (!(s = u->open_rank(u->open_rank_user, index, &err)))
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
	else
		adopt_session(u, s, what, "");
	return 1;
}

void ui_set_device_opener(struct ui *u, ui_device_opener fn, void *user)
{
	u->open_device = fn;
	u->open_device_user = user;
}

/* The devices that ran kernels on either side, by id, then all of them (TRACE_ALL_DEVICES):
 * what the device key cycles through. Returns how many, 0 when each side ran on one. */
static size_t device_cycle(const struct comparison *c, int32_t *ids, size_t cap)
{
	size_t n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < c->side[s]->t->n_devices; i++) {
			int32_t id = c->side[s]->t->devices[i].id;
			size_t j;

			if (!c->side[s]->t->devices[i].kernels)
				continue;
			for (j = 0; j < n && ids[j] < id; j++)
				;
			if ((j < n && ids[j] == id) || n + 1 >= cap)
				continue;
			memmove(ids + j + 1, ids + j, (n - j) * sizeof *ids);
			ids[j] = id;
			n++;
		}
	if (n < 2)
		return 0;
	ids[n++] = TRACE_ALL_DEVICES;
	return n;
}

/* The device key: both traces reopened on the next device (device_cycle()). */
static void next_device(struct ui *u)
{
	int32_t ids[66], now = u->c->side[0]->t->device, next;
	size_t n = device_cycle(u->c, ids, sizeof ids / sizeof ids[0]), i;
	struct fd_error err = { { 0 } };
	struct session *s;
	char what[32];

	if (!n) {
		ui_set_message(u, ROLE_NORMAL, "each side ran its kernels on one GPU");
		return;
	}
	if (!u->open_device) {
		ui_set_message(u, ROLE_NORMAL, "this explorer cannot reopen the traces");
		return;
	}
	for (i = 0; i < n && ids[i] != now; i++)
		;
	next = ids[i < n ? (i + 1) % n : 0];
	if (next == TRACE_ALL_DEVICES)
		snprintf(what, sizeof what, "all devices");
	else
		snprintf(what, sizeof what, "device %d", (int)next);
	if (!(s = u->open_device(u->open_device_user, next, &err)))
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
	else
		adopt_session(u, s, what, " on both sides");
}

static void next_phase(struct ui *u)
{
	int phases[PHASE_COUNT + 1], n = 0, i, next;
	struct fd_error err;
	const struct comparison *c;

	if (!u->session) {
		ui_set_message(u, ROLE_NORMAL, "this comparison has only one phase");
		return;
	}
	/* the phases both sides' compared models have, then all passes */
	for (int ph = 0; ph < PHASE_COUNT; ph++) {
		const struct side *a = u->c->side[0], *b = u->c->side[1];

		if (a->models[u->c->model[0]].phase_passes[ph] &&
		    b->models[u->c->model[1]].phase_passes[ph])
			phases[n++] = ph;
	}
	phases[n++] = PHASE_COUNT;
	for (i = 0; i < n && phases[i] != u->c->phase; i++)
		;
	next = phases[(i + 1) % n];
	c = session_compare(u->session, next, &err);
	if (!c) {
		ui_set_message(u, ROLE_ERROR, "%s", err.msg);
		return;
	}
	set_comparison(u, c);
	ui_set_message(u, ROLE_NORMAL, "phase: %s (%u passes in A, %u in B)",
		       phase_name((enum phase)u->c->phase), u->c->passes[0], u->c->passes[1]);
}

static void set_names(struct ui *u, int names)
{
	static const char *const what[NAMES_COUNT] = { "short", "demangled",
						       "as in the trace (mangled)" };

	u->names = names % NAMES_COUNT;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (v == u->view)
			ui_view_rebuild(&u->views[v]);
		else if (!u->views[v].stale)
			u->views[v].stale = STALE_KEEP; /* rebuilt when shown */
	ui_set_message(u, ROLE_NORMAL, "kernel names: %s", what[u->names]);
}

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
static int next_sort_col(const struct ui *u, const struct table *t, int col, int dir, int shown)
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

static void sort_message(struct ui *u)
{
	struct table *t = &cur(u)->t;

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

static void apply_filter(struct ui *u, const char *text, unsigned quick)
{
	struct table *t = &cur(u)->t;

	uint32_t index, shown;

	table_filter(t, text, quick);
	u->ev_valid = 0;
	table_position(t, &index, &shown); /* rows as the tab line counts them: groups */
	if (!t->filter && !t->quick)
		ui_set_message(u, ROLE_NORMAL, "no filter: %u rows", shown);
	else
		ui_set_message(u, t->n_view ? ROLE_NORMAL : ROLE_ERROR, "%u of %u rows shown%s",
			       shown, table_groups(t), t->n_view ? "" : " (c clears the filter)");
}

static void do_search(struct ui *u, int dir)
{
	if (!u->search[0]) {
		ui_set_message(u, ROLE_NORMAL, "nothing to search for: press / first");
		return;
	}
	struct table *t = &cur(u)->t;
	uint32_t before = t->sel_pos, k, n;

	if (table_search(t, u->search, dir) < 0) {
		ui_set_message(u, ROLE_ERROR, "not found: %s", u->search);
	} else {
		int wrapped = dir >= 0 ? t->sel_pos <= before : t->sel_pos >= before;

		table_search_count(t, u->search, &k, &n);
		ui_set_message(u, ROLE_NORMAL, "/%s: match %u of %u%s", u->search, k, n,
			       !wrapped || n < 2 ? ""
			       : dir >= 0	 ? " (wrapped to the top)"
						 : " (wrapped to the bottom)");
	}
	u->ev_valid = 0;
}

/* --- export ----------------------------------------------------------------------------- */

uint32_t ui_row_is_item(const struct ui_view *v, uint32_t row)
{
	(void)v;
	return row;
}

/* "fusediff-Pairs-layer3-prefill.csv", in the current directory (a trace's directory may
 * be read-only: a shared collection). */
static char *default_export_path(struct ui *u)
{
	const struct ui_view *v = cur(u);
	char scope[128] = "";

	if (v->def->export_name)
		v->def->export_name(v, scope, sizeof scope);
	return xasprintf("fusediff-%s%s-%s.csv", v->def->name, scope,
			 phase_name((enum phase)u->c->phase));
}

/* Write the table through a temporary file and rename() (outfile.h): an error leaves the
 * old file as it was and no temporary file behind. */
/* The rows the table shows (its filter, its order) as the CSV report writes them: full
 * names, full precision. *n receives how many. */
static int write_rows(struct ui *u, FILE *f, size_t *n)
{
	const struct ui_view *v = cur(u);
	const struct table *t = &v->t;
	uint32_t *items = xmalloc((t->n_view + 1) * sizeof *items);
	int rc;

	*n = 0;
	for (uint32_t i = 0; i < t->n_view; i++) {
		uint32_t item = v->def->csv_item(v, t->view[i]);

		if (item != UINT32_MAX)
			items[(*n)++] = item;
	}
	rc = report_csv_table(f, u->c, (enum report_csv_table)v->def->csv_table, items, *n);
	free(items);
	return rc;
}

static void export_csv(struct ui *u, const char *path)
{
	struct fd_error err;
	struct outfile of;
	size_t rows = 0;

	if (outfile_open(&of, path, &err) < 0) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	errno = 0;
	if (write_rows(u, of.f, &rows) < 0) {
		fd_error_set(&err, "%s: %s", path, strerror(errno ? errno : EIO));
		outfile_abort(&of);
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	if (outfile_commit(&of, path, &err) < 0) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	ui_set_message(u, ROLE_NORMAL, "wrote %zu row%s to %s", rows, rows == 1 ? "" : "s", path);
}

/* --- prompts ---------------------------------------------------------------------------- */

static void open_prompt(struct ui *u, int kind, const char *initial)
{
	u->prompt = kind;
	snprintf(u->input, sizeof u->input, "%s", initial ? initial : "");
	u->message[0] = '\0';
}

static void input_add(struct ui *u, int cp)
{
	size_t len = strlen(u->input);
	char enc[4];
	size_t n = text_utf8_encode((uint32_t)cp, enc);

	if (len + n < sizeof u->input) {
		memcpy(u->input + len, enc, n);
		u->input[len + n] = '\0';
	}
}

static void input_backspace(struct ui *u)
{
	size_t len = strlen(u->input);

	while (len > 0 && ((unsigned char)u->input[len - 1] & 0xc0) == 0x80)
		len--;
	if (len > 0)
		len--;
	u->input[len] = '\0';
}

static void prompt_accept(struct ui *u)
{
	int kind = u->prompt;

	u->prompt = PROMPT_NONE;
	switch (kind) {
	case PROMPT_SEARCH:
		snprintf(u->search, sizeof u->search, "%s", u->input);
		do_search(u, 1);
		break;
	case PROMPT_FILTER: apply_filter(u, u->input, cur(u)->t.quick); break;
	case PROMPT_EXPORT:
		if (!u->input[0]) {
			ui_set_message(u, ROLE_NORMAL, "not exported");
			break;
		}
		free(u->export_path);
		if (u->input[0] == '~' && (u->input[1] == '/' || !u->input[1]) && getenv("HOME"))
			u->export_path = xasprintf("%s%s", getenv("HOME"), u->input + 1);
		else
			u->export_path = xstrdup(u->input);
		if (outfile_same_file(u->export_path, u->c->side[0]->t->path) ||
		    outfile_same_file(u->export_path, u->c->side[1]->t->path)) {
			ui_set_message(u, ROLE_ERROR, "not exported: %s is a compared trace",
				       u->export_path);
			break;
		}
		if (file_set_find(u->reads, u->export_path)) {
			ui_set_message(u, ROLE_ERROR,
				       "not exported: %s is %s, which this run reads",
				       u->export_path, file_set_find(u->reads, u->export_path));
			break;
		}
		if (!outfile_replaceable(u->export_path)) { /* a directory, a device, a FIFO */
			ui_set_message(u, ROLE_ERROR, "not exported: %s is not a regular file",
				       u->export_path);
			break;
		}
		if (access(u->export_path, F_OK) == 0) {
			open_prompt(u, PROMPT_OVERWRITE, "");
			break;
		}
		if (u->export_trace)
			ui_trace_write(u, u->export_path);
		else
			export_csv(u, u->export_path);
		break;
	default: break;
	}
}

static void copy_names(struct ui *u, int which);

static void prompt_key(struct ui *u, int key)
{
	if (u->prompt == PROMPT_COPY) { /* a, b or Enter for both */
		u->prompt = PROMPT_NONE;
		if (key == 'a' || key == 'A')
			copy_names(u, SIDE_A);
		else if (key == 'b' || key == 'B')
			copy_names(u, SIDE_B);
		else if (key == UI_KEY_ENTER)
			copy_names(u, -1);
		else
			ui_set_message(u, ROLE_NORMAL, "nothing copied");
		return;
	}
	if (u->prompt == PROMPT_OVERWRITE) {
		u->prompt = PROMPT_NONE;
		if ((key == 'y' || key == 'Y') && u->export_trace)
			ui_trace_write(u, u->export_path);
		else if (key == 'y' || key == 'Y')
			export_csv(u, u->export_path);
		else
			ui_set_message(u, ROLE_NORMAL, "not exported: %s exists", u->export_path);
		return;
	}
	switch (key) {
	case UI_KEY_ENTER: prompt_accept(u); break;
	case UI_KEY_ESC:
	case 3: /* C-c */
		u->prompt = PROMPT_NONE;
		ui_set_message(u, ROLE_NORMAL, "cancelled");
		break;
	case UI_KEY_BACKSPACE: input_backspace(u); break;
	case 21: /* C-u */ u->input[0] = '\0'; break;
	default:
		if (key >= 0x20 && key < 0x110000 && key != 0x7f)
			input_add(u, key);
		break;
	}
}

/* --- the sort column picker and help ---------------------------------------------------- */

static void picker_key(struct ui *u, int key)
{
	struct table *t = &cur(u)->t;
	enum ui_action a = ui_action_for_key(key);

	if (a == ACT_UP)
		u->picker_sel = next_sort_col(u, t, u->picker_sel, -1, 1);
	else if (a == ACT_DOWN)
		u->picker_sel = next_sort_col(u, t, u->picker_sel, 1, 1);
	else if (key == UI_KEY_ENTER) {
		u->picker = 0;
		table_sort(t, u->picker_sel,
			   t->sort_col == u->picker_sel ? table_next_reverse(t) : 0);
		sort_message(u);
		u->ev_valid = 0;
	} else if (key == UI_KEY_ESC || a == ACT_QUIT || a == ACT_SORT || a == ACT_BACK) {
		u->picker = 0;
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

static void help_key(struct ui *u, int key)
{
	enum ui_action a = ui_action_for_key(key);
	int h = u->layout.rows - 2, max = help_lines(u) - h;

	if (a == ACT_DOWN)
		u->help_top++;
	else if (a == ACT_UP)
		u->help_top--;
	else if (a == ACT_PAGE_DOWN)
		u->help_top += h;
	else if (a == ACT_PAGE_UP)
		u->help_top -= h;
	else
		u->help = 0;
	if (u->help_top > max)
		u->help_top = max;
	if (u->help_top < 0)
		u->help_top = 0;
}

/* The warnings popup: arrows and pages scroll (explorer_draw.c keeps warnings_top in range),
 * any other key closes it. */
static void warnings_key(struct ui *u, int key)
{
	enum ui_action a = ui_action_for_key(key);
	int h = u->layout.rows - 6;

	if (a == ACT_DOWN)
		u->warnings_top++;
	else if (a == ACT_UP)
		u->warnings_top--;
	else if (a == ACT_PAGE_DOWN)
		u->warnings_top += h;
	else if (a == ACT_PAGE_UP)
		u->warnings_top -= h;
	else
		u->warnings = 0;
	if (u->warnings_top < 0)
		u->warnings_top = 0;
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
	long top = (long)u->ev_top, max = (long)u->ev.n - h;

	switch (a) {
	case ACT_UP: top--; break;
	case ACT_DOWN: top++; break;
	case ACT_PAGE_UP: top -= h; break;
	case ACT_PAGE_DOWN: top += h; break;
	case ACT_TOP: top = 0; break;
	case ACT_BOTTOM: top = max; break;
	case ACT_RIGHT: u->ev_hscroll += 8; return 1;
	case ACT_LEFT: /* back to the left edge, no further: Esc leaves the pane */
		if (u->ev_hscroll > 0)
			u->ev_hscroll = u->ev_hscroll > 8 ? u->ev_hscroll - 8 : 0;
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
	u->ev_top = (uint32_t)top;
	return 1;
}

/* --- the mouse ---------------------------------------------------------------------------- */

static void mouse(struct ui *u, const struct ui_event *ev)
{
	const struct ui_layout *l = &u->layout;
	struct table *t = &cur(u)->t;
	int in_evidence =
		l->evidence_h && ev->y >= l->evidence_y && ev->y < l->evidence_y + l->evidence_h;

	if (l->too_small || u->help || u->warnings || u->picker || u->prompt || u->tl.open)
		return;
	if (ev->mouse == UI_MOUSE_WHEEL_UP || ev->mouse == UI_MOUSE_WHEEL_DOWN) {
		int d = ev->mouse == UI_MOUSE_WHEEL_UP ? -3 : 3;

		if (in_evidence) {
			long top = (long)u->ev_top + d, max = (long)u->ev.n - (l->evidence_h - 1);

			u->ev_top = (uint32_t)(top > max ? (max > 0 ? max : 0) : top < 0 ? 0 : top);
		} else {
			table_scroll(t, d, table_rows(u));
			u->ev_valid = 0;
		}
		return;
	}
	if (ev->y == l->tabs_y) {
		for (int i = 0; i < VIEW_COUNT; i++)
			if (ui_view_shown(u, i) && ev->x >= u->tab_x[i] && ev->x < u->tab_x[i + 1])
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
				sort_message(u);
			}
		return;
	}
	if (in_evidence) {
		u->focus_evidence = 1;
		return;
	}
	{
		uint32_t row = ui_table_row_at(t, l->table_y, l->table_h, ev->y);

		if (row == TABLE_NONE)
			return;
		table_select_row(t, row);
		u->focus_evidence = 0;
		u->ev_valid = 0;
		if (ev->mouse == UI_MOUSE_DOUBLE && !drill(u, row)) {
			u->focus_evidence = 1;
		}
	}
}

/* --- actions ------------------------------------------------------------------------------ */

/* y: the selected kernel's full name (escaped: one visible line) to the clipboard. */
/* y: the selected row's kernels, A's, B's or both, as the choice asks (PROMPT_COPY). */
static int has_kernels(struct ui *u, int side)
{
	struct ui_view *v = cur(u);
	const uint32_t *names;
	uint32_t n;

	return v->t.sel != TABLE_NONE && v->def->kernel_of &&
	       v->def->kernel_of(v, v->t.sel, side, &names, &n);
}

static void copy_kernel(struct ui *u)
{
	if (!has_kernels(u, SIDE_A) && !has_kernels(u, SIDE_B))
		ui_set_message(u, ROLE_NORMAL, "y: select a kernel pair, a fusion or a summed row");
	else
		open_prompt(u, PROMPT_COPY, "");
}

/* Copy the full names of side's kernels (both sides: -1), one a line, "A: " and "B: " first
 * when both. */
static void copy_names(struct ui *u, int which)
{
	struct ui_view *v = cur(u);
	char *all = xstrdup("");
	unsigned count = 0;

	for (int s = 0; s < 2; s++) {
		const struct trace *t = u->c->side[s]->t;
		const uint32_t *names;
		uint32_t n;

		if ((which >= 0 && s != which) || !v->def->kernel_of(v, v->t.sel, s, &names, &n))
			continue;
		for (uint32_t i = 0; i < n; i++, count++) {
			char *esc = text_escape_dup(trace_str(t, names[i]),
						    intern_len(t->strings, names[i]));
			char *j = xasprintf("%s%s%s%s", all, *all ? "\n" : "",
					    which < 0 ? (s ? "B: " : "A: ") : "", esc);

			free(esc);
			free(all);
			all = j;
		}
	}
	if (!count)
		ui_set_message(u, ROLE_NORMAL, "y: %c has no kernel here", "AB"[which]);
	else if (ui_screen_copy(u->s, all, strlen(all)) < 0)
		ui_set_message(u, ROLE_ERROR,
			       "y: the names are too long for the clipboard (%zu bytes)",
			       strlen(all));
	else
		ui_set_message(
			u, ROLE_NORMAL,
			"copied %s kernel name%s (%u, %zu bytes) with OSC 52; if the "
			"clipboard is unchanged, the terminal does not allow it (tmux: set -g "
			"set-clipboard on)",
			which < 0 ? "both sides'"
			: which	  ? "B's"
				  : "A's",
			count == 1 ? "" : "s", count, strlen(all));
	free(all);
}

static void focus_evidence(struct ui *u)
{
	if (u->evidence_size == EVIDENCE_HIDDEN) {
		u->evidence_size = EVIDENCE_LARGE;
		ui_relayout(u);
	}
	u->focus_evidence = 1;
	u->ev_top = 0;
	u->ev_hscroll = 0;
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
	case ACT_COPY: copy_kernel(u); break;
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
	case ACT_PHASE: next_phase(u); break;
	case ACT_DEVICE: next_device(u); break;
	case ACT_WARNINGS:
		u->warnings = 1;
		u->warnings_top = 0;
		break;
	case ACT_EVIDENCE:
		u->evidence_size = (u->evidence_size + 1) % EVIDENCE_SIZES;
		if (u->evidence_size == EVIDENCE_HIDDEN)
			u->focus_evidence = 0;
		ui_relayout(u);
		break;
	case ACT_NAMES: set_names(u, u->names + 1); break;
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
		u->picker = 1;
		u->picker_sel = ui_sort_offered(u, t, t->sort_col) ? t->sort_col
								   : next_sort_col(u, t, -1, 1, 1);
		break;
	case ACT_SORT_LEFT:
	case ACT_SORT_RIGHT:
		table_sort(t, next_sort_col(u, t, t->sort_col, a == ACT_SORT_LEFT ? -1 : 1, 0), 0);
		sort_message(u);
		break;
	case ACT_REVERSE:
		table_sort(t, t->sort_col, table_next_reverse(t));
		sort_message(u);
		break;
	case ACT_SEARCH: open_prompt(u, PROMPT_SEARCH, ""); break;
	case ACT_SEARCH_NEXT: do_search(u, 1); break;
	case ACT_SEARCH_PREV: do_search(u, -1); break;
	case ACT_FILTER: open_prompt(u, PROMPT_FILTER, t->filter); break;
	case ACT_ONLY_FUSIONS:
	case ACT_ONLY_MISMATCHES: {
		unsigned bit = a == ACT_ONLY_FUSIONS ? QUICK_FUSIONS : QUICK_MISMATCHES;

		if (!v->def->table.quick || !(v->def->quick_bits & bit)) {
			ui_set_message(u, ROLE_NORMAL, "%s has no %s filter: its rows are %s",
				       v->def->name, bit == QUICK_FUSIONS ? "fusion" : "mismatch",
				       v->def->what);
			break;
		}
		apply_filter(u, t->filter, t->quick ^ bit);
		break;
	}
	case ACT_CLEAR_FILTER: apply_filter(u, NULL, 0); break;
	case ACT_EXPORT: {
		char *path = default_export_path(u);

		u->export_trace = 0;
		open_prompt(u, PROMPT_EXPORT, path);
		free(path);
		break;
	}
	case ACT_PERFETTO: {
		char *path;

		ui_trace_scope(u, v);
		path = ui_trace_default_path(u);
		u->export_trace = 1;
		open_prompt(u, PROMPT_EXPORT, path);
		free(path);
		break;
	}
	case ACT_HELP:
		u->help = 1;
		u->help_top = 0;
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
	u->message[0] = '\0';
	if (u->help) {
		help_key(u, ev->key);
		return 0;
	}
	if (u->warnings) {
		warnings_key(u, ev->key);
		return 0;
	}
	if (u->tl.open) {
		ui_timeline_key(u, ev->key);
		return 0;
	}
	if (u->picker) {
		picker_key(u, ev->key);
		return 0;
	}
	if (u->prompt) {
		prompt_key(u, ev->key);
		return 0;
	}
	a = ui_action_for_key(ev->key);
	if (u->focus_evidence && evidence_key(u, a))
		return 0;
	return act(u, a);
}

int ui_key(struct ui *u, int key)
{
	struct ui_event ev = { key, UI_MOUSE_NONE, 0, 0 };

	return ui_handle(u, &ev);
}
