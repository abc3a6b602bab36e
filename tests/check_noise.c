/* check_noise.c — how sure a difference is (comparison.h, struct comparison_ci): Welch's 95 %
 * interval of B - A over the passes of each side, the rows within noise, and the gates that
 * stand on it (gate.h), on hand-built passes of known spread. */
#include "jtrace.h"

#include <math.h>

#include "fusediff/gate.h"
#include "src/compare/compare_int.h"

static struct classifier *cl;

static void setup(void)
{
	cl = test_classifier();
}

static void teardown(void)
{
	classifier_free(cl);
}

/* Five decode passes, each a GEMM of base + offset[i] * spread us and a norm of 20 us. */
static struct trace *passes(double base, double spread)
{
	static const double offset[5] = { -1, -0.5, 0, 0.5, 1 };
	struct jbuf b = { .first = 1 };
	double cpu = 0, gpu = 1000;

	for (int i = 0; i < 5; i++) {
		char args[160];

		jevent(&b, "user_annotation", "decode", 1, 1, cpu, 50, "");
		b.corr++;
		snprintf(args, sizeof args, "\"correlation\":%lld", (long long)b.corr);
		jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, cpu + 1, 1, args);
		snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%lld",
			 (long long)b.corr);
		jevent(&b, "kernel", "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN", 0, 7, gpu,
		       base + offset[i] * spread, args);
		b.corr++;
		snprintf(args, sizeof args, "\"correlation\":%lld", (long long)b.corr);
		jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, cpu + 2, 1, args);
		snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%lld",
			 (long long)b.corr);
		jevent(&b, "kernel", "rms_norm_kernel", 0, 7, gpu + 300, 20, args);
		cpu += 100;
		gpu += 1000;
	}
	return jload(&b);
}

struct pair_of {
	struct trace *t[2];
	struct session *ses;
	const struct comparison *c;
};

static void compare(struct pair_of *p, double spread_pct)
{
	struct session_opts o = { .device = -1, .classifier = cl };
	struct fd_error err = { { 0 } };

	/* A's GEMM 100 us, B's 103 us: B 3 % slower on that row */
	p->t[0] = passes(100, spread_pct);
	p->t[1] = passes(103, spread_pct);
	ck_assert_int_eq(session_open_traces(&p->ses, p->t[0], p->t[1], &o, &err), 0);
	p->c = session_compare(p->ses, -1, &err);
	ck_assert_ptr_nonnull(p->c);
	ck_assert_uint_eq(p->c->passes[0], 5);
	ck_assert_uint_eq(p->c->passes[1], 5);
}

static void done(struct pair_of *p)
{
	session_close(p->ses);
	trace_free(p->t[0]);
	trace_free(p->t[1]);
}

/* The pair of the GEMM. */
static const struct comparison_pair *gemm_pair(const struct comparison *c)
{
	for (size_t i = 0; i < c->n_pairs; i++)
		if (c->pairs[i].cls == CLASS_GEMM)
			return &c->pairs[i];
	ck_abort_msg("no GEMM pair");
	return NULL;
}

/* Welch's interval in closed form: both sides have the offsets (-1, -0.5, 0, 0.5, 1) x spread,
 * so both variances are 0.625 spread^2, the degrees of freedom 2 (5 - 1) = 8, t = 2.306 and
 * the half-width 2.306 x sqrt(2 x 0.625 spread^2 / 5) = 1.153 spread. */
