/* intern.h — a table of interned byte strings, each stored once and named by a dense id.
 *
 * Kernel and operator names repeat thousands of times in a trace; the loader stores each
 * distinct one once. Strings may contain any byte, NUL included; each is also NUL-terminated
 * for convenience. Id 0 is always the empty string. */
#ifndef FUSEDIFF_INTERN_H
#define FUSEDIFF_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern;

/* A new, empty table (holding only ""). Owned by caller: free with intern_free(). */
struct intern *intern_new(void);
void intern_free(struct intern *t);

/* The id of the string s[0..len), adding it if it is new. */
uint32_t intern_add(struct intern *t, const char *s, size_t len);
/* The id of s[0..len), or UINT32_MAX when it is not in the table. */
uint32_t intern_find(const struct intern *t, const char *s, size_t len);

/* The string with this id: borrowed, valid until intern_free(). */
const char *intern_str(const struct intern *t, uint32_t id);
size_t intern_len(const struct intern *t, uint32_t id);
uint32_t intern_count(const struct intern *t);

#endif
