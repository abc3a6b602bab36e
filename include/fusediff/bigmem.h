/* bigmem.h — large per-kernel arrays on huge pages where the system offers them.
 *
 * A fresh page of memory costs a page fault on first touch: on the machines fusediff is
 * measured on, a 4 KiB fault costs about as much as reading a few thousand kernels, and an
 * array of 4 bytes per kernel costs as much as reading all the kernels several times. Linux
 * with transparent huge pages in "madvise" mode (the default of many distributions) backs a
 * region marked MADV_HUGEPAGE with 2 MiB pages: one fault instead of 512. Elsewhere this is
 * plain malloc. */
#ifndef FUSEDIFF_BIGMEM_H
#define FUSEDIFF_BIGMEM_H

#include <stddef.h>

/* An array of n elements of size bytes (uninitialised), aligned for huge pages and marked for
 * them from 1 MiB on (rounded up to one huge page, 2 MiB, where it is smaller). Dies when out
 * of memory, like xmalloc(); n == 0 gives a valid array of one element. Owned by caller: free
 * with free(). */
void *big_alloc(size_t n, size_t size);

#endif
