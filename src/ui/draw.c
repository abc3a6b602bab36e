/* draw.c — text, bars and the generic table on the screen. Every kernel name goes through
 * text_escape() here: raw bytes from a trace never reach the terminal. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "fusediff/text.h"
#include "ui_int.h"

/* Decode the next character of s (len bytes left): its wide value, its width in cells and
 * its length in bytes. Anything that is not printable in this locale becomes '?'. */
static size_t next_char(const struct ui_screen *s, const char *p, size_t len, wchar_t *wc, int *w)
{
	unsigned char c = (unsigned char)*p;

	if (c < 0x80 || !s->utf8) {
		*wc = c >= 0x20 && c < 0x7f ? (wchar_t)c : L'?';
		*w = 1;
		return 1;
	} else {
		mbstate_t st;
		size_t n;

		memset(&st, 0, sizeof st);
		n = mbrtowc(wc, p, len, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			*wc = L'?';
			*w = 1;
			return 1;
		}
		*w = wcwidth(*wc);
		if (*w < 0) {
			*wc = L'?';
			*w = 1;
		}
		return n;
	}
}

int ui_text_width(const struct ui_screen *s, const char *text, int raw)
{
	char small[512], *esc = small;
	size_t len;
	int width = 0;

	if (!raw) {
		len = text_escape(small, sizeof small, text, strlen(text));
		if (len >= sizeof small)
			esc = text_escape_dup(text, strlen(text));
	} else {
		len = strlen(text);
		esc = (char *)text;
	}
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		int w;

		i += next_char(s, esc + i, len - i, &wc, &w);
		width += w;
	}
	if (esc != small && esc != text)
		free(esc);
	return width;
}

void ui_clip(const struct ui_screen *s, const char *text, int w, char *buf, size_t cap)
{
	const char *ell = s->g->ellipsis;
	size_t len = strlen(text), ell_len = strlen(ell), o = 0, fit = 0;
	int used = 0, ew = ui_text_width(s, ell, 1), fit_used = 0;

	if (cap == 0)
		return;
	for (size_t i = 0; i < len;) { /* the longest prefix that fits, and the one that leaves
					* room for the ellipsis */
		wchar_t wc;
		int cw;
		size_t n = next_char(s, text + i, len - i, &wc, &cw);

		if (used + cw > w)
			break;
		i += n;
		used += cw;
		if (used + ew <= w) {
			fit = i;
			fit_used = used;
		}
		o = i;
	}
	if (o < len) { /* cut: the prefix that leaves room, then the ellipsis */
		o = fit;
		used = fit_used;
	}
	if (o >= cap)
		o = cap - 1;
	memcpy(buf, text, o);
	if (o < len && o + ell_len < cap && used + ew <= w) {
		memcpy(buf + o, ell, ell_len);
		o += ell_len;
		used += ew;
	}
	while (used < w && o + 1 < cap) {
		buf[o++] = ' ';
		used++;
	}
	buf[o] = '\0';
}

void ui_fill(struct ui_screen *s, int y, int x, int w, int role)
{
	if (w <= 0 || y < 0 || y >= LINES)
		return;
	attrset(s->attr[role]);
	mvhline(y, x, ' ', w);
}

void ui_frame(struct ui_screen *s, int y, int x, int h, int w, const char *title, int role)
{
	const struct ui_glyphs *g = s->g;

	if (h < 2 || w < 2)
		return;
	for (int i = 0; i < h; i++) {
		const char *l = i == 0 ? g->box[0] : i == h - 1 ? g->box[2] : g->box[4];
		const char *r = i == 0 ? g->box[1] : i == h - 1 ? g->box[3] : g->box[4];

		ui_fill(s, y + i, x, w, role);
		ui_put(s, y + i, x, 1, l, role, PUT_RAW, 0);
		ui_put(s, y + i, x + w - 1, 1, r, role, PUT_RAW, 0);
		if (i == 0 || i == h - 1)
			for (int k = 1; k < w - 1; k++)
				ui_put(s, y + i, x + k, 1, g->hline, role, PUT_RAW, 0);
	}
	if (title && *title)
		ui_put(s, y, x + 2, w - 4, title, ROLE_TITLE, PUT_RAW, 0);
}

/* Text (escaped) that is wider than w cells, cut in the middle: its first cells, the ellipsis,
 * its last cells. Returns the cells used. */
