/* input.c — plain, gzip and standard-input byte streams.
 *
 * Gzip data from a file or standard input is inflated on a second thread (the reader) into a
 * ring of blocks while the caller parses the blocks before them: decompression and parsing
 * overlap on two cores. input_read() copies out of the ring; the reader's errors reach the
 * caller after the data that came before them, exactly as the single-threaded path reports
 * them. Plain files and memory are read on the caller's thread (there is nothing to overlap:
 * reading a file from the page cache costs a copy). input_opts.serial (FUSEDIFF_SERIAL=1 in
 * the program's environment) inflates on the caller's thread too (for benchmarks).
 *
 * Built with ISA-L (Debian's libisal-dev), gzip data is inflated by isal_inflate(), three to
 * four times zlib's speed. Anything it does not take as a plain run of gzip members (corrupt or
 * truncated data, a member that is not gzip) is inflated again by zlib from the start of that
 * member, the bytes already handed out dropped: the data and every error message are zlib's, as
 * without ISA-L. A regular file or memory is read again from there; a pipe's member is kept as
 * it is read (spool.h: memory, then an unlinked temporary file in input_opts.tmpdir) for zlib
 * to read again. zlib inflates everything with input_opts.zlib (FUSEDIFF_INFLATE=zlib in the
 * program's environment: for benchmarks and tests). */
#include "fusediff/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"
#include "fusediff/bigmem.h"
#include "raw_hash.h"
#include "spool.h"

#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* The fuzz build makes it tiny, so that gzip data arrives in small pieces. */
#ifndef RAW_SIZE
#define RAW_SIZE (2 << 20) /* one huge page (big_alloc()) */
#endif
/* A gzip file smaller than this (or input_opts.thread_min) is inflated on the caller's thread,
 * its compressed bytes in a buffer of its size (raw_alloc()): a reader thread, its ring of
 * RING_BLOCKS * BLOCK_SIZE and RAW_SIZE on huge pages cost a small file more than they save
 * (three to four 2 MiB pages zeroed a side, ~5 ms of CPU on a VM where that is dear, for an
 * inflate of a few ms). */
#ifndef SMALL_GZIP
#define SMALL_GZIP (1 << 20)
#endif
/* Blocks of inflated data in the reader's ring. */
#ifndef BLOCK_SIZE
#define BLOCK_SIZE (1 << 20)
#endif
#define RING_BLOCKS 4
/* The gzip member ISA-L inflates from a pipe is kept to be inflated again by zlib (spool.h):
 * this much in memory, the rest in a temporary file. */
#ifndef SPOOL_MEM
#define SPOOL_MEM (8 << 20)
#endif

struct block {
	char *data;
	size_t len;
	int64_t raw_done; /* compressed bytes consumed when the block was complete */
	int last;	  /* 1: the stream ends after this block's data; -1: an error follows it */
};

/* The reader thread and its ring. The blocks ring[head .. head+count) are full and belong to
 * the consumer; the others belong to the reader. */
struct reader {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	struct block ring[RING_BLOCKS];
	size_t head, count, pos; /* pos: consumer's offset in ring[head] */
	int stop;		 /* input_close() wants the reader to finish */
	int wake[2];		 /* a pipe that wakes a reader waiting for a slow fd */
	struct fd_error err;	 /* the reader's error, when a block has last == -1 */
	int64_t raw_done;	 /* compressed bytes behind the data handed out so far */
};

