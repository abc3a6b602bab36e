/* check_coverage.c — what is compared: passes that hold the GPU's work on every thread and
 * stream, the pass source chosen by what it covers, and the coverage figures (structure.h,
 * struct side_coverage), on small hand-written traces built from real kernel names. */
#include "jtrace.h"

#include "fusediff/structure.h"

static struct classifier *cl;

static void setup(void)
{
	cl = test_classifier();
}

static void teardown(void)
{
	classifier_free(cl);
}

/* A kernel of dur us launched at cpu_ts from thread tid (cudaLaunchKernel, no operator) and
 * run at gpu_ts on stream. */
static void jlaunch(struct jbuf *b, const char *name, int tid, double cpu_ts, double gpu_ts,
		    int stream, double dur)
{
	char args[256];

	b->corr++;
	snprintf(args, sizeof args, "\"correlation\":%lld", (long long)b->corr);
	jevent(b, "cuda_runtime", "cudaLaunchKernel", 1, tid, cpu_ts, 1, args);
	snprintf(args, sizeof args, "\"device\":0,\"stream\":%d,\"correlation\":%lld", stream,
		 (long long)b->corr);
	jevent(b, "kernel", name, 0, stream, gpu_ts, dur, args);
}

static void build(struct side *s, const struct trace *t, const char *regex)
{
	struct fd_error err = { { 0 } };
	struct side_opts o = { .pass_regex = regex };

	if (side_build(s, t, cl, &o, &err) < 0)
		ck_abort_msg("side_build: %s", err.msg);
}

/* Three data-parallel training steps (ProfilerStep#N on thread 1): forward and backward
 * GEMMs launched by thread 1, and in each step an all-reduce that the reducer's thread 2
 * launches, on its own stream, while the backward runs. Between the steps thread 1 launches
 * a copy of the next batch: outside every step. Every kernel takes 10 us, the all-reduce 30. */
START_TEST(test_comm_thread_in_steps)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;
	double cpu = 0, gpu = 1000;

	for (int step = 0; step < 3; step++) {
		char name[32];

		snprintf(name, sizeof name, "ProfilerStep#%d", step + 1);
		jevent(&b, "user_annotation", name, 1, 1, cpu, 90, "");
		for (int i = 0; i < 4; i++)
			jlaunch(&b, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
				1, cpu + 1 + i, gpu + 20 * i, 7, 10);
		/* launched outside the step's CPU range, by another thread: the GPU window holds it */
		jlaunch(&b, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 2, cpu + 95, gpu + 40, 20,
			30);
		jlaunch(&b, "Memcpy HtoD (Pinned -> Device)", 1, cpu + 100, gpu + 200, 7, 10);
		cpu += 200;
		gpu += 400;
	}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 3);
	for (size_t p = 0; p < 3; p++)
		ck_assert_uint_eq(s.passes[p].n, 5);
	ck_assert_uint_eq(s.n_unassigned, 3); /* the copies between the steps */
	/* 3 x (4 x 10 + 30) in passes, 3 x 10 after each step: 210 of 240 us */
	ck_assert_int_eq(s.cover.total_ns, 240000);
	ck_assert_int_eq(s.cover.pass_ns, 210000);
	ck_assert_int_eq(s.cover.partial_ns, 0);
	ck_assert_int_eq(s.cover.outside_ns[OUTSIDE_BETWEEN], 20000);
	ck_assert_int_eq(s.cover.outside_ns[OUTSIDE_AFTER], 10000);
	ck_assert_uint_eq(s.cover.total_kernels, 18);
	ck_assert_uint_eq(s.cover.pass_kernels, 15);
	ck_assert_double_eq_tol(side_coverage_share(&s.cover), 0.875, 1e-12);
	ck_assert_double_eq_tol(side_coverage_kernels_share(&s.cover), 15.0 / 18.0, 1e-12);
	{
		uint8_t top[4];

		ck_assert_uint_eq(side_coverage_top(&s.cover, top, 4), 1);
		ck_assert_str_eq(class_name(top[0]), "Copy");
		ck_assert_int_eq(s.cover.outside_class_ns[top[0]], 30000);
	}
	{
		char text[256];

		side_coverage_text(&s.cover, 0.875, text, sizeof text);
		ck_assert_str_eq(text, "88% of the kernel time in passes (88% compared); outside: "
				       "12% (Copy 12%)");
	}
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* The tail of a step queued before the recording started (kernels without launch events
 * before the first pass) is a partial pass: counted in the coverage, never compared. */
