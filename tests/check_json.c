/* check_json.c — the restartable JSON cursor: strings scanned eight bytes at a time must end at
 * the right quote wherever quotes and backslashes fall, and ask for more when the window ends. */
#include "testutil.h"

#include "fusediff/json.h"

/* Parse the string value at the start of doc[0..len) with the window cut at every length;
 * every cut short of the closing quote asks for more, the full window gives want. */
static void check_string(const char *doc, size_t len, const char *want, size_t want_len,
			 size_t consumed)
{
	struct json_buf buf = { 0 };

	for (size_t cut = 0; cut <= len; cut++) {
		struct json_cur c = { doc, doc + cut, 0, NULL, NULL };
		struct json_str s;
		int rc = json_string(&c, &s, &buf);

		if (cut < consumed) {
			ck_assert_msg(rc == JSON_MORE, "cut %zu of %s: rc %d", cut, doc, rc);
			ck_assert_ptr_eq(c.p, doc); /* nothing consumed: the unit restarts */
			/* at the end of the input, the same cut is an error */
			c = (struct json_cur){ doc, doc + cut, 1, NULL, NULL };
			ck_assert_int_eq(json_string(&c, &s, &buf), JSON_ERR);
			ck_assert_ptr_nonnull(c.err_msg);
		} else {
			ck_assert_msg(rc == JSON_OK, "cut %zu of %s: rc %d", cut, doc, rc);
			ck_assert_uint_eq(s.len, want_len);
			ck_assert_int_eq(memcmp(s.s, want, want_len), 0);
			ck_assert_ptr_eq(c.p, doc + consumed);
		}
	}
	json_buf_free(&buf);
}

/* A quote, an escaped quote, an escaped backslash and a \u escape at every offset from the
 * start of the string, across the eight-byte steps of the scan. */
START_TEST(test_string_every_offset)
{
	char doc[128], want[128];

	for (int off = 0; off < 24; off++) {
		size_t n = 0, w = 0;

		doc[n++] = '"';
		for (int i = 0; i < off; i++)
			doc[n++] = want[w++] = (char)('a' + i % 26);
		switch (_i) {
		case 0: /* plain */ break;
		case 1: /* \" */ memcpy(doc + n, "\\\"", 2), n += 2, want[w++] = '"'; break;
		case 2: /* \\ just before the closing quote */
			memcpy(doc + n, "\\\\", 2), n += 2, want[w++] = '\\';
			break;
		case 3: /* \u00e9 */
			memcpy(doc + n, "\\u00e9", 6), n += 6, want[w++] = '\xc3',
							       want[w++] = '\xa9';
			break;
		case 4: /* \\ then \" then more */
			memcpy(doc + n, "\\\\\\\"xyz", 7), n += 7;
			memcpy(want + w, "\\\"xyz", 5), w += 5;
			break;
		}
		doc[n++] = '"';
		memcpy(doc + n, ", \"next\": 1}", 12);
		check_string(doc, n + 12, want, w, n);
	}
}
END_TEST

/* Every escape JSON has, decoded: the one-character ones, \u in the BMP, a surrogate pair, and
 * a lone surrogate (kept, as invalid UTF-8, so that it stays visible). */
START_TEST(test_string_escapes)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "\"a\\\"b\"", "a\"b" },
		{ "\"\\\\\\/\"", "\\/" },
		{ "\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t" },
		{ "\"x\\u00e9\\u20acy\"", "x\xc3\xa9\xe2\x82\xacy" },
		{ "\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80" },
		{ "\"\\ud83dz\"", "\xed\xa0\xbdz" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct json_buf buf = { 0 };
		struct json_str s;
		const char *j = cases[i].json;
		struct json_cur c = { j, j + strlen(j), 1, NULL, NULL };

		ck_assert_int_eq(json_string(&c, &s, &buf), JSON_OK);
		ck_assert_uint_eq(s.len, strlen(cases[i].want));
		ck_assert_msg(memcmp(s.s, cases[i].want, s.len) == 0, "case %zu: %.*s", i,
			      (int)s.len, s.s);
		json_buf_free(&buf);
	}
}
END_TEST

START_TEST(test_string_errors)
{
	struct json_buf buf = { 0 };
	struct json_str s;
	static const char bad[] = "\"abcdefghij\\qrs\"";
	struct json_cur c = { bad, bad + sizeof bad - 1, 1, NULL, NULL };

	ck_assert_int_eq(json_string(&c, &s, &buf), JSON_ERR);
	ck_assert_str_eq(c.err_msg, "invalid escape sequence in string");
	ck_assert_ptr_eq(c.err_at, bad + 11);
	json_buf_free(&buf);
}
END_TEST

