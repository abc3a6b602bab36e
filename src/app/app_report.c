/* app_report.c — the --report mode: the comparison as text, Markdown, JSON, CSV or a Perfetto
 * trace, to standard output or to a file written through a temporary file and rename(), so
 * that an interrupted run never leaves half a report (gzip-compressed when its name ends in
 * .gz). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "fusediff/cleanup.h"
#include "fusediff/gate.h"
#include "fusediff/outfile.h"
#include "fusediff/report.h"
#include "progress.h"

/* The signals that end the program by default, whose handler removes the temporary files
 * (cleanup.h: -o FILE's, a decompressed database's) before the signal takes its course; a
 * crash too. Signals ignored when the program started (nohup) stay ignored. */
static const int cleanup_sigs[] = { SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
				    SIGXCPU, SIGSEGV, SIGBUS, SIGABRT, SIGFPE,	SIGILL,	 SIGSYS };
#define N_CLEANUP_SIGS (sizeof cleanup_sigs / sizeof cleanup_sigs[0])

static void on_signal(int sig)
{
	cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

void app_cleanup_on_signals(void)
{
	for (size_t i = 0; i < N_CLEANUP_SIGS; i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof sa);
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = on_signal;
		sigaction(cleanup_sigs[i], NULL, &old);
		if (old.sa_handler != SIG_IGN)
			sigaction(cleanup_sigs[i], &sa, NULL);
	}
}

/* Block the signals above (a file is made or renamed and registered as one step), or put the
 * mask back. */
static void block_cleanup_sigs(int how, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < N_CLEANUP_SIGS; i++)
		sigaddset(&set, cleanup_sigs[i]);
	pthread_sigmask(how, how == SIG_BLOCK ? &set : old, how == SIG_BLOCK ? old : NULL);
}

/* The report in format f (perfetto: with po), or only CSV table `table` when it is not
 * negative. */
static int emit(FILE *out, const struct comparison *c, enum report_format f, int table,
		const struct perfetto_opts *po)
{
	if (table < 0 && f == REPORT_PERFETTO) {
		int rc = report_write_perfetto(out, c, po);

		return fflush(out) != 0 || rc < 0 ? -1 : 0;
	}
	return table < 0 ? report_write(out, c, f)
			 : report_csv_table(out, c, (enum report_csv_table)table, NULL, 0);
}

/* Write the report straight into path (a device, a FIFO: nothing to rename). */
static int write_direct(const char *path, const struct comparison *c, enum report_format f,
			int table, const struct perfetto_opts *po, struct fd_error *err)
{
	FILE *out = fopen(path, "w");
	int rc;

	if (!out) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	rc = emit(out, c, f, table, po);
	if (fclose(out) != 0 || rc < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* Write the report to path through a temporary file that a signal or an error removes
 * (outfile.h), gzip-compressed when path ends in .gz; a path that exists and is not a regular
 * file is written directly. Returns 0, or -1 with a message in err. */
static int write_file(const char *path, const struct comparison *c, enum report_format f,
		      const struct perfetto_opts *po, struct fd_error *err)
{
	struct outfile of;
	sigset_t mask;
	int rc, slot = -1;

	if (!outfile_replaceable(path))
		return write_direct(path, c, f, -1, po, err);
	block_cleanup_sigs(SIG_BLOCK, &mask);
	rc = outfile_open(&of, path, err);
	if (rc == 0) {
		slot = cleanup_add(of.tmp);
		if (outfile_wants_gzip(path))
			outfile_gzip(&of);
	}
	block_cleanup_sigs(SIG_SETMASK, &mask);
	if (rc < 0)
		return -1;
	errno = 0;
	if (emit(of.f, c, f, -1, po) < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno ? errno : EIO));
		outfile_abort(&of);
		rc = -1;
	} else {
		/* a signal after the rename unlinks a name that no longer exists */
		rc = outfile_commit(&of, path, err);
	}
	cleanup_remove(slot);
	return rc;
}

/* The CSV tables of a directory: each written to a temporary file beside it, and only when all
 * are complete on disk renamed into place, one after the other with the signals blocked: an
 * error or a signal leaves every old table as it was. A table that exists and is not a regular
 * file is written directly. Returns 0, or -1 with a message in err (when a rename fails half
 * way, which tables were replaced already). */
static int write_tables(char *const *path, const int *table, int n, const struct comparison *c,
			struct fd_error *err)
{
	struct outfile of[REPORT_CSV_TABLES];
	int slot[REPORT_CSV_TABLES], staged[REPORT_CSV_TABLES] = { 0 }, rc = 0;
	sigset_t mask;

