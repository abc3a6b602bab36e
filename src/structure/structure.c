/* structure.c — passes, phases, layers and steps of one trace (see structure.h).
 *
 * side_build: find the passes (passes.c), classify the kernels, map nn.Module calls
 * (module_map.c), then per pass: merge its streams into one execution order, group kernels into
 * steps (steps.c) and cut the steps into prologue, layers and epilogue (layers.c); finally
 * leave out a pass the recording cut at either end. Everything is linear in the number of
 * kernels, or n log n where it sorts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fusediff/bigmem.h"
#include "fusediff/text.h"
#include "structure_int.h"

/* --- the side --------------------------------------------------------------------------- */

static const char *layer_source_text(enum layer_source how)
{
	switch (how) {
	case LAYER_SRC_MODULE: return "nn.Module";
	case LAYER_SRC_ANCHOR: return "attention anchors";
	case LAYER_SRC_PERIOD: return "period of the op sequence";
	default: return "no repeated layers found";
	}
}

static int cmp_u32(const void *pa, const void *pb)
{
	return CMP(*(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* The most common value of v[0..n) (ties: the larger); v is sorted in place. */
static uint32_t mode_u32(uint32_t *v, size_t n)
{
	uint32_t best = 0, best_count = 0;

	if (n)
		qsort(v, n, sizeof *v, cmp_u32);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i >= best_count) { /* ascending: ties go to more layers */
			best_count = (uint32_t)(j - i);
			best = v[i];
		}
	}
	return best;
}

/* Per model: passes, passes per phase, the most common number of layers per pass, kernel
 * time; the main model (the most kernel time) and its figures for the side; the most common
 * source of layers of the main model's passes. */
static void summarize(struct side *s, const struct build *b, const struct module_map *mods)
{
	uint32_t *n = xmalloc((s->n_passes ? s->n_passes : 1) * sizeof *n);
	uint32_t src_count[4] = { 0 };
	int src = LAYER_SRC_NONE;

	if (s->n_models == 0)
		side_model(s, 0);
	for (size_t m = 0; m < s->n_models; m++) {
		struct side_model *md = &s->models[m];
		size_t k = 0;

		md->n_passes = 0;
		md->dur = 0;
		memset(md->phase_passes, 0, sizeof md->phase_passes);
		for (size_t i = 0; i < s->n_passes; i++) {
			if (s->passes[i].model != m)
				continue;
			md->n_passes++;
			md->dur += s->passes[i].dur;
			md->phase_passes[s->passes[i].phase]++;
			n[k++] = s->passes[i].n_layers;
		}
		md->layers_per_pass = mode_u32(n, k);
		if (md->dur > s->models[s->main_model].dur)
			s->main_model = (uint16_t)m;
	}
	free(n);
	s->layers_per_pass = s->models[s->main_model].layers_per_pass;
	memcpy(s->phase_passes, s->models[s->main_model].phase_passes, sizeof s->phase_passes);
	for (size_t i = 0; i < s->n_passes; i++)
		if (s->passes[i].model == s->main_model)
			src_count[s->passes[i].layer_src]++;
	for (int k = LAYER_SRC_MODULE; k <= LAYER_SRC_PERIOD; k++)
		if (src_count[k] > (src == LAYER_SRC_NONE ? 0 : src_count[src]))
			src = k;
	if (src == LAYER_SRC_MODULE) {
		uint64_t used =
			s->main_model < b->n_model_stacks ? b->model_stacks[s->main_model] : 1;
		size_t len = (size_t)snprintf(s->layer_source, sizeof s->layer_source, "nn.Module");

		for (size_t i = 0, k = 0; i < mods->n_stacks && i < 64; i++) {
			const struct module_stack *st = &mods->stacks[i];
			size_t j;

			for (j = 0; j < i; j++) /* each class once */
				if ((used >> j & 1) && mods->stacks[j].cls_len == st->cls_len &&
				    memcmp(mods->stacks[j].cls, st->cls, st->cls_len) == 0)
					break;
			if (j < i)
				continue;
			if ((used >> i & 1) && len < sizeof s->layer_source)
				len += (size_t)snprintf(
					s->layer_source + len, sizeof s->layer_source - len,
					"%s%.*s", k++ ? ", " : " ", (int)st->cls_len, st->cls);
		}
	} else
		snprintf(s->layer_source, sizeof s->layer_source, "%s", layer_source_text(src));
}

/* Whether every pass of plan is a ProfilerStep#N range: the profiler's own steps, the most
 * trusted unit whatever they cover. */
static int plan_is_profiler_step(const struct trace *t, const struct pass_plan *plan)
{
	for (size_t i = 0; i < plan->n_passes; i++)
		if (strncmp(trace_str(t, plan->passes[i].name), "ProfilerStep#", 13) != 0)
			return 0;
	return plan->n_passes > 0;
}

/* The passes, from the candidates in their order of trust: annotations (ProfilerStep among
 * them), calls of the model's top-level module, the whole trace. Annotations that hold less
 * than half the kernel time (a collective's 24 us ranges, one Optimizer.step) are not chosen
 * over the calls or the whole trace, which hold more; dropped then says so (for pass_source).
 * A training trace without annotations has a step per top-level call. --pass (regex) names
 * annotations, else module calls. */
static int choose_passes(const struct trace *t, const struct module_map *mods, const uint8_t *part,
			 const char *regex, struct pass_plan *plan, char *dropped,
			 struct fd_error *err)
{
	struct fd_error aerr = { { 0 } };
	int64_t held = 0, total = 0;

	if (passes_from_annotations(t, part, regex, plan, &aerr) < 0) {
		/* --pass names no annotation: nn.Module calls, then */
		if (passes_from_calls(t, mods, part, regex, plan, err) < 0)
			return -1;
		if (plan->n_passes)
			return 0;
		fd_error_set(err, "%s%s", aerr.msg,
			     strstr(aerr.msg, "matches no annotation") ? " or nn.Module call" : "");
		return -1;
	}
	if (regex || !plan->n_passes)
		goto calls;
	for (size_t k = 0; k < t->n_kernels; k++) {
		total += t->kernels[k].dur;
		held += plan->pass_of[k] >= 0 ? t->kernels[k].dur : 0;
	}
	if (plan_is_profiler_step(t, plan) || 2 * held >= total)
		return 0;
	{
		char *src = xstrdup(plan->source), *by = strstr(src, " (kernels by launch"),
		     pct[40];

		if (by)
			*by = '\0';
		text_cut(src, 64);
		snprintf(dropped, STRUCT_SOURCE_MAX,
			 "; annotations (%s) hold %s%% of the kernel time: not passes", src,
			 text_fixed(pct, sizeof pct,
				    total ? 100.0 * (double)held / (double)total : 0.0, 1, 0));
		text_utf8_trim(dropped);
		free(src);
	}
	pass_plan_clear(plan);
calls:
	/* training without annotations: a step per call of the model */
	if (!plan->n_passes && part && !regex)
		return passes_from_calls(t, mods, part, NULL, plan, err);
	return 0;
}

/* The forward layer call each backward kernel computes the gradient of: its node's forward op
 * (same sequence number), inside a layer call; -1 per kernel when unknown. node: per kernel,
 * its backward node (train_parts()). Owned by caller: free with free(). */
static int32_t *grad_layers(const struct trace *t, const struct module_map *mods,
			    const uint32_t *node)
{
	int32_t *grad_of = big_alloc(t->n_kernels, sizeof *grad_of);
	size_t hint = 0;

	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct trace_fwd_op *f =
			node[k] != UINT32_MAX && t->ranges[node[k]].seq >= 0
				? trace_find_fwd_op(t, t->ranges[node[k]].seq)
				: NULL;

		grad_of[k] = f ? module_layer_at(mods, f->tid, f->start, &hint) : -1;
	}
	return grad_of;
}