/* Whitespace of every kind and length before a token. */
START_TEST(test_peek_whitespace)
{
	static const char *const docs[] = { "x", " x", "\n    x", "\t\r\n x",
					    "                         x" };

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		struct json_cur c = { docs[i], docs[i] + strlen(docs[i]), 1, NULL, NULL };

		ck_assert_int_eq(json_peek(&c), 'x');
		ck_assert_ptr_eq(c.p, docs[i] + strlen(docs[i]) - 1);
		c = (struct json_cur){ docs[i], docs[i] + strlen(docs[i]) - 1, 0, NULL, NULL };
		ck_assert_int_eq(json_peek(&c), -1);
	}
}
END_TEST

/* Numbers to integers and microseconds to nanoseconds, from text and straight from a token:
 * the same results either way. */
static const struct {
	const char *text;
	int ok_int;		       /* json_to_int64 succeeds */
	int64_t i;		       /* its value */
	int ok_ns;		       /* json_us_to_ns succeeds */
	int64_t ns;		       /* its value */
	int int_overflow, ns_overflow; /* saturated */
} numbers[] = {
	{ "0", 1, 0, 1, 0, 0, 0 },
	{ "-0", 1, 0, 1, 0, 0, 0 },
	{ "1.5", 1, 1, 1, 1500, 0, 0 },
	{ "5130176584570.916", 1, 5130176584570, 1, INT64_C(5130176584570916), 0, 0 },
	{ "1.0005", 1, 1, 1, 1001, 0, 0 }, /* half up on the fourth digit */
	{ "1.00049", 1, 1, 1, 1000, 0, 0 },
	{ "-2.25", 1, -2, 1, -2250, 0, 0 },
	{ "1e3", 1, 1000, 1, 1000000, 0, 0 },
	{ "2.5E-1", 1, 0, 1, 250, 0, 0 },
	{ "9223372036854775807", 1, INT64_MAX, 1, INT64_MAX, 0, 1 },
	{ "-9223372036854775808", 1, INT64_MIN, 1, INT64_MIN, 0, 1 },
	{ "99999999999999999999", 1, INT64_MAX, 1, INT64_MAX, 1, 1 },
	{ "NaN", 0, 0, 0, 0, 0, 0 },
	{ "-Infinity", 0, 0, 0, 0, 0, 0 },
};

START_TEST(test_number_conversions)
{
	struct json_str raw = { numbers[_i].text, strlen(numbers[_i].text) };
	int64_t v = 7;
	int overflow = 0, conv = 9;
	struct json_cur c = { raw.s, raw.s + raw.len, 1, NULL, NULL };

	ck_assert_int_eq(json_to_int64(raw, &v, &overflow), numbers[_i].ok_int ? 0 : -1);
	if (numbers[_i].ok_int) {
		ck_assert_int_eq(v, numbers[_i].i);
		ck_assert_int_eq(overflow, numbers[_i].int_overflow);
	}
	overflow = 0;
	ck_assert_int_eq(json_us_to_ns(raw, &v, &overflow), numbers[_i].ok_ns ? 0 : -1);
	if (numbers[_i].ok_ns) {
		ck_assert_int_eq(v, numbers[_i].ns);
		ck_assert_int_eq(overflow, numbers[_i].ns_overflow);
	}
	/* the same from the token */
	overflow = 0;
	ck_assert_int_eq(json_number_int64(&c, &v, &overflow, &conv), JSON_OK);
	ck_assert_ptr_eq(c.p, raw.s + raw.len);
	ck_assert_int_eq(conv, numbers[_i].ok_int ? 0 : -1);
	if (numbers[_i].ok_int) {
		ck_assert_int_eq(v, numbers[_i].i);
		ck_assert_int_eq(overflow, numbers[_i].int_overflow);
	}
	c = (struct json_cur){ raw.s, raw.s + raw.len, 1, NULL, NULL };
	overflow = 0;
	ck_assert_int_eq(json_number_us_to_ns(&c, &v, &overflow, &conv), JSON_OK);
	ck_assert_int_eq(conv, numbers[_i].ok_ns ? 0 : -1);
	if (numbers[_i].ok_ns) {
		ck_assert_int_eq(v, numbers[_i].ns);
		ck_assert_int_eq(overflow, numbers[_i].ns_overflow);
	}
	/* not at the end of the input, digits might go on */
	c = (struct json_cur){ raw.s, raw.s + raw.len, 0, NULL, NULL };
	ck_assert_int_eq(json_number_us_to_ns(&c, &v, &overflow, &conv),
			 numbers[_i].ok_ns ? JSON_MORE : JSON_OK);
}
END_TEST

