/* json.c — strict, restartable JSON primitives over an in-memory window (see json.h). */
#include "fusediff/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/text.h"
#include "fusediff/util.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static int fail(struct json_cur *c, const char *at, const char *msg)
{
	c->err_at = at;
	c->err_msg = msg;
	return JSON_ERR;
}

/* The window ran out: ask for more, or fail at the end of the input. */
static int need(struct json_cur *c)
{
	if (c->at_eof)
		return fail(c, c->end, "unexpected end of file (the JSON is truncated)");
	return JSON_MORE;
}

static inline int is_ws(unsigned char ch)
{
	return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* json_peek() for this file's own use, inlined: most tokens follow one space or none. */
static inline int peek(struct json_cur *c)
{
	const char *p = c->p, *end = c->end;

	if (p < end && (unsigned char)*p > ' ')
		return (unsigned char)*p;
	while (p < end && is_ws((unsigned char)*p))
		p++;
	c->p = p;
	return p < end ? (unsigned char)*p : -1;
}

int json_peek_blanks(struct json_cur *c)
{
	return peek(c);
}

/* Next non-space byte in *ch, or JSON_MORE / JSON_ERR at the end. */
static inline int next_byte(struct json_cur *c, int *ch)
{
	*ch = peek(c);
	return *ch < 0 ? need(c) : JSON_OK;
}

static inline int expect(struct json_cur *c, char want, const char *msg)
{
	int ch, rc = next_byte(c, &ch);

	if (rc)
		return rc;
	if (ch != (unsigned char)want)
		return fail(c, c->p, msg);
	c->p++;
	return JSON_OK;
}

void json_buf_free(struct json_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void buf_put(struct json_buf *b, const char *s, size_t n)
{
	if (b->cap - b->len < n + 1) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap - b->len < n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_utf8(struct json_buf *b, uint32_t cp)
{
	char u[4];

	buf_put(b, u, text_utf8_encode(cp, u));
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		char ch = p[i];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (uint32_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (uint32_t)(ch - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_ONES  0x0101010101010101ull
#define SWAR_HIGHS 0x8080808080808080ull

/* Bytes of w equal to the byte in pat (repeated), as high bits. Only the lowest flag is exact
 * (a borrow can flag a byte above a match), which is all that is used. */
static inline uint64_t swar_eq(uint64_t w, uint64_t pat)
{
	uint64_t x = w ^ pat;

	return (x - SWAR_ONES) & ~x & SWAR_HIGHS;
}

/* The first '"', '\\' or NUL in [p, end), or end: sixteen bytes at a time with SSE2 (every
 * x86-64 has it), then eight at a time. Loads stay inside [p, end). */
static inline const char *quote_or_backslash(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i qv = _mm_set1_epi8('"'), bv = _mm_set1_epi8('\\'), zv = _mm_setzero_si128();

	while (end - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, qv), _mm_cmpeq_epi8(w, bv)),
				     _mm_cmpeq_epi8(w, zv)));

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		uint64_t w, m;

		memcpy(&w, p, 8);
		m = swar_eq(w, SWAR_ONES * '"') | swar_eq(w, SWAR_ONES * '\\') | swar_eq(w, 0);
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
	while (p < end && *p != '"' && *p != '\\' && *p)
		p++;
	return p;
}
#else
static inline const char *quote_or_backslash(const char *p, const char *end)
{
	while (p < end && *p != '"' && *p != '\\' && *p)
		p++;
	return p;
}
#endif

/* Find the closing quote of a string whose body starts at p; NULL when not in the window.
 * *escaped is set when the body contains a backslash. One pass: strings are mostly short keys,
 * where a library call per string costs more than the scan. */
static const char *string_end(const char *p, const char *end, int *escaped)
{
	*escaped = 0;
	for (;;) {
		p = quote_or_backslash(p, end);
		if (p == end)
			return NULL;
		if (*p == '"')
			return p;
		*escaped = 1;
		if (!*p) { /* a raw NUL: decoded as the visible "\\0" */
			p++;
			continue;
		}
		if (end - p < 2)
			return NULL; /* the escaped byte is not in the window yet */
		p += 2;
	}
}

/* buf_put() with NUL bytes written as the two characters "\\0": a name must not end early. */
static void put_visible(struct json_buf *buf, const char *p, size_t n)
{
	const char *z;

	while ((z = memchr(p, '\0', n))) {
		buf_put(buf, p, (size_t)(z - p));
		buf_put(buf, "\\0", 2);
		n -= (size_t)(z - p) + 1;
		p = z + 1;
	}
	buf_put(buf, p, n);
}

static int decode(struct json_cur *c, const char *p, const char *q, struct json_buf *buf)
{
	static const char esc_from[] = "\"\\/bfnrt", esc_to[] = "\"\\/\b\f\n\r\t";

	buf->len = 0;
	while (p < q) {
		const char *bs = memchr(p, '\\', (size_t)(q - p)), *e;
		uint32_t cp, lo;

		if (!bs) {
			put_visible(buf, p, (size_t)(q - p));
			break;
		}
		put_visible(buf, p, (size_t)(bs - p));
		p = bs + 1;
		e = *p ? strchr(esc_from, *p) : NULL;
		if (e) { /* the one-character escapes */
			buf_put(buf, esc_to + (e - esc_from), 1);
			p++;
			continue;
		}
		if (*p != 'u')
			return fail(c, bs, "invalid escape sequence in string");
		if (q - p < 5 || hex4(p + 1, &cp) < 0)
			return fail(c, bs, "invalid \\u escape in string");
		p += 5;
		if (cp >= 0xd800 && cp < 0xdc00 && q - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
		    hex4(p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		}
		if (cp == 0)
			buf_put(buf, "\\0", 2); /* \u0000 stays visible */
		else
			buf_utf8(buf, cp); /* a lone surrogate stays visible as invalid UTF-8 */
	}
	if (!buf->s)
		buf_put(buf, "", 0);
	return JSON_OK;
}

/* The string that starts at c->p (its opening quote), inlined into the callers that know. */
static inline int string_at(struct json_cur *c, struct json_str *out, struct json_buf *buf)
{
	int rc, escaped;
	const char *q = string_end(c->p + 1, c->end, &escaped);

	if (!q)
		return c->at_eof ? fail(c, c->end,
					"unexpected end of file inside a string (the JSON is "
					"truncated)")
				 : JSON_MORE;
	if (!escaped) {
		out->s = c->p + 1;
		out->len = (size_t)(q - c->p - 1);
	} else {
		rc = decode(c, c->p + 1, q, buf);
		if (rc)
			return rc;
		out->s = buf->s;
		out->len = buf->len;
	}
	c->p = q + 1;
	return JSON_OK;
}

int json_string(struct json_cur *c, struct json_str *out, struct json_buf *buf)
{
	int ch, rc = next_byte(c, &ch);

	if (rc)
		return rc;
	if (ch != '"')
		return fail(c, c->p, "expected a string");
	return string_at(c, out, buf);
}

static inline int is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The value of the n (1 to 7) decimal digits at p, with eight bytes readable at p: the digits
 * moved to the top of the word, '0's below them. */
static inline uint64_t digits_lt8(const char *p, unsigned n)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return json_digits8_word(json_digits_low(w, n));
}
#endif

static inline uint64_t digits8(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	memcpy(&w, p, 8);
	w -= 0x3030303030303030ull;
	w = w * 10 + (w >> 8);
	return (((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
		(((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >>
	       32;
#else
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v * 10 + (uint64_t)(p[i] - '0');
	return v;
#endif
}

/* The end of the run of digits that starts at p: eight bytes at a time (timestamps have 13 to
 * 16 integer digits). A byte is a digit when its high nibble is 3 and stays 3 after adding 6;
 * a carry out of a non-digit byte can only disturb the bytes above the first non-digit. */
static inline const char *digits_end(const char *p, const char *e)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull;

	while (e - p >= 8) {
		uint64_t w, nd;

		memcpy(&w, p, 8);
		nd = ((w & hi) | (((w + 0x0606060606060606ull) & hi) >> 4)) ^ 0x3333333333333333ull;
		if (nd)
			return p + (__builtin_ctzll(nd) >> 3);
		p += 8;
	}
#endif
	while (p < e && is_digit(*p))
		p++;
	return p;
}

/* A plain number at p, the usual ts, dur, pid or id: at most 15 integer digits, no exponent,
 * ending inside the window. Returns its end, with its sign in *neg, the value of its integer
 * digits in *ival and its fraction digits in [*fs, *fe); NULL for anything else (then
 * scan_number() decides, which takes the same view of a number it returns). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *
plain_number(const char *p, const char *e, int *neg, uint64_t *ival, const char **fs,
	     const char **fe)
{
	const char *d;
	uint64_t v = 0;
	size_t n;

	*neg = p < e && *p == '-';
	p += *neg;
	if (p == e || !is_digit(*p))
		return NULL;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - p >= 32) { /* each run of digits from the eight bytes loaded to find its end */
		uint64_t w;

		if (*p == '0') {
			p++;
		} else {
			memcpy(&w, p, 8);
			n = json_digit_run8(w);
			if (n == 8) {
				v = json_digits8_word(w);
				p += 8;
				memcpy(&w, p, 8);
				n = json_digit_run8(w);
				if (n == 8)
					return NULL; /* 16 digits or more */
				if (n)
					v = v * json_pow10[n] +
					    json_digits8_word(json_digits_low(w, (unsigned)n));
			} else {
				v = json_digits8_word(json_digits_low(w, (unsigned)n));
			}
			p += n;
		}
		*fs = *fe = p;
		if (*p == '.') {
			memcpy(&w, ++p, 8);
			n = json_digit_run8(w);
			if (!n)
				return NULL;
			*fs = p;
			p = n == 8 ? digits_end(p, e) : p + n;
			*fe = p;
		}
		if (p == e || *p == 'e' || *p == 'E')
			return NULL;
		*ival = v;
		return p;
	}
#endif
	d = *p == '0' ? p + 1 : digits_end(p, e);
	n = (size_t)(d - p);
	if (n > 15)
		return NULL;
	if (n >= 8) {
		v = digits8(p);
		p += 8;
		n -= 8;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n && e - p >= 8) {
		v = v * json_pow10[n] + digits_lt8(p, (unsigned)n);
		p = d;
	}
#endif
	for (; p < d; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	*fs = *fe = p;
	if (p < e && *p == '.') {
		if (++p == e || !is_digit(*p))
			return NULL;
		*fs = p;
		p = digits_end(p, e);
		*fe = p;
	}
	if (p == e || *p == 'e' || *p == 'E')
		return NULL;
	*ival = v;
	return p;
}

/* The parts of a number's text, found in one pass. */
struct num_parts {
	int special; /* NaN, Infinity or -Infinity */
	int neg, has_exp;
	const char *int_s, *int_e;   /* the integer digits */
	const char *frac_s, *frac_e; /* the fraction digits; empty when there are none */
	uint64_t ival;		     /* the integer digits' value, when ival_ok */
	int ival_ok;		     /* at most 18 integer digits: ival cannot have wrapped */
};

/* json_number(), also finding the parts of the number for a conversion in the same pass. */
static inline int scan_number(struct json_cur *c, struct json_str *raw, struct num_parts *np)
{
	const char *s = c->p, *p = s, *e = c->end;

	np->special = np->neg = np->has_exp = 0;

	/* NaN, Infinity and -Infinity, as Python's json module writes them. */
	if (p < e && (*p == 'N' || *p == 'I' || (*p == '-' && (e - p < 2 || p[1] == 'I')))) {
		static const char *const special[] = { "NaN", "Infinity", "-Infinity" };
		size_t have = (size_t)(e - p);

		for (size_t i = 0; i < 3; i++) {
			size_t n = strlen(special[i]);

			if (memcmp(p, special[i], have < n ? have : n) != 0)
				continue;
			if (have < n)
				return need(c);
			raw->s = s;
			raw->len = n;
			c->p = s + n;
			np->special = 1;
			return JSON_OK;
		}
		if (have < 2)
			return need(c);
		return fail(c, p, "invalid number");
	}
	if (p < e && *p == '-') {
		np->neg = 1;
		p++;
	}
	if (p == e)
		return need(c);
	np->int_s = p;
	np->ival = 0;
	if (*p == '0') {
		p++;
	} else if (is_digit(*p)) {
		const char *d = digits_end(p, e);
		uint64_t v = 0; /* used when 18 digits or fewer */

		if (d - p <= 18) {
			for (; d - p >= 8; p += 8)
				v = v * 100000000u + digits8(p);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			if (d - p >= 4 && e - p >= 8) {
				unsigned n = (unsigned)(d - p);

				v = v * json_pow10[n] + digits_lt8(p, n);
				p = d;
			}
#endif
			for (; p < d; p++)
				v = v * 10 + (uint64_t)(*p - '0');
		}
		p = d;
		np->ival = v;
	} else {
		return fail(c, p, "invalid number");
	}
	np->ival_ok = p - np->int_s <= 18;
	np->int_e = np->frac_s = np->frac_e = p;
	if (p < e && *p == '.') {
		p++;
		if (p == e)
			return need(c);
		if (!is_digit(*p))
			return fail(c, p, "invalid number: expected a digit after '.'");
		np->frac_s = p;
		p = digits_end(p, e);
		np->frac_e = p;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		np->has_exp = 1;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e)
			return need(c);
		if (!is_digit(*p))
			return fail(c, p, "invalid number: expected a digit in the exponent");
		while (p < e && is_digit(*p))
			p++;
	}
	if (p == e && !c->at_eof)
		return JSON_MORE; /* more digits may follow */
	raw->s = s;
	raw->len = (size_t)(p - s);
	c->p = p;
	return JSON_OK;
}

int json_number(struct json_cur *c, struct json_str *raw)
{
	struct num_parts np;

	return scan_number(c, raw, &np);
}

static int literal(struct json_cur *c, const char *word)
{
	size_t n = strlen(word), have = (size_t)(c->end - c->p);

	if (have < n) {
		if (memcmp(c->p, word, have) != 0)
			return fail(c, c->p, "invalid literal");
		return need(c);
	}
	if (memcmp(c->p, word, n) != 0)
		return fail(c, c->p, "invalid literal");
	c->p += n;
	return JSON_OK;
}

/* Skip one scalar value (the byte at c->p is its first). */
static int skip_scalar(struct json_cur *c, int ch)
{
	struct json_str raw;
	int escaped;
	const char *q;

	switch (ch) {
	case '"':
		q = string_end(c->p + 1, c->end, &escaped);
		if (!q)
			return c->at_eof ? fail(c, c->end,
						"unexpected end of file inside a string (the JSON "
						"is truncated)")
					 : JSON_MORE;
		c->p = q + 1;
		return JSON_OK;
	case 't': return literal(c, "true");
	case 'f': return literal(c, "false");
	case 'n': return literal(c, "null");
	default:
		if (ch == '-' || is_digit(ch) || ch == 'N' || ch == 'I')
			return json_number(c, &raw);
		return fail(c, c->p, "expected a value");
	}
}

/* ---- the fast skip ----------------------------------------------------------------------
 *
 * json_skip() first tries this tight loop over the bytes, which accepts a subset of what the
 * strict walk below accepts (JSON grammar, strings as string_end() sees them, at most 64
 * levels, no NaN or Infinity, nothing that reaches the end of the window) and stops at the
 * same byte. Anything else (an error, the end of the window, a rare form) makes it give up,
 * and the strict walk runs from the start for its result, its error and its position. */

/* The end of the number at p, or NULL when it is not a plain JSON number that ends inside
 * the window (scan_number() then decides). */
static inline const char *fast_number(const char *p, const char *e)
{
	if (*p == '-' && ++p == e)
		return NULL;
	if (*p == '0')
		p++;
	else if (is_digit(*p))
		while (++p < e && is_digit(*p))
			;
	else
		return NULL;
	if (p < e && *p == '.') {
		if (++p == e || !is_digit(*p))
			return NULL;
		while (++p < e && is_digit(*p))
			;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || !is_digit(*p))
			return NULL;
		while (++p < e && is_digit(*p))
			;
	}
	return p < e ? p : NULL;
}

/* string_end() of a string body at s, with the usual case inlined: a closing quote within
 * sixteen bytes, no backslash or NUL before it. */
static inline const char *fast_string_end(const char *s, const char *e)
{
	int escaped;
#ifdef __SSE2__
	if (e - s >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)s);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
						  _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
				     _mm_cmpeq_epi8(w, _mm_setzero_si128())));

		if (m && s[__builtin_ctz(m)] == '"')
			return s + __builtin_ctz(m);
	}
#endif
	return string_end(s, e, &escaped);
}

/* The first non-blank byte at or after p, or e. */
static inline const char *fast_blanks(const char *p, const char *e)
{
	while (p < e && is_ws((unsigned char)*p))
		p++;
	return p;
}

/* The end of the value at p (blanks before it skipped), or NULL: see above. */
static const char *fast_skip(const char *p, const char *e)
{
	uint64_t objs = 0; /* bit d: the container at depth d + 1 is an object */
	int depth = 0;
	const char *q;

	p = fast_blanks(p, e);
value: /* p is at a non-blank byte, or e */
	if (p == e)
		return NULL;
	switch (*p) {
	case '{':
	case '[':
		if (depth == 64)
			return NULL;
		objs = (objs & ~(1ull << depth)) | ((uint64_t)(*p == '{') << depth);
		depth++;
		p = fast_blanks(p + 1, e);
		if (p == e)
			return NULL;
		if (*p == ((objs >> (depth - 1)) & 1 ? '}' : ']')) {
			p++;
			depth--;
			goto after;
		}
		if ((objs >> (depth - 1)) & 1)
			goto key;
		goto value;
	case '"':
		if (!(q = fast_string_end(p + 1, e)))
			return NULL;
		p = q + 1;
		goto after;
	case 't':
		if (e - p < 4 || memcmp(p, "true", 4) != 0)
			return NULL;
		p += 4;
		goto after;
	case 'f':
		if (e - p < 5 || memcmp(p, "false", 5) != 0)
			return NULL;
		p += 5;
		goto after;
	case 'n':
		if (e - p < 4 || memcmp(p, "null", 4) != 0)
			return NULL;
		p += 4;
		goto after;
	default:
		if (*p != '-' && !is_digit(*p))
			return NULL;
		if (*p == '-' && (e - p < 2 || p[1] == 'I'))
			return NULL;
		if (!(p = fast_number(p, e)))
			return NULL;
		goto after;
	}
after:
	if (depth == 0)
		return p;
	if (p < e && *p != ',') /* mostly a ',' follows at once, or the container ends */
		p = fast_blanks(p, e);
	if (p == e)
		return NULL;
	if (*p == ',') {
		p++;
		if (e - p >= 2 && *p == ' ' && (unsigned char)p[1] > ' ')
			p++; /* the one blank of ", " */
		else
			p = fast_blanks(p, e);
		if (p == e || *p == '}' || *p == ']')
			return NULL;
		if ((objs >> (depth - 1)) & 1)
			goto key;
		goto value;
	}
	if (*p != ((objs >> (depth - 1)) & 1 ? '}' : ']'))
		return NULL;
	p++;
	depth--;
	goto after;
key:
	/* p is at a non-blank byte */
	if (*p != '"' || !(q = fast_string_end(p + 1, e)))
		return NULL;
	p = fast_blanks(q + 1, e);
	if (p == e || *p != ':')
		return NULL;
	p = fast_blanks(p + 1, e);
	goto value;
}

/* The strict walk of json_skip(). */
static int strict_skip(struct json_cur *c)
{
	char stack[JSON_MAX_DEPTH];
	int depth = 0, ch, rc;

value:
	if ((rc = next_byte(c, &ch)))
		return rc;
	if (ch == '{' || ch == '[') {
		if (depth == JSON_MAX_DEPTH)
			return fail(c, c->p, "nesting too deep (more than 512 levels)");
		stack[depth++] = (char)ch;
		c->p++;
		if ((rc = next_byte(c, &ch)))
			return rc;
		if (ch == (stack[depth - 1] == '{' ? '}' : ']')) {
			c->p++;
			depth--;
			goto after;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if ((rc = skip_scalar(c, ch)))
		return rc;
after:
	if (depth == 0)
		return JSON_OK;
	if ((rc = next_byte(c, &ch)))
		return rc;
	if (ch == ',') {
		c->p++;
		if ((rc = next_byte(c, &ch)))
			return rc;
		if (ch == '}' || ch == ']')
			return fail(c, c->p,
				    ch == '}' ? "trailing comma before '}'"
					      : "trailing comma before ']'");
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (stack[depth - 1] == '{') {
		if (ch != '}')
			return fail(c, c->p, "expected ',' or '}' in object");
	} else if (ch != ']') {
		return fail(c, c->p, "expected ',' or ']' in array");
	}
	c->p++;
	depth--;
	goto after;
key:
	if ((rc = next_byte(c, &ch)))
		return rc;
	if (ch != '"')
		return fail(c, c->p, "expected a string key in object");
	if ((rc = skip_scalar(c, ch)))
		return rc;
	if ((rc = expect(c, ':', "expected ':' after an object key")))
		return rc;
	goto value;
}

int json_skip(struct json_cur *c)
{
	const char *q = c->p < c->end ? fast_skip(c->p, c->end) : NULL;

	if (q) {
		c->p = q;
		return JSON_OK;
	}
	return strict_skip(c);
}

int json_object_begin_any(struct json_cur *c)
{
	return expect(c, '{', "expected an object");
}

int json_object_next_any(struct json_cur *c, int *first, struct json_str *key,
			 struct json_buf *kbuf, int *done)
{
	int ch, rc;

	*done = 0;
	if ((rc = next_byte(c, &ch)))
		return rc;
	if (*first) {
		if (ch == '}') {
			c->p++;
			*done = 1;
			return JSON_OK;
		}
	} else if (ch == ',') {
		c->p++;
		if ((rc = next_byte(c, &ch)))
			return rc;
		if (ch == '}')
			return fail(c, c->p, "trailing comma before '}'");
	} else if (ch == '}') {
		c->p++;
		*done = 1;
		return JSON_OK;
	} else {
		return fail(c, c->p, "expected ',' or '}' in object");
	}
	if (ch != '"')
		return fail(c, c->p, "expected a string key in object");
#ifdef __SSE2__
	/* Most keys are short and plain: their closing quote is in the next sixteen bytes, with
	 * no backslash or NUL before it, and the ':' follows at once. */
	if (c->end - c->p >= 18) {
		const char *s = c->p + 1;
		int n = json_plain_key16(s);

		if (n >= 0) {
			key->s = s;
			key->len = (size_t)n;
			c->p = s + n + 2;
			*first = 0;
			return JSON_OK;
		}
	}
#endif
	if ((rc = string_at(c, key, kbuf)))
		return rc;
	if ((rc = expect(c, ':', "expected ':' after an object key")))
		return rc;
	*first = 0;
	return JSON_OK;
}

int json_array_begin(struct json_cur *c)
{
	return expect(c, '[', "expected an array");
}

int json_array_next_any(struct json_cur *c, int *first, int *done)
{
	int ch, rc;

	*done = 0;
	if ((rc = next_byte(c, &ch)))
		return rc;
	if (ch == ']' && *first == 2) /* the ',' before was consumed already */
		return fail(c, c->p, "trailing comma before ']'");
	if (ch == ']') {
		c->p++;
		*done = 1;
		return JSON_OK;
	}
	if (!*first) {
		if (ch != ',')
			return fail(c, c->p, "expected ',' or ']' in array");
		c->p++;
		if ((rc = next_byte(c, &ch)))
			return rc;
		if (ch == ']')
			return fail(c, c->p, "trailing comma before ']'");
	}
	*first = 0;
	return JSON_OK;
}

/* 0 when all of raw is one JSON number (raw may come from a string: "ts": "yesterday"), with
 * its parts in *np; -1 otherwise, NaN and Infinity included. */
static int number_parts(struct json_str raw, struct num_parts *np)
{
	const char *p = raw.s, *e = raw.s + raw.len;

	np->special = np->neg = np->has_exp = np->ival_ok = 0;
	if (p < e && *p == '-') {
		np->neg = 1;
		p++;
	}
	if (p == e || !is_digit(*p))
		return -1;
	np->int_s = p;
	while (p < e && is_digit(*p))
		p++;
	np->int_e = np->frac_s = np->frac_e = p;
	if (p < e && *p == '.') {
		if (++p == e || !is_digit(*p))
			return -1;
		np->frac_s = p;
		while (p < e && is_digit(*p))
			p++;
		np->frac_e = p;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		np->has_exp = 1;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || !is_digit(*p))
			return -1;
		while (p < e && is_digit(*p))
			p++;
	}
	return p == e ? 0 : -1;
}

double json_strtod(struct json_str raw)
{
	/* strtod needs a terminated copy: raw may end the buffer (a truncated file). */
	char tmp[64], *s = raw.len < sizeof tmp ? tmp : xmalloc(raw.len + 1);
	double d;

	memcpy(s, raw.s, raw.len);
	s[raw.len] = '\0';
	d = strtod(s, NULL);
	if (s != tmp)
		free(s);
	return d;
}

/* json_to_int64() of a number whose parts are known. */
static int int64_from_parts(struct json_str raw, const struct num_parts *np, int64_t *out,
			    int *overflow)
{
	uint64_t v = 0, limit;

	if (np->special)
		return -1;
	if (np->has_exp) {
		double d = json_strtod(raw);

		if (!(d > -9.2e18 && d < 9.2e18)) {
			*overflow = 1;
			*out = d < 0 ? INT64_MIN : INT64_MAX;
		} else {
			*out = (int64_t)d;
		}
		return 0;
	}
	if (np->ival_ok) { /* below 10^18: no overflow */
		*out = np->neg ? (int64_t)(0 - np->ival) : (int64_t)np->ival;
		return 0;
	}
	limit = np->neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (const char *p = np->int_s; p < np->int_e; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (limit - d) / 10) {
			*overflow = 1;
			*out = np->neg ? INT64_MIN : INT64_MAX;
			return 0;
		}
		v = v * 10 + d;
	}
	*out = np->neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int json_to_int64(struct json_str raw, int64_t *out, int *overflow)
{
	struct num_parts np;

	if (number_parts(raw, &np) < 0)
		return -1;
	return int64_from_parts(raw, &np, out, overflow);
}

/* json_us_to_ns() of a number whose parts are known. */
static int ns_from_parts(struct json_str raw, const struct num_parts *np, int64_t *out,
			 int *overflow)
{
	uint64_t whole = 0, frac = 0, ns;
	const uint64_t max_whole = (uint64_t)INT64_MAX / 1000 - 1;
	const char *f;
	int digits = 0;

	if (np->special)
		return -1;
	if (np->has_exp) {
		char tmp[64];
		double d;

		if (raw.len >= sizeof tmp)
			return -1;
		memcpy(tmp, raw.s, raw.len);
		tmp[raw.len] = '\0';
		d = strtod(tmp, NULL) * 1000.0;
		if (!(d > -9.2e18 && d < 9.2e18)) {
			*overflow = 1;
			*out = d < 0 ? INT64_MIN : INT64_MAX;
			return 0;
		}
		*out = (int64_t)llround(d);
		return 0;
	}
	/* the value found by the scan when it is in range (the loop below checks each step, which
	 * comes to the same for a value that only grows) */
	for (const char *p = np->int_s; p < np->int_e; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (np->ival_ok && np->ival <= max_whole) {
			whole = np->ival;
			break;
		}
		if (whole > (max_whole - d) / 10) {
			*overflow = 1;
			*out = np->neg ? INT64_MIN : INT64_MAX;
			return 0;
		}
		whole = whole * 10 + d;
	}
	/* three fraction digits, rounded half up on the fourth */
	for (f = np->frac_s; f < np->frac_e && digits < 3; f++, digits++)
		frac = frac * 10 + (unsigned)(*f - '0');
	for (; digits < 3; digits++)
		frac *= 10;
	if (f < np->frac_e && *f >= '5')
		frac++;
	ns = whole * 1000 + frac;
	*out = np->neg ? -(int64_t)ns : (int64_t)ns;
	return 0;
}

int json_us_to_ns(struct json_str raw, int64_t *out, int *overflow)
{
	struct num_parts np;

	if (number_parts(raw, &np) < 0)
		return -1;
	return ns_from_parts(raw, &np, out, overflow);
}

int json_number_int64(struct json_cur *c, int64_t *out, int *overflow, int *conv)
{
	struct json_str raw;
	struct num_parts np;
	int rc, neg;
	uint64_t v;
	const char *fs, *fe, *q = plain_number(c->p, c->end, &neg, &v, &fs, &fe);

	if (q) { /* what int64_from_parts() makes of it */
		*out = neg ? (int64_t)(0 - v) : (int64_t)v;
		*conv = 0;
		c->p = q;
		return JSON_OK;
	}
	rc = scan_number(c, &raw, &np);

	if (rc == JSON_OK)
		*conv = int64_from_parts(raw, &np, out, overflow);
	return rc;
}

int json_number_us_to_ns(struct json_cur *c, int64_t *out, int *overflow, int *conv)
{
	struct json_str raw;
	struct num_parts np;
	int rc, neg;
	uint64_t v;
	const char *fs, *fe, *q = plain_number(c->p, c->end, &neg, &v, &fs, &fe);

	if (q) { /* what ns_from_parts() makes of it (no overflow below 10^15 us) */
		uint64_t frac = 0, ns;
		int digits = 0;
		const char *f;

		for (f = fs; f < fe && digits < 3; f++, digits++)
			frac = frac * 10 + (unsigned)(*f - '0');
		for (; digits < 3; digits++)
			frac *= 10;
		if (f < fe && *f >= '5')
			frac++;
		ns = v * 1000 + frac;
		*out = neg ? -(int64_t)ns : (int64_t)ns;
		*conv = 0;
		c->p = q;
		return JSON_OK;
	}
	rc = scan_number(c, &raw, &np);

	if (rc == JSON_OK)
		*conv = ns_from_parts(raw, &np, out, overflow);
	return rc;
}
