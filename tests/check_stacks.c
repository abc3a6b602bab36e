/* check_stacks.c — structure and alignment on small hand-written traces built from real kernel
 * names: two layer stacks in one pass, a diffusion pipeline's models, a model without
 * repeated blocks, sides of different depth, fused kernels that interrupt runs, and training
 * steps. */
#include "jtrace.h"

#include <math.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/structure.h"

/* A kernel and the operator that launches it. */
struct kop {
	const char *name, *op;
};

#define LN                                                                                    \
	{                                                                                     \
		"void at::native::(anonymous "                                                \
		"namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, false>(int, " \
		"float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "   \
		"float*, float*, c10::BFloat16*)",                                            \
			"aten::native_layer_norm"                                             \
	}
#define GEMM                                                           \
	{                                                              \
		"nvjet_sm90_tst_128x128_64x4_1x2_h_bz_TNT", "aten::mm" \
	}
#define GEMM2                                                                \
	{                                                                    \
		"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", "aten::mm" \
	}
#define ATTN                                                                                    \
	{                                                                                       \
		"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4, " \
		"false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 64, 4, "       \
		"cutlass::bfloat16_t> >, false, false, false, false, false, true, false, "      \
		"false>(pytorch_flash::Flash_fwd_params)",                                      \
			"aten::_flash_attention_forward"                                        \
	}
#define GELU                                                                           \
	{                                                                              \
		"void at::native::vectorized_elementwise_kernel<4, "                   \
		"at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "             \
		"at::native::GeluType)::{lambda()#2}::operator()() "                   \
		"const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, " \
		"std::array<char*, 2ul> >(int, "                                       \
		"at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "             \
		"at::native::GeluType)::{lambda()#2}::operator()() "                   \
		"const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, " \
		"std::array<char*, 2ul>)",                                             \
			"aten::gelu"                                                   \
	}
#define ADD                                                                                  \
	{                                                                                    \
		"void at::native::vectorized_elementwise_kernel<4, "                         \
		"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, " \
		"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",       \
			"aten::add"                                                          \
	}
#define MUL                                                                                       \
	{                                                                                         \
		"void at::native::elementwise_kernel<128, 2, "                                    \
		"at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, "    \
		"c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > " \
		">(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, "            \
		"c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > " \
		"const&)::{lambda(int)#1}>(int, at::native::BinaryFunctor<c10::BFloat16, "        \
		"c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > " \
		"const&)::{lambda(int)#1})",                                                      \
			"aten::mul"                                                               \
	}
#define NEG                                                                                        \
	{                                                                                          \
		"void at::native::elementwise_kernel<128, 2, "                                     \
		"at::native::gpu_kernel_impl_nocast<at::native::neg_kernel_cuda(at::"              \
		"TensorIteratorBase&)::{lambda()#2}::operator()() "                                \
		"const::{lambda()#9}::operator()() "                                               \
		"const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "                      \
		"at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()()" \
		" const::{lambda()#9}::operator()() const::{lambda(c10::BFloat16)#1} "             \
		"const&)::{lambda(int)#1}>(int, "                                                  \
		"at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()()" \
		" const::{lambda()#9}::operator()() const::{lambda(c10::BFloat16)#1} "             \
		"const&)::{lambda(int)#1})",                                                       \
			"aten::neg"                                                                \
	}
#define CAT                                                                                    \
	{                                                                                      \
		"void at::native::(anonymous "                                                 \
		"namespace)::CatArrayBatchedCopy<at::native::(anonymous "                      \
		"namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous " \
		"namespace)::OpaqueType<2u>*, at::native::(anonymous "                         \
		"namespace)::CatArrInputTensorMetadata<at::native::(anonymous "                \
		"namespace)::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous "   \
		"namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",          \
			"aten::cat"                                                            \
	}
#define RELU                                                                                 \
	{                                                                                    \
		"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "  \
		"namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "     \
		"c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() " \
		"const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, "      \
		"std::array<char*, 2ul> >(int, at::native::(anonymous "                      \
		"namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "     \
		"c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() " \
		"const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, "      \
		"std::array<char*, 2ul>)",                                                   \
			"aten::relu"                                                         \
	}
