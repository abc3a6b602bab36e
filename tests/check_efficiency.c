/* check_efficiency.c — FLOPs and bytes of GEMM and attention operators counted by hand on shapes
 * recorded in real traces, the peak table and --peaks files, and the achieved figures.
 *
 * The Input Dims, Input type and Concrete Inputs below are copied from the shared traces (the
 * provenance of each is given with it; the files are described in ../shared/traces/SOURCES.md):
 * llama8l_eager_sdpa and llama8l_compiled_sdpa (Llama, 8 layers, hidden 2048, 16 heads / 4 KV
 * heads, FFN 5632, batch 4 x 512, H200), moe6l_eager_sdpa (Qwen3-MoE, 16 experts, top-4),
 * tracelens_qwen1.5-0.5b_hf_h100 (batch 16 x 559) and tracelens_xdit_sd3.5-large_infer_mi300x. */
#include "testutil.h"
#include "jtrace.h"

#include <math.h>

#include "fusediff/comparison.h"
#include "fusediff/efficiency.h"
#include "src/compare/compare_int.h"

static struct op_work work(const char *name, const char *dims, const char *types, const char *conc)
{
	struct op_work w;

	ck_assert_msg(eff_op_work(name, dims, types, conc, &w), "%s %s not modelled", name, dims);
	return w;
}

#define BF16X2 "[\"c10::BFloat16\",\"c10::BFloat16\"]"

/* llama8l_eager_sdpa: the gate projection, aten::mm [2048 x 2048] x [2048 x 5632] in bf16. */
START_TEST(test_mm)
{
	struct op_work w = work("aten::mm", "[[2048,2048],[2048,5632]]", BF16X2, "[\"\",\"\"]");

	/* 2 M N K = 2 * 2048 * 5632 * 2048 */
	ck_assert_double_eq(w.flops, 47244640256.0);
	/* (M K + K N + M N) * 2 bytes = (4194304 + 11534336 + 11534336) * 2 */
	ck_assert_double_eq(w.bytes, 54525952.0);
	ck_assert_int_eq(w.dtype, EFF_BF16);
	ck_assert_int_eq(w.kind, EFF_GEMM);
	ck_assert(w.m == 2048 && w.n == 5632 && w.k == 2048 && w.b == 1);
	/* llama8l_compiled_sdpa: Inductor's extern mm has the out tensor as a third input */
	w = work("aten::mm", "[[2048,2048],[2048,5632],[2048,5632]]",
		 "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\",\"\"]");
	ck_assert_double_eq(w.flops, 47244640256.0);
	ck_assert_double_eq(w.bytes, 54525952.0);
	/* aten::linear [4, 512, 2048] x [5632, 2048]^T: the same GEMM */
	w = work("aten::linear", "[[4,512,2048],[5632,2048],[]]",
		 "[\"c10::BFloat16\",\"c10::BFloat16\",\"\"]", NULL);
	ck_assert_double_eq(w.flops, 47244640256.0);
	ck_assert_double_eq(w.bytes, 54525952.0);
	/* no Input type (an NVTX trace): FLOPs, no bytes, no data type */
	w = work("aten::mm", "[[2048,2048],[2048,5632]]", NULL, NULL);
	ck_assert_double_eq(w.flops, 47244640256.0);
	ck_assert(w.bytes < 0);
	ck_assert_int_eq(w.dtype, EFF_DTYPE_UNKNOWN);
}
END_TEST

/* tracelens_qwen1.5-0.5b_hf_h100: aten::addmm, the o_proj with its bias. */
START_TEST(test_addmm)
{
	struct op_work w = work(
		"aten::addmm", "[[1024],[8944,1024],[1024,1024],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"1\",\"1\"]");

	/* 2 M N K + M N = 8944 * 1024 * (2 * 1024 + 1) */
	ck_assert_double_eq(w.flops, 18766086144.0);
	/* (M K + K N + N + M N) * 2 = (9158656 + 1048576 + 1024 + 9158656) * 2 */
	ck_assert_double_eq(w.bytes, 38733824.0);
	ck_assert(w.m == 8944 && w.n == 1024 && w.k == 1024);
}
END_TEST

