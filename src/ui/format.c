/* format.c — numbers, layer names, kernel names and text lines as the explorer shows them. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"

/* The reports' formatters (text.h): a figure reads the same here and there. */
void fmt_us(char *buf, size_t cap, double ns)
{
	text_us(buf, cap, ns);
}

void fmt_delta(char *buf, size_t cap, double ns)
{
	text_signed_us(buf, cap, ns);
}

void fmt_ratio(char *buf, size_t cap, double r)
{
	text_ratio(buf, cap, r);
}

void fmt_count(char *buf, size_t cap, double n)
{
	text_count(buf, cap, n);
}

double ratio_key(double a, double b)
{
	if (a > 0)
		return b / a;
	return b > 0 ? INFINITY : NAN;
}

int delta_role(double d)
{
	if (isnan(d) || llround(d) == 0)
		return ROLE_NORMAL;
	return d > 0 ? ROLE_WORSE : ROLE_BETTER;
}

int delta_role_ci(double d, const struct comparison_ci *ci)
{
	return ci->significant == 0 ? ROLE_DIM : delta_role(d);
}

/* The words of a part's kind, as the reports say them. */
static const char *part_kind_text(int kind)
{
	static const char *const what[ATTR_COUNT] = {
		"fusion", "horizontal fusion", "partial fusion",    "A only",
		"B only", "matched, B faster", "matched, B slower", "matched, same time"
	};

	return kind >= 0 && kind < ATTR_COUNT ? what[kind] : "?";
}

void ui_part_label(const struct comparison *c, size_t part, char *buf, size_t cap)
{
	const struct comparison_attribution *a = &c->attribution[part];

	if (a->fusion >= 0)
		snprintf(buf, cap, "%s #%u %s", part_kind_text(a->kind), c->fusions[a->fusion].id,
			 class_name((enum op_class)a->cls));
	else
		snprintf(buf, cap, "%s %s", part_kind_text(a->kind),
			 class_name((enum op_class)a->cls));
}

const struct kernel_info *ui_name_info(const struct ui *u, int side, uint32_t name)
{
	const struct side *sd = u->c->side[side];

	if (name >= u->names.n_info[side] || u->names.info[side][name] == UINT32_MAX)
		return NULL;
	return &sd->classes.infos[u->names.info[side][name]];
}

/* The name in the current form; ops: the ops form of an Inductor kernel in the short one. */
static const char *name_in_form(const struct ui *u, int side, uint32_t name, int ops)
{
	const struct kernel_info *ki = ui_name_info(u, side, name);

	if (u->names.form == NAMES_SHORT && ki && ops && ki->ops_name)
		return ki->ops_name;
	if (u->names.form == NAMES_SHORT && ki && ki->short_name && *ki->short_name)
		return ki->short_name;
	if (u->names.form == NAMES_DEMANGLED && ki && ki->demangled)
		return ki->demangled;
	return trace_str(u->c->side[side]->t, name);
}

const char *ui_name(const struct ui *u, int side, uint32_t name)
{
	return name_in_form(u, side, name, 1);
}

const char *ui_name_full(const struct ui *u, int side, uint32_t name)
{
	return name_in_form(u, side, name, 0);
}

/* s at buf + len, cut at cap (the text's end kept in place as snprintf() keeps it) */
static size_t put_text(char *buf, size_t cap, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (len + 1 < cap)
		memcpy(buf + len, s, len + n < cap ? n + 1 : cap - 1 - len);
	if (len + n >= cap && cap)
		buf[cap - 1] = '\0';
	return len + n;
}

size_t ui_names_join(const struct ui *u, int side, const uint32_t *names, uint32_t n, char *buf,
		     size_t cap)
{
	char head[32];
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	if (n > 1) { /* a cell of several kernels says so */
		snprintf(head, sizeof head, "%u kernels: ", n);
		len = put_text(buf, cap, len, head);
	}
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			len = put_text(buf, cap, len, " + ");
		len = put_text(buf, cap, len, ui_name(u, side, names[i]));
	}
	return len;
}

char *ui_part_names(const struct ui *u, const struct comparison_pair *p, int side)
{
	const struct comparison_part *part = &p->side[side];
	const char *first = part->n_names ? ui_name(u, side, part->names[0]) : "-";
	char *esc = text_escape_dup(first, strlen(first)), *out;

	if (part->n_names < 2)
		return esc;
	out = xasprintf("%u kernels: %s + %s", part->n_names, esc, u->s->g->ellipsis);
	free(esc);
	return out;
}

