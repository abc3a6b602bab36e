/* run.c — the explorer's loops: interactive, --headless scripts, and the loading screen. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explorer_int.h"
#include "fusediff/text.h"
#include "fusediff/ui_actions.h"

int ui_run(struct ui *u)
{
	ui_draw(u);
	ui_screen_flush(u->s);
	for (;;) {
		struct ui_event ev;
		int rc = ui_screen_read(u->s, &ev, 1000);

		if (rc < 0)
			return 128 + ui_screen_signal();
		if (rc == 0)
			continue;
		if (ui_handle(u, &ev))
			return 0;
		ui_draw(u);
		ui_screen_flush(u->s);
	}
}

/* --- --headless scripts ------------------------------------------------------------------- */

static int dump_screen(struct ui *u, const char *name, const char *dir, struct fd_error *err)
{
	char *path;
	FILE *f;
	int rc;

	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') {
			fd_error_set(
				err,
				"':dump %s': use letters, digits, '-', '_' and '.' in the name",
				name);
			return -1;
		}
	if (!*name || name[0] == '.') {
		fd_error_set(err, "':dump' needs a name such as 'layers'");
		return -1;
	}
	path = xasprintf("%s/%s.screen", dir && *dir ? dir : ".", name);
	ui_draw(u);
	f = fopen(path, "w");
	if (!f) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	rc = ui_screen_dump(u->s, f);
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		fd_error_set(err, "%s: write error", path);
	free(path);
	return rc;
}

/* The key a script line names: an action (its first default key) or a key name. */
static int script_key(const char *line)
{
	enum ui_action a = ui_action_from_name(line);

	if (a != ACT_NONE) {
		const struct ui_action_def *d = ui_action_def(a);
		char first[32];
		size_t n = strcspn(d->keys, " ");

		snprintf(first, sizeof first, "%.*s", (int)n, d->keys);
		return ui_key_from_name(first);
	}
	return ui_key_from_name(line);
}

static double now_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ':bench N KEY': press KEY n times, each followed by a full redraw and an update of the
 * (headless) terminal, and print the time per key: wall clock (mean and slowest) and the CPU
 * time of this thread (mean), which other jobs on the machine disturb less. */
static int script_bench(struct ui *u, const char *args, FILE *out, struct fd_error *err)
{
	char name[64], tail, ms[3][40];
	int n, key;
	double total = 0, max = 0, cpu0, cpu;

	if (sscanf(args, "%d %63s %c", &n, name, &tail) != 2 || n < 1 || n > 10000000) {
		fd_error_set(err, "':bench %s': use ':bench N KEY'", args);
		return -1;
	}
	key = script_key(name);
	if (key == UI_KEY_NONE) {
		fd_error_set(err, "':bench': unknown key or action '%s'", name);
		return -1;
	}
	cpu0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < n; i++) {
		double t0 = now_ms(CLOCK_MONOTONIC), dt;

		if (ui_key(u, key))
			break;
		ui_draw(u);
		ui_screen_flush(u->s);
		dt = now_ms(CLOCK_MONOTONIC) - t0;
		total += dt;
		if (dt > max)
			max = dt;
	}
	cpu = now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	fprintf(out,
		"bench %-16s %6d keys  %8s ms per key (slowest %7s)  cpu %8s ms per key  %6u "
		"rows\n",
		name, n, text_fixed(ms[0], sizeof ms[0], total / n, 3, 0),
		text_fixed(ms[1], sizeof ms[1], max, 3, 0),
		text_fixed(ms[2], sizeof ms[2], cpu / n, 3, 0), u->views[u->view].t.n_view);
	fflush(out);
	return 0;
}

/* ':input BYTES': what a terminal would send, with \e for ESC, \\ for a backslash and \xHH
 * for any byte; a mouse report (ESC [ < B;X;Y M or m, the SGR encoding) goes through
 * ui_screen_mouse_report() as the terminal's do, any other byte is a key. */
