/* check_outfile.c — outfile: a file is either written whole or left as it was; no temporary
 * file stays behind; modes, symbolic links and files that are not regular. */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "testutil.h"

#include "fusediff/fileset.h"
#include "fusediff/outfile.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/fusediff-outfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* dir/name (one of four buffers) */
static const char *in_dir(const char *name)
{
	static char buf[4][512];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
	return buf[slot];
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in dir, sorted and joined with spaces: what is left behind. */
static const char *listing(void)
{
	static char buf[1024];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' ||
		    strncmp(names[i]->d_name, ".fusediff-", 10) == 0) {
			if (buf[0])
				strncat(buf, " ", sizeof buf - strlen(buf) - 1);
			strncat(buf, names[i]->d_name, sizeof buf - strlen(buf) - 1);
		}
		free(names[i]);
	}
	free(names);
	return buf;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* err's message is "PATH: reason" */
static void assert_error(const struct fd_error *err, const char *path, const char *reason)
{
	char want[600];

	snprintf(want, sizeof want, "%s: %s", path, reason);
	ck_assert_str_eq(err->msg, want);
}

START_TEST(test_new_file)
{
	struct outfile o;
	struct fd_error err = { { 0 } };
	mode_t mask = umask(027);

	ck_assert_int_eq(outfile_replaceable(in_dir("r.txt")), 1);
	ck_assert_int_eq(outfile_open(&o, in_dir("r.txt"), &err), 0);
	fputs("report\n", o.f);
	/* nothing at the path until the commit, only the temporary file */
	ck_assert_ptr_null(get(in_dir("r.txt")));
	ck_assert_int_eq(strncmp(listing(), ".fusediff-", 10), 0);
	ck_assert_int_eq(outfile_commit(&o, in_dir("r.txt"), &err), 0);
	umask(mask);
	ck_assert_str_eq(get(in_dir("r.txt")), "report\n");
	ck_assert_str_eq(listing(), "r.txt");
	ck_assert_int_eq(mode_of(in_dir("r.txt")), 0640); /* the umask's, not mkstemp's 0600 */
	ck_assert_ptr_null(o.f);
	ck_assert_ptr_null(o.tmp);
}
END_TEST

START_TEST(test_replace_keeps_mode)
{
	struct outfile o;
	struct fd_error err = { { 0 } };

	put(in_dir("r.txt"), "old\n", 0604);
	ck_assert_int_eq(outfile_open(&o, in_dir("r.txt"), &err), 0);
	fputs("new\n", o.f);
	ck_assert_str_eq(get(in_dir("r.txt")), "old\n");
	ck_assert_int_eq(outfile_commit(&o, in_dir("r.txt"), &err), 0);
	ck_assert_str_eq(get(in_dir("r.txt")), "new\n");
	ck_assert_int_eq(mode_of(in_dir("r.txt")), 0604);
	ck_assert_str_eq(listing(), "r.txt");
}
END_TEST

START_TEST(test_abort_leaves_old_file)
{
	struct outfile o;
	struct fd_error err = { { 0 } };

	put(in_dir("r.txt"), "old\n", 0644);
	ck_assert_int_eq(outfile_open(&o, in_dir("r.txt"), &err), 0);
	fputs("half a rep", o.f);
	outfile_abort(&o);
	ck_assert_str_eq(get(in_dir("r.txt")), "old\n");
	ck_assert_str_eq(listing(), "r.txt");
}
END_TEST

START_TEST(test_write_error_at_commit)
{
	struct outfile o;
	struct fd_error err = { { 0 } };

	put(in_dir("r.txt"), "old\n", 0644);
	ck_assert_int_eq(outfile_open(&o, in_dir("r.txt"), &err), 0);
	/* a write error the caller did not check: the stream's error flag */
	fclose(o.f);
	o.f = fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(o.f);
	fputs("x", o.f);
	ck_assert(ferror(o.f));
	ck_assert_int_eq(outfile_commit(&o, in_dir("r.txt"), &err), -1);
	assert_error(&err, in_dir("r.txt"), strerror(EIO)); /* the flag, not the errno */
	ck_assert_str_eq(get(in_dir("r.txt")), "old\n");
	ck_assert_str_eq(listing(), "r.txt");
}
END_TEST

START_TEST(test_symbolic_link)
{
	struct outfile o;
	struct fd_error err = { { 0 } };
	char target[16];
	ssize_t n;

	put(in_dir("target.txt"), "old\n", 0644);
	ck_assert_int_eq(symlink("target.txt", in_dir("link.txt")), 0);
	ck_assert_int_eq(outfile_open(&o, in_dir("link.txt"), &err), 0);
	fputs("new\n", o.f);
	ck_assert_int_eq(outfile_commit(&o, in_dir("link.txt"), &err), 0);
	n = readlink(in_dir("link.txt"), target, sizeof target - 1);
	ck_assert_int_eq(n, 10);
	target[n] = '\0';
	ck_assert_str_eq(target, "target.txt");
	ck_assert_str_eq(get(in_dir("target.txt")), "new\n");
	ck_assert_str_eq(listing(), "link.txt target.txt");
}
END_TEST

