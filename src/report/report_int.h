/* report_int.h — helpers shared by the report writers (report_*.c); private to them. */
#ifndef FUSEDIFF_REPORT_INT_H
#define FUSEDIFF_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fusediff/report.h"

/* A finite number with at most `decimals` decimals, trailing zeros dropped, '.' as decimal
 * point whatever the locale, never "-0". Returns 0, or -1 for NAN and infinities (buf then
 * holds ""). */
int report_number(char *buf, size_t cap, double v, int decimals);
/* Nanoseconds as microseconds with 3 decimals ("12.345"), or "" for non-finite. */
int report_us(char *buf, size_t cap, double ns);

/* s[0..len) as a JSON string with its quotes: valid UTF-8 whatever the bytes (control
 * characters as \uXXXX, bytes that are not UTF-8 as the visible text \xNN). */
void report_json_str(FILE *out, const char *s, size_t len);

/* The public fused kernels of chain ch as text: the first two and "(+N more)"; "-" for none. */
void report_known_kernels(const struct fusible_chain *ch, char *buf, size_t cap);

int report_write_json(FILE *out, const struct comparison *c);
int report_write_csv(FILE *out, const struct comparison *c);
/* Text (md = 0) or Markdown (md = 1). */
int report_write_text(FILE *out, const struct comparison *c, int md);

#endif
