/* pairs.c — the Kernel pairs view: A and B side by side in alignment order. A pair is a
 * group of rows: its first row carries the figures, the following rows list the other
 * kernels of a run (the unfused kernels under the fused one). Gaps show as gaps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

enum {
	PR_LAYER,
	PR_POS,
	PR_KIND,
	PR_CLASS,
	PR_A_NAME,
	PR_A_N,
	PR_A_US,
	PR_B_US,
	PR_B_N,
	PR_B_NAME,
	PR_DELTA,
	PR_RATIO,
	PR_A_EFF,
	PR_B_EFF,
	PR_FUSION,
	PR_A_TRACE,
	PR_B_TRACE,
	PR_COLS
};

static const struct table_column pr_cols[PR_COLS] = {
	/* narrow screens drop columns by priority, never Layer, Class, the names or Delta; Kind
	 * goes first when every row in view has the same kind */
	[PR_LAYER] = { "Layer", 8, 0, 0, TABLE_LEFT, TABLE_COL_ASC },
	[PR_POS] = { "Pos", 3, 0, 5, TABLE_RIGHT, TABLE_COL_ASC },
	[PR_KIND] = { "Kind", 7, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_UNIFORM_FIRST },
	[PR_CLASS] = { "Class", 11, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[PR_A_NAME] = { "A kernel", 24, 1, 0, TABLE_LEFT,
			TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[PR_A_N] = { "A n", 4, 0, 6, TABLE_RIGHT, 0 },
	[PR_A_US] = { "A us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[PR_B_US] = { "B us", 8, 0, 3, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[PR_B_N] = { "B n", 4, 0, 6, TABLE_RIGHT, 0 },
	[PR_B_NAME] = { "B kernel", 24, 1, 0, TABLE_LEFT,
			TABLE_COL_TEXT | TABLE_COL_SCROLL | TABLE_COL_SEARCH },
	[PR_DELTA] = { "Delta", 8, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[PR_RATIO] = { "B/A", 5, 0, 2, TABLE_RIGHT, TABLE_COL_DECIMAL },
	/* achieved TFLOPS and share of the GPU's peak (efficiency.h): the first to go */
	[PR_A_EFF] = { "A TF %pk", 8, 0, 7, TABLE_RIGHT, 0 },
	[PR_B_EFF] = { "B TF %pk", 8, 0, 7, TABLE_RIGHT, 0 },
	[PR_FUSION] = { "Fus", 3, 0, 4, TABLE_RIGHT, 0 },
	/* / and f also find a kernel by its name in the trace when the short form shows another
	 * (an Inductor kernel's ops) */
	[PR_A_TRACE] = { "A trace name", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
	[PR_B_TRACE] = { "B trace name", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
};

static int pair_fused_side(const struct comparison *c, const struct comparison_pair *p)
{
	if (p->fusion >= 0 && (size_t)p->fusion < c->n_fusions)
		return c->fusions[p->fusion].fused_side;
	return p->side[0].n_names <= p->side[1].n_names ? SIDE_A : SIDE_B;
}

const char *ui_pair_kind_text(const struct comparison *c, const struct comparison_pair *p)
{
	switch (p->kind) {
	case PAIR_MATCH: return "match";
	case PAIR_FUSED: return pair_fused_side(c, p) == SIDE_A ? "A fuses" : "B fuses";
	case PAIR_A_ONLY: return "A only";
	case PAIR_B_ONLY: return "B only";
	default: return "?";
	}
}

int ui_pair_quick(const struct comparison_pair *p, unsigned mask)
{
	if ((mask & QUICK_FUSIONS) && !(p->kind == PAIR_FUSED || p->fusion >= 0))
		return 0;
	if ((mask & QUICK_MISMATCHES) && p->kind == PAIR_MATCH)
		return 0;
	return 1;
}

int ui_pair_kind_role(const struct comparison_pair *p)
{
	if (p->kind == PAIR_FUSED || p->fusion >= 0)
		return ROLE_FUSED;
	if (p->kind == PAIR_A_ONLY)
		return ROLE_UNMATCHED;
	if (p->kind == PAIR_B_ONLY)
		return ROLE_B_ONLY;
	return ROLE_DIM;
}

/* The view's rows: a pair is a group of consecutive rows, one per kernel of its longer side. */
struct pr_state {
	uint32_t *ref;	/* row -> pair index */
	uint32_t *sub;	/* row -> line within its pair */
	uint32_t *lead; /* row -> the pair's first row */
	uint32_t cap;
	uint32_t *key_ids[3]; /* row -> A name, B name, class: the search keys (pr_key_ids) */
};

static struct pr_state *st(const struct ui_view *v)
{
	return v->state;
}

static void add_row(struct ui_view *v, uint32_t pair, uint32_t sub, uint32_t lead)
{
	struct pr_state *s = st(v);

	if (v->n_rows >= s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->ref = xreallocarray(s->ref, s->cap, sizeof *s->ref);
		s->sub = xreallocarray(s->sub, s->cap, sizeof *s->sub);
		s->lead = xreallocarray(s->lead, s->cap, sizeof *s->lead);
	}
	s->ref[v->n_rows] = pair;
	s->sub[v->n_rows] = sub;
	s->lead[v->n_rows] = lead;
	v->n_rows++;
}

/* The rows of pair pi: one per kernel of its longer side. */
static void add_pair(struct ui_view *v, uint32_t pi)
{
	const struct comparison_pair *p = &v->u->c->pairs[pi];
	uint32_t lines =
		p->side[0].n_names > p->side[1].n_names ? p->side[0].n_names : p->side[1].n_names;
	uint32_t lead = v->n_rows;

	if (lines == 0)
		lines = 1;
	for (uint32_t i = 0; i < lines; i++)
		add_row(v, pi, i, lead);
}

/* The pair groups of the scope's Summed row, or NULL when the scope has none. */
static const struct summed_pair *scope_group(const struct ui_view *v)
{
	size_t n;
	const struct summed_pair *g;

	if (v->scope.group < 0)
		return NULL;
	g = ui_groups(v->u, &n);
	return (size_t)v->scope.group < n ? &g[v->scope.group] : NULL;
}

static void pr_build(struct ui_view *v)
{
	const struct comparison *c = v->u->c;
	const struct summed_pair *g = scope_group(v);

	v->n_rows = 0;
	if (g) { /* a Summed row: its places, in layer order */
		for (uint32_t k = 0; k < g->n_pairs; k++)
			if (g->pairs[k] < c->n_pairs)
				add_pair(v, g->pairs[k]);
		return;
	}
	for (size_t li = 0; li < c->n_layers; li++) {
		const struct comparison_layer *l = &c->layers[li];

		if (v->scope.layer != SCOPE_ALL && (int32_t)li != v->scope.layer)
			continue;
		for (uint32_t pi = l->pair_first; pi < l->pair_first + l->pair_n && pi < c->n_pairs;
		     pi++)
			if ((v->scope.cls < 0 || c->pairs[pi].cls == v->scope.cls) &&
			    (!v->scope.part ||
			     (c->pair_part && c->pair_part[pi] + 1 == v->scope.part)))
				add_pair(v, pi);
	}
}

static void pr_release(struct ui_view *v)
{
	struct pr_state *s = st(v);

	free(s->ref);
	free(s->sub);
	free(s->lead);
	for (int k = 0; k < 3; k++)
		free(s->key_ids[k]);
	memset(s, 0, sizeof *s);
	v->n_rows = 0;
}

/* The name on this row of one side: the sub-th kernel of the run, a gap, or nothing. */
static void name_cell(struct ui_view *v, uint32_t row, int side, struct table_cell *out)
{
	struct ui *u = v->u;
	const struct comparison_pair *p = &u->c->pairs[st(v)->ref[row]];
	const struct comparison_part *part = &p->side[side];
	uint32_t sub = st(v)->sub[row];

	if (sub >= part->n_names) {
		if (sub == 0) {
			out->text = u->s->g->gap;
			out->role = ROLE_DIM;
		}
		return;
	}
	if (part->n_names > 1) { /* a run: the tree shows what belongs together */
		const char *tree =
			sub + 1 == part->n_names ? u->s->g->tree_last : u->s->g->tree_mid;

		snprintf(out->buf, out->cap, "%s%s", tree, ui_name(u, side, part->names[sub]));
		out->text = out->buf;
	} else {
		out->text = ui_name(u, side, part->names[sub]);
	}
	if (p->kind == PAIR_FUSED || p->fusion >= 0)
		out->role = ROLE_FUSED;
	else if (p->kind != PAIR_MATCH)
		out->role = p->kind == PAIR_B_ONLY ? ROLE_B_ONLY : ROLE_UNMATCHED;
}

static void pr_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	const struct comparison_pair *p = &c->pairs[st(v)->ref[row]];

	if (col == PR_A_NAME || col == PR_B_NAME) {
		name_cell(v, row, col == PR_A_NAME ? SIDE_A : SIDE_B, out);
		return;
	}
	if (st(v)->sub[row] != 0)
		return;
	switch (col) {
	case PR_LAYER: comparison_layer_label(c, p->layer, out->buf, out->cap); break;
	case PR_POS: snprintf(out->buf, out->cap, "%u", p->position); break;
	case PR_KIND:
		out->text = ui_pair_kind_text(c, p);
		out->role = ui_pair_kind_role(p);
		break;
	case PR_CLASS: out->text = class_name((enum op_class)p->cls); break;
	case PR_A_N:
	case PR_B_N: fmt_count(out->buf, out->cap, p->side[col == PR_B_N].count); break;
	case PR_A_US:
	case PR_B_US: {
		const struct comparison_part *part = &p->side[col == PR_B_US];

		if (part->n_inst || part->count > 0)
			fmt_us(out->buf, out->cap, part->total_ns);
		else {
			out->text = v->u->s->g->gap;
			out->role = ROLE_DIM;
		}
		break;
	}
	case PR_DELTA:
		fmt_delta(out->buf, out->cap, p->delta_ns);
		out->role = delta_role_ci(p->delta_ns, &p->ci);
		break;
	case PR_RATIO: fmt_ratio(out->buf, out->cap, p->ratio); break;
	case PR_A_EFF:
	case PR_B_EFF: fmt_eff(out->buf, out->cap, &p->side[col == PR_B_EFF].eff); break;
	case PR_FUSION:
		if (p->fusion >= 0) {
			snprintf(out->buf, out->cap, "#%u", c->fusions[p->fusion].id);
			out->role = ROLE_FUSED;
		}
		break;
	}
}

static void pr_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	struct ui *u = v->u;
	const struct comparison_pair *p = &u->c->pairs[st(v)->ref[row]];

	switch (col) {
	case PR_LAYER: out->num = (double)p->layer * 1e6 + p->position; break;
	case PR_POS: out->num = p->position; break;
	case PR_KIND: out->str = ui_pair_kind_text(u->c, p); break;
	case PR_CLASS: out->str = class_name((enum op_class)p->cls); break;
	case PR_A_NAME:
	case PR_B_NAME: {
		const struct comparison_part *part = &p->side[col == PR_B_NAME];
		uint32_t sub = st(v)->sub[row];

		out->str =
			sub < part->n_names ? ui_name(u, col == PR_B_NAME, part->names[sub]) : NULL;
		break;
	}
	case PR_A_N: out->num = p->side[0].count; break;
	case PR_B_N: out->num = p->side[1].count; break;
	case PR_A_US: out->num = p->side[0].total_ns; break;
	case PR_B_US: out->num = p->side[1].total_ns; break;
	case PR_DELTA: out->num = p->delta_ns; break;
	case PR_RATIO: out->num = ratio_key(p->side[0].total_ns, p->side[1].total_ns); break;
	case PR_A_EFF:
	case PR_B_EFF: out->num = eff_key(&p->side[col == PR_B_EFF].eff); break;
	case PR_FUSION: out->num = p->fusion >= 0 ? -(double)p->fusion : NAN; break;
	case PR_A_TRACE:
	case PR_B_TRACE: {
		int side = col == PR_B_TRACE;
		const struct comparison_part *part = &p->side[side];
		uint32_t sub = st(v)->sub[row];

		out->str = sub < part->n_names ? comparison_short_name(u->c, side, part->names[sub])
					       : NULL;
		break;
	}
	}
}

/* The SEARCH keys as ids, all rows at once, built on the first search: the name id of the
 * row's line on each side (for its names in their form and its trace names) and the class. */
static const uint32_t *pr_key_ids(void *ctx, int col, uint32_t *n_ids)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	struct pr_state *s = st(v);
	int k;

	switch (col) {
	case PR_A_NAME:
	case PR_A_TRACE: k = 0; break;
	case PR_B_NAME:
	case PR_B_TRACE: k = 1; break;
	case PR_CLASS: k = 2; break;
	default: return NULL;
	}
	*n_ids = k == 2 ? UINT8_MAX + 1 : intern_count(c->side[k]->t->strings);
	if (s->key_ids[k])
		return s->key_ids[k];
	for (int i = 0; i < 3; i++) { /* all three in one pass over the pairs */
		free(s->key_ids[i]);
		s->key_ids[i] = xmalloc((v->n_rows ? v->n_rows : 1) * sizeof *s->key_ids[i]);
	}
	for (uint32_t r = 0; r < v->n_rows; r++) {
		const struct comparison_pair *p = &c->pairs[s->ref[r]];
		uint32_t sub = s->sub[r];

		s->key_ids[0][r] = sub < p->side[0].n_names ? p->side[0].names[sub] : TABLE_NONE;
		s->key_ids[1][r] = sub < p->side[1].n_names ? p->side[1].names[sub] : TABLE_NONE;
		s->key_ids[2][r] = p->cls;
	}
	return s->key_ids[k];
}

static const char *pr_id_key(void *ctx, int col, uint32_t id)
{
	struct ui_view *v = ctx;

	switch (col) {
	case PR_CLASS: return class_name((enum op_class)id);
	case PR_A_NAME:
	case PR_B_NAME: return ui_name(v->u, col == PR_B_NAME, id);
	case PR_A_TRACE:
	case PR_B_TRACE: return comparison_short_name(v->u->c, col == PR_B_TRACE, id);
	default: return NULL;
	}
}

static uint32_t pr_group(void *ctx, uint32_t row)
{
	return st(ctx)->lead[row];
}

static int pr_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;

	return ui_pair_quick(&v->u->c->pairs[st(v)->ref[row]], mask);
}

static void pr_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	ui_evidence_pair(v->u, out, st(v)->ref[row], width);
}

