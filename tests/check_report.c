/* check_report.c — the report writers: numbers, escaping of hostile kernel names, valid JSON,
 * RFC 4180 CSV, terminal-safe text, determinism across runs and locales. */
#include "testutil.h"

#include <locale.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/json.h"
#include "fusediff/report.h"
#include "fusediff/structure.h"
#include "fusediff/text.h"
#include "src/report/report_int.h"

/* A session over the traces at paths a and b, with labels la and lb (NULL: the defaults). */
static struct session *open_labelled(const char *a, const char *b, const char *la, const char *lb)
{
	struct session_opts so = { .device = -1, .label = { la, lb } };

	return test_session_files(a, b, &so);
}

static struct session *open_paths(const char *a, const char *b)
{
	return open_labelled(a, b, NULL, NULL);
}

static struct session *open_names(void)
{
	char a[4096];

	snprintf(a, sizeof a, "%s", test_path("tests/data/report/names_a.json"));
	return open_paths(a, test_path("tests/data/report/names_b.json"));
}

/* The report in a string. Owned by caller: free(). */
static char *render(const struct comparison *c, enum report_format f, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(out, c, f), 0);
	fclose(out);
	return buf;
}

static void assert_valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_len((const unsigned char *)s + i, len - i);

		ck_assert_msg(n > 0, "invalid UTF-8 at byte %zu", i);
		i += n;
	}
}

/* No byte that a terminal would act on: control characters other than newline, DEL, C1. */
static void assert_terminal_safe(const char *s, size_t len)
{
	assert_valid_utf8(s, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		ck_assert_msg(ch >= 0x20 || ch == '\n', "control byte 0x%02x at %zu", ch, i);
		ck_assert_msg(ch != 0x7f, "DEL at %zu", i);
		ck_assert_msg(!(ch == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] < 0xa0),
			      "C1 control at %zu", i);
	}
}

