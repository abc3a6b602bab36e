/* comparison.c — two structured sides lined up layer by layer (see comparison.h).
 *
 * For the selected phase, each side's passes are merged per layer index into one canonical
 * step sequence (canonical.c: passes of one side are aligned against each other, so a step
 * present in only some passes gets its own slot instead of shifting the others). The
 * canonical sequences of A and B are then aligned (align.h), unmatched steps are absorbed into
 * nearby fused steps, and every aligned position becomes a pair with per-pass figures
 * (comparison_pairs.c). Fused pairs (and partial ones) are grouped into fusion patterns across
 * layers (fusion.c). This file chooses the phase and models, runs those steps in order
 * (compute()) and owns the comparison's labels and accessors. */
#include "fusediff/comparison.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canonical_int.h"
#include "compare_int.h"
#include "fusediff/efficiency.h"
#include "fusediff/summed_pairs.h"
#include "fusion_int.h"
#include "fusediff/text.h"
#include "fusediff/time_stats.h"

const char *pair_kind_name(enum pair_kind k)
{
	switch (k) {
	case PAIR_MATCH: return "match";
	case PAIR_FUSED: return "fused";
	case PAIR_A_ONLY: return "a_only";
	case PAIR_B_ONLY: return "b_only";
	}
	return "?";
}

int comparison_pass_compared(const struct comparison *c, int s, const struct pass *p)
{
	return (c->phase == PHASE_COUNT || p->phase == c->phase) && p->model == c->model[s] &&
	       !(c->repeat_out[s] && c->repeat_out[s][comparison_pass_capture(c->side[s], p)]);
}

/* --- the comparison ------------------------------------------------------------------------- */

static void clear_results(struct comparison *c)
{
	for (size_t i = 0; i < c->n_pairs; i++)
		for (int s = 0; s < 2; s++) {
			free(c->pairs[i].side[s].names);
			free(c->pairs[i].side[s].inst);
		}
	free(c->pairs);
	for (size_t i = 0; i < c->n_fusions; i++) {
		free(c->fusions[i].unfused_names);
		free(c->fusions[i].layers);
		free(c->fusions[i].pairs);
		free(c->fusions[i].evidence);
	}
	free(c->fusions);
	free(c->attribution);
	free(c->pair_part);
	c->pair_part = NULL;
	c->attribution = NULL;
	c->n_attribution = 0;
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i].message);
	free(c->warnings);
	c->warnings = NULL;
	c->n_warnings = 0;
	memset(&c->comparability, 0, sizeof c->comparability);
	free(c->layers);
	for (size_t i = 0; i < c->n_stacks; i++)
		free(c->stacks[i]);
	free(c->stacks);
	c->stacks = NULL;
	c->n_stacks = 0;
	free(c->note);
	free(c->repeat_out[0]);
	free(c->repeat_out[1]);
	c->repeat_out[0] = c->repeat_out[1] = NULL;
	c->pairs = NULL;
	c->fusions = NULL;
	c->layers = NULL;
	c->note = NULL;
	c->n_pairs = c->n_fusions = c->n_layers = 0;
	c->passes[0] = c->passes[1] = 0;
	c->ns[0] = c->ns[1] = c->delta_ns = 0;
	c->compared_share[0] = c->compared_share[1] = 0;
	c->ratio = NAN;
	memset(c->class_ns, 0, sizeof c->class_ns);
	memset(c->time, 0, sizeof c->time);
}

/* The passes per phase of the model compared on side s. */
const uint32_t *comparison_model_phases(const struct comparison *c, int s)
{
	static const uint32_t none[PHASE_COUNT];
	const struct side *sd = c->side[s];

	return c->model[s] < sd->n_models ? sd->models[c->model[s]].phase_passes : none;
}

/* "2 prefill and 16 decode passes" of side s's compared model into buf. */
void comparison_phases_text(const struct comparison *c, int s, char *buf, size_t cap)
{
	const uint32_t *ph = comparison_model_phases(c, s);
	size_t len = 0, k = 0, n = 0, total = 0;

	for (int p = 0; p < PHASE_COUNT; p++)
		n += ph[p] > 0, total += ph[p];
	buf[0] = '\0';
	for (int p = 0; p < PHASE_COUNT && len < cap; p++) {
		if (!ph[p])
			continue;
		k++;
		len += (size_t)snprintf(buf + len, cap - len, "%s%u %s",
					k == 1	 ? ""
					: k == n ? " and "
						 : ", ",
					ph[p], phase_name((enum phase)p));
	}
	if (len < cap)
		snprintf(buf + len, cap - len,
			 total == 1 ? " pass"
			 : total    ? " passes"
				    : "no pass");
}

