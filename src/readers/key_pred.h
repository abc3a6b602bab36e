/* key_pred.h — the next member of an event object, predicted from the objects before it.
 *
 * A profiler writes every event of a kind with the same keys in the same order and the same
 * blanks: `, "pid": ` follows the name of every operator, `,\n    "ts": ` its tid. The bytes
 * from the end of one member's value to the start of the next one's (blanks, the ',', the key,
 * the ':', blanks; or blanks and the closing '}') are remembered after each key, and where the
 * same bytes come again they are taken as they are: one compare instead of a key parsed and
 * then tested against every name the loader knows.
 *
 * Taking them is exact, not a guess: the bytes were parsed by json_object_next() once, and the
 * same bytes, after a member as they were then, parse the same way again. What is remembered
 * after a key only decides where to look first. A key is known by its slot, one per distinct
 * key text (up to KEY_SLOTS in a loader), and the slot by what the key means (enum key_id).
 * Private to src/readers. */
#ifndef FUSEDIFF_KEY_PRED_H
#define FUSEDIFF_KEY_PRED_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fusediff/json.h"

/* What a key means to the loader (any object level: the caller says which matter). */
enum key_id {
	KEY_OTHER,
	KEY_CAT,
	KEY_NAME,
	KEY_TS,
	KEY_DUR,
	KEY_PID,
	KEY_TID,
	KEY_ARGS,
	KEY_EXTERNAL_ID,
	KEY_CORRELATION,
	KEY_SEQUENCE,
	KEY_DEVICE,
	KEY_STREAM,
	KEY_GRID,
	KEY_BLOCK,
	KEY_KERNEL,
	KEY_INPUT_DIMS,
	KEY_INPUT_TYPE,
	KEY_CONCRETE_INPUTS,
};

#define KEY_SLOTS    126 /* distinct key texts with a slot of their own */
#define KEY_START    126 /* the state before an object's first member */
#define KEY_UNKNOWN  127 /* after a key with no slot (too long, escaped, or slots full) */
#define KEY_DONE     255 /* a remembered end of the object */
#define KEY_SEG_MAX  48	 /* longest remembered run of bytes */
#define KEY_TEXT_MAX 32	 /* longest key text given a slot */
/* Contexts: the event object before its category is known (0) and in each of the loader's
 * CAT_CACHE categories (1 + the entry), then the same for its args. */
#define KEY_CAT_CONTEXTS 9
#define KEY_CONTEXTS	 (2 * KEY_CAT_CONTEXTS)
#define KEY_WAYS	 4 /* runs remembered after a key */

/* One remembered run of bytes and where it leads (a cache line). */
struct key_next {
	char seg[KEY_SEG_MAX];
	uint64_t rest; /* the bits from len up set, the low len clear */
	uint8_t len;   /* 0: nothing remembered (an empty entry matches nothing, not even
			  bytes equal to its zeros) */
	uint8_t slot;  /* the key it ends at, or KEY_DONE */
	uint8_t kid;   /* what that key means */
} __attribute__((aligned(64)));

struct key_pred {
	struct key_next next[KEY_CONTEXTS][KEY_SLOTS + 2][KEY_WAYS]; /* by context, state, way */
	uint8_t kid[KEY_SLOTS];					     /* enum key_id by slot */
	uint8_t len[KEY_SLOTS];					     /* key text by slot */
	char text[KEY_SLOTS][KEY_TEXT_MAX];
	uint8_t hash[256]; /* slot + 1 by hash of the text; 0: free */
	unsigned n_slots;
	int off; /* remember nothing (trace_load_tuning.no_memo): with no run remembered, none is taken */
};

/* json_object_next() by way of the bytes remembered: *state is KEY_START before the object's
 * first member (with *first set) and is left at the slot of the key read; *kid says what the
 * key means (the key's text itself is not returned). Same returns and cursor as
 * json_object_next(). kp is zeroed memory before the first call. */
int key_next_any(struct key_pred *kp, unsigned ctx, struct json_cur *c, int *first, unsigned *state,
		 int *kid, struct json_buf *kbuf, int *done);

/* The bytes at s (KEY_SEG_MAX readable) begin with n's? Sixteen bytes a compare; the third
 * only for the few runs longer than 32 bytes. */
__attribute__((always_inline)) static inline int key_seg_eq(const char *s, const struct key_next *n)
{
#ifdef __SSE2__
#define KEY_EQ16(i)                                                                              \
	((uint64_t)(unsigned)_mm_movemask_epi8(                                                  \
		 _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + (i))),       \
				_mm_loadu_si128((const __m128i *)(const void *)(n->seg + (i))))) \
	 << (i))
	/* bit 63 only from rest: set in every entry remembered (len < 64), clear in an empty one */
	uint64_t m = KEY_EQ16(0) | KEY_EQ16(16) | (n->rest | 0x7fffffff00000000ull);

	if (m != UINT64_MAX)
		return 0;
	return n->len <= 32 || (KEY_EQ16(32) | n->rest | 0xffffffffull) == UINT64_MAX;
#undef KEY_EQ16
#else
	return n->len && memcmp(s, n->seg, n->len) == 0;
#endif
}

__attribute__((always_inline)) static inline int key_next(struct key_pred *kp, unsigned ctx,
							  struct json_cur *c, int *first,
							  unsigned *state, int *kid,
							  struct json_buf *kbuf, int *done)
{
	const char *s = c->p;

	if (c->end - s >= 64) {
		const struct key_next *n = kp->next[ctx][*state];

		if (key_seg_eq(s, n) || key_seg_eq(s, ++n) || key_seg_eq(s, ++n) ||
		    key_seg_eq(s, ++n)) {
			c->p = s + n->len;
			if (n->slot == KEY_DONE) {
				*done = 1;
				return JSON_OK;
			}
			*first = 0;
			*done = 0;
			*state = n->slot;
			*kid = n->kid;
			return JSON_OK;
		}
	}
	return key_next_any(kp, ctx, c, first, state, kid, kbuf, done);
}

#endif
