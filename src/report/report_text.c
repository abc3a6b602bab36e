/* report_text.c — the comparison as a readable text or Markdown report: the two traces, the
 * total, every fusion difference, the pairs summed over the layers, the largest differences,
 * then time by class, the layers and every kernel pair. Both formats come from the same tables; names are the short display names,
 * escaped so that no byte of a kernel name reaches a terminal raw. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/classify.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/structure.h"
#include "fusediff/text.h"
#include "report_int.h"

#define TOP_PAIRS     20
#define TOP_GROUPS    15
#define NAME_MAX_TEXT 72 /* characters of a name in a text table */

/* A table of cells, drawn as aligned text or as a Markdown pipe table. */
struct rtable {
	size_t ncol;
	const char *const *head;
	const char *fmt; /* per column: 'l' left, 'r' right, 'c' left and code in Markdown */
	char **cell;
	size_t n, cap;
};

static void rt_add(struct rtable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rt_add(struct rtable *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	VEC_PUSH(t->cell, t->n, t->cap, s);
}

/* Display width: code points (escaped names hold no control characters). */
static size_t width(const char *s)
{
	return text_width(s);
}

static void md_cell(FILE *out, const char *s, int code);

/* Prose in Markdown: tokens that look like code (a kernel or file name: they hold _ * < > [ ]
 * # \ or `) become code spans, where nothing needs escaping; the rest is escaped text. A
 * token is a run without blanks, less a leading '(' and trailing punctuation. */
static void md_prose(FILE *out, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " "), a = 0, b = n;
		char *tok;

		if (!n) {
			fputc(*s++, out);
			continue;
		}
		while (a < b && s[a] == '(')
			a++;
		while (b > a && strchr(",.;:", s[b - 1]))
			b--;
		{ /* a trailing ')' is the sentence's unless the token opened one */
			int open = 0;

			for (size_t i = a; i < b; i++)
				open += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
			while (b > a && s[b - 1] == ')' && open < 0)
				b--, open++;
			while (b > a && strchr(",.;:", s[b - 1]))
				b--;
		}
		tok = xstrndup(s + a, b - a);
		for (size_t i = 0; i < a; i++)
			fputc(s[i], out);
		md_cell(out, tok, strpbrk(tok, "_*<>[]#\\`") != NULL);
		for (size_t i = b; i < n; i++)
			fputc(s[i], out);
		free(tok);
		s += n;
	}
}

static void md_cell(FILE *out, const char *s, int code)
{
	size_t run = 0, longest = 0;

	if (code && *s) {
		for (const char *p = s; *p; p++) {
			run = *p == '`' ? run + 1 : 0;
			if (run > longest)
				longest = run;
		}
		for (size_t i = 0; i <= longest; i++)
			fputc('`', out);
		if (longest)
			fputc(' ', out);
	}
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputc('\\', out);
		else if (!code && strchr("\\*_[]<>#", *p))
			fputc('\\', out);
		fputc(*p, out);
	}
	if (code && *s) {
		if (longest)
			fputc(' ', out);
		for (size_t i = 0; i <= longest; i++)
			fputc('`', out);
	}
}

