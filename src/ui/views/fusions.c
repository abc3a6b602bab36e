/* fusions.c — the Fusions view: one row per fusion pattern, grouped across layers, then one
 * per chain that neither side fuses (comparison.opportunities: advice, below the findings). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

enum {
	FU_NUM,
	FU_KIND,
	FU_FUSED,
	FU_UNFUSED,
	FU_ATOMS,
	FU_OCC,
	FU_LAYERS,
	FU_A,
	FU_B,
	FU_DELTA,
	FU_TRACE,
	FU_COLS
};

static const struct table_column fu_cols[FU_COLS] = {
	[FU_NUM] = { "#", 3, 0, 4, TABLE_RIGHT, TABLE_COL_ASC },
	[FU_KIND] = { "Kind", 7, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_UNIFORM_FIRST },
	[FU_FUSED] = { "Fused kernel", 16, 2, 0, TABLE_LEFT,
		       TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[FU_UNFUSED] = { "Unfused kernels (other side)", 16, 3, 0, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	/* narrow screens drop columns by priority, never Kind, the kernels, Atoms, Layers, Delta */
	[FU_ATOMS] = { "Atoms", 16, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[FU_OCC] = { "Places", 6, 0, 3, TABLE_RIGHT, 0 }, /* the word of the other views */
	[FU_LAYERS] = { "Layers", 8, 0, 0, TABLE_LEFT, TABLE_COL_TEXT },
	[FU_A] = { "A us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[FU_B] = { "B us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[FU_DELTA] = { "Delta", 8, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	/* / and f also find the fused kernel by its name in the trace (pairs.c) */
	[FU_TRACE] = { "Fused trace name", 0, 0, 9, TABLE_LEFT,
		       TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
};

/* Row r is fusion r, or, from c->n_fusions on, opportunity r - c->n_fusions. */
struct fu_state {
	char **strs; /* [3*r]: the unfused names joined, [3*r+1]: the atoms (an opportunity's
			chain), [3*r+2]: the layers */
};

/* The opportunity of row r, or NULL when the row is a fusion. */
static const struct comparison_opportunity *opp(const struct ui_view *v, uint32_t r)
{
	const struct comparison *c = v->u->c;

	return r >= c->n_fusions && r - c->n_fusions < c->n_opportunities
		       ? &c->opportunities[r - c->n_fusions]
		       : NULL;
}

/* names[0..n) of side s joined (ui_names_join(), malloc'd). */
static char *join_names(struct ui *u, int s, const uint32_t *names, uint32_t n)
{
	size_t len = ui_names_join(u, s, names, n, NULL, 0);
	char *out = xmalloc(len + 1);

	ui_names_join(u, s, names, n, out, len + 1);
	return out;
}

static struct fu_state *st(const struct ui_view *v)
{
	return v->state;
}

static void fu_build(struct ui_view *v)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;

	v->n_rows = (uint32_t)(c->n_fusions + c->n_opportunities);
	st(v)->strs = xcalloc(3 * (size_t)v->n_rows + 1, sizeof *st(v)->strs);
	for (uint32_t r = 0; r < v->n_rows; r++) {
		const struct comparison_opportunity *op = opp(v, r);
		char atoms[256], layers[256];

		if (op) {
			st(v)->strs[3 * r] = join_names(u, op->side, op->o.names, op->o.n_names);
			chain_format(op->chain, atoms, sizeof atoms);
			comparison_layer_ranges(c, op->layers, op->n_layers, layers, sizeof layers);
		} else {
			const struct comparison_fusion *f = &c->fusions[r];

			st(v)->strs[3 * r] =
				join_names(u, f->fused_side == SIDE_A ? SIDE_B : SIDE_A,
					   f->unfused_names, f->n_unfused);
			atoms_format(f->atoms, "+", atoms, sizeof atoms);
			comparison_layer_ranges(c, f->layers, f->n_layers, layers, sizeof layers);
		}
		st(v)->strs[3 * r + 1] = xstrdup(atoms);
		st(v)->strs[3 * r + 2] = xstrdup(layers);
	}
}

static void fu_release(struct ui_view *v)
{
	for (uint32_t r = 0; st(v)->strs && r < 3 * v->n_rows; r++)
		free(st(v)->strs[r]);
	free(st(v)->strs);
	st(v)->strs = NULL;
	v->n_rows = 0;
}

static const char *fu_kind(const struct comparison_fusion *f)
{
	if (f->partial)
		return "partial";
	if (f->horizontal)
		return f->fused_side == SIDE_A ? "A merges" : "B merges";
	return f->fused_side == SIDE_A ? "A fuses" : "B fuses";
}

/* An opportunity's cells: Kind "A chain" (side A runs it unfused), no fused kernel, its
 * side's time, no delta (advice never enters B - A). */
static void opp_cell(struct ui_view *v, uint32_t row, const struct comparison_opportunity *op,
		     int col, struct table_cell *out)
{
	switch (col) {
	case FU_KIND:
		out->text = op->side == SIDE_A ? "A chain" : "B chain";
		out->role = ROLE_DIM;
		break;
	case FU_FUSED:
		out->text = "none";
		out->role = ROLE_DIM;
		break;
	case FU_UNFUSED:
		out->text = st(v)->strs[3 * row];
		out->list = op->o.n_names > 1;
		break;
	case FU_ATOMS: out->text = st(v)->strs[3 * row + 1]; break;
	case FU_OCC: snprintf(out->buf, out->cap, "%u", op->o.places); break;
	case FU_LAYERS: out->text = st(v)->strs[3 * row + 2]; break;
	case FU_A: fmt_us(out->buf, out->cap, op->side == SIDE_A ? op->o.ns : NAN); break;
	case FU_B: fmt_us(out->buf, out->cap, op->side == SIDE_B ? op->o.ns : NAN); break;
	}
}

static void fu_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	struct ui *u = v->u;
	const struct comparison_opportunity *op = opp(v, row);
	const struct comparison_fusion *f;

	if (op) {
		opp_cell(v, row, op, col, out);
		return;
	}
	f = &u->c->fusions[row];
	switch (col) {
	case FU_NUM: snprintf(out->buf, out->cap, "%u", f->id); break;
	case FU_KIND:
		out->text = fu_kind(f);
		out->role = ROLE_FUSED;
		break;
	case FU_FUSED: out->text = ui_name(u, f->fused_side, f->fused_name); break;
	case FU_UNFUSED:
		out->text = st(v)->strs[3 * row];
		out->list = f->n_unfused > 1;
		break;
	case FU_ATOMS: out->text = st(v)->strs[3 * row + 1]; break;
	case FU_OCC: snprintf(out->buf, out->cap, "%u", f->occurrences); break;
	case FU_LAYERS: out->text = st(v)->strs[3 * row + 2]; break;
	case FU_A: fmt_us(out->buf, out->cap, f->ns[0]); break;
	case FU_B: fmt_us(out->buf, out->cap, f->ns[1]); break;
	case FU_DELTA:
		fmt_delta(out->buf, out->cap, f->delta_ns);
		out->role = delta_role_ci(f->delta_ns, &f->ci);
		break;
	}
}

static void fu_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	struct ui *u = v->u;
	const struct comparison_opportunity *op = opp(v, row);
	const struct comparison_fusion *f;

	if (op) {
		switch (col) {
		case FU_NUM: out->num = (double)UINT32_MAX + row; break; /* after the fusions */
		case FU_KIND: out->str = op->side == SIDE_A ? "A chain" : "B chain"; break;
		case FU_FUSED:
		case FU_TRACE: out->str = ""; break;
		case FU_UNFUSED: out->str = st(v)->strs[3 * row]; break;
		case FU_ATOMS: out->str = st(v)->strs[3 * row + 1]; break;
		case FU_OCC: out->num = op->o.places; break;
		case FU_LAYERS: out->str = st(v)->strs[3 * row + 2]; break;
		case FU_A: out->num = op->side == SIDE_A ? op->o.ns : 0; break;
		case FU_B: out->num = op->side == SIDE_B ? op->o.ns : 0; break;
		case FU_DELTA: out->num = 0; break;
		}
		return;
	}
	f = &u->c->fusions[row];
	switch (col) {
	case FU_NUM: out->num = f->id; break;
	case FU_KIND: out->str = fu_kind(f); break;
	case FU_FUSED: out->str = ui_name(u, f->fused_side, f->fused_name); break;
	case FU_TRACE: out->str = comparison_short_name(u->c, f->fused_side, f->fused_name); break;
	case FU_UNFUSED: out->str = st(v)->strs[3 * row]; break;
	case FU_ATOMS: out->str = st(v)->strs[3 * row + 1]; break;
	case FU_OCC: out->num = f->occurrences; break;
	case FU_LAYERS: out->str = st(v)->strs[3 * row + 2]; break;
	case FU_A: out->num = f->ns[0]; break;
	case FU_B: out->num = f->ns[1]; break;
	case FU_DELTA: out->num = f->delta_ns; break;
	}
}

