/* check_classify.c — kernel classification on real kernel names and real traces, rules files. */
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>

#include "jtrace.h"
#include "testutil.h"

#include "fusediff/classify.h"
#include "fusediff/names.h"
#include "fusediff/trace_summary.h"
#include "src/classify/classify_int.h"

/* Every trace carried by the repository, and the large shared one when it is there. */
static const char *const traces[] = {
	"llama8l_eager_sdpa.json.gz",
	"llama8l_compiled_sdpa.json.gz",
	"llama8l_eager_mathattn.json.gz",
	"moe6l_eager_sdpa.json.gz",
	"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
	"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz",
	"tracelens_qwen1.5-0.5b_hf_mi300x.json.gz",
	"tracelens_qwen1.5-0.5b_hf_h100.json.gz",
	"tracelens_bert-small_hf_mi300x.json.gz",
	"tracelens_bert-small_hf_h100.json.gz",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A classifier with no per-user rules file (the library reads none of its own, whatever the
 * machine has). */
static struct classifier *new_classifier(const char *rules)
{
	struct classifier *c = NULL;
	struct fd_error err = { { 0 } };

	if (classifier_new(&c, rules, NULL, &err) < 0)
		ck_abort_msg("classifier_new: %s", err.msg);
	return c;
}

static atom_set parse_atoms(const char *s)
{
	atom_set a = 0;

	while (*s) {
		size_t len = strcspn(s, "+");
		int at = atom_from_name(s, len);

		ck_assert_msg(at >= 0, "unknown atom in test data: %.*s", (int)len, s);
		a |= ATOM_BIT(at);
		s += len;
		if (*s)
			s++;
	}
	return a;
}

/* Check the names of one table: class, atoms, flags, prim, operator, name (and where it was
 * seen, in families.tsv). Returns how many were checked; counts the wrong ones in *failed. */
static int check_table_file(const struct classifier *c, const char *file, int *failed)
{
	FILE *fp = fopen(test_path(file), "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, checked = 0;

	ck_assert_msg(fp != NULL, "%s", file);
	while (getline(&line, &cap, fp) > 0) {
		char *f[7], *p = line, ab[256], want_ab[256];
		struct kernel_info ki;
		int nf = 0, aux, decode;
		const char *prim;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		while (nf < 7 && (f[nf] = strsep(&p, "\t")))
			nf++;
		ck_assert_msg(nf == 6 || nf == 7, "%s:%d: %d fields", file, lineno, nf);
		classify_kernel(c, f[5], strcmp(f[4], "-") ? f[4] : NULL, NULL, &ki);
		aux = strstr(f[2], "aux") != NULL;
		decode = strstr(f[2], "decode") != NULL;
		prim = strcmp(f[3], "-") ? f[3] : NULL;
		atoms_format(ki.atoms, "+", ab, sizeof ab);
		atoms_format(parse_atoms(f[1]), "+", want_ab, sizeof want_ab);
		if (strcmp(class_name(ki.cls), f[0]) != 0 || strcmp(ab, want_ab) != 0 ||
		    ki.aux != aux || ki.decode_attn != decode ||
		    (prim == NULL) != (ki.prim == NULL) || (prim && strcmp(prim, ki.prim) != 0)) {
			fprintf(stderr, "%s:%d: %s: got %s %s%s%s prim=%s, want:\n", file, lineno,
				ki.short_name, class_name(ki.cls), ab, ki.aux ? " aux" : "",
				ki.decode_attn ? " decode" : "", ki.prim ? ki.prim : "-");
			fprintf(stderr, "    %s %s %s prim=%s\n", f[0], want_ab, f[2], f[3]);
			(*failed)++;
		}
		checked++;
		kernel_info_clear(&ki);
	}
	free(line);
	fclose(fp);
	return checked;
}

/* Real names with the class, atoms, flags and prim a user expects: those of the shared traces
 * (kernels.tsv) and of the ecosystem's kernel families (families.tsv). */
START_TEST(test_real_names)
{
	struct classifier *c = new_classifier(NULL);
	int failed = 0, traces_n, families_n;

	traces_n = check_table_file(c, "tests/data/classify/kernels.tsv", &failed);
	families_n = check_table_file(c, "tests/data/classify/families.tsv", &failed);
	classifier_free(c);
	ck_assert_int_ge(traces_n, 80);
	ck_assert_int_ge(families_n, 300);
	ck_assert_msg(failed == 0, "%d of %d kernels misclassified (see above)", failed,
		      traces_n + families_n);
}
END_TEST

/* The Other share of each real trace, with its largest Other kernels in the log. */
static void check_other_share(const char *path)
{
	struct classifier *c = new_classifier(NULL);
	struct trace *t = test_load(path);
	struct trace_classes tc;
	int64_t *time;
	size_t shown = 0;

	classify_trace(c, t, &tc);
	ck_assert_uint_eq(tc.n_infos > 0, 1);
	time = xcalloc(tc.n_infos, sizeof *time);
	for (size_t k = 0; k < t->n_kernels; k++)
		if (t->kernels[k].kind == KIND_KERNEL)
			time[tc.info_of[k]] += t->kernels[k].dur;
	fprintf(stderr, "%-66s Other %5.2f%% of kernel time, %zu distinct kernels\n",
		path_basename(path), 100.0 * tc.other_share, tc.n_infos);
	for (int round = 0; round < 5; round++) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < tc.n_infos; i++)
			if (tc.infos[i].cls == CLASS_OTHER && time[i] >= 0 &&
			    (best == SIZE_MAX || time[i] > time[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		fprintf(stderr, "    Other: %9.1f us  %s\n", (double)time[best] / 1000.0,
			tc.infos[best].short_name);
		time[best] = -1;
		shown++;
	}
	ck_assert_msg(tc.other_share < 0.10, "%s: Other share %.1f%%", path,
		      100.0 * tc.other_share);
	free(time);
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}

START_TEST(test_other_share)
{
	check_other_share(test_trace(traces[_i]));
}
END_TEST

START_TEST(test_other_share_large)
{
	const char *p = test_shared_trace("llama3_8b_shape_eager_sdpa.json.gz");

	if (!p) {
		fprintf(stderr, "llama3_8b_shape trace not next to the checkout: not checked\n");
		return;
	}
	check_other_share(p);
}
END_TEST

/* Classes of the kernels of one trace, by total kernel count. */
static void class_counts(const char *name, size_t counts[CLASS_COUNT])
{
	struct classifier *c = new_classifier(NULL);
	struct trace *t = test_load(test_trace(name));
	struct trace_classes tc;

	classify_trace(c, t, &tc);
	memset(counts, 0, CLASS_COUNT * sizeof counts[0]);
	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct kernel_info *ki = trace_classes_get(&tc, k);

		ck_assert_ptr_nonnull(ki->short_name);
		if (t->kernels[k].kind != KIND_KERNEL)
			ck_assert_int_eq(ki->cls, CLASS_COPY);
		counts[ki->cls]++;
	}
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}

/* The SGLang Llama-8B decode step on MI300X and B300: per layer both run 4 GEMMs, one
 * attention, two add+RMSNorms, one RoPE, one KV write and one SiLU·mul; B300 adds a
 * splitKreduce (GEMM aux) and MI300X a paged-attention reduce (attention aux). */
START_TEST(test_sglang_pair_symmetric)
{
	size_t a[CLASS_COUNT], b[CLASS_COUNT];

	class_counts("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz", a);
	class_counts("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz", b);
	/* 4 GEMMs per layer + LM head; B300: + splitKreduce per layer */
	ck_assert_uint_eq(a[CLASS_GEMM], 32 * 4 + 1);
	ck_assert_uint_eq(b[CLASS_GEMM], 32 * 5 + 1);
	ck_assert_uint_eq(a[CLASS_ATTENTION], 32 * 2);
	ck_assert_uint_eq(b[CLASS_ATTENTION], 32);
	ck_assert_uint_eq(a[CLASS_NORM], 32 * 2 + 1);
	ck_assert_uint_eq(b[CLASS_NORM], 32 * 2 + 1);
	ck_assert_uint_eq(a[CLASS_ROPE], 32);
	ck_assert_uint_eq(b[CLASS_ROPE], 32);
	ck_assert_uint_eq(a[CLASS_KV_WRITE], 32);
	ck_assert_uint_eq(b[CLASS_KV_WRITE], 32);
	ck_assert_uint_eq(a[CLASS_ACTIVATION], 32);
	ck_assert_uint_eq(b[CLASS_ACTIVATION], 32);
	ck_assert_uint_eq(a[CLASS_EMBEDDING], 1);
	ck_assert_uint_eq(b[CLASS_EMBEDDING], 1);
	ck_assert_uint_eq(a[CLASS_SAMPLING], 1);
	ck_assert_uint_eq(b[CLASS_SAMPLING], 1);
}
END_TEST

/* HF Qwen1.5 and BERT eager on MI300X and H100: the same classes with the same number of
 * kernels (GEMMs were the classic failure: cuBLAS/CUTLASS as Other, Tensile as GEMM). The two
 * Qwen captures are not cut at the same kernel (1516 vs 1465 events, 35 vs 34 attention
 * kernels): counts may differ by the one layer at the edge of the capture window. */
START_TEST(test_hf_pairs_symmetric)
{
	static const char *const pairs[][2] = {
		{ "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz",
		  "tracelens_qwen1.5-0.5b_hf_h100.json.gz" },
		{ "tracelens_bert-small_hf_mi300x.json.gz",
		  "tracelens_bert-small_hf_h100.json.gz" },
	};

	for (size_t p = 0; p < 2; p++) {
		size_t a[CLASS_COUNT], b[CLASS_COUNT];

		class_counts(pairs[p][0], a);
		class_counts(pairs[p][1], b);
		ck_assert_uint_gt(a[CLASS_GEMM], 0);
		for (int c = 0; c < CLASS_COUNT; c++) {
			size_t hi = a[c] > b[c] ? a[c] : b[c], lo = a[c] > b[c] ? b[c] : a[c];

			fprintf(stderr, "%s %s: %zu vs %zu\n", p ? "BERT" : "Qwen1.5",
				class_name(c), a[c], b[c]);
			if (c == CLASS_COPY) /* memcpy/memset differ between the runtimes */
				continue;
			ck_assert_msg(hi - lo <= 1 + hi / 50, "%s vs %s: %s %zu vs %zu",
				      pairs[p][0], pairs[p][1], class_name(c), a[c], b[c]);
		}
	}
}
END_TEST

/* Eager Qwen3-MoE recorded without module ranges: the grouped GEMMs are MoE GEMM; the router's
 * generic kernels keep the class their names give everywhere (a top-k is a Sort, a softmax a
 * Reduce): nothing in the trace says they route, and a trace's other kernels never change a
 * kernel's class. Greedy sampling stays Sampling. */
START_TEST(test_moe_router)
{
	size_t n[CLASS_COUNT];

	class_counts("moe6l_eager_sdpa.json.gz", n);
	/* 2 grouped GEMMs + 2 setup kernels per layer, 6 layers, 10 passes */
	ck_assert_uint_eq(n[CLASS_MOE_GEMM], 6 * 10 * 4);
	ck_assert_uint_eq(n[CLASS_MOE_ROUTING], 0);
	ck_assert_uint_eq(n[CLASS_SAMPLING], 9);
	ck_assert_uint_eq(n[CLASS_OTHER], 0);
}
END_TEST

/* The class of the first kernel named name in t, and what decided it. */
static const struct kernel_info *info_named(const struct trace *t, const struct trace_classes *tc,
					    const char *name, size_t nth)
{
	for (size_t k = 0; k < t->n_kernels; k++)
		if (strcmp(trace_str(t, t->kernels[k].name), name) == 0 && nth-- == 0)
			return trace_classes_get(tc, k);
	ck_abort_msg("no kernel %s", name);
	return NULL;
}

/* A kernel that nothing launched as far as the trace says: a CUDA or HIP graph replay. */
static void jkernel_bare(struct jbuf *b, const char *name, double gpu_ts)
{
	jevent(b, "kernel", name, 0, 7, gpu_ts, 5, "\"device\":0,\"stream\":7");
}

/* A kernel launched by op, with the op's concrete inputs (JSON text of the array). */
static void jkernel_args(struct jbuf *b, const char *name, const char *op, const char *concrete,
			 double cpu_ts, double gpu_ts)
{
	char args[256];

	b->corr++;
	b->ext++;
	snprintf(args, sizeof args, "\"External id\":%lld,\"Concrete Inputs\":%s",
		 (long long)b->ext, concrete);
	jevent(b, "cpu_op", op, 1, 1, cpu_ts, 2, args);
	snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld", (long long)b->corr,
		 (long long)b->ext);
	jevent(b, "cuda_runtime", "cudaLaunchKernel", 1, 1, cpu_ts + 0.5, 1, args);
	snprintf(args, sizeof args,
		 "\"device\":0,\"stream\":7,\"correlation\":%lld,\"External id\":%lld",
		 (long long)b->corr, (long long)b->ext);
	jevent(b, "kernel", name, 0, 7, gpu_ts, 5, args);
}

struct rung {
	const char *name;
	size_t nth;
	const char *cls, *atoms, *source;
};

/* The order of evidence, one rung at a time (classify.h): a decisive name whatever its
 * operator, module or annotation say, and without them (a graph replay); then, for generic
 * names only, a MoE module or annotation, the operator (aten's table, a custom operator named
 * after what it does, the operator rules), the module; the generic name's own class; Other.
 * Each result records the rung that decided. */
START_TEST(test_order_of_evidence)
{
	static const char topk[] =
		"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, "
		"false>(at::cuda::detail::TensorInfo<float const, unsigned int>)";
	/* vLLM's norms as Kineto demangles them: an enable_if return type whose condition
	 * compares, "(((8)>(0)))", then the kernel */
	static const char add_norm[] =
		"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, "
		"void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, "
		"long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)";
	static const char norm[] =
		"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, "
		"void>::type vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, "
		"c10::BFloat16 const*, long, c10::BFloat16 const*, float, int, int)";
	static const char generic[] = "void at::native::elementwise_kernel<128, 2, lambda>(int)";
	static const char sdpa_mask[] =
		"triton_poi_fused__scaled_dot_product_cudnn_attention__to_copy__unsafe_view_add_"
		"arange_bitwise_and_bmm_cat_clone_cos_eq_expand_index_le_mul_neg_new_ones_scalar_"
		"tensor_sin_slice_transpose_unsqueeze_view_where_7";
	static const char gemm[] = "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT";
	static const char clamp[] =
		"void at::native::vectorized_elementwise_kernel<8, "
		"at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
		"c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
		"operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, "
		"std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::"
		"launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
		"at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
		"const::{lambda()#14}::"
		"operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)";
	static const struct rung rungs[] = {
		/* 2. decisive names: eager, in a graph replay, under a contradicting operator,
		 * module and annotation, under a backward operator (no grad from it) */
		{ add_norm, 0, "Norm", "add+rmsnorm", "name" },
		{ add_norm, 1, "Norm", "add+rmsnorm", "name" },
		{ norm, 0, "Norm", "rmsnorm", "name" },
		{ norm, 1, "Norm", "rmsnorm", "name" },
		{ gemm, 0, "GEMM", "gemm", "name" },
		{ gemm, 1, "GEMM", "gemm", "name" },
		{ "triton_red_fused_add_mean_mul_pow_rsqrt_3", 0, "Norm", "add+rmsnorm",
		  "inductor" },
		/* an Inductor prologue named after the attention it feeds: its tensors */
		{ sdpa_mask, 0, "Elementwise", "add+mul+cast", "shapes" },
		/* 3. generic names: a MoE module, a MoE annotation */
		{ topk, 0, "MoE routing", "topk+routing", "module" },
		{ topk, 1, "MoE routing", "topk+routing", "annotation" },
		/* the operator: aten's table, a custom operator, the operator rules */
		{ topk, 2, "Sort", "topk", "operator" },
		{ clamp, 0, "Activation", "act", "operator" },
		{ clamp, 1, "Elementwise", "other", "name" },
		{ generic, 0, "Conv", "conv", "operator" },
		{ "my_triton_kernel_0", 0, "Norm", "add+rmsnorm", "operator" },
		{ "mystery_tile_kernel", 1, "Norm", "layernorm+grad", "operator" },
		/* the module */
		{ "mystery_tile_kernel", 0, "Conv", "conv", "module" },
		/* the generic name's own class; Other */
		{ generic, 1, "Elementwise", "other", "name" },
		{ "mystery_tile_kernel", 2, "Other", "other", "none" },
	};
	struct classifier *c = new_classifier(NULL);
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct trace_classes tc;
	int seen[SOURCE_COUNT] = { 0 };
	double gpu = 100;

	/* in the order of the table's nth */
	jkernel_op(&b, add_norm, "_C::fused_add_rms_norm", 1, gpu += 10, 7);
	jkernel_bare(&b, add_norm, gpu += 10);
	jkernel_op(&b, norm, "_C::rms_norm", 3, gpu += 10, 7);
	jkernel_bare(&b, norm, gpu += 10);
	jmodule_call(&b, "Conv2d_0", 5, 3);
	jevent(&b, "user_annotation", "moe_router", 1, 1, 5, 3, "");
	jkernel_op(&b, gemm, "aten::convolution", 6, gpu += 10, 7);
	jkernel_op(&b, gemm, "aten::convolution_backward", 9, gpu += 10, 7);
	jkernel_bare(&b, "triton_red_fused_add_mean_mul_pow_rsqrt_3", gpu += 10);
	jkernel_dims(&b, sdpa_mask, "[[4,512],[4,1,512,512],[4,1,512,512],[]]", 9.5, gpu += 10, 7);
	jmodule_call(&b, "Qwen3MoeSparseMoeBlock_0", 10, 3);
	jkernel_op(&b, topk, "aten::topk", 11, gpu += 10, 7);
	jevent(&b, "user_annotation", "moe_router_0", 1, 1, 14, 3, "");
	jkernel_op(&b, topk, "aten::topk", 15, gpu += 10, 7);
	jkernel_op(&b, topk, "aten::topk", 18, gpu += 10, 7);
	jkernel_args(&b, clamp, "aten::clamp_min_", "[\"\",\"0\"]", 20, gpu += 10);
	jkernel_args(&b, clamp, "aten::clamp_min_", "[\"\",\"1e-06\"]", 22, gpu += 10);
	jkernel_op(&b, generic, "aten::convolution", 24, gpu += 10, 7);
	jkernel_op(&b, "my_triton_kernel_0", "vllm::fused_add_rms_norm", 26, gpu += 10, 7);
	jmodule_call(&b, "Conv2d_1", 28, 3);
	jkernel_op(&b, "mystery_tile_kernel", "aten::op", 29, gpu += 10, 7);
	jkernel_op(&b, "mystery_tile_kernel", "aten::native_layer_norm_backward", 32, gpu += 10, 7);
	jkernel_bare(&b, generic, gpu += 10);
	jkernel_op(&b, "mystery_tile_kernel", "aten::op", 34, gpu += 10, 7);
	t = jload(&b);
	classify_trace(c, t, &tc);
	for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
		const struct rung *r = &rungs[i];
		const struct kernel_info *ki = info_named(t, &tc, r->name, r->nth);
		char ab[256], want[256];

		atoms_format(ki->atoms, "+", ab, sizeof ab);
		atoms_format(parse_atoms(r->atoms), "+", want, sizeof want);
		ck_assert_msg(strcmp(class_name(ki->cls), r->cls) == 0 && strcmp(ab, want) == 0 &&
				      strcmp(class_source_name(ki->source), r->source) == 0,
			      "rung %zu, %s #%zu: got %s %s from %s, want %s %s from %s", i,
			      ki->short_name, r->nth, class_name(ki->cls), ab,
			      class_source_name(ki->source), r->cls, want, r->source);
		seen[ki->source]++;
	}
	/* every rung but the rules files (test_user_rules_override) */
	for (int s = 0; s < SOURCE_COUNT; s++)
		ck_assert_msg(s == SOURCE_RULES_FILE || seen[s], "no test of rung %s",
			      class_source_name(s));
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}
END_TEST