/* The kernels of each pass of plan, in time order (a counting sort), into bucket: pass p's are
 * bucket[start[p] .. start[p + 1]). Without passes, every kernel is in pass 0. Returns start
 * (n_pass + 1 entries), owned by caller. */
static size_t *bucket_by_pass(const struct trace *t, const struct pass_plan *plan, size_t n_pass,
			      uint32_t *bucket)
{
	size_t *start = xcalloc(n_pass + 1, sizeof *start), *fill;

	for (size_t i = 0; i < t->n_kernels; i++) {
		int32_t p = plan->n_passes ? plan->pass_of[i] : 0;

		if (p >= 0)
			start[p + 1]++;
	}
	for (size_t p = 0; p < n_pass; p++)
		start[p + 1] += start[p];
	fill = xmalloc(n_pass * sizeof *fill);
	memcpy(fill, start, n_pass * sizeof *fill);
	for (size_t i = 0; i < t->n_kernels; i++) {
		int32_t p = plan->n_passes ? plan->pass_of[i] : 0;

		if (p >= 0)
			bucket[fill[p]++] = (uint32_t)i;
	}
	free(fill);
	return start;
}

/* The scratch of the build, sized for the trace's kernels and ranges. */
static void build_init(struct build *b, struct side *s, const struct module_map *mods,
		       const uint8_t *prim)
{
	const struct trace *t = s->t;
	size_t nk = t->n_kernels;

	b->s = s;
	b->in = (struct step_input){ t, &s->classes, mods, prim };
	b->mods = mods;
	stream_merge_init(&b->mg, nk);
	b->mod_layer = xmalloc((nk ? nk : 1) * sizeof *b->mod_layer);
	b->main_name = xmalloc((nk ? nk : 1) * sizeof *b->main_name);
	if (mods->top) {
		b->range_seg = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *b->range_seg);
		for (size_t i = 0; i < t->n_ranges; i++)
			b->range_seg[i] = -1;
		b->seg = xmalloc((nk ? nk : 1) * sizeof *b->seg);
		b->segk = xmalloc((nk ? nk : 1) * sizeof *b->segk);
	}
}

