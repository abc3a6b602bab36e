/* trace_summary.c — one trace's metadata, event counts, top kernels and unfused chains as
 * text. */
#include "fusediff/trace_summary.h"

#include <stdlib.h>
#include <string.h>

#include "fusediff/classify.h"
#include "fusediff/intern.h"
#include "fusediff/names.h"
#include "fusediff/text.h"
#include "fusediff/opportunity.h"
#include "report_int.h"

static int cmp_by_total(const void *pa, const void *pb)
{
	const struct trace_summary_kernel *a = pa, *b = pb;
	int c = CMP(b->total_ns, a->total_ns);

	return c ? c : CMP(a->name, b->name);
}

/* Added up in a table by string id (a trace has far fewer names than kernels: a copy of the
 * kernels, sorted by name, cost twice their number in memory on a 1 GB trace). */
struct trace_summary_kernel *trace_summary_kernels(const struct trace *t, size_t *n)
{
	uint32_t ids = intern_count(t->strings);
	struct trace_summary_kernel *by_id = xcalloc((size_t)ids + 1, sizeof *by_id), *all;
	size_t out = 0;

	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].kind == KIND_KERNEL) {
			struct trace_summary_kernel *k = &by_id[t->kernels[i].name];

			out += k->count++ == 0;
			k->total_ns += t->kernels[i].dur;
		}
	all = xcalloc(out + 1, sizeof *all);
	out = 0;
	for (uint32_t id = 0; id < ids; id++)
		if (by_id[id].count) {
			all[out] = by_id[id];
			all[out++].name = id;
		}
	free(by_id);
	qsort(all, out, sizeof *all, cmp_by_total);
	*n = out;
	return all;
}

static int cmp_cat(const void *pa, const void *pb)
{
	const struct trace_category *a = pa, *b = pb;
	int c = CMP(b->count, a->count);

	return c ? c : CMP(a->name, b->name);
}

/* Distinct names of annotation ranges of one kind, with counts, in order of first use. */
static void print_annotations(FILE *out, const struct trace *t, enum range_kind kind,
			      const char *label)
{
	uint32_t names[12];
	int64_t counts[12];
	size_t n = 0, more = 0;

	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		size_t j;

		if (r->kind != kind)
			continue;
		for (j = 0; j < n && names[j] != r->name; j++)
			;
		if (j < n)
			counts[j]++;
		else if (n < 12) {
			names[n] = r->name;
			counts[n++] = 1;
		} else {
			more++;
		}
	}
	fprintf(out, "  %-22s", label);
	if (!n)
		fputs(" none", out);
	for (size_t j = 0; j < n; j++) {
		char *esc =
			text_escape_dup(trace_str(t, names[j]), intern_len(t->strings, names[j]));

		text_cut(esc, 70);
		fprintf(out, "%s \"%s\" x%lld", j ? "," : "", esc, (long long)counts[j]);
		free(esc);
	}
	if (more)
		fprintf(out, " and %zu more", more);
	fputc('\n', out);
}

/* Kernel time and count per class, largest first, and the share of class Other. */
static void print_classes(FILE *out, const struct trace *t, const struct trace_classes *tc)
{
	int64_t ns[CLASS_COUNT] = { 0 }, n[CLASS_COUNT] = { 0 }, total = 0;
	int order[CLASS_COUNT];
	char b1[64], b2[64];

	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct kernel_info *ki = trace_classes_get(tc, i);

		if (t->kernels[i].kind != KIND_KERNEL)
			continue;
		ns[ki->cls] += t->kernels[i].dur;
		n[ki->cls]++;
		total += t->kernels[i].dur;
	}
	for (int c = 0; c < CLASS_COUNT; c++)
		order[c] = c;
	for (int i = 1; i < CLASS_COUNT; i++) /* insertion sort: stable, by time descending */
		for (int j = i; j > 0 && ns[order[j]] > ns[order[j - 1]]; j--) {
			int tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	fprintf(out, "\nKernel time by class (Other: %s%%)\n",
		text_fixed(b2, sizeof b2, 100.0 * tc->other_share, 1, 0));
	fprintf(out, "  %-14s %8s %11s %6s\n", "class", "kernels", "total us", "share");
	for (int i = 0; i < CLASS_COUNT; i++) {
		int c = order[i];

		if (!n[c])
			continue;
		text_us(b1, sizeof b1, ns[c]);
		text_fixed(b2, sizeof b2, total ? 100.0 * (double)ns[c] / (double)total : 0.0, 1,
			   0);
		fprintf(out, "  %-14s %8lld %11s %5s%%\n", class_name((enum op_class)c),
			(long long)n[c], b1, b2);
	}
	if (tc->links_rejected)
		fprintf(out,
			"  %zu kernels' External id names an operator whose CPU range does not "
			"hold "
			"their launch\n  (the trace's External ids look like correlation ids): "
			"those "
			"links were rejected,\n  the operator around each launch is used instead\n",
			tc->links_rejected);
}

