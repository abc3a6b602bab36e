/* check_sort.c — sort_runs(): the stable order, whatever the runs, with few comparisons on
 * arrays that are in order already; sort_index() of indices by a context; the binary searches lower_bound(), upper_bound() and
 * DEFINE_LOWER_BOUND(). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "fusediff/util.h"

struct item {
	int64_t key;
	uint32_t index; /* place before the sort: ties must keep it */
	char pad[36];	/* a kernel's size: 48 bytes */
};

static long compares;

static int cmp_key(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	compares++;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int cmp_key_index(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum pattern { SORTED, REVERSED, TAIL, RUNS, RANDOM, EQUAL, FEW_KEYS, PATTERNS };

static void fill(struct item *v, size_t n, enum pattern p)
{
	for (size_t i = 0; i < n; i++) {
		int64_t k;

		switch (p) {
		case SORTED: k = (int64_t)i; break;
		case REVERSED: k = (int64_t)(n - i); break;
		case TAIL:
			k = i < n - n / 5 ? (int64_t)(2 * i) : (int64_t)(next() % (2 * n));
			break;
		case RUNS: k = (int64_t)(i % (n / 7 + 1)); break;
		case RANDOM: k = (int64_t)(next() % 1000003); break;
		case EQUAL: k = 5; break;
		default: k = (int64_t)(next() % 4); break;
		}
		memset(&v[i], 0, sizeof v[i]);
		v[i].key = k;
		v[i].index = (uint32_t)i;
		v[i].pad[0] = (char)i;
	}
}

/* Every pattern at sizes around the thresholds: the result is the stable order (by key, then
 * place before), the one glibc's merge sort gives. */
START_TEST(test_stable_order)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 33, 100, 1000, 4097, 50000 };

	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
		for (int p = 0; p < PATTERNS; p++) {
			size_t n = sizes[si];
			struct item *v = calloc(n + 1, sizeof *v), *want = calloc(n + 1, sizeof *v);

			fill(v, n, (enum pattern)p);
			memcpy(want, v, n * sizeof *v);
			qsort(want, n, sizeof *want, cmp_key_index);
			sort_runs(v, n, sizeof *v, cmp_key);
			for (size_t i = 0; i < n; i++) {
				ck_assert_msg(
					v[i].key == want[i].key && v[i].index == want[i].index,
					"n %zu pattern %d: element %zu is %lld/%u, not %lld/%u", n,
					p, i, (long long)v[i].key, v[i].index,
					(long long)want[i].key, want[i].index);
				ck_assert_int_eq(v[i].pad[0], (char)v[i].index);
			}
			free(v);
			free(want);
		}
}
END_TEST

/* What the loader meets: in order (n - 1 comparisons), or in order but for a short stretch of
 * late elements (far fewer comparisons than a full sort's n log2 n). */
START_TEST(test_few_compares_when_nearly_sorted)
{
	size_t n = 100000;
	struct item *v = calloc(n, sizeof *v);

	fill(v, n, SORTED);
	compares = 0;
	sort_runs(v, n, sizeof *v, cmp_key);
	ck_assert_int_eq(compares, (long)n - 1);

	fill(v, n, SORTED);
	for (size_t i = 60000; i < 60100; i++) /* a hundred written late */
		v[i].key = (int64_t)(i - 30000);
	compares = 0;
	sort_runs(v, n, sizeof *v, cmp_key);
	ck_assert_msg(compares < 2 * (long)n, "%ld comparisons", compares);
	for (size_t i = 1; i < n; i++)
		ck_assert(v[i - 1].key <= v[i].key);
	free(v);
}
END_TEST

static int cmp_int32_for_test(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;

	return a < b ? -1 : a > b;
}

