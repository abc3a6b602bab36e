/* fuzz_rules.c — libFuzzer target: the classification rules-file parser (classifier_new() with
 * --rules FILE) on arbitrary bytes, then the rules it accepted applied to real kernel names.
 *
 * Built by `make fuzz` with clang and ASan/UBSan (tests/fuzz/fuzz.mk, tests/fuzz/README.md).
 * The bytes are the rules file, written to a memory file and read back through its path. A
 * rejected file must give one non-empty line that names the file; an accepted one must
 * classify every name into a valid class. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fusediff/classify.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

/* Names from the real traces, of every class, and a few odd ones. */
static const char *const names[] = {
	"nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NNT",
	"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB0",
	("void at::native::vectorized_elementwise_kernel<4, "
	 "at::native::CUDAFunctor_add<c10::BFloat16>, "
	 "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
	 "std::array<char*, 3ul>)"),
	"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0",
	"triton_poi_fused_mul_silu_1",
	"_ZN5flash25flash_fwd_splitkv_kernelILi128ELi64ELi128ELi4ELb0ELb0EEEvNS_16Flash_fwd_"
	"paramsE",
	"paged_attention_ll4mi_QKV_mfma16_kernel",
	"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_"
	"kernel0_0",
	"splitKreduce_kernel",
	"ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
	"Memcpy DtoD (Device -> Device)",
	"",
	"\x1b]0;pwned\x07",
	"gemm_\xff\xfe_kernel",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* No per-user rules file (classifier_new()'s user_path NULL): only the fuzzed one
	 * counts. */
	memfd = memfd_create("rules", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	return 0;
}

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_rules: broken promise: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct classifier *c = (struct classifier *)1;
	struct fd_error err = { { 0 } };

	if (ftruncate(memfd, 0) < 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	if (classifier_new(&c, path, NULL, &err) < 0) {
		size_t n = strlen(path);

		require(c == NULL, "a failed classifier_new leaves *out NULL");
		require(strncmp(err.msg, path, n) == 0 && err.msg[n] == ':',
			"the error names the file");
		require(err.msg[n + 1] != '\0', "the error says what is wrong");
		require(strchr(err.msg, '\n') == NULL, "the error is one line");
		return 0;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct kernel_info ki;

		classify_kernel(c, names[i], i % 2 ? "aten::mm" : NULL, NULL, &ki);
		require(ki.cls < CLASS_COUNT, "a valid class");
		require(classifier_rule_text(c, ki.rule) != NULL, "the deciding rule has a text");
		kernel_info_clear(&ki);
	}
	classifier_free(c);
	return 0;
}
