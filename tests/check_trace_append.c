/* check_trace_append.c — captures of one run pooled into one trace (trace_append()): times
 * shifted past the first capture, ids moved so that nothing links across captures, names
 * re-interned, arrays sorted, counts added up; and the structure of a pooled real trace. */
#include <sys/stat.h>

#include "testutil.h"

#include "jtrace.h"

/* A capture: a forward op numbered seq, its backward node, one pass of n_layers layers, and
 * an annotation around it; its kernels are named with prefix (so that the two captures'
 * string tables differ). */
static struct trace *capture(int n_layers, const char *extra_kernel, int64_t seq)
{
	struct jbuf b = { .first = 1 };
	double gpu = 100;
	char args[128];

	snprintf(args, sizeof args, "\"Sequence number\":%lld", (long long)seq);
	jevent(&b, "cpu_op", "aten::linear", 1, 1, 1, 1, args);
	jevent(&b, "cpu_op", "autograd::engine::evaluate_function: MulBackward0", 1, 1, 2, 1, args);
	jevent(&b, "user_annotation", "decode", 1, 1, 5, 400, "");
	jpass(&b, n_layers, 10, &gpu, 7);
	if (extra_kernel)
		jkernel(&b, extra_kernel, 300, gpu + 10, 7);
	return jload(&b);
}

static int64_t last_end(const struct trace *t)
{
	int64_t end = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].start + t->kernels[i].dur > end)
			end = t->kernels[i].start + t->kernels[i].dur;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].start + t->ranges[i].dur > end)
			end = t->ranges[i].start + t->ranges[i].dur;
	for (size_t i = 0; i < t->n_ops; i++)
		if (t->ops[i].start + t->ops[i].dur > end)
			end = t->ops[i].start + t->ops[i].dur;
	for (size_t i = 0; i < t->n_launches; i++)
		if (t->launches[i].start + t->launches[i].dur > end)
			end = t->launches[i].start + t->launches[i].dur;
	for (size_t i = 0; i < t->n_kernels; i++) /* the launches folded in: a start only */
		if (t->kernels[i].launch > end)
			end = t->kernels[i].launch;
	return end;
}

START_TEST(test_append_hand_built)
{
	struct trace *a = capture(2, NULL, 3), *b = capture(3, "only_in_b_kernel", 3);
	struct fd_error err = { { 0 } };
	size_t na = a->n_kernels, nb = b->n_kernels, nl = a->n_launches, no = a->n_ops,
	       nr = a->n_ranges, nf = a->n_fwd_ops;
	int64_t end = last_end(a), ka = a->n_kernel_events, kb = b->n_kernel_events;
	int64_t ev = a->n_events + b->n_events,
		kernel_cat = trace_category_count(a, "kernel") + trace_category_count(b, "kernel");
	int64_t dev_time = a->devices[0].kernel_time + b->devices[0].kernel_time;

	ck_assert_int_eq(trace_append(a, b, 1000, &err), 0);
	/* counts add up */
	ck_assert_uint_eq(a->n_kernels, na + nb);
	ck_assert_uint_eq(a->n_launches, nl + b->n_launches);
	ck_assert_uint_eq(a->n_ops, no + b->n_ops);
	ck_assert_uint_eq(a->n_ranges, nr + b->n_ranges);
	ck_assert_uint_eq(a->n_fwd_ops, nf + b->n_fwd_ops);
	ck_assert_int_eq((int64_t)a->n_kernel_events, ka + kb);
	ck_assert_int_eq(a->n_events, ev);
	ck_assert_int_eq(trace_category_count(a, "kernel"), kernel_cat);
	ck_assert_uint_eq(a->n_devices, 1);
	ck_assert_int_eq(a->devices[0].kernels, (int64_t)(na + nb));
	ck_assert_int_eq(a->devices[0].kernel_time, dev_time);
	/* b's records begin 1000 ns after a's last event ends, in b's own order */
	ck_assert_uint_eq(a->n_repeats, 2);
	ck_assert_str_eq(a->repeats[0].path, "hand.json");
	ck_assert_int_eq(a->repeats[0].start, 0);
	ck_assert_int_eq(a->repeats[1].start, end + 1000);
	ck_assert_uint_eq(trace_repeat_at(a, end), 0);
	ck_assert_uint_eq(trace_repeat_at(a, end + 1000), 1);
	for (size_t i = 0; i < nb; i++) {
		const struct trace_kernel *x = &a->kernels[na + i], *y = &b->kernels[i];

		ck_assert_int_eq(x->start, y->start + end + 1000);
		ck_assert_int_eq(x->dur, y->dur);
		ck_assert_str_eq(trace_str(a, x->name), trace_str(b, y->name));
		{
			struct trace_dims dx, dy;

			trace_dims_get(a, x->dims, &dx);
			trace_dims_get(b, y->dims, &dy);
			ck_assert_int_eq(memcmp(&dx, &dy, sizeof dx), 0);
		}
	}
	/* every array sorted as trace.h says */
	for (size_t i = 1; i < a->n_kernels; i++)
		ck_assert_int_le(a->kernels[i - 1].start, a->kernels[i].start);
	for (size_t i = 1; i < a->n_launches; i++)
		ck_assert_int_le(a->launches[i - 1].correlation, a->launches[i].correlation);
	for (size_t i = 1; i < a->n_ops; i++)
		ck_assert_int_le(a->ops[i - 1].external_id, a->ops[i].external_id);
	for (size_t i = 1; i < a->n_ranges; i++)
		ck_assert_int_le(a->ranges[i - 1].start, a->ranges[i].start);
	for (size_t i = 1; i < a->n_fwd_ops; i++)
		ck_assert_int_lt(a->fwd_ops[i - 1].seq, a->fwd_ops[i].seq);
	/* each kernel links to its own capture's launch and operator: the same as before, and
	 * never one of the other capture (both numbered their ids from 1) */
	for (size_t k = 0; k < a->n_kernels; k++) {
		const struct trace_op *op = trace_find_op(a, a->kernels[k].external_id);

		ck_assert_int_ge(a->kernels[k].launch, 0);
		ck_assert_ptr_nonnull(op);
		ck_assert_uint_eq(trace_repeat_at(a, a->kernels[k].launch), k >= na);
		ck_assert_uint_eq(trace_repeat_at(a, op->start), k >= na);
	}
	/* the backward node of b still names b's forward op, not a's of the same number */
	{
		int64_t seq = -1;

		for (size_t i = 0; i < a->n_ranges; i++)
			if (a->ranges[i].kind == RANGE_BACKWARD && a->ranges[i].start > end)
				seq = a->ranges[i].seq;
		ck_assert_int_ne(seq, 3);
		ck_assert_ptr_nonnull(trace_find_fwd_op(a, seq));
		ck_assert_int_gt(trace_find_fwd_op(a, seq)->start, end);
		ck_assert_int_lt(trace_find_fwd_op(a, 3)->start, end);
	}
	/* src is unchanged */
	ck_assert_uint_eq(b->n_kernels, nb);
	ck_assert_int_lt(b->kernels[0].start, end);
	trace_free(b);
	trace_free(a);
}
END_TEST

