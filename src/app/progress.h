/* progress.h — loading progress on standard error for --summary and --report.
 *
 * One line, first drawn when loading has taken a fifth of a second (quick loads show nothing),
 * then redrawn at most ten times a second; only when standard error is a terminal (nothing at
 * all otherwise); erased when loading ends, and when a signal (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) ends the program while loading, so that the shell's prompt starts on a clean line.
 * Private to the program (src/app/). */
#ifndef FUSEDIFF_PROGRESS_H
#define FUSEDIFF_PROGRESS_H

#include <signal.h>
#include <stdint.h>

struct progress {
	int on;			   /* standard error is a terminal */
	int sides;		   /* 1 or 2 traces */
	char *name[2];		   /* the names shown, made safe for the terminal (owned) */
	int64_t done[2], total[2]; /* compressed bytes read and file size (-1: unknown) */
	int64_t start_ns;	   /* progress_init() */
	int64_t last_ns;	   /* time of the last redraw */
	int drawn;		   /* a line is on the screen */
	struct sigaction old[4];   /* the dispositions progress_end() puts back */
};

/* Start a meter for one trace (name_b NULL) or two; the names are borrowed. On a terminal,
 * installs the handlers that erase the line on a signal (not for signals that were ignored);
 * progress_end() must follow. */
void progress_init(struct progress *p, const char *name_a, const char *name_b);
/* A trace_progress_fn (trace_load.h) for a one-trace meter: user is the struct progress. */
int progress_trace(void *user, int64_t done, int64_t total);
/* An app_progress_fn (app.h) for a two-trace meter. Never cancels. */
int progress_side(void *user, int side, int64_t done, int64_t total);
/* Erase the line, if one was drawn, and put the signal dispositions back. */
void progress_end(struct progress *p);

#endif
