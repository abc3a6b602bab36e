/* app_report.c — the --report mode: the comparison as text, Markdown, JSON or CSV, to standard
 * output or to a file written through a temporary file and rename(), so that an interrupted
 * run never leaves half a report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "fusediff/report.h"

/* Write the report to path atomically. Returns 0, or -1 with a message in err. */
static int write_file(const char *path, const struct comparison *c, enum report_format f, struct fd_error *err)
{
	const char *slash = strrchr(path, '/');
	char *tmp = slash ? xasprintf("%.*s/.fusediff-XXXXXX", (int)(slash - path), path) : xstrdup(".fusediff-XXXXXX");
	mode_t mask;
	FILE *out;
	int fd, e;

	fd = mkstemp(tmp);
	if (fd < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(out = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (report_write(out, c, f) < 0) {
		e = errno ? errno : EIO;
		fclose(out);
		goto fail;
	}
	if (fsync(fileno(out)) < 0 && errno != EINVAL && errno != EROFS) {
		e = errno;
		fclose(out);
		goto fail;
	}
	if (fclose(out) != 0) {
		e = errno;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		e = errno;
		goto fail;
	}
	free(tmp);
	return 0;

fail:
	unlink(tmp);
	free(tmp);
	fd_error_set(err, "%s: %s", path, strerror(e));
	return -1;
}

int app_report(const struct app_opts *o)
{
	int f = report_format_from_name(o->report ? o->report : "text");
	struct comparison *c;
	struct fd_error err = { { 0 } };
	int rc = 0;

	if (f < 0) {
		fprintf(stderr, "fusediff: unknown report format '%s'\n", o->report);
		return 2;
	}
	if (app_compare(o, &c, NULL, NULL, &err) < 0) {
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