#define SUMMARY_OTHER_KERNELS 20

struct other_kernel {
	uint32_t name;
	int64_t ns, count;
};

static int cmp_other(const void *pa, const void *pb)
{
	const struct other_kernel *a = pa, *b = pb;
	int r = CMP(b->ns, a->ns);

	return r ? r : CMP(a->name, b->name);
}

/* The kernels of class Other, largest first, each with a rules-file line that would classify
 * it: its function name as the pattern, CLASS and ATOMS to fill in; the per-user rules file
 * cl was given is named as a place for it. */
static void print_other(FILE *out, const struct trace *t, const struct trace_classes *tc,
			const struct classifier *cl)
{
	struct other_kernel *v = NULL;
	size_t n = 0, cap = 0;
	const char *path = cl ? classifier_user_path(cl) : NULL;
	/* each name's place in v (+ 1), by string id: a search of v for every kernel was
	 * quadratic (3.2 * 10^5 distinct names of class Other took 22.7 s) */
	uint32_t *slot = xcalloc((size_t)intern_count(t->strings) + 1, sizeof *slot);

	for (size_t i = 0; i < t->n_kernels; i++) {
		uint32_t name = t->kernels[i].name;

		if (t->kernels[i].kind != KIND_KERNEL ||
		    trace_classes_get(tc, i)->cls != CLASS_OTHER)
			continue;
		if (!slot[name]) {
			VEC_PUSH(v, n, cap, ((struct other_kernel){ name, 0, 0 }));
			slot[name] = (uint32_t)n;
		}
		v[slot[name] - 1].ns += t->kernels[i].dur;
		v[slot[name] - 1].count++;
	}
	free(slot);
	if (!n)
		return;
	qsort(v, n, sizeof *v, cmp_other);
	fprintf(out,
		"\nClass Other: %zu distinct kernel%s. A line for each, to complete with its "
		"class\n",
		n, n == 1 ? "" : "s");
	fprintf(out, "and atoms and add to a rules file (--rules FILE%s%s):\n", path ? ", or " : "",
		path ? path : "");
	for (size_t i = 0; i < n && i < SUMMARY_OTHER_KERNELS; i++) {
		const char *full = trace_str(t, v[i].name);
		char *dem = names_demangle(full), pat[256], b1[64], *esc;
		const char *name = dem ? dem : full;
		struct name_parts np;
		size_t k = 0;

		names_parse(name, &np);
		/* the function name, its regex characters escaped, blanks as '.' */
		if (np.func == name)
			pat[k++] = '^';
		for (size_t j = 0; j < np.func_len && k + 3 < sizeof pat; j++) {
			char ch = np.func[j];

			if (strchr(".[]()*+?{}|^$\\", ch))
				pat[k++] = '\\';
			pat[k++] = ch == ' ' || ch == '\t' ? '.' : ch;
		}
		pat[k] = '\0';
		esc = text_escape_dup(pat, k);
		text_us(b1, sizeof b1, v[i].ns);
		fprintf(out, "  CLASS  ATOMS  %-40s # %s us in %lld kernel%s\n", esc, b1,
			(long long)v[i].count, v[i].count == 1 ? "" : "s");
		free(esc);
		free(dem);
	}
	if (n > SUMMARY_OTHER_KERNELS)
		fprintf(out, "  (%zu more)\n", n - SUMMARY_OTHER_KERNELS);
	free(v);
}

