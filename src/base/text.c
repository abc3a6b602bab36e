/* text.c — escaping and number formatting for display (see text.h). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include "fusediff/text.h"

#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "fusediff/util.h"

size_t text_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t text_utf8_len(const unsigned char *s, size_t left)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

/* The code point of the valid n-byte UTF-8 sequence at s. */
static uint32_t utf8_cp(const unsigned char *s, size_t n)
{
	static const unsigned char lead[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead[n];

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/* Characters that change what the rest of a line looks like without showing themselves:
 * bidirectional controls (a right-to-left override makes "exe.txt" of "txt.exe"), zero-width
 * characters, line and paragraph separators. */
static int hidden_format_char(uint32_t cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

/* Length of the printable UTF-8 sequence at s, or 0: invalid, a C1 control character
 * (U+0080..U+009F), which terminals obey as much as C0 ones, or a hidden format character. */
static size_t utf8_printable(const unsigned char *s, size_t left)
{
	size_t n = text_utf8_len(s, left);

	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if (n == 3 && hidden_format_char(utf8_cp(s, n)))
		return 0;
	return n;
}

size_t text_escape(char *dst, size_t cap, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, i = 0;

#define PUT(str, n)                                                       \
	do {                                                              \
		if (cap && out + (n) < cap)                               \
			memcpy(dst + out, (str), (n));                    \
		else if (cap && out < cap)                                \
			cap = out + 1; /* stop writing: keep what fits */ \
		out += (n);                                               \
	} while (0)

	while (i < len) {
		size_t n = utf8_printable(s + i, len - i);
		char esc[8];

		if (n && s[i] >= 0x20 && s[i] != 0x7f) {
			PUT(s + i, n);
			i += n;
			continue;
		}
		if (!n && text_utf8_len(s + i, len - i) == 3) { /* a hidden format character */
			snprintf(esc, sizeof esc, "\\u%04x", (unsigned)utf8_cp(s + i, 3));
			PUT(esc, strlen(esc));
			i += 3;
			continue;
		}
		switch (s[i]) {
		case '\0': memcpy(esc, "\\0", 3); break;
		case '\n': memcpy(esc, "\\n", 3); break;
		case '\t': memcpy(esc, "\\t", 3); break;
		case '\r': memcpy(esc, "\\r", 3); break;
		case 0x1b: memcpy(esc, "\\e", 3); break;
		default: snprintf(esc, sizeof esc, "\\x%02x", s[i]); break;
		}
		PUT(esc, strlen(esc));
		i++;
	}
#undef PUT
	if (cap)
		dst[out < cap ? out : cap - 1] = '\0';
	return out;
}

/* Columns of code point cp when the program's locale cannot say (not UTF-8): East Asian wide
 * and fullwidth characters and emoji take two, combining marks and variation selectors none. */
static int table_width(uint32_t cp)
{
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },   { 0xfe30, 0xfe4f },
		{ 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
		{ 0x1f680, 0x1f6ff }, { 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
	};

	if ((cp >= 0x0300 && cp <= 0x036f) || (cp >= 0xfe00 && cp <= 0xfe0f))
		return 0;
	for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

/* Columns of the first character of u (left bytes): *n receives its length. utf8: the
 * program's locale is UTF-8, so wcwidth() knows the character. */
static size_t char_width(const unsigned char *u, size_t left, size_t *n, int utf8)
{
	uint32_t cp;
	int cw;

	*n = text_utf8_len(u, left);
	if (*n <= 1) {
		*n = 1;
		return 1;
	}
	cp = utf8_cp(u, *n);
	cw = utf8 ? wcwidth((wchar_t)cp) : table_width(cp);
	return cw < 0 ? 1 : (size_t)cw;
}

/* 1 when the locale's character set is UTF-8 (main() sets LC_CTYPE from the environment). */
static int locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

size_t text_fit(const char *s, size_t cols)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = 0, left = strlen(s), at = 0, n;
	int utf8 = locale_utf8();

	while (at < left) {
		size_t cw = char_width(u + at, left - at, &n, utf8);

		if (w + cw > cols)
			break;
		w += cw;
		at += n;
	}
	return at;
}

size_t text_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = 0, left = strlen(s), at = 0, n;
	int utf8 = locale_utf8();

	while (at < left) {
		w += char_width(u + at, left - at, &n, utf8);
		at += n;
	}
	return w;
}

void text_cut(char *s, size_t max)
{
	size_t n = strlen(s), k;

	if (n <= max)
		return;
	k = max - 3;
	while (k && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--; /* s[k] starts a character: cut before it */
	memcpy(s + k, "...", 4);
}

void text_utf8_trim(char *s)
{
	size_t n = strlen(s), k = n;

	while (k && ((unsigned char)s[k - 1] & 0xc0) == 0x80 && n - k < 3)
		k--;
	if (k && (unsigned char)s[k - 1] >= 0xc0) { /* the lead byte of the last sequence */
		size_t want = (unsigned char)s[k - 1] >= 0xf0	? 4
			      : (unsigned char)s[k - 1] >= 0xe0 ? 3
								: 2;

		if (n - (k - 1) < want)
			s[k - 1] = '\0';
	}
}

int text_csv_formula(const char *s, size_t len)
{
	size_t i = 1, digits = 0;

	if (len < 2)
		return 0;
	if (s[0] == '=' || s[0] == '@' || s[0] == '\t' || s[0] == '\r')
		return 1;
	if (s[0] != '+' && s[0] != '-')
		return 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	return !(digits && i == len); /* "-12.5" is a number, "-x" or "+A1" may be a formula */
}

char *text_escape_dup(const char *s, size_t len)
{
	size_t n = text_escape(NULL, 0, s, len);
	char *p = xmalloc(n + 1);

	text_escape(p, n + 1, s, len);
	return p;
}

void text_us(char *buf, size_t cap, double ns)
{
	double us = ns / 1000.0;
	double a = us < 0 ? -us : us;

	if (!isfinite(us))
		snprintf(buf, cap, "-");
	else
		text_fixed(buf, cap, us, a < 10 ? 2 : a < 1000 ? 1 : 0, 0);
}

void text_signed_us(char *buf, size_t cap, double ns)
{
	if (cap < 2 || !isfinite(ns)) {
		snprintf(buf, cap, "-");
		return;
	}
	text_us(buf + 1, cap - 1, ns < 0 ? -ns : ns);
	if (strspn(buf + 1, "0.") == strlen(buf + 1))
		snprintf(buf, cap, "0");
	else
		buf[0] = ns < 0 ? '-' : '+';
}

const char *text_ms(char *buf, size_t cap, int64_t ns, int sign)
{
	text_fixed(buf, cap, (double)ns / 1e6, 2, sign);
	if (strcmp(buf, "+0.00") == 0 || strcmp(buf, "-0.00") == 0)
		snprintf(buf, cap, "0.00");
	return buf;
}

static const uint64_t scale10[] = { 1, 10, 100, 1000 }; /* the decimals text_fixed() does itself */

/* |v| * 10^decimals rounded as printf() rounds it (the exact binary value to the nearest
 * integer, ties to even) into *out, for decimals 0 to 3 and |v| below 2^53: then the product
 * of the 53-bit mantissa and 10^decimals fits 64 bits. 0 (printf() must do it) otherwise. */
static int fixed_scaled(double v, int decimals, uint64_t *out)
{
	double a = fabs(v);
	uint64_t n, q, r, half;
	int e, s;

	if (decimals < 0 || decimals > 3 || !(a < 0x1p53))
		return 0;
	if (a == 0) {
		*out = 0;
		return 1;
	}
	/* a = m * 2^e with 0.5 <= m < 1: a = mant * 2^(e - 53), mant an integer below 2^53 */
	n = (uint64_t)ldexp(frexp(a, &e), 53) * scale10[decimals];
	s = 53 - e; /* a < 2^53: e <= 53, the value is n / 2^s */
	if (s == 0) {
		*out = n;
		return 1;
	}
	if (s >= 64) { /* n < 2^63 <= half: below one half */
		*out = 0;
		return 1;
	}
	q = n >> s;
	r = n & ((UINT64_C(1) << s) - 1);
	half = UINT64_C(1) << (s - 1);
	*out = q + (r > half || (r == half && (q & 1)));
	return 1;
}

const char *text_fixed(char *buf, size_t cap, double v, int decimals, int plus)
{
	char tmp[48], *p = tmp + sizeof tmp;
	uint64_t n, whole;
	size_t len;

	if (!fixed_scaled(v, decimals, &n)) {
		snprintf(buf, cap, plus ? "%+.*f" : "%.*f", decimals, v);
		for (char *c = buf; *c; c++) /* '.' whatever LC_NUMERIC says */
			if (*c == ',')
				*c = '.';
		return buf;
	}
	/* what printf("%.*f") prints, written from the end: the sign of v itself, so -0.001
	 * with two decimals is "-0.00" as there */
	whole = n / scale10[decimals];
	n %= scale10[decimals];
	for (int d = 0; d < decimals; d++, n /= 10)
		*--p = (char)('0' + n % 10);
	if (decimals)
		*--p = '.';
	do
		*--p = (char)('0' + whole % 10);
	while ((whole /= 10) != 0);
	if (signbit(v))
		*--p = '-';
	else if (plus)
		*--p = '+';
	len = (size_t)(tmp + sizeof tmp - p);
	if (cap) {
		if (len >= cap)
			len = cap - 1;
		memcpy(buf, p, len);
		buf[len] = '\0';
	}
	return buf;
}

void text_ratio(char *buf, size_t cap, double r)
{
	if (!isfinite(r))
		snprintf(buf, cap, "-");
	else
		text_fixed(buf, cap, r, r < 10 ? 2 : r < 100 ? 1 : 0, 0);
}

void text_count(char *buf, size_t cap, double n)
{
	if (!isfinite(n))
		snprintf(buf, cap, "-");
	else if (fabs(n - round(n)) < 0.005)
		text_fixed(buf, cap, n, 0, 0);
	else
		text_fixed(buf, cap, n, fabs(n) < 10 ? 2 : 1, 0);
}

void text_share_of(char *buf, size_t cap, double part, double whole)
{
	char n[40];

	if (!(fabs(whole) >= 1) || !isfinite(part)) {
		snprintf(buf, cap, "-");
		return;
	}
	text_fixed(n, sizeof n, 100 * part / whole, 1, 0);
	snprintf(buf, cap, "%s%%", strcmp(n, "-0.0") == 0 ? "0.0" : n);
}

void text_percent(char *buf, size_t cap, double share)
{
	double v = share * 100.0;
	char n[40];

	if (v > 0 && v < 0.05) {
		snprintf(buf, cap, "<0.1%%");
		return;
	}
	text_fixed(n, sizeof n, v, v < 9.95 ? 1 : 0, 0);
	snprintf(buf, cap, "%s%%", strcmp(n, "0.0") == 0 ? "0" : n);
}

void text_duration(char *buf, size_t cap, int64_t ns)
{
	double a = (double)(ns < 0 ? -ns : ns);
	char n[40];

	if (a < 1000) {
		snprintf(buf, cap, "%lld ns", (long long)ns);
		return;
	}
	if (a < 1e6)
		text_fixed(n, sizeof n, (double)ns / 1e3, a < 1e4 ? 2 : 1, 0);
	else if (a < 1e9)
		text_fixed(n, sizeof n, (double)ns / 1e6, a < 1e7 ? 2 : 1, 0);
	else
		text_fixed(n, sizeof n, (double)ns / 1e9, 2, 0);
	snprintf(buf, cap, "%s %s", n, a < 1e6 ? "us" : a < 1e9 ? "ms" : "s");
}

void text_bytes(char *buf, size_t cap, int64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	char n[40];
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, cap, "%lld B", (long long)bytes);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, "%s %s", text_fixed(n, sizeof n, v, 1, 0), unit[u]);
}