START_TEST(test_interval_closed_form)
{
	struct pair_of p;
	const struct comparison_pair *g;

	compare(&p, 0.5);
	g = gemm_pair(p.c);
	ck_assert_int_eq(p.c->ci_known, 1);
	ck_assert_double_eq_tol(g->delta_ns, 3000, 1e-6);
	ck_assert_double_eq_tol(g->ci.low_ns, 3000 - 1153 * 0.5, 1.0);
	ck_assert_double_eq_tol(g->ci.high_ns, 3000 + 1153 * 0.5, 1.0);
	ck_assert_double_eq_tol(g->ci.sd_ns[0], 1000 * 0.5 * sqrt(0.625), 1e-3);
	ck_assert_int_eq(g->ci.significant, 1);
	/* the norm is the same on both sides: within noise (no spread: an exact 0) */
	for (size_t i = 0; i < p.c->n_pairs; i++)
		if (p.c->pairs[i].cls == CLASS_NORM)
			ck_assert_int_eq(p.c->pairs[i].ci.significant, 0);
	/* the whole pass: 3 us slower, significant, all of it beyond noise */
	ck_assert_int_eq(p.c->ci.significant, 1);
	ck_assert_double_eq_tol(p.c->beyond_noise_ns, 3000, 1e-6);
	done(&p);

	ck_assert_double_eq_tol(noise_t975(8), 2.306, 1e-9);
	ck_assert_double_eq_tol(noise_t975(1e9), 1.95996, 1e-4);
	ck_assert_double_eq_tol(noise_t975(30), 2.042, 1e-9);
	ck_assert(noise_t975(30.5) < 2.042 && noise_t975(30.5) > 2.03);
	ck_assert(noise_t975(8.5) < 2.306 && noise_t975(8.5) > 2.262);
}
END_TEST

/* 3 % slower with 0.5 % of pass-to-pass spread is a difference; with 10 % it is noise, and
 * the gate says so. */
START_TEST(test_significant_only_beyond_noise)
{
	struct pair_of p;
	struct gate_opts go = { .slower_pct = 1, .min_delta_us = 0 };
	struct gate_result gr;

	compare(&p, 0.5);
	gate_check(p.c, &go, &gr);
	ck_assert_int_eq(gr.status, GATE_FAIL);
	ck_assert_msg(strstr(gr.verdict, "95% interval"), "%s", gr.verdict);
	done(&p);

	compare(&p, 10);
	ck_assert_int_eq(gemm_pair(p.c)->ci.significant, 0);
	ck_assert_int_eq(p.c->ci.significant, 0);
	ck_assert_double_eq_tol(p.c->beyond_noise_ns, 0, 1e-9);
	ck_assert_uint_ge(p.c->n_warnings, 1);
	ck_assert_str_eq(p.c->warnings[p.c->n_warnings - 1].code, "noisy");
	gate_check(p.c, &go, &gr);
	ck_assert_int_eq(gr.status, GATE_PASS);
	ck_assert_msg(strstr(gr.verdict, "the interval reaches down to the limit: passes"), "%s",
		      gr.verdict);
	done(&p);
}
END_TEST

/* --fail-if-below-peak's argument. */
START_TEST(test_parse_peaks)
{
	struct gate_opts o = { 0 };
	struct fd_error err = { { 0 } };

	ck_assert_int_eq(gate_parse_peaks("GEMM=50,Attention=30.5", &o, &err), 0);
	ck_assert_uint_eq(o.n_peak, 2);
	ck_assert_int_eq(o.peak[0].cls, CLASS_GEMM);
	ck_assert_double_eq(o.peak[1].pct, 30.5);
	memset(&o, 0, sizeof o);
	ck_assert_int_eq(gate_parse_peaks("GEMM", &o, &err), -1);
	ck_assert_str_eq(err.msg,
			 "--fail-if-below-peak needs CLASS=PCT[,CLASS=PCT...], not 'GEMM'");
	ck_assert_int_eq(gate_parse_peaks("Bogus=5", &o, &err), -1);
	ck_assert_str_eq(err.msg, "--fail-if-below-peak: no class 'Bogus' (GEMM, Attention, ...)");
	ck_assert_int_eq(gate_parse_peaks("GEMM=150", &o, &err), -1);
	ck_assert_str_eq(err.msg, "--fail-if-below-peak: GEMM needs a percentage from 0 to 100");
}
END_TEST

static Suite *noise_suite(void)
{
	Suite *s = suite_create("noise");
	TCase *tc = tcase_create("noise");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_interval_closed_form);
	tcase_add_test(tc, test_significant_only_beyond_noise);
	tcase_add_test(tc, test_parse_peaks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(noise_suite());
}
