/* check_trace.c — the loader on every real trace and on damaged inputs. */
#include "testutil.h"

#include <unistd.h>
#include <zlib.h>

#include "fusediff/text.h"

/* Kernel counts and platforms of the real traces (shared/traces/SOURCES.md). */
static const struct {
	const char *file;
	size_t kernels;
	enum trace_platform platform;
	const char *gpu; /* NULL: not asserted */
} real[] = {
	{ "llama8l_eager_sdpa.json.gz", 6430, PLATFORM_NVIDIA, "NVIDIA H200" },
	{ "llama8l_compiled_sdpa.json.gz", 241, PLATFORM_NVIDIA, "NVIDIA H200" },
	{ "llama8l_eager_mathattn.json.gz", 7648, PLATFORM_NVIDIA, "NVIDIA H200" },
	{ "moe6l_eager_sdpa.json.gz", 5210, PLATFORM_NVIDIA, "NVIDIA H200" },
	{ "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz", 386, PLATFORM_AMD,
	  "AMD Instinct MI300X" },
	{ "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz", 393, PLATFORM_NVIDIA,
	  "NVIDIA B300 SXM6 AC" },
	{ "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz", 1516, PLATFORM_AMD,
	  "AMD Instinct MI300X VF" },
	{ "tracelens_qwen1.5-0.5b_hf_h100.json.gz", 1465, PLATFORM_NVIDIA,
	  "NVIDIA H100 80GB HBM3" },
	{ "tracelens_bert-small_hf_mi300x.json.gz", 60, PLATFORM_AMD, NULL },
	{ "tracelens_bert-small_hf_h100.json.gz", 60, PLATFORM_NVIDIA, NULL },
};

START_TEST(test_real_trace)
{
	struct trace *t = test_load(test_trace(real[_i].file));

	ck_assert_uint_eq(t->n_kernel_events, real[_i].kernels);
	ck_assert_int_eq(trace_category_count(t, "kernel"), (int64_t)real[_i].kernels);
	ck_assert_str_eq(trace_platform_name(t->platform), trace_platform_name(real[_i].platform));
	if (real[_i].gpu)
		ck_assert_str_eq(trace_str(t, t->gpu_name), real[_i].gpu);
	/* sorted by start, relative to the trace start */
	for (size_t i = 1; i < t->n_kernels; i++)
		ck_assert_int_le(t->kernels[i - 1].start, t->kernels[i].start);
	ck_assert_int_ge(t->kernels[0].start, 0);
	trace_free(t);
}
END_TEST

START_TEST(test_large_shared_trace)
{
	const char *p = test_shared_trace("llama3_8b_shape_eager_sdpa.json.gz");
	struct trace *t;

	if (!p) {
		fprintf(stderr,
			"llama3_8b_shape trace not found next to the checkout: not checked\n");
		return;
	}
	t = test_load(p);
	ck_assert_uint_eq(t->n_kernel_events, 49144);
	ck_assert_int_eq(t->platform, PLATFORM_NVIDIA);
	ck_assert_str_eq(trace_str(t, t->gpu_name), "NVIDIA H200");
	trace_free(t);
}
END_TEST

/* What the loader keeps of the eager Llama trace, beyond kernels. */
START_TEST(test_links_and_ranges)
{
	struct trace *t = test_load(test_trace("llama8l_eager_sdpa.json.gz"));
	size_t linked = 0, modules = 0, gpu_ann = 0;

	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_op *o = trace_find_op(t, t->kernels[i].external_id);

		if (t->kernels[i].launch >= 0 && o)
			linked++;
	}
	/* nearly every kernel has a launch event and an operator */
	ck_assert_uint_ge(linked * 100, t->n_kernels * 95);
	for (size_t i = 0; i < t->n_ranges; i++) {
		modules += t->ranges[i].kind == RANGE_MODULE;
		gpu_ann += t->ranges[i].kind == RANGE_GPU_USER;
	}
	ck_assert_uint_eq(modules, 1980);
	ck_assert_uint_eq(gpu_ann, 18);
	{
		struct trace_dims d;

		trace_dims_get(t, t->kernels[0].dims, &d);
		ck_assert_int_eq(d.grid[0] > 0, 1);
		ck_assert_int_eq(d.block[0] > 0, 1);
	}
	ck_assert_str_eq(trace_meta_get(t, "cuda_runtime_version"), "13000");
	trace_free(t);
}
END_TEST