static void build_free(struct build *b)
{
	stream_merge_free(&b->mg);
	free(b->mod_layer);
	free(b->main_name);
	free(b->range_seg);
	free(b->seg);
	free(b->segk);
	free(b->model_stacks);
	free(b->grad_of);
}

/* Build the passes of plan from the bucketed kernels; counts the passes split into model calls
 * (*by_models) and by the layer structure (*split). */
static void build_passes(struct build *b, const struct pass_plan *plan, size_t n_pass,
			 const uint32_t *bucket, const size_t *start, size_t *by_models,
			 size_t *split)
{
	struct side *s = b->s;

	for (size_t p = 0; p < n_pass; p++) {
		size_t n = start[p + 1] - start[p], o0 = s->n_order, st0 = s->n_steps;
		size_t l0 = s->n_layers, p0 = s->n_passes;
		uint32_t name = plan->n_passes ? plan->passes[p].name : 0;
		int phase = plan->n_passes ? plan->passes[p].phase : -1;

		if (n == 0)
			continue;
		/* a training step stays one pass, whatever models it calls (and recomputes) */
		if (b->mods->top && !(b->part && phase_is_train(b, bucket + start[p], n, phase)) &&
		    build_model_passes(b, bucket + start[p], n, phase)) {
			(*by_models)++;
			continue;
		}
		build_pass(b, bucket + start[p], n, name, phase, side_model(s, 0));
		/* a range whose name says no phase (ProfilerStep#N) may hold a whole generate() */
		if (phase < 0 && s->passes[s->n_passes - 1].phase != PHASE_TRAIN &&
		    s->passes[s->n_passes - 1].layer_src != LAYER_SRC_MODULE &&
		    split_pass(b, o0, st0, l0, p0, name, side_model(s, 0)))
			(*split)++;
	}
}

/* s->pass_source: how the passes were found, for the user. */
static void describe_passes(struct side *s, const struct pass_plan *plan, size_t by_models,
			    size_t split, const char *dropped)
{
	char *src = xstrdup(plan->n_passes ? plan->source : "");

	text_cut(src, by_models ? 80 : 100); /* at a character boundary */
	if (by_models)
		snprintf(s->pass_source, sizeof s->pass_source,
			 "calls of top-level nn.Modules with layers (%zu model%s)%s%s", s->n_models,
			 s->n_models == 1 ? "" : "s", plan->n_passes ? " in " : "", src);
	else if (plan->n_passes)
		snprintf(s->pass_source, sizeof s->pass_source, "%s%s", src,
			 split ? ", split by the layer structure" : "");
	else if (split)
		snprintf(s->pass_source, sizeof s->pass_source,
			 "repetition of the layer structure");
	else
		snprintf(s->pass_source, sizeof s->pass_source,
			 "whole trace (no pass annotations)");
	if (*dropped) {
		size_t len = strlen(s->pass_source);

		snprintf(s->pass_source + len, sizeof s->pass_source - len, "%s", dropped);
	}
	text_utf8_trim(s->pass_source);
	free(src);
}