/* The phase to show: the one asked for, else the first that both sides have. A phase asked for
 * that a side has no pass of is an error (-1 with err set). */
static int choose_phase(struct comparison *c, int phase, struct fd_error *err)
{
	const uint32_t *a = comparison_model_phases(c, 0), *b = comparison_model_phases(c, 1);

	if (phase >= 0 && phase < PHASE_COUNT && (!a[phase] || !b[phase])) {
		int s = !a[phase] ? 0 : 1;
		char has[128];

		comparison_phases_text(c, s, has, sizeof has);
		fd_error_set(err, "--phase %s: %c (%s) has no %s pass; it has %s",
			     phase_name((enum phase)phase), s ? 'B' : 'A', c->label[s],
			     phase_name((enum phase)phase), has);
		return -1;
	}
	if (phase >= 0 && phase <= PHASE_COUNT)
		return phase;
	for (int p = 0; p < PHASE_COUNT; p++)
		if (a[p] && b[p])
			return p;
	if (c->side[0]->n_passes && c->side[1]->n_passes)
		c->note = xstrdup("the two traces have no phase in common: comparing all passes");
	return PHASE_COUNT;
}

/* Whether model m of side s is the one asked for by name ("SD3Transformer2DModel_0") or by
 * class ("SD3Transformer2DModel"). */
static int model_is(const struct side *s, size_t m, const char *want)
{
	const char *n = side_model_name(s, m);
	size_t len = strlen(want);

	if (strcmp(n, want) == 0)
		return 1;
	if (strncmp(n, want, len) != 0 || n[len] != '_' || !n[len + 1])
		return 0;
	for (const char *p = n + len + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* The models to compare (see compare_opts.model). */
static int choose_models(struct comparison *c, const char *want, struct fd_error *err)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];
		size_t m;

		c->model[s] = sd->main_model;
		if (want) {
			for (m = 0; m < sd->n_models && !model_is(sd, m, want); m++)
				;
			if (m == sd->n_models && (sd->n_models > 1 || *side_model_name(sd, 0))) {
				fd_error_set(err, "--model %s: %c (%s) has no such model", want,
					     s ? 'B' : 'A', c->label[s]);
				return -1;
			}
			if (m < sd->n_models)
				c->model[s] = (uint16_t)m;
		} else if (s == 1) {
			const char *a = side_model_name(c->side[0], c->model[0]);

			for (m = 0; m < sd->n_models; m++)
				if (*a && strcmp(side_model_name(sd, m), a) == 0)
					c->model[s] = (uint16_t)m;
		}
	}
	return 0;
}

/* Two ranks of one job (distributedInfo: the same world size, two ranks) run the same code:
 * they differ in work, never in how it is fused, so a fusion between them is a difference of
 * the alignment, not a finding. The fused pairs become matches and the fusions go; a warning
 * (rank_alignment) says how many there were. */
static void drop_rank_fusions(struct comparison *c)
{
	const struct trace *a = c->side[0]->t, *b = c->side[1]->t;
	size_t fused = 0;

	if (a->world_size < 2 || a->world_size != b->world_size || a->rank == b->rank ||
	    a->rank < 0 || b->rank < 0 || !c->n_fusions)
		return;
	for (size_t i = 0; i < c->n_pairs; i++) {
		fused += c->pairs[i].kind == PAIR_FUSED;
		if (c->pairs[i].kind == PAIR_FUSED)
			c->pairs[i].kind = PAIR_MATCH;
		c->pairs[i].fusion = -1;
	}
	comparison_warn(c, "rank_alignment",
			"A and B are ranks %lld and %lld of one %lld-rank job: ranks differ in "
			"work, never in fusion, so %zu candidate fusion%s (%zu fused place%s) %s",
			(long long)a->rank, (long long)b->rank, (long long)a->world_size,
			c->n_fusions, c->n_fusions == 1 ? "" : "s", fused, fused == 1 ? "" : "s",
			c->n_fusions == 1 ? "is a difference of the alignment, not a finding"
					  : "are differences of the alignment, not findings");
	for (size_t i = 0; i < c->n_fusions; i++) {
		free(c->fusions[i].unfused_names);
		free(c->fusions[i].layers);
		free(c->fusions[i].pairs);
		free(c->fusions[i].evidence);
	}
	c->n_fusions = c->n_partial = 0;
	for (size_t k = 0; k < c->n_layers; k++)
		c->layers[k].n_fusions = 0;
}

