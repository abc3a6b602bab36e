/* key_pred.c — a member parsed the long way, its key given a slot, and the bytes that led to
 * it remembered for next time (key_pred.h). */
#include <string.h>

#include "key_pred.h"

/* What the key means: the names the event parser (kineto_event.c) looks at. */
static int key_id_of(struct json_str k)
{
	/* clang-format off */
#define KEY(s, id) { s, sizeof s - 1, id }
	/* clang-format on */
	static const struct {
		const char *s;
		size_t len;
		enum key_id id;
	} map[] = {
		KEY("cat", KEY_CAT),
		KEY("name", KEY_NAME),
		KEY("ts", KEY_TS),
		KEY("dur", KEY_DUR),
		KEY("pid", KEY_PID),
		KEY("tid", KEY_TID),
		KEY("args", KEY_ARGS),
		KEY("External id", KEY_EXTERNAL_ID),
		KEY("correlation", KEY_CORRELATION),
		KEY("Sequence number", KEY_SEQUENCE),
		KEY("device", KEY_DEVICE),
		KEY("stream", KEY_STREAM),
		KEY("grid", KEY_GRID),
		KEY("block", KEY_BLOCK),
		KEY("kernel", KEY_KERNEL),
		KEY("Input Dims", KEY_INPUT_DIMS),
		KEY("Input type", KEY_INPUT_TYPE),
		KEY("Concrete Inputs", KEY_CONCRETE_INPUTS),
	};
#undef KEY

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (json_str_eq(k, map[i].s, map[i].len))
			return map[i].id;
	return KEY_OTHER;
}

/* The slot of key text k, given one if it has none yet; KEY_UNKNOWN when it cannot have one. */
static unsigned slot_of(struct key_pred *kp, struct json_str k)
{
	uint64_t w = 0;
	unsigned h, slot;

	if (k.len > KEY_TEXT_MAX)
		return KEY_UNKNOWN;
	memcpy(&w, k.s, k.len < 8 ? k.len : 8);
	h = (unsigned)(((w ^ k.len) * 0x9e3779b97f4a7c15ull) >> 56);
	for (;; h = (h + 1) & 255) {
		if (!kp->hash[h])
			break;
		slot = kp->hash[h] - 1u;
		if (kp->len[slot] == k.len && memcmp(kp->text[slot], k.s, k.len) == 0)
			return slot;
	}
	if (kp->n_slots == KEY_SLOTS) /* a free hash entry is left: 256 > KEY_SLOTS */
		return KEY_UNKNOWN;
	slot = kp->n_slots++;
	kp->len[slot] = (uint8_t)k.len;
	memcpy(kp->text[slot], k.s, k.len);
	kp->kid[slot] = (uint8_t)key_id_of(k);
	kp->hash[h] = (uint8_t)(slot + 1);
	return slot;
}

int key_next_any(struct key_pred *kp, unsigned ctx, struct json_cur *c, int *first, unsigned *state,
		 int *kid, struct json_buf *kbuf, int *done)
{
	const char *s = c->p;
	struct json_str key;
	unsigned slot = KEY_DONE;
	size_t len;
	int rc;

	if ((rc = json_object_next(c, first, &key, kbuf, done)))
		return rc;
	if (!*done) {
		/* as json_object_next() does inside the window (not at its end): one blank
		 * before the value is part of the bytes remembered, not left to the value */
		if (c->end - c->p >= 2 && c->p[0] == ' ' && (unsigned char)c->p[1] > ' ')
			c->p++;
		/* a key with escapes was decoded into kbuf: its bytes are not the text */
		slot = kbuf->s && key.s == kbuf->s ? KEY_UNKNOWN : slot_of(kp, key);
		*kid = slot < KEY_SLOTS ? kp->kid[slot] : key_id_of(key);
	}
	len = (size_t)(c->p - s);
	if (slot != KEY_UNKNOWN && len <= KEY_SEG_MAX && !kp->off) {
		struct key_next *n = kp->next[ctx][*state];

		if (n[0].len == len && n[0].slot == slot && memcmp(n[0].seg, s, len) == 0)
			goto out; /* remembered already (the window was too short to look) */
		memmove(n + 1, n, (KEY_WAYS - 1) * sizeof *n); /* the newest first */
		memcpy(n[0].seg, s, len);
		n[0].rest = ~((UINT64_C(1) << len) - 1); /* len < 64 */
		n[0].len = (uint8_t)len;
		n[0].slot = (uint8_t)slot;
		n[0].kid = (uint8_t)*kid;
	}
out:
	if (!*done)
		*state = slot;
	return JSON_OK;
}