/* The operators kept are those a kernel names by External id, whether the ids are dense (a
 * bitmap of them) or spread over 64 bits (sorted and searched). */
static void check_ops_kept(const long long *op_ids, size_t n_ops, const long long *kernel_ids,
			   size_t n_kernels)
{
	char *doc = NULL;
	size_t len = 0, kept = 0;
	FILE *f = open_memstream(&doc, &len);
	struct trace *t;
	struct fd_error err;

	fputs("{\"traceEvents\":[", f);
	for (size_t i = 0; i < n_ops; i++)
		fprintf(f,
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%zu\",\"ts\":%zu,"
			"\"dur\":1,\"args\":{\"External id\":%lld}},",
			i, i * 10, op_ids[i]);
	for (size_t i = 0; i < n_kernels; i++)
		fprintf(f,
			"%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%zu,"
			"\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%zu,"
			"\"External id\":%lld}}",
			i ? "," : "", i * 10 + 5, i + 1, kernel_ids[i]);
	fputs("]}", f);
	fclose(f);
	ck_assert_int_eq(trace_load_mem(&t, "ops.json", doc, len, NULL, &err), 0);
	free(doc);
	for (size_t i = 0; i < n_ops; i++) {
		int named = 0;

		for (size_t k = 0; k < n_kernels; k++)
			named |= kernel_ids[k] == op_ids[i];
		ck_assert_int_eq(trace_find_op(t, op_ids[i]) != NULL, named);
		kept += named;
	}
	ck_assert_uint_eq(t->n_ops, kept);
	trace_free(t);
}

START_TEST(test_ops_kept_by_id)
{
	static const long long dense_ops[] = { 7, 8, 9, 10, 11, 12, 13 },
			       dense_kernels[] = { 8, 12, 12, 13, 99 },
			       spread_ops[] = { 3, 4000000000000000000LL, 5, -9,
						4000000000000000001LL },
			       spread_kernels[] = { 4000000000000000001LL, 3, -9 };

	check_ops_kept(dense_ops, 7, dense_kernels, 5);
	check_ops_kept(spread_ops, 5, spread_kernels, 3);
}
END_TEST

/* trace_load_opts.started is called once, as the events begin, for a plain file cut into
 * chunks and for a gzip one. */
static void count_started(void *user)
{
	++*(int *)user;
}