/* canonical_merge_side() of side s of work w (run_two(): each writes only its own side's
 * merged layers and GEMM shapes). */
static void merge_side(void *w, int s)
{
	canonical_merge_side(w, s);
}

/* The pairs, fusions and figures of phase; busy[s] gets comparison_times()'s busy intervals of
 * side s (left NULL when there is no pass to compare). */
static int compute(struct comparison *c, int phase, struct busy_set *busy[2], struct fd_error *err)
{
	struct work w = { .s = { c->side[0], c->side[1] }, .c = c };
	struct fusion_hint *aux = NULL;

	clear_results(c);
	if ((c->phase = choose_phase(c, phase, err)) < 0)
		return -1;
	comparison_repeats_choose(c);
	for (int s = 0; s < 2; s++)
		for (size_t p = 0; p < c->side[s]->n_passes; p++)
			c->passes[s] += comparison_pass_compared(c, s, &c->side[s]->passes[p]);
	if (!c->passes[0] || !c->passes[1]) {
		/* Nothing to compare: figures of one side alone would read as differences. */
		if (!c->note)
			c->note = xasprintf("%s has no pass to compare",
					    !c->passes[0] ? c->label[0] : c->label[1]);
		c->ratio = NAN;
		return 0;
	}
	canonical_layers(c, &w);
	run_two(merge_side, &w);
	pairs_build(c, &w, &aux);
	fusion_mark_repeats(c, aux, 0);
	fusion_build(c, aux);
	drop_rank_fusions(c);
	pairs_layer_totals(c, &w);
	attribution_build(c);
	comparison_times(c, busy);
	comparability_build(c);
	free(aux);
	canonical_work_free(&w);
	return 0;
}

/* The default label of a side: "NVIDIA H200" from vendor and GPU. */
static char *default_label(const struct trace *t)
{
	const char *vendor = trace_platform_name(t->platform);
	const char *gpu = t->gpu_name ? trace_str(t, t->gpu_name) : "";

	if (!*gpu)
		return t->platform == PLATFORM_UNKNOWN ? xstrdup("unknown GPU")
						       : xasprintf("%s GPU", vendor);
	if (t->platform == PLATFORM_UNKNOWN || strncmp(gpu, vendor, strlen(vendor)) == 0)
		return text_escape_dup(gpu, strlen(gpu));
	{
		char *esc = text_escape_dup(gpu, strlen(gpu)), *l = xasprintf("%s %s", vendor, esc);

		free(esc);
		return l;
	}
}

static void set_labels(struct comparison *c, const struct compare_opts *o)
{
	for (int s = 0; s < 2; s++)
		c->label[s] = o && o->label[s] ? text_escape_dup(o->label[s], strlen(o->label[s]))
					       : default_label(c->side[s]->t);
	if (strcmp(c->label[0], c->label[1]) != 0)
		return;
	for (int s = 0; s < 2; s++) {
		const char *path = c->side[s]->t->path ? c->side[s]->t->path : "";
		const char *other = c->side[!s]->t->path ? c->side[!s]->t->path : "";
		const char *base = path_basename(path);

		if ((o && o->label[s]) || (o && o->label[!s]))
			continue; /* the user chose the same labels: keep them */
		free(c->label[s]);
		if (strcmp(base, path_basename(other)) != 0)
			c->label[s] = text_escape_dup(base, strlen(base));
		else if (strcmp(path, other) != 0)
			c->label[s] = text_escape_dup(path, strlen(path));
		else { /* the same file on both sides */
			char *esc = text_escape_dup(base, strlen(base));

			c->label[s] = xasprintf("%c: %s", s ? 'B' : 'A', esc);
			free(esc);
		}
	}
}

/* What comparison_build() derives from the pairs and fusions: the opportunities (the search
 * for the chains neither side fuses, the larger part of a phase's first build) on one thread,
 * the kernel totals, efficiencies, summed pairs and noise on the other. Neither writes what the
 * other reads: the search reads the pairs' kernels, the fusions and the layers, the others
 * write the pairs' efficiencies and intervals and tables of their own. */
struct derived_job {
	struct comparison *c;
	const struct compare_opts *o;
	const struct busy_set *const *busy; /* comparison_times()'s, for the search */
};

