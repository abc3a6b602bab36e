/* rules.c — rule sets: compiled patterns, the rules files, matching with the literal
 * prefilter (literals.c). */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "classify_int.h"
#include "fusediff/regex_guard.h"

/* Names longer than this are matched on their first MATCH_MAX bytes: what a kernel is shows
 * early in its name, and regexec on megabyte names would cost seconds. */
#define MATCH_MAX 8192

/* Patterns are compiled and matched in the C locale, whatever the program's: kernel names are
 * ASCII identifiers, and case-insensitive matching in a multibyte locale costs regexec() a
 * wide-character copy of every name (half the time of classifying). The whole of classifying
 * runs in it too (classify_int.h): under tr_TR.UTF-8, tolower('I') is 'I' (its lower case is
 * the dotless i) and under tr_TR.ISO-8859-9 it is 0xfd, so the lower-case names that the
 * literal prefilter and the class names compare missed every capital I (203 of the 1908
 * names of families.tsv, upper-cased, changed class). */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t classify_locale_enter(void)
{
	pthread_once(&c_locale_once, make_c_locale);
	return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void classify_locale_leave(locale_t old)
{
	if (old)
		uselocale(old);
}

int rules_compile(regex_t *re, const char *pattern, char *msg, size_t cap)
{
	int rc;
	locale_t old;

	if (regex_guard(pattern, msg, cap) < 0)
		return -1;
	old = classify_locale_enter();
	rc = regcomp(re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	classify_locale_leave(old);
	if (rc != 0) {
		regerror(rc, re, msg, cap);
		regfree(re);
		return -1;
	}
	return 0;
}

static char *rule_describe(const char *origin, const char *pattern, const char *op, uint8_t cls,
			   atom_set atoms, int aux, int decode)
{
	char ab[256];

	return xasprintf("%s: /%s/%s%s%s -> %s %s%s%s", origin, pattern, op ? " op=/" : "",
			 op ? op : "", op ? "/" : "", class_name(cls),
			 atoms_format(atoms, "+", ab, sizeof ab), aux ? " aux" : "",
			 decode ? " decode" : "");
}

static void rule_free(struct rule *r)
{
	if (r->compiled) {
		regfree(&r->re);
		if (r->has_op)
			regfree(&r->op_re);
	}
	free(r->prim_owned);
	free(r->text);
	if (r->n_lits > 0)
		pattern_literals_free(r->lits, (size_t)r->n_lits);
}

void rules_free(struct rule_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		rule_free(&set->rules[i]);
	free(set->rules);
	chains_free(set->chains, set->n_chains);
	if (set->indexed)
		lit_index_free(&set->index);
	memset(set, 0, sizeof *set);
}

/* The rule of a built-in pattern (and op) with its literals. Its patterns are compiled when a
 * name first needs regexec() (rule_compiled()): most rules never do in a given trace (the
 * literal prefilter decides), and compiling all ~600 cost a third of the CPU of comparing two
 * small traces. */
static struct rule builtin(const char *pattern, const char *op)
{
	struct rule r = { 0 };

	r.pattern = pattern;
	r.op_pattern = op;
	r.has_op = op != NULL;
	r.n_lits = pattern_literals(pattern, &r.lits);
	return r;
}

/* r with its patterns compiled; a built-in pattern that does not compile is a bug: dies. The
 * lock is taken for every look (no double-checked flag: helgrind cannot see atomics order
 * memory); it is uncontended and taken only for names the literal prefilter leaves to
 * regexec(). */
static const struct rule *rule_compiled(const struct rule *r)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct rule *w = (struct rule *)r; /* the set is borrowed read-only, the rule is not */
	char msg[256];

	pthread_mutex_lock(&mu);
	if (!w->compiled) {
		if (rules_compile(&w->re, w->pattern, msg, sizeof msg) < 0)
			die("built-in rule: bad pattern /%s/: %s", w->pattern, msg);
		if (w->op_pattern && rules_compile(&w->op_re, w->op_pattern, msg, sizeof msg) < 0)
			die("built-in rule: bad operator pattern /%s/: %s", w->op_pattern, msg);
		w->compiled = 1;
	}
	pthread_mutex_unlock(&mu);
	return r;
}

void rules_add_builtin(struct rule_set *set, const struct builtin_rule *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rule r = builtin(b[i].pattern, b[i].op);

		r.cls = b[i].cls;
		r.atoms = b[i].atoms;
		r.aux = b[i].aux;
		r.decode = b[i].decode;
		r.generic = b[i].generic;
		r.prim = b[i].prim;
		r.text = rule_describe("built-in", b[i].pattern, b[i].op, b[i].cls, b[i].atoms,
				       b[i].aux, b[i].decode);
		VEC_PUSH(set->rules, set->n, set->cap, r);
	}
}

