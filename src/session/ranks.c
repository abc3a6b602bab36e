/* ranks.c — two directories of per-rank traces paired and compared rank by rank (ranks.h). */
#include "fusediff/ranks.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusediff/rank_peek.h"
#include "fusediff/trace_dir.h"

int ranks_is_dir(const char *path)
{
	struct stat st;

	return path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A trace file of a directory: its path and rank (from distributedInfo, else the name; -1
 * when neither says). */
struct rank_file {
	char *path;
	const char *name; /* within path */
	int64_t info_rank, name_rank;
};

/* The rank the file name gives: "rank-3", "rank_3", "rank3" (any case), else "TP-3"; -1. */
static int64_t name_rank(const char *name)
{
	static const char *const pat[] = { "(^|[^a-z])rank[-_]?([0-9]+)",
					   "(^|[^A-Za-z])TP-([0-9]+)" };
	int64_t r = -1;

	for (size_t i = 0; i < 2 && r < 0; i++) {
		regex_t re;
		regmatch_t m[3];

		if (regcomp(&re, pat[i], REG_EXTENDED | (i == 0 ? REG_ICASE : 0)) != 0)
			abort();
		if (regexec(&re, name, 3, m, 0) == 0 && m[2].rm_eo - m[2].rm_so < 10)
			r = strtoll(name + m[2].rm_so, NULL, 10);
		regfree(&re);
	}
	return r;
}

static void files_free(struct rank_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	free(f);
}

/* The trace files of dir (trace_dir.h), sorted by name, with their ranks. */
static int list_dir(const char *dir, const struct input_opts *io, struct rank_file **out,
		    size_t *n_out, struct fd_error *err)
{
	char **paths;
	struct rank_file *f;
	size_t n;

	*out = NULL;
	*n_out = 0;
	if (trace_dir_list(dir, &paths, &n, err) < 0)
		return -1;
	if (!n) {
		fd_error_set(err, "%s: no trace files in the directory (names ending in %s)", dir,
			     TRACE_DIR_KINDS);
		trace_dir_free(paths, n);
		return -1;
	}
	f = xcalloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');

		f[i] = (struct rank_file){ .path = paths[i],
					   .name = slash ? slash + 1 : paths[i],
					   .info_rank = -1,
					   .name_rank = name_rank(slash ? slash + 1 : paths[i]) };
	}
	free(paths); /* the paths are f's now */
	for (size_t i = 0; i < n; i++)
		if (trace_peek_rank(f[i].path, io, &f[i].info_rank, err) < 0) {
			char msg[FD_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			fd_error_set(err, "%s: %s", f[i].path, msg);
			files_free(f, n);
			return -1;
		}
	*out = f;
	*n_out = n;
	return 0;
}

/* The index of x in v[0..n-1], n when it is not there. */
static size_t index_of(const int64_t *v, size_t n, int64_t x)
{
	size_t i;

	for (i = 0; i < n && v[i] != x; i++)
		;
	return i;
}

static int cmp_rank(const void *a, const void *b)
{
	return CMP(((const struct comparison_rank *)a)->rank,
		   ((const struct comparison_rank *)b)->rank);
}

/* Each file's rank by `by` (1: distributedInfo, 0: name); two files with one rank are an
 * error. */
static int file_ranks(const char *dir, struct rank_file *f, size_t n, int by, int64_t *rank,
		      struct fd_error *err)
{
	for (size_t i = 0; i < n; i++) {
		rank[i] = by ? f[i].info_rank : f[i].name_rank;
		if (rank[i] < 0) {
			fd_error_set(err,
				     "%s: cannot tell its rank: no distributedInfo.rank and no "
				     "rank-N, rank_N or TP-N in its name",
				     f[i].path);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (rank[j] == rank[i]) {
				fd_error_set(err, "%s: %s and %s both are rank %lld (by %s)", dir,
					     f[j].name, f[i].name, (long long)rank[i],
					     by ? "distributedInfo.rank" : "file name");
				return -1;
			}
	}
	return 0;
}

/* The comparisons of the rank pairs, run by a few threads. */
struct rank_work {
	pthread_mutex_t mu;
	struct comparison_ranks *r;
	const struct session_opts *o;
	int phase;
	size_t next;
	int failed;
	struct fd_error err;
};

static void *rank_thread(void *arg)
{
	struct rank_work *w = arg;

	for (;;) {
		struct comparison_rank *e;
		struct session_opts so = *w->o;
		struct session *s = NULL;
		const struct comparison *c = NULL;
		struct fd_error err = { { 0 } };

		pthread_mutex_lock(&w->mu);
		e = w->failed || w->next >= w->r->n ? NULL : &w->r->r[w->next++];
		pthread_mutex_unlock(&w->mu);
		if (!e)
			return NULL;
		so.progress = NULL;
		so.ranks = NULL;
		if (session_open(&s, e->path[0], e->path[1], &so, &err) == 0)
			c = session_compare(s, w->phase, &err);
		if (c) {
			for (int k = 0; k < 2; k++) {
				e->ns[k] = c->ns[k];
				e->passes[k] = c->passes[k];
				e->kernels[k] = session_side(s, k)->t->n_kernel_events;
			}
			e->delta_ns = c->delta_ns;
			e->ratio = c->ratio;
		} else {
			pthread_mutex_lock(&w->mu);
			if (!w->failed)
				fd_error_set(&w->err, "rank %lld: %s", (long long)e->rank, err.msg);
			w->failed = 1;
			pthread_mutex_unlock(&w->mu);
		}
		session_close(s);
	}
}

static int compare_all(struct comparison_ranks *r, int phase, const struct session_opts *o,
		       struct fd_error *err)
{
	struct rank_work w = { .r = r, .o = o, .phase = phase };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = ncpu < 1 ? 1 : (size_t)ncpu;
	pthread_t *th;
	size_t started = 0;

	if (nt > r->n)
		nt = r->n;
	th = xcalloc(nt, sizeof *th);
	pthread_mutex_init(&w.mu, NULL);
	for (size_t i = 0; i < nt; i++)
		started += pthread_create(&th[started], NULL, rank_thread, &w) == 0;
	if (!started)
		rank_thread(&w);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&w.mu);
	free(th);
	if (w.failed) {
		*err = w.err;
		return -1;
	}
	return 0;
}

static void ranks_text(const struct comparison_ranks *r, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n && len + 24 < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
					(long long)r->r[i].rank);
	if (len + 24 >= cap)
		snprintf(buf + len, cap - len, ", ...");
}