/* A third capture appended to a pooled trace, and a pooled trace appended to another: the
 * list of captures follows. */
START_TEST(test_append_chain)
{
	struct trace *a = capture(2, NULL, 1), *b = capture(2, NULL, 1), *c = capture(2, NULL, 1),
		     *d = capture(2, NULL, 1);
	struct fd_error err = { { 0 } };
	size_t n = a->n_kernels;

	ck_assert_int_eq(trace_append(a, b, 0, &err), 0);
	ck_assert_int_eq(trace_append(c, d, 0, &err), 0);
	ck_assert_int_eq(trace_append(a, c, 0, &err), 0);
	ck_assert_uint_eq(a->n_kernels, 4 * n);
	ck_assert_uint_eq(a->n_repeats, 4);
	for (size_t i = 1; i < 4; i++) {
		ck_assert_int_gt(a->repeats[i].start, a->repeats[i - 1].start);
		/* a gap of 0 is taken as 1 ns: the captures never touch */
		ck_assert_int_eq(a->kernels[i * n].start,
				 a->repeats[i].start + a->kernels[0].start);
		ck_assert_uint_eq(trace_repeat_at(a, a->kernels[i * n].start), i);
		ck_assert_uint_eq(trace_repeat_at(a, a->kernels[i * n - 1].start), i - 1);
	}
	for (size_t i = 1; i < a->n_launches; i++)
		ck_assert_int_lt(a->launches[i - 1].correlation, a->launches[i].correlation);
	trace_free(d);
	trace_free(c);
	trace_free(b);
	trace_free(a);
}
END_TEST

/* Times or ids that would not fit: an error naming the file, dst unchanged. */
START_TEST(test_append_overflow)
{
	struct trace *a = capture(1, NULL, 1), *b = capture(1, NULL, 1);
	struct fd_error err = { { 0 } };
	size_t n = a->n_kernels;

	ck_assert_int_eq(trace_append(a, b, TRACE_TIME_MAX, &err), -1);
	ck_assert_str_eq(err.msg, "hand.json: its times do not fit after those of hand.json");
	ck_assert_uint_eq(a->n_kernels, n);
	ck_assert_uint_eq(a->n_repeats, 0);
	b->kernels[0].correlation = INT64_MAX;
	ck_assert_int_eq(trace_append(a, b, 10, &err), -1);
	ck_assert_str_eq(err.msg, "hand.json: its ids do not fit after those of hand.json");
	ck_assert_uint_eq(a->n_kernels, n);
	trace_free(b);
	trace_free(a);
}
END_TEST

/* The bundled eager trace pooled with itself: twice the passes of each phase, the same layers
 * per pass, every kernel linked as before. */
