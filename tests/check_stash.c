/* check_stash.c — packed records (src/trace/stash.h): what is put is read back, across chunks,
 * and another stash's records appended as a segment read back with their own deltas and the
 * number of their segment, records put after them in a segment of their own. */
#include "testutil.h"

#include "src/trace/stash.h"

/* Record i of stash `tag`: a few fields, some written as deltas that go both ways. */
static void put_record(struct stash *s, int tag, int64_t i)
{
	stash_begin(s);
	stash_put_delta(s, 0, tag * 1000000 + i * 7);
	stash_put_delta(s, 1, (i % 3) ? -i : i * i);
	stash_put(s, (uint64_t)(tag * 100 + i % 100));
	stash_put(s, (uint64_t)i << (i % 50));
}

static void check_record(struct stash_reader *r, int tag, int64_t i, size_t segment)
{
	int64_t a, b;
	uint64_t c, d;

	stash_next(r);
	ck_assert_uint_eq(r->segment, segment);
	a = stash_get_delta(r, 0);
	b = stash_get_delta(r, 1);
	c = stash_get(r);
	d = stash_get(r);
	ck_assert_int_eq(a, tag * 1000000 + i * 7);
	ck_assert_int_eq(b, (i % 3) ? -i : i * i);
	ck_assert_uint_eq(c, (uint64_t)(tag * 100 + i % 100));
	ck_assert_uint_eq(d, (uint64_t)i << (i % 50));
}

START_TEST(test_put_and_read)
{
	struct stash s = { 0 };
	struct stash_reader r;
	const int64_t n = 200000; /* several chunks */

	for (int64_t i = 0; i < n; i++)
		put_record(&s, 1, i);
	ck_assert_uint_eq(s.n, (size_t)n);
	stash_scan(&s, &r); /* twice: a scan leaves the stash as it is */
	for (int64_t i = 0; i < n; i++)
		check_record(&r, 1, i, 0);
	stash_read(&s, &r);
	for (int64_t i = 0; i < n; i++)
		check_record(&r, 1, i, 0);
	stash_free(&s);
}
END_TEST

/* A, then B appended (segment 1), then more of A's own (segment 2), then C (segment 3): each
 * read with its deltas from zero, as if it had been put alone. */
/* Fields passed by with stash_skip() (one byte to ten each) leave the reader at the next. */
START_TEST(test_skip)
{
	struct stash s = { 0 };
	struct stash_reader r;
	const int64_t n = 200000;

	for (int64_t i = 0; i < n; i++)
		put_record(&s, 3, i);
	stash_read(&s, &r);
	for (int64_t i = 0; i < n; i++) {
		if (i % 2) {
			check_record(&r, 3, i, 0);
			continue;
		}
		stash_next(&r);
		ck_assert_int_eq(stash_get_delta(&r, 0), 3 * 1000000 + i * 7);
		ck_assert_int_eq(stash_get_delta(&r, 1), (i % 3) ? -i : i * i);
		stash_skip(&r, 2);
	}
	stash_free(&s);
}
END_TEST

START_TEST(test_append_segments)
{
	struct stash a = { 0 }, b = { 0 }, c = { 0 }, empty = { 0 };
	struct stash_reader r;
	const int64_t na = 1000, nb = 150000, na2 = 10, nc = 3;

	for (int64_t i = 0; i < na; i++)
		put_record(&a, 1, i);
	for (int64_t i = 0; i < nb; i++)
		put_record(&b, 2, i);
	for (int64_t i = 0; i < nc; i++)
		put_record(&c, 3, i);
	ck_assert_uint_eq(stash_append(&a, &b), 1);
	ck_assert_uint_eq(b.n, 0); /* emptied */
	ck_assert_ptr_null(b.first);
	for (int64_t i = 0; i < na2; i++)
		put_record(&a, 4, i);
	ck_assert_uint_eq(stash_append(&a, &c), 3);
	ck_assert_uint_eq(stash_append(&a, &empty), 0); /* nothing to move */
	ck_assert_uint_eq(a.n, (size_t)(na + nb + na2 + nc));
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			stash_scan(&a, &r);
		else
			stash_read(&a, &r);
		for (int64_t i = 0; i < na; i++)
			check_record(&r, 1, i, 0);
		for (int64_t i = 0; i < nb; i++)
			check_record(&r, 2, i, 1);
		for (int64_t i = 0; i < na2; i++)
			check_record(&r, 4, i, 2);
		for (int64_t i = 0; i < nc; i++)
			check_record(&r, 3, i, 3);
		if (pass == 1)
			break;
		/* each segment read from its own start, as two threads do (the last shares a
		 * chunk with the one before: segment 2 was put after b's records) */
		ck_assert_uint_eq(stash_segment_first(&a, 0), 0);
		ck_assert_uint_eq(stash_segment_first(&a, 2), (size_t)(na + nb));
		ck_assert_uint_eq(stash_segment_first(&a, 4), a.n);
		stash_scan_segment(&a, 3, &r);
		for (int64_t i = 0; i < nc; i++)
			check_record(&r, 3, i, 3);
		stash_scan_segment(&a, 2, &r);
		for (int64_t i = 0; i < na2; i++)
			check_record(&r, 4, i, 2);
		stash_scan_segment(&a, 1, &r);
		for (int64_t i = 0; i < nb; i++)
			check_record(&r, 2, i, 1);
		stash_scan_segment(&a, 0, &r);
		for (int64_t i = 0; i < na; i++)
			check_record(&r, 1, i, 0);
	}
	stash_free(&a);
	stash_free(&b);
	stash_free(&c);
}
END_TEST

/* Appended into an empty stash: segment 0 is empty, the records are segment 1's. */
START_TEST(test_append_into_empty)
{
	struct stash a = { 0 }, b = { 0 };
	struct stash_reader r;

	for (int64_t i = 0; i < 5; i++)
		put_record(&b, 2, i);
	ck_assert_uint_eq(stash_append(&a, &b), 1);
	stash_read(&a, &r);
	for (int64_t i = 0; i < 5; i++)
		check_record(&r, 2, i, 1);
	stash_free(&a);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stash");
	TCase *tc = tcase_create("records");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_put_and_read);
	tcase_add_test(tc, test_skip);
	tcase_add_test(tc, test_append_segments);
	tcase_add_test(tc, test_append_into_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
