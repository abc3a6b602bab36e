/* check_time.c — time beyond kernel sums (time_stats.h): wall, busy, idle and overlap of
 * kernels on overlapping streams, worked out by hand; and on the bundled eager/compiled pair,
 * busy within wall, the eager side's launches, and what each fusion saves. */
#include "jtrace.h"

#include "fusediff/time_stats.h"

/* Four 5-us kernels on two streams: [0,5] and [2,7] overlap, then a gap, then [20,25] and
 * [24,29]. Busy is [0,7] + [20,29] = 16 us of a 29-us wall; 20 us of kernel time, 4 of it
 * overlapping. */
START_TEST(test_overlapping_streams)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct time_span ts;
	struct busy_set bs;
	uint32_t all[4] = { 3, 1, 2, 0 }; /* any order */

	jkernel(&b, "k0", 1, 100, 7);
	jkernel(&b, "k1", 2, 102, 8);
	jkernel(&b, "k2", 3, 120, 7);
	jkernel(&b, "k3", 4, 124, 8);
	t = jload(&b);
	ck_assert_uint_eq(t->n_kernels, 4);
	time_span_of(t, all, 4, &ts, &bs);
	ck_assert_int_eq(ts.wall, 29000);
	ck_assert_int_eq(ts.busy, 16000);
	ck_assert_int_eq(ts.sum, 20000);
	ck_assert_uint_eq(ts.n, 4);
	ck_assert_uint_eq(bs.n, 2);
	ck_assert_int_eq(bs.end[0] - bs.start[0], 7000);
	/* idle windows: the gap is 13 us, whatever part of a busy interval a window covers */
	ck_assert_int_eq(busy_set_idle(&bs, bs.start[0], bs.start[0] + 29000, NULL), 13000);
	ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 5000, bs.start[0] + 20000, NULL), 13000);
	ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 1000, bs.start[0] + 6000, NULL), 0);
	ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 8000, bs.start[0] + 10000, NULL), 2000);
	ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 10000, bs.start[0] + 8000, NULL), 0);
	{
		/* the same from a hint, right or wrong (past the end, then the last answer) */
		size_t near = bs.n;

		ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 8000, bs.start[0] + 10000, &near),
				 2000);
		ck_assert_uint_eq(near, 1);
		ck_assert_int_eq(busy_set_idle(&bs, bs.start[0], bs.start[0] + 29000, &near),
				 13000);
		ck_assert_uint_eq(near, 0);
		near = 7;
		ck_assert_int_eq(busy_set_idle(&bs, bs.start[0] + 5000, bs.start[0] + 20000, &near),
				 13000);
	}
	busy_set_free(&bs);
	/* one stream's kernels alone: [0,5] and [20,25] */
	{
		uint32_t s7[2] = { 0, 2 };

		time_span_of(t, s7, 2, &ts, NULL);
		ck_assert_int_eq(ts.wall, 25000);
		ck_assert_int_eq(ts.busy, 10000);
	}
	time_span_of(t, all, 0, &ts, NULL);
	ck_assert_int_eq(ts.wall, 0);
	ck_assert_int_eq(ts.busy, 0);
	trace_free(t);
}
END_TEST

/* Kernels back to back and nested: [0,5] holds nothing else, [5,10] touches it, a kernel
 * inside another one adds no busy time. */
START_TEST(test_touching_and_nested)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct time_span ts;
	uint32_t all[3] = { 0, 1, 2 };

	jkernel(&b, "k0", 1, 100, 7);
	jkernel(&b, "k1", 2, 105, 7);
	jkernel(&b, "k2", 3, 106, 8);
	t = jload(&b);
	time_span_of(t, all, 3, &ts, NULL);
	ck_assert_int_eq(ts.wall, 11000);
	ck_assert_int_eq(ts.busy, 11000);
	ck_assert_int_eq(ts.sum - ts.busy, 4000);
	trace_free(t);
}
END_TEST

START_TEST(test_eager_compiled)
{
	struct session *s = test_session_files(test_trace("llama8l_eager_sdpa.json.gz"),
					       test_trace("llama8l_compiled_sdpa.json.gz"), NULL);
	const struct comparison *c = test_compare(s, -1);

	for (int k = 0; k < 2; k++) {
		ck_assert(c->time[k].busy_ns > 0);
		ck_assert(c->time[k].busy_ns <= c->time[k].wall_ns);
		ck_assert(c->time[k].idle_ns >= 0);
		/* one stream: no kernel overlaps another, busy is the kernel sum */
		ck_assert(c->time[k].overlap_ns == 0);
		ck_assert_msg(fabs(c->time[k].busy_ns - c->ns[k]) < 1, "%f %f", c->time[k].busy_ns,
			      c->ns[k]);
	}
	/* eager launches more than twice as many kernels per prefill pass */
	ck_assert_msg(c->time[0].launches > 2 * c->time[1].launches, "%f %f", c->time[0].launches,
		      c->time[1].launches);
	ck_assert(c->time[0].launches == 367 && c->time[1].launches == 145);
	for (size_t i = 0; i < c->n_layers; i++)
		for (int k = 0; k < 2; k++) {
			const struct comparison_layer *l = &c->layers[i];

			ck_assert(l->idle_ns[k] >= -1e-6);
			ck_assert(l->busy_ns[k] <= l->wall_ns[k] + 1e-6);
			ck_assert(l->wall_ns[k] <= c->time[k].wall_ns + 1e-6);
		}
	/* every fusion is B's: it saves A's launches (the Norm fusion 8 of 9 kernels, 16 times
	 * per pass) and the idle time before them */
	ck_assert_uint_eq(c->n_fusions, 4);
	ck_assert(c->fusions[0].launches_saved == 128);
	for (size_t i = 0; i < c->n_fusions; i++) {
		ck_assert(c->fusions[i].launches_saved > 0);
		ck_assert(c->fusions[i].idle_ns > 0);
		ck_assert(c->fusions[i].idle_ns < c->time[0].idle_ns);
	}
	session_close(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("time");
	TCase *tc = tcase_create("time");

	tcase_add_test(tc, test_overlapping_streams);
	tcase_add_test(tc, test_touching_and_nested);
	tcase_add_test(tc, test_eager_compiled);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