START_TEST(test_queued_before_recording)
{
	struct jbuf b = { .first = 1 };
	char args[128];
	struct trace *t;
	struct side s;

	for (int i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%d",
			 900 + i);
		jevent(&b, "kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
		       0, 7, 100 + 10 * i, 10, args);
	}
	jevent(&b, "user_annotation", "ProfilerStep#6", 1, 1, 0, 50, "");
	for (int i = 0; i < 4; i++)
		jlaunch(&b, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 1, 1 + i,
			200 + 10 * i, 7, 10);
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 1);
	ck_assert_int_eq(s.cover.pass_ns, 40000);
	ck_assert_int_eq(s.cover.partial_ns, 30000);
	ck_assert_uint_eq(s.cover.partial_kernels, 3);
	ck_assert_double_eq_tol(side_coverage_share(&s.cover), 1.0, 1e-12);
	{
		char text[256];

		side_coverage_text(&s.cover, 4.0 / 7.0, text, sizeof text);
		ck_assert_str_eq(text, "100% of the kernel time in passes (43% in partial passes "
				       "left out; 57% compared)");
	}
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* The collectives' own annotations (nccl:all_reduce, on the thread that launches them, one
 * kernel each) are not passes beside the profiler's steps: the steps hold them. */
START_TEST(test_tiny_annotation_loses_to_profiler_step)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;
	double cpu = 0, gpu = 1000;

	for (int step = 0; step < 2; step++) {
		char name[32];

		snprintf(name, sizeof name, "ProfilerStep#%d", step + 1);
		jevent(&b, "user_annotation", name, 1, 1, cpu, 90, "");
		for (int i = 0; i < 4; i++)
			jlaunch(&b, "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN", 1, cpu + 1 + i,
				gpu + 20 * i, 7, 10);
		jevent(&b, "user_annotation", "nccl:all_reduce", 1, 2, cpu + 50, 5, "");
		jlaunch(&b, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 2, cpu + 51, gpu + 80, 20,
			10);
		cpu += 200;
		gpu += 400;
	}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 2);
	ck_assert_str_eq(trace_str(t, s.passes[0].name), "ProfilerStep#1");
	ck_assert_uint_eq(s.passes[0].n, 5);
	ck_assert_uint_eq(s.passes[1].n, 5);
	ck_assert_int_eq(s.cover.pass_ns, s.cover.total_ns);
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* PyTorch 1.x records the profiler's steps as operators (category "Operator"). */
START_TEST(test_profiler_step_as_operator)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;

	for (int step = 0; step < 2; step++) {
		char name[32];

		snprintf(name, sizeof name, "ProfilerStep#%d", 7 + step);
		jevent(&b, "Operator", name, 1, 1, 100.0 * step, 50, "");
		for (int i = 0; i < 3; i++)
			jlaunch(&b, "volta_sgemm_128x64_nn", 1, 100.0 * step + 1 + i,
				1000 + 100.0 * step + 10 * i, 7, 5);
	}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 2);
	ck_assert_str_eq(trace_str(t, s.passes[0].name), "ProfilerStep#7");
	ck_assert_str_eq(trace_str(t, s.passes[1].name), "ProfilerStep#8");
	ck_assert_uint_eq(s.n_unassigned, 0);
	side_clear(&s);
	trace_free(t);
	/* and --pass names them */
	for (int step = 0; step < 2; step++) {
		char name[32];

		snprintf(name, sizeof name, "ProfilerStep#%d", 7 + step);
		jevent(&b, "Operator", name, 1, 1, 100.0 * step, 50, "");
		jlaunch(&b, "volta_sgemm_128x64_nn", 1, 100.0 * step + 1, 1000 + 100.0 * step, 7,
			5);
	}
	t = jload(&b);
	build(&s, t, "ProfilerStep");
	ck_assert_uint_eq(s.n_passes, 2);
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* A model's forward pass inside a top-level module call, with n layers of layer calls. */
static double jmodel_call(struct jbuf *b, int n_layers, double cpu, double *gpu)
{
	double start = cpu;
	size_t nk = sizeof layer_kernels / sizeof layer_kernels[0];

	jmodule_call(b, "LlamaForCausalLM_0", cpu, 4.0 + n_layers * (double)nk + 4);
	jkernel(b, "indexSelectLargeIndex_embedding", cpu + 1, *gpu, 7);
	*gpu += 10;
	cpu += 2;
	for (int l = 0; l < n_layers; l++) {
		char name[64];

		snprintf(name, sizeof name, "LlamaDecoderLayer_%d", l);
		jmodule_call(b, name, cpu, (double)nk);
		for (size_t i = 0; i < nk; i++) {
			jkernel(b, layer_kernels[i], cpu + (double)i, *gpu, 7);
			*gpu += 10;
		}
		cpu += (double)nk;
	}
	jkernel(b, "fused_add_rms_norm_kernel", cpu, *gpu, 7);
	*gpu += 10;
	jkernel(b, "nvjet_lm_head_gemm", cpu + 1, *gpu, 7);
	*gpu += 10;
	return start + 4.0 + n_layers * (double)nk + 10;
}

