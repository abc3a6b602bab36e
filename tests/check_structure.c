/* check_structure.c — passes, phases, layers and steps (structure.h) on the real traces and on
 * small hand-written ones. */
#include "jtrace.h"

#include "fusediff/structure.h"
#include "src/structure/structure_int.h"

struct fixture {
	struct trace *t;
	struct classifier *c;
	struct side s;
};

static void build(struct fixture *f, struct trace *t, const char *regex)
{
	struct fd_error err = { { 0 } };
	struct side_opts o = { .pass_regex = regex };

	f->t = t;
	f->c = test_classifier();
	if (side_build(&f->s, t, f->c, &o, &err) < 0)
		ck_abort_msg("side_build %s: %s", t->path, err.msg);
}

static void build_file(struct fixture *f, const char *path)
{
	build(f, test_load(path), NULL);
}

static void done(struct fixture *f)
{
	side_clear(&f->s);
	classifier_free(f->c);
	trace_free(f->t);
}

static const char *kname(const struct side *s, uint32_t order_pos)
{
	return trace_str(s->t, s->t->kernels[s->order[order_pos]].name);
}

static const char *main_name(const struct side *s, const struct step *st)
{
	return trace_str(s->t, side_step_main(s, st)->name);
}

/* The steps of pass p: [*first, *first + *n) in s->steps. */
static void pass_steps(const struct side *s, size_t p, uint32_t *first, uint32_t *n)
{
	const struct pass *ps = &s->passes[p];
	const struct layer *last = &s->layers[ps->layer_first + ps->layer_n - 1];

	*first = s->layers[ps->layer_first].step_first;
	*n = last->step_first + last->step_n - *first;
}

/* Every kernel is in exactly one pass's prologue, layer or epilogue, or counted unassigned;
 * passes, layers and steps tile each other without gaps. */
static void check_invariants(const struct side *s)
{
	const struct trace *t = s->t;
	uint8_t *seen = calloc(t->n_kernels ? t->n_kernels : 1, 1);
	uint32_t at = 0, step_at = 0, layer_at = 0;

	ck_assert_uint_eq(s->n_order + s->n_unassigned, t->n_kernels);
	for (size_t i = 0; i < s->n_order; i++) {
		ck_assert_uint_lt(s->order[i], t->n_kernels);
		ck_assert_int_eq(seen[s->order[i]], 0);
		seen[s->order[i]] = 1;
	}
	for (size_t p = 0; p < s->n_passes; p++) {
		const struct pass *ps = &s->passes[p];
		int64_t dur = 0;

		ck_assert_uint_eq(ps->first, at);
		ck_assert_uint_eq(ps->layer_first, layer_at);
		ck_assert_uint_eq(ps->layer_n, ps->n_layers + 2);
		ck_assert_int_eq(s->layers[ps->layer_first].index, LAYER_PROLOGUE);
		ck_assert_int_eq(s->layers[ps->layer_first + ps->layer_n - 1].index,
				 LAYER_EPILOGUE);
		ck_assert_uint_lt(ps->phase, PHASE_COUNT);
		for (uint32_t l = 0; l < ps->layer_n; l++) {
			const struct layer *ly = &s->layers[ps->layer_first + l];
			int64_t ldur = 0;

			if (l > 0 && l + 1 < ps->layer_n) {
				ck_assert_int_eq(ly->index, (int32_t)l - 1);
				ck_assert_uint_gt(ly->step_n, 0);
			}
			ck_assert_uint_eq(ly->step_first, step_at);
			for (uint32_t j = 0; j < ly->step_n; j++) {
				const struct step *st = &s->steps[ly->step_first + j];
				int64_t sdur = 0;

				ck_assert_uint_eq(st->first, at);
				ck_assert_uint_gt(st->n, 0);
				ck_assert_uint_lt(st->main, st->n);
				ck_assert_uint_ge(st->n_work, 1);
				for (uint32_t i = 0; i < st->n; i++)
					sdur += side_step_kernel(s, st, i)->dur;
				ck_assert_int_eq(sdur, st->dur);
				ldur += st->dur;
				at += st->n;
			}
			ck_assert_int_eq(ldur, ly->dur);
			dur += ldur;
			step_at += ly->step_n;
		}
		layer_at += ps->layer_n;
		ck_assert_uint_eq(at, ps->first + ps->n);
		ck_assert_int_eq(dur, ps->dur);
	}
	ck_assert_uint_eq(at, s->n_order);
	ck_assert_uint_eq(step_at, s->n_steps);
	ck_assert_uint_eq(layer_at, s->n_layers);
	free(seen);
}

