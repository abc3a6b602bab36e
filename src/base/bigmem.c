/* bigmem.c — large arrays on huge pages (see bigmem.h). */
#include "fusediff/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fusediff/util.h"

#define HUGE_PAGE ((size_t)2 << 20)
/* From this size on an array is given whole huge pages (one at least): zeroing 2 MiB costs
 * less than the 256 page faults of 1 MiB in small pages, on the 2-core VM 26 us each. The
 * llama8l pair's --report text (no GLIBC_TUNABLES): 2,104 -> 1,661 page faults, 113-154 ->
 * 109-114 ms of CPU; the 1.18 GB trace's --summary: 9,918 -> 7,507 faults; peak RSS of a small
 * pair 21.0 -> 21.5 MB. (With the tests' malloc tunables, which put the heap on huge pages
 * already, the same: 53-55 ms against 52-56.) */
#define BIG_MIN ((size_t)1 << 20)

void *big_alloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (n == 0) /* a valid array of one element */
		n = 1;
	if (size && n > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes)", n, size);
	bytes = n * size;
	if (bytes < BIG_MIN)
		return xmalloc(bytes);
	if (bytes < HUGE_PAGE)
		bytes = HUGE_PAGE;
	if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
		die("out of memory (%zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
	/* advice only: without transparent huge pages the array is plain memory */
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}