START_TEST(test_append_real_structure)
{
	struct trace *a = test_load(test_trace("llama8l_eager_sdpa.json.gz"));
	struct trace *b = test_load(test_trace("llama8l_eager_sdpa.json.gz"));
	struct fd_error err = { { 0 } };
	struct session *s1 = test_session(b, b, NULL), *s2;
	const struct side *one = session_side(s1, 0), *two;
	size_t linked = 0, linked2 = 0;

	for (size_t i = 0; i < b->n_kernels; i++)
		linked += b->kernels[i].launch >= 0 && trace_find_op(b, b->kernels[i].external_id);
	ck_assert_int_eq(trace_append(a, b, 1000000, &err), 0);
	for (size_t i = 0; i < a->n_kernels; i++)
		linked2 += a->kernels[i].launch >= 0 && trace_find_op(a, a->kernels[i].external_id);
	ck_assert_uint_eq(linked2, 2 * linked);
	s2 = test_session(a, a, NULL);
	two = session_side(s2, 0);
	ck_assert_uint_eq(one->phase_passes[PHASE_DECODE], 16);
	ck_assert_uint_eq(two->phase_passes[PHASE_DECODE], 32);
	ck_assert_uint_eq(two->phase_passes[PHASE_PREFILL], 2 * one->phase_passes[PHASE_PREFILL]);
	ck_assert_uint_eq(two->layers_per_pass, one->layers_per_pass);
	{
		const struct comparison *c = test_compare(s2, PHASE_DECODE);

		ck_assert_uint_eq(c->passes[0], 32);
		ck_assert_int_eq(c->ci_known, 1);
	}
	session_close(s2);
	session_close(s1);
	trace_free(b);
	trace_free(a);
}
END_TEST

/* The session pools each side's repeats (session_opts.repeats): twice the decode passes of A,
 * and a capture of another model among B's is left out (its passes are not compared: B has
 * its two eager captures' 32) and is the warning repeat_differs, naming it, which makes the
 * sides not comparable. */
START_TEST(test_session_repeats)
{
	const char *e = test_trace("llama8l_eager_sdpa.json.gz");
	char *eager = strdup(e),
	     *other = strdup(
		     test_trace("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"));
	const char *ra[] = { eager }, *rb[] = { other, eager };
	struct session_opts o = { .device = -1, .repeats = { ra, rb }, .n_repeats = { 1, 2 } };
	struct session *s = test_session_files(eager, eager, &o);
	const struct comparison *c = test_compare(s, PHASE_DECODE);
	size_t w = comparison_worst_warning(c);

	ck_assert_uint_eq(c->passes[0], 32);
	ck_assert_uint_eq(c->passes[1], 32);
	ck_assert_ptr_nonnull(c->repeat_out[1]);
	ck_assert_uint_eq(c->repeat_out[1][1], 1);
	ck_assert_uint_eq(c->repeat_out[1][2], 0);
	ck_assert_ptr_null(c->repeat_out[0]);
	ck_assert_ptr_nonnull(strstr(c->warnings[w].message, "left out"));
	ck_assert_uint_eq(session_side(s, 0)->t->n_repeats, 2);
	ck_assert_uint_eq(session_side(s, 1)->t->n_repeats, 3);
	ck_assert_str_eq(session_side(s, 1)->t->repeats[1].path, other);
	{ /* each capture keeps the size of its own file (and its hash, when asked: none here) */
		struct stat st;

		ck_assert_int_eq(stat(other, &st), 0);
		ck_assert_int_eq(session_side(s, 1)->t->repeats[1].file_size, (int64_t)st.st_size);
		ck_assert_int_eq(stat(eager, &st), 0);
		ck_assert_int_eq(session_side(s, 1)->t->repeats[0].file_size, (int64_t)st.st_size);
		ck_assert_str_eq(session_side(s, 1)->t->repeats[1].sha256, "");
	}
	ck_assert_uint_ne(w, SIZE_MAX);
	ck_assert_str_eq(c->warnings[w].code, "repeat_differs");
	ck_assert_ptr_nonnull(strstr(c->warnings[w].message, other));
	ck_assert_int_eq(c->comparability.comparable, 0);
	session_close(s);
	/* the same captures on A: no warning of that code */
	o.repeats[1] = ra;
	o.n_repeats[1] = 1;
	s = test_session_files(eager, eager, &o);
	c = test_compare(s, PHASE_DECODE);
	for (size_t i = 0; i < c->n_warnings; i++)
		ck_assert_str_ne(c->warnings[i].code, "repeat_differs");
	ck_assert_int_eq(c->comparability.comparable, 1);
	session_close(s);
	free(eager);
	free(other);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("trace_append");
	TCase *tc = tcase_create("append");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_append_hand_built);
	tcase_add_test(tc, test_append_chain);
	tcase_add_test(tc, test_append_overflow);
	tcase_add_test(tc, test_append_real_structure);
	tcase_add_test(tc, test_session_repeats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