void rules_add_modifiers(struct rule_set *set, const struct builtin_modifier *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rule r = builtin(m[i].pattern, NULL);

		r.atoms = m[i].add;
		r.remove = m[i].remove;
		r.classes = m[i].classes;
		r.set_cls = m[i].set_cls;
		VEC_PUSH(set->rules, set->n, set->cap, r);
	}
}

void rules_index(struct rule_set *set)
{
	const struct pat_literal **lits = xcalloc(set->n ? set->n : 1, sizeof *lits);
	ssize_t *n_lits = xcalloc(set->n ? set->n : 1, sizeof *n_lits);

	for (size_t i = 0; i < set->n; i++) {
		lits[i] = set->rules[i].lits;
		n_lits[i] = set->rules[i].n_lits;
	}
	if (set->indexed)
		lit_index_free(&set->index);
	lit_index_build(&set->index, lits, n_lits, set->n);
	set->indexed = 1;
	free(lits);
	free(n_lits);
}

/* --- rules files -------------------------------------------------------------------------- */

/* Split the next blank-separated field off *p; NULL at the end of the line. */
static char *next_field(char **p)
{
	char *s = *p, *start;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	start = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return start;
}

/* A "chain" line (struct fusible_chain): its fields after the keyword into set->chains. */
static int parse_chain(char *p, const char *origin, struct rule_set *set, char *msg, size_t cap)
{
	char *f[CHAIN_MAX + 8];
	size_t n = 0;
	struct fusible_chain c;

	while (n < sizeof f / sizeof f[0] && (f[n] = next_field(&p)))
		n++;
	if (n == sizeof f / sizeof f[0] && next_field(&p)) {
		snprintf(msg, cap, "too many fields in a chain line");
		return -1;
	}
	if (chain_parse(f, n, origin, &c, msg, cap) < 0)
		return -1;
	VEC_PUSH(set->chains, set->n_chains, set->cap_chains, c);
	return 0;
}

/* Parse one rules line (comment and blank lines give 0 and no rule; a chain line goes to
 * set->chains and gives 0). Returns 1 with *out filled, 0 for nothing, -1 with msg set. */
