/* check_profilers.c — the inputs of the vendors' profilers: Nsight Systems SQLite exports,
 * rocprofv3 JSON, rocpd databases and kernel_trace.csv (tests/data/profilers/, made by
 * make-profiler-cuts.py). The nsys and rocprofv3 JSON files are cuts of real captures; the
 * rocpd database and the two CSV files are BUILT from the real JSON's dispatches, not
 * captured (no permissively licensed sample of either exists). The whole shared captures are
 * checked too when ../shared/traces is there (their facts from its SOURCES.md). */
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusediff/comparison.h"
#include "fusediff/session.h"
#include "fusediff/structure.h"

#define DIR_ "tests/data/profilers/"

static struct trace *load_dev(const char *path, int32_t device)
{
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = device };

	if (trace_load(&t, path, &lo, &err) < 0)
		ck_abort_msg("loading %s: %s", path, err.msg);
	return t;
}

static int64_t kernels_named(const struct trace *t, const char *prefix)
{
	int64_t n = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		n += t->kernels[i].kind == KIND_KERNEL &&
		     strstr(trace_str(t, t->kernels[i].name), prefix) != NULL;
	return n;
}

/* The cut of the nsys "before" export: 126 kernels and 39 copies per GPU, launches joined to
 * PyTorch's NVTX operators (aten::...), NVIDIA with the GPU unnamed; --device all keeps both. */
START_TEST(test_nsys)
{
	struct trace *t = load_dev(test_path(DIR_ "nsys_before.sqlite.gz"), -1);
	size_t with_op = 0, aten = 0, launched = 0;

	ck_assert_str_eq(t->format, "Nsight Systems SQLite");
	ck_assert_int_eq(t->platform, PLATFORM_NVIDIA);
	ck_assert_uint_eq(t->gpu_name, 0);
	ck_assert_uint_eq(t->n_devices, 2);
	ck_assert_uint_eq(t->n_kernel_events, 126);
	ck_assert_uint_eq(t->n_kernels, 126 + 39);
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_op *op = trace_find_op(t, t->kernels[i].external_id);
		if (t->kernels[i].kind != KIND_KERNEL)
			continue;
		launched += t->kernels[i].launch >= 0;
		if (!op)
			continue;
		with_op++;
		aten += strncmp(trace_str(t, op->name), "aten::", 6) == 0;
	}
	/* nearly every kernel is launched inside an operator range, most of them aten:: ones */
	ck_assert_uint_ge(with_op, 110);
	ck_assert_uint_ge(aten, 100);
	ck_assert_uint_ge(
		launched,
		100); /* by a CUDA runtime or driver call; the others were launched before the window */
	trace_free(t);

	t = load_dev(test_path(DIR_ "nsys_before.sqlite.gz"), TRACE_ALL_DEVICES);
	ck_assert_int_eq(t->device, TRACE_ALL_DEVICES);
	ck_assert_uint_eq(t->n_kernel_events, 252);
	ck_assert_int_eq(trace_kernel_time(t), 49132248);
	ck_assert_int_eq(kernels_named(t, "flash_fwd_kernel"), 6);
	trace_free(t);
}
END_TEST

/* Before against after over both GPUs: the whole traces' kernels by name. */
START_TEST(test_nsys_pair)
{
	char a[4096];
	struct session_opts o = { .device = TRACE_ALL_DEVICES };
	struct session *s;
	const struct comparison *c;
	const struct comparison_kernel_total *flash = NULL;

	snprintf(a, sizeof a, "%s", test_path(DIR_ "nsys_before.sqlite.gz"));
	s = test_session_files(a, test_path(DIR_ "nsys_after.sqlite.gz"), &o);
	c = test_compare(s, -1);
	for (size_t i = 0; i < c->n_kernel_totals; i++)
		if (strcmp(c->kernel_totals[i].name, "flash_fwd_kernel") == 0)
			flash = &c->kernel_totals[i];
	ck_assert_ptr_nonnull(flash);
	ck_assert_ptr_eq(flash, &c->kernel_totals[0]); /* the largest difference */
	ck_assert_int_eq(flash->count[0], 6);
	ck_assert_int_eq(flash->count[1], 4);
	ck_assert_int_eq(flash->cls, CLASS_ATTENTION); /* the class of its time */
	for (size_t i = 0; i < c->n_kernel_totals; i++)
		if (strncmp(c->kernel_totals[i].name, "nvjet_", 6) == 0)
			ck_assert_int_eq(c->kernel_totals[i].cls, CLASS_GEMM);
	ck_assert_uint_gt(c->n_pairs, 0);
	session_close(s);
}
END_TEST

