/* outfile.c — a file written through a temporary file and rename() (see outfile.h), gzip
 * compressed on request through a stdio stream of our own (fopencookie). */
#define _GNU_SOURCE /* fopencookie() */
#include "fusediff/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int outfile_replaceable(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return S_ISREG(st.st_mode);
	return errno == ENOENT; /* a dangling link names a file yet to be made */
}

int outfile_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int outfile_open(struct outfile *o, const char *path, struct fd_error *err)
{
	struct stat st;
	const char *slash;
	mode_t mode;
	int fd, e;

	memset(o, 0, sizeof *o);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		o->target = realpath(path, NULL);
	if (!o->target) /* not a link, or a dangling one (which the file replaces) */
		o->target = xstrdup(path);
	if (stat(o->target, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			fd_error_set(err, "%s: %s", path,
				     S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
			goto fail;
		}
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	slash = strrchr(o->target, '/');
	o->tmp = slash ? xasprintf("%.*s/.fusediff-XXXXXX", (int)(slash - o->target), o->target)
		       : xstrdup(".fusediff-XXXXXX");
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fchmod(fd, mode) < 0 || !(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(o->tmp);
		fd_error_set(err, "%s: %s", path, strerror(e));
		goto fail;
	}
	return 0;
fail:
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
	return -1;
}

int outfile_wants_gzip(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcasecmp(path + n - 3, ".gz") == 0;
}

/* The compressor behind o->f: deflate() into out, then fwrite() to the temporary file. */
struct gz {
	z_stream z;
	FILE *raw;
	int failed; /* a write to raw failed (errno kept in err) */
	int err;
	unsigned char out[1 << 16];
};

/* Deflate what z holds (flush: Z_NO_FLUSH or Z_FINISH) and write the output. 0 or -1. */
static int gz_pump(struct gz *g, int flush)
{
	int rc;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof g->out;
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			die("deflate: stream error");
		if (sizeof g->out - g->z.avail_out &&
		    fwrite(g->out, 1, sizeof g->out - g->z.avail_out, g->raw) !=
			    sizeof g->out - g->z.avail_out) {
			g->failed = 1;
			g->err = errno ? errno : EIO;
			return -1;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	struct gz *g = cookie;
	size_t done = 0;

	if (g->failed) {
		errno = g->err;
		return -1;
	}
	while (done < n) { /* avail_in is an unsigned int */
		size_t part = n - done > (1u << 30) ? (1u << 30) : n - done;

		g->z.next_in = (unsigned char *)(uintptr_t)(buf + done);
		g->z.avail_in = (unsigned)part;
		if (gz_pump(g, Z_NO_FLUSH) < 0) {
			errno = g->err;
			return -1;
		}
		done += part;
	}
	return (ssize_t)n;
}

/* fclose() of o->f: end the gzip stream (unless a write failed) and free the compressor; the
 * temporary file stays open. */
static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int rc = 0;

	if (!g->failed) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		rc = gz_pump(g, Z_FINISH);
	}
	if (g->failed) {
		errno = g->err;
		rc = -1;
	}
	deflateEnd(&g->z);
	free(g);
	return rc;
}

int outfile_gzip(struct outfile *o)
{
	struct gz *g = xcalloc(1, sizeof *g);
	cookie_io_functions_t io = { .write = gz_write, .close = gz_close };

	/* windowBits 15 + 16: a gzip header and trailer rather than zlib's */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2: out of memory");
	g->raw = o->f;
	o->raw = o->f;
	o->f = fopencookie(g, "w", io);
	if (!o->f)
		die("fopencookie: %s", strerror(errno));
	o->gz = g;
	return 0;
}

/* Close the compressing stream of outfile_gzip(), which ends the gzip stream; o->f becomes the
 * temporary file again. Returns 0, or an errno value. */
static int gz_finish(struct outfile *o)
{
	int e = 0;

	errno = 0;
	if (fclose(o->f) != 0)
		e = errno ? errno : EIO;
	o->f = o->raw;
	o->raw = NULL;
	o->gz = NULL;
	return e;
}

static void release(struct outfile *o)
{
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
}

/* Flush, sync and close o->f (ending the gzip stream): 0, or an errno value. */
static int finish(struct outfile *o)
{
	int e = 0;

	errno = 0;
	if (o->gz) { /* end the gzip stream: the trailer unless a write failed */
		struct gz *g = o->gz;

		if (ferror(o->f) && !g->failed) {
			g->failed = 1;
			g->err = errno ? errno : EIO;
		}
		e = gz_finish(o);
	}
	if (!e && (fflush(o->f) != 0 || ferror(o->f)))
		e = errno ? errno : EIO;
	/* EINVAL, EROFS: a file system without fsync (a pipe-like special file system) */
	else if (!e && fsync(fileno(o->f)) < 0 && errno != EINVAL && errno != EROFS)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	return e;
}

int outfile_finish(struct outfile *o, const char *path, struct fd_error *err)
{
	int e = o->f ? finish(o) : 0;

	if (e) {
		unlink(o->tmp);
		fd_error_set(err, "%s: %s", path, strerror(e));
		release(o);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o, const char *path, struct fd_error *err)
{
	int e = o->f ? finish(o) : 0;

	if (!e && rename(o->tmp, o->target) < 0)
		e = errno;
	if (e) {
		unlink(o->tmp);
		fd_error_set(err, "%s: %s", path, strerror(e));
	}
	release(o);
	return e ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->gz) {
		((struct gz *)o->gz)->failed = 1; /* no trailer */
		((struct gz *)o->gz)->err = EIO;
		gz_finish(o);
	}
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}
