/* spool.c — see spool.h. */
#include "spool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fusediff/util.h"

struct spool {
	size_t mem_max;
	const char *tmpdir; /* borrowed, or NULL: /tmp */
	int64_t start, end; /* the bytes held: [start, end) of the stream */
	unsigned char *mem; /* in memory: mem[0 .. end - start) */
	size_t cap;
	int fd;		   /* in the file: at file offset (stream offset - file_base), or -1 */
	int64_t file_base; /* stream offset of the file's first byte */
	int no_file;	   /* a temporary file could not be made: memory only */
};

struct spool *spool_new(size_t mem_max, const char *tmpdir)
{
	struct spool *s = xcalloc(1, sizeof *s);

	s->mem_max = mem_max;
	s->tmpdir = tmpdir;
	s->fd = -1;
	return s;
}

void spool_free(struct spool *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->mem);
	free(s);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Move what memory holds into a new unlinked temporary file: 0, or -1 (memory keeps it). */
static int to_file(struct spool *s)
{
	const char *dir = s->tmpdir;
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	path = xmalloc(strlen(dir) + 32);
	strcpy(path, dir);
	strcat(path, "/fusediff-spool-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path); /* gone with the descriptor, whatever ends the program */
	free(path);
	if (fd < 0)
		return -1;
	if (write_all(fd, s->mem, (size_t)(s->end - s->start)) < 0) {
		close(fd);
		return -1;
	}
	s->fd = fd;
	s->file_base = s->start;
	free(s->mem);
	s->mem = NULL;
	s->cap = 0;
	return 0;
}

void spool_add(struct spool *s, int64_t off, const void *buf, size_t n)
{
	size_t held;

	if (s->start == s->end)
		s->start = s->end = off;
	held = (size_t)(s->end - s->start);
	if (s->fd < 0 && !s->no_file && held + n > s->mem_max && to_file(s) < 0)
		s->no_file = 1;
	if (s->fd >= 0) {
		if (pwrite(s->fd, buf, n, (off_t)(s->end - s->file_base)) == (ssize_t)n) {
			s->end += (int64_t)n;
			return;
		}
		/* the file is full: everything back into memory */
		{
			int64_t start = s->start, end = s->end;
			unsigned char *m = xmalloc((size_t)(end - start) + n);

			if (pread(s->fd, m, (size_t)(end - start), (off_t)(start - s->file_base)) !=
			    (ssize_t)(end - start))
				die("spool: cannot read back a temporary file: %s",
				    strerror(errno));
			close(s->fd);
			s->fd = -1;
			s->mem = m;
			s->cap = (size_t)(end - start) + n;
			held = (size_t)(end - start);
		}
	}
	if (held + n > s->cap) {
		s->cap = s->cap ? s->cap : 1 << 16;
		while (s->cap < held + n)
			s->cap *= 2;
		s->mem = xrealloc(s->mem, s->cap);
	}
	memcpy(s->mem + held, buf, n);
	s->end += (int64_t)n;
}

void spool_keep_from(struct spool *s, int64_t off)
{
	if (off <= s->start)
		return;
	if (off >= s->end) {
		s->start = s->end;
		if (s->fd >= 0) { /* the next bytes start the file again */
			close(s->fd);
			s->fd = -1;
		}
		return;
	}
	if (s->fd < 0)
		memmove(s->mem, s->mem + (off - s->start), (size_t)(s->end - off));
	s->start = off;
}

int64_t spool_start(const struct spool *s)
{
	return s->start;
}

int64_t spool_end(const struct spool *s)
{
	return s->end;
}

long spool_read(struct spool *s, int64_t off, void *buf, size_t cap)
{
	size_t n = off >= s->end ? 0 : (size_t)(s->end - off);
	ssize_t got;

	if (n > cap)
		n = cap;
	if (n == 0 || off < s->start)
		return 0;
	if (s->fd < 0) {
		memcpy(buf, s->mem + (off - s->start), n);
		return (long)n;
	}
	do
		got = pread(s->fd, buf, n, (off_t)(off - s->file_base));
	while (got < 0 && errno == EINTR);
	return (long)got;
}
