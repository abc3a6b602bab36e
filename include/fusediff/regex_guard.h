/* regex_guard.h — refuse regular expressions that would make regcomp() or regexec() explode.
 *
 * glibc compiles a repetition by copying the repeated subexpression ("a+" becomes "aa*",
 * "a{3}" becomes "aaa"), so nested repetitions multiply: "y" followed by thirty "+"
 * asks for 2^30 copies and the process runs out of memory inside regcomp(). Back-references
 * make matching exponential. Matching costs about the compiled size times the text's length:
 * "(.{0,16}){16}c" (256 copies) takes 27 ms on an 8 KiB name, "(.{0,8}){8}c" (64) 2 ms. Every
 * user pattern (rules files, --pass) goes through regex_guard() before regcomp(). */
#ifndef FUSEDIFF_REGEX_GUARD_H
#define FUSEDIFF_REGEX_GUARD_H

#include <stddef.h>

/* Nested repetitions may multiply the pattern by at most this much, and a pattern may be at
 * most REGEX_GUARD_MAX_LEN bytes long. */
#define REGEX_GUARD_MAX_COPIES 64
#define REGEX_GUARD_MAX_LEN    1024
/* A repetition of what may match nothing ("x**", "(a*)*", "x*?") makes glibc's epsilon closures
 * grow: 20 "(x*)+" in a row took 2.4 s in regcomp(), 160 "x*?" 2.4 s. A pattern may hold at most
 * this many. */
#define REGEX_GUARD_MAX_EMPTY_REPEATS 8

/* Check a POSIX extended regular expression before it is compiled. Returns 0 when it is safe
 * to compile, or -1 with a short reason in msg (capacity cap): too long, repetitions that
 * multiply beyond REGEX_GUARD_MAX_COPIES, more than REGEX_GUARD_MAX_EMPTY_REPEATS repetitions
 * of what may match nothing, or a back-reference. Syntax errors are left to regcomp(). */
int regex_guard(const char *pattern, char *msg, size_t cap);

#endif
