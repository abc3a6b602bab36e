/* comparability.c — how far the two sides of a comparison are the same workload (see
 * struct comparison_comparability in comparison.h), and the warnings, each with a stable code,
 * about what makes the figures less comparable than they look.
 *
 * Batch sizes come from the serving frameworks' annotations: SGLang names each step's range
 * "step[DECODE bs=16]" (any name with a "bs=N" word counts), vLLM names each model call
 * "execute_8_context_2(1024)_generation_6(6)": 8 requests, 2 of them in their context phase
 * with 1024 tokens, 6 generating 6 tokens. The names of the compared passes count first; when
 * the passes were not found from such ranges, every range of the trace that carries one. */
#include <regex.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/efficiency.h"
#include "fusediff/text.h"
#include "fusediff/util.h"

/* The share of kernel time in class Other above which a side's classes, and so its pairs and
 * fusions, are not to be trusted without a look. */
#define OTHER_SHARE_WARN 0.10
/* Below this share of a side's kernel time in passes, the comparison warns (low_coverage). */
#define COVERAGE_WARN 0.9

const char *comparison_warn(struct comparison *c, const char *code, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->warnings = xreallocarray(c->warnings, c->n_warnings + 1, sizeof *c->warnings);
	c->warnings[c->n_warnings++] = (struct comparison_warning){ code, xstrdup(buf) };
	return c->warnings[c->n_warnings - 1].message;
}

/* The warning codes, most severe first (fusediff(1), WARNINGS). */
static const char *const warning_order[] = {
	"rank_alignment", "phase_mix",	    "capture_partial",	  "depth_differs",
	"repeat_differs", "batch_differs",  "gemm_shapes_differ", "other_share_high",
	"low_coverage",	  "partial_layers", "above_peak",	  "noisy",
};

static size_t warning_rank(const char *code)
{
	size_t n = sizeof warning_order / sizeof warning_order[0];

	for (size_t i = 0; i < n; i++)
		if (strcmp(code, warning_order[i]) == 0)
			return i;
	return n;
}

size_t comparison_worst_warning(const struct comparison *c)
{
	size_t worst = SIZE_MAX;

	for (size_t i = 0; i < c->n_warnings; i++)
		if (worst == SIZE_MAX ||
		    warning_rank(c->warnings[i].code) < warning_rank(c->warnings[worst].code))
			worst = i;
	return worst;
}

/* The batch of one range name: requests and tokens (-1 when the name does not say), the
 * framework as the return value (NULL: no batch in the name). */
struct batch_res {
	regex_t sglang, vllm;
};

static int64_t match_num(const char *s, const regmatch_t *m)
{
	return m->rm_so < 0 ? -1 : strtoll(s + m->rm_so, NULL, 10);
}

static const char *name_batch(const struct batch_res *re, const char *s, int64_t *req, int64_t *tok)
{
	regmatch_t m[6];

	*req = *tok = -1;
	if (strstr(s, "execute_") && regexec(&re->vllm, s, 6, m, 0) == 0) {
		*req = match_num(s, &m[1]);
		*tok = match_num(s, &m[3]) + match_num(s, &m[5]);
		return "vLLM execute_N_context_C(T)_generation_G(T)";
	}
	if (strstr(s, "bs=") && regexec(&re->sglang, s, 3, m, 0) == 0) {
		*req = match_num(s, &m[2]);
		return "SGLang bs=N";
	}
	return NULL;
}

/* The most frequent of n values (the smallest of equally frequent ones); sorts v. */
static int cmp_i64(const void *a, const void *b)
{
	return CMP(*(const int64_t *)a, *(const int64_t *)b);
}

static int64_t mode_of(int64_t *v, size_t n, uint8_t *varies)
{
	int64_t best = -1;
	size_t best_n = 0;

	qsort(v, n, sizeof *v, cmp_i64);
	*varies = n > 1 && v[0] != v[n - 1];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i > best_n)
			best = v[i], best_n = j - i;
	}
	return best;
}

