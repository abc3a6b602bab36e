/* env.c — the environment the program reads, once, as it starts (app.h: struct app_env): the
 * libraries read none, they are given what it says (fusediff(1), ENVIRONMENT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* A switch: set, and neither empty nor "0". (Every variable is named in a getenv() call:
 * tests/sh/man.sh checks them against the man page's ENVIRONMENT.) */
static int on(const char *v)
{
	return v && *v && strcmp(v, "0") != 0;
}

/* A size in bytes from v: 0 when unset or empty, else at least 1 (a number below 2, or none,
 * is 1). */
static int64_t byte_floor(const char *v)
{
	long long n;

	if (!v || !*v)
		return 0;
	n = strtoll(v, NULL, 10);
	return n > 1 ? (int64_t)n : 1;
}

/* The per-user rules file: $XDG_CONFIG_HOME/fusediff/rules when XDG_CONFIG_HOME is absolute,
 * else $HOME/.config/fusediff/rules, else none (NULL; also when the path does not fit). */
static const char *user_rules_path(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/fusediff/rules", xdg);
	else if (home && *home)
		n = snprintf(buf, cap, "%s/.config/fusediff/rules", home);
	else
		return NULL;
	return n >= 0 && (size_t)n < cap ? buf : NULL;
}

void app_env_read(struct app_env *e)
{
	const char *v;

	memset(e, 0, sizeof *e);
	v = getenv("NO_COLOR");
	e->no_color = v && *v;
	e->user_rules = user_rules_path(e->user_rules_buf, sizeof e->user_rules_buf);
	v = getenv("TMPDIR");
	e->tuning.input.tmpdir = v && *v ? v : "/tmp";
	e->tuning.input.serial = on(getenv("FUSEDIFF_SERIAL"));
	v = getenv("FUSEDIFF_INFLATE");
	e->tuning.input.zlib = v && strcmp(v, "zlib") == 0;
	/* any value set: chunks of any size, every gzip file on a thread, from 1 byte */
	e->tuning.split_min = byte_floor(getenv("FUSEDIFF_SPLIT_MIN"));
	e->tuning.input.thread_min = byte_floor(getenv("FUSEDIFF_GZIP_THREAD_MIN"));
	e->tuning.no_memo = on(getenv("FUSEDIFF_NO_MEMO"));
	e->timings = on(getenv("FUSEDIFF_TIMINGS"));
	v = getenv("FUSEDIFF_DUMP_DIR");
	e->dump_dir = v && *v ? v : NULL;
}
