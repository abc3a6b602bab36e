/* pair_efficiency.c — the achieved TFLOPS, TB/s and share of the peak of each side of each pair
 * (struct comparison_eff): the work of the operators that launched the side's kernels, from
 * their recorded shapes (efficiency.h), over the kernels' time. */
#include "fusediff/comparison.h"
#include "compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void eff_unknown(struct comparison_eff *e)
{
	e->flops = 0;
	e->bytes = -1;
	e->tflops = e->tbps = e->ai = e->peak_share = NAN;
	e->bound = -1;
	e->dtype = -1;
}

static void eff_finish(struct comparison_eff *e, const struct gpu_peak *peak)
{
	struct eff_figures f;

	eff_figures(e->flops, e->bytes, e->ns, peak, e->dtype, &f);
	e->tflops = f.tflops;
	e->tbps = f.tbps;
	e->ai = f.ai;
	e->peak_share = f.peak_share;
	e->bound = (int8_t)f.bound;
	if (f.peak_share > 1.0) {
		/* above the GPU's peak: the shapes (a wrong operator) or the peak are wrong, and
		 * no figure of it is a result */
		e->tflops = e->tbps = e->ai = e->peak_share = NAN;
		e->bound = -1;
		e->above_peak = 1;
	}
}

static void side_ops_clear(struct side_ops *so)
{
	free(so->op_of);
	free(so->main_of);
	free(so->result_of);
	intern_free(so->texts);
	free(so->results);
	memset(so, 0, sizeof *so);
}

struct comparison_memo *comparison_memo_new(void)
{
	return xcalloc(1, sizeof(struct comparison_memo));
}

void comparison_memo_free(struct comparison_memo *m)
{
	if (!m)
		return;
	side_ops_clear(&m->side[0]);
	side_ops_clear(&m->side[1]);
	free(m->totals);
	free(m);
}

static void side_ops_build(const struct trace *t, struct side_ops *so)
{
	so->op_of = xmalloc((t->n_kernels + 1) * sizeof *so->op_of);
	so->main_of = xmalloc((t->n_ops + 1) * sizeof *so->main_of);
	so->result_of = xcalloc(t->n_ops + 1, sizeof *so->result_of);
	so->texts = intern_new(); /* id 0, the empty text, stands for "not parsed" */
	VEC_PUSH(so->results, so->n_results, so->cap_results, ((struct work_result){ 0 }));
	trace_link_kernels(t, so->op_of);
	for (size_t o = 0; o < t->n_ops; o++)
		so->main_of[o] = UINT32_MAX;
	for (size_t k = 0; k < t->n_kernels; k++) {
		uint32_t o = so->op_of[k], *m;

		if (o == UINT32_MAX)
			continue;
		m = &so->main_of[o];
		if (*m == UINT32_MAX || t->kernels[k].dur > t->kernels[*m].dur)
			*m = (uint32_t)k;
	}
}

/* The work of operator o (eff_trace_op_work(), parsed once per operator text); valid until the
 * next call. */
static const struct op_work *op_work_of(const struct trace *t, struct side_ops *so, uint32_t o)
{
	const struct trace_op *op = &t->ops[o];
	const struct work_result *r;

	if (!so->result_of[o]) {
		const uint32_t key[4] = { op->name, op->input_dims, op->input_types, op->concrete };
		uint32_t id = intern_add(so->texts, (const char *)key, sizeof key);

		if (id == so->n_results) { /* a text not seen before */
			struct work_result nr = { 0 };

			nr.known = eff_trace_op_work(t, op, &nr.w);
			VEC_PUSH(so->results, so->n_results, so->cap_results, nr);
		}
		so->result_of[o] = id;
	}
	r = &so->results[so->result_of[o]];
	return r->known ? &r->w : NULL;
}

/* One side of one pair. buf: room for the side's instances. */
static void part_eff(const struct comparison *c, int s, const struct comparison_part *part,
		     struct side_ops *so, uint64_t *buf, struct comparison_eff *e)
{
	const struct trace *t = c->side[s]->t;
	size_t n_ops = 0;
	int bytes_known = 1;

