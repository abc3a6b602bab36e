/* acceptance.h — the facts a correct analysis must find, as assertions on a comparison, shared by
 * check_acceptance.c (the real traces) and check_variants.c (traces derived from them that we
 * do not have: stripped annotations, other streams, renamed kernels, ...). Facts are checked
 * by what the kernels are (class, atoms, the eager primitive), not by their names, so that they
 * hold on renamed kernels too. */
#ifndef FUSEDIFF_TESTS_ACCEPTANCE_H
#define FUSEDIFF_TESTS_ACCEPTANCE_H

#include "testutil.h"

#include <math.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/structure.h"

/* What a kernel with name id `name` on side s is (the first kernel with that name). */
static inline const struct kernel_info *acc_info(const struct side *s, uint32_t name)
{
	for (size_t i = 0; i < s->t->n_kernels; i++)
		if (s->t->kernels[i].name == name)
			return trace_classes_get(&s->classes, i);
	ck_abort_msg("name id %u not in %s", name, s->t->path);
	return NULL;
}

static inline const char *acc_name(const struct comparison *c, int s, uint32_t name)
{
	return trace_str(c->side[s]->t, name);
}

/* Does one of names[0..n) on side s perform the eager primitive prim? */
static inline int acc_has_prim(const struct comparison *c, int s, const uint32_t *names, uint32_t n,
			       const char *prim)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct kernel_info *ki = acc_info(c->side[s], names[i]);

		if (ki->prim && strcmp(ki->prim, prim) == 0)
			return 1;
	}
	return 0;
}

static inline int acc_has_class(const struct comparison *c, int s, const uint32_t *names,
				uint32_t n, enum op_class cls)
{
	for (uint32_t i = 0; i < n; i++)
		if (acc_info(c->side[s], names[i])->cls == cls)
			return 1;
	return 0;
}

/* Every pass of the side has want layers, and so does its usual pass. */
static inline void acc_assert_layers(const struct side *s, uint32_t want)
{
	ck_assert_msg(s->n_passes > 0, "%s: no pass", s->t->path);
	ck_assert_msg(s->layers_per_pass == want, "%s: %u layers per pass, want %u", s->t->path,
		      s->layers_per_pass, want);
	for (size_t p = 0; p < s->n_passes; p++)
		ck_assert_msg(s->passes[p].n_layers == want, "%s: pass %zu has %u layers, want %u",
			      s->t->path, p, s->passes[p].n_layers, want);
}

static inline void acc_assert_passes(const struct side *s, uint32_t prefill, uint32_t decode)
{
	ck_assert_msg(s->phase_passes[PHASE_PREFILL] == prefill &&
			      s->phase_passes[PHASE_DECODE] == decode &&
			      s->phase_passes[PHASE_MIXED] == 0,
		      "%s: %u prefill, %u decode, %u mixed passes; want %u, %u, 0", s->t->path,
		      s->phase_passes[PHASE_PREFILL], s->phase_passes[PHASE_DECODE],
		      s->phase_passes[PHASE_MIXED], prefill, decode);
}

static inline void acc_dump_layer(const struct comparison *c, int32_t index)
{
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		if (comparison_layer_index(c, p->layer) != index)
			continue;
		fprintf(stderr, "  %3u %-6s %-11s A[%s%s] B[%s%s] f=%d\n", p->position,
			pair_kind_name(p->kind), class_name(p->cls),
			p->side[0].n_names ? comparison_short_name(c, 0, p->side[0].names[0]) : "",
			p->side[0].n_names > 1 ? " +" : "",
			p->side[1].n_names ? comparison_short_name(c, 1, p->side[1].names[0]) : "",
			p->side[1].n_names > 1 ? " +" : "", p->fusion);
	}
}

/* A one-sided pair of a kernel that no other layer runs: work of the whole pass that a side
 * runs inside one layer (Inductor computes the rotary table in layer 0, eager PyTorch before
 * it). Nothing pairs across layers, so it has no counterpart. */
static inline int acc_one_off(const struct comparison *c, const struct comparison_pair *p)
{
	int s = p->kind == PAIR_A_ONLY ? 0 : 1;

	if ((p->kind != PAIR_A_ONLY && p->kind != PAIR_B_ONLY) || !p->side[s].n_names)
		return 0;
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *q = &c->pairs[i];

		if (q->layer == p->layer || comparison_layer_index(c, q->layer) < 0)
			continue;
		for (uint32_t k = 0; k < q->side[s].n_names; k++)
			if (q->side[s].names[k] == p->side[s].names[0])
				return 0;
	}
	return 1;
}

