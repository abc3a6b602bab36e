/* input.c — plain, gzip and standard-input byte streams. */
#include "fusediff/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"

/* The fuzz build makes it tiny, so that gzip data arrives in small pieces. */
#ifndef RAW_SIZE
#define RAW_SIZE (1 << 20)
#endif

struct input {
	int fd;		     /* -1 for memory */
	const unsigned char *mem; /* memory source */
	size_t mem_len, mem_pos;
	unsigned char *raw; /* raw buffer for gzip */
	size_t raw_len, raw_pos;
	int gzip, raw_eof, stream_end, z_ready;
	z_stream z;
	int64_t raw_done, raw_size;
	/* bytes sniffed for the magic, to be returned first */
	unsigned char peek[2];
	size_t peek_len, peek_pos;
};

static ssize_t raw_read(struct input *in, void *buf, size_t cap, struct fd_error *err)
{
	ssize_t n;

	if (!in->mem && in->fd < 0)
		return 0;
	if (in->mem) {
		size_t left = in->mem_len - in->mem_pos;

		n = (ssize_t)(cap < left ? cap : left);
		memcpy(buf, in->mem + in->mem_pos, (size_t)n);
		in->mem_pos += (size_t)n;
	} else {
		do
			n = read(in->fd, buf, cap);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			fd_error_set(err, "read error: %s", strerror(errno));
			return -1;
		}
	}
	in->raw_done += n;
	return n;
}

/* Fill in->peek with up to two bytes to detect gzip. */
static int sniff(struct input *in, struct fd_error *err)
{
	while (in->peek_len < 2) {
		ssize_t n = raw_read(in, in->peek + in->peek_len, 2 - in->peek_len, err);

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		in->peek_len += (size_t)n;
	}
	in->gzip = in->peek_len == 2 && in->peek[0] == 0x1f && in->peek[1] == 0x8b;
	return 0;
}

static struct input *input_new(void)
{
	struct input *in = xcalloc(1, sizeof *in);

	in->fd = -1;
	in->raw_size = -1;
	return in;
}

int input_open(struct input **out, const char *path, struct fd_error *err)
{
	struct input *in = input_new();
	struct stat st;

	*out = NULL;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			fd_error_set(err, "%s", strerror(errno));
			free(in);
			return -1;
		}
	}
	if (fstat(in->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fd_error_set(err, "is a directory");
			input_close(in);
			return -1;
		}
		if (S_ISREG(st.st_mode))
			in->raw_size = st.st_size;
	}
#ifdef HAVE_POSIX_FADVISE
	if (in->raw_size >= 0)
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (sniff(in, err) < 0) {
		input_close(in);
		return -1;
	}
	*out = in;
	return 0;
}

struct input *input_open_mem(const void *data, size_t len)
{
	struct input *in = input_new();

	in->mem = data ? data : (const void *)"";
	in->mem_len = len;
	in->raw_size = (int64_t)len;
	sniff(in, NULL);
	return in;
}

void input_close(struct input *in)
{
	if (!in)
		return;
	if (in->z_ready)
		inflateEnd(&in->z);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	free(in->raw);
	free(in);
}

/* Next raw bytes, the sniffed ones first. */
static ssize_t raw_next(struct input *in, void *buf, size_t cap, struct fd_error *err)
{
	if (in->peek_pos < in->peek_len) {
		size_t n = in->peek_len - in->peek_pos;

		if (n > cap)
			n = cap;
		memcpy(buf, in->peek + in->peek_pos, n);
		in->peek_pos += n;
		return (ssize_t)n;
	}
	return raw_read(in, buf, cap, err);
}

static ssize_t gzip_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	if (!in->z_ready) {
		memset(&in->z, 0, sizeof in->z);
		if (inflateInit2(&in->z, 15 + 32) != Z_OK)
			die("zlib: inflateInit2 failed");
		in->z_ready = 1;
		in->raw = xmalloc(RAW_SIZE);
	}
	for (;;) {
		int rc;
		size_t produced;

		if (in->raw_pos == in->raw_len && !in->raw_eof) {
			ssize_t n = raw_next(in, in->raw, RAW_SIZE, err);

			if (n < 0)
				return -1;
			in->raw_len = (size_t)n;
			in->raw_pos = 0;
			if (n == 0)
				in->raw_eof = 1;
		}
		if (in->stream_end) {
			/* Another gzip member follows, or trailing bytes. */
			if (in->raw_pos == in->raw_len)
				return 0;
			if (in->raw[in->raw_pos] != 0x1f) {
				return 0; /* trailing garbage after the last member: ignore */
			}
			inflateReset(&in->z);
			in->stream_end = 0;
		}
		in->z.next_in = in->raw + in->raw_pos;
		in->z.avail_in = (uInt)(in->raw_len - in->raw_pos);
		in->z.next_out = (unsigned char *)buf;
		in->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
		rc = inflate(&in->z, Z_NO_FLUSH);
		in->raw_pos = in->raw_len - in->z.avail_in;
		produced = (size_t)((char *)in->z.next_out - buf);
		if (rc == Z_STREAM_END) {
			in->stream_end = 1;
			if (produced)
				return (ssize_t)produced;
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			fd_error_set(err, "corrupt gzip data near compressed byte %lld: %s",
				     (long long)(in->raw_done - (int64_t)in->z.avail_in),
				     in->z.msg ? in->z.msg : "inflate failed");
			return -1;
		}
		if (produced)
			return (ssize_t)produced;
		if (in->raw_eof && in->raw_pos == in->raw_len) {
			fd_error_set(err, "truncated gzip data: the compressed stream ends after %lld bytes",
				     (long long)in->raw_done);
			return -1;
		}
	}
}

ssize_t input_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	if (cap == 0)
		return 0;
	if (in->gzip)
		return gzip_read(in, buf, cap, err);
	return raw_next(in, buf, cap, err);
}

int input_is_gzip(const struct input *in)
{
	return in->gzip;
}

int64_t input_raw_done(const struct input *in)
{
	return in->raw_done;
}

int64_t input_raw_size(const struct input *in)
{
	return in->raw_size;
}
