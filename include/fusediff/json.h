/* json.h — a strict, restartable JSON cursor over a window of a byte buffer.
 *
 * The trace loader reads a file in large chunks and parses one unit (an event, or one member
 * of the top-level object) at a time with these functions. When a unit runs past the end of
 * the bytes read so far, a function returns JSON_MORE instead of failing; the loader then
 * reads more and parses the unit again from its start. When the cursor is marked as at the
 * end of the input, running out of bytes is an error instead.
 *
 * Strings are returned without copying when they contain no escapes; otherwise they are
 * decoded into a caller-provided struct json_buf. Raw control characters and invalid UTF-8
 * inside strings are accepted and kept as they are (the display layer escapes them). */
#ifndef FUSEDIFF_JSON_H
#define FUSEDIFF_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { JSON_OK = 0, JSON_MORE = 1, JSON_ERR = -1 };

/* Containers deeper than this are rejected (no real trace comes close). */
#define JSON_MAX_DEPTH 512

struct json_cur {
	const char *p;	     /* next byte */
	const char *end;     /* end of the bytes available */
	int at_eof;	     /* end is the end of the input */
	const char *err_at;  /* on JSON_ERR: where */
	const char *err_msg; /* on JSON_ERR: what (static text) */
};

/* A growable byte buffer for decoded strings. Zero-initialise; free with json_buf_free(). */
struct json_buf {
	char *s;
	size_t len, cap;
};
void json_buf_free(struct json_buf *b);

/* A string value: s[0..len) is borrowed from the input window or from a json_buf. */
struct json_str {
	const char *s;
	size_t len;
};

/* Skip whitespace; returns the next byte, or -1 at the end of the window (check at_eof).
 * Inlined for the usual case, a token that follows no blank. */
int json_peek_blanks(struct json_cur *c);
static inline int json_peek(struct json_cur *c)
{
	if (c->p < c->end && (unsigned char)*c->p > ' ')
		return (unsigned char)*c->p;
	return json_peek_blanks(c);
}
/* Parse a string value; decoded into buf only when it has escapes. */
int json_string(struct json_cur *c, struct json_str *out, struct json_buf *buf);
/* Parse a number and return its raw text. */
int json_number(struct json_cur *c, struct json_str *raw);
/* Skip any value, validating it. */
int json_skip(struct json_cur *c);

/* Object iteration: call json_object_begin once, then json_object_next until it sets *done.
 * Each call leaves the cursor at the member's value, or at blanks before it (key in *key). */
int json_object_begin_any(struct json_cur *c);
static inline int json_object_begin(struct json_cur *c)
{
	if (c->p < c->end && *c->p == '{') { /* the usual case, inline: no blank before it */
		c->p++;
		return JSON_OK;
	}
	return json_object_begin_any(c);
}
int json_object_next_any(struct json_cur *c, int *first, struct json_str *key,
			 struct json_buf *kbuf, int *done);
#ifdef __SSE2__
/* The first byte at or after s that is not a space or a newline, when one of the sixteen
 * bytes from s is (else s + 16, a blank). Sixteen bytes must be readable at s. */
__attribute__((always_inline)) static inline const char *json_blanks16(const char *s)
{
	__m128i w;
	unsigned m;

	if ((unsigned char)*s > ' ')
		return s;
	w = _mm_loadu_si128((const __m128i *)(const void *)s);
	m = ~(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')),
						      _mm_cmpeq_epi8(w, _mm_set1_epi8('\n')))) &
	    0xffff;
	return s + (m ? __builtin_ctz(m) : 16);
}
#endif

#ifdef __SSE2__
/* The bytes among the sixteen from s that are '"', '\\' or NUL, as the bits of a mask: where a
 * plain string's text (from just after its opening quote) ends, or the scan must be left to
 * the full parser. Sixteen bytes must be readable at s. */
__attribute__((always_inline)) static inline unsigned json_specials16(const char *s)
{
	__m128i w = _mm_loadu_si128((const __m128i *)(const void *)s);

	return (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
					  _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
			     _mm_cmpeq_epi8(w, _mm_setzero_si128())));
}

/* The length of the short plain string whose text starts at s: its closing quote within the
 * sixteen bytes from s, no backslash or NUL before it; -1 otherwise. */