/* What SOURCES.md says each trace holds. */
static const struct {
	const char *file;
	uint32_t prefill, decode, layers;
	const char *layer_source;
} real[] = {
	{ "llama8l_eager_sdpa.json.gz", 2, 16, 8, "nn.Module LlamaDecoderLayer" },
	{ "llama8l_compiled_sdpa.json.gz", 2, 0, 8, "attention anchors" },
	{ "llama8l_eager_mathattn.json.gz", 2, 16, 8, "period of the op sequence" },
	{ "moe6l_eager_sdpa.json.gz", 2, 8, 6, "attention anchors" },
	{ "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz", 0, 1, 32,
	  "attention anchors" },
	{ "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz", 0, 1, 32,
	  "attention anchors" },
	{ "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz", 1, 0, 24, "nn.Module Qwen2DecoderLayer" },
	{ "tracelens_qwen1.5-0.5b_hf_h100.json.gz", 1, 0, 24, "nn.Module Qwen2DecoderLayer" },
	{ "tracelens_bert-small_hf_mi300x.json.gz", 1, 0, 4, "nn.Module BertLayer" },
	{ "tracelens_bert-small_hf_h100.json.gz", 1, 0, 4, "nn.Module BertLayer" },
};

/* Passes, phases and layers per pass: every pass, not just the usual one. */
START_TEST(test_real_counts)
{
	struct fixture f;

	build_file(&f, test_trace(real[_i].file));
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, real[_i].prefill + real[_i].decode);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_PREFILL], real[_i].prefill);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_DECODE], real[_i].decode);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_MIXED], 0);
	ck_assert_uint_eq(f.s.layers_per_pass, real[_i].layers);
	for (size_t p = 0; p < f.s.n_passes; p++)
		ck_assert_uint_eq(f.s.passes[p].n_layers, real[_i].layers);
	ck_assert_str_eq(f.s.layer_source, real[_i].layer_source);
	/* every model here has an epilogue (final norm and LM head, or BERT's pooler) */
	for (size_t p = 0; p < f.s.n_passes; p++) {
		const struct pass *ps = &f.s.passes[p];

		ck_assert_uint_gt(f.s.layers[ps->layer_first + ps->layer_n - 1].step_n, 0);
	}
	done(&f);
}
END_TEST

START_TEST(test_large_shared_trace)
{
	const char *p = test_shared_trace("llama3_8b_shape_eager_sdpa.json.gz");
	struct fixture f;

	if (!p) {
		fprintf(stderr,
			"llama3_8b_shape trace not found next to the checkout: not checked\n");
		return;
	}
	build_file(&f, p);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_PREFILL], 1);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_DECODE], 32);
	for (size_t i = 0; i < f.s.n_passes; i++)
		ck_assert_uint_eq(f.s.passes[i].n_layers, 32);
	done(&f);
}
END_TEST

/* How the passes were found, in words the user reads. */
START_TEST(test_pass_sources)
{
	struct fixture f;

	build_file(&f, test_trace("llama8l_eager_sdpa.json.gz"));
	ck_assert_str_eq(f.s.pass_source, "gpu_user_annotation 'prefill', 'decode'");
	/* the two argmax kernels of sampling between passes, and the input generation */
	ck_assert_uint_eq(f.s.n_unassigned, 18);
	ck_assert_str_eq(trace_str(f.t, f.s.passes[0].name), "prefill");
	done(&f);

	/* compiled: the GPU ranges are Inductor's, the passes are CPU ranges */
	build_file(&f, test_trace("llama8l_compiled_sdpa.json.gz"));
	ck_assert_str_eq(f.s.pass_source,
			 "user_annotation 'prefill' (kernels by launch correlation)");
	done(&f);

	/* SGLang: execute_... on two streams with step[DECODE] nested inside is one pass */
	build_file(&f,
		   test_trace("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"));
	ck_assert_str_eq(f.s.pass_source,
			 "gpu_user_annotation 'execute_16_context_0(sq0sk0sqsq0sqsk0...'");
	ck_assert_str_eq(
		trace_str(f.t, f.s.passes[0].name),
		"execute_16_context_0(sq0sk0sqsq0sqsk0)_generation_16(sq16sk8209sqsq16sqsk8209)");
	/* both streams' kernels of the step are in the pass */
	{
		int streams[2] = { 0, 0 };

		for (uint32_t i = 0; i < f.s.passes[0].n; i++) {
			int32_t st = f.t->kernels[f.s.order[f.s.passes[0].first + i]].stream;

			streams[st == 29] = 1;
		}
		ck_assert(streams[0] && streams[1]);
	}
	done(&f);

	/* Qwen1.5 H100: the kernels before ProfilerStep#6 are the tail of an earlier step
	 * (queued before the profiler started: no launch events); they stay unassigned */
	build_file(&f, test_trace("tracelens_qwen1.5-0.5b_hf_h100.json.gz"));
	ck_assert_uint_eq(f.s.passes[0].n, 1198);
	ck_assert_uint_eq(f.s.n_unassigned, 509);
	done(&f);
}
END_TEST

