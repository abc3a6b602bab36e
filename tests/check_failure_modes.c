/* check_failure_modes.c — the known failure modes of earlier tools, one test each,
 * showing that fusediff does not have them:
 *   - only legacy execute_context... annotations recognised: no phases on current vLLM/SGLang
 *     traces;
 *   - CPU annotation times compared with GPU kernel times;
 *   - layers split only at vendor-specific attention names: ROCm paged attention gave one giant
 *     layer, and everything before the first attention kernel was dropped;
 *   - kernels paired by equal index within a layer: one extra kernel shifts every later pair
 *     and invents fusions;
 *   - NVIDIA cuBLAS/CUTLASS GEMMs classified Other while AMD GEMMs were GEMM;
 *   - sums mixed with averages across different pass counts;
 *   - unquoted CSV;
 *   - empty fusion sections because of label mismatches.
 * (The last one, 17 s for a 919 MB trace, is measured by the benchmarks in bench/, not here.) */
#include "acceptance.h"
#include "fusediff/align.h"
#include "jtrace.h"

#include "fusediff/report.h"

#define MI300X	 "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"
#define B300	 "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"
#define EAGER	 "llama8l_eager_sdpa.json.gz"
#define COMPILED "llama8l_compiled_sdpa.json.gz"

static struct classifier *cl;

static void setup(void)
{
	cl = test_classifier();
}

static void teardown(void)
{
	classifier_free(cl);
}

static void build_side(struct side *s, const struct trace *t)
{
	struct fd_error err = { { 0 } };
	struct side_opts so = { 0 };

	ck_assert_msg(side_build(s, t, cl, &so, &err) == 0, "%s", err.msg);
}

/* Two passes of 3 layers annotated with names[0] and names[1] (CPU ranges, as record_function
 * writes them). */
static struct trace *two_annotated_passes(const char *first, const char *second)
{
	struct jbuf b = { .first = 1 };
	double gpu = 5000;

	jevent(&b, "user_annotation", first, 1, 1, 0, 100, "\"External id\":900001");
	jpass(&b, 3, 10, &gpu, 7);
	gpu += 100;
	jevent(&b, "user_annotation", second, 1, 1, 200, 100, "\"External id\":900002");
	jpass(&b, 3, 210, &gpu, 7);
	return jload(&b);
}

