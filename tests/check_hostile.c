/* check_hostile.c — the loader on hostile inputs: each one is rejected with one exact line, or
 * loads into something sensible; none crashes, hangs or takes unreasonable memory.
 *
 * Files are in tests/data/bad/ (the big ones gzip-compressed); inputs of millions of events are
 * generated here. The time limit of each test case is what "never hangs" means: every input
 * below took minutes or hours before the fix that came with it. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "fusediff/classify.h"
#include "fusediff/json.h"
#include "fusediff/regex_guard.h"
#include "fusediff/trace_summary.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static const char *bad_path(const char *file)
{
	char rel[512];

	snprintf(rel, sizeof rel, "tests/data/bad/%s", file);
	return test_path(rel);
}

static struct trace *load_bad(const char *file, int32_t device)
{
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = device };
	const char *path = bad_path(file);

	if (trace_load(&t, path, &lo, &err) < 0)
		ck_abort_msg("loading %s: %s", path, err.msg);
	return t;
}

/* Loading fails with exactly "<path>: <msg>", on one line. */
static void expect_error(const char *file, int32_t device, const char *msg)
{
	struct trace *t = (struct trace *)1;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = device };
	const char *path = bad_path(file);
	char want[FD_ERROR_MAX + 600];

	ck_assert_int_eq(trace_load(&t, path, &lo, &err), -1);
	ck_assert_ptr_null(t);
	snprintf(want, sizeof want, "%s: %s", path, msg);
	ck_assert_str_eq(err.msg, want);
}

static const struct trace_kernel *kernel_named(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		if (strcmp(trace_str(t, t->kernels[i].name), name) == 0)
			return &t->kernels[i];
	return NULL;
}

static size_t count_ranges(const struct trace *t, enum range_kind kind, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_ranges; i++)
		n += t->ranges[i].kind == kind &&
		     (!name || strcmp(trace_str(t, t->ranges[i].name), name) == 0);
	return n;
}

/* A growing text buffer for generated traces. */
struct gen {
	char *s;
	size_t len, cap;
};

static void gen_add(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gen_add(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->s ? g->s + g->len : NULL, g->s ? g->cap - g->len : 0, fmt, ap);
		va_end(ap);
		if (g->s && (size_t)n < g->cap - g->len)
			break;
		g->cap = (g->cap + (size_t)n + 1) * 2;
		g->s = realloc(g->s, g->cap);
		ck_assert_ptr_nonnull(g->s);
	}
	g->len += (size_t)n;
}

static void gen_repeat(struct gen *g, const char *s, size_t times)
{
	size_t n = strlen(s);

	if (g->cap - g->len < n * times + 1) {
		g->cap = g->len + n * times + 1;
		g->s = realloc(g->s, g->cap);
		ck_assert_ptr_nonnull(g->s);
	}
	for (size_t i = 0; i < times; i++, g->len += n)
		memcpy(g->s + g->len, s, n);
	g->s[g->len] = '\0';
}

static struct trace *load_gen(const struct gen *g, struct fd_error *err)
{
	struct trace *t = NULL;
	struct trace_load_opts lo = { .device = -1 };

	if (trace_load_mem(&t, "gen.json", g->s, g->len, &lo, err) < 0)
		return NULL;
	return t;
}

/* Peak RSS of this process in MiB, or -1 when it means nothing here (sanitizers keep freed
 * memory in quarantine; under valgrind the process ran other tests before: main()). */
static long peak_rss_mib(void)
{
	struct rusage ru;

#if defined(__SANITIZE_ADDRESS__)
	return -1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return -1;
#endif
#endif
	if (getenv("FUSEDIFF_VALGRIND"))
		return -1;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return -1;
	return ru.ru_maxrss / 1024;
}

/* ---- rejected, with one exact line ------------------------------------------------------- */

