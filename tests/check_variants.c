/* check_variants.c — the analysis on traces we do not have: variants of the real traces that
 * tests/data/variants/make-variants.py derives (README.md there lists them): annotations
 * stripped, GPU or CPU annotations only, events shuffled, a pass split across two streams,
 * no nn.Module ranges, kernel names of the other vendor, a trace truncated inside a pass,
 * string pids and tids, a second device. On each, the passes, the layers per pass and the
 * headline facts (acceptance.h) must be those of the real trace, and the aligned
 * pairs and fusions of the layers must be the same as on the unaltered (slim) pair. */
#include "acceptance.h"

#define V	 "tests/data/variants/"
#define EXAMPLES "examples/"
#define MI300X	 EXAMPLES "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"
#define B300	 EXAMPLES "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"

enum facts {
	FACTS_NONE,		/* passes and layers only */
	FACTS_EAGER_COMPILED,	/* acc_assert_eager_vs_compiled, and the slim pair's layers */
	FACTS_SGLANG,		/* acc_assert_sglang, and the slim pair's layers */
	FACTS_SGLANG_GPU_ORDER, /* acc_assert_sglang only: without launch events the streams are
				   merged by GPU time, so a side-stream copy may sit in a layer */
	FACTS_SELF,		/* acc_assert_self */
};

/* Passes per phase (prefill, decode) of each side, the layers of every pass. */
struct expect {
	const char *a, *b;
	uint32_t a_prefill, a_decode, b_prefill, b_decode, layers;
	enum facts facts;
	const char *a_source; /* how A's passes were found (a prefix), or NULL */
};