/* A trace whose External ids are correlation ids (some PyTorch versions): a kernel's External id
 * names an operator that ran elsewhere. The link holds only when the launch lies inside the
 * operator's CPU range on its thread; else the operator around the launch counts. */
START_TEST(test_links_that_hold)
{
	static const char generic[] = "void at::native::elementwise_kernel<128, 2, lambda>(int)";
	struct classifier *c = new_classifier(NULL);
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct trace_classes tc;
	const struct kernel_info *ki;

	jevent(&b, "cpu_op", "aten::add", 1, 1, 10, 2, "\"External id\":100");
	jevent(&b, "cpu_op", "aten::convolution", 1, 1, 50, 2, "\"External id\":7");
	/* launched inside aten::add, its External id (= its correlation) names the convolution */
	jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, 10.5, 1,
	       "\"correlation\":7,\"External id\":7");
	jevent(&b, "kernel", generic, 0, 7, 100, 5,
	       "\"device\":0,\"stream\":7,\"correlation\":7,\"External id\":7");
	/* launched inside aten::add with its own id: the loader keeps aten::add */
	jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, 11, 0.5,
	       "\"correlation\":9,\"External id\":100");
	jevent(&b, "kernel", "mystery_tile_kernel", 0, 7, 90, 5,
	       "\"device\":0,\"stream\":7,\"correlation\":9,\"External id\":100");
	/* launched inside the convolution: its link holds */
	jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, 50.5, 1,
	       "\"correlation\":8,\"External id\":7");
	jevent(&b, "kernel", generic, 0, 7, 110, 5,
	       "\"device\":0,\"stream\":7,\"correlation\":8,\"External id\":7");
	t = jload(&b);
	classify_trace(c, t, &tc);
	ki = info_named(t, &tc, generic, 0);
	ck_assert_str_eq(class_name(ki->cls), "Elementwise");
	ck_assert_uint_eq(ki->atoms, ATOM_BIT(ATOM_ADD));
	ck_assert_str_eq(class_source_name(ki->source), "operator");
	ki = info_named(t, &tc, generic, 1);
	ck_assert_str_eq(class_name(ki->cls), "Conv");
	ck_assert_uint_eq(tc.links_rejected, 1);
	{ /* --summary says so */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		ck_assert_int_eq(trace_summary_print(f, t, &tc, NULL, c, NULL), 0);
		fclose(f);
		ck_assert_ptr_nonnull(strstr(text, "\n  1 kernels' External id names an operator "
						   "whose CPU range does not hold their launch\n"));
		free(text);
	}
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}
END_TEST

