/* ui_int.h — what the files of the UI library share: the screen's state, theme attributes,
 * glyphs and drawing helpers. Private to src/ui/ (the only place that includes curses). */
#ifndef FUSEDIFF_UI_INT_H
#define FUSEDIFF_UI_INT_H

#include <curses.h>
#include <stdint.h>

#include "fusediff/table.h"
#include "fusediff/ui_screen.h"
#include "fusediff/ui_theme.h"

/* Characters for bars, gaps and trees: Unicode when the locale is UTF-8, else ASCII. */
struct ui_glyphs {
	const char *bar_full;
	const char *bar_part[8];	  /* [i]: i eighths of a cell; [0] unused */
	const char *gap;		  /* a missing kernel */
	const char *tree_mid, *tree_last; /* continuation rows of a group */
	const char *up, *down;		  /* sort direction */
	const char *sep;		  /* between view names */
	const char *ellipsis;		  /* text cut short */
	const char *hline;
	const char *arrow;  /* breadcrumbs */
	const char *box[5]; /* a popup's frame: top left, top right, bottom left, bottom right,
			       vertical (horizontal: hline) */
};

struct ui_screen {
	SCREEN *term;
	FILE *out,
		*in; /* headless: /dev/null; interactive: in is /dev/tty when stdin is no terminal */
	int headless;
	int suspended; /* Ctrl-Z: the terminal was given back (endwin) and not taken again */
	int theme;     /* enum ui_theme_id in effect */
	int mouse;     /* the terminal reports the mouse (SGR, button events) */
	double mouse_press_ms;	/* the last click's time (CLOCK_MONOTONIC) and cell, for */
	int mouse_px, mouse_py; /* a double click */
	int utf8;
	const struct ui_glyphs *g;
	attr_t attr[ROLE_COUNT];
	char *clipboard; /* headless: the last text copied (ui_screen_copy()) */
};

/* theme.c: set up colour pairs and the attribute of every role. */
void ui_theme_apply(struct ui_screen *s, int theme);

/* draw.c */
enum {
	PUT_PAD = 1,	/* fill the rest of the width with blanks */
	PUT_RIGHT = 2,	/* align to the right edge of the width */
	PUT_RAW = 4,	/* the text is already safe to show (our own text): do not escape */
	PUT_MIDDLE = 8, /* too long (and not scrolled): cut in the middle, so that the end that
			   tells names apart stays (Cijk_Alik_…_MT64x16x128) */
};
/* Draw text (raw bytes, escaped unless PUT_RAW) at y, x in at most w cells, skipping the
 * first skip cells; a cut shows the ellipsis glyph. Returns the cells used. */
int ui_put(struct ui_screen *s, int y, int x, int w, const char *text, int role, int flags,
	   int skip);
/* Cells of the ellipsis glyph. */
int ui_ellipsis_width(const struct ui_screen *s);
/* printf into the screen (our own text, not escaped), clipped to w cells. */
int ui_putf(struct ui_screen *s, int y, int x, int w, int role, int flags, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Display width of raw text once escaped. */
int ui_text_width(const struct ui_screen *s, const char *text, int raw);
/* Copy text (already escaped) into buf (cap bytes), cut to at most w cells with the ellipsis
 * glyph and padded with blanks to exactly w cells: a fixed-width column in a text line. */
void ui_clip(const struct ui_screen *s, const char *text, int w, char *buf, size_t cap);
void ui_fill(struct ui_screen *s, int y, int x, int w, int role);
/* A popup: a frame of h x w cells at y, x with title on its top edge, its inside cleared in
 * role. The inside is y + 1 .. y + h - 2, x + 1 .. x + w - 2. */
void ui_frame(struct ui_screen *s, int y, int x, int h, int w, const char *title, int role);
/* A horizontal bar of frac (0..1) of w cells. */
void ui_bar(struct ui_screen *s, int y, int x, int w, double frac, int role, int fill_role);
/* Draw the column titles at y and h - 1 rows below, w cells wide from x. focused: the
 * selection is drawn with ROLE_SELECTION, else ROLE_SELECTION_INACTIVE. Adjusts t->top. */
void ui_draw_table(struct ui_screen *s, struct table *t, int y, int x, int w, int h, int focused);
/* The row id under screen line y of a table drawn at table_y with height h, or TABLE_NONE. */
uint32_t ui_table_row_at(const struct table *t, int table_y, int h, int y);

#endif
