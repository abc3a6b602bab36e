/* noise.c — how sure each row's B - A is (struct comparison_ci in comparison.h).
 *
 * The passes of a side are repeated runs of the same work (decode steps, training steps,
 * repeated forwards): every row of every table has one sample per compared pass on each side,
 * the row's kernel time in that pass. The two sides are independent samples of possibly
 * different spread, so the interval of the difference of their means is Welch's: B - A plus or
 * minus t(0.975, df) times sqrt(var_A / n_A + var_B / n_B), with the Welch-Satterthwaite
 * degrees of freedom. It is known when both sides have at least three passes; a row is
 * significant when its interval excludes 0.
 *
 * A row of one layer (a pair, a layer) is sampled over the passes that have the layer (where
 * any of its pairs ran), as its per-pass figures are; a row made of several (a fusion, a group
 * of summed pairs, a part of the attribution) sums its pairs' samples, a pair's mean standing
 * in for the passes that lack its layer, so that the row's mean stays its figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/text.h"

#define MIN_PASSES 3

double noise_t975(double df)
{
	/* t(0.975) for 1 .. 30 degrees of freedom */
	static const double t[31] = { 0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				      2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				      2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
				      2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042 };
	const double z = 1.959964;

	if (!(df > 1))
		return t[1];
	if (df <= 30) { /* between the table's whole degrees of freedom: linear in 1 / df */
		int lo = (int)df;
		double f;

		if (lo >= 30)
			return t[30];
		f = (1.0 / lo - 1.0 / df) / (1.0 / lo - 1.0 / (lo + 1));
		return t[lo] + f * (t[lo + 1] - t[lo]);
	}
	/* Cornish-Fisher expansion: within 1e-4 of the exact quantile beyond 30 */
	return z + (z * z * z + z) / (4 * df) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
}

/* The interval from the samples of each side (n[s] of them in x[s]). */
static void welch(const double *const x[2], const size_t n[2], struct comparison_ci *ci)
{
	double mean[2], var[2], se2, df;

	ci->low_ns = ci->high_ns = NAN;
	ci->sd_ns[0] = ci->sd_ns[1] = NAN;
	ci->significant = -1;
	for (int s = 0; s < 2; s++) {
		double sum = 0, sq = 0;

		if (n[s] < MIN_PASSES)
			return;
		for (size_t i = 0; i < n[s]; i++)
			sum += x[s][i];
		mean[s] = sum / (double)n[s];
		for (size_t i = 0; i < n[s]; i++)
			sq += (x[s][i] - mean[s]) * (x[s][i] - mean[s]);
		var[s] = sq / (double)(n[s] - 1);
		ci->sd_ns[s] = sqrt(var[s]);
	}
	se2 = var[0] / (double)n[0] + var[1] / (double)n[1];
	if (se2 <= 0) { /* no spread at all: the difference is what it is */
		ci->low_ns = ci->high_ns = mean[1] - mean[0];
	} else {
		double a = var[0] / (double)n[0], b = var[1] / (double)n[1], h;

		df = se2 * se2 / (a * a / (double)(n[0] - 1) + b * b / (double)(n[1] - 1));
		h = noise_t975(df) * sqrt(se2);
		ci->low_ns = mean[1] - mean[0] - h;
		ci->high_ns = mean[1] - mean[0] + h;
	}
	ci->significant = ci->low_ns > 0 || ci->high_ns < 0;
}

/* The samples of every pair on each side: x[s][pair * slots[s] + slot], NAN where the pass
 * lacks the pair's layer. */
struct samples {
	size_t slots[2];     /* compared passes */
	int32_t *slot_of[2]; /* per side pass: its slot, -1 when not compared */
	double *x[2];	     /* per pair and slot */
	double *mean[2];     /* per pair: over the slots that have its layer */
	double *scratch[2];  /* slots[s] values */
};

