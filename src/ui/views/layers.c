/* layers.c — the Layers view: one row per layer with both sides' time per pass; columns,
 * cells, sort keys, quick filters, evidence and drill-down. Everything else is the generic table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

static void pair_line(struct ui *u, struct ui_text *out, uint32_t pi)
{
	const struct comparison_pair *p = &u->c->pairs[pi];
	char layer[96], d[32];
	char *ea = ui_part_names(u, p, 0), *eb = ui_part_names(u, p, 1);

	comparison_layer_label(u->c, p->layer, layer, sizeof layer);
	fmt_delta(d, sizeof d, p->delta_ns);
	ui_text_add(out, delta_role(p->delta_ns), 1,
		    "  %8s us  layer %-8s #%-3u %-7s %-11s A %s  B %s", d, layer, p->position,
		    pair_kind_name((enum pair_kind)p->kind), class_name((enum op_class)p->cls), ea,
		    eb);
	free(ea);
	free(eb);
}

/* --- Layers --------------------------------------------------------------------------- */

enum {
	LY_LAYER,
	LY_A,
	LY_B,
	LY_DELTA,
	LY_RATIO,
	LY_KA,
	LY_KB,
	LY_FUSIONS,
	LY_IA,
	LY_IB,
	LY_BAR,
	LY_KERNELS,
	LY_COLS
};