START_TEST(test_started_once)
{
	char plain[] = "/tmp/fusediff-started-XXXXXX";
	const char *gz = test_trace("llama8l_eager_sdpa.json.gz");
	gzFile in = gzopen(gz, "rb");
	int fd = mkstemp(plain), n;
	char buf[65536];

	ck_assert_ptr_nonnull(in);
	ck_assert_int_ge(fd, 0);
	while ((n = gzread(in, buf, sizeof buf)) > 0)
		ck_assert_int_eq(write(fd, buf, (size_t)n), n);
	gzclose(in);
	close(fd);
	for (int f = 0; f < 2; f++) { /* split_min 1: the plain file cut into chunks */
		int calls = 0;
		struct trace_load_opts lo = { .device = -1,
					      .started = count_started,
					      .started_user = &calls,
					      .tuning = { .split_min = 1 } };
		struct trace *t;
		struct fd_error err;

		ck_assert_msg(trace_load(&t, f ? plain : gz, &lo, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(calls, 1);
		trace_free(t);
	}
	unlink(plain);
}
END_TEST

/* Damaged inputs that must be rejected with one exact line. */
static const struct {
	const char *file, *msg;
} bad[] = {
	{ "truncated.json",
	  "line 6, column 165: unexpected end of file inside a string (the JSON is truncated)" },
	{ "truncated.json.gz",
	  "truncated gzip data: the compressed stream ends after 16722 bytes" },
	{ "empty.json", "empty file" },
	{ "not_json.json", "line 1, column 1: not JSON: expected '{' at the start of a trace" },
	{ "no_trace_events.json", "no \"traceEvents\" array: not a PyTorch profiler trace" },
	{ "no_kernels.json",
	  "no GPU kernels in this trace (record it with ProfilerActivity.CUDA)" },
	/* an accelerator fusediff does not read: what the file holds, not a CUDA hint */
	{ "mtia_device.json",
	  "no GPU kernels: this trace records an MTIA device (events: 2 mtia_runtime, 3 "
	  "mtia_ccp_events), which fusediff does not read (it reads CUDA and ROCm GPU kernels)" },
	/* a category's name is the trace's: escaped, so that the error stays one line (a newline
	 * in it broke that; found by fuzz_trace_load) */
	{ "mtia_category_newline.json",
	  "no GPU kernels: this trace records an MTIA device (events: 2 mtia_runtime, 1 "
	  "mtia_ccp_events, 1 mtia_c\\ncp\\0events), which fusediff does not read (it reads CUDA "
	  "and ROCm GPU kernels)" },
	{ "trailing_comma.json", "line 7, column 3: trailing comma before ']'" },
	{ "missing_comma.json", "line 3, column 20: expected ',' or '}' in object" },
	/* a member's key right after the previous value's closing quote: the inline key path
	 * (json.h) took it for the next member (found by fuzz_trace_load) */
	{ "missing_comma_between_keys.json", "line 3, column 16: expected ',' or '}' in object" },
	{ "nested_deep.json", "line 1, column 599: nesting too deep (more than 512 levels)" },
	{ "not_an_object_event.json",
	  "line 1, column 18: expected an event object in traceEvents" },
	{ "garbage_after.json",
	  "line 9, column 1: unexpected data after the end of the JSON document" },
};

START_TEST(test_bad_input)
{
	char path[512], want[1024];
	struct trace *t = (struct trace *)1;
	struct fd_error err = { { 0 } };

	snprintf(path, sizeof path, "%s", test_path("tests/data/bad/"));
	strncat(path, bad[_i].file, sizeof path - strlen(path) - 1);
	ck_assert_int_eq(trace_load(&t, path, NULL, &err), -1);
	ck_assert_ptr_null(t);
	snprintf(want, sizeof want, "%s: %s", path, bad[_i].msg);
	ck_assert_str_eq(err.msg, want);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
}
END_TEST

static struct trace *load_bad(const char *file)
{
	char path[512];

	snprintf(path, sizeof path, "tests/data/bad/%s", file);
	return test_load(test_path(path));
}

START_TEST(test_damage_kept_visible)
{
	struct trace *t = load_bad("control_chars.json");
	const char *name = trace_str(t, t->kernels[0].name);
	char shown[256];

	ck_assert_str_eq(name, "gemm\x01kernel\x1b[31m");
	text_escape(shown, sizeof shown, name, strlen(name));
	ck_assert_str_eq(shown, "gemm\\x01kernel\\e[31m");
	trace_free(t);

	t = load_bad("invalid_utf8.json");
	name = trace_str(t, t->kernels[0].name);
	text_escape(shown, sizeof shown, name, strlen(name));
	ck_assert_str_eq(shown, "gemm_\\xff\\xfe_kernel");
	trace_free(t);

	t = load_bad("escape_sequence_name.json");
	name = trace_str(t, t->kernels[0].name);
	text_escape(shown, sizeof shown, name, strlen(name));
	ck_assert_str_eq(shown, "\\e]0;pwned\\x07");
	trace_free(t);
}
END_TEST

START_TEST(test_huge_name)
{
	struct trace *t = load_bad("huge_name.json.gz");

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_uint_eq(intern_len(t->strings, t->kernels[0].name), 1u << 20);
	trace_free(t);
}
END_TEST

START_TEST(test_big_numbers)
{
	struct trace *t = load_bad("big_numbers.json");

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_int_eq(t->kernels[0].correlation, INT64_MAX);
	ck_assert_int_eq(t->kernels[1].correlation, INT64_MIN);
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(t->warnings[0], "2 events had numbers beyond 64 bits (clamped)");
	trace_free(t);
}
END_TEST

START_TEST(test_keys_any_order)
{
	struct trace *t = load_bad("keys_any_order.json");

	ck_assert_uint_eq(t->n_kernel_events, 2);
	ck_assert_int_eq(t->platform, PLATFORM_AMD);
	ck_assert_str_eq(t->platform_reason, "warpSize 64");
	ck_assert_str_eq(trace_str(t, t->gpu_name), "AMD Instinct MI300X");
	ck_assert_str_eq(trace_str(t, t->kernels[0].name), "gemm_kernel");
	ck_assert_int_eq(t->kernels[0].start, 0);
	ck_assert_int_eq(t->kernels[0].dur, 3000);
	ck_assert_int_eq(t->kernels[1].start, 10000);
	ck_assert_str_eq(trace_str(t, t->kernels[1].name), "");
	trace_free(t);
}
END_TEST

/* The same bytes split at every possible place still parse the same (restart logic). */
START_TEST(test_mem_and_stdin_equivalent)
{
	static const char doc[] =
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\u00e9\\\"b\","
		"\"ts\":1.5,\"dur\":0.25,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}}],\"cupti_version\":1}";
	struct trace *t;
	struct fd_error err;

	ck_assert_int_eq(trace_load_mem(&t, "mem", doc, sizeof doc - 1, NULL, &err), 0);
	ck_assert_str_eq(trace_str(t, t->kernels[0].name), "a\xc3\xa9\"b");
	ck_assert_int_eq(t->kernels[0].dur, 250);
	ck_assert_int_eq(t->platform, PLATFORM_NVIDIA);
	trace_free(t);
}
END_TEST

/* Members are taken by the bytes remembered from the events before (key_pred.h): a layout that
 * changes, keys met in another order, an escaped key, more distinct keys than have slots, and
 * the same bytes at another level, all parse as the keys they are. */
START_TEST(test_key_layouts)
{
	static const char *const forms[] = {
		/* the usual layout */
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 1, \"tid\": 7, "
		"\"ts\": %d, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7, "
		"\"correlation\": %d}}",
		/* keys in another order, other blanks */
		"{ \"name\":\"k%d\",\"cat\":\"kernel\" , \"ph\":\"X\",\"dur\" :2,\"ts\":  %d, "
		"\"args\":{\"correlation\":%d,\"stream\":7, \"device\":0}, \"pid\":1,\"tid\":7}",
		/* an escaped key and category; args holding a "name" and a "ts" of their own */
		"{\"ph\": \"X\", \"\\u0063at\": \"k\\u0065rnel\", \"name\": \"k%d\", \"pid\": 1, "
		"\"tid\": 7, \"ts\": %d, \"dur\": 2, \"args\": {\"name\": \"x\", \"ts\": 99, "
		"\"device\": 0, \"stream\": 7, \"correlation\": %d}}",
	};
	enum { N = 600 };
	size_t cap = 400 * N, len = 0;
	char *doc = xmalloc(cap), *q, want[120];
	struct trace *t;
	struct fd_error err;

	len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\": [");
	for (int i = 0; i < N; i++) {
		int f = i < 200 ? 0 : i < 300 ? 1 : i < 400 ? 2 : i % 3;

		if (i)
			doc[len++] = ',';
		if (i >= 500) /* a key of its own in every event: more than the slots */
			len += (size_t)snprintf(
				doc + len, cap - len,
				"{\"extra %d\": 1, \"ph\": \"X\", \"cat\": \"kernel\", "
				"\"name\": \"k%d\", \"pid\": 1, \"tid\": 7, \"ts\": %d, "
				"\"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7, "
				"\"correlation\": %d}}",
				i, i, 10 * i, i + 1);
		else
			len += (size_t)snprintf(doc + len, cap - len, forms[f], i, 10 * i, i + 1);
	}
	len += (size_t)snprintf(doc + len, cap - len, "]}");
	ck_assert_int_eq(trace_load_mem(&t, "layouts.json", doc, len, NULL, &err), 0);
	ck_assert_uint_eq(t->n_kernel_events, N);
	for (size_t i = 0; i < N; i++) {
		snprintf(want, sizeof want, "k%zu", i);
		ck_assert_str_eq(trace_str(t, t->kernels[i].name), want);
		ck_assert_int_eq(t->kernels[i].start, 10000 * (int64_t)i);
		ck_assert_int_eq(t->kernels[i].dur, 2000);
		ck_assert_int_eq(t->kernels[i].correlation, (int64_t)i + 1);
		ck_assert_int_eq(t->kernels[i].stream, 7);
	}
	trace_free(t);

	/* after 200 events of one layout, the same bytes without their ',' are still an error */
	len = 0;
	len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\": [");
	for (int i = 0; i < 201; i++) {
		if (i)
			doc[len++] = ',';
		len += (size_t)snprintf(doc + len, cap - len, forms[0], i, 10 * i, i + 1);
	}
	q = strstr(doc + len - 150, "\"stream\"");
	q[-2] = ' '; /* "device": 0  "stream": 7 */
	len += (size_t)snprintf(doc + len, cap - len, "]}");
	ck_assert_int_eq(trace_load_mem(&t, "layouts.json", doc, len, NULL, &err), -1);
	snprintf(want, sizeof want,
		 "layouts.json: line 1, column %td: expected ',' or '}' in object", q - doc + 1);
	ck_assert_str_eq(err.msg, want);

	/* NUL bytes where a member should start match no run remembered (an empty one is all
	 * zeros): the same error as without remembering */
	q = strstr(doc + len / 2, ", \"stream\"");
	memset(q, 0, 100);
	ck_assert_int_eq(trace_load_mem(&t, "layouts.json", doc, len, NULL, &err), -1);
	snprintf(want, sizeof want,
		 "layouts.json: line 1, column %td: expected ',' or '}' in object", q - doc + 1);
	ck_assert_str_eq(err.msg, want);
	free(doc);
}
END_TEST