static void rt_print(FILE *out, struct rtable *t, int md)
{
	size_t rows = t->n / t->ncol, *w = xcalloc(t->ncol, sizeof *w);

	if (md) {
		for (size_t c = 0; c < t->ncol; c++)
			fprintf(out, "| %s ", t->head[c]);
		fputs("|\n", out);
		for (size_t c = 0; c < t->ncol; c++)
			fputs(t->fmt[c] == 'r' ? "| ---: " : "| --- ", out);
		fputs("|\n", out);
		for (size_t r = 0; r < rows; r++) {
			for (size_t c = 0; c < t->ncol; c++) {
				fputs("| ", out);
				md_cell(out, t->cell[r * t->ncol + c], t->fmt[c] == 'c');
				fputc(' ', out);
			}
			fputs("|\n", out);
		}
		fputc('\n', out);
	} else {
		for (size_t c = 0; c < t->ncol; c++) {
			w[c] = width(t->head[c]);
			for (size_t r = 0; r < rows; r++) {
				size_t x = width(t->cell[r * t->ncol + c]);

				if (x > w[c])
					w[c] = x;
			}
		}
		for (size_t r = 0; r <= rows; r++) {
			fputs("  ", out);
			for (size_t c = 0; c < t->ncol; c++) {
				const char *s = r ? t->cell[(r - 1) * t->ncol + c] : t->head[c];
				size_t pad = w[c] - width(s);
				int last = c + 1 == t->ncol;

				if (t->fmt[c] == 'r')
					fprintf(out, "%*s%s", (int)pad, "", s);
				else
					fprintf(out, "%s%*s", s, last ? 0 : (int)pad, "");
				if (!last)
					fputs("  ", out);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	free(w);
	t->cell = NULL;
	t->n = t->cap = 0;
}

/* --- numbers and names ---------------------------------------------------------------------- */

/* Microseconds for people: adaptive precision, "-" when not finite; signed: "+12.3", "0". The
 * explorer's formatters (text.h), so that a figure reads the same in both. */
static const char *us(char *buf, size_t cap, double ns)
{
	text_us(buf, cap, ns);
	return buf;
}

static const char *signed_us(char *buf, size_t cap, double ns)
{
	text_signed_us(buf, cap, ns);
	return buf;
}

/* "~" after a B - A that is within the pass-to-pass noise (its 95 % interval holds 0), "" when
 * it is beyond or unknown. */
static const char *noise_mark(const struct comparison_ci *ci)
{
	return ci->significant == 0 ? "~" : "";
}

static const char *ratio(char *buf, size_t cap, double r)
{
	text_ratio(buf, cap, r);
	return buf;
}

static const char *count(char *buf, size_t cap, double v)
{
	text_count(buf, cap, v);
	return buf;
}

static char *cut_name(const char *n, int md);

/* The short name, escaped and cut to the text width (owned by caller: free()). */
static char *short_name(const struct comparison *c, int s, uint32_t name, int md)
{
	return cut_name(comparison_short_name(c, s, name), md);
}

/* A name escaped and cut like short_name()'s. */
static char *cut_name(const char *n, int md)
{
	char *e = text_escape_dup(n, strlen(n));

	if (!md && width(e) > NAME_MAX_TEXT)
		memcpy(e + text_fit(e, NAME_MAX_TEXT - 3), "...", 4);
	return e;
}

/* The names of one side of a pair: "name" or "name (+2 more)"; "" for none. */
static char *part_names(const struct comparison *c, int s, const struct comparison_part *p, int md)
{
	char *first, *out;

	if (!p->n_names)
		return xstrdup("");
	first = short_name(c, s, p->names[0], md);
	if (p->n_names == 1)
		return first;
	out = xasprintf("%s (+%u more)", first, p->n_names - 1);
	free(first);
	return out;
}

static void heading(FILE *out, int md, const char *title)
{
	if (md)
		fprintf(out, "## %s\n\n", title);
	else
		fprintf(out, "%s\n\n", title);
}

/* --- sections ----------------------------------------------------------------------------- */

static void traces_section(FILE *out, const struct comparison *c, int md)
{
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];
		const struct trace *t = sd->t;
		char *path = text_escape_dup(t->path ? t->path : "", t->path ? strlen(t->path) : 0);
		char *gpu = text_escape_dup(trace_str(t, t->gpu_name),
					    intern_len(t->strings, t->gpu_name));
		const struct side_model *md_ = comparison_model(c, s);
		const char *model = side_model_name(sd, c->model[s]);
		char gt[64], share[64], train[48] = "";

		if (md_->phase_passes[PHASE_TRAIN] || md_->phase_passes[PHASE_UNKNOWN]) {
			size_t len = 0;

			if (md_->phase_passes[PHASE_TRAIN])
				len = (size_t)snprintf(train, sizeof train, ", %u train",
						       md_->phase_passes[PHASE_TRAIN]);
			if (md_->phase_passes[PHASE_UNKNOWN] && len < sizeof train)
				snprintf(train + len, sizeof train - len, ", %u unknown",
					 md_->phase_passes[PHASE_UNKNOWN]);
		}
		report_number(share, sizeof share, sd->classes.other_share * 100.0, 1);
		report_number(gt, sizeof gt, (double)trace_kernel_time(t) / 1e6, 2);
		fprintf(out, "%s%c: %s (%s)%s\n", md ? "- **" : "", "AB"[s], c -> label[s], path,
			md ? "**" : "");
		fprintf(out,
			"%s%s, GPU %s; %zu kernels, %s ms of kernel time; %u pass%s%s%s (%u "
			"prefill, "
			"%u decode, "
			"%u mixed%s), %u layers per pass; class Other %s%% of kernel time\n",
			md ? "  " : "   ", trace_platform_name(t->platform), *gpu ? gpu : "unknown",
			t->n_kernel_events, gt, md_->n_passes, md_->n_passes == 1 ? "" : "es",
			*model ? " of " : "", model, md_->phase_passes[PHASE_PREFILL],
			md_->phase_passes[PHASE_DECODE], md_->phase_passes[PHASE_MIXED], train,
			md_->layers_per_pass, share);
		{
			char cov[256];

			char *src = text_escape_dup(sd->pass_source, strlen(sd->pass_source));

			side_coverage_text(&sd->cover, c->compared_share[s], cov, sizeof cov);
			fprintf(out, "%spasses from %s; %s\n", md ? "  " : "   ", src, cov);
			free(src);
		}
		if (t->n_other_device) {
			size_t ran = 0;

			for (size_t i = 0; i < t->n_devices; i++)
				ran += t->devices[i].kernels > 0;
			fprintf(out,
				"%sdevice %d of the %zu that ran kernels; %zu kernels and copies "
				"of "
				"the others left out (--device all takes them all)\n",
				md ? "  " : "   ", t->device, ran, t->n_other_device);
		} else if (t->device == TRACE_ALL_DEVICES && t->n_devices > 1) {
			size_t ran = 0;

			for (size_t i = 0; i < t->n_devices; i++)
				ran += t->devices[i].kernels > 0;
			fprintf(out, "%sall %zu devices that ran kernels as one timeline\n",
				md ? "  " : "   ", ran);
		}
		if (t->n_repeats > 1) {
			fprintf(out, "%s%zu captures pooled:", md ? "  " : "   ", t->n_repeats);
			for (size_t i = 0; i < t->n_repeats; i++) {
				char *rp = text_escape_dup(t->repeats[i].path,
							   strlen(t->repeats[i].path));

				fprintf(out, "%s %s%s", i ? "," : "", rp,
					c->repeat_out[s] && c->repeat_out[s][i] ? " (left out)"
										: "");
				free(rp);
			}
			fputc('\n', out);
		}
		if (t->capture.path) {
			char *cp = text_escape_dup(t->capture.path, strlen(t->capture.path));

			fprintf(out, "%sgraph capture %s: %zu of %zu replayed kernels joined\n",
				md ? "  " : "   ", cp, t->capture.joined, t->capture.graph_kernels);
			free(cp);
		}
		if (sd->n_models > 1) {
			fprintf(out, "%sother models (--model NAME):", md ? "  " : "   ");
			for (size_t m = 0, k = 0; m < sd->n_models; m++) {
				if (m == c->model[s])
					continue;
				fprintf(out, "%s %s (%u pass%s, %u layers)", k++ ? "," : "",
					*side_model_name(sd, m) ? side_model_name(sd, m)
								: "outside them",
					sd->models[m].n_passes,
					sd->models[m].n_passes == 1 ? "" : "es",
					sd->models[m].layers_per_pass);
			}
			fputc('\n', out);
		}
		free(path);
		free(gpu);
	}
	fputc('\n', out);
}

/* Where B - A comes from: the attribution's parts, largest first, adding up to the total. */
static void attribution_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "part", "class", "places", "B - A us", "of B - A" };
	static const char *const what[ATTR_COUNT] = {
		"fusion", "horizontal fusion", "partial fusion",    "A only",
		"B only", "matched, B faster", "matched, B slower", "matched, same time"
	};
	struct rtable t = { .ncol = 5, .head = head, .fmt = "llrrr" };
	char b1[64], b2[64], b3[64];
	double sum = 0;

	if (!c->n_attribution)
		return;
	heading(out, md, "Where B - A comes from (us per pass, largest first; the parts add up)");
	for (size_t i = 0; i < c->n_attribution; i++) {
		const struct comparison_attribution *a = &c->attribution[i];

		if (a->fusion >= 0)
			rt_add(&t, "%s #%u", what[a->kind], c->fusions[a->fusion].id);
		else
			rt_add(&t, "%s", what[a->kind]);
		rt_add(&t, "%s", class_name((enum op_class)a->cls));
		rt_add(&t, "%s", count(b1, sizeof b1, a->count));
		rt_add(&t, "%s%s", signed_us(b2, sizeof b2, a->delta_ns), noise_mark(&a->ci));
		text_share_of(b3, sizeof b3, a->delta_ns, c->delta_ns);
		rt_add(&t, "%s", b3);
		sum += a->delta_ns;
	}
	rt_add(&t, "total");
	rt_add(&t, "%s", "");
	rt_add(&t, "%s", "");
	rt_add(&t, "%s", signed_us(b2, sizeof b2, sum));
	text_share_of(b3, sizeof b3, c->delta_ns, c->delta_ns);
	rt_add(&t, "%s", b3);
	rt_print(out, &t, md);
}