static int put_middle(struct ui_screen *s, int y, int x, int w, const char *esc, int role,
		      int flags)
{
	size_t len = strlen(esc), n = 0;
	wchar_t *wc = xmalloc((len + 2) * sizeof *wc), *out = xmalloc((len + 2) * sizeof *out), ell;
	int *cw = xmalloc((len + 1) * sizeof *cw), ew, head, tail, used = 0, t = 0;
	size_t n_out = 0, from;

	for (size_t i = 0; i < len;)
		i += next_char(s, esc + i, len - i, &wc[n], &cw[n]), n++;
	next_char(s, s->g->ellipsis, strlen(s->g->ellipsis), &ell, &ew);
	head = (w - ew + 1) / 2;
	tail = w - ew - head;
	for (size_t i = 0; i < n && used + cw[i] <= head; i++)
		out[n_out++] = wc[i], used += cw[i];
	out[n_out++] = ell;
	used += ew;
	for (from = n; from > 0 && t + cw[from - 1] <= tail; from--)
		t += cw[from - 1];
	for (size_t i = from; i < n; i++)
		out[n_out++] = wc[i];
	used += t;
	out[n_out] = L'\0';
	attrset(s->attr[role]);
	mvaddnwstr(y, x, out, (int)n_out);
	if ((flags & PUT_PAD) && used < w)
		ui_fill(s, y, x + used, w - used, role);
	free(wc);
	free(out);
	free(cw);
	return used;
}

/* A name (escaped) scrolled skip cells to the left, when it is wider than w (one that fits
 * stays): its tree glyph stays, the ellipsis says
 * that its start is scrolled off, and what is left is cut in the middle when still too wide,
 * so that the tail that tells names apart stays. Returns the cells used. */
static int put_scrolled(struct ui_screen *s, int y, int x, int w, const char *esc, int role,
			int flags, int skip)
{
	const char *glyphs[2] = { s->g->tree_mid, s->g->tree_last }, *keep = "", *p = esc;
	size_t left = strlen(esc);
	char *shown;
	int cells;

	if (ui_text_width(s, esc, 1) <= w) /* a name that fits (or a gap) does not move */
		return ui_put(s, y, x, w, esc, role, flags | PUT_RAW, 0);
	for (int i = 0; i < 2; i++)
		if (*glyphs[i] && strncmp(esc, glyphs[i], strlen(glyphs[i])) == 0) {
			keep = glyphs[i];
			p += strlen(keep);
			left -= strlen(keep);
			break;
		}
	while (left > 0 && skip > 0) {
		wchar_t wc;
		int cw;
		size_t n = next_char(s, p, left, &wc, &cw);

		skip -= cw;
		p += n;
		left -= n;
	}
	shown = xasprintf("%s%s%s", keep, s->g->ellipsis, p);
	cells = ui_put(s, y, x, w, shown, role, flags | PUT_RAW, 0);
	free(shown);
	return cells;
}

int ui_ellipsis_width(const struct ui_screen *s)
{
	wchar_t ell;
	int ew;

	next_char(s, s->g->ellipsis, strlen(s->g->ellipsis), &ell, &ew);
	return ew;
}

int ui_put(struct ui_screen *s, int y, int x, int w, const char *text, int role, int flags,
	   int skip)
{
	char small[1024], *esc = small;
	wchar_t out_small[256], *out = out_small;
	size_t len, n_out = 0, cap_out;
	int used = 0, cut = 0;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	if (!text)
		text = "";
	if (flags & PUT_RAW) {
		esc = (char *)text;
		len = strlen(text);
	} else {
		len = text_escape(small, sizeof small, text, strlen(text));
		if (len >= sizeof small)
			esc = text_escape_dup(text, strlen(text));
	}
	if ((flags & PUT_MIDDLE) && skip > 0) { /* scrolled: see put_scrolled */
		int cells = put_scrolled(s, y, x, w, esc, role, flags, skip);

		if (esc != small && esc != text)
			free(esc);
		return cells;
	}
	if ((flags & PUT_MIDDLE) && skip == 0 && w > 8 && ui_text_width(s, esc, 1) > w) {
		int cells = put_middle(s, y, x, w, esc, role, flags);

		if (esc != small && esc != text)
			free(esc);
		return cells;
	}
	if (flags & PUT_RIGHT) {
		int tw = ui_text_width(s, esc, 1);

		if (tw < w) {
			if (flags & PUT_PAD)
				ui_fill(s, y, x, w - tw, role);
			x += w - tw;
			w = tw;
		}
		skip = 0;
	}
	cap_out = (size_t)w + 2;
	if (cap_out > sizeof out_small / sizeof out_small[0])
		out = xmalloc(cap_out * sizeof *out);
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		int cw;
		size_t n = next_char(s, esc + i, len - i, &wc, &cw);

		if (skip > 0) { /* scrolled off to the left */
			skip -= cw;
			i += n;
			if (skip < 0) { /* half of a wide character: a blank */
				out[n_out++] = L' ';
				used++;
				skip = 0;
			}
			continue;
		}
		if (used + cw > w) {
			cut = 1;
			break;
		}
		out[n_out++] = wc;
		used += cw;
		i += n;
	}
	if (cut) { /* make room for the ellipsis */
		wchar_t ell;
		int ew;

		next_char(s, s->g->ellipsis, strlen(s->g->ellipsis), &ell, &ew);
		while (n_out > 0 && used + ew > w) {
			int cw = wcwidth(out[--n_out]);

			used -= cw > 0 ? cw : 1;
		}
		if (used + ew <= w) {
			out[n_out++] = ell;
			used += ew;
		}
	}
	out[n_out] = L'\0';
	attrset(s->attr[role]);
	if (n_out)
		mvaddnwstr(y, x, out, (int)n_out);
	if ((flags & PUT_PAD) && used < w)
		ui_fill(s, y, x + used, w - used, role);
	if (out != out_small)
		free(out);
	if (esc != small && esc != text)
		free(esc);
	return used;
}