static void samples_build(const struct comparison *c, struct samples *sm)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];
		size_t n = 0, ns;
		uint8_t *present;

		sm->slot_of[s] =
			xmalloc((sd->n_passes ? sd->n_passes : 1) * sizeof *sm->slot_of[s]);
		for (size_t p = 0; p < sd->n_passes; p++)
			sm->slot_of[s][p] =
				comparison_pass_compared(c, s, &sd->passes[p]) ? (int32_t)n++ : -1;
		sm->slots[s] = ns = n;
		sm->x[s] = xcalloc(c->n_pairs * ns + 1, sizeof *sm->x[s]);
		sm->mean[s] = xcalloc(c->n_pairs + 1, sizeof *sm->mean[s]);
		sm->scratch[s] = xmalloc((ns + 1) * sizeof *sm->scratch[s]);
		/* where a layer ran: any of its pairs has an instance in the pass */
		present = xcalloc(c->n_layers * ns + 1, 1);
		for (size_t i = 0; i < c->n_pairs; i++) {
			const struct comparison_part *part = &c->pairs[i].side[s];

			for (uint32_t k = 0; k < part->n_inst; k++) {
				int32_t slot = part->inst[k].pass < sd->n_passes
						       ? sm->slot_of[s][part->inst[k].pass]
						       : -1;

				if (slot < 0)
					continue;
				sm->x[s][i * ns + (size_t)slot] +=
					(double)sd->t->kernels[part->inst[k].kernel].dur;
				present[(size_t)c->pairs[i].layer * ns + (size_t)slot] = 1;
			}
		}
		for (size_t i = 0; i < c->n_pairs; i++) {
			double sum = 0;
			size_t m = 0;

			for (size_t j = 0; j < ns; j++) {
				if (!present[(size_t)c->pairs[i].layer * ns + j]) {
					sm->x[s][i * ns + j] = NAN;
					continue;
				}
				sum += sm->x[s][i * ns + j];
				m++;
			}
			sm->mean[s][i] = m ? sum / (double)m : 0;
		}
		free(present);
	}
}

static void samples_free(struct samples *sm)
{
	for (int s = 0; s < 2; s++) {
		free(sm->slot_of[s]);
		free(sm->x[s]);
		free(sm->mean[s]);
		free(sm->scratch[s]);
	}
}

/* The interval of one pair: over the passes that have its layer. */
static void pair_ci(const struct samples *sm, size_t pair, struct comparison_ci *ci)
{
	const double *x[2] = { sm->scratch[0], sm->scratch[1] };
	size_t n[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		for (size_t j = 0; j < sm->slots[s]; j++) {
			double v = sm->x[s][pair * sm->slots[s] + j];

			if (!isnan(v))
				sm->scratch[s][n[s]++] = v;
		}
	welch(x, n, ci);
}

/* The interval of a row made of pairs rows[0..n) (or of pairs first .. first + n - 1 when rows
 * is NULL): their samples summed per pass, a pair's mean where the pass lacks its layer. With
 * layer set, only the passes that have that layer count (a layer's own row). */
static void sum_ci(const struct samples *sm, const uint32_t *rows, size_t first, size_t n,
		   int layer_only, struct comparison_ci *ci)
{
	const double *x[2] = { sm->scratch[0], sm->scratch[1] };
	size_t cnt[2] = { 0, 0 };

	for (int s = 0; s < 2; s++) {
		size_t ns = sm->slots[s];

		for (size_t j = 0; j < ns; j++) {
			double v = 0;
			int any = 0;

			for (size_t k = 0; k < n; k++) {
				size_t i = rows ? rows[k] : first + k;
				double y = sm->x[s][i * ns + j];

				any |= !isnan(y);
				v += isnan(y) ? sm->mean[s][i] : y;
			}
			if (!layer_only || any || !n)
				sm->scratch[s][cnt[s]++] = v;
		}
	}
	welch(x, cnt, ci);
}

/* The whole pass and each class, from the side's own steps (a step counts under its class,
 * as class_ns does). */
static void pass_and_class_ci(struct comparison *c, const struct samples *sm)
{
	double *tot[2], *cls[2];
	const double *x[2];
	size_t n[2];

	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];
		size_t ns = sm->slots[s];

		tot[s] = xcalloc(ns + 1, sizeof *tot[s]);
		cls[s] = xcalloc((size_t)CLASS_COUNT * ns + 1, sizeof *cls[s]);
		for (size_t p = 0; p < sd->n_passes; p++) {
			const struct pass *ps = &sd->passes[p];
			int32_t slot = sm->slot_of[s][p];

			if (slot < 0)
				continue;
			for (uint32_t l = 0; l < ps->layer_n; l++) {
				const struct layer *ly = &sd->layers[ps->layer_first + l];

				for (uint32_t k = 0; k < ly->step_n; k++) {
					const struct step *st = &sd->steps[ly->step_first + k];
					int cl = st->cls < CLASS_COUNT ? st->cls : CLASS_OTHER;

					cls[s][(size_t)cl * ns + (size_t)slot] += (double)st->dur;
				}
			}
			for (uint32_t i = 0; i < ps->n; i++)
				tot[s][slot] +=
					(double)sd->t->kernels[sd->order[ps->first + i]].dur;
		}
		n[s] = ns;
	}
	x[0] = tot[0];
	x[1] = tot[1];
	welch(x, n, &c->ci);
	for (int k = 0; k < CLASS_COUNT; k++) {
		x[0] = cls[0] + (size_t)k * sm->slots[0];
		x[1] = cls[1] + (size_t)k * sm->slots[1];
		welch(x, n, &c->class_ci[k]);
	}
	for (int s = 0; s < 2; s++) {
		free(tot[s]);
		free(cls[s]);
	}
}

