/* check_input.c — byte streams: the gzip reader thread against the single-threaded path, on
 * files, standard input, truncated data, files smaller than one block, and early close; ISA-L's
 * inflate against zlib's on damaged and concatenated members. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <sys/wait.h>

#include "fusediff/input.h"
#include "src/input/spool.h"

/* The whole file, raw. Owned by caller: free(). */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	*len = 0;
	for (;;) {
		if (cap - *len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	fclose(f);
	return buf;
}

struct result {
	char *data;
	size_t len;
	ssize_t rc;		/* the last input_read() result: 0 at the end, -1 on error */
	char msg[FD_ERROR_MAX]; /* the error, when rc is -1 */
};

/* Read everything from in with read sizes cycling through odd values; closes in. */
static struct result drain(struct input *in)
{
	static const size_t caps[] = { 1, 4096, 1 << 20, 7, 300000, 65536, 3 << 20, 13 };
	struct result r = { 0 };
	size_t cap = 0;
	struct fd_error err = { { 0 } };
	int64_t last_done = 0;

	for (size_t i = 0;; i++) {
		size_t want = caps[i % (sizeof caps / sizeof caps[0])];

		if (cap - r.len < want) {
			cap = (r.len + want) * 2;
			r.data = realloc(r.data, cap);
			ck_assert_ptr_nonnull(r.data);
		}
		r.rc = input_read(in, r.data + r.len, want, &err);
		ck_assert_int_le(r.rc, (ssize_t)want);
		/* progress never goes back */
		ck_assert_int_ge(input_raw_done(in), last_done);
		last_done = input_raw_done(in);
		if (r.rc <= 0)
			break;
		r.len += (size_t)r.rc;
	}
	if (r.rc < 0)
		snprintf(r.msg, sizeof r.msg, "%s", err.msg);
	/* the end and errors are sticky */
	ck_assert_int_eq(input_read(in, r.data, 1, &err), r.rc);
	input_close(in);
	return r;
}

/* How the tests' inputs are read (input_opts): the defaults but where a test says, and every
 * gzip file on the reader thread, the small ones too (FUSEDIFF_GZIP_THREAD_MIN=1). */
static struct input_opts io = { .thread_min = 1 };

static struct input *open_file(const char *path)
{
	struct input *in = NULL;
	struct fd_error err = { { 0 } };

	if (input_open(&in, path, &io, &err) < 0)
		ck_abort_msg("%s: %s", path, err.msg);
	return in;
}

/* Two reads of the same stream end the same way. With an error, how much of the data before
 * it arrives depends on the read sizes (inflate's last output before the error is dropped), so
 * one is a prefix of the other; otherwise they are equal. */
static void check_same_result(const struct result *a, const struct result *b)
{
	ck_assert_int_eq(a->rc, b->rc);
	ck_assert_str_eq(a->msg, b->msg);
	if (a->rc == 0)
		ck_assert_uint_eq(a->len, b->len);
	ck_assert_int_eq(memcmp(a->data, b->data, a->len < b->len ? a->len : b->len), 0);
}

/* The same file through the reader thread (input_open) and on the caller's thread
 * (input_open_mem). */
static void check_same(const char *path)
{
	size_t raw_len;
	unsigned char *raw = slurp(path, &raw_len);
	struct input *in = open_file(path);
	struct result a, b;

	ck_assert_int_eq(input_is_gzip(in), 1);
	a = drain(in);
	b = drain(input_open_mem(raw, raw_len, &io));
	check_same_result(&a, &b);
	free(a.data);
	free(b.data);
	free(raw);
}

START_TEST(test_gzip_many_blocks)
{
	/* 8.9 MB of JSON (the eager example cut to 4 decode passes): many blocks of the ring
	 * (4 of 1 MiB), which fills up and waits for the reader */
	check_same(test_trace("llama8l_eager_sdpa_4decode.json.gz"));
}
END_TEST

START_TEST(test_gzip_smaller_than_a_block)
{
	/* 554 KB of JSON, less than one 1 MiB block */
	check_same(test_trace("llama8l_compiled_sdpa.json.gz"));
}
END_TEST

START_TEST(test_gzip_truncated)
{
	const char *path = test_path("tests/data/bad/truncated.json.gz");
	struct result r = drain(open_file(path));

	ck_assert_int_eq(r.rc, -1);
	ck_assert_str_eq(r.msg,
			 "truncated gzip data: the compressed stream ends after 16722 bytes");
	ck_assert_uint_gt(r.len, 0); /* what came before the damage is delivered first */
	free(r.data);
	check_same(path);
}
END_TEST

START_TEST(test_gzip_corrupt)
{
	/* A gzip stream with a damaged deflate block in the middle. */
	size_t len;
	unsigned char *raw = slurp(test_trace("llama8l_compiled_sdpa.json.gz"), &len);
	char path[] = "/tmp/fusediff-check-input-XXXXXX";
	int fd = mkstemp(path);
	struct result a, b;

	ck_assert_int_ge(fd, 0);
	memset(raw + len / 2, 0xff, 64);
	ck_assert_int_eq(write(fd, raw, len), (ssize_t)len);
	close(fd);
	a = drain(open_file(path));
	b = drain(input_open_mem(raw, len, &io));
	unlink(path);
	ck_assert_int_eq(a.rc, -1);
	ck_assert_ptr_nonnull(strstr(a.msg, "corrupt gzip data near compressed byte "));
	check_same_result(&a, &b);
	free(a.data);
	free(b.data);
	free(raw);
}
END_TEST

static int swap_stdin(int fd);
static void restore_stdin(int saved);

/* The writer of drain_pipe()'s pipe: a thread, where a process forked per pipe cost a copy of
 * every huge page of the suite's heap that either side wrote afterwards. SIGPIPE is blocked on
 * it: when the reader stops early, write() fails with EPIPE and the thread ends (the signal,
 * pending on the thread, goes with it). */
struct pipe_writer {
	int fd;
	const unsigned char *raw;
	size_t len;
};

static void *pipe_writer_main(void *arg)
{
	struct pipe_writer *w = arg;
	sigset_t pipe_set;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	for (size_t off = 0; off < w->len;) {
		ssize_t n = write(w->fd, w->raw + off, w->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(w->fd);
	return NULL;
}

/* raw read from standard input, a pipe that another thread writes. */
static struct result drain_pipe(const unsigned char *raw, size_t len)
{
	int p[2], saved;
	pthread_t th;
	struct pipe_writer w;
	struct result r;

	ck_assert_int_eq(pipe(p), 0);
	w = (struct pipe_writer){ p[1], raw, len };
	ck_assert_int_eq(pthread_create(&th, NULL, pipe_writer_main, &w), 0);
	saved = swap_stdin(p[0]);
	r = drain(open_file("-"));
	restore_stdin(saved); /* the pipe's last reader closed: the writer ends */
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	return r;
}

/* raw written to a temporary file, read with ISA-L (when built with it) and with zlib
 * (input_opts.zlib), from the file, from memory and from a pipe (ISA-L's member kept
 * for zlib in a spool): all six end alike. Returns the result of the first; free its data. */
static struct result inflate_both(const unsigned char *raw, size_t len)
{
	char path[] = "/tmp/fusediff-check-input-XXXXXX";
	int fd = mkstemp(path);
	struct result a, b, c, d, e, f;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, raw, len), (ssize_t)len);
	close(fd);
	a = drain(open_file(path));
	b = drain(input_open_mem(raw, len, &io));
	e = drain_pipe(raw, len);
	io.zlib = 1;
	c = drain(open_file(path));
	d = drain(input_open_mem(raw, len, &io));
	f = drain_pipe(raw, len);
	io.zlib = 0;
	unlink(path);
	check_same_result(&a, &c);
	check_same_result(&b, &d);
	check_same_result(&a, &b);
	check_same_result(&e, &f);
	check_same_result(&a, &e);
	free(b.data);
	free(c.data);
	free(d.data);
	free(e.data);
	free(f.data);
	return a;
}

START_TEST(test_inflate_damage)
{
	/* Damage that zlib judges: ISA-L hands the member to zlib, which says the same. */
	size_t len;
	unsigned char *raw = slurp(test_trace("llama8l_compiled_sdpa.json.gz"), &len);
	unsigned char *buf = malloc(2 * len + 4);
	struct result r;

	ck_assert_ptr_nonnull(buf);
	/* intact */
	r = inflate_both(raw, len);
	ck_assert_int_eq(r.rc, 0);
	free(r.data);
	/* CRC-32 and length of the trailer, a byte of each */
	for (size_t at = len - 8; at < len; at += 4) {
		memcpy(buf, raw, len);
		buf[at] ^= 1;
		r = inflate_both(buf, len);
		ck_assert_int_eq(r.rc, -1);
		ck_assert_ptr_nonnull(strstr(r.msg, "corrupt gzip data near compressed byte "));
		free(r.data);
	}
	/* deflate data damaged at a few places (past the header and its file name), and cut
	 * short */
	for (size_t at = 64; at < len - 8; at += len / 7) {
		memcpy(buf, raw, len);
		memset(buf + at, 0xa5, 16);
		r = inflate_both(buf, len);
		ck_assert_int_eq(r.rc, -1);
		free(r.data);
		r = inflate_both(raw, at);
		ck_assert_int_eq(r.rc, -1);
		ck_assert_ptr_nonnull(strstr(r.msg, "truncated gzip data"));
		free(r.data);
	}
	/* two members, then trailing bytes: garbage (ignored), a 0x1f that starts no gzip
	 * member (zlib's error), a member cut in its header */
	memcpy(buf, raw, len);
	memcpy(buf + len, raw, len);
	r = inflate_both(buf, 2 * len);
	ck_assert_int_eq(r.rc, 0);
	free(r.data);
	memcpy(buf + 2 * len, "\n\0\0", 3);
	r = inflate_both(buf, 2 * len + 3);
	ck_assert_int_eq(r.rc, 0);
	free(r.data);
	memcpy(buf + 2 * len, "\x1f\x00\x00", 3);
	r = inflate_both(buf, 2 * len + 3);
	ck_assert_int_eq(r.rc, -1);
	free(r.data);
	r = inflate_both(buf, len + 5);
	ck_assert_int_eq(r.rc, -1);
	free(r.data);
	r = inflate_both(buf, len + 1);
	ck_assert_int_eq(r.rc, -1);
	free(r.data);
	free(buf);
	free(raw);
}
END_TEST

/* The spool keeps the bytes it is given, from where it is told to keep them, in memory and past
 * its memory limit in a temporary file; read back in pieces, they are the stream's. */
START_TEST(test_spool)
{
	unsigned char stream[5000], got[5000];
	struct spool *sp = spool_new(100, NULL); /* a temporary file after 100 bytes */
	int64_t off = 0;

	for (size_t i = 0; i < sizeof stream; i++)
		stream[i] = (unsigned char)(i * 131 + i / 7);
	ck_assert_int_eq(spool_read(sp, 0, got, 10), 0);
	/* a few members: each kept from its start, the ones before dropped */
	for (int m = 0; m < 4; m++) {
		int64_t start = off;

		for (size_t piece = 1; off < (m + 1) * 1200; piece = piece * 3 + 1) {
			size_t n = piece < (size_t)((m + 1) * 1200 - off)
					   ? piece
					   : (size_t)((m + 1) * 1200 - off);

			spool_add(sp, off, stream + off, n);
			off += (int64_t)n;
		}
		ck_assert_int_eq(spool_start(sp), start);
		ck_assert_int_eq(spool_end(sp), off);
		for (int64_t at = start; at < off;) {
			long n = spool_read(sp, at, got, 77);

			ck_assert_int_gt(n, 0);
			ck_assert_int_eq(memcmp(got, stream + at, (size_t)n), 0);
			at += n;
		}
		ck_assert_int_eq(spool_read(sp, off, got, 10), 0);
		spool_keep_from(sp, off - (m == 1 ? 500 : 0)); /* the next member's start */
		if (m == 1) {
			ck_assert_int_eq(spool_read(sp, off - 500, got, 500), 500);
			ck_assert_int_eq(memcmp(got, stream + off - 500, 500), 0);
			spool_keep_from(sp, off);
		}
	}
	spool_free(sp);
}
END_TEST

/* Replace standard input with fd for the duration of a test; returns the saved one. */
static int swap_stdin(int fd)
{
	int saved = dup(STDIN_FILENO);

	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	return saved;
}

static void restore_stdin(int saved)
{
	ck_assert_int_eq(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

START_TEST(test_gzip_stdin)
{
	const char *path = test_trace("llama8l_eager_sdpa_4decode.json.gz"); /* 8.9 MB inflated */
	size_t raw_len;
	unsigned char *raw = slurp(path, &raw_len);
	int saved = swap_stdin(open(path, O_RDONLY));
	struct result a, b;

	a = drain(open_file("-"));
	restore_stdin(saved);
	b = drain(input_open_mem(raw, raw_len, &io));
	ck_assert_int_eq(a.rc, 0);
	check_same_result(&a, &b);
	free(a.data);
	free(b.data);
	free(raw);
}
END_TEST

/* Standard input is a pipe whose writer stays open: closing the input while the reader waits
 * for more data must not hang. */
START_TEST(test_close_while_reader_waits)
{
	size_t len;
	unsigned char *raw = slurp(test_trace("llama8l_compiled_sdpa.json.gz"), &len);
	int p[2], saved;
	struct input *in;
	char buf[100];
	struct fd_error err;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], raw, len / 2), (ssize_t)(len / 2));
	saved = swap_stdin(p[0]);
	alarm(10); /* a hang fails the test */
	in = open_file("-");
	/* data arrives before the writer is done */
	ck_assert_int_eq(input_read(in, buf, sizeof buf, &err), (ssize_t)sizeof buf);
	input_close(in);
	alarm(0);
	restore_stdin(saved);
	close(p[1]);
	free(raw);
}
END_TEST

