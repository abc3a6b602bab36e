/* bigmem.c — large arrays on huge pages (see bigmem.h). */
#include "fusediff/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fusediff/util.h"

#define HUGE_PAGE ((size_t)2 << 20)

void *big_alloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (n == 0) /* a valid array of one element */
		n = 1;
	if (size && n > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes)", n, size);
	bytes = n * size;
	if (bytes < HUGE_PAGE)
		return xmalloc(bytes);
	if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
		die("out of memory (%zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
	/* advice only: without transparent huge pages the array is plain memory */
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}
