/* outfile.c — a file written through a temporary file and rename() (see outfile.h). */
#include "fusediff/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void release(struct outfile *o)
{
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
}

int outfile_commit(struct outfile *o, const char *path, struct fd_error *err)
{
	int e = 0;

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	/* EINVAL, EROFS: a file system without fsync (a pipe-like special file system) */
	else if (fsync(fileno(o->f)) < 0 && errno != EINVAL && errno != EROFS)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
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
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}