/* Current annotation names give phases, not only the legacy execute_context... form. */
START_TEST(test_current_annotation_names)
{
	static const struct {
		const char *first, *second;
		int phase[2];
	} c[] = {
		/* vLLM / TensorRT-LLM style, request counts per kind */
		{ "execute_4_context_4(sq512sk512)_generation_0(sq0sk0)",
		  "execute_4_context_0(sq0sk0)_generation_4(sq4sk513)",
		  { PHASE_PREFILL, PHASE_DECODE } },
		/* SGLang forward modes */
		{ "step[EXTEND bs=4]", "step[DECODE bs=4]", { PHASE_PREFILL, PHASE_DECODE } },
		{ "step[MIXED bs=4]", "step[DECODE bs=4]", { PHASE_MIXED, PHASE_DECODE } },
		/* plain record_function names */
		{ "prefill", "decode", { PHASE_PREFILL, PHASE_DECODE } },
		/* the legacy form still works */
		{ "execute_context_4(512)_generation_0(0)",
		  "execute_context_0(0)_generation_4(4)",
		  { PHASE_PREFILL, PHASE_DECODE } },
	};
	struct side s;
	struct trace *t;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		t = two_annotated_passes(c[i].first, c[i].second);
		build_side(&s, t);
		ck_assert_msg(s.n_passes == 2, "%s: %zu passes", c[i].first, s.n_passes);
		for (int p = 0; p < 2; p++)
			ck_assert_msg(s.passes[p].phase == c[i].phase[p], "%s: pass %d is %s",
				      p ? c[i].second : c[i].first, p,
				      phase_name((enum phase)s.passes[p].phase));
		side_clear(&s);
		trace_free(t);
	}
	/* a real SGLang trace: execute_16_context_0(...)_generation_16(...) is a decode step */
	t = test_load(test_trace(B300));
	build_side(&s, t);
	acc_assert_passes(&s, 0, 1);
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* CPU annotation times are never compared with GPU kernel times: kernels that run 10 s after
 * their CPU ranges belong to them (through the launch's correlation id), and a kernel launched
 * between the ranges is in no pass although its GPU time falls inside the first CPU range. */
START_TEST(test_cpu_times_not_compared_with_gpu_times)
{
	struct jbuf b = { .first = 1 };
	double gpu = 10e6;
	struct trace *t;
	struct side s;

	jevent(&b, "user_annotation", "prefill", 1, 1, 0, 100, "\"External id\":900001");
	jpass(&b, 3, 10, &gpu, 7);
	jkernel(&b, "argmax_kernel", 150, 50, 7); /* launched between, runs "during" prefill */
	gpu += 100;
	jevent(&b, "user_annotation", "decode", 1, 1, 200, 100, "\"External id\":900002");
	jpass(&b, 3, 210, &gpu, 7);
	t = jload(&b);
	build_side(&s, t);
	ck_assert_uint_eq(s.n_passes, 2);
	for (size_t p = 0; p < 2; p++) {
		ck_assert_uint_eq(s.passes[p].n, 1 + 3 * 8 + 2);
		ck_assert_uint_eq(s.passes[p].n_layers, 3);
	}
	ck_assert_uint_eq(s.n_unassigned, 1);
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* ROCm paged attention (QKV + reduce kernels, named nothing like flash/fmha) anchors the same
 * 32 layers as NVIDIA's fmha, and nothing before the first attention kernel is dropped: every
 * kernel is in a pass or counted outside, and the first layer holds its input norm, QKV GEMM,
 * RoPE and KV write before the attention. */
START_TEST(test_rocm_layers_and_nothing_dropped)
{
	static const char *const files[] = { MI300X, B300, EAGER, COMPILED };
	struct trace *t = test_load(test_trace(files[_i]));
	struct side s;

	build_side(&s, t);
	ck_assert_uint_eq(s.n_order + s.n_unassigned, t->n_kernels);
	for (size_t p = 0; p < s.n_passes; p++) {
		const struct pass *ps = &s.passes[p];
		const struct layer *l0 = &s.layers[ps->layer_first + 1];
		uint32_t before = 0, gemm = 0, attn = 0, kernels = 0;

		ck_assert_uint_eq(ps->n_layers, _i < 2 ? 32 : 8);
		for (uint32_t j = 0; j < l0->step_n && !attn; j++) {
			const struct step *st = &s.steps[l0->step_first + j];

			attn = st->cls == CLASS_ATTENTION;
			gemm += st->cls == CLASS_GEMM;
			before += !attn;
		}
		ck_assert_msg(attn && gemm >= 1 && before >= 3,
			      "%s pass %zu: layer 0 has %u steps, %u GEMMs before its attention",
			      files[_i], p, before, gemm);
		ck_assert_uint_eq(s.steps[l0->step_first].cls, CLASS_NORM);
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &s.layers[ps->layer_first + l];

			for (uint32_t j = 0; j < ly->step_n; j++)
				kernels += s.steps[ly->step_first + j].n;
		}
		ck_assert_uint_eq(kernels, ps->n);
	}
	side_clear(&s);
	trace_free(t);
}
END_TEST

/* A hand-written pair: A is 3 layers; B is the same with one extra kernel in layer 1 after the
 * QKV GEMM. Exactly one b_only pair; every other pair a match of the same kernels; no fusion. */
START_TEST(test_extra_kernel_shifts_nothing)
{
	struct jbuf b = { .first = 1 };
	struct trace *t[2];
	struct session *ses;
	const struct comparison *c;
	unsigned extra = 0;

	const size_t per_layer = sizeof layer_kernels / sizeof layer_kernels[0];

	for (int side = 0; side < 2; side++) {
		double gpu = 5000, cpu = 10;

		jevent(&b, "user_annotation", "prefill", 1, 1, 0, 1000, "\"External id\":900001");
		jkernel(&b, "indexSelectLargeIndex_embedding", cpu++, gpu += 10, 7);
		for (int l = 0; l < 3; l++)
			for (size_t i = 0; i < per_layer; i++) {
				jkernel(&b, layer_kernels[i], cpu++, gpu += 10, 7);
				if (side == 1 && l == 1 && i == 1)
					jkernel(&b, "direct_copy_kernel_cuda<float>", cpu++,
						gpu += 10, 7);
			}
		jkernel(&b, "fused_add_rms_norm_kernel", cpu++, gpu += 10, 7);
		jkernel(&b, "nvjet_lm_head_gemm", cpu++, gpu += 10, 7);
		t[side] = jload(&b);
	}
	ses = test_session(t[0], t[1], cl);
	c = test_compare(ses, -1);
	ck_assert_uint_eq(c->n_fusions, 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (p->kind == PAIR_B_ONLY) {
			ck_assert_int_eq(comparison_layer_index(c, p->layer), 1);
			extra++;
			continue;
		}
		ck_assert_msg(p->kind == PAIR_MATCH, "layer %d position %u: %s",
			      comparison_layer_index(c, p->layer), p->position,
			      pair_kind_name(p->kind));
		ck_assert_str_eq(acc_name(c, 0, p->side[0].names[0]),
				 acc_name(c, 1, p->side[1].names[0]));
	}
	ck_assert_uint_eq(extra, 1);
	session_close(ses);
	trace_free(t[0]);
	trace_free(t[1]);
}
END_TEST

/* Kernels names[0..n) launched by one operator op (one External id), one after the other. */
static void jkernels_one_op(struct jbuf *b, const char *op, const char *const *names, size_t n,
			    double *cpu, double *gpu)
{
	char args[256];
	int64_t ext = ++b->ext;

	snprintf(args, sizeof args, "\"External id\":%lld", (long long)ext);
	jevent(b, "cpu_op", op, 1, 1, *cpu, 0.5 + (double)n, args);
	for (size_t i = 0; i < n; i++) {
		b->corr++;
		snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld",
			 (long long)b->corr, (long long)ext);
		jevent(b, "cuda_runtime", "hipLaunchKernel", 1, 1, *cpu + 0.2 + (double)i, 0.5,
		       args);
		snprintf(args, sizeof args,
			 "\"device\":0,\"stream\":7,\"correlation\":%lld,\"External id\":%lld",
			 (long long)b->corr, (long long)ext);
		jevent(b, "kernel", names[i], 0, 7, *gpu += 10, 5, args);
	}
	*cpu += 1 + (double)n;
}

