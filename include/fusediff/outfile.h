/* outfile.h — writing a file that is either complete or not there at all: the bytes go to a
 * temporary file (".fusediff-XXXXXX") in the target's directory, which replaces the target
 * with rename() once it is complete and on disk. An error never leaves half a file; a program
 * that must also survive signals unlinks `tmp` in its handler. Used by --report -o and the
 * explorer's export. */
#ifndef FUSEDIFF_OUTFILE_H
#define FUSEDIFF_OUTFILE_H

#include <stdio.h>

#include "fusediff/util.h"

struct outfile {
	FILE *f;      /* write the content here */
	char *tmp;    /* the temporary file (owned) */
	char *target; /* what it replaces: the path, or the file a symbolic link points to (owned) */
	FILE *raw;    /* after outfile_gzip(): the temporary file itself (f compresses into it) */
	void *gz;     /* after outfile_gzip(): the compressor (owned) */
};

/* 1 when path names a regular file or nothing yet (following symbolic links), so that
 * outfile_open() may replace it; 0 for a directory, device, FIFO or socket, which must be
 * written directly or not at all. */
int outfile_replaceable(const char *path);

/* 1 when paths a and b name the same existing file (device and inode, symbolic links
 * followed): an output that would replace an input. */
int outfile_same_file(const char *a, const char *b);

/* Start writing path. A symbolic link is written through (its target is replaced, the link
 * stays); an existing file's permission bits are kept, a new file gets 0666 less the umask.
 * Errors (message "PATH: reason"): path is not replaceable, the directory cannot be written.
 * On success end with outfile_commit() or outfile_abort(). */
int outfile_open(struct outfile *o, const char *path, struct fd_error *err);

/* 1 when path ends in ".gz" (any case): a file to write gzip-compressed. */
int outfile_wants_gzip(const char *path);

/* Compress everything written to o->f from now on with gzip (zlib, level 6; a member any gzip
 * reader reads): call right after outfile_open(). Errors: none but memory (die()); returns 0.
 * outfile_commit() ends the stream, outfile_abort() drops it. */
int outfile_gzip(struct outfile *o);

/* Flush, sync and close the temporary file, then rename it over the target. Errors (message
 * "PATH: reason", path as given to outfile_open()): a write error earlier (ferror), no space,
 * the rename failing; the temporary file is then removed and the target left as it was.
 * Either way o is released. */
int outfile_commit(struct outfile *o, const char *path, struct fd_error *err);

/* The first half of outfile_commit(): flush, sync and close the temporary file, which is then
 * complete on disk, without renaming it (several files replaced together: all finished, then
 * all committed). Errors as outfile_commit()'s, o then released and the temporary file
 * removed; on success end with outfile_commit() (which only renames) or outfile_abort(). */
int outfile_finish(struct outfile *o, const char *path, struct fd_error *err);

/* Close and remove the temporary file; the target is untouched. o is released. */
void outfile_abort(struct outfile *o);

#endif