int ui_putf(struct ui_screen *s, int y, int x, int w, int role, int flags, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ui_put(s, y, x, w, buf, role, flags | PUT_RAW, 0);
}

void ui_bar(struct ui_screen *s, int y, int x, int w, double frac, int role, int fill_role)
{
	int eighths, full, part;

	if (w <= 0)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	eighths = (int)(frac * w * 8 + 0.5);
	full = eighths / 8;
	part = eighths % 8;
	if (!s->utf8) { /* no partial cells in ASCII: round */
		full += part >= 4;
		part = 0;
	}
	if (full > w)
		full = w;
	attrset(s->attr[role]);
	for (int i = 0; i < full; i++)
		mvaddstr(y, x + i, s->g->bar_full);
	if (part && full < w) {
		mvaddstr(y, x + full, s->g->bar_part[part]);
		full++;
	}
	ui_fill(s, y, x + full, w - full, fill_role);
}

/* A bar from the middle of w cells: frac < 0 to the left in role_neg, > 0 to the right in
 * role_pos, |frac| of the half; a thin mark in the middle. */
static void ui_bar_signed(struct ui_screen *s, int y, int x, int w, double frac, int role_neg,
			  int role_pos, int fill_role)
{
	int half = w / 2, n;

	if (w < 3) {
		ui_bar(s, y, x, w, fabs(frac), frac < 0 ? role_neg : role_pos, fill_role);
		return;
	}
	if (!(frac >= -1))
		frac = frac != frac ? 0 : -1;
	if (frac > 1)
		frac = 1;
	/* the left half: whole cells only (no glyph grows leftwards) */
	n = frac < 0 ? (int)(-frac * half + 0.5) : 0;
	ui_fill(s, y, x, half - n, fill_role);
	attrset(s->attr[role_neg]);
	for (int i = half - n; i < half; i++)
		mvaddstr(y, x + i, s->g->bar_full);
	ui_put(s, y, x + half, 1, s->utf8 ? "\xe2\x94\x82" : "|", fill_role, PUT_RAW, 0);
	ui_bar(s, y, x + half + 1, w - half - 1, frac > 0 ? frac : 0, role_pos, fill_role);
}

/* A number with up to two decimals followed by blanks so that its decimal point (after the
 * last digit when it has none) stands where two decimals would put it: right-aligned cells
 * of one column then line up on the point. Anything else, or what would not fit in width
 * cells, as it is. */
static const char *decimal_aligned(const char *text, int width, char *buf, size_t cap)
{
	const char *p = text, *dot;
	size_t len = strlen(text), dec, pad;

	if (*p == '+' || *p == '-')
		p++;
	if (!*p || strspn(p, "0123456789.") != strlen(p) || strchr(p, '.') != strrchr(p, '.'))
		return text;
	dot = strchr(p, '.');
	dec = dot ? strlen(dot + 1) : 0;
	if (dec > 2)
		return text;
	pad = dot ? 2 - dec : 3;
	if (len + pad > (size_t)width || len + pad + 1 > cap)
		return text;
	snprintf(buf, cap, "%s%*s", text, (int)pad, "");
	return buf;
}

