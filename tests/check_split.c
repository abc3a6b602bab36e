/* check_split.c — a plain trace parsed by two threads (kineto_chunks.c: traceEvents cut into
 * chunks that both threads take in turn, merged in order) loads exactly as one thread loads it:
 * the summary --summary prints (loaded, structured, summarised as --summary does)
 * or the loader's error message, with one thread (trace_load_tuning.input.serial, what
 * FUSEDIFF_SERIAL=1 sets), with two cutting even the smallest file into up to 32 chunks
 * (split_min 1: FUSEDIFF_SPLIT_MIN=1), and by the parser alone (serial and no_memo:
 * FUSEDIFF_SERIAL=1 FUSEDIFF_NO_MEMO=1, nothing remembered from one event for the next) must
 * be the same, for every trace and damaged file of tests/data and examples/, and for damage
 * made here early, in the middle and late in a large trace, with the chunks' guessed starts
 * right, wrong (the pattern inside a string) or beyond the array.
 *
 * One process for the three loads of about 70 files (tests/sh/split.sh ran the program 3 times
 * a file: 219 processes, 10 s of CPU, most of it starting the program, and a Python process
 * that made the damage); split.sh keeps the reports and standard input. Files named .json are
 * read in place; a gzip one is inflated into a temporary .json (a plain file is what is split),
 * another file copied to one (read as JSON whatever its name), as split.sh did. */
#include "testutil.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <zlib.h>

#include "fusediff/structure.h"
#include "fusediff/trace_summary.h"

/* The three ways of loading: the loader's options (what the program sets from its
 * environment). */
static const struct trace_load_tuning modes[] = {
	{ .input = { .serial = 1 } },
	{ .split_min = 1, .input = { .thread_min = 1 } },
	{ .input = { .serial = 1 }, .no_memo = 1 },
};
static const char *const mode_names[] = { "one thread", "two threads", "the parser alone" };

/* What --summary prints for path (stdout), or "error: MESSAGE" (its stderr
 * line); malloc'd. */
static char *summarise(const char *path, const struct classifier *cl, int mode)
{
	struct trace_load_opts lo = { .device = -1, .tuning = modes[mode] };
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

/* path loaded the three ways prints the same; 1 (and the difference on stderr,
 * named by label) when it does not. *two, when not NULL, receives what the two
 * threads printed (malloc'd). */
static int alike(const char *path, const char *label, const struct classifier *cl, char **two)
{
	char *want, msg[600];
	int failed = 0;

	want = summarise(path, cl, 0);
	for (int m = 1; m < 3; m++) {
		char *got;

		got = summarise(path, cl, m);
		if (strcmp(want, got) != 0) {
			first_difference(want, got, msg, sizeof msg);
			fprintf(stderr, "%s: %s prints otherwise than one thread: %s\n", label,
				mode_names[m], msg);
			failed = 1;
		}
		if (m == 1 && two)
			*two = got;
		else
			free(got);
	}
	free(want);
	return failed;
}

/* path as split.sh reads it: in place when named .json, else inflated or copied
 * into dir/tN.json. Returns the path to load (static) and sets *made when it
 * made the file. */
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
	char dir[] = "/tmp/fusediff-split-XXXXXX";
	glob_t g[4];
	int n = 0, failed = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int p = 0; p < 4; p++)
		ck_assert_int_eq(glob(test_path(patterns[p]), 0, NULL, &g[p]), 0);
	for (int p = 0; p < 4; p++) {
		for (size_t i = 0; i < g[p].gl_pathc; i++) {
			const char *f = g[p].gl_pathv[i], *path;
			int seen = 0, made;

			/* a file two patterns name is read once; string_100mb.json.gz: split.sh
       * reads the same document with a 4 MiB name (hostile.sh, check_hostile)
       */
			for (int q = 0; q <= p && !seen; q++)
				for (size_t j = 0; j < (q < p ? g[q].gl_pathc : i) && !seen; j++)
					seen = strcmp(g[q].gl_pathv[j], f) == 0;
			if (seen || strstr(f, "/string_100mb.json.gz"))
				continue;
			n++;
			path = prepared(f, dir, n, &made);
			failed += alike(path, f, cl, NULL);
			if (made)
				unlink(path);
		}
	}
	for (int p = 0; p < 4; p++)
		globfree(&g[p]);
	rmdir(dir);
	classifier_free(cl);
	ck_assert_int_ge(n, 60); /* 65 as this was written */
	ck_assert_msg(failed == 0, "%d of %d files load otherwise split (above)", failed, n);
}
END_TEST

