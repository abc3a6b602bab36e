/* names.c — demangling and short display names (see names.h). */
#include "fusediff/names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	static const char *const suffixes[] = { "_kernel_cuda", "Functor",    "_functor", "Ops",
						"_kernel_impl", "KernelImpl", "_kernel",  "Op" };
	/* wrappers that only carry the telling functor inside them */
	static const char *const plumbing[] = {
		"gpu_kernel_impl", "BinaryFunctor",    "AUnaryFunctor",	 "BUnaryFunctor",
		"UnaryOpFunctor",  "gpu_index_kernel", "func_wrapper_t", "ReduceOp",
	};
	const int n_suffixes = (int)(sizeof suffixes / sizeof suffixes[0]);
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
		if (j - i > 11 && memcmp(s + i, "CUDAFunctor", 11) == 0 && best_rank > 1) {
			/* CUDAFunctor_add, CUDAFunctorOnSelf_add */
			best = s + i;
			best_len = j - i;
			best_rank = 1;
		}
		for (int r = 0; r < n_suffixes; r++) {
			size_t sl = strlen(suffixes[r]);
			int skip = j - i >= 8 && memcmp(s + i, "launch_", 7) == 0;

			for (size_t k = 0; k < sizeof plumbing / sizeof plumbing[0]; k++)
				if (strlen(plumbing[k]) == j - i &&
				    memcmp(s + i, plumbing[k], j - i) == 0)
					skip = 1;
			if (skip)
				break;
			if (j - i > sl && memcmp(s + j - sl, suffixes[r], sl) == 0 &&
			    r < best_rank) {
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

/* Read a <source-name> (decimal length, identifier) at *p; its length, or 0. */
static size_t mangled_ident(const char **p, const char **id)
{
	size_t len = 0;
	const char *q = *p;

	if (*q < '1' || *q > '9')
		return 0;
	while (*q >= '0' && *q <= '9' && len < 4096)
		len = len * 10 + (size_t)(*q++ - '0');
	if (strnlen(q, len) < len)
		return 0;
	*id = q;
	*p = q + len;
	return len;
}

/* A short name for a mangled name that the demangler rejected (new manglings such as DF16b
 * or Tn, or a name the profiler truncated): the last component of its leading nested name,
 * and the telling identifier among the rest ("act_and_mul_kernel<silu>"). 0 when the name
 * does not even start like a mangled name. */
static int short_from_mangled(const char *name, char *buf, size_t cap)
{
	static const char *const acts[] = { "silu", "gelu", "gelu_tanh", "relu", "swiglu" };
	const char *p = name + 2, *id = NULL, *last = NULL, *tell = NULL;
	size_t len, last_len = 0, tell_len = 0, n = 0;

	if (*p == 'L')
		p++;
	if (*p == 'N') {
		p++;
		while (*p == 'K' || *p == 'V' || *p == 'r')
			p++;
	}
	if (p[0] == 'S' && p[1] == 't')
		p += 2;
	while ((len = mangled_ident(&p, &id))) {
		last = id;
		last_len = len;
	}
	if (!last)
		return 0;
	/* identifiers in the template arguments and parameters */
	for (const char *q = p; *q;) {
		const char *t = q;

		if ((len = mangled_ident(&q, &id)) == 0) {
			q = t + 1;
			continue;
		}
		for (size_t k = 0; !tell && k < sizeof acts / sizeof acts[0]; k++)
			if (strlen(acts[k]) == len && memcmp(id, acts[k], len) == 0) {
				tell = id;
				tell_len = len;
			}
		if (!tell) {
			size_t tl;
			const char *tt = telling_arg(id, len, &tl);

			if (tt && tl == len) {
				tell = tt;
				tell_len = tl;
			}
		}
	}
	append(buf, cap, &n, last, last_len);
	if (tell) {
		append(buf, cap, &n, "<", 1);
		append(buf, cap, &n, tell, tell_len);
		append(buf, cap, &n, ">", 1);
	}
	return 1;
}

/* hipBLASLt/Tensile: "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x16x128_MI16x16x1_..."
 * -> "Cijk_Alik_Bljk_BBS_BH_..._MT64x16x128": the layout and types, and the macro tile. */
static int short_tensile(const char *name, char *buf, size_t cap)
{
	static const char *const stop[] = { "Bias", "HA", "SAV", "UserArgs", "S", "SN" };
	const char *p = name, *mt = NULL, *head_end = NULL;
	size_t n = 0;

	if (strncmp(p, "Custom_", 7) == 0)
		p += 7;
	if (strncmp(p, "Cijk_", 5) != 0)
		return 0;
	for (const char *f = p; *f;) {
		size_t len = strcspn(f, "_");

		if (!head_end) {
			for (size_t k = 0; k < sizeof stop / sizeof stop[0]; k++)
				if (strlen(stop[k]) == len && memcmp(f, stop[k], len) == 0)
					head_end = f - 1;
			if (len > 2 && f[0] == 'M' && f[1] == 'T')
				head_end = f - 1;
		}
		if (!mt && len > 2 && f[0] == 'M' && f[1] == 'T' && f[2] >= '0' && f[2] <= '9') {
			mt = f;
			append(buf, cap, &n, name, (size_t)((head_end ? head_end : f - 1) - name));
			if (head_end && head_end < f - 1)
				append(buf, cap, &n, "_...", 4);
			append(buf, cap, &n, "_", 1);
			append(buf, cap, &n, f, len);
			return 1;
		}
		f += len;
		if (*f)
			f++;
	}
	return 0;
}

/* CuTe DSL kernels (flashinfer): "kernel_cutlass_kernel_flashinfernormkernelsfused_add_rmsnorm
 * FusedAddRMSNormKernel_object_at__tensorptr..." -> "FusedAddRMSNormKernel". */
static int short_cute_dsl(const char *name, char *buf, size_t cap)
{
	const char *end = strstr(name, "_object_at_"), *start, *p;
	size_t n = 0;

	if (strncmp(name, "kernel_cutlass_", 15) != 0 || !end)
		return 0;
	start = name + 15;
	for (p = start; p < end; p++)
		if (*p == '_')
			start = p + 1;
	while (start < end && !isupper((unsigned char)*start))
		start++;
	if (start == end)
		return 0;
	append(buf, cap, &n, start, (size_t)(end - start));
	return 1;
}

/* CUTLASS 3 device kernels: "device_kernel<GemmUniversal, GroupProblemShape, Cooperative>",
 * from the identifiers in the name, which may be mangled and truncated. */
static int short_cutlass3(const char *name, char *buf, size_t cap)
{
	static const char *const words[][2] = {
		{ "GemmUniversal", "GemmUniversal" },
		{ "GroupProblemShape", "GroupProblemShape" },
		{ "Cooperative", "Cooperative" },
		{ "Pingpong", "Pingpong" },
		{ "StreamK", "StreamK" },
	};
	size_t n = 0, k;
	int any = 0;

	if (!strstr(name, "device_kernel") || !strstr(name, "cutlass"))
		return 0;
	append(buf, cap, &n, "device_kernel<", 14);
	for (k = 0; k < sizeof words / sizeof words[0]; k++)
		if (strstr(name, words[k][0])) {
			if (any)
				append(buf, cap, &n, ", ", 2);
			append(buf, cap, &n, words[k][1], strlen(words[k][1]));
			any = 1;
		}
	if (!any)
		return buf[0] = '\0', 0;
	append(buf, cap, &n, ">", 1);
	return 1;
}

char *names_short(const char *name, char *buf, size_t cap)
{
	const char *p = name, *end, *base, *prev = NULL, *targs = NULL, *targs_end = NULL;
	size_t n = 0;
	int depth = 0;

	if (!cap)
		return buf;
	buf[0] = '\0';
	if (short_tensile(name, buf, cap) || short_cute_dsl(name, buf, cap) ||
	    short_cutlass3(name, buf, cap))
		return buf;
	if (strncmp(name, "_Z", 2) == 0 && short_from_mangled(name, buf, cap))
		return buf;
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
			prev = base;
			base = end + 2;
			end++;
			targs = targs_end = NULL;
		} else if (depth == 0 && *end == ' ') {
			/* a return type other than void */
			base = end + 1;
			prev = NULL;
			targs = targs_end = NULL;
		}
	}
	/* base..(first '<' or end) is the unqualified name */
	{
		const char *q = base;

		while (q < end && *q != '<')
			q++;
		if ((q - base == 6 && strncasecmp(base, "kernel", 6) == 0) && prev && prev < base) {
			/* "internal::gemvx::kernel": the namespace says what it is */
			append(buf, cap, &n, prev, (size_t)(q - prev));
		} else if (q - base == 7 && strncmp(base, "Kernel2", 7) == 0 && targs &&
			   strncmp(targs, "cutlass_", 8) == 0) {
			/* cutlass::Kernel2<cutlass_80_simt_sgemm_...>: the argument is the name */
			size_t tl = 0;

			while (targs + tl < targs_end && is_ident(targs[tl]))
				tl++;
			append(buf, cap, &n, targs, tl);
			return buf;
		} else {
			append(buf, cap, &n, base, (size_t)(q - base));
		}
	}
	if (targs && targs_end && targs_end > targs) {
		size_t tl;
		const char *t = telling_arg(targs, (size_t)(targs_end - targs), &tl);

		if (!t && n < 12 && (strstr(buf, "Kernel") || strstr(buf, "kernel"))) {
			/* generic wrapper (Kernel<...>): show its first template argument */
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