static int script_input(struct ui *u, const char *text, struct fd_error *err)
{
	size_t cap = strlen(text) + 1, n = 0;
	char *b = xmalloc(cap);
	int rc = 0;

	for (const char *p = text; *p; p++) {
		unsigned v;

		if (*p != '\\') {
			b[n++] = *p;
		} else if (p[1] == 'e') {
			b[n++] = 27, p++;
		} else if (p[1] == '\\') {
			b[n++] = '\\', p++;
		} else if (p[1] == 'x' && sscanf(p + 2, "%2x", &v) == 1 &&
			   isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3])) {
			b[n++] = (char)v, p += 3;
		} else {
			fd_error_set(err, "':input %s': a backslash is \\e, \\\\ or \\xHH", text);
			free(b);
			return -1;
		}
	}
	b[n] = '\0';
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (b[i] == 27 && i + 2 < n && b[i + 1] == '[' && b[i + 2] == '<') {
			size_t end = i + 3;
			struct ui_event ev;

			while (end < n && b[end] != 'M' && b[end] != 'm')
				end++;
			if (end == n) {
				fd_error_set(err, "':input %s': a mouse report without its M or m",
					     text);
				rc = -1;
				break;
			}
			{
				char *report =
					xasprintf("%.*s", (int)(end + 1 - (i + 3)), b + i + 3);

				if (ui_screen_mouse_report(u->s, report, &ev))
					rc = ui_handle(u, &ev);
				free(report);
			}
			i = end;
		} else {
			int key = b[i] == 27			 ? UI_KEY_ESC
				  : b[i] == '\r' || b[i] == '\n' ? UI_KEY_ENTER
								 : (unsigned char)b[i];

			rc = ui_key(u, key);
		}
	}
	free(b);
	return rc;
}

/* Run one ':command'. Returns 1 to stop (quit), 0 to go on, -1 on error. */
static int script_command(struct ui *u, const char *cmd, const char *dump_dir, FILE *out,
			  struct fd_error *err)
{
	int cols, rows, x, y;
	char how[16], tail;

	if (strncmp(cmd, "dump ", 5) == 0)
		return dump_screen(u, cmd + 5, dump_dir, err) < 0 ? -1 : 0;
	if (strncmp(cmd, "bench ", 6) == 0)
		return script_bench(u, cmd + 6, out, err);
	if (strcmp(cmd, "prefetch") == 0) { /* as the interactive explorer does, then wait */
		session_prefetch(u->src.session);
		session_prefetch_wait(u->src.session);
		return 0;
	}
	if (sscanf(cmd, "resize %dx%d%c", &cols, &rows, &tail) == 2) {
		if (cols < 1 || rows < 1 || cols > 1000 || rows > 1000) {
			fd_error_set(err, "':%s': size out of range", cmd);
			return -1;
		}
		ui_screen_resize(u->s, cols, rows);
		ui_key(u, UI_KEY_RESIZE);
		return 0;
	}
	if (strncmp(cmd, "type ", 5) == 0) {
		const unsigned char *p = (const unsigned char *)cmd + 5;

		while (*p) {
			int cp = *p, n = 1;

			if (cp >= 0xf0)
				cp &= 0x07, n = 4;
			else if (cp >= 0xe0)
				cp &= 0x0f, n = 3;
			else if (cp >= 0xc0)
				cp &= 0x1f, n = 2;
			for (int i = 1; i < n && p[i]; i++)
				cp = cp << 6 | (p[i] & 0x3f);
			for (int i = 0; i < n && *p; i++)
				p++;
			if (ui_key(u, cp))
				return 1;
		}
		return 0;
	}
	if (strncmp(cmd, "input ", 6) == 0)
		return script_input(u, cmd + 6, err);
	if (sscanf(cmd, "click %d %d%c", &x, &y, &tail) == 2 ||
	    sscanf(cmd, "double %d %d%c", &x, &y, &tail) == 2) {
		struct ui_event ev = { UI_KEY_MOUSE,
				       cmd[0] == 'd' ? UI_MOUSE_DOUBLE : UI_MOUSE_CLICK, x, y };

		return ui_handle(u, &ev);
	}
	if (sscanf(cmd, "wheel %15s %d %d%c", how, &x, &y, &tail) == 3 &&
	    (strcmp(how, "up") == 0 || strcmp(how, "down") == 0)) {
		struct ui_event ev = { UI_KEY_MOUSE,
				       how[0] == 'u' ? UI_MOUSE_WHEEL_UP : UI_MOUSE_WHEEL_DOWN, x,
				       y };

		return ui_handle(u, &ev);
	}
	fd_error_set(
		err,
		"unknown command ':%s' (dump, resize, type, input, click, double, wheel, bench, "
		"prefetch)",
		cmd);
	return -1;
}

