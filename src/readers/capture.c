/* capture.c — graph-replayed kernels joined to their graph's capture trace (see capture.h). */
#include "fusediff/capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fusediff/trace_dir.h"
#include "../trace/trace_build.h"

/* Launch indices by start (sort_index()). */
static int cmp_launch_start(const void *ctx, uint32_t a, uint32_t b)
{
	const struct trace *t = ctx;
	int r = CMP(t->launches[a].start, t->launches[b].start);

	return r ? r : CMP(a, b);
}

/* The captured launches of capture, in launch order; returns how many. */
static size_t captured(const struct trace *capture, uint32_t **out)
{
	uint32_t *v = xmalloc((capture->n_launches + 1) * sizeof *v);
	size_t n = 0;

	for (size_t i = 0; i < capture->n_launches; i++)
		if (capture->launches[i].kernel)
			v[n++] = (uint32_t)i;
	sort_index(v, n, cmp_launch_start, capture);
	*out = v;
	return n;
}

/* Map a capture CPU time into the graph launch's CPU range. */
struct tmap {
	int64_t c0, c1, r0, r1;
};

static int64_t tmap(const struct tmap *m, int64_t t)
{
	double f = m->c1 > m->c0 ? (double)(t - m->c0) / (double)(m->c1 - m->c0) : 0;
	double x = (double)m->r0 + f * (double)(m->r1 - m->r0);

	if (x < 0)
		return 0;
	if (x > (double)TRACE_TIME_MAX)
		return TRACE_TIME_MAX;
	return (int64_t)x;
}

static int64_t tmap_dur(const struct tmap *m, int64_t start, int64_t dur)
{
	int64_t a = tmap(m, start), b = tmap(m, start + dur);

	return b > a ? b - a : 1;
}

/* Longest common subsequence of the replayed kernels k[0..nk) and the captured launches
 * c[0..nc) by kernel name (grid and block equal scores a little more): pairs[i] = the
 * captured launch of kernel i, or UINT32_MAX. */
static void lcs(const struct trace *r, const uint32_t *k, size_t nk, const struct trace *cap,
		const uint32_t *c, size_t nc, uint32_t *pairs)
{
	size_t w = nc + 1;
	uint32_t *score = xcalloc((nk + 1) * w, sizeof *score);
	uint8_t *eq = xcalloc(nk * nc + 1, 1);

	for (size_t i = 0; i < nk; i++) {
		const struct trace_kernel *kk = &r->kernels[k[i]];
		const char *kn = trace_str(r, kk->name);

		for (size_t j = 0; j < nc; j++) {
			const struct trace_launch *l = &cap->launches[c[j]];
			struct trace_dims kd, cd;

			if (strcmp(kn, trace_str(cap, l->kernel)) != 0)
				continue;
			trace_dims_get(r, kk->dims, &kd);
			trace_dims_get(cap, l->dims, &cd);
			eq[i * nc + j] = 1 + (memcmp(&kd, &cd, sizeof kd) == 0);
		}
	}
	for (size_t i = 1; i <= nk; i++)
		for (size_t j = 1; j <= nc; j++) {
			uint32_t best = score[(i - 1) * w + j] > score[i * w + j - 1]
						? score[(i - 1) * w + j]
						: score[i * w + j - 1];
			uint8_t e = eq[(i - 1) * nc + j - 1];

			if (e && score[(i - 1) * w + j - 1] + 1 + e > best)
				best = score[(i - 1) * w + j - 1] + 1 + e;
			score[i * w + j] = best;
		}
	for (size_t i = 0; i < nk; i++)
		pairs[i] = UINT32_MAX;
	for (size_t i = nk, j = nc; i > 0 && j > 0;) {
		uint8_t e = eq[(i - 1) * nc + j - 1];

		if (e && score[i * w + j] == score[(i - 1) * w + j - 1] + 1 + e) {
			pairs[i - 1] = (uint32_t)(j - 1);
			i--, j--;
		} else if (score[(i - 1) * w + j] >= score[i * w + j - 1]) {
			i--;
		} else {
			j--;
		}
	}
	free(score);
	free(eq);
}

static uint32_t copy_str(struct trace *to, const struct trace *from, uint32_t id)
{
	return id ? intern_add(to->strings, trace_str(from, id), intern_len(from->strings, id)) : 0;
}

/* Graft the captured side of one graph launch gl (its kernels k[0..nk), joined by pairs) onto
 * the replay: launch times, operators and module calls, the capture's times mapped into the graph
 * launch's CPU range. *corr and *ext: the next free correlation and External ids. */