/* run_two(): 1 the opportunities, 0 the rest. */
static void derived_half(void *arg, int opportunities)
{
	struct derived_job *j = arg;

	if (opportunities) {
		comparison_opportunities(j->c, j->busy);
		return;
	}
	comparison_kernel_totals(j->c, j->o ? j->o->memo : NULL);
	comparison_efficiency(j->c, j->o ? j->o->peaks : NULL, j->o ? j->o->memo : NULL);
	comparison_summed_pairs(j->c);
	comparison_noise(j->c);
}

int comparison_build(struct comparison **out, const struct side *a, const struct side *b,
		     const struct classifier *cl, const struct compare_opts *o,
		     struct fd_error *err)
{
	struct comparison *c = xcalloc(1, sizeof *c);
	struct busy_set *busy[2] = { NULL, NULL };

	c->side[0] = a;
	c->side[1] = b;
	c->classifier = cl;
	c->ranks = o ? o->ranks : NULL;
	set_labels(c, o);
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;

		c->short_names[s] =
			xcalloc(intern_count(t->strings) + 1, sizeof *c->short_names[s]);
		for (size_t k = 0; k < t->n_kernels; k++)
			if (!c->short_names[s][t->kernels[k].name])
				c->short_names[s][t->kernels[k].name] =
					canonical_kernel_short(c->side[s], (uint32_t)k);
	}
	if (choose_models(c, o ? o->model : NULL, err) < 0 ||
	    compute(c, o ? o->phase : -1, busy, err) < 0) {
		comparison_busy_free(c, busy);
		comparison_free(c);
		*out = NULL;
		return -1;
	}
	{
		const struct busy_set *const kept[2] = { busy[0], busy[1] };
		struct derived_job d = { c, o, kept };

		run_two(derived_half, &d);
	}
	comparison_busy_free(c, busy);
	*out = c;
	return 0;
}

const char *comparison_short_name(const struct comparison *c, int s, uint32_t name)
{
	const char *n = c->short_names[s] && name < intern_count(c->side[s]->t->strings)
				? c->short_names[s][name]
				: NULL;

	return n ? n : trace_str(c->side[s]->t, name);
}

const char *comparison_class_source(const struct comparison *c, const struct comparison_pair *p,
				    int s, const struct kernel_info **info)
{
	const struct comparison_part *part = &p->side[s];
	const struct side *sd = c->side[s];

	if (info)
		*info = NULL;
	if (!part->n_names || !sd->classes.info_of)
		return NULL;
	for (uint32_t i = 0; i < part->n_inst; i++) {
		uint32_t k = part->inst[i].kernel;
		const struct kernel_info *ki;

		if (k >= sd->t->n_kernels || sd->t->kernels[k].name != part->names[0])
			continue;
		ki = trace_classes_get(&sd->classes, k);
		if (info)
			*info = ki;
		return ki->cls == p->cls || part->n_names == 1 ? class_source_name(ki->source)
							       : "eager run";
	}
	return NULL;
}

size_t comparison_top_pairs(const struct comparison *c, size_t first, size_t n, uint32_t *out,
			    size_t max)
{
	size_t k = 0;

	/* insertion into the sorted top list: no sort context needed, stable by pair index */
	for (size_t i = first; i < first + n && i < c->n_pairs; i++) {
		double d = fabs(c->pairs[i].delta_ns);
		size_t j;

		if (isnan(d) || (k == max && fabs(c->pairs[out[max - 1]].delta_ns) >= d))
			continue;
		for (j = k < max ? k : max; j > 0 && fabs(c->pairs[out[j - 1]].delta_ns) < d; j--)
			if (j < max)
				out[j] = out[j - 1];
		out[j] = (uint32_t)i;
		if (k < max)
			k++;
	}
	return k;
}

void comparison_free(struct comparison *c)
{
	if (!c)
		return;
	clear_results(c);
	free(c->label[0]);
	free(c->label[1]);
	free(c->short_names[0]);
	free(c->short_names[1]);
	free(c->kernel_totals);
	for (size_t i = 0; i < c->n_summed; i++) {
		free(c->summed[i].pairs);
		free(c->summed[i].layers);
	}
	free(c->summed);
	for (size_t i = 0; i < c->n_opportunities; i++) {
		opportunity_clear(&c->opportunities[i].o);
		free(c->opportunities[i].layers);
	}
	free(c->opportunities);
	free(c);
}