static void pr_describe_scope(struct ui_view *v, char *buf, size_t cap)
{
	char layer[96];

	buf[0] = '\0';
	if (v->scope.layer != SCOPE_ALL) {
		const struct comparison *c = v->u->c;
		int numbered = v->scope.layer >= 0 && (size_t)v->scope.layer < c->n_layers &&
			       (c->layers[v->scope.layer].index >= 0 ||
				*c->stacks[c->layers[v->scope.layer].stack]);

		comparison_layer_label(c, v->scope.layer, layer, sizeof layer);
		snprintf(buf, cap, "%s %s", numbered ? "layer" : "the", layer);
	} else if (scope_group(v)) {
		const struct summed_pair *g = scope_group(v);

		const struct comparison_pair *p = &v->u->c->pairs[g->first];

		snprintf(buf, cap, "summed: %s %s, %u place%s", ui_pair_kind_text(v->u->c, p),
			 class_name((enum op_class)p->cls), g->n_pairs, g->n_pairs == 1 ? "" : "s");
	} else if (v->scope.part && v->scope.part <= v->u->c->n_attribution) {
		ui_part_label(v->u->c, v->scope.part - 1, buf, cap);
	} else if (v->scope.cls >= 0) {
		snprintf(buf, cap, "class %s", class_name((enum op_class)v->scope.cls));
	}
}

