/* evidence.c — the evidence of a kernel pair: full names and every instance with its pass,
 * layer, start, duration, grid, block, stream, launching operator and input shapes. */
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"

/* Cells given to the kernel name of each instance of a run of several kernels. */
#define KERNEL_COL 36

static void dim3(char *buf, size_t cap, const int32_t v[3])
{
	if (!v[0] && !v[1] && !v[2])
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "[%d,%d,%d]", (int)v[0], (int)v[1], (int)v[2]);
}

/* An instance in the order the pane lists them: by pass, then by start. */
struct inst_order {
	uint32_t pass;
	int64_t start;
	uint32_t i; /* index into the part's instances */
};

static int cmp_inst(const void *a, const void *b)
{
	const struct inst_order *x = a, *y = b;

	if (x->pass != y->pass)
		return (x->pass > y->pass) - (x->pass < y->pass);
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->i > y->i) - (x->i < y->i);
}

/* The launching operator of kernel k, escaped (malloc'd), or NULL; its input shapes in *dims
 * (escaped, malloc'd) when it has an operator. */
static char *op_of(const struct trace *t, const struct trace_kernel *k, char **dims)
{
	const struct trace_op *op = trace_find_op(t, k->external_id);
	const char *o, *d;

	*dims = NULL;
	if (!op)
		return NULL;
	o = trace_str(t, op->name);
	d = op->input_dims ? trace_str(t, op->input_dims) : "";
	*dims = text_escape_dup(d, strlen(d));
	return text_escape_dup(o, strlen(o));
}

void ui_evidence_instances(struct ui *u, struct ui_text *out, const struct comparison_pair *p,
			   int side, size_t *budget)
{
	enum { OP_MIN = 8, OP_MAX = 40 };
	const struct comparison_part *part = &p->side[side];
	const struct side *sd = u->c->side[side];
	const struct trace *t = sd->t;
	struct inst_order *ord;
	uint32_t n = 0, shown;
	int opw = OP_MIN;
	char layer[96];

	if (part->n_inst == 0)
		return;
	comparison_layer_label(u->c, p->layer, layer, sizeof layer);
	/* pass by pass, each in the order its kernels ran: a run's kernels one after another */
	ord = xmalloc(part->n_inst * sizeof *ord);
	for (uint32_t i = 0; i < part->n_inst; i++)
		if (part->inst[i].kernel < t->n_kernels)
			ord[n++] = (struct inst_order){ part->inst[i].pass,
							t->kernels[part->inst[i].kernel].start, i };
	qsort(ord, n, sizeof *ord, cmp_inst);
	shown = n < *budget ? n : (uint32_t)*budget;
	/* the operator comes before the launch figures, as wide as the longest one shown */
	for (uint32_t i = 0; i < shown; i++) {
		char *dims, *o = op_of(t, &t->kernels[part->inst[ord[i].i].kernel], &dims);
		int w = o ? (int)text_width(o) : 1;

		if (w > opw)
			opw = w > OP_MAX ? OP_MAX : w;
		free(o);
		free(dims);
	}
	/* A run of several kernels names each instance's kernel, in a column of its own after
	 * the operator: the input shapes, of any length, come last. */
	ui_text_add(out, ROLE_DIM, 1,
		    "  %c pass layer     start us    dur us  %-*s  %-*sgrid         block        "
		    "stream  input shapes",
		    side == SIDE_A ? 'A' : 'B', opw, "operator",
		    part->n_names > 1 ? KERNEL_COL + 2 : 0, part->n_names > 1 ? "kernel" : "");
	for (uint32_t i = 0; i < n; i++) {
		const struct comparison_instance *in = &part->inst[ord[i].i];
		const struct trace_kernel *k = &t->kernels[in->kernel];
		char start[32], dur[32], grid[48], block[48], name[4 * KERNEL_COL + 16] = "";
		char op[4 * OP_MAX + 16], *opname, *dims;
		struct trace_dims cfg;

		if (*budget == 0) {
			ui_text_add(out, ROLE_DIM, 1, "    ... %u more instances not shown", n - i);
			break;
		}
		(*budget)--;
		text_us(start, sizeof start, k->start);
		text_us(dur, sizeof dur, k->dur);
		trace_dims_get(t, k->dims, &cfg);
		dim3(grid, sizeof grid, cfg.grid);
		dim3(block, sizeof block, cfg.block);
		if (part->n_names > 1) { /* which kernel of the run */
			const char *nm = ui_name(u, side, k->name);
			char *esc = text_escape_dup(nm, strlen(nm));

			ui_clip(u->s, esc, KERNEL_COL, name, sizeof name - 2);
			strcat(name, "  ");
			free(esc);
		}
		opname = op_of(t, k, &dims);
		ui_clip(u->s, opname ? opname : "-", opw, op, sizeof op);
		ui_text_add(out, ROLE_NORMAL, 1, "    %4u %-8s %10s %9s  %s  %s%-12s %-12s %6d  %s",
			    in->pass, layer, start, dur, op, name, grid, block, (int)k->stream,
			    dims && *dims ? dims : "-");
		free(opname);
		free(dims);
	}
	free(ord);
}

