/* report_json.c — the comparison as JSON, schema_version 1 (see fusediff(1), REPORT FORMATS).
 *
 * Written by hand rather than with a JSON library: the output must be byte-identical across
 * runs and locales, numbers are formatted here ('.' decimal point, non-finite as null), and
 * kernel names (which may hold quotes, backslashes, control bytes and invalid UTF-8) are
 * escaped so that the output is always valid UTF-8 JSON: control characters as \uXXXX, bytes
 * that are not UTF-8 as the visible text \xNN. One array element per line. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fusediff/classify.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/structure.h"
#include "fusediff/text.h"
#include "report_int.h"

static void j_cstr(FILE *out, const char *s)
{
	if (s)
		report_json_str(out, s, strlen(s));
	else
		fputs("null", out);
}

static void j_name(FILE *out, const struct trace *t, uint32_t id)
{
	report_json_str(out, trace_str(t, id), intern_len(t->strings, id));
}

static void j_num(FILE *out, double v, int decimals)
{
	char buf[64];

	fputs(report_number(buf, sizeof buf, v, decimals) < 0 ? "null" : buf, out);
}

static void j_us(FILE *out, double ns)
{
	j_num(out, ns / 1000.0, 3);
}

/* ,"a_us":A,"b_us":B,"delta_us":D,"ratio":R: a row's two times per pass and their
 * difference and ratio. */
static void j_times(FILE *out, double a_ns, double b_ns, double delta_ns, double ratio)
{
	fputs(",\"a_us\":", out);
	j_us(out, a_ns);
	fputs(",\"b_us\":", out);
	j_us(out, b_ns);
	fputs(",\"delta_us\":", out);
	j_us(out, delta_ns);
	fputs(",\"ratio\":", out);
	j_num(out, ratio, 4);
}

/* ,"ci_low_us":L,"ci_high_us":H,"significant":S: a row's 95 % interval of B - A per pass
 * (null when unknown). */
static void j_ci(FILE *out, const struct comparison_ci *ci)
{
	fputs(",\"ci_low_us\":", out);
	j_us(out, ci->low_ns);
	fputs(",\"ci_high_us\":", out);
	j_us(out, ci->high_ns);
	fputs(ci->significant < 0 ? ",\"significant\":null"
	      : ci->significant	  ? ",\"significant\":true"
				  : ",\"significant\":false",
	      out);
}

/* The noise of the comparison: how many passes each side has, the whole pass's interval and
 * spread, and how much of B - A is beyond noise. */
static void j_noise(FILE *out, const struct comparison *c)
{
	fprintf(out,
		",\n  \"noise\": {\"method\":\"welch_t_95\",\"known\":%s,\"a_passes\":%u,"
		"\"b_passes\":%u",
		c->ci_known ? "true" : "false", c->passes[0], c->passes[1]);
	j_ci(out, &c->ci);
	fputs(",\"a_pass_sd_us\":", out);
	j_us(out, c->ci.sd_ns[0]);
	fputs(",\"b_pass_sd_us\":", out);
	j_us(out, c->ci.sd_ns[1]);
	fputs(",\"beyond_noise_us\":", out);
	j_us(out, c->beyond_noise_ns);
	fputc('}', out);
}

/* A layer (index into c->layers): its number when its stack has no name, else its label. */
static void j_layer(FILE *out, const struct comparison *c, int32_t layer)
{
	char buf[96];

	if (layer >= 0 && (size_t)layer < c->n_layers && c->layers[layer].index >= 0 &&
	    !*c->stacks[c->layers[layer].stack])
		fprintf(out, "%d", c->layers[layer].index);
	else {
		comparison_layer_label(c, layer, buf, sizeof buf);
		report_json_str(out, buf, strlen(buf));
	}
}