__attribute__((always_inline)) static inline int json_plain_string16(const char *s)
{
	unsigned m = json_specials16(s), n;

	if (!m)
		return -1;
	n = (unsigned)__builtin_ctz(m);
	return s[n] == '"' ? (int)n : -1;
}

/* The same for a key, with the ':' right after its closing quote. Seventeen bytes must be
 * readable at s. */
__attribute__((always_inline)) static inline int json_plain_key16(const char *s)
{
	unsigned m = json_specials16(s), n;

	if (!m)
		return -1;
	n = (unsigned)__builtin_ctz(m);
	return s[n] == '"' && s[n + 1] == ':' ? (int)n : -1;
}
#endif

/* json_object_next_any(), with the usual case inlined, all well inside the window: blanks,
 * then the '}' that ends the object, or (after a ',' but before the first member) blanks, a
 * short plain key whose ':' follows its closing quote at once, and at most one blank before
 * the value. The blanks are spaces and newlines (an indented line), sixteen looked at by one
 * compare. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
json_object_next(struct json_cur *c, int *first, struct json_str *key, struct json_buf *kbuf,
		 int *done)
{
#ifdef __SSE2__
	const char *s = c->p;

	if (c->end - s >= 64) {
		s = json_blanks16(s);
		if (*s == '}') {
			c->p = s + 1;
			*done = 1;
			return JSON_OK;
		}
		if (!*first) {
			if (*s != ',') /* an error: the call below says which */
				return json_object_next_any(c, first, key, kbuf, done);
			s = json_blanks16(s + 1);
		}
		if (*s == '"') {
			int n = json_plain_key16(++s);

			if (n >= 0) {
				key->s = s;
				key->len = (size_t)n;
				s += n + 2;
				c->p = s + (*s == ' ' && (unsigned char)s[1] > ' ');
				*first = 0;
				*done = 0;
				return JSON_OK;
			}
		}
	}
#endif
	return json_object_next_any(c, first, key, kbuf, done);
}
/* Array iteration, in the same style; the cursor is left at the next element. *first: 1
 * before the first element, 0 after one (a ',' comes first), 2 after a ',' the caller consumed
 * itself (an element must come: ']' is a trailing comma). */
int json_array_begin(struct json_cur *c);
int json_array_next_any(struct json_cur *c, int *first, int *done);
/* json_array_next_any(), with the usual case between two elements inlined, well inside the
 * window: blanks (spaces and newlines), ',', blanks, then the next element's first byte. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
json_array_next(struct json_cur *c, int *first, int *done)
{
#ifdef __SSE2__
	const char *s = c->p;

	if (!*first && c->end - s >= 64) {
		s = json_blanks16(s);
		if (*s == ',') {
			s = json_blanks16(s + 1);
			if (*s != ']' && (unsigned char)*s > ' ') {
				c->p = s;
				*done = 0;
				return JSON_OK;
			}
		}
	}
#endif
	return json_array_next_any(c, first, done);
}

/* Raw number text as strtod() reads it (a terminated copy is made: raw may end the buffer). */
double json_strtod(struct json_str raw);
/* Raw number text to integers. Returns 0, or -1 when the text is not an integer (a fraction is
 * truncated toward zero). Values out of range saturate and set *overflow to 1. */
int json_to_int64(struct json_str raw, int64_t *out, int *overflow);
/* Microseconds as decimal text to integer nanoseconds, exactly (rounded at 1 ns).
 * Returns -1 for text that is not a number; saturates and sets *overflow when out of range. */
int json_us_to_ns(struct json_str raw, int64_t *out, int *overflow);
/* A number token converted in the same pass over its text: json_number() followed by
 * json_to_int64() (json_number_us_to_ns: json_us_to_ns()). Returns what json_number() returns;
 * on JSON_OK, *conv is what the conversion returns (-1 for NaN and Infinity). */
int json_number_int64(struct json_cur *c, int64_t *out, int *overflow, int *conv);
int json_number_us_to_ns(struct json_cur *c, int64_t *out, int *overflow, int *conv);

/* ---- short numbers, inline -------------------------------------------------------------
 * Most numbers of a trace are short: ids, pids, grid sizes, and times in microseconds with
 * three decimals. These take them eight digits to a load (little-endian SWAR), inline; anything
 * else (a sign, a leading zero before a digit, an exponent, long runs of digits, the end of the
 * window near) they leave to json_number_int64() and json_number_us_to_ns(), which give the same
 * values. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static const uint64_t json_pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };

/* The value of the eight decimal digits at p (little-endian SWAR: pairs, then quads, then
 * the two halves combined by one multiplication). */