/* A layer starts at its input norm with the residual add before it, on every side: eager Llama
 * (add, then the RMSNorm run), torch.compile (one add+rmsnorm kernel) and SGLang (fused
 * add+RMSNorm); the last layer ends with the down GEMM and the final add+norm is the epilogue. */
START_TEST(test_cut_rule)
{
	static const char *const files[] = {
		"llama8l_eager_sdpa.json.gz",
		"llama8l_eager_mathattn.json.gz",
		"llama8l_compiled_sdpa.json.gz",
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz",
	};
	struct fixture f;

	build_file(&f, test_trace(files[_i]));
	for (size_t p = 0; p < f.s.n_passes; p++) {
		const struct pass *ps = &f.s.passes[p];

		for (uint32_t l = 2; l < ps->layer_n; l++) {
			const struct layer *ly = &f.s.layers[ps->layer_first + l];
			const struct layer *prev = &f.s.layers[ps->layer_first + l - 1];
			const struct step *first = &f.s.steps[ly->step_first];
			const struct step *last = &f.s.steps[prev->step_first + prev->step_n - 1];

			/* the previous layer ends with its down GEMM */
			ck_assert_msg(last->cls == CLASS_GEMM, "%s pass %zu layer %d ends with %s",
				      files[_i], p, prev->index, class_name(last->cls));
			if (first->cls == CLASS_NORM) {
				/* fused: add+rmsnorm in one kernel (the first layer of SGLang has
				 * no add) */
				ck_assert(first->atoms & ATOM_BIT(ATOM_RMSNORM));
				ck_assert(ly->index == 0 || ly->index == LAYER_EPILOGUE ||
					  (first->atoms & ATOM_BIT(ATOM_ADD)));
			} else {
				/* eager: the residual add, then the RMSNorm run */
				ck_assert_msg(first->cls == CLASS_ELEMENTWISE &&
						      first->atoms == ATOM_BIT(ATOM_ADD),
					      "%s pass %zu layer %d starts with %s", files[_i], p,
					      ly->index, class_name(first->cls));
				ck_assert_uint_eq(first[1].cls, CLASS_NORM);
				ck_assert_uint_eq(first[1].kind, STEP_RUN);
			}
		}
	}
	done(&f);
}
END_TEST

/* Qwen3-MoE runs q and k norms between the input norm and attention: the layer still starts at
 * the input norm (with its residual add), not at the k norm nearest to the attention. */
START_TEST(test_qk_norms)
{
	struct fixture f;

	build_file(&f, test_trace("moe6l_eager_sdpa.json.gz"));
	for (size_t p = 0; p < f.s.n_passes; p++) {
		const struct pass *ps = &f.s.passes[p];

		for (uint32_t l = 1; l + 1 < ps->layer_n; l++) {
			const struct layer *ly = &f.s.layers[ps->layer_first + l];
			const struct step *st = &f.s.steps[ly->step_first];
			uint32_t norms = 0, j = 0;

			if (ly->index > 0) {
				ck_assert_uint_eq(st[j].cls, CLASS_ELEMENTWISE);
				ck_assert_uint_eq(st[j].atoms, ATOM_BIT(ATOM_ADD));
				j++;
			}
			ck_assert_uint_eq(st[j].cls, CLASS_NORM);
			for (; j < ly->step_n && st[j].cls != CLASS_ATTENTION; j++)
				norms += st[j].cls == CLASS_NORM;
			ck_assert_uint_eq(norms, 3); /* input, q and k norms before attention */
			for (; j < ly->step_n; j++)
				norms += st[j].cls == CLASS_NORM;
			ck_assert_uint_eq(norms, 4);
		}
	}
	done(&f);
}
END_TEST

/* Eager Llama prefill: exactly two RMSNorm runs per layer, each eight kernels (copy, pow, mean,
 * add, rsqrt, mul, copy, mul) with the op's atoms; RoPE's mul/neg/cat/mul/add is one run per
 * tensor rotated, q then k (so that each pairs with a compiled side's q- or k-RoPE kernel);
 * SiLU and mul stay separate steps. The same with module ranges (sdpa trace, recorded with
 * stacks) and without (math-attention trace). */
