/* session.c — the pipeline behind one handle (see session.h): the two traces load in parallel,
 * then both sides are classified and structured in parallel, and each phase's comparison is
 * built once, when first asked for. */
#include "fusediff/session.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fusediff/capture.h"
#include "fusediff/timings.h"

struct session {
	struct trace *owned[2]; /* the traces session_open() loaded; NULL when borrowed */
	struct classifier *own_classifier;
	const struct classifier *cl;
	struct side side[2];
	struct compare_opts co;
	struct peak_table peaks; /* --peaks rows (co.peaks points here when there are some) */
	char *label[2];		 /* copies of the labels asked for */
	char *model;		 /* a copy of the model asked for */
	struct comparison *by_phase[PHASE_COUNT + 2]; /* [phase + 1]: -1 (automatic) .. all */
	/* numbered[id - 1]: the fusion first given that number (borrowed from its comparison) */
	const struct comparison_fusion **numbered;
	size_t n_numbered;
	struct timings tm; /* session_opts.timings: printed when the first comparison is built */
	int compared;
	int one; /* session_open_one(): one trace, nothing to compare */
	/* session_prefetch(): a thread builds the comparisons of the other phases, one at a
	 * time under mu, as session_compare() builds them (mu held) */
	pthread_mutex_t mu;
	pthread_t prefetch;
	int prefetching; /* 0: not asked, 1: the thread runs or is to be joined, -1: done */
	atomic_int stop; /* session_close(): the prefetch builds nothing more */
};

/* --- loading both traces ---------------------------------------------------------------- */

/* Shared by the two loading threads: progress goes to the caller one call at a time, and a
 * cancel from the caller stops both loads. */
struct load_shared {
	session_stage_fn stage;
	pthread_mutex_t mu;
	session_progress_fn fn;
	void *user;
	int cancel;
	const atomic_int *stop; /* NULL, or set when the load should stop (the rules failed) */
};

struct load_job {
	struct load_shared *sh;
	int side;
	const char *path;
	const char *const *repeats; /* further captures, pooled after the first */
	size_t n_repeats;
	int32_t device;
	int sha256;
	struct file_set *reads;
	const struct trace_load_tuning *tuning;
	void (*started)(void *user); /* trace_load_opts.started, or NULL */
	void *started_user;
	struct trace *t;
	struct fd_error err;
	int rc;
	int stopped; /* the load was stopped: by the caller, or because the other load failed */
};

static int on_progress(void *user, int64_t done, int64_t total)
{
	struct load_job *j = user;
	int cancel;

	pthread_mutex_lock(&j->sh->mu);
	if (!j->sh->cancel && j->sh->stop && atomic_load(j->sh->stop))
		j->sh->cancel = 1;
	if (!j->sh->cancel && j->sh->fn)
		j->sh->cancel = j->sh->fn(j->sh->user, j->side, done, total) != 0;
	cancel = j->sh->cancel;
	j->stopped = cancel;
	pthread_mutex_unlock(&j->sh->mu);
	return cancel;
}

/* The gap between two pooled captures, ns: what separates them on the pooled timeline. */
#define REPEAT_GAP_NS 1000000

static int refuse_capture(const struct trace *t, int side, struct fd_error *err);

/* The side's further captures, each loaded on the device the first trace analyses and pooled
 * after it. */
static int load_repeats(struct load_job *j, const struct trace_load_opts *lo0)
{
	struct trace_load_opts lo = *lo0;

	lo.device = j->t->device;
	if (refuse_capture(j->t, j->side, &j->err) < 0) /* before it hides among executions */
		return -1;
	for (size_t i = 0; i < j->n_repeats; i++) {
		struct trace *r = NULL;
		int rc;

		if (trace_load(&r, j->repeats[i], &lo, &j->err) < 0)
			return -1;
		rc = refuse_capture(r, j->side, &j->err);
		if (rc == 0)
			rc = trace_append(j->t, r, REPEAT_GAP_NS, &j->err);
		trace_free(r);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static void *load_thread(void *arg)
{
	struct load_job *j = arg;
	struct trace_load_opts lo = { .device = j->device,
				      .sha256 = j->sha256,
				      .reads = j->reads,
				      .progress = on_progress,
				      .progress_user = j,
				      .started = j->started,
				      .started_user = j->started_user,
				      .tuning = *j->tuning };

	j->rc = trace_load(&j->t, j->path, &lo, &j->err);
	if (j->rc == 0 && j->n_repeats) {
		j->rc = load_repeats(j, &lo);
		if (j->rc < 0) {
			trace_free(j->t);
			j->t = NULL;
		}
	}
	if (j->rc == 0 && j->sh->stage)
		j->sh->stage(j->sh->user, j->side, SESSION_LOADED);
	if (j->rc < 0) {
		/* No need to finish loading the other trace. */
		pthread_mutex_lock(&j->sh->mu);
		j->sh->cancel = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	return NULL;
}

/* The devices of t that ran kernels. */
static size_t devices_ran(const struct trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_devices; i++)
		n += t->devices[i].kernels > 0;
	return n;
}

static int ran_on(const struct trace *t, int32_t id)
{
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].id == id)
			return t->devices[i].kernels > 0;
	return 0;
}

