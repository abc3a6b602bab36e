/* check_links.c — what the analysis looks up once per kernel instead of several times: each
 * kernel's launch event (folded into the kernel by the loader) and operator
 * (trace_link_kernels), its classification (one table of distinct names), and the nn.Module
 * call that launched it. The one-pass answers must be exactly what the lookups one by one
 * give, in any order of ids. */
#include "jtrace.h"

#include <stdint.h>

#include "fusediff/bigmem.h"
#include "fusediff/classify.h"
#include "fusediff/structure.h"

/* trace_link_kernels() against trace_find_op(), kernel by kernel; the kernels of one
 * correlation id (a graph launch's) share its launch. */
static void check_links(const struct trace *t)
{
	uint32_t *op_of = malloc((t->n_kernels + 1) * sizeof *op_of);

	trace_link_kernels(t, op_of);
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_op *o = k->external_id ? trace_find_op(t, k->external_id) : NULL;

		ck_assert_msg(op_of[i] == (o ? (uint32_t)(o - t->ops) : UINT32_MAX),
			      "%s: kernel %zu (External id %lld): op %u", t->path, i,
			      (long long)k->external_id, op_of[i]);
		ck_assert_msg(k->launch < 0 || k->correlation != 0,
			      "%s: kernel %zu has a launch without a correlation id", t->path, i);
		for (size_t j = i + 1; j < t->n_kernels && j < i + 64; j++)
			if (k->correlation && t->kernels[j].correlation == k->correlation)
				ck_assert_msg(t->kernels[j].launch == k->launch &&
						      t->kernels[j].launch_thread ==
							      k->launch_thread,
					      "%s: kernels %zu and %zu of correlation %lld",
					      t->path, i, j, (long long)k->correlation);
	}
	free(op_of);
}

static const char *const files[] = {
	"examples/llama8l_eager_sdpa.json.gz",
	"examples/llama8l_compiled_sdpa.json.gz",
	"examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
	"examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz",
	"tests/data/traces/moe6l_eager_sdpa.json.gz",
	"tests/data/traces/tracelens_qwen1.5-0.5b_hf_h100.json.gz",
	"tests/data/variants/eager-shuffled.json.gz",
	"tests/data/variants/b300-twostreams.json.gz",
	"tests/data/variants/mi300x-nolaunch.json.gz",
	"tests/data/variants/compiled-twodevices.json.gz",
};

START_TEST(test_links_real)
{
	struct trace *t = test_load(test_path(files[_i]));

	check_links(t);
	trace_free(t);
}
END_TEST

/* Ids in every order the one-pass search must survive: launches listed backwards, kernels on
 * two streams whose correlation ids interleave and jump, two launch events with one
 * correlation id (the earlier one is the answer, as for trace_find_launch), kernels without
 * ids, and ids outside the range of the launches and operators. */
START_TEST(test_links_any_order)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	char args[256];
	static const long long corr[] = { 900, 5, 6, 1000, 4, 3, 2000000, 7, 2, 1, 8, 999, 901 };
	size_t n = sizeof corr / sizeof corr[0];

	for (size_t i = n; i-- > 0;) {
		if (corr[i] == 2000000)
			continue; /* launched before the profiler started: no launch, no operator */
		snprintf(args, sizeof args, "\"External id\":%lld", corr[i] + 10);
		jevent(&b, "cpu_op", "aten::mm", 1, 1, 10 * (double)corr[i], 3, args);
		snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld", corr[i],
			 corr[i] + 10);
		jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, 10 * (double)corr[i] + 1, 1,
		       args);
	}
	/* a second launch event with correlation 6, later than the first */
	jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 2, 5000, 1,
	       "\"correlation\":6,\"External id\":16");
	for (size_t i = 0; i < n; i++) {
		snprintf(args, sizeof args,
			 "\"device\":0,\"stream\":%d,\"correlation\":%lld,\"External id\":%lld",
			 7 + (int)(i % 2), corr[i], corr[i] + 10);
		jevent(&b, "kernel", "nvjet_gemm", 0, 7 + (int)(i % 2), 100000 + 10 * (double)i, 5,
		       args);
	}
	jevent(&b, "kernel", "no_ids_kernel", 0, 7, 90000, 5, "\"device\":0,\"stream\":7");
	jevent(&b, "kernel", "late_kernel", 0, 7, 200000, 5,
	       "\"device\":0,\"stream\":7,\"correlation\":0,\"External id\":0");
	t = jload(&b);
	ck_assert_uint_eq(t->n_kernels, n + 2);
	check_links(t);
	{
		/* each kernel's launch: its correlation id's, 10 us apart by id; of the two with
		 * id 6, the earlier one (thread 1); none for the kernels without */
		int64_t one = -1;

		for (size_t i = 0; i < t->n_kernels; i++)
			if (t->kernels[i].correlation == 1)
				one = t->kernels[i].launch;
		ck_assert_int_ge(one, 0);
		for (size_t i = 0; i < t->n_kernels; i++) {
			const struct trace_kernel *k = &t->kernels[i];

			if (k->correlation == 0 || k->correlation == 2000000) {
				ck_assert_int_eq(k->launch, -1);
				continue;
			}
			ck_assert_int_eq(k->launch - one, (k->correlation - 1) * 10000);
			ck_assert_int_eq(trace_launch_tid(t, k), 1);
		}
		ck_assert_uint_eq(t->n_launches, 0); /* each launched one kernel: folded */
	}
	trace_free(t);
}
END_TEST

