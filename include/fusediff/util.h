/* util.h — errors, allocation that cannot fail, growable arrays, binary searches (also from a
 * hint). */
#ifndef FUSEDIFF_UTIL_H
#define FUSEDIFF_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#define FD_ERROR_MAX 1024

/* An error: one line for the user, without the "fusediff: " prefix and without a newline.
 * Functions that can fail return 0 on success and -1 on failure after filling it in. */
struct fd_error {
	char msg[FD_ERROR_MAX];
};

/* Set err's message from a printf format. err may be NULL (the message is dropped). */
void fd_error_set(struct fd_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "fusediff: <message>" on stderr and abort. For out-of-memory and broken invariants
 * only; bad input is reported through struct fd_error. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc family that die()s instead of returning NULL. Owned by caller: free with free(). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string. Owned by caller: free with free(). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* pthread_create(th, NULL, fn, arg), with the thread started on a core other than the
 * caller's where the caller may run on several (it may use all of them once it runs): Linux
 * started the first thread of a program on its creator's core in 10 of 16 runs of --summary,
 * and kept both there, the other core idle, until the next scheduler tick (up to 2 ms). Returns
 * what pthread_create returns. */
int thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

/* fn(arg0) on this thread and fn(arg1) on another at the same time (or after, on this one,
 * when no thread can be started); returns when both are done. */
void run_both(void *(*fn)(void *), void *arg0, void *arg1);
/* fn(arg, 0) and fn(arg, 1) as run_both() runs them: the two halves of one job (the two sides
 * of a comparison, two halves of a range), each writing only what is its own. */
void run_two(void (*fn)(void *arg, int i), void *arg);

/* Make room for one more element in a growable array (ptr, len, cap). */
#define VEC_RESERVE(ptr, len, cap)                                          \
	do {                                                                \
		if ((len) >= (cap)) {                                       \
			(cap) = (cap) ? (cap)*2 : 16;                       \
			(ptr) = xreallocarray((ptr), (cap), sizeof *(ptr)); \
		}                                                           \
	} while (0)

/* Append one element to a growable array. */
#define VEC_PUSH(ptr, len, cap, value)      \
	do {                                \
		VEC_RESERVE(ptr, len, cap); \
		(ptr)[(len)++] = (value);   \
	} while (0)

/* Three-way comparison of two numbers without overflow. */
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The length of the prefix of [0, n) on which before(ctx, i) holds, before being true on a
 * prefix and false after it (a lower bound in a sorted array), searched from hint (a guess:
 * the answer of a nearby query): steps of 1, 2, 4, ... from the hint bracket the answer and a
 * binary search finishes. An answer d places from the hint costs about 2 log2(d) probes, all
 * near the hint. Inline, so that before is inlined too. */
static inline size_t gallop_prefix(size_t n, size_t hint, int (*before)(const void *ctx, size_t i),
				   const void *ctx)
{
	size_t h = hint < n ? hint : n, lo, hi, step;

	if (h < n && before(ctx, h)) {
		/* the answer is in (h, n] */
		lo = h + 1;
		hi = n;
		for (step = 1; step < n - h; step *= 2) {
			if (!before(ctx, h + step)) {
				hi = h + step;
				break;
			}
			lo = h + step + 1;
		}
	} else if (h > 0 && !before(ctx, h - 1)) {
		/* the answer is in [0, h - 1] */
		lo = 0;
		hi = h - 1;
		for (step = 2; step <= h; step *= 2) {
			if (before(ctx, h - step)) {
				lo = h - step + 1;
				break;
			}
			hi = h - step;
		}
	} else {
		return h;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first i in [0, n) with cmp(key, &base[i]) <= 0 (upper: < 0) in base[0..n), elements of
 * size bytes sorted so that the elements cmp puts before key come first; n when all are. cmp
 * compares the key (its first argument) with an element, as bsearch's does; an element-shaped
 * key lets qsort's comparator serve. base may be NULL when n is 0. Inline, so that a constant
 * cmp is inlined too. */
static inline size_t bound_search(const void *base, size_t n, size_t size, const void *key,
				  int (*cmp)(const void *key, const void *elem), int upper)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, (const char *)base + mid * size);

		if (c > 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first element not before key (key would go before its equals): see bound_search(). */
static inline size_t lower_bound(const void *base, size_t n, size_t size, const void *key,
				 int (*cmp)(const void *key, const void *elem))
{
	return bound_search(base, n, size, key, cmp, 0);
}

/* The first element after key (key would go after its equals): see bound_search(). */
static inline size_t upper_bound(const void *base, size_t n, size_t size, const void *key,
				 int (*cmp)(const void *key, const void *elem))
{
	return bound_search(base, n, size, key, cmp, 1);
}

/* Define `static inline size_t name(const T *a, size_t n, K key)`: the first i in [0, n) with
 * a[i].field >= key, in a[0..n) sorted by the number field; n when all are smaller. The same
 * lower bound as lower_bound() with the comparison written out, for the lookups done per kernel:
 * a comparator's three-way result costs five instructions more a probe, which gcc does not
 * fold away. */
#define DEFINE_LOWER_BOUND(name, T, K, field)                  \
	static inline size_t name(const T *a, size_t n, K key) \
	{                                                      \
		size_t lo = 0, hi = n;                         \
                                                               \
		while (lo < hi) {                              \
			size_t mid = lo + (hi - lo) / 2;       \
                                                               \
			if (a[mid].field < key)                \
				lo = mid + 1;                  \
			else                                   \
				hi = mid;                      \
		}                                              \
		return lo;                                     \
	}

/* qsort(), stable and fast on arrays that are mostly in order already (sort_runs.c): the
 * order glibc's merge sort gives, in about n comparisons when few elements are out of place.
 * The loader's arrays mostly are (operators by External id, launches by correlation, kernels by
 * start). base may be NULL when n is 0. */
void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Sort the indices idx[0..n) stably by cmp(ctx, a, b), a three-way comparison of the things
 * indices a and b stand for: a merge sort (sort_runs.c), for the orders qsort() cannot give
 * without a global (it has no context argument). idx may be NULL when n is 0. */
void sort_index(uint32_t *idx, size_t n, int (*cmp)(const void *ctx, uint32_t a, uint32_t b),
		const void *ctx);

/* Base name of a path (borrowed pointer into path). */
const char *path_basename(const char *path);

#endif
