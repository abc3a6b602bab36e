/* layer_labels.c — the names of a comparison's layers (see comparison.h): "3", "prologue",
 * "vision.3", and lists of them as "0-31" or "layers 0-7 and the epilogue". */
#include <stdio.h>
#include <string.h>

#include "fusediff/comparison.h"

static const char *stack_of(const struct comparison *c, const struct comparison_layer *l)
{
	return l->stack < c->n_stacks ? c->stacks[l->stack] : "";
}

const char *comparison_layer_label(const struct comparison *c, int32_t layer, char *buf, size_t cap)
{
	const struct comparison_layer *l;
	const char *st;

	if (cap == 0)
		return buf;
	if (layer < 0 || (size_t)layer >= c->n_layers) {
		snprintf(buf, cap, "?");
		return buf;
	}
	l = &c->layers[layer];
	st = stack_of(c, l);
	if (l->index >= 0)
		snprintf(buf, cap, "%s%s%d", st, *st ? "." : "", (int)l->index);
	else if (*st && l->index == LAYER_PROLOGUE &&
		 ((size_t)layer + 1 >= c->n_layers || c->layers[layer + 1].stack != l->stack))
		snprintf(buf, cap, "%s", st); /* a part without layers: "backward" */
	else if (*st && l->index == LAYER_PROLOGUE)
		snprintf(buf, cap, "%s.prologue", st);
	else
		snprintf(buf, cap, "%s", l->index == LAYER_PROLOGUE ? "prologue" : "epilogue");
	return buf;
}

/* Whether layers a and b (indices into c->layers) are numbered layers of one stack, b the next
 * after a. */
static int next_in_stack(const struct comparison *c, int32_t a, int32_t b)
{
	const struct comparison_layer *x = &c->layers[a], *y = &c->layers[b];

	return x->index >= 0 && y->stack == x->stack && y->index == x->index + 1;
}

static int valid(const struct comparison *c, int32_t layer)
{
	return layer >= 0 && (size_t)layer < c->n_layers;
}

#define ADD(...)                                                                    \
	do {                                                                        \
		if (len < cap)                                                      \
			len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__); \
	} while (0)

void comparison_layer_ranges(const struct comparison *c, const int32_t *layers, uint32_t n,
			     char *buf, size_t cap)
{
	size_t len = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && len < cap; i++) {
		const struct comparison_layer *l;
		const char *st;
		uint32_t j = i;

		if (!valid(c, layers[i]))
			continue;
		l = &c->layers[layers[i]];
		st = stack_of(c, l);
		if (l->index < 0) {
			char label[80];

			if (!*st)
				snprintf(label, sizeof label, "%s",
					 l->index == LAYER_PROLOGUE ? "pro" : "epi");
			else
				comparison_layer_label(c, layers[i], label, sizeof label);
			ADD("%s%s", len ? "," : "", label);
			continue;
		}
		while (j + 1 < n && valid(c, layers[j + 1]) &&
		       next_in_stack(c, layers[j], layers[j + 1]))
			j++;
		ADD("%s%s%s%d", len ? "," : "", st, *st ? "." : "", (int)l->index);
		if (j > i)
			ADD("-%d", (int)c->layers[layers[j]].index);
		i = j;
	}
}

/* Whether layer is a part without layers of its own (a training step's backward part). */
static int whole_part(const struct comparison *c, int32_t layer)
{
	const struct comparison_layer *l = &c->layers[layer];

	return *stack_of(c, l) && l->index == LAYER_PROLOGUE &&
	       ((size_t)layer + 1 >= c->n_layers || c->layers[layer + 1].stack != l->stack);
}

void comparison_layer_text(const struct comparison *c, const int32_t *layers, uint32_t n, char *buf,
			   size_t cap)
{
	char phrase[8][160];
	size_t n_phr = 0, len = 0;
	int numbered_at = -1;

	if (cap == 0)
		return;
	buf[0] = '\0';
	/* one phrase per prologue, epilogue or part, one for all the numbered layers (where the
	 * first of them is) */
	for (uint32_t i = 0; i < n && n_phr < 8; i++) {
		const struct comparison_layer *l;

		if (!valid(c, layers[i]))
			continue;
		l = &c->layers[layers[i]];
		if (whole_part(c, layers[i]))
			snprintf(phrase[n_phr++], sizeof phrase[0], "the %s part", stack_of(c, l));
		else if (l->index == LAYER_PROLOGUE && !*stack_of(c, l))
			snprintf(phrase[n_phr++], sizeof phrase[0], "the prologue");
		else if (l->index == LAYER_EPILOGUE)
			snprintf(phrase[n_phr++], sizeof phrase[0], "the epilogue");
		else if (numbered_at < 0)
			numbered_at = (int)n_phr++;
	}
	if (numbered_at >= 0) {
		char *p = phrase[numbered_at];
		size_t pl = 0, cp = sizeof phrase[0], count = 0;
		int first = 1;

		for (uint32_t i = 0; i < n; i++) {
			const struct comparison_layer *l;

			if (!valid(c, layers[i]))
				continue;
			l = &c->layers[layers[i]];
			count += !(whole_part(c, layers[i]) ||
				   (l->index == LAYER_PROLOGUE && !*stack_of(c, l)) ||
				   l->index == LAYER_EPILOGUE);
		}
		pl += (size_t)snprintf(p, cp, "layer%s ", count > 1 ? "s" : "");
		for (uint32_t i = 0; i < n && pl < cp; i++) {
			const struct comparison_layer *l;
			char label[80];
			uint32_t j = i;

			if (!valid(c, layers[i]))
				continue;
			l = &c->layers[layers[i]];
			if (whole_part(c, layers[i]) ||
			    (l->index == LAYER_PROLOGUE && !*stack_of(c, l)) ||
			    l->index == LAYER_EPILOGUE)
				continue;
			comparison_layer_label(c, layers[i], label, sizeof label);
			pl += (size_t)snprintf(p + pl, cp - pl, "%s%s", first ? "" : ", ", label);
			first = 0;
			if (l->index < 0)
				continue;
			while (j + 1 < n && valid(c, layers[j + 1]) &&
			       next_in_stack(c, layers[j], layers[j + 1]))
				j++;
			if (pl < cp && (j > i + 1 || (j > i && !*stack_of(c, l))))
				pl += (size_t)snprintf(p + pl, cp - pl, "%s%d",
						       j > i + 1 ? "-" : ", ",
						       (int)c->layers[layers[j]].index);
			else if (pl < cp && j > i)
				pl += (size_t)snprintf(
					p + pl, cp - pl, ", %s",
					comparison_layer_label(c, layers[j], label, sizeof label));
			i = j;
		}
	}
	for (size_t k = 0; k < n_phr; k++)
		ADD("%s%s", k == 0 ? "" : k + 1 == n_phr ? " and " : ", ", phrase[k]);
}