#define T_LN                                                           \
	{                                                              \
		"triton_red_fused_add_native_layer_norm_0", "aten::op" \
	}
#define T_ROPE                                                         \
	{                                                              \
		"triton_poi_fused_add_cat_mul_neg_slice_3", "aten::op" \
	}
#define T_GELU                                        \
	{                                             \
		"triton_poi_fused_gelu_4", "aten::op" \
	}
#define T_ATTN                         \
	{                              \
		"attn_fwd", "aten::op" \
	}
#define ROPE_RUN MUL, NEG, CAT, MUL, ADD

/* A pre-norm encoder layer (eager HF). */
static const struct kop enc_layer[] = { LN, GEMM, ATTN, GEMM, ADD, LN, GEMM, GELU, GEMM, ADD };
/* A compiled DiT block: Inductor's norms and GELU, cuBLAS GEMMs, Triton flash attention. */
static const struct kop dit_block[] = { T_LN, GEMM, T_ATTN, GEMM, T_LN, GEMM, T_GELU, GEMM };

#define N(a) (sizeof(a) / sizeof(a)[0])

struct gen {
	struct jbuf b;
	double cpu, gpu;
	long seq; /* > 0: the next operators carry this autograd sequence number */
};

static void gen_init(struct gen *g)
{
	memset(g, 0, sizeof *g);
	g->b.first = 1;
	g->gpu = 1000000;
}

/* One kernel launched from thread tid. */
static void gen_kernel_tid(struct gen *g, const struct kop *k, int tid)
{
	char args[256];

	g->b.corr++;
	g->b.ext++;
	if (g->seq > 0)
		snprintf(args, sizeof args, "\"External id\":%lld,\"Sequence number\":%ld",
			 (long long)g->b.ext, g->seq);
	else
		snprintf(args, sizeof args, "\"External id\":%lld", (long long)g->b.ext);
	jevent(&g->b, "cpu_op", k->op, 1, tid, g->cpu, 0.8, args);
	snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld",
		 (long long)g->b.corr, (long long)g->b.ext);
	jevent(&g->b, "cuda_runtime", "cudaLaunchKernel", 1, tid, g->cpu + 0.2, 0.5, args);
	snprintf(args, sizeof args,
		 "\"device\":0,\"stream\":7,\"correlation\":%lld,\"External id\":%lld",
		 (long long)g->b.corr, (long long)g->b.ext);
	jevent(&g->b, "kernel", k->name, 0, 7, g->gpu, 5, args);
	g->cpu += 1;
	g->gpu += 10;
}

static void gen_kernels(struct gen *g, const struct kop *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gen_kernel_tid(g, &k[i], 1);
}

/* Open and close ranges: the caller notes the start, then emits the range when it ends. */
static void gen_module(struct gen *g, const char *name, double start)
{
	jmodule_call(&g->b, name, start, g->cpu - start + 0.1);
	g->cpu += 0.3;
}

static void gen_annotation(struct gen *g, const char *name, double start)
{
	jevent(&g->b, "user_annotation", name, 1, 1, start, g->cpu - start + 0.2, "");
	g->cpu += 0.5;
}

static struct side *build(struct trace **t, struct classifier **c, struct gen *g)
{
	struct side *s = xcalloc(1, sizeof *s);
	struct fd_error err = { { 0 } };

	*t = jload(&g->b);
	*c = test_classifier();
	if (side_build(s, *t, *c, NULL, &err) < 0)
		ck_abort_msg("side_build: %s", err.msg);
	return s;
}

static void release(struct trace *t, struct classifier *c, struct side *s)
{
	side_clear(s);
	free(s);
	classifier_free(c);
	trace_free(t);
}

static const struct comparison *compare(const struct side *a, const struct side *b,
					const struct classifier *c, const char *model,
					struct comparison **own)
{
	struct compare_opts o = { .phase = -1, .model = model, .label = { "A", "B" } };
	struct fd_error err = { { 0 } };

	if (comparison_build(own, a, b, c, &o, &err) < 0)
		ck_abort_msg("comparison_build: %s", err.msg);
	return *own;
}

