/* check_summed_pairs.c — the kernel pairs summed over the layers: on the real traces, the
 * groups account for the whole difference, the SGLang MI300X-vs-B300 difference is led by one
 * GEMM in all 32 layers, and Inductor's per-layer kernel numbers do not split a group. */
#include "acceptance.h"

#include "fusediff/summed_pairs.h"

/* The comparison of two bundled traces in a new session (*ses: close it with
 * session_close()). */
static const struct comparison *compare_files(const char *a, const char *b, struct session **ses)
{
	char pa[4096];

	snprintf(pa, sizeof pa, "%s", test_trace(a));
	*ses = test_session_files(pa, test_trace(b), NULL);
	return test_compare(*ses, -1);
}

/* Every pair is in exactly one group; the groups' figures add up to the comparison's. A group
 * is of one kind and class, but a fusion's, which is every pair of the fusion (its one-sided
 * kernels too) and shows its first fused pair. */
static void assert_partition(const struct comparison *c, const struct summed_pair *g, size_t n)
{
	uint8_t *seen = xcalloc(c->n_pairs + 1, 1);
	double delta = 0;

	for (size_t i = 0; i < n; i++) {
		double ns[2] = { 0, 0 };

		const struct comparison_pair *p0 = &c->pairs[g[i].first];
		uint32_t places = 0;

		ck_assert_uint_gt(g[i].n_pairs, 0);
		for (uint32_t k = 0; k < g[i].n_pairs; k++) {
			const struct comparison_pair *p = &c->pairs[g[i].pairs[k]];

			ck_assert_uint_lt(g[i].pairs[k], c->n_pairs);
			ck_assert_int_eq(seen[g[i].pairs[k]]++, 0);
			ck_assert(k == 0 || g[i].pairs[k] > g[i].pairs[k - 1]);
			ck_assert_int_eq(p->fusion, p0->fusion);
			if (p0->fusion < 0) {
				ck_assert_int_eq(p->kind, p0->kind);
				ck_assert_int_eq(p->cls, p0->cls);
			}
			places += p->kind == p0->kind;
			ns[0] += p->side[0].total_ns;
			ns[1] += p->side[1].total_ns;
		}
		ck_assert_uint_eq(g[i].places, places);
		if (p0->fusion >= 0) { /* the fusion's net */
			const struct comparison_fusion *f = &c->fusions[p0->fusion];

			ck_assert_uint_eq(g[i].n_pairs, f->n_pairs);
			ck_assert_double_eq_tol(g[i].ns[1] - g[i].ns[0], f->delta_ns, 1e-3);
			if (!f->partial)
				ck_assert_int_eq(p0->kind, PAIR_FUSED);
		}
		ck_assert_double_eq_tol(g[i].ns[0], ns[0], 1e-6);
		ck_assert_double_eq_tol(g[i].ns[1], ns[1], 1e-6);
		if (i)
			ck_assert(fabs(g[i].delta_ns) <= fabs(g[i - 1].delta_ns));
		delta += g[i].delta_ns;
	}
	for (size_t i = 0; i < c->n_pairs; i++)
		ck_assert_int_eq(seen[i], 1);
	free(seen);
	ck_assert_double_eq_tol(delta, c->delta_ns, 1e-3 * fabs(c->delta_ns) + 1);
}

/* SGLang decode, MI300X against B300: the largest difference is one hipBLASLt GEMM against one
 * nvjet GEMM, matched in every one of the 32 layers, about a third of the whole difference. */
START_TEST(test_sglang_gemm_leads)
{
	struct session *ses;
	const struct comparison *c = compare_files(
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz",
		"tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz", &ses);
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed;
	const struct comparison_pair *p;
	char layers[64];

	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, c->n_pairs / 8); /* 32 layers fold into a few groups */
	assert_partition(c, g, n);
	p = &c->pairs[g[0].first];
	ck_assert_int_eq(p->kind, PAIR_MATCH);
	ck_assert_int_eq(p->cls, CLASS_GEMM);
	ck_assert_uint_eq(g[0].n_pairs, 32);
	ck_assert_uint_eq(g[0].n_layers, 32);
	comparison_layer_ranges(c, g[0].layers, g[0].n_layers, layers, sizeof layers);
	ck_assert_str_eq(layers, "0-31");
	ck_assert_str_eq(comparison_short_name(c, SIDE_A, p->side[0].names[0]),
			 "Cijk_Alik_Bljk_BBS_BH_..._MT32x16x512");
	ck_assert_str_eq(comparison_short_name(c, SIDE_B, p->side[1].names[0]),
			 "nvjet_sm103_tst_256x16_64x6_4x1_v_bz_TNT");
	ck_assert(g[0].delta_ns < 0.3 * c->delta_ns && g[0].delta_ns > 0.4 * c->delta_ns);
	ck_assert_double_eq_tol(g[0].count[0], 32, 1e-9);
	ck_assert_int_eq(g[0].similar[0] | g[0].similar[1], 0);
	/* the attention kernels (paged attention and its reduce against one fmha) come next */
	ck_assert_int_eq(c->pairs[g[1].first].cls, CLASS_ATTENTION);
	ck_assert_uint_eq(g[1].n_pairs, 32);
	session_close(ses);
}
END_TEST

