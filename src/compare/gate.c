/* gate.c — the CI verdicts (gate.h). */
#include "fusediff/gate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fusediff/structure.h"

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

void gate_check(const struct comparison *c, const struct gate_opts *o, struct gate_result *r)
{
	size_t len = 0;
	int slow_fail = 0;

	memset(r, 0, sizeof *r);
	r->change_pct = c->ns[0] > 0 ? (c->ns[1] - c->ns[0]) / c->ns[0] * 100.0 : NAN;
	r->noise_pct = fmax(pass_cv(c, 0), pass_cv(c, 1)) * 100.0;
	if (o->slower_pct < 0 && !o->lost_fusion) {
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

		if (r->change_pct > o->slower_pct) {
			if (fabs(delta_us) < o->min_delta_us)
				why = " but under --min-delta-us: passes";
			else if (r->change_pct <= r->noise_pct)
				why = " but inside the pass-to-pass noise: passes";
			else
				slow_fail = 1;
		}
		len += (size_t)snprintf(r->verdict + len, sizeof r->verdict - len,
					"B is %.2f%% %s per pass than A (%+.1f us; limit %.2f%%, "
					"noise %.2f%%)%s%s",
					fabs(r->change_pct),
					r->change_pct > 0 ? "slower" : "faster", delta_us,
					o->slower_pct, r->noise_pct, why,
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
	r->status = slow_fail || r->lost ? GATE_FAIL : GATE_PASS;
}
