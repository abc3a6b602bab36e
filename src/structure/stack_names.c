/* stack_names.c — short names for the layer stacks of one pass ("vision" and "text" for a
 * CLIP model's two towers), from the module tree: the first of the layer class, its parent's
 * class and its grandparent's class that tells the stacks apart, without the words all of
 * them share ("CLIPVisionTransformer", "CLIPTextTransformer": "vision", "text"). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "structure_int.h"

#define MAX_WORDS 16

/* Camel-case words of s[0..n): "CLIPVisionTransformer" is CLIP, Vision, Transformer. Writes
 * the start of each word and returns how many. */
static size_t words(const char *s, size_t n, size_t *start)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < MAX_WORDS; i++) {
		int up = isupper((unsigned char)s[i]);
		int prev_low = i > 0 && (islower((unsigned char)s[i - 1]) ||
					 isdigit((unsigned char)s[i - 1]));
		int prev_up_next_low = i > 0 && isupper((unsigned char)s[i - 1]) && i + 1 < n &&
				       islower((unsigned char)s[i + 1]);

		if (i == 0 || (up && (prev_low || prev_up_next_low)) || s[i - 1] == '_')
			start[k++] = i;
	}
	return k;
}

/* The class of stack st at level 0 (layer), 1 (parent) or 2 (grandparent). */
static size_t level_class(const struct trace *t, const struct module_stack *st, int level,
			  const char **c)
{
	if (level == 0) {
		*c = st->cls;
		return st->cls_len;
	}
	return module_class_name(t, level == 1 ? st->parent_range : st->grand_range, c);
}

static int same(const char *a, size_t na, const char *b, size_t nb)
{
	return na == nb && memcmp(a, b, na) == 0;
}

struct cand {
	const char *s;
	size_t n;
	size_t start[MAX_WORDS + 1];
	size_t nw;
};

void stack_labels(const struct trace *t, const struct module_map *m, const uint16_t *ids, size_t n,
		  char (*out)[STACK_NAME_MAX])
{
	struct cand c[8];
	int level;

	if (n > 8)
		goto fallback;
	for (level = 0; level < 3; level++) {
		int distinct = 1;

		for (size_t i = 0; i < n; i++) {
			c[i].n = level_class(t, &m->stacks[ids[i]], level, &c[i].s);
			if (c[i].n == 0)
				distinct = 0;
		}
		for (size_t i = 0; distinct && i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (same(c[i].s, c[i].n, c[j].s, c[j].n))
					distinct = 0;
		if (distinct)
			break;
	}
	if (level == 3)
		goto fallback;
	{
		size_t pre = MAX_WORDS, suf = MAX_WORDS;

		for (size_t i = 0; i < n; i++) {
			c[i].nw = words(c[i].s, c[i].n, c[i].start);
			c[i].start[c[i].nw] = c[i].n;
		}
		/* words every name starts with, then those every name ends with, as long as
		 * each name keeps a word */
		for (size_t w = 0; w < pre; w++)
			for (size_t i = 0; i < n; i++) {
				size_t l0 = c[0].start[w + 1] - c[0].start[w];

				if (w + 1 >= c[i].nw || w + 1 >= c[0].nw ||
				    !same(c[i].s + c[i].start[w], c[i].start[w + 1] - c[i].start[w],
					  c[0].s + c[0].start[w], l0)) {
					pre = w;
					break;
				}
			}
		for (size_t w = 0; w < suf; w++)
			for (size_t i = 0; i < n; i++) {
				size_t a = c[i].nw - 1 - w, b = c[0].nw - 1 - w;

				if (w >= c[i].nw || w >= c[0].nw || a <= pre || b <= pre ||
				    !same(c[i].s + c[i].start[a], c[i].start[a + 1] - c[i].start[a],
					  c[0].s + c[0].start[b],
					  c[0].start[b + 1] - c[0].start[b])) {
					suf = w;
					break;
				}
			}
		for (size_t i = 0; i < n; i++) {
			size_t from = c[i].start[pre], to = c[i].start[c[i].nw - suf];
			int one_word = c[i].nw - suf - pre == 1;

			snprintf(out[i], STACK_NAME_MAX, "%.*s", (int)(to - from), c[i].s + from);
			/* one capitalised word reads as a name: "vision" */
			if (one_word && to - from > 1 && islower((unsigned char)out[i][1]))
				out[i][0] = (char)tolower((unsigned char)out[i][0]);
		}
		return;
	}
fallback:
	for (size_t i = 0; i < n; i++)
		snprintf(out[i], STACK_NAME_MAX, "%.*s_%zu", (int)m->stacks[ids[i]].cls_len,
			 m->stacks[ids[i]].cls, i);
}
