/* regex_guard.c — refuse regular expressions that would explode in regcomp() (see the header). */
#include "fusediff/regex_guard.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 64

/* The end of the bracket expression that starts at p ('['), or NULL when it does not end. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++; /* a leading ']' is a member */
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *q = strchr(p + 2, p[1]);

			while (q && q[1] != ']')
				q = strchr(q + 1, p[1]);
			if (!q)
				return NULL;
			p = q + 2;
		} else {
			p++;
		}
	}
	return *p ? p : NULL;
}

/* The copies a repetition operator at *p makes of what precedes it (1 when *p is none), and
 * where the operator ends; *least: whether it asks for at least one (else what it repeats may
 * match nothing). Sets *bad for a count beyond any limit. */
static unsigned long repeat(const char **p, int *least, int *bad)
{
	const char *s = *p;
	unsigned long n = 0, m = 0;

	*least = 0;
	switch (*s) {
	case '*':
	case '?': *p = s + 1; return 1; /* glibc does not copy for these */
	case '+':
		*p = s + 1;
		*least = 1;
		return 2;
	case '{':
		s++;
		for (; *s >= '0' && *s <= '9'; s++)
			if (n <= REGEX_GUARD_MAX_COPIES) /* saturates: more is too many anyway */
				n = n * 10 + (unsigned long)(*s - '0');
		m = n;
		if (*s == ',') {
			s++;
			if (*s >= '0' && *s <= '9') {
				m = 0;
				for (; *s >= '0' && *s <= '9'; s++)
					if (m <= REGEX_GUARD_MAX_COPIES)
						m = m * 10 + (unsigned long)(*s - '0');
			} else {
				m = n + 1; /* {n,}: n copies and a starred one */
			}
		}
		if (*s != '}')
			return 1; /* not an interval: regcomp decides */
		*p = s + 1;
		*least = n > 0;
		if (n > REGEX_GUARD_MAX_COPIES || m > REGEX_GUARD_MAX_COPIES) {
			*bad = 1;
			return REGEX_GUARD_MAX_COPIES + 1;
		}
		/* {n,m} becomes n copies and m - n optional ones */
		return n > m ? n : m ? m : 1;
	default: return 1;
	}
}

int regex_guard(const char *pattern, char *msg, size_t cap)
{
	/* worst[d]: the largest product of repetitions inside the open group at depth d;
	 * empty[d]: whether the group's alternatives so far may match nothing, alt_empty[d]:
	 * whether its current alternative may so far */
	unsigned long worst[MAX_DEPTH + 1] = { 1 };
	unsigned char empty[MAX_DEPTH + 1] = { 0 }, alt_empty[MAX_DEPTH + 1] = { 1 };
	int depth = 0, bad = 0, empties = 0;
	const char *p = pattern;

	if (strlen(pattern) > REGEX_GUARD_MAX_LEN) {
		snprintf(msg, cap, "longer than %d bytes", REGEX_GUARD_MAX_LEN);
		return -1;
	}
	while (*p) {
		unsigned long inner = 1, f;
		int may_be_empty = 0, least;

		switch (*p) {
		case '\\':
			/* glibc's word and buffer anchors match no character */
			may_be_empty = p[1] && strchr("bB<>`'", p[1]) != NULL;
			if (p[1] >= '1' && p[1] <= '9') {
				snprintf(msg, cap, "back-references (\\%c) are not supported",
					 p[1]);
				return -1;
			}
			p += p[1] ? 2 : 1;
			break;
		case '[': {
			const char *e = bracket_end(p);

			if (!e)
				return 0; /* unbalanced: regcomp reports it */
			p = e + 1;
			break;
		}
		case '(':
			if (depth == MAX_DEPTH) {
				snprintf(msg, cap, "groups nested deeper than %d", MAX_DEPTH);
				return -1;
			}
			worst[++depth] = 1;
			empty[depth] = 0;
			alt_empty[depth] = 1;
			p++;
			continue;
		case ')':
			if (depth > 0) { /* else an ordinary character, for glibc as for POSIX */
				may_be_empty = empty[depth] || alt_empty[depth];
				inner = worst[depth--];
			}
			p++;
			break;
		case '|':
			empty[depth] |= alt_empty[depth];
			alt_empty[depth] = 1;
			p++;
			continue;
		case '^':
		case '$': /* match no character */
			may_be_empty = 1;
			p++;
			break;
		default: p++; break;
		}
		/* what was just read (an atom or a group) may be repeated, even several times */
		while (*p == '*' || *p == '?' || *p == '+' || *p == '{') {
			const char *op = p;

			f = repeat(&p, &least, &bad);
			if (p == op)
				break; /* a '{' that does not start an interval */
			/* a repetition of what may match nothing ("x**", "(a*)*", "(a|b*)+"):
			 * glibc's closures double with each (20 of them took a second) */
			if (may_be_empty && ++empties > REGEX_GUARD_MAX_EMPTY_REPEATS) {
				snprintf(msg, cap,
					 "more than %d repetitions of what may match nothing "
					 "(as in x** or (a*)*)",
					 REGEX_GUARD_MAX_EMPTY_REPEATS);
				return -1;
			}
			may_be_empty = may_be_empty || !least;
			inner = bad || inner > REGEX_GUARD_MAX_COPIES / f
					? REGEX_GUARD_MAX_COPIES + 1
					: inner * f;
			if (inner > REGEX_GUARD_MAX_COPIES)
				break;
		}
		if (inner > REGEX_GUARD_MAX_COPIES) {
			snprintf(msg, cap, "repetitions multiply to more than %d copies",
				 REGEX_GUARD_MAX_COPIES);
			return -1;
		}
		if (inner > worst[depth])
			worst[depth] = inner;
		alt_empty[depth] &= (unsigned char)may_be_empty;
	}
	return 0;
}
