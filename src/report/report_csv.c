/* report_csv.c — the comparison as CSV: one table per section (traces, classes, layers,
 * pairs, fusions, pair_groups, opportunities, kernel_totals, and ranks when directories of
 * ranks were compared), each starting with its header row, separated by an empty line. The first
 * column names the table. Fields are quoted as RFC 4180 says (names hold commas and quotes);
 * control characters and bytes that are not UTF-8 in names are written as visible escapes
 * (\n, \x1b, ...); a text cell that would start a formula gets a leading "'"; lists of names
 * are joined with " | "; non-finite numbers are empty. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/classify.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/structure.h"
#include "fusediff/text.h"
#include "report_int.h"

/* One text field, quoted when needed, preceded by a comma unless first. A field that a
 * spreadsheet would run as a formula (it starts with '=', '+', '-', '@', a tab or a carriage
 * return: a kernel named "=HYPERLINK(...)") starts with a "'" instead, which spreadsheets read
 * as "this is text". Numbers are not written through here. */
static void c_field(FILE *out, const char *s, size_t len, int first)
{
	int quote = len && (s[0] == ' ' || s[len - 1] == ' ');
	int formula = text_csv_formula(s, len);

	if (!first)
		fputc(',', out);
	for (size_t i = 0; !quote && i < len; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (quote)
		fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (size_t i = 0; i < len; i++) {
		if (quote && s[i] == '"')
			fputc('"', out);
		fputc(s[i], out);
	}
	if (quote)
		fputc('"', out);
}

static void c_str(FILE *out, const char *s)
{
	c_field(out, s ? s : "", s ? strlen(s) : 0, 0);
}

/* A name from a trace, escaped for display. */
static void c_name(FILE *out, const struct trace *t, uint32_t id)
{
	char *e = text_escape_dup(trace_str(t, id), intern_len(t->strings, id));

	c_field(out, e, strlen(e), 0);
	free(e);
}

static void c_names(FILE *out, const struct trace *t, const uint32_t *names, uint32_t n)
{
	char *all = xstrdup("");

	for (uint32_t i = 0; i < n; i++) {
		char *e = text_escape_dup(trace_str(t, names[i]), intern_len(t->strings, names[i]));
		char *j = xasprintf("%s%s%s", all, i ? " | " : "", e);

		free(e);
		free(all);
		all = j;
	}
	c_field(out, all, strlen(all), 0);
	free(all);
}

static void c_num(FILE *out, double v, int decimals)
{
	char buf[64];

	report_number(buf, sizeof buf, v, decimals);
	fprintf(out, ",%s", buf);
}

static void c_us(FILE *out, double ns)
{
	c_num(out, ns / 1000.0, 3);
}

static void c_layer(FILE *out, const struct comparison *c, int32_t layer)
{
	char buf[96];

	fprintf(out, ",%s", comparison_layer_label(c, layer, buf, sizeof buf));
}

static void c_atoms(FILE *out, atom_set atoms)
{
	char buf[512];

	atoms_format(atoms, "+", buf, sizeof buf);
	c_str(out, buf);
}

/* Layer names separated by blanks, as one field: "prologue 0 1 epilogue". */
static void c_layers(FILE *out, const struct comparison *c, const int32_t *l, uint32_t n)
{
	char *layers = xstrdup(""), buf[96];

	for (uint32_t k = 0; k < n; k++) {
		char *j = xasprintf("%s%s%s", layers, k ? " " : "",
				    comparison_layer_label(c, l[k], buf, sizeof buf));

		free(layers);
		layers = j;
	}
	c_str(out, layers);
	free(layers);
}

/* Each table: its header row, then its rows; rows (n of them, indices into the table's items:
 * sides, classes that have time, attribution parts, layers, pairs, fusions, pair groups) or
 * NULL for all of them, in order. */
#define EACH(i, total)                                                                      \
	for (size_t i##_at = 0, i;                                                          \
	     i##_at < (rows ? n_rows : (total)) && ((i = rows ? rows[i##_at] : i##_at), 1); \
	     i##_at++)                                                                      \
		if (i < (total))

static void t_traces(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	fputs("table,side,label,path,platform,gpu,kernels,gpu_time_us,passes,prefill_passes,"
	      "decode_passes,mixed_passes,train_passes,unknown_passes,layers,other_share,phase,"
	      "compared_passes,pass_us,pass_wall_us,pass_busy_us,pass_idle_us,pass_overlap_us,"
	      "launches_per_pass,kernel_time_share,compared_share\n",
	      out);
	EACH(s, 2)
	{
		const struct side *sd = c->side[s];
		fprintf(out, "traces,%c", "AB"[s]);
		c_str(out, c->label[s]);
		{
			char *p = text_escape_dup(sd->t->path ? sd->t->path : "",
						  sd->t->path ? strlen(sd->t->path) : 0);

			c_str(out, p);
			free(p);
		}
		fprintf(out, ",%s", trace_platform_name(sd->t->platform));
		if (sd->t->gpu_name)
			c_name(out, sd->t, sd->t->gpu_name);
		else
			fputc(',', out);
		fprintf(out, ",%zu", sd->t->n_kernel_events);
		c_us(out, (double)trace_kernel_time(sd->t));
		fprintf(out, ",%u,%u,%u,%u,%u,%u,%u", comparison_model(c, s)->n_passes,
			comparison_model(c, s)->phase_passes[PHASE_PREFILL],
			comparison_model(c, s)->phase_passes[PHASE_DECODE],
			comparison_model(c, s)->phase_passes[PHASE_MIXED],
			comparison_model(c, s)->phase_passes[PHASE_TRAIN],
			comparison_model(c, s)->phase_passes[PHASE_UNKNOWN],
			comparison_model(c, s)->layers_per_pass);
		c_num(out, sd->classes.other_share, 6);
		fprintf(out, ",%s,%u", phase_name((enum phase)c->phase), c->passes[s]);
		c_us(out, c->ns[s]);
		c_us(out, c->time[s].wall_ns);
		c_us(out, c->time[s].busy_ns);
		c_us(out, c->time[s].idle_ns);
		c_us(out, c->time[s].overlap_ns);
		c_num(out, c->time[s].launches, 3);
		c_num(out, side_coverage_share(&sd->cover), 6);
		c_num(out, c->compared_share[s], 6);
		fputc('\n', out);
	}
}

/* A row's 95 % interval of B - A: ci_low_us, ci_high_us, significant (empty when unknown). */
#define CI_COLUMNS "ci_low_us,ci_high_us,significant"
static void c_ci(FILE *out, const struct comparison_ci *ci)
{
	c_us(out, ci->low_ns);
	c_us(out, ci->high_ns);
	fputs(ci->significant < 0 ? "," : ci->significant ? ",1" : ",0", out);
}

static void t_classes(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	int have[CLASS_COUNT], n_have = 0;

	fputs("table,class,a_us,b_us,delta_us,ratio," CI_COLUMNS "\n", out);
	for (int k = 0; k < CLASS_COUNT; k++)
		if (c->class_ns[0][k] != 0 || c->class_ns[1][k] != 0)
			have[n_have++] = k;
	EACH(i, (size_t)n_have)
	{
		int k = have[i];

		fprintf(out, "classes,%s", class_name((enum op_class)k));
		c_us(out, c->class_ns[0][k]);
		c_us(out, c->class_ns[1][k]);
		c_us(out, c->class_ns[1][k] - c->class_ns[0][k]);
		c_num(out, comparison_ratio(c->class_ns[0][k], c->class_ns[1][k]), 4);
		c_ci(out, &c->class_ci[k]);
		fputc('\n', out);
	}
}

static void t_attribution(FILE *out, const struct comparison *c, const uint32_t *rows,
			  size_t n_rows)
{
	fputs("table,kind,class,fusion,count,a_us,b_us,delta_us," CI_COLUMNS "\n", out);
	EACH(i, c->n_attribution)
	{
		const struct comparison_attribution *a = &c->attribution[i];

		fprintf(out, "attribution,%s,%s,", attribution_kind_name(a->kind),
			class_name((enum op_class)a->cls));
		if (a->fusion >= 0)
			fprintf(out, "%u", c->fusions[a->fusion].id);
		c_num(out, a->count, 3);
		c_us(out, a->ns[0]);
		c_us(out, a->ns[1]);
		c_us(out, a->delta_ns);
		c_ci(out, &a->ci);
		fputc('\n', out);
	}
}

static void t_layers(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	fputs("table,index,phase,a_us,b_us,delta_us,ratio,a_kernels,b_kernels,fusions,a_wall_us,b_"
	      "wall_us,a_idle_us,b_idle_us," CI_COLUMNS "\n",
	      out);
	EACH(i, c->n_layers)
	{
		const struct comparison_layer *l = &c->layers[i];

		fputs("layers", out);
		c_layer(out, c, (int32_t)i);
		fprintf(out, ",%s", phase_name((enum phase)l->phase));
		c_us(out, l->ns[0]);
		c_us(out, l->ns[1]);
		c_us(out, l->delta_ns);
		c_num(out, l->ratio, 4);
		c_num(out, l->kernels[0], 3);
		c_num(out, l->kernels[1], 3);
		fprintf(out, ",%u", l->n_fusions);
		c_us(out, l->wall_ns[0]);
		c_us(out, l->wall_ns[1]);
		c_us(out, l->idle_ns[0]);
		c_us(out, l->idle_ns[1]);
		c_ci(out, &l->ci);
		fputc('\n', out);
	}
}

/* Both sides' efficiency (efficiency.h): a_tflops, b_tflops, a_tbps, b_tbps, a_peak_share,
 * b_peak_share, as in JSON. */
#define EFF_COLUMNS "a_tflops,b_tflops,a_tbps,b_tbps,a_peak_share,b_peak_share"
static void c_eff(FILE *out, const struct comparison_eff *a, const struct comparison_eff *b)
{
	c_num(out, a->tflops, 3);
	c_num(out, b->tflops, 3);
	c_num(out, a->tbps, 4);
	c_num(out, b->tbps, 4);
	c_num(out, a->peak_share, 4);
	c_num(out, b->peak_share, 4);
}

static void t_pairs(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	fputs("table,layer,position,kind,class,atoms,a_kernels,b_kernels,a_count,b_count,"
	      "a_avg_us,b_avg_us,a_us,b_us,delta_us,ratio," EFF_COLUMNS ",fusion," CI_COLUMNS "\n",
	      out);
	EACH(i, c->n_pairs)
	{
		const struct comparison_pair *p = &c->pairs[i];

		fputs("pairs", out);
		c_layer(out, c, p->layer);
		fprintf(out, ",%u,%s,%s", p->position, pair_kind_name((enum pair_kind)p->kind),
			class_name((enum op_class)p->cls));
		c_atoms(out, p->atoms);
		c_names(out, c->side[0]->t, p->side[0].names, p->side[0].n_names);
		c_names(out, c->side[1]->t, p->side[1].names, p->side[1].n_names);
		c_num(out, p->side[0].count, 3);
		c_num(out, p->side[1].count, 3);
		c_us(out, p->side[0].avg_ns);
		c_us(out, p->side[1].avg_ns);
		c_us(out, p->side[0].total_ns);
		c_us(out, p->side[1].total_ns);
		c_us(out, p->delta_ns);
		c_num(out, p->ratio, 4);
		c_eff(out, &p->side[0].eff, &p->side[1].eff);
		if (p->fusion >= 0)
			fprintf(out, ",%u", c->fusions[p->fusion].id);
		else
			fputc(',', out);
		c_ci(out, &p->ci);
		fputc('\n', out);
	}
}

static void t_fusions(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	fputs("table,fusion,kind,fused_side,partial,fused_kernel,unfused_kernels,atoms,proof,"
	      "occurrences,"
	      "layers,a_us,b_us,delta_us,launches_saved,idle_us,evidence," CI_COLUMNS "\n",
	      out);
	EACH(i, c->n_fusions)
	{
		const struct comparison_fusion *f = &c->fusions[i];
		fprintf(out, "fusions,%u,%s,%c,%d", f->id, /* its number, from 1 */
			attribution_kind_name(f->partial      ? ATTR_PARTIAL
					      : f->horizontal ? ATTR_HORIZONTAL
							      : ATTR_FUSION),
			f->fused_side ? 'B' : 'A', f->partial);
		c_name(out, c->side[f->fused_side]->t, f->fused_name);
		c_names(out, c->side[!f->fused_side]->t, f->unfused_names, f->n_unfused);
		c_atoms(out, f->atoms);
		fprintf(out, ",%s,%u", comparison_proof_name(f), f->occurrences);
		c_layers(out, c, f->layers, f->n_layers);
		c_us(out, f->ns[0]);
		c_us(out, f->ns[1]);
		c_us(out, f->delta_ns);
		c_num(out, f->launches_saved, 3);
		c_us(out, f->idle_ns);
		c_str(out, f->evidence);
		c_ci(out, &f->ci);
		fputc('\n', out);
	}
}

/* The pairs summed over the layers (summed_pairs.h), largest |delta| first. */
static void t_pair_groups(FILE *out, const struct comparison *c, const uint32_t *rows,
			  size_t n_rows)
{
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed;

	fputs("table,index,layers,places,kind,class,atoms,a_kernels,b_kernels,a_similar,"
	      "b_similar,a_count,b_count,a_us,b_us,delta_us,ratio," EFF_COLUMNS "," CI_COLUMNS "\n",
	      out);
	EACH(i, n)
	{
		const struct comparison_pair *p = &c->pairs[g[i].first];

		fprintf(out, "pair_groups,%zu", i);
		c_layers(out, c, g[i].layers, g[i].n_layers);
		fprintf(out, ",%u,%s,%s", g[i].places, pair_kind_name((enum pair_kind)p->kind),
			class_name((enum op_class)p->cls));
		c_atoms(out, p->atoms);
		c_names(out, c->side[0]->t, p->side[0].names, p->side[0].n_names);
		c_names(out, c->side[1]->t, p->side[1].names, p->side[1].n_names);
		fprintf(out, ",%d,%d", g[i].similar[0], g[i].similar[1]);
		c_num(out, g[i].count[0], 3);
		c_num(out, g[i].count[1], 3);
		c_us(out, g[i].ns[0]);
		c_us(out, g[i].ns[1]);
		c_us(out, g[i].delta_ns);
		c_num(out, g[i].ratio, 4);
		c_eff(out, &g[i].eff[0], &g[i].eff[1]);
		c_ci(out, &g[i].ci);
		fputc('\n', out);
	}
}

/* The chains neither side fuses (comparison.opportunities): advice. */
static void t_opportunities(FILE *out, const struct comparison *c, const uint32_t *rows,
			    size_t n_rows)
{
	fputs("table,index,side,chain,layers,places,kernels_per_place,kernels,us,launches,idle_us,"
	      "bound_us,known_kernels,catalogue\n",
	      out);
	EACH(i, c->n_opportunities)
	{
		const struct comparison_opportunity *op = &c->opportunities[i];
		char chain[256];
		const char *known = op->chain->known ? op->chain->known : "";

		fprintf(out, "opportunities,%zu,%c", i, op->side ? 'B' : 'A');
		c_str(out, chain_format(op->chain, chain, sizeof chain));
		c_layers(out, c, op->layers, op->n_layers);
		fprintf(out, ",%u,%u", op->o.places, op->o.per_place);
		c_names(out, c->side[op->side]->t, op->o.names, op->o.n_names);
		c_us(out, op->o.ns);
		c_num(out, op->o.launches, 0);
		c_us(out, op->o.idle_ns);
		c_us(out, op->o.bound_ns);
		{
			/* lists are joined with " | " */
			char *joined = xcalloc(3 * strlen(known) + 1, 1), *w = joined;

			for (const char *p = known; *p; p++)
				if (*p == ',')
					w += sprintf(w, " | ");
				else
					*w++ = *p;
			c_str(out, joined);
			free(joined);
		}
		c_str(out, op->chain->origin);
		fputc('\n', out);
	}
}

/* Every kernel of both whole traces by short name (comparison.kernel_totals): totals, not per
 * pass. */
static void t_kernel_totals(FILE *out, const struct comparison *c, const uint32_t *rows,
			    size_t n_rows)
{
	fputs("table,index,name,class,a_count,b_count,a_us,b_us,delta_us\n", out);
	EACH(i, c->n_kernel_totals)
	{
		const struct comparison_kernel_total *k = &c->kernel_totals[i];
		char *e = text_escape_dup(k->name, strlen(k->name));

		fprintf(out, "kernel_totals,%zu", i);
		c_field(out, e, strlen(e), 0);
		free(e);
		c_str(out, class_name((enum op_class)k->cls));
		fprintf(out, ",%lld,%lld", (long long)k->count[0], (long long)k->count[1]);
		c_us(out, (double)k->ns[0]);
		c_us(out, (double)k->ns[1]);
		c_us(out, (double)(k->ns[1] - k->ns[0]));
		fputc('\n', out);
	}
}

/* The ranks of two directories of per-rank traces; the header alone without them. */
static void t_ranks(FILE *out, const struct comparison *c, const uint32_t *rows, size_t n_rows)
{
	const struct comparison_ranks *r = c->ranks;

	fputs("table,rank,chosen,a_path,b_path,a_passes,b_passes,a_us,b_us,delta_us,ratio,a_"
	      "kernels,b_kernels\n",
	      out);
	if (!r)
		return;
	EACH(i, r->n)
	{
		const struct comparison_rank *e = &r->r[i];

		fprintf(out, "ranks,%lld,%s", (long long)e->rank, i == r->chosen ? "yes" : "no");
		for (int k = 0; k < 2; k++) {
			char *p = text_escape_dup(e->path[k], strlen(e->path[k]));

			c_str(out, p);
			free(p);
		}
		fprintf(out, ",%u,%u", e->passes[0], e->passes[1]);
		c_us(out, e->ns[0]);
		c_us(out, e->ns[1]);
		c_us(out, e->delta_ns);
		c_num(out, e->ratio, 4);
		fprintf(out, ",%zu,%zu\n", e->kernels[0], e->kernels[1]);
	}
}

static void (*const tables[REPORT_CSV_TABLES])(FILE *, const struct comparison *, const uint32_t *,
					       size_t) = {
	[CSV_TRACES] = t_traces,
	[CSV_CLASSES] = t_classes,
	[CSV_ATTRIBUTION] = t_attribution,
	[CSV_LAYERS] = t_layers,
	[CSV_PAIRS] = t_pairs,
	[CSV_FUSIONS] = t_fusions,
	[CSV_PAIR_GROUPS] = t_pair_groups,
	[CSV_OPPORTUNITIES] = t_opportunities,
	[CSV_KERNEL_TOTALS] = t_kernel_totals,
	[CSV_RANKS] = t_ranks,
};

static const char *const table_names[REPORT_CSV_TABLES] = {
	[CSV_TRACES] = "traces",
	[CSV_CLASSES] = "classes",
	[CSV_ATTRIBUTION] = "attribution",
	[CSV_LAYERS] = "layers",
	[CSV_PAIRS] = "pairs",
	[CSV_FUSIONS] = "fusions",
	[CSV_PAIR_GROUPS] = "pair_groups",
	[CSV_OPPORTUNITIES] = "opportunities",
	[CSV_KERNEL_TOTALS] = "kernel_totals",
	[CSV_RANKS] = "ranks",
};

const char *report_csv_table_name(enum report_csv_table t)
{
	return table_names[t];
}

int report_csv_table(FILE *out, const struct comparison *c, enum report_csv_table t,
		     const uint32_t *rows, size_t n_rows)
{
	tables[t](out, c, rows, n_rows);
	return ferror(out) ? -1 : 0;
}

int report_write_csv(FILE *out, const struct comparison *c)
{
	for (int t = 0; t < REPORT_CSV_TABLES; t++) {
		if (t == CSV_RANKS && !c->ranks)
			continue;
		if (t)
			fputc('\n', out);
		tables[t](out, c, NULL, 0);
	}
	return ferror(out) ? -1 : 0;
}