#define CUDNN_CONV                                                               \
	"sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_" \
	"tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel"

#define QKNORM                                                                             \
	"void (anonymous namespace)::qknorm_kernel<128, false, __nv_bfloat16>((anonymous " \
	"namespace)::QKNormParams)"

/* Two traces of one annotated pass (phase) of 4 layers of layer_kernels, kernel `after` of each
 * layer followed by what insert() launches for that side (0: A, 1: B). */
static void layered_pair(struct trace *t[2], const char *phase, size_t after,
			 void (*insert)(struct jbuf *b, int side, double *cpu, double *gpu))
{
	struct jbuf b = { .first = 1 };

	for (int side = 0; side < 2; side++) {
		double gpu = 5000, cpu = 10;

		jevent(&b, "user_annotation", phase, 1, 1, 0, 1000, "\"External id\":900001");
		jkernel(&b, "indexSelectLargeIndex_embedding", cpu++, gpu += 10, 7);
		for (int l = 0; l < 4; l++)
			for (size_t i = 0; i < sizeof layer_kernels / sizeof layer_kernels[0];
			     i++) {
				jkernel(&b, layer_kernels[i], cpu++, gpu += 10, 7);
				if (i == after)
					insert(&b, side, &cpu, &gpu);
			}
		jkernel(&b, "fused_add_rms_norm_kernel", cpu++, gpu += 10, 7);
		jkernel(&b, "nvjet_lm_head_gemm", cpu++, gpu += 10, 7);
		t[side] = jload(&b);
	}
}

/* The fusion of c whose evidence names `kernel` (fails the test when there is none), and no
 * pair one-sided. */
static const struct comparison_fusion *fusion_naming(const struct comparison *c, const char *kernel)
{
	const struct comparison_fusion *f = NULL;

	for (size_t i = 0; i < c->n_fusions; i++)
		if (strstr(c->fusions[i].evidence, kernel))
			f = &c->fusions[i];
	ck_assert_msg(f != NULL, "no fusion names %s (%zu fusions)", kernel, c->n_fusions);
	for (size_t i = 0; i < c->n_pairs; i++)
		ck_assert_msg(c->pairs[i].kind != PAIR_A_ONLY && c->pairs[i].kind != PAIR_B_ONLY,
			      "pair %zu is one-sided", i);
	return f;
}