/* Both sides analyse the same device: with several GPUs and no --device, each side loaded its
 * busiest one; B is loaded again on A's when they differ, and both on all devices when the
 * sides ran on different numbers of devices. When B never ran on A's device the ids say
 * nothing about each other (two machines): each keeps its busiest. A trace read from standard
 * input cannot be read again: it keeps its own. */
static int same_device(struct trace *t[2], const char *const path[2], const struct session_opts *o,
		       struct load_shared *sh, struct fd_error *err)
{
	size_t n[2] = { devices_ran(t[0]), devices_ran(t[1]) };
	int32_t want[2] = { t[0]->device, t[1]->device };

	if (o->device != -1 || (n[0] < 2 && n[1] < 2))
		return 0;
	if (n[0] != n[1])
		want[0] = want[1] = TRACE_ALL_DEVICES;
	else if (ran_on(t[1], t[0]->device))
		want[1] = t[0]->device;
	for (int s = 0; s < 2; s++) {
		struct load_job job = { .sh = sh,
					.side = s,
					.path = path[s],
					.repeats = o->repeats[s],
					.n_repeats = o->n_repeats[s],
					.device = want[s],
					.sha256 = o->sha256,
					.reads = o->reads,
					.tuning = &o->tuning };

		if (want[s] == t[s]->device || strcmp(path[s], "-") == 0)
			continue;
		load_thread(&job);
		if (job.rc < 0) {
			*err = job.err;
			trace_free(t[0]);
			trace_free(t[1]);
			t[0] = t[1] = NULL;
			return -1;
		}
		trace_free(t[s]);
		t[s] = job.t;
	}
	return 0;
}

/* Whether both paths are regular files of about the same size (the smaller at least 0.6 of
 * the larger). Then the two loads keep both cores busy by themselves, and a plain file is
 * better parsed by one thread than cut into chunks for two: the cut costs a fifth more CPU
 * (each chunk's own arrays, page faults, the merge), which the other core no longer has to
 * spare. With sizes s <= S, two loads of one thread each take S, cut ones 1.25 (s + S) / 2:
 * less only when s < 0.6 S. */
static int similar_sizes(const char *const path[2])
{
	struct stat st[2];

	for (int k = 0; k < 2; k++)
		if (!path[k] || stat(path[k], &st[k]) < 0 || !S_ISREG(st[k].st_mode))
			return 0;
	return st[0].st_size > 0 && st[1].st_size > 0 &&
	       10 * (st[0].st_size < st[1].st_size ? st[0].st_size : st[1].st_size) >=
		       6 * (st[0].st_size > st[1].st_size ? st[0].st_size : st[1].st_size);
}

static int load_both(struct trace *out[2], const char *const path[2], const struct session_opts *o,
		     struct fd_error *err)
{
	struct load_shared sh = { .stage = o->stage, .fn = o->progress, .user = o->progress_user };
	struct load_job job[2];
	struct trace_load_tuning tuning = o->tuning;
	int rc;

	if (!tuning.split_min && similar_sizes(path))
		tuning.split_min = INT64_MAX; /* each side on a core of its own */
	pthread_mutex_init(&sh.mu, NULL);
	for (int s = 0; s < 2; s++)
		job[s] = (struct load_job){ .sh = &sh,
					    .side = s,
					    .path = path[s],
					    .repeats = o->repeats[s],
					    .n_repeats = o->n_repeats[s],
					    .device = o->device,
					    .sha256 = o->sha256,
					    .reads = o->reads,
					    .tuning = &tuning };
	run_both(load_thread, &job[0], &job[1]);
	if (job[0].rc < 0 || job[1].rc < 0) {
		/* The load that failed by itself, A first; else both were stopped by the caller. */
		int s = job[0].rc < 0 && !job[0].stopped   ? 0
			: job[1].rc < 0 && !job[1].stopped ? 1
			: job[0].rc < 0			   ? 0
							   : 1;

		*err = job[s].err;
		trace_free(job[0].t);
		trace_free(job[1].t);
		pthread_mutex_destroy(&sh.mu);
		return -1;
	}
	out[0] = job[0].t;
	out[1] = job[1].t;
	rc = same_device(out, path, o, &sh, err);
	pthread_mutex_destroy(&sh.mu);
	return rc;
}