/* How sure B - A is: its 95 % interval over the passes, or why there is none; and what the "~"
 * after a B - A in the tables means. */
static void noise_line(FILE *out, const struct comparison *c)
{
	char lo[48], hi[48], sa[48], sb[48], bn[48];

	if (!c->passes[0] || !c->passes[1]) {
		fputc('\n', out);
		return;
	}
	if (!c->ci_known) {
		fprintf(out,
			"Noise: not measured (A %u pass%s, B %u pass%s: three passes a side or "
			"more "
			"give each B - A a 95 %% interval).\n\n",
			c->passes[0], c->passes[0] == 1 ? "" : "es", c->passes[1],
			c->passes[1] == 1 ? "" : "es");
		return;
	}
	fprintf(out,
		"Noise: 95 %% interval of B - A %s .. %s us per pass (Welch, A %u passes, spread "
		"%s us; B %u, spread %s us): %s; %s us of B - A is in parts beyond noise. A '~' "
		"after B - A marks a row within noise.\n\n",
		signed_us(lo, sizeof lo, c->ci.low_ns), signed_us(hi, sizeof hi, c->ci.high_ns),
		c->passes[0], us(sa, sizeof sa, c->ci.sd_ns[0]), c->passes[1],
		us(sb, sizeof sb, c->ci.sd_ns[1]),
		c->ci.significant == 1 ? "beyond noise" : "within noise",
		signed_us(bn, sizeof bn, c->beyond_noise_ns));
}

/* The findings whose partial flag is partial, each under its number (comparison_fusion.id). */
static void fusion_list(FILE *out, const struct comparison *c, int md, int partial)
{
	for (size_t i = 0; i < c->n_fusions; i++) {
		const struct comparison_fusion *f = &c->fusions[i];
		char proof[256];

		if (f->partial != partial)
			continue;
		if (md) {
			fprintf(out, "%u. ", f->id);
			md_prose(out, f->evidence ? f->evidence : "");
			fputc('\n', out);
		} else {
			fprintf(out, "  %2u. %s\n", f->id, f->evidence ? f->evidence : "");
		}
		if (!partial)
			fprintf(out, "%sProof: %s.\n", md ? "   " : "      ",
				comparison_proof_text(f, proof, sizeof proof));
		if (f->launches_saved > 0) {
			char n[64], idle[64];

			fprintf(out,
				"%sIt saves %s launches and %s us of idle GPU time before them per "
				"pass.\n",
				md ? "   " : "      ", count(n, sizeof n, f->launches_saved),
				us(idle, sizeof idle, f->idle_ns));
		}
	}
	fputc('\n', out);
}

