/* check_capture.c — graph-replayed kernels joined to their capture trace (capture.h), on the
 * SGLang Qwen3-8B MI300X decode step and its HIP-graph capture (tests/data/capture/). */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "fusediff/capture.h"
#include "fusediff/comparison.h"
#include "fusediff/session.h"
#include "fusediff/structure.h"

#define REPLAY	"tests/data/capture/qwen3-8b_decode_bs32_mi300x.json.gz"
#define CAPTURE "tests/data/capture/qwen3-8b_capture_bs32_mi300x.json.gz"
#define OTHER	"tests/data/capture/qwen3-8b_capture_other_batch.json.gz"

static struct session *open_with(const char *capture_a, const char *capture_b, int no_capture)
{
	char a[4096], ca[4096], cb[4096];
	struct session_opts o = { .device = -1, .no_capture = no_capture };

	snprintf(a, sizeof a, "%s", test_path(REPLAY));
	if (capture_a) {
		snprintf(ca, sizeof ca, "%s", test_path(capture_a));
		o.capture[0] = ca;
	}
	if (capture_b) {
		snprintf(cb, sizeof cb, "%s", test_path(capture_b));
		o.capture[1] = cb;
	}
	return test_session_files(a, a, &o);
}

/* Does the comparison's side s have a GEMM pair whose kernels' operator has these shapes? */
static int has_gemm_shape(const struct comparison *c, int s, const char *dims)
{
	const struct trace *t = c->side[s]->t;

	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_part *p = &c->pairs[i].side[s];

		if (c->pairs[i].cls != CLASS_GEMM)
			continue;
		for (uint32_t k = 0; k < p->n_inst; k++) {
			const struct trace_op *op =
				trace_find_op(t, t->kernels[p->inst[k].kernel].external_id);

			if (op && op->input_dims && strcmp(trace_str(t, op->input_dims), dims) == 0)
				return 1;
		}
	}
	return 0;
}

/* The capture joins every kernel of the graph launch; layers come from its Qwen3DecoderLayer
 * calls, and every GEMM has its operator and the shapes of SOURCES.md (M = 32). */
START_TEST(test_join)
{
	struct session *s = open_with(CAPTURE, CAPTURE, 0);
	const struct comparison *c = test_compare(s, -1);
	const struct trace *t = c->side[0]->t;

	ck_assert_str_eq(t->capture.path, test_path(CAPTURE));
	ck_assert_uint_eq(t->capture.graphs, 1);
	ck_assert_uint_eq(t->capture.graph_kernels, 544);
	ck_assert_uint_ge(t->capture.joined * 100, t->capture.graph_kernels * 99);
	ck_assert_uint_eq(c->side[0]->layers_per_pass, 36);
	ck_assert_str_eq(c->side[0]->layer_source, "nn.Module Qwen3DecoderLayer");
	ck_assert_uint_eq(c->n_warnings, 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_part *p = &c->pairs[i].side[0];

		if (c->pairs[i].cls != CLASS_GEMM)
			continue;
		for (uint32_t k = 0; k < p->n_inst; k++) {
			const struct trace_op *op =
				trace_find_op(t, t->kernels[p->inst[k].kernel].external_id);

			ck_assert_msg(op && op->input_dims, "a GEMM without operator or shapes");
		}
	}
	ck_assert(has_gemm_shape(c, 0, "[[32,4096],[4096,6144]]"));   /* QKV */
	ck_assert(has_gemm_shape(c, 0, "[[32,4096],[4096,4096]]"));   /* O */
	ck_assert(has_gemm_shape(c, 0, "[[32,4096],[4096,24576]]"));  /* gate-up */
	ck_assert(has_gemm_shape(c, 0, "[[32,12288],[12288,4096]]")); /* down */
	ck_assert(has_gemm_shape(c, 0, "[[32,4096],[4096,151936]]")); /* LM head */
	session_close(s);
}
END_TEST

/* A graph launch that replays a single kernel stays a launch record (it is no kernel's own
 * launch, to be folded into it), so that its capture joins; the joined kernel's launch then
 * lies inside the graph launch's CPU range, on its thread. */