/* Grids and blocks are taken from the texts met last when the same text comes again: each
 * kernel still gets its own, a shorter array after a longer one leaves the rest zero, and a
 * number beyond 64 bits is counted in every event that has it. */
START_TEST(test_grids_remembered)
{
	static const char *const grids[] = {
		"[1, 2, 3]", "[1, 2, 3]",
		"[4, 5]",    "[1, 2, 3]",
		"[6,7,8]",   "[99999999999999999999, 1, 1]",
		"[4, 5]",    "[99999999999999999999, 1, 1]",
		"[1, 2, 3]", "[1, 2, 3]",
	};
	static const int32_t want[][3] = {
		{ 1, 2, 3 },	     { 1, 2, 3 }, { 4, 5, 0 },	       { 1, 2, 3 }, { 6, 7, 8 },
		{ INT32_MAX, 1, 1 }, { 4, 5, 0 }, { INT32_MAX, 1, 1 }, { 1, 2, 3 }, { 1, 2, 3 },
	};
	enum { N = sizeof grids / sizeof grids[0] };
	char doc[4096];
	size_t len = 0;
	struct trace *t;
	struct fd_error err;
	struct trace_dims d;

	len += (size_t)snprintf(doc + len, sizeof doc - len, "{\"traceEvents\": [");
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(doc + len, sizeof doc - len,
					"%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
					"\"ts\": %d, \"dur\": 1, \"args\": {\"device\": 0, "
					"\"stream\": 7, \"correlation\": %d, \"grid\": %s, "
					"\"block\": [128, 1, 1]}}",
					i ? ", " : "", 10 * i, i + 1, grids[i]);
	len += (size_t)snprintf(doc + len, sizeof doc - len, "]}");
	ck_assert_uint_lt(len, sizeof doc - 1);
	ck_assert_int_eq(trace_load_mem(&t, "grids.json", doc, len, NULL, &err), 0);
	ck_assert_uint_eq(t->n_kernel_events, N);
	for (size_t i = 0; i < N; i++) {
		trace_dims_get(t, t->kernels[i].dims, &d);
		ck_assert_int_eq(d.grid[0], want[i][0]);
		ck_assert_int_eq(d.grid[1], want[i][1]);
		ck_assert_int_eq(d.grid[2], want[i][2]);
		ck_assert_int_eq(d.block[0], 128);
	}
	ck_assert_uint_eq(t->n_warnings, 1);
	ck_assert_str_eq(t->warnings[0], "2 events had numbers beyond 64 bits (clamped)");
	trace_free(t);
}
END_TEST