struct input {
	int fd;			  /* -1 for memory */
	const unsigned char *mem; /* memory source */
	size_t mem_len, mem_pos;
	unsigned char *raw; /* raw buffer for gzip, raw_cap bytes (raw_alloc()) */
	size_t raw_cap, raw_len, raw_pos;
	int gzip, raw_eof, stream_end, z_ready;
	z_stream z;
	int64_t raw_done, raw_size; /* raw_done belongs to the reader thread when there is one */
	/* bytes sniffed for the magic, to be returned first */
	unsigned char peek[2];
	size_t peek_len, peek_pos;
	/* decompressed bytes read ahead by input_peek(), to be returned first */
	unsigned char head[INPUT_PEEK_MAX];
	size_t head_len, head_pos;
	int reading;	   /* input_read() was called: no more peeking */
	int bom_checked;   /* input_peek() looked for a UTF-8 byte order mark (and dropped it) */
	int threaded;	   /* use a reader thread (gzip from a file descriptor) */
	struct reader *rd; /* started by the first input_read() */
	int rd_failed;	   /* pthread_create failed: read on the caller's thread */
	char *path;	   /* the file's path when it is a regular file */
	struct raw_hash *hash; /* input_hash(): the raw bytes hashed as they are read; a part's
				  is its whole input's (borrowed) */
	int hash_slot;	       /* this input's reader slot in hash, or -1 */
	int raw_end;	       /* raw_read() saw the end of the file */
	int bom;	       /* input_peek() dropped a byte order mark: data = file + 3 */
	int part;	       /* input_open_part(): pread() from part_off on a borrowed fd */
	int64_t part_off;
	int seekable;	      /* a regular file or memory: raw bytes can be read again */
	int64_t raw_hi;	      /* raw bytes read so far (a replay reads some again): the
				      progress, and what is hashed */
	int64_t raw_base;     /* raw offset of raw[0] */
	int64_t member_start; /* raw offset of the gzip member being inflated */
	int64_t member_out;   /* its bytes handed out so far */
	int64_t replay_skip;  /* zlib's first bytes to drop: ISA-L handed them out */
	char *tmpdir;	      /* input_opts.tmpdir (a copy), or NULL */
#ifdef HAVE_ISAL
	int isal; /* inflate with ISA-L (until it meets what zlib must judge) */
	struct inflate_state *isal_st;
	struct spool *spool; /* a pipe: the raw bytes of ISA-L's member, for zlib to read again */
	int replaying;	     /* zlib reads them again: raw_next() takes them from the spool */
	int64_t replay_pos;  /* the raw offset of the next one */
#endif
};

/* Wait until fd is readable or input_close() asks the reader to stop. Returns 0 when fd is
 * readable, -1 when stopped. */
static int wait_readable(struct input *in)
{
	struct pollfd p[2] = { { in->fd, POLLIN, 0 }, { in->rd->wake[0], POLLIN, 0 } };

	for (;;) {
		int n = poll(p, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[1].revents)
			return n < 0 ? 0 : -1; /* poll failing: let read() report it */
		if (p[0].revents)
			return 0;
	}
}

static ssize_t raw_read(struct input *in, void *buf, size_t cap, struct fd_error *err)
{
	/* the file offset of the bytes read (a whole input's reads start at 0) */
	int64_t off = !in->part ? in->raw_done : in->mem ? (int64_t)in->mem_pos : in->part_off;
	ssize_t n;

	if (!in->mem && in->fd < 0)
		return 0;
	if (in->mem) {
		size_t left = in->mem_len - in->mem_pos;

		n = (ssize_t)(cap < left ? cap : left);
		memcpy(buf, in->mem + in->mem_pos, (size_t)n);
		in->mem_pos += (size_t)n;
	} else {
		if (in->rd && in->rd->wake[0] >= 0 && wait_readable(in) < 0) {
			fd_error_set(err, "loading cancelled");
			return -1;
		}
		do
			n = in->part ? pread(in->fd, buf, cap, (off_t)in->part_off)
				     : read(in->fd, buf, cap);
		while (n < 0 && errno == EINTR);
		if (in->part && n > 0)
			in->part_off += n;
		if (n < 0) {
			fd_error_set(err, "read error: %s", strerror(errno));
			return -1;
		}
	}
	if (in->hash) /* (not the bytes a replay reads again: they are hashed already) */
		raw_hash_feed(in->hash, in->hash_slot, off, buf, (size_t)n);
	if (in->raw_done + n > in->raw_hi)
		in->raw_hi = in->raw_done + n;
	in->raw_done += n;
	if (n == 0)
		in->raw_end = 1;
	return n;
}

