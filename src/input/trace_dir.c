/* trace_dir.c — the trace files of a directory (trace_dir.h). */
#include "fusediff/trace_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n > k && strcmp(s + n - k, suf) == 0;
}

int trace_dir_is_trace_name(const char *name)
{
	static const char *const ext[] = { ".json", ".json.gz", ".sqlite", ".sqlite.gz",
					   ".db",   ".rpd",	".csv",	   ".csv.gz" };

	if (name[0] == '.')
		return 0;
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (has_suffix(name, ext[i]))
			return 1;
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int trace_dir_list(const char *dir, char ***paths, size_t *n_out, struct fd_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0, dlen = strlen(dir);
	const char *sep = dlen && dir[dlen - 1] == '/' ? "" : "/";

	*paths = NULL;
	*n_out = 0;
	if (!d) {
		fd_error_set(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *path;

		if (!trace_dir_is_trace_name(e->d_name))
			continue;
		path = xasprintf("%s%s%s", dir, sep, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		VEC_PUSH(v, n, cap, path);
	}
	closedir(d);
	/* every path has the same folder in front: sorted by path is sorted by name */
	if (n)
		qsort(v, n, sizeof *v, cmp_path);
	*paths = v;
	*n_out = n;
	return 0;
}

void trace_dir_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
