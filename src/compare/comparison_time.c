/* comparison_time.c — the time figures of a comparison beyond kernel sums (time_stats.h):
 * each side's wall, busy, idle and overlap time and launches per compared pass, and what each
 * fusion difference saves: launches, and the idle gaps before the kernels it removes. */
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fusediff/time_stats.h"

/* Each compared pass's busy intervals on side s into busy[s] (n_passes of them, the others'
 * empty) and c->time[s] (run_two(): each side's its own). */
struct busy_job {
	struct comparison *c;
	struct busy_set **busy;
};

static void pass_busy(void *arg, int s)
{
	const struct busy_job *j = arg;
	struct comparison *c = j->c;
	const struct side *sd = c->side[s];
	struct busy_set *b = xcalloc(sd->n_passes + 1, sizeof *b);
	struct comparison_time *tm = &c->time[s];

	for (size_t p = 0; p < sd->n_passes; p++) {
		const struct pass *ps = &sd->passes[p];
		struct time_span ts;

		if (!comparison_pass_compared(c, s, ps))
			continue;
		time_span_of(sd->t, sd->order + ps->first, ps->n, &ts, &b[p]);
		tm->wall_ns += (double)ts.wall;
		tm->busy_ns += (double)ts.busy;
		tm->overlap_ns += (double)(ts.sum - ts.busy);
		tm->launches += (double)ts.n;
	}
	if (c->passes[s]) {
		tm->wall_ns /= c->passes[s];
		tm->busy_ns /= c->passes[s];
		tm->overlap_ns /= c->passes[s];
		tm->launches /= c->passes[s];
	}
	tm->idle_ns = tm->wall_ns - tm->busy_ns;
	j->busy[s] = b;
}

static int cmp_inst(const void *pa, const void *pb)
{
	const struct comparison_instance *a = pa, *b = pb;
	int r = CMP(a->pass, b->pass);

	return r ? r : CMP(a->kernel, b->kernel);
}

/* The idle time on side u just before each kernel that fusion f would not launch, over all
 * compared passes: fusing removes a launch and the gap before it. Of the fused (or matched)
 * pairs, each place keeps its first kernel of a pass; the extra pairs' kernels all go. The
 * gap before a kernel runs from the end of the kernel before it on the device (by start) to
 * its start, less any time another kernel ran then. */
static double fusion_idle(const struct comparison *c, const struct comparison_fusion *f, int u,
			  const struct busy_set *busy)
{
	const struct trace *t = c->side[u]->t;
	double idle = 0;
	size_t near = 0; /* busy_set_idle()'s hint: instances come by pass, then kernel (time) */

	for (uint32_t i = 0; i < f->n_pairs; i++) {
		const struct comparison_part *pt = &c->pairs[f->pairs[i]].side[u];
		int extra = i >= f->n_pairs - f->extra;
		struct comparison_instance *in;

		if (!pt->n_inst)
			continue;
		in = xmalloc(pt->n_inst * sizeof *in);
		memcpy(in, pt->inst, pt->n_inst * sizeof *in);
		qsort(in, pt->n_inst, sizeof *in, cmp_inst);
		for (uint32_t k = 0; k < pt->n_inst; k++) {
			uint32_t kr = in[k].kernel;
			const struct trace_kernel *prev;

			if (kr == 0 || (!extra && (k == 0 || in[k - 1].pass != in[k].pass)))
				continue; /* the kernel the place keeps */
			prev = &t->kernels[kr - 1];
			idle += (double)busy_set_idle(&busy[in[k].pass], prev->start + prev->dur,
						      t->kernels[kr].start, &near);
		}
		free(in);
	}
	return idle;
}

void comparison_times(struct comparison *c, struct busy_set *busy[2])
{
	struct busy_job j = { c, busy };

	run_two(pass_busy, &j);
	for (size_t i = 0; i < c->n_fusions; i++) {
		struct comparison_fusion *f = &c->fusions[i];
		int fs = f->fused_side, u = !fs;

		f->idle_ns = c->passes[u] ? fusion_idle(c, f, u, busy[u]) / c->passes[u] : 0;
	}
}

void comparison_busy_free(const struct comparison *c, struct busy_set *busy[2])
{
	for (int s = 0; s < 2; s++) {
		if (!busy[s])
			continue;
		for (size_t p = 0; p < c->side[s]->n_passes; p++)
			busy_set_free(&busy[s][p]);
		free(busy[s]);
		busy[s] = NULL;
	}
}