/* A trace with no launches and no operators at all. */
START_TEST(test_links_none)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;

	jevent(&b, "kernel", "k1", 0, 7, 10, 5, "\"device\":0,\"stream\":7,\"correlation\":3");
	jevent(&b, "kernel", "k2", 0, 7, 20, 5, "\"device\":0,\"stream\":7,\"External id\":4");
	t = jload(&b);
	check_links(t);
	trace_free(t);
}
END_TEST

/* Kernel `name` launched by operator `op` at CPU time ts, running 1 s later, with ids `id`. */
static void jlaunched(struct jbuf *b, const char *op, const char *name, long long id, double ts)
{
	char args[256];

	snprintf(args, sizeof args, "\"External id\":%lld", id);
	jevent(b, "cpu_op", op, 1, 1, ts, 3, args);
	snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld", id, id);
	jevent(b, "cuda_runtime", "cudaLaunchKernel", 1, 1, ts + 1, 1, args);
	snprintf(args, sizeof args,
		 "\"device\":0,\"stream\":7,\"correlation\":%lld,\"External id\":%lld", id, id);
	jevent(b, "kernel", name, 0, 7, 1e6 + ts, 5, args);
}

/* Thousands of distinct kernel names, each launched twice by alternating operators: the table
 * of distinct (name, operator) pairs grows as it goes and still gives every kernel its own
 * classification. */
START_TEST(test_classify_many_names)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct classifier *c = test_classifier();
	struct trace_classes tc;
	char name[64];
	const int n_names = 3000;
	long long id = 0;

	for (int rep = 0; rep < 2; rep++)
		for (int i = 0; i < n_names; i++) {
			snprintf(name, sizeof name, "%s_%d", i % 3 ? "nvjet_tst" : "mystery_kernel",
				 i);
			id++;
			jlaunched(&b, i % 2 ? "aten::mm" : "aten::add", name, id, (double)id * 10);
		}
	t = jload(&b);
	ck_assert_uint_eq(t->n_kernels, 2 * (size_t)n_names);
	classify_trace(c, t, &tc);
	ck_assert_uint_eq(tc.n_infos, (size_t)n_names);
	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct kernel_info *ki = trace_classes_get(&tc, k);
		const char *kn = trace_str(t, t->kernels[k].name);
		int i = atoi(strrchr(kn, '_') + 1);

		ck_assert_str_eq(ki->short_name, kn);
		if (i % 3)
			ck_assert_int_eq(ki->cls, CLASS_GEMM);
		else if (i % 2)
			ck_assert_int_eq(ki->cls, CLASS_GEMM); /* from its operator, aten::mm */
		else
			ck_assert_int_eq(ki->cls, CLASS_ELEMENTWISE); /* aten::add */
		/* the second launch of a name shares the first one's classification */
		if (k >= (size_t)n_names)
			ck_assert_uint_eq(tc.info_of[k], tc.info_of[k - n_names]);
	}
	trace_classes_clear(&tc);
	classifier_free(c);
	trace_free(t);
}
END_TEST

/* One module call around kernels, launched from thread tid. */
static void jmodule(struct jbuf *b, const char *name, int tid, double ts, double dur)
{
	jevent(b, "python_function", name, 1, tid, ts, dur, "\"Python id\":1");
}

/* Two layer-like module classes called equally often, one after the other in each layer (parts
 * of one layer, not two stacks): the layer class is the first by name, whatever order the calls
 * and their names come in; the kernels of its calls give the layers. */
