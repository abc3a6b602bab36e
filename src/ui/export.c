/* export.c — what leaves the explorer: the table shown as the CSV report writes it (e), the
 * comparison or the selected layer or fusion as a trace for Perfetto (P,
 * report_write_perfetto(); gzip-compressed when the name ends in .gz, as the default does),
 * both through a temporary file, to a path the export prompt checked; and the selected row's
 * kernel names to the clipboard (y). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explorer_int.h"
#include "fusediff/fileset.h"
#include "fusediff/outfile.h"
#include "fusediff/report.h"
#include "fusediff/text.h"

uint32_t ui_row_is_item(const struct ui_view *v, uint32_t row)
{
	(void)v;
	return row;
}

/* "fusediff-Pairs-layer3-prefill.csv", in the current directory (a trace's directory may
 * be read-only: a shared collection). */
char *ui_export_default_path(struct ui *u)
{
	const struct ui_view *v = ui_shown_view(u);
	char scope[128] = "";

	if (v->def->export_name)
		v->def->export_name(v, scope, sizeof scope);
	return xasprintf("fusediff-%s%s-%s.csv", v->def->name, scope,
			 phase_name((enum phase)u->c->phase));
}

/* The rows the table shows (its filter, its order) as the CSV report writes them: full
 * names, full precision. *n receives how many. */
static int write_rows(struct ui *u, FILE *f, size_t *n)
{
	const struct ui_view *v = ui_shown_view(u);
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

/* After an export was written to of (rc < 0: it failed, errno says why): the file committed
 * (0), or of abandoned and the reason shown (-1). */
static int export_finish(struct ui *u, struct outfile *of, const char *path, int rc)
{
	struct fd_error err;

	if (rc < 0) {
		fd_error_set(&err, "%s: %s", path, strerror(errno ? errno : EIO));
		outfile_abort(of);
	} else if (outfile_commit(of, path, &err) == 0) {
		return 0;
	}
	ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
	return -1;
}

/* Write the table through a temporary file and rename() (outfile.h): an error leaves the
 * old file as it was and no temporary file behind. */
void ui_export_csv(struct ui *u, const char *path)
{
	struct fd_error err;
	struct outfile of;
	size_t rows = 0;

	if (outfile_open(&of, path, &err) < 0) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	errno = 0;
	if (export_finish(u, &of, path, write_rows(u, of.f, &rows)) < 0)
		return;
	ui_set_message(u, ROLE_NORMAL, "wrote %zu row%s to %s", rows, rows == 1 ? "" : "s", path);
}

void ui_export_to(struct ui *u, const char *input)
{
	if (!input[0]) {
		ui_set_message(u, ROLE_NORMAL, "not exported");
		return;
	}
	free(u->export.path);
	if (input[0] == '~' && (input[1] == '/' || !input[1]) && getenv("HOME"))
		u->export.path = xasprintf("%s%s", getenv("HOME"), input + 1);
	else
		u->export.path = xstrdup(input);
	if (outfile_same_file(u->export.path, u->c->side[0]->t->path) ||
	    outfile_same_file(u->export.path, u->c->side[1]->t->path)) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s is a compared trace",
			       u->export.path);
		return;
	}
	if (file_set_find(u->export.reads, u->export.path)) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s is %s, which this run reads",
			       u->export.path, file_set_find(u->export.reads, u->export.path));
		return;
	}
	if (!outfile_replaceable(u->export.path)) { /* a directory, a device, a FIFO */
		ui_set_message(u, ROLE_ERROR, "not exported: %s is not a regular file",
			       u->export.path);
		return;
	}
	if (access(u->export.path, F_OK) == 0) {
		ui_prompt_open(u, PROMPT_OVERWRITE, "");
		return;
	}
	ui_export_write(u);
}

void ui_export_write(struct ui *u)
{
	if (u->export.trace)
		ui_trace_write(u, u->export.path);
	else
		ui_export_csv(u, u->export.path);
}

/* y: the selected row's kernels, A's, B's or both, as the choice asks (PROMPT_COPY). */
static int has_kernels(struct ui *u, int side)
{
	struct ui_view *v = ui_shown_view(u);
	const uint32_t *names;
	uint32_t n;

	return v->t.sel != TABLE_NONE && v->def->kernel_of &&
	       v->def->kernel_of(v, v->t.sel, side, &names, &n);
}

void ui_copy_start(struct ui *u)
{
	if (!has_kernels(u, SIDE_A) && !has_kernels(u, SIDE_B))
		ui_set_message(u, ROLE_NORMAL, "y: select a kernel pair, a fusion or a summed row");
	else
		ui_prompt_open(u, PROMPT_COPY, "");
}

/* Copy the full names of side's kernels (both sides: -1), one a line, "A: " and "B: " first
 * when both. */
void ui_copy_names(struct ui *u, int which)
{
	struct ui_view *v = ui_shown_view(u);
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

/* --- the trace for Perfetto (P) ---------------------------------------------------------- */

void ui_trace_scope(struct ui *u, const struct ui_view *v)
{
	const struct table *t = &v->t;

	u->export.layer = u->export.fusion = -1;
	if (v->def->perfetto && t->sel != TABLE_NONE &&
	    v->def->perfetto(v, t->sel, &u->export.layer, &u->export.fusion))
		return;
	if (v->scope.layer != SCOPE_ALL)
		u->export.layer = v->scope.layer;
}

/* What the trace holds, for its name and the message: "layer3", "fusion2", "all". */
static void scope_name(const struct ui *u, char *buf, size_t cap, int words)
{
	const struct comparison *c = u->c;

	if (u->export.layer >= 0 && (size_t)u->export.layer < c->n_layers) {
		char label[96];

		comparison_layer_label(c, u->export.layer, label, sizeof label);
		snprintf(buf, cap, "%s%s%s", c->layers[u->export.layer].index >= 0 ? "layer" : "",
			 words && c->layers[u->export.layer].index >= 0 ? " " : "", label);
	} else if (u->export.fusion >= 0 && (size_t)u->export.fusion < c->n_fusions) {
		snprintf(buf, cap, words ? "fusion %u" : "fusion%u",
			 c->fusions[u->export.fusion].id);
	} else {
		snprintf(buf, cap, words ? "the comparison" : "all");
	}
}

char *ui_trace_default_path(const struct ui *u)
{
	char scope[128];

	scope_name(u, scope, sizeof scope, 0);
	return xasprintf("fusediff-%s-%s.json.gz", scope, phase_name((enum phase)u->c->phase));
}

void ui_trace_write(struct ui *u, const char *path)
{
	/* one layer: each pass's copy of it starts at the same time on both sides */
	struct perfetto_opts po = { .align_layers = u->export.layer >= 0,
				    .layer = u->export.layer,
				    .fusion = u->export.fusion };
	struct fd_error err;
	struct outfile of;
	char scope[128];

	if (outfile_open(&of, path, &err) < 0) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	if (outfile_wants_gzip(path))
		outfile_gzip(&of);
	errno = 0;
	if (export_finish(u, &of, path, report_write_perfetto(of.f, u->c, &po)) < 0)
		return;
	scope_name(u, scope, sizeof scope, 1);
	ui_set_message(u, ROLE_NORMAL,
		       "wrote %s as a trace to %s: open it at https://ui.perfetto.dev", scope,
		       path);
}