/* tracelens_xdit_sd3.5-large_infer_mi300x: aten::bmm in the VAE's attention. */
START_TEST(test_bmm)
{
	struct op_work w = work("aten::bmm", "[[64,256,64],[64,64,256]]", BF16X2, "[\"\",\"\"]");

	/* B * 2 M N K = 64 * 2 * 256 * 256 * 64 */
	ck_assert_double_eq(w.flops, 536870912.0);
	/* B (M K + K N + M N) * 2 = 64 * (16384 + 16384 + 65536) * 2 */
	ck_assert_double_eq(w.bytes, 12582912.0);
	ck_assert(w.b == 64 && w.m == 256 && w.n == 256 && w.k == 64);
	/* aten::matmul of the same 3-D operands is the bmm */
	w = work("aten::matmul", "[[64,256,64],[64,64,256]]", BF16X2, NULL);
	ck_assert_double_eq(w.flops, 536870912.0);
	/* fp32 (the rotary embedding's inv_freq x position in llama8l_eager_sdpa) */
	w = work("aten::bmm", "[[1,64,1],[1,1,512]]", "[\"float\",\"float\"]", "[\"\",\"\"]");
	ck_assert_double_eq(w.flops, 2.0 * 64 * 512);
	ck_assert_double_eq(w.bytes, (64 + 512 + 64 * 512) * 4.0);
	ck_assert_int_eq(w.dtype, EFF_FP32);
}
END_TEST

/* moe6l_eager_sdpa: the experts' gate-up and down projections, aten::_grouped_mm over 16
 * experts of the 1024 tokens x top-4 = 4096 rows. */
START_TEST(test_grouped_gemm)
{
	struct op_work w = work("aten::_grouped_mm", "[[4096,1024],[16,1024,1024],[16],[],[]]",
				"[\"c10::BFloat16\",\"c10::BFloat16\",\"int\",\"\",\"\"]",
				"[\"\",\"\",\"\",\"\",\"\"]");

	/* 2 M K N = 2 * 4096 * 1024 * 1024 */
	ck_assert_double_eq(w.flops, 8589934592.0);
	/* (M K + G K N) * 2 + M N * 2 = (4194304 + 16777216) * 2 + 4194304 * 2 */
	ck_assert_double_eq(w.bytes, 50331648.0);
	ck_assert_int_eq(w.kind, EFF_GROUPED_GEMM);
	ck_assert(w.b == 16 && w.m == 4096 && w.n == 1024 && w.k == 1024);
	/* the down projection: K = 512 */
	w = work("aten::_grouped_mm", "[[4096,512],[16,512,1024],[16],[],[]]",
		 "[\"c10::BFloat16\",\"c10::BFloat16\",\"int\",\"\",\"\"]", NULL);
	ck_assert_double_eq(w.flops, 2.0 * 4096 * 512 * 1024);
	/* (4096 * 512 + 16 * 512 * 1024) * 2 + 4096 * 1024 * 2 = (2097152 + 8388608) * 2 + 8388608 */
	ck_assert_double_eq(w.bytes, 29360128.0);
}
END_TEST

#define CUDNN_TYPES                                                                         \
	"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"\",\"Scalar\"," \
	"\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]"

/* llama8l_eager_sdpa: cuDNN SDPA with is_causal (Concrete Inputs[10] of
 * aten::_cudnn_attention_forward), GQA: 16 query heads, 4 KV heads. */