static void insert_conv(struct jbuf *b, int side, double *cpu, double *gpu)
{
	static const char *const miopen[] = {
		"Im2d2Col", "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8",
		"Im2d2Col", "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8"
	};
	static const char *const cudnn[] = { CUDNN_CONV };

	if (side == 0)
		jkernels_one_op(b, "aten::miopen_convolution", miopen, 4, cpu, gpu);
	else
		jkernels_one_op(b, "aten::cudnn_convolution", cudnn, 1, cpu, gpu);
}

/* MIOpen's GEMM convolution (Im2d2Col then a Tensile GEMM, per image of the batch, one
 * aten::miopen_convolution) against one cuDNN implicit-GEMM convolution kernel: a fusion of
 * the four kernels into one in every layer, proved by the convolution's work; not a conv
 * match (im2col against the convolution) beside a GEMM that only A runs. */
START_TEST(test_im2col_gemm_is_a_fusion)
{
	struct trace *t[2];
	struct session *ses;
	const struct comparison_fusion *f;

	layered_pair(t, "prefill", 3, insert_conv); /* after the output projection */
	ses = test_session(t[0], t[1], cl);
	f = fusion_naming(test_compare(ses, -1), "sm80_xmma_fprop_implicit_gemm");
	ck_assert_int_eq(f->cls, CLASS_CONV);
	ck_assert_int_eq(f->fused_side, SIDE_B);
	ck_assert_int_eq(f->partial, 0);
	ck_assert_uint_eq(f->per_place, 4);
	ck_assert_int_eq(f->proof, PROOF_CLASS_WORK);
	ck_assert_msg(strstr(f->evidence, "runs 4 kernels for the same work (Im2d2Col, Cijk_") &&
			      strstr(f->evidence, "4 times per pass in layers 0-3"),
		      "%s", f->evidence);
	session_close(ses);
	trace_free(t[0]);
	trace_free(t[1]);
}
END_TEST

static void insert_qk_norms(struct jbuf *b, int side, double *cpu, double *gpu)
{
	static const char *const copy =
		"void at::native::elementwise_kernel_manual_unroll<128, 8, "
		"at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>(int)";

	if (side == 1) {
		jkernel_op(b, QKNORM, "sglang::fused_inplace_qknorm", (*cpu)++, *gpu += 10, 7);
		return;
	}
	for (int qk = 0; qk < 2; qk++) {
		jkernel_op(b, copy, "aten::copy_", (*cpu)++, *gpu += 10, 7);
		jkernel_op(b, "void vllm::rms_norm_kernel<c10::BFloat16, 8>(int)",
			   "sglang::rmsnorm", (*cpu)++, *gpu += 10, 7);
	}
}

/* Qwen3's q and k norms, each after a strided .contiguous() copy (SGLang on MI300X), against one
 * kernel that normalises q and k in place: one fusion per layer whose evidence lists the two
 * copies and the norm kernel, 4 kernels at each place, whole counts. */
START_TEST(test_qk_norm_fusion_lists_copies)
{
	struct trace *t[2];
	struct session *ses;
	const struct comparison_fusion *f;

	layered_pair(t, "decode", 1, insert_qk_norms); /* after the QKV projection */
	ses = test_session(t[0], t[1], cl);
	f = fusion_naming(test_compare(ses, -1), "qknorm_kernel");
	ck_assert_int_eq(f->fused_side, SIDE_B);
	ck_assert_uint_eq(f->per_place, 4);
	ck_assert_uint_eq(f->n_unfused, 2);
	ck_assert_msg(strstr(f->evidence, "runs 4 kernels for the same work") &&
			      strstr(f->evidence, "4 times per pass in layers 0-3"),
		      "%s", f->evidence);
	session_close(ses);
	trace_free(t[0]);
	trace_free(t[1]);
}
END_TEST

/* NVIDIA's cuBLAS, cuBLASLt and CUTLASS GEMMs are GEMM, as AMD's hipBLASLt/Tensile ones are:
 * on the HF Qwen1.5 and BERT pairs (H100 against MI300X) every layer has the same number of
 * GEMM pairs on both sides, all matched, and neither side has Other time worth a mention. */