static const struct expect cases[] = {
	/* eager (A: 2 prefill + 3 decode passes) against torch.compile (B: 2 prefill) */
	{ V "eager-slim.json.gz", V "compiled-slim.json.gz", 2, 3, 2, 0, 8, FACTS_EAGER_COMPILED,
	  "gpu_user_annotation 'prefill', 'decode'" },
	{ V "eager-noann.json.gz", V "compiled-noann.json.gz", 2, 3, 2, 0, 8, FACTS_EAGER_COMPILED,
	  "repetition of the layer structure" },
	{ V "eager-gpuann.json.gz", V "compiled-gpuann.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, "gpu_user_annotation 'prefill', 'decode'" },
	{ V "eager-cpuann.json.gz", V "compiled-cpuann.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, "user_annotation 'prefill', 'decode' (kernels by launch" },
	{ V "eager-shuffled.json.gz", V "compiled-shuffled.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, NULL },
	{ V "eager-twostreams.json.gz", V "compiled-twostreams.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, NULL },
	{ V "eager-strids.json.gz", V "compiled-strids.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, NULL },
	{ V "eager-twodevices.json.gz", V "compiled-twodevices.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, NULL },
	{ V "eager-nomodules.json.gz", V "compiled-slim.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, NULL },
	/* passes named ProfilerStep#N: the phases come from the kernels */
	{ V "eager-profsteps.json.gz", V "compiled-profsteps.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, "gpu_user_annotation 'ProfilerStep#" },
	/* no launch events: kernels to passes by the GPU ranges, no nn.Module mapping */
	{ V "eager-nolaunch.json.gz", V "compiled-nolaunch.json.gz", 2, 3, 2, 0, 8,
	  FACTS_EAGER_COMPILED, "gpu_user_annotation 'prefill', 'decode'" },
	/* older profilers' category names */
	{ V "eager-slim.json.gz", V "compiled-oldcats.json.gz", 2, 3, 2, 0, 8, FACTS_EAGER_COMPILED,
	  NULL },
	/* the recording stopped inside the fifth pass: left out */
	{ V "eager-partial.json.gz", V "compiled-slim.json.gz", 2, 2, 2, 0, 8, FACTS_EAGER_COMPILED,
	  "gpu_user_annotation 'prefill', 'decode'; the last pass is incomplete (4 of 8 layers)" },
	/* SGLang decode step, MI300X (A) against B300 (B) */
	{ V "mi300x-slim.json.gz", V "b300-slim.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	{ V "mi300x-noann.json.gz", V "b300-noann.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG,
	  "whole trace" },
	{ V "mi300x-gpuann.json.gz", V "b300-gpuann.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG,
	  "gpu_user_annotation 'execute_16_context_0" },
	{ V "mi300x-cpuann.json.gz", V "b300-cpuann.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG,
	  "user_annotation 'execute_16_context_0" },
	{ MI300X, V "b300-shuffled.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	{ MI300X, V "b300-twostreams.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	{ V "mi300x-strids.json.gz", V "b300-strids.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	{ V "mi300x-twodevices.json.gz", V "b300-twodevices.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG,
	  NULL },
	{ V "mi300x-profsteps.json.gz", V "b300-profsteps.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG,
	  "gpu_user_annotation 'ProfilerStep#" },
	{ V "mi300x-slim.json.gz", V "b300-oldcats.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	{ V "mi300x-nolaunch.json.gz", V "b300-nolaunch.json.gz", 0, 1, 0, 1, 32,
	  FACTS_SGLANG_GPU_ORDER, NULL },
	/* each side with the other vendor's kernel names (hipBLASLt PostGSU for splitKreduce...) */
	{ V "mi300x-nvidia.json.gz", V "b300-amd.json.gz", 0, 1, 0, 1, 32, FACTS_SGLANG, NULL },
	/* shuffled events lose the launch order of the MI300X graph replay, whose times the
	 * profiler attached to the wrong kernels: the layers survive, the pairing cannot */
	{ V "mi300x-shuffled.json.gz", B300, 0, 1, 0, 1, 32, FACTS_NONE, NULL },
	/* HF transformers traces without nn.Module ranges, and without any annotation */
	{ V "bert_mi300x-nomodules.json.gz", V "bert_h100-nomodules.json.gz", 1, 0, 1, 0, 4,
	  FACTS_NONE, NULL },
	{ V "bert_mi300x-noann.json.gz", V "bert_h100-noann.json.gz", 1, 0, 1, 0, 4, FACTS_NONE,
	  "whole trace" },
	{ V "qwen_mi300x-nomodules.json.gz", V "qwen_h100-nomodules.json.gz", 1, 0, 1, 0, 24,
	  FACTS_NONE, NULL },
	/* the recording starts inside a step queued before the profiler started: left out */
	{ V "qwen_mi300x-noann.json.gz", V "qwen_h100-noann.json.gz", 1, 0, 1, 0, 24, FACTS_NONE,
	  "repetition of the layer structure; the first pass is incomplete (11 of 24 layers)" },
	{ V "moe-noann.json.gz", V "moe-noann.json.gz", 2, 2, 2, 2, 6, FACTS_SELF,
	  "repetition of the layer structure" },
};

static struct classifier *cl;
/* What the slim (unaltered) pairs give in their layers: the reference for the variants. */
static char *ref_eager, *ref_sglang;

/* The aligned pairs of the repeated layers and the fusions, as text: what must not change. */
static char *signature(const struct comparison *c)
{
	char *buf = NULL, ab[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (comparison_layer_index(c, p->layer) < 0)
			continue;
		fprintf(f, "layer %d %u %s %s %s %g %g\n", comparison_layer_index(c, p->layer),
			p->position, pair_kind_name(p->kind), class_name(p->cls),
			atoms_format(p->atoms, "+", ab, sizeof ab), p->side[0].count,
			p->side[1].count);
	}
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *x = &c->fusions[i];

		fprintf(f, "fusion %c %s %u partial=%d layers", "AB"[x->fused_side],
			atoms_format(x->atoms, "+", ab, sizeof ab), x -> occurrences, x -> partial);
		for (uint32_t j = 0; j < x->n_layers; j++)
			if (comparison_layer_index(c, x->layers[j]) >= 0)
				fprintf(f, " %d", comparison_layer_index(c, x->layers[j]));
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

/* The comparison of the traces at a and b in the source tree, in a new session (*ses: close
 * it with session_close()). */
static const struct comparison *compare_paths(const char *a, const char *b, struct session **ses)
{
	char pa[4096];
	struct session_opts so = { .classifier = cl, .device = -1 };

	snprintf(pa, sizeof pa, "%s", test_path(a));
	*ses = test_session_files(pa, test_path(b), &so);
	return test_compare(*ses, -1);
}

static void setup(void)
{
	struct session *ses;
	const struct comparison *c;

	cl = test_classifier();
	c = compare_paths(V "eager-slim.json.gz", V "compiled-slim.json.gz", &ses);
	ref_eager = signature(c);
	session_close(ses);
	c = compare_paths(V "mi300x-slim.json.gz", V "b300-slim.json.gz", &ses);
	ref_sglang = signature(c);
	session_close(ses);
}

static void teardown(void)
{
	classifier_free(cl);
	free(ref_eager);
	free(ref_sglang);
}

/* The first line where two signatures differ, for the failure message. */
static void assert_same(const char *what, const char *got, const char *want)
{
	size_t i = 0, line = 0;

	if (strcmp(got, want) == 0)
		return;
	while (got[i] && got[i] == want[i])
		i++;
	while (i > 0 && got[i - 1] != '\n')
		i--;
	line = strcspn(want + i, "\n");
	ck_abort_msg("%s: the layers differ from the unaltered pair's: got '%.*s', want '%.*s'",
		     what, (int)strcspn(got + i, "\n"), got + i, (int)line, want + i);
}

START_TEST(test_variant)
{
	const struct expect *e = &cases[_i];
	struct session *ses;
	const struct comparison *c = compare_paths(e->a, e->b, &ses);
	char *sig;

	acc_assert_passes(c->side[0], e->a_prefill, e->a_decode);
	acc_assert_passes(c->side[1], e->b_prefill, e->b_decode);
	acc_assert_layers(c->side[0], e->layers);
	acc_assert_layers(c->side[1], e->layers);
	if (e->a_source)
		ck_assert_msg(!strncmp(c->side[0]->pass_source, e->a_source, strlen(e->a_source)),
			      "%s: passes from \"%s\"", e->a, c->side[0]->pass_source);
	for (int s = 0; s < 2; s++)
		ck_assert_msg(c->side[s]->classes.other_share < 0.10, "%s: Other %.1f%%",
			      s ? e->b : e->a, 100 * c->side[s]->classes.other_share);
	sig = signature(c);
	switch (e->facts) {
	case FACTS_EAGER_COMPILED:
		acc_assert_eager_vs_compiled(c, 8);
		assert_same(e->a, sig, ref_eager);
		break;
	case FACTS_SGLANG:
		acc_assert_sglang(c);
		assert_same(e->a, sig, ref_sglang);
		break;
	case FACTS_SGLANG_GPU_ORDER: acc_assert_sglang(c); break;
	case FACTS_SELF: acc_assert_self(c); break;
	case FACTS_NONE: break;
	}
	free(sig);
	session_close(ses);
}
END_TEST

/* What the variants change is what fusediff reads: the second device's kernels are dropped and
 * counted, the platform follows the renamed traces' keys, string ids are read. */
START_TEST(test_variant_inputs)
{
	struct trace *t = test_load(test_path(V "eager-twodevices.json.gz"));

	ck_assert_uint_eq(t->n_other_device, 12);
	ck_assert_int_eq(t->device, 0);
	trace_free(t);
	t = test_load(test_path(V "mi300x-twodevices.json.gz"));
	ck_assert_uint_eq(t->n_other_device, 12);
	ck_assert_int_eq(t->device, 5);
	trace_free(t);
	t = test_load(test_path(V "b300-amd.json.gz"));
	ck_assert_int_eq(t->platform, PLATFORM_AMD);
	trace_free(t);
	t = test_load(test_path(V "mi300x-nvidia.json.gz"));
	ck_assert_int_eq(t->platform, PLATFORM_NVIDIA);
	trace_free(t);
}
END_TEST

/* Eager against the compiled model renamed to AMD kernels: the two attention kernels have
 * different names (cuDNN SDPA against aotriton attn_fwd). They pair one to one; the KV-cache
 * concatenation copies next to them stay their own pairs. (The aligner once let an attention
 * kernel swallow them and reported attention as a fusion in every layer: an attention kernel
 * covers copies only against eager math attention, which has no attention kernel.) */
START_TEST(test_renamed_attention)
{
	struct session *ses;
	const struct comparison *c;

	c = compare_paths(V "eager-slim.json.gz", V "compiled-amd.json.gz", &ses);
	acc_assert_eager_vs_compiled(c, 8);
	session_close(ses);
}
END_TEST

static Suite *variants_suite(void)
{
	Suite *s = suite_create("variants");
	TCase *tc = tcase_create("variants");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_variant, 0, sizeof cases / sizeof cases[0]);
	tcase_add_test(tc, test_variant_inputs);
	tcase_add_test(tc, test_renamed_attention);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(variants_suite());
}