static void fusions_section(FILE *out, const struct comparison *c, int md)
{
	char title[128];

	snprintf(title, sizeof title, "Fusion differences (%zu)", c->n_fusions - c->n_partial);
	heading(out, md, title);
	if (c->n_fusions == c->n_partial)
		fputs(md ? "None: no position where one side runs one kernel for work the other "
			   "side splits over several.\n\n"
			 : "  None: no position where one side runs one kernel for work the other "
			   "side splits over several.\n\n",
		      out);
	else
		fusion_list(out, c, md, 0);
	if (!c->n_partial)
		return;
	snprintf(title, sizeof title,
		 "Partial fusions (%zu: the same kernel launched more often; not fusion "
		 "differences)",
		 c->n_partial);
	heading(out, md, title);
	fusion_list(out, c, md, 1);
}

static void opportunities_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "side",	      "chain",	 "layers",
					    "places",	      "kernels", "us",
					    "launches",	      "idle us", "bound us",
					    "fused elsewhere" };
	char title[160], b[6][160];
	struct rtable t = { .ncol = 10, .head = head, .fmt = "lllrrrrrrl" };

	snprintf(title, sizeof title,
		 "Unfused chains (%zu): advice, fusions neither side has; not in B - A",
		 c->n_opportunities);
	heading(out, md, title);
	if (!c->n_opportunities) {
		fputs(md ? "None: no chain of the catalogue runs unfused outside the fusion "
			   "differences.\n\n"
			 : "  None: no chain of the catalogue runs unfused outside the fusion "
			   "differences.\n\n",
		      out);
		return;
	}
	fputs(md ? "Per pass of the side. What fusing would save: certain, the launches and the "
		   "idle GPU time before the kernels it removes; at most, the kernel time beyond "
		   "each place's longest kernel (bound).\n\n"
		 : "  Per pass of the side. What fusing would save: certain, the launches and the "
		   "idle GPU time before\n  the kernels it removes; at most, the kernel time "
		   "beyond "
		   "each place's longest kernel (bound).\n\n",
	      out);
	for (size_t i = 0; i < c->n_opportunities; i++) {
		const struct comparison_opportunity *op = &c->opportunities[i];

		rt_add(&t, "%c", op->side ? 'B' : 'A');
		rt_add(&t, "%s", chain_format(op->chain, b[0], sizeof b[0]));
		comparison_layer_ranges(c, op->layers, op->n_layers, b[1], sizeof b[1]);
		rt_add(&t, "%s", b[1]);
		rt_add(&t, "%u", op->o.places);
		rt_add(&t, "%u", op->o.per_place);
		rt_add(&t, "%s", us(b[2], sizeof b[2], op->o.ns));
		rt_add(&t, "%s", count(b[3], sizeof b[3], op->o.launches));
		rt_add(&t, "%s", us(b[4], sizeof b[4], op->o.idle_ns));
		rt_add(&t, "%s", us(b[5], sizeof b[5], op->o.bound_ns));
		report_known_kernels(op->chain, b[0], sizeof b[0]);
		rt_add(&t, "%s", b[0]);
	}
	rt_print(out, &t, md);
}

static double layer_idle(const struct comparison_layer *l)
{
	return fmax(l->idle_ns[0], l->idle_ns[1]);
}

/* Wall, busy and idle time and launches per pass, and the layers with the most idle time. */
static void time_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "side",    "wall us",    "busy us",
					    "idle us", "overlap us", "launches" };
	static const char *const lhead[] = { "layer",	  "A wall us", "A idle us",
					     "B wall us", "B idle us", "B - A idle" };
	struct rtable t = { .ncol = 6, .head = head, .fmt = "lrrrrr" };
	char b1[64], b2[64];
	uint32_t top[5];
	size_t n = 0;

	heading(out, md,
		"Time beyond kernel sums (per pass: wall = first kernel start to last end, busy = "
		"some kernel running, idle = wall - busy)");
	for (int s = 0; s < 2; s++) {
		const struct comparison_time *tm = &c->time[s];

		rt_add(&t, "%c", "AB"[s]);
		rt_add(&t, "%s", us(b1, sizeof b1, tm->wall_ns));
		rt_add(&t, "%s", us(b1, sizeof b1, tm->busy_ns));
		rt_add(&t, "%s", us(b1, sizeof b1, tm->idle_ns));
		rt_add(&t, "%s", us(b1, sizeof b1, tm->overlap_ns));
		rt_add(&t, "%s", count(b1, sizeof b1, tm->launches));
	}
	rt_print(out, &t, md);
	/* the layers with the most idle time on either side, largest first */
	for (size_t i = 0; i < c->n_layers; i++) {
		double v = layer_idle(&c->layers[i]);
		size_t k;

		if (!(v > 0) || (n == 5 && v <= layer_idle(&c->layers[top[4]])))
			continue;
		k = n < 5 ? n++ : 4;
		for (; k > 0 && layer_idle(&c->layers[top[k - 1]]) < v; k--)
			top[k] = top[k - 1];
		top[k] = (uint32_t)i;
	}
	if (!n)
		return;
	heading(out, md, "Layers with the most idle time (us per pass)");
	t = (struct rtable){ .ncol = 6, .head = lhead, .fmt = "lrrrrr" };
	for (size_t i = 0; i < n; i++) {
		const struct comparison_layer *l = &c->layers[top[i]];

		rt_add(&t, "%s", comparison_layer_label(c, (int32_t)top[i], b1, sizeof b1));
		rt_add(&t, "%s", us(b2, sizeof b2, l->wall_ns[0]));
		rt_add(&t, "%s", us(b2, sizeof b2, l->idle_ns[0]));
		rt_add(&t, "%s", us(b2, sizeof b2, l->wall_ns[1]));
		rt_add(&t, "%s", us(b2, sizeof b2, l->idle_ns[1]));
		rt_add(&t, "%s", signed_us(b2, sizeof b2, l->idle_ns[1] - l->idle_ns[0]));
	}
	rt_print(out, &t, md);
}

