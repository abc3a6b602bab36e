/* app_report.c — the --report mode: the comparison as text, Markdown, JSON or CSV, to standard
 * output or to a file written through a temporary file and rename(), so that an interrupted
 * run never leaves half a report. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "fusediff/report.h"
#include "progress.h"

/* The temporary file being written, removed if a signal ends the program meanwhile (a signal
 * handler can only reach it through a global). */
static char *volatile pending_tmp;

static void on_signal(int sig)
{
	char *t = pending_tmp;

	if (t)
		unlink(t);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Write the report straight into path (a device, a FIFO: nothing to rename). */
static int write_direct(const char *path, const struct comparison *c, enum report_format f, struct fd_error *err)
{
	FILE *out = fopen(path, "w");
	int rc;

	if (!out) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	rc = report_write(out, c, f);
	if (fclose(out) != 0 || rc < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* Write the report to path atomically: into a temporary file in the same directory, renamed
 * over path once complete. A path that is a symbolic link is written through (its target is
 * replaced); one that exists and is not a regular file is written directly. Returns 0, or -1
 * with a message in err. */
static int write_file(const char *path, const struct comparison *c, enum report_format f, struct fd_error *err)
{
	struct stat st;
	char *real = NULL, *tmp;
	const char *target = path, *slash;
	mode_t mode;
	FILE *out;
	struct sigaction old_int, old_term, old_hup;
	int fd, e = 0, rc = -1;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		target = real;
	if (stat(target, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			rc = write_direct(path, c, f, err);
			free(real);
			return rc;
		}
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	slash = strrchr(target, '/');
	tmp = slash ? xasprintf("%.*s/.fusediff-XXXXXX", (int)(slash - target), target) : xstrdup(".fusediff-XXXXXX");
	{
		struct sigaction sa = { .sa_handler = on_signal };

		sigemptyset(&sa.sa_mask);
		pending_tmp = tmp;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		sigaction(SIGHUP, &sa, &old_hup);
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		goto done;
	}
	if (fchmod(fd, mode) < 0 || !(out = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		goto done;
	}
	errno = 0;
	if (report_write(out, c, f) < 0) {
		e = errno ? errno : EIO;
		fclose(out);
		goto done;
	}
	if (fsync(fileno(out)) < 0 && errno != EINVAL && errno != EROFS) {
		e = errno;
		fclose(out);
		goto done;
	}
	if (fclose(out) != 0) {
		e = errno;
		goto done;
	}
	if (rename(tmp, target) < 0) {
		e = errno;
		goto done;
	}
	rc = 0;
done:
	if (rc < 0) {
		if (fd >= 0)
			unlink(tmp);
		fd_error_set(err, "%s: %s", path, strerror(e));
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	pending_tmp = NULL;
	free(tmp);
	free(real);
	return rc;
}

int app_report(const struct app_opts *o)
{
	int f = report_format_from_name(o->report ? o->report : "text");
	struct comparison *c;
	struct fd_error err = { { 0 } };
	struct progress pr;
	int rc = 0;

	if (f < 0) {
		fprintf(stderr, "fusediff: unknown report format '%s'\n", o->report);
		return 2;
	}
	progress_init(&pr, o->trace[0], o->trace[1]);
	rc = app_compare(o, &c, progress_side, &pr, &err);
	progress_end(&pr);
	if (rc < 0) {
		fprintf(stderr, "fusediff: %s\n", err.msg);
		return 1;
	}
	if (o->output) {
		if (write_file(o->output, c, (enum report_format)f, &err) < 0) {
			fprintf(stderr, "fusediff: %s\n", err.msg);
			rc = 1;
		}
	} else {
		errno = 0;
		if (report_write(stdout, c, (enum report_format)f) < 0) {
			fprintf(stderr, "fusediff: write error: %s\n", strerror(errno ? errno : EIO));
			rc = 1;
		}
	}
	comparison_free(c);
	return rc;
}
