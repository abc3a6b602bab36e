/* gate.h — verdicts for CI: is B slower than allowed, did B lose a fusion A has? Measured
 * against the noise of the traces themselves: a difference inside the pass-to-pass spread
 * never fails a gate. */
#ifndef FUSEDIFF_GATE_H
#define FUSEDIFF_GATE_H

#include "fusediff/comparison.h"

struct gate_opts {
	double slower_pct;   /* --fail-if-slower PCT; negative: not asked */
	int lost_fusion;     /* --fail-on-lost-fusion */
	double min_delta_us; /* --min-delta-us: smaller differences (per pass) never fail */
};

enum gate_status { GATE_NONE, GATE_PASS, GATE_FAIL, GATE_INCOMPARABLE };

struct gate_result {
	enum gate_status status;
	double change_pct; /* (B - A) / A per pass, in percent (NAN when A is 0) */
	double noise_pct;  /* the pass-to-pass spread: the larger coefficient of variation of the
			      compared passes' times, in percent (0 with a single pass) */
	int lost;	   /* fusions A has that B runs unfused, beyond min_delta_us */
	char verdict[512]; /* one line: what was checked and why it passes or fails */
};

/* Check the comparison against the gates asked for in o. */
void gate_check(const struct comparison *c, const struct gate_opts *o, struct gate_result *r);

#endif
