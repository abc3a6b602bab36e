/* check_load_stream.c — the loader on inputs larger than its window: line numbers in error
 * messages after many refills, category counts when there are more categories than the loader
 * remembers at once, and what it keeps (memory grows with kernels, not with operators). */
#include "testutil.h"

#include <zlib.h>

struct sbuf {
	char *s;
	size_t len, cap;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? b->cap * 2 : 1 << 16;
		b->s = realloc(b->s, b->cap);
		ck_assert_ptr_nonnull(b->s);
	}
	b->len += (size_t)n;
}

static size_t count_lines(const char *s, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++)
		lines += s[i] == '\n';
	return lines;
}

/* Kineto-style pretty-printed events, a few windows' worth, then a missing comma: the error
 * names the right line and column however many times the window was refilled. */
START_TEST(test_line_numbers_after_refills)
{
	struct sbuf b = { 0 };
	struct trace *t = NULL;
	struct fd_error err;
	size_t line, col, bad;
	char want[256];
	const int n = 60000 + _i * 7; /* the error lands at different window offsets */

	put(&b, "{\n  \"traceEvents\": [\n");
	for (int i = 0; i < n; i++)
		put(&b,
		    "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", \"pid\": "
		    "0, \"tid\": 7,\n"
		    "    \"ts\": %d.5, \"dur\": 2.25,\n    \"args\": {\n      \"device\": 0, "
		    "\"stream\": 7, "
		    "\"correlation\": %d\n    }\n  },\n",
		    i % 50, 1000 + i * 10, i + 1);
	/* the comma is missing before "cat" */
	bad = b.len + strlen("  {\n    \"ph\": \"X\"  ");
	put(&b, "  {\n    \"ph\": \"X\"  \"cat\": \"kernel\"\n  }\n]}\n");
	ck_assert_uint_gt(b.len, 8u << 20); /* two windows and more */
	line = count_lines(b.s, bad) + 1;
	col = bad;
	while (col > 0 && b.s[col - 1] != '\n')
		col--;
	col = bad - col + 1;
	ck_assert_int_eq(trace_load_mem(&t, "big.json", b.s, b.len, NULL, &err), -1);
	snprintf(want, sizeof want, "big.json: line %zu, column %zu: expected ',' or '}' in object",
		 line, col);
	ck_assert_str_eq(err.msg, want);

	/* the same from a file (its lines counted when the error needs them, by reading it
	 * again, also when a second thread found the error) and from gzip (counted as read) */
	for (int gz = 0; gz < 2; gz++) {
		char path[64];
		int fd;

		snprintf(path, sizeof path, "/tmp/fusediff-check-lines-XXXXXX");
		ck_assert_int_ge(fd = mkstemp(path), 0);
		if (gz) {
			gzFile z = gzdopen(fd, "wb1");

			ck_assert_int_eq(gzwrite(z, b.s, (unsigned)b.len), (int)b.len);
			ck_assert_int_eq(gzclose(z), Z_OK);
		} else {
			ck_assert_int_eq(write(fd, b.s, b.len), (ssize_t)b.len);
			close(fd);
		}
		ck_assert_int_eq(trace_load(&t, path, NULL, &err), -1);
		unlink(path);
		snprintf(want, sizeof want,
			 "%s: line %zu, column %zu: expected ',' or '}' in object", path, line,
			 col);
		ck_assert_str_eq(err.msg, want);
	}
	free(b.s);
}
END_TEST

/* More distinct categories than the loader's cache, interleaved: every count is exact, and the
 * kinds stay right (kernels are kernels, the made-up categories are skipped). */
START_TEST(test_many_categories)
{
	struct sbuf b = { 0 };
	struct trace *t = NULL;
	struct fd_error err;
	const int ncat = 20, rounds = 500;

	put(&b, "{\"traceEvents\":[");
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c <= ncat; c++) {
			if (c == ncat)
				put(&b,
				    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,"
				    "\"dur\":1,"
				    "\"args\":{\"device\":0,\"correlation\":%d}},",
				    r % 3, r * 100 + c, r + 1);
			else
				put(&b,
				    "{\"ph\":\"X\",\"cat\":\"made_up_%d\",\"name\":\"x\",\"ts\":%d,"
				    "\"dur\":1,\"args\":{}},",
				    c, r * 100 + c);
		}
	put(&b, "{\"ph\":\"i\",\"name\":\"end\",\"ts\":0}]}");
	ck_assert_int_eq(trace_load_mem(&t, "cats.json", b.s, b.len, NULL, &err), 0);
	ck_assert_uint_eq(t->n_kernel_events, (size_t)rounds);
	ck_assert_int_eq(trace_category_count(t, "kernel"), rounds);
	for (int c = 0; c < ncat; c++) {
		char name[32];

		snprintf(name, sizeof name, "made_up_%d", c);
		ck_assert_int_eq(trace_category_count(t, name), rounds);
	}
	ck_assert_int_eq(trace_category_count(t, "(none)"), 1);
	ck_assert_int_eq(t->n_events, (int64_t)rounds * (ncat + 1) + 1);
	trace_free(t);
	free(b.s);
}
END_TEST