START_TEST(test_eager_runs)
{
	static const char *const files[] = { "llama8l_eager_sdpa.json.gz",
					     "llama8l_eager_mathattn.json.gz" };
	struct fixture f;

	build_file(&f, test_trace(files[_i]));
	for (size_t p = 0; p < 2; p++) {
		const struct pass *ps = &f.s.passes[p];

		ck_assert_uint_eq(ps->phase, PHASE_PREFILL);
		for (uint32_t l = 1; l + 1 < ps->layer_n; l++) {
			const struct layer *ly = &f.s.layers[ps->layer_first + l];
			uint32_t norms = 0, ropes = 0, silu = 0;

			for (uint32_t j = 0; j < ly->step_n; j++) {
				const struct step *st = &f.s.steps[ly->step_first + j];

				if (st->cls == CLASS_NORM) {
					ck_assert_uint_eq(st->kind, STEP_RUN);
					ck_assert_uint_eq(st->n, 8);
					ck_assert_uint_eq(st->n_work, 8);
					ck_assert_uint_eq(st->atoms, ATOM_BIT(ATOM_RMSNORM) |
									     ATOM_BIT(ATOM_CAST));
					norms++;
				}
				if (st->cls == CLASS_ROPE) {
					ck_assert_uint_eq(st->kind, STEP_RUN);
					ck_assert_uint_eq(st->n, 5);
					ck_assert_uint_eq(st->atoms, ATOM_BIT(ATOM_ROPE));
					if (ropes == 1) /* k right after q */
						ck_assert_uint_eq(st[-1].cls, CLASS_ROPE);
					ropes++;
				}
				if (st->atoms & ATOM_BIT(ATOM_SILU)) {
					ck_assert_uint_eq(st->kind, STEP_SINGLE);
					ck_assert_uint_eq(st->atoms, ATOM_BIT(ATOM_SILU));
					/* gate GEMM before, up GEMM after: not adjacent to the mul
					 */
					ck_assert_uint_eq(st[-1].cls, CLASS_GEMM);
					ck_assert_uint_eq(st[1].cls, CLASS_GEMM);
					silu++;
				}
			}
			ck_assert_uint_eq(norms, 2);
			ck_assert_uint_eq(ropes, 2);
			ck_assert_uint_eq(silu, 1);
		}
	}
	done(&f);
}
END_TEST

/* Helpers belong to their main kernel: the B300 down projection (split-K GEMM + splitKreduce)
 * is one GEMM step in every layer; MI300X paged attention (QKV + reduce) is one attention
 * step; in eager decode, cuDNN's attention and its reduction kernel are one step too. */
START_TEST(test_aux_steps)
{
	struct fixture f;
	uint32_t n = 0;

	build_file(&f,
		   test_trace("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"));
	for (uint32_t l = 1; l + 1 < f.s.passes[0].layer_n; l++) {
		const struct layer *ly = &f.s.layers[f.s.passes[0].layer_first + l];
		const struct step *last = &f.s.steps[ly->step_first + ly->step_n - 1];

		ck_assert_uint_eq(last->cls, CLASS_GEMM);
		ck_assert_uint_eq(last->kind, STEP_AUX);
		ck_assert_uint_eq(last->n, 2);
		ck_assert_uint_eq(last->n_work, 1);
		ck_assert_uint_eq(last->atoms, ATOM_BIT(ATOM_GEMM));
		ck_assert_ptr_nonnull(strstr(main_name(&f.s, last), "splitK_TNT"));
		ck_assert_ptr_nonnull(strstr(kname(&f.s, last->first + 1), "splitKreduce"));
		n++;
	}
	ck_assert_uint_eq(n, 32);
	done(&f);

	/* MI300X: paged attention is QKV + reduce, one step in every layer */
	n = 0;
	build_file(&f,
		   test_trace("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"));
	for (size_t j = 0; j < f.s.n_steps; j++) {
		const struct step *st = &f.s.steps[j];

		if (strstr(main_name(&f.s, st), "paged_attention_ll4mi_reduce"))
			ck_assert_msg(
				!strstr(kname(&f.s, st->first - 1), "paged_attention_ll4mi_QKV"),
				"a reduce after its QKV kernel is a step of its own");
		if (st->kind == STEP_AUX && st->cls == CLASS_ATTENTION) {
			ck_assert_uint_eq(st->n, 2);
			ck_assert_uint_eq(st->n_work, 1);
			ck_assert_ptr_nonnull(
				strstr(main_name(&f.s, st), "paged_attention_ll4mi_QKV"));
			ck_assert_ptr_nonnull(
				strstr(kname(&f.s, st->first + 1), "paged_attention_ll4mi_reduce"));
			n++;
		}
	}
	ck_assert_uint_eq(n, 32);
	done(&f);

	/* eager: cuDNN attention with its workspace memset (prefill) or its reduction kernel
	 * (decode) is one attention step per layer */
	build_file(&f, test_trace("llama8l_eager_sdpa.json.gz"));
	for (size_t p = 0; p < f.s.n_passes; p++) {
		uint32_t first, count;

		pass_steps(&f.s, p, &first, &count);
		n = 0;
		for (uint32_t j = first; j < first + count; j++) {
			const struct step *st = &f.s.steps[j];

			if (st->cls != CLASS_ATTENTION)
				continue;
			ck_assert_uint_eq(st->kind, STEP_AUX);
			ck_assert_uint_eq(st->n, 2);
			ck_assert_uint_eq(st->n_work, 1);
			ck_assert_ptr_nonnull(strstr(main_name(&f.s, st), "sdpa"));
			n++;
		}
		ck_assert_uint_eq(n, 8);
	}
	done(&f);
}
END_TEST