/* Text that is not one number converts to nothing; a bad token is an error at its place. */
START_TEST(test_number_rejects)
{
	static const char *const not_numbers[] = { "",	 "-",  ".5", "5.", "1.2.3",
						   "1e", "1x", " 1", "1 ", "0x10" };
	static const char bad[] = "1.x";
	struct json_cur c = { bad, bad + 3, 1, NULL, NULL };
	int64_t v;
	int overflow = 0, conv;

	for (size_t i = 0; i < sizeof not_numbers / sizeof not_numbers[0]; i++) {
		struct json_str raw = { not_numbers[i], strlen(not_numbers[i]) };

		ck_assert_int_eq(json_to_int64(raw, &v, &overflow), -1);
		ck_assert_int_eq(json_us_to_ns(raw, &v, &overflow), -1);
	}
	ck_assert_int_eq(json_number_int64(&c, &v, &overflow, &conv), JSON_ERR);
	ck_assert_str_eq(c.err_msg, "invalid number: expected a digit after '.'");
	ck_assert_ptr_eq(c.err_at, bad + 2);
}
END_TEST

/* The inline short-number paths give what the full conversions give, and stop at the same
 * byte, on every shape of number they take or leave: digits 1 to 17 long, 0 to 9 decimals,
 * leading zeros, signs, exponents, whatever follows. */
START_TEST(test_short_numbers_agree)
{
	static const char *const tails[] = { ",", "}", " ", "e5", "E-1", ".", "x", "\"" };
	uint64_t r = 0x9e3779b97f4a7c15ull;
	char text[96];
	long taken_int = 0, taken_ns = 0;

	for (int round = 0; round < 20000; round++) {
		int digits, decimals, len = 0;
		int64_t a = -1, b = -2;
		int overflow = 0, conv = 0;
		struct json_cur c, d;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		digits = 1 + (int)(r % 17);
		decimals = (int)((r >> 8) % 10);
		if ((r >> 16) % 9 == 0)
			text[len++] = '-';
		for (int i = 0; i < digits; i++)
			text[len++] = (char)('0' + ((r >> (20 + i % 40)) % 10));
		if ((r >> 24) % 7 == 0)
			text[0] = '0'; /* leading zeros, "0", "0.5" */
		if (decimals) {
			text[len++] = '.';
			for (int i = 0; i < decimals; i++)
				text[len++] = (char)('0' + ((r >> (30 + i)) % 10));
		}
		len += snprintf(text + len, sizeof text - (size_t)len, "%s%s",
				tails[(r >> 40) % (sizeof tails / sizeof tails[0])],
				"                                        ");
		c = (struct json_cur){ text, text + len, 1, NULL, NULL };
		d = c;
		if (json_short_uint(&c, &a)) {
			taken_int++;
			ck_assert_int_eq(json_number_int64(&d, &b, &overflow, &conv), JSON_OK);
			ck_assert_msg(a == b && conv == 0 && c.p == d.p,
				      "int %.30s: %lld, not %lld", text, (long long)a,
				      (long long)b);
		}
		c = (struct json_cur){ text, text + len, 1, NULL, NULL };
		d = c;
		if (json_short_us_to_ns(&c, &a)) {
			taken_ns++;
			ck_assert_int_eq(json_number_us_to_ns(&d, &b, &overflow, &conv), JSON_OK);
			ck_assert_msg(a == b && conv == 0 && !overflow && c.p == d.p,
				      "time %.30s: %lld, not %lld", text, (long long)a,
				      (long long)b);
		}
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	ck_assert_int_gt(taken_int, 100); /* the paths were tried */
	ck_assert_int_gt(taken_ns, 5000);
#endif
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("cursor");

	tcase_add_loop_test(tc, test_string_every_offset, 0, 5);
	tcase_add_test(tc, test_string_escapes);
	tcase_add_test(tc, test_string_errors);
	tcase_add_test(tc, test_peek_whitespace);
	tcase_add_loop_test(tc, test_number_conversions, 0, sizeof numbers / sizeof numbers[0]);
	tcase_add_test(tc, test_number_rejects);
	tcase_add_test(tc, test_short_numbers_agree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
