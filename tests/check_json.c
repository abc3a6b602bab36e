/* check_json.c — the restartable JSON cursor: strings scanned eight bytes at a time must end at
 * the right quote wherever quotes and backslashes fall, and ask for more when the window ends;
 * op_args, the cursor over the compact argument lists operators recorded (Input Dims): real
 * shapes, strings, lists of tensors and malformed or cut texts. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "fusediff/json.h"
#include "fusediff/op_args.h"

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

/* --- op_args: the argument lists operators recorded -------------------------------------- */

/* The entries of text as one line: a shape as its dims ("4x512", "()" for []), a list as L, a
 * string as its characters in quotes, another scalar as S; then "." at the list's end or "!"
 * when the text ends first. */
static void args_line(const char *text, char *out, size_t cap)
{
	struct op_args c;
	struct op_arg a;
	size_t n = 0;
	int rc;

	out[0] = '\0';
	if (op_args_open(&c, text) < 0) {
		snprintf(out, cap, "none");
		return;
	}
	while ((rc = op_args_next(&c, &a)) > 0) {
		char s[16];

		if (a.kind == OP_ARG_SHAPE) {
			n += (size_t)snprintf(out + n, cap - n, a.nd ? "" : "()");
			for (int i = 0; i < a.nd; i++)
				n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "x" : "",
						      (long long)a.d[i]);
		} else if (a.kind == OP_ARG_STRING) {
			op_arg_string(&a, s, sizeof s);
			n += (size_t)snprintf(out + n, cap - n, "'%s'", s);
		} else {
			n += (size_t)snprintf(out + n, cap - n, a.kind == OP_ARG_LIST ? "L" : "S");
		}
		n += (size_t)snprintf(out + n, cap - n, " ");
	}
	snprintf(out + n, cap - n, rc == 0 ? "." : "!");
}

static const struct {
	const char *text, *want;
} arg_lists[] = {
	/* Input Dims of llama8l_eager_sdpa (aten::linear, SDPA), a tensor list (aten::cat) */
	{ "[[4,512,2048],[5632,2048],[]]", "4x512x2048 5632x2048 () ." },
	{ "[[4,16,512,128],[4,4,512,128],[4,4,512,128],[],[],[],[],[]]",
	  "4x16x512x128 4x4x512x128 4x4x512x128 () () () () () ." },
	{ "[[[4,512,64],[4,512,64]],[]]", "L () ." },
	/* Input type and Concrete Inputs: strings, escapes taken, long ones cut */
	{ "[\"c10::BFloat16\",\"\",\"a\\\"b\"]", "'c10::BFloat16' '' 'a\"b' ." },
	{ "[\"0123456789abcdefXYZ\",1.5,true]", "'0123456789abcde' S S ." },
	{ "[]", "." },
	/* not shapes: nine dims, a fraction, a letter, a blank entry */
	{ "[[1,2,3,4,5,6,7,8,9],[1,2,3,4,5,6,7,8]]", "L 1x2x3x4x5x6x7x8 ." },
	{ "[[1.5],[2,x],[-1,3],,[7]]", "L L -1x3 S 7 ." },
	/* cut texts: the entries before are read */
	{ "[[1,4096],[4096,40", "1x4096 L !" },
	{ "[[1,4096]", "1x4096 !" },
	{ "[", "!" },
	{ "", "none" },
	{ "4096", "none" },
};

START_TEST(test_op_args_entries)
{
	char got[256];

	args_line(arg_lists[_i].text, got, sizeof got);
	ck_assert_msg(strcmp(got, arg_lists[_i].want) == 0, "%s: got \"%s\", want \"%s\"",
		      arg_lists[_i].text, got, arg_lists[_i].want);
}
END_TEST

static int take_shape(const struct op_arg *a, void *ctx)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%.*s;", (int)a->len, a->text);
	return strlen(out) > 30; /* stop once the line is long */
}

/* op_args_each_shape(): every shape, those in lists of tensors included, in order, until the
 * callback stops the walk; none in what is not a list. */
START_TEST(test_op_args_each_shape)
{
	char got[256] = "";

	ck_assert_int_eq(op_args_each_shape("[[[4,512],[64]],[],[2,3],\"x\"]", take_shape, got), 0);
	ck_assert_str_eq(got, "[4,512];[64];[];[2,3];");
	got[0] = '\0';
	ck_assert_int_eq(op_args_each_shape("[[1,1,1,1,1,1,1,1],[2,2,2,2,2,2,2,2],[3],[4]]",
					    take_shape, got),
			 0);
	ck_assert_str_eq(got, "[1,1,1,1,1,1,1,1];[2,2,2,2,2,2,2,2];");
	got[0] = '\0';
	ck_assert_int_eq(op_args_each_shape(NULL, take_shape, got), -1);
	ck_assert_int_eq(op_args_each_shape("x[1]", take_shape, got), -1);
	ck_assert_str_eq(got, "");
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
	tc = tcase_create("op_args");
	tcase_add_loop_test(tc, test_op_args_entries, 0, sizeof arg_lists / sizeof arg_lists[0]);
	tcase_add_test(tc, test_op_args_each_shape);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