/* Without any annotation, passes come from the repetition of the layer structure: the same
 * passes as the annotations give, each starting at its embedding lookup (so every decode pass
 * holds the same kernels), with attention kernels or, for math attention, the softmax as the
 * anchors. */
START_TEST(test_passes_by_structure)
{
	static const struct {
		const char *file, *layer_source;
		uint32_t decode_kernels;
	} c[] = {
		{ "llama8l_eager_sdpa.json.gz", "attention anchors", 359 },
		{ "llama8l_eager_mathattn.json.gz", "period of the op sequence", 425 },
	};
	struct fixture f;
	struct trace *t;
	size_t n_ranges;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		t = test_load(test_trace(c[i].file));
		n_ranges = t->n_ranges;
		t->n_ranges = 0; /* no annotations, no module ranges */
		build(&f, t, NULL);
		check_invariants(&f.s);
		ck_assert_str_eq(f.s.pass_source, "repetition of the layer structure");
		ck_assert_str_eq(f.s.layer_source, c[i].layer_source);
		ck_assert_uint_eq(f.s.n_passes, 18);
		ck_assert_uint_eq(f.s.phase_passes[PHASE_PREFILL], 2);
		ck_assert_uint_eq(f.s.phase_passes[PHASE_DECODE], 16);
		for (size_t p = 0; p < f.s.n_passes; p++) {
			ck_assert_uint_eq(f.s.passes[p].n_layers, 8);
			if (f.s.passes[p].phase == PHASE_DECODE)
				ck_assert_uint_eq(f.s.passes[p].n, c[i].decode_kernels);
		}
		ck_assert_uint_eq(f.s.n_unassigned, 0);
		side_clear(&f.s);
		t->n_ranges = n_ranges;
		classifier_free(f.c);
		trace_free(t);
	}

	/* one forward pass and nothing to split: the whole trace is the pass */
	t = test_load(test_trace("tracelens_bert-small_hf_h100.json.gz"));
	n_ranges = t->n_ranges;
	t->n_ranges = 0;
	build(&f, t, NULL);
	ck_assert_str_eq(f.s.pass_source, "whole trace (no pass annotations)");
	ck_assert_uint_eq(f.s.n_passes, 1);
	ck_assert_uint_eq(f.s.passes[0].n_layers, 4);
	side_clear(&f.s);
	t->n_ranges = n_ranges;
	classifier_free(f.c);
	trace_free(t);
}
END_TEST

