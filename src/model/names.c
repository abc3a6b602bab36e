/* names.c — demangling and short display names (see names.h). */
#include "fusediff/names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fusediff/util.h"

#ifdef HAVE_CXA_DEMANGLE
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

char *names_demangle(const char *name)
{
#ifdef HAVE_CXA_DEMANGLE
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
#else
	(void)name;
	return NULL;
#endif
}

static int is_ident(int ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* The identifier in s[0..len) that best says what a generic kernel template does, or NULL. */
static const char *telling_arg(const char *s, size_t len, size_t *outlen)
{
	static const char *const suffixes[] = { "_kernel_cuda", "Functor", "Ops", "_kernel", "Op" };
	const char *best = NULL;
	size_t best_len = 0;
	int best_rank = 99;

	for (size_t i = 0; i < len;) {
		size_t j = i;

		if (!is_ident(s[i]) || (i > 0 && is_ident(s[i - 1]))) {
			i++;
			continue;
		}
		while (j < len && is_ident(s[j]))
			j++;
		for (int r = 0; r < 5; r++) {
			size_t sl = strlen(suffixes[r]);

			if (j - i > sl && memcmp(s + j - sl, suffixes[r], sl) == 0 && r < best_rank) {
				/* skip plumbing names */
				if ((j - i == 15 && memcmp(s + i, "gpu_kernel_impl", 15) == 0) ||
				    (j - i >= 8 && memcmp(s + i, "launch_", 7) == 0))
					break;
				best = s + i;
				best_len = j - i;
				best_rank = r;
				break;
			}
		}
		i = j;
	}
	*outlen = best_len;
	return best;
}

static void append(char *buf, size_t cap, size_t *n, const char *s, size_t len)
{
	if (!cap)
		return;
	if (*n + len >= cap)
		len = cap - 1 - *n;
	memcpy(buf + *n, s, len);
	*n += len;
	buf[*n] = '\0';
}

char *names_short(const char *name, char *buf, size_t cap)
{
	const char *p = name, *end, *base, *targs = NULL, *targs_end = NULL;
	size_t n = 0;
	int depth = 0;

	if (!cap)
		return buf;
	buf[0] = '\0';
	/* return type: "void " and friends before the first space at depth 0 */
	if (strncmp(p, "void ", 5) == 0)
		p += 5;
	/* scan to the parameter list at template depth 0 */
	base = p;
	for (end = p; *end; end++) {
		if (*end == '<') {
			if (depth == 0)
				targs = end + 1;
			depth++;
		} else if (*end == '>' && depth > 0) {
			depth--;
			if (depth == 0)
				targs_end = end;
		} else if (depth == 0 && *end == '(') {
			if (strncmp(end, "(anonymous namespace)::", 23) == 0) {
				end += 22;
				base = end + 1;
				continue;
			}
			break;
		} else if (depth == 0 && *end == ':' && end[1] == ':') {
			base = end + 2;
			end++;
			targs = targs_end = NULL;
		} else if (depth == 0 && *end == ' ') {
			/* a return type other than void */
			base = end + 1;
			targs = targs_end = NULL;
		}
	}
	/* base..(first '<' or end) is the unqualified name */
	{
		const char *q = base;

		while (q < end && *q != '<')
			q++;
		append(buf, cap, &n, base, (size_t)(q - base));
	}
	if (targs && targs_end && targs_end > targs) {
		size_t tl;
		const char *t = telling_arg(targs, (size_t)(targs_end - targs), &tl);

		if (!t && n < 12 && (strstr(buf, "Kernel") || strstr(buf, "kernel"))) {
			/* generic wrapper (cutlass::Kernel2<...>): show its first template argument */
			t = targs;
			while (t < targs_end && !is_ident(*t))
				t++;
			tl = 0;
			while (t + tl < targs_end && (is_ident(t[tl]) || t[tl] == ':'))
				tl++;
		}
		if (t && tl) {
			append(buf, cap, &n, "<", 1);
			append(buf, cap, &n, t, tl);
			append(buf, cap, &n, ">", 1);
		}
	}
	if (n == 0)
		append(buf, cap, &n, name, strlen(name));
	return buf;
}