static void pair_row(struct rtable *t, const struct comparison *c, const struct comparison_pair *p,
		     int md, int with_layer)
{
	char b1[64], b2[64], b3[64], b4[64], b5[64], b6[64], atoms[256];
	char *na = part_names(c, 0, &p->side[0], md), *nb = part_names(c, 1, &p->side[1], md);

	atoms_format(p->atoms, "+", atoms, sizeof atoms);
	if (with_layer)
		rt_add(t, "%s", comparison_layer_label(c, p->layer, b1, sizeof b1));
	else
		rt_add(t, "%u", p->position);
	rt_add(t, "%s", pair_kind_name((enum pair_kind)p->kind));
	rt_add(t, "%s", class_name((enum op_class)p->cls));
	rt_add(t, "%s", atoms);
	rt_add(t, "%s", count(b2, sizeof b2, p->side[0].count));
	rt_add(t, "%s", count(b3, sizeof b3, p->side[1].count));
	rt_add(t, "%s", us(b4, sizeof b4, p->side[0].total_ns));
	rt_add(t, "%s", us(b5, sizeof b5, p->side[1].total_ns));
	rt_add(t, "%s%s", signed_us(b6, sizeof b6, p->delta_ns), noise_mark(&p->ci));
	rt_add(t, "%s", ratio(b1, sizeof b1, p->ratio));
	rt_add(t, "%s", na);
	rt_add(t, "%s", nb);
	free(na);
	free(nb);
}

static const char *const group_head[] = { "layers", "places",	 "kind",     "class", "atoms",
					  "A n",    "B n",	 "A us",     "B us",  "B - A",
					  "B/A",    "A kernels", "B kernels" };

/* Names that stand for their Inductor-numbered copies in other layers. */
static char *append_similar(char *names)
{
	char *s = xasprintf("%s (or similar)", names);

	free(names);
	return s;
}

/* The pairs summed over the layers: the kernels that explain the difference, once each. */
static void groups_section(FILE *out, const struct comparison *c, int md)
{
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed;
	struct rtable t = { .ncol = 13, .head = group_head, .fmt = "lrlllrrrrrrcc" };

	if (n == 0)
		return;
	heading(out, md, "Kernel pairs summed over the layers (the largest |B - A|, us per pass)");
	for (size_t i = 0; i < n && i < TOP_GROUPS; i++) {
		const struct comparison_pair *p = &c->pairs[g[i].first];
		char b1[256], b2[64], b3[64], b4[64], b5[64], b6[64], atoms[256];
		char *na = part_names(c, 0, &p->side[0], md),
		     *nb = part_names(c, 1, &p->side[1], md);

		if (g[i].similar[0])
			na = append_similar(na);
		if (g[i].similar[1])
			nb = append_similar(nb);
		comparison_layer_ranges(c, g[i].layers, g[i].n_layers, b1, sizeof b1);
		atoms_format(p->atoms, "+", atoms, sizeof atoms);
		rt_add(&t, "%s", b1);
		rt_add(&t, "%u", g[i].places);
		rt_add(&t, "%s", pair_kind_name((enum pair_kind)p->kind));
		rt_add(&t, "%s", class_name((enum op_class)p->cls));
		rt_add(&t, "%s", atoms);
		rt_add(&t, "%s", count(b2, sizeof b2, g[i].count[0]));
		rt_add(&t, "%s", count(b3, sizeof b3, g[i].count[1]));
		rt_add(&t, "%s", us(b4, sizeof b4, g[i].ns[0]));
		rt_add(&t, "%s", us(b5, sizeof b5, g[i].ns[1]));
		rt_add(&t, "%s%s", signed_us(b6, sizeof b6, g[i].delta_ns), noise_mark(&g[i].ci));
		rt_add(&t, "%s", ratio(b2, sizeof b2, g[i].ratio));
		rt_add(&t, "%s", na);
		rt_add(&t, "%s", nb);
		free(na);
		free(nb);
	}
	rt_print(out, &t, md);
}

/* "573 (58% of peak, compute)" for one side of a summed pair; "-" when unknown. */
static const char *eff_text(char *buf, size_t cap, const struct comparison_eff *e)
{
	char tf[24], sh[24];

	if (!(e->tflops > 0))
		return "-";
	report_number(tf, sizeof tf, e->tflops, e->tflops < 0.1 ? 4 : e->tflops < 10 ? 2 : 0);
	if (!(e->peak_share >= 0)) {
		snprintf(buf, cap, "%s", tf);
		return buf;
	}
	if (e->peak_share < 0.005)
		snprintf(sh, sizeof sh, "<1");
	else
		report_number(sh, sizeof sh, e->peak_share * 100, 0);
	snprintf(buf, cap, "%s (%s%%, %s)", tf, sh,
		 e->bound == 1	 ? "compute"
		 : e->bound == 0 ? "memory"
				 : "peak");
	return buf;
}

static uint64_t both_ns(const struct summed_pair *p)
{
	return (uint64_t)p->ns[0] + (uint64_t)p->ns[1];
}