static size_t graft(struct trace *r, const struct trace_launch *gl, const uint32_t *k, size_t nk,
		    const uint32_t *pairs, const struct trace *cap, const uint32_t *c, size_t nc,
		    int64_t *corr, int64_t *ext)
{
	struct tmap m = { INT64_MAX, INT64_MIN, gl->start, gl->start + gl->dur };
	size_t joined = 0;

	for (size_t j = 0; j < nc; j++) {
		const struct trace_launch *l = &cap->launches[c[j]];

		m.c0 = l->start < m.c0 ? l->start : m.c0;
		m.c1 = l->start + l->dur > m.c1 ? l->start + l->dur : m.c1;
	}
	for (size_t i = 0; i < nk; i++) {
		const struct trace_launch *l;
		const struct trace_op *op;
		struct trace_kernel *kk = &r->kernels[k[i]];
		int32_t thread;

		if (pairs[i] == UINT32_MAX)
			continue;
		l = &cap->launches[c[pairs[i]]];
		/* the captured launch, as the kernel's own (trace_kernel.launch) */
		thread = trace_thread_index(r, gl->tid);
		kk->launch = thread < 0 ? -1 : tmap(&m, l->start);
		kk->launch_thread = thread < 0 ? 0 : (uint16_t)thread;
		kk->correlation = (*corr)++;
		op = l->external_id ? trace_find_op(cap, l->external_id) : NULL;
		if (op) {
			struct trace_op no = { .start = tmap(&m, op->start),
					       .dur = tmap_dur(&m, op->start, op->dur),
					       .external_id = (*ext)++,
					       .tid = gl->tid,
					       .name = copy_str(r, cap, op->name),
					       .input_dims = copy_str(r, cap, op->input_dims),
					       .input_types = copy_str(r, cap, op->input_types),
					       .concrete = copy_str(r, cap, op->concrete) };

			kk->external_id = no.external_id;
			trace_add_op(r, &no);
		}
		joined++;
	}
	/* the module calls around the captured launches */
	for (size_t i = 0; i < cap->n_ranges; i++) {
		const struct trace_range *cr = &cap->ranges[i];
		struct trace_range nr;

		if (cr->kind != RANGE_MODULE || cr->start + cr->dur < m.c0 || cr->start > m.c1)
			continue;
		nr = *cr;
		nr.start = tmap(&m, cr->start);
		nr.dur = tmap_dur(&m, cr->start, cr->dur);
		nr.pid = gl->tid;
		nr.tid = gl->tid;
		nr.name = copy_str(r, cap, cr->name);
		trace_add_range(r, &nr);
	}
	return joined;
}

/* Join every graph launch of r with the captured launches c[0..nc) of cap: the number of
 * kernels joined; with graft, their CPU side is grafted onto r (*graphs and *kernels: graph
 * launches and the kernels they replayed). */
static size_t join(struct trace *r, const struct trace *cap, const uint32_t *c, size_t nc,
		   int do_graft, size_t *graphs, size_t *kernels)
{
	uint32_t *k = xmalloc((r->n_kernels + 1) * sizeof *k);
	uint32_t *pairs = xmalloc((r->n_kernels + 1) * sizeof *pairs);
	struct trace_launch *gl = xmalloc((r->n_launches + 1) * sizeof *gl);
	int64_t corr = 1, ext = 1;
	size_t ng = 0, joined = 0;

	*graphs = *kernels = 0;
	for (size_t i = 0; i < r->n_launches; i++)
		corr = r->launches[i].correlation >= corr ? r->launches[i].correlation + 1 : corr;
	for (size_t i = 0; i < r->n_kernels; i++) {
		corr = r->kernels[i].correlation >= corr ? r->kernels[i].correlation + 1 : corr;
		ext = r->kernels[i].external_id >= ext ? r->kernels[i].external_id + 1 : ext;
	}
	for (size_t i = 0; i < r->n_ops; i++)
		ext = r->ops[i].external_id >= ext ? r->ops[i].external_id + 1 : ext;
	/* the launches grow while grafting: walk a copy of the graph launches */
	for (size_t i = 0; i < r->n_launches; i++)
		if (trace_is_graph_launch(trace_str(r, r->launches[i].name)))
			gl[ng++] = r->launches[i];
	for (size_t g = 0; g < ng; g++) {
		size_t nk = 0;

		for (size_t i = 0; i < r->n_kernels; i++) /* time order */
			if (r->kernels[i].correlation == gl[g].correlation &&
			    r->kernels[i].kind == KIND_KERNEL)
				k[nk++] = (uint32_t)i;
		if (!nk)
			continue;
		(*graphs)++;
		*kernels += nk;
		lcs(r, k, nk, cap, c, nc, pairs);
		if (do_graft) {
			joined += graft(r, &gl[g], k, nk, pairs, cap, c, nc, &corr, &ext);
		} else {
			for (size_t i = 0; i < nk; i++)
				joined += pairs[i] != UINT32_MAX;
		}
	}
	free(gl);
	free(k);
	free(pairs);
	return joined;
}