/* --pass REGEX: only matching annotations; errors name the problem. */
START_TEST(test_pass_regex)
{
	struct fixture f;
	struct fd_error err = { { 0 } };
	struct side s;
	struct side_opts o = { 0 };

	build(&f, test_load(test_trace("llama8l_eager_sdpa.json.gz")), "^decode$");
	ck_assert_uint_eq(f.s.n_passes, 16);
	ck_assert_uint_eq(f.s.phase_passes[PHASE_DECODE], 16);
	ck_assert_str_eq(f.s.pass_source, "--pass '^decode$': gpu_user_annotation 'decode'");
	check_invariants(&f.s);

	o.pass_regex = "(unclosed";
	ck_assert_int_eq(side_build(&s, f.t, f.c, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--pass '(unclosed': invalid regular expression: "));
	o.pass_regex = "^forward$";
	ck_assert_int_eq(side_build(&s, f.t, f.c, &o, &err), -1);
	ck_assert_str_eq(err.msg, "--pass '^forward$' matches no annotation or nn.Module call");
	done(&f);
}
END_TEST

/* Phases from annotation names, including the vLLM/SGLang forms. */
START_TEST(test_phase_names)
{
	static const struct {
		const char *name;
		int phase;
	} c[] = {
		{ "prefill", PHASE_PREFILL },
		{ "decode", PHASE_DECODE },
		{ "execute_16_context_0(sq0sk0sqsq0sqsk0)_generation_16(sq16sk8209sqsq16sqsk8209)",
		  PHASE_DECODE },
		{ "execute_4_context_4(sq512sk512)_generation_0(sq0sk0)", PHASE_PREFILL },
		{ "execute_20_context_4(sq512sk512)_generation_16(sq16sk900)", PHASE_MIXED },
		{ "execute_context_0(0)_generation_8(8)", PHASE_DECODE },
		{ "step[DECODE bs=16]", PHASE_DECODE },
		{ "step[EXTEND bs=2]", PHASE_PREFILL },
		{ "step[MIXED bs=8]", PHASE_MIXED },
		{ "ProfilerStep#6", -1 },
		{ "## Call CompiledFxGraph abc ##", -1 },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ck_assert_msg(phase_of_annotation(c[i].name) == c[i].phase, "%s", c[i].name);
	ck_assert_int_eq(phase_from_name("Decode"), PHASE_DECODE);
	ck_assert_int_eq(phase_from_name("all"), PHASE_COUNT);
	ck_assert_int_eq(phase_from_name("both"), -1);
}
END_TEST

/* --- hand-written traces (jtrace.h) ------------------------------------------------------ */

/* ProfilerStep#1 around a prefill and a decode: two passes, not one; a kernel launched inside
 * the ProfilerStep but outside both is outside every pass. CPU ranges only: kernels by launch
 * correlation, although they run long after the CPU ranges end. */
START_TEST(test_nested_cpu_annotations)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000, cpu = 10;

	jevent(&b, "user_annotation", "ProfilerStep#1", 1, 1, 0, 1000, "\"External id\":900001");
	jevent(&b, "user_annotation", "prefill", 1, 1, 5, 300, "\"External id\":900002");
	cpu = jpass(&b, 3, cpu, &gpu, 7);
	/* sampling between the passes, in a range of its own that does not look like a pass */
	jevent(&b, "user_annotation", "sample", 1, 1, 395, 20, "\"External id\":900004");
	jkernel(&b, "argmax_kernel", 400, gpu += 10, 7);
	jevent(&b, "user_annotation", "decode", 1, 1, 500, 300, "\"External id\":900003");
	gpu += 10;
	jpass(&b, 3, 510, &gpu, 7);
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, 2);
	ck_assert_str_eq(trace_str(f.t, f.s.passes[0].name), "prefill");
	ck_assert_uint_eq(f.s.passes[0].phase, PHASE_PREFILL);
	ck_assert_uint_eq(f.s.passes[1].phase, PHASE_DECODE);
	ck_assert_uint_eq(f.s.passes[0].n_layers, 3);
	ck_assert_uint_eq(f.s.passes[1].n_layers, 3);
	ck_assert_uint_eq(f.s.n_unassigned, 1);
	ck_assert_str_eq(f.s.pass_source,
			 "user_annotation 'prefill', 'decode' (kernels by launch correlation)");
	/* prologue: the embedding; epilogue: the final norm and the LM head */
	ck_assert_uint_eq(f.s.layers[f.s.passes[0].layer_first].step_n, 1);
	ck_assert_uint_eq(f.s.layers[f.s.passes[0].layer_first + 4].step_n, 2);
	done(&f);
	(void)cpu;
}
END_TEST

/* One ProfilerStep#N around a whole generate() (no annotation per forward pass): the pass is
 * split where the layer structure shows a new forward pass starting. */
START_TEST(test_profiler_step_around_generate)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000, cpu = 10;

	jevent(&b, "user_annotation", "ProfilerStep#1", 1, 1, 0, 5000, "\"External id\":900001");
	for (int p = 0; p < 4; p++) {
		cpu = jpass(&b, 3, cpu, &gpu, 7) + 50;
		gpu += 500; /* the CPU samples the next token */
	}
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, 4);
	ck_assert_str_eq(f.s.pass_source, "user_annotation 'ProfilerStep#1' (kernels by launch "
					  "correlation), split by the layer structure");
	for (size_t p = 0; p < 4; p++) {
		ck_assert_str_eq(trace_str(f.t, f.s.passes[p].name), "ProfilerStep#1");
		ck_assert_uint_eq(f.s.passes[p].n, 1 + 3 * 8 + 2);
		ck_assert_uint_eq(f.s.passes[p].n_layers, 3);
	}
	done(&f);
}
END_TEST

/* vLLM-style: each engine step is execute_model with preprocess, forward and sample ranges
 * inside: one pass per step (forward and its surroundings), not three. */
