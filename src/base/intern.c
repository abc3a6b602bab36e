/* intern.c — string interning: open addressing over 64-bit multiplicative hashes, strings in
 * big blocks. */
#include "fusediff/intern.h"

#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

#define BLOCK_SIZE (256 * 1024)

struct entry {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct intern {
	struct entry *entries; /* by id */
	uint32_t n, cap;
	uint32_t *slots; /* id + 1, 0 = empty */
	uint32_t nslots; /* power of two */
	struct block *blocks;
	size_t bytes;
};

/* A word-at-a-time multiplicative hash: names are long (C++ kernel signatures of a few
 * kilobytes), and FNV's byte-at-a-time multiply chain made hashing a visible part of loading.
 * Above 32 bytes, four words at a time into four independent states, so that the
 * multiplications overlap instead of waiting for each other. */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len, w;

	if (len >= 32) {
		uint64_t h1 = h ^ 0x5851f42d4c957f2dull, h2 = h ^ 0x14057b7ef767814full,
			 h3 = h ^ 0xc4ceb9fe1a85ec53ull, w0, w1, w2, w3;

		for (; len >= 32; s += 32, len -= 32) {
			memcpy(&w0, s, 8);
			memcpy(&w1, s + 8, 8);
			memcpy(&w2, s + 16, 8);
			memcpy(&w3, s + 24, 8);
			h = mix(h, w0);
			h1 = mix(h1, w1);
			h2 = mix(h2, w2);
			h3 = mix(h3, w3);
		}
		h = mix(mix(mix(h, h1), h2), h3);
	}
	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = mix(h, w);
	}
	if (len) {
		w = 0;
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = mix(h, w);
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static char *store(struct intern *t, const char *s, size_t len)
{
	struct block *b = t->blocks;
	char *p;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;

		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = t->blocks;
		t->blocks = b;
		t->bytes += sizeof *b + size;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static void rehash(struct intern *t)
{
	uint32_t n = t->nslots ? t->nslots * 2 : 1024;

	free(t->slots);
	t->slots = xcalloc(n, sizeof *t->slots);
	t->nslots = n;
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t i = t->entries[id].hash & (n - 1);

		while (t->slots[i])
			i = (i + 1) & (n - 1);
		t->slots[i] = id + 1;
	}
}

struct intern *intern_new(void)
{
	struct intern *t = xcalloc(1, sizeof *t);

	rehash(t);
	intern_add(t, "", 0);
	return t;
}

void intern_free(struct intern *t)
{
	if (!t)
		return;
	for (struct block *b = t->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->entries);
	free(t->slots);
	free(t);
}

static uint32_t lookup(const struct intern *t, const char *s, size_t len, uint32_t h,
		       uint32_t *slot)
{
	uint32_t i = h & (t->nslots - 1);

	for (;;) {
		uint32_t v = t->slots[i];

		if (!v)
			break;
		const struct entry *e = &t->entries[v - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return v - 1;
		i = (i + 1) & (t->nslots - 1);
	}
	if (slot)
		*slot = i;
	return UINT32_MAX;
}

uint32_t intern_add(struct intern *t, const char *s, size_t len)
{
	uint32_t h, slot, id;

	if (len > UINT32_MAX - 1)
		die("string too long to intern (%zu bytes)", len);
	h = hash_bytes(s, len);
	id = lookup(t, s, len, h, &slot);
	if (id != UINT32_MAX)
		return id;
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)t->nslots * 3) {
		rehash(t);
		lookup(t, s, len, h, &slot);
	}
	VEC_RESERVE(t->entries, t->n, t->cap);
	id = t->n++;
	t->entries[id].s = store(t, s, len);
	t->entries[id].len = (uint32_t)len;
	t->entries[id].hash = h;
	t->slots[slot] = id + 1;
	return id;
}

uint32_t intern_find(const struct intern *t, const char *s, size_t len)
{
	return lookup(t, s, len, hash_bytes(s, len), NULL);
}

const char *intern_str(const struct intern *t, uint32_t id)
{
	return id < t->n ? t->entries[id].s : "";
}

size_t intern_len(const struct intern *t, uint32_t id)
{
	return id < t->n ? t->entries[id].len : 0;
}

uint32_t intern_count(const struct intern *t)
{
	return t->n;
}
