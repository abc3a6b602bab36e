/* app_tui.c — the interactive explorer (and --headless): open the screen, load and compare
 * the traces behind a progress screen, then explore or play the script. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "fusediff/cleanup.h"
#include "fusediff/ui_explorer.h"
#include "fusediff/ui_screen.h"
#include "fusediff/ui_theme.h"

struct load_job {
	const struct app_opts *o;
	struct session *s;
	struct comparison_ranks *ranks;
	struct ui_progress *progress;
	struct fd_error err;
	int32_t device; /* the device the explorer shows: --device, then its device key */
};

static int on_progress(void *user, int side, int64_t done, int64_t total)
{
	return ui_progress_update(user, side, done, total);
}

static void on_stage(void *user, int side, enum session_stage stage)
{
	ui_progress_stage(user, side,
			  stage == SESSION_LOADED ? UI_STAGE_LOADED : UI_STAGE_ANALYSING);
}

static int load(void *user)
{
	struct load_job *j = user;
	struct session_opts so = app_session_opts(j->o);

	so.progress = on_progress;
	so.stage = on_stage;
	so.progress_user = j->progress;
	if (app_open(j->o, &so, &j->s, &j->ranks, &j->err) < 0)
		return -1;
	/* the first comparison is built behind the progress screen too */
	ui_progress_stage(j->progress, -1, UI_STAGE_ALIGNING);
	if (!session_compare(j->s, j->o->phase, &j->err))
		return -1;
	if (!j->o->headless) /* the other phases while the user reads the first screen */
		session_prefetch(j->s);
	return 0;
}

/* s, its phases' comparisons built in the background in the interactive explorer (the
 * first one too: the explorer's session_compare() waits for it). */
static struct session *prefetched(const struct load_job *j, struct session *s)
{
	if (s && !j->o->headless)
		session_prefetch(s);
	return s;
}

/* Enter in the Ranks view: that rank's session, with it as the ranks' chosen one. */
static struct session *open_rank(void *user, size_t index, struct fd_error *err)
{
	struct load_job *j = user;
	struct session_opts so = app_session_opts(j->o);
	struct session *s = NULL;

	so.device = j->device;
	return app_open_rank(&so, j->ranks, index, &s, err) == 0 ? prefetched(j, s) : NULL;
}

/* The device key: the traces (or the rank shown) read again for another device. */
static struct session *open_device(void *user, int32_t device, struct fd_error *err)
{
	struct load_job *j = user;
	struct session_opts so = app_session_opts(j->o);
	struct session *s = NULL;
	int rc;

	so.device = device;
	if (j->ranks)
		rc = app_open_rank(&so, j->ranks, j->ranks->chosen, &s, err);
	else
		rc = session_open(&s, j->o->trace[0], j->o->trace[1], &so, err);
	if (rc < 0)
		return NULL;
	j->device = device;
	return prefetched(j, s);
}

/* The --script file can be read: its mistake (a missing file, a directory) said before the
 * traces load rather than after (ui_play() opens it again). A FIFO is opened without waiting
 * for its writer. */
static int script_readable(const char *path)
{
	struct stat st;
	int fd, e = 0;
	char *msg;

	if (!path || strcmp(path, "-") == 0)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	if (fd >= 0)
		close(fd);
	if (!e)
		return 0;
	msg = xasprintf("%s: %s", path, strerror(e));
	app_error(msg);
	free(msg);
	return -1;
}

int app_tui(const struct app_opts *o)
{
	struct ui_screen_opts so = { o->headless, o->cols,     o->rows,
				     o->theme,	  o->no_color, o->no_mouse };
	struct load_job *job;
	struct ui_screen *scr;
	struct fd_error err = { { 0 } };
	struct ui *u;
	int cancelled, rc, status;

	if (!o->headless && o->script) {
		fprintf(stderr, "fusediff: --script goes with --headless\n");
		return 2;
	}
	if (o->theme && ui_theme_from_name(o->theme) < 0) {
		char *msg = xasprintf("--theme takes dark, light or mono, not '%s'", o->theme);

		app_error(msg);
		free(msg);
		fputs("Try 'fusediff --help' for more information.\n", stderr);
		return 2;
	}
	if (script_readable(o->script) < 0)
		return 1;
	if (ui_screen_open(&scr, &so, &err) < 0) {
		app_error(err.msg);
		return 1;
	}
	/* on the heap: a cancelled load may still be running when we leave */
	job = xcalloc(1, sizeof *job);
	job->o = o;
	job->device = o->device;
	job->progress = ui_progress_new(path_basename(o->trace[0]), path_basename(o->trace[1]));
	rc = ui_loading(scr, job->progress, load, job, &cancelled);
	if (cancelled) {
		cleanup_run(); /* a database being decompressed (cleanup.h) */
		ui_screen_close(scr);
		return cancelled == 'q' ? 0
					: 128 + cancelled; /* job is left to the exiting process */
	}
	ui_progress_free(job->progress);
	if (rc < 0) {
		ui_screen_close(scr);
		app_error(job->err.msg);
		session_close(job->s);
		ranks_free(job->ranks);
		free(job);
		return 1;
	}
	u = ui_new(scr, job->s, o->phase);
	ui_set_inputs(u, o->reads);
	if (job->ranks)
		ui_set_rank_opener(u, open_rank, job);
	ui_set_device_opener(u, open_device, job);
	status = o->headless ? ui_play(u, o->script, o->env.dump_dir, stdout, &err) : ui_run(u);
	ui_free(u);
	ui_screen_close(scr);
	session_close(job->s);
	ranks_free(job->ranks);
	free(job);
	if (status == 1)
		app_error(err.msg);
	return status;
}