/* The GEMMs and attention whose work the recorded shapes give, summed over the layers, the
 * longest first: achieved TFLOPS and the share of each GPU's peak (efficiency.h). */
static void efficiency_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "layers",	"places",   "kind",	 "class",
					    "A TFLOPS", "B TFLOPS", "A kernels", "B kernels" };
	const struct summed_pair *g = c->summed;
	size_t n = c->n_summed, *order, m = 0;
	struct rtable t = { .ncol = 8, .head = head, .fmt = "lrllrrcc" };

	order = xcalloc(n + 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		if (g[i].eff[0].tflops > 0 || g[i].eff[1].tflops > 0)
			order[m++] = i;
	/* the longest (A + B: each side's at most TRACE_TIME_MAX, their sum in 64 bits unsigned)
	 * first; the summed pairs' order breaks ties */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && both_ns(&g[order[j]]) > both_ns(&g[order[j - 1]]);
		     j--) {
			size_t x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	if (m) {
		heading(out, md,
			"Kernel efficiency (summed pairs with recorded shapes, the longest first: "
			"achieved TFLOPS, share of the GPU's peak, bound)");
		for (int s = 0; s < 2; s++) {
			const struct gpu_peak *pk = c->peak[s];

			char tf[32], bw[32];

			report_number(tf, sizeof tf, pk ? pk->tflops[EFF_BF16] : 0, 4);
			report_number(bw, sizeof bw, pk ? pk->tbps : 0, 4);
			if (pk)
				fprintf(out, "%s%c peaks: %s, %s TFLOPS bf16, %s TB/s (dense)\n",
					md ? "- " : "", "AB"[s], pk -> name, tf, bw);
			else
				fprintf(out,
					"%s%c peaks: GPU not in the table (add a --peaks row)\n",
					md ? "- " : "", "AB"[s]);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < m && i < TOP_GROUPS; i++) {
		const struct summed_pair *gr = &g[order[i]];
		const struct comparison_pair *p = &c->pairs[gr->first];
		char b1[256], b2[96], b3[96];
		char *na = part_names(c, 0, &p->side[0], md),
		     *nb = part_names(c, 1, &p->side[1], md);

		if (gr->similar[0])
			na = append_similar(na);
		if (gr->similar[1])
			nb = append_similar(nb);
		comparison_layer_ranges(c, gr->layers, gr->n_layers, b1, sizeof b1);
		rt_add(&t, "%s", b1);
		rt_add(&t, "%u", gr->places);
		rt_add(&t, "%s", pair_kind_name((enum pair_kind)p->kind));
		rt_add(&t, "%s", class_name((enum op_class)p->cls));
		rt_add(&t, "%s", eff_text(b2, sizeof b2, &gr->eff[0]));
		rt_add(&t, "%s", eff_text(b3, sizeof b3, &gr->eff[1]));
		rt_add(&t, "%s", na);
		rt_add(&t, "%s", nb);
		free(na);
		free(nb);
	}
	if (m)
		rt_print(out, &t, md);
	free(order);
}

/* Every kernel of both traces by name, in passes or not: its class, calls and milliseconds. */
static void whole_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "kernel", "class", "A calls", "B calls",
					    "A ms",   "B ms",  "B - A ms" };
	struct rtable t = { .ncol = 7, .head = head, .fmt = "llrrrrr" };
	char b1[64], b2[64], b3[160];

	if (!c->n_kernel_totals)
		return;
	heading(out, md,
		"Whole traces (every kernel, in passes or not; by name, the largest |B - A|)");
	fprintf(out, "%s\n\n", report_kernel_totals_sum(c, b3, sizeof b3));
	for (size_t i = 0; i < c->n_kernel_totals && i < TOP_GROUPS; i++) {
		const struct comparison_kernel_total *k = &c->kernel_totals[i];
		char *name = cut_name(k->name, md);

		rt_add(&t, "%s", name);
		rt_add(&t, "%s", class_name((enum op_class)k->cls));
		rt_add(&t, "%lld", (long long)k->count[0]);
		rt_add(&t, "%lld", (long long)k->count[1]);
		rt_add(&t, "%s", text_ms(b1, sizeof b1, k->ns[0], 0));
		rt_add(&t, "%s", text_ms(b2, sizeof b2, k->ns[1], 0));
		rt_add(&t, "%s", text_ms(b3, sizeof b3, k->ns[1] - k->ns[0], 1));
		free(name);
	}
	rt_print(out, &t, md);
}

/* Each device's kernels and kernel time on both sides, when a side ran on several: which GPU
 * each side's figures are of (*), and what the others did. */