static int parse_line(char *line, const char *origin, struct rule_set *set, struct rule *out,
		      char *msg, size_t cap)
{
	char *p = line, *fcls, *fatoms, *fre, *f, *op = NULL;
	char rmsg[256];
	int cls;
	atom_set atoms = 0;
	struct rule r = { 0 };

	/* a comment starts with # at the start of a field */
	for (char *q = line; *q; q++)
		if (*q == '#' && (q == line || q[-1] == ' ' || q[-1] == '\t')) {
			*q = '\0';
			break;
		}
	if (!(fcls = next_field(&p)))
		return 0;
	if (strcmp(fcls, "chain") == 0)
		return parse_chain(p, origin, set, msg, cap);
	fatoms = next_field(&p);
	fre = fatoms ? next_field(&p) : NULL;
	if (!fre) {
		snprintf(msg, cap, "expected CLASS ATOMS REGEX [FLAGS], got '%s'", fcls);
		return -1;
	}
	if ((cls = class_from_name(fcls)) < 0) {
		snprintf(msg, cap, "unknown class '%s'", fcls);
		return -1;
	}
	if (strcmp(fatoms, "-") != 0) {
		for (const char *a = fatoms; *a;) {
			size_t len = strcspn(a, "+,");
			int at = atom_from_name(a, len);

			if (at < 0) {
				snprintf(msg, cap, "unknown atom '%.*s'", (int)len, a);
				return -1;
			}
			atoms |= ATOM_BIT(at);
			a += len;
			if (*a)
				a++;
		}
	}
	r.cls = (uint8_t)cls;
	r.atoms = atoms;
	while ((f = next_field(&p))) {
		if (strcmp(f, "aux") == 0)
			r.aux = 1;
		else if (strcmp(f, "decode") == 0)
			r.decode = 1;
		else if (strncmp(f, "op=", 3) == 0 && f[3])
			op = f + 3;
		else if (strncmp(f, "prim=", 5) == 0 && f[5]) {
			free(r.prim_owned); /* a repeated prim= replaces the first */
			r.prim = r.prim_owned = xstrdup(f + 5);
		} else {
			snprintf(msg, cap, "unknown flag '%s' (expected %s)", f,
				 "aux, decode, op=REGEX or prim=NAME");
			free(r.prim_owned);
			return -1;
		}
	}
	if (rules_compile(&r.re, fre, rmsg, sizeof rmsg) < 0) {
		snprintf(msg, cap, "bad regular expression '%s': %s", fre, rmsg);
		free(r.prim_owned);
		return -1;
	}
	if (op) {
		if (rules_compile(&r.op_re, op, rmsg, sizeof rmsg) < 0) {
			snprintf(msg, cap, "bad regular expression '%s': %s", op, rmsg);
			regfree(&r.re);
			free(r.prim_owned);
			return -1;
		}
		r.has_op = 1;
	}
	r.compiled = 1; /* a user's patterns are checked as the file is read */
	r.n_lits = pattern_literals(fre, &r.lits);
	r.text = rule_describe(origin, fre, op, r.cls, r.atoms, r.aux, r.decode);
	*out = r;
	return 1;
}

/* Open a rules file for reading: only a regular file (a FIFO would block forever, a device
 * never end). NULL with errno, or EINVAL for another kind of file. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *fp;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	fp = fdopen(fd, "r");
	if (!fp)
		close(fd);
	return fp;
}

/* The longest line of a rules file: a rule is a class, atoms and a pattern of at most 1 KiB
 * (regex_guard()), so a longer line is a mistake, said without reading it into memory. */
#define RULES_LINE_MAX 65536

/* getline() that stops at RULES_LINE_MAX bytes: -2 for a longer line, -1 at the end. */
static ssize_t read_line(FILE *fp, char **line, size_t *cap)
{
	size_t n = 0;
	int ch;

	while ((ch = getc_unlocked(fp)) != EOF) {
		if (n + 2 > *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*line = xrealloc(*line, *cap);
		}
		(*line)[n++] = (char)ch;
		if (ch == '\n')
			break;
		if (n > RULES_LINE_MAX)
			return -2;
	}
	if (!n)
		return -1;
	(*line)[n] = '\0';
	return (ssize_t)n;
}

