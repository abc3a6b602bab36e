/* gate.c — the CI verdicts (gate.h). */
#include "fusediff/gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/structure.h"
#include "fusediff/text.h"
#include "fusediff/util.h"

/* Coefficient of variation of the durations of side s's compared passes (phase and model of
 * the comparison), 0 with fewer than two. */
static double pass_cv(const struct comparison *c, int s)
{
	const struct side *sd = c->side[s];
	double sum = 0, sq = 0, mean;
	size_t n = 0;

	for (size_t i = 0; i < sd->n_passes; i++) {
		const struct pass *p = &sd->passes[i];

		if (p->model != c->model[s] || (c->phase != PHASE_COUNT && p->phase != c->phase))
			continue;
		sum += (double)p->dur;
		sq += (double)p->dur * (double)p->dur;
		n++;
	}
	if (n < 2 || sum <= 0)
		return 0;
	mean = sum / (double)n;
	return sqrt(fmax(0, sq / (double)n - mean * mean)) / mean;
}

int gate_parse_peaks(const char *spec, struct gate_opts *o, struct fd_error *err)
{
	const char *p = spec;

	while (*p) {
		size_t n = strcspn(p, "=,");
		char cls[32], *end;
		int k;
		double pct;

		if (p[n] != '=' || n == 0 || n >= sizeof cls) {
			fd_error_set(
				err,
				"--fail-if-below-peak needs CLASS=PCT[,CLASS=PCT...], not '%s'",
				spec);
			return -1;
		}
		memcpy(cls, p, n);
		cls[n] = '\0';
		if ((k = class_from_name(cls)) < 0) {
			fd_error_set(err,
				     "--fail-if-below-peak: no class '%s' (GEMM, Attention, ...)",
				     cls);
			return -1;
		}
		pct = strtod(p + n + 1, &end);
		if (end == p + n + 1 || (*end && *end != ',') || !(pct >= 0 && pct <= 100)) {
			fd_error_set(err,
				     "--fail-if-below-peak: %s needs a percentage from 0 to 100",
				     cls);
			return -1;
		}
		if (o->n_peak == GATE_MAX_PEAKS) {
			fd_error_set(err, "--fail-if-below-peak: at most %d classes",
				     GATE_MAX_PEAKS);
			return -1;
		}
		o->peak[o->n_peak++] = (struct gate_peak){ (uint8_t)k, pct };
		p = *end ? end + 1 : end;
	}
	if (!o->n_peak) {
		fd_error_set(err, "--fail-if-below-peak needs CLASS=PCT[,CLASS=PCT...]");
		return -1;
	}
	return 0;
}

/* B's share of its GPU's peak for the kernels of class cls: the pairs' figures weighted by
 * their time on B (NAN when none has one); *covered gets the share of the class's time on B
 * that has figures. */
static double peak_share_b(const struct comparison *c, int cls, double *covered)
{
	double w = 0, sum = 0, all = 0;

	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];
		const struct comparison_part *b = &p->side[SIDE_B];

		if (p->cls != cls || b->total_ns <= 0)
			continue;
		all += b->total_ns;
		if (!isfinite(b->eff.peak_share))
			continue;
		w += b->total_ns;
		sum += b->total_ns * b->eff.peak_share;
	}
	*covered = all > 0 ? w / all : 0;
	return w > 0 ? sum / w : NAN;
}

/* The --fail-if-below-peak verdicts into r->verdict from len; returns 1 when one failed, 4
 * (GATE_INCOMPARABLE) when a class has no figures on B, else 0. */
static int peak_gates(const struct comparison *c, const struct gate_opts *o, struct gate_result *r,
		      size_t *len)
{
	int fail = 0;

	for (size_t i = 0; i < o->n_peak; i++) {
		double covered, share = peak_share_b(c, o->peak[i].cls, &covered);
		const char *name = class_name((enum op_class)o->peak[i].cls);
		char n[3][40];

		if (*len >= sizeof r->verdict)
			break;
		if (isnan(share)) {
			*len += (size_t)snprintf(r->verdict + *len, sizeof r->verdict - *len,
						 "%sB's %s kernels have no efficiency figures "
						 "(record shapes, or name "
						 "the GPU with --peaks): not comparable",
						 *len ? "; " : "", name);
			return 4;
		}
		fail |= share * 100.0 < o->peak[i].pct;
		*len += (size_t)snprintf(
			r->verdict + *len, sizeof r->verdict - *len,
			"%sB's %s kernels run at %s%% of the GPU's peak (over %s%% "
			"of their time; limit %s%%)%s",
			*len ? "; " : "", name, text_fixed(n[0], sizeof n[0], share * 100.0, 1, 0),
			text_fixed(n[1], sizeof n[1], covered * 100.0, 0, 0),
			text_fixed(n[2], sizeof n[2], o->peak[i].pct, 1, 0),
			share * 100.0 < o->peak[i].pct ? ": FAILED" : ": passes");
	}
	return fail;
}

