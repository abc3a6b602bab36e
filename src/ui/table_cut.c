/* table_cut.c — middle cuts that keep names apart (see table_cut.h).
 *
 * A cut "reads like" another text when that text could be behind it too: it starts with the
 * cut's head, ends with its tail (and holds its middle part). A text whose usual cut reads like
 * another text of the column is cut another way: the ellipsis moved as little as rules every
 * other text out (then on to a word where that still does), else its head and the words where
 * it differs from the others, between two ellipses. Each text's cut is worked out the first
 * time it is asked for at a width, and kept until another width or ellipsis is asked for. */
#include "fusediff/table_cut.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

enum {
	MIN_PART = 4, /* bytes kept of the tail at least, and of the head where it can */
	MIN_HEAD = 2, /* of the head when fewer tell the texts apart */
	WIDEN = 8,    /* bytes a moved cut may grow by to start or end at a word */
	TRIES = 64    /* windows tried at most for one text (each is searched for in others) */
};

struct name_entry {
	char *s, *rev; /* the text and its bytes reversed */
	size_t len;
	uint8_t state; /* at the current width: 0 not worked out, 1 the usual cut, 2 shown */
	char *shown;
};

struct table_names {
	struct name_entry *by_head;  /* sorted by s */
	struct name_entry **by_tail; /* sorted by rev */
	size_t n;
	int w, ew;
	char *ell; /* a copy */
};

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || *s == '\\')
			return 0;
	return 1;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_rev(const void *a, const void *b)
{
	const struct name_entry *x = *(struct name_entry *const *)a;
	const struct name_entry *y = *(struct name_entry *const *)b;

	return strcmp(x->rev, y->rev);
}

static char *reversed(const char *s, size_t len)
{
	char *r = xmalloc(len + 1);

	for (size_t i = 0; i < len; i++)
		r[i] = s[len - 1 - i];
	r[len] = '\0';
	return r;
}

struct table_names *table_names_new(const char *const *texts, size_t n)
{
	struct table_names *tn = xcalloc(1, sizeof *tn);
	const char **v = xmalloc((n + 1) * sizeof *v);
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (texts[i] && printable(texts[i]))
			v[k++] = texts[i];
	if (k)
		qsort(v, k, sizeof *v, cmp_str);
	tn->by_head = xcalloc(k + 1, sizeof *tn->by_head);
	tn->by_tail = xmalloc((k + 1) * sizeof *tn->by_tail);
	for (size_t i = 0; i < k; i++) {
		struct name_entry *e;

		if (i && strcmp(v[i], v[i - 1]) == 0)
			continue;
		e = &tn->by_head[tn->n++];
		e->len = strlen(v[i]);
		e->s = xstrdup(v[i]);
		e->rev = reversed(v[i], e->len);
	}
	for (size_t i = 0; i < tn->n; i++)
		tn->by_tail[i] = &tn->by_head[i];
	if (tn->n)
		qsort(tn->by_tail, tn->n, sizeof *tn->by_tail, cmp_rev);
	free(v);
	return tn;
}

static void forget_cuts(struct table_names *tn)
{
	for (size_t i = 0; i < tn->n; i++) {
		free(tn->by_head[i].shown);
		tn->by_head[i].shown = NULL;
		tn->by_head[i].state = 0;
	}
	free(tn->ell);
	tn->ell = NULL;
}

void table_names_free(struct table_names *tn)
{
	if (!tn)
		return;
	forget_cuts(tn);
	for (size_t i = 0; i < tn->n; i++) {
		free(tn->by_head[i].s);
		free(tn->by_head[i].rev);
	}
	free(tn->by_head);
	free(tn->by_tail);
	free(tn);
}

/* A text's first k bytes, compared with a name's (head) or a reversed name's (tail) first k. */
struct prefix {
	const char *p;
	size_t k;
};

static int cmp_prefix_head(const void *key, const void *elem)
{
	const struct prefix *x = key;

	return strncmp(x->p, ((const struct name_entry *)elem)->s, x->k);
}

static int cmp_prefix_tail(const void *key, const void *elem)
{
	const struct prefix *x = key;

	return strncmp(x->p, (*(struct name_entry *const *)elem)->rev, x->k);
}

/* The first index whose key's first k bytes compare to p's >= 0 (upper: > 0). */
static size_t bound(const struct table_names *tn, int tail, const char *p, size_t k, int upper)
{
	const struct prefix x = { p, k };

	if (tail)
		return bound_search(tn->by_tail, tn->n, sizeof *tn->by_tail, &x, cmp_prefix_tail,
				    upper);
	return bound_search(tn->by_head, tn->n, sizeof *tn->by_head, &x, cmp_prefix_head, upper);
}

/* Does the cut of e with h bytes of head and t of tail read like another text that is cut
 * too (longer than w)? The shorter of the two ranges (same head, same tail) is searched. */
static int reads_alike(const struct table_names *tn, const struct name_entry *e, int h, int t)
{
	size_t hl = bound(tn, 0, e->s, (size_t)h, 0), hu = bound(tn, 0, e->s, (size_t)h, 1);
	size_t tl = bound(tn, 1, e->rev, (size_t)t, 0), tu = bound(tn, 1, e->rev, (size_t)t, 1);
	int by_head = hu - hl <= tu - tl;

	for (size_t i = by_head ? hl : tl; i < (by_head ? hu : tu); i++) {
		const struct name_entry *y = by_head ? &tn->by_head[i] : tn->by_tail[i];

		if (y == e || y->len <= (size_t)tn->w)
			continue;
		if (by_head ? strncmp(y->rev, e->rev, (size_t)t) == 0
			    : strncmp(y->s, e->s, (size_t)h) == 0)
			return 1;
	}
	return 0;
}