	memset(e, 0, sizeof *e);
	eff_unknown(e);
	for (uint32_t i = 0; i < part->n_inst; i++) {
		uint32_t k = part->inst[i].kernel, o = so->op_of[k];

		e->ns += (double)t->kernels[k].dur;
		if (o != UINT32_MAX) /* the operator, and whether this is its longest kernel */
			buf[n_ops++] = (uint64_t)o << 1 | (so->main_of[o] == k);
	}
	if (!n_ops)
		return;
	sort_runs(buf, n_ops, sizeof *buf, cmp_u64); /* in kernel order: mostly sorted */
	for (size_t i = 0; i < n_ops; i++) {
		uint32_t o = (uint32_t)(buf[i] >> 1);
		int main = 0;
		const struct op_work *wp;
		struct op_work w;

		if (i && o == (uint32_t)(buf[i - 1] >> 1))
			continue; /* a GEMM and its split-K reduce: one call */
		for (size_t j = i; j < n_ops && (uint32_t)(buf[j] >> 1) == o; j++)
			main |= (int)(buf[j] & 1);
		if (!(wp = op_work_of(t, so, o))) {
			e->flops = 0; /* a kernel whose work is not known: the side's is not */
			e->ops = 0;
			return;
		}
		if (!main) /* its work counts in the pair of its longest kernel */
			continue;
		w = *wp;
		if (!e->ops++) {
			e->kind = w.kind;
			e->causal = w.causal;
			e->dtype = (int8_t)eff_peak_dtype(
				w.dtype, part->n_names ? trace_str(t, part->names[0]) : NULL);
			e->b = w.b;
			e->m = w.m;
			e->n = w.n;
			e->k = w.k;
			e->heads = w.heads;
			e->kv_heads = w.kv_heads;
			e->bytes = 0;
		} else if (w.kind != e->kind || w.b != e->b || w.m != e->m || w.n != e->n ||
			   w.k != e->k || w.heads != e->heads) {
			e->mixed = 1;
		}
		e->flops += w.flops;
		if (w.bytes < 0)
			bytes_known = 0;
		else
			e->bytes += w.bytes;
	}
	if (!e->ops) {
		e->flops = 0;
		return;
	}
	if (!bytes_known)
		e->bytes = -1;
	eff_finish(e, c->peak[s]);
}

void comparison_efficiency(struct comparison *c, const struct peak_table *peaks,
			   struct comparison_memo *memo)
{
	size_t most = 0;
	uint64_t *buf;
	struct comparison_memo local = { 0 }, *m = memo ? memo : &local;
	struct side_ops *so = m->side;

	for (int s = 0; s < 2; s++) {
		c->peak[s] = eff_trace_peak(peaks, c->side[s]->t);
		if (m->t[s] != c->side[s]->t || !so[s].op_of) { /* first use, or other traces */
			side_ops_clear(&so[s]);
			side_ops_build(c->side[s]->t, &so[s]);
			m->t[s] = c->side[s]->t;
		}
	}
	for (size_t i = 0; i < c->n_pairs; i++)
		for (int s = 0; s < 2; s++)
			if (c->pairs[i].side[s].n_inst > most)
				most = c->pairs[i].side[s].n_inst;
	buf = xmalloc((most + 1) * sizeof *buf);
	for (size_t i = 0; i < c->n_pairs; i++)
		for (int s = 0; s < 2; s++)
			part_eff(c, s, &c->pairs[i].side[s], &so[s], buf, &c->pairs[i].side[s].eff);
	free(buf);
	for (int s = 0; s < 2; s++) {
		size_t above = 0;

		if (m == &local)
			side_ops_clear(&so[s]);
		for (size_t i = 0; i < c->n_pairs; i++)
			above += c->pairs[i].side[s].eff.above_peak;
		if (above)
			comparison_warn(
				c, "above_peak",
				"%zu of %c's kernel pairs came out above the GPU's peak and "
				"show no efficiency: their operators' shapes or the peak "
				"are wrong",
				above, s ? 'B' : 'A');
	}
}

void comparison_eff_sum(const struct comparison_eff *const *parts, size_t n,
			const struct gpu_peak *peak, struct comparison_eff *out)
{
	memset(out, 0, sizeof *out);
	eff_unknown(out);
	for (size_t i = 0; i < n; i++) {
		const struct comparison_eff *e = parts[i];

		if (!(e->flops > 0) || (i && e->dtype != out->dtype)) {
			eff_unknown(out);
			out->ops = 0;
			return;
		}
		if (!i) {
			*out = *e;
			continue;
		}
		if (e->mixed || e->kind != out->kind || e->b != out->b || e->m != out->m ||
		    e->n != out->n || e->k != out->k || e->heads != out->heads)
			out->mixed = 1;
		out->flops += e->flops;
		out->ns += e->ns;
		out->ops += e->ops;
		out->bytes = out->bytes >= 0 && e->bytes >= 0 ? out->bytes + e->bytes : -1;
	}
	if (n)
		eff_finish(out, peak);
}
