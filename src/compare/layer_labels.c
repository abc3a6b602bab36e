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

void comparison_layer_text(const struct comparison *c, const int32_t *layers, uint32_t n, char *buf,
			   size_t cap)
{
	size_t len = 0;
	int have_pro = 0, have_epi = 0;
	uint32_t numbered = 0, parts = 0, done = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		const struct comparison_layer *l;

		if (!valid(c, layers[i]))
			continue;
		l = &c->layers[layers[i]];
		if (l->index >= 0 || *stack_of(c, l))
			numbered++;
		else if (l->index == LAYER_PROLOGUE)
			have_pro = 1;
		else
			have_epi = 1;
	}
	parts = (uint32_t)have_pro + (numbered > 0) + (uint32_t)have_epi;
	if (have_pro) {
		ADD("the prologue");
		done++;
		ADD("%s", done == parts ? "" : done + 1 == parts ? " and " : ", ");
	}
	if (numbered) {
		int first = 1;

		ADD("layer%s ", numbered > 1 ? "s" : "");
		for (uint32_t i = 0; i < n; i++) {
			const struct comparison_layer *l;
			char label[80];
			uint32_t j = i;

			if (!valid(c, layers[i]))
				continue;
			l = &c->layers[layers[i]];
			if (l->index < 0 && !*stack_of(c, l))
				continue;
			comparison_layer_label(c, layers[i], label, sizeof label);
			ADD("%s%s", first ? "" : ", ", label);
			first = 0;
			if (l->index < 0)
				continue;
			while (j + 1 < n && valid(c, layers[j + 1]) &&
			       next_in_stack(c, layers[j], layers[j + 1]))
				j++;
			if (j > i + 1 || (j > i && !*stack_of(c, l)))
				ADD("%s%d", j > i + 1 ? "-" : ", ",
				    (int)c->layers[layers[j]].index);
			else if (j > i)
				ADD(", %s",
				    comparison_layer_label(c, layers[j], label, sizeof label));
			i = j;
		}
		done++;
		ADD("%s", done == parts ? "" : " and ");
	}
	if (have_epi)
		ADD("the epilogue");
}