void input_hash(struct input *in)
{
	if (!in->hash && !in->part) {
		in->hash = raw_hash_new(in->fd, in->mem, in->mem_len);
		in->hash_slot = raw_hash_track(in->hash);
		/* input_open() read the two bytes that tell gzip: hash them first */
		if (in->raw_done == (int64_t)in->peek_len)
			raw_hash_feed(in->hash, in->hash_slot, 0, in->peek, in->peek_len);
		else
			raw_hash_lose(in->hash);
	}
}

void input_hash_track(struct input *part)
{
	if (part->hash && part->part && part->hash_slot < 0)
		part->hash_slot = raw_hash_track(part->hash);
}

void input_hash_untrack(struct input *in)
{
	if (in->hash) {
		raw_hash_untrack(in->hash, in->hash_slot);
		in->hash_slot = -1;
	}
}

int input_hash_work(struct input *in, int64_t upto)
{
	return in->hash ? raw_hash_work(in->hash, upto) : 0;
}

int input_sha256(struct input *in, char hex[65])
{
	struct fd_error err;

	hex[0] = '\0';
	if (!in->hash || in->part || (in->rd && !in->raw_end))
		return -1; /* not asked for, or the reader thread has not reached the end */
	if (in->rd)	   /* it read every byte in order: they are all hashed */
		return raw_hash_hex(in->hash, -1, hex);
	{ /* what the format did not read (SQLite opens the file itself) */
		char buf[65536];
		ssize_t n;

		while ((n = raw_read(in, buf, sizeof buf, &err)) > 0)
			;
		if (n < 0)
			return -1;
	}
	/* what other threads read ahead of the hash and nobody hashed since (a split file) */
	while (raw_hash_work(in->hash, in->raw_done))
		;
	return raw_hash_hex(in->hash, in->raw_done, hex);
}

/* Copy into buf (cap > 0) what is left of bytes read ahead, from[*pos, len): what a read
 * returns first (the sniffed magic, the peeked head). */