/* --- classification and structure ------------------------------------------------------- */

/* The two sides are independent (the classifier is only read), so they are built in
 * parallel too. */
struct build_job {
	int k; /* the side */
	session_stage_fn stage;
	void *user;
	struct side *side;
	const struct trace *t;
	const struct classifier *cl;
	const struct side_opts *so;
	struct fd_error err;
	int rc;
};

static void *build_thread(void *arg)
{
	struct build_job *b = arg;

	if (b->stage)
		b->stage(b->user, b->k, SESSION_ANALYSING);
	b->rc = side_build(b->side, b->t, b->cl, b->so, &b->err);
	return NULL;
}

/* s->cl: the caller's classifier, else one of the session's own, built once. */
static int own_classifier(struct session *s, const struct session_opts *o, struct fd_error *err)
{
	if (o->classifier) {
		s->cl = o->classifier;
	} else if (!s->own_classifier) {
		if (classifier_new(&s->own_classifier, o->rules, o->user_rules, err) < 0)
			return -1;
		s->cl = s->own_classifier;
	}
	return 0;
}

static int build_sides(struct session *s, const struct trace *const t[2],
		       const struct session_opts *o, struct fd_error *err)
{
	struct side_opts so = { .pass_regex = o->pass_regex };
	struct build_job bj[2];

	if (own_classifier(s, o, err) < 0)
		return -1;
	if (s->one) { /* side 0 alone, on this thread */
		bj[0] = (struct build_job){ .stage = o->stage,
					    .user = o->progress_user,
					    .side = &s->side[0],
					    .t = t[0],
					    .cl = s->cl,
					    .so = &so };
		build_thread(&bj[0]);
		if (bj[0].rc < 0) {
			fd_error_set(err, "%s: %s", t[0]->path, bj[0].err.msg);
			return -1;
		}
		return 0;
	}
	for (int k = 0; k < 2; k++)
		bj[k] = (struct build_job){ .k = k,
					    .stage = o->stage,
					    .user = o->progress_user,
					    .side = &s->side[k],
					    .t = t[k],
					    .cl = s->cl,
					    .so = &so };
	run_both(build_thread, &bj[0], &bj[1]);
	if (bj[0].rc < 0 || bj[1].rc < 0) {
		int k = bj[0].rc < 0 ? 0 : 1; /* A's error first */

		fd_error_set(err, "%s: %s", t[k]->path, bj[k].err.msg);
		return -1;
	}
	return 0;
}

static struct session *session_new(const struct session_opts *o)
{
	struct session *s = xcalloc(1, sizeof *s);

	pthread_mutex_init(&s->mu, NULL);
	timings_start(&s->tm, o->timings);
	for (int k = 0; k < 2; k++) {
		s->label[k] = o->label[k] ? xstrdup(o->label[k]) : NULL;
		s->co.label[k] = s->label[k];
	}
	s->model = o->model ? xstrdup(o->model) : NULL;
	s->co.model = s->model;
	s->co.ranks = o->ranks;
	s->co.memo = comparison_memo_new(); /* shared by the phases' comparisons */
	return s;
}

/* A graph capture given as a trace to compare: its launches did not run, so it is no
 * execution (its few kernels are the capture's own setup). */
static int refuse_capture(const struct trace *t, int side, struct fd_error *err)
{
	size_t nc;

	if (!trace_is_capture(t, &nc))
		return 0;
	fd_error_set(err,
		     "%s: a graph capture (%zu launches captured, %zu kernel%s ran), not an "
		     "execution: give it with --capture-%c beside the trace of its replay",
		     t->path, nc, t->n_kernel_events, t->n_kernel_events == 1 ? "" : "s",
		     side ? 'b' : 'a');
	return -1;
}

