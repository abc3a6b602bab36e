/* check_opportunity.c — fusions neither side has (opportunity.h): the unfused chains of the
 * catalogue on real traces, counted exactly, never where the other side fuses them, and the
 * catalogue's file format.
 *
 * Every chain asserted here was checked by hand in the trace's steps, layer 1 of the first
 * pass (kernels in execution order, one stream):
 *   eager Llama (examples/llama8l_eager_sdpa, HF transformers, H200), and the eager Qwen1.5
 *   pair (tests/data/traces/tracelens_qwen1.5-0.5b_hf_{h100,mi300x}): the residual add
 *   (CUDAFunctor_add), then LlamaRMSNorm as 8 kernels (direct_copy cast, pow, MeanOps, add,
 *   rsqrt, MulFunctor, bfloat16 cast, MulFunctor) over the same [tokens, hidden] tensor, twice
 *   per layer (the input norm of layers 1-7, the post-attention norm of every layer) and once
 *   in the epilogue (the final norm): "add -> rmsnorm", 9 kernels at 16 places; layer 0's input
 *   norm has no add before it (its input is the embedding): "rmsnorm", 8 kernels, 1 place.
 *   apply_rotary_pos_emb as 10 kernels (mul, neg, cat, mul, add for q, then for k): "rope".
 *   The gated MLP: gate GEMM, silu_kernel, up GEMM, MulFunctor (silu(gate) * up): "silu ->
 *   mul" with the up GEMM between, 8 places. The prologue's rotary table (cat, cos, mul, sin,
 *   mul, two casts): "rope", 7 kernels.
 *   SGLang decode pair (examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_*): every
 *   layer runs its RoPE kernel (MI300X: rotary_embedding_kernel; B300: fused_rope_kernel) and
 *   then store_kvcache as the next kernel, nothing else unfused (add+RMSNorm and SiLU*mul are
 *   fused kernels there): "rope -> kv_write", 2 kernels at 32 places on each side. */
#include "testutil.h"

#include "fusediff/comparison.h"
#include "fusediff/opportunity.h"
#include "fusediff/session.h"
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

/* The unfused chains of the main model's passes of phase ph in the trace at path. */
struct found {
	struct trace *t;
	struct side s;
	struct opportunities o;
	const struct fusible_chain *chains;
};

static void find(struct found *f, const char *path, int ph)
{
	struct fd_error err = { { 0 } };
	struct side_opts so = { 0 };
	struct opportunity_opts oo = { 0 };
	uint8_t *on;

	f->t = test_load(path);
	if (side_build(&f->s, f->t, cl, &so, &err) < 0)
		ck_abort_msg("side_build: %s", err.msg);
	on = xcalloc(f->s.n_passes + 1, 1);
	for (size_t p = 0; p < f->s.n_passes; p++)
		on[p] = f->s.passes[p].model == f->s.main_model && f->s.passes[p].phase == ph;
	oo.n_chains = classifier_chains(cl, &oo.chains);
	oo.pass_on = on;
	f->chains = oo.chains;
	opportunities_find(&f->s, &oo, &f->o);
	free(on);
}

static void found_clear(struct found *f)
{
	opportunities_clear(&f->o);
	side_clear(&f->s);
	trace_free(f->t);
}

/* The opportunity of chain text ("add -> rmsnorm") with k kernels per place, or NULL. */
static const struct opportunity *get(const struct found *f, const char *chain, uint32_t k)
{
	for (size_t i = 0; i < f->o.n; i++) {
		char buf[160];

		chain_format(&f->chains[f->o.v[i].chain], buf, sizeof buf);
		if (strcmp(buf, chain) == 0 && f->o.v[i].per_place == k)
			return &f->o.v[i];
	}
	return NULL;
}

static void expect(const struct found *f, const char *chain, uint32_t k, uint32_t places,
		   const char *layers, double launches)
{
	const struct opportunity *o = get(f, chain, k);
	char buf[160];

	ck_assert_msg(o, "%s: no '%s' with %u kernels", f->t->path, chain, k);
	opportunity_layer_ranges(&f->s, o, buf, sizeof buf);
	ck_assert_msg(o->places == places, "%s: '%s' at %u places, want %u", f->t->path, chain,
		      o->places, places);
	ck_assert_str_eq(buf, layers);
	ck_assert_msg(o->launches == launches, "%s: '%s' saves %g launches, want %g", f->t->path,
		      chain, o->launches, launches);
	ck_assert(o->ns > 0 && o->bound_ns > 0 && o->bound_ns < o->ns && o->idle_ns >= 0);
}