int trace_is_capture(const struct trace *t, size_t *n_captured)
{
	size_t nc = 0;

	for (size_t i = 0; i < t->n_launches; i++)
		nc += t->launches[i].kernel != 0;
	if (n_captured)
		*n_captured = nc;
	return nc > 0 && t->n_kernel_events <= nc / 2;
}

/* Whether cap is a graph capture: captured launches, and few kernels run. */
static int check_capture(const struct trace *cap, size_t nc, const char *path, struct fd_error *err)
{
	if (nc == 0 || cap->n_kernel_events > nc / 2) {
		fd_error_set(
			err,
			"%s: not a graph capture: %zu kernels ran and %zu launches were captured",
			path, cap->n_kernel_events, nc);
		return -1;
	}
	return 0;
}

int trace_join_capture(struct trace *r, const struct trace *cap, const char *path,
		       struct fd_error *err)
{
	uint32_t *c = NULL;
	size_t nc = captured(cap, &c), graphs, kernels, joined;

	if (check_capture(cap, nc, path, err) < 0) {
		free(c);
		return -1;
	}
	joined = join(r, cap, c, nc, 1, &graphs, &kernels);
	trace_resort(r);
	free(r->capture.path);
	r->capture = (struct trace_capture){ xstrdup(path), graphs, kernels, joined };
	free(c);
	return 0;
}

/* How many kernels of r the capture would join (0 when it is no capture). */
static size_t capture_fit(struct trace *r, const struct trace *cap)
{
	uint32_t *c = NULL;
	size_t nc = captured(cap, &c), graphs, kernels, joined = 0;

	if (nc && cap->n_kernel_events <= nc / 2)
		joined = join(r, cap, c, nc, 0, &graphs, &kernels);
	free(c);
	return joined;
}

char *capture_dir_for(const char *trace_path)
{
	const char *slash = trace_path ? strrchr(trace_path, '/') : NULL;
	char *dir = slash ? xasprintf("%.*s/capture_traces", (int)(slash - trace_path), trace_path)
			  : xstrdup("capture_traces");
	struct stat st;

	if (trace_path && strcmp(trace_path, "-") != 0 && stat(dir, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return dir;
	free(dir);
	return NULL;
}

static int is_trace_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 5 && strcmp(n + l - 5, ".json") == 0) ||
	       (l > 8 && strcmp(n + l - 8, ".json.gz") == 0);
}

/* Load the capture at file (found in a directory: in_dir) and join it to replay. */
static int try_capture(struct trace *replay, const char *file, int in_dir,
		       const struct trace_load_tuning *tuning, struct file_set *reads,
		       struct fd_error *err)
{
	struct trace *cap = NULL;
	struct trace_load_opts lo = {
		.device = -1,
		.capture = 1,
		.regular_only = in_dir,
		.reads = reads,
		.tuning = tuning ? *tuning : (struct trace_load_tuning){ .split_min = 0 }
	};
	int rc;

	if (trace_load(&cap, file, &lo, err) < 0)
		return -1;
	rc = trace_join_capture(replay, cap, file, err);
	trace_free(cap);
	return rc;
}

int trace_attach_capture(struct trace *replay, const char *path,
			 const struct trace_load_tuning *tuning, struct file_set *reads,
			 struct fd_error *err)
{
	struct stat st;
	char **files = NULL;
	size_t n = 0, kept = 0, best = SIZE_MAX, best_joined = 0;

	if (stat(path, &st) < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return try_capture(replay, path, 0, tuning, reads, err);
	if (trace_dir_list(path, &files, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) { /* only the JSON traces: a capture is a Kineto trace */
		if (is_trace_name(files[i]))
			files[kept++] = files[i];
		else
			free(files[i]);
	}
	n = kept;
	if (!n) {
		fd_error_set(err, "%s: no capture trace (*.json, *.json.gz) in this directory",
			     path);
		free(files);
		return -1;
	}
	/* the capture that joins the most kernels (one per batch size: the others join few) */
	for (size_t i = 0; i < n; i++) {
		struct trace *c = NULL;
		struct trace_load_opts lo = {
			.device = -1,
			.capture = 1,
			.regular_only = 1,
			.reads = reads,
			.tuning = tuning ? *tuning : (struct trace_load_tuning){ .split_min = 0 }
		};
		struct fd_error e2 = { { 0 } };
		size_t j = 0;

		if (trace_load(&c, files[i], &lo, &e2) == 0) {
			j = capture_fit(replay, c);
			trace_free(c);
		}
		if (j > best_joined || best == SIZE_MAX) {
			best_joined = j;
			best = i;
		}
	}
	{
		int rc = try_capture(replay, files[best], 1, tuning, reads, err);

		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
		return rc;
	}
}
