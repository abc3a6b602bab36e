/* check_comparison.c — the comparison on the real traces: what is matched, what is a fusion, the
 * per-pass figures, phases and labels. */
#include "acceptance.h"

#include <ctype.h>
#include <math.h>

#include "fusediff/align.h"
#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/report.h"
#include "fusediff/structure.h"

#define EAGER	 "llama8l_eager_sdpa.json.gz"
#define COMPILED "llama8l_compiled_sdpa.json.gz"
#define MI300X	 "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz"
#define B300	 "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"

struct fixture {
	struct session *ses;
	const struct comparison *c;
};

/* The comparison of a and b (a bundled real trace by name, or a path in the source tree) for
 * phase. Release with session_close(fx->ses). */
static void compare_files(struct fixture *fx, const char *a, const char *b, int phase)
{
	char path[2][4096];
	const char *paths[2] = { a, b };

	for (int i = 0; i < 2; i++)
		snprintf(path[i], sizeof path[i], "%s",
			 strchr(paths[i], '/') ? test_path(paths[i]) : test_trace(paths[i]));
	fx->ses = test_session_files(path[0], path[1], NULL);
	fx->c = test_compare(fx->ses, phase);
}

static const char *name_of(const struct comparison *c, int s, uint32_t id)
{
	return trace_str(c->side[s]->t, id);
}

/* Does one of the names contain needle? */
static int names_have(const struct comparison *c, int s, const uint32_t *names, uint32_t n,
		      const char *needle)
{
	for (uint32_t i = 0; i < n; i++)
		if (strstr(name_of(c, s, names[i]), needle))
			return 1;
	return 0;
}

static const struct comparison_fusion *fusion_with(const struct comparison *c, int side,
						   atom_set atoms)
{
	for (size_t i = 0; i < c->n_fusions; i++)
		if (c->fusions[i].fused_side == side && !c->fusions[i].partial &&
		    (c->fusions[i].atoms & atoms) == atoms)
			return &c->fusions[i];
	return NULL;
}

/* In layers 0..n-1, every GEMM and attention kernel of B is in a match pair and in no fusion:
 * want_gemm GEMM pairs and one attention pair per layer. With strict, A has no other GEMM or
 * attention kernel either (the MI300X trace repeats a few kernels: those stay unmatched). */
static void assert_gemm_attention_matched(const struct comparison *c, int32_t n_layers,
					  unsigned want_gemm, int strict)
{
	for (int32_t l = 0; l < n_layers; l++) {
		unsigned gemm = 0, attn = 0;

		for (size_t i = 0; i < c->n_pairs; i++) {
			const struct comparison_pair *p = &c->pairs[i];

			if (comparison_layer_index(c, p->layer) != l ||
			    (p->cls != CLASS_GEMM && p->cls != CLASS_ATTENTION))
				continue;
			if ((!strict && p->kind == PAIR_A_ONLY) || acc_one_off(c, p))
				continue;
			if (p->kind != PAIR_MATCH || p->fusion >= 0)
				acc_dump_layer(c, l);
			ck_assert_msg(p->kind == PAIR_MATCH, "layer %d position %u: %s %s is %s", l,
				      p->position, class_name(p->cls),
				      p->side[0].n_names ? name_of(c, 0, p->side[0].names[0]) : "-",
				      pair_kind_name(p->kind));
			/* At most a partial fusion: the MI300X trace launches some kernels twice. */
			ck_assert_msg(p->fusion < 0 || (!strict && c->fusions[p->fusion].partial),
				      "layer %d position %u: %s pair in a fusion", l, p->position,
				      class_name(p->cls));
			gemm += p->cls == CLASS_GEMM;
			attn += p->cls == CLASS_ATTENTION;
		}
		ck_assert_uint_eq(attn, 1);
		ck_assert_uint_eq(gemm, want_gemm);
	}
}