static void side_batch(const struct comparison *c, int s, const struct batch_res *re,
		       struct comparison_batch *b)
{
	const struct side *sd = c->side[s];
	const struct trace *t = sd->t;
	size_t n = 0, cap = sd->n_passes + 1;
	int64_t *req = xcalloc(cap, sizeof *req), *tok = xcalloc(cap, sizeof *tok);

	*b = (struct comparison_batch){ .requests = -1, .tokens = -1 };
	for (size_t p = 0; p < sd->n_passes; p++) {
		const char *src;

		if (!comparison_pass_compared(c, s, &sd->passes[p]) || !sd->passes[p].name)
			continue;
		src = name_batch(re, trace_str(t, sd->passes[p].name), &req[n], &tok[n]);
		if (src)
			b->source = src, n++;
	}
	if (!n) /* passes not from batch ranges: the ranges of the whole trace */
		for (size_t i = 0; i < t->n_ranges; i++) {
			const struct trace_range *r = &t->ranges[i];
			const char *src;

			if (r->kind != RANGE_USER && r->kind != RANGE_GPU_USER)
				continue;
			if (n == cap) {
				cap *= 2;
				req = xreallocarray(req, cap, sizeof *req);
				tok = xreallocarray(tok, cap, sizeof *tok);
			}
			src = name_batch(re, trace_str(t, r->name), &req[n], &tok[n]);
			if (src)
				b->source = src, n++;
		}
	if (n) {
		uint8_t v1, v2;

		b->requests = mode_of(req, n, &v1);
		b->tokens = mode_of(tok, n, &v2);
		b->varies = v1 || v2;
	}
	free(req);
	free(tok);
}

/* The GEMM shape of side s of pair p: from the operator that launched its first instance. */
static int pair_shape(const struct comparison *c, const struct comparison_pair *p, int s,
		      int64_t mnk[3])
{
	const struct trace *t = c->side[s]->t;
	const struct trace_op *op;

	if (!p->side[s].n_inst)
		return 0;
	op = trace_find_op(t, t->kernels[p->side[s].inst[0].kernel].external_id);
	return op && op->input_dims &&
	       eff_gemm_shape(trace_str(t, op->input_dims), &mnk[0], &mnk[1], &mnk[2]);
}

/* A matched GEMM pair with both shapes known. */
struct shaped {
	int32_t layer;
	size_t pair;
	int64_t mnk[2][3]; /* A's, B's */
	int side;	   /* the side the sort below orders by */
};

static int shape_cmp(const int64_t a[3], const int64_t b[3])
{
	int r = 0;

	for (int i = 0; i < 3 && !r; i++)
		r = CMP(a[i], b[i]);
	return r;
}

static int cmp_shaped(const void *pa, const void *pb)
{
	const struct shaped *x = pa, *y = pb;
	int r = CMP(x->layer, y->layer);

	if (!r)
		r = shape_cmp(x->mnk[x->side], y->mnk[y->side]);
	return r ? r : CMP(x->pair, y->pair);
}

/* The GEMM shapes of the matched pairs, compared layer by layer as multisets: a pair of
 * same-class GEMMs that the alignment matched crosswise (A's q projection with B's k, the
 * shapes being in the other's layer all the same) is no difference in the workload; a shape
 * one side has and the other lacks in that layer is. differ counts A's pairs whose shape B's
 * side of the layer lacks; the example is the first of them in pair order. */