/* In layers 0..n_layers-1, every pair holding a GEMM or attention kernel on either side is a
 * match and in no fusion (one-offs aside); each layer has want_gemm GEMM pairs and one
 * attention pair. */
static inline void acc_assert_gemm_attention_matched(const struct comparison *c, int32_t n_layers,
						     unsigned want_gemm)
{
	for (int32_t l = 0; l < n_layers; l++) {
		unsigned gemm = 0, attn = 0;

		for (size_t i = 0; i < c->n_pairs; i++) {
			const struct comparison_pair *p = &c->pairs[i];
			int g = 0, a = 0;

			if (comparison_layer_index(c, p->layer) != l)
				continue;
			for (int s = 0; s < 2; s++) {
				g |= acc_has_class(c, s, p->side[s].names, p->side[s].n_names,
						   CLASS_GEMM);
				a |= acc_has_class(c, s, p->side[s].names, p->side[s].n_names,
						   CLASS_ATTENTION);
			}
			if ((!g && !a) || acc_one_off(c, p))
				continue;
			if (p->kind != PAIR_MATCH || p->fusion >= 0)
				acc_dump_layer(c, l);
			ck_assert_msg(p->kind == PAIR_MATCH && p->fusion < 0,
				      "layer %d position %u: %s pair is %s%s", l, p->position,
				      g ? "a GEMM" : "an attention", pair_kind_name(p->kind),
				      p->fusion >= 0 ? " in a fusion" : "");
			ck_assert_msg(p->cls == (g ? CLASS_GEMM : CLASS_ATTENTION),
				      "layer %d position %u: class %s", l, p->position,
				      class_name(p->cls));
			gemm += g;
			attn += a;
		}
		if (gemm != want_gemm || attn != 1)
			acc_dump_layer(c, l);
		ck_assert_msg(gemm == want_gemm, "layer %d: %u GEMM pairs, want %u", l, gemm,
			      want_gemm);
		ck_assert_msg(attn == 1, "layer %d: %u attention pairs", l, attn);
	}
}

/* Is every layer 0..n-1 among the fusion's layers (or those of the fusions in `set`)? */
static inline int acc_layers_covered(const struct comparison *c, const uint8_t *set, int32_t n)
{
	for (int32_t l = 0; l < n; l++) {
		int seen = 0;

		for (size_t i = 0; i < c->n_fusions && !seen; i++)
			if (set[i])
				for (uint32_t j = 0; j < c->fusions[i].n_layers; j++)
					seen |= comparison_layer_index(
							c, c->fusions[i].layers[j]) == l;
		if (!seen)
			return 0;
	}
	return 1;
}

/* Eager (A) against torch.compile (B), prefill, n_layers layers: B fuses every RMSNorm (A runs
 * pow, mean, rsqrt, mul kernels) and SiLU·mul (A runs silu and mul, not a GEMM); every GEMM
 * and the attention kernel of each layer is a match; A fuses nothing. */
static inline void acc_assert_eager_vs_compiled(const struct comparison *c, int32_t n_layers)
{
	uint8_t *norm = calloc(c->n_fusions + 1, 1);
	int n_norm = 0, n_act = 0;

	ck_assert_int_eq(c->phase, PHASE_PREFILL);
	ck_assert_uint_eq(c->n_layers, (size_t)n_layers + 2);
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *f = &c->fusions[i];

		ck_assert_msg(f->fused_side == SIDE_B && !f->partial, "unexpected fusion: %s",
			      f->evidence);
		if ((f->atoms & ATOM_BIT(ATOM_RMSNORM)) &&
		    acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "pow") &&
		    acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "mean") &&
		    acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "rsqrt") &&
		    acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "mul")) {
			norm[i] = 1;
			n_norm++;
		}
		if ((f->atoms & ATOM_BIT(ATOM_SILU)) && (f->atoms & ATOM_BIT(ATOM_MUL))) {
			ck_assert_msg(
				acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "silu") &&
					acc_has_prim(c, 0, f->unfused_names, f->n_unfused, "mul"),
				"SiLU-mul fusion without silu and mul: %s", f->evidence);
			ck_assert_msg(
				!acc_has_class(c, 0, f->unfused_names, f->n_unfused, CLASS_GEMM),
				"a GEMM among the unfused kernels: %s", f->evidence);
			ck_assert_uint_eq(f->occurrences, (uint32_t)n_layers);
			ck_assert_uint_eq(f->n_layers, (uint32_t)n_layers);
			n_act++;
		}
	}
	ck_assert_msg(n_norm > 0, "no RMSNorm fusion by B with the eager pow/mean/rsqrt/mul");
	ck_assert_msg(acc_layers_covered(c, norm, n_layers), "an RMSNorm fusion misses a layer");
	ck_assert_msg(n_act == 1, "%d SiLU-mul fusions", n_act);
	free(norm);
	/* Q, K, V, O, gate, up, down */
	acc_assert_gemm_attention_matched(c, n_layers, 7);
}