static void j_atoms(FILE *out, atom_set atoms)
{
	int first = 1;

	fputc('[', out);
	for (int a = 0; a < ATOM_COUNT; a++)
		if (atoms & ATOM_BIT(a)) {
			fprintf(out, "%s\"%s\"", first ? "" : ",", atom_name((enum atom)a));
			first = 0;
		}
	fputc(']', out);
}

static void j_names(FILE *out, const struct trace *t, const uint32_t *names, uint32_t n)
{
	fputc('[', out);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		j_name(out, t, names[i]);
	}
	fputc(']', out);
}

/* A list of layer indices and a list of pair indices: "[0,1,\"epilogue\"]", "[3,17]". */
static void j_layers(FILE *out, const struct comparison *c, const int32_t *layers, uint32_t n)
{
	fputc('[', out);
	for (uint32_t k = 0; k < n; k++) {
		if (k)
			fputc(',', out);
		j_layer(out, c, layers[k]);
	}
	fputc(']', out);
}

static void j_indices(FILE *out, const uint32_t *idx, uint32_t n)
{
	fputc('[', out);
	for (uint32_t k = 0; k < n; k++)
		fprintf(out, "%s%u", k ? "," : "", idx[k]);
	fputc(']', out);
}

/* What a pair is: "kind", "class", "atoms", "a_class_source", "b_class_source", "a_kernels",
 * "b_kernels" (with a leading comma). */
static void j_pair_what(FILE *out, const struct comparison *c, const struct comparison_pair *p)
{
	fprintf(out, ",\"kind\":\"%s\",\"class\":\"%s\",\"atoms\":",
		pair_kind_name((enum pair_kind)p->kind), class_name((enum op_class)p->cls));
	j_atoms(out, p->atoms);
	for (int s = 0; s < 2; s++) {
		const char *src = comparison_class_source(c, p, s, NULL);

		fprintf(out, ",\"%c_class_source\":", "ab"[s]);
		if (src)
			fprintf(out, "\"%s\"", src);
		else
			fputs("null", out);
	}
	fputs(",\"a_kernels\":", out);
	j_names(out, c->side[0]->t, p->side[0].names, p->side[0].n_names);
	fputs(",\"b_kernels\":", out);
	j_names(out, c->side[1]->t, p->side[1].names, p->side[1].n_names);
}

/* The pairs summed over the layers (summed_pairs.h), largest |delta| first; then the end of
 * the document. */
static void j_pair_groups(FILE *out, const struct comparison *c)
{
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed;

	for (size_t i = 0; i < n; i++) {
		const struct comparison_pair *p = &c->pairs[g[i].first];

		fputs(i ? ",\n    {\"layers\":" : "\n    {\"layers\":", out);
		j_layers(out, c, g[i].layers, g[i].n_layers);
		fputs(",\"pairs\":", out);
		j_indices(out, g[i].pairs, g[i].n_pairs);
		j_pair_what(out, c, p);
		fprintf(out, ",\"a_similar\":%s,\"b_similar\":%s,\"a_count\":",
			g[i].similar[0] ? "true" : "false", g[i].similar[1] ? "true" : "false");
		j_num(out, g[i].count[0], 3);
		fputs(",\"b_count\":", out);
		j_num(out, g[i].count[1], 3);
		j_times(out, g[i].ns[0], g[i].ns[1], g[i].delta_ns, g[i].ratio);
		j_ci(out, &g[i].ci);
		fputc('}', out);
	}
	fputs(n ? "\n  ]" : "]", out);
}

