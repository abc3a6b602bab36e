/* fileset.h — the files a run reads, by device and inode: what no output may replace.
 *
 * The loader records every file it opens (traces, the files of a directory of ranks, graph
 * captures found in a directory), the program adds the files it reads itself (rules, the
 * per-user rules file, peaks); before anything is written, every output path is looked up.
 * Links need no care: a file is known by its device and inode, whatever name reached it. */
#ifndef FUSEDIFF_FILESET_H
#define FUSEDIFF_FILESET_H

#include <sys/stat.h>

struct file_set;

/* An empty set. Owned by caller: free with file_set_free(). */
struct file_set *file_set_new(void);
void file_set_free(struct file_set *fs);

/* Record the file st describes (fstat() of an open file) as read, named path in messages.
 * Anything but a regular file is ignored (a pipe, a device: nothing to replace). fs may be
 * NULL (nothing is recorded). Thread-safe. */
void file_set_add_stat(struct file_set *fs, const struct stat *st, const char *path);
/* The same for the file at path (links followed), when it exists. */
void file_set_add_path(struct file_set *fs, const char *path);

/* When path names a file of the set (links followed): the name it was recorded under
 * (borrowed, valid until file_set_free()), else NULL. fs may be NULL. */
const char *file_set_find(const struct file_set *fs, const char *path);

#endif