/* A tensor-parallel serving trace: the only annotations are the collectives' own
 * (nccl:_all_gather_base, one short kernel each); the model's top-level module is called
 * three times. The calls are the passes, not the annotations. */
START_TEST(test_tiny_annotation_loses_to_calls)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;
	double cpu = 0, gpu = 1000;

	for (int call = 0; call < 3; call++) {
		char args[64];

		cpu = jmodel_call(&b, 4, cpu, &gpu);
		snprintf(args, sizeof args, "\"External id\":%d", 5000 + call);
		jevent(&b, "user_annotation", "nccl:_all_gather_base", 1, 1, cpu, 3, args);
		jevent(&b, "gpu_user_annotation", "nccl:_all_gather_base", 0, 7, gpu, 5, args);
		jkernel(&b, "ncclDevKernel_AllGather_RING_LL", cpu + 1, gpu, 7);
		gpu += 10;
		cpu += 10;
	}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 3);
	for (size_t p = 0; p < 3; p++)
		ck_assert_uint_eq(s.passes[p].n_layers, 4);
	ck_assert_str_eq(s.pass_source,
			 "calls of top-level nn.Modules with layers (1 model); annotations "
			 "(gpu_user_annotation 'nccl:_all_gather_base') hold 2.8% of the kernel "
			 "time: not passes");
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* A training trace without ProfilerStep: one Optimizer.step range (a sliver of the kernel
 * time) and the model's top-level module called three times, with autograd's backward on
 * its own thread after each call. Each call with its backward and optimizer is a step. */
START_TEST(test_optimizer_range_loses_to_training_calls)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;
	double cpu = 0, gpu = 1000;

	for (int call = 0; call < 3; call++) {
		cpu = jmodel_call(&b, 2, cpu, &gpu);
		/* backward, launched by autograd's thread inside its evaluate_function nodes */
		for (int i = 0; i < 6; i++) {
			jevent(&b, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", 1,
			       3, cpu + 2 * i, 2, "");
			jlaunch(&b, "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN", 3,
				cpu + 2 * i + 0.5, gpu, 7, 10);
			gpu += 10;
		}
		cpu += 20;
		if (call == 2) {
			jevent(&b, "user_annotation", "Optimizer.step#SGD.step", 1, 1, cpu, 5, "");
			jlaunch(&b, "multi_tensor_apply_kernel<TensorListMetadata<3>, SGDFunctor>",
				1, cpu + 1, gpu, 7, 10);
			gpu += 10;
		}
		cpu += 10;
	}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 3);
	for (size_t p = 0; p < 3; p++)
		ck_assert_int_eq(s.passes[p].phase, PHASE_TRAIN);
	ck_assert_str_eq(s.pass_source,
			 "calls of nn.Module LlamaForCausalLM, each with the work up to the next; "
			 "annotations (user_annotation 'Optimizer.step#SGD.step') hold 2.1% of the "
			 "kernel time: not passes");
	ck_assert_int_eq(s.cover.pass_ns, s.cover.total_ns);
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* jb's events as a trace file in dir; returns its path (static per slot). */
static const char *jwrite(struct jbuf *b, const char *dir, const char *name)
{
	static char path[2][512];
	static int slot;
	char *p = path[slot++ & 1];
	FILE *f;

	snprintf(p, 512, "%s/%s", dir, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"traceEvents\":[\n%s\n],\"cuda_runtime_version\":12080}", b->s ? b->s : "");
	fclose(f);
	free(b->s);
	memset(b, 0, sizeof *b);
	b->first = 1;
	return p;
}

