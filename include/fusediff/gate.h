/* gate.h — verdicts for CI: is B slower than allowed, did B lose a fusion A has? Measured
 * against the noise of the traces themselves: a difference inside the pass-to-pass spread
 * never fails a gate. */
#ifndef FUSEDIFF_GATE_H
#define FUSEDIFF_GATE_H

#include "fusediff/comparison.h"

/* One class of --fail-if-below-peak: B's share of the GPU's peak for its kernels must be at
 * least pct. */
struct gate_peak {
	uint8_t cls; /* enum op_class */
	double pct;
};

#define GATE_MAX_PEAKS 8

struct gate_opts {
	double slower_pct;   /* --fail-if-slower PCT; negative: not asked */
	int lost_fusion;     /* --fail-on-lost-fusion */
	double min_delta_us; /* --min-delta-us: smaller differences (per pass) never fail */
	struct gate_peak peak[GATE_MAX_PEAKS]; /* --fail-if-below-peak CLASS=PCT,... */
	size_t n_peak;
};

/* Parse --fail-if-below-peak's CLASS=PCT[,CLASS=PCT...] ("GEMM=50,Attention=30") into o.
 * Returns 0, or -1 with a message in err. */
int gate_parse_peaks(const char *spec, struct gate_opts *o, struct fd_error *err);

enum gate_status { GATE_NONE, GATE_PASS, GATE_FAIL, GATE_INCOMPARABLE };

struct gate_result {
	enum gate_status status;
	double change_pct; /* (B - A) / A per pass, in percent (NAN when A is 0) */
	double noise_pct;  /* the pass-to-pass spread: the larger coefficient of variation of the
			      compared passes' times, in percent (0 with a single pass) */
	double low_pct, high_pct; /* the 95 % interval of the change (comparison.ci), in percent
				     of A; NAN without one */
	int lost;		  /* fusions A has that B runs unfused, beyond min_delta_us */
	char verdict[512];	  /* one line: what was checked and why it passes or fails */
};

/* Check the comparison against the gates asked for in o. */
void gate_check(const struct comparison *c, const struct gate_opts *o, struct gate_result *r);

#endif