START_TEST(test_nested_step_ranges)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000, cpu = 0;

	for (int step = 0; step < 2; step++, cpu += 1000) {
		jevent(&b, "user_annotation", "execute_model", 1, 1, cpu, 900, "\"External id\":0");
		jevent(&b, "user_annotation", "gpu_model_runner: preprocess", 1, 1, cpu + 1, 8,
		       "\"External id\":0");
		jkernel(&b, "prepare_inputs_kernel", cpu + 2, gpu += 10, 7);
		jevent(&b, "user_annotation", "gpu_model_runner: forward", 1, 1, cpu + 10, 500,
		       "\"External id\":0");
		jpass(&b, 3, cpu + 11, &gpu, 7);
		jevent(&b, "user_annotation", "gpu_model_runner: sample", 1, 1, cpu + 600, 50,
		       "\"External id\":0");
		jkernel(&b, "argmax_kernel", cpu + 601, gpu += 10, 7);
		gpu += 100;
	}
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, 2);
	ck_assert_str_eq(trace_str(f.t, f.s.passes[0].name), "execute_model");
	ck_assert_uint_eq(f.s.n_unassigned, 0);
	for (size_t p = 0; p < 2; p++) {
		ck_assert_uint_eq(f.s.passes[p].n, 1 + 1 + 3 * 8 + 2 + 1);
		ck_assert_uint_eq(f.s.passes[p].n_layers, 3);
	}
	done(&f);
}
END_TEST

/* SGLang-style: execute_... recorded on two streams, step[DECODE] nested inside it: one decode
 * pass holding the kernels of both streams, merged by time without splitting a step. A kernel
 * queued before the profiler started (no launch event) before the GPU range is outside. */
START_TEST(test_nested_gpu_annotations)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000;
	const char *exe = "execute_4_context_0(sq0)_generation_4(sq4)";

	jevent(&b, "kernel", "leftover_kernel", 0, 7, 4000, 5, "\"device\":0,\"stream\":7");
	jevent(&b, "user_annotation", exe, 1, 1, 0, 1000, "\"External id\":900001");
	jevent(&b, "gpu_user_annotation", exe, 0, 7, 5000, 400, "\"External id\":900001");
	jevent(&b, "gpu_user_annotation", exe, 0, 9, 5000, 400, "\"External id\":900001");
	jevent(&b, "user_annotation", "step[DECODE bs=4]", 1, 1, 5, 900, "\"External id\":900002");
	jevent(&b, "gpu_user_annotation", "step[DECODE bs=4]", 0, 7, 5000, 400,
	       "\"External id\":900002");
	jkernel(&b, "copy_inputs_kernel", 2, 5001, 9); /* side stream, during the embedding */
	jpass(&b, 3, 10, &gpu, 7);
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, 1);
	ck_assert_uint_eq(f.s.passes[0].phase, PHASE_DECODE);
	ck_assert_str_eq(f.s.pass_source,
			 "gpu_user_annotation 'execute_4_context_0(sq0)_generation_4...'");
	ck_assert_uint_eq(f.s.passes[0].n_layers, 3);
	ck_assert_uint_eq(f.s.n_unassigned, 1);
	ck_assert_uint_eq(f.s.passes[0].n, 1 + 1 + 3 * 8 + 2);
	done(&f);
}
END_TEST

/* Streams are merged in launch order when every kernel of the pass has its launch event: a
 * side-stream kernel launched after the layers (the next step's input, SGLang's overlap
 * scheduler) that the GPU runs during them is not glued into a layer. */
START_TEST(test_streams_merged_in_launch_order)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000;
	const struct pass *ps;

	jevent(&b, "user_annotation", "decode", 1, 1, 0, 1000, "\"External id\":900001");
	jpass(&b, 3, 10, &gpu, 7);
	/* launched last, runs on stream 9 while layer 0 runs on stream 7 */
	jkernel(&b, "prepare_next_input_kernel", 500, 5000 + 10 * 4 + 3, 9);
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ps = &f.s.passes[0];
	ck_assert_uint_eq(f.s.n_passes, 1);
	ck_assert_uint_eq(ps->n_layers, 3);
	for (uint32_t l = 1; l + 1 < ps->layer_n; l++)
		ck_assert_uint_eq(f.s.layers[ps->layer_first + l].step_n, 8);
	/* the epilogue: final norm, LM head, then the side-stream kernel */
	{
		const struct layer *epi = &f.s.layers[ps->layer_first + ps->layer_n - 1];

		ck_assert_uint_eq(epi->step_n, 3);
		ck_assert_str_eq(main_name(&f.s, &f.s.steps[epi->step_first + 2]),
				 "prepare_next_input_kernel");
	}
	done(&f);
}
END_TEST

/* The same in the SGLang traces: every one of the 32 layers of both sides is the same ten
 * steps (norm, QKV, RoPE, KV write, attention, O, norm, gate-up, act, down); the MI300X side
 * stream's elementwise kernel that the GPU ran during layer 2 is in the epilogue. */