START_TEST(test_eager_vs_compiled)
{
	struct fixture fx;
	const struct comparison *c;
	const struct comparison_fusion *norm, *act;

	compare_files(&fx, EAGER, COMPILED, -1);
	c = fx.c;
	ck_assert_int_eq(c->phase, PHASE_PREFILL);
	ck_assert_uint_eq(c->passes[0], 2);
	ck_assert_uint_eq(c->passes[1], 2);
	ck_assert_ptr_null(c->note);
	ck_assert_uint_eq(c->n_layers, 10); /* prologue, 8 layers, epilogue */
	ck_assert_str_eq(c->label[0], EAGER);
	ck_assert_str_eq(c->label[1], COMPILED);

	/* B fuses the RMSNorm that A runs as pow, mean, rsqrt, mul. */
	norm = fusion_with(c, SIDE_B, ATOM_BIT(ATOM_RMSNORM));
	ck_assert_msg(norm != NULL, "no RMSNorm fusion by B");
	ck_assert_msg(strstr(name_of(c, 1, norm->fused_name), "triton"), "fused %s",
		      name_of(c, 1, norm->fused_name));
	ck_assert(names_have(c, 0, norm->unfused_names, norm->n_unfused, "pow"));
	ck_assert(names_have(c, 0, norm->unfused_names, norm->n_unfused, "Mean"));
	ck_assert(names_have(c, 0, norm->unfused_names, norm->n_unfused, "rsqrt"));
	ck_assert(names_have(c, 0, norm->unfused_names, norm->n_unfused, "Mul"));
	ck_assert_uint_ge(norm->n_layers, 8);
	/* The eager side of a fused norm pair: 9 launches per pass, and its average is the time of
	 * the whole eager op once (not of one of its 9 kernels), comparable to the fused kernel. */
	{
		const struct comparison_pair *p = &c->pairs[norm->pairs[norm->n_pairs - 1]];

		ck_assert_int_eq(p->kind, PAIR_FUSED);
		ck_assert(p->side[0].count >= 8);
		ck_assert(fabs(p->side[0].avg_ns - p->side[0].total_ns) <
			  1e-6 * p->side[0].total_ns);
		ck_assert(p->side[0].avg_ns > 4 * p->side[1].avg_ns);
	}
	ck_assert(norm->ns[0] > norm->ns[1]);
	ck_assert_ptr_nonnull(norm->evidence);

	/* B fuses SiLU·mul; the unfused kernels are silu and mul, although the up GEMM runs
	 * between them on A. */
	act = fusion_with(c, SIDE_B, ATOM_BIT(ATOM_SILU) | ATOM_BIT(ATOM_MUL));
	ck_assert_msg(act != NULL, "no SiLU-mul fusion by B");
	ck_assert(names_have(c, 0, act->unfused_names, act->n_unfused, "silu"));
	ck_assert(names_have(c, 0, act->unfused_names, act->n_unfused, "Mul"));
	ck_assert(!names_have(c, 0, act->unfused_names, act->n_unfused, "nvjet"));
	ck_assert_uint_eq(act->occurrences, 8);
	ck_assert_uint_eq(act->n_layers, 8);

	for (size_t i = 0; i < c->n_fusions; i++)
		ck_assert_int_eq(c->fusions[i].fused_side, SIDE_B);
	/* a GEMM step is named by its GEMM, not by the workspace memset launched before it */
	for (size_t i = 0; i < c->n_pairs; i++)
		for (int s = 0; s < 2; s++)
			if (c->pairs[i].cls == CLASS_GEMM && c->pairs[i].side[s].n_names)
				ck_assert_msg(!strstr(name_of(c, s, c->pairs[i].side[s].names[0]),
						      "Memset"),
					      "pair %zu side %d named by its memset", i, s);
	/* Q, K, V, O, gate, up, down. */
	assert_gemm_attention_matched(c, 8, 7, 1);
	session_close(fx.ses);
}
END_TEST

