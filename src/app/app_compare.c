/* app_compare.c — load two traces (in parallel), classify, structure and compare them. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "fusediff/classify.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"
#include "timings.h"

/* Shared by the two loading threads: progress goes to the caller one call at a time, and a
 * cancel from the caller stops both loads. */
struct load_shared {
	pthread_mutex_t mu;
	app_progress_fn fn;
	void *user;
	int cancel;
};

struct load_job {
	struct load_shared *sh;
	int side;
	const char *path;
	int32_t device;
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
	if (!j->sh->cancel && j->sh->fn)
		j->sh->cancel = j->sh->fn(j->sh->user, j->side, done, total) != 0;
	cancel = j->sh->cancel;
	j->stopped = cancel;
	pthread_mutex_unlock(&j->sh->mu);
	return cancel;
}

static void *load_thread(void *arg)
{
	struct load_job *j = arg;
	struct trace_load_opts lo = { .device = j->device,
				      .progress = on_progress,
				      .progress_user = j };

	j->rc = trace_load(&j->t, j->path, &lo, &j->err);
	if (j->rc < 0) {
		/* No need to finish loading the other trace. */
		pthread_mutex_lock(&j->sh->mu);
		j->sh->cancel = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	return NULL;
}

/* Classification and structure of one side: the two sides are independent (the classifier is
 * only read), so they are built in parallel too. */
struct build_job {
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

	b->rc = side_build(b->side, b->t, b->cl, b->so, &b->err);
	return NULL;
}

int app_compare(const struct app_opts *o, struct comparison **out, app_progress_fn progress,
		void *user, struct fd_error *err)
{
	struct load_shared sh = { .fn = progress, .user = user };
	struct load_job job[2];
	pthread_t th;
	int threaded;
	struct classifier *cl = NULL;
	struct side side[2];
	struct build_job bj[2];
	struct side_opts so = { .pass_regex = o->pass_regex };
	struct compare_opts co = { .phase = o->phase, .label = { o->label[0], o->label[1] } };
	struct timings tm;

	*out = NULL;
	timings_start(&tm);
	if (strcmp(o->trace[0], "-") == 0 && strcmp(o->trace[1], "-") == 0) {
		fd_error_set(err, "-: standard input can be only one of the two traces");
		return -1;
	}
	pthread_mutex_init(&sh.mu, NULL);
	for (int s = 0; s < 2; s++)
		job[s] = (struct load_job){
			.sh = &sh, .side = s, .path = o->trace[s], .device = o->device
		};
	threaded = pthread_create(&th, NULL, load_thread, &job[1]) == 0;
	load_thread(&job[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		load_thread(&job[1]);
	pthread_mutex_destroy(&sh.mu);
	timings_stage(&tm, "load");
	if (job[0].rc < 0 || job[1].rc < 0) {
		/* The load that failed by itself, A first; else both were stopped by the caller. */
		int s = job[0].rc < 0 && !job[0].stopped   ? 0
			: job[1].rc < 0 && !job[1].stopped ? 1
			: job[0].rc < 0			   ? 0
							   : 1;

		*err = job[s].err;
		goto fail;
	}

	if (classifier_new(&cl, o->rules, err) < 0)
		goto fail;
	memset(side, 0, sizeof side);
	for (int s = 0; s < 2; s++)
		bj[s] = (struct build_job){ .side = &side[s], .t = job[s].t, .cl = cl, .so = &so };
	threaded = pthread_create(&th, NULL, build_thread, &bj[1]) == 0;
	build_thread(&bj[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		build_thread(&bj[1]);
	if (bj[0].rc < 0 || bj[1].rc < 0) {
		int s = bj[0].rc < 0 ? 0 : 1; /* A's error first */

		fd_error_set(err, "%s: %s", job[s].t->path, bj[s].err.msg);
		for (int k = 0; k < 2; k++)
			if (bj[k].rc == 0)
				side_clear(&side[k]);
		goto fail;
	}
	timings_stage(&tm, "structure");
	if (comparison_build(out, &side[0], &side[1], &co, err) < 0)
		goto fail;
	timings_stage(&tm, "compare");
	timings_print(&tm);
	(*out)->traces[0] = job[0].t;
	(*out)->traces[1] = job[1].t;
	(*out)->classifier = cl;
	return 0;

fail:
	if (cl)
		classifier_free(cl);
	trace_free(job[0].t);
	trace_free(job[1].t);
	return -1;
}
