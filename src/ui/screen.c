/* screen.c — terminal set-up and restoration, events, headless drawing and screen dumps
 * (see ui_screen.h). */
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <term.h> /* tigetstr */

#include "fusediff/cleanup.h"
#include "fusediff/ui_actions.h"
#include <nettle/base64.h>

#include "ui_int.h"

static const struct ui_glyphs glyphs_utf8 = {
	"\u2588",  { "", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" },
	"\u00b7",  "\u251c ",
	"\u2514 ", "\u25b2",
	"\u25bc",  "\u2502",
	"\u2026",  "\u2500",
	"\u203a",  { "\u250c", "\u2510", "\u2514", "\u2518", "\u2502" },
};

static const struct ui_glyphs glyphs_ascii = {
	"#", { "", "", "", "", "", "", "", "" }, ".", "|-", "`-", "^", "v", "|", "~", "-",
	">", { "+", "+", "+", "+", "|" },
};

/* --- signals ---------------------------------------------------------------------------
 *
 * While the explorer holds the terminal:
 * - SIGINT, SIGTERM, SIGHUP only set pending_signal: the loop sees it within READ_SLICE_MS,
 *   restores the terminal and exits with 128 + the signal;
 * - SIGTSTP (Ctrl-Z) sets pending_stop: the loop gives the terminal back (endwin), stops, and
 *   on SIGCONT takes it again and redraws at the size the terminal has now; a terminating
 *   signal that arrived while stopped ends it without touching the terminal (bash's kill %1
 *   sends SIGCONT with it);
 * - a crash or another signal that ends the program (SIGQUIT from Ctrl-\, SIGABRT from
 *   die(), SIGSEGV...) restores the terminal in the handler, then lets the signal take its
 *   course through the handler that was there before (a sanitizer's, or the default);
 * - SIGXFSZ is ignored (headless too): an export beyond ulimit -f is a write error, not a
 *   core dump.
 * Signals ignored when the program started stay ignored, like ncurses does for SIGTSTP. */
#define READ_SLICE_MS 100
/* The mouse, without ncurses' help (it picks the X10 encoding, or all-motion tracking, from
 * terminfo): button-event tracking (1002: presses, releases and drags, no event per move) in
 * the SGR encoding (1006: any column), decoded by ui_screen_mouse_report(). */
#define MOUSE_ON	"\033[?1002h\033[?1006h"
#define MOUSE_OFF	"\033[?1006l\033[?1002l"
#define DOUBLE_CLICK_MS 400

static volatile sig_atomic_t mouse_on; /* MOUSE_ON was sent: MOUSE_OFF before giving back */

/* Turn the terminal's mouse reports on or off. Async-signal-safe. */
static void mouse_mode(int on)
{
	const char *seq = on ? MOUSE_ON : MOUSE_OFF;
	size_t len = strlen(seq);

	if (on == mouse_on)
		return;
	mouse_on = on;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(STDOUT_FILENO, seq + done, len - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
}

static volatile sig_atomic_t pending_signal;
static volatile sig_atomic_t pending_stop;
static volatile sig_atomic_t terminal_open; /* curses holds the terminal: restore it */

static const int term_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP };
static const int fatal_sigs[] = { SIGQUIT, SIGSEGV, SIGBUS,  SIGABRT, SIGFPE, SIGILL,
				  SIGSYS,  SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU };
#define N_TERM_SIGS  (sizeof term_sigs / sizeof term_sigs[0])
#define N_FATAL_SIGS (sizeof fatal_sigs / sizeof fatal_sigs[0])
static struct sigaction old_term[N_TERM_SIGS], old_fatal[N_FATAL_SIGS], old_xfsz;

/* Standard error while the explorer draws: when it is the explorer's terminal, what is written
 * there (die()'s message, a sanitizer's report) would land on the explorer's screen and vanish
 * with it, so it goes to an unlinked temporary file and is copied to the terminal once the
 * terminal is restored. saved_stderr: the real standard error (-1: nothing captured). */
static volatile sig_atomic_t saved_stderr = -1, captured_stderr = -1;

static int same_terminal(int a, int b)
{
	struct stat sa, sb;

	return isatty(a) && isatty(b) && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_rdev == sb.st_rdev;
}

static void stderr_capture(void)
{
	FILE *t;
	int cap, saved;

	if (!same_terminal(STDOUT_FILENO, STDERR_FILENO) || !(t = tmpfile()))
		return;
	cap = dup(fileno(t));
	fclose(t);
	if (cap < 0)
		return;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	if (saved < 0 || dup2(cap, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		close(cap);
		return;
	}
	captured_stderr = cap;
	saved_stderr = saved;
}

/* Put standard error back and copy what was captured to it. Async-signal-safe. */
static void stderr_release(void)
{
	int cap = captured_stderr, saved = saved_stderr;
	char buf[4096];
	ssize_t n;

	if (saved < 0)
		return;
	saved_stderr = captured_stderr = -1;
	dup2(saved, STDERR_FILENO);
	close(saved);
	if (lseek(cap, 0, SEEK_SET) == 0)
		while ((n = read(cap, buf, sizeof buf)) > 0)
			for (ssize_t done = 0, w; done < n; done += w)
				if ((w = write(STDERR_FILENO, buf + done, (size_t)(n - done))) <= 0)
					goto out;
out:
	close(cap);
}

/* Give the terminal back after a crash. endwin() is not async-signal-safe, but the process is
 * going down anyway and a terminal left in raw mode is worse. */
static void restore_after_crash(void)
{
	if (terminal_open) {
		terminal_open = 0;
		mouse_mode(0);
		endwin();
	}
	stderr_release();
}

static void on_terminate(int sig)
{
	if (sig == SIGTSTP)
		pending_stop = 1;
	else
		pending_signal = sig;
}

static void on_fatal(int sig)
{
	cleanup_run(); /* temporary files (cleanup.h) */
	restore_after_crash();
	for (size_t i = 0; i < N_FATAL_SIGS; i++)
		if (fatal_sigs[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	raise(sig); /* delivered, to the old handler, when this one returns */
}

/* A sanitizer (when the program is built with one) reports an error on standard error, then
 * calls this before it exits without a signal. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_terminate; /* no SA_RESTART: a blocked read returns */
	for (size_t i = 0; i < N_TERM_SIGS; i++) {
		sigaction(term_sigs[i], NULL, &old_term[i]);
		if (old_term[i].sa_handler != SIG_IGN)
			sigaction(term_sigs[i], &sa, NULL);
	}
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < N_FATAL_SIGS; i++) {
		sigaction(fatal_sigs[i], NULL, &old_fatal[i]);
		if (old_fatal[i].sa_handler != SIG_IGN)
			sigaction(fatal_sigs[i], &sa, NULL);
	}
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(restore_after_crash);
}

static void restore_handlers(void)
{
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	for (size_t i = 0; i < N_TERM_SIGS; i++)
		sigaction(term_sigs[i], &old_term[i], NULL);
	for (size_t i = 0; i < N_FATAL_SIGS; i++)
		sigaction(fatal_sigs[i], &old_fatal[i], NULL);
}

/* SIGXFSZ, in both modes: an export beyond ulimit -f fails with EFBIG, shown as an error. */
static void ignore_xfsz(int ignore)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, ignore ? &sa : &old_xfsz, ignore ? &old_xfsz : NULL);
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
		wnoutrefresh(stdscr); /* ncurses' own set-up first */
		doupdate();
		mouse_mode(1);
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
			fd_error_set(err, "no terminal description for headless drawing (install "
					  "ncurses-base)");
			goto fail;
		}
		set_term(s->term);
		resizeterm(rows, cols);
	} else {
		const char *term = getenv("TERM");

		if (!term || !*term) {
			fd_error_set(err,
				     "TERM is not set: cannot open the explorer (use --report)");
			goto fail;
		}
		/* keys come from the terminal: standard input may be a trace ('-') or /dev/null */
		if (!isatty(STDIN_FILENO) && !(s->in = fopen("/dev/tty", "r"))) {
			fd_error_set(err,
				     "standard input is not a terminal and /dev/tty cannot be "
				     "opened: %s "
				     "(use --report)",
				     strerror(errno));
			goto fail;
		}
		pending_signal = pending_stop = 0;
		install_handlers();
		s->term = newterm(NULL, stdout, s->in ? s->in : stdin);
		if (!s->term) {
			restore_handlers();
			fd_error_set(err, "cannot use the terminal '%s' (use --report)", term);
			goto fail;
		}
		set_term(s->term);
		{
			char *cup = tigetstr("cup");

			if (!cup || cup == (char *)-1) { /* TERM=dumb: it could only print lines */
				endwin();
				delscreen(s->term);
				s->term = NULL;
				restore_handlers();
				fd_error_set(err,
					     "the terminal '%s' cannot move the cursor, which the "
					     "explorer needs (use --report text)",
					     term);
				goto fail;
			}
		}
		terminal_open = 1;
		stderr_capture();
	}
	ignore_xfsz(1);
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
		/* stopped by Ctrl-Z and ended by a signal meanwhile: the terminal is the shell's
		 * already, and endwin() would stop us again for writing its modes (SIGTTOU) */
		if (!s->suspended) {
			mouse_mode(0);
			endwin();
		}
		delscreen(s->term);
	}
	if (!s->headless) {
		terminal_open = 0;
		fflush(stdout);
		stderr_release();
		restore_handlers();
	}
	ignore_xfsz(0);
	if (s->out)
		fclose(s->out);
	if (s->in)
		fclose(s->in);
	free(s->clipboard);
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

