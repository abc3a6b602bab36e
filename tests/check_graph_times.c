/* check_graph_times.c — graph-replayed kernels whose times the profiler attached to the wrong
 * kernels get them back in launch order (graph_times.c, called by the loader). */
#include <math.h>

#include "testutil.h"

#define MI300X "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"
#define B300   "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"

/* Shortest and longest duration of the kernels whose name contains s. */
static int spread(const struct trace *t, const char *s, int64_t *lo, int64_t *hi)
{
	int n = 0;

	*lo = INT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		if (!strstr(trace_str(t, t->kernels[i].name), s))
			continue;
		n++;
		*lo = t->kernels[i].dur < *lo ? t->kernels[i].dur : *lo;
		*hi = t->kernels[i].dur > *hi ? t->kernels[i].dur : *hi;
	}
	return n;
}

/* In the MI300X trace every layer runs the same kernels with the same shapes: once the times
 * are back on their kernels, the 32 instances of each last about the same (before: a rotary
 * embedding of 94 us among 5 us ones, a paged-attention QKV of 4 us among 43 us ones). */
START_TEST(test_mi300x_times_back_on_their_kernels)
{
	static const char *const names[] = { "rotary_embedding_kernel", "store_kvcache",
					     "paged_attention_ll4mi_QKV",
					     "paged_attention_ll4mi_reduce", "act_and_mul_kernel" };
	struct trace *t = test_load(test_trace(MI300X));
	int found = 0;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int64_t lo, hi;

		ck_assert_int_eq(spread(t, names[i], &lo, &hi), 32);
		ck_assert_msg(hi * 10 < lo * 15, "%s: %lld..%lld ns", names[i], (long long)lo,
			      (long long)hi);
	}
	/* sorted by start, on its stream a layer reads ... KV write, attention QKV, reduce ... */
	for (size_t i = 0; i < t->n_kernels; i++)
		if (strstr(trace_str(t, t->kernels[i].name), "paged_attention_ll4mi_QKV")) {
			size_t prev = i, next = i;

			while (prev-- > 0 && t->kernels[prev].stream != t->kernels[i].stream)
				;
			while (++next < t->n_kernels &&
			       t->kernels[next].stream != t->kernels[i].stream)
				;
			ck_assert_uint_lt(next, t->n_kernels);
			ck_assert_ptr_nonnull(strstr(trace_str(t, t->kernels[next].name),
						     "paged_attention_ll4mi_reduce"));
			ck_assert_ptr_nonnull(
			    strstr(trace_str(t, t->kernels[prev].name), "store_kvcache"));
			found++;
		}
	ck_assert_int_eq(found, 32);
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(
	    t->warnings[0],
	    "the times of 356 kernels of 1 graph launch disagreed with their launch order: "
	    "reassigned in stream order");
	trace_free(t);
}
END_TEST

/* Graph launches whose listed order agrees with time (CUDA) are left alone. */
START_TEST(test_cuda_graph_untouched)
{
	struct trace *t = test_load(test_trace(B300));
	int64_t lo, hi;

	ck_assert_uint_eq(t->n_warnings, 0);
	ck_assert_int_eq(spread(t, "fmhaSm100f", &lo, &hi), 32);
	trace_free(t);
}
END_TEST

/* A hand-written graph launch: three kernels listed a, b, c, with c's time given to a. */
START_TEST(test_hand_written)
{
	static const char doc[] =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"ts\":30,\"dur\":3,\"args\":{"
	    "\"device\":0,\"stream\":7,\"correlation\":5}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"ts\":10,\"dur\":1,\"args\":{"
	    "\"device\":0,\"stream\":7,\"correlation\":5}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"ts\":20,\"dur\":2,\"args\":{"
	    "\"device\":0,\"stream\":7,\"correlation\":5}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"other_stream\",\"ts\":1,\"dur\":1,"
	    "\"args\":{\"device\":0,\"stream\":8,\"correlation\":5}}"
	    "],\"hip_runtime_version\":1}";
	struct trace *t;
	struct fd_error err;

	ck_assert_int_eq(trace_load_mem(&t, "graph.json", doc, sizeof doc - 1, NULL, &err), 0);
	ck_assert_uint_eq(t->n_kernels, 4);
	ck_assert_str_eq(trace_str(t, t->kernels[0].name), "other_stream");
	ck_assert_str_eq(trace_str(t, t->kernels[1].name), "a");
	ck_assert_int_eq(t->kernels[1].dur, 1000);
	ck_assert_str_eq(trace_str(t, t->kernels[2].name), "b");
	ck_assert_int_eq(t->kernels[2].dur, 2000);
	ck_assert_str_eq(trace_str(t, t->kernels[3].name), "c");
	ck_assert_int_eq(t->kernels[3].dur, 3000);
	ck_assert_int_eq(t->kernels[3].start - t->kernels[1].start, 20000);
	trace_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("graph_times");
	TCase *tc = tcase_create("graph_times");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mi300x_times_back_on_their_kernels);
	tcase_add_test(tc, test_cuda_graph_untouched);
	tcase_add_test(tc, test_hand_written);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