/* Where side s's class comes from: its name, operator or module, with the rule that said so. */
static void class_line(struct ui_text *out, const struct comparison *c,
		       const struct comparison_pair *p, int s)
{
	static const char *const from[SOURCE_COUNT] = {
		[SOURCE_RULES_FILE] = "from a rules file",
		[SOURCE_NAME] = "from its name",
		[SOURCE_INDUCTOR] = "from its Inductor name",
		[SOURCE_OPERATOR] = "from its operator",
		[SOURCE_MODULE] = "from its module",
		[SOURCE_ANNOTATION] = "from its annotation",
		[SOURCE_NONE] = ": no rule knows it",
		[SOURCE_SHAPES] = "from its Inductor name and its tensors",
	};
	const struct kernel_info *ki;
	const char *src = comparison_class_source(c, p, s, &ki);

	if (!src || !ki)
		return;
	if (strcmp(src, "eager run") == 0) {
		ui_text_add(out, ROLE_DIM, 1, "   class %s: what these eager kernels do together",
			    class_name((enum op_class)p->cls));
		return;
	}
	ui_text_add(out, ROLE_DIM, 1, "   class %s%s%s%s%s", class_name((enum op_class)ki->cls),
		    ki->source == SOURCE_NONE ? "" : " ",
		    from[ki->source < SOURCE_COUNT ? ki->source : SOURCE_NONE],
		    c->classifier && ki->source != SOURCE_NONE ? ": " : "",
		    c->classifier && ki->source != SOURCE_NONE
			    ? classifier_rule_text(c->classifier, ki->rule)
			    : "");
}

/* "47.2 G", "16.8 M": a count of FLOPs or bytes in few digits. */
static void si(char *buf, size_t cap, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T", "P" };
	size_t len;
	int i = 0;

	while (v >= 999.5 && i < 5) {
		v /= 1000;
		i++;
	}
	len = strlen(text_fixed(buf, cap, v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, 0));
	snprintf(buf + len, cap - len, " %s", unit[i]);
}

void ui_evidence_eff(struct ui_text *out, const struct comparison_eff *e, const struct gpu_peak *pk,
		     int cls)
{
	char shape[160], fl[32], by[32], n[3][40];

	(void)cls;
	if (!(e->flops > 0)) /* no shapes (a graph replay), or work fusediff does not model */
		return;
	if (e->kind == EFF_ATTENTION)
		snprintf(shape, sizeof shape,
			 "attention B %lld, heads %lld/%lld, q %lld x kv %lld, d %lld%s",
			 (long long)e->b, (long long)e->heads, (long long)e->kv_heads,
			 (long long)e->m, (long long)e->n, (long long)e->k,
			 e->causal ? ", causal" : "");
	else if (e->kind == EFF_GROUPED_GEMM)
		snprintf(shape, sizeof shape, "grouped GEMM %lld groups, M %lld N %lld K %lld",
			 (long long)e->b, (long long)e->m, (long long)e->n, (long long)e->k);
	else if (e->b > 1)
		snprintf(shape, sizeof shape, "GEMM %lld x M %lld N %lld K %lld", (long long)e->b,
			 (long long)e->m, (long long)e->n, (long long)e->k);
	else
		snprintf(shape, sizeof shape, "GEMM M %lld N %lld K %lld", (long long)e->m,
			 (long long)e->n, (long long)e->k);
	si(fl, sizeof fl, e->flops / (e->ops ? e->ops : 1));
	if (e->bytes > 0)
		si(by, sizeof by, e->bytes / (e->ops ? e->ops : 1));
	ui_text_add(out, ROLE_NORMAL, 1, "   work: %s%s, %s; %sFLOP%s%s%s a call%s", shape,
		    e->mixed ? " and other shapes" : "", eff_dtype_name(e->dtype), fl,
		    e->bytes > 0 ? ", " : "", e->bytes > 0 ? by : "", e->bytes > 0 ? "B" : "",
		    e->mixed ? " on average" : "");
	text_fixed(n[0], sizeof n[0], e->tflops, 1, 0);
	if (e->tbps > 0)
		ui_text_add(out, ROLE_NORMAL, 1, "   achieved %s TFLOPS, %s TB/s, %s FLOP/B", n[0],
			    text_fixed(n[1], sizeof n[1], e->tbps, 2, 0),
			    text_fixed(n[2], sizeof n[2], e->ai, 0, 0));
	else
		ui_text_add(out, ROLE_NORMAL, 1, "   achieved %s TFLOPS (no data type: no bytes)",
			    n[0]);
	if (!pk) {
		ui_text_add(out, ROLE_DIM, 1,
			    "   no peaks for this GPU: add a row with --peaks for the share");
	} else if (!(e->peak_share >= 0)) {
		ui_text_add(out, ROLE_DIM, 1, "   %s has no %s peak in the table", pk->name,
			    eff_dtype_name(e->dtype));
	} else if (e->bound == 0) {
		ui_text_add(out, ROLE_NORMAL, 1,
			    "   memory-bound (ridge %s FLOP/B): %s%% of %s's %s TB/s",
			    text_fixed(n[0], sizeof n[0], pk->tflops[e->dtype] / pk->tbps, 0, 0),
			    text_fixed(n[1], sizeof n[1], e->peak_share * 100, 0, 0), pk->name,
			    text_fixed(n[2], sizeof n[2], pk->tbps, 2, 0));
	} else {
		ui_text_add(out, ROLE_NORMAL, 1, "   %s%s%% of %s's %s peak, %s TFLOPS",
			    e->bound == 1 ? "compute-bound: " : "",
			    text_fixed(n[0], sizeof n[0], e->peak_share * 100, 0, 0), pk->name,
			    eff_dtype_name(e->dtype),
			    text_fixed(n[1], sizeof n[1], pk->tflops[e->dtype], 0, 0));
	}
}