START_TEST(test_mi300x_vs_b300)
{
	struct fixture fx;
	const struct comparison *c;

	compare_files(&fx, MI300X, B300, -1);
	c = fx.c;
	ck_assert_int_eq(c->phase, PHASE_DECODE);
	ck_assert_str_eq(c->label[0], "AMD Instinct MI300X");
	ck_assert_str_eq(c->label[1], "NVIDIA B300 SXM6 AC");
	ck_assert_uint_eq(c->n_layers, 34);
	/* QKV, O, gate-up, down (split-K on B300: GEMM + splitKreduce is one GEMM step). */
	assert_gemm_attention_matched(c, 32, 4, 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		/* The add+RMSNorm kernels pair with each other, never as a fusion. */
		if (comparison_layer_index(c, p->layer) >= 0 && p->cls == CLASS_NORM) {
			ck_assert_msg(p->kind == PAIR_MATCH && p->fusion < 0,
				      "layer %d position %u: norm is %s",
				      comparison_layer_index(c, p->layer), p->position,
				      pair_kind_name(p->kind));
			ck_assert_uint_le(p->side[0].n_names, 1);
			ck_assert_uint_le(p->side[1].n_names, 1);
			if (p->kind == PAIR_MATCH)
				ck_assert(strstr(name_of(c, 1, p->side[1].names[0]), "RMSNorm") !=
					  NULL);
		}
	}
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *f = &c->fusions[i];

		ck_assert_msg(!(f->atoms & (ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_RMSNORM) |
					    ATOM_BIT(ATOM_GEMM))),
			      "fusion %s", f->evidence);
	}
	session_close(fx.ses);
}
END_TEST

/* Eager SDPA (A) against eager math attention (B): A runs attention as one kernel where B runs
 * bmm, softmax and the elementwise work around them; everything else in the layers matches one
 * to one (B's prologue builds the causal mask: B-only kernels there). */
START_TEST(test_sdpa_vs_math_attention)
{
	struct fixture fx;
	const struct comparison *c;
	const struct comparison_fusion *f;

	compare_files(&fx, EAGER, "llama8l_eager_mathattn.json.gz", -1);
	c = fx.c;
	ck_assert_int_eq(c->phase, PHASE_PREFILL);
	ck_assert_uint_eq(c->n_layers, 10);
	ck_assert_uint_eq(c->n_fusions, 1);
	f = &c->fusions[0];
	ck_assert_int_eq(f->fused_side, SIDE_A);
	ck_assert(f->atoms & ATOM_BIT(ATOM_ATTENTION));
	ck_assert(names_have(c, 1, f->unfused_names, f->n_unfused, "softmax"));
	ck_assert(names_have(c, 1, f->unfused_names, f->n_unfused, "nvjet"));
	ck_assert_uint_eq(f->n_layers, 8);
	ck_assert_uint_eq(f->occurrences, 8);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (p->fusion < 0 && comparison_layer_index(c, p->layer) >= 0)
			ck_assert_msg(p->kind == PAIR_MATCH,
				      "layer %d position %u: %s outside the fusion",
				      comparison_layer_index(c, p->layer), p->position,
				      pair_kind_name(p->kind));
	}
	session_close(fx.ses);
}
END_TEST

/* Two ranks of one job never fuse differently: a candidate fusion between them is a warning
 * about the alignment, not a finding. */
START_TEST(test_ranks_never_fuse)
{
	struct fixture fx;
	const struct comparison *c;

	compare_files(&fx, "tests/data/compare/fused_rank0.json",
		      "tests/data/compare/unfused_rank1.json", -1);
	c = fx.c;
	ck_assert_uint_eq(c->n_fusions, 0);
	for (size_t i = 0; i < c->n_pairs; i++)
		ck_assert_int_ne(c->pairs[i].kind, PAIR_FUSED);
	ck_assert_uint_eq(c->n_warnings, 1);
	ck_assert_str_eq(c->warnings[0].code, "rank_alignment");
	ck_assert_str_eq(c->warnings[0].message,
			 "A and B are ranks 0 and 1 of one 2-rank job: ranks differ in work, never "
			 "in fusion, so 1 candidate fusion (1 fused place) is a difference of the "
			 "alignment, not a finding");
	session_close(fx.ses);
}
END_TEST

/* The same work launched more often on one side, in every layer, is a partial fusion; in one
 * layer only it is noise and not reported. */
