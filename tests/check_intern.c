/* check_intern.c — the string table: dense ids, one copy per distinct string, any bytes. */
#include "testutil.h"

#include "fusediff/intern.h"

START_TEST(test_ids_dense_and_stable)
{
	struct intern *t = intern_new();
	char s[64];
	const uint32_t n = 200000; /* many rehashes */

	ck_assert_uint_eq(intern_count(t), 1);
	ck_assert_uint_eq(intern_add(t, "", 0), 0);
	for (uint32_t i = 0; i < n; i++) {
		int len = snprintf(s, sizeof s, "kernel_%u_with_a_longer_tail", i);

		ck_assert_uint_eq(intern_add(t, s, (size_t)len), i + 1);
	}
	ck_assert_uint_eq(intern_count(t), n + 1);
	for (uint32_t i = 0; i < n; i += 997) {
		int len = snprintf(s, sizeof s, "kernel_%u_with_a_longer_tail", i);

		/* adding again gives the same id and stores nothing */
		ck_assert_uint_eq(intern_add(t, s, (size_t)len), i + 1);
		ck_assert_uint_eq(intern_find(t, s, (size_t)len), i + 1);
		ck_assert_str_eq(intern_str(t, i + 1), s);
		ck_assert_uint_eq(intern_len(t, i + 1), (size_t)len);
	}
	ck_assert_uint_eq(intern_count(t), n + 1);
	ck_assert_uint_eq(intern_find(t, "kernel_", 7), UINT32_MAX);
	intern_free(t);
}
END_TEST

/* Strings that differ only in length, in one byte at every position, or in bytes past a NUL. */
START_TEST(test_near_misses)
{
	struct intern *t = intern_new();
	char base[40], v[40];
	uint32_t ids[41];

	memset(base, 'a', sizeof base);
	for (size_t len = 1; len <= sizeof base; len++)
		ids[len] = intern_add(t, base, len);
	for (size_t len = 1; len <= sizeof base; len++) {
		ck_assert_uint_eq(intern_find(t, base, len), ids[len]);
		ck_assert_uint_eq(intern_len(t, ids[len]), len);
	}
	for (size_t i = 0; i < sizeof v; i++) {
		memcpy(v, base, sizeof v);
		v[i] = 'b';
		ck_assert_uint_eq(intern_find(t, v, sizeof v), UINT32_MAX);
		v[i] = '\0';
		ck_assert_uint_eq(intern_find(t, v, sizeof v), UINT32_MAX);
		ck_assert_uint_eq(intern_add(t, v, sizeof v), intern_count(t) - 1);
		ck_assert_int_eq(memcmp(intern_str(t, intern_count(t) - 1), v, sizeof v), 0);
		ck_assert_int_eq(intern_str(t, intern_count(t) - 1)[sizeof v], '\0');
	}
	ck_assert_uint_eq(intern_count(t), 1 + 40 + 40);
	ck_assert_str_eq(intern_str(t, UINT32_MAX - 1), ""); /* unknown ids read as "" */
	intern_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("intern");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_ids_dense_and_stable);
	tcase_add_test(tc, test_near_misses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
