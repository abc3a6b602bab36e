/* progress.c — loading progress on standard error (see progress.h). */
#include "progress.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fusediff/text.h"
#include "fusediff/util.h"

#define DELAY_NS  200000000 /* 0.2 s before the first line */
#define REDRAW_NS 100000000 /* 0.1 s between redraws */

/* The signals that end the program while it loads; a line on the screen is erased first. */
static const int stop_sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
/* A line is on the screen (for the handler, which can only reach it through a global). */
static volatile sig_atomic_t line_shown;

/* The handlers that were there before (app_cleanup_on_signals()'s, which removes the
 * temporary files): called after the line is erased. */
static void (*chained[4])(int);

static void on_stop(int sig)
{
	if (line_shown) {
		ssize_t n = write(STDERR_FILENO, "\r\033[K", 4);

		(void)n;
	}
	for (int i = 0; i < 4; i++)
		if (stop_sigs[i] == sig && chained[i])
			chained[i](sig); /* it ends the program as the signal would */
	signal(sig, SIG_DFL);
	raise(sig);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The name to show: the file's (escaped: a file name can hold escape sequences), or
 * "standard input" for "-". Owned by caller. */
static char *shown(const char *path)
{
	const char *b = strcmp(path, "-") == 0 ? "standard input" : path_basename(path);

	return text_escape_dup(b, strlen(b));
}

void progress_init(struct progress *p, const char *name_a, const char *name_b)
{
	memset(p, 0, sizeof *p);
	p->on = isatty(STDERR_FILENO);
	p->sides = name_b ? 2 : 1;
	p->name[0] = shown(name_a);
	p->name[1] = name_b ? shown(name_b) : NULL;
	p->total[0] = p->total[1] = -1;
	p->start_ns = now_ns();
	for (int i = 0; p->on && i < 4; i++) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = on_stop;
		sigaction(stop_sigs[i], NULL, &p->old[i]);
		if (p->old[i].sa_handler == SIG_IGN || (p->old[i].sa_flags & SA_SIGINFO))
			continue; /* nohup's ignored signals stay ignored */
		chained[i] = p->old[i].sa_handler == SIG_DFL ? NULL : p->old[i].sa_handler;
		sigaction(stop_sigs[i], &sa, NULL);
	}
}

/* "42% of 8.0 MB", or "12.3 MB" when the size is unknown (standard input). */
static void describe(char *buf, size_t cap, int64_t done, int64_t total)
{
	char mb[40];

	text_fixed(mb, sizeof mb, (double)(total > 0 ? total : done) / 1e6, 1, 0);
	if (total > 0)
		snprintf(buf, cap, "%3d%% of %s MB", (int)(done * 100 / total), mb);
	else
		snprintf(buf, cap, "%s MB", mb);
}

static void draw(struct progress *p)
{
	char a[64], b[64];

	describe(a, sizeof a, p->done[0], p->total[0]);
	if (p->sides == 1) {
		fprintf(stderr, "\rfusediff: loading %s: %s\033[K", p->name[0], a);
	} else {
		describe(b, sizeof b, p->done[1], p->total[1]);
		fprintf(stderr, "\rfusediff: loading A %s: %s, B %s: %s\033[K", p->name[0], a,
			p->name[1], b);
	}
	fflush(stderr);
	p->drawn = 1;
	line_shown = 1;
}

int progress_side(void *user, int side, int64_t done, int64_t total)
{
	struct progress *p = user;
	int64_t t;

	if (!p->on || side < 0 || side >= p->sides)
		return 0;
	p->done[side] = done;
	p->total[side] = total;
	t = now_ns();
	if (t - p->start_ns < DELAY_NS || (p->drawn && t - p->last_ns < REDRAW_NS))
		return 0;
	p->last_ns = t;
	draw(p);
	return 0;
}

int progress_trace(void *user, int64_t done, int64_t total)
{
	return progress_side(user, 0, done, total);
}

void progress_end(struct progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = 0;
	line_shown = 0;
	for (int i = 0; p->on && i < 4; i++)
		sigaction(stop_sigs[i], &p->old[i], NULL);
	free(p->name[0]);
	free(p->name[1]);
	p->name[0] = p->name[1] = NULL;
}