static uint32_t pr_item(const struct ui_view *v, uint32_t row)
{
	const struct pr_state *s = v->state;

	return s->lead[row] == row ? s->ref[row] : UINT32_MAX; /* a pair's other names: its row */
}

static int pr_timeline(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair)
{
	*pair = st(v)->ref[row];
	*layer = v->u->c->pairs[*pair].layer;
	return 1;
}

/* The pair's kernels on side: its whole run. */
static int pr_kernel(const struct ui_view *v, uint32_t row, int side, const uint32_t **names,
		     uint32_t *n)
{
	const struct comparison_part *part = &v->u->c->pairs[st(v)->ref[row]].side[side];

	*names = part->names;
	*n = part->n_names;
	return *n > 0;
}

/* Enter in a pair's evidence: its fusion in the Fusions view, else its row of the Summed
 * view (Esc comes back). */
static void pr_follow(struct ui_view *v, uint32_t row)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	uint32_t pair = st(v)->ref[row];
	size_t n;
	const struct summed_pair *g;

	if (pair >= c->n_pairs)
		return;
	if (c->pairs[pair].fusion >= 0) {
		ui_goto(u, VIEW_FUSIONS, SCOPE_NONE);
		table_filter(&ui_shown_view(u)->t, NULL, 0);
		table_select_row(&ui_shown_view(u)->t, (uint32_t)c->pairs[pair].fusion);
		ui_set_message(u, ROLE_NORMAL, "fusion #%u (Esc: back to the pair)",
			       c->fusions[c->pairs[pair].fusion].id);
		return;
	}
	g = ui_groups(u, &n);
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < g[i].n_pairs; k++)
			if (g[i].pairs[k] == pair) {
				ui_goto(u, VIEW_SUMMED, SCOPE_NONE);
				table_filter(&ui_shown_view(u)->t, NULL, 0);
				table_select_row(&ui_shown_view(u)->t, (uint32_t)i);
				ui_set_message(u, ROLE_NORMAL,
					       "its row of the Summed view, %u place%s (Esc: "
					       "back to the pair)",
					       g[i].places, g[i].places == 1 ? "" : "s");
				return;
			}
}