START_TEST(test_sdpa_causal)
{
	struct op_work w = work("aten::_cudnn_attention_forward",
				"[[4,16,512,128],[4,4,512,128],[4,4,512,128],[],[],[],[],[],[],[],"
				"[],[],[]]",
				CUDNN_TYPES,
				"[\"\",\"\",\"\",\"\",\"\",\"\",\"512\",\"512\",\"False\",\"0.\","
				"\"True\",\"False\",\"0.088388347648318447\"]");

	/* B H_Q (2 N_Q N_KV d_qk + 2 N_Q N_KV d_v) / 2 = 4 * 16 * 2 * 512 * 512 * 256 / 2 */
	ck_assert_double_eq(w.flops, 4294967296.0);
	/* (B N_Q H_Q d + B N_KV H_KV (d + d) + B N_Q H_Q d) * 2
	 * = (4194304 + 2097152 + 4194304) * 2 */
	ck_assert_double_eq(w.bytes, 20971520.0);
	ck_assert_int_eq(w.causal, 1);
	ck_assert_int_eq(w.kind, EFF_ATTENTION);
	ck_assert(w.heads == 16 && w.kv_heads == 4 && w.m == 512 && w.n == 512 && w.k == 128);
	/* the SDPA entry point above it (is_causal is Concrete Inputs[5]) counts the same */
	w = work("aten::scaled_dot_product_attention",
		 "[[4,16,512,128],[4,4,512,128],[4,4,512,128],[],[],[],[],[]]",
		 "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\","
		 "\"Scalar\",\"Scalar\",\"Scalar\"]",
		 "[\"\",\"\",\"\",\"\",\"0.\",\"True\",\"0.088388347648318447\",\"True\"]");
	ck_assert_double_eq(w.flops, 4294967296.0);
	/* tracelens_qwen1.5-0.5b_hf_h100: flash attention, (batch, seq, heads, dim), causal in
	 * Concrete Inputs[8]: 16 * 16 * 2 * (559 * 559 / 2) * 128 */
	w = work("aten::_flash_attention_forward",
		 "[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[],[],[],[],[],"
		 "[]]",
		 "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"Scalar\","
		 "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"\",\"\"]",
		 "[\"\",\"\",\"\",\"\",\"\",\"559\",\"559\",\"0.\",\"True\",\"False\",\"0.125\","
		 "\"\","
		 "\"\",\"\",\"\"]");
	ck_assert_double_eq(w.flops, 10239377408.0);
	ck_assert_double_eq(w.bytes, 16.0 * 559 * 16 * 64 * 4 * 2);
	ck_assert(w.heads == 16 && w.m == 559 && w.k == 64);
	/* causal with a shorter query (not in a trace: TraceLens raises here). PyTorch's SDPA
	 * aligns the mask top-left: queries see 1 and 2 of 5 keys; flash-attn bottom-right: 4
	 * and 5. */
	w = work("aten::_scaled_dot_product_flash_attention",
		 "[[1,1,2,8],[1,1,5,8],[1,1,5,8],[],[],[],[]]", NULL,
		 "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]");
	ck_assert_double_eq(w.flops, 2.0 * (1 + 2) * 16);
	w = work("flash_attn::_flash_attn_forward", "[[1,2,1,8],[1,5,1,8],[1,5,1,8],[],[],[]]",
		 NULL, "[\"\",\"\",\"\",\"0.\",\"0.35\",\"True\"]");
	ck_assert_double_eq(w.flops, 2.0 * (4 + 5) * 16);
	/* the memory-efficient kernel's mask type (Concrete Inputs[9]): 1 top-left, 2 bottom-right */
	w = work("aten::_efficient_attention_forward", "[[1,2,1,8],[1,5,1,8],[1,5,1,8]]", NULL,
		 "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"1\"]");
	ck_assert_double_eq(w.flops, 2.0 * (1 + 2) * 16);
	w = work("aten::_efficient_attention_forward", "[[1,2,1,8],[1,5,1,8],[1,5,1,8]]", NULL,
		 "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"2\"]");
	ck_assert_double_eq(w.flops, 2.0 * (4 + 5) * 16);
	w = work("aten::_efficient_attention_forward", "[[1,2,1,8],[1,5,1,8],[1,5,1,8]]", NULL,
		 "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"0\"]");
	ck_assert_double_eq(w.flops, 2.0 * 10 * 16);
}
END_TEST

