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

/* A document with the kernels given as (name, stream, correlation, ts, dur), listed in order. */
struct gk {
	const char *name;
	int stream, corr;
	double ts, dur;
};

static struct trace *load_listed(const struct gk *k, size_t n)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	struct trace *t;
	struct fd_error err;

	fputs("{\"traceEvents\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"ts\":%.1f,"
			"\"dur\":%.1f,\"args\":{\"device\":0,\"stream\":%d,\"correlation\":%d}}",
			i ? "," : "", k[i].name, k[i].ts, k[i].dur, k[i].stream, k[i].corr);
	fputs("],\"hip_runtime_version\":1}", f);
	fclose(f);
	ck_assert_int_eq(trace_load_mem(&t, "graph.json", doc, len, NULL, &err), 0);
	free(doc);
	return t;
}

/* The start (ns) of the kernel with this name. */
static int64_t start_of(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		if (strcmp(trace_str(t, t->kernels[i].name), name) == 0)
			return t->kernels[i].start + t->start_ns;
	ck_abort_msg("no kernel %s", name);
	return -1;
}

/* A file whose events were reordered (shuffled by a tool): the kernels of one graph launch are
 * listed in no particular order, their times are right; nothing is reassigned. */
START_TEST(test_shuffled_listing_kept)
{
	enum { N = 24 };
	struct gk k[N];
	char names[N][8];
	struct trace *t;

	for (int i = 0; i < N; i++) {
		int j = (i * 7) % N; /* listed in a scrambled order: many steps back in time */

		snprintf(names[j], sizeof names[j], "k%02d", j);
		k[i] = (struct gk){ names[j], 7, 5, 100.0 + 10 * j, 2 };
	}
	t = load_listed(k, N);
	ck_assert_uint_eq(t->n_warnings, 0);
	for (int j = 0; j < N; j++)
		ck_assert_int_eq(start_of(t, names[j]), (int64_t)(100 + 10 * j) * 1000);
	trace_free(t);
}
END_TEST

/* The same when the group itself reads almost in order but the kernels around it are listed
 * out of time order: the file is not in launch order, its listed order proves nothing. */
START_TEST(test_file_out_of_order_kept)
{
	static const struct gk k[] = {
		{ "z4", 8, 14, 400, 1 }, { "z3", 8, 13, 300, 1 }, { "z2", 8, 12, 200, 1 },
		{ "z1", 8, 11, 100, 1 }, { "a", 7, 5, 30, 3 },	  { "b", 7, 5, 10, 1 },
		{ "c", 7, 5, 20, 2 },	 { "y2", 9, 22, 50, 1 },  { "y1", 9, 21, 40, 1 },
	};
	struct trace *t = load_listed(k, sizeof k / sizeof k[0]);

	ck_assert_uint_eq(t->n_warnings, 0);
	ck_assert_int_eq(start_of(t, "a"), 30000);
	ck_assert_int_eq(start_of(t, "b"), 10000);
	trace_free(t);
}
END_TEST

/* A graph launch a, b (one correlation id) listed with other kernels between them, on other
 * streams and on its own, as they come: its two kernels are in different increasing runs of the
 * stream's ids, and the group is found whether the runs are few (walked side by side), many, or
 * on more streams than the quick way follows (a hash set). */
static void check_group_found(int streams, int runs)
{
	struct gk k[256];
	char names[256][8];
	size_t n = 0;
	struct trace *t;
	double ts = 0;

	for (int r = 0; r < runs; r++) /* runs of stream 7: ids 1000 - 10 r, 1001 - 10 r */
		for (int j = 0; j < 2; j++, n++) {
			snprintf(names[n], sizeof names[n], "r%d", (int)n);
			k[n] = (struct gk){ names[n], 7, 1000 - 10 * r + j, ts += 10, 1 };
		}
	for (int s = 0; s < streams; s++, n++) {
		snprintf(names[n], sizeof names[n], "s%d", s);
		k[n] = (struct gk){ names[n], 20 + s, 5, ts += 10, 1 };
	}
	k[n++] = (struct gk){ "a", 7, 2000, 300 + ts, 3 };
	k[n++] = (struct gk){ "x", 7, 2001, 310 + ts, 1 };
	k[n++] = (struct gk){ "y", 8, 2002, 311 + ts, 1 };
	k[n++] = (struct gk){ "b", 7, 2000, 100 + ts, 1 };
	t = load_listed(k, n);
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(t->warnings[0], "the times of 2 kernels of 1 graph launch disagreed with "
					 "their launch order: reassigned in stream order");
	ck_assert_int_eq(start_of(t, "a"), (int64_t)(100 + ts) * 1000);
	ck_assert_int_eq(start_of(t, "b"), (int64_t)(300 + ts) * 1000);
	trace_free(t);
}

START_TEST(test_group_across_runs)
{
	check_group_found(2, 4);  /* a few runs: walked */
	check_group_found(2, 40); /* many runs: walked too (there were 32 at most) */
	check_group_found(20, 4); /* more streams than STREAMS_SEEN */
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
	tcase_add_test(tc, test_shuffled_listing_kept);
	tcase_add_test(tc, test_file_out_of_order_kept);
	tcase_add_test(tc, test_group_across_runs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