static void devices_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "device", "A kernels", "A ms", "B kernels", "B ms" };
	struct rtable t = { .ncol = 5, .head = head, .fmt = "lrrrr" };
	int32_t ids[64];
	size_t n = 0, ran[2] = { 0, 0 };
	char b1[64];

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < c->side[s]->t->n_devices; i++) {
			const struct trace_device *d = &c->side[s]->t->devices[i];
			size_t j;

			if (!d->kernels)
				continue;
			ran[s]++;
			for (j = 0; j < n && ids[j] != d->id; j++)
				;
			if (j == n && n < sizeof ids / sizeof ids[0])
				ids[n++] = d->id;
		}
	if (ran[0] < 2 && ran[1] < 2)
		return;
	for (size_t i = 1; i < n; i++) /* by id (a few, insertion) */
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			int32_t x = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	heading(out, md, "Devices (kernels and kernel time of the whole trace; * analysed)");
	for (size_t i = 0; i < n; i++) {
		rt_add(&t, "%d", ids[i]);
		for (int s = 0; s < 2; s++) {
			const struct trace *tr = c->side[s]->t;
			const struct trace_device *d = NULL;

			for (size_t j = 0; j < tr->n_devices; j++)
				if (tr->devices[j].id == ids[i])
					d = &tr->devices[j];
			if (!d || !d->kernels) {
				rt_add(&t, "-");
				rt_add(&t, "-");
				continue;
			}
			rt_add(&t, "%lld%s", (long long)d->kernel_events,
			       tr->device == ids[i] || tr->device == TRACE_ALL_DEVICES ? " *" : "");
			rt_add(&t, "%s", text_ms(b1, sizeof b1, d->kernel_time, 0));
		}
	}
	rt_print(out, &t, md);
}

static const char *const pair_head[] = {
	"layer", "kind", "class", "atoms", "A n",	"B n",
	"A us",	 "B us", "B - A", "B/A",   "A kernels", "B kernels"
};
static const char *const pos_head[] = {
	"pos",	"kind", "class", "atoms", "A n",       "B n",
	"A us", "B us", "B - A", "B/A",	  "A kernels", "B kernels"
};

/* "Same workload: 32 layers per pass each side, batch 16, 224 of 224 matched GEMM shapes
 * equal." or what differs. */
static void comparability_line(FILE *out, const struct comparison *c)
{
	const struct comparison_comparability *k = &c->comparability;
	const struct comparison_batch *b = k->batch;
	uint32_t la = comparison_model(c, 0)->layers_per_pass,
		 lb = comparison_model(c, 1)->layers_per_pass;

	if (!c->passes[0] || !c->passes[1])
		return;
	fputs(k->comparable ? "Same workload:" : "Not the same workload:", out);
	if (la == lb && !la)
		fputs(" no repeated layers on either side", out);
	else if (la == lb)
		fprintf(out, " %u layers per pass each side", la);
	else
		fprintf(out, " A %u layers per pass, B %u", la, lb);
	if (b[0].requests >= 0 && b[1].requests >= 0 && b[0].requests == b[1].requests &&
	    b[0].tokens == b[1].tokens)
		fprintf(out, ", batch %lld", (long long)b[0].requests);
	else if (b[0].requests >= 0 || b[1].requests >= 0) { /* -1: not said, as JSON's null */
		char r[2][32];

		for (int s = 0; s < 2; s++)
			if (b[s].requests >= 0)
				snprintf(r[s], sizeof r[s], "%lld", (long long)b[s].requests);
			else
				snprintf(r[s], sizeof r[s], "unknown");
		fprintf(out, ", batch %s against %s", r[0], r[1]);
	}
	if (b[0].tokens >= 0 && b[0].tokens == b[1].tokens)
		fprintf(out, " (%lld tokens)", (long long)b[0].tokens);
	if (k->gemm.known)
		fprintf(out, ", %u of %u matched GEMM shapes equal", k->gemm.known - k->gemm.differ,
			k->gemm.known);
	fputs(".\n", out);
}

/* The ranks of two directories of per-rank traces: each rank's totals, then which rank the
 * rest of the report analyses. */
static void ranks_section(FILE *out, const struct comparison *c, int md)
{
	static const char *const head[] = { "rank",	 "A us",      "B us",	 "B - A",  "B/A",
					    "A kernels", "B kernels", "A trace", "B trace" };
	const struct comparison_ranks *r = c->ranks;
	struct rtable t = { .ncol = 9, .head = head, .fmt = "lrrrrrrll" };
	char b1[64], b2[64];

	if (!r)
		return;
	snprintf(b1, sizeof b1, "Ranks (us per pass; paired by %s)", r->paired_by);
	heading(out, md, b1);
	for (size_t i = 0; i < r->n; i++) {
		const struct comparison_rank *e = &r->r[i];

		for (int k = 0; k < 2; k++) {
			char *p = text_escape_dup(e->path[k], strlen(e->path[k]));

			if (k == 0) {
				rt_add(&t, "%lld%s", (long long)e->rank,
				       i == r->chosen ? " *" : "");
				rt_add(&t, "%s", us(b1, sizeof b1, e->ns[0]));
				rt_add(&t, "%s", us(b2, sizeof b2, e->ns[1]));
				rt_add(&t, "%s", signed_us(b1, sizeof b1, e->delta_ns));
				rt_add(&t, "%s", ratio(b2, sizeof b2, e->ratio));
				rt_add(&t, "%zu", e->kernels[0]);
				rt_add(&t, "%zu", e->kernels[1]);
			}
			rt_add(&t, "%s", path_basename(p));
			free(p);
		}
	}
	rt_print(out, &t, md);
	fprintf(out,
		"Spread (slowest rank - fastest): A %s us (slowest rank %lld), B %s us (slowest "
		"rank %lld).\n",
		us(b1, sizeof b1, r->spread_ns[0]), (long long)r->r[r->slowest[0]].rank,
		us(b2, sizeof b2, r->spread_ns[1]), (long long)r->r[r->slowest[1]].rank);
	fprintf(out, "Analysed below: rank %lld (*), %s.\n\n", (long long)r->r[r->chosen].rank,
		r->asked ? "as --rank asked" : "the largest |B - A|; --rank N analyses another");
}