START_TEST(test_nvidia_gemms_are_gemms)
{
	static const char *const names[] = {
		"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
		"execute_segment_k_off_kernel__5x_cublas",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn",
		"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_"
		"align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::"
		"Params)",
		"void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, "
		"4, false, false, cublasGemvParamsEx<int, cublasGemvTensor<__nv_bfloat16 const> > >"
		"(float, float)",
		"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x16x128_MI16x16x1_SN_WG16_4_4",
	};
	static const char *const pairs[][2] = {
		{ "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz",
		  "tracelens_qwen1.5-0.5b_hf_h100.json.gz" },
		{ "tracelens_bert-small_hf_mi300x.json.gz",
		  "tracelens_bert-small_hf_h100.json.gz" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct kernel_info ki;

		classify_kernel(cl, names[i], NULL, NULL, &ki);
		ck_assert_msg(ki.cls == CLASS_GEMM, "%s is %s", names[i], class_name(ki.cls));
		kernel_info_clear(&ki);
	}
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		struct trace *t[2] = { test_load(test_trace(pairs[i][0])),
				       test_load(test_trace(pairs[i][1])) };
		struct session *ses = test_session(t[0], t[1], cl);
		const struct comparison *c = test_compare(ses, -1);
		unsigned gemm = 0;

		for (size_t j = 0; j < c->n_pairs; j++) {
			const struct comparison_pair *p = &c->pairs[j];

			if (comparison_layer_index(c, p->layer) < 0 || p->cls != CLASS_GEMM)
				continue;
			/* (a workspace memset may come with the H100 GEMM: launches differ) */
			ck_assert_msg(p->kind == PAIR_MATCH, "%s: layer %d position %u: GEMM %s",
				      pairs[i][0], comparison_layer_index(c, p->layer), p->position,
				      pair_kind_name(p->kind));
			for (int s = 0; s < 2; s++)
				ck_assert_uint_eq(acc_info(c->side[s], p->side[s].names[0])->cls,
						  CLASS_GEMM);
			gemm++;
		}
		ck_assert_uint_ge(gemm, 4 * c->side[0]->layers_per_pass);
		for (int s = 0; s < 2; s++) {
			ck_assert(c->class_ns[s][CLASS_GEMM] > 0);
			ck_assert(c->side[s]->classes.other_share < 0.01);
		}
		session_close(ses);
		trace_free(t[0]);
		trace_free(t[1]);
	}
}
END_TEST

/* Figures are per pass of the compared phase, never a sum on one side against an average on
 * the other: the eager trace (16 decode passes) against its own first 5 passes (3 decode
 * passes) gives the same launches per pass in every pair, no fusion, and per-pass times within
 * a few percent; the self-comparison over all passes (18) stays exact. */
START_TEST(test_no_sums_against_averages)
{
	struct trace *t[2] = { test_load(test_trace(EAGER)),
			       test_load(test_path("tests/data/variants/eager-slim.json.gz")) };
	struct session *ses = test_session(t[0], t[1], cl);
	const struct comparison *c = test_compare(ses, PHASE_DECODE);

	ck_assert_uint_eq(c->passes[0], 16);
	ck_assert_uint_eq(c->passes[1], 3);
	ck_assert_uint_eq(c->n_fusions, 0);
	ck_assert_msg(fabs(c->ratio - 1) < 0.05, "per-pass B/A %.3f", c->ratio);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		ck_assert_msg(p->kind == PAIR_MATCH && p->side[0].count == p->side[1].count,
			      "layer %d position %u: %s, %g against %g launches per pass",
			      comparison_layer_index(c, p->layer), p->position,
			      pair_kind_name(p->kind), p->side[0].count, p->side[1].count);
	}
	for (size_t i = 0; i < c->n_layers; i++)
		ck_assert_msg(fabs(c->layers[i].ratio - 1) < 0.15, "layer %d: B/A %.3f",
			      c->layers[i].index, c->layers[i].ratio);
	session_close(ses);
	trace_free(t[1]);
	trace_free(t[0]);
}
END_TEST

static char *render(const struct comparison *c, enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_int_eq(report_write(out, c, f), 0);
	fclose(out);
	return buf;
}