static void gemm_shapes(const struct comparison *c, struct comparison_shapes *g)
{
	struct shaped *a = xmalloc((c->n_pairs + 1) * sizeof *a), *b;
	size_t n = 0;

	*g = (struct comparison_shapes){ .example = -1 };
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct comparison_pair *p = &c->pairs[i];
		struct shaped e = { .layer = p->layer, .pair = i };

		if (p->kind != PAIR_MATCH || p->cls != CLASS_GEMM)
			continue;
		g->pairs++;
		if (!pair_shape(c, p, 0, e.mnk[0]) || !pair_shape(c, p, 1, e.mnk[1]))
			continue;
		g->known++;
		a[n++] = e;
	}
	b = xmalloc((n + 1) * sizeof *b);
	memcpy(b, a, n * sizeof *a);
	for (size_t i = 0; i < n; i++)
		b[i].side = 1;
	qsort(a, n, sizeof *a, cmp_shaped);
	qsort(b, n, sizeof *b, cmp_shaped);
	/* both sorted by layer, then shape: each layer's A shapes against its B shapes */
	for (size_t i = 0, j = 0; i < n;) {
		int r = j == n ? -1 : CMP(a[i].layer, b[j].layer);

		if (!r)
			r = shape_cmp(a[i].mnk[0], b[j].mnk[1]);
		if (r > 0) { /* B's shape not in A's layer: counted from A's side */
			j++;
			continue;
		}
		if (r == 0) { /* the same shape in the same layer on both sides */
			i++, j++;
			continue;
		}
		g->differ++;
		if (g->example < 0 || (int64_t)a[i].pair < g->example) {
			g->example = (int64_t)a[i].pair;
			memcpy(g->a, a[i].mnk[0], sizeof g->a);
			memcpy(g->b, a[i].mnk[1], sizeof g->b);
		}
		i++;
	}
	free(a);
	free(b);
}

static void batch_text(const struct comparison_batch *b, char *buf, size_t cap)
{
	if (b->requests < 0)
		snprintf(buf, cap, "unknown");
	else if (b->tokens < 0)
		snprintf(buf, cap, "%lld", (long long)b->requests);
	else
		snprintf(buf, cap, "%lld (%lld tokens)", (long long)b->requests,
			 (long long)b->tokens);
}

/* The batches of both sides from the serving frameworks' annotations. */
static void batches(struct comparison *c)
{
	struct batch_res re;

	if (regcomp(&re.sglang, "(^|[^A-Za-z0-9_])bs=([0-9]+)", REG_EXTENDED) != 0)
		abort();
	if (regcomp(&re.vllm,
		    "execute_([0-9]+)_context_([0-9]+)\\(([0-9]+)\\)_generation_([0-9]+)\\(([0-9]+)"
		    "\\)",
		    REG_EXTENDED) != 0)
		abort();
	for (int s = 0; s < 2; s++)
		side_batch(c, s, &re, &c->comparability.batch[s]);
	regfree(&re.sglang);
	regfree(&re.vllm);
}

/* The warnings that do not make the sides incomparable: the phase mix, a partial graph
 * capture. */
static void mix_warnings(struct comparison *c)
{
	const uint32_t *a = comparison_model_phases(c, 0), *b = comparison_model_phases(c, 1);
	int differ = 0;

	for (int p = 0; p < PHASE_COUNT && c->phase == PHASE_COUNT; p++)
		differ |= (a[p] * c->passes[1] != b[p] * c->passes[0]);
	if (differ) {
		char ha[128], hb[128];

		comparison_phases_text(c, 0, ha, sizeof ha);
		comparison_phases_text(c, 1, hb, sizeof hb);
		comparison_warn(c, "phase_mix",
				"the sides' passes mix the phases differently (A: %s, B: %s): a "
				"figure per pass averages over different work; --phase compares "
				"one phase",
				ha, hb);
	}
	for (int s = 0; s < 2; s++) {
		const struct trace_capture *cap = &c->side[s]->t->capture;

		if (cap->path && cap->joined < cap->graph_kernels * 0.95)
			comparison_warn(c, "capture_partial",
					"%c's graph capture joins %zu of its %zu replayed kernels: "
					"it may be the capture of another graph or batch size",
					s ? 'B' : 'A', cap->joined, cap->graph_kernels);
	}
}

/* The warnings that make the sides incomparable (depth, captures, batch, GEMM shapes);
 * returns the first one's message, or NULL. */
