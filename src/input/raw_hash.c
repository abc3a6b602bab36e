/* raw_hash.c — see raw_hash.h. */
#include "raw_hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "fusediff/util.h"

#define READERS 8	    /* tracked readers: the main loader, the chunks' threads */
#define PIECE	(256 << 10) /* bytes read again and hashed per raw_hash_work(): in L2 */

struct raw_hash {
	pthread_mutex_t mu;
	struct sha256_ctx ctx; /* written by the thread that set busy, outside the lock */
	int64_t at;	       /* bytes [0, at) are hashed */
	int64_t seen;	       /* the end of the furthest read of a tracked reader */
	int busy;	       /* a thread hashes from `at` on, outside the lock */
	int lost;
	int64_t pos[READERS]; /* where each tracked reader reads next; -1: a free slot */
	int fd;
	const unsigned char *mem;
	size_t mem_len;
	unsigned char *buf; /* PIECE bytes for raw_hash_work(), used by the busy thread */
};

struct raw_hash *raw_hash_new(int fd, const unsigned char *mem, size_t mem_len)
{
	struct raw_hash *h = xcalloc(1, sizeof *h);

	pthread_mutex_init(&h->mu, NULL);
	sha256_init(&h->ctx);
	for (int i = 0; i < READERS; i++)
		h->pos[i] = -1;
	h->fd = fd;
	h->mem = mem;
	h->mem_len = mem_len;
	return h;
}

void raw_hash_free(struct raw_hash *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->mu);
	free(h->buf);
	free(h);
}

int raw_hash_track(struct raw_hash *h)
{
	int slot = -1;

	pthread_mutex_lock(&h->mu);
	for (int i = 0; i < READERS && slot < 0; i++)
		if (h->pos[i] < 0) {
			h->pos[i] = 0;
			slot = i;
		}
	pthread_mutex_unlock(&h->mu);
	return slot;
}

void raw_hash_untrack(struct raw_hash *h, int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&h->mu);
	h->pos[slot] = -1;
	pthread_mutex_unlock(&h->mu);
}

void raw_hash_feed(struct raw_hash *h, int slot, int64_t off, const void *buf, size_t n)
{
	int64_t end = off + (int64_t)n, from;

	if (n == 0)
		return;
	pthread_mutex_lock(&h->mu);
	if (slot >= 0) {
		h->pos[slot] = end;
		if (end > h->seen)
			h->seen = end;
	}
	if (h->busy || h->lost || off > h->at || end <= h->at) {
		pthread_mutex_unlock(&h->mu);
		return;
	}
	h->busy = 1;
	from = h->at;
	pthread_mutex_unlock(&h->mu);
	sha256_update(&h->ctx, (size_t)(end - from), (const uint8_t *)buf + (from - off));
	pthread_mutex_lock(&h->mu);
	h->at = end;
	h->busy = 0;
	pthread_mutex_unlock(&h->mu);
}

/* The bytes [from, from + len) of the file, read again: 0 with *p set, or -1. */
static int read_again(struct raw_hash *h, int64_t from, size_t len, const uint8_t **p)
{
	size_t got = 0;

	if (h->mem) {
		if ((uint64_t)from + len > h->mem_len)
			return -1;
		*p = h->mem + from;
		return 0;
	}
	if (!h->buf)
		h->buf = xmalloc(PIECE);
	while (got < len) {
		ssize_t n = pread(h->fd, h->buf + got, len - got, (off_t)from + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1; /* a pipe, a read error, or the file is shorter than it was */
		got += (size_t)n;
	}
	*p = h->buf;
	return 0;
}

int raw_hash_work(struct raw_hash *h, int64_t upto)
{
	int64_t target = upto, from;
	const uint8_t *p = NULL;
	size_t len;
	int ok;

	pthread_mutex_lock(&h->mu);
	if (h->busy || h->lost) {
		pthread_mutex_unlock(&h->mu);
		return 0;
	}
	if (target < 0) { /* a reader where the hash stands hashes what it reads next */
		target = h->seen;
		for (int i = 0; i < READERS; i++)
			if (h->pos[i] >= h->at && h->pos[i] < target)
				target = h->pos[i];
	}
	if (h->at >= target) {
		pthread_mutex_unlock(&h->mu);
		return 0;
	}
	from = h->at;
	len = target - from < PIECE ? (size_t)(target - from) : PIECE;
	h->busy = 1;
	pthread_mutex_unlock(&h->mu);
	ok = read_again(h, from, len, &p) == 0;
	if (ok)
		sha256_update(&h->ctx, len, p);
	pthread_mutex_lock(&h->mu);
	if (ok)
		h->at = from + (int64_t)len;
	else
		h->lost = 1;
	h->busy = 0;
	pthread_mutex_unlock(&h->mu);
	return ok;
}

int64_t raw_hash_at(struct raw_hash *h)
{
	int64_t at;

	pthread_mutex_lock(&h->mu);
	at = h->at;
	pthread_mutex_unlock(&h->mu);
	return at;
}

void raw_hash_lose(struct raw_hash *h)
{
	pthread_mutex_lock(&h->mu);
	h->lost = 1;
	pthread_mutex_unlock(&h->mu);
}

int raw_hash_hex(struct raw_hash *h, int64_t len, char hex[65])
{
	uint8_t d[SHA256_DIGEST_SIZE];
	int ok;

	hex[0] = '\0';
	pthread_mutex_lock(&h->mu);
	ok = !h->lost && !h->busy && (len < 0 || h->at == len);
	if (ok)
		sha256_digest(&h->ctx, sizeof d, d);
	pthread_mutex_unlock(&h->mu);
	if (!ok)
		return -1;
	for (size_t i = 0; i < sizeof d; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	return 0;
}