/* rocprofv3 JSON: 3000 dispatches on GPU 0 of the MI350X, named through kernel_symbols. */
START_TEST(test_rocprof_json)
{
	struct trace *t = test_load(test_path(DIR_ "rocprof_aorta.json.gz"));

	ck_assert_str_eq(t->format, "rocprofv3 JSON");
	ck_assert_int_eq(t->platform, PLATFORM_AMD);
	ck_assert_str_eq(trace_str(t, t->gpu_name), "AMD Instinct MI350X");
	ck_assert_int_eq(t->device, 0);
	ck_assert_uint_eq(t->n_kernel_events, 3000);
	ck_assert_int_eq(trace_kernel_time(t), 900869261);
	ck_assert_int_eq(kernels_named(t, "__amd_rocclr_copyBuffer"), 1755);
	ck_assert_int_eq(kernels_named(t, ".kd"), 0);
	trace_free(t);
}
END_TEST

/* rocprofv3 JSON read as a stream: each member read is the first of its name, an object's
 * member values count as a list's elements, the bytes after the document are not JSON; a
 * damaged file says what is wrong where (it said "not valid JSON"). */
START_TEST(test_rocprof_json_stream)
{
	static const char dup[] =
		"{\"rocprofiler-sdk-tool\": {\"run\": {\"kernel_symbols\": {\"s\": "
		"{\"kernel_id\": 1, \"formatted_kernel_name\": \"a.kd\", "
		"\"formatted_kernel_name\": \"b\"}}, \"kernel_symbols\": [{\"kernel_id\": 1, "
		"\"formatted_kernel_name\": \"c\"}], \"buffer_records\": {\"kernel_dispatch\": "
		"[{\"dispatch_info\": {\"kernel_id\": 1, \"kernel_id\": 2}, "
		"\"start_timestamp\": 100, \"start_timestamp\": 5, \"end_timestamp\": 300}]}, "
		"\"buffer_records\": {\"kernel_dispatch\": []}}}} trailing bytes {{";
	static const char bad[] = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\":\n"
				  "{\"kernel_dispatch\": [{\"start_timestamp\": 100 \"x\": 1}]}}]}";
	struct trace_load_opts lo = { .device = -1 };
	struct fd_error err = { { 0 } };
	struct trace *t = NULL;

	ck_assert_msg(trace_load_mem(&t, "dup.json", dup, sizeof dup - 1, &lo, &err) == 0, "%s",
		      err.msg);
	ck_assert_str_eq(t->format, "rocprofv3 JSON");
	ck_assert_uint_eq(t->n_kernel_events, 1);
	ck_assert_str_eq(trace_str(t, t->kernels[0].name), "a");
	ck_assert_int_eq(t->kernels[0].dur, 200);
	ck_assert_int_eq(t->bytes, (int64_t)sizeof dup - 1);
	trace_free(t);
	ck_assert_int_eq(trace_load_mem(&t, "bad.json", bad, sizeof bad - 1, &lo, &err), -1);
	ck_assert_str_eq(err.msg, "bad.json: line 2, column 46: expected ',' or '}' in object (a "
				  "rocprofv3 JSON file)");
}
END_TEST

/* The built rocpd database and kernel_trace.csv in both header versions read the same
 * dispatches as the JSON they were built from. */
START_TEST(test_rocpd_and_csv)
{
	struct trace *t = test_load(test_path(DIR_ "rocpd_built.db"));

	ck_assert_str_eq(t->format, "rocpd SQLite");
	ck_assert_str_eq(trace_str(t, t->gpu_name), "AMD Instinct MI350X");
	ck_assert_uint_eq(t->n_kernel_events, 1000);
	ck_assert_int_eq(trace_kernel_time(t), 3068707);
	ck_assert_int_eq(kernels_named(t, "__amd_rocclr_copyBuffer"), 687);
	trace_free(t);
	for (int v = 0; v < 2; v++) {
		struct trace_dims d;

		t = test_load(
			test_path(v ? DIR_ "kernel_trace_v2.csv" : DIR_ "kernel_trace_v1.csv.gz"));
		ck_assert_str_eq(t->format, "rocprofv3 kernel_trace.csv");
		ck_assert_int_eq(t->platform, PLATFORM_AMD);
		ck_assert_uint_eq(t->n_kernel_events, 500);
		ck_assert_int_eq(trace_kernel_time(t), 1504932);
		trace_dims_get(t, t->kernels[0].dims, &d);
		ck_assert_int_eq(d.block[0] > 0, 1);
		trace_free(t);
	}
}
END_TEST

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n == 0;
}

/* Damaged databases fail with one line naming the file; the decompressed copy of a .gz is
 * gone afterwards, on success as on failure. */