static int refuse_captures(struct trace *const t[2], struct fd_error *err)
{
	for (int s = 0; s < 2; s++)
		if (refuse_capture(t[s], s, err) < 0)
			return -1;
	return 0;
}

/* Each side's graph capture: the one asked for (an error when it cannot be used), else the
 * capture_traces/ directory next to the trace when there is one (a warning of the trace when it
 * cannot be used), unless told not to. */
static int attach_captures(struct trace *t[2], int n, const struct session_opts *o,
			   struct fd_error *err)
{
	for (int s = 0; s < n; s++) {
		struct fd_error e = { { 0 } };
		char *dir;

		if (o->capture[s]) {
			if (trace_attach_capture(t[s], o->capture[s], &o->tuning, o->reads, err) <
			    0)
				return -1;
			continue;
		}
		if (o->no_capture || !(dir = capture_dir_for(t[s]->path)))
			continue;
		if (trace_attach_capture(t[s], dir, &o->tuning, o->reads, &e) < 0)
			trace_warn(t[s], "%s was not used: %s", dir, e.msg);
		free(dir);
	}
	return 0;
}

static int finish_open(struct session **out, struct session *s, const struct trace *const t[2],
		       const struct session_opts *o, struct fd_error *err)
{
	if (build_sides(s, t, o, err) < 0) {
		session_close(s);
		return -1;
	}
	timings_stage(&s->tm, "structure");
	*out = s;
	return 0;
}

/* The --peaks file, read before the traces are (a mistake in it costs no loading time). */
static int load_peaks(struct session *s, const struct session_opts *o, struct fd_error *err)
{
	if (!o->peaks)
		return 0;
	if (peak_table_load(&s->peaks, o->peaks, err) < 0)
		return -1;
	s->co.peaks = &s->peaks;
	return 0;
}

static int has_stdin(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0)
			return 1;
	return 0;
}

int session_open(struct session **out, const char *path_a, const char *path_b,
		 const struct session_opts *o, struct fd_error *err)
{
	static const struct session_opts none = { .device = -1 };
	const char *const path[2] = { path_a, path_b };
	struct session *s;

	*out = NULL;
	if (!o)
		o = &none;
	if (strcmp(path_a, "-") == 0 && strcmp(path_b, "-") == 0) {
		fd_error_set(err, "-: standard input can be only one of the two traces");
		return -1;
	}
	for (int k = 0; k < 2; k++)
		if (o->n_repeats[k] &&
		    (strcmp(path[k], "-") == 0 || has_stdin(o->repeats[k], o->n_repeats[k]))) {
			fd_error_set(err, "-: standard input cannot be one of several captures");
			return -1;
		}
	s = session_new(o);
	/* the classifier first: a mistake in the rules is said before the traces load */
	if (load_peaks(s, o, err) < 0 || own_classifier(s, o, err) < 0 ||
	    load_both(s->owned, path, o, err) < 0) {
		session_close(s);
		return -1;
	}
	timings_stage(&s->tm, "load");
	if (refuse_captures(s->owned, err) < 0 || attach_captures(s->owned, 2, o, err) < 0) {
		session_close(s);
		return -1;
	}
	return finish_open(out, s, (const struct trace *const[2]){ s->owned[0], s->owned[1] }, o,
			   err);
}

/* The classifier of a one-trace session, built on a thread of its own while the trace loads
 * (its regular expressions take milliseconds that would otherwise come before the load),
 * started once the loader's threads run (trace_load_opts.started), or else built after the
 * load; a mistake in the rules stops the load at its next progress report (load_shared.stop). */
struct classifier_job {
	const struct session_opts *o;
	struct classifier *cl;
	struct fd_error err;
	int rc;
	atomic_int failed;
	pthread_t th;
	int threaded;
};

static void *classifier_thread(void *arg)
{
	struct classifier_job *j = arg;

	j->rc = classifier_new(&j->cl, j->o->rules, j->o->user_rules, &j->err);
	if (j->rc < 0)
		atomic_store(&j->failed, 1);
	return NULL;
}

static void classifier_start(void *user)
{
	struct classifier_job *j = user;

	j->threaded = thread_start(&j->th, classifier_thread, j) == 0;
}

int session_open_one(struct session **out, const char *path, const struct session_opts *o,
		     struct fd_error *err)
{
	static const struct session_opts none = { .device = -1 };
	struct classifier_job cj = { 0 };
	struct load_shared sh = { 0 };
	struct load_job job;
	struct session *s;

