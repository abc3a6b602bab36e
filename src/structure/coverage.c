/* coverage.c — where a side's kernel time lies (struct side_coverage): in its passes, in partial
 * passes left out, or outside every pass (before the first, between two, after the last), and
 * what runs outside, by class. Every report states it: a comparison of passes that hold a
 * sliver of the GPU's work says little about the work. */
#include <stdio.h>
#include <string.h>

#include "fusediff/text.h"
#include "structure_int.h"

double side_coverage_share(const struct side_coverage *c)
{
	return c->total_ns > 0 ? (double)(c->pass_ns + c->partial_ns) / (double)c->total_ns : 1.0;
}

double side_coverage_kernels_share(const struct side_coverage *c)
{
	return c->total_kernels
		       ? (double)(c->pass_kernels + c->partial_kernels) / (double)c->total_kernels
		       : 1.0;
}

size_t side_coverage_top(const struct side_coverage *c, uint8_t *cls, size_t max)
{
	size_t n = 0;

	for (int k = 0; k < CLASS_COUNT; k++) {
		size_t j;

		if (c->outside_class_ns[k] <= 0 && c->outside_class_n[k] == 0)
			continue;
		/* insertion into the sorted top: most time first, the lower class on ties */
		for (j = n; j > 0 && c->outside_class_ns[cls[j - 1]] < c->outside_class_ns[k]; j--)
			if (j < max)
				cls[j] = cls[j - 1];
		if (j < max) {
			cls[j] = (uint8_t)k;
			if (n < max)
				n++;
		}
	}
	return n;
}

void side_coverage_text(const struct side_coverage *c, double compared, char *buf, size_t cap)
{
	double total = c->total_ns > 0 ? (double)c->total_ns : 1.0;
	int64_t out_ns = c->outside_ns[OUTSIDE_BEFORE] + c->outside_ns[OUTSIDE_BETWEEN] +
			 c->outside_ns[OUTSIDE_AFTER];
	char a[16], b[16];
	size_t len;
	uint8_t top[3];
	size_t n;

	text_percent(a, sizeof a, side_coverage_share(c));
	len = (size_t)snprintf(buf, cap, "%s of the kernel time in passes", a);
	if (c->partial_ns > 0 || compared >= 0) {
		len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, " (");
		if (c->partial_ns > 0) {
			text_percent(b, sizeof b, (double)c->partial_ns / total);
			len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0,
						"%s in partial passes left out%s", b,
						compared >= 0 ? "; " : "");
		}
		if (compared >= 0) {
			text_percent(b, sizeof b, compared);
			len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s compared",
						b);
		}
		len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, ")");
	}
	if (out_ns <= 0)
		return;
	text_percent(a, sizeof a, (double)out_ns / total);
	len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "; outside: %s", a);
	n = side_coverage_top(c, top, 3);
	for (size_t i = 0; i < n; i++) {
		text_percent(b, sizeof b, (double)c->outside_class_ns[top[i]] / total);
		len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s %s",
					i ? ", " : " (", class_name(top[i]), b);
	}
	if (n)
		snprintf(buf + len, len < cap ? cap - len : 0, ")");
}

void coverage_build(struct side *s, uint8_t *where)
{
	const struct trace *t = s->t;
	struct side_coverage *c = &s->cover;
	int64_t first = INT64_MAX, last = INT64_MIN;
	int launches = 0; /* the trace records launch events */

	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < t->n_kernels && !launches; i++)
		launches = t->kernels[i].launch >= 0;
	for (size_t i = 0; i < s->n_order; i++) {
		const struct trace_kernel *k = &t->kernels[s->order[i]];

		where[s->order[i]] = COVER_PASS;
		if (k->start < first)
			first = k->start;
		if (k->start + k->dur > last)
			last = k->start + k->dur;
	}
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct kernel_info *ki;
		int at;

		c->total_ns += k->dur;
		c->total_kernels++;
		/* the tail of a step queued before the recording started: no launch event in a
		 * trace that records them, before the first pass */
		if (where[i] == COVER_OUTSIDE && k->start < first && launches && k->launch < 0)
			where[i] = COVER_PARTIAL;
		if (where[i] == COVER_PASS) {
			c->pass_ns += k->dur;
			c->pass_kernels++;
			continue;
		}
		if (where[i] == COVER_PARTIAL) {
			c->partial_ns += k->dur;
			c->partial_kernels++;
			continue;
		}
		at = k->start < first	? OUTSIDE_BEFORE
		     : k->start >= last ? OUTSIDE_AFTER
					: OUTSIDE_BETWEEN;
		c->outside_ns[at] += k->dur;
		ki = trace_classes_get(&s->classes, (uint32_t)i);
		c->outside_class_ns[ki->cls] += k->dur;
		c->outside_class_n[ki->cls]++;
	}
}