START_TEST(test_partial_fusion)
{
	struct fixture fx;
	const struct comparison *c;
	const struct comparison_fusion *f;
	unsigned gaps = 0;

	compare_files(&fx, "tests/data/compare/down_twice.json",
		      "tests/data/compare/down_once.json", -1);
	c = fx.c;
	ck_assert_uint_eq(c->n_layers, 6);
	ck_assert_uint_eq(c->n_fusions, 1);
	f = &c->fusions[0];
	ck_assert_int_eq(f->partial, 1);
	ck_assert_int_eq(f->fused_side, SIDE_B);
	ck_assert_uint_eq(f->n_layers, 4);
	ck_assert_uint_eq(f->occurrences, 4);
	ck_assert_str_eq(name_of(c, 1, f->fused_name), "nvjet_down_gemm");
	ck_assert(fabs(f->ns[0] - 120000) < 1 && fabs(f->ns[1] - 100000) < 1);
	ck_assert_msg(strstr(f->evidence,
			     "launches 2 kernels (nvjet_down_gemm) at each place where B") != NULL,
		      "%s", f->evidence);
	/* a partial fusion is listed, never counted as a fusion difference */
	ck_assert_uint_eq(c->n_partial, 1);
	ck_assert_uint_eq(f->per_place, 2);
	ck_assert(f->launches_saved == 4);
	ck_assert_str_eq(comparison_proof_name(f), "launches");
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		ck_assert(p->kind == PAIR_MATCH || p->kind == PAIR_A_ONLY);
		if (p->kind == PAIR_A_ONLY) {
			ck_assert_int_eq(p->fusion, 0);
			gaps++;
		}
	}
	ck_assert_uint_eq(gaps, 4);
	session_close(fx.ses);

	/* the other way round: A launches less often */
	compare_files(&fx, "tests/data/compare/down_once.json",
		      "tests/data/compare/down_twice.json", -1);
	ck_assert_uint_eq(fx.c->n_fusions, 1);
	ck_assert_int_eq(fx.c->fusions[0].fused_side, SIDE_A);
	session_close(fx.ses);

	compare_files(&fx, "tests/data/compare/down_twice_in_layer_2.json",
		      "tests/data/compare/down_once.json", -1);
	ck_assert_uint_eq(fx.c->n_fusions, 0);
	session_close(fx.ses);
}
END_TEST

static void assert_self(const char *file, int phase)
{
	struct fixture fx;
	const struct comparison *c;

	compare_files(&fx, file, file, phase);
	c = fx.c;
	ck_assert_uint_gt(c->n_pairs, 0);
	ck_assert_uint_eq(c->n_fusions, 0);
	ck_assert(fabs(c->ratio - 1.0) < 1e-12);
	ck_assert(c->delta_ns == 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		ck_assert_int_eq(c->pairs[i].kind, PAIR_MATCH);
		ck_assert(c->pairs[i].delta_ns == 0);
		if (c->pairs[i].side[0].total_ns > 0)
			ck_assert(c->pairs[i].ratio == 1.0);
	}
	for (size_t i = 0; i < c->n_layers; i++)
		if (c->layers[i].ns[0] > 0)
			ck_assert(c->layers[i].ratio == 1.0);
	ck_assert_msg(strncmp(c->label[0], "A: ", 3) == 0, "%s", c->label[0]);
	ck_assert_msg(strncmp(c->label[1], "B: ", 3) == 0, "%s", c->label[1]);
	session_close(fx.ses);
}

START_TEST(test_self)
{
	assert_self(EAGER, -1);
	assert_self(EAGER, PHASE_DECODE);
	assert_self(EAGER, PHASE_COUNT);
	assert_self(MI300X, -1);
	assert_self(COMPILED, -1);
	assert_self("moe6l_eager_sdpa.json.gz", PHASE_COUNT);
	assert_self("tracelens_qwen1.5-0.5b_hf_h100.json.gz", PHASE_COUNT);
	assert_self("tracelens_bert-small_hf_mi300x.json.gz", PHASE_COUNT);
}
END_TEST

