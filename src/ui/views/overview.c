/* overview.c — the Overview view, the first screen: where B - A comes from. One row per part
 * of the attribution (a fusion difference, or the one-sided or matched kernels of one class),
 * largest first, with a bar centred on zero (gains left, regressions right); the parts add up
 * to the total in the header. Enter: the part's kernel pairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer_int.h"
#include "fusediff/report.h"
#include "fusediff/text.h"

enum { OV_PART, OV_CLASS, OV_PLACES, OV_A, OV_B, OV_DELTA, OV_SHARE, OV_BAR, OV_KERNELS, OV_COLS };

static const struct table_column ov_cols[OV_COLS] = {
	[OV_PART] = { "Part", 18, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[OV_CLASS] = { "Class", 11, 0, 0, TABLE_LEFT, TABLE_COL_TEXT | TABLE_COL_SEARCH },
	[OV_PLACES] = { "Places", 6, 0, 2, TABLE_RIGHT, 0 },
	[OV_A] = { "A us/pass", 10, 0, 1, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[OV_B] = { "B us/pass", 10, 0, 1, TABLE_RIGHT, TABLE_COL_DECIMAL },
	[OV_DELTA] = { "B-A us", 9, 0, 0, TABLE_RIGHT, TABLE_COL_MAGNITUDE | TABLE_COL_DECIMAL },
	[OV_SHARE] = { "of B-A", 7, 0, 2, TABLE_RIGHT, 0 },
	[OV_BAR] = { "gain | regression", 17, 1, 3, TABLE_LEFT, TABLE_COL_BAR | TABLE_COL_SIGNED },
	/* / and f find the parts that hold a kernel of that name */
	[OV_KERNELS] = { "Kernels", 0, 0, 9, TABLE_LEFT,
			 TABLE_COL_TEXT | TABLE_COL_SEARCH | TABLE_COL_HIDDEN | TABLE_COL_NOSORT },
};

/* Row r is part r of the attribution. */
struct ov_state {
	char **labels;	/* row -> its Part text */
	char **kernels; /* row -> the short names of its pairs' kernels, one per line */
};

static struct ov_state *st(const struct ui_view *v)
{
	return v->state;
}

static const char *kind_words(const struct comparison_attribution *a)
{
	switch (a->kind) {
	case ATTR_FUSION: return "fusion";
	case ATTR_HORIZONTAL: return "horizontal";
	case ATTR_PARTIAL: return "partial fusion";
	case ATTR_A_ONLY: return "A only";
	case ATTR_B_ONLY: return "B only";
	case ATTR_MATCHED_FASTER: return "B faster";
	case ATTR_MATCHED_SLOWER: return "B slower";
	default: return "same time";
	}
}

static void ov_build(struct ui_view *v)
{
	const struct comparison *c = v->u->c;

	v->n_rows = (uint32_t)c->n_attribution;
	st(v)->labels = xcalloc(v->n_rows + 1, sizeof *st(v)->labels);
	st(v)->kernels = xcalloc(v->n_rows + 1, sizeof *st(v)->kernels);
	for (uint32_t r = 0; r < v->n_rows; r++) {
		const struct comparison_attribution *a = &c->attribution[r];

		st(v)->kernels[r] = ui_pair_names(v->u, 0, (uint32_t)c->n_pairs, c->pair_part, r);
		st(v)->labels[r] = a->fusion >= 0 ? xasprintf("%s #%u", kind_words(a),
							      c->fusions[a->fusion].id)
						  : xstrdup(kind_words(a));
	}
}

static void ov_release(struct ui_view *v)
{
	for (uint32_t r = 0; r < v->n_rows; r++) {
		free(st(v)->labels[r]);
		free(st(v)->kernels[r]);
	}
	free(st(v)->labels);
	free(st(v)->kernels);
	st(v)->kernels = NULL;
	st(v)->labels = NULL;
}

static double ov_max(const struct comparison *c)
{
	double m = 0;

	for (size_t i = 0; i < c->n_attribution; i++)
		if (fabs(c->attribution[i].delta_ns) > m)
			m = fabs(c->attribution[i].delta_ns);
	return m;
}

static int part_role(const struct comparison_attribution *a)
{
	if (a->kind <= ATTR_PARTIAL)
		return ROLE_FUSED;
	if (a->kind == ATTR_A_ONLY)
		return ROLE_UNMATCHED;
	if (a->kind == ATTR_B_ONLY)
		return ROLE_B_ONLY;
	return ROLE_NORMAL;
}

static void ov_cell(void *ctx, uint32_t row, int col, struct table_cell *out)
{
	struct ui_view *v = ctx;
	const struct comparison *c = v->u->c;
	const struct comparison_attribution *a = &c->attribution[row];
	double m;

	switch (col) {
	case OV_PART:
		out->text = st(v)->labels[row];
		out->role = part_role(a);
		break;
	case OV_CLASS: out->text = class_name((enum op_class)a->cls); break;
	case OV_PLACES: fmt_count(out->buf, out->cap, a->count); break;
	case OV_A: fmt_us(out->buf, out->cap, a->ns[0]); break;
	case OV_B: fmt_us(out->buf, out->cap, a->ns[1]); break;
	case OV_DELTA:
		fmt_delta(out->buf, out->cap, a->delta_ns);
		out->role = delta_role_ci(a->delta_ns, &a->ci);
		break;
	case OV_SHARE: text_share_of(out->buf, out->cap, a->delta_ns, c->delta_ns); break;
	case OV_BAR:
		m = ov_max(c);
		out->bar = m > 0 ? a->delta_ns / m : 0;
		break;
	}
}