static const struct {
	const char *file, *msg;
} rejected[] = {
	/* 10^6 levels: stops at the first level too many, without recursion */
	{ "deep_args_1e6.json.gz", "line 1, column 594: nesting too deep (more than 512 levels)" },
	{ "deep_top_1e6.json.gz", "line 1, column 3086: nesting too deep (more than 512 levels)" },
	/* json_skip() accepted the escape, the second look at the args did not: the message was "" */
	{ "args_bad_escape.json", "line 1, column 33: invalid escape sequence in string" },
	/* 32 NUL bytes where a member should start matched an empty remembered run of keys
	 * (key_pred.h) and gave "expected a value" (found by fuzz_trace_load) */
	{ "nul_bytes_at_member.json", "line 1, column 4043: expected ',' or '}' in object" },
	/* ends in a number with an exponent: strtod read past the end of the buffer */
	{ "number_at_eof.json",
	  "line 1, column 95: unexpected end of file (the JSON is truncated)" },
	/* each duration fits, their sum does not */
	{ "kernel_time_overflow.json",
	  "kernel durations add up to more than 200 years: the times are damaged" },
};

START_TEST(test_rejected)
{
	expect_error(rejected[_i].file, -1, rejected[_i].msg);
}
END_TEST

/* ---- loaded, sensibly -------------------------------------------------------------------- */

START_TEST(test_duplicate_keys)
{
	/* The last value of a repeated key wins, as in Python's json module. */
	struct trace *t = load_bad("duplicate_keys.json", -1);
	const struct trace_kernel *k = kernel_named(t, "gemm_kernel");

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_null(kernel_named(t, "first_name"));
	ck_assert_int_eq(k->start, 0);
	ck_assert_int_eq(k->dur, 2500);
	ck_assert_int_eq(k->device, 0);
	ck_assert_int_eq(k->stream, 9);
	ck_assert_str_eq(trace_meta_get(t, "cuda_runtime_version"), "13000");
	ck_assert_str_eq(trace_str(t, t->gpu_name), "NVIDIA H200");
	ck_assert_int_eq(t->platform, PLATFORM_NVIDIA);
	ck_assert_int_eq(trace_category_count(t, "cpu_op"), 0);
	trace_free(t);
}
END_TEST

START_TEST(test_times_as_strings)
{
	struct trace *t = load_bad("times_as_strings.json", -1);
	const struct trace_kernel *k = kernel_named(t, "rms_norm_kernel");

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_int_eq(kernel_named(t, "gemm_kernel")->dur, 2500);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->start, 3500);
	ck_assert_int_eq(k->dur, 1000);
	ck_assert_ptr_null(kernel_named(t, "bad_kernel"));
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(
		t->warnings[0],
		"2 kept events had a missing, negative or unreadable ts/dur and were skipped");
	trace_free(t);
}
END_TEST

START_TEST(test_bad_durations)
{
	struct trace *t = load_bad("bad_durations.json", -1);

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_ptr_nonnull(kernel_named(t, "gemm_kernel"));
	ck_assert_int_eq(kernel_named(t, "rms_norm_kernel")->dur, 0);
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(
		t->warnings[0],
		"17 kept events had a missing, negative or unreadable ts/dur and were skipped");
	trace_free(t);
}
END_TEST

/* The fuzzer's first finding: -9223372036854775.808 us negated INT64_MIN in json_us_to_ns(). */
START_TEST(test_time_overflow)
{
	struct trace *t = load_bad("time_overflow.json", -1);

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_int_eq(t->kernels[0].start, 0);
	ck_assert_int_eq(t->kernels[1].start, INT64_C(5764607523034233000));
	ck_assert_int_eq(t->kernels[1].dur, INT64_C(1152921504606846000));
	ck_assert_int_le(t->kernels[1].start + t->kernels[1].dur, TRACE_TIME_MAX);
	ck_assert_int_eq(trace_kernel_time(t), INT64_C(1152921504606847000));
	ck_assert_str_eq(
		t->warnings[0],
		"4 kept events had a missing, negative or unreadable ts/dur and were skipped");
	trace_free(t);
}
END_TEST