static const char *workload_warnings(struct comparison *c)
{
	struct comparison_comparability *k = &c->comparability;
	uint32_t depth[2] = { comparison_model(c, 0)->layers_per_pass,
			      comparison_model(c, 1)->layers_per_pass };
	const char *why = NULL, *m;

	if (depth[0] != depth[1])
		why = comparison_warn(
			c, "depth_differs",
			"the sides have different depths (A: %u layers per pass, B: %u): "
			"the deeper side's extra layers have no counterpart",
			depth[0], depth[1]);
	m = comparison_repeats_warn(c);
	why = why ? why : m;
	if (k->batch[0].requests >= 0 && k->batch[1].requests >= 0 &&
	    (k->batch[0].requests != k->batch[1].requests ||
	     (k->batch[0].tokens >= 0 && k->batch[1].tokens >= 0 &&
	      k->batch[0].tokens != k->batch[1].tokens))) {
		char ba[64], bb[64];

		batch_text(&k->batch[0], ba, sizeof ba);
		batch_text(&k->batch[1], bb, sizeof bb);
		m = comparison_warn(c, "batch_differs",
				    "the sides ran different batches (A: %s, B: %s, from %s%s%s): "
				    "their kernels do different amounts of work",
				    ba, bb, k->batch[0].source,
				    k->batch[0].source == k->batch[1].source ? "" : " and ",
				    k->batch[0].source == k->batch[1].source ? ""
									     : k->batch[1].source);
		why = why ? why : m;
	}
	if (k->gemm.differ) {
		char lab[96];

		comparison_layer_label(c, c->pairs[k->gemm.example].layer, lab, sizeof lab);
		m = comparison_warn(
			c, "gemm_shapes_differ",
			"%u of the %u matched GEMM pairs with known shapes differ in M, N "
			"or K (first in layer %s: A %lldx%lldx%lld, B %lldx%lldx%lld)",
			k->gemm.differ, k->gemm.known, lab, (long long)k->gemm.a[0],
			(long long)k->gemm.a[1], (long long)k->gemm.a[2], (long long)k->gemm.b[0],
			(long long)k->gemm.b[1], (long long)k->gemm.b[2]);
		why = why ? why : m;
	}
	return why;
}

/* The warnings about how far the figures can be trusted: Other share, coverage. */
static void trust_warnings(struct comparison *c)
{
	for (int s = 0; s < 2; s++) {
		char text[160];

		side_cut_text(&c->side[s]->cut, text, sizeof text);
		if (*text)
			comparison_warn(
				c, "partial_layers",
				"%c's recording %s: a block cut by the recording's start or "
				"end compares unlike work",
				s ? 'B' : 'A', text);
	}
	for (int s = 0; s < 2; s++) {
		double share = c->side[s]->classes.other_share;
		char pct[40];

		if (share > OTHER_SHARE_WARN)
			comparison_warn(
				c, "other_share_high",
				"%s%% of %c's kernel time is in kernels fusediff does not "
				"classify (Other): its pairs and fusions may be wrong there",
				text_fixed(pct, sizeof pct, share * 100.0, 0, 0), s ? 'B' : 'A');
	}
	for (int s = 0; s < 2; s++) {
		const struct side_coverage *cv = &c->side[s]->cover;
		double share = side_coverage_share(cv);
		uint8_t top[3];
		size_t n = side_coverage_top(cv, top, 3);
		char list[160] = "", held[16], one[16];

		if (share >= COVERAGE_WARN)
			continue;
		for (size_t i = 0, len = 0; i < n && len < sizeof list; i++) {
			text_percent(one, sizeof one,
				     (double)cv->outside_class_ns[top[i]] / (double)cv->total_ns);
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %s",
						i ? ", " : "", class_name(top[i]), one);
		}
		text_percent(held, sizeof held, share);
		comparison_warn(c, "low_coverage",
				"%c's passes hold %s of its kernel time; outside them: %s "
				"(--pass chooses the passes)",
				s ? 'B' : 'A', held, list);
	}
}

void comparability_build(struct comparison *c)
{
	struct comparison_comparability *k = &c->comparability;
	const char *why;

	batches(c);
	gemm_shapes(c, &k->gemm);
	mix_warnings(c);
	why = workload_warnings(c);
	trust_warnings(c);
	k->why = why;
	k->comparable = !why;
}