START_TEST(test_module_class_tie)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct classifier *c = test_classifier();
	struct side s;
	struct fd_error err = { { 0 } };
	double cpu = 0, gpu = 100000;

	for (int l = 0; l < 4; l++) {
		char zb[64], ab[64];

		/* a ZetaBlock call around the norm, then an AlphaLayer call around the rest */
		snprintf(zb, sizeof zb, "nn.Module: ZetaBlock_%d", l);
		snprintf(ab, sizeof ab, "nn.Module: AlphaLayer_%d", 3 - l);
		jmodule(&b, zb, 1, cpu, 1.8);
		jmodule(&b, ab, 1, cpu + 2, 6.8);
		for (size_t i = 0; i < sizeof layer_kernels / sizeof layer_kernels[0]; i++) {
			jkernel(&b, layer_kernels[i], cpu, gpu, 7);
			cpu += 1, gpu += 10;
		}
	}
	t = jload(&b);
	if (side_build(&s, t, c, NULL, &err) < 0)
		ck_abort_msg("side_build: %s", err.msg);
	ck_assert_str_eq(s.layer_source, "nn.Module AlphaLayer");
	ck_assert_uint_eq(s.n_passes, 1);
	ck_assert_uint_eq(s.passes[0].n_layers, 4);
	side_clear(&s);
	classifier_free(c);
	trace_free(t);
}
END_TEST

/* Kernels launched from two threads, each with its own annotations, interleaved in time: every
 * kernel goes to the annotation of its own thread. */
START_TEST(test_annotations_two_threads)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct classifier *c = test_classifier();
	struct side s;
	struct fd_error err = { { 0 } };
	char args[256];
	int64_t corr = 0;

	jevent(&b, "user_annotation", "prefill", 1, 1, 0, 10000, "\"External id\":900001");
	jevent(&b, "user_annotation", "decode", 1, 2, 0, 10000, "\"External id\":900002");
	for (int i = 0; i < 40; i++) {
		int tid = 1 + i % 2;
		const char *name = tid == 1 ? "nvjet_prefill_gemm" : "nvjet_decode_gemm";

		corr++;
		snprintf(args, sizeof args, "\"correlation\":%lld", (long long)corr);
		jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, tid, 10 + i * 10, 1, args);
		snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%lld",
			 (long long)corr);
		jevent(&b, "kernel", name, 0, 7, 100000 + i * 10, 5, args);
	}
	t = jload(&b);
	if (side_build(&s, t, c, NULL, &err) < 0)
		ck_abort_msg("side_build: %s", err.msg);
	ck_assert_uint_eq(s.n_passes, 2);
	for (size_t p = 0; p < s.n_passes; p++) {
		const char *want = strcmp(trace_str(t, s.passes[p].name), "prefill") == 0
					   ? "nvjet_prefill_gemm"
					   : "nvjet_decode_gemm";

		ck_assert_uint_eq(s.passes[p].n, 20);
		for (uint32_t i = 0; i < s.passes[p].n; i++) {
			uint32_t k = s.order[s.passes[p].first + i];

			ck_assert_str_eq(trace_str(t, t->kernels[k].name), want);
		}
	}
	side_clear(&s);
	classifier_free(c);
	trace_free(t);
}
END_TEST

/* big_alloc: any size gives writable memory of that size; large arrays start on a huge-page
 * boundary (so that the kernel can back them with 2 MiB pages). */
START_TEST(test_big_alloc)
{
	static const size_t sizes[] = { 0, 1, 4096, (2u << 20) - 1, 2u << 20, (5u << 20) + 3 };

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint32_t *a = big_alloc(sizes[i], sizeof *a);
		size_t n = sizes[i] ? sizes[i] : 1;

		for (size_t j = 0; j < n; j++)
			a[j] = (uint32_t)j;
		ck_assert_uint_eq(a[n - 1], n - 1);
		if (sizes[i] * sizeof *a >= (2u << 20))
			ck_assert_uint_eq((uintptr_t)a % (2u << 20), 0);
		free(a);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("links");
	TCase *tc = tcase_create("links");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_links_real, 0, sizeof files / sizeof files[0]);
	tcase_add_test(tc, test_links_any_order);
	tcase_add_test(tc, test_links_none);
	tcase_add_test(tc, test_classify_many_names);
	tcase_add_test(tc, test_module_class_tie);
	tcase_add_test(tc, test_annotations_two_threads);
	tcase_add_test(tc, test_big_alloc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