/* The pairs of attribution part a (c->pair_part), into rows; returns how many. */
static size_t part_pairs(const struct comparison *c, size_t a, uint32_t *rows)
{
	size_t n = 0;

	for (size_t i = 0; c->pair_part && i < c->n_pairs; i++)
		if (c->pair_part[i] == a)
			rows[n++] = (uint32_t)i;
	return n;
}

void comparison_noise(struct comparison *c)
{
	struct samples sm;
	uint32_t *rows;

	c->ci_known = c->passes[0] >= MIN_PASSES && c->passes[1] >= MIN_PASSES;
	samples_build(c, &sm);
	pass_and_class_ci(c, &sm);
	for (size_t i = 0; i < c->n_pairs; i++)
		pair_ci(&sm, i, &c->pairs[i].ci);
	for (size_t k = 0; k < c->n_layers; k++)
		sum_ci(&sm, NULL, c->layers[k].pair_first, c->layers[k].pair_n, 1,
		       &c->layers[k].ci);
	for (size_t f = 0; f < c->n_fusions; f++)
		sum_ci(&sm, c->fusions[f].pairs, 0, c->fusions[f].n_pairs, 0, &c->fusions[f].ci);
	for (size_t g = 0; g < c->n_summed; g++)
		sum_ci(&sm, c->summed[g].pairs, 0, c->summed[g].n_pairs, 0, &c->summed[g].ci);
	rows = xmalloc((c->n_pairs + 1) * sizeof *rows);
	c->beyond_noise_ns = c->ci_known ? 0 : NAN;
	for (size_t a = 0; a < c->n_attribution; a++) {
		struct comparison_attribution *at = &c->attribution[a];

		sum_ci(&sm, rows, 0, part_pairs(c, a, rows), 0, &at->ci);
		if (at->ci.significant == 1)
			c->beyond_noise_ns += at->delta_ns;
	}
	free(rows);
	samples_free(&sm);
	if (c->ci_known && c->ci.significant == 0 && c->delta_ns != 0) {
		char d[32], lo[32], hi[32], sa[32], sb[32];

		comparison_warn(
			c, "noisy",
			"B - A (%s us per pass) is within the pass-to-pass noise: its 95 %% "
			"interval is %s .. %s us (spread A %s us, B %s us)",
			text_fixed(d, sizeof d, c->delta_ns / 1000.0, 1, 1),
			text_fixed(lo, sizeof lo, c->ci.low_ns / 1000.0, 1, 1),
			text_fixed(hi, sizeof hi, c->ci.high_ns / 1000.0, 1, 1),
			text_fixed(sa, sizeof sa, c->ci.sd_ns[0] / 1000.0, 1, 0),
			text_fixed(sb, sizeof sb, c->ci.sd_ns[1] / 1000.0, 1, 0));
	}
}