/* Not causal: llama8l_compiled_sdpa (Inductor passes the mask as a tensor, is_causal False) and
 * a decode step of llama8l_eager_sdpa (one query against 513 keys). */
START_TEST(test_sdpa_not_causal)
{
	struct op_work w = work(
		"aten::_cudnn_attention_forward",
		"[[4,16,512,128],[4,16,512,128],[4,16,512,128],[4,1,512,512],[],[],[],[],[],[],[],["
		"],"
		"[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\","
		"\"\","
		"\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"\",\"\",\"\",\"512\",\"512\",\"False\",\"0.\",\"False\","
		"\"False\","
		"\"0.088388347648318447\"]");

	/* 4 * 16 * 2 * 512 * 512 * 256: twice the causal figure (the mask is not looked at) */
	ck_assert_double_eq(w.flops, 8589934592.0);
	/* q, k, v, out: 4 * 4194304 elements * 2 bytes (the mask is not counted, as in TraceLens) */
	ck_assert_double_eq(w.bytes, 33554432.0);
	ck_assert_int_eq(w.causal, 0);
	w = work(
		"aten::_cudnn_attention_forward",
		"[[4,16,1,128],[4,4,513,128],[4,4,513,128],[],[],[],[],[],[],[],[],[],[]]",
		CUDNN_TYPES,
		"[\"\",\"\",\"\",\"\",\"\",\"\",\"1\",\"513\",\"False\",\"0.\",\"False\",\"False\","
		"\"0.088388347648318447\"]");
	/* 4 * 16 * 2 * 1 * 513 * 256 */
	ck_assert_double_eq(w.flops, 16809984.0);
	/* (4*1*16*128 + 4*513*4*128*2 + 4*1*16*128) * 2 */
	ck_assert_double_eq(w.bytes, 4235264.0);
}
END_TEST

START_TEST(test_not_modelled)
{
	struct op_work w;

	ck_assert(!eff_op_work("aten::add", "[[4,512],[4,512]]", BF16X2, NULL, &w));
	ck_assert(!eff_op_work("aten::mm", "[[4,512],[256,4]]", BF16X2, NULL, &w)); /* K differs */
	ck_assert(!eff_op_work("aten::mm", "[]", NULL, NULL, &w));
	ck_assert(!eff_op_work("aten::mm", "[[4,", NULL, NULL, &w)); /* cut short */
	ck_assert(!eff_op_work("aten::bmm", "[[2,4,8],[3,8,4]]", NULL, NULL, &w));
	ck_assert(!eff_op_work("aten::_cudnn_attention_forward",
			       "[[4,16,512,128],[4,4,512,64],"
			       "[4,4,512,128]]",
			       NULL, NULL, &w)); /* q and k head dimensions differ */
	ck_assert(!eff_op_work("triton_poi_fused_addmm_gelu_view_15", "[[2,4096,9728],[9728],[]]",
			       NULL, NULL, &w));
	/* hostile shapes: no overflow, no endless loop, no figure */
	ck_assert(!eff_op_work("aten::mm", "[[9223372036854775807,4,8],[8,2]]", NULL, NULL, &w));
	ck_assert(!eff_op_work("aten::mm", "[[-4,8],[8,2]]", NULL, NULL, &w));
	ck_assert(!eff_op_work("aten::matmul",
			       "[[3037000500,3037000500,4,8],[3037000500,3037000500,8,2]]", NULL,
			       NULL, &w));
	ck_assert(eff_op_work("aten::_scaled_dot_product_flash_attention",
			      "[[1,1,1000000000000,8],[1,1,3,8],[1,1,3,8]]", NULL,
			      "[\"\",\"\",\"\",\"0.\",\"True\"]", &w));
	/* top-left: 3 * 4 / 2 + (10^12 - 3) * 3 pairs */
	ck_assert_double_eq_tol(w.flops, 2.0 * 16 * (6 + (1e12 - 3) * 3), 1e3);
}
END_TEST

