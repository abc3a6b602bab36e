/* explorer_switch.c — the comparison the explorer shows and how it names kernels: the next
 * phase (p), another rank (Enter in the Ranks view) or device (d), each a session the explorer
 * then owns, and the name forms (m); every view is rebuilt or marked stale. */
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"

void ui_name_maps_build(struct ui *u)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = u->c->side[s];
		uint32_t n;

		if (!sd->t || !sd->classes.infos || !sd->classes.info_of)
			continue;
		n = intern_count(sd->t->strings);
		u->names.info[s] = xmalloc((n ? n : 1) * sizeof *u->names.info[s]);
		memset(u->names.info[s], 0xff, (n ? n : 1) * sizeof *u->names.info[s]);
		u->names.n_info[s] = n;
		for (size_t k = 0; k < sd->t->n_kernels; k++) {
			uint32_t id = sd->t->kernels[k].name;

			if (id < n && u->names.info[s][id] == UINT32_MAX)
				u->names.info[s][id] = sd->classes.info_of[k];
		}
	}
}

/* Show comparison c (another phase, or another rank's) in every view. */
static void set_comparison(struct ui *u, const struct comparison *c)
{
	int sides = c->side[0] != u->c->side[0] || c->side[1] != u->c->side[1];

	ui_timeline_close(u);
	u->c = c;
	if (sides) { /* another rank: other traces, other names */
		free(u->names.info[0]);
		free(u->names.info[1]);
		u->names.info[0] = u->names.info[1] = NULL;
		u->names.n_info[0] = u->names.n_info[1] = 0;
		ui_name_maps_build(u);
		u->hist.depth = 0;
		for (int v = 0; v < VIEW_COUNT; v++)
			u->views[v].scope = SCOPE_NONE;
	}
	/* a scope's group is a row of comparison.summed: another comparison's now */
	for (int v = 0; v < VIEW_COUNT; v++)
		u->views[v].scope.group = -1;
	for (int d = 0; d < u->hist.depth; d++)
		u->hist.nav[d].target_scope.group = -1;
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
	u->ev.focus = 0;
	u->ev.valid = 0;
}

void ui_set_inputs(struct ui *u, const struct file_set *reads)
{
	u->export.reads = reads;
}

void ui_set_rank_opener(struct ui *u, ui_rank_opener fn, void *user)
{
	u->src.open_rank = fn;
	u->src.open_rank_user = user;
}

/* Show session s (opened for what: "rank 1", "device 0", "all devices"), which the explorer
 * then owns, in the phase shown (else its first); the session shown before is closed when the
 * explorer owned it. On failure s is closed and the message says why. */
static void adopt_session(struct ui *u, struct session *s, const char *what, const char *shown)
{
	struct fd_error err = { { 0 } };
	struct session *old = u->src.owns ? u->src.session : NULL;
	char delta[40];
	const struct comparison *c = session_compare(s, u->c->phase, &err);

	if (!c)
		c = session_compare(s, -1, &err); /* it lacks this phase: its first */
	if (!c) {
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
		session_close(s);
		return;
	}
	set_comparison(u, c);
	u->src.session = s;
	u->src.owns = 1;
	session_close(old);
	ui_set_message(u, ROLE_NORMAL, "%s%s: B-A %s us/pass; every view shows it now", what, shown,
		       text_fixed(delta, sizeof delta, c->delta_ns / 1000.0, 1, 1));
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
	if (!u->src.open_rank) {
		ui_set_message(u, ROLE_NORMAL, "this explorer cannot open another rank");
		return 1;
	}
	if (!(s = u->src.open_rank(u->src.open_rank_user, index, &err)))
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
	else
		adopt_session(u, s, what, "");
	return 1;
}

void ui_set_device_opener(struct ui *u, ui_device_opener fn, void *user)
{
	u->src.open_device = fn;
	u->src.open_device_user = user;
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
void ui_next_device(struct ui *u)
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
	if (!u->src.open_device) {
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
	if (!(s = u->src.open_device(u->src.open_device_user, next, &err)))
		ui_set_message(u, ROLE_ERROR, "%s: %s", what, err.msg);
	else
		adopt_session(u, s, what, " on both sides");
}

void ui_next_phase(struct ui *u)
{
	int phases[PHASE_COUNT + 1], n = 0, i, next;
	struct fd_error err;
	const struct comparison *c;

	if (!u->src.session) {
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
	c = session_compare(u->src.session, next, &err);
	if (!c) {
		ui_set_message(u, ROLE_ERROR, "%s", err.msg);
		return;
	}
	set_comparison(u, c);
	ui_set_message(u, ROLE_NORMAL, "phase: %s (%u passes in A, %u in B)",
		       phase_name((enum phase)u->c->phase), u->c->passes[0], u->c->passes[1]);
}

void ui_set_names(struct ui *u, int names)
{
	static const char *const what[NAMES_COUNT] = { "short", "demangled",
						       "as in the trace (mangled)" };

	u->names.form = names % NAMES_COUNT;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (v == u->view)
			ui_view_rebuild(&u->views[v]);
		else if (!u->views[v].stale)
			u->views[v].stale = STALE_KEEP; /* rebuilt when shown */
	ui_set_message(u, ROLE_NORMAL, "kernel names: %s", what[u->names.form]);
}