/* A kernel without a launch on device dev. */
static void jdev_kernel(struct jbuf *b, int dev, double ts, double dur)
{
	char args[96];

	snprintf(args, sizeof args, "\"device\":%d,\"stream\":7", dev);
	jevent(b, "kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", dev, 7,
	       ts, dur, args);
}

/* Two GPUs in each file; A's busiest is GPU 0, B's GPU 1. Both sides analyse A's busiest (B
 * loaded again on it), unless --device says; a side with one GPU against two: all on both. */
START_TEST(test_same_device)
{
	char dir[] = "/tmp/fusediff-dev-XXXXXX";
	struct jbuf b = { .first = 1 };
	struct session *ses;
	struct session_opts o = { .device = -1 };
	struct fd_error err = { { 0 } };
	const char *pa, *pb, *pc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < 4; i++)
		jdev_kernel(&b, 0, 100 + 20 * i, 10);
	jdev_kernel(&b, 1, 100, 10);
	pa = jwrite(&b, dir, "a.json");
	jdev_kernel(&b, 0, 100, 10);
	for (int i = 0; i < 4; i++)
		jdev_kernel(&b, 1, 100 + 20 * i, 10);
	pb = jwrite(&b, dir, "b.json");
	ck_assert_int_eq(session_open(&ses, pa, pb, &o, &err), 0);
	ck_assert_int_eq(session_side(ses, 0)->t->device, 0);
	ck_assert_int_eq(session_side(ses, 1)->t->device, 0);
	ck_assert_uint_eq(session_side(ses, 1)->t->n_kernels, 1);
	session_close(ses);
	o.device = 1;
	ck_assert_int_eq(session_open(&ses, pa, pb, &o, &err), 0);
	ck_assert_int_eq(session_side(ses, 0)->t->device, 1);
	ck_assert_int_eq(session_side(ses, 1)->t->device, 1);
	session_close(ses);
	/* one GPU against two: every device on both sides */
	for (int i = 0; i < 4; i++)
		jdev_kernel(&b, 0, 100 + 20 * i, 10);
	pc = jwrite(&b, dir, "c.json");
	o.device = -1;
	ck_assert_int_eq(session_open(&ses, pc, pb, &o, &err), 0);
	ck_assert_int_eq(session_side(ses, 0)->t->device, TRACE_ALL_DEVICES);
	ck_assert_int_eq(session_side(ses, 1)->t->device, TRACE_ALL_DEVICES);
	ck_assert_uint_eq(session_side(ses, 1)->t->n_kernels, 5);
	session_close(ses);
	{
		char cmd[600];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

/* A graph capture given as a trace to compare is refused, naming the option it belongs to. */
START_TEST(test_capture_refused)
{
	struct session *ses;
	struct fd_error err = { { 0 } };
	char want[1024];

	ck_assert_int_eq(
		session_open(&ses, test_trace("llama8l_eager_sdpa.json.gz"),
			     test_path("tests/data/capture/qwen3-8b_capture_bs32_mi300x.json.gz"),
			     NULL, &err),
		-1);
	snprintf(want, sizeof want,
		 "%s: a graph capture (546 launches captured, 2 kernels ran), not an execution: "
		 "give it with --capture-b beside the trace of its replay",
		 test_path("tests/data/capture/qwen3-8b_capture_bs32_mi300x.json.gz"));
	ck_assert_str_eq(err.msg, want);
}
END_TEST

/* A micro-benchmark without annotations or module calls: one attention kernel and its
 * neighbours are one whole-trace unit of unknown phase, without invented layers. */
START_TEST(test_no_structure_without_evidence)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;

	jlaunch(&b, "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN", 1, 1, 100, 7, 10);
	jlaunch(&b, "flash_fwd_kernel", 1, 2, 120, 7, 30);
	jlaunch(&b, "nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN", 1, 3, 160, 7, 10);
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 1);
	ck_assert_uint_eq(s.passes[0].n_layers, 0);
	ck_assert_int_eq(s.passes[0].phase, PHASE_UNKNOWN);
	ck_assert_str_eq(s.pass_source, "whole trace (no pass annotations)");
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* A window of a DiT whose blocks attend twice (Wan2.1's: self-attention, cross-attention to
 * the text, then the GELU MLP), recorded from inside block 0 (after its self-attention) to
 * inside block 4 (up to its self-attention's output GEMM), with no annotations: one layer per
 * block, not per attention; the partial block before the first layer is in the prologue and
 * the last layer is short, and the pass source says both. */
START_TEST(test_window_cut_inside_blocks)
{
	static const char *const block[] = {
		"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
		"(int, float, float const*, float const*, float const*, float*, float*, float*)",
		"nvjet_tst_192x208_64x4_1x1_h_bz_coopB_bias_TNT",
		"flash_fwd_kernel",
		"nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN",
		"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
		"(int, float, float const*, float const*, float const*, float*, float*, float*)",
		"nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN",
		"flash_fwd_kernel",
		"nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NTN",
		"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
		"(int, float, float const*, float const*, float const*, float*, float*, float*)",
		"nvjet_tst_192x208_64x4_1x1_h_bz_coopB_bias_TNT",
		"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
		"(at::TensorIteratorBase&, "
		"c10::basic_string_view<char>)::{lambda()#2}::operator()() "
		"const::{lambda()#1}::operator()() const::{lambda(float)#1}, "
		"at::detail::Array<char*, "
		"2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
		"c10::basic_string_view<char>)::{lambda()#2}::operator()() const::{lambda()#1}::"
		"operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
		"nvjet_tst_192x208_64x4_1x1_h_bz_coopB_bias_TNT",
	};
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct side s;
	double ts = 0;
	char text[160];

	for (int blk = 0; blk < 5; blk++)
		for (int k = 0; k < 12; k++) {
			if ((blk == 0 && k < 4) || (blk == 4 && k >= 4))
				continue; /* the recording's start and end */
			ts += 10;
			jlaunch(&b, block[k], 1, ts, 1000 + 2 * ts, 7, 10);
		}
	t = jload(&b);
	build(&s, t, NULL);
	ck_assert_uint_eq(s.n_passes, 1);
	ck_assert_uint_eq(s.passes[0].n_layers, 4); /* blocks 1-4, not 8 attentions */
	ck_assert_uint_eq(s.layers[s.passes[0].layer_first].step_n, 8); /* block 0's end */
	ck_assert(s.cut.start && s.cut.start_layer == LAYER_PROLOGUE);
	ck_assert(s.cut.end && s.cut.end_layer == 3 && s.cut.usual_steps == 12);
	side_cut_text(&s.cut, text, sizeof text);
	ck_assert_str_eq(text, "starts inside a block (the prologue's 8 steps) and ends inside "
			       "layer 3 (4 of 12 steps)");
	ck_assert_str_eq(s.pass_source, "whole trace (no pass annotations); the recording starts "
					"inside a block (the prologue's 8 steps) and ends inside "
					"layer 3 (4 of 12 steps)");
	side_clear(&s);
	trace_free(t);
}
END_TEST

static Suite *coverage_suite(void)
{
	Suite *s = suite_create("coverage");
	TCase *tc = tcase_create("coverage");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_comm_thread_in_steps);
	tcase_add_test(tc, test_queued_before_recording);
	tcase_add_test(tc, test_profiler_step_as_operator);
	tcase_add_test(tc, test_tiny_annotation_loses_to_profiler_step);
	tcase_add_test(tc, test_tiny_annotation_loses_to_calls);
	tcase_add_test(tc, test_optimizer_range_loses_to_training_calls);
	tcase_add_test(tc, test_same_device);
	tcase_add_test(tc, test_capture_refused);
	tcase_add_test(tc, test_no_structure_without_evidence);
	tcase_add_test(tc, test_window_cut_inside_blocks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(coverage_suite());
}