static inline uint64_t json_digits8_word(uint64_t w)
{
	w -= 0x3030303030303030ull;
	w = w * 10 + (w >> 8);
	return (((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
		(((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >>
	       32;
}

/* The number of decimal digits that w (eight bytes of text) starts with, 0 to 8 (see
 * digits_end() in json.c). */
static inline unsigned json_digit_run8(uint64_t w)
{
	uint64_t nd = ((w & 0xf0f0f0f0f0f0f0f0ull) |
		       (((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) ^
		      0x3333333333333333ull;

	return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The n (1 to 7) digits that w starts with moved to the top of the word, '0's below them:
 * for json_digits8_word(). */
static inline uint64_t json_digits_low(uint64_t w, unsigned n)
{
	unsigned sh = 8 * (8 - n);

	return (w << sh) | (0x3030303030303030ull & ((1ull << sh) - 1));
}

/* A plain integer of 1 to 7 digits (a 0 only alone), at c->p, with 32 bytes of the
 * window left: its value in *out, the cursor moved past it, 1; else 0 and nothing moved. */
__attribute__((always_inline)) static inline int json_short_uint(struct json_cur *c, int64_t *out)
{
	const char *p = c->p;
	uint64_t w;
	unsigned n;

	if (c->end - p < 32 || (unsigned char)(*p - '0') > 9)
		return 0;
	memcpy(&w, p, 8);
	n = json_digit_run8(w);
	if (n == 8 || p[n] == '.' || (p[n] | 0x20) == 'e' || (*p == '0' && n > 1))
		return 0;
	*out = (int64_t)json_digits8_word(json_digits_low(w, n));
	c->p = p + n;
	return 1;
}

/* A time in microseconds as a plain number at c->p (up to 15 integer digits, up to 7
 * decimals, no sign or exponent), with 32 bytes of the window left: in ns as
 * json_us_to_ns() rounds it (three decimals, half up on the fourth) in *out, the cursor moved
 * past it, 1; else 0 and nothing moved. */
__attribute__((always_inline)) static inline int json_short_us_to_ns(struct json_cur *c,
								     int64_t *out)
{
	const char *p = c->p, *q;
	uint64_t w, v, f;
	unsigned n;

	if (c->end - p < 32 || (unsigned char)(*p - '0') > 9)
		return 0;
	memcpy(&w, p, 8);
	n = json_digit_run8(w);
	if (*p == '0') {
		if (n > 1)
			return 0; /* a leading zero: json_number_us_to_ns() says what it makes of it */
		v = 0;
		q = p + 1;
	} else if (n < 8) {
		v = json_digits8_word(json_digits_low(w, n));
		q = p + n;
	} else {
		v = json_digits8_word(w);
		memcpy(&w, p + 8, 8);
		n = json_digit_run8(w);
		if (n == 8)
			return 0;
		if (n)
			v = v * json_pow10[n] + json_digits8_word(json_digits_low(w, n));
		q = p + 8 + n;
	}
	f = 0;
	if (*q == '.') {
		memcpy(&w, q + 1, 8);
		n = json_digit_run8(w);
		if (n == 0 || n == 8)
			return 0;
		if (n >= 3)
			f = json_digits8_word(json_digits_low(w, 3)) + (n > 3 && q[4] >= '5');
		else
			f = json_digits8_word(json_digits_low(w, n)) * (n == 1 ? 100 : 10);
		q += 1 + n;
	}
	if ((*q | 0x20) == 'e')
		return 0;
	*out = (int64_t)(v * 1000 + f);
	c->p = q;
	return 1;
}
#else
static inline int json_short_uint(struct json_cur *c, int64_t *out)
{
	(void)c, (void)out;
	return 0;
}
static inline int json_short_us_to_ns(struct json_cur *c, int64_t *out)
{
	(void)c, (void)out;
	return 0;
}
#endif

/* Key comparison helper. */
static inline int json_str_eq(struct json_str s, const char *lit, size_t litlen)
{
	return s.len == litlen && memcmp(s.s, lit, litlen) == 0;
}
#define JSON_EQ(str, lit) json_str_eq((str), (lit), sizeof(lit) - 1)

#endif