static ssize_t take_ahead(char *buf, size_t cap, const unsigned char *from, size_t len, size_t *pos)
{
	size_t n = len - *pos;

	if (n > cap)
		n = cap;
	memcpy(buf, from + *pos, n);
	*pos += n;
	return (ssize_t)n;
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

/* ISA-L for gzip data, unless o asks for zlib. */
static void choose_inflate(struct input *in, const struct input_opts *o)
{
#ifdef HAVE_ISAL
	in->isal = in->gzip && !(o && o->zlib);
#else
	(void)in;
	(void)o;
#endif
}

static struct input *input_new(const struct input_opts *o)
{
	struct input *in = xcalloc(1, sizeof *in);

	in->fd = -1;
	in->raw_size = -1;
	in->hash_slot = -1;
	if (o && o->tmpdir && *o->tmpdir)
		in->tmpdir = xstrdup(o->tmpdir);
	return in;
}

/* input_open(), or input_open_regular() when regular_only. */
static int open_path(struct input **out, const char *path, int regular_only,
		     const struct input_opts *o, struct fd_error *err)
{
	struct input *in = input_new(o);
	struct stat st;

	*out = NULL;
	if (strcmp(path, "-") == 0 && !regular_only) {
		in->fd = STDIN_FILENO;
	} else {
		/* O_NONBLOCK: opening a FIFO does not wait for a writer (cleared below) */
		in->fd = open(path, O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0));
		if (in->fd < 0) {
			fd_error_set(err, "%s", strerror(errno));
			free(in->tmpdir);
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
		if (regular_only && !S_ISREG(st.st_mode)) {
			fd_error_set(err, "not a regular file");
			input_close(in);
			return -1;
		}
		if (regular_only)
			fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
		if (S_ISREG(st.st_mode)) {
			in->raw_size = st.st_size;
			in->seekable = 1;
			if (strcmp(path, "-") != 0)
				in->path = xstrdup(path);
		}
	}
#ifdef HAVE_POSIX_FADVISE
	if (in->raw_size >= 0)
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (sniff(in, err) < 0) {
		input_close(in);
		return -1;
	}
	in->threaded = in->gzip && !(o && o->serial) &&
		       !(in->seekable &&
			 in->raw_size < (o && o->thread_min > 0 ? o->thread_min : SMALL_GZIP));
	choose_inflate(in, o);
	*out = in;
	return 0;
}

int input_open(struct input **out, const char *path, const struct input_opts *o,
	       struct fd_error *err)
{
	return open_path(out, path, 0, o, err);
}

int input_open_regular(struct input **out, const char *path, const struct input_opts *o,
		       struct fd_error *err)
{
	return open_path(out, path, 1, o, err);
}

int input_stat(const struct input *in, struct stat *st)
{
	return in->fd >= 0 && !in->part ? fstat(in->fd, st) : -1;
}

struct input *input_open_mem(const void *data, size_t len, const struct input_opts *o)
{
	struct input *in = input_new(o);

	in->mem = data ? data : (const void *)"";
	in->mem_len = len;
	in->raw_size = (int64_t)len;
	in->seekable = 1;
	sniff(in, NULL);
	choose_inflate(in, o);
	return in;
}

static void reader_stop(struct input *in);

void input_close(struct input *in)
{
	if (!in)
		return;
	if (in->rd)
		reader_stop(in);
	if (in->z_ready)
		inflateEnd(&in->z);
#ifdef HAVE_ISAL
	free(in->isal_st);
	spool_free(in->spool);
#endif
	if (in->fd > STDIN_FILENO && !in->part)
		close(in->fd);
	free(in->raw);
	free(in->path);
	free(in->tmpdir);
	if (in->part)
		input_hash_untrack(in);
	else
		raw_hash_free(in->hash);
	free(in);
}

const char *input_file(const struct input *in)
{
	return in->path && !in->gzip ? in->path : NULL;
}

/* Next raw bytes, the sniffed ones first (or, for zlib after ISA-L on a pipe, the spooled). */
static ssize_t raw_next(struct input *in, void *buf, size_t cap, struct fd_error *err)
{
#ifdef HAVE_ISAL
	if (in->replaying) {
		long n = spool_read(in->spool, in->replay_pos, buf, cap);

		if (n < 0) {
			fd_error_set(err, "read error: %s", strerror(errno));
			return -1;
		}
		if (n > 0) {
			in->replay_pos += n;
			return (ssize_t)n;
		}
		in->replaying = 0; /* on from the pipe */
		spool_free(in->spool);
		in->spool = NULL;
	}
#endif
	if (in->peek_pos < in->peek_len)
		return take_ahead(buf, cap, in->peek, in->peek_len, &in->peek_pos);
	return raw_read(in, buf, cap, err);
}

/* The raw offset of the next byte raw_next() returns. */
static int64_t raw_next_pos(const struct input *in)
{
#ifdef HAVE_ISAL
	if (in->replaying)
		return in->replay_pos;
#endif
	return in->peek_pos < in->peek_len ? (int64_t)in->peek_pos : in->raw_done;
}

/* Refill in->raw when it is used up; -1 on a read error. */
static int raw_fill(struct input *in, struct fd_error *err)
{
	ssize_t n;

	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	in->raw_base = raw_next_pos(in);
	n = raw_next(in, in->raw, in->raw_cap, err);
	if (n < 0)
		return -1;
	in->raw_len = (size_t)n;
	in->raw_pos = 0;
	if (n == 0)
		in->raw_eof = 1;
#ifdef HAVE_ISAL
	if (in->spool && in->isal)
		spool_add(in->spool, in->raw_base, in->raw, (size_t)n);
#endif
	return 0;
}

static ssize_t zlib_read(struct input *in, char *buf, size_t cap, struct fd_error *err);

/* The buffer of compressed bytes: RAW_SIZE, or a small file's size (64 KiB at least). Its size
 * only sets how much one read() asks for. */
static void raw_alloc(struct input *in)
{
	in->raw_cap = RAW_SIZE;
	if (in->raw_size >= 0 && in->raw_size < (int64_t)in->raw_cap)
		in->raw_cap = in->raw_size < (64 << 10) ? (64 << 10) : (size_t)in->raw_size;
	if (in->raw_cap > RAW_SIZE) /* a fuzz build's RAW_SIZE is below 64 KiB */
		in->raw_cap = RAW_SIZE;
	in->raw = big_alloc(1, in->raw_cap);
}

#ifdef HAVE_ISAL
/* Hand the member that ISA-L stopped in to zlib: read it again from its start (a regular file
 * or memory; a pipe's from the spool), dropping the bytes already handed out. */
static ssize_t isal_give_up(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	int64_t pos = in->member_start;
	int64_t to = pos > (int64_t)in->peek_len ? pos : (int64_t)in->peek_len;

	in->isal = 0;
	if (in->spool) { /* the sniffed bytes too are in the spool */
		in->replaying = 1;
		in->replay_pos = pos;
		in->peek_pos = in->peek_len;
		in->raw_pos = in->raw_len = 0;
		in->raw_eof = in->raw_end = 0;
		in->stream_end = 0;
		in->replay_skip = in->member_out;
		return zlib_read(in, buf, cap, err);
	}
	if (in->mem) {
		in->mem_pos = (size_t)to;
	} else if (lseek(in->fd, (off_t)(to - in->raw_done), SEEK_CUR) < 0) {
		fd_error_set(err, "read error: %s", strerror(errno));
		return -1;
	}
	in->raw_done = to;
	in->peek_pos = pos < (int64_t)in->peek_len ? (size_t)pos : in->peek_len;
	in->raw_pos = in->raw_len = 0;
	in->raw_eof = in->raw_end = 0;
	in->stream_end = 0;
	in->replay_skip = in->member_out;
	return zlib_read(in, buf, cap, err);
}

/* ISA-L picks the code for this CPU in each of its functions' first call, writing a pointer
 * that every thread reads: the first input to inflate does that under a lock, inflating a few
 * members zlib writes (a dynamic, a fixed and a stored block), before any thread inflates
 * concurrently. */
static void isal_warm_up(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static int done;
	static const int levels[] = { 9, 9, 0 },
			 strategies[] = { Z_DEFAULT_STRATEGY, Z_FIXED, Z_DEFAULT_STRATEGY };

	pthread_mutex_lock(&mu);
	for (size_t m = 0; !done && m < sizeof levels / sizeof levels[0]; m++) {
		unsigned char text[1024], gz[2048], out[1024];
		struct inflate_state st;
		z_stream z;

		for (size_t i = 0; i < sizeof text; i++)
			text[i] =
				(unsigned char)(i % 7 == 0 ? i : "{\"ts\": 1, \"dur\": 2}"[i % 19]);
		memset(&z, 0, sizeof z);
		if (deflateInit2(&z, levels[m], Z_DEFLATED, 15 + 16, 8, strategies[m]) != Z_OK)
			die("zlib: deflateInit2 failed");
		z.next_in = text;
		z.avail_in = sizeof text;
		z.next_out = gz;
		z.avail_out = sizeof gz;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			die("zlib: deflate failed");
		isal_inflate_init(&st);
		st.crc_flag = ISAL_GZIP;
		st.next_in = gz;
		st.avail_in = (uint32_t)z.total_out;
		st.next_out = out;
		st.avail_out = sizeof out;
		isal_inflate(&st);
		deflateEnd(&z);
	}
	done = 1;
	pthread_mutex_unlock(&mu);
}

static ssize_t isal_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	struct inflate_state *st = in->isal_st;

	if (!st) {
		isal_warm_up();
		st = in->isal_st = xmalloc(sizeof *st);
		isal_inflate_init(st);
		st->crc_flag = ISAL_GZIP;
		if (!in->raw)
			raw_alloc(in);
		in->member_start = raw_next_pos(in);
		if (!in->seekable)
			in->spool = spool_new(SPOOL_MEM, in->tmpdir);
	}
	for (;;) {
		int rc;
		size_t produced;

		if (raw_fill(in, err) < 0)
			return -1;
		if (in->stream_end) {
			/* Another gzip member follows, or trailing bytes. */
			if (in->raw_pos == in->raw_len || in->raw[in->raw_pos] != 0x1f)
				return 0; /* the end, or trailing garbage after the last member: ignore */
			in->member_start = in->raw_base + (int64_t)in->raw_pos;
			in->member_out = 0;
			if (in->spool) /* the members before are not inflated again */
				spool_keep_from(in->spool, in->member_start);
			if (in->raw_pos + 1 == in->raw_len ||
			    (unsigned char)in->raw[in->raw_pos + 1] != 0x8b)
				return isal_give_up(in, buf, cap, err); /* zlib's to judge */
			isal_inflate_reset(st);
			st->crc_flag = ISAL_GZIP;
			in->stream_end = 0;
		}
		st->next_in = in->raw + in->raw_pos;
		st->avail_in = (uint32_t)(in->raw_len - in->raw_pos);
		st->next_out = (uint8_t *)buf;
		st->avail_out = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
		rc = isal_inflate(st);
		in->raw_pos = in->raw_len - st->avail_in;
		produced = (size_t)((char *)st->next_out - buf);
		if (rc < 0)
			return isal_give_up(in, buf, cap, err);
		in->member_out += (int64_t)produced;
		if (st->block_state == ISAL_BLOCK_FINISH)
			in->stream_end = 1;
		if (produced)
			return (ssize_t)produced;
		if (!in->stream_end && in->raw_eof && in->raw_pos == in->raw_len)
			return isal_give_up(in, buf, cap, err); /* truncated: zlib says where */
	}
}
#endif

