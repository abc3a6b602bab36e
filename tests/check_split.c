/* check_split.c — a plain trace parsed by two threads (kineto_chunks.c: traceEvents cut into
 * chunks that both threads take in turn, merged in order) loads exactly as one thread loads it,
 * for every trace and damaged file of tests/data and examples/: the summary --summary prints
 * (loaded, structured, summarised as src/app's run_summary() does) or the loader's error message,
 * with one thread (FUSEDIFF_SERIAL=1), with two cutting even the smallest file into up to 32
 * chunks (FUSEDIFF_SPLIT_MIN=1), and by the parser alone (FUSEDIFF_SERIAL=1 FUSEDIFF_NO_MEMO=1:
 * nothing remembered from one event for the next) must be the same.
 *
 * One process for the three loads of about 100 files (tests/sh/split.sh ran the program 3 times
 * a file: 280 processes, 7.5 s of CPU, most of it starting the program); split.sh keeps the
 * reports, the damage made in large files, and standard input. Files named .json are read in
 * place; a gzip one is inflated into a temporary .json (a plain file is what is split), another
 * file copied to one (read as JSON whatever its name), as split.sh did. */
#include "testutil.h"

#include <errno.h>
#include <glob.h>
#include <zlib.h>

#include "fusediff/structure.h"
#include "fusediff/trace_summary.h"

/* The three ways of loading; each is the environment the loader reads as it opens a file. */
static const char *const modes[][2] = {
	{ "FUSEDIFF_SERIAL", NULL },
	{ "FUSEDIFF_SPLIT_MIN", NULL },
	{ "FUSEDIFF_SERIAL", "FUSEDIFF_NO_MEMO" },
};
static const char *const mode_names[] = { "one thread", "two threads", "the parser alone" };

static void set_mode(int m)
{
	unsetenv("FUSEDIFF_SERIAL");
	unsetenv("FUSEDIFF_SPLIT_MIN");
	unsetenv("FUSEDIFF_NO_MEMO");
	for (int i = 0; i < 2; i++)
		if (modes[m][i])
			setenv(modes[m][i], "1", 1);
}

/* What --summary prints for path (stdout), or "error: MESSAGE" (its stderr line); malloc'd. */
static char *summarise(const char *path, const struct classifier *cl)
{
	struct trace_load_opts lo = { .device = -1 };
	struct fd_error err = { { 0 } };
	struct trace *t = NULL;
	struct side sd;
	struct side_opts so = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	if (trace_load(&t, path, &lo, &err) < 0) {
		fprintf(out, "error: %s\n", err.msg);
	} else if (side_build(&sd, t, cl, &so, &err) < 0) {
		fprintf(out, "error: %s: %s\n", t->path, err.msg);
		trace_free(t);
	} else {
		fprintf(out, "status %d\n",
			trace_summary_print(out, t, &sd.classes, &sd, cl, NULL));
		side_clear(&sd);
		trace_free(t);
	}
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* The first line where a and b differ, for the message. */
static void first_difference(const char *a, const char *b, char *msg, size_t size)
{
	size_t i = 0, line = 1, start = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	snprintf(msg, size, "line %zu: '%.200s' against '%.200s'", line, a + start, b + start);
}

/* path as split.sh reads it: in place when named .json, else inflated or copied into
 * dir/tN.json. Returns the path to load (static) and sets *made when it made the file. */
static const char *prepared(const char *path, const char *dir, int n, int *made)
{
	static char buf[4096];
	size_t len = strlen(path);
	char data[1 << 16];
	FILE *out;
	int ok = 1;

	*made = 0;
	if (len > 5 && strcmp(path + len - 5, ".json") == 0)
		return path;
	snprintf(buf, sizeof buf, "%s/t%d.json", dir, n);
	out = fopen(buf, "wb");
	ck_assert_msg(out != NULL, "%s: %s", buf, strerror(errno));
	*made = 1;
	if (len > 3 && strcmp(path + len - 3, ".gz") == 0) {
		gzFile gz = gzopen(path, "rb");
		int got, zerr = Z_OK;

		ck_assert_ptr_nonnull(gz);
		while ((got = gzread(gz, data, sizeof data)) > 0)
			ck_assert_uint_eq(fwrite(data, 1, (size_t)got, out), (size_t)got);
		gzerror(gz, &zerr);
		ok = got == 0 && zerr == Z_OK;
		gzclose(gz);
		if (!ok) /* gzip -dc failed: the file as it is */
			ck_assert_ptr_nonnull(freopen(buf, "wb", out));
	}
	if (!ok || !(len > 3 && strcmp(path + len - 3, ".gz") == 0)) {
		FILE *in = fopen(path, "rb");
		size_t got;

		ck_assert_msg(in != NULL, "%s: %s", path, strerror(errno));
		while ((got = fread(data, 1, sizeof data, in)) > 0)
			ck_assert_uint_eq(fwrite(data, 1, got, out), got);
		fclose(in);
	}
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

START_TEST(test_split_as_serial)
{
	static const char *const patterns[] = { "examples/*.json.gz", "tests/data/traces/*.json.gz",
						"tests/data/bad/*", "tests/data/*/*.json" };
	struct classifier *cl = test_classifier();
	char dir[] = "/tmp/fusediff-split-XXXXXX", msg[600];
	glob_t g[4];
	int n = 0, failed = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int p = 0; p < 4; p++)
		ck_assert_int_eq(glob(test_path(patterns[p]), 0, NULL, &g[p]), 0);
	for (int p = 0; p < 4; p++) {
		for (size_t i = 0; i < g[p].gl_pathc; i++) {
			const char *f = g[p].gl_pathv[i], *path;
			char *want;
			int seen = 0, made;

			/* a file two patterns name is read once; string_100mb.json.gz: split.sh
			 * reads the same document with a 4 MiB name (hostile.sh, check_hostile) */
			for (int q = 0; q <= p && !seen; q++)
				for (size_t j = 0; j < (q < p ? g[q].gl_pathc : i) && !seen; j++)
					seen = strcmp(g[q].gl_pathv[j], f) == 0;
			if (seen || strstr(f, "/string_100mb.json.gz"))
				continue;
			n++;
			path = prepared(f, dir, n, &made);
			set_mode(0);
			want = summarise(path, cl);
			for (int m = 1; m < 3; m++) {
				char *got;

				set_mode(m);
				got = summarise(path, cl);
				if (strcmp(want, got) != 0) {
					first_difference(want, got, msg, sizeof msg);
					fprintf(stderr,
						"%s: %s prints otherwise than one thread: %s\n", f,
						mode_names[m], msg);
					failed++;
				}
				free(got);
			}
			free(want);
			if (made)
				unlink(path);
		}
	}
	for (int p = 0; p < 4; p++)
		globfree(&g[p]);
	rmdir(dir);
	set_mode(0);
	unsetenv("FUSEDIFF_SERIAL");
	classifier_free(cl);
	ck_assert_int_ge(n, 60); /* 65 as this was written */
	ck_assert_msg(failed == 0, "%d of %d files load otherwise split (above)", failed, n);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("split");
	TCase *tc = tcase_create("files");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_split_as_serial);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