	block_cleanup_sigs(SIG_BLOCK, &mask);
	for (int i = 0; i < n && rc == 0; i++)
		if (outfile_replaceable(path[i])) {
			rc = outfile_open(&of[i], path[i], err);
			if (rc == 0) {
				staged[i] = 1;
				slot[i] = cleanup_add(of[i].tmp);
			}
		}
	block_cleanup_sigs(SIG_SETMASK, &mask);
	for (int i = 0; i < n && rc == 0; i++) {
		if (!staged[i]) {
			rc = write_direct(path[i], c, REPORT_CSV, table[i], NULL, err);
			continue;
		}
		errno = 0;
		if (emit(of[i].f, c, REPORT_CSV, table[i], NULL) < 0) {
			fd_error_set(err, "%s: %s", path[i], strerror(errno ? errno : EIO));
			rc = -1;
		} else if (outfile_finish(&of[i], path[i], err) < 0) {
			cleanup_remove(slot[i]);
			staged[i] = 0; /* released */
			rc = -1;
		}
	}
	block_cleanup_sigs(SIG_BLOCK, &mask);
	{
		char done[512] = "";
		size_t len = 0;

		for (int i = 0; i < n; i++) {
			if (!staged[i])
				continue;
			if (rc < 0) {
				outfile_abort(&of[i]);
			} else if (outfile_commit(&of[i], path[i], err) == 0) {
				if (len < sizeof done)
					len += (size_t)snprintf(done + len, sizeof done - len,
								"%s%s", len ? ", " : "",
								path_basename(path[i]));
			} else {
				if (len) { /* say which tables are new */
					char msg[FD_ERROR_MAX];

					snprintf(msg, sizeof msg, "%s", err->msg);
					fd_error_set(err,
						     "%s (the tables %s were replaced already)",
						     msg, done);
				}
				rc = -1;
			}
			cleanup_remove(slot[i]);
		}
	}
	block_cleanup_sigs(SIG_SETMASK, &mask);
	return rc;
}

/* 1 when -o names a directory for a CSV report (one that exists, or any path ending in '/',
 * made when missing). */
static int csv_dir(const char *path)
{
	struct stat st;
	size_t len = strlen(path);

	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	if (len && path[len - 1] == '/')
		return mkdir(path, 0777) == 0 || errno == EEXIST;
	return 0;
}

int app_report(const struct app_opts *o)
{
	int f = report_format_from_name(o->report ? o->report : "text");
	struct session_opts so = app_session_opts(o);
	struct session *s = NULL;
	struct comparison_ranks *ranks = NULL;
	const struct comparison *c = NULL;
	struct fd_error err = { { 0 } };
	struct progress pr;
	struct perfetto_opts po = { .align_layers = o->align_layers, .layer = -1, .fusion = -1 };
	int rc = 0;

	if (f < 0) {
		char *msg = xasprintf("unknown report format '%s'", o->report);

		app_error(msg);
		free(msg);
		return 2;
	}
	/* beyond a file size limit (ulimit -f) a write fails with EFBIG: a write error, not a
	 * core dump that leaves a temporary file behind */
	signal(SIGXFSZ, SIG_IGN);
	progress_init(&pr, o->trace[0], o->trace[1]);
	so.progress = progress_side;
	so.progress_user = &pr;
	rc = app_open(o, &so, &s, &ranks, &err);
	progress_end(&pr);
	if (rc == 0)
		c = session_compare(s, o->phase, &err);
	if (!c) {
		app_error(err.msg);
		session_close(s);
		ranks_free(ranks);
		return 1;
	}
	if (o->output && f == REPORT_CSV && csv_dir(o->output)) {
		/* one file per table, each with one header row: what pandas.read_csv reads */
		char *path[REPORT_CSV_TABLES];
		int table[REPORT_CSV_TABLES], n = 0;
		size_t len = strlen(o->output);

		for (int t = 0; t < REPORT_CSV_TABLES; t++) {
			if (t == CSV_RANKS && !c->ranks)
				continue;
			table[n] = t;
			path[n++] = xasprintf("%s%s%s.csv", o->output,
					      len && o->output[len - 1] == '/' ? "" : "/",
					      report_csv_table_name((enum report_csv_table)t));
		}
		for (int i = 0; i < n && rc == 0; i++)
			if (app_refuse_input(o, path[i], path_basename(path[i])))
				rc = 2;
		if (rc == 0 && write_tables(path, table, n, c, &err) < 0) {
			app_error(err.msg);
			rc = 1;
		}
		for (int i = 0; i < n; i++)
			free(path[i]);
	} else if (o->output) {
		if (app_refuse_input(o, o->output, NULL)) {
			rc = 2;
		} else if (write_file(o->output, c, (enum report_format)f, &po, &err) < 0) {
			app_error(err.msg);
			rc = 1;
		}
	} else {
		errno = 0;
		if (emit(stdout, c, (enum report_format)f, -1, &po) < 0) {
			fprintf(stderr, "fusediff: write error: %s\n",
				strerror(errno ? errno : EIO));
			rc = 1;
		}
	}
	if (rc == 0) {
		struct gate_opts go = { .slower_pct = o->fail_if_slower,
					.lost_fusion = o->fail_on_lost_fusion,
					.min_delta_us = o->min_delta_us };
		struct gate_result gr;
		struct fd_error e = { { 0 } };

		if (o->fail_if_below_peak) /* checked as the options were read */
			gate_parse_peaks(o->fail_if_below_peak, &go, &e);
		gate_check(c, &go, &gr);
		if (gr.status != GATE_NONE) {
			char *msg = xasprintf("gate: %s", gr.verdict);

			app_error(msg);
			free(msg);
		}
		rc = gr.status == GATE_FAIL ? 3 : gr.status == GATE_INCOMPARABLE ? 4 : 0;
	}
	session_close(s);
	ranks_free(ranks);
	return rc;
}