START_TEST(test_sglang_layers_alike)
{
	static const uint8_t want[] = { CLASS_NORM,	  CLASS_GEMM, CLASS_ROPE, CLASS_KV_WRITE,
					CLASS_ATTENTION,  CLASS_GEMM, CLASS_NORM, CLASS_GEMM,
					CLASS_ACTIVATION, CLASS_GEMM };
	static const char *const files[] = {
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz",
	};
	struct fixture f;

	build_file(&f, test_trace(files[_i]));
	for (uint32_t l = 1; l + 1 < f.s.passes[0].layer_n; l++) {
		const struct layer *ly = &f.s.layers[f.s.passes[0].layer_first + l];

		ck_assert_msg(ly->step_n == sizeof want, "%s layer %d: %u steps", files[_i],
			      ly->index, ly->step_n);
		for (uint32_t j = 0; j < ly->step_n; j++)
			ck_assert_msg(f.s.steps[ly->step_first + j].cls == want[j],
				      "%s layer %d step %u: %s", files[_i], ly->index, j,
				      class_name(f.s.steps[ly->step_first + j].cls));
	}
	done(&f);
}
END_TEST

/* A pass cut by the end of the recording (the profiler stopped inside a decode step) or by its
 * start (the tail of a step queued before it) is left out: its kernels are unassigned, the
 * whole passes keep their figures, and the pass source says why. */
START_TEST(test_incomplete_passes_left_out)
{
	struct jbuf b = { .first = 1 };
	struct fixture f;
	double gpu = 5000, cpu = 0;
	size_t before;

	/* no annotations: the passes come from the layer structure; the recording starts inside
	 * one (the last layer and the epilogue of a step) */
	for (size_t i = 5; i < sizeof layer_kernels / sizeof layer_kernels[0]; i++, gpu += 10)
		jkernel(&b, layer_kernels[i], cpu++, gpu, 7);
	jkernel(&b, "fused_add_rms_norm_kernel", cpu++, gpu += 10, 7);
	jkernel(&b, "nvjet_lm_head_gemm", cpu++, gpu += 10, 7);
	for (int p = 0; p < 3; p++) {
		gpu += 500;
		cpu = jpass(&b, 4, cpu + 50, &gpu, 7);
	}
	/* and stops inside one: an embedding and one layer and a half */
	gpu += 500;
	jkernel(&b, "indexSelectLargeIndex_embedding", cpu++, gpu += 10, 7);
	for (size_t i = 0; i < 12; i++, gpu += 10)
		jkernel(&b, layer_kernels[i % 8], cpu++, gpu, 7);
	build(&f, jload(&b), NULL);
	check_invariants(&f.s);
	ck_assert_uint_eq(f.s.n_passes, 3);
	for (size_t p = 0; p < 3; p++) {
		ck_assert_uint_eq(f.s.passes[p].n_layers, 4);
		ck_assert_uint_eq(f.s.passes[p].n, 1 + 4 * 8 + 2);
	}
	before = 3 + 2;
	ck_assert_uint_eq(f.s.n_unassigned, before + 13);
	/* a layer and a half shows no repeated structure: no layers (fewer than three) */
	ck_assert_str_eq(f.s.pass_source,
			 "repetition of the layer structure; the first and the last pass are "
			 "incomplete (0 and 0 of 4 layers): left out");
	done(&f);
}
END_TEST

/* Damaged and hostile inputs never crash the structure stage. */
START_TEST(test_bad_inputs_survive)
{
	static const char *const files[] = {
		"control_chars.json", "invalid_utf8.json", "keys_any_order.json",
		"big_numbers.json",   "huge_name.json.gz", "escape_sequence_name.json",
	};
	char path[512];
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct fixture f;

	snprintf(path, sizeof path, "tests/data/bad/%s", files[_i]);
	if (trace_load(&t, test_path(path), &lo, &err) < 0)
		return; /* rejected by the loader: nothing to structure */
	build(&f, t, NULL);
	check_invariants(&f.s);
	done(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("structure");
	TCase *tc = tcase_create("structure");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_real_counts, 0, sizeof real / sizeof real[0]);
	tcase_add_test(tc, test_large_shared_trace);
	tcase_add_test(tc, test_pass_sources);
	tcase_add_loop_test(tc, test_cut_rule, 0, 5);
	tcase_add_test(tc, test_qk_norms);
	tcase_add_loop_test(tc, test_eager_runs, 0, 2);
	tcase_add_test(tc, test_aux_steps);
	tcase_add_test(tc, test_passes_by_structure);
	tcase_add_test(tc, test_pass_regex);
	tcase_add_test(tc, test_phase_names);
	tcase_add_test(tc, test_nested_cpu_annotations);
	tcase_add_test(tc, test_nested_gpu_annotations);
	tcase_add_test(tc, test_nested_step_ranges);
	tcase_add_test(tc, test_profiler_step_around_generate);
	tcase_add_test(tc, test_streams_merged_in_launch_order);
	tcase_add_loop_test(tc, test_sglang_layers_alike, 0, 2);
	tcase_add_test(tc, test_incomplete_passes_left_out);
	tcase_add_loop_test(tc, test_bad_inputs_survive, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