START_TEST(test_eager_llama)
{
	struct found f;

	find(&f, test_trace("llama8l_eager_sdpa.json.gz"), PHASE_PREFILL);
	ck_assert_uint_eq(f.o.passes, 2);
	expect(&f, "add -> rmsnorm", 9, 16, "0-7,epi", 128);
	expect(&f, "rope", 10, 8, "0-7", 72);
	expect(&f, "silu -> mul", 2, 8, "0-7", 8);
	expect(&f, "rmsnorm", 8, 1, "0", 7);
	expect(&f, "rope", 7, 1, "pro", 6);
	ck_assert_uint_eq(f.o.n, 5);
	/* the bound is the kernel time beyond the longest kernel: for silu -> mul the shorter
	 * of the two kernels */
	{
		const struct opportunity *o = get(&f, "silu -> mul", 2);

		ck_assert_uint_eq(o->n_example, 2);
		ck_assert_uint_eq(o->n_names, 2);
	}
	found_clear(&f);
	/* the decode passes have the same chains, counted per pass */
	find(&f, test_trace("llama8l_eager_sdpa.json.gz"), PHASE_DECODE);
	ck_assert_uint_eq(f.o.passes, 16);
	expect(&f, "add -> rmsnorm", 9, 16, "0-7,epi", 128);
	expect(&f, "silu -> mul", 2, 8, "0-7", 8);
	found_clear(&f);
}
END_TEST

/* Inductor fuses every one of them: the compiled trace lists none. */
START_TEST(test_compiled_llama_none)
{
	struct found f;

	find(&f, test_trace("llama8l_compiled_sdpa.json.gz"), PHASE_PREFILL);
	ck_assert_uint_eq(f.o.passes, 2);
	ck_assert_msg(f.o.n == 0, "%zu chains in the compiled trace", f.o.n);
	found_clear(&f);
}
END_TEST

START_TEST(test_eager_qwen_pair)
{
	static const char *const names[] = { "tracelens_qwen1.5-0.5b_hf_h100.json.gz",
					     "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz" };

	for (int i = 0; i < 2; i++) {
		struct found f;

		find(&f, test_trace(names[i]), PHASE_PREFILL);
		expect(&f, "add -> rmsnorm", 9, 48, "0-23,epi", 384);
		expect(&f, "rope", 10, 24, "0-23", 216);
		expect(&f, "silu -> mul", 2, 24, "0-23", 24);
		expect(&f, "rmsnorm", 8, 1, "0", 7);
		expect(&f, "rope", 7, 1, "pro", 6);
		ck_assert_uint_eq(f.o.n, 5);
		found_clear(&f);
	}
}
END_TEST

static size_t count_chain(const struct comparison *c, int side, const char *chain)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_opportunities; i++) {
		char buf[160];

		chain_format(c->opportunities[i].chain, buf, sizeof buf);
		n += c->opportunities[i].side == side && strcmp(buf, chain) == 0;
	}
	return n;
}

/* In a comparison where the other side fuses a chain, it is a fusion difference (its fused
 * kernel measures the saving), not an opportunity; opportunities never change the findings. */