/* Eager MoE routing: the router's generic kernels (softmax, top-k, sort, token gather) in a MoE
 * block or under an annotation that names the experts or router are MoE routing, its
 * combine (index_add) MoE finalize; the same kernels in a gated feed-forward block ("Gated" is
 * no gate) or in no such context keep their names' classes. */
START_TEST(test_moe_routing_context)
{
	static const char *const router[][3] = {
		{ "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, "
		  "float, "
		  "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float "
		  "const*, "
		  "int)",
		  "aten::_softmax", "Reduce" },
		{ "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(int)",
		  "aten::topk", "Sort" },
		{ "void at::native::bitonicSortKVInPlace<-2, -1, 16, 16, long, long, "
		  "at::native::LTOp<long, true>, unsigned int>(int)",
		  "aten::sort", "Sort" },
		{ "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, "
		  "long, "
		  "long, long, long, bool)",
		  "aten::index", "Copy" },
		{ "void at::native::indexFuncLargeIndex<float, long, unsigned int, 2, 2, -2, true, "
		  "at::native::(anonymous namespace)::ReduceAdd>(int)",
		  "aten::index_add_", "Copy" },
	};
	static const char *const contexts[] = { "MixtralSparseMoeBlock_0", "moe_router",
						"T5DenseGatedActDense_0", NULL };
	struct classifier *c = new_classifier(NULL);
	struct jbuf b = { .first = 1 };
	struct trace *t;
	struct trace_classes tc;
	double cpu = 10, gpu = 100;
	const size_t n = sizeof router / sizeof router[0];

	for (size_t x = 0; x < 4; x++) {
		if (x == 0 || x == 2)
			jmodule_call(&b, contexts[x], cpu, 9);
		else if (x == 1)
			jevent(&b, "user_annotation", contexts[x], 1, 1, cpu, 9, "");
		for (size_t i = 0; i < n; i++)
			jkernel_op(&b, router[i][0], router[i][1], cpu + 1 + (double)i, gpu += 10,
				   7);
		cpu += 20;
	}
	t = jload(&b);
	classify_trace(c, t, &tc);
	for (size_t x = 0; x < 4; x++)
		for (size_t i = 0; i < n; i++) {
			const struct kernel_info *ki = info_named(t, &tc, router[i][0], x);
			const char *want = x < 2 ? (i == n - 1 ? "MoE finalize" : "MoE routing")
						 : router[i][2];

			ck_assert_msg(strcmp(class_name(ki->cls), want) == 0,
				      "%s in %s: %s, want %s", ki->short_name,
				      contexts[x] ? contexts[x] : "nothing", class_name(ki->cls),
				      want);
			if (x < 2)
				ck_assert_str_eq(class_source_name(ki->source),
						 x == 0 ? "module" : "annotation");
		}
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}
END_TEST