/* Every GPU of the shared traces (SOURCES.md: the device names their deviceProperties or
 * rocprofv3 agents give), and architecture + CU count when the name is missing. */
START_TEST(test_peak_lookup)
{
	static const struct {
		const char *name, *arch, *row;
	} cases[] = {
		{ "NVIDIA H200", NULL, "H200" },		   /* llama8l_*, llama3_8b */
		{ "NVIDIA H100 80GB HBM3", NULL, "H100 SXM" },	   /* tracelens_*_h100 */
		{ "NVIDIA B300 SXM6 AC", NULL, "B300" },	   /* tracelens_sglang_*_b300 */
		{ "NVIDIA A100-PG509-200", NULL, "A100 40GB" },	   /* hta_tracediff_control */
		{ "Tesla V100-SXM2-16GB", NULL, "V100 SXM2" },	   /* hta_tracediff_test */
		{ "AMD Instinct MI300X", NULL, "MI300X" },	   /* tracelens_*_mi300x */
		{ "AMD Instinct MI300X VF", NULL, "MI300X" },	   /* tracelens_qwen1.5, bert */
		{ "AMD Instinct MI210", NULL, "MI210" },	   /* tracelens_resnet18_gpuonly */
		{ "AMD Instinct MI350X", "gfx950:256", "MI350X" }, /* rocprof/aorta */
		{ "gfx942", "gfx942:304", "MI300X" },		   /* rocprofv3 without product */
		{ NULL, "gfx942:228", "MI300A" },
		{ "", "gfx950:256", "MI355X" },
		{ NULL, "sm90:132", "H100 SXM" },
		{ "NVIDIA H100 PCIe", NULL, "H100 PCIe" },
		{ "NVIDIA A100-SXM4-80GB", NULL, "A100 80GB SXM" },
		{ "NVIDIA A100 80GB PCIe", NULL, "A100 80GB PCIe" },
		{ "NVIDIA B200", NULL, "B200" },
		{ "NVIDIA GB200", NULL, "GB200" },
		{ "NVIDIA L40S", NULL, "L40S" },
		{ "AMD Instinct MI250X", NULL, "MI250X (one GCD)" },
		{ "AMD Instinct MI325X", NULL, "MI325X" },
		{ "AMD Instinct MI355X", NULL, "MI355X" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct gpu_peak *p = eff_find_peak(NULL, cases[i].name, cases[i].arch);

		ck_assert_msg(p, "no peaks for %s", cases[i].name ? cases[i].name : cases[i].arch);
		ck_assert_str_eq(p->name, cases[i].row);
		ck_assert(p->tbps > 0 && p->tflops[EFF_BF16] > 0 && p->tflops[EFF_FP32] > 0);
	}
	ck_assert_ptr_null(eff_find_peak(NULL, "NVIDIA GeForce RTX 4090", "sm89:128"));
	ck_assert_ptr_null(eff_find_peak(NULL, NULL, NULL));
	/* every row: dense figures, the peaks in order of precision */
	for (size_t i = 0; i < eff_n_builtin_peaks; i++) {
		const struct gpu_peak *p = &eff_builtin_peaks[i];

		ck_assert_msg(p->tflops[EFF_BF16] > p->tflops[EFF_FP32], "%s", p->name);
		ck_assert_msg(!p->tflops[EFF_FP8] || p->tflops[EFF_FP8] > p->tflops[EFF_BF16], "%s",
			      p->name);
		ck_assert_msg(!p->tflops[EFF_FP4] || p->tflops[EFF_FP4] > p->tflops[EFF_FP8], "%s",
			      p->name);
	}
}
END_TEST

START_TEST(test_peaks_file)
{
	struct peak_table pt;
	struct fd_error err = { { 0 } };
	const struct gpu_peak *p;

	ck_assert_int_eq(peak_table_parse(&pt, "peaks",
					  "# my GPUs\n"
					  "H100+PCIe 50 - 700 1400 - 1.9  # derated\n"
					  "\"RTX 4090\" 82.6 82.6 165.2 330.3 - 1.008\r\n"
					  "\n"
					  "* 10 - 100 - - 1\n",
					  &err),
			 0);
	ck_assert_uint_eq(pt.n, 3);
	p = eff_find_peak(&pt, "NVIDIA H100 PCIe", NULL);
	ck_assert_str_eq(p->name, "H100+PCIe");
	ck_assert(p->tflops[EFF_BF16] == 700 && p->tflops[EFF_TF32] == 0 && p->tbps == 1.9);
	ck_assert_str_eq(eff_find_peak(&pt, "NVIDIA GeForce RTX 4090", NULL)->name, "RTX 4090");
	/* names first, the file's then the built-in table's: "*" takes only the GPUs no row
	 * names, such as one the trace does not name */
	ck_assert_str_eq(eff_find_peak(&pt, "NVIDIA H200", NULL)->name, "H200");
	ck_assert_str_eq(eff_find_peak(&pt, NULL, NULL)->name, "*");
	ck_assert_str_eq(eff_find_peak(&pt, "NVIDIA GeForce RTX 3090", NULL)->name, "*");
	/* a name before an architecture: the H200 is an sm90 with 132 SMs too */
	ck_assert_str_eq(eff_find_peak(NULL, "NVIDIA H200", "sm90:132")->name, "H200");
	peak_table_free(&pt);

	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "H100 1 2 3\n", &err), -1);
	ck_assert_str_eq(err.msg,
			 "peaks:1: expected NAME FP32 TF32 BF16 FP8 FP4 TBPS: the FP8 figure is "
			 "missing");
	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "\n\nH100 1 2 x 4 5 6\n", &err), -1);
	ck_assert_str_eq(err.msg, "peaks:3: the BF16 figure 'x' is not a positive number or '-'");
	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "H100 1 2 3 4 5 6 7\n", &err), -1);
	ck_assert_str_eq(err.msg, "peaks:1: more than NAME and six figures");
	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "H100 1 2 3 4 5 -\n", &err), -1);
	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "\"H100 1 2 3 4 5 6\n", &err), -1);
	ck_assert_str_eq(err.msg, "peaks:1: a quoted GPU name is not closed");
	ck_assert_int_eq(peak_table_parse(&pt, "peaks", "\"H\033[2J\" 1 2 3 4 5 6\n", &err), -1);
	ck_assert_str_eq(err.msg, "peaks:1: a control character in the GPU name");
	ck_assert_int_eq(peak_table_load(&pt, "/nonexistent/peaks", &err), -1);
}
END_TEST