void gate_check(const struct comparison *c, const struct gate_opts *o, struct gate_result *r)
{
	size_t len = 0;
	int slow_fail = 0, peak;

	memset(r, 0, sizeof *r);
	r->change_pct = c->ns[0] > 0 ? (c->ns[1] - c->ns[0]) / c->ns[0] * 100.0 : NAN;
	r->noise_pct = fmax(pass_cv(c, 0), pass_cv(c, 1)) * 100.0;
	r->low_pct = c->ci_known && c->ns[0] > 0 ? c->ci.low_ns / c->ns[0] * 100.0 : NAN;
	r->high_pct = c->ci_known && c->ns[0] > 0 ? c->ci.high_ns / c->ns[0] * 100.0 : NAN;
	if (o->slower_pct < 0 && !o->lost_fusion && !o->n_peak) {
		r->status = GATE_NONE;
		return;
	}
	if (c->note || !c->passes[0] || !c->passes[1] || isnan(r->change_pct)) {
		r->status = GATE_INCOMPARABLE;
		snprintf(r->verdict, sizeof r->verdict, "not comparable: %s",
			 c->note ? c->note : "a side has no pass with kernel time to compare");
		return;
	}
	if (!c->comparability.comparable) { /* another depth, batch or GEMM shapes */
		r->status = GATE_INCOMPARABLE;
		snprintf(r->verdict, sizeof r->verdict, "not comparable: %s",
			 c->comparability.why ? c->comparability.why
					      : "the sides did not run the same workload");
		return;
	}
	if (o->slower_pct >= 0) {
		double delta_us = (c->ns[1] - c->ns[0]) / 1000.0;
		const char *why = "";
		char evidence[96], n[3][40];

		/* With an interval: fail only when all of it is above the limit. Without (fewer
		 * than three passes a side): the change against the pass-to-pass spread. */
		if (!isnan(r->low_pct))
			snprintf(evidence, sizeof evidence,
				 "95%% interval %s%% .. %s%%, limit %s%%",
				 text_fixed(n[0], sizeof n[0], r->low_pct, 2, 1),
				 text_fixed(n[1], sizeof n[1], r->high_pct, 2, 1),
				 text_fixed(n[2], sizeof n[2], o->slower_pct, 2, 0));
		else
			snprintf(evidence, sizeof evidence, "limit %s%%, noise %s%%, no interval",
				 text_fixed(n[0], sizeof n[0], o->slower_pct, 2, 0),
				 text_fixed(n[1], sizeof n[1], r->noise_pct, 2, 0));
		if (r->change_pct > o->slower_pct) {
			if (fabs(delta_us) < o->min_delta_us)
				why = " but under --min-delta-us: passes";
			else if (!isnan(r->low_pct) && r->low_pct <= o->slower_pct)
				why = " but the interval reaches down to the limit: passes";
			else if (isnan(r->low_pct) && r->change_pct <= r->noise_pct)
				why = " but inside the pass-to-pass noise: passes";
			else
				slow_fail = 1;
		}
		len += (size_t)snprintf(r->verdict + len, sizeof r->verdict - len,
					"B is %s%% %s per pass than A (%s us; %s)%s%s",
					text_fixed(n[0], sizeof n[0], fabs(r->change_pct), 2, 0),
					r->change_pct > 0 ? "slower" : "faster",
					text_fixed(n[1], sizeof n[1], delta_us, 1, 1), evidence,
					why,
					slow_fail ? ": FAILED"
					: *why	  ? ""
						  : ": passes");
	}
	if (o->lost_fusion) {
		for (size_t i = 0; i < c->n_fusions; i++)
			r->lost += c->fusions[i].fused_side == SIDE_A && !c->fusions[i].partial &&
				   fabs(c->fusions[i].delta_ns) / 1000.0 >= o->min_delta_us;
		if (len < sizeof r->verdict)
			len += (size_t)snprintf(r->verdict + len, sizeof r->verdict - len,
						"%s%d fusion%s A has that B runs unfused%s",
						len ? "; " : "", r->lost, r->lost == 1 ? "" : "s",
						r->lost ? ": FAILED" : ": passes");
	}
	peak = peak_gates(c, o, r, &len);
	if (peak == 4) {
		r->status = GATE_INCOMPARABLE;
		return;
	}
	r->status = slow_fail || r->lost || peak ? GATE_FAIL : GATE_PASS;
}
