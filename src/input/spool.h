/* spool.h — raw bytes kept to be read again: the gzip member that ISA-L inflates from a pipe,
 * for zlib to inflate again from its start when ISA-L stops in it (input.c). In memory up to a
 * limit, then in an unlinked temporary file (in the directory given, else /tmp), or in memory still when no
 * such file can be made. Internal to the loader. */
#ifndef FUSEDIFF_SPOOL_H
#define FUSEDIFF_SPOOL_H

#include <stddef.h>
#include <stdint.h>

struct spool;

/* An empty spool that keeps up to mem_max bytes in memory, then makes its temporary file in
 * tmpdir (borrowed: it must outlive the spool; NULL or "": /tmp). Owned by caller: free with
 * spool_free(). */
struct spool *spool_new(size_t mem_max, const char *tmpdir);
void spool_free(struct spool *s);

/* The spool holds the bytes [start, end) of a stream: spool_add() appends n bytes at end (with
 * nothing held, they start at off); spool_keep_from() drops those before off. Dies when out of
 * memory, like xmalloc(). */
void spool_add(struct spool *s, int64_t off, const void *buf, size_t n);
void spool_keep_from(struct spool *s, int64_t off);
int64_t spool_start(const struct spool *s);
int64_t spool_end(const struct spool *s);

/* Up to cap of the bytes held from off (start <= off <= end) into buf: how many (0 at end), or
 * -1 when the temporary file cannot be read (errno set). */
long spool_read(struct spool *s, int64_t off, void *buf, size_t cap);

#endif