/* The distinct kernel names of one trace and what each got, checked against every earlier
 * trace (one_name_one_class). */
struct seen_name {
	char *name, *trace;
	uint8_t cls;
	atom_set atoms;
};

struct seen_names {
	struct seen_name *v;
	size_t n, cap, decisive, checked;
};

/* A kernel name with what does not make it another kernel left out: numbers (vector widths,
 * tiles of one template, lambda numbers), element types, flags, the wrappers of aten's
 * elementwise templates and the two spellings of their argument arrays, negations and
 * parentheses. Two names of one shape are one kernel for the user; written into buf. */
static const char *name_shape(const char *name, char *buf, size_t cap)
{
	static const char *const same[] = {
		"float",
		"double",
		"int",
		"long",
		"bool",
		"unsigned",
		"char",
		"short",
		"signed",
		"const",
		"true",
		"false",
		"BFloat16",
		"Half",
		"__nv_bfloat16",
		"__hip_bfloat16",
		"__half",
		"c10",
		"ul",
		"u",
		"AUnaryFunctor",
		"BUnaryFunctor",
		"BinaryFunctor",
		"gpu_kernel_impl",
		"gpu_kernel_impl_nocast",
		"array",
		"Array",
		"std",
		"detail",
		"type_specialized_broadcast_kernel_launcher",
		"apply",
		"T1",
		"T2",
	};
	size_t n = 0;

	for (const char *p = name; *p && n + 2 < cap;) {
		size_t len = 0, k;

		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p))
				p++;
			buf[n++] = '#';
			continue;
		}
		if (*p == '!' || *p == '(' || *p == ')') { /* enable_if<!(false)> is <true> */
			p++;
			continue;
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			buf[n++] = *p++;
			continue;
		}
		while (isalnum((unsigned char)p[len]) || p[len] == '_')
			len++;
		for (k = 0; k < sizeof same / sizeof same[0]; k++)
			if (strlen(same[k]) == len && strncmp(same[k], p, len) == 0)
				break;
		if (k < sizeof same / sizeof same[0]) {
			if (n >= 3 && memcmp(buf + n - 3, "T::", 3) == 0)
				n -= 2; /* c10::BFloat16 is one type */
			else
				buf[n++] = 'T';
		} else {
			if (n + len + 1 >= cap)
				break;
			memcpy(buf + n, p, len);
			n += len;
		}
		p += len;
	}
	buf[n] = '\0';
	return buf;
}

/* Two kernels of one trace that show the same short name are one kernel for the user: of one
 * shape (name_shape()). */
static void check_short_names(const struct trace *t, const struct trace_classes *tc,
			      const char *path)
{
	struct {
		uint32_t name;
		const char *short_name;
	} *v = NULL;
	size_t n = 0, cap = 0;
	char *a = xmalloc(1 << 16), *b = xmalloc(1 << 16);

	for (size_t k = 0; k < t->n_kernels; k++) {
		size_t j;

		for (j = 0; j < n && v[j].name != t->kernels[k].name; j++)
			;
		if (j < n)
			continue;
		VEC_PUSH(v, n, cap,
			 ((__typeof__(*v)){ t->kernels[k].name,
					    trace_classes_get(tc, k)->short_name }));
		for (j = 0; j + 1 < n; j++)
			if (strcmp(v[j].short_name, v[n - 1].short_name) == 0)
				ck_assert_msg(
					strcmp(name_shape(trace_str(t, v[j].name), a, 1 << 16),
					       name_shape(trace_str(t, v[n - 1].name), b,
							  1 << 16)) == 0,
					"%s: two kernels show as %s:\n  %s\n  %s", path,
					v[j].short_name, trace_str(t, v[j].name),
					trace_str(t, v[n - 1].name));
	}
	free(a);
	free(b);
	free(v);
}

/* Every kernel of the trace at path whose name decides: the class and atoms of its name alone,
 * and the same in every trace before it. A kernel whose context decided has a generic name. */
static void check_one_trace(const struct classifier *c, const char *path, struct seen_names *sn)
{
	struct trace *t = test_load(path);
	struct trace_classes tc;
	uint8_t *done;

	classify_trace(c, t, &tc);
	done = xcalloc(tc.n_infos, 1);
	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct kernel_info *ki = trace_classes_get(&tc, k);
		const char *name = trace_str(t, t->kernels[k].name);
		struct kernel_info alone;
		size_t j;

		if (done[tc.info_of[k]]++ || t->kernels[k].kind != KIND_KERNEL)
			continue;
		sn->checked++;
		if (!classify_name_decides(c, name)) {
			ck_assert_msg(ki->source != SOURCE_INDUCTOR, "%s", name);
			continue;
		}
		ck_assert_msg(ki->source == SOURCE_NAME || ki->source == SOURCE_INDUCTOR,
			      "%s: %s decided in %s", ki->short_name, class_source_name(ki->source),
			      path);
		classify_kernel(c, name, NULL, NULL, &alone);
		ck_assert_msg(alone.cls == ki->cls && alone.atoms == ki->atoms,
			      "%s: %s alone, %s in %s", ki->short_name, class_name(alone.cls),
			      class_name(ki->cls), path);
		kernel_info_clear(&alone);
		for (j = 0; j < sn->n && strcmp(sn->v[j].name, name) != 0; j++)
			;
		if (j < sn->n) {
			ck_assert_msg(sn->v[j].cls == ki->cls && sn->v[j].atoms == ki->atoms,
				      "%s: %s in %s, %s in %s", ki->short_name,
				      class_name(sn->v[j].cls), sn->v[j].trace, class_name(ki->cls),
				      path);
			continue;
		}
		VEC_PUSH(sn->v, sn->n, sn->cap,
			 ((struct seen_name){ xstrdup(name), xstrdup(path), ki->cls, ki->atoms }));
		sn->decisive++;
	}
	check_short_names(t, &tc, path);
	free(done);
	trace_classes_clear(&tc);
	trace_free(t);
}