/* The loader keeps the operators that launched a kernel and no others: every kernel finds its
 * operator as before, every operator kept is some kernel's, and the rest (three in four in
 * an eager trace) are gone. */
START_TEST(test_only_launching_ops)
{
	static const struct {
		const char *file;
		size_t with_op, ops;
	} want[] = {
		{ "llama8l_eager_sdpa.json.gz", 6480, 6174 },
		{ "tracelens_qwen1.5-0.5b_hf_h100.json.gz", 1198, 1030 },
	};
	struct trace *t = test_load(test_trace(want[_i].file));
	size_t with_op = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		with_op += trace_find_op(t, t->kernels[i].external_id) != NULL;
	ck_assert_uint_eq(with_op, want[_i].with_op);
	ck_assert_uint_eq(t->n_ops, want[_i].ops);
	ck_assert_int_gt(trace_category_count(t, "cpu_op"), 3 * (int64_t)t->n_ops);
	for (size_t i = 0; i < t->n_ops; i++) {
		size_t k = 0;

		while (k < t->n_kernels && t->kernels[k].external_id != t->ops[i].external_id)
			k++;
		ck_assert_msg(k < t->n_kernels, "op %zu (External id %lld) launched no kernel", i,
			      (long long)t->ops[i].external_id);
		ck_assert(i == 0 || t->ops[i - 1].external_id <= t->ops[i].external_id);
	}
	trace_free(t);
}
END_TEST

/* Lookups by correlation find exactly what a scan finds, with ids evenly spread, clustered far
 * apart, repeated, and at the ends of the int64 range (launches that name their kernel, as a
 * graph capture's do: the trace keeps them). */
START_TEST(test_lookup_skewed_ids)
{
	struct sbuf b = { 0 };
	struct trace *t = NULL;
	struct fd_error err;
	int64_t ids[1200];
	size_t n = 0;

	for (int i = 1; i <= 500; i++)
		ids[n++] = i;
	for (int i = 0; i < 500; i++)
		ids[n++] = INT64_C(1000000000000) + 7 * i;
	for (int i = 0; i < 100; i++)
		ids[n++] = 250; /* repeated */
	ids[n++] = INT64_MAX - 2;
	ids[n++] = INT64_MAX;
	ids[n++] = INT64_MIN + 1;
	put(&b,
	    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1,"
	    "\"args\":{\"device\":0,\"correlation\":1}}");
	for (size_t i = 0; i < n; i++)
		put(&b,
		    ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":%"
		    "zu,"
		    "\"dur\":1,\"args\":{\"correlation\":%lld,\"kernel\":\"k\"}}",
		    i, (long long)ids[i]);
	put(&b, "]}");
	ck_assert_int_eq(trace_load_mem(&t, "ids.json", b.s, b.len, NULL, &err), 0);
	ck_assert_uint_eq(t->n_launches, n);
	for (size_t i = 0; i < n; i++)
		for (int64_t d = -1; d <= 1; d++) {
			int64_t q = ids[i] + (d < 0 && ids[i] == INT64_MIN + 1 ? 0
					      : d > 0 && ids[i] == INT64_MAX   ? 0
									       : d);
			const struct trace_launch *want = NULL;

			for (size_t k = 0; k < t->n_launches && !want; k++)
				if (t->launches[k].correlation == q)
					want = &t->launches[k];
			ck_assert_ptr_eq(trace_find_launch(t, q), want);
		}
	ck_assert_ptr_null(trace_find_launch(t, INT64_MIN));
	ck_assert_ptr_null(trace_find_launch(t, 0));
	ck_assert_ptr_null(trace_find_launch(t, 501));
	ck_assert_ptr_nonnull(trace_find_launch(t, INT64_MAX));
	trace_free(t);
	free(b.s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("load_stream");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_line_numbers_after_refills, 0, 3);
	tcase_add_test(tc, test_many_categories);
	tcase_add_loop_test(tc, test_only_launching_ops, 0, 2);
	tcase_add_test(tc, test_lookup_skewed_ids);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
