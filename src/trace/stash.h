/* stash.h — private to the trace module: records packed while a trace loads, read back once.
 *
 * A record is a few unsigned varints (LEB128) and zigzag deltas from the same field of the
 * record before. The bytes lie in chunks of mapped memory; the reader unmaps each chunk as it
 * leaves it, so that unpacking a stash into an array costs about the array, not the array and
 * the stash.
 *
 * The records of another stash can be moved to the end of one as they are (stash_append): the
 * chunks are linked, not copied, and the records keep being numbered in segments, each read
 * with its deltas started again, so that the reader can tell whose records it reads. */
#ifndef FUSEDIFF_STASH_H
#define FUSEDIFF_STASH_H

#include <stddef.h>
#include <stdint.h>

#define STASH_DELTAS	 4   /* fields written as deltas */
#define STASH_RECORD_MAX 160 /* bytes of one record at most: 16 varints */

struct stash_chunk;

struct stash {
	struct stash_chunk *first, *last;
	size_t n; /* records */
	int64_t prev[STASH_DELTAS];
	size_t *seg; /* seg[k - 1]: the index of segment k's first record (segment 0 starts at 0) */
	struct stash_at {
		struct stash_chunk *c;
		size_t off;
	} * seg_at; /* seg_at[k - 1]: where segment k's first record lies */
	size_t n_seg, cap_seg;
	int appended; /* the last segment was appended: a record put now starts another */
	int large;    /* it will grow past a chunk: its first chunk on a huge page too */
};

struct stash_reader {
	struct stash *s;
	struct stash_chunk *c;	/* stash_scan(): the chunk read, none unmapped */
	struct stash_chunk *c0; /* stash_take_segment(): the chunk begun in, kept */
	const unsigned char *p, *end;
	int64_t prev[STASH_DELTAS];
	size_t i;	/* records begun */
	size_t segment; /* the segment of the record begun last */
};

/* Start a record (room for STASH_RECORD_MAX bytes); then put its fields. */
void stash_begin(struct stash *s);
void stash_put(struct stash *s, uint64_t v);
/* x as the zigzag difference from field i of the record before (0 before the first). */
void stash_put_delta(struct stash *s, int i, int64_t x);
/* Move src's records to the end of dst as a segment of their own and empty src; returns the
 * segment's number, or 0 when src has no records (nothing moved). */
size_t stash_append(struct stash *dst, struct stash *src);
/* Free what is left of the stash (a reader's chunks included) and empty it. */
void stash_free(struct stash *s);

/* Read the stash's s->n records in order, once: stash_next() before each record (it unmaps
 * the chunk the reader leaves), then its fields as they were put; stash_free() after. */
void stash_read(struct stash *s, struct stash_reader *r);
/* The same, leaving the stash as it is (to read it again with stash_read()). */
void stash_scan(struct stash *s, struct stash_reader *r);
/* stash_scan() from the first record of segment k (k up to s->n_seg), which is record
 * stash_segment_first(s, k); segment s->n_seg + 1 "starts" at s->n. Readers of different
 * segments may run at once (on different threads). */
void stash_scan_segment(struct stash *s, size_t k, struct stash_reader *r);
size_t stash_segment_first(const struct stash *s, size_t k);
/* stash_scan_segment() for readers that take the segments apart, each read once: the pages of
 * every chunk the reader leaves go back, but those of the chunk it began in (the segment
 * before may end there). Then only stash_free(). */
void stash_take_segment(struct stash *s, size_t k, struct stash_reader *r);
/* (inline: they run for every field of every record, the costly part of unpacking) */
static inline void stash_next(struct stash_reader *r);
static inline uint64_t stash_get(struct stash_reader *r);
static inline int64_t stash_get_delta(struct stash_reader *r, int i);
/* Pass n fields put by stash_put() (not stash_put_delta(): the deltas must be read). */
static inline void stash_skip(struct stash_reader *r, unsigned n);

/* stash_next() where a segment starts or the chunk ends (stash.c) */
void stash_next_slow(struct stash_reader *r);

static inline void stash_next(struct stash_reader *r)
{
	if ((r->segment < r->s->n_seg && r->i == r->s->seg[r->segment]) || r->p == r->end)
		stash_next_slow(r);
	else
		r->i++;
}

static inline uint64_t stash_get(struct stash_reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*r->p & 0x80) {
		v |= (uint64_t)(*r->p++ & 0x7f) << shift;
		shift += 7;
	}
	return v | (uint64_t)*r->p++ << shift;
}

static inline void stash_skip(struct stash_reader *r, unsigned n)
{
	while (n)
		n -= !(*r->p++ & 0x80);
}

static inline int64_t stash_get_delta(struct stash_reader *r, int i)
{
	uint64_t z = stash_get(r), d = (z >> 1) ^ (0 - (z & 1));

	return r->prev[i] = (int64_t)((uint64_t)r->prev[i] + d);
}

#endif
