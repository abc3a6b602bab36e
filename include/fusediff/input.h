/* input.h — a stream of bytes from a file, standard input or memory, gunzipped on the fly.
 *
 * Compression is detected by the gzip magic bytes, not by the file name. Concatenated gzip
 * members are read as one stream. */
#ifndef FUSEDIFF_INPUT_H
#define FUSEDIFF_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fusediff/util.h"

struct input;

/* How an input is read, not what it yields: the bytes are the same whatever these say. The
 * program fills them from its environment (fusediff(1), ENVIRONMENT); zeros (or a NULL
 * pointer) are the defaults. */
struct input_opts {
	int serial; /* FUSEDIFF_SERIAL: gzip is inflated on the caller's thread, not on a reader
		       thread */
	int zlib;   /* FUSEDIFF_INFLATE=zlib: gzip is inflated by zlib even where ISA-L is built
		       in */
	const char *tmpdir; /* TMPDIR: where a temporary file is made (a pipe's gzip member kept
			       for zlib to read again); NULL or "": /tmp. Copied. */
	int64_t thread_min; /* FUSEDIFF_GZIP_THREAD_MIN: a gzip file of at least this many bytes
			       (0: 1 MiB) is inflated on a reader thread, a smaller one on the
			       caller's (a pipe's always on the thread); 1: every one */
};

/* Open path ("-" is standard input), read as o says (NULL: the defaults). Owned by caller:
 * free with input_close().
 * Errors: the file cannot be opened or read. */
int input_open(struct input **out, const char *path, const struct input_opts *o,
	       struct fd_error *err);
/* input_open() for a file found in a directory rather than named by the user: only a regular
 * file is opened (a FIFO named like a trace would wait for a writer forever); anything else is
 * the error "not a regular file". Standard input is not taken. */
int input_open_regular(struct input **out, const char *path, const struct input_opts *o,
		       struct fd_error *err);
/* fstat() of the file in reads (standard input included): 0, or -1 (memory, an error). */
int input_stat(const struct input *in, struct stat *st);
/* Read from a borrowed buffer that must outlive the input (used by the fuzzer and tests); o as
 * for input_open() (a buffer has no reader thread: only o->zlib counts). */
struct input *input_open_mem(const void *data, size_t len, const struct input_opts *o);
void input_close(struct input *in);

/* Read up to cap decompressed bytes into buf. Returns the number read, 0 at the end, or -1
 * on error (read error, corrupt or truncated gzip data) with err filled in. */
ssize_t input_read(struct input *in, char *buf, size_t cap, struct fd_error *err);

/* The first decompressed bytes, up to want (at most INPUT_PEEK_MAX), without consuming them:
 * input_read() returns them first. A UTF-8 byte order mark at the start is dropped. Only before the first input_read(). *head is borrowed
 * (valid until the next call on in). Returns the number of bytes (fewer at the end of a short
 * input), or -1 on error with err filled in. */
#define INPUT_PEEK_MAX 64
ssize_t input_peek(struct input *in, const unsigned char **head, size_t want, struct fd_error *err);

/* The path of the file the input reads as it is (a regular file, not compressed): what a
 * reader that needs a file of its own (SQLite) can open; NULL otherwise. Borrowed. */
const char *input_file(const struct input *in);
/* Hash the raw bytes (the file as it is, compressed or not) with SHA-256 as they are read
 * (the parts of a split file too: see input_hash_work()); before the first read. */
void input_hash(struct input *in);
/* The hash as 64 hex digits: the bytes not read yet are read first (without decompressing).
 * -1 (hex "") when input_hash() was not called or a reader thread did not reach the end. */
int input_sha256(struct input *in, char hex[65]);
/* 1 when the data is gzip-compressed. */
int input_is_gzip(const struct input *in);
/* Raw (compressed) bytes consumed so far and the total size, or -1 when unknown (a pipe). */
int64_t input_raw_done(const struct input *in);
int64_t input_raw_size(const struct input *in);

/* Splitting a plain file among threads (kineto_chunks.c). input_split_size: the file's size when
 * in reads a regular file opened by its path, or memory, as it is (not gzip, no byte order mark dropped, so that
 * an offset of the data is an offset of the file), -1 otherwise. input_open_part: a second
 * input on the same file, reading with pread() from off (its own position), or on the same
 * memory, for another thread; close it with input_close() (the file stays open) before in. input_skip: consume n
 * bytes of in without returning them (a seek when nothing needs to see them). */
int64_t input_split_size(const struct input *in);
struct input *input_open_part(const struct input *in, int64_t off);
int input_skip(struct input *in, int64_t n, struct fd_error *err);

/* Hashing a split file while its parts are read (input_hash()): a part hashes what it reads
 * where the hash stands; input_hash_track(part) makes it a reader that input_hash_work() catches
 * up to (a part that parses, not one that peeks), as the whole input is from input_hash() on,
 * until input_hash_untrack() (it reads no more for a while; closing a part untracks it).
 * input_hash_work(in, upto): read again and hash one piece of the bytes that parts read ahead
 * of the hash, up to upto (< 0: up to the nearest tracked reader at or ahead of it); 1 when it
 * did, 0 when there is nothing to do now (or nothing is hashed). Any thread; see
 * src/input/raw_hash.h. */
void input_hash_track(struct input *part);
void input_hash_untrack(struct input *in);
int input_hash_work(struct input *in, int64_t upto);

#endif