/* One name, one class: over every trace in the repository (examples/, tests/data/traces/,
 * tests/data/variants/: eager and compiled, NVIDIA and AMD, with and without launches,
 * operators, modules and annotations), a kernel name that decides has one class and one set
 * of atoms (a generic name's class follows its context: classify.h), and two kernels never
 * show the same short name unless they differ only in types and sizes. */
START_TEST(test_one_name_one_class)
{
	static const char *const dirs[] = { "examples", "tests/data/traces",
					    "tests/data/variants" };
	struct classifier *c = new_classifier(NULL);
	struct seen_names sn = { 0 };
	size_t traces_n = 0;

	for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
		char dir[8192];
		DIR *dp;
		struct dirent *e;
		char **files = NULL;
		size_t n = 0, cap = 0;

		snprintf(dir, sizeof dir, "%s", test_path(dirs[d]));
		ck_assert_msg((dp = opendir(dir)) != NULL, "%s", dir);
		while ((e = readdir(dp))) {
			size_t len = strlen(e->d_name);

			if (len > 8 && strcmp(e->d_name + len - 8, ".json.gz") == 0)
				VEC_PUSH(files, n, cap, xasprintf("%s/%s", dir, e->d_name));
		}
		closedir(dp);
		qsort(files, n, sizeof *files, cmp_str);
		for (size_t i = 0; i < n; i++) {
			check_one_trace(c, files[i], &sn);
			free(files[i]);
		}
		free(files);
		traces_n += n;
	}
	fprintf(stderr,
		"one name, one class: %zu traces, %zu kernel names and contexts, %zu names "
		"that decide\n",
		traces_n, sn.checked, sn.decisive);
	ck_assert_uint_ge(traces_n, 60);
	ck_assert_uint_gt(sn.decisive, 100);
	for (size_t j = 0; j < sn.n; j++) {
		free(sn.v[j].name);
		free(sn.v[j].trace);
	}
	free(sn.v);
	classifier_free(c);
}
END_TEST

/* The compiled Llama: RMSNorm and SiLU·mul are Triton kernels with the right atoms, the RoPE
 * prologue named after SDPA is not attention, the only attention kernels are cuDNN's. The four
 * prologue kernels all read ..._cat_clone_cos_eq_expand_..._sin_..._where_N; their tensors
 * tell them apart: where_4 rotates q ([2048,2048] and the [64,512] table into
 * [4,16,512,128]), where_5 rotates k and expands it for repeat_kv, where_6 only expands v
 * (one tensor in, four times its size out), where_7 builds the causal mask ([4,512] into four
 * [4,1,512,512]): RoPE, RoPE, Copy, Elementwise (all four were RoPE, so that eager's RoPE
 * paired with the mask). */
START_TEST(test_inductor_trace)
{
	static const struct {
		const char *suffix;
		int cls;
		atom_set atoms;
		size_t count;
	} want[] = {
		{ "_where_4", CLASS_ROPE, ATOM_BIT(ATOM_ROPE) | ATOM_BIT(ATOM_CAST), 16 },
		{ "_where_5", CLASS_ROPE, ATOM_BIT(ATOM_ROPE) | ATOM_BIT(ATOM_CAST), 16 },
		{ "_where_6", CLASS_COPY, ATOM_BIT(ATOM_COPY), 16 },
		{ "_where_7", CLASS_ELEMENTWISE,
		  ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_MUL) | ATOM_BIT(ATOM_CAST), 4 },
	};
	size_t n[CLASS_COUNT], seen[4] = { 0 };
	struct classifier *c = new_classifier(NULL);
	struct trace *t = test_load(test_trace("llama8l_compiled_sdpa.json.gz"));
	struct trace_classes tc;

	class_counts("llama8l_compiled_sdpa.json.gz", n);
	ck_assert_uint_eq(n[CLASS_ATTENTION], 16);
	ck_assert_uint_eq(n[CLASS_NORM], 2 * (8 * 2 + 1));
	ck_assert_uint_eq(n[CLASS_ACTIVATION], 16);
	ck_assert_uint_eq(n[CLASS_ROPE], 16 * 2);
	classify_trace(c, t, &tc);
	for (size_t k = 0; k < t->n_kernels; k++) {
		const char *name = trace_str(t, t->kernels[k].name);
		const struct kernel_info *ki = trace_classes_get(&tc, k);

		if (!strstr(name, "triton_poi_fused__scaled_dot_product"))
			continue;
		for (size_t w = 0; w < 4; w++) {
			size_t ls = strlen(name), lw = strlen(want[w].suffix);

			if (ls < lw || strcmp(name + ls - lw, want[w].suffix) != 0)
				continue;
			ck_assert_msg(ki->cls == want[w].cls && ki->atoms == want[w].atoms,
				      "%s: %s", want[w].suffix, class_name(ki->cls));
			ck_assert_int_eq(ki->source, SOURCE_SHAPES);
			seen[w]++;
		}
		/* the name alone does not decide: a trace without the tensors keeps its list */
		ck_assert_int_eq(classify_name_decides(c, name), 0);
	}
	for (size_t w = 0; w < 4; w++)
		ck_assert_uint_eq(seen[w], want[w].count);
	trace_classes_clear(&tc);
	trace_free(t);
	classifier_free(c);
}
END_TEST

/* A pointwise kernel named after the attention it feeds: the tensors of its launch pick what
 * it runs of the ops its name lists (shapes from compiled Llama prefill and the SD3.5 MMDiT on
 * MI300X); without them, or for any other Inductor kernel, the name decides. */
START_TEST(test_inductor_shapes)
{
	static const char *const sdpa =
		"triton_poi_fused__scaled_dot_product_cudnn_attention__to_copy__unsafe_view_add_"
		"arange_bitwise_and_bmm_cat_clone_cos_eq_expand_index_le_mul_neg_new_ones_scalar_"
		"tensor_sin_slice_transpose_unsqueeze_view_where_4";
	static const struct {
		const char *name, *dims, *cls, *atoms;
		int source;
	} cases[] = {
		{ sdpa, "[[2048,2048],[64,512],[4,16,512,128],[]]", "RoPE", "rope+cast",
		  SOURCE_SHAPES },
		/* [B, S, H, D] and HF's [1, S, D] cos table */
		{ sdpa, "[[4,512,32,128],[1,512,128],[4,512,32,128],[]]", "RoPE", "rope+cast",
		  SOURCE_SHAPES },
		{ sdpa, "[[2048,512],[4,16,512,128],[]]", "Copy", "copy", SOURCE_SHAPES },
		{ sdpa, "[[4,512],[4,1,512,512],[4,1,512,512],[]]", "Elementwise", "add+mul+cast",
		  SOURCE_SHAPES },
		/* batch 1: the mask's [1,512] is no table (one dim other than 1) */
		{ sdpa, "[[1,512],[1,1,512,512],[1,1,512,512],[]]", "Elementwise", "add+mul+cast",
		  SOURCE_SHAPES },
		{ sdpa, NULL, "RoPE", "rope+cast", SOURCE_SHAPES },
		{ sdpa, "[[[4,16,512,64],[4,16,512,64]],[]]", "RoPE", "rope+cast", SOURCE_SHAPES },
		/* the joint attention's concatenation of text and image tokens stays a copy */
		{ "triton_poi_fused__scaled_dot_product_flash_attention_cat_transpose_view_10",
		  "[[8192,2432],[666,2432],[2,38,4429,64],[]]", "Copy", "copy", SOURCE_SHAPES },
		{ "triton_poi_fused_add_cat_mul_neg_slice_4", "[[4,512],[]]", "RoPE", "rope",
		  SOURCE_INDUCTOR },
	};
	struct classifier *c = new_classifier(NULL);

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct classify_context ctx = { .op = cases[i].name, .op_dims = cases[i].dims };
		struct kernel_info ki;
		char ab[256], want[256];

		classify_kernel_ctx(c, cases[i].name, &ctx, &ki);
		atoms_format(ki.atoms, "+", ab, sizeof ab);
		atoms_format(parse_atoms(cases[i].atoms), "+", want, sizeof want);
		ck_assert_msg(strcmp(class_name(ki.cls), cases[i].cls) == 0 &&
				      strcmp(ab, want) == 0,
			      "case %zu: got %s %s, want %s %s", i, class_name(ki.cls), ab,
			      cases[i].cls, want);
		ck_assert_int_eq(ki.source, cases[i].source);
		kernel_info_clear(&ki);
	}
	classifier_free(c);
}
END_TEST