START_TEST(test_not_replaceable)
{
	struct outfile o;
	struct fd_error err = { { 0 } };

	ck_assert_int_eq(mkfifo(in_dir("fifo"), 0600), 0);
	ck_assert_int_eq(outfile_replaceable(in_dir("fifo")), 0);
	ck_assert_int_eq(outfile_replaceable("/dev/null"), 0);
	ck_assert_int_eq(outfile_replaceable(dir), 0);
	ck_assert_int_eq(outfile_open(&o, in_dir("fifo"), &err), -1);
	assert_error(&err, in_dir("fifo"), "not a regular file");
	ck_assert_int_eq(outfile_open(&o, dir, &err), -1);
	assert_error(&err, dir, "Is a directory");
	/* a missing directory: the reason, naming the path as given */
	ck_assert_int_eq(outfile_replaceable(in_dir("no/r.txt")), 1);
	ck_assert_int_eq(outfile_open(&o, in_dir("no/r.txt"), &err), -1);
	assert_error(&err, in_dir("no/r.txt"), "No such file or directory");
	ck_assert_ptr_null(o.f);
	ck_assert_str_eq(listing(), "fifo");
}
END_TEST

/* outfile_finish(), then outfile_commit(): the file is complete on disk before any rename */
START_TEST(test_finish_then_commit)
{
	struct outfile o[2];
	struct fd_error err = { { 0 } };

	put(in_dir("a.csv"), "old\n", 0644);
	put(in_dir("b.csv"), "old\n", 0644);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(outfile_open(&o[i], in_dir(i ? "b.csv" : "a.csv"), &err), 0);
		fputs("new\n", o[i].f);
		ck_assert_int_eq(outfile_finish(&o[i], in_dir(i ? "b.csv" : "a.csv"), &err), 0);
		ck_assert_ptr_null(o[i].f);
	}
	ck_assert_str_eq(get(in_dir("a.csv")), "old\n"); /* nothing renamed yet */
	ck_assert_int_eq(outfile_commit(&o[0], in_dir("a.csv"), &err), 0);
	outfile_abort(&o[1]);
	ck_assert_str_eq(get(in_dir("a.csv")), "new\n");
	ck_assert_str_eq(get(in_dir("b.csv")), "old\n");
	ck_assert_str_eq(listing(), "a.csv b.csv");
}
END_TEST

/* the files a run reads are known by device and inode: through a link, a hard link, another
 * spelling of the path; a file made later under another name is not one of them */
START_TEST(test_file_set)
{
	struct file_set *fs = file_set_new();
	struct stat st;
	char other[600];

	put(in_dir("t.json"), "{}\n", 0644);
	ck_assert_int_eq(symlink("t.json", in_dir("link.json")), 0);
	ck_assert_int_eq(link(in_dir("t.json"), in_dir("hard.json")), 0);
	ck_assert_int_eq(stat(in_dir("link.json"), &st), 0);
	file_set_add_stat(fs, &st, "LINK");
	file_set_add_path(fs, in_dir("missing.json")); /* nothing to record */
	file_set_add_path(fs, "/dev/null");	       /* not a regular file */
	ck_assert_str_eq(file_set_find(fs, in_dir("t.json")), "LINK");
	ck_assert_str_eq(file_set_find(fs, in_dir("hard.json")), "LINK");
	snprintf(other, sizeof other, "%s/./t.json", dir);
	ck_assert_str_eq(file_set_find(fs, other), "LINK");
	ck_assert_ptr_null(file_set_find(fs, in_dir("missing.json")));
	ck_assert_ptr_null(file_set_find(fs, "/dev/null"));
	ck_assert_ptr_null(file_set_find(NULL, in_dir("t.json")));
	put(in_dir("new.json"), "{}\n", 0644);
	ck_assert_ptr_null(file_set_find(fs, in_dir("new.json")));
	file_set_free(fs);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_file);
	tcase_add_test(tc, test_replace_keeps_mode);
	tcase_add_test(tc, test_abort_leaves_old_file);
	tcase_add_test(tc, test_write_error_at_commit);
	tcase_add_test(tc, test_symbolic_link);
	tcase_add_test(tc, test_not_replaceable);
	tcase_add_test(tc, test_finish_then_commit);
	tcase_add_test(tc, test_file_set);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