int ranks_build(struct comparison_ranks **out, const char *dir_a, const char *dir_b, int phase,
		int64_t want, const struct session_opts *o, struct fd_error *err)
{
	struct rank_file *f[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int64_t *rank[2] = { NULL, NULL };
	const char *dir[2] = { dir_a, dir_b };
	struct comparison_ranks *r = NULL;
	int by = 1, rc = -1;

	*out = NULL;
	for (int s = 0; s < 2; s++)
		if (list_dir(dir[s], &o->tuning.input, &f[s], &n[s], err) < 0)
			goto done;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++)
			by &= f[s][i].info_rank >= 0;
	for (int s = 0; s < 2; s++)
		rank[s] = xcalloc(n[s], sizeof *rank[s]);
	if (by) { /* distributedInfo, unless two files of a directory share a rank there (copies
		     of one process's trace): then the names */
		struct fd_error e = { { 0 } };

		for (int s = 0; s < 2 && by; s++)
			by = file_ranks(dir[s], f[s], n[s], 1, rank[s], &e) == 0;
	}
	for (int s = 0; s < 2 && !by; s++)
		if (file_ranks(dir[s], f[s], n[s], 0, rank[s], err) < 0)
			goto done;
	r = xcalloc(1, sizeof *r);
	r->paired_by = by ? "distributedInfo.rank" : "file name";
	for (int s = 0; s < 2; s++) /* a rank that one directory has and the other lacks */
		for (size_t i = 0; i < n[s]; i++)
			if (index_of(rank[!s], n[!s], rank[s][i]) == n[!s]) {
				fd_error_set(
					err,
					"rank %lld: %s has no counterpart in %s (paired by %s)",
					(long long)rank[s][i], f[s][i].path, dir[!s], r->paired_by);
				goto done;
			}
	r->r = xcalloc(n[0], sizeof *r->r);
	for (size_t i = 0; i < n[0]; i++) {
		size_t j = index_of(rank[1], n[1], rank[0][i]);

		r->r[r->n++] = (struct comparison_rank){
			.rank = rank[0][i],
			.path = { xstrdup(f[0][i].path), xstrdup(f[1][j].path) },
		};
	}
	qsort(r->r, r->n, sizeof *r->r, cmp_rank);
	if (want >= 0) {
		size_t i;

		for (i = 0; i < r->n && r->r[i].rank != want; i++)
			;
		if (i == r->n) {
			char have[256];

			ranks_text(r, have, sizeof have);
			fd_error_set(err, "--rank %lld: the directories have ranks %s",
				     (long long)want, have);
			goto done;
		}
		r->chosen = i;
		r->asked = 1;
	}
	if (compare_all(r, phase, o, err) < 0)
		goto done;
	for (int s = 0; s < 2; s++) {
		size_t fast = 0;

		for (size_t i = 1; i < r->n; i++) {
			if (r->r[i].ns[s] > r->r[r->slowest[s]].ns[s])
				r->slowest[s] = i;
			if (r->r[i].ns[s] < r->r[fast].ns[s])
				fast = i;
		}
		r->spread_ns[s] = r->r[r->slowest[s]].ns[s] - r->r[fast].ns[s];
	}
	if (want < 0)
		for (size_t i = 1; i < r->n; i++)
			if (fabs(r->r[i].delta_ns) > fabs(r->r[r->chosen].delta_ns))
				r->chosen = i;
	*out = r;
	r = NULL;
	rc = 0;
done:
	ranks_free(r);
	for (int s = 0; s < 2; s++) {
		files_free(f[s], n[s]);
		free(rank[s]);
	}
	return rc;
}

void ranks_free(struct comparison_ranks *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->r[i].path[0]);
		free(r->r[i].path[1]);
	}
	free(r->r);
	free(r);
}