/* One CLIP-like forward: a vision tower of nv layers, then a text tower of nt. */
static void clip_forward(struct gen *g, int nv, int nt, int *layer_id)
{
	double model = g->cpu, tower, enc, l0;
	static const struct kop proj[] = { LN, GEMM };

	for (int t = 0; t < 2; t++) {
		tower = g->cpu;
		enc = g->cpu;
		for (int l = 0; l < (t ? nt : nv); l++) {
			char name[64];

			l0 = g->cpu;
			gen_kernels(g, enc_layer, N(enc_layer));
			snprintf(name, sizeof name, "CLIPEncoderLayer_%d", (*layer_id)++);
			gen_module(g, name, l0);
		}
		gen_module(g, t ? "CLIPEncoder_1" : "CLIPEncoder_0", enc);
		gen_kernels(g, proj, N(proj)); /* post-norm and projection */
		gen_module(g, t ? "CLIPTextTransformer_0" : "CLIPVisionTransformer_0", tower);
	}
	gen_module(g, "CLIPModel_0", model);
}

/* Two stacks of one layer class under towers of different classes, in one pass: two stacks
 * ("vision", "text"), and every layer is averaged over the passes that have it (all). */
START_TEST(test_two_stacks)
{
	struct gen g;
	struct trace *t;
	struct classifier *cl;
	struct side *s;
	struct comparison *own;
	const struct comparison *c;
	char label[64];
	int ids = 0;

	gen_init(&g);
	for (int p = 0; p < 2; p++) {
		double start = g.cpu;

		ids = 0;
		clip_forward(&g, 4, 2, &ids);
		gen_annotation(&g, "forward", start);
	}
	s = build(&t, &cl, &g);
	ck_assert_uint_eq(s->n_passes, 2);
	ck_assert_uint_eq(s->n_models, 1);
	for (size_t p = 0; p < 2; p++)
		ck_assert_uint_eq(s->passes[p].n_layers, 6);
	ck_assert_uint_eq(s->layers_per_pass, 6);
	c = compare(s, s, cl, NULL, &own);
	ck_assert_uint_eq(c->n_stacks, 3);
	ck_assert_str_eq(c->stacks[1], "vision");
	ck_assert_str_eq(c->stacks[2], "text");
	{
		static const char *const want[] = { "prologue", "vision.0", "vision.1",
						    "vision.2", "vision.3", "text.prologue",
						    "text.0",	"text.1",   "epilogue" };

		ck_assert_uint_eq(c->n_layers, N(want));
		for (size_t i = 0; i < c->n_layers; i++) {
			ck_assert_str_eq(comparison_layer_label(c, (int32_t)i, label, sizeof label),
					 want[i]);
			ck_assert_uint_eq(c->layers[i].passes[0], 2);
		}
	}
	/* a vision layer holds ten kernels per pass: its own from the norm on, and the residual
	 * add before it (the first layer's add is its predecessor's) */
	ck_assert_double_eq_tol(c->layers[1].kernels[0], 9, 1e-9);
	ck_assert_double_eq_tol(c->layers[2].kernels[0], 10, 1e-9);
	comparison_free(own);
	release(t, cl, s);
}
END_TEST

/* A diffusion pipeline in one annotation: a text encoder, four calls of a compiled DiT (no
 * module calls inside: its blocks come from the attention anchors) with a scheduler step after
 * each, a VAE decoder. Each model is compared apart; the DiT is the main one. */