/* Inductor names beyond the traces: decoding by longest op match. */
START_TEST(test_inductor_names)
{
	static const struct {
		const char *name, *cls, *atoms;
	} cases[] = {
		{ "triton_poi_fused_mul_silu_3", "Activation", "mul+silu" },
		{ "triton_red_fused_add_native_layer_norm_2", "Norm", "layernorm+add" },
		{ "triton_per_fused__softmax_amax_exp_sub_sum_0", "Reduce", "softmax" },
		{ "triton_poi_fused_gelu_7", "Activation", "gelu" },
		{ "triton_tem_fused_addmm_relu_5", "GEMM", "gemm+act" },
		{ "triton_tem_fused_mm_0", "GEMM", "gemm" },
		{ "triton_poi_fused_add_cat_mul_neg_slice_4", "RoPE", "rope" },
		{ "triton_red_fused_argmax_1", "Sampling", "sample" },
		{ "triton_poi_fused_clone_12", "Copy", "copy" },
		{ "triton_poi_fused_unknownop_1", "Elementwise", "other" },
		{ "triton_red_fused_sum_9", "Reduce", "reduce" },
		/* Qwen3's q/k-RMSNorm and RoPE in one kernel: the norm and the rotation share
		 * the mul (the rope atom was lost to the norm's) */
		{ "triton_red_fused__to_copy_add_bmm_cat_cos_mean_mul_neg_pow_rsqrt_sin_slice_"
		  "unsqueeze_4",
		  "Norm", "rmsnorm+rope+cast" },
	};
	struct classifier *c = new_classifier(NULL);

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kernel_info ki;
		char ab[256], want[256];

		classify_kernel(c, cases[i].name, NULL, NULL, &ki);
		atoms_format(ki.atoms, "+", ab, sizeof ab);
		atoms_format(parse_atoms(cases[i].atoms), "+", want, sizeof want);
		ck_assert_msg(strcmp(class_name(ki.cls), cases[i].cls) == 0 &&
				      strcmp(ab, want) == 0,
			      "%s: got %s %s, want %s %s", cases[i].name, class_name(ki.cls), ab,
			      cases[i].cls, want);
		ck_assert_int_eq(ki.rule, RULE_INDUCTOR);
		kernel_info_clear(&ki);
	}
	classifier_free(c);
}
END_TEST

/* A library's namespace is no evidence of what its kernels do: a kernel no rule knows is Other
 * in every library's namespace ("fbgemm_gpu::" holds "gemm", and held a permute's class),
 * whether demangled, mangled or a launcher's functor, unless the library is named after its one
 * family (grouped_gemm::); a name's own words still decide after the namespace. */
START_TEST(test_library_namespaces)
{
	struct classifier *c = new_classifier(NULL);
	struct kernel_info ki;
	char name[512];

	for (size_t i = 0; i < classify_n_libraries; i++) {
		const char *ns = classify_libraries[i].ns;
		int want = classify_libraries[i].default_cls < CLASS_COUNT
				   ? classify_libraries[i].default_cls
				   : CLASS_OTHER;

		snprintf(name, sizeof name, "void %s::frobnicate_kernel<float>(float*, int)", ns);
		classify_kernel(c, name, NULL, NULL, &ki);
		ck_assert_msg(ki.cls == want, "%s: %s", name, class_name(ki.cls));
		kernel_info_clear(&ki);
		snprintf(name, sizeof name, "_ZN%zu%s17frobnicate_kernelIDF16bEEvPT_Tn", strlen(ns),
			 ns);
		classify_kernel(c, name, NULL, NULL, &ki);
		ck_assert_msg(ki.cls == want, "%s: %s", name, class_name(ki.cls));
		kernel_info_clear(&ki);
		snprintf(name, sizeof name, "void %s::silu_and_mul_kernel<float>(float*, int)", ns);
		classify_kernel(c, name, NULL, NULL, &ki);
		ck_assert_msg(ki.cls == CLASS_ACTIVATION, "%s: %s", name, class_name(ki.cls));
		kernel_info_clear(&ki);
	}
	classify_kernel(c,
			"void at::native::vectorized_elementwise_kernel<4, "
			"fbgemm_gpu::frobnicate_gpu(at::Tensor const&)::{lambda(float)#1}, "
			"std::array<char*, 2ul> >(int)",
			NULL, NULL, &ki);
	ck_assert_str_eq(class_name(ki.cls), "Elementwise");
	kernel_info_clear(&ki);
	classifier_free(c);
}
END_TEST

/* The explorer's short form of an Inductor kernel: kind, number, the ops that do work. */
START_TEST(test_inductor_ops_names)
{
	static const struct {
		const char *name, *want;
	} cases[] = {
		{ "triton_red_fused__to_copy__unsafe_view_add_embedding_mean_mul_pow_rsqrt_8",
		  "red#8 add+embedding+mean+mul+pow+rsqrt" },
		{ "triton_poi_fused__unsafe_view_mul_silu_9", "poi#9 mul+silu" },
		{ "triton_per_fused__softmax_amax_exp_sub_sum_0",
		  "per#0 softmax+amax+exp+sub+sum" },
		{ "triton_tem_fused_addmm_relu_5", "tem#5 addmm+relu" },
		{ "triton_tem_0", "tem#0" },
		{ "triton_poi_fused_index_select_add_3", "poi#3 index_select+add" },
		{ "triton_poi_fused_add_arange_unsqueeze_2", "poi#2 add+arange" },
		{ "triton_poi_fused__scaled_dot_product_cudnn_attention__to_copy_add_cos_4",
		  "poi#4 sdpa+add+cos" },
		{ "triton_poi_fused_expand_unsqueeze_1", "poi#1 expand+unsqueeze" },
		{ "triton_poi_fused_unknownop", "poi unknownop" },
		{ "triton_red_fused__0", "red#0" },
		{ "triton_poi_fused_", "poi" },
	};
	struct classifier *c = new_classifier(NULL);
	struct kernel_info ki;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		classify_kernel(c, cases[i].name, NULL, NULL, &ki);
		ck_assert_msg(ki.ops_name && strcmp(ki.ops_name, cases[i].want) == 0,
			      "%s: got \"%s\", want \"%s\"", cases[i].name,
			      ki.ops_name ? ki.ops_name : "(null)", cases[i].want);
		kernel_info_clear(&ki);
	}
	/* other kernels keep their short name */
	classify_kernel(c, "triton_unknown_kind_1", NULL, NULL, &ki);
	ck_assert_ptr_null(ki.ops_name);
	kernel_info_clear(&ki);
	classify_kernel(c, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x3_nn", NULL,
			NULL, &ki);
	ck_assert_ptr_null(ki.ops_name);
	kernel_info_clear(&ki);
	classifier_free(c);
}
END_TEST