/* The evidence of an unfused chain: what it is, what fusing would save, who fuses it, the
 * kernels of its first place. */
static void opp_evidence(struct ui_view *v, uint32_t row, const struct comparison_opportunity *op,
			 struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct trace *t = u->c->side[op->side]->t;
	char us_[32], idle[32], bound[32], launches[32], line[512], where[256], *known;
	const char sc = op->side == SIDE_A ? 'A' : 'B';

	fmt_us(us_, sizeof us_, op->o.ns);
	fmt_us(idle, sizeof idle, op->o.idle_ns);
	fmt_us(bound, sizeof bound, op->o.bound_ns);
	text_fixed(launches, sizeof launches, op->o.launches, 0, 0);
	comparison_layer_text(u->c, op->layers, op->n_layers, where, sizeof where);
	ui_text_add(out, ROLE_HEADER, 1,
		    "Unfused chain (advice, not in B - A): %s on %c, %u kernels at %u place%s in "
		    "%s, %s us/pass",
		    st(v)->strs[3 * row + 1], sc, op->o.per_place, op->o.places,
		    op->o.places == 1 ? "" : "s", where, us_);
	snprintf(line, sizeof line,
		 "%c runs these as separate kernels and %c does not fuse them either. One kernel "
		 "per place would save, for certain, %s launches and %s us of idle GPU time per "
		 "pass, and at most the %s us of kernel time beyond each place's longest kernel.",
		 sc, op->side == SIDE_A ? 'B' : 'A', launches, idle, bound);
	ui_text_wrap(u->s, out, ROLE_NORMAL, "", line, width, 2);
	known = xstrdup(op->chain->known && *op->chain->known ? op->chain->known : "-");
	snprintf(line, sizeof line, "%s (catalogue: %s)", known, op->chain->origin);
	free(known);
	for (char *p = line; *p; p++) /* "a,b" -> "a, b": the pane wraps at blanks */
		if (*p == ',' && p[1] != ' ' && strlen(line) + 1 < sizeof line) {
			memmove(p + 2, p + 1, strlen(p + 1) + 1);
			p[1] = ' ';
		}
	ui_text_wrap(u->s, out, ROLE_DIM, "Fused elsewhere: ", line, width, 17);
	ui_text_add(out, ROLE_DIM, 1, "Kernels of the first place:");
	for (uint32_t i = 0; i < op->o.n_example; i++) {
		const struct trace_kernel *k = &t->kernels[op->o.example[i]];
		char d[32];

		fmt_us(d, sizeof d, (double)k->dur);
		snprintf(line, sizeof line, "%c %8s us  ", sc, d);
		ui_text_wrap(u->s, out, ROLE_NORMAL, line, ui_name_full(u, op->side, k->name),
			     width, (int)strlen(line));
	}
}