START_TEST(test_dit_steps)
{
	static const struct kop sched[] = { ADD, MUL };
	struct gen g;
	struct trace *t;
	struct classifier *cl;
	struct side *s;
	struct comparison *own;
	const struct comparison *c;
	double start, m, st;
	struct fd_error err = { { 0 } };
	struct compare_opts o = { .phase = -1, .model = "NoSuchModel" };

	gen_init(&g);
	start = g.cpu;
	m = g.cpu;
	st = g.cpu;
	for (int l = 0; l < 3; l++) {
		char name[32];
		double l0 = g.cpu;

		gen_kernels(&g, enc_layer, N(enc_layer));
		snprintf(name, sizeof name, "T5Block_%d", l);
		gen_module(&g, name, l0);
	}
	gen_module(&g, "T5Stack_0", st);
	gen_module(&g, "T5EncoderModel_0", m);
	for (int step = 0; step < 4; step++) {
		m = g.cpu;
		for (int blk = 0; blk < 3; blk++)
			gen_kernels(&g, dit_block, N(dit_block));
		gen_module(&g, "SD3Transformer2DModel_0", m);
		gen_kernels(&g, sched, N(sched));
	}
	m = g.cpu;
	for (int l = 0; l < 2; l++) {
		char name[32];
		double l0 = g.cpu;

		gen_kernels(&g, enc_layer, N(enc_layer));
		snprintf(name, sizeof name, "UpDecoderBlock2D_%d", l);
		gen_module(&g, name, l0);
	}
	gen_module(&g, "Decoder_0", m);
	gen_annotation(&g, "execute_diffusion", start);
	s = build(&t, &cl, &g);
	ck_assert_uint_eq(s->n_models, 3);
	ck_assert_str_eq(side_model_name(s, s->main_model), "SD3Transformer2DModel_0");
	ck_assert_uint_eq(s->models[s->main_model].n_passes, 4);
	ck_assert_uint_eq(s->models[s->main_model].layers_per_pass, 3);
	c = compare(s, s, cl, NULL, &own);
	ck_assert_uint_eq(c->passes[0], 4);
	ck_assert_uint_eq(comparison_model(c, 0)->layers_per_pass, 3);
	ck_assert_uint_eq(c->n_fusions, 0);
	comparison_free(own);
	c = compare(s, s, cl, "T5EncoderModel", &own);
	ck_assert_uint_eq(c->passes[0], 1);
	ck_assert_uint_eq(comparison_model(c, 0)->layers_per_pass, 3);
	comparison_free(own);
	c = compare(s, s, cl, "Decoder_0", &own);
	ck_assert_uint_eq(comparison_model(c, 0)->layers_per_pass, 2);
	comparison_free(own);
	o.label[0] = "A";
	o.label[1] = "B";
	ck_assert_int_eq(comparison_build(&own, s, s, cl, &o, &err), -1);
	ck_assert_str_eq(err.msg, "--model NoSuchModel: A (A) has no such model");
	release(t, cl, s);
}
END_TEST

/* A small model without repeated blocks: two identical halves are a coincidence, not two
 * layers; nothing is invented. */
START_TEST(test_no_repetition)
{
	static const struct kop half[] = { GEMM, RELU, GEMM2, RELU };
	struct gen g;
	struct trace *t;
	struct classifier *cl;
	struct side *s;

	gen_init(&g);
	for (int p = 0; p < 3; p++) {
		double start = g.cpu, m = g.cpu;

		gen_kernels(&g, half, N(half));
		gen_kernels(&g, half, N(half));
		gen_module(&g, "TinyNet_0", m);
		gen_annotation(&g, "forward", start);
	}
	s = build(&t, &cl, &g);
	ck_assert_uint_eq(s->n_passes, 3);
	for (size_t p = 0; p < s->n_passes; p++)
		ck_assert_uint_eq(s->passes[p].n_layers, 0);
	ck_assert_str_eq(s->layer_source, "no repeated layers found");
	release(t, cl, s);
}
END_TEST

/* Sides of different depth: the deeper side's extra layers are one-sided, and the last common
 * layer's alignment does not reach into them. */
