/* screen.c — terminal set-up and restoration, events, headless drawing and screen dumps
 * (see ui_screen.h). */
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "fusediff/ui_actions.h"
#include "ui_int.h"

static const struct ui_glyphs glyphs_utf8 = {
	"\u2588",
	{ "", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" },
	"\u00b7",
	"\u251c ",
	"\u2514 ",
	"\u25b2",
	"\u25bc",
	"\u2502",
	"\u2026",
	"\u2500",
	"\u203a",
};

static const struct ui_glyphs glyphs_ascii = {
	"#", { "", "", "", "", "", "", "", "" }, ".", "|-", "`-", "^", "v", "|", "~", "-", ">",
};

/* The one terminal this process has open, for the signal handlers. */
static volatile sig_atomic_t pending_signal;
static volatile sig_atomic_t terminal_open;

static void on_terminate(int sig)
{
	pending_signal = sig;
}

/* A crash must not leave the terminal in raw mode: restore it, then die as the signal says.
 * endwin() is not async-signal-safe, but the process is going down anyway. */
static void on_fatal(int sig)
{
	if (terminal_open)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	static const int term_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_terminate; /* no SA_RESTART: a blocked read returns */
	for (size_t i = 0; i < sizeof term_sigs / sizeof term_sigs[0]; i++)
		sigaction(term_sigs[i], &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++)
		sigaction(fatal_sigs[i], &sa, NULL);
}

static void restore_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
}

int ui_screen_signal(void)
{
	return pending_signal;
}

static int locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static void setup_modes(struct ui_screen *s, const struct ui_screen_opts *o)
{
	int theme = THEME_DARK;

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (o->theme)
		theme = ui_theme_from_name(o->theme);
	if (o->no_color)
		theme = THEME_MONO;
	ui_theme_apply(s, theme);
	s->mouse = !o->no_mouse && !s->headless;
	if (s->mouse) {
		mouseinterval(0);
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED |
				  BUTTON5_PRESSED,
			  NULL);
	}
}

int ui_screen_open(struct ui_screen **out, const struct ui_screen_opts *o, struct fd_error *err)
{
	struct ui_screen *s;

	*out = NULL;
	if (o->theme && ui_theme_from_name(o->theme) < 0) {
		fd_error_set(err, "unknown theme '%s' (use dark, light or mono)", o->theme);
		return -1;
	}
	s = xcalloc(1, sizeof *s);
	s->headless = o->headless;
	s->utf8 = locale_is_utf8();
	s->g = s->utf8 ? &glyphs_utf8 : &glyphs_ascii;
	if (s->headless) {
		static const char *const types[] = { "xterm-256color", "xterm", "vt100", "ansi" };
		int cols = o->cols > 0 ? o->cols : 120, rows = o->rows > 0 ? o->rows : 40;

		s->out = fopen("/dev/null", "w");
		s->in = fopen("/dev/null", "r");
		if (!s->out || !s->in) {
			fd_error_set(err, "/dev/null: %s", strerror(errno));
			goto fail;
		}
		for (size_t i = 0; i < sizeof types / sizeof types[0] && !s->term; i++)
			s->term = newterm(types[i], s->out, s->in);
		if (!s->term) {
			fd_error_set(err, "no terminal description for headless drawing (install ncurses-base)");
			goto fail;
		}
		set_term(s->term);
		resizeterm(rows, cols);
	} else {
		const char *term = getenv("TERM");

		if (!term || !*term) {
			fd_error_set(err, "TERM is not set: cannot open the explorer (use --report)");
			goto fail;
		}
		install_handlers();
		s->term = newterm(NULL, stdout, stdin);
		if (!s->term) {
			restore_handlers();
			fd_error_set(err, "cannot use the terminal '%s' (use --report)", term);
			goto fail;
		}
		set_term(s->term);
		terminal_open = 1;
	}
	setup_modes(s, o);
	*out = s;
	return 0;
fail:
	if (s->out)
		fclose(s->out);
	if (s->in)
		fclose(s->in);
	free(s);
	return -1;
}

void ui_screen_close(struct ui_screen *s)
{
	if (!s)
		return;
	if (s->term) {
		set_term(s->term);
		if (s->mouse)
			mousemask(0, NULL);
		endwin();
		delscreen(s->term);
	}
	if (!s->headless) {
		terminal_open = 0;
		restore_handlers();
		fflush(stdout);
	}
	if (s->out)
		fclose(s->out);
	if (s->in)
		fclose(s->in);
	free(s);
}

int ui_screen_headless(const struct ui_screen *s)
{
	return s->headless;
}

void ui_screen_size(const struct ui_screen *s, int *cols, int *rows)
{
	(void)s;
	*cols = COLS;
	*rows = LINES;
}

void ui_screen_resize(struct ui_screen *s, int cols, int rows)
{
	(void)s;
	resizeterm(rows, cols);
	/* headless: nobody reads the KEY_RESIZE that resizeterm queues */
	if (s->headless)
		flushinp();
}

void ui_screen_flush(struct ui_screen *s)
{
	wnoutrefresh(stdscr);
	doupdate();
	(void)s;
}