/* The chains neither side fuses (comparison.opportunities): advice. */
static void j_opportunities(FILE *out, const struct comparison *c)
{
	fputs(",\n  \"opportunities\": [", out);
	for (size_t i = 0; i < c->n_opportunities; i++) {
		const struct comparison_opportunity *op = &c->opportunities[i];
		const struct opportunity *o = &op->o;
		const char *k = op->chain->known ? op->chain->known : "";

		fprintf(out, "%s\n    {\"side\":\"%c\",\"chain\":[", i ? "," : "",
			op->side ? 'B' : 'A');
		for (int e = 0; e < op->chain->n; e++) {
			char buf[128];

			chain_element_text(op->chain, e, buf, sizeof buf);
			if (e)
				fputc(',', out);
			report_json_str(out, buf, strlen(buf));
		}
		fprintf(out, "],\"places\":%u,\"layers\":", o->places);
		j_layers(out, c, op->layers, op->n_layers);
		fprintf(out, ",\"kernels_per_place\":%u,\"kernels\":", o->per_place);
		j_names(out, c->side[op->side]->t, o->names, o->n_names);
		fputs(",\"us\":", out);
		j_us(out, o->ns);
		fputs(",\"launches\":", out);
		j_num(out, o->launches, 0);
		fputs(",\"idle_us\":", out);
		j_us(out, o->idle_ns);
		fputs(",\"bound_us\":", out);
		j_us(out, o->bound_ns);
		fputs(",\"known_kernels\":[", out);
		for (const char *p = k; *p;) {
			size_t len = strcspn(p, ",");

			if (p != k)
				fputc(',', out);
			report_json_str(out, p, len);
			p += len;
			if (*p)
				p++;
		}
		fputs("],\"catalogue\":", out);
		report_json_str(out, op->chain->origin, strlen(op->chain->origin));
		fputc('}', out);
	}
	fputs(c->n_opportunities ? "\n  ]" : "]", out);
}

