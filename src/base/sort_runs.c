/* sort_runs.c — a stable sort for arrays that are mostly in order already.
 *
 * The loader's arrays come in the order the profiler wrote them: kernels by start with a few
 * late ones (a second stream, memsets written after), operators by External id, launches by
 * correlation. glibc's qsort (a merge sort, stable) sorts them again from scratch, with a call
 * of the comparator per step. Here the array is cut into its ascending runs, and neighbouring
 * runs are merged, each merge first skipping what is already in place at both ends (two
 * binary searches), then moving the shorter side out into a buffer of its size, so that an
 * array with a short stretch out of order needs little memory beside it. An array in order
 * costs n - 1 comparisons; one with a short out-of-order stretch, little more. An array
 * without long runs (more than one run per 16 elements) goes to qsort as before. The result is
 * the stable order, the one glibc's merge sort gives, so that both agree to the byte.
 *
 * sort_index() is the merge sort of indices with a context for the comparator, which qsort()
 * has no argument for (launches by start, names by class). */
#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

typedef int (*cmp_fn)(const void *, const void *);

#define AT(base, i, size) ((char *)(base) + (size_t)(i) * (size))

typedef int (*index_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Merge-sort v[0..n) through tmp (room for n): each half, then the two merged, the left
 * half's first on ties. */
static void index_merge_sort(uint32_t *v, uint32_t *tmp, size_t n, index_cmp_fn cmp,
			     const void *ctx)
{
	size_t i = 0, j = n / 2, o = 0;

	if (n < 2)
		return;
	index_merge_sort(v, tmp, n / 2, cmp, ctx);
	index_merge_sort(v + n / 2, tmp, n - n / 2, cmp, ctx);
	if (cmp(ctx, v[n / 2 - 1], v[n / 2]) <= 0)
		return; /* the halves are in order already: an array in order costs n comparisons */
	while (i < n / 2 && j < n)
		tmp[o++] = cmp(ctx, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < n / 2)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

void sort_index(uint32_t *idx, size_t n, index_cmp_fn cmp, const void *ctx)
{
	uint32_t *tmp;

	if (n < 2)
		return;
	tmp = xreallocarray(NULL, n, sizeof *tmp);
	index_merge_sort(idx, tmp, n, cmp, ctx);
	free(tmp);
}

/* A buffer that grows to the largest side a merge moves out. */
struct buf {
	char *p;
	size_t cap; /* elements */
};

/* Merge the sorted a[lo, mid) and a[mid, hi) in place, stably. */
static void merge(char *a, size_t lo, size_t mid, size_t hi, size_t size, cmp_fn cmp, struct buf *b)
{
	char *tmp;

	/* what is in place already: the left run's elements not above the right's first, the
	 * right run's elements not below the left's last */
	lo += upper_bound(a + lo * size, mid - lo, size, a + mid * size, cmp);
	if (lo == mid)
		return;
	hi = mid + lower_bound(a + mid * size, hi - mid, size, a + (mid - 1) * size, cmp);
	{
		size_t need = mid - lo <= hi - mid ? mid - lo : hi - mid;

		if (need > b->cap) {
			free(b->p);
			b->p = xreallocarray(NULL, need, size);
			b->cap = need;
		}
		tmp = b->p;
	}
	if (mid - lo <= hi - mid) { /* left side out, merged forward */
		size_t i = 0, n = mid - lo, j = mid, o = lo;

		memcpy(tmp, a + lo * size, n * size);
		while (i < n && j < hi) {
			if (cmp(a + j * size, tmp + i * size) < 0)
				memcpy(a + o++ * size, a + j++ * size, size);
			else
				memcpy(a + o++ * size, tmp + i++ * size, size);
		}
		memcpy(a + o * size, tmp + i * size, (n - i) * size);
	} else { /* right side out, merged backward */
		size_t n = hi - mid, i = n, j = mid, o = hi;

		memcpy(tmp, a + mid * size, n * size);
		while (i > 0 && j > lo) {
			if (cmp(tmp + (i - 1) * size, a + (j - 1) * size) < 0)
				memcpy(a + --o * size, a + --j * size, size);
			else
				memcpy(a + --o * size, tmp + --i * size, size);
		}
		memcpy(a + lo * size, tmp, i * size);
	}
}

void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base;
	struct buf b = { NULL, 0 };
	size_t *run, runs = 0, cap = 16;

	if (n < 2)
		return;
	run = xmalloc(cap * sizeof *run); /* run k is [run[k], run[k + 1]) */
	run[runs++] = 0;
	for (size_t i = 1; i < n; i++)
		if (cmp(AT(a, i - 1, size), AT(a, i, size)) > 0) {
			if (runs + 1 > n / 16 + 1) { /* no long runs: a plain sort */
				free(run);
				qsort(base, n, size, cmp);
				return;
			}
			if (runs + 1 == cap)
				run = xreallocarray(run, cap *= 2, sizeof *run);
			run[runs++] = i;
		}
	if (runs == 1) {
		free(run);
		return;
	}
	run[runs] = n;
	while (runs > 1) { /* neighbours merged pairwise, as a bottom-up merge sort */
		size_t out = 0;

		for (size_t k = 0; k < runs; k += 2) {
			if (k + 1 < runs)
				merge(a, run[k], run[k + 1], run[k + 2], size, cmp, &b);
			run[out++] = run[k];
		}
		run[out] = n;
		runs = out;
	}
	free(b.p);
	free(run);
}
