/* summed.c — the Summed view: the kernel pairs summed over the layers (summed_pairs.h),
 * one row per kind, class and pair of kernel names, wherever it occurs; sorted by |delta|, the
 * first rows say which kernels explain the difference. The evidence lists every place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

enum {
	SU_LAYERS,
	SU_PLACES,
	SU_KIND,
	SU_CLASS,
	SU_A_NAME,
	SU_A_N,
	SU_A_US,
	SU_B_US,
	SU_B_N,
	SU_B_NAME,
	SU_DELTA,
	SU_RATIO,
	SU_A_EFF,
	SU_B_EFF,
	SU_A_TRACE,
	SU_B_TRACE,
	SU_COLS
};

static const struct table_column su_cols[SU_COLS] = {
	/* narrow screens drop columns by priority, never Layers, Kind, Class, the names or Delta */
	[SU_LAYERS] = { "Layers", 10, 0, 0, TABLE_LEFT,
			TABLE_COL_ASC }, /* by first layer, then count */
	[SU_PLACES] = { "Places", 6, 0, 4, TABLE_RIGHT, 0 },
	[SU_KIND] = { "Kind", 7, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_UNIFORM_FIRST },
	[SU_CLASS] = { "Class", 11, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[SU_A_NAME] = { "A kernel", 24, 1, 0, TABLE_LEFT,
			TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[SU_A_N] = { "A n", 4, 0, 6, TABLE_RIGHT, 0 },
	[SU_A_US] = { "A us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[SU_B_US] = { "B us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[SU_B_N] = { "B n", 4, 0, 6, TABLE_RIGHT, 0 },
	[SU_B_NAME] = { "B kernel", 24, 1, 0, TABLE_LEFT,
			TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[SU_DELTA] = { "Delta", 8, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[SU_RATIO] = { "B/A", 5, 0, 2, TABLE_RIGHT, TABLE_COL_DECIMAL },
	/* achieved TFLOPS and share of the GPU's peak over the places (efficiency.h) */
	[SU_A_EFF] = { "A TF %pk", 8, 0, 7, TABLE_RIGHT, 0 },
	[SU_B_EFF] = { "B TF %pk", 8, 0, 7, TABLE_RIGHT, 0 },
	/* / and f also find a kernel by its name in the trace (pairs.c) */
	[SU_A_TRACE] = { "A trace name", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
	[SU_B_TRACE] = { "B trace name", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
};

/* The view's row r is group r of ui_groups() (built once per phase; a rebuild for another
 * name form reuses it). */
struct su_state {
	char **strs; /* per row: the group's layers as text */
};

const struct summed_pair *ui_groups(struct ui *u, size_t *n)
{
	*n = u->c->n_summed;
	return u->c->summed;
}

static struct su_state *st(const struct ui_view *v)
{
	return v->state;
}

static const struct summed_pair *group(struct ui_view *v, uint32_t row)
{
	size_t n;

	return &ui_groups(v->u, &n)[row];
}

static void su_build(struct ui_view *v)
{
	size_t n;
	const struct summed_pair *g = ui_groups(v->u, &n);

	v->n_rows = (uint32_t)n;
	st(v)->strs = xcalloc((size_t)v->n_rows + 1, sizeof *st(v)->strs);
	for (uint32_t r = 0; r < v->n_rows; r++) {
		char layers[256];

		comparison_layer_ranges(v->u->c, g[r].layers, g[r].n_layers, layers, sizeof layers);
		st(v)->strs[r] = xstrdup(layers);
	}
}

static void su_release(struct ui_view *v)
{
	for (uint32_t r = 0; st(v)->strs && r < v->n_rows; r++)
		free(st(v)->strs[r]);
	free(st(v)->strs);
	st(v)->strs = NULL;
	v->n_rows = 0;
}

/* The first kernel name of one side of the group, or NULL for a gap. */
static const char *group_name(struct ui_view *v, uint32_t row, int side)
{
	const struct comparison_part *part = &v->u->c->pairs[group(v, row)->first].side[side];

	return part->n_names ? ui_name(v->u, side, part->names[0]) : NULL;
}

static void name_cell(struct ui_view *v, uint32_t row, int side, struct table_cell *out)
{
	const struct summed_pair *g = group(v, row);
	const struct comparison_pair *p = &v->u->c->pairs[g->first];
	const char *name = group_name(v, row, side);

	if (!name) {
		out->text = v->u->s->g->gap;
		out->role = ROLE_DIM;
		return;
	}
	/* a run lists its kernels ("3 kernels: a + b + c", cut at its end); "+": copies numbered
	 * per layer by Inductor */
	if (p->side[side].n_names > 1) {
		const struct comparison_part *part = &p->side[side];

		ui_names_join(v->u, side, part->names, part->n_names, out->buf, out->cap);
		out->text = out->buf;
		out->list = 1;
	} else if (g->similar[side]) {
		snprintf(out->buf, out->cap, "%s +", name);
		out->text = out->buf;
	} else {
		out->text = name;
	}
	out->role = ui_pair_kind_role(p) == ROLE_DIM ? 0 : ui_pair_kind_role(p);
}

static void su_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	const struct summed_pair *g = group(v, row);
	const struct comparison_pair *p = &c->pairs[g->first];

	switch (col) {
	case SU_LAYERS: out->text = st(v)->strs[row]; break;
	case SU_PLACES: snprintf(out->buf, out->cap, "%u", g->places); break;
	case SU_KIND:
		out->text = ui_pair_kind_text(c, p);
		out->role = ui_pair_kind_role(p);
		break;
	case SU_CLASS: out->text = class_name((enum op_class)p->cls); break;
	case SU_A_NAME:
	case SU_B_NAME: name_cell(v, row, col == SU_B_NAME, out); break;
	case SU_A_N:
	case SU_B_N: fmt_count(out->buf, out->cap, g->count[col == SU_B_N]); break;
	case SU_A_US:
	case SU_B_US: fmt_us(out->buf, out->cap, g->ns[col == SU_B_US]); break;
	case SU_DELTA:
		fmt_delta(out->buf, out->cap, g->delta_ns);
		out->role = delta_role_ci(g->delta_ns, &g->ci);
		break;
	case SU_RATIO: fmt_ratio(out->buf, out->cap, g->ratio); break;
	case SU_A_EFF:
	case SU_B_EFF: fmt_eff(out->buf, out->cap, &g->eff[col == SU_B_EFF]); break;
	}
}

static void su_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	const struct summed_pair *g = group(v, row);
	const struct comparison_pair *p = &c->pairs[g->first];

	switch (col) {
	case SU_LAYERS: out->num = (double)g->layers[0] * 1e6 + g->n_layers; break;
	case SU_PLACES: out->num = g->places; break;
	case SU_KIND: out->str = ui_pair_kind_text(c, p); break;
	case SU_CLASS: out->str = class_name((enum op_class)p->cls); break;
	case SU_A_NAME:
	case SU_B_NAME: out->str = group_name(v, row, col == SU_B_NAME); break;
	case SU_A_TRACE:
	case SU_B_TRACE: {
		const struct comparison_part *part = &p->side[col == SU_B_TRACE];

		out->str = part->n_names
				   ? comparison_short_name(c, col == SU_B_TRACE, part->names[0])
				   : NULL;
		break;
	}
	case SU_A_N: out->num = g->count[0]; break;
	case SU_B_N: out->num = g->count[1]; break;
	case SU_A_US: out->num = g->ns[0]; break;
	case SU_B_US: out->num = g->ns[1]; break;
	case SU_DELTA: out->num = g->delta_ns; break;
	case SU_RATIO: out->num = ratio_key(g->ns[0], g->ns[1]); break;
	case SU_A_EFF:
	case SU_B_EFF: out->num = eff_key(&g->eff[col == SU_B_EFF]); break;
	}
}

static int su_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;

	return ui_pair_quick(&v->u->c->pairs[group(v, row)->first], mask);
}

/* The group: its figures, both sides' names in full, then every place with its figures. */
static void su_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	const struct summed_pair *g = group(v, row);
	const struct comparison_pair *p = &c->pairs[g->first];
	char a[32], b[32], d[32], r[32], atoms[256];

	fmt_us(a, sizeof a, g->ns[0]);
	fmt_us(b, sizeof b, g->ns[1]);
	fmt_delta(d, sizeof d, g->delta_ns);
	fmt_ratio(r, sizeof r, g->ratio);
	atoms_format(p->atoms, "+", atoms, sizeof atoms);
	ui_text_add(out, ROLE_HEADER, 1,
		    "%s %s (%s) in %u place%s, layers %s: A %s us/pass, B %s us/pass, delta %s us, "
		    "B/A %s",
		    ui_pair_kind_text(c, p), class_name((enum op_class)p->cls), atoms, g->places,
		    g->places == 1 ? "" : "s", st(v)->strs[row], a, b, d, r);
	for (int s = 0; s < 2; s++) {
		const struct comparison_part *part = &p->side[s];
		char head[16];

		if (part->n_names == 0) {
			ui_text_add(out, ROLE_UNMATCHED, 1,
				    "%c: no kernel (a gap in the alignment)", s ? 'B' : 'A');
			continue;
		}
		for (uint32_t i = 0; i < part->n_names; i++) {
			snprintf(head, sizeof head, "%c%s ", i ? ' ' : (s ? 'B' : 'A'),
				 i ? " " : ":");
			ui_text_wrap(u->s, out, ROLE_NORMAL, head,
				     ui_name_full(u, s, part->names[i]), width, 3);
		}
		if (g->similar[s])
			ui_text_add(out, ROLE_DIM, 1,
				    "   (or the copies Inductor numbers per layer: names differ by "
				    "their last number)");
		ui_evidence_eff(out, &g->eff[s], c->peak[s], p->cls);
	}
	ui_text_add(out, ROLE_DIM, 1, "Places (layer, position: A us, B us, delta us per pass):");
	for (uint32_t i = 0; i < g->n_pairs; i++) {
		const struct comparison_pair *q = &c->pairs[g->pairs[i]];
		char layer[96];

		comparison_layer_label(c, q->layer, layer, sizeof layer);
		fmt_us(a, sizeof a, q->side[0].total_ns);
		fmt_us(b, sizeof b, q->side[1].total_ns);
		fmt_delta(d, sizeof d, q->delta_ns);
		ui_text_add(out, delta_role(q->delta_ns), 1, "  %-8s #%-3u %10s %10s %10s", layer,
			    q->position, a, b, d);
	}
}

/* Enter: the row's places in the Pairs view, each with its own evidence. */
static struct ui_scope su_drill(const struct ui_view *v, uint32_t row)
{
	(void)v;
	return (struct ui_scope){ SCOPE_ALL, -1, (int32_t)row };
}

/* The group's first pair. */
static int su_timeline(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair)
{
	size_t n;
	const struct summed_pair *g = ui_groups(v->u, &n);

	if (row >= n)
		return 0;
	*pair = g[row].first;
	*layer = v->u->c->pairs[*pair].layer;
	return 1;
}

/* The kernels of the group's first pair on side. */
static int su_kernel(const struct ui_view *v, uint32_t row, int side, const uint32_t **names,
		     uint32_t *n)
{
	size_t ng;
	const struct summed_pair *g = ui_groups(v->u, &ng);
	const struct comparison_part *part;

	if (row >= ng)
		return 0;
	part = &v->u->c->pairs[g[row].first].side[side];
	*names = part->names;
	*n = part->n_names;
	return *n > 0;
}

const struct ui_view_def ui_view_summed = {
	.name = "Summed",
	.what = "kernel pairs summed over the layers",
	.table = { .cols = su_cols,
		   .n_cols = SU_COLS,
		   .cell = su_cell,
		   .key = su_key,
		   .quick = su_quick,
		   .default_sort = SU_DELTA },
	.quick_bits = QUICK_FUSIONS | QUICK_MISMATCHES,
	.state_size = sizeof(struct su_state),
	.csv_table = CSV_PAIR_GROUPS,
	.csv_item = ui_row_is_item,
	.build = su_build,
	.release = su_release,
	.evidence = su_evidence,
	.drill_view = VIEW_PAIRS,
	.drill_scope = su_drill,
	.enter_hint = "pairs",
	.timeline = su_timeline,
	.kernel_of = su_kernel,
};