static void ov_key(void *ctx, uint32_t row, int col, struct table_key *out)
{
	struct ui_view *v = ctx;
	const struct comparison_attribution *a = &v->u->c->attribution[row];

	switch (col) {
	case OV_PART: out->str = st(v)->labels[row]; break;
	case OV_CLASS: out->str = class_name((enum op_class)a->cls); break;
	case OV_KERNELS: out->str = st(v)->kernels[row]; break;
	case OV_PLACES: out->num = a->count; break;
	case OV_A: out->num = a->ns[0]; break;
	case OV_B: out->num = a->ns[1]; break;
	/* signed: descending puts the largest regression first, ascending the largest gain */
	case OV_DELTA:
	case OV_BAR: out->num = a->delta_ns; break;
	case OV_SHARE: out->num = fabs(a->delta_ns); break;
	}
}

static int ov_quick(void *ctx, uint32_t row, unsigned mask)
{
	struct ui_view *v = ctx;
	const struct comparison_attribution *a = &v->u->c->attribution[row];
	unsigned have = (a->kind <= ATTR_PARTIAL ? QUICK_FUSIONS : 0) |
			(a->kind == ATTR_A_ONLY || a->kind == ATTR_B_ONLY ? QUICK_MISMATCHES : 0);

	return (have & mask) == mask;
}

static void ov_evidence(struct ui_view *v, uint32_t row, struct ui_text *out, int width)
{
	struct ui *u = v->u;
	const struct comparison *c = u->c;
	const struct comparison_attribution *a = &c->attribution[row];
	char label[96], ta[32], tb[32], d[32];
	uint32_t top[8], n = 0;
	double best[8];

	ui_part_label(c, row, label, sizeof label);
	fmt_us(ta, sizeof ta, a->ns[0]);
	fmt_us(tb, sizeof tb, a->ns[1]);
	fmt_delta(d, sizeof d, a->delta_ns);
	ui_text_add(out, ROLE_HEADER, 1, "%s: A %s us/pass, B %s us/pass, B - A %s us", label, ta,
		    tb, d);
	if (a->fusion >= 0 && (size_t)a->fusion < c->n_fusions && c->fusions[a->fusion].evidence)
		ui_text_wrap(u->s, out, ROLE_NORMAL, "  ", c->fusions[a->fusion].evidence, width,
			     2);
	/* its largest pairs */
	for (size_t i = 0; i < c->n_pairs && c->pair_part; i++) {
		double x = fabs(c->pairs[i].delta_ns);
		uint32_t k;

		if (c->pair_part[i] != row)
			continue;
		for (k = n < 8 ? n : 8; k > 0 && best[k - 1] < x; k--)
			if (k < 8) {
				best[k] = best[k - 1];
				top[k] = top[k - 1];
			}
		if (k < 8) {
			best[k] = x;
			top[k] = (uint32_t)i;
			if (n < 8)
				n++;
		}
	}
	if (n)
		ui_text_add(out, ROLE_DIM, 1,
			    "Largest kernel pairs of this part (Enter: all of them):");
	for (uint32_t i = 0; i < n; i++) {
		const struct comparison_pair *p = &c->pairs[top[i]];
		char *ea = ui_part_names(u, p, 0), *eb = ui_part_names(u, p, 1);
		char layer[96], pd[32];

		comparison_layer_label(c, p->layer, layer, sizeof layer);
		fmt_delta(pd, sizeof pd, p->delta_ns);
		ui_text_add(out, delta_role(p->delta_ns), 1, "  %8s us  layer %-8s A %s  B %s", pd,
			    layer, ea, eb);
		free(ea);
		free(eb);
	}
}

/* Enter: the part's kernel pairs. */
static struct ui_scope ov_drill(const struct ui_view *v, uint32_t row)
{
	(void)v;
	return (struct ui_scope){ SCOPE_ALL, -1, -1, row + 1 };
}

/* The part's largest pair. */
static int ov_timeline(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair)
{
	const struct comparison *c = v->u->c;
	double best = -1;

	*pair = UINT32_MAX;
	for (size_t i = 0; i < c->n_pairs; i++)
		if (c->pair_part && c->pair_part[i] == row && fabs(c->pairs[i].delta_ns) > best) {
			best = fabs(c->pairs[i].delta_ns);
			*pair = (uint32_t)i;
		}
	if (*pair == UINT32_MAX)
		return 0;
	*layer = c->pairs[*pair].layer;
	return 1;
}

const struct ui_view_def ui_view_overview = {
	.name = "Overview",
	.what = "where B - A comes from",
	.table = { .cols = ov_cols,
		   .n_cols = OV_COLS,
		   .cell = ov_cell,
		   .key = ov_key,
		   .quick = ov_quick,
		   .default_sort = OV_SHARE },
	.quick_bits = QUICK_FUSIONS | QUICK_MISMATCHES,
	.state_size = sizeof(struct ov_state),
	.csv_table = CSV_ATTRIBUTION,
	.csv_item = ui_row_is_item,
	.build = ov_build,
	.release = ov_release,
	.evidence = ov_evidence,
	.drill_view = VIEW_PAIRS,
	.drill_scope = ov_drill,
	.enter_hint = "pairs",
	.timeline = ov_timeline,
};
