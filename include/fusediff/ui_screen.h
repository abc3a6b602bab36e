/* ui_screen.h — the terminal: opening it (a real terminal, or ncurses drawing into memory for
 * --headless and the render tests), reading keys and mouse events, the size and its changes,
 * restoring the terminal on every exit path, and reading the drawn screen back as text.
 * Also the pure layout function that places the parts of the explorer for a given size. */
#ifndef FUSEDIFF_UI_SCREEN_H
#define FUSEDIFF_UI_SCREEN_H

#include <stdio.h>

#include "fusediff/util.h"

#define UI_MIN_COLS 60
#define UI_MIN_ROWS 15

struct ui_screen;

struct ui_screen_opts {
	int headless;	   /* draw into memory: no terminal is read or written */
	int cols, rows;	   /* headless size (0: 120x40) */
	const char *theme; /* "dark", "light", "mono"; NULL: dark */
	int no_color;	   /* monochrome whatever the theme */
	int no_mouse;
};

/* Open the screen. Interactive: the terminal on standard output, keys from standard input
 * or, when that is not a terminal (a trace read from '-'), from /dev/tty; SIGINT, SIGTERM and
 * SIGHUP (or the terminal hanging up) make ui_screen_read() return -1, Ctrl-Z suspends and fg
 * resumes inside ui_screen_read(), and a crash restores the terminal before the program dies;
 * standard error, when it is the same terminal, is held back until the terminal is restored.
 * Headless: ncurses on /dev/null at the given size. Both ignore SIGXFSZ while open (a write
 * beyond ulimit -f fails with EFBIG). Owned by caller: close with ui_screen_close() (which
 * restores the terminal, the signal handlers and standard error). Errors: no usable
 * terminal, unknown theme. */
int ui_screen_open(struct ui_screen **out, const struct ui_screen_opts *o, struct fd_error *err);
void ui_screen_close(struct ui_screen *s);

int ui_screen_headless(const struct ui_screen *s);
void ui_screen_size(const struct ui_screen *s, int *cols, int *rows);
/* Headless: change the size (the explorer then sees UI_KEY_RESIZE). */
void ui_screen_resize(struct ui_screen *s, int cols, int rows);
/* Send what was drawn to the terminal. */
void ui_screen_flush(struct ui_screen *s);
/* Put text (len bytes) on the terminal's clipboard with the OSC 52 escape sequence, which
 * terminals that allow it (and tmux with set-clipboard on) honour, over SSH too. Headless:
 * nothing is sent; the text is kept for ui_screen_clipboard(). Returns 0, or -1 when text is
 * too long for one sequence (more than 74 KiB). */
int ui_screen_copy(struct ui_screen *s, const char *text, size_t len);
/* Headless: the last text given to ui_screen_copy() (borrowed), "" when none. */
const char *ui_screen_clipboard(const struct ui_screen *s);

enum ui_mouse {
	UI_MOUSE_NONE,
	UI_MOUSE_CLICK,
	UI_MOUSE_DOUBLE,
	UI_MOUSE_WHEEL_UP,
	UI_MOUSE_WHEEL_DOWN
};

struct ui_event {
	int key;   /* code point or UI_KEY_* (ui_actions.h) */
	int mouse; /* enum ui_mouse when key is UI_KEY_MOUSE */
	int x, y;
};

/* Wait up to timeout_ms (-1: forever) for a key. Returns 1 with *ev filled in, 0 on timeout,
 * or -1 when a terminating signal arrived (ui_screen_signal() says which), within a tenth of
 * a second of it. After Ctrl-Z and fg the event is UI_KEY_RESIZE: redraw everything. */
int ui_screen_read(struct ui_screen *s, struct ui_event *ev, int timeout_ms);
/* A mouse report in the SGR encoding (mode 1006), the bytes after ESC [ <: "B;X;Y" then M for
 * a press, m for a release; X and Y count from 1, so columns past 223 (which the X10 encoding
 * cannot carry) are reported too. A press of the first button is a click, a second one on
 * the same cell within 400 ms a double click; buttons 64 and 65 are the wheel. Returns 1 with
 * ev filled in, 0 for a report that is none of those (a release, a drag, another button) or is
 * malformed. Both the terminal (ui_screen_read()) and the script's :input come here. */
int ui_screen_mouse_report(struct ui_screen *s, const char *report, struct ui_event *ev);
/* The terminating signal received (SIGINT, SIGTERM, SIGHUP; SIGHUP also when the terminal
 * hung up), or 0. */
int ui_screen_signal(void);

/* Write the screen as text: one line per row, trailing blanks removed, UTF-8 when the locale
 * is. Returns 0, or -1 when writing fails. */
int ui_screen_dump(struct ui_screen *s, FILE *f);

/* Where the parts of the explorer go on a cols x rows screen (a pure function). header_h is
 * the header's lines (3, or 4 with a line of warnings); evidence is the evidence pane's size;
 * table_rows the rows the table shows (-1: unknown): a short table leaves its empty lines to
 * the evidence pane. */
enum ui_evidence_size { EVIDENCE_SMALL, EVIDENCE_LARGE, EVIDENCE_HIDDEN, EVIDENCE_SIZES };

struct ui_layout {
	int cols, rows;
	int too_small; /* below UI_MIN_COLS x UI_MIN_ROWS: only a message is drawn */
	int header_y, header_h;
	int tabs_y;
	int table_y, table_h;	    /* the column titles, then table_h - 1 rows */
	int evidence_y, evidence_h; /* a title line, then evidence_h - 1 lines; 0 when hidden */
	int status_y;
};
void ui_layout_compute(int cols, int rows, int header_h, int evidence, long table_rows,
		       struct ui_layout *out);

#endif