/* Small elements (the ids the report sorts): four bytes each. */
START_TEST(test_element_sizes)
{
	int32_t a[] = { 3, 1, 2, 2, 9, 0, -4, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	size_t n = sizeof a / sizeof a[0];
	int32_t b[sizeof a / sizeof a[0]];

	memcpy(b, a, sizeof a);
	qsort(b, n, sizeof *b, cmp_int32_for_test);
	sort_runs(a, n, sizeof *a, cmp_int32_for_test);
	ck_assert_mem_eq(a, b, sizeof a);
}
END_TEST

/* Indices by the keys in ctx. */
static int cmp_index_key(const void *ctx, uint32_t a, uint32_t b)
{
	const int64_t *key = ctx;

	return CMP(key[a], key[b]);
}

/* sort_index(): every pattern, each size up to 200, gives the stable order of the indices by
 * key (equal keys keep their place), as sort_runs() of the items by key gives it. */
START_TEST(test_sort_index)
{
	static struct item v[200];
	static int64_t key[200];
	static uint32_t idx[200];

	sort_index(NULL, 0, cmp_index_key, key);
	for (int p = 0; p < PATTERNS; p++)
		for (size_t n = 1; n <= 200; n += n < 20 ? 1 : 17) {
			fill(v, n, (enum pattern)p);
			for (size_t i = 0; i < n; i++) {
				key[i] = v[i].key;
				idx[i] = (uint32_t)i;
			}
			sort_index(idx, n, cmp_index_key, key);
			sort_runs(v, n, sizeof *v, cmp_key);
			for (size_t i = 0; i < n; i++)
				ck_assert_uint_eq(idx[i], v[i].index);
		}
}
END_TEST

DEFINE_LOWER_BOUND(item_lower, struct item, int64_t, key)

/* The first i with v[i].key >= x (upper: > x), by looking at every element. */
static size_t bound_scan(const struct item *v, size_t n, int64_t x, int upper)
{
	size_t i = 0;

	while (i < n && (upper ? v[i].key <= x : v[i].key < x))
		i++;
	return i;
}

/* The empty array, keys below all, above all, between and on runs of equals: the searches
 * agree with a scan, the typed one with the generic one. */
START_TEST(test_bounds)
{
	static const int64_t keys[] = { 1, 3, 3, 3, 7, 7, 9 };
	struct item v[64];
	size_t n = sizeof keys / sizeof *keys;

	ck_assert_uint_eq(lower_bound(NULL, 0, sizeof *v, &(struct item){ .key = 3 }, cmp_key), 0);
	ck_assert_uint_eq(upper_bound(NULL, 0, sizeof *v, &(struct item){ .key = 3 }, cmp_key), 0);
	ck_assert_uint_eq(item_lower(NULL, 0, 3), 0);
	memset(v, 0, sizeof v);
	for (size_t i = 0; i < n; i++)
		v[i].key = keys[i];
	ck_assert_uint_eq(lower_bound(v, n, sizeof *v, &(struct item){ .key = 0 }, cmp_key), 0);
	ck_assert_uint_eq(upper_bound(v, n, sizeof *v, &(struct item){ .key = 0 }, cmp_key), 0);
	ck_assert_uint_eq(lower_bound(v, n, sizeof *v, &(struct item){ .key = 3 }, cmp_key), 1);
	ck_assert_uint_eq(upper_bound(v, n, sizeof *v, &(struct item){ .key = 3 }, cmp_key), 4);
	ck_assert_uint_eq(lower_bound(v, n, sizeof *v, &(struct item){ .key = 10 }, cmp_key), n);
	ck_assert_uint_eq(upper_bound(v, n, sizeof *v, &(struct item){ .key = 9 }, cmp_key), n);
	for (size_t len = 0; len <= 64; len++) {
		for (size_t i = 0; i < len; i++) /* runs of equal keys, gaps between */
			v[i].key = (int64_t)(i / 3 * 2 + (i % 7 == 0));
		for (size_t i = 1; i < len; i++)
			if (v[i].key < v[i - 1].key)
				v[i].key = v[i - 1].key;
		for (int64_t x = -1; x <= (int64_t)len + 2; x++) {
			const struct item key = { .key = x };

			ck_assert_uint_eq(lower_bound(v, len, sizeof *v, &key, cmp_key),
					  bound_scan(v, len, x, 0));
			ck_assert_uint_eq(upper_bound(v, len, sizeof *v, &key, cmp_key),
					  bound_scan(v, len, x, 1));
			ck_assert_uint_eq(item_lower(v, len, x), bound_scan(v, len, x, 0));
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sort");
	TCase *tc = tcase_create("sort_runs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stable_order);
	tcase_add_test(tc, test_few_compares_when_nearly_sorted);
	tcase_add_test(tc, test_element_sizes);
	tcase_add_test(tc, test_sort_index);
	suite_add_tcase(s, tc);
	tc = tcase_create("bounds");
	tcase_add_test(tc, test_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