static void fu_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	const struct comparison_fusion *f;
	int fs, other;
	char a[32], b[32], d[32], head[128];
	size_t budget = 400;

	if (opp(v, row)) {
		opp_evidence(v, row, opp(v, row), out, width);
		return;
	}
	f = &c->fusions[row];
	fs = f->fused_side;
	other = fs == SIDE_A ? SIDE_B : SIDE_A;

	fmt_us(a, sizeof a, f->ns[0]);
	fmt_us(b, sizeof b, f->ns[1]);
	fmt_delta(d, sizeof d, f->delta_ns);
	ui_text_add(out, ROLE_FUSED, 1,
		    "Fusion #%u: %s %s, %u per pass in layers %s: A %s us/pass, B %s us/pass, "
		    "delta %s us",
		    f->id, fu_kind(f), st(v)->strs[3 * row + 1], f->occurrences,
		    st(v)->strs[3 * row + 2], a, b, d);
	if (f->evidence && *f->evidence)
		ui_text_wrap(u->s, out, ROLE_NORMAL, "", f->evidence, width, 2);
	{
		char proof[256];

		comparison_proof_text(f, proof, sizeof proof);
		ui_text_wrap(u->s, out, ROLE_DIM, "Proof: ", proof, width, 7);
	}
	snprintf(head, sizeof head, "%c fused:   ", fs == SIDE_A ? 'A' : 'B');
	ui_text_wrap(u->s, out, ROLE_HEADER, head, ui_name_full(u, fs, f->fused_name), width, 11);
	for (uint32_t i = 0; i < f->n_unfused; i++) {
		snprintf(head, sizeof head, "%c %s ", other == SIDE_A ? 'A' : 'B',
			 i ? "        " : "unfused:");
		ui_text_wrap(u->s, out, ROLE_NORMAL, head,
			     ui_name_full(u, other, f->unfused_names[i]), width, 11);
	}
	if (f->n_pairs)
		ui_text_add(out, ROLE_DIM, 1, "Instances (%u aligned places):", f->n_pairs);
	for (uint32_t i = 0; i < f->n_pairs; i++) {
		const struct comparison_pair *p;
		char layer[96];

		if (f->pairs[i] >= c->n_pairs)
			continue;
		p = &c->pairs[f->pairs[i]];
		comparison_layer_label(c, p->layer, layer, sizeof layer);
		fmt_delta(d, sizeof d, p->delta_ns);
		ui_text_add(out, ROLE_TITLE, 1, " layer %s, position %u, %s, delta %s us ", layer,
			    p->position, pair_kind_name((enum pair_kind)p->kind), d);
		ui_evidence_instances(u, out, p, SIDE_A, &budget);
		ui_evidence_instances(u, out, p, SIDE_B, &budget);
	}
}