/* The cut of a recording window (struct side_cut) as words into buf: "starts inside layer 0
 * (104 of 120 steps) and ends inside layer 14 (35 of 120 steps)"; "" when not cut. */
void side_cut_text(const struct side_cut *k, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	if (k->start && k->start_layer == LAYER_PROLOGUE)
		len = (size_t)snprintf(buf, cap, "starts inside a block (the prologue's %u steps)",
				       k->start_steps);
	else if (k->start)
		len = (size_t)snprintf(buf, cap, "starts inside layer %d (%u of %u steps)",
				       (int)k->start_layer, k->start_steps, k->usual_steps);
	if (k->end && len < cap)
		snprintf(buf + len, cap - len, "%sends inside layer %d (%u of %u steps)",
			 len ? " and " : "", (int)k->end_layer, k->end_steps, k->usual_steps);
}

/* Whether the n steps from a are, class by class, nearly the n steps from b: their longest
 * common subsequence holds 90 % of them (a kernel more or less in a block is no other work). */
static int like_steps(const struct side *s, uint32_t a, uint32_t b, uint32_t n)
{
	uint32_t *row = xcalloc((size_t)n + 1, sizeof *row), common;

	for (uint32_t i = 0; i < n; i++) { /* row[j]: LCS of a's first i and b's first j */
		uint32_t diag = 0;

		for (uint32_t j = 0; j < n; j++) {
			uint32_t up = row[j + 1];

			row[j + 1] = s->steps[a + i].cls == s->steps[b + j].cls
					     ? diag + 1
					     : (row[j] > up ? row[j] : up);
			diag = up;
		}
	}
	common = row[n];
	free(row);
	return 10 * (uint64_t)common >= 9 * (uint64_t)n;
}

/* s->cut (struct side_cut); pass_source says it. A layer is cut only on positive evidence:
 * the first layer short and the end of a whole one (the recording started inside it), the last
 * short and the start of a whole one (like_steps()); a short layer of other steps is the
 * structure's doubt, not a cut. */
static void find_cut_layers(struct side *s, int whole_trace)
{
	const struct pass *ps;
	const struct layer *pro, *first = NULL, *last = NULL, *ref = NULL;
	uint32_t *n, k = 0;
	char text[160];
	size_t len;

	memset(&s->cut, 0, sizeof s->cut);
	if (!whole_trace || s->n_passes != 1 || s->passes[0].n_layers < 3 ||
	    s->passes[0].layer_src == LAYER_SRC_MODULE)
		return;
	ps = &s->passes[0];
	pro = &s->layers[ps->layer_first];
	n = xcalloc(ps->layer_n + 1, sizeof *n);
	for (uint32_t l = ps->layer_first; l < ps->layer_first + ps->layer_n; l++)
		if (s->layers[l].index >= 0) {
			first = first ? first : &s->layers[l];
			last = &s->layers[l];
			n[k++] = s->layers[l].step_n;
		}
	qsort(n, k, sizeof *n, cmp_u32);
	s->cut.usual_steps = n[k / 2];
	free(n);
	for (uint32_t l = ps->layer_first; l < ps->layer_first + ps->layer_n && !ref; l++)
		if (s->layers[l].index >= 0 && s->layers[l].step_n == s->cut.usual_steps)
			ref = &s->layers[l];
	for (uint32_t i = pro->step_first; i < pro->step_first + pro->step_n; i++)
		if (s->steps[i].cls == CLASS_ATTENTION) {
			s->cut.start = 1;
			s->cut.start_layer = LAYER_PROLOGUE;
			s->cut.start_steps = pro->step_n;
			break;
		}
	if (!s->cut.start && 10 * (uint64_t)first->step_n < 9 * (uint64_t)s->cut.usual_steps &&
	    like_steps(s, first->step_first, ref->step_first + ref->step_n - first->step_n,
		       first->step_n)) {
		s->cut.start = 1;
		s->cut.start_layer = first->index;
		s->cut.start_steps = first->step_n;
	}
	if (10 * (uint64_t)last->step_n < 9 * (uint64_t)s->cut.usual_steps &&
	    like_steps(s, last->step_first, ref->step_first, last->step_n)) {
		s->cut.end = 1;
		s->cut.end_layer = last->index;
		s->cut.end_steps = last->step_n;
	}
	side_cut_text(&s->cut, text, sizeof text);
	len = strlen(s->pass_source);
	if (*text && len < sizeof s->pass_source)
		snprintf(s->pass_source + len, sizeof s->pass_source - len, "; the recording %s",
			 text);
}