static const struct table_column ly_cols[LY_COLS] = {
	[LY_LAYER] = { "Layer", 8, 0, 0, TABLE_LEFT, TABLE_COL_ASC | TABLE_COL_SEARCH },
	[LY_A] = { "A us/pass", 10, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[LY_B] = { "B us/pass", 10, 0, 0, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[LY_DELTA] = { "Delta us", 9, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[LY_RATIO] = { "B/A", 5, 0, 1, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[LY_KA] = { "A kernels", 9, 0, 2, TABLE_RIGHT, 0 },
	[LY_KB] = { "B kernels", 9, 0, 2, TABLE_RIGHT, 0 },
	[LY_FUSIONS] = { "Fusions", 7, 0, 1, TABLE_RIGHT, 0 },
	/* GPU idle time within the layer's wall time (first kernel start to last end) */
	[LY_IA] = { "A idle us", 9, 0, 4, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[LY_IB] = { "B idle us", 9, 0, 4, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[LY_BAR] = { "Delta", 10, 1, 3, TABLE_LEFT, TABLE_COL_BAR },
	/* / and f find the layers that hold a kernel of that name */
	[LY_KERNELS] = { "Kernels", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
};

/* Row r is one layer of the comparison (prologue, layers, epilogue). */
struct ly_state {
	uint32_t *ref;	/* row -> index into c->layers */
	uint8_t *flags; /* row -> QUICK_* bits the layer's pairs have */
	char **strs;	/* row -> the layer's label */
	char **kernels; /* row -> the short names of its kernels, both sides, one per line */
};

static struct ly_state *st(const struct ui_view *v)
{
	return v->state;
}

static void ly_build(struct ui_view *v)
{
	const struct comparison *c = v->u->c;

	v->n_rows = (uint32_t)c->n_layers;
	st(v)->ref = xcalloc(v->n_rows + 1, sizeof *st(v)->ref);
	st(v)->flags = xcalloc(v->n_rows + 1, 1);
	st(v)->strs = xcalloc(v->n_rows + 1, sizeof *st(v)->strs);
	st(v)->kernels = xcalloc(v->n_rows + 1, sizeof *st(v)->kernels);
	for (uint32_t r = 0; r < v->n_rows; r++) {
		const struct comparison_layer *l = &c->layers[r];
		char name[96];

		st(v)->ref[r] = r;
		comparison_layer_label(c, (int32_t)r, name, sizeof name);
		st(v)->strs[r] = xstrdup(name);
		if (l->n_fusions)
			st(v)->flags[r] |= QUICK_FUSIONS;
		st(v)->kernels[r] = ui_pair_names(v->u, l->pair_first, l->pair_n, NULL, 0);
		for (uint32_t i = l->pair_first; i < l->pair_first + l->pair_n; i++) {
			if (c->pairs[i].kind != PAIR_MATCH)
				st(v)->flags[r] |= QUICK_MISMATCHES;
			if (c->pairs[i].fusion >= 0)
				st(v)->flags[r] |= QUICK_FUSIONS;
		}
	}
}

static void ly_release(struct ui_view *v)
{
	for (uint32_t r = 0; r < v->n_rows && st(v)->strs; r++) {
		free(st(v)->strs[r]);
		free(st(v)->kernels[r]);
	}
	free(st(v)->strs);
	free(st(v)->kernels);
	st(v)->kernels = NULL;
	free(st(v)->ref);
	free(st(v)->flags);
	st(v)->strs = NULL;
	st(v)->ref = NULL;
	st(v)->flags = NULL;
}

static void ly_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	const struct comparison_layer *l = &c->layers[st(v)->ref[row]];

	switch (col) {
	case LY_LAYER:
		out->text = st(v)->strs[row];
		out->role = l->index < 0 ? ROLE_DIM : ROLE_NORMAL;
		break;
	case LY_A: fmt_us(out->buf, out->cap, l->ns[0]); break;
	case LY_B: fmt_us(out->buf, out->cap, l->ns[1]); break;
	case LY_DELTA:
		fmt_delta(out->buf, out->cap, l->delta_ns);
		out->role = delta_role_ci(l->delta_ns, &l->ci);
		break;
	case LY_RATIO: fmt_ratio(out->buf, out->cap, l->ratio); break;
	case LY_KA: fmt_count(out->buf, out->cap, l->kernels[0]); break;
	case LY_KB: fmt_count(out->buf, out->cap, l->kernels[1]); break;
	case LY_IA: fmt_us(out->buf, out->cap, l->passes[0] ? l->idle_ns[0] : NAN); break;
	case LY_IB: fmt_us(out->buf, out->cap, l->passes[1] ? l->idle_ns[1] : NAN); break;
	case LY_FUSIONS:
		if (l->n_fusions) {
			snprintf(out->buf, out->cap, "%u", l->n_fusions);
			out->role = ROLE_FUSED;
		}
		break;
	case LY_BAR: {
		double m = 0;

		for (size_t i = 0; i < c->n_layers; i++)
			if (fabs(c->layers[i].delta_ns) > m)
				m = fabs(c->layers[i].delta_ns);
		out->bar = m > 0 && !isnan(l->delta_ns) ? fabs(l->delta_ns) / m : 0;
		out->role = l->delta_ns > 0 ? ROLE_WORSE : ROLE_BETTER;
		break;
	}
	}
}

static void ly_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison_layer *l = &v->u->c->layers[st(v)->ref[row]];

	switch (col) {
	case LY_LAYER:
		out->num = st(v)->ref[row];
		out->str = st(v)->strs[row];
		break;
	case LY_KERNELS: out->str = st(v)->kernels[row]; break;
	case LY_A: out->num = l->ns[0]; break;
	case LY_B: out->num = l->ns[1]; break;
	case LY_DELTA: out->num = l->delta_ns; break;
	case LY_BAR: out->num = fabs(l->delta_ns); break;
	case LY_RATIO: out->num = ratio_key(l->ns[0], l->ns[1]); break;
	case LY_KA: out->num = l->kernels[0]; break;
	case LY_KB: out->num = l->kernels[1]; break;
	case LY_IA: out->num = l->passes[0] ? l->idle_ns[0] : NAN; break;
	case LY_IB: out->num = l->passes[1] ? l->idle_ns[1] : NAN; break;
	case LY_FUSIONS: out->num = l->n_fusions; break;
	}
}

static void ly_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	const struct comparison_layer *l = &c->layers[st(v)->ref[row]];
	uint32_t top[12], n, shown = 0;
	char name[96], a[32], b[32], d[32], r[32], ka[32], kb[32];

	comparison_layer_label(c, (int32_t)st(v)->ref[row], name, sizeof name);
	fmt_us(a, sizeof a, l->ns[0]);
	fmt_us(b, sizeof b, l->ns[1]);
	fmt_delta(d, sizeof d, l->delta_ns);
	fmt_ratio(r, sizeof r, l->ratio);
	fmt_count(ka, sizeof ka, l->kernels[0]);
	fmt_count(kb, sizeof kb, l->kernels[1]);
	ui_text_add(out, ROLE_HEADER, 1,
		    "Layer %s (%s): A %s us/pass in %s kernels, B %s us/pass in %s kernels, delta "
		    "%s us, B/A %s",
		    name, phase_name((enum phase)c->phase), a, ka, b, kb, d, r);
	for (size_t f = 0; f < c->n_fusions; f++) {
		const struct comparison_fusion *fu = &c->fusions[f];
		int in = 0;

		for (uint32_t i = 0; i < fu->n_layers; i++)
			in |= fu->layers[i] == (int32_t)st(v)->ref[row];
		if (!in)
			continue;
		if (!shown++)
			ui_text_add(out, ROLE_DIM, 1, "Fusion differences in this layer:");
		{
			char prefix[64];

			snprintf(prefix, sizeof prefix, "  #%zu ", f + 1);
			ui_text_wrap(u->s, out, ROLE_NORMAL, prefix,
				     fu->evidence ? fu->evidence : "", width, 6);
		}
	}
	n = (uint32_t)comparison_top_pairs(c, l->pair_first, l->pair_n, top, 8);
	if (n)
		ui_text_add(out, ROLE_DIM, 1,
			    "Largest differences (Enter: the kernel pairs of this layer):");
	for (uint32_t i = 0; i < n; i++)
		pair_line(u, out, top[i]);
}

static int ly_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;

	return (st(v)->flags[row] & mask) == mask;
}

/* Enter: the layer's kernel pairs. */
static struct ui_scope ly_drill(const struct ui_view *v, uint32_t row)
{
	return (struct ui_scope){ (int32_t)st(v)->ref[row], -1, -1 };
}

static uint32_t ly_item(const struct ui_view *v, uint32_t row)
{
	return ((const struct ly_state *)v->state)->ref[row];
}

static int ly_timeline(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair)
{
	*layer = (int32_t)st(v)->ref[row];
	*pair = UINT32_MAX;
	return 1;
}

/* P: the layer's kernels. */
static int ly_perfetto(const struct ui_view *v, uint32_t row, int32_t *layer, int32_t *fusion)
{
	*layer = (int32_t)st(v)->ref[row];
	*fusion = -1;
	return 1;
}

const struct ui_view_def ui_view_layers = {
	.name = "Layers",
	.what = "layers",
	.table = { .cols = ly_cols,
		   .n_cols = LY_COLS,
		   .cell = ly_cell,
		   .key = ly_key,
		   .quick = ly_quick,
		   .default_sort = LY_DELTA },
	.quick_bits = QUICK_FUSIONS | QUICK_MISMATCHES,
	.state_size = sizeof(struct ly_state),
	.csv_table = CSV_LAYERS,
	.csv_item = ly_item,
	.build = ly_build,
	.release = ly_release,
	.evidence = ly_evidence,
	.drill_view = VIEW_PAIRS,
	.drill_scope = ly_drill,
	.enter_hint = "pairs",
	.timeline = ly_timeline,
	.perfetto = ly_perfetto,
};