/* Per-pass figures: the layer rows add up to the total, and class totals too. */
START_TEST(test_per_pass_totals)
{
	struct fixture fx;
	const struct comparison *c;
	struct fd_error err = { { 0 } };

	compare_files(&fx, EAGER, COMPILED, -1);
	c = fx.c;
	for (int s = 0; s < 2; s++) {
		double layers = 0, classes = 0, pairs = 0;

		for (size_t i = 0; i < c->n_layers; i++)
			layers += c->layers[i].ns[s];
		for (int k = 0; k < CLASS_COUNT; k++)
			classes += c->class_ns[s][k];
		for (size_t i = 0; i < c->n_pairs; i++)
			pairs += c->pairs[i].side[s].total_ns;
		ck_assert(fabs(layers - c->ns[s]) < 1);
		ck_assert(fabs(classes - c->ns[s]) < 1);
		ck_assert(fabs(pairs - c->ns[s]) < 1);
	}
	/* The compiled trace has no decode pass: asking for one is an error that names it. */
	ck_assert_ptr_null(session_compare(fx.ses, PHASE_DECODE, &err));
	ck_assert_str_eq(err.msg, "--phase decode: B (" COMPILED ") has no decode pass; it has 2 "
				  "prefill passes");
	/* All passes: 18 on A (prefill and decode), 2 on B. Per-occurrence figures must not mix in
	 * the pass counts: still only B's fusions, no "partial fusion" of A's GEMMs. */
	c = test_compare(fx.ses, PHASE_COUNT);
	ck_assert_uint_eq(c->passes[0], 18);
	ck_assert_uint_eq(c->passes[1], 2);
	ck_assert_uint_gt(c->n_fusions, 0);
	for (size_t i = 0; i < c->n_fusions; i++)
		ck_assert_msg(c->fusions[i].fused_side == SIDE_B && !c->fusions[i].partial, "%s",
			      c->fusions[i].evidence);
	/* the first comparison is kept, unchanged, while the others are built */
	ck_assert_ptr_eq(test_compare(fx.ses, -1), fx.c);
	c = fx.c;
	ck_assert_int_eq(c->phase, PHASE_PREFILL);
	ck_assert_ptr_null(c->note);
	ck_assert_uint_gt(c->n_fusions, 0);
	session_close(fx.ses);
}
END_TEST

/* The session: its sides are the comparison's, each phase's comparison is built once and kept
 * (the same pointer every time; the automatic phase's is the one of the phase it chose: the
 * explorer's phase key built that one a second time), a phase that does not exist is an error,
 * and a missing file is one line naming it. */
START_TEST(test_session_api)
{
	struct fixture fx;
	struct fd_error err = { { 0 } };
	struct session *s;
	const struct comparison *decode;

	compare_files(&fx, EAGER, COMPILED, -1);
	for (int k = 0; k < 2; k++) {
		ck_assert_ptr_eq(session_side(fx.ses, k), fx.c->side[k]);
		ck_assert_uint_eq(session_side(fx.ses, k)->layers_per_pass, 8);
	}
	ck_assert_int_eq(fx.c->phase, PHASE_PREFILL);
	ck_assert_ptr_eq(test_compare(fx.ses, PHASE_PREFILL), fx.c);
	decode = test_compare(fx.ses, PHASE_COUNT);
	ck_assert_ptr_ne(decode, fx.c);
	/* the kernel totals are the whole traces': the second phase's are the first's, a copy
	 * of its own (kept between phases, not summed again) */
	ck_assert_uint_gt(fx.c->n_kernel_totals, 10);
	ck_assert_uint_eq(decode->n_kernel_totals, fx.c->n_kernel_totals);
	ck_assert_ptr_ne(decode->kernel_totals, fx.c->kernel_totals);
	for (size_t i = 0; i < fx.c->n_kernel_totals; i++) {
		const struct comparison_kernel_total *x = &fx.c->kernel_totals[i],
						     *y = &decode->kernel_totals[i];

		ck_assert_str_eq(y->name, x->name);
		ck_assert_uint_eq(y->cls, x->cls);
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(y->count[k], x->count[k]);
			ck_assert_int_eq(y->ns[k], x->ns[k]);
		}
	}
	ck_assert_ptr_eq(test_compare(fx.ses, PHASE_COUNT), decode);
	ck_assert_ptr_eq(test_compare(fx.ses, -1), fx.c);
	ck_assert_ptr_null(session_compare(fx.ses, PHASE_COUNT + 1, &err));
	ck_assert_str_eq(err.msg, "no such phase (6)");
	session_close(fx.ses);

	ck_assert_int_eq(session_open(&s, test_trace(EAGER), "/nonexistent.json", NULL, &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err.msg, "/nonexistent.json: No such file or directory");
}
END_TEST

/* A session of one trace (--summary): side 0 loaded, classified and structured as a comparison
 * would see it, with the classifier and peaks it used; it compares nothing; a load that fails
 * or a rules file with a mistake (said first) leaves no session. */