/* The terminal hung up (the SSH connection dropped) without a SIGHUP reaching us: reads see
 * end-of-file at once, and the terminal's ioctls fail with EIO. */
static int terminal_gone(struct ui_screen *s)
{
	struct termios t;

	return tcgetattr(fileno(s->in ? s->in : stdin), &t) < 0 && errno == EIO;
}

/* Ctrl-Z: give the terminal back, stop, and take it again when continued. Returns -1 when a
 * terminating signal arrived meanwhile (the terminal is then left alone), else 0 with the
 * screen to be redrawn in full at the terminal's current size. */
static int suspend(struct ui_screen *s)
{
	struct sigaction dfl, ours;
	struct winsize ws;
	sigset_t set, old;

	pending_stop = 0;
	mouse_mode(0);
	endwin();
	fflush(stdout);
	s->suspended = 1;
	memset(&dfl, 0, sizeof dfl);
	sigemptyset(&dfl.sa_mask);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &dfl, &ours);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	raise(SIGTSTP);
	/* ... stopped until SIGCONT (fg) */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGTSTP, &ours, NULL);
	if (pending_signal)
		return -1;
	s->suspended = 0;
	if (s->mouse)
		mouse_mode(1);
	/* the terminal may have been resized while another process had it */
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
	    (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	return 0;
}