START_TEST(test_us_to_ns_limits)
{
	static const struct {
		const char *text;
		int64_t ns;
		int overflow;
	} cases[] = {
		{ "-9223372036854775.808", INT64_MIN, 1 },
		{ "9223372036854775.807", INT64_MAX, 1 },
		{ "9223372036854779", INT64_MAX, 1 },
		{ "9223372036854774.999", INT64_C(9223372036854774999), 0 },
		{ "-9223372036854774", INT64_C(-9223372036854774000), 0 },
		{ "0.0005", 1, 0 },
		{ "0.0004999", 0, 0 },
		{ "1.5e3", 1500000, 0 },
		{ "1e400", INT64_MAX, 1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct json_str raw = { cases[i].text, strlen(cases[i].text) };
		int64_t ns = 42;
		int overflow = 0;

		ck_assert_int_eq(json_us_to_ns(raw, &ns, &overflow), 0);
		ck_assert_msg(ns == cases[i].ns && overflow == cases[i].overflow,
			      "%s: %lld ns, overflow %d", cases[i].text, (long long)ns, overflow);
	}
}
END_TEST

/* A number at the very end of a buffer: nothing after it may be read. */
START_TEST(test_int_at_end_of_buffer)
{
	char *buf = malloc(4);
	struct json_str raw;
	int64_t v = 0;
	int overflow = 0;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "1e59", 4); /* the number is "1e5"; the "9" after it is not part of it */
	raw.s = buf;
	raw.len = 3;
	ck_assert_int_eq(json_to_int64(raw, &v, &overflow), 0);
	ck_assert_int_eq(v, 100000);
	ck_assert_int_eq(overflow, 0);
	free(buf);

	buf = malloc(3); /* and nothing at all after it (AddressSanitizer checks) */
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "2e3", 3);
	raw.s = buf;
	ck_assert_int_eq(json_to_int64(raw, &v, &overflow), 0);
	ck_assert_int_eq(v, 2000);
	free(buf);
}
END_TEST

START_TEST(test_annotations_overlap)
{
	/* Overlapping, nested and repeated ranges are kept as they are, sorted by start (longest
	 * first); unterminated ones (no dur, dur -1, "B" without "E") are skipped and counted. */
	struct trace *t = load_bad("annotations_overlap.json", -1);

	ck_assert_uint_eq(count_ranges(t, RANGE_GPU_USER, "prefill"), 2);
	ck_assert_uint_eq(count_ranges(t, RANGE_GPU_USER, "decode"), 1);
	ck_assert_uint_eq(count_ranges(t, RANGE_USER, "step"), 2);
	ck_assert_uint_eq(count_ranges(t, RANGE_USER, "unterminated_b"), 0);
	ck_assert_uint_eq(count_ranges(t, RANGE_USER, "unterminated_dur"), 0);
	ck_assert_uint_eq(count_ranges(t, RANGE_GPU_USER, "unterminated_gpu"), 0);
	ck_assert_uint_eq(t->n_ranges, 5);
	for (size_t i = 1; i < t->n_ranges; i++) {
		ck_assert_int_le(t->ranges[i - 1].start, t->ranges[i].start);
		if (t->ranges[i - 1].start == t->ranges[i].start)
			ck_assert_int_ge(t->ranges[i - 1].dur, t->ranges[i].dur);
	}
	ck_assert_str_eq(
		t->warnings[0],
		"3 kept events had a missing, negative or unreadable ts/dur and were skipped");
	ck_assert_uint_eq(t->n_kernel_events, 3);
	trace_free(t);
}
END_TEST

START_TEST(test_kernel_without_launch)
{
	struct trace *t = load_bad("kernel_without_launch.json", -1);
	const struct trace_kernel *gemm = kernel_named(t, "gemm_kernel");
	const struct trace_kernel *orphan = kernel_named(t, "orphan_kernel");
	const struct trace_kernel *none = kernel_named(t, "no_corr_kernel");

	ck_assert_uint_eq(t->n_kernel_events, 3);
	ck_assert_int_ge(gemm->launch, 0);
	ck_assert_str_eq(trace_str(t, trace_find_op(t, gemm->external_id)->input_dims),
			 "[[4,512],[512,512]]");
	ck_assert_int_eq(orphan->launch, -1);
	ck_assert_ptr_null(trace_find_op(t, orphan->external_id));
	ck_assert_int_eq(none->correlation, 0);
	ck_assert_int_eq(none->launch, -1);
	/* the launch of a kernel that is not there goes, as its operator does; gemm_kernel's is
	 * folded into it */
	ck_assert_uint_eq(t->n_launches, 0);
	trace_free(t);
}
END_TEST