static ssize_t gzip_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
#ifdef HAVE_ISAL
	if (in->isal)
		return isal_read(in, buf, cap, err);
#endif
	return zlib_read(in, buf, cap, err);
}

static ssize_t zlib_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	if (!in->z_ready) {
		memset(&in->z, 0, sizeof in->z);
		if (inflateInit2(&in->z, 15 + 32) != Z_OK)
			die("zlib: inflateInit2 failed");
		in->z_ready = 1;
		if (!in->raw)
			raw_alloc(in);
	}
	for (;;) {
		int rc;
		size_t produced, made;

		if (raw_fill(in, err) < 0)
			return -1;
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
		made = produced = (size_t)((char *)in->z.next_out - buf);
		if (in->replay_skip && produced && (rc == Z_OK || rc == Z_STREAM_END)) {
			size_t drop = in->replay_skip < (int64_t)produced ? (size_t)in->replay_skip
									  : produced;

			memmove(buf, buf + drop, produced - drop);
			produced -= drop;
			in->replay_skip -= (int64_t)drop;
		}
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
		if (!made && in->raw_eof && in->raw_pos == in->raw_len) {
			fd_error_set(
				err,
				"truncated gzip data: the compressed stream ends after %lld bytes",
				(long long)in->raw_done);
			return -1;
		}
	}
}

