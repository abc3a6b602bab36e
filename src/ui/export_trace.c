/* export_trace.c — the explorer's P: the comparison, or the selected layer or fusion, as a
 * trace for Perfetto (report_write_perfetto()), written through a temporary file like every
 * export (gzip-compressed when the name ends in .gz, as the default does). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/outfile.h"
#include "fusediff/report.h"

void ui_trace_scope(struct ui *u, const struct ui_view *v)
{
	const struct table *t = &v->t;

	u->export_layer = u->export_fusion = -1;
	if (v->def->perfetto && t->sel != TABLE_NONE &&
	    v->def->perfetto(v, t->sel, &u->export_layer, &u->export_fusion))
		return;
	if (v->scope.layer != SCOPE_ALL)
		u->export_layer = v->scope.layer;
}

/* What the trace holds, for its name and the message: "layer3", "fusion2", "all". */
static void scope_name(const struct ui *u, char *buf, size_t cap, int words)
{
	const struct comparison *c = u->c;

	if (u->export_layer >= 0 && (size_t)u->export_layer < c->n_layers) {
		char label[96];

		comparison_layer_label(c, u->export_layer, label, sizeof label);
		snprintf(buf, cap, "%s%s%s", c->layers[u->export_layer].index >= 0 ? "layer" : "",
			 words && c->layers[u->export_layer].index >= 0 ? " " : "", label);
	} else if (u->export_fusion >= 0 && (size_t)u->export_fusion < c->n_fusions) {
		snprintf(buf, cap, words ? "fusion %u" : "fusion%u",
			 c->fusions[u->export_fusion].id);
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
	struct perfetto_opts po = { .align_layers = u->export_layer >= 0,
				    .layer = u->export_layer,
				    .fusion = u->export_fusion };
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
	if (report_write_perfetto(of.f, u->c, &po) < 0) {
		fd_error_set(&err, "%s: %s", path, strerror(errno ? errno : EIO));
		outfile_abort(&of);
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	if (outfile_commit(&of, path, &err) < 0) {
		ui_set_message(u, ROLE_ERROR, "not exported: %s", err.msg);
		return;
	}
	scope_name(u, scope, sizeof scope, 1);
	ui_set_message(u, ROLE_NORMAL,
		       "wrote %s as a trace to %s: open it at https://ui.perfetto.dev", scope,
		       path);
}