/* SGLang MI300X (A) against B300 (B), decode, 32 layers: attention and the QKV, O, gate-up and
 * down GEMMs matched in every layer; the two add+RMSNorm kernels of each layer paired with each
 * other, never a fusion of add or rmsnorm; the split-K down GEMM (GEMM + splitKreduce on B) is
 * one GEMM pair, not a fusion. */
static inline void acc_assert_sglang(const struct comparison *c)
{
	ck_assert_int_eq(c->phase, PHASE_DECODE);
	ck_assert_uint_eq(c->n_layers, 34);
	acc_assert_gemm_attention_matched(c, 32, 4);
	for (int32_t l = 0; l < 32; l++) {
		unsigned norms = 0, splitk = 0;

		for (size_t i = 0; i < c->n_pairs; i++) {
			const struct comparison_pair *p = &c->pairs[i];

			if (comparison_layer_index(c, p->layer) != l)
				continue;
			if (p->cls == CLASS_NORM) {
				ck_assert_msg(p->kind == PAIR_MATCH && p->fusion < 0,
					      "layer %d position %u: norm pair is %s", l,
					      p->position, pair_kind_name(p->kind));
				ck_assert_uint_eq(p->side[0].n_names, 1);
				ck_assert_uint_eq(p->side[1].n_names, 1);
				for (int s = 0; s < 2; s++) {
					const struct kernel_info *ki =
						acc_info(c->side[s], p->side[s].names[0]);

					ck_assert(ki->atoms & ATOM_BIT(ATOM_RMSNORM));
				}
				norms++;
			}
			for (uint32_t j = 0; j < p->side[1].n_names; j++) {
				const struct kernel_info *ki =
					acc_info(c->side[1], p->side[1].names[j]);

				if (ki->cls != CLASS_GEMM || !ki->aux)
					continue;
				/* splitKreduce: in the pair of its GEMM, against A's one GEMM */
				ck_assert_msg(
					p->kind == PAIR_MATCH && p->fusion < 0 &&
						p->cls == CLASS_GEMM && p->side[0].n_names == 1 &&
						p->side[1].count == 2 && p->side[0].count == 1,
					"layer %d: split-K pair is %s", l, pair_kind_name(p->kind));
				splitk++;
			}
		}
		ck_assert_msg(norms == 2, "layer %d: %u norm pairs", l, norms);
		ck_assert_msg(splitk == 1, "layer %d: %u split-K pairs", l, splitk);
	}
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *f = &c->fusions[i];

		ck_assert_msg(!(f->atoms & (ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_RMSNORM) |
					    ATOM_BIT(ATOM_GEMM) | ATOM_BIT(ATOM_ATTENTION))),
			      "fusion: %s", f->evidence);
	}
}

/* A trace against itself: only matches, no fusion, ratio 1 everywhere A has time. */
static inline void acc_assert_self(const struct comparison *c)
{
	ck_assert_uint_gt(c->n_pairs, 0);
	ck_assert_msg(c->n_fusions == 0, "%zu fusions, the first: %s", c->n_fusions,
		      c->fusions[0].evidence);
	ck_assert_msg(c->ratio == 1.0, "ratio %g", c->ratio);
	ck_assert(c->delta_ns == 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];

		ck_assert_msg(p->kind == PAIR_MATCH, "layer %d position %u is %s",
			      comparison_layer_index(c, p->layer), p->position,
			      pair_kind_name(p->kind));
		ck_assert(p->delta_ns == 0);
		ck_assert(p->side[0].total_ns == 0 || p->ratio == 1.0);
	}
	for (size_t i = 0; i < c->n_layers; i++)
		ck_assert(c->layers[i].ns[0] == 0 || c->layers[i].ratio == 1.0);
}

#endif