int side_build(struct side *s, const struct trace *t, const struct classifier *c,
	       const struct side_opts *o, struct fd_error *err)
{
	struct pass_plan plan;
	struct module_map mods;
	struct build b = { 0 };
	size_t nk = t->n_kernels, n_pass, *start, split = 0, by_models = 0, n_backward = 0;
	char dropped[STRUCT_SOURCE_MAX] = "";
	uint32_t *bucket, *node = NULL;
	uint8_t *prim, *part, *where;

	memset(s, 0, sizeof *s);
	s->t = t;
	classify_trace(c, t, &s->classes);
	part = train_parts(t, &s->classes, &n_backward, &node);
	if (n_backward == 0) {
		free(part);
		part = NULL;
	}
	module_map_build(t, &mods);
	if (choose_passes(t, &mods, part, o ? o->pass_regex : NULL, &plan, dropped, err) < 0) {
		free(part);
		free(node);
		module_map_clear(&mods);
		trace_classes_clear(&s->classes);
		return -1;
	}
	if (part && mods.n_calls)
		b.grad_of = grad_layers(t, &mods, node);
	side_stack(s, ""); /* stack 0: no name */
	b.part = part;

	/* Fresh memory costs a page fault per page, as much as reading the kernels a few times
	 * over: the bucket takes the array of backward nodes, which the gradient layers were the
	 * last to need, and the execution order the one of the passes, once the bucket is
	 * made. */
	n_pass = plan.n_passes ? plan.n_passes : 1;
	bucket = node;
	start = bucket_by_pass(t, &plan, n_pass, bucket);
	if (plan.pass_of) {
		s->order = (uint32_t *)plan.pass_of;
		plan.pass_of = NULL;
	} else {
		s->order = big_alloc(nk, sizeof *s->order);
	}
	s->steps = big_alloc(nk, sizeof *s->steps);
	prim = steps_prim_codes(&s->classes);
	build_init(&b, s, &mods, prim);
	build_passes(&b, &plan, n_pass, bucket, start, &by_models, &split);
	describe_passes(s, &plan, by_models, split, dropped);
	where = xcalloc(nk ? nk : 1, 1);
	passes_drop_incomplete(s, where);
	s->n_unassigned = nk - s->n_order;
	coverage_build(s, where);
	free(where);
	summarize(s, &b, &mods);
	find_cut_layers(s, !plan.n_passes && !split && !by_models);

	build_free(&b);
	free(part);
	free(prim);
	free(start);
	free(bucket);
	module_map_clear(&mods);
	pass_plan_clear(&plan);
	return 0;
}

const char *side_model_name(const struct side *s, size_t m)
{
	const char *n;

	if (m >= s->n_models || !s->models[m].name)
		return "";
	n = trace_str(s->t, s->models[m].name);
	return strncmp(n, "nn.Module: ", 11) == 0 ? n + 11 : n;
}

void side_clear(struct side *s)
{
	trace_classes_clear(&s->classes);
	free(s->order);
	free(s->steps);
	free(s->layers);
	free(s->passes);
	free(s->models);
	for (size_t i = 0; i < s->n_stacks; i++)
		free(s->stacks[i]);
	free(s->stacks);
	memset(s, 0, sizeof *s);
}
