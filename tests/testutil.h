/* testutil.h — helpers shared by the Check suites: where test data lives, loading traces. */
#ifndef FUSEDIFF_TESTUTIL_H
#define FUSEDIFF_TESTUTIL_H

#include <check.h>

/* Check's ck_assert_msg(), which every ck_assert_*() expands to, calls _mark_point() on success:
 * a write() to the runner's message file per assertion passed, only so that a test killed by a
 * signal names the last one. check_stash's 1.6 million assertions made 3.2 million write()s
 * (6.5 s of system time). The same assertion without it: a crash is still reported (at the
 * test's start, or at an explicit mark_point()), and failures exactly as before. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                        \
	((expr) ? (void)0                                                               \
		: _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", \
				    ##__VA_ARGS__))

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fusediff/classify.h"
#include "fusediff/session.h"
#include "fusediff/trace.h"

/* The temporary directory test_comma_locale() compiles a locale into, removed at exit. */
static char test_locale_dir[] = "/tmp/fusediff-locale-XXXXXX";

static inline void test_remove_locale_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", test_locale_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", test_locale_dir);
}

/* Switch category (LC_ALL, LC_NUMERIC) to a locale whose decimal point is a comma: an
 * installed one, else the de_DE that make check compiles once into $FUSEDIFF_TEST_LOCPATH,
 * else one compiled with localedef(1) into a temporary directory (LOCPATH; 0.7 s of CPU, once
 * per test process). Returns 0 when none can be had. */
static inline int test_comma_locale(int category)
{
	static const char *const installed[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
						 "nl_NL.UTF-8" };
	static int made = -1;
	const char *prebuilt = getenv("FUSEDIFF_TEST_LOCPATH");
	char cmd[512];

	for (size_t i = 0; i < sizeof installed / sizeof installed[0]; i++)
		if (setlocale(category, installed[i]))
			return 1;
	if (made < 0 && prebuilt && *prebuilt) {
		setenv("LOCPATH", prebuilt, 1);
		if (setlocale(category, "de_DE"))
			return made = 1;
		unsetenv("LOCPATH");
	}
	if (made < 0) {
		made = 0;
		if (mkdtemp(test_locale_dir)) {
			atexit(test_remove_locale_dir);
			snprintf(cmd, sizeof cmd,
				 "localedef -i de_DE -f ISO-8859-1 %s/de_DE >/dev/null 2>&1",
				 test_locale_dir);
			made = system(cmd) == 0;
			setenv("LOCPATH", test_locale_dir, 1);
		}
	}
	return made && setlocale(category, "de_DE") != NULL;
}

/* A path inside the source tree (tests run from the top directory; FUSEDIFF_SRCDIR overrides).
 * Returns a static buffer per call slot — copy it if you need two at once. */
static inline const char *test_path(const char *rel)
{
	static char buf[4][8192];
	static int slot;
	const char *top = getenv("FUSEDIFF_SRCDIR");

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof buf[slot], "%s/%s", top && *top ? top : ".", rel);
	return buf[slot];
}

/* The shared trace collection, when this checkout sits next to it (developer machines);
 * NULL otherwise. Only tests of the one trace too large to carry in the repository use it. */
static inline const char *test_shared_trace(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("FUSEDIFF_SHARED_TRACES");

	snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : test_path("../shared/traces"), name);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

/* A real trace bundled with the repository: examples/ or tests/data/traces/. */
static inline const char *test_trace(const char *name)
{
	const char *p = test_path(name);
	static char buf[4096];

	snprintf(buf, sizeof buf, "examples/%s", name);
	p = test_path(buf);
	if (access(p, R_OK) == 0)
		return p;
	snprintf(buf, sizeof buf, "tests/data/traces/%s", name);
	return test_path(buf);
}

/* Load a trace or fail the test with the loader's message. */
static inline struct trace *test_load(const char *path)
{
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };

	if (trace_load(&t, path, &lo, &err) < 0)
		ck_abort_msg("loading %s: %s", path, err.msg);
	return t;
}

/* A classifier with the built-in rules only (no per-user rules file). */
static inline struct classifier *test_classifier(void)
{
	struct classifier *c = NULL;
	struct fd_error err = { { 0 } };

	if (classifier_new(&c, NULL, NULL, &err) < 0)
		ck_abort_msg("classifier: %s", err.msg);
	return c;
}

/* The pipeline for the tests, the one way they all run it (session.h): a session over the
 * traces a and b (borrowed, a may equal b), classified with cl (borrowed; NULL: the built-in
 * rules only, never a per-user rules file). Fails the test on error. Owned by caller: free
 * with session_close(). */
static inline struct session *test_session(const struct trace *a, const struct trace *b,
					   const struct classifier *cl)
{
	struct session_opts o = { .classifier = cl, .device = -1 };
	struct session *s = NULL;
	struct fd_error err = { { 0 } };

	if (session_open_traces(&s, a, b, &o, &err) < 0)
		ck_abort_msg("%s, %s: %s", a->path, b->path, err.msg);
	return s;
}

/* The same for the files at paths a and b, loaded by the session (which owns them), with the
 * options o (NULL: the defaults; a per-user rules file is never read). */
static inline struct session *test_session_files(const char *a, const char *b,
						 const struct session_opts *o)
{
	struct session_opts dflt = { .device = -1 };
	struct session *s = NULL;
	struct fd_error err = { { 0 } };

	if (session_open(&s, a, b, o ? o : &dflt, &err) < 0)
		ck_abort_msg("%s, %s: %s", a, b, err.msg);
	return s;
}

/* The session's comparison for phase (as in session_compare()); fails the test on error.
 * Borrowed: valid until session_close(). */
static inline const struct comparison *test_compare(struct session *s, int phase)
{
	struct fd_error err = { { 0 } };
	const struct comparison *c = session_compare(s, phase, &err);

	if (!c)
		ck_abort_msg("session_compare(%d): %s", phase, err.msg);
	return c;
}

/* Run one suite; the exit status for main(). Each test runs in the suite's own process or in
 * a process of its own as CK_FORK says (tests/run-one.sh: in the suite's own, unless
 * own_process). */
static inline int test_run_in(Suite *s, int own_process)
{
	SRunner *sr = srunner_create(s);
	int failed;

	if (own_process)
		srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static inline int test_run(Suite *s)
{
	return test_run_in(s, 0);
}

#endif