START_TEST(test_names_and_atoms)
{
	char buf[256];

	for (int c = 0; c < CLASS_COUNT; c++)
		ck_assert_int_eq(class_from_name(class_name(c)), c);
	ck_assert_int_eq(class_from_name("kv_write"), CLASS_KV_WRITE);
	ck_assert_int_eq(class_from_name("moe_gemm"), CLASS_MOE_GEMM);
	ck_assert_int_eq(class_from_name("MoE-routing"), CLASS_MOE_ROUTING);
	ck_assert_int_eq(class_from_name("gemm"), CLASS_GEMM);
	ck_assert_int_eq(class_from_name("gem"), -1);
	for (int a = 0; a < ATOM_COUNT; a++)
		ck_assert_int_eq(atom_from_name(atom_name(a), strlen(atom_name(a))), a);
	ck_assert_int_eq(atom_from_name("rmsnormx", 7), ATOM_RMSNORM);
	ck_assert_int_eq(atom_from_name("rms", 3), -1);
	ck_assert_str_eq(atoms_format(0, "+", buf, sizeof buf), "-");
	ck_assert_str_eq(
		atoms_format(ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_RMSNORM) | ATOM_BIT(ATOM_QUANT),
			     "+", buf, sizeof buf),
		"rmsnorm+add+quant");
	ck_assert_str_eq(
		atoms_format(ATOM_BIT(ATOM_SILU) | ATOM_BIT(ATOM_MUL), ", ", buf, sizeof buf),
		"mul, silu");
	/* truncation keeps whole atom names */
	ck_assert_str_eq(atoms_format(ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_RMSNORM), "+", buf, 12),
			 "rmsnorm+add");
	ck_assert_str_eq(atoms_format(ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_RMSNORM), "+", buf, 11),
			 "rmsnorm");
}
END_TEST

/* User rules come before the built-in table and the Inductor decoder. */
START_TEST(test_user_rules_override)
{
	struct classifier *c = new_classifier(test_path("tests/data/rules/override.rules"));
	struct kernel_info ki;

	classify_kernel(c, "nvjet_sm90_tst_176x128_64x5_1x2_h_bz_TNN", "aten::mm", NULL, &ki);
	ck_assert_str_eq(class_name(ki.cls), "Attention");
	ck_assert_int_eq(ki.decode_attn, 1);
	ck_assert_int_eq(ki.rule, 0);
	ck_assert_ptr_nonnull(strstr(classifier_rule_text(c, ki.rule), "override.rules:4: /"));
	kernel_info_clear(&ki);
	/* other nvjet kernels keep the built-in rule */
	classify_kernel(c, "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT", "aten::mm", NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_GEMM);
	ck_assert_ptr_nonnull(strstr(classifier_rule_text(c, ki.rule), "built-in: /"));
	kernel_info_clear(&ki);
	/* patterns are case-insensitive; several atoms */
	classify_kernel(c, "My_Expert_Kernel_bf16", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_MOE_GEMM);
	ck_assert_uint_eq(ki.atoms, ATOM_BIT(ATOM_MOE_GEMM) | ATOM_BIT(ATOM_GEMM));
	kernel_info_clear(&ki);
	/* op= restricts to a launching operator */
	classify_kernel(c, "my_cache_writer_kernel", "vllm::unified_attention_with_output", NULL,
			&ki);
	ck_assert_int_eq(ki.cls, CLASS_KV_WRITE);
	kernel_info_clear(&ki);
	classify_kernel(c, "my_cache_writer_kernel", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_OTHER);
	ck_assert_int_eq(ki.rule, RULE_NONE);
	kernel_info_clear(&ki);
	/* prim= and aux */
	classify_kernel(c, "my_custom_mul_kernel", NULL, NULL, &ki);
	ck_assert_str_eq(ki.prim, "mul");
	kernel_info_clear(&ki);
	classify_kernel(c, "void my_gemm_epilogue<float>(float*)", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_GEMM);
	ck_assert_int_eq(ki.aux, 1);
	kernel_info_clear(&ki);
	classifier_free(c);
}
END_TEST

/* The per-user rules file the program passes in is read; --rules comes before it; a missing
 * one is no error; the library looks for none by itself (tests/sh/rules.sh: the program finds
 * it through XDG_CONFIG_HOME or HOME). */
START_TEST(test_default_rules_file)
{
	struct classifier *c = NULL;
	struct fd_error err = { { 0 } };
	struct kernel_info ki;
	char user[4096];

	snprintf(user, sizeof user, "%s", test_path("tests/data/rules/xdg/fusediff/rules"));
	/* the environment says nothing to the library */
	setenv("XDG_CONFIG_HOME", test_path("tests/data/rules/xdg"), 1);
	ck_assert_int_eq(classifier_new(&c, NULL, NULL, &err), 0);
	ck_assert_ptr_null(classifier_user_path(c));
	classify_kernel(c, "nvjet_sm90_tst_176x128_64x5_1x2_h_bz_TNN", NULL, NULL, &ki);
	ck_assert_int_ne(ki.cls, CLASS_SAMPLING);
	kernel_info_clear(&ki);
	classifier_free(c);
	unsetenv("XDG_CONFIG_HOME");

	ck_assert_int_eq(classifier_new(&c, NULL, user, &err), 0);
	ck_assert_str_eq(classifier_user_path(c), user);
	classify_kernel(c, "nvjet_sm90_tst_176x128_64x5_1x2_h_bz_TNN", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_SAMPLING);
	kernel_info_clear(&ki);
	classifier_free(c);

	/* --rules wins over the per-user file */
	ck_assert_int_eq(
		classifier_new(&c, test_path("tests/data/rules/override.rules"), user, &err), 0);
	classify_kernel(c, "nvjet_sm90_tst_176x128_64x5_1x2_h_bz_TNN", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_ATTENTION);
	kernel_info_clear(&ki);
	/* ... and the per-user file still applies where --rules says nothing */
	classify_kernel(c, "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_OTHER);
	kernel_info_clear(&ki);
	classifier_free(c);

	/* a per-user file that is not there: no error */
	ck_assert_int_eq(classifier_new(&c, NULL, "/nonexistent-home/.config/fusediff/rules", &err),
			 0);
	classifier_free(c);
}
END_TEST

static void expect_error(const char *file, const char *want)
{
	struct classifier *c = NULL;
	struct fd_error err = { { 0 } };
	char path[4096], msg[8192];

	snprintf(path, sizeof path, "%s", test_path(file));
	ck_assert_int_eq(classifier_new(&c, path, NULL, &err), -1);
	ck_assert_ptr_null(c);
	snprintf(msg, sizeof msg, "%s: %s", path, want);
	ck_assert_msg(strncmp(err.msg, msg, strlen(msg)) == 0, "got \"%s\", want \"%s\"", err.msg,
		      msg);
}

START_TEST(test_bad_rules)
{
	expect_error("tests/data/rules/bad_class.rules", "line 5: unknown class 'gem'");
	expect_error("tests/data/rules/bad_atom.rules", "line 1: unknown atom 'addd'");
	expect_error("tests/data/rules/bad_regex.rules",
		     "line 2: bad regular expression '(nvjet': ");
	expect_error("tests/data/rules/bad_flag.rules",
		     "line 1: unknown flag 'auxx' (expected aux, decode, op=REGEX or prim=NAME)");
	expect_error("tests/data/rules/short_line.rules",
		     "line 1: expected CLASS ATOMS REGEX [FLAGS], got 'GEMM'");
	expect_error("tests/data/rules/missing.rules", "No such file or directory");
}
END_TEST

/* Display names: demangled, short, distinguishing (tests/data/classify/short_names.tsv). */
START_TEST(test_short_names)
{
	struct classifier *c = new_classifier(NULL);
	FILE *fp = fopen(test_path("tests/data/classify/short_names.tsv"), "r");
	char *line = NULL;
	size_t cap = 0;
	int checked = 0;

	ck_assert_ptr_nonnull(fp);
	while (getline(&line, &cap, fp) > 0) {
		char *f[3], *p = line;
		struct kernel_info ki;
		int nf = 0;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		while (nf < 3 && (f[nf] = strsep(&p, "\t")))
			nf++;
		ck_assert_int_eq(nf, 3);
		classify_kernel(c, f[2], strcmp(f[1], "-") ? f[1] : NULL, NULL, &ki);
		ck_assert_str_eq(ki.short_name, f[0]);
		kernel_info_clear(&ki);
		checked++;
	}
	ck_assert_int_ge(checked, 10);
	free(line);
	fclose(fp);
	classifier_free(c);
}
END_TEST

/* Bad input never crashes: huge names, names that defeat the demangler, empty names. */
START_TEST(test_hostile_names)
{
	struct classifier *c = new_classifier(NULL);
	size_t n = 1 << 20;
	char *big = xmalloc(n + 1);
	struct kernel_info ki;

	memset(big, 'a', n);
	memcpy(big, "_ZN", 3);
	big[n] = '\0';
	classify_kernel(c, big, NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_OTHER);
	ck_assert_ptr_nonnull(ki.short_name);
	kernel_info_clear(&ki);
	memset(big, '<', n);
	classify_kernel(c, big, "", NULL, &ki);
	ck_assert_ptr_nonnull(ki.short_name);
	kernel_info_clear(&ki);
	classify_kernel(c, "", NULL, NULL, &ki);
	ck_assert_int_eq(ki.cls, CLASS_OTHER);
	kernel_info_clear(&ki);
	classify_kernel(c, "_Z", "aten::", NULL, &ki);
	kernel_info_clear(&ki);
	classify_kernel(c, "triton_poi_fused_", NULL, NULL, &ki);
	kernel_info_clear(&ki);
	classify_kernel(c, "triton_red_fused__0", NULL, NULL, &ki);
	kernel_info_clear(&ki);
	free(big);
	classifier_free(c);
}
END_TEST

/* Every built-in pattern has a literal in each alternative, so that the prefilter keeps
 * regexec() off the names that cannot match (classification costs a few microseconds a name);
 * the literals of some patterns, and exact forms found without regexec(). */
/* The built-in patterns are compiled when a name first needs them (rules.c): each must compile,
 * or the first trace with such a name would end the program. */
static void assert_compiles(const char *what, size_t i, const char *pattern)
{
	regex_t re;
	char msg[256];

	if (!pattern)
		return;
	ck_assert_msg(rules_compile(&re, pattern, msg, sizeof msg) == 0, "%s %zu: /%s/: %s", what,
		      i, pattern, msg);
	regfree(&re);
}

/* Classifiers built on several threads at once (the ranks of a directory each open a session
 * on a thread of its own): the built-in chains were cut into fields by strtok(), whose state is
 * the process's, and one thread's fields ended up in another's line ("built-in #7: unknown flag
 * 'kv_write'", then abort()). The chains alone, many times over on each thread, so that the
 * threads' parses meet; then whole classifiers. */
static void *build_chains(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		struct fusible_chain *v = NULL;
		size_t n = 0, cap = 0;

		chains_add_builtin(&v, &n, &cap); /* abort()s when a line parses wrong */
		chains_free(v, n);
	}
	for (int i = 0; i < 5; i++) {
		struct classifier *c = NULL;
		struct fd_error err = { { 0 } };

		if (classifier_new(&c, NULL, NULL, &err) < 0)
			return arg; /* (a failure: not NULL) */
		classifier_free(c);
	}
	return NULL;
}