int ui_play(struct ui *u, const char *script, const char *dump_dir, FILE *out, struct fd_error *err)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;

	ui_draw(u);
	if (!script) {
		if (ui_screen_dump(u->s, out) < 0 || fflush(out) != 0 || ferror(out)) {
			fd_error_set(err, "write error: %s", strerror(errno));
			return 1;
		}
		return 0;
	}
	f = strcmp(script, "-") == 0 ? stdin : fopen(script, "r");
	if (!f) {
		fd_error_set(err, "%s: %s", script, strerror(errno));
		return 1;
	}
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		char *s = line;
		int r;

		lineno++;
		while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' ||
				   s[len - 1] == '\t'))
			s[--len] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		if (s[0] == ':' && s[1]) {
			r = script_command(u, s + 1, dump_dir, out, err);
		} else {
			int key = script_key(s);

			if (key == UI_KEY_NONE) {
				fd_error_set(err,
					     "unknown key or action '%s' (see the KEYS section of "
					     "fusediff(1))",
					     s);
				r = -1;
			} else {
				r = ui_key(u, key);
			}
		}
		if (r < 0) {
			char msg[FD_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			fd_error_set(err, "%s: line %d: %s", script, lineno, msg);
			rc = 1;
		} else if (r > 0) {
			break; /* quit */
		}
		ui_draw(u);
	}
	if (rc == 0 && ferror(f)) { /* a directory, a read error: nothing was played */
		fd_error_set(err, "%s: %s", script, strerror(errno ? errno : EIO));
		rc = 1;
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		fd_error_set(err, "write error: %s", strerror(errno ? errno : EIO));
		rc = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* --- loading ------------------------------------------------------------------------------ */

struct ui_progress {
	const char *name[2];
	_Atomic int64_t done[2], total[2];
	atomic_int stage[2]; /* enum ui_stage */
	atomic_int cancel;
};

struct ui_progress *ui_progress_new(const char *name_a, const char *name_b)
{
	struct ui_progress *p = xcalloc(1, sizeof *p);

	p->name[0] = name_a;
	p->name[1] = name_b;
	for (int i = 0; i < 2; i++) {
		atomic_init(&p->done[i], 0);
		atomic_init(&p->total[i], -1);
		atomic_init(&p->stage[i], UI_STAGE_READING);
	}
	atomic_init(&p->cancel, 0);
	return p;
}

void ui_progress_free(struct ui_progress *p)
{
	free(p);
}

int ui_progress_update(struct ui_progress *p, int side, int64_t done, int64_t total)
{
	if (side == 0 || side == 1) {
		atomic_store(&p->done[side], done);
		atomic_store(&p->total[side], total);
	}
	return atomic_load(&p->cancel);
}

void ui_progress_stage(struct ui_progress *p, int side, enum ui_stage stage)
{
	for (int i = 0; i < 2; i++)
		if (side == i || side == -1)
			atomic_store(&p->stage[i], (int)stage);
}

struct job {
	int (*fn)(void *);
	void *user;
	int result;
	atomic_int finished;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->result = j->fn(j->user);
	atomic_store(&j->finished, 1);
	return NULL;
}

static void draw_loading(struct ui_screen *s, struct ui_progress *p)
{
	int cols, rows, w, x, y;

	ui_screen_size(s, &cols, &rows);
	attrset(s->attr[ROLE_NORMAL]);
	erase();
	w = cols - 4 < 70 ? cols - 4 : 70;
	x = (cols - w) / 2;
	y = rows / 2 - 4;
	if (y < 0)
		y = 0;
	if (x < 0)
		x = 0;
	ui_put(s, y, x, w, "fusediff: loading two traces", ROLE_HEADER, PUT_RAW, 0);
	for (int i = 0; i < 2; i++) {
		static const char *const after[] = {
			[UI_STAGE_READING] = "finishing the trace",
			[UI_STAGE_LOADED] = "waiting for the other trace",
			[UI_STAGE_ANALYSING] = "classifying, finding passes and layers",
			[UI_STAGE_ALIGNING] = "aligning the layers of A and B",
		};
		int64_t done = atomic_load(&p->done[i]), total = atomic_load(&p->total[i]);
		int stage = atomic_load(&p->stage[i]);
		char a[32], b[32], pct[40], line[128];
		double frac = total > 0 ? (double)done / (double)total : 0;

		if (stage < 0 || stage > UI_STAGE_ALIGNING)
			stage = UI_STAGE_READING;
		text_bytes(a, sizeof a, done);
		if (total > 0)
			text_bytes(b, sizeof b, total);
		if (stage != UI_STAGE_READING || (total > 0 && done >= total))
			snprintf(line, sizeof line, "%s read: %s", total > 0 ? b : a, after[stage]);
		else if (total > 0)
			snprintf(line, sizeof line, "%s of %s (%s%%)", a, b,
				 text_fixed(pct, sizeof pct, 100 * frac, 0, 0));
		else
			snprintf(line, sizeof line, "%s read", a);
		if (stage != UI_STAGE_READING)
			frac = 1;
		ui_putf(s, y + 2 + 4 * i, x, w, i ? ROLE_BAR_B : ROLE_BAR_A, 0, "%c ",
			i ? 'B' : 'A');
		ui_put(s, y + 2 + 4 * i, x + 2, w - 2, p->name[i] ? p->name[i] : "", ROLE_NORMAL, 0,
		       0);
		ui_bar(s, y + 3 + 4 * i, x + 2, w - 2 > 4 ? w - 2 : 4, frac,
		       i ? ROLE_BAR_B : ROLE_BAR_A, ROLE_DIM);
		/* the figures on a line of their own: nothing is cut at 80 columns */
		ui_put(s, y + 4 + 4 * i, x + 2, w - 2, line, ROLE_NORMAL, PUT_RAW, 0);
	}
	ui_put(s, y + 10, x, w, "q or Ctrl-C cancels", ROLE_DIM, PUT_RAW, 0);
	ui_screen_flush(s);
}

int ui_loading(struct ui_screen *s, struct ui_progress *p, int (*fn)(void *user), void *user,
	       int *cancelled)
{
	/* faults are the faulting thread's own */
	static const int sync_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGABRT };
	struct job *j;
	pthread_t th;
	sigset_t all, old;
	int result, waited = 0, started;

	*cancelled = 0;
	if (ui_screen_headless(s))
		return fn(user);
	j = xcalloc(1, sizeof *j);
	j->fn = fn;
	j->user = user;
	atomic_init(&j->finished, 0);
	/* signals go to this thread, which owns the terminal: the loader starts with them blocked */
	sigfillset(&all);
	for (size_t i = 0; i < sizeof sync_sigs / sizeof sync_sigs[0]; i++)
		sigdelset(&all, sync_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	started = pthread_create(&th, NULL, job_main, j) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!started) {
		free(j);
		return fn(user);
	}
	while (!atomic_load(&j->finished)) {
		struct ui_event ev;
		int rc;

		if (atomic_load(&p->cancel)) {
			/* a load blocked in a read (a pipe, a stalled network file) never sees the
			 * cancel: leave it behind after a second, the caller exits */
			if (waited++ >= 50) {
				pthread_detach(th);
				*cancelled = atomic_load(&p->cancel);
				return -1; /* j is still the thread's */
			}
			napms(20);
			continue;
		}
		draw_loading(s, p);
		rc = ui_screen_read(s, &ev, 100);
		if (rc < 0)
			atomic_store(&p->cancel, ui_screen_signal());
		else if (rc > 0 &&
			 (ev.key == 'q' || ev.key == 'Q' || ev.key == UI_KEY_ESC || ev.key == 3))
			atomic_store(&p->cancel, 'q');
	}
	pthread_join(th, NULL);
	*cancelled = atomic_load(&p->cancel);
	result = j->result;
	free(j);
	return result;
}