START_TEST(test_different_depths)
{
	struct gen g[2];
	struct trace *t[2];
	struct classifier *cl[2];
	struct side *s[2];
	struct comparison *own;
	const struct comparison *c;
	const int depth[2] = { 4, 6 };
	static const struct kop head[] = { LN, GEMM2 }; /* the final norm and the LM head */

	for (int k = 0; k < 2; k++) {
		double start;

		gen_init(&g[k]);
		start = g[k].cpu;
		for (int l = 0; l < depth[k]; l++)
			gen_kernels(&g[k], enc_layer, N(enc_layer));
		gen_kernels(&g[k], head, N(head));
		gen_annotation(&g[k], "prefill", start);
		s[k] = build(&t[k], &cl[k], &g[k]);
		ck_assert_uint_eq(s[k]->passes[0].n_layers, (unsigned)depth[k]);
	}
	c = compare(s[0], s[1], cl[0], NULL, &own);
	ck_assert_uint_eq(c->n_warnings, 1);
	ck_assert_ptr_nonnull(
		strstr(c->warnings[0].message, "different depths (A: 4 layers per pass, B: 6)"));
	ck_assert_str_eq(c->warnings[0].code, "depth_differs");
	ck_assert(!c->comparability.comparable);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];
		int32_t l = comparison_layer_index(c, p->layer);

		ck_assert(!((p->atoms & ATOM_BIT(ATOM_GEMM)) &&
			    (p->atoms & ATOM_BIT(ATOM_ATTENTION))));
		if (l >= 0 && l < 4)
			ck_assert_msg(p->kind == PAIR_MATCH, "layer %d position %u: %s", l,
				      p->position, pair_kind_name(p->kind));
		else if (l >= 4)
			ck_assert_int_eq(p->kind, PAIR_B_ONLY);
	}
	comparison_free(own);
	for (int k = 0; k < 2; k++)
		release(t[k], cl[k], s[k]);
}
END_TEST

/* Eager RoPE runs against one fused kernel, in every layer, whichever side is fused and
 * wherever the fused kernel or the runs sit between kernels that match. */
static const struct kop eager_attn[] = {
	ADD, LN, GEMM, GEMM, GEMM, ROPE_RUN, ROPE_RUN, ATTN, GEMM
};
/* the fused kernel between the k and v GEMMs */
static const struct kop compiled_attn[] = { T_LN, GEMM, GEMM, T_ROPE, GEMM, ATTN, GEMM };
/* each rotation right after its GEMM */
static const struct kop eager_split[] = {
	ADD, LN, GEMM, ROPE_RUN, GEMM, ROPE_RUN, GEMM, ATTN, GEMM
};
static const struct kop mlp[] = { ADD, LN, GEMM, GELU, GEMM };
static const struct kop compiled_mlp[] = { T_LN, GEMM, GELU, GEMM };

static struct side *rope_side(const struct kop *attn, size_t n_attn, const struct kop *m,
			      size_t n_m, struct trace **t, struct classifier **cl)
{
	struct gen g;
	double start;

	gen_init(&g);
	start = g.cpu;
	for (int l = 0; l < 4; l++) {
		gen_kernels(&g, attn, n_attn);
		gen_kernels(&g, m, n_m);
	}
	gen_annotation(&g, "prefill", start);
	return build(t, cl, &g);
}

static void assert_rope_fused(const struct comparison *c, int fused_side)
{
	const struct comparison_fusion *f = NULL;

	for (size_t i = 0; i < c->n_fusions; i++)
		if (c->fusions[i].cls == CLASS_ROPE)
			f = &c->fusions[i];
	ck_assert_msg(f != NULL, "no RoPE fusion");
	ck_assert_int_eq(f->fused_side, fused_side);
	ck_assert_uint_eq(f->occurrences, 4);
	ck_assert_uint_eq(f->n_layers, 4);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (p->cls == CLASS_GEMM || p->cls == CLASS_ATTENTION)
			ck_assert_msg(p->kind == PAIR_MATCH, "layer %d position %u: %s is %s",
				      comparison_layer_index(c, p->layer), p->position,
				      class_name(p->cls), pair_kind_name(p->kind));
	}
}

START_TEST(test_interrupted_runs)
{
	struct trace *t[3];
	struct classifier *cl[3];
	struct side *s[3];
	struct comparison *own;

	s[0] = rope_side(eager_attn, N(eager_attn), mlp, N(mlp), &t[0], &cl[0]);
	s[1] = rope_side(compiled_attn, N(compiled_attn), compiled_mlp, N(compiled_mlp), &t[1],
			 &cl[1]);
	s[2] = rope_side(eager_split, N(eager_split), mlp, N(mlp), &t[2], &cl[2]);
	for (int k = 0; k < 3; k++)
		ck_assert_uint_eq(s[k]->layers_per_pass, 4);
	/* the fused kernel between the k and v GEMMs, on B and on A */
	assert_rope_fused(compare(s[0], s[1], cl[0], NULL, &own), SIDE_B);
	comparison_free(own);
	assert_rope_fused(compare(s[1], s[0], cl[0], NULL, &own), SIDE_A);
	comparison_free(own);
	/* the eager rotations interrupted by the GEMMs */
	assert_rope_fused(compare(s[2], s[1], cl[0], NULL, &own), SIDE_B);
	comparison_free(own);
	for (int k = 0; k < 3; k++)
		release(t[k], cl[k], s[k]);
}
END_TEST