static double monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int ui_screen_mouse_report(struct ui_screen *s, const char *report, struct ui_event *ev)
{
	int b, x, y, n = 0;
	char fin = 0;
	double now;

	if (sscanf(report, "%d;%d;%d%c%n", &b, &x, &y, &fin, &n) != 4 || report[n] ||
	    (fin != 'M' && fin != 'm') || x < 1 || y < 1 || b < 0)
		return 0;
	memset(ev, 0, sizeof *ev);
	ev->key = UI_KEY_MOUSE;
	ev->x = x - 1;
	ev->y = y - 1;
	if (fin == 'm' || (b & 32)) /* a release, or a drag */
		return 0;
	if ((b & ~28) == 64 || (b & ~28) == 65) { /* the wheel (28: shift, meta, control) */
		ev->mouse = (b & 1) ? UI_MOUSE_WHEEL_DOWN : UI_MOUSE_WHEEL_UP;
		return 1;
	}
	if ((b & ~28) != 0)
		return 0;
	now = monotonic_ms();
	if (s->mouse_press_ms > 0 && now - s->mouse_press_ms < DOUBLE_CLICK_MS &&
	    s->mouse_px == ev->x && s->mouse_py == ev->y) {
		ev->mouse = UI_MOUSE_DOUBLE;
		s->mouse_press_ms = 0;
	} else {
		ev->mouse = UI_MOUSE_CLICK;
		s->mouse_press_ms = now;
		s->mouse_px = ev->x;
		s->mouse_py = ev->y;
	}
	return 1;
}

/* The rest of a mouse report after ESC (prefix 0), or after what ncurses took for its kmous
 * key (prefix 1: ESC [ < or ESC [ M): "[<B;X;YM" in the SGR encoding, or "[M" and three bytes
 * in the X10 one of a terminal that ignores 1006. Returns 1 with ev filled in, 0 for a report
 * that is none we use (a release, a drag) or is cut short, -1 when no report follows the ESC
 * (what was read after it is given back, to be read as keys). */