int rules_load_file(struct rule_set *set, const char *path, int missing_ok, struct fd_error *err)
{
	FILE *fp = open_regular(path);
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	long lineno = 0;
	int rc = 0;

	if (!fp) {
		if (missing_ok && errno == ENOENT)
			return 0;
		fd_error_set(err, "%s: %s", path,
			     errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	while ((errno = 0, len = read_line(fp, &line, &lcap)) >= 0) {
		char msg[512], *origin;
		struct rule r;
		int got;

		lineno++;
		if ((size_t)len != strlen(line)) {
			fd_error_set(err, "%s: line %ld: NUL byte in line", path, lineno);
			rc = -1;
			break;
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		origin = xasprintf("%s:%ld", path, lineno);
		got = parse_line(line, origin, set, &r, msg, sizeof msg);
		free(origin);
		if (got < 0) {
			fd_error_set(err, "%s: line %ld: %s", path, lineno, msg);
			rc = -1;
			break;
		}
		if (got)
			VEC_PUSH(set->rules, set->n, set->cap, r);
	}
	if (rc == 0 && len == -2) {
		fd_error_set(err, "%s: line %ld: longer than %d bytes: not a rule", path,
			     lineno + 1, RULES_LINE_MAX);
		rc = -1;
	} else if (rc == 0 && ferror(fp)) {
		fd_error_set(err, "%s: line %ld: %s", path, lineno + 1,
			     errno ? strerror(errno) : "read error");
		rc = -1;
	}
	free(line);
	fclose(fp);
	return rc;
}

/* --- matching ----------------------------------------------------------------------------- */

/* A lower-case copy of text (at most MATCH_MAX bytes) and the text regexec() sees. */
struct subject {
	const char *text; /* the original, cut to MATCH_MAX bytes */
	char *lower;
	size_t len;
	char *cut; /* owned copy when text was cut */
	uint8_t *state;
};

static void subject_open(struct subject *s, const struct rule_set *set, const char *text)
{
	size_t len = strlen(text);

	memset(s, 0, sizeof *s);
	if (len > MATCH_MAX) {
		len = MATCH_MAX;
		text = s->cut = xstrndup(text, len);
	}
	s->text = text;
	s->len = len;
	s->lower = xmalloc(len + 1);
	for (size_t i = 0; i < len; i++)
		s->lower[i] = (char)tolower((unsigned char)text[i]);
	s->lower[len] = '\0';
	s->state = xmalloc(set->n ? set->n : 1);
	lit_index_scan(&set->index, s->lower, len, s->state);
}

static void subject_close(struct subject *s)
{
	free(s->cut);
	free(s->lower);
	free(s->state);
}

static int subject_matches(const struct subject *s, const struct rule *r, size_t i)
{
	locale_t old;
	int rc;

	if (s->state[i] == LIT_MATCH)
		return 1;
	if (s->state[i] != LIT_TRY)
		return 0;
	r = rule_compiled(r);
	old = classify_locale_enter();
	rc = regexec(&r->re, s->text, 0, NULL, 0);
	classify_locale_leave(old);
	return rc == 0;
}

int rules_first(const struct rule_set *set, const char *text, const char *alt, const char *op)
{
	struct subject st, sa;
	int found = -1;

	if (!set->n || !text)
		return -1;
	subject_open(&st, set, text);
	if (alt)
		subject_open(&sa, set, alt);
	for (size_t i = 0; i < set->n && found < 0; i++) {
		const struct rule *r = &set->rules[i];

		if (!subject_matches(&st, r, i) && !(alt && subject_matches(&sa, r, i)))
			continue;
		if (r->has_op) {
			locale_t old;
			int rc;

			rule_compiled(r);
			old = classify_locale_enter();
			rc = op ? regexec(&r->op_re, op, 0, NULL, 0) : REG_NOMATCH;

			classify_locale_leave(old);
			if (rc != 0)
				continue;
		}
		found = (int)i;
	}
	subject_close(&st);
	if (alt)
		subject_close(&sa);
	return found;
}

void rules_each(const struct rule_set *set, const char *text,
		void (*fn)(const struct rule *r, void *user), void *user)
{
	struct subject st;

	if (!set->n || !text)
		return;
	subject_open(&st, set, text);
	for (size_t i = 0; i < set->n; i++)
		if (subject_matches(&st, &set->rules[i], i))
			fn(&set->rules[i], user);
	subject_close(&st);
}