/* CSV quotes every field with a comma, a quote or a line break (RFC 4180): the kernel names
 * of the real traces hold commas ("std::array<char*, 3ul>"). */
START_TEST(test_csv_quoted)
{
	struct trace *t[2] = { test_load(test_path("tests/data/report/names_a.json")),
			       test_load(test_path("tests/data/report/names_b.json")) };
	struct session *ses = test_session(t[0], t[1], cl);
	const struct comparison *c = test_compare(ses, -1);
	char *s = render(c, REPORT_CSV);
	int fields = 0;

	/* a name with a comma and quotes: one quoted field, inner quotes doubled */
	ck_assert_ptr_nonnull(strstr(s, "\"gemm_kernel<cutlass::half_t, 128, 64>(float, "
					"\"\"quoted\"\", a\\b)\""));
	/* every line parses into fields of the form RFC 4180 allows */
	for (const char *p = s; *p;) {
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p += *p == '"' ? 2 : 1)
				;
			ck_assert_msg(*p == '"', "unterminated quoted field");
			p++;
			ck_assert_msg(*p == ',' || *p == '\n' || !*p, "text after a quoted field");
		} else {
			while (*p && *p != ',' && *p != '\n') {
				ck_assert_msg(*p != '"', "a quote inside an unquoted field");
				p++;
			}
		}
		fields++;
		if (*p)
			p++;
	}
	ck_assert_int_gt(fields, 100);
	free(s);
	session_close(ses);
	trace_free(t[0]);
	trace_free(t[1]);
}
END_TEST

/* The fusion section lists every fusion whatever the labels: the default ones (both sides an
 * H200: file names), user labels, and the same label on both sides. */
START_TEST(test_no_empty_fusion_section)
{
	static const char *const labels[][2] = {
		{ NULL, NULL }, { "MI300X", "B300" }, { "run", "run" }, { "A", "B" }
	};
	struct trace *t[2] = { test_load(test_trace(EAGER)), test_load(test_trace(COMPILED)) };

	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		struct fd_error err = { { 0 } };
		struct session_opts so = { .classifier = cl,
					   .label = { labels[i][0], labels[i][1] } };
		struct session *ses;
		const struct comparison *c;
		char *txt, *md, head[64], *sec;

		ck_assert_int_eq(session_open_traces(&ses, t[0], t[1], &so, &err), 0);
		c = test_compare(ses, -1);
		ck_assert_uint_ge(c->n_fusions, 2);
		txt = render(c, REPORT_TEXT);
		md = render(c, REPORT_MD);
		snprintf(head, sizeof head, "Fusion differences (%zu)", c->n_fusions);
		ck_assert_ptr_nonnull(sec = strstr(txt, head));
		for (size_t f = 0; f < c->n_fusions; f++) {
			const char *e = strstr(txt, c->fusions[f].evidence);

			ck_assert_msg(e && e > sec, "label set %zu: fusion %zu missing", i, f);
		}
		ck_assert_ptr_nonnull(sec = strstr(md, head));
		for (size_t f = 1; f <= c->n_fusions; f++) {
			char item[16];

			snprintf(item, sizeof item, "\n%zu. ", f);
			ck_assert_msg(strstr(sec, item), "label set %zu: Markdown item %zu missing",
				      i, f);
		}
		free(txt);
		free(md);
		session_close(ses);
	}
	trace_free(t[0]);
	trace_free(t[1]);
}
END_TEST

static Suite *failure_modes_suite(void)
{
	Suite *s = suite_create("failure modes");
	TCase *tc = tcase_create("failure modes");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_current_annotation_names);
	tcase_add_test(tc, test_cpu_times_not_compared_with_gpu_times);
	tcase_add_loop_test(tc, test_rocm_layers_and_nothing_dropped, 0, 4);
	tcase_add_test(tc, test_extra_kernel_shifts_nothing);
	tcase_add_test(tc, test_nvidia_gemms_are_gemms);
	tcase_add_test(tc, test_no_sums_against_averages);
	tcase_add_test(tc, test_csv_quoted);
	tcase_add_test(tc, test_no_empty_fusion_section);
	tcase_add_test(tc, test_im2col_gemm_is_a_fusion);
	tcase_add_test(tc, test_qk_norm_fusion_lists_copies);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(failure_modes_suite());
}