/* ---- damage made here, where the chunks' guessed starts fall
 * ------------------------------ */

/* The offset of pat in d at or after from; fails the test when there is none.
 */
static size_t find(const char *d, size_t n, const char *pat, size_t from)
{
	size_t len = strlen(pat);

	for (const char *p = d + from; p + len <= d + n; p++) {
		p = memchr(p, pat[0], (size_t)(d + n - p));
		if (!p || p + len > d + n)
			break;
		if (memcmp(p, pat, len) == 0)
			return (size_t)(p - d);
	}
	ck_abort_msg("no '%s' after byte %zu", pat, from);
	return 0;
}

/* A string literal as the (data, length) pair put_file() takes. */
#define LIT(s) s, strlen(s)

/* dir/name.json made of the pieces (data, length) up to a NULL data; returns
 * its path. */
static const char *put_file(const char *dir, const char *name, ...)
{
	static char path[4096];
	va_list ap;
	const char *data;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.json", dir, name);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	va_start(ap, name);
	while ((data = va_arg(ap, const char *)) != NULL) {
		size_t len = va_arg(ap, size_t);

		ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	}
	va_end(ap);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* The whole of an inflated gzip file; *n its length. Owned by caller: free().
 */
static char *inflate_whole(const char *path, size_t *n)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 32u << 20, len = 0;
	char *d = malloc(cap);
	int got;

	ck_assert_ptr_nonnull(gz);
	ck_assert_ptr_nonnull(d);
	while ((got = gzread(gz, d + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)got;
		if (len == cap) {
			d = realloc(d, cap *= 2);
			ck_assert_ptr_nonnull(d);
		}
	}
	ck_assert_int_eq(got, 0);
	gzclose(gz);
	*n = len;
	return d;
}

/* split.sh's guess: the first '}' after the middle of traceEvents is followed
 * by ", {" and a quote, as the chunk's start that find_boundary() would take.
 */
static int guess_in_string(const char *doc, size_t len)
{
	size_t start = find(doc, len, "[", 0) + 1, mid = start + (len - start) / 2;
	size_t i = find(doc, len, "}, {", mid), j = find(doc, len, "}", mid);

	return i == j && doc[i + 4] == '"' && memcmp(doc + i + 5, ", ", 2) == 0;
}

/* The damage of split.sh's cases: a bad number three quarters into the eager
 * Llama trace (the example cut to its first 4 decode passes: its events, 8.9 MB
 * where the example's 26 MB were written and loaded three ways four times), a
 * bad escape there, a bad number a quarter into it, the file cut at seven
 * eighths; 50 events whose names end with the split's pattern ('}, {' and
 * the closing quote) so that the guess lands inside a string, the same with a
 * trailing comma in the second half, the middle of the file in a key after
 * traceEvents, and a 4 MiB name (tests/data/make-hostile.py's string_100mb with
 * a name that fills every guessed start alike). Each loads alike the three
 * ways. */
START_TEST(test_damage_as_serial)
{
	struct classifier *cl = test_classifier();
	char dir[] = "/tmp/fusediff-split-XXXXXX", *two;
	const char *path;
	size_t n, i, j, nev = 0, evcap = 50 * 3200;
	char *d = inflate_whole(test_trace("llama8l_eager_sdpa_4decode.json.gz"), &n);
	char *ev = malloc(evcap), *doc, *bad, *name;
	int failed = 0, pad, line, col;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(ev);

	i = find(d, n, "\"ts\": ", n * 3 / 4) + 6;
	path = put_file(dir, "late_number", d, i, LIT("0x"), d + i + 1, n - i - 1, NULL);
	failed += alike(path, "late_number", cl, &two);
	ck_assert_msg(strstr(two, "late_number.json: line ") &&
			      sscanf(strstr(two, "late_number.json: line "),
				     "late_number.json: line %d, column %d: ", &line, &col) == 2,
		      "late_number: no line and column: %.300s", two);
	free(two);
	unlink(path);
	i = find(d, n, "\"name\": \"", n * 3 / 4) + 9;
	path = put_file(dir, "late_escape", d, i, LIT("\\q"), d + i, n - i, NULL);
	failed += alike(path, "late_escape", cl, NULL);
	unlink(path);
	i = find(d, n, "\"ts\": ", n / 4) + 6;
	path = put_file(dir, "early_number", d, i, LIT("-x"), d + i + 1, n - i - 1, NULL);
	failed += alike(path, "early_number", cl, NULL);
	unlink(path);
	path = put_file(dir, "truncated", d, n * 7 / 8, NULL);
	failed += alike(path, "truncated", cl, NULL);
	unlink(path);
	free(d);

	/* 50 events with 3000-byte names that end with the split's pattern */
	name = malloc(3001);
	ck_assert_ptr_nonnull(name);
	memset(name, 'x', 3000);
	name[3000] = '\0';
	for (int k = 0; k < 50; k++)
		nev += (size_t)snprintf(
			ev + nev, evcap - nev,
			"%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%s}, {\", "
			"\"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 1, \"args\": "
			"{\"device\": 0, \"stream\": 7, \"correlation\": %d}}",
			k ? ",\n" : "", name, k, k + 1);
	ck_assert_uint_lt(nev, evcap);
	doc = malloc(nev + 4100);
	ck_assert_ptr_nonnull(doc);
	for (pad = 0; pad < 4000; pad += 7) {
		n = (size_t)sprintf(doc, "{\"traceEvents\": [%*s%s]}\n", pad, "", ev);
		if (guess_in_string(doc, n))
			break;
	}
	ck_assert_msg(pad < 4000, "no padding puts the guess inside a name");
	path = put_file(dir, "in_string", doc, n, NULL);
	failed += alike(path, "in_string", cl, &two);
	ck_assert_msg(strstr(two, " 50 events") != NULL, "in_string: %.300s", two);
	free(two);
	unlink(path);
	i = find(doc, n, "\"correlation\": 41}", 0) + strlen("\"correlation\": 41");
	path = put_file(dir, "in_string_bad", doc, i, LIT(","), doc + i, n - i, NULL);
	failed += alike(path, "in_string_bad", cl, &two);
	ck_assert_msg(strstr(two, "trailing comma before '}'") != NULL, "in_string_bad: %.300s",
		      two);
	free(two);
	unlink(path);
	free(doc);

	/* the middle of the file beyond traceEvents: in a later key */
	j = 0;
	for (int k = 0; k < 3; k++)
		j = find(ev, nev, "}}", j) + 2;
	bad = malloc(4 * 20000);
	ck_assert_ptr_nonnull(bad);
	for (int k = 0; k < 20000; k++)
		memcpy(bad + 4 * k, "}, {", 4);
	path = put_file(dir, "after_array", LIT("{\"traceEvents\": ["), ev, j,
			LIT("],\n\"zzz\": \""), bad, (size_t)4 * 20000, LIT("\"}\n"), NULL);
	failed += alike(path, "after_array", cl, NULL);
	unlink(path);
	free(bad);
	free(ev);

	/* a 4 MiB name */
	bad = malloc(5 * (4u << 20) / 5);
	ck_assert_ptr_nonnull(bad);
	for (size_t k = 0; k < (4u << 20) / 5; k++)
		memcpy(bad + 5 * k, "gemm_", 5);
	path = put_file(dir, "string_4mb",
			LIT("{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \""), bad,
			(size_t)5 * ((4u << 20) / 5),
			LIT("\", \"ts\": 1, \"dur\": 1, \"args\": {\"device\": 0}}, "
			    "{\"cat\": \"kernel\", "
			    "\"name\": \"k\", \"ts\": 2, \"dur\": 1, \"args\": "
			    "{\"device\": 0}}]}\n"),
			NULL);
	failed += alike(path, "string_4mb", cl, NULL);
	unlink(path);
	free(bad);
	free(name);

	rmdir(dir);
	classifier_free(cl);
	ck_assert_msg(failed == 0, "%d of 8 damaged files load otherwise split (above)", failed);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("split");
	TCase *tc = tcase_create("files");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_split_as_serial);
	tcase_add_test(tc, test_damage_as_serial);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