	*out = NULL;
	if (!o)
		o = &none;
	s = session_new(o);
	s->one = 1;
	if (load_peaks(s, o, err) < 0) {
		session_close(s);
		return -1;
	}
	cj.o = o;
	atomic_init(&cj.failed, 0);
	sh = (struct load_shared){ .stage = o->stage,
				   .fn = o->progress,
				   .user = o->progress_user,
				   .stop = o->classifier ? NULL : &cj.failed };
	pthread_mutex_init(&sh.mu, NULL);
	job = (struct load_job){ .sh = &sh,
				 .path = path,
				 .device = o->device,
				 .sha256 = o->sha256,
				 .reads = o->reads,
				 .tuning = &o->tuning,
				 .started = o->classifier ? NULL : classifier_start,
				 .started_user = &cj };
	load_thread(&job);
	pthread_mutex_destroy(&sh.mu);
	if (!o->classifier) {
		if (cj.threaded)
			pthread_join(cj.th, NULL);
		else
			classifier_thread(&cj);
		s->own_classifier = cj.cl;
		s->cl = cj.cl;
	}
	s->owned[0] = job.t;
	if (cj.rc < 0 || job.rc < 0) { /* the rules' mistake first: it may have stopped the load */
		*err = cj.rc < 0 ? cj.err : job.err;
		session_close(s);
		return -1;
	}
	timings_stage(&s->tm, "load");
	if (attach_captures(s->owned, 1, o, err) < 0) {
		session_close(s);
		return -1;
	}
	return finish_open(out, s, (const struct trace *const[2]){ s->owned[0], NULL }, o, err);
}

int session_open_traces(struct session **out, const struct trace *a, const struct trace *b,
			const struct session_opts *o, struct fd_error *err)
{
	static const struct session_opts none = { .device = -1 };

	struct session *s;

	*out = NULL;
	if (!o)
		o = &none;
	s = session_new(o);
	if (load_peaks(s, o, err) < 0) {
		session_close(s);
		return -1;
	}
	return finish_open(out, s, (const struct trace *const[2]){ a, b }, o, err);
}

/* --- comparisons, and fusion numbers kept across phases --------------------------------- */

/* The same fusion in two comparisons of the session: the same kind, fused side, fused kernel
 * and atoms. The kernels of the unfused side are not compared: a phase may add a one-sided
 * kernel to the same fusion (all passes against prefill). */
static int same_fusion(const struct comparison_fusion *x, const struct comparison_fusion *y)
{
	return x->fused_side == y->fused_side && x->partial == y->partial &&
	       x->horizontal == y->horizontal && x->fused_name == y->fused_name &&
	       x->atoms == y->atoms;
}

/* Give c's fusions their numbers: a fusion numbered in an earlier comparison keeps its
 * number (the k-th of c's fusions with one content takes the k-th number of that content),
 * a new one takes the next. */
static void number_fusions(struct session *s, struct comparison *c)
{
	for (size_t i = 0; i < c->n_fusions; i++) {
		struct comparison_fusion *f = &c->fusions[i];
		size_t before = 0, k;

		for (size_t j = 0; j < i; j++)
			before += same_fusion(&c->fusions[j], f);
		for (k = 0; k < s->n_numbered; k++)
			if (same_fusion(s->numbered[k], f) && !before--)
				break;
		if (k == s->n_numbered) {
			s->numbered =
				xreallocarray(s->numbered, s->n_numbered + 1, sizeof *s->numbered);
			s->numbered[s->n_numbered++] = f;
		}
		f->id = (uint32_t)k + 1;
	}
}

/* Build (once) and number the comparison of phase (-1 .. PHASE_COUNT). */
static struct comparison *build_phase(struct session *s, int phase, struct fd_error *err)
{
	struct comparison **slot = &s->by_phase[phase + 1];
	struct compare_opts co = s->co;

	if (*slot)
		return *slot;
	/* the automatic phase's comparison is the one of the phase it chose (but for the note it
	 * adds where it falls back to all passes): built once, one object in both slots */
	if (phase >= 0 && phase < PHASE_COUNT && s->by_phase[0] && s->by_phase[0]->phase == phase)
		return *slot = s->by_phase[0];
	co.phase = phase;
	if (comparison_build(slot, &s->side[0], &s->side[1], s->cl, &co, err) < 0)
		return NULL;
	if (!s->compared++) {
		timings_stage(&s->tm, "compare");
		timings_print(&s->tm);
	}
	number_fusions(s, *slot);
	return *slot;
}

