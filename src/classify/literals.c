/* literals.c — the literal prefilter of the classification rules (see classify_int.h).
 *
 * Every match of a pattern's top-level alternative contains that alternative's required
 * literal: a run of plain characters outside groups, brackets and repetitions ("norm" of
 * "rms_?norm[a-z]*"). An alternative made only of plain characters and at most three optional
 * ones ("add_?rms_?norm") is expanded into its exact forms instead ("addrmsnorm",
 * "add_rmsnorm", ...): finding one of them is a match, without regexec(). A name is scanned once
 * for all the literals of a rule set, through a table keyed by their first three characters;
 * only the rules with a hit (or without a literal) are tried with regexec(). Matching is
 * case-insensitive, like the rules (REG_ICASE): literals and names are compared in lower
 * case. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"

#define MIN_LIT	     3 /* the table's key length */
#define MAX_OPTIONAL 3 /* optional characters expanded into exact literals */
#define N_BUCKETS    1024

/* One parsed character of an alternative. */
struct item {
	char c;
	uint8_t kind; /* IT_LIT, IT_OPT (c?), IT_ANY (anything else) */
};
enum { IT_LIT, IT_OPT, IT_ANY };

/* The end of the bracket expression at p ('['), or the end of the string. */
static const char *skip_bracket(const char *p, const char *end)
{
	p++;
	if (p < end && *p == '^')
		p++;
	if (p < end && *p == ']')
		p++;
	while (p < end && *p != ']') {
		if (*p == '[' && p + 1 < end && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char k = p[1];

			p += 2;
			while (p + 1 < end && !(p[0] == k && p[1] == ']'))
				p++;
			p += 2;
		} else {
			p++;
		}
	}
	return p < end ? p + 1 : end;
}

/* The end of the group at p ('('), or the end of the string. */
static const char *skip_group(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '\\' && p + 1 < end)
			p += 2;
		else if (*p == '[')
			p = skip_bracket(p, end);
		else {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0)
				return p + 1;
			p++;
		}
	}
	return end;
}

static void add_lit(struct pat_literal **v, size_t *n, size_t *cap, const char *s, size_t len,
		    int exact, int at_start, int at_end)
{
	struct pat_literal l = { .len = len, .exact = (uint8_t)exact };

	l.text = xmalloc(len + 1);
	for (size_t i = 0; i < len; i++)
		l.text[i] = (char)tolower((unsigned char)s[i]);
	l.text[len] = '\0';
	l.at_start = (uint8_t)at_start;
	l.at_end = (uint8_t)at_end;
	VEC_PUSH(*v, *n, *cap, l);
}

/* The literals of one alternative [p, end) into v; 0, or -1 when it has none. */
static int alternative(const char *p, const char *end, struct pat_literal **v, size_t *n,
		       size_t *cap)
{
	struct item it[256];
	size_t ni = 0, n_opt = 0, best = 0, best_len = 0, best_items = 0;
	int at_start = 0, at_end = 0, plain = 1;

	if (p < end && *p == '^') {
		at_start = 1;
		p++;
	}
	while (p < end && ni < sizeof it / sizeof it[0]) {
		char ch = *p;

		if (ch == '$' && p + 1 == end) {
			at_end = 1;
			p++;
		} else if (ch == '\\' && p + 1 < end) {
			/* an escaped special character is plain; \w, \b and friends are not */
			if (isalnum((unsigned char)p[1]))
				it[ni++] = (struct item){ 0, IT_ANY };
			else
				it[ni++] = (struct item){ p[1], IT_LIT };
			p += 2;
		} else if (ch == '[') {
			it[ni++] = (struct item){ 0, IT_ANY };
			p = skip_bracket(p, end);
		} else if (ch == '(') {
			it[ni++] = (struct item){ 0, IT_ANY };
			p = skip_group(p, end);
		} else if (ch == '?' || ch == '*' || ch == '{' || ch == '+') {
			/* a repetition of the previous item */
			if (ni > 0 && it[ni - 1].kind == IT_LIT && ch == '?')
				it[ni - 1].kind = IT_OPT;
			else if (ni > 0 && ch != '+')
				it[ni - 1].kind = IT_ANY;
			if (ch == '+')
				it[ni++] =
					(struct item){ 0,
						       IT_ANY }; /* what follows is not adjacent */
			if (ch == '{')
				while (p < end && *p != '}')
					p++;
			p++;
		} else if (ch == '.' || ch == '^' || ch == '$' || ch == ')') {
			it[ni++] = (struct item){ 0, IT_ANY };
			p++;
		} else {
			it[ni++] = (struct item){ ch, IT_LIT };
			p++;
		}
	}
	if (p < end)
		return -1; /* too long to look at */
	for (size_t i = 0; i < ni; i++) {
		if (it[i].kind == IT_ANY)
			plain = 0;
		n_opt += it[i].kind == IT_OPT;
	}
	if (plain && n_opt <= MAX_OPTIONAL) {
		/* every form: each optional character in or out */
		char buf[256];
		int ok = 1;

		for (unsigned mask = 0; mask < (1u << n_opt); mask++) {
			size_t len = 0, k = 0;

			for (size_t i = 0; i < ni; i++) {
				if (it[i].kind == IT_OPT && !(mask & (1u << k++)))
					continue;
				buf[len++] = it[i].c;
			}
			if (len < MIN_LIT)
				ok = 0;
		}
		if (ok) {
			for (unsigned mask = 0; mask < (1u << n_opt); mask++) {
				size_t len = 0, k = 0;

				for (size_t i = 0; i < ni; i++) {
					if (it[i].kind == IT_OPT && !(mask & (1u << k++)))
						continue;
					buf[len++] = it[i].c;
				}
				add_lit(v, n, cap, buf, len, 1, at_start, at_end);
			}
			return 0;
		}
	}
	/* the run of plain and optional characters whose shortest form is longest: one of its
	 * forms is in every match */
	for (size_t i = 0; i < ni;) {
		size_t j = i, len = 0, opt = 0;

		while (j < ni && it[j].kind != IT_ANY) {
			len += it[j].kind == IT_LIT;
			opt += it[j].kind == IT_OPT;
			j++;
		}
		if (opt <= MAX_OPTIONAL && len > best_len) {
			best = i;
			best_len = len;
			n_opt = opt;
			best_items = j - i;
		}
		i = j > i ? j : i + 1;
	}
	if (best_len < MIN_LIT)
		return -1;
	{
		char buf[256];

		for (unsigned mask = 0; mask < (1u << n_opt); mask++) {
			size_t len = 0, k = 0;

			for (size_t x = best; x < best + best_items; x++) {
				if (it[x].kind == IT_OPT && !(mask & (1u << k++)))
					continue;
				buf[len++] = it[x].c;
			}
			add_lit(v, n, cap, buf, len, 0, 0, 0);
		}
	}
	return 0;
}