/* Llama eager against torch.compile: Inductor numbers its fused add+RMSNorm kernel per layer
 * (..._rsqrt_12, _13, ...); those are one group, not one per number (and the fusion's one
 * group). */
START_TEST(test_inductor_numbers_one_group)
{
	struct session *ses;
	const struct comparison *c =
		compare_files("llama8l_eager_sdpa.json.gz", "llama8l_compiled_sdpa.json.gz", &ses);
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed, norm = 0;

	assert_partition(c, g, n);
	for (size_t i = 0; i < n; i++) {
		const struct comparison_pair *p = &c->pairs[g[i].first];

		if (p->kind == PAIR_FUSED && p->cls == CLASS_NORM && p->fusion >= 0 &&
		    c->fusions[p->fusion].atoms ==
			    (ATOM_BIT(ATOM_RMSNORM) | ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_CAST))) {
			norm++;
			ck_assert_int_eq(g[i].similar[SIDE_B], 1);
			ck_assert_int_eq(g[i].similar[SIDE_A], 0);
			ck_assert_int_eq(comparison_layer_index(c, g[i].layers[g[i].n_layers - 1]),
					 LAYER_EPILOGUE);
			ck_assert_uint_ge(g[i].n_pairs, 8);
		}
	}
	ck_assert_uint_eq(norm, 1);
	session_close(ses);
}
END_TEST

/* Layer lists name a stack's layers by their stack when it has a name, and fold runs. */
START_TEST(test_layer_ranges_format)
{
	static const int32_t idx[] = { LAYER_PROLOGUE, 0, 1, 2, 3, 4, 5, 6, 7, 8, LAYER_EPILOGUE };
	static const int32_t l1[] = { 0, 1, 2, 3, 6, 8, 9, 10 };
	static const int32_t l2[] = { 4 };
	static const int32_t l3[] = { 10 };
	struct comparison_layer layers[11];
	char *stacks[2] = { "", "text" };
	struct comparison c = { .layers = layers, .n_layers = 11, .stacks = stacks, .n_stacks = 1 };
	char buf[96];

	memset(layers, 0, sizeof layers);
	for (int i = 0; i < 11; i++)
		layers[i].index = idx[i];
	comparison_layer_ranges(&c, l1, 8, buf, sizeof buf);
	ck_assert_str_eq(buf, "pro,0-2,5,7-8,epi");
	comparison_layer_text(&c, l1, 8, buf, sizeof buf);
	ck_assert_str_eq(buf, "the prologue, layers 0-2, 5, 7, 8 and the epilogue");
	comparison_layer_ranges(&c, l2, 1, buf, sizeof buf);
	ck_assert_str_eq(buf, "3");
	comparison_layer_ranges(&c, l3, 1, buf, sizeof buf);
	ck_assert_str_eq(buf, "epi");
	comparison_layer_ranges(&c, l1, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "");
	comparison_layer_ranges(&c, l1, 8, buf, 6); /* cut short, always terminated */
	ck_assert_uint_le(strlen(buf), 5);
	ck_assert_int_eq(strncmp(buf, "pro,0", strlen(buf)), 0);
	/* a second stack: layers 5-8 of the list are text.0-3, after its own prologue */
	c.n_stacks = 2;
	layers[5].index = LAYER_PROLOGUE;
	for (int i = 5; i < 10; i++)
		layers[i].stack = 1;
	for (int i = 6; i < 10; i++)
		layers[i].index = i - 6;
	comparison_layer_ranges(&c, l1, 8, buf, sizeof buf);
	ck_assert_str_eq(buf, "pro,0-2,text.0,text.2-3,epi");
	ck_assert_str_eq(comparison_layer_label(&c, 5, buf, sizeof buf), "text.prologue");
	comparison_layer_text(&c, l1, 8, buf, sizeof buf);
	ck_assert_str_eq(buf, "the prologue, layers 0-2, text.0, text.2, text.3 and the epilogue");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pair_groups");
	TCase *tc = tcase_create("pair_groups");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sglang_gemm_leads);
	tcase_add_test(tc, test_inductor_numbers_one_group);
	tcase_add_test(tc, test_layer_ranges_format);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