static int cmp_int32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The passes and layers of the main model, where they came from, and what they cover. */
static void print_structure(FILE *out, const struct side *sd)
{
	const struct side_model *m = &sd->models[sd->main_model];
	char *src = text_escape_dup(sd->pass_source, strlen(sd->pass_source));
	char cov[256];
	int first = 1;

	fprintf(out, "  %-22s %u (", "passes", m->n_passes);
	for (int p = 0; p < PHASE_COUNT; p++)
		if (m->phase_passes[p]) {
			fprintf(out, "%s%u %s", first ? "" : ", ", m->phase_passes[p],
				phase_name((enum phase)p));
			first = 0;
		}
	fprintf(out, "%s), %u layers per pass (%s)\n", first ? "none" : "", m->layers_per_pass,
		sd->layer_source);
	if (*side_model_name(sd, sd->main_model))
		fprintf(out, "  %-22s %s, of %zu models\n", "model",
			side_model_name(sd, sd->main_model), sd->n_models);
	fprintf(out, "  %-22s %s\n", "passes from", src);
	side_coverage_text(&sd->cover, -1, cov, sizeof cov);
	fprintf(out, "  %-22s %s\n", "coverage", cov);
	free(src);
}

/* The chains of the catalogue the main model's passes run unfused, per phase (opportunity.h):
 * advice, each figure per pass of its phase. */
static void print_opportunities(FILE *out, const struct side *sd, const struct classifier *cl)
{
	struct opportunity_opts oo = { 0 };
	uint8_t *on = xcalloc(sd->n_passes + 1, 1);
	int any = 0;

	oo.n_chains = classifier_chains(cl, &oo.chains);
	oo.pass_on = on;
	fprintf(out, "\nUnfused chains (advice: fusions this trace does not have; per pass of the "
		     "phase; idle and launches\nare certain savings, bound the kernel time beyond "
		     "each place's longest kernel)\n");
	for (int ph = 0; ph < PHASE_COUNT; ph++) {
		struct opportunities found;

		for (size_t p = 0; p < sd->n_passes; p++)
			on[p] = sd->passes[p].model == sd->main_model && sd->passes[p].phase == ph;
		opportunities_find(sd, &oo, &found);
		for (size_t i = 0; i < found.n; i++) {
			const struct opportunity *o = &found.v[i];
			char chain[160], layers[160], known[256], b[4][32];

			if (!any++)
				fprintf(out, "  %-8s %-30s %-14s %6s %7s %10s %8s %9s %9s  %s\n",
					"phase", "chain", "layers", "places", "kernels", "us",
					"launches", "idle us", "bound us", "fused elsewhere");
			chain_format(&oo.chains[o->chain], chain, sizeof chain);
			opportunity_layer_ranges(sd, o, layers, sizeof layers);
			report_known_kernels(&oo.chains[o->chain], known, sizeof known);
			text_us(b[0], sizeof b[0], (int64_t)llround(o->ns));
			text_us(b[1], sizeof b[1], (int64_t)llround(o->idle_ns));
			text_us(b[2], sizeof b[2], (int64_t)llround(o->bound_ns));
			text_fixed(b[3], sizeof b[3], o->launches, 0, 0);
			fprintf(out, "  %-8s %-30s %-14s %6u %7u %10s %8s %9s %9s  %s\n",
				phase_name((enum phase)ph), chain, layers, o->places, o->per_place,
				b[0], b[3], b[1], b[2], known);
		}
		opportunities_clear(&found);
	}
	if (!any)
		fprintf(out, "  none: no chain of the catalogue runs as separate kernels here\n");
	free(on);
}