/* Training steps: forward layers in module calls, backward kernels launched by autograd's
 * thread inside evaluate_function ranges, the optimizer inside Optimizer.step; each
 * ProfilerStep is one pass of phase train with its backward and optimizer parts. With the
 * sequence numbers that tie each backward node to its forward op, the backward part has a
 * layer per forward layer (they run in reverse order); without them it is one part. */
START_TEST(test_train_steps)
{
	const int with_seq = _i;
	static const struct kop block[] = { GEMM, RELU, GEMM };
	static const struct kop bwd[] = { GEMM, GEMM, RELU };
	static const struct kop opt = {
		"void at::native::(anonymous "
		"namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
		"namespace)::TensorListMetadata<4>, at::native::(anonymous "
		"namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)0, false>, "
		"float*, double, double, double, double, double, double, bool, float*, "
		"float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
		"at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
		"(at::native::ADAM_MODE)0, false>, float*, double, double, double, double, double, "
		"double, bool, float*, float*)",
		"aten::_fused_adam_"
	};
	struct gen g;
	struct trace *t;
	struct classifier *cl;
	struct side *s;
	struct comparison *own;
	const struct comparison *c;
	char label[64];
	int names = 0;

	gen_init(&g);
	for (int step = 0; step < 2; step++) {
		double start = g.cpu, m = g.cpu, o;
		char name[64];

		for (int l = 0; l < 3; l++) {
			double l0 = g.cpu;

			g.seq = with_seq ? 100 * step + l + 1 : 0;
			gen_kernels(&g, block, N(block));
			g.seq = 0;
			snprintf(name, sizeof name, "Block_%d", l);
			gen_module(&g, name, l0);
		}
		gen_module(&g, "Net_0", m);
		for (int l = 2; l >= 0; l--) {
			double b0 = g.cpu;
			char args[64] = "";

			for (size_t i = 0; i < N(bwd); i++)
				gen_kernel_tid(&g, &bwd[i], 2);
			if (with_seq)
				snprintf(args, sizeof args, "\"Sequence number\":%d",
					 100 * step + l + 1);
			jevent(&g.b, "cpu_op",
			       "autograd::engine::evaluate_function: AddmmBackward0", 1, 2, b0,
			       g.cpu - b0, args);
			g.cpu += 0.3;
		}
		o = g.cpu;
		gen_kernel_tid(&g, &opt, 1);
		gen_annotation(&g, "Optimizer.step#Adam.step", o);
		snprintf(name, sizeof name, "ProfilerStep#%d", step);
		gen_annotation(&g, name, start);
	}
	s = build(&t, &cl, &g);
	ck_assert_uint_eq(s->n_passes, 2);
	for (size_t p = 0; p < 2; p++) {
		const struct pass *ps = &s->passes[p];
		int32_t seen[8], n = 0;

		ck_assert_int_eq(ps->phase, PHASE_TRAIN);
		ck_assert_uint_eq(ps->n_layers, 3);
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &s->layers[ps->layer_first + l];

			if (strcmp(s->stacks[ly->stack], "backward") == 0 && ly->index >= 0 &&
			    n < 8)
				seen[n++] = ly->index;
		}
		if (with_seq) { /* the gradients run from the last layer to the first */
			ck_assert_int_eq(n, 3);
			ck_assert(seen[0] == 2 && seen[1] == 1 && seen[2] == 0);
		} else {
			ck_assert_int_eq(n, 0);
		}
	}
	c = compare(s, s, cl, NULL, &own);
	ck_assert_int_eq(c->phase, PHASE_TRAIN);
	for (size_t i = 0; i < c->n_layers; i++) {
		comparison_layer_label(c, (int32_t)i, label, sizeof label);
		if (strcmp(label, "backward") == 0 && !with_seq) {
			ck_assert_double_eq_tol(c->layers[i].kernels[0], 9, 1e-9);
			names |= 1;
		} else if (strncmp(label, "backward.", 9) == 0 && with_seq) {
			/* backward.0, .1, .2: three kernels each, in reverse order of running */
			ck_assert_msg(strcmp(label, "backward.prologue") == 0 ||
					      c->layers[i].kernels[0] == 3,
				      "%s: %g kernels", label, c->layers[i].kernels[0]);
			names |= strcmp(label, "backward.2") == 0;
		} else if (strcmp(label, "optimizer") == 0) {
			ck_assert_double_eq_tol(c->layers[i].kernels[0], 1, 1e-9);
			names |= 2;
		}
	}
	ck_assert_int_eq(names, 3);
	comparison_free(own);
	release(t, cl, s);
}
END_TEST