START_TEST(test_flow_without_start)
{
	struct trace *t = load_bad("flow_without_start.json", -1);

	ck_assert_uint_eq(t->n_kernel_events, 1);
	ck_assert_int_eq(trace_category_count(t, "ac2g"), 2);
	ck_assert_uint_eq(t->n_warnings, 0);
	trace_free(t);
}
END_TEST

START_TEST(test_one_kernel)
{
	struct trace *t = load_bad("one_kernel.json", -1);

	ck_assert_uint_eq(t->n_kernels, 1);
	ck_assert_int_eq(t->kernels[0].start, 0);
	ck_assert_int_eq(t->kernels[0].dur, 2500);
	ck_assert_int_eq(t->start_ns, INT64_C(1751410836000000500));
	ck_assert_int_eq(trace_kernel_time(t), 2500);
	trace_free(t);
}
END_TEST

START_TEST(test_all_other)
{
	struct trace *t = load_bad("all_other.json", -1);

	ck_assert_uint_eq(t->n_kernel_events, 9);
	ck_assert_str_eq(trace_str(t, t->kernels[8].name), "mystery_kernel_2");
	trace_free(t);
}
END_TEST

START_TEST(test_multi_device)
{
	/* Default: the device with the most kernel time (1), not the one with the most kernels. */
	struct trace *t = load_bad("multi_device.json", -1);

	ck_assert_int_eq(t->device, 1);
	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_uint_eq(t->n_other_device, 6);
	ck_assert_str_eq(trace_str(t, t->gpu_name), "NVIDIA H100 80GB HBM3");
	ck_assert_uint_eq(t->n_devices, 3);
	ck_assert_int_eq(t->devices[0].kernels, 5);
	ck_assert_int_eq(t->devices[1].kernel_time, 80000);
	ck_assert_int_eq(t->devices[2].kernels, 1);
	trace_free(t);

	t = load_bad("multi_device.json", 0);
	ck_assert_int_eq(t->device, 0);
	ck_assert_uint_eq(t->n_kernel_events, 5);
	ck_assert_uint_eq(t->n_other_device, 3);
	ck_assert_str_eq(trace_str(t, t->gpu_name), "NVIDIA H200");
	trace_free(t);

	expect_error("multi_device.json", 3, "no GPU kernels on device 3");
	expect_error("multi_device.json", 7,
		     "no kernels on device 7 (kernels ran on device 0, 1, 3)");
}
END_TEST

START_TEST(test_share_nothing)
{
	struct trace *a = load_bad("share_nothing_a.json", -1),
		     *b = load_bad("share_nothing_b.json", -1);

	ck_assert_int_eq(a->platform, PLATFORM_NVIDIA);
	ck_assert_int_eq(b->platform, PLATFORM_AMD);
	ck_assert_int_eq(b->device, 4);
	ck_assert_uint_eq(a->n_kernel_events, 4);
	ck_assert_uint_eq(b->n_kernel_events, 3);
	for (size_t i = 0; i < a->n_kernels; i++)
		ck_assert_ptr_null(kernel_named(b, trace_str(a, a->kernels[i].name)));
	trace_free(a);
	trace_free(b);
}
END_TEST

/* ---- big, deep and many: never hang, memory stays reasonable --------------------------------- */