static int translate_key(int code)
{
	switch (code) {
	case KEY_UP: return UI_KEY_UP;
	case KEY_DOWN: return UI_KEY_DOWN;
	case KEY_LEFT: return UI_KEY_LEFT;
	case KEY_RIGHT: return UI_KEY_RIGHT;
	case KEY_PPAGE: return UI_KEY_PGUP;
	case KEY_NPAGE: return UI_KEY_PGDN;
	case KEY_HOME: return UI_KEY_HOME;
	case KEY_END: return UI_KEY_END;
	case KEY_ENTER: return UI_KEY_ENTER;
	case KEY_BACKSPACE: return UI_KEY_BACKSPACE;
	case KEY_DC: return UI_KEY_DELETE;
	case KEY_BTAB: return UI_KEY_BTAB;
	case KEY_RESIZE: return UI_KEY_RESIZE;
	case KEY_MOUSE: return UI_KEY_MOUSE;
	default:
		if (code >= KEY_F(1) && code <= KEY_F(12))
			return UI_KEY_F1 + code - KEY_F(1);
		return UI_KEY_NONE;
	}
}

static int translate_char(wint_t ch)
{
	switch (ch) {
	case '\r':
	case '\n': return UI_KEY_ENTER;
	case '\t': return UI_KEY_TAB;
	case 27: return UI_KEY_ESC;
	case 127:
	case 8: return UI_KEY_BACKSPACE;
	default: return (int)ch;
	}
}

int ui_screen_read(struct ui_screen *s, struct ui_event *ev, int timeout_ms)
{
	wint_t ch;
	int rc;

	memset(ev, 0, sizeof *ev);
	ev->key = UI_KEY_NONE;
	if (pending_signal)
		return -1;
	if (s->headless)
		return 0;
	timeout(timeout_ms);
	rc = wget_wch(stdscr, &ch);
	if (pending_signal)
		return -1;
	if (rc == ERR)
		return 0;
	if (rc == KEY_CODE_YES) {
		ev->key = translate_key((int)ch);
		if (ev->key == UI_KEY_MOUSE) {
			MEVENT me;

			if (getmouse(&me) != OK)
				return 0;
			ev->x = me.x;
			ev->y = me.y;
			if (me.bstate & BUTTON4_PRESSED)
				ev->mouse = UI_MOUSE_WHEEL_UP;
			else if (me.bstate & BUTTON5_PRESSED)
				ev->mouse = UI_MOUSE_WHEEL_DOWN;
			else if (me.bstate & BUTTON1_DOUBLE_CLICKED)
				ev->mouse = UI_MOUSE_DOUBLE;
			else if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
				ev->mouse = UI_MOUSE_CLICK;
			else
				return 0;
		}
	} else {
		ev->key = translate_char(ch);
	}
	return ev->key == UI_KEY_NONE ? 0 : 1;
}

int ui_screen_dump(struct ui_screen *s, FILE *f)
{
	size_t cap = (size_t)COLS * MB_LEN_MAX + 2;
	char *line = xmalloc(cap);
	int rc = 0;

	(void)s;
	for (int y = 0; y < LINES && rc == 0; y++) {
		size_t len = 0, keep = 0;

		for (int x = 0; x < COLS; x++) {
			cchar_t cc;
			wchar_t wch[CCHARW_MAX + 1] = { 0 };
			attr_t attrs;
			short pair;
			int w;

			if (mvwin_wch(stdscr, y, x, &cc) == ERR ||
			    getcchar(&cc, wch, &attrs, &pair, NULL) == ERR || wch[0] == 0) {
				line[len++] = ' ';
				continue;
			}
			w = wcwidth(wch[0]);
			if (wch[0] < 0x80) {
				line[len++] = (char)wch[0];
			} else {
				mbstate_t st;
				size_t n;

				memset(&st, 0, sizeof st);
				n = wcrtomb(line + len, wch[0], &st);
				if (n == (size_t)-1)
					line[len++] = '?';
				else
					len += n;
			}
			if (wch[0] != ' ')
				keep = len;
			if (w == 2)
				x++; /* the second cell of a wide character */
		}
		line[keep] = '\n';
		if (fwrite(line, 1, keep + 1, f) != keep + 1)
			rc = -1;
	}
	free(line);
	return rc;
}

void ui_layout_compute(int cols, int rows, int evidence, long table_rows, struct ui_layout *l)
{
	int avail;

	memset(l, 0, sizeof *l);
	l->cols = cols;
	l->rows = rows;
	if (cols < UI_MIN_COLS || rows < UI_MIN_ROWS) {
		l->too_small = 1;
		return;
	}
	l->header_y = 0;
	l->header_h = 3;
	l->tabs_y = 3;
	l->table_y = 4;
	l->status_y = rows - 1;
	avail = rows - 5; /* header, tabs, status */
	if (evidence == EVIDENCE_SMALL)
		l->evidence_h = avail / 3 < 4 ? 4 : avail / 3 > 14 ? 14 : avail / 3;
	else if (evidence == EVIDENCE_LARGE)
		l->evidence_h = avail * 2 / 3;
	l->table_h = avail - l->evidence_h;
	/* a short table leaves its empty lines to the evidence */
	if (l->evidence_h && table_rows >= 0 && table_rows + 1 < l->table_h) {
		int want = table_rows + 1 < 4 ? 4 : (int)table_rows + 1;

		l->evidence_h += l->table_h - want;
		l->table_h = want;
	}
	l->evidence_y = l->evidence_h ? l->table_y + l->table_h : 0;
}