void ui_evidence_pair(struct ui *u, struct ui_text *out, uint32_t pi, int width)
{
	const struct comparison *c = u->c;
	const struct comparison_pair *p = &c->pairs[pi];
	char layer[96], d[32], r[32], atoms[256];
	size_t budget = 400;
	static const char *const form[NAMES_COUNT] = { "short", "demangled", "as in the trace" };

	comparison_layer_label(c, p->layer, layer, sizeof layer);
	fmt_delta(d, sizeof d, p->delta_ns);
	fmt_ratio(r, sizeof r, p->ratio);
	atoms_format(p->atoms, "+", atoms, sizeof atoms);
	ui_text_add(out, ROLE_HEADER, 1,
		    "Layer %s, position %u: %s, %s, atoms %s, delta %s us/pass, B/A %s", layer,
		    p->position, pair_kind_name((enum pair_kind)p->kind),
		    class_name((enum op_class)p->cls), atoms, d, r);
	if (p->fusion >= 0 && (size_t)p->fusion < c->n_fusions && c->fusions[p->fusion].evidence) {
		char prefix[32];

		snprintf(prefix, sizeof prefix, "Fusion #%u: ", c->fusions[p->fusion].id);
		ui_text_wrap(u->s, out, ROLE_NORMAL, prefix, c->fusions[p->fusion].evidence, width,
			     2);
	}
	ui_text_add(out, ROLE_DIM, 1, "Enter in this pane: %s",
		    p->fusion >= 0
			    ? "its fusion in the Fusions view"
			    : "its row of the Summed view (the same kernels in every layer)");
	for (int s = 0; s < 2; s++) {
		const struct comparison_part *part = &p->side[s];
		char cnt[32], avg[32], tot[32];

		fmt_count(cnt, sizeof cnt, part->count);
		fmt_us(avg, sizeof avg, part->avg_ns);
		fmt_us(tot, sizeof tot, part->total_ns);
		if (part->n_names == 0) {
			ui_text_add(out, ROLE_UNMATCHED, 1,
				    "%c: no kernel here (a gap in the alignment)", s ? 'B' : 'A');
			continue;
		}
		ui_text_add(out, ROLE_HEADER, 1,
			    "%c: %s launch%s/pass, %s us average, %s us/pass; names %s (m):",
			    s ? 'B' : 'A', cnt, strcmp(cnt, "1") == 0 ? "" : "es", avg, tot,
			    form[u->names.form]);
		for (uint32_t i = 0; i < part->n_names; i++)
			ui_text_wrap(u->s, out, ROLE_NORMAL, "   ",
				     ui_name_full(u, s, part->names[i]), width, 5);
		class_line(out, c, p, s);
		ui_evidence_eff(out, &part->eff, c->peak[s], p->cls);
	}
	ui_text_add(out, ROLE_DIM, 1, "Instances:");
	ui_evidence_instances(u, out, p, SIDE_A, &budget);
	ui_evidence_instances(u, out, p, SIDE_B, &budget);
}
