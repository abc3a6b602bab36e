/* stash.c — packed records in mapped chunks (see stash.h). */
#include "stash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fusediff/util.h"

/* A chunk of the fuzz build is small, so that records cross chunks often. */
#ifndef STASH_CHUNK
#define STASH_CHUNK ((size_t)2 << 20) /* a huge page */
#endif

struct stash_chunk {
	struct stash_chunk *next;
	size_t len;
	unsigned char data[];
};

#define CHUNK_DATA (STASH_CHUNK - offsetof(struct stash_chunk, data))

/* A segment starts with the next record, at byte off of chunk c. */
static void segment_start(struct stash *s, struct stash_chunk *c, size_t off)
{
	if (s->n_seg == s->cap_seg) {
		s->cap_seg = s->cap_seg ? 2 * s->cap_seg : 8;
		s->seg = xreallocarray(s->seg, s->cap_seg, sizeof *s->seg);
		s->seg_at = xreallocarray(s->seg_at, s->cap_seg, sizeof *s->seg_at);
	}
	s->seg_at[s->n_seg] = (struct stash_at){ c, off };
	s->seg[s->n_seg++] = s->n;
	memset(s->prev, 0, sizeof s->prev);
}

void stash_begin(struct stash *s)
{
	struct stash_chunk *c = s->last;

	if (!c || CHUNK_DATA - c->len < STASH_RECORD_MAX) {
		/* mapped, not malloc'd: unmapping it returns the memory at once */
		void *m = mmap(NULL, STASH_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			die("out of memory (%zu bytes)", STASH_CHUNK);
#ifdef MADV_HUGEPAGE
		/* a stash past its first chunk is a large one (or one said to be): one page
		 * fault a chunk rather than one per 4 KiB (advice only); a small stash stays in
		 * small pages */
		if (s->last || s->large)
			(void)madvise(m, STASH_CHUNK, MADV_HUGEPAGE);
#endif
		c = m;
		c->next = NULL;
		c->len = 0;
		if (s->last)
			s->last->next = c;
		else
			s->first = c;
		s->last = c;
	}
	if (s->appended) { /* after another stash's records: a segment of our own again */
		segment_start(s, c, c->len);
		s->appended = 0;
	}
	s->n++;
}

void stash_put(struct stash *s, uint64_t v)
{
	struct stash_chunk *c = s->last;

	while (v >= 0x80) {
		c->data[c->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	c->data[c->len++] = (unsigned char)v;
}

void stash_put_delta(struct stash *s, int i, int64_t x)
{
	uint64_t d = (uint64_t)x - (uint64_t)s->prev[i]; /* modulo 2^64: small either way round */

	stash_put(s, (d << 1) ^ (0 - (d >> 63)));
	s->prev[i] = x;
}

/* Give back the pages of chunk c after its last record: nothing is put there any more (the
 * stash goes on in another's chunks). On a huge page they were zeroed and stay resident until
 * the stash is read: a part's last chunk, 16 parts a file (the 1.18 GB trace's peak RSS 95.6 ->
 * 85.1 MB, the 4.46 GB trace's 309.4 -> 299.3 MB). */
static void chunk_trim(struct stash_chunk *c)
{
	uintptr_t used = ((uintptr_t)(c->data + c->len) + 4095) & ~(uintptr_t)4095;
	uintptr_t end = (uintptr_t)c + STASH_CHUNK;

	if (end > used)
		(void)madvise((void *)used, end - used, MADV_DONTNEED);
}

size_t stash_append(struct stash *dst, struct stash *src)
{
	size_t k;

	if (!src->n)
		return 0;
	if (dst->last)
		chunk_trim(dst->last);
	segment_start(dst, src->first, 0);
	k = dst->n_seg;
	if (dst->last)
		dst->last->next = src->first;
	else
		dst->first = src->first;
	dst->last = src->last;
	dst->n += src->n;
	dst->appended = 1;
	if (src->n_seg)
		die("stash_append: a stash with segments of its own cannot be appended");
	src->first = src->last = NULL;
	stash_free(src);
	return k;
}

void stash_free(struct stash *s)
{
	struct stash_chunk *c = s->first;

	while (c) {
		struct stash_chunk *next = c->next;

		munmap(c, STASH_CHUNK);
		c = next;
	}
	free(s->seg);
	free(s->seg_at);
	memset(s, 0, sizeof *s);
}

void stash_read(struct stash *s, struct stash_reader *r)
{
	memset(r, 0, sizeof *r);
	r->s = s;
	if (s->first) {
		r->p = s->first->data;
		r->end = r->p + s->first->len;
	}
}

void stash_scan(struct stash *s, struct stash_reader *r)
{
	stash_read(s, r);
	r->c = s->first;
}

size_t stash_segment_first(const struct stash *s, size_t k)
{
	return k == 0 ? 0 : k <= s->n_seg ? s->seg[k - 1] : s->n;
}

void stash_scan_segment(struct stash *s, size_t k, struct stash_reader *r)
{
	stash_scan(s, r);
	if (k == 0 || k > s->n_seg)
		return;
	r->c = s->seg_at[k - 1].c;
	r->p = r->c->data + s->seg_at[k - 1].off;
	r->end = r->c->data + r->c->len;
	r->i = s->seg[k - 1];
	r->segment = k;
}

void stash_take_segment(struct stash *s, size_t k, struct stash_reader *r)
{
	stash_scan_segment(s, k, r);
	r->c0 = r->c;
}

/* Give back the pages of chunk c but its first (the header: the chunks stay linked, to be
 * unmapped by stash_free()). */
static void chunk_release(struct stash_chunk *c)
{
	if (STASH_CHUNK > 4096)
		(void)madvise((char *)c + 4096, STASH_CHUNK - 4096, MADV_DONTNEED);
}

void stash_next_slow(struct stash_reader *r)
{
	struct stash *s = r->s;

	while (r->segment < s->n_seg && r->i == s->seg[r->segment]) {
		r->segment++;
		memset(r->prev, 0, sizeof r->prev);
	}
	r->i++;
	if (r->c) { /* scanning */
		if (r->p == r->end && r->c->next) {
			struct stash_chunk *left = r->c;

			r->c = r->c->next;
			if (r->c0 && left != r->c0)
				chunk_release(left);
			r->p = r->c->data;
			r->end = r->p + r->c->len;
		}
		return;
	}
	if (r->p == r->end && s->first && s->first->next) {
		struct stash_chunk *c = s->first;

		s->first = c->next;
		munmap(c, STASH_CHUNK);
		r->p = s->first->data;
		r->end = r->p + s->first->len;
	}
}