/* The roofline: achieved figures against H100 SXM's peaks (BF16 989.4 TFLOPS, 3.35 TB/s: the
 * ridge at 295.3 FLOP per byte). */
START_TEST(test_figures)
{
	const struct gpu_peak *h100 = eff_find_peak(NULL, "NVIDIA H100 80GB HBM3", NULL);
	struct eff_figures f;

	/* the gate projection above in 100 us: 472.4 TFLOPS, 0.545 TB/s, AI 866: compute-bound */
	eff_figures(47244640256.0, 54525952.0, 100000, h100, EFF_BF16, &f);
	ck_assert_double_eq_tol(f.tflops, 472.4464, 1e-3);
	ck_assert_double_eq_tol(f.tbps, 0.54526, 1e-4);
	ck_assert_int_eq(f.bound, 1);
	ck_assert_double_eq_tol(f.peak_share, 472.4464 / 989.4, 1e-5);
	/* the decode attention above in 5 us: AI 3.97, memory-bound: 0.847 TB/s of 3.35 */
	eff_figures(16809984.0, 4235264.0, 5000, h100, EFF_BF16, &f);
	ck_assert_int_eq(f.bound, 0);
	ck_assert_double_eq_tol(f.tbps, 0.8470528, 1e-6);
	ck_assert_double_eq_tol(f.peak_share, 0.8470528 / 3.35, 1e-6);
	/* no bytes (no Input type): the share of the compute peak */
	eff_figures(47244640256.0, -1, 100000, h100, EFF_BF16, &f);
	ck_assert(isnan(f.tbps) && f.bound == -1);
	ck_assert_double_eq_tol(f.peak_share, 472.4464 / 989.4, 1e-5);
	/* no peak for the data type (H100 has no FP4), no GPU, no time */
	eff_figures(1e9, 1e6, 1000, h100, EFF_FP4, &f);
	ck_assert(isnan(f.peak_share) && f.tflops == 1000);
	eff_figures(1e9, 1e6, 1000, NULL, EFF_BF16, &f);
	ck_assert(isnan(f.peak_share));
	eff_figures(1e9, 1e6, 0, h100, EFF_BF16, &f);
	ck_assert(isnan(f.tflops));
	/* fp32 on tensor cores: the TF32 peak */
	ck_assert_int_eq(eff_peak_dtype(EFF_FP32, "cutlass_80_tensorop_s1688gemm_64x64_32x6_nn"),
			 EFF_TF32);
	ck_assert_int_eq(eff_peak_dtype(EFF_FP32, "volta_sgemm_128x32_nt"), EFF_FP32);
	ck_assert_int_eq(eff_peak_dtype(EFF_BF16, NULL), EFF_BF16);
}
END_TEST