static void j_kernel_totals(FILE *out, const struct comparison *c)
{
	fputs(",\n  \"kernel_totals\": [", out);
	for (size_t i = 0; i < c->n_kernel_totals; i++) {
		const struct comparison_kernel_total *k = &c->kernel_totals[i];

		fputs(i ? ",\n    {\"name\":" : "\n    {\"name\":", out);
		j_cstr(out, k->name);
		fprintf(out, ",\"class\":\"%s\",\"a_count\":%lld,\"b_count\":%lld,\"a_us\":",
			class_name((enum op_class)k->cls), (long long)k->count[0],
			(long long)k->count[1]);
		j_us(out, (double)k->ns[0]);
		fputs(",\"b_us\":", out);
		j_us(out, (double)k->ns[1]);
		fputs(",\"delta_us\":", out);
		j_us(out, (double)(k->ns[1] - k->ns[0]));
		fputc('}', out);
	}
	fputs(c->n_kernel_totals ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* A pair's efficiency figures, each side (null where unknown). */
static void j_pair_eff(FILE *out, const struct comparison_pair *p)
{
	static const char *const sides[] = { "a", "b" };

	for (int s = 0; s < 2; s++) {
		fprintf(out, ",\"%s_tflops\":", sides[s]);
		j_num(out, p->side[s].eff.tflops, 3);
	}
	for (int s = 0; s < 2; s++) {
		fprintf(out, ",\"%s_tbps\":", sides[s]);
		j_num(out, p->side[s].eff.tbps, 4);
	}
	for (int s = 0; s < 2; s++) {
		fprintf(out, ",\"%s_peak_share\":", sides[s]);
		j_num(out, p->side[s].eff.peak_share, 4);
	}
	for (int s = 0; s < 2; s++) {
		int b = p->side[s].eff.bound;

		fprintf(out, ",\"%s_bound\":%s", sides[s],
			b < 0 ? "null"
			: b   ? "\"compute\""
			      : "\"memory\"");
	}
	for (int s = 0; s < 2; s++) /* why the figures are null, where it is not "unknown" */
		if (p->side[s].eff.above_peak)
			fprintf(out, ",\"%s_eff_dropped\":\"above_peak\"", sides[s]);
}

/* Where side s's kernel time lies (struct side_coverage). */
static void j_coverage(FILE *out, const struct comparison *c, int s)
{
	const struct side_coverage *cv = &c->side[s]->cover;
	uint8_t top[CLASS_COUNT];
	size_t n = side_coverage_top(cv, top, CLASS_COUNT);

	fputs("{\"kernel_time_share\":", out);
	j_num(out, side_coverage_share(cv), 6);
	fputs(",\"compared_share\":", out);
	j_num(out, c->compared_share[s], 6);
	fputs(",\"kernels_share\":", out);
	j_num(out, side_coverage_kernels_share(cv), 6);
	fputs(",\"partial_us\":", out);
	j_us(out, (double)cv->partial_ns);
	fputs(",\"outside_us\":", out);
	j_us(out, (double)(cv->outside_ns[OUTSIDE_BEFORE] + cv->outside_ns[OUTSIDE_BETWEEN] +
			   cv->outside_ns[OUTSIDE_AFTER]));
	fputs(",\"outside_before_us\":", out);
	j_us(out, (double)cv->outside_ns[OUTSIDE_BEFORE]);
	fputs(",\"outside_between_us\":", out);
	j_us(out, (double)cv->outside_ns[OUTSIDE_BETWEEN]);
	fputs(",\"outside_after_us\":", out);
	j_us(out, (double)cv->outside_ns[OUTSIDE_AFTER]);
	fputs(",\"outside_top\":[", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"class\":\"%s\",\"us\":", i ? "," : "", class_name(top[i]));
		j_us(out, (double)cv->outside_class_ns[top[i]]);
		fprintf(out, ",\"kernels\":%u}", cv->outside_class_n[top[i]]);
	}
	fputs("]}", out);
}

/* The GPU peaks a side's figures are measured against, or null. */
static void j_peak(FILE *out, const struct gpu_peak *pk)
{
	if (!pk) {
		fputs("null", out);
		return;
	}
	fputs("{\"gpu\":", out);
	j_cstr(out, pk->name);
	fputs(",\"tflops\":{", out);
	for (int d = 0; d < EFF_N_DTYPES; d++) {
		fprintf(out, "%s\"%s\":", d ? "," : "", eff_dtype_name(d));
		j_num(out, pk->tflops[d] > 0 ? pk->tflops[d] : NAN, 2);
	}
	fputs("},\"tbps\":", out);
	j_num(out, pk->tbps, 4);
	fputc('}', out);
}

static void j_trace(FILE *out, const struct comparison *c, int s)
{
	const struct side *sd = c->side[s];
	const struct trace *t = sd->t;

	fputs("    {\"label\":", out);
	j_cstr(out, c->label[s]);
	fputs(",\"path\":", out);
	j_cstr(out, t->path);
	fputs(",\"format\":", out);
	j_cstr(out, t->format);
	fputs(",\"size\":", out);
	if (t->file_size >= 0)
		fprintf(out, "%lld", (long long)t->file_size);
	else
		fputs("null", out);
	fputs(",\"sha256\":", out);
	j_cstr(out, t->sha256[0] ? t->sha256 : NULL);
	fprintf(out, ",\"platform\":\"%s\",\"gpu\":", trace_platform_name(t->platform));
	if (t->gpu_name)
		j_name(out, t, t->gpu_name);
	else
		fputs("null", out);
	fprintf(out, ",\"kernels\":%zu,\"gpu_time_us\":", t->n_kernel_events);
	j_us(out, (double)trace_kernel_time(t));
	{
		const struct side_model *m = comparison_model(c, s);

		fprintf(out,
			",\"passes\":%u,\"phases\":{\"prefill\":%u,\"decode\":%u,\"mixed\":%u,"
			"\"train\":%u,\"unknown\":%u},\"layers\":%u",
			m->n_passes, m->phase_passes[PHASE_PREFILL], m->phase_passes[PHASE_DECODE],
			m->phase_passes[PHASE_MIXED], m->phase_passes[PHASE_TRAIN],
			m->phase_passes[PHASE_UNKNOWN], m->layers_per_pass);
	}
	fputs(",\"model\":", out);
	j_cstr(out, *side_model_name(sd, c->model[s]) ? side_model_name(sd, c->model[s]) : NULL);
	fputs(",\"models\":[", out);
	for (size_t m = 0; m < sd->n_models; m++) {
		fputs(m ? ",{\"name\":" : "{\"name\":", out);
		j_cstr(out, *side_model_name(sd, m) ? side_model_name(sd, m) : NULL);
		fprintf(out,
			",\"passes\":%u,\"layers\":%u,\"gpu_time_us\":", sd->models[m].n_passes,
			sd->models[m].layers_per_pass);
		j_us(out, (double)sd->models[m].dur);
		fputc('}', out);
	}
	fputc(']', out);
	fputs(",\"other_share\":", out);
	j_num(out, sd->classes.other_share, 6);
	fprintf(out, ",\"compared_passes\":%u,\"pass_us\":", c->passes[s]);
	j_us(out, c->ns[s]);
	fputs(",\"pass_wall_us\":", out);
	j_us(out, c->time[s].wall_ns);
	fputs(",\"pass_busy_us\":", out);
	j_us(out, c->time[s].busy_ns);
	fputs(",\"pass_idle_us\":", out);
	j_us(out, c->time[s].idle_ns);
	fputs(",\"pass_overlap_us\":", out);
	j_us(out, c->time[s].overlap_ns);
	fputs(",\"launches_per_pass\":", out);
	j_num(out, c->time[s].launches, 3);
	fputs(",\"capture\":", out);
	if (t->capture.path) {
		fputs("{\"path\":", out);
		j_cstr(out, t->capture.path);
		fprintf(out, ",\"graphs\":%zu,\"kernels\":%zu,\"joined\":%zu}", t->capture.graphs,
			t->capture.graph_kernels, t->capture.joined);
	} else {
		fputs("null", out);
	}
	if (t->n_repeats > 1) { /* only then: a report of two files stays as it was */
		fputs(",\"repeats\":[", out);
		for (size_t i = 0; i < t->n_repeats; i++) {
			const struct trace_repeat *r = &t->repeats[i];

			fputs(i ? ",{\"path\":" : "{\"path\":", out);
			j_cstr(out, r->path);
			fputs(",\"size\":", out);
			if (r->file_size >= 0)
				fprintf(out, "%lld", (long long)r->file_size);
			else
				fputs("null", out);
			fputs(",\"sha256\":", out);
			j_cstr(out, r->sha256[0] ? r->sha256 : NULL);
			fprintf(out, ",\"left_out\":%s}",
				c->repeat_out[s] && c->repeat_out[s][i] ? "true" : "false");
		}
		fputc(']', out);
	}
	fputs(",\"peak\":", out);
	j_peak(out, c->peak[s]);
	fputs(",\"device\":", out);
	if (t->device == TRACE_ALL_DEVICES)
		fputs("\"all\"", out);
	else if (t->device >= 0)
		fprintf(out, "%d", t->device);
	else
		fputs("null", out);
	fputs(",\"devices\":[", out);
	for (size_t i = 0, k = 0; i < t->n_devices; i++) {
		const struct trace_device *d = &t->devices[i];

		if (!d->kernels)
			continue;
		fprintf(out, "%s{\"id\":%d,\"gpu\":", k++ ? "," : "", d->id);
		if (d->name)
			j_name(out, t, d->name);
		else
			fputs("null", out);
		fprintf(out, ",\"kernels\":%lld,\"kernel_time_us\":", (long long)d->kernel_events);
		j_us(out, (double)d->kernel_time);
		fprintf(out, ",\"analysed\":%s}",
			t->device == d->id || t->device == TRACE_ALL_DEVICES ? "true" : "false");
	}
	fputc(']', out);
	fputs(",\"coverage\":", out);
	j_coverage(out, c, s);
	fputs(",\"pass_source\":", out);
	j_cstr(out, sd->pass_source);
	fputs(",\"layer_source\":", out);
	j_cstr(out, sd->layer_source);
	fputc('}', out);
}

static void j_int_or_null(FILE *out, int64_t v)
{
	if (v >= 0)
		fprintf(out, "%lld", (long long)v);
	else
		fputs("null", out);
}

static void j_mnk(FILE *out, const int64_t v[3])
{
	fprintf(out, "[%lld,%lld,%lld]", (long long)v[0], (long long)v[1], (long long)v[2]);
}

/* "ranks": every rank of two directories of per-rank traces (only then). */
static void j_ranks(FILE *out, const struct comparison *c)
{
	const struct comparison_ranks *r = c->ranks;

	if (!r)
		return;
	fputs(",\n  \"ranks\": {\"paired_by\":", out);
	j_cstr(out, r->paired_by);
	fprintf(out, ",\"chosen\":%lld,\"a_spread_us\":", (long long)r->r[r->chosen].rank);
	j_us(out, r->spread_ns[0]);
	fputs(",\"b_spread_us\":", out);
	j_us(out, r->spread_ns[1]);
	fprintf(out, ",\"a_slowest\":%lld,\"b_slowest\":%lld,\"ranks\":[",
		(long long)r->r[r->slowest[0]].rank, (long long)r->r[r->slowest[1]].rank);
	for (size_t i = 0; i < r->n; i++) {
		const struct comparison_rank *e = &r->r[i];

		fprintf(out, "%s\n    {\"rank\":%lld,\"a_path\":", i ? "," : "",
			(long long)e->rank);
		j_cstr(out, e->path[0]);
		fputs(",\"b_path\":", out);
		j_cstr(out, e->path[1]);
		fprintf(out, ",\"a_passes\":%u,\"b_passes\":%u", e->passes[0], e->passes[1]);
		j_times(out, e->ns[0], e->ns[1], e->delta_ns, e->ratio);
		fprintf(out, ",\"a_kernels\":%zu,\"b_kernels\":%zu}", e->kernels[0], e->kernels[1]);
	}
	fputs("\n  ]}", out);
}

/* "comparability": whether the sides ran the same workload (comparison.h). */
static void j_comparability(FILE *out, const struct comparison *c)
{
	const struct comparison_comparability *k = &c->comparability;

	fprintf(out,
		",\n  \"comparability\": {\"comparable\":%s,\"layers_per_pass\":[%u,%u],"
		"\"compared_passes\":[%u,%u],\"other_share\":[",
		k->comparable ? "true" : "false", comparison_model(c, 0)->layers_per_pass,
		comparison_model(c, 1)->layers_per_pass, c->passes[0], c->passes[1]);
	j_num(out, c->side[0]->classes.other_share, 6);
	fputc(',', out);
	j_num(out, c->side[1]->classes.other_share, 6);
	fputs("],\"batch\":[", out);
	for (int s = 0; s < 2; s++) {
		const struct comparison_batch *b = &k->batch[s];

		fputs(s ? ",{\"requests\":" : "{\"requests\":", out);
		j_int_or_null(out, b->requests);
		fputs(",\"tokens\":", out);
		j_int_or_null(out, b->tokens);
		fputs(",\"source\":", out);
		j_cstr(out, b->source);
		fprintf(out, ",\"varies\":%s}", b->varies ? "true" : "false");
	}
	fprintf(out, "],\"gemm_shapes\":{\"pairs\":%u,\"known\":%u,\"differ\":%u,\"first\":",
		k->gemm.pairs, k->gemm.known, k->gemm.differ);
	if (k->gemm.example >= 0) {
		fprintf(out, "{\"pair\":%lld,\"a_mnk\":", (long long)k->gemm.example);
		j_mnk(out, k->gemm.a);
		fputs(",\"b_mnk\":", out);
		j_mnk(out, k->gemm.b);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs("}}", out);
}

int report_write_json(FILE *out, const struct comparison *c)
{
	int first;

	fprintf(out,
		"{\n  \"schema_version\": 1,\n  \"tool_version\": \"fusediff %s\",\n  \"phase\": "
		"\"%s\",\n  \"note\": ",
		PACKAGE_VERSION, phase_name((enum phase)c->phase));
	j_cstr(out, c->note);
	fputs(",\n  \"a_us\": ", out);
	j_us(out, c->ns[0]);
	fputs(",\n  \"b_us\": ", out);
	j_us(out, c->ns[1]);
	fputs(",\n  \"delta_us\": ", out);
	j_us(out, c->delta_ns);
	fputs(",\n  \"ratio\": ", out);
	j_num(out, c->ratio, 4);
	j_noise(out, c);
	j_ranks(out, c);
	j_comparability(out, c);
	fputs(",\n  \"warnings\": [", out);
	for (size_t i = 0; i < c->n_warnings; i++) {
		fprintf(out, "%s\n    {\"code\":\"%s\",\"message\":", i ? "," : "",
			c->warnings[i].code);
		j_cstr(out, c->warnings[i].message);
		fputc('}', out);
	}
	fputs(c->n_warnings ? "\n  ],\n  \"attribution\": [" : "],\n  \"attribution\": [", out);
	for (size_t i = 0; i < c->n_attribution; i++) {
		const struct comparison_attribution *a = &c->attribution[i];

		fprintf(out, "%s\n    {\"kind\":\"%s\",\"class\":\"%s\",\"fusion\":", i ? "," : "",
			attribution_kind_name(a->kind), class_name((enum op_class)a->cls));
		if (a->fusion >= 0)
			fprintf(out, "%u", c->fusions[a->fusion].id);
		else
			fputs("null", out);
		fputs(",\"count\":", out);
		j_num(out, a->count, 3);
		fputs(",\"a_us\":", out);
		j_us(out, a->ns[0]);
		fputs(",\"b_us\":", out);
		j_us(out, a->ns[1]);
		fputs(",\"delta_us\":", out);
		j_us(out, a->delta_ns);
		j_ci(out, &a->ci);
		fputc('}', out);
	}
	fputs(c->n_attribution ? "\n  ]" : "]", out);

	fputs(",\n  \"traces\": [\n", out);
	j_trace(out, c, 0);
	fputs(",\n", out);
	j_trace(out, c, 1);
	fputs("\n  ],\n  \"classes\": [", out);
	first = 1;
	for (int k = 0; k < CLASS_COUNT; k++) {
		if (c->class_ns[0][k] == 0 && c->class_ns[1][k] == 0)
			continue;
		fprintf(out, "%s\n    {\"class\":\"%s\"", first ? "" : ",",
			class_name((enum op_class)k));
		j_times(out, c->class_ns[0][k], c->class_ns[1][k],
			c->class_ns[1][k] - c->class_ns[0][k],
			comparison_ratio(c->class_ns[0][k], c->class_ns[1][k]));
		j_ci(out, &c->class_ci[k]);
		fputc('}', out);
		first = 0;
	}

	fputs(first ? "],\n  \"layers\": [" : "\n  ],\n  \"layers\": [", out);
	for (size_t i = 0; i < c->n_layers; i++) {
		const struct comparison_layer *l = &c->layers[i];

		fputs(i ? ",\n    {\"index\":" : "\n    {\"index\":", out);
		j_layer(out, c, (int32_t)i);
		fprintf(out, ",\"phase\":\"%s\"", phase_name((enum phase)l->phase));
		j_times(out, l->ns[0], l->ns[1], l->delta_ns, l->ratio);
		j_ci(out, &l->ci);
		fputs(",\"a_kernels\":", out);
		j_num(out, l->kernels[0], 3);
		fputs(",\"b_kernels\":", out);
		j_num(out, l->kernels[1], 3);
		fprintf(out, ",\"fusions\":%u", l->n_fusions);
		fputs(",\"a_wall_us\":", out);
		j_us(out, l->wall_ns[0]);
		fputs(",\"b_wall_us\":", out);
		j_us(out, l->wall_ns[1]);
		fputs(",\"a_idle_us\":", out);
		j_us(out, l->idle_ns[0]);
		fputs(",\"b_idle_us\":", out);
		j_us(out, l->idle_ns[1]);
		fputc('}', out);
	}

	fputs(c->n_layers ? "\n  ],\n  \"pairs\": [" : "],\n  \"pairs\": [", out);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		fputs(i ? ",\n    {\"layer\":" : "\n    {\"layer\":", out);
		j_layer(out, c, p->layer);
		fprintf(out, ",\"position\":%u", p->position);
		j_pair_what(out, c, p);
		fputs(",\"a_count\":", out);
		j_num(out, p->side[0].count, 3);
		fputs(",\"b_count\":", out);
		j_num(out, p->side[1].count, 3);
		fputs(",\"a_avg_us\":", out);
		j_us(out, p->side[0].avg_ns);
		fputs(",\"b_avg_us\":", out);
		j_us(out, p->side[1].avg_ns);
		j_times(out, p->side[0].total_ns, p->side[1].total_ns, p->delta_ns, p->ratio);
		j_ci(out, &p->ci);
		j_pair_eff(out, p);
		fputs(",\"fusion\":", out);
		if (p->fusion >= 0)
			fprintf(out, "%u}", c->fusions[p->fusion].id);
		else
			fputs("null}", out);
	}

	fputs(c->n_pairs ? "\n  ],\n  \"fusions\": [" : "],\n  \"fusions\": [", out);
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *f = &c->fusions[i];

		fprintf(out,
			"%s\n    "
			"{\"id\":%u,\"kind\":\"%s\",\"class\":\"%s\",\"fused_side\":\"%c\","
			"\"partial\":%s,\"fused_kernel\":",
			i ? "," : "", f->id,
			attribution_kind_name(f->partial      ? ATTR_PARTIAL
					      : f->horizontal ? ATTR_HORIZONTAL
							      : ATTR_FUSION),
			class_name((enum op_class)f->cls), f->fused_side ? 'B' : 'A',
			f->partial ? "true" : "false");
		j_name(out, c->side[f->fused_side]->t, f->fused_name);
		fputs(",\"unfused_kernels\":", out);
		j_names(out, c->side[!f->fused_side]->t, f->unfused_names, f->n_unfused);
		fputs(",\"atoms\":", out);
		j_atoms(out, f->atoms);
		fprintf(out, ",\"proof\":\"%s\",\"occurrences\":%u,\"layers\":",
			comparison_proof_name(f), f->occurrences);
		j_layers(out, c, f->layers, f->n_layers);
		fputs(",\"pairs\":", out);
		j_indices(out, f->pairs, f->n_pairs);
		fputs(",\"a_us\":", out);
		j_us(out, f->ns[0]);
		fputs(",\"b_us\":", out);
		j_us(out, f->ns[1]);
		fputs(",\"delta_us\":", out);
		j_us(out, f->delta_ns);
		j_ci(out, &f->ci);
		fputs(",\"launches_saved\":", out);
		j_num(out, f->launches_saved, 3);
		fputs(",\"idle_us\":", out);
		j_us(out, f->idle_ns);
		fputs(",\"evidence\":", out);
		j_cstr(out, f->evidence);
		fputc('}', out);
	}
	fputs(c->n_fusions ? "\n  ],\n  \"pair_groups\": [" : "],\n  \"pair_groups\": [", out);
	j_pair_groups(out, c);
	j_opportunities(out, c);
	j_kernel_totals(out, c);
	return ferror(out) ? -1 : 0;
}
