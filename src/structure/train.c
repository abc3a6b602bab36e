/* train.c — which part of a training step launched each kernel: the forward pass, the
 * backward pass or the optimizer.
 *
 * A kernel is backward when its launch lies inside one of autograd's evaluate_function
 * ranges (one backward node each) on the launching thread; in a trace without CPU events, when
 * its name says it computes a gradient (atom grad). It belongs to the optimizer when it is an
 * optimizer kernel (class Optimizer: multi_tensor_apply_kernel<AdamFunctor>, ...) or is
 * launched inside an "Optimizer.step#..." range. Everything else is forward. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

struct ival {
	int64_t tid, start, end;
	uint32_t range;
	uint8_t part;
};

static int cmp_ival(const void *pa, const void *pb)
{
	const struct ival *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->tid, y->tid)) || (r = CMP(x->start, y->start)))
		return r;
	return CMP(y->end, x->end);
}

struct ival_query {
	const struct ival *v;
	int64_t tid, x;
};

static int ival_before(const void *ctx, size_t j)
{
	const struct ival_query *q = ctx;

	return q->v[j].tid < q->tid || (q->v[j].tid == q->tid && q->v[j].start <= q->x);
}

static int is_optimizer_range(const char *name)
{
	return strncmp(name, "Optimizer.step", 14) == 0;
}

uint8_t *train_parts(const struct trace *t, const struct trace_classes *tc, size_t *n_backward,
		     uint32_t **node)
{
	size_t n = 0, hint = 0, has_cpu_backward = 0;
	struct ival *v = xmalloc((t->n_ranges ? t->n_ranges : 1) * sizeof *v);
	uint8_t *part = big_alloc(t->n_kernels, 1);

	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (r->kind == RANGE_BACKWARD)
			v[n++] = (struct ival){ r->tid, r->start, r->start + r->dur, (uint32_t)i,
						PART_BACKWARD };
		else if (r->kind == RANGE_USER && is_optimizer_range(trace_str(t, r->name)))
			v[n++] = (struct ival){ r->tid, r->start, r->start + r->dur, (uint32_t)i,
						PART_OPTIMIZER };
		has_cpu_backward |= r->kind == RANGE_BACKWARD;
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_ival);
	*n_backward = 0;
	*node = big_alloc(t->n_kernels, sizeof **node);
	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct kernel_info *ki =
			tc->info_of ? trace_classes_get(tc, (uint32_t)k) : NULL;
		const struct trace_kernel *kr = &t->kernels[k];

		part[k] = PART_FORWARD;
		(*node)[k] = UINT32_MAX;
		if (ki && ki->cls == CLASS_OPTIMIZER)
			part[k] = PART_OPTIMIZER;
		else if (!has_cpu_backward && ki && (ki->atoms & ATOM_BIT(ATOM_GRAD)))
			part[k] = PART_BACKWARD;
		if (kr->launch >= 0 && n) {
			struct ival_query q = { v, trace_launch_tid(t, kr), kr->launch };
			size_t j = gallop_prefix(n, hint, ival_before, &q);

			hint = j;
			/* the innermost range around the launch: ranges of one kind do not nest
			 * much; look back a few */
			for (size_t b = j, tries = 0; b-- > 0 && tries < 8 && v[b].tid == q.tid;
			     tries++)
				if (kr->launch <= v[b].end) {
					part[k] = v[b].part;
					if (v[b].part == PART_BACKWARD)
						(*node)[k] = v[b].range;
					break;
				}
		}
		*n_backward += part[k] == PART_BACKWARD;
	}
	free(v);
	return part;
}