/* ---- the reader thread ------------------------------------------------------------------ */

static void *reader_main(void *arg)
{
	struct input *in = arg;
	struct reader *rd = in->rd;
	struct fd_error err;

	for (;;) {
		struct block *b;
		ssize_t n;
		int stop;

		pthread_mutex_lock(&rd->mu);
		while (rd->count == RING_BLOCKS && !rd->stop)
			pthread_cond_wait(&rd->emptied, &rd->mu);
		stop = rd->stop;
		b = &rd->ring[(rd->head + rd->count) % RING_BLOCKS];
		pthread_mutex_unlock(&rd->mu);
		if (stop)
			break;
		/* The slot is ours until it is published below. A block holds what one call
		 * inflated: on a slow pipe the consumer gets data as soon as it arrives. */
		n = gzip_read(in, b->data, BLOCK_SIZE, &err);
		b->len = n > 0 ? (size_t)n : 0;
		b->last = n < 0 ? -1 : n == 0;
		b->raw_done = in->raw_hi;
		pthread_mutex_lock(&rd->mu);
		if (b->last < 0)
			rd->err = err;
		rd->count++;
		pthread_cond_signal(&rd->filled);
		pthread_mutex_unlock(&rd->mu);
		if (b->last)
			break;
	}
	return NULL;
}