START_TEST(test_join_one_kernel_graph)
{
	static const char replay[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,"
		"\"tid\":7,\"ts\":100,\"dur\":50,\"args\":{\"correlation\":42}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_one\",\"pid\":0,\"tid\":7,"
		"\"ts\":200,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":42}}]}";
	static const char capture[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
		"\"ts\":9,\"dur\":5,\"args\":{\"External id\":3,\"Input Dims\":[[2,4],[4,8]]}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
		"\"tid\":1,\"ts\":10,\"dur\":2,\"args\":{\"correlation\":3,\"External id\":3,"
		"\"kernel\":\"k_one\"}}]}";
	struct trace_load_opts ro = { .device = -1 }, co = { .device = -1, .capture = 1 };
	struct trace *r = NULL, *cap = NULL;
	struct fd_error err = { { 0 } };
	const struct trace_launch *gl;
	const struct trace_op *op;

	ck_assert_int_eq(trace_load_mem(&r, "replay.json", replay, sizeof replay - 1, &ro, &err),
			 0);
	ck_assert_int_eq(trace_load_mem(&cap, "cap.json", capture, sizeof capture - 1, &co, &err),
			 0);
	gl = trace_find_launch(r, 42);
	ck_assert_ptr_nonnull(gl);
	ck_assert_int_eq(r->kernels[0].launch, gl->start);
	ck_assert_int_eq(trace_join_capture(r, cap, "cap.json", &err), 0);
	ck_assert_uint_eq(r->capture.graphs, 1);
	ck_assert_uint_eq(r->capture.joined, 1);
	gl = trace_find_launch(r, 42);
	ck_assert_int_ge(r->kernels[0].launch, gl->start);
	ck_assert_int_le(r->kernels[0].launch, gl->start + gl->dur);
	ck_assert_int_eq(trace_launch_tid(r, &r->kernels[0]), 7);
	op = trace_find_op(r, r->kernels[0].external_id);
	ck_assert_ptr_nonnull(op);
	ck_assert_str_eq(trace_str(r, op->input_dims), "[[2,4],[4,8]]");
	trace_free(cap);
	trace_free(r);
}
END_TEST

/* The capture of another batch size joins a third fewer kernels: the comparison says so. */
START_TEST(test_other_batch_is_flagged)
{
	struct session *s = open_with(OTHER, NULL, 1);
	const struct comparison *c = test_compare(s, -1);

	ck_assert_uint_lt(c->side[0]->t->capture.joined, 544 * 95 / 100);
	ck_assert_uint_ge(c->n_warnings, 1);
	ck_assert_msg(strstr(c->warnings[0].message, "A's graph capture joins") &&
			      strstr(c->warnings[0].message, "of its 544 replayed kernels"),
		      "%s", c->warnings[0].message);
	ck_assert_str_eq(c->warnings[0].code, "capture_partial");
	ck_assert_ptr_null(c->side[1]->t->capture.path);
	session_close(s);
}
END_TEST

/* Without a capture (none given, no capture_traces/ next to the trace), the replay is analysed
 * as it is; a file that is not a capture is refused with a clear message. */
START_TEST(test_no_capture_and_not_a_capture)
{
	struct session *s = open_with(NULL, NULL, 0), *bad = NULL;
	const struct comparison *c = test_compare(s, -1);
	struct session_opts o = { .device = -1 };
	struct fd_error err = { { 0 } };
	char a[4096], cap[4096];

	ck_assert_ptr_null(c->side[0]->t->capture.path);
	ck_assert_uint_eq(c->side[0]->layers_per_pass, 36); /* from the attention anchors */
	ck_assert_str_eq(c->side[0]->layer_source, "attention anchors");
	session_close(s);

	snprintf(a, sizeof a, "%s", test_path(REPLAY));
	snprintf(cap, sizeof cap, "%s", test_trace("llama8l_compiled_sdpa.json.gz"));
	o.capture[0] = cap;
	ck_assert_int_eq(session_open(&bad, a, a, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "llama8l_compiled_sdpa.json.gz: not a graph capture: "
					      "241 kernels ran and 0 launches were captured"));
}
END_TEST

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

/* A capture_traces/ directory next to the trace is used without asking (the capture of the
 * right batch size among others); --no-capture turns that off. */
START_TEST(test_capture_directory)
{
	char dir[] = "/tmp/fusediff-capture-XXXXXX", sub[64], replay[64], f1[96], f2[96];
	struct session *s;
	const struct comparison *c;
	struct session_opts o = { .device = -1 };
	struct fd_error err = { { 0 } };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/capture_traces", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(replay, sizeof replay, "%s/decode.json.gz", dir);
	snprintf(f1, sizeof f1, "%s/bs_32_rank0.json.gz", sub);
	snprintf(f2, sizeof f2, "%s/bs_16_rank0.json.gz", sub);
	copy_file(test_path(REPLAY), replay);
	copy_file(test_path(CAPTURE), f1);
	copy_file(test_path(OTHER), f2);
	ck_assert_int_eq(session_open(&s, replay, replay, &o, &err), 0);
	c = test_compare(s, -1);
	ck_assert_str_eq(c->side[0]->t->capture.path, f1);
	ck_assert_uint_eq(c->side[0]->t->capture.joined, 544);
	session_close(s);
	o.no_capture = 1;
	ck_assert_int_eq(session_open(&s, replay, replay, &o, &err), 0);
	ck_assert_ptr_null(session_side(s, 0)->t->capture.path);
	session_close(s);
	unlink(f1);
	unlink(f2);
	unlink(replay);
	rmdir(sub);
	rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("join");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_join);
	tcase_add_test(tc, test_join_one_kernel_graph);
	tcase_add_test(tc, test_other_batch_is_flagged);
	tcase_add_test(tc, test_no_capture_and_not_a_capture);
	tcase_add_test(tc, test_capture_directory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