int report_write_text(FILE *out, const struct comparison *c, int md)
{
	char b1[64], b2[64], b3[64], b4[64];
	struct rtable t = { 0 };

	if (md)
		fprintf(out, "# fusediff: %s vs %s\n\n", c->label[0], c->label[1]);
	else
		fprintf(out, "fusediff: %s vs %s\n\n", c->label[0], c->label[1]);
	ranks_section(out, c, md);
	traces_section(out, c, md);
	fprintf(out, "Phase compared: %s (A: %u pass%s, B: %u pass%s); every figure is per pass.\n",
		phase_name((enum phase)c->phase), c->passes[0], c->passes[0] == 1 ? "" : "es",
		c->passes[1], c->passes[1] == 1 ? "" : "es");
	if (c->note)
		fprintf(out, "Note: %s.\n", c->note);
	comparability_line(out, c);
	for (size_t i = 0; i < c->n_warnings; i++)
		fprintf(out, "Warning (%s): %s.\n", c->warnings[i].code, c->warnings[i].message);
	fprintf(out, "Total GPU time per pass: A %s us, B %s us, B - A %s us, B/A %s.\n",
		us(b1, sizeof b1, c->ns[0]), us(b2, sizeof b2, c->ns[1]),
		signed_us(b3, sizeof b3, c->delta_ns), ratio(b4, sizeof b4, c->ratio));
	noise_line(out, c);

	attribution_section(out, c, md);
	fusions_section(out, c, md);
	opportunities_section(out, c, md);
	groups_section(out, c, md);
	efficiency_section(out, c, md);

	if (c->n_pairs) {
		uint32_t top[TOP_PAIRS];
		size_t n = comparison_top_pairs(c, 0, c->n_pairs, top, TOP_PAIRS);

		heading(out, md, "Largest differences (kernel pairs by |B - A|, us per pass)");
		t = (struct rtable){ .ncol = 12, .head = pair_head, .fmt = "llllrrrrrrcc" };
		for (size_t i = 0; i < n; i++)
			pair_row(&t, c, &c->pairs[top[i]], md, 1);
		rt_print(out, &t, md);
	}

	{
		static const char *const head[] = { "class", "A us", "B us", "B - A", "B/A" };

		heading(out, md, "Time by class (us per pass)");
		t = (struct rtable){ .ncol = 5, .head = head, .fmt = "lrrrr" };
		for (int k = 0; k < CLASS_COUNT; k++) {
			if (c->class_ns[0][k] == 0 && c->class_ns[1][k] == 0)
				continue;
			rt_add(&t, "%s", class_name((enum op_class)k));
			rt_add(&t, "%s", us(b1, sizeof b1, c->class_ns[0][k]));
			rt_add(&t, "%s", us(b2, sizeof b2, c->class_ns[1][k]));
			rt_add(&t, "%s%s",
			       signed_us(b3, sizeof b3, c->class_ns[1][k] - c->class_ns[0][k]),
			       noise_mark(&c->class_ci[k]));
			rt_add(&t, "%s",
			       ratio(b4, sizeof b4,
				     comparison_ratio(c->class_ns[0][k], c->class_ns[1][k])));
		}
		rt_print(out, &t, md);
	}

	if (c->passes[0] && c->passes[1])
		time_section(out, c, md);
	whole_section(out, c, md);
	devices_section(out, c, md);

	{
		static const char *const head[] = { "layer", "A us",	  "B us",      "B - A",
						    "B/A",   "A kernels", "B kernels", "fusions" };

		heading(out, md, "Layers (us per pass)");
		t = (struct rtable){ .ncol = 8, .head = head, .fmt = "lrrrrrrr" };
		for (size_t i = 0; i < c->n_layers; i++) {
			const struct comparison_layer *l = &c->layers[i];

			rt_add(&t, "%s", comparison_layer_label(c, (int32_t)i, b1, sizeof b1));
			rt_add(&t, "%s", us(b1, sizeof b1, l->ns[0]));
			rt_add(&t, "%s", us(b2, sizeof b2, l->ns[1]));
			rt_add(&t, "%s%s", signed_us(b3, sizeof b3, l->delta_ns),
			       noise_mark(&l->ci));
			rt_add(&t, "%s", ratio(b4, sizeof b4, l->ratio));
			rt_add(&t, "%s", count(b1, sizeof b1, l->kernels[0]));
			rt_add(&t, "%s", count(b2, sizeof b2, l->kernels[1]));
			rt_add(&t, "%u", l->n_fusions);
		}
		rt_print(out, &t, md);
	}

	heading(out, md, "Kernel pairs by layer (us per pass)");
	for (size_t i = 0; i < c->n_layers; i++) {
		const struct comparison_layer *l = &c->layers[i];

		if (!l->pair_n)
			continue;
		comparison_layer_label(c, (int32_t)i, b1, sizeof b1);
		if (l->index >= 0 || *c->stacks[l->stack])
			fprintf(out, md ? "### Layer %s\n\n" : "Layer %s\n", b1);
		else
			fprintf(out, md ? "### %s\n\n" : "%s\n",
				l->index == LAYER_PROLOGUE ? "Prologue" : "Epilogue");
		t = (struct rtable){ .ncol = 12, .head = pos_head, .fmt = "llllrrrrrrcc" };
		for (uint32_t k = l->pair_first; k < l->pair_first + l->pair_n; k++)
			pair_row(&t, c, &c->pairs[k], md, 0);
		rt_print(out, &t, md);
	}
	return ferror(out) ? -1 : 0;
}