/* Fusion numbers are given phase by phase in one fixed order, so that the numbers of a phase
 * never depend on the phases asked for before it: the default phase, the other phases both
 * compared models have, all passes. A phase outside that order comes after all of it. That
 * order into order[] (first: the default phase's comparison); returns its length. */
static int phase_order(const struct session *s, const struct comparison *first,
		       int order[PHASE_COUNT + 1])
{
	int n = 0;

	order[n++] = first->phase;
	for (int ph = 0; ph <= PHASE_COUNT; ph++)
		if (ph != first->phase &&
		    (ph == PHASE_COUNT || (first->model[0] < s->side[0].n_models &&
					   first->model[1] < s->side[1].n_models &&
					   s->side[0].models[first->model[0]].phase_passes[ph] &&
					   s->side[1].models[first->model[1]].phase_passes[ph])))
			order[n++] = ph;
	return n;
}

/* session_compare() with s->mu held. */
static const struct comparison *compare_locked(struct session *s, int phase, struct fd_error *err)
{
	const struct comparison *first;
	int order[PHASE_COUNT + 1], n, i;

	if (phase == -1)
		return build_phase(s, -1, err);
	if (!(first = build_phase(s, -1, err)))
		return build_phase(s, phase, err); /* numbered alone */
	n = phase_order(s, first, order);
	for (i = 0; i < n && order[i] != phase; i++) {
		struct fd_error ignored = { 0 };

		build_phase(s, order[i], &ignored); /* a phase that fails numbers nothing */
	}
	return build_phase(s, phase, err);
}

const struct comparison *session_compare(struct session *s, int phase, struct fd_error *err)
{
	const struct comparison *c;

	if (s->one) {
		fd_error_set(err, "a session of one trace compares nothing");
		return NULL;
	}
	if (phase < -1 || phase > PHASE_COUNT) {
		fd_error_set(err, "no such phase (%d)", phase);
		return NULL;
	}
	pthread_mutex_lock(&s->mu);
	c = compare_locked(s, phase, err);
	pthread_mutex_unlock(&s->mu);
	return c;
}

/* The prefetch: every phase of the fixed order, each built under s->mu and in that order (so
 * that the fusions are numbered as session_compare() numbers them), the lock let go between
 * two, so that the caller's session_compare() waits for one build at most. */
static void *prefetch_main(void *arg)
{
	struct session *s = arg;
	struct fd_error ignored = { 0 };
	const struct comparison *first;
	int order[PHASE_COUNT + 1], n = 0;

	pthread_mutex_lock(&s->mu);
	if ((first = build_phase(s, -1, &ignored)))
		n = phase_order(s, first, order);
	pthread_mutex_unlock(&s->mu);
	for (int i = 1; i < n && !atomic_load(&s->stop); i++) {
		pthread_mutex_lock(&s->mu);
		compare_locked(s, order[i], &ignored);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

void session_prefetch(struct session *s)
{
	if (!s || s->one || s->prefetching) /* once a session; one trace: nothing to compare */
		return;
	/* without a thread, the phases are built when asked for, as without a prefetch */
	s->prefetching = thread_start(&s->prefetch, prefetch_main, s) == 0 ? 1 : -1;
}

void session_prefetch_wait(struct session *s)
{
	if (!s || s->prefetching != 1)
		return;
	pthread_join(s->prefetch, NULL);
	s->prefetching = -1;
}

const struct side *session_side(const struct session *s, int side)
{
	return &s->side[side];
}

const struct classifier *session_classifier(const struct session *s)
{
	return s->cl;
}

const struct peak_table *session_peaks(const struct session *s)
{
	return &s->peaks;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, 1);
	if (s->prefetching == 1)
		pthread_join(s->prefetch, NULL);
	pthread_mutex_destroy(&s->mu);
	for (size_t i = 0; i < sizeof s->by_phase / sizeof s->by_phase[0]; i++)
		if (i == 0 || s->by_phase[i] != s->by_phase[0]) /* build_phase()'s one object */
			comparison_free(s->by_phase[i]);
	free(s->numbered);
	peak_table_free(&s->peaks);
	comparison_memo_free(s->co.memo);
	for (int k = 0; k < 2; k++) {
		side_clear(&s->side[k]);
		trace_free(s->owned[k]);
		free(s->label[k]);
	}
	free(s->model);
	if (s->own_classifier)
		classifier_free(s->own_classifier);
	free(s);
}