START_TEST(test_number)
{
	char buf[64];

	ck_assert_int_eq(report_number(buf, sizeof buf, 1.5, 3), 0);
	ck_assert_str_eq(buf, "1.5");
	report_number(buf, sizeof buf, 2.0, 3);
	ck_assert_str_eq(buf, "2");
	report_number(buf, sizeof buf, 1000.0, 3);
	ck_assert_str_eq(buf, "1000");
	report_number(buf, sizeof buf, -0.0001, 3);
	ck_assert_str_eq(buf, "0");
	report_number(buf, sizeof buf, -12.3456, 3);
	ck_assert_str_eq(buf, "-12.346");
	report_us(buf, sizeof buf, 1234567.0);
	ck_assert_str_eq(buf, "1234.567");
	ck_assert_int_eq(report_number(buf, sizeof buf, NAN, 3), -1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(report_number(buf, sizeof buf, INFINITY, 3), -1);
	ck_assert_int_eq(report_number(buf, sizeof buf, -INFINITY, 3), -1);
}
END_TEST

/* text_fixed() writes what printf("%.*f") writes (it formats the common cases itself, 9 times
 * faster): the exact binary value rounded half to even (0.125 -> "0.12", 0.375 -> "0.38"),
 * "-0.00" for a negative value that rounds to nothing, the sign asked for, a cut like
 * snprintf()'s; checked on 200,000 values of every magnitude, ties and bit patterns. */
START_TEST(test_fixed_as_printf)
{
	static const double cases[] = { 0.125,	0.375, 2.5,	 3.5,	 -0.001,
					-0.0,	0.0,   0.0005,	 1e-300, 0x1p52 + 0.5,
					0x1p53, 1e300, 999.9995, 0.045 };
	uint64_t x = 88172645463325252u;
	char got[64], want[64];

	for (size_t i = 0; i < 200000 + sizeof cases / sizeof *cases; i++) {
		double v;
		int d = (int)(i % 5), plus = (int)(i / 5 % 2);

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (i < sizeof cases / sizeof *cases)
			v = cases[i];
		else if (i % 3 == 0)
			memcpy(&v, &x, sizeof v); /* any bit pattern: NaN, infinities, subnormals */
		else if (i % 3 == 1)
			v = (double)(int64_t)(x % 2000001 - 1000000) / (double)(1u << (x >> 59));
		else
			v = ldexp((double)(x >> 11), (int)(x % 100) - 90) * (x & 1 ? -1 : 1);
		text_fixed(got, sizeof got, v, d, plus);
		snprintf(want, sizeof want, plus ? "%+.*f" : "%.*f", d, v);
		ck_assert_msg(strcmp(got, want) == 0, "%a with %d decimals: %s, printf %s", v, d,
			      got, want);
	}
	text_fixed(got, 5, 12345.678, 2, 0);
	ck_assert_str_eq(got, "1234");
	ck_assert_str_eq(text_fixed(got, sizeof got, 0.125, 2, 1), "+0.12");
}
END_TEST

/* Whatever LC_NUMERIC says, the decimal point is '.': in the reports' numbers and in text.c's
 * durations, byte counts and percentages. */
START_TEST(test_number_locale)
{
	char buf[64], probe[16], dur[32], bytes[32], pct[32], none[32];
	int set = test_comma_locale(LC_NUMERIC);

	snprintf(probe, sizeof probe, "%.1f", 1.5);
	report_number(buf, sizeof buf, 1.25, 3);
	text_duration(dur, sizeof dur, 12345);
	text_bytes(bytes, sizeof bytes, 1536);
	text_percent(pct, sizeof pct, 0.025);
	text_percent(none, sizeof none, 0);
	setlocale(LC_NUMERIC, "C");
	ck_assert_str_eq(buf, "1.25");
	ck_assert_str_eq(dur, "12.3 us");
	ck_assert_str_eq(bytes, "1.5 KiB");
	ck_assert_str_eq(pct, "2.5%");
	ck_assert_str_eq(none, "0%");
	if (set)
		ck_assert_str_eq(probe, "1,5"); /* the locale really was in effect */
	else
		fprintf(stderr, "no locale with a decimal comma: checked in the C locale only\n");
}
END_TEST

START_TEST(test_json_hostile_names)
{
	struct session *ses = open_names();
	const struct comparison *c = test_compare(ses, -1);
	size_t len;
	char *s = render(c, REPORT_JSON, &len);
	struct json_cur cur = { .p = s, .end = s + len, .at_eof = 1 };

	/* valid JSON, valid UTF-8, and nothing after the document */
	ck_assert_msg(json_skip(&cur) == JSON_OK, "invalid JSON: %s at byte %td",
		      cur.err_msg ? cur.err_msg : "?", cur.err_at ? cur.err_at - s : -1);
	ck_assert_int_eq(json_peek(&cur), -1);
	assert_valid_utf8(s, len);
	ck_assert_ptr_nonnull(strstr(s, "\"schema_version\": 1"));
	/* quotes and backslashes escaped, control characters as \u, invalid bytes as visible \xNN */
	ck_assert_ptr_nonnull(strstr(s, "(float, \\\"quoted\\\", a\\\\b)"));
	ck_assert_ptr_nonnull(strstr(s, "weird\\u0001ctl\\u001b[31mred\\u0085c1"));
	ck_assert_ptr_nonnull(strstr(s, "bad_utf8_\\\\xff\\\\xfe_kernel"));
	ck_assert_ptr_nonnull(strstr(s, "newline\\nname\\ttab"));
	ck_assert_ptr_nonnull(strstr(s, "caf\xc3\xa9_\xe4\xb8\xad_kernel"));
	/* A's first kernel takes 0 us: no ratio, written as null, never inf or nan */
	ck_assert_ptr_nonnull(strstr(s, "\"ratio\":null"));
	ck_assert_ptr_null(strstr(s, "inf"));
	ck_assert_ptr_null(strstr(s, "nan"));
	free(s);
	session_close(ses);
}
END_TEST

START_TEST(test_csv_quoting)
{
	struct session *ses = open_names();
	const struct comparison *c = test_compare(ses, -1);
	size_t len;
	char *s = render(c, REPORT_CSV, &len);

	assert_terminal_safe(s, len);
	ck_assert_ptr_nonnull(strstr(
		s, ",\"gemm_kernel<cutlass::half_t, 128, 64>(float, \"\"quoted\"\", a\\b)\","));
	ck_assert_ptr_nonnull(strstr(s, ",\"rms_norm_kernel, with comma\","));
	ck_assert_ptr_nonnull(strstr(s, ",newline\\nname\\ttab,"));
	ck_assert_ptr_nonnull(
		strstr(s, "\ntable,layer,position,kind,class,atoms,a_kernels,b_kernels,"));
	/* the undefined ratio is an empty field, and so are the efficiency figures of work
	 * without recorded shapes (a_tflops .. b_peak_share), the fusion and the interval of a
	 * single pass (ci_low_us, ci_high_us, significant) */
	ck_assert_ptr_nonnull(strstr(s, ",0,4,0,4,4,,,,,,,,,,,\n"));
	free(s);
	session_close(ses);
}
END_TEST

START_TEST(test_text_terminal_safe)
{
	struct session *ses = open_names();
	const struct comparison *c = test_compare(ses, -1);

	for (int f = REPORT_TEXT; f <= REPORT_MD; f++) {
		size_t len;
		char *s = render(c, (enum report_format)f, &len);

		assert_terminal_safe(s, len);
		ck_assert_ptr_nonnull(strstr(s, "\\e[31m"));
		ck_assert_ptr_nonnull(strstr(s, "\\xff\\xfe"));
		free(s);
	}
	session_close(ses);
}
END_TEST

/* Byte-identical output across runs, and across a change of LC_NUMERIC. */
START_TEST(test_deterministic)
{
	struct session *ses = open_paths(test_trace("llama8l_eager_sdpa.json.gz"),
					 test_trace("llama8l_compiled_sdpa.json.gz"));
	const struct comparison *c = test_compare(ses, -1);
	struct session *ses_d = open_paths(test_trace("llama8l_eager_sdpa.json.gz"),
					   test_trace("llama8l_compiled_sdpa.json.gz"));
	const struct comparison *d = test_compare(ses_d, -1);

	for (int f = REPORT_TEXT; f <= REPORT_CSV; f++) {
		size_t l1, l2, l3;
		char *s1 = render(c, (enum report_format)f, &l1),
		     *s2 = render(d, (enum report_format)f, &l2), *s3;

		test_comma_locale(LC_NUMERIC);
		s3 = render(c, (enum report_format)f, &l3);
		setlocale(LC_NUMERIC, "C");
		ck_assert_uint_eq(l1, l2);
		ck_assert_uint_eq(l1, l3);
		ck_assert(memcmp(s1, s2, l1) == 0);
		ck_assert(memcmp(s1, s3, l1) == 0);
		free(s1);
		free(s2);
		free(s3);
	}
	session_close(ses);
	session_close(ses_d);
}
END_TEST

/* The readable reports put the fusions first: every fusion sentence appears before the tables. */
START_TEST(test_text_fusions_first)
{
	struct session *ses = open_paths(test_trace("llama8l_eager_sdpa.json.gz"),
					 test_trace("llama8l_compiled_sdpa.json.gz"));
	const struct comparison *c = test_compare(ses, -1);
	size_t len;
	char *s = render(c, REPORT_TEXT, &len);
	const char *fus = strstr(s, "Fusion differences ("),
		   *top = strstr(s, "Largest differences");

	ck_assert_ptr_nonnull(fus);
	ck_assert_ptr_nonnull(top);
	ck_assert(fus < top);
	ck_assert_uint_gt(c->n_fusions, 0);
	for (size_t i = 0; i < c->n_fusions; i++) {
		const char *e = strstr(s, c->fusions[i].evidence);

		ck_assert_ptr_nonnull(e);
		ck_assert(e < top);
	}
	free(s);
	session_close(ses);
}
END_TEST

/* --label-a/--label-b reach every format, escaped like kernel names. */
START_TEST(test_user_labels)
{
	char a[4096];
	struct session *ses;
	const struct comparison *c;
	size_t len;
	char *s;

	snprintf(a, sizeof a, "%s", test_path("tests/data/report/names_a.json"));
	ses = open_labelled(a, test_path("tests/data/report/names_b.json"),
			    "MI300X \"rocm\"\x1b[2J", "H100, cuda");
	c = test_compare(ses, -1);
	s = render(c, REPORT_TEXT, &len);
	assert_terminal_safe(s, len);
	ck_assert_ptr_nonnull(strstr(s, "fusediff: MI300X \"rocm\"\\e[2J vs H100, cuda\n"));
	free(s);
	s = render(c, REPORT_CSV, &len);
	ck_assert_ptr_nonnull(strstr(s, "traces,B,\"H100, cuda\","));
	free(s);
	session_close(ses);
}
END_TEST

/* A write error is reported, not ignored. */
START_TEST(test_write_error)
{
	struct session *ses = open_names();
	const struct comparison *c = test_compare(ses, -1);
	FILE *out = fopen("/dev/full", "w");

	if (!out) {
		fprintf(stderr, "/dev/full missing: write error not checked\n");
		session_close(ses);
		return;
	}
	ck_assert_int_eq(report_write(out, c, REPORT_JSON), -1);
	fclose(out);
	session_close(ses);
}
END_TEST

/* Markdown fusion sentences put kernel and file names in code spans instead of escaping their
 * underscores and angle brackets. */
START_TEST(test_markdown_code_spans)
{
	struct session *ses = open_paths(test_trace("llama8l_eager_sdpa.json.gz"),
					 test_trace("llama8l_compiled_sdpa.json.gz"));
	const struct comparison *c = test_compare(ses, -1);
	size_t len;
	char *md = render(c, REPORT_MD, &len), *item, *end;

	item = strstr(md, "\n1. B (`llama8l_compiled_sdpa.json.gz`) runs `triton_red_fused_");
	ck_assert_msg(item, "%.300s", strstr(md, "\n1. "));
	end = strchr(item + 1, '\n');
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	ck_assert_msg(!strstr(item, "\\_") && !strstr(item, "\\<"), "%s", item);
	ck_assert(strstr(item, "(`vectorized_elementwise_kernel<CUDAFunctor_add>`, "));
	ck_assert(strstr(item, "`elementwise_kernel<MulFunctor>`), 16 times per pass"));
	free(md);
	session_close(ses);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_number);
	tcase_add_test(tc, test_fixed_as_printf);
	tcase_add_test(tc, test_number_locale);
	tcase_add_test(tc, test_json_hostile_names);
	tcase_add_test(tc, test_csv_quoting);
	tcase_add_test(tc, test_text_terminal_safe);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_markdown_code_spans);
	tcase_add_test(tc, test_text_fusions_first);
	tcase_add_test(tc, test_user_labels);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(report_suite());
}