/* Kernel i's name in test_names_remembered: one of 300 of one length, or of two that differ
 * only past the words looked at. */
static void kernel_name(char *buf, size_t cap, int i)
{
	if (i % 3 == 2)
		snprintf(buf, cap, "nvjet_sm90_tst_64x8_64x16_%dx1_v_bz_splitK_TNT", i % 2 ? 4 : 2);
	else
		snprintf(buf, cap, "void kern<%03d, float>(float*, int)", i * 7 % 300);
}

/* Names are found among those interned before by a few of their words: 300 names of one
 * length that differ in one byte, and two that differ only past the words looked at, each
 * kernel keeps its own. */
START_TEST(test_names_remembered)
{
	enum { N = 3000 };
	size_t cap = 300 * N, len = 0;
	char *doc = xmalloc(cap), want[128];
	struct trace *t;
	struct fd_error err;

	len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\": [");
	for (int i = 0; i < N; i++) {
		kernel_name(want, sizeof want, i);
		len += (size_t)snprintf(doc + len, cap - len,
					"%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", "
					"\"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d}}",
					i ? ", " : "", want, 10 * i, i + 1);
	}
	len += (size_t)snprintf(doc + len, cap - len, "]}");
	ck_assert_int_eq(trace_load_mem(&t, "names.json", doc, len, NULL, &err), 0);
	ck_assert_uint_eq(t->n_kernel_events, N);
	for (int i = 0; i < N; i++) {
		kernel_name(want, sizeof want, i);
		ck_assert_str_eq(trace_str(t, t->kernels[i].name), want);
	}
	trace_free(t);
	free(doc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("load");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_real_trace, 0, sizeof real / sizeof real[0]);
	tcase_add_test(tc, test_large_shared_trace);
	tcase_add_test(tc, test_links_and_ranges);
	tcase_add_test(tc, test_ops_kept_by_id);
	tcase_add_test(tc, test_started_once);
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof bad / sizeof bad[0]);
	tcase_add_test(tc, test_damage_kept_visible);
	tcase_add_test(tc, test_huge_name);
	tcase_add_test(tc, test_big_numbers);
	tcase_add_test(tc, test_keys_any_order);
	tcase_add_test(tc, test_mem_and_stdin_equivalent);
	tcase_add_test(tc, test_key_layouts);
	tcase_add_test(tc, test_grids_remembered);
	tcase_add_test(tc, test_names_remembered);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
