/* testutil.h — helpers shared by the Check suites: where test data lives, loading traces. */
#ifndef FUSEDIFF_TESTUTIL_H
#define FUSEDIFF_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fusediff/trace.h"

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

/* Run one suite; the exit status for main(). */
static inline int test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