/* The scope in an export's name: "-layer3", "-summed-Norm", "-GEMM" (no blanks). */
static void pr_export_name(const struct ui_view *v, char *buf, size_t cap)
{
	const struct comparison *c = v->u->c;
	char layer[96];

	buf[0] = '\0';
	if (v->scope.layer != SCOPE_ALL) {
		int numbered = v->scope.layer >= 0 && (size_t)v->scope.layer < c->n_layers &&
			       c->layers[v->scope.layer].index >= 0;

		comparison_layer_label(c, v->scope.layer, layer, sizeof layer);
		snprintf(buf, cap, "-%s%s", numbered ? "layer" : "", layer);
	} else if (v->scope.cls >= 0 || v->scope.group >= 0) {
		const struct summed_pair *g = scope_group(v);
		int cls = g ? c->pairs[g->first].cls : v->scope.cls;

		snprintf(buf, cap, "-%s%s", v->scope.group >= 0 ? "summed-" : "",
			 cls >= 0 ? class_name((enum op_class)cls) : "");
		for (char *p = buf; *p; p++)
			if (*p == ' ')
				*p = '_';
	}
}

const struct ui_view_def ui_view_pairs = {
	.name = "Pairs",
	.what = "kernel pairs",
	.table = { .cols = pr_cols,
		   .n_cols = PR_COLS,
		   .cell = pr_cell,
		   .key = pr_key,
		   .group = pr_group,
		   .quick = pr_quick,
		   .default_sort = -1,
		   .key_ids = pr_key_ids,
		   .id_key = pr_id_key },
	.quick_bits = QUICK_FUSIONS | QUICK_MISMATCHES,
	.state_size = sizeof(struct pr_state),
	.csv_table = CSV_PAIRS,
	.csv_item = pr_item,
	.build = pr_build,
	.release = pr_release,
	.evidence = pr_evidence,
	.drill_view = VIEW_COUNT, /* Enter focuses the evidence */
	.describe_scope = pr_describe_scope,
	.timeline = pr_timeline,
	.kernel_of = pr_kernel,
	.follow = pr_follow,
	.export_name = pr_export_name,
};
