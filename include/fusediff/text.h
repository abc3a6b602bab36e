/* text.h — making untrusted names safe and short for terminals and reports, and formatting
 * numbers the same way everywhere. */
#ifndef FUSEDIFF_TEXT_H
#define FUSEDIFF_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Copy s[0..len) into dst (capacity cap, always NUL-terminated when cap > 0) with control
 * characters and invalid UTF-8 bytes written as visible escapes (\e, \n, \t, \0, \xNN), and
 * the characters that hide or reorder text (bidirectional controls such as U+202E, zero-width
 * characters, U+2028/U+2029) as \uXXXX, so that external text (kernel and file names, echoed
 * input) can never send escape sequences to a terminal or disguise itself. Valid UTF-8 is kept.
 * The one function every output path makes external text safe with.
 * Returns the length the full escaped text needs (excluding the NUL). */
size_t text_escape(char *dst, size_t cap, const char *s, size_t len);
/* The columns s takes on a terminal: wcwidth() of each character when the locale is UTF-8,
 * else a table (2 for CJK and emoji, 0 for combining marks); an invalid byte counts 1 (it is
 * shown escaped). */
size_t text_width(const char *s);
/* The byte length of the longest start of s that takes at most cols columns. */
size_t text_fit(const char *s, size_t cols);
/* Shorten s in place to at most max bytes (max >= 4) at a character boundary, ending in
 * "...", when it is longer; never cuts inside a UTF-8 sequence. */
void text_cut(char *s, size_t max);
/* Drop a UTF-8 sequence left incomplete at the end of s (what snprintf() into a too-small
 * buffer leaves). */
void text_utf8_trim(char *s);
/* 1 when a spreadsheet opening a CSV file would run the text cell s[0..len) as a formula: it
 * starts with '=', '@', a tab or a carriage return, or with '+' or '-' and is not a number
 * ("-12.5" is one). CSV writers start such a cell with "'" (read as "this is text"). */
int text_csv_formula(const char *s, size_t len);
/* Length (1..4) of the valid UTF-8 sequence at s, which has left > 0 bytes; 0 when the bytes
 * there are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, truncated). */
size_t text_utf8_len(const unsigned char *s, size_t left);
/* Encode code point cp (< 0x110000) as UTF-8 into out (4 bytes, not NUL-terminated). Returns
 * the number of bytes (1..4). */
size_t text_utf8_encode(uint32_t cp, char out[4]);
/* The same into a new string. Owned by caller: free with free(). */
char *text_escape_dup(const char *s, size_t len);

/* A duration in ns as microseconds with adaptive precision: "0.85", "12.3", "1234"; "-" when
 * not finite. The one formatter of microseconds for people: the text and Markdown reports and
 * the explorer print a figure with it, so that it reads the same everywhere (323.55 us is
 * "323.5" or "323.6" in both, never one in each). */
void text_us(char *buf, size_t cap, double ns);
/* The same with a sign: "+12.3", "-4.56"; "0" for what shows as zero; "-" when not finite. */
void text_signed_us(char *buf, size_t cap, double ns);
/* A duration in ns as milliseconds with two decimals, with a sign when sign is set ("+1.25";
 * "0.00" for what rounds to zero, signed or not), '.' whatever the locale: the whole traces'
 * totals in the text report and the explorer's Totals view. Returns buf. */
const char *text_ms(char *buf, size_t cap, int64_t ns, int sign);
/* A ratio (B/A): "0.44", "12.3", "150"; "-" when not finite (A is 0). */
void text_ratio(char *buf, size_t cap, double r);
/* A count per pass: "8", "0.50", "12.5" (two decimals below 10, one above, none for a whole
 * number), "-" when not finite. */
void text_count(char *buf, size_t cap, double n);
/* part as a share of whole, in percent with one decimal ("60.7%", "-10.0%"), "-" when |whole|
 * is below 1 (nothing to share): the "of B - A" of the reports and the explorer. */
void text_share_of(char *buf, size_t cap, double part, double whole);
/* A duration in ns with a unit: "850 ns", "12.3 us", "4.56 ms", "1.23 s"; '.' whatever the
 * locale. */
void text_duration(char *buf, size_t cap, int64_t ns);
/* v with decimals digits after '.', whatever the locale, with a sign when plus is set
 * ("+12.3"). Returns buf. The one place a number is printed with decimals for people: the
 * formatters here and report_number() build on it. */
const char *text_fixed(char *buf, size_t cap, double v, int decimals, int plus);
/* A share (0..1) as a percentage: "97%", with a decimal below 10% ("2.5%"), "<0.1%" for a
 * sliver, "0%" for none; '.' whatever the locale. */
void text_percent(char *buf, size_t cap, double share);
/* A byte count with a unit: "512 B", "1.5 KiB", "130.3 MiB"; '.' whatever the locale. */
void text_bytes(char *buf, size_t cap, int64_t bytes);

#endif