START_TEST(test_gemm_shape)
{
	int64_t m, n, k;

	ck_assert(eff_gemm_shape("[[4,512,2048],[5632,2048],[]]", &m, &n, &k));
	ck_assert(m == 2048 && n == 5632 && k == 2048);
	ck_assert(eff_gemm_shape("[[1024],[8944,1024],[1024,1024],[],[]]", &m, &n, &k));
	ck_assert(m == 8944 && n == 1024 && k == 1024);
	ck_assert(!eff_gemm_shape("[[4,512],[4,512]]", &m, &n, &k) || (m == 4 && k == 512));
	ck_assert(!eff_gemm_shape("[]", &m, &n, &k));
	ck_assert(!eff_gemm_shape(NULL, &m, &n, &k));
}
END_TEST

/* The loader keeps Input type and Concrete Inputs as it keeps Input Dims: compact JSON (no
 * blanks outside strings), and the work comes from them. */
START_TEST(test_loaded_op)
{
	struct jbuf b = { .first = 1 };
	struct trace *t;
	const struct trace_op *op;
	struct op_work w;

	jevent(&b, "cpu_op", "aten::mm", 1, 1, 10, 5,
	       "\"External id\":7,\"Input Dims\": [[64, 128], [128, 32]],"
	       "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"],"
	       "\"Concrete Inputs\": [\"\", \"a b\"]");
	jevent(&b, "cuda_runtime", "cudaLaunchKernel", 1, 1, 11, 1,
	       "\"correlation\":1,\"External id\":7");
	jevent(&b, "kernel", "nvjet_gemm", 0, 7, 20, 4,
	       "\"device\":0,\"stream\":7,\"correlation\":1,\"External id\":7");
	t = jload(&b);
	op = trace_find_op(t, 7);
	ck_assert_ptr_nonnull(op);
	ck_assert_str_eq(trace_str(t, op->input_dims), "[[64,128],[128,32]]");
	ck_assert_str_eq(trace_str(t, op->input_types), "[\"c10::BFloat16\",\"c10::BFloat16\"]");
	ck_assert_str_eq(trace_str(t, op->concrete), "[\"\",\"a b\"]");
	ck_assert(eff_trace_op_work(t, op, &w));
	ck_assert_double_eq(w.flops, 2.0 * 64 * 32 * 128);
	ck_assert_double_eq(w.bytes, (64 * 128 + 128 * 32 + 64 * 32) * 2.0);
	trace_free(t);
}
END_TEST