void ui_set_message(struct ui *u, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->msg.text, sizeof u->msg.text, fmt, ap);
	va_end(ap);
	u->msg.role = role;
}

void ui_text_add(struct ui_text *t, int role, int raw, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	VEC_RESERVE(t->lines, t->n, t->cap);
	t->lines[t->n++] = (struct ui_line){ s, role, raw };
}

void ui_text_wrap(struct ui_screen *s, struct ui_text *t, int role, const char *prefix,
		  const char *text, int width, int indent)
{
	char *esc = text_escape_dup(text, strlen(text));
	size_t len = strlen(esc), i = 0, plen = strlen(prefix);
	int first = 1;

	if (width < indent + 10)
		width = indent + 10;
	do {
		int avail = width - (first ? ui_text_width(s, prefix, 1) : indent), used = 0;
		size_t start = i, cut = 0;

		/* take whole characters while they fit; prefer to break after a space or comma */
		while (i < len) {
			unsigned char c = (unsigned char)esc[i];
			size_t n = c < 0x80		? 1
				   : (c & 0xe0) == 0xc0 ? 2
				   : (c & 0xf0) == 0xe0 ? 3
							: 4;

			if (used + 1 > avail)
				break;
			i += n;
			used++;
			if (c == ' ' || c == ',')
				cut = i;
		}
		/* break at a space or after a comma rather than inside a word, unless that would
		 * waste most of the line */
		if (i < len && esc[i] != ' ' && cut > start && cut - start > (size_t)avail / 3)
			i = cut;
		{
			size_t end = i;

			while (end > start && esc[end - 1] == ' ')
				end--;
			ui_text_add(t, role, 1, "%*s%.*s%.*s", first ? 0 : indent, "",
				    first ? (int)plen : 0, prefix, (int)(end - start), esc + start);
		}
		while (i < len && esc[i] == ' ')
			i++;
		first = 0;
	} while (i < len);
	free(esc);
}

void ui_text_clear(struct ui_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lines[i].text);
	free(t->lines);
	memset(t, 0, sizeof *t);
}

char *ui_pair_names(const struct ui *u, uint32_t first, uint32_t n, const uint32_t *part,
		    uint32_t want)
{
	enum { MAX_BYTES = 65536 }; /* enough to find a kernel; bounded for crafted traces */
	const struct comparison *c = u->c;
	size_t len = 0, cap = 256;
	char *out = xmalloc(cap);
	uint8_t *seen[2];

	out[0] = '\0';
	for (int s = 0; s < 2; s++)
		seen[s] = xcalloc(intern_count(c->side[s]->t->strings) + 1, 1);
	for (uint32_t i = first; i < first + n && i < c->n_pairs && len < MAX_BYTES; i++) {
		if (part && part[i] != want)
			continue;
		for (int s = 0; s < 2; s++) {
			const struct comparison_part *p = &c->pairs[i].side[s];

			for (uint32_t k = 0; k < p->n_names && len < MAX_BYTES; k++) {
				uint32_t id = p->names[k];
				const char *name, *shown;
				size_t nl;

				if (seen[s][id])
					continue;
				seen[s][id] = 1;
				/* the name shown and the name in the trace (or the report) */
				shown = ui_name(u, s, id);
				for (int form = 0; form < 2; form++) {
					name = form ? comparison_short_name(c, s, id) : shown;
					if (form && strcmp(name, shown) == 0)
						break;
					nl = strlen(name);
					while (len + nl + 2 > cap)
						out = xrealloc(out, cap *= 2);
					memcpy(out + len, name, nl);
					len += nl;
					out[len++] = '\n';
					out[len] = '\0';
				}
			}
		}
	}
	free(seen[0]);
	free(seen[1]);
	return out;
}

void fmt_eff(char *buf, size_t cap, const struct comparison_eff *e)
{
	char tf[16], pct[40];

	buf[0] = '\0';
	if (!(e->tflops > 0))
		return;
	if (e->tflops < 9.95)
		snprintf(tf, sizeof tf, "%.2g", e->tflops);
	else
		text_fixed(tf, sizeof tf, e->tflops, 0, 0);
	if (e->peak_share >= 0 && e->peak_share < 100)
		snprintf(buf, cap, "%s %s%%", tf,
			 text_fixed(pct, sizeof pct, e->peak_share * 100, 0, 0));
	else
		snprintf(buf, cap, "%s", tf);
}

double eff_key(const struct comparison_eff *e)
{
	if (!(e->tflops > 0))
		return NAN;
	return e->peak_share >= 0 ? e->peak_share : e->tflops / 1e6;
}