/* One ellipsis: the head, moved from the middle as little as makes the cut read like no
 * other text, then on to a word where it still does; 0 when no head does. */
static int moved_head(const struct table_names *tn, const struct name_entry *e, int room)
{
	int h0 = (room + 1) / 2;

	for (int d = 1; d < room; d++)
		for (int tail = 1; tail >= 0; tail--) {
			int h = tail ? h0 - d : h0 + d;

			if (h < MIN_HEAD || room - h < MIN_PART || reads_alike(tn, e, h, room - h))
				continue;
			for (int k = h; k != (tail ? h - WIDEN : h + WIDEN); k += tail ? -1 : 1) {
				if (k < MIN_HEAD || room - k < MIN_PART)
					break;
				if (!is_word(tail ? e->s[e->len - (size_t)(room - k) - 1]
						  : e->s[k]))
					return reads_alike(tn, e, k, room - k) ? h : k;
			}
			return h;
		}
	return 0;
}

/* Could another text cut too start with e's first h bytes and hold its m bytes at from after
 * them? */
static int window_alike(const struct table_names *tn, const struct name_entry *e, int h,
			size_t from, int m)
{
	size_t lo = bound(tn, 0, e->s, (size_t)h, 0), hi = bound(tn, 0, e->s, (size_t)h, 1);
	char *w = xasprintf("%.*s", m, e->s + from);
	int alike = 0;

	for (size_t i = lo; i < hi && !alike; i++) {
		const struct name_entry *y = &tn->by_head[i];

		alike = y != e && y->len > (size_t)tn->w && strstr(y->s + h, w);
	}
	free(w);
	return alike;
}

/* Two ellipses: e's first h bytes, then room - h bytes of it from the first word start (near
 * where it parts from the text most like it, else anywhere) that no other text holds there. */
static char *window_cut(const struct table_names *tn, const struct name_entry *e, int h)
{
	int room = tn->w - 2 * tn->ew, m = room - h;
	size_t at = (size_t)(e - tn->by_head), d = 0;
	int tries = 0;

	if (m < MIN_PART || e->len <= (size_t)h + (size_t)m)
		return NULL;
	for (size_t i = at ? at - 1 : 0; i <= at + 1 && i < tn->n; i++) { /* neighbours */
		const char *y = tn->by_head[i].s;
		size_t k = 0;

		if (i == at)
			continue;
		while (y[k] && y[k] == e->s[k])
			k++;
		if (k > d)
			d = k;
	}
	for (int pass = 0; pass < 3; pass++)
		for (size_t from = pass == 0 ? (d > (size_t)h + WIDEN ? d - WIDEN : (size_t)h)
					     : (size_t)h;
		     from + (size_t)m <= e->len && (pass || from <= d) && tries < TRIES; from++) {
			if (pass < 2 && from && is_word(e->s[from - 1]))
				continue; /* a word start first */
			if (tries++, !window_alike(tn, e, h, from, m))
				return from + (size_t)m >= e->len
					       ? xasprintf("%.*s%s%s",
							   tn->w - tn->ew - (int)(e->len - from),
							   e->s, tn->ell, e->s + from)
					       : xasprintf("%.*s%s%.*s%s", h, e->s, tn->ell, m,
							   e->s + from, tn->ell);
		}
	return NULL;
}

/* e's cut at the current width: NULL for the usual one. */
static char *cut_of(const struct table_names *tn, const struct name_entry *e)
{
	int room = tn->w - tn->ew, h0 = (room + 1) / 2, h;
	char *cut;

	if (!reads_alike(tn, e, h0, room - h0))
		return NULL;
	if ((h = moved_head(tn, e, room)) > 0)
		return xasprintf("%.*s%s%s", h, e->s, tn->ell, e->s + e->len - (size_t)(room - h));
	/* a quarter of the head, else none: "…unweighted_kernel_cta…" */
	h = (room - tn->ew) / 4 > MIN_PART ? (room - tn->ew) / 4 : MIN_PART;
	if ((cut = window_cut(tn, e, h)) != NULL)
		return cut;
	return window_cut(tn, e, 0);
}

int table_names_cut(struct table_names *tn, const char *text, int w, const char *ell, int ew,
		    char *out, size_t cap)
{
	size_t i;
	struct name_entry *e;

	if (!tn || !tn->n || !text || w - ew < 2 * MIN_PART + 1 || strlen(text) <= (size_t)w)
		return 0;
	if (tn->w != w || tn->ew != ew || !tn->ell || strcmp(tn->ell, ell) != 0) {
		forget_cuts(tn);
		tn->w = w;
		tn->ew = ew;
		tn->ell = xstrdup(ell);
	}
	i = bound(tn, 0, text, strlen(text) + 1, 0);
	if (i >= tn->n || strcmp(tn->by_head[i].s, text) != 0)
		return 0;
	e = &tn->by_head[i];
	if (!e->state) {
		e->shown = cut_of(tn, e);
		e->state = e->shown ? 2 : 1;
	}
	if (!e->shown)
		return 0;
	snprintf(out, cap, "%s", e->shown);
	return 1;
}