START_TEST(test_session_of_one_trace)
{
	struct session *s = NULL;
	struct fd_error err = { { 0 } };
	struct session_opts o = { .device = -1 };
	const struct side *sd;

	ck_assert_int_eq(session_open_one(&s, test_trace(EAGER), &o, &err), 0);
	sd = session_side(s, 0);
	ck_assert_ptr_nonnull(sd->t);
	ck_assert_uint_gt(sd->t->n_kernels, 0);
	ck_assert_uint_eq(sd->layers_per_pass, 8);
	ck_assert_ptr_null(session_side(s, 1)->t);
	ck_assert_ptr_nonnull(session_classifier(s));
	ck_assert_uint_eq(session_peaks(s)->n, 0);
	ck_assert_ptr_null(session_compare(s, -1, &err));
	ck_assert_str_eq(err.msg, "a session of one trace compares nothing");
	session_close(s);

	ck_assert_int_eq(session_open_one(&s, "/nonexistent.json", &o, &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err.msg, "/nonexistent.json: No such file or directory");

	o.rules = test_path("tests/data/rules/bad_class.rules");
	ck_assert_int_eq(session_open_one(&s, "/nonexistent.json", &o, &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad_class.rules: line 5: unknown class 'gem'"));
}
END_TEST

/* A kernel may last up to TRACE_TIME_MAX (trace.h) on each side: the totals per kernel name
 * add both sides' times without overflowing (fuzz_compare found the sum of two 6.4 * 10^18 ns
 * kernels overflowing int64_t in comparison_kernel_totals(): undefined behaviour, caught by make
 * sanitize). A rocprof CSV of one kernel of 6 * 10^18 ns, compared with itself. */
START_TEST(test_longest_kernels_add_up)
{
	static const char csv[] =
		"\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
		"\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
		"\"KERNEL_DISPATCH\",0,16,908,1,8,\"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\",1,1000,"
		"6000000000000001000\n";
	struct trace *t = NULL;
	struct session *s = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct session_opts so = { .device = -1 };
	const struct comparison *c;

	ck_assert_msg(trace_load_mem(&t, "long.csv", csv, sizeof csv - 1, &lo, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(t->n_kernels, 1);
	ck_assert_int_eq(t->kernels[0].dur, INT64_C(6000000000000000000));
	ck_assert_int_eq(session_open_traces(&s, t, t, &so, &err), 0);
	c = test_compare(s, PHASE_COUNT);
	ck_assert_uint_eq(c->n_kernel_totals, 1);
	ck_assert_int_eq(c->kernel_totals[0].ns[0], INT64_C(6000000000000000000));
	ck_assert_int_eq(c->kernel_totals[0].ns[1], INT64_C(6000000000000000000));
	session_close(s);
	trace_free(t);
}
END_TEST

/* The attribution counts every pair once, in its fusion or under its kind and class, and its
 * parts add up to the total B - A. */
static void assert_attribution_adds_up(const struct comparison *c)
{
	double sum = 0, places = 0;
	size_t loose = 0;

	ck_assert_uint_gt(c->n_attribution, 0);
	for (size_t i = 0; i < c->n_attribution; i++) {
		sum += c->attribution[i].delta_ns;
		if (c->attribution[i].fusion < 0)
			places += c->attribution[i].count;
		if (i)
			ck_assert(fabs(c->attribution[i].delta_ns) <=
				  fabs(c->attribution[i - 1].delta_ns));
	}
	for (size_t i = 0; i < c->n_pairs; i++)
		loose += c->pairs[i].fusion < 0;
	ck_assert_msg(fabs(sum - c->delta_ns) <= 1e-6 * fmax(1, fabs(c->delta_ns)),
		      "parts add up to %.3f us, B - A is %.3f us", sum / 1e3, c->delta_ns / 1e3);
	ck_assert_double_eq_tol(places, (double)loose, 1e-9);
}

static const struct comparison_fusion *find_fusion(const struct comparison *c, int cls,
						   int horizontal, const char *evidence)
{
	for (size_t i = 0; i < c->n_fusions; i++)
		if (c->fusions[i].cls == cls && c->fusions[i].horizontal == horizontal &&
		    (!evidence || strstr(c->fusions[i].evidence, evidence)))
			return &c->fusions[i];
	return NULL;
}

/* Fusion f occurs in every layer 0..n-1, fused on side `side`. */
static void assert_every_layer(const struct comparison *c, const struct comparison_fusion *f,
			       int side, int32_t n)
{
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->fused_side, side);
	for (int32_t l = 0; l < n; l++) {
		int seen = 0;

		for (uint32_t j = 0; j < f->n_layers; j++)
			seen |= comparison_layer_index(c, f->layers[j]) == l;
		ck_assert_msg(seen, "%s: not in layer %d", f->evidence, l);
	}
}

/* Eager against compiled: each of HF's two rotations (q, then k: five kernels each) pairs with
 * B's kernel that does the same rotation (where_4 and where_5), never with the v expand or the
 * causal mask that Inductor names the same way (the mask was paired before, and the real RoPE
 * kernels left B-only); the attribution adds up; the text report opens with it. */
START_TEST(test_attribution_eager_compiled)
{
	struct fixture fx;
	const struct comparison *c;
	const struct comparison_fusion *rope;
	double net = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	compare_files(&fx, EAGER, COMPILED, -1);
	c = fx.c;
	assert_attribution_adds_up(c);
	rope = find_fusion(c, CLASS_ROPE, 0, NULL);
	assert_every_layer(c, rope, SIDE_B, 8);
	ck_assert_uint_eq(rope->extra, 0);
	ck_assert_uint_eq(rope->per_place, 5);
	for (uint32_t k = 0; k < rope->n_pairs; k++) {
		const struct comparison_pair *p = &c->pairs[rope->pairs[k]];
		const char *b = trace_str(c->side[1]->t, p->side[1].names[0]);

		ck_assert_int_eq(p->kind, PAIR_FUSED);
		ck_assert_uint_eq(p->side[1].n_names, 1);
		ck_assert_msg(strstr(b, "_where_4") || strstr(b, "_where_5"), "%s", b);
		net += p->delta_ns;
	}
	ck_assert_double_eq_tol(rope->delta_ns, net, 1);
	ck_assert(rope->delta_ns > -460e3 && rope->delta_ns < -440e3); /* -451.5 us */
	ck_assert_msg(strstr(rope->evidence, "where A (" EAGER ") runs 5 kernels for the same "
					     "work") &&
			      strstr(rope->evidence, "16 times per pass in layers 0-7;"),
		      "%s", rope->evidence);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(report_write(f, c, REPORT_TEXT), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "Where B - A comes from"));
	ck_assert(strstr(text, "Where B - A comes from") < strstr(text, "Fusion differences"));
	free(text);
	session_close(fx.ses);
}
END_TEST

/* Every fusion of the repository's real pairs is a claim with a proof: a fusion names the rule
 * that proved it, a partial one none; each place has a whole number of kernels (two or more on
 * the unfused side), the launches saved are whole, and no sentence says a fractional count. */
START_TEST(test_every_fusion_has_a_proof)
{
	static const char *const pairs[][2] = {
		{ EAGER, COMPILED },
		{ MI300X, B300 },
		{ "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz",
		  "tracelens_qwen1.5-0.5b_hf_h100.json.gz" },
		{ "tracelens_bert-small_hf_mi300x.json.gz",
		  "tracelens_bert-small_hf_h100.json.gz" },
		{ "llama3_8b_shape_decode1.json.gz", B300 },
		{ "moe6l_eager_sdpa.json.gz", EAGER },
	};
	size_t proven = 0;

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		struct fixture fx;

		compare_files(&fx, pairs[i][0], pairs[i][1], -1);
		for (size_t k = 0; k < fx.c->n_fusions; k++) {
			const struct comparison_fusion *f = &fx.c->fusions[k];
			const char *e = f->evidence;

			if (f->partial)
				ck_assert_int_eq(f->proof, PROOF_NONE);
			else
				ck_assert_msg(f->proof != PROOF_NONE, "%s: %s", pairs[i][0], e);
			proven += !f->partial;
			ck_assert_msg(f->per_place >= 2, "%s: %s", pairs[i][0], e);
			ck_assert(f->launches_saved == floor(f->launches_saved));
			for (const char *p = e; (p = strstr(p, " kernels")) != NULL; p++) {
				const char *q = p;

				while (q > e && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
					q--;
				ck_assert_msg(!memchr(q, '.', (size_t)(p - q)), "%s: %s",
					      pairs[i][0], e);
			}
		}
		session_close(fx.ses);
	}
	ck_assert_uint_ge(proven, 8);
}
END_TEST

/* HF eager Llama-3-8B decode against the SGLang B300 step: B fuses the residual add into the
 * RMSNorm and SiLU into the mul in every layer, and runs merged QKV and gate-up GEMMs where A
 * runs three and two (horizontal fusions); the down GEMMs and attention match. */
START_TEST(test_eager_vs_sglang_b300)
{
	struct fixture fx;
	const struct comparison *c;

	compare_files(&fx, "llama3_8b_shape_decode1.json.gz", B300, -1);
	c = fx.c;
	ck_assert_int_eq(c->phase, PHASE_DECODE);
	ck_assert_uint_eq(comparison_model(c, 0)->layers_per_pass, 32);
	ck_assert_uint_eq(comparison_model(c, 1)->layers_per_pass, 32);
	assert_every_layer(c, find_fusion(c, CLASS_NORM, 0, "FusedAddRMSNorm"), SIDE_B, 32);
	ck_assert(find_fusion(c, CLASS_NORM, 0, "FusedAddRMSNorm")->atoms & ATOM_BIT(ATOM_ADD));
	assert_every_layer(c, find_fusion(c, CLASS_ACTIVATION, 0, "act_and_mul"), SIDE_B, 32);
	assert_every_layer(c, find_fusion(c, CLASS_GEMM, 1, "runs 3 GEMMs"), SIDE_B, 32);
	assert_every_layer(c, find_fusion(c, CLASS_GEMM, 1, "runs 2 GEMMs"), SIDE_B, 32);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		/* attention pairs one to one, never with a GEMM */
		if (p->cls == CLASS_ATTENTION && comparison_layer_index(c, p->layer) >= 0)
			ck_assert_int_eq(p->kind, PAIR_MATCH);
		ck_assert(!((p->atoms & ATOM_BIT(ATOM_GEMM)) &&
			    (p->atoms & ATOM_BIT(ATOM_ATTENTION))));
	}
	assert_attribution_adds_up(c);
	session_close(fx.ses);
}
END_TEST

/* The header's warning is the most severe one: the order of fusediff(1), WARNINGS, not the
 * order they were found in. */
START_TEST(test_worst_warning)
{
	struct comparison_warning w[3] = { { "noisy", "n" },
					   { "depth_differs", "d" },
					   { "low_coverage", "l" } };
	struct comparison c = { 0 };

	ck_assert_uint_eq(comparison_worst_warning(&c), SIZE_MAX);
	c.warnings = w;
	c.n_warnings = 3;
	ck_assert_uint_eq(comparison_worst_warning(&c), 1);
	c.n_warnings = 1;
	ck_assert_uint_eq(comparison_worst_warning(&c), 0);
	/* a window cut inside a layer is more than noise */
	w[1].code = "partial_layers";
	c.n_warnings = 2;
	ck_assert_uint_eq(comparison_worst_warning(&c), 1);
	/* a pooled capture of other work: after another depth of the sides, before batches */
	w[0].code = "batch_differs";
	w[1].code = "repeat_differs";
	w[2].code = "depth_differs";
	ck_assert_uint_eq(comparison_worst_warning(&c), 1);
	c.n_warnings = 3;
	ck_assert_uint_eq(comparison_worst_warning(&c), 2);
}
END_TEST

static Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("real");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_eager_vs_compiled);
	tcase_add_test(tc, test_mi300x_vs_b300);
	tcase_add_test(tc, test_sdpa_vs_math_attention);
	tcase_add_test(tc, test_partial_fusion);
	tcase_add_test(tc, test_ranks_never_fuse);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_per_pass_totals);
	tcase_add_test(tc, test_session_api);
	tcase_add_test(tc, test_attribution_eager_compiled);
	tcase_add_test(tc, test_every_fusion_has_a_proof);
	tcase_add_test(tc, test_eager_vs_sglang_b300);
	tcase_add_test(tc, test_worst_warning);
	tcase_add_test(tc, test_session_of_one_trace);
	tcase_add_test(tc, test_longest_kernels_add_up);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(compare_suite());
}