/* The pair that holds the first kernel of an opportunity's first place. */
static int opp_pair(const struct ui_view *v, const struct comparison_opportunity *op,
		    int32_t *layer, uint32_t *pair)
{
	const struct comparison *c = v->u->c;

	if (!op->o.n_example)
		return 0;
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_part *pt = &c->pairs[i].side[op->side];

		for (uint32_t k = 0; k < pt->n_inst; k++)
			if (pt->inst[k].kernel == op->o.example[0]) {
				*pair = (uint32_t)i;
				*layer = c->pairs[i].layer;
				return 1;
			}
	}
	return 0;
}

/* The fusion's first place. */
static int fu_timeline(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair)
{
	const struct comparison_fusion *f;

	if (opp(v, row))
		return opp_pair(v, opp(v, row), layer, pair);
	f = &v->u->c->fusions[row];

	if (!f->n_pairs)
		return 0;
	*pair = f->pairs[0];
	*layer = v->u->c->pairs[*pair].layer;
	return 1;
}

/* P: the fusion's places. */
static int fu_perfetto(const struct ui_view *v, uint32_t row, int32_t *layer, int32_t *fusion)
{
	uint32_t pair;

	if (opp(v, row)) { /* the layer of its first place */
		*fusion = -1;
		return opp_pair(v, opp(v, row), layer, &pair);
	}
	*layer = -1;
	*fusion = (int32_t)row;
	return 1;
}

/* Enter: the fusion's places in the Pairs view (its part of the attribution of B - A); a
 * chain's first layer there. */
static struct ui_scope fu_drill(const struct ui_view *v, uint32_t row)
{
	const struct comparison *c = v->u->c;

	if (opp(v, row)) { /* a chain: the layer of its first place */
		int32_t layer;
		uint32_t pair;

		if (opp_pair(v, opp(v, row), &layer, &pair))
			return (struct ui_scope){ layer, -1, -1, 0 };
		return SCOPE_NONE;
	}
	for (size_t i = 0; i < c->n_attribution; i++)
		if (c->attribution[i].fusion == (int32_t)row)
			return (struct ui_scope){ SCOPE_ALL, -1, -1, (uint32_t)i + 1 };
	return SCOPE_NONE;
}

/* A fusion's fused kernel on its side, the kernels it replaces on the other; a chain's kernels
 * on its side. */
static int fu_kernel(const struct ui_view *v, uint32_t row, int side, const uint32_t **names,
		     uint32_t *n)
{
	const struct comparison_fusion *f;

	if (opp(v, row)) {
		if (opp(v, row)->side != side)
			return 0;
		*names = opp(v, row)->o.names;
		*n = opp(v, row)->o.n_names;
		return *n > 0;
	}
	f = &v->u->c->fusions[row];
	if (side == f->fused_side) {
		*names = &f->fused_name;
		*n = 1;
	} else {
		*names = f->unfused_names;
		*n = f->n_unfused;
	}
	return *n > 0;
}

/* Export (e): the fusions table holds the fusions; a chain row has no item there. */
static uint32_t fu_csv_item(const struct ui_view *v, uint32_t row)
{
	return opp(v, row) ? UINT32_MAX : row;
}

const struct ui_view_def ui_view_fusions = {
	.name = "Fusions",
	.what = "fusion differences or unfused chains",
	.table = { .cols = fu_cols,
		   .n_cols = FU_COLS,
		   .cell = fu_cell,
		   .key = fu_key,
		   .default_sort = FU_DELTA },
	.state_size = sizeof(struct fu_state),
	.csv_table = CSV_FUSIONS,
	.csv_item = fu_csv_item,
	.build = fu_build,
	.release = fu_release,
	.evidence = fu_evidence,
	.drill_view = VIEW_PAIRS,
	.drill_scope = fu_drill,
	.enter_hint = "pairs",
	.empty = "no fusion difference in this phase: where one side runs a fused kernel, so does "
		 "the other",
	.timeline = fu_timeline,
	.perfetto = fu_perfetto,
	.kernel_of = fu_kernel,
};