/* Start the reader; 0, or -1 when no thread can be made (the caller then reads itself). */
static int reader_start(struct input *in)
{
	struct reader *rd = xcalloc(1, sizeof *rd);

	rd->wake[0] = rd->wake[1] = -1;
	if (pipe(rd->wake) < 0) {
		free(rd);
		return -1;
	}
	/* one block of memory on huge pages: 2 faults instead of 1,024 (bigmem.h) */
	rd->ring[0].data = big_alloc(RING_BLOCKS, BLOCK_SIZE);
	for (size_t i = 1; i < RING_BLOCKS; i++)
		rd->ring[i].data = rd->ring[0].data + i * BLOCK_SIZE;
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->filled, NULL);
	pthread_cond_init(&rd->emptied, NULL);
	rd->raw_done = in->raw_hi;
	in->rd = rd;
	if (thread_start(&rd->thread, reader_main, in) != 0) {
		in->rd = NULL;
		free(rd->ring[0].data);
		pthread_mutex_destroy(&rd->mu);
		pthread_cond_destroy(&rd->filled);
		pthread_cond_destroy(&rd->emptied);
		close(rd->wake[0]);
		close(rd->wake[1]);
		free(rd);
		return -1;
	}
	return 0;
}

static void reader_stop(struct input *in)
{
	struct reader *rd = in->rd;
	ssize_t n;

	pthread_mutex_lock(&rd->mu);
	rd->stop = 1;
	pthread_cond_signal(&rd->emptied);
	pthread_mutex_unlock(&rd->mu);
	do
		n = write(rd->wake[1], "", 1);
	while (n < 0 && errno == EINTR);
	pthread_join(rd->thread, NULL);
	free(rd->ring[0].data);
	pthread_mutex_destroy(&rd->mu);
	pthread_cond_destroy(&rd->filled);
	pthread_cond_destroy(&rd->emptied);
	close(rd->wake[0]);
	close(rd->wake[1]);
	free(rd);
	in->rd = NULL;
}

/* Copy out of the ring: waits only while nothing at all has been copied. */
static ssize_t reader_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	struct reader *rd = in->rd;
	size_t got = 0;

	pthread_mutex_lock(&rd->mu);
	while (got < cap) {
		struct block *b;
		size_t n;

		while (rd->count == 0 && got == 0)
			pthread_cond_wait(&rd->filled, &rd->mu);
		if (rd->count == 0)
			break;
		b = &rd->ring[rd->head];
		pthread_mutex_unlock(&rd->mu);
		/* ring[head] is the consumer's while count > 0: copy without the lock. */
		n = b->len - rd->pos;
		if (n > cap - got)
			n = cap - got;
		memcpy(buf + got, b->data + rd->pos, n);
		got += n;
		rd->pos += n;
		rd->raw_done = b->raw_done;
		pthread_mutex_lock(&rd->mu);
		if (rd->pos < b->len)
			break; /* buf is full */
		if (b->last) {
			/* The end, or an error: returned once the data before it is out. */
			pthread_mutex_unlock(&rd->mu);
			if (got)
				return (ssize_t)got;
			if (b->last < 0) {
				if (err)
					*err = rd->err;
				return -1;
			}
			return 0;
		}
		rd->head = (rd->head + 1) % RING_BLOCKS;
		rd->count--;
		rd->pos = 0;
		pthread_cond_signal(&rd->emptied);
	}
	pthread_mutex_unlock(&rd->mu);
	return (ssize_t)got;
}