int trace_summary_print(FILE *out, const struct trace *t, const struct trace_classes *tc,
			const struct side *sd, const struct classifier *cl,
			const struct peak_table *peaks)
{
	char b1[64], b2[64], b3[64];
	size_t nk, streams = 0, copies = 0;
	int64_t total = trace_kernel_time(t), span_end = 0;
	struct trace_summary_kernel *top;
	struct trace_category *cats;
	int32_t seen_streams[16], *ids;
	const char *gpu = t->gpu_name ? trace_str(t, t->gpu_name) : "";

	{
		char *p = text_escape_dup(t->path, strlen(t->path));

		fprintf(out, "%s\n", p);
		free(p);
	}
	text_bytes(b1, sizeof b1, t->bytes);
	fprintf(out, "  %-22s %s%s\n", "format", t->format, t->gzip ? " (gzip)" : "");
	fprintf(out, "  %-22s %s, %lld events\n", "size", b1, (long long)t->n_events);
	fprintf(out, "  %-22s %s (from %s)\n", "platform", trace_platform_name(t->platform),
		t->platform_reason);
	{
		char *esc = text_escape_dup(gpu, strlen(gpu));

		fprintf(out, "  %-22s %s\n", "GPU", *esc ? esc : "(not named in the trace)");
		free(esc);
	}
	{ /* what the efficiency figures of a comparison are measured against */
		const struct gpu_peak *pk = eff_trace_peak(peaks, t);

		if (pk) {
			char *esc = text_escape_dup(pk->name, strlen(pk->name));

			char v[32];

			fprintf(out, "  %-22s %s: dense TFLOPS", "peaks", esc);
			for (int d = 0; d < EFF_N_DTYPES; d++)
				if (pk->tflops[d] > 0) {
					report_number(v, sizeof v, pk->tflops[d], 4);
					fprintf(out, " %s %s", eff_dtype_name(d), v);
				}
			report_number(v, sizeof v, pk->tbps, 4);
			fprintf(out, ", %s TB/s\n", v);
			free(esc);
		} else {
			fprintf(out, "  %-22s %s\n", "peaks",
				"not in the table (a --peaks row adds them)");
		}
	}
	if (t->device == TRACE_ALL_DEVICES)
		fprintf(out, "  %-22s all %zu:", "device", t->n_devices);
	else
		fprintf(out, "  %-22s %d of %zu:", "device", t->device, t->n_devices);
	{
		size_t shown = 0, idle = 0;

		for (size_t i = 0; i < t->n_devices; i++) {
			const struct trace_device *d = &t->devices[i];
			long long k = (long long)d->kernel_events, cp = (long long)(d->kernels - k);

			if (!d->kernels) { /* listed (deviceProperties, agents) but ran nothing */
				idle++;
				continue;
			}
			fprintf(out, "%s %d (", shown++ ? "," : "", d->id);
			if (k || !cp)
				fprintf(out, "%lld kernel%s", k, k == 1 ? "" : "s");
			if (cp)
				fprintf(out, "%s%lld cop%s", k ? " + " : "", cp,
					cp == 1 ? "y" : "ies");
			fputc(')', out);
		}
		if (idle)
			fprintf(out, "%s %zu more without kernels", shown ? "," : "", idle);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->n_kernels; i++) {
		size_t j;

		if (t->kernels[i].kind != KIND_KERNEL)
			copies++;
		if (t->kernels[i].start + t->kernels[i].dur > span_end)
			span_end = t->kernels[i].start + t->kernels[i].dur;
		for (j = 0; j < streams && seen_streams[j] != t->kernels[i].stream; j++)
			;
		if (j == streams && streams < 16) /* the first 16, in the order they appear */
			seen_streams[streams++] = t->kernels[i].stream;
	}
	nk = streams; /* all of them, when fewer than 16; else counted by one sort */
	if (streams == 16) {
		ids = xmalloc((t->n_kernels + 1) * sizeof *ids);
		for (size_t i = 0; i < t->n_kernels; i++)
			ids[i] = t->kernels[i].stream;
		qsort(ids, t->n_kernels, sizeof *ids, cmp_int32);
		nk = 0;
		for (size_t i = 0; i < t->n_kernels; i++)
			nk += i == 0 || ids[i] != ids[i - 1];
		free(ids);
	}
	fprintf(out, "  %-22s %zu:", "streams", nk);
	for (size_t j = 0; j < streams; j++)
		fprintf(out, " %d", seen_streams[j]);
	if (nk > streams)
		fprintf(out, " and %zu more", nk - streams);
	fputc('\n', out);
	if (t->world_size >= 0)
		fprintf(out, "  %-22s rank %lld of %lld\n", "distributed", (long long)t->rank,
			(long long)t->world_size);
	text_duration(b1, sizeof b1, total);
	fprintf(out, "  %-22s %zu (+ %zu copies/memsets), %s GPU time\n", "kernels",
		t->n_kernel_events, copies, b1);
	if (t->n_other_device) {
		int64_t all = 0, all_ns = 0;

		for (size_t i = 0; i < t->n_devices; i++) { /* only the analysed device's time is
								bounded: saturate */
			all += t->devices[i].kernel_events;
			all_ns = t->devices[i].kernel_time > INT64_MAX - all_ns
					 ? INT64_MAX
					 : all_ns + t->devices[i].kernel_time;
		}
		text_duration(b1, sizeof b1, all_ns);
		fprintf(out,
			"  %-22s %zu on other devices, not analysed (use --device N or all);\n"
			"  %-22s %lld kernels on %zu devices, %s GPU time in the file\n",
			"", t->n_other_device, "", (long long)all, t->n_devices, b1);
	}
	if (t->capture.path) {
		char *p = text_escape_dup(t->capture.path, strlen(t->capture.path));

		fprintf(out,
			"  %-22s %s: %zu of %zu replayed kernels joined (%zu graph launch%s)\n",
			"graph capture", p, t->capture.joined, t->capture.graph_kernels,
			t->capture.graphs, t->capture.graphs == 1 ? "" : "es");
		free(p);
	}
	print_annotations(out, t, RANGE_GPU_USER, "annotations (GPU)");
	print_annotations(out, t, RANGE_USER, "annotations (CPU)");
	{
		size_t mods = 0;

		for (size_t i = 0; i < t->n_ranges; i++)
			mods += t->ranges[i].kind == RANGE_MODULE;
		fprintf(out, "  %-22s %zu%s\n", "nn.Module ranges", mods,
			mods ? "" : " (record with with_stack=True for module boundaries)");
	}
	if (sd && sd->n_models)
		print_structure(out, sd);

	if (t->n_categories)
		fprintf(out, "\nEvents by category\n");
	cats = xmalloc((t->n_categories + 1) * sizeof *cats);
	if (t->n_categories) /* formats without categories (CSV, SQLite) have none */
		memcpy(cats, t->categories, t->n_categories * sizeof *cats);
	qsort(cats, t->n_categories, sizeof *cats, cmp_cat);
	for (size_t i = 0; i < t->n_categories; i++) {
		char *esc = text_escape_dup(trace_str(t, cats[i].name),
					    intern_len(t->strings, cats[i].name));

		fprintf(out, "  %-22s %10lld\n", esc, (long long)cats[i].count);
		free(esc);
	}
	free(cats);

	if (tc) {
		print_classes(out, t, tc);
		print_other(out, t, tc, cl);
	}
	top = trace_summary_kernels(t, &nk);
	fprintf(out, "\nTop %d kernels by total time (of %zu distinct)\n", SUMMARY_TOP_KERNELS, nk);
	fprintf(out, "  %7s %11s %10s %6s  %s\n", "count", "total us", "avg us", "share", "kernel");
	for (size_t i = 0; i < nk && i < SUMMARY_TOP_KERNELS; i++) {
		char shortname[160];
		const char *full = trace_str(t, top[i].name);
		char *dem = names_demangle(full);
		char *esc;

		names_short(dem ? dem : full, shortname, sizeof shortname);
		esc = text_escape_dup(shortname, strlen(shortname));
		text_us(b1, sizeof b1, top[i].total_ns);
		text_us(b2, sizeof b2, top[i].total_ns / top[i].count);
		text_fixed(b3, sizeof b3,
			   total ? 100.0 * (double)top[i].total_ns / (double)total : 0.0, 1, 0);
		fprintf(out, "  %7lld %11s %10s %5s%%  %s\n", (long long)top[i].count, b1, b2, b3,
			esc);
		free(esc);
		free(dem);
	}
	free(top);
	if (sd && sd->n_models)
		print_opportunities(out, sd, cl);
	if (t->n_warnings_total) {
		fprintf(out, "\nWarnings (%zu)\n", t->n_warnings_total);
		for (size_t i = 0; i < t->n_warnings; i++)
			fprintf(out, "  %s\n", t->warnings[i]);
	}
	return ferror(out) ? -1 : 0;
}