/* A figure above the GPU's peak is never a result: the shapes (an operator a kernel was wrongly
 * linked to) or the peak are wrong. The gate projection above in 10 us would be 4724 TFLOPS,
 * 4.8 times H100's BF16 peak: no TFLOPS, TB/s or share; in 100 us it is one. */
START_TEST(test_above_peak)
{
	const struct gpu_peak *h100 = eff_find_peak(NULL, "NVIDIA H100 80GB HBM3", NULL);
	struct comparison_eff e = { 0 }, sum;
	const struct comparison_eff *parts[] = { &e };

	e.flops = 47244640256.0;
	e.bytes = 54525952.0;
	e.dtype = EFF_BF16;
	e.ops = 1;
	e.ns = 10000;
	comparison_eff_sum(parts, 1, h100, &sum);
	ck_assert(isnan(sum.tflops) && isnan(sum.tbps) && isnan(sum.peak_share));
	ck_assert_int_eq(sum.bound, -1);
	e.ns = 100000;
	comparison_eff_sum(parts, 1, h100, &sum);
	ck_assert_double_eq_tol(sum.peak_share, 472.4464 / 989.4, 1e-5);
}
END_TEST

/* Acceptance: on the bundled eager/compiled pair (both on an H200), every GEMM pair side gets
 * TFLOPS and a peak share in (0, 1]; the attention pair too, the compiled side with twice the
 * FLOPs (its mask is a tensor, is_causal False). */
START_TEST(test_examples)
{
	struct session *s = test_session_files(test_trace("llama8l_eager_sdpa.json.gz"),
					       test_trace("llama8l_compiled_sdpa.json.gz"), NULL);
	const struct comparison *c = test_compare(s, -1);
	size_t gemm = 0, attn = 0;

	for (int k = 0; k < 2; k++) {
		ck_assert_ptr_nonnull(c->peak[k]);
		ck_assert_str_eq(c->peak[k]->name, "H200");
	}
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (p->cls != CLASS_GEMM && p->cls != CLASS_ATTENTION)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct comparison_eff *e = &p->side[k].eff;

			if (!p->side[k].n_inst)
				continue;
			ck_assert_msg(e->tflops > 0 && e->peak_share > 0 && e->peak_share <= 1,
				      "pair %zu side %d: %g TFLOPS, share %g", i, k, e->tflops,
				      e->peak_share);
			ck_assert(e->tbps > 0 && e->bound >= 0 && e->dtype >= 0);
			if (p->cls == CLASS_GEMM)
				gemm++;
		}
		if (p->cls == CLASS_ATTENTION && p->kind == PAIR_MATCH) {
			ck_assert(p->side[0].eff.causal && !p->side[1].eff.causal);
			ck_assert_double_eq(p->side[1].eff.flops / p->side[1].eff.ops,
					    2 * p->side[0].eff.flops / p->side[0].eff.ops);
			attn++;
		}
	}
	ck_assert_uint_ge(gemm, 100);
	ck_assert_uint_eq(attn, 8); /* one per layer */
	session_close(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("efficiency");
	TCase *tc = tcase_create("work");
	TCase *tp = tcase_create("peaks");

	tcase_add_test(tc, test_mm);
	tcase_add_test(tc, test_addmm);
	tcase_add_test(tc, test_bmm);
	tcase_add_test(tc, test_grouped_gemm);
	tcase_add_test(tc, test_sdpa_causal);
	tcase_add_test(tc, test_sdpa_not_causal);
	tcase_add_test(tc, test_not_modelled);
	tcase_add_test(tc, test_gemm_shape);
	tcase_add_test(tc, test_loaded_op);
	tcase_add_test(tp, test_peak_lookup);
	tcase_add_test(tp, test_peaks_file);
	tcase_add_test(tp, test_figures);
	tcase_add_test(tp, test_above_peak);
	tcase_add_test(tp, test_examples);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	return test_run(suite());
}