/* The next decompressed bytes, read ahead bytes aside. */
static ssize_t data_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	if (in->threaded && !in->rd && !in->rd_failed && reader_start(in) < 0)
		in->rd_failed = 1;
	if (in->rd)
		return reader_read(in, buf, cap, err);
	if (in->gzip)
		return gzip_read(in, buf, cap, err);
	return raw_next(in, buf, cap, err);
}

ssize_t input_read(struct input *in, char *buf, size_t cap, struct fd_error *err)
{
	if (cap == 0)
		return 0;
	in->reading = 1;
	if (in->head_pos < in->head_len)
		return take_ahead(buf, cap, in->head, in->head_len, &in->head_pos);
	return data_read(in, buf, cap, err);
}

ssize_t input_peek(struct input *in, const unsigned char **head, size_t want, struct fd_error *err)
{
	if (want > INPUT_PEEK_MAX)
		want = INPUT_PEEK_MAX;
	if (in->reading)
		die("input_peek() after input_read()");
	for (;;) {
		while (in->head_len < want) {
			ssize_t n = data_read(in, (char *)in->head + in->head_len,
					      want - in->head_len, err);

			if (n < 0)
				return -1;
			if (n == 0)
				break;
			in->head_len += (size_t)n;
		}
		if (in->bom_checked || in->head_len < 3)
			break;
		in->bom_checked = 1; /* a UTF-8 byte order mark (Windows tools write one) */
		if (memcmp(in->head, "\xef\xbb\xbf", 3) != 0)
			break;
		memmove(in->head, in->head + 3, in->head_len - 3);
		in->head_len -= 3;
		in->bom = 1;
	}
	*head = in->head;
	return (ssize_t)in->head_len;
}

int input_is_gzip(const struct input *in)
{
	return in->gzip;
}

int64_t input_raw_done(const struct input *in)
{
	return in->rd ? in->rd->raw_done : in->raw_hi;
}

int64_t input_raw_size(const struct input *in)
{
	return in->raw_size;
}

int64_t input_split_size(const struct input *in)
{
	/* a file opened by path (standard input may start at any offset of its file) */
	if ((!in->mem && (in->fd < 0 || !in->path)) || in->gzip || in->part || in->bom ||
	    in->raw_size < 0)
		return -1;
	return in->raw_size;
}

struct input *input_open_part(const struct input *in, int64_t off)
{
	struct input *p = input_new(NULL);

	p->part = 1;
	p->raw_size = in->raw_size;
	p->hash = in->hash; /* hashes what it reads where the hash stands (raw_hash.h) */
	if (in->mem) {	    /* memory (the fuzzer, tests): the same bytes from off */
		p->mem = in->mem;
		p->mem_len = in->mem_len;
		p->mem_pos = off < 0 ? 0 : (size_t)off < in->mem_len ? (size_t)off : in->mem_len;
	} else {
		p->fd = in->fd;
		p->part_off = off;
	}
	return p;
}

int input_skip(struct input *in, int64_t n, struct fd_error *err)
{
	char buf[65536];

	/* a plain file whose bytes nobody hashes (or that are hashed already): seek; anything
	 * else reads the bytes */
	if (!in->gzip && !in->mem && !in->part && in->fd >= 0 &&
	    (!in->hash || raw_hash_at(in->hash) >= in->raw_done + n) &&
	    in->head_pos == in->head_len && in->peek_pos == in->peek_len &&
	    lseek(in->fd, (off_t)n, SEEK_CUR) >= 0) {
		in->raw_done += n;
		in->raw_hi = in->raw_done;
		return 0;
	}
	while (n > 0) {
		ssize_t got =
			input_read(in, buf, n < (int64_t)sizeof buf ? (size_t)n : sizeof buf, err);

		if (got < 0)
			return -1;
		if (got == 0) {
			fd_error_set(err, "the file is shorter than it was");
			return -1;
		}
		n -= got;
	}
	return 0;
}