ssize_t pattern_literals(const char *pattern, struct pat_literal **out)
{
	const char *p = pattern, *start = pattern, *end = pattern + strlen(pattern);
	struct pat_literal *v = NULL;
	size_t n = 0, cap = 0;
	int none = 0;

	*out = NULL;
	/* split at the top-level '|' */
	while (p <= end) {
		if (p == end || *p == '|') {
			if (alternative(start, p, &v, &n, &cap) < 0)
				none = 1;
			start = p + 1;
			p++;
		} else if (*p == '\\' && p + 1 < end) {
			p += 2;
		} else if (*p == '[') {
			p = skip_bracket(p, end);
		} else if (*p == '(') {
			p = skip_group(p, end);
		} else {
			p++;
		}
	}
	if (none) {
		pattern_literals_free(v, n);
		return -1;
	}
	*out = v;
	return (ssize_t)n;
}

void pattern_literals_free(struct pat_literal *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

/* --- the index of a rule set -------------------------------------------------------------- */

static unsigned key3(const char *s)
{
	return ((unsigned)(unsigned char)s[0] * 31u * 31u + (unsigned)(unsigned char)s[1] * 31u +
		(unsigned)(unsigned char)s[2]) %
	       N_BUCKETS;
}

void lit_index_build(struct lit_index *x, const struct pat_literal *const *lits,
		     const ssize_t *n_lits, size_t n_rules)
{
	size_t total = 0;

	memset(x, 0, sizeof *x);
	x->n_rules = n_rules;
	x->always = xcalloc(n_rules ? n_rules : 1, 1);
	x->first = xcalloc(N_BUCKETS + 1, sizeof *x->first);
	for (size_t r = 0; r < n_rules; r++) {
		if (n_lits[r] < 0) {
			x->always[r] = 1;
			continue;
		}
		for (ssize_t i = 0; i < n_lits[r]; i++) {
			unsigned two = (unsigned)(unsigned char)lits[r][i].text[0] << 8 |
				       (unsigned char)lits[r][i].text[1];

			x->first[key3(lits[r][i].text) + 1]++;
			x->first2[two >> 3] |= (uint8_t)(1u << (two & 7));
		}
		total += (size_t)n_lits[r];
	}
	for (size_t b = 0; b < N_BUCKETS; b++)
		x->first[b + 1] += x->first[b];
	x->refs = xcalloc(total ? total : 1, sizeof *x->refs);
	{
		uint32_t *fill = xcalloc(N_BUCKETS, sizeof *fill);

		for (size_t r = 0; r < n_rules; r++)
			for (ssize_t i = 0; i < n_lits[r]; i++) {
				unsigned k = key3(lits[r][i].text);

				x->refs[x->first[k] + fill[k]++] =
					(struct lit_ref){ (uint32_t)r, &lits[r][i] };
			}
		free(fill);
	}
}

void lit_index_free(struct lit_index *x)
{
	free(x->always);
	free(x->first);
	free(x->refs);
	memset(x, 0, sizeof *x);
}

void lit_index_scan(const struct lit_index *x, const char *lower, size_t len, uint8_t *state)
{
	for (size_t r = 0; r < x->n_rules; r++)
		state[r] = x->always[r] ? LIT_TRY : LIT_NONE;
	for (size_t i = 0; i + MIN_LIT <= len; i++) {
		unsigned two = (unsigned)(unsigned char)lower[i] << 8 | (unsigned char)lower[i + 1],
			 k;

		if (!(x->first2[two >> 3] & (1u << (two & 7))))
			continue;
		k = key3(lower + i);

		for (uint32_t j = x->first[k]; j < x->first[k + 1]; j++) {
			const struct lit_ref *ref = &x->refs[j];
			const struct pat_literal *l = ref->lit;

			if (state[ref->rule] == LIT_MATCH || l->len > len - i ||
			    memcmp(lower + i, l->text, l->len) != 0)
				continue;
			if (l->exact && (!l->at_start || i == 0) &&
			    (!l->at_end || i + l->len == len))
				state[ref->rule] = LIT_MATCH;
			else if (!l->exact)
				state[ref->rule] = LIT_TRY;
		}
	}
}