/* One scan op: rocPRIM's one kernel against CUB's init (a helper) and scan is the same work,
 * not a fusion. */
START_TEST(test_helpers_make_no_fusion)
{
	static const struct kop rocm[] = {
		GEMM,
		{ "void rocprim::detail::lookback_scan_kernel<true, "
		  "rocprim::detail::wrapped_scan_config<rocprim::default_config, long>, long*, "
		  "long*, rocprim::plus<long>, long, rocprim::detail::lookback_scan_state<long, "
		  "true, true>>(long*, long*, unsigned long, "
		  "rocprim::detail::lookback_scan_state<long, true, true>, unsigned int, "
		  "rocprim::plus<long>, long, bool, bool, "
		  "rocprim::detail::ordered_block_id<unsigned int>)",
		  "aten::cumsum" },
		GEMM
	};
	static const struct kop cuda[] = {
		GEMM,
		{ "void "
		  "cub::CUB_200200_800_NS::DeviceScanInitKernel<cub::CUB_200200_800_NS::"
		  "ScanTileState<long, true> >(cub::CUB_200200_800_NS::ScanTileState<long, true>, "
		  "int)",
		  "aten::cumsum" },
		{ "void "
		  "cub::CUB_200200_800_NS::DeviceScanKernel<cub::CUB_200200_800_NS::"
		  "DeviceScanPolicy<long, std::plus<long> >::Policy600, long const*, long*, "
		  "cub::CUB_200200_800_NS::ScanTileState<long, true>, std::plus<long>, "
		  "cub::CUB_200200_800_NS::NullType, int, long>(long const*, long*, "
		  "cub::CUB_200200_800_NS::ScanTileState<long, true>, int, std::plus<long>, "
		  "cub::CUB_200200_800_NS::NullType, int)",
		  "aten::cumsum" },
		GEMM
	};
	struct gen g[2];
	struct trace *t[2];
	struct classifier *cl[2];
	struct side *s[2];
	struct comparison *own;
	const struct comparison *c;

	for (int k = 0; k < 2; k++) {
		double start;

		gen_init(&g[k]);
		start = g[k].cpu;
		if (k == 0)
			gen_kernels(&g[k], rocm, N(rocm));
		else
			gen_kernels(&g[k], cuda, N(cuda));
		gen_annotation(&g[k], "prefill", start);
		s[k] = build(&t[k], &cl[k], &g[k]);
	}
	c = compare(s[0], s[1], cl[0], NULL, &own);
	ck_assert_uint_eq(c->n_fusions, 0);
	for (size_t i = 0; i < c->n_pairs; i++)
		ck_assert_int_eq(c->pairs[i].kind, PAIR_MATCH);
	comparison_free(own);
	for (int k = 0; k < 2; k++)
		release(t[k], cl[k], s[k]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("hand");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_two_stacks);
	tcase_add_test(tc, test_dit_steps);
	tcase_add_test(tc, test_no_repetition);
	tcase_add_test(tc, test_different_depths);
	tcase_add_test(tc, test_interrupted_runs);
	tcase_add_loop_test(tc, test_train_steps, 0, 2);
	tcase_add_test(tc, test_helpers_make_no_fusion);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