void ui_draw_table(struct ui_screen *s, struct table *t, int y, int x, int w, int h, int focused)
{
	struct table_layout l;
	char buf[4096], buf2[128], cut[1024];

	if (h < 1 || w < 1)
		return;
	table_layout_of(t, w, &l);
	/* column titles */
	ui_fill(s, y, x, w, ROLE_COLUMN);
	for (int i = 0; i < l.n; i++) {
		const struct table_column *c = &t->def.cols[l.col[i]];
		int sorted = l.col[i] == t->sort_col;

		if (sorted) {
			int desc = table_sort_descending(t);
			int room = l.w[i] - 1; /* the marker always shows: the title gives way */
			char title[128];

			/* by magnitude: |Delta| */
			snprintf(title, sizeof title, table_sort_by_magnitude(t) ? "|%s|" : "%s",
				 c->title);
			if (room > 0 && (int)text_width(title) > room)
				snprintf(buf, sizeof buf, "%.*s%s",
					 (int)text_fit(title, (size_t)room), title,
					 desc ? s->g->down : s->g->up);
			else
				snprintf(buf, sizeof buf, "%s%s", title,
					 desc ? s->g->down : s->g->up);
		} else {
			snprintf(buf, sizeof buf, "%s", c->title);
		}
		ui_put(s, y, x + l.x[i], l.w[i], buf, sorted ? ROLE_SORTED : ROLE_COLUMN,
		       PUT_RAW | PUT_PAD | (c->align == TABLE_RIGHT ? PUT_RIGHT : 0), 0);
	}
	table_scroll_to_sel(t, h - 1);
	for (int r = 1; r < h; r++) {
		uint32_t pos = t->top + (uint32_t)(r - 1);
		int selected, base;
		uint32_t row;

		if (pos >= t->n_view) {
			ui_fill(s, y + r, x, w, ROLE_NORMAL);
			continue;
		}
		row = t->view[pos];
		selected = table_group(t, row) == t->sel;
		base = selected ? (focused ? ROLE_SELECTION : ROLE_SELECTION_INACTIVE)
				: ROLE_NORMAL;
		ui_fill(s, y + r, x, w, base);
		for (int i = 0; i < l.n; i++) {
			const struct table_column *c = &t->def.cols[l.col[i]];
			struct table_cell cell;
			int role, cx = x + l.x[i], cw = l.w[i];

			table_cell(t, row, l.col[i], &cell, buf, sizeof buf);
			role = selected ? base : cell.role ? cell.role : ROLE_NORMAL;
			if ((c->flags & TABLE_COL_BAR) && (c->flags & TABLE_COL_SIGNED)) {
				ui_bar_signed(s, y + r, cx, cw, cell.bar,
					      selected ? base : ROLE_BETTER,
					      selected ? base : ROLE_WORSE, base);
				continue;
			}
			if (c->flags & TABLE_COL_BAR) {
				ui_bar(s, y + r, cx, cw, cell.bar, selected ? base : role, base);
				continue;
			}
			if (cell.indent > 0 && cell.indent < cw) {
				cx += cell.indent;
				cw -= cell.indent;
			}
			if (c->flags & TABLE_COL_DECIMAL)
				cell.text = decimal_aligned(cell.text, cw, buf2, sizeof buf2);
			if ((c->flags & TABLE_COL_SCROLL) && cell.list) {
				ui_put(s, y + r, cx, cw, cell.text, role,
				       c->align == TABLE_RIGHT ? PUT_RIGHT : 0, t->hscroll);
				continue;
			}
			if ((c->flags & TABLE_COL_SCROLL) && t->hscroll == 0 && cw > 8 &&
			    (int)strlen(cell.text) > cw &&
			    table_cut(t, l.col[i], cell.text, cw, s->g->ellipsis,
				      ui_ellipsis_width(s), cut, sizeof cut)) {
				ui_put(s, y + r, cx, cw, cut, role, PUT_RAW, 0);
				continue;
			}
			ui_put(s, y + r, cx, cw, cell.text, role,
			       (c->align == TABLE_RIGHT ? PUT_RIGHT : 0) |
				       (c->flags & TABLE_COL_SCROLL ? PUT_MIDDLE : 0),
			       (c->flags & TABLE_COL_SCROLL) ? t->hscroll : 0);
		}
	}
}

uint32_t ui_table_row_at(const struct table *t, int table_y, int h, int y)
{
	uint32_t pos;

	if (y <= table_y || y >= table_y + h)
		return TABLE_NONE;
	pos = t->top + (uint32_t)(y - table_y - 1);
	return pos < t->n_view ? t->view[pos] : TABLE_NONE;
}