START_TEST(test_fused_elsewhere_is_a_difference)
{
	char *a = xstrdup(test_trace("llama8l_eager_sdpa.json.gz")),
	     *b = xstrdup(test_trace("llama8l_compiled_sdpa.json.gz"));
	struct session *s = test_session_files(a, b, NULL);
	const struct comparison *c = test_compare(s, PHASE_PREFILL);

	ck_assert_uint_eq(c->n_fusions - c->n_partial, 4);
	ck_assert_uint_eq(count_chain(c, SIDE_A, "add -> rmsnorm"), 0);
	ck_assert_uint_eq(count_chain(c, SIDE_A, "silu -> mul"), 0);
	ck_assert_uint_eq(count_chain(c, SIDE_A, "rmsnorm"), 0);
	/* the 10-kernel RoPE is fusion #2; the prologue's rotary table, which B computes inside
	 * its RoPE kernels and has no counterpart of, stays */
	ck_assert_uint_eq(c->n_opportunities, 1);
	ck_assert_uint_eq(c->opportunities[0].o.per_place, 7);
	ck_assert_uint_eq(c->opportunities[0].n_layers, 1);
	ck_assert_int_eq(c->layers[c->opportunities[0].layers[0]].index, LAYER_PROLOGUE);
	session_close(s);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_sglang_pair)
{
	char *a = xstrdup(test_trace(
		     "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz")),
	     *b = xstrdup(
		     test_trace("tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"));
	struct session *s = test_session_files(a, b, NULL);
	const struct comparison *c = test_compare(s, PHASE_DECODE);

	ck_assert_uint_eq(c->n_opportunities, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct comparison_opportunity *op = &c->opportunities[i];
		char buf[160];

		chain_format(op->chain, buf, sizeof buf);
		ck_assert_str_eq(buf, "rope -> kv_write");
		ck_assert_uint_eq(op->o.places, 32);
		ck_assert_uint_eq(op->o.per_place, 2);
		ck_assert_uint_eq(op->n_layers, 32);
		ck_assert(op->o.launches == 32);
	}
	ck_assert_uint_ne(c->opportunities[0].side, c->opportunities[1].side);
	session_close(s);
	free(a);
	free(b);
}
END_TEST

/* A user's rules file adds chains (tried with the built-in ones, longer first); a bad chain
 * line is an error naming the file and line. */
START_TEST(test_rules_file_chains)
{
	char dir[] = "/tmp/fusediff-chain-XXXXXX", path[256];
	struct classifier *mine;
	struct fd_error err = { { 0 } };
	const struct fusible_chain *ch;
	size_t n, n_builtin = classifier_chains(NULL, &ch);
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/my.rules", dir);
	fp = fopen(path, "w");
	fputs("# mine\nGEMM gemm ^my_gemm\nchain cast gemm between=Copy known=mine:cast_gemm\n",
	      fp);
	fclose(fp);
	ck_assert_int_eq(classifier_new(&mine, path, NULL, &err), 0);
	n = classifier_chains(mine, &ch);
	ck_assert_uint_eq(n, n_builtin + 1);
	ck_assert_uint_eq(ch[0].n, 2);
	ck_assert_str_eq(ch[0].known, "mine:cast_gemm");
	ck_assert(ch[0].between == (1u << CLASS_COPY));
	ck_assert(strstr(ch[0].origin, "my.rules:3") != NULL);
	classifier_free(mine);

	fp = fopen(path, "w");
	fputs("chain add rmsnrom\n", fp);
	fclose(fp);
	ck_assert_int_eq(classifier_new(&mine, path, NULL, &err), -1);
	ck_assert(strstr(err.msg, "my.rules: line 1: unknown atom 'rmsnrom'") != NULL);
	fp = fopen(path, "w");
	fputs("chain add rmsnorm between=Gemmm\n", fp);
	fclose(fp);
	ck_assert_int_eq(classifier_new(&mine, path, NULL, &err), -1);
	ck_assert(strstr(err.msg, "line 1: unknown class 'Gemmm'") != NULL);
	fp = fopen(path, "w");
	fputs("chain\n", fp);
	fclose(fp);
	ck_assert_int_eq(classifier_new(&mine, path, NULL, &err), -1);
	ck_assert(strstr(err.msg, "line 1: expected chain ATOMS") != NULL);
	unlink(path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("opportunity");
	TCase *tc = tcase_create("chains");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_eager_llama);
	tcase_add_test(tc, test_compiled_llama_none);
	tcase_add_test(tc, test_eager_qwen_pair);
	tcase_add_test(tc, test_fused_elsewhere_is_a_difference);
	tcase_add_test(tc, test_sglang_pair);
	tcase_add_test(tc, test_rules_file_chains);
	suite_add_tcase(s, tc);
	return test_run(s);
}
