/* op_args.c — the argument lists operators recorded, read entry by entry (see op_args.h). */
#include "fusediff/op_args.h"

#include <stdlib.h>

/* Skip one value of the compact texts: a number, a string or a list (nested ones whole). */
static const char *skip_value(const char *p)
{
	int depth = 0;

	do {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		} else if (*p == '[') {
			depth++;
			p++;
		} else if (*p == ']') {
			depth--;
			p++;
		} else {
			while (*p && *p != ',' && *p != ']')
				p++;
		}
		if (depth > 0 && *p == ',')
			p++;
	} while (*p && depth > 0);
	return p;
}

/* The list at p ('[') as a shape: 1 with a's dims, 0 when it is not a list of at most
 * OP_ARG_DIMS integers. */
static int read_shape(const char *p, struct op_arg *a)
{
	const char *q = p + 1;
	int nd = 0;

	while (*q && *q != ']') {
		char *end;
		long long v = strtoll(q, &end, 10);

		if (end == q || nd >= OP_ARG_DIMS)
			return 0;
		a->d[nd++] = v;
		q = *end == ',' ? end + 1 : end;
	}
	if (*q != ']')
		return 0;
	a->nd = nd;
	return 1;
}

int op_args_open(struct op_args *c, const char *text)
{
	c->p = text && *text == '[' ? text + 1 : NULL;
	return c->p ? 0 : -1;
}

int op_args_next(struct op_args *c, struct op_arg *a)
{
	const char *p = c->p;

	if (!p || !*p)
		return -1;
	if (*p == ']')
		return 0;
	a->nd = 0;
	a->text = p;
	if (*p == '[')
		a->kind = read_shape(p, a) ? OP_ARG_SHAPE : OP_ARG_LIST;
	else
		a->kind = *p == '"' ? OP_ARG_STRING : OP_ARG_OTHER;
	p = skip_value(p);
	a->len = (size_t)(p - a->text);
	if (*p == ',')
		p++;
	c->p = p;
	return 1;
}

void op_arg_string(const struct op_arg *a, char *buf, size_t cap)
{
	size_t n = 0;

	if (a->kind == OP_ARG_STRING)
		for (const char *p = a->text + 1, *end = a->text + a->len; p < end && *p != '"';
		     p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			if (n + 1 < cap)
				buf[n++] = *p;
		}
	buf[n] = '\0';
}

/* The shapes of the list at text, depth lists deep in the walk: 1 when fn stopped it. Lists
 * deeper than OP_ARGS_DEPTH are passed over (no operator nests tensors so deep; a hostile text
 * must not exhaust the stack). */
#define OP_ARGS_DEPTH 32
static int each_shape(const char *text, int depth, int (*fn)(const struct op_arg *shape, void *ctx),
		      void *ctx)
{
	struct op_args c;
	struct op_arg a;

	op_args_open(&c, text);
	while (op_args_next(&c, &a) > 0) {
		if (a.kind == OP_ARG_SHAPE && fn(&a, ctx))
			return 1;
		if (a.kind == OP_ARG_LIST && depth < OP_ARGS_DEPTH &&
		    each_shape(a.text, depth + 1, fn, ctx))
			return 1;
	}
	return 0;
}

int op_args_each_shape(const char *text, int (*fn)(const struct op_arg *shape, void *ctx),
		       void *ctx)
{
	if (!text || *text != '[')
		return -1;
	each_shape(text, 0, fn, ctx);
	return 0;
}