static int read_mouse(struct ui_screen *s, struct ui_event *ev, int prefix)
{
	wint_t got[40];
	int n = 0, sgr = 1;
	char report[32];
	size_t len = 0;

	timeout(50); /* the rest of a report arrives with its start */
	if (!prefix) {
		for (int i = 0; i < 2; i++) {
			if (wget_wch(stdscr, &got[n]) != OK)
				goto give_back;
			n++;
			if (i == 0 && got[0] != '[')
				goto give_back;
			if (i == 1 && got[1] != '<' && got[1] != 'M')
				goto give_back;
		}
		sgr = got[1] == '<';
	}
	for (;;) {
		wint_t c;

		if (wget_wch(stdscr, &c) != OK)
			return 0;
		if (!sgr || (prefix && len == 0 && (c < '0' || c > '9'))) { /* X10: B X Y */
			wint_t xy[2];
			char x10[48];

			if (wget_wch(stdscr, &xy[0]) != OK || wget_wch(stdscr, &xy[1]) != OK)
				return 0;
			snprintf(x10, sizeof x10, "%d;%d;%dM", (int)c - 32, (int)xy[0] - 32,
				 (int)xy[1] - 32);
			return (int)c >= 32 && ui_screen_mouse_report(s, x10, ev);
		}
		if (len + 2 >= sizeof report)
			return 0;
		report[len++] = (char)c;
		report[len] = '\0';
		if (c == 'M' || c == 'm')
			return ui_screen_mouse_report(s, report, ev);
		if ((c < '0' || c > '9') && c != ';')
			return 0;
	}
give_back:
	while (n > 0)
		unget_wch(got[--n]);
	return -1;
}

int ui_screen_read(struct ui_screen *s, struct ui_event *ev, int timeout_ms)
{
	int waited = 0;
	wint_t ch;
	int rc;

	memset(ev, 0, sizeof *ev);
	ev->key = UI_KEY_NONE;
	if (pending_signal)
		return -1;
	if (s->headless)
		return 0;
	/* ncurses waits again after a signal other than SIGWINCH: wait in slices so that a
	 * signal is seen within one */
	for (;;) {
		int slice = READ_SLICE_MS;

		if (pending_stop) {
			if (suspend(s) < 0)
				return -1;
			ev->key = UI_KEY_RESIZE; /* redraw everything */
			return 1;
		}
		if (timeout_ms >= 0 && timeout_ms - waited < slice)
			slice = timeout_ms - waited;
		timeout(slice);
		rc = wget_wch(stdscr, &ch);
		if (pending_signal)
			return -1;
		if (rc != ERR)
			break;
		if (terminal_gone(s)) {
			pending_signal = SIGHUP;
			return -1;
		}
		waited += slice; /* or less, after a signal: a later return at worst */
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
	}
	if (rc == KEY_CODE_YES) {
		ev->key = translate_key((int)ch);
		if (ev->key == UI_KEY_MOUSE) /* terminfo's kmous: the report's start */
			return s->mouse && read_mouse(s, ev, 1) == 1;
	} else if (ch == 27 && s->mouse && (rc = read_mouse(s, ev, 0)) >= 0) {
		if (rc == 0)
			ev->key = UI_KEY_NONE;
		return rc;
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

void ui_layout_compute(int cols, int rows, int header_h, int evidence, long table_rows,
		       struct ui_layout *l)
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
	l->header_h = header_h;
	l->tabs_y = header_h;
	l->table_y = header_h + 1;
	l->status_y = rows - 1;
	avail = rows - header_h - 2; /* header, tabs, status */
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

/* OSC 52 sequences longer than this are cut or refused by terminals (xterm: 100000). */
#define OSC52_MAX (74 * 1024)

int ui_screen_copy(struct ui_screen *s, const char *text, size_t len)
{
	char *b64;

	if (len > OSC52_MAX)
		return -1;
	if (s->headless) {
		free(s->clipboard);
		s->clipboard = xstrndup(text, len);
		return 0;
	}
	b64 = xmalloc(BASE64_ENCODE_RAW_LENGTH(len) + 1);
	base64_encode_raw(b64, len, (const uint8_t *)text);
	b64[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
	fflush(stdout);
	printf("\033]52;c;%s\a", b64);
	fflush(stdout);
	free(b64);
	return 0;
}

const char *ui_screen_clipboard(const struct ui_screen *s)
{
	return s->clipboard ? s->clipboard : "";
}