/* Closing before the end, with the ring full and the reader waiting for room. */
START_TEST(test_close_early)
{
	struct input *in = open_file(test_trace("llama8l_eager_sdpa.json.gz"));
	char buf[10];
	struct fd_error err;

	ck_assert_int_eq(input_read(in, buf, sizeof buf, &err), (ssize_t)sizeof buf);
	ck_assert_int_eq(memcmp(buf, "\n  {\n    \"", 10), 0);
	usleep(100000);
	input_close(in);
	input_close(open_file(test_trace("llama8l_eager_sdpa.json.gz"))); /* never read */
}
END_TEST

START_TEST(test_serial_switch)
{
	io.serial = 1;
	check_same(test_trace("llama8l_compiled_sdpa.json.gz"));
	io.serial = 0;
}
END_TEST

START_TEST(test_plain_file_and_progress)
{
	const char *path = test_path("tests/data/bad/keys_any_order.json");
	struct stat st;
	struct input *in = open_file(path);
	struct result r;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(input_is_gzip(in), 0);
	ck_assert_int_eq(input_raw_size(in), (int64_t)st.st_size);
	r = drain(in);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(r.len, (size_t)st.st_size);
	free(r.data);
}
END_TEST

/* The loader on gzip from standard input finds what it finds in the file. */
START_TEST(test_trace_from_stdin)
{
	const char *path = test_trace("llama8l_eager_sdpa.json.gz");
	int saved = swap_stdin(open(path, O_RDONLY));
	struct trace *a = test_load("-"), *b;

	restore_stdin(saved);
	b = test_load(path);
	ck_assert_str_eq(a->path, "<stdin>");
	ck_assert_uint_eq(a->n_kernels, b->n_kernels);
	ck_assert_uint_eq(a->n_kernel_events, 6430);
	ck_assert_int_eq(a->n_events, b->n_events);
	ck_assert_int_eq(a->bytes, b->bytes);
	ck_assert_int_eq(trace_kernel_time(a), trace_kernel_time(b));
	trace_free(a);
	trace_free(b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("gzip reader");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_gzip_many_blocks);
	tcase_add_test(tc, test_gzip_smaller_than_a_block);
	tcase_add_test(tc, test_gzip_truncated);
	tcase_add_test(tc, test_gzip_corrupt);
	tcase_add_test(tc, test_inflate_damage);
	tcase_add_test(tc, test_spool);
	tcase_add_test(tc, test_gzip_stdin);
	tcase_add_test(tc, test_close_while_reader_waits);
	tcase_add_test(tc, test_close_early);
	tcase_add_test(tc, test_serial_switch);
	tcase_add_test(tc, test_plain_file_and_progress);
	tcase_add_test(tc, test_trace_from_stdin);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