START_TEST(test_string_100mb)
{
	struct trace *t = load_bad("string_100mb.json.gz", -1);
	long rss;
	FILE *sink = tmpfile();

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_uint_eq(intern_len(t->strings, t->kernels[0].name), 100u << 20);
	ck_assert_int_eq(memcmp(trace_str(t, t->kernels[0].name), "gemm_gemm_", 10), 0);
	ck_assert_ptr_nonnull(sink);
	ck_assert_int_eq(trace_summary_print(sink, t, NULL, NULL, NULL, NULL), 0);
	/* the summary stays short: the name is cut, not printed whole */
	ck_assert_int_lt(ftell(sink), 10000);
	fclose(sink);
	trace_free(t);
	/* The window holds the one event (128 MiB) and the name is interned once (100 MiB). */
	rss = peak_rss_mib();
	if (rss >= 0)
		ck_assert_int_lt(rss, 400);
}
END_TEST

/* The same kind of unit from a pipe, which gives at most 64 KiB per read: every read used to
 * restart the unit from its start, quadratic in its size (minutes for 48 MB). */
START_TEST(test_huge_unit_from_pipe)
{
	struct gen g = { 0 };
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	char path[64];
	int fd[2], status;
	pid_t pid;

	gen_add(&g, "{\"metadata\": [0");
	gen_repeat(&g, ",0", 24u << 20);
	gen_add(&g, "], \"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
		    "\"dur\": 1}]}");
	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t off = 0;

		close(fd[0]);
		while (off < g.len) {
			ssize_t n = write(fd[1], g.s + off, g.len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fd[1]);
	snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
	ck_assert_msg(trace_load(&t, path, NULL, &err) == 0, "%s", err.msg);
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_uint_eq(t->n_kernel_events, 1);
	ck_assert_int_eq(t->bytes, (int64_t)g.len);
	trace_free(t);
	free(g.s);
}
END_TEST

START_TEST(test_deep_generated)
{
	/* A bare array nested 10^6 deep, and an object nested 10^6 deep inside an event. */
	struct gen g = { 0 };
	struct fd_error err;

	gen_repeat(&g, "[", 1000000);
	ck_assert_ptr_null(load_gen(&g, &err));
	ck_assert_str_eq(err.msg,
			 "gen.json: line 1, column 2: expected an event object in traceEvents");
	g.len = 0;
	gen_add(&g, "{\"traceEvents\": [{\"cat\": \"python_function\", \"args\": ");
	gen_repeat(&g, "{\"a\":", 1000000);
	ck_assert_ptr_null(load_gen(&g, &err));
	ck_assert_str_eq(err.msg,
			 "gen.json: line 1, column 2613: nesting too deep (more than 512 levels)");
	free(g.s);
}
END_TEST

START_TEST(test_millions_of_events)
{
	/* 10^6 kernels among 3 * 10^6 empty events: loaded in seconds, memory in proportion. */
	struct gen g = { 0 };
	struct fd_error err = { { 0 } };
	struct trace *t;

	gen_add(&g, "{\"traceEvents\":[");
	for (int i = 0; i < 1000000; i++)
		gen_add(&g, "%s{\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,\"dur\":1},{},{},{}",
			i ? "," : "", i % 50, i);
	gen_add(&g, "]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(t->n_events, 4000000);
	ck_assert_uint_eq(t->n_kernel_events, 1000000);
	ck_assert_int_eq(trace_category_count(t, "(none)"), 3000000);
	ck_assert_int_eq(t->kernels[999999].start, 999999000);
	ck_assert_int_eq(trace_kernel_time(t), 1000000000);
	trace_free(t);
	free(g.s);
}
END_TEST

START_TEST(test_many_devices)
{
	/* 3 * 10^5 kernels on 30,000 devices (a kernel holds device ids up to 32767): counting
	 * them per device was quadratic. */
	struct gen g = { 0 };
	struct fd_error err = { { 0 } };
	struct trace *t;

	gen_add(&g, "{\"traceEvents\":[");
	for (int i = 0; i < 300000; i++)
		gen_add(&g,
			"%s{\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%d,\"dur\":%d,\"args\":{"
			"\"device\":%d}}",
			i ? "," : "", i, i == 123456 ? 5 : 1, (300000 - i) % 30000 + 1);
	gen_add(&g, "]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_uint_eq(t->n_devices, 30000);
	ck_assert_int_eq(t->device, (300000 - 123456) % 30000 + 1);
	ck_assert_uint_eq(t->n_kernels, 10);
	ck_assert_uint_eq(t->n_other_device, 299990);
	for (size_t i = 1; i < t->n_devices; i++)
		ck_assert_int_lt(t->devices[i - 1].id, t->devices[i].id);
	trace_free(t);
	free(g.s);
}
END_TEST

/* A kernel holds the thread that launched it as an index into the trace's threads (65,535 of
 * them at most) and its device as an int16: kernels launched from threads beyond are launched
 * from nowhere, with a warning, and a device beyond int16 is device -1. */
START_TEST(test_many_threads)
{
	struct gen g = { 0 };
	struct fd_error err = { { 0 } };
	struct trace *t;
	size_t launched = 0;

	gen_add(&g, "{\"traceEvents\":[");
	for (int i = 0; i < 65540; i++)
		gen_add(&g,
			"%s{\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ph\":\"X\","
			"\"tid\":%d,\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%d}},"
			"{\"cat\":\"kernel\",\"name\":\"k\",\"ph\":\"X\",\"ts\":%d,\"dur\":1,"
			"\"args\":{\"device\":%d,\"correlation\":%d}}",
			i ? "," : "", 1000 + i, 2 * i, i + 1, 2 * i + 1, 40000, i + 1);
	gen_add(&g, "]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(t->device, -1); /* 40000: beyond int16 */
	ck_assert_uint_eq(t->n_kernels, 65540);
	ck_assert_uint_eq(t->n_threads, TRACE_THREADS_MAX);
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		if (k->launch < 0)
			continue;
		launched++;
		ck_assert_int_eq(trace_launch_tid(t, k), 1000 + k->correlation - 1);
		ck_assert_int_eq(k->launch, k->start - 1000);
	}
	ck_assert_uint_eq(launched, 65540 - 5);
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(t->warnings[0],
			 "5 launch events came from threads beyond the first 65535: "
			 "their kernels count as launched from nowhere");
	trace_free(t);
	free(g.s);
}
END_TEST

START_TEST(test_many_keys_and_categories)
{
	/* 10^6 distinct top-level keys, then 10^6 distinct categories: both were quadratic. */
	struct gen g = { 0 };
	struct fd_error err = { { 0 } };
	struct trace *t;

	gen_add(&g, "{");
	for (int i = 0; i < 1000000; i++)
		gen_add(&g, "\"key%d\":%d,", i, i);
	gen_add(&g, "\"traceEvents\":[{\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1}");
	for (int i = 0; i < 1000000; i++)
		gen_add(&g, ",{\"cat\":\"c%d\"}", i);
	gen_add(&g, "]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_uint_eq(t->n_meta, 1000000);
	ck_assert_str_eq(trace_meta_get(t, "key999999"), "999999");
	ck_assert_uint_eq(t->n_categories, 1000001);
	ck_assert_int_eq(trace_category_count(t, "c424242"), 1);
	trace_free(t);
	free(g.s);
}
END_TEST

START_TEST(test_huge_device_properties)
{
	/* deviceProperties goes to cJSON as a tree: not when it is absurdly large. */
	struct gen g = { 0 };
	struct fd_error err = { { 0 } };
	struct trace *t;

	gen_add(&g, "{\"deviceProperties\":[");
	for (int i = 0; i < 2000; i++)
		gen_add(&g, "%s{\"id\":%d,\"name\":\"GPU %d\",\"warpSize\":64}", i ? "," : "", i,
			i);
	gen_add(&g, "],\"traceEvents\":[{\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1,"
		    "\"args\":{\"device\":7}}]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_uint_eq(t->n_devices, 1024);
	ck_assert_str_eq(trace_str(t, t->gpu_name), "GPU 7");
	ck_assert_str_eq(
		t->warnings[0],
		"\"deviceProperties\" lists more than 1024 devices: the rest were ignored");
	trace_free(t);

	g.len = 0;
	gen_add(&g, "{\"deviceProperties\":[");
	for (int i = 0; i < 100000; i++)
		gen_add(&g, "%s{\"id\":%d}", i ? "," : "", i);
	gen_add(&g, "],\"traceEvents\":[{\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1,"
		    "\"args\":{\"device\":7}}]}");
	t = load_gen(&g, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_uint_eq(t->n_devices, 1);
	ck_assert_str_eq(t->warnings[0],
			 "\"deviceProperties\" is larger than 1024 KiB and was ignored");
	trace_free(t);
	free(g.s);
}
END_TEST

/* ---- classification rules files ------------------------------------------------------------ */

static const struct {
	const char *file, *msg; /* msg NULL: accepted */
} rules_files[] = {
	/* the rules fuzzer's first finding: out of memory inside regcomp() */
	{ "rules_exploding_regex.rules",
	  "line 2: bad regular expression 'y++++++++++++++++++++++++++++++++++++++.c': repetitions "
	  "multiply "
	  "to more than 64 copies" },
	{ "rules_exploding_interval.rules", "line 2: bad regular expression '(x{100}){100}': "
					    "repetitions multiply to more than 64 copies" },
	/* its third: a ')' that closes nothing, repeated: the guard took it for an error */
	{ "rules_unmatched_paren.rules",
	  "line 2: bad regular expression ')+++++++++++++++++++++++++++++': repetitions multiply "
	  "to more "
	  "than 64 copies" },
	{ "rules_backreference.rules",
	  "line 1: bad regular expression '(a*)*\\1b': back-references (\\1) are not supported" },
	/* its second: a repeated prim= leaked the first (make sanitize and make valgrind see it) */
	{ "rules_repeated_flags.rules", NULL },
};

START_TEST(test_rules_files)
{
	struct classifier *c = (struct classifier *)1;
	struct fd_error err = { { 0 } };
	const char *path = bad_path(rules_files[_i].file);
	char want[FD_ERROR_MAX + 600];

	if (!rules_files[_i].msg) {
		struct kernel_info ki;

		ck_assert_msg(classifier_new(&c, path, NULL, &err) == 0, "%s", err.msg);
		classify_kernel(c, "silu_and_mul_kernel", "b", NULL, &ki);
		ck_assert_int_eq(ki.cls, CLASS_ACTIVATION);
		ck_assert_str_eq(ki.prim, "mul");
		kernel_info_clear(&ki);
		classifier_free(c);
		return;
	}
	ck_assert_int_eq(classifier_new(&c, path, NULL, &err), -1);
	ck_assert_ptr_null(c);
	snprintf(want, sizeof want, "%s: %s", path, rules_files[_i].msg);
	ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(test_regex_guard)
{
	static const char *const ok[] = {
		"^nvjet_sm[0-9]+_tst_[0-9]+x[0-9]+_[0-9]+x[0-9]+_[0-9]+x[0-9]+_[a-z]+_[a-z]+_[A-Z]"
		"+",
		"(^|_)fmha|flash_fwd",
		"[[:alpha:]]+[]+]{1,3}",
		"(a+){32}",
		"((a?)*)+",
		"x{,}",
		"a{64}",
		"[+]+[{]{2}",
		"\\+\\{",
		"(",
		")",
		"[",
		"a{",
		")+)*(x+)?",
		/* repetitions of what may match nothing, up to 8 */
		"((a?)*)+",
		"foo.*?bar.*?baz",
		"^(_[0-9]*)*x**y**z**(a|b*)+$",
		".*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*",
	};
	static const struct {
		const char *pattern, *why;
	} refused[] = {
		{ "y+++++++++", "repetitions multiply to more than 64 copies" },
		{ "((((((((((a+)+)+)+)+)+)+)+)+)+)",
		  "repetitions multiply to more than 64 copies" },
		{ "(a{16}){17}", "repetitions multiply to more than 64 copies" },
		{ "a{257}", "repetitions multiply to more than 64 copies" },
		/* accepted at 256 copies: 27 ms per 8 KiB name, minutes over a crafted trace */
		{ "(.{0,16}){16}c", "repetitions multiply to more than 64 copies" },
		{ "a{1,99999999999999999999}", "repetitions multiply to more than 64 copies" },
		{ "(a)\\1", "back-references (\\1) are not supported" },
		/* the rules fuzzer's third finding: a ')' that closes nothing is a literal, repeatable */
		{ ")+++++++++", "repetitions multiply to more than 64 copies" },
		{ "a)(b+++++++++)", "repetitions multiply to more than 64 copies" },
		/* the rules fuzzer's fourth finding (2026-12-06): stars after stars, regcomp() ran
		 * for minutes (20 "x**" in a row took 0.9 s, each doubles it) */
		{ "^n*********************************#*********************************\377*******"
		  "\377\377\377\377\377\377\377\377\377\377\377",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
		{ "x**x**x**x**x**x**x**x**x**",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
		{ "(x*)+(x*)+(x*)+(x*)+(x*)+(x*)+(x*)+(x*)+(x*)+",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
		{ "(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)*(a|b*|c)"
		  "*",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
		{ "x*?x*?x*?x*?x*?x*?x*?x*?x*?",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
		{ "\\<*\\<*\\<*\\<*\\<*\\<*\\<*\\<*\\<*",
		  "more than 8 repetitions of what may match nothing (as in x** or (a*)*)" },
	};
	char msg[128], deep[200], longp[REGEX_GUARD_MAX_LEN + 2];

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		ck_assert_msg(regex_guard(ok[i], msg, sizeof msg) == 0, "%s: %s", ok[i], msg);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		ck_assert_msg(regex_guard(refused[i].pattern, msg, sizeof msg) == -1, "%s",
			      refused[i].pattern);
		ck_assert_str_eq(msg, refused[i].why);
	}
	memset(deep, '(', 100);
	deep[100] = '\0';
	ck_assert_int_eq(regex_guard(deep, msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "groups nested deeper than 64");
	memset(longp, 'a', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	ck_assert_int_eq(regex_guard(longp, msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "longer than 1024 bytes");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *files = tcase_create("files"), *big = tcase_create("big");

	tcase_set_timeout(files, 20);
	tcase_add_loop_test(files, test_rejected, 0, sizeof rejected / sizeof rejected[0]);
	tcase_add_test(files, test_duplicate_keys);
	tcase_add_test(files, test_times_as_strings);
	tcase_add_test(files, test_bad_durations);
	tcase_add_test(files, test_time_overflow);
	tcase_add_test(files, test_us_to_ns_limits);
	tcase_add_test(files, test_int_at_end_of_buffer);
	tcase_add_test(files, test_annotations_overlap);
	tcase_add_test(files, test_kernel_without_launch);
	tcase_add_test(files, test_flow_without_start);
	tcase_add_test(files, test_one_kernel);
	tcase_add_test(files, test_all_other);
	tcase_add_test(files, test_multi_device);
	tcase_add_test(files, test_share_nothing);
	tcase_add_loop_test(files, test_rules_files, 0, sizeof rules_files / sizeof rules_files[0]);
	tcase_add_test(files, test_regex_guard);
	suite_add_tcase(s, files);

	/* Each of these takes a second or two here; the limit is "does not hang", generous for a
	 * loaded machine (30 s failed under make sanitize on one); tests/run-one.sh multiplies it
	 * under make sanitize and valgrind. */
	tcase_set_timeout(big, 120);
	tcase_add_test(big, test_string_100mb);
	tcase_add_test(big, test_huge_unit_from_pipe);
	tcase_add_test(big, test_deep_generated);
	tcase_add_test(big, test_millions_of_events);
	tcase_add_test(big, test_many_devices);
	tcase_add_test(big, test_many_threads);
	tcase_add_test(big, test_many_keys_and_categories);
	tcase_add_test(big, test_huge_device_properties);
	suite_add_tcase(s, big);
	return s;
}

int main(void)
{
	/* a process per test: the limits on peak memory are per test (not under valgrind, which
	 * makes every process its own slow copy) */
	return test_run_in(suite(), !getenv("FUSEDIFF_VALGRIND"));
}
