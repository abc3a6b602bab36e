/* fileset.c — the files a run reads, by device and inode (fileset.h). */
#include "fusediff/fileset.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

struct file_id {
	dev_t dev;
	ino_t ino;
	char *path;
};

struct file_set {
	pthread_mutex_t mu; /* the loads of a comparison (and of its ranks) run in parallel */
	struct file_id *v;
	size_t n, cap;
};

struct file_set *file_set_new(void)
{
	struct file_set *fs = xcalloc(1, sizeof *fs);

	pthread_mutex_init(&fs->mu, NULL);
	return fs;
}

void file_set_free(struct file_set *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].path);
	free(fs->v);
	pthread_mutex_destroy(&fs->mu);
	free(fs);
}

void file_set_add_stat(struct file_set *fs, const struct stat *st, const char *path)
{
	if (!fs || !S_ISREG(st->st_mode))
		return;
	pthread_mutex_lock(&fs->mu);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].dev == st->st_dev && fs->v[i].ino == st->st_ino) {
			pthread_mutex_unlock(&fs->mu);
			return;
		}
	VEC_RESERVE(fs->v, fs->n, fs->cap);
	fs->v[fs->n++] = (struct file_id){ st->st_dev, st->st_ino, xstrdup(path) };
	pthread_mutex_unlock(&fs->mu);
}

void file_set_add_path(struct file_set *fs, const char *path)
{
	struct stat st;

	if (fs && path && stat(path, &st) == 0)
		file_set_add_stat(fs, &st, path);
}

const char *file_set_find(const struct file_set *fs, const char *path)
{
	struct stat st;
	const char *found = NULL;

	if (!fs || !path || stat(path, &st) != 0)
		return NULL;
	pthread_mutex_lock((pthread_mutex_t *)&fs->mu);
	for (size_t i = 0; i < fs->n && !found; i++)
		if (fs->v[i].dev == st.st_dev && fs->v[i].ino == st.st_ino)
			found = fs->v[i].path;
	pthread_mutex_unlock((pthread_mutex_t *)&fs->mu);
	return found;
}