START_TEST(test_bad_databases)
{
	char tmp[] = "/tmp/fd-prof-XXXXXX", path[4200], gz[4200];
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	FILE *f, *in;
	char buf[65536];
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	/* the decompressed copy is made where the options say (the program: TMPDIR) */
	lo.tuning.input.tmpdir = "/nonexistent-fusediff-tmp";
	ck_assert_int_eq(trace_load(&t, test_path(DIR_ "nsys_after.sqlite.gz"), &lo, &err), -1);
	ck_assert_msg(strstr(err.msg, "cannot create a temporary file in "
				      "/nonexistent-fusediff-tmp to decompress it") != NULL,
		      "%s", err.msg);
	lo.tuning.input.tmpdir = tmp;
	ck_assert_int_eq(trace_load(&t, test_path(DIR_ "nsys_after.sqlite.gz"), &lo, &err), 0);
	trace_free(t);
	ck_assert(dir_is_empty(tmp));

	/* a truncated database */
	snprintf(path, sizeof path, "%s/cut.db", tmp);
	in = fopen(test_path(DIR_ "rocpd_built.db"), "rb");
	f = fopen(path, "wb");
	n = fread(buf, 1, 20000, in);
	fwrite(buf, 1, n, f);
	fclose(f);
	fclose(in);
	ck_assert_int_eq(trace_load(&t, path, &lo, &err), -1);
	ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0 && strchr(err.msg, '\n') == NULL,
		      "%s", err.msg);
	/* a database with neither an nsys nor a rocpd table: the header of one with none */
	f = fopen(path, "r+b");
	ck_assert_int_eq(ftruncate(fileno(f), 0), 0);
	fclose(f);
	snprintf(gz, sizeof gz, "%s/empty.sqlite", tmp);
	{
		static const char magic[16] = "SQLite format 3";

		f = fopen(gz, "wb");
		fwrite(magic, 1, 16, f);
		memset(buf, 0, 4096);
		fwrite(buf, 1, 4080, f);
		fclose(f);
	}
	ck_assert_int_eq(trace_load(&t, gz, &lo, &err), -1);
	ck_assert_msg(strncmp(err.msg, gz, strlen(gz)) == 0, "%s", err.msg);
	unlink(gz);
	unlink(path);
	/* a JSON without dispatches */
	ck_assert_int_eq(
		trace_load_mem(&t, "x.json", "{\"rocprofiler-sdk-tool\": [{}]}", 30, &lo, &err),
		-1);
	ck_assert_str_eq(err.msg, "x.json: a rocprofv3 JSON file without "
				  "buffer_records.kernel_dispatch (record it with rocprofv3 "
				  "--kernel-trace)");
	/* a database read from a gzip stream (not a file) is copied and removed too */
	{
		static const char nokernels[] = "\"Kind\",\"Agent_Id\",\"Queue_Id\"\n";

		ck_assert_int_eq(
			trace_load_mem(&t, "k.csv", nokernels, sizeof nokernels - 1, &lo, &err),
			-1);
		ck_assert_str_eq(err.msg, "k.csv: line 1: a kernel trace CSV without a Kernel_Name "
					  "column");
	}
	ck_assert(dir_is_empty(tmp));
	rmdir(tmp);
}
END_TEST

/* The whole shared captures, when present: SOURCES.md's counts and totals. */
START_TEST(test_shared_captures)
{
	const char *b =
		test_shared_trace("nsys/nsysai_wan2.1-t2v-1.3b_mfu-before_2xh100.sqlite.gz");
	char before[4096];
	const char *r;
	struct trace *t;

	if (!b)
		return;
	snprintf(before, sizeof before, "%s", b);
	t = load_dev(before, TRACE_ALL_DEVICES);
	ck_assert_uint_eq(t->n_kernel_events, 4010);
	ck_assert_int_eq(kernels_named(t, "flash_fwd_kernel"), 68);
	trace_free(t);
	t = load_dev(test_shared_trace("nsys/nsysai_wan2.1-t2v-1.3b_mfu-after_2xh100.sqlite.gz"),
		     TRACE_ALL_DEVICES);
	ck_assert_uint_eq(t->n_kernel_events, 3587);
	ck_assert_int_eq(kernels_named(t, "flash_fwd_kernel"), 60);
	trace_free(t);
	r = test_shared_trace("rocprof/tracelens_aorta_fsdp-train_mi350x.json.gz");
	if (r) {
		t = test_load(r);
		ck_assert_uint_eq(t->n_kernel_events, 43915);
		trace_free(t);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("profilers");
	TCase *tc = tcase_create("inputs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_nsys);
	tcase_add_test(tc, test_nsys_pair);
	tcase_add_test(tc, test_rocprof_json);
	tcase_add_test(tc, test_rocprof_json_stream);
	tcase_add_test(tc, test_rocpd_and_csv);
	tcase_add_test(tc, test_bad_databases);
	tcase_add_test(tc, test_shared_captures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