START_TEST(test_classifiers_on_threads)
{
	pthread_t th[4];

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, build_chains, th), 0);
	for (int i = 0; i < 4; i++) {
		void *ret;

		ck_assert_int_eq(pthread_join(th[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
}
END_TEST

START_TEST(test_builtin_patterns_compile)
{
	for (size_t i = 0; i < classify_n_name_rules; i++) {
		assert_compiles("name rule", i, classify_name_rules[i].pattern);
		assert_compiles("name rule op", i, classify_name_rules[i].op);
	}
	for (size_t i = 0; i < classify_n_op_rules; i++) {
		assert_compiles("op rule", i, classify_op_rules[i].pattern);
		assert_compiles("op rule op", i, classify_op_rules[i].op);
	}
	for (size_t i = 0; i < classify_n_module_rules; i++)
		assert_compiles("module rule", i, classify_module_rules[i].pattern);
	for (size_t l = 0; l < classify_n_libraries; l++)
		for (size_t i = 0; i < classify_libraries[l].n_rules; i++) {
			assert_compiles(classify_libraries[l].ns, i,
					classify_libraries[l].rules[i].pattern);
			assert_compiles(classify_libraries[l].ns, i,
					classify_libraries[l].rules[i].op);
		}
	for (size_t i = 0; i < classify_n_modifiers; i++)
		assert_compiles("modifier", i, classify_modifiers[i].pattern);
}
END_TEST

START_TEST(test_rule_literals)
{
	static const struct {
		const char *pattern;
		int n, exact;
		const char *first;
	} cases[] = {
		{ "add_?rms_?norm", 4, 1, "addrmsnorm" },
		{ "^Cijk_", 1, 1, "cijk_" },
		{ "rms_?norm[a-z0-9_]*quant", 2, 0, "rmsnorm" },
		{ "(^|[^a-z])exp2?_kernel", 2, 0, "exp_kernel" },
		{ "nccl|rccl", 2, 1, "nccl" },
	};
	struct pat_literal *l;
	ssize_t n;

	for (size_t i = 0; i < classify_n_name_rules; i++) {
		n = pattern_literals(classify_name_rules[i].pattern, &l);
		ck_assert_msg(n > 0, "name rule %zu has an alternative without a literal: /%s/", i,
			      classify_name_rules[i].pattern);
		pattern_literals_free(l, (size_t)n);
	}
	for (size_t i = 0; i < classify_n_modifiers; i++) {
		n = pattern_literals(classify_modifiers[i].pattern, &l);
		ck_assert_msg(n > 0, "modifier %zu has an alternative without a literal: /%s/", i,
			      classify_modifiers[i].pattern);
		pattern_literals_free(l, (size_t)n);
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = pattern_literals(cases[i].pattern, &l);
		ck_assert_int_eq(n, cases[i].n);
		ck_assert_int_eq(l[0].exact, cases[i].exact);
		ck_assert_str_eq(l[0].text, cases[i].first);
		pattern_literals_free(l, (size_t)n);
	}
	ck_assert_int_eq(pattern_literals("(a|b)x", &l), -1);
}
END_TEST

static Suite *classify_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *kc = tcase_create("kernels"), *tc = tcase_create("traces");

	tcase_add_test(kc, test_names_and_atoms);
	tcase_add_test(kc, test_real_names);
	tcase_add_test(kc, test_inductor_names);
	tcase_add_test(kc, test_inductor_shapes);
	tcase_add_test(kc, test_inductor_ops_names);
	tcase_add_test(kc, test_short_names);
	tcase_add_test(kc, test_library_namespaces);
	tcase_add_test(kc, test_hostile_names);
	tcase_add_test(kc, test_user_rules_override);
	tcase_add_test(kc, test_default_rules_file);
	tcase_add_test(kc, test_bad_rules);
	suite_add_tcase(s, kc);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_other_share, 0, sizeof traces / sizeof traces[0]);
	tcase_add_test(tc, test_other_share_large);
	tcase_add_test(tc, test_sglang_pair_symmetric);
	tcase_add_test(tc, test_hf_pairs_symmetric);
	tcase_add_test(tc, test_moe_router);
	tcase_add_test(tc, test_order_of_evidence);
	tcase_add_test(tc, test_moe_routing_context);
	tcase_add_test(tc, test_links_that_hold);
	tcase_add_test(tc, test_builtin_patterns_compile);
	tcase_add_test(tc, test_classifiers_on_threads);
	tcase_add_test(tc, test_rule_literals);
	tcase_add_test(tc, test_one_name_one_class);
	tcase_add_test(tc, test_inductor_trace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(classify_suite());
}
