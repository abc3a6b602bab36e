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

#define ANON "(anonymous namespace)"

/* Past a return type that is an enable_if: "std::enable_if<(((8)>(0)))&&...::exists,
 * void>::type vllm::fused_add_rms_norm_kernel<...>(...)", and the form nsys prints, whose
 * brackets do not even pair ("std::enable_if<T2>(int)0&&vllm::_typeConvert<T1>::exists,
 * void>::type vllm::..."): the kernel's own name starts after ">::type ". */
static const char *skip_enable_if(const char *p)
{
	static const char ei[] = "std::enable_if<", ty[] = ">::type ";
	const char *q;

	if (strncmp(p, ei, sizeof ei - 1) != 0 || !(q = strstr(p, ty)))
		return p;
	return q + sizeof ty - 1;
}

/* Template brackets: '<' and '>' count only outside parentheses within template arguments,
 * where an expression may compare ("enable_if<(((8)>(0)))&&...>"). Returns the new depth of
 * angle brackets; *paren is the depth of parentheses inside them. */
static int angle_step(char ch, int angle, int *paren)
{
	if (angle > 0 && ch == '(')
		++*paren;
	else if (angle > 0 && ch == ')' && *paren > 0)
		--*paren;
	else if (ch == '<' && *paren == 0)
		angle++;
	else if (ch == '>' && *paren == 0 && angle > 0 && --angle == 0)
		*paren = 0;
	return angle;
}

void names_parse(const char *name, struct name_parts *out)
{
	const char *p = name, *comp, *ns_end = NULL, *end, *space = NULL;
	int angle = 0, paren = 0;

	memset(out, 0, sizeof *out);
	if (strncmp(p, "void ", 5) == 0)
		p += 5;
	p = skip_enable_if(p);
	comp = p;
	/* components at template depth 0, up to the parameter list */
	for (end = p; *end; end++) {
		if (end == comp && strncmp(end, "<unnamed>::", 11) == 0) {
			/* nsys's anonymous namespace: a component of its own */
			ns_end = end + 9;
			comp = end + 11;
			end += 10;
		} else if (*end == '<' || *end == '>' ||
			   (angle > 0 && (*end == '(' || *end == ')'))) {
			angle = angle_step(*end, angle, &paren);
		} else if (angle == 0 && *end == '(') {
			if (strncmp(end, ANON "::", sizeof ANON + 1) == 0) {
				/* a component of its own: the namespace goes on after it */
				ns_end = end + sizeof ANON - 1;
				comp = ns_end + 2;
				end = ns_end + 1;
				continue;
			}
			/* a parameter list follows an identifier or a template's '>' */
			if (end > p && (is_ident(end[-1]) || end[-1] == '>'))
				break;
		} else if (angle == 0 && *end == ' ') {
			space = end;
		} else if (angle == 0 && *end == ':' && end[1] == ':') {
			if (space) {
				/* what came before the blank was a return type
				 * ("std::enable_if<...>::type vllm::rms_norm_kernel") */
				p = space + 1;
				space = NULL;
			}
			ns_end = end;
			comp = end + 2;
			end++;
		}
	}
	if (!ns_end) {
		/* a plain name ("Cijk_...", "Memcpy HtoD (Host -> Device)") or one function */
		const char *q = p;

		while (q < end && *q != '<')
			q++;
		out->func = p;
		out->func_len = (size_t)(q - p);
		while (out->func_len && out->func[out->func_len - 1] == ' ')
			out->func_len--;
		if (q < end) {
			out->targs = q + 1;
			out->targs_len = (size_t)(end - q - 1);
			if (out->targs_len && end[-1] == '>')
				out->targs_len--;
		}
		return;
	}
	out->ns = p;
	out->ns_len = (size_t)(ns_end - p);
	/* an "(anonymous namespace)" component in the middle stays in ns: it is harmless there,
	 * but one in front is skipped */
	if (out->ns_len == sizeof ANON - 1 && strncmp(out->ns, ANON, sizeof ANON - 1) == 0) {
		out->ns_len = 0;
	} else if (out->ns_len > sizeof ANON + 1 &&
		   strncmp(out->ns, ANON "::", sizeof ANON + 1) == 0) {
		out->ns += sizeof ANON + 1;
		out->ns_len -= sizeof ANON + 1;
	}
	out->func = comp;
	{
		const char *q = comp;

		while (q < end && *q != '<')
			q++;
		out->func_len = (size_t)(q - comp);
		if (q < end) {
			/* the template arguments: to the matching '>' */
			const char *a = q + 1, *z = a;
			int d = 1, pd = 0;

			for (; z < end; z++)
				if ((d = angle_step(*z, d, &pd)) == 0)
					break;
			out->targs = a;
			out->targs_len = (size_t)(z - a);
		}
	}
}

/* The identifier in s[0..len) that best says what a generic kernel template does, or NULL. */
static const char *telling_arg(const char *s, size_t len, size_t *outlen)
{
#define W(x)                    \
	{                       \
		x, sizeof x - 1 \
	}
	static const struct {
		const char *s;
		size_t n;
	} suffixes[] = { W("_kernel_cuda"), W("Functor"),    W("_functor"), W("Ops"),
			 W("_kernel_impl"), W("KernelImpl"), W("_kernel"),  W("Op") },
	  /* wrappers that only carry the telling functor inside them */
		plumbing[] = {
			W("gpu_kernel_impl"), W("BinaryFunctor"),  W("AUnaryFunctor"),
			W("BUnaryFunctor"),   W("UnaryOpFunctor"), W("gpu_index_kernel"),
			W("func_wrapper_t"),  W("ReduceOp"),
		};
#undef W
	const int n_suffixes = (int)(sizeof suffixes / sizeof suffixes[0]);
	const char *best = NULL;
	size_t best_len = 0;
	int best_rank = 99;

	for (size_t i = 0; i < len;) {
		size_t j = i, n;
		int skip;

		if (!is_ident(s[i]) || (i > 0 && is_ident(s[i - 1]))) {
			i++;
			continue;
		}
		while (j < len && is_ident(s[j]))
			j++;
		n = j - i;
		if (n > 11 && memcmp(s + i, "CUDAFunctor", 11) == 0 && best_rank > 1) {
			/* CUDAFunctor_add, CUDAFunctorOnSelf_add */
			best = s + i;
			best_len = n;
			best_rank = 1;
		}
		skip = n >= 8 && memcmp(s + i, "launch_", 7) == 0;
		for (size_t k = 0; !skip && k < sizeof plumbing / sizeof plumbing[0]; k++)
			skip = plumbing[k].n == n && memcmp(s + i, plumbing[k].s, n) == 0;
		for (int r = 0; !skip && r < best_rank && r < n_suffixes; r++)
			if (n > suffixes[r].n &&
			    memcmp(s + j - suffixes[r].n, suffixes[r].s, suffixes[r].n) == 0) {
				best = s + i;
				best_len = n;
				best_rank = r;
				break;
			}
		i = j;
	}
	*outlen = best_len;
	return best;
}

/* The identifiers before a parameter list that are not the function a lambda belongs to. */
static int plumbing_fn(const char *s, size_t n)
{
	static const char *const skip[] = { "anonymous",       "lambda",
					    "operator",	       "apply",
					    "gpu_kernel_impl", "gpu_kernel_impl_nocast",
					    "gpu_index_kernel" };

	for (size_t k = 0; k < sizeof skip / sizeof skip[0]; k++)
		if (strlen(skip[k]) == n && memcmp(s, skip[k], n) == 0)
			return 1;
	return 0;
}

/* The function whose lambda a generic template runs, when no functor tells more
 * ("launch_clamp_scalar(at::TensorIteratorBase&, ...)::{lambda()#1}": "clamp_scalar",
 * "fbgemm_gpu::_float_to_hfp8_gpu(...)::{lambda(float)#1}": "_float_to_hfp8_gpu",
 * "GroupNormKernelImplInternal<float>(...)::{lambda(float)#1}": "GroupNormKernelImplInternal"),
 * or NULL. */
static const char *lambda_function(const char *s, size_t len, size_t *outlen)
{
	for (size_t i = 0; i < len;) {
		size_t j = i;

		if (!is_ident(s[i]) || (i > 0 && is_ident(s[i - 1]))) {
			i++;
			continue;
		}
		size_t k;

		while (j < len && is_ident(s[j]))
			j++;
		k = j;
		if (k < len && s[k] == '<') { /* a function template: past its arguments */
			int d = 0;

			for (; k < len; k++)
				if (s[k] == '<')
					d++;
				else if (s[k] == '>' && --d == 0)
					break;
			k++;
		}
		if (k < len && s[k] == '(' && !plumbing_fn(s + i, j - i)) {
			if (j - i > 7 && memcmp(s + i, "launch_", 7) == 0)
				i += 7;
			*outlen = j - i;
			return s + i;
		}
		i = j;
	}
	return NULL;
}

/* The length of a telling argument shown: without the suffix that every aten kernel function
 * shares ("cos_kernel_cuda": "cos", "where_kernel_impl": "where"), so that a name cut in the
 * middle still ends with what tells it apart. */
static size_t telling_len(const char *t, size_t len)
{
	static const char *const noise[] = { "_kernel_cuda", "_kernel_impl", "_kernel" };

	for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++) {
		size_t nl = strlen(noise[k]);

		if (len > nl + 1 && memcmp(t + len - nl, noise[k], nl) == 0)
			return len - nl;
	}
	return len;
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

/* --- template arguments ----------------------------------------------------------------- */

/* The end of one mangled type or template argument at p, or NULL when it is not one we can
 * read (a tolerant subset of the Itanium grammar: enough to count arguments). */
static const char *mangled_skip(const char *p, int depth);

static const char *mangled_skip_args(const char *p, int depth)
{
	/* p at 'I': arguments up to the matching 'E' */
	p++;
	while (p && *p && *p != 'E')
		p = mangled_skip(p, depth + 1);
	return p && *p == 'E' ? p + 1 : NULL;
}

static const char *mangled_skip(const char *p, int depth)
{
	if (!p || depth > 32)
		return NULL;
	switch (*p) {
	case 'K':
	case 'V':
	case 'r':
	case 'P':
	case 'R':
	case 'O': return mangled_skip(p + 1, depth + 1);
	case 'L': { /* a literal: L <type> <value> E, or L _Z <encoding> E */
		int d = 0;

		for (p++; *p; p++) {
			if (*p == 'E' && d == 0)
				return p + 1;
			if (*p == 'I' || *p == 'N' || *p == 'X')
				d++;
			else if (*p == 'E')
				d--;
		}
		return NULL;
	}
	case 'X': { /* an expression, to its matching E */
		int d = 0;

		for (p++; *p; p++) {
			if (*p == 'E' && d == 0)
				return p + 1;
			if (*p == 'I' || *p == 'N' || *p == 'X' || *p == 'L')
				d++;
			else if (*p == 'E')
				d--;
		}
		return NULL;
	}
	case 'N': { /* a nested name, to its E */
		for (p++; p && *p && *p != 'E';) {
			if (*p == 'K' || *p == 'V' || *p == 'r')
				p++;
			else if (*p == 'I')
				p = mangled_skip_args(p, depth);
			else if (*p == 'S')
				p = mangled_skip(p, depth + 1);
			else if (*p >= '0' && *p <= '9') {
				const char *id;

				if (!mangled_ident(&p, &id))
					return NULL;
			} else
				return NULL;
		}
		return p && *p == 'E' ? p + 1 : NULL;
	}
	case 'S': /* a substitution: S_, S<seq>_, St<name>, Sa, Ss, ... */
		if (p[1] == 't') {
			const char *id;

			p += 2;
			if (!mangled_ident(&p, &id))
				return NULL;
		} else if (p[1] >= 'a' && p[1] <= 'z') {
			p += 2;
		} else {
			p++;
			while (*p && *p != '_')
				p++;
			if (*p != '_')
				return NULL;
			p++;
		}
		return *p == 'I' ? mangled_skip_args(p, depth) : p;
	case 'T': /* a template parameter: T_, T<n>_ */
		p++;
		while (*p && *p != '_')
			p++;
		return *p == '_' ? p + 1 : NULL;
	case 'D': /* DF16b, DF16_, Dh, Dn, Da, Dc, ... */
		p++;
		if (*p == 'F') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p == 'b' || *p == '_' || *p == 'x')
				p++;
			return p;
		}
		return *p ? p + 1 : NULL;
	default:
		if (*p >= '0' && *p <= '9') {
			const char *id;

			if (!mangled_ident(&p, &id))
				return NULL;
			return *p == 'I' ? mangled_skip_args(p, depth) : p;
		}
		if (*p >= 'a' && *p <= 'z')
			return p + 1; /* a builtin type */
		return NULL;
	}
}

int names_template_args(const char *name, const struct name_parts *parts, const char **args,
			size_t *lens, int max)
{
	int n = 0;

	if (strncmp(name, "_Z", 2) == 0) {
		/* the first template argument list after the leading names */
		const char *p = name + 2, *id;

		if (*p == 'L')
			p++;
		if (*p == 'N') {
			p++;
			while (*p == 'K' || *p == 'V' || *p == 'r')
				p++;
		}
		while (mangled_ident(&p, &id))
			;
		if (*p != 'I')
			return -1;
		for (p++; *p && *p != 'E' && n < max; n++) {
			const char *e = mangled_skip(p, 0);

			if (!e)
				return -1;
			args[n] = p;
			lens[n] = (size_t)(e - p);
			p = e;
		}
		return n;
	}
	if (!parts->targs_len)
		return 0;
	{
		const char *p = parts->targs, *end = p + parts->targs_len, *start = p;
		int angle = 0, paren = 0;

		for (; p <= end && n < max; p++) {
			if (p == end || (*p == ',' && angle == 0 && paren == 0)) {
				while (start < p && *start == ' ')
					start++;
				args[n] = start;
				lens[n++] = (size_t)(p - start);
				start = p + 1;
			} else if (*p == '<')
				angle++;
			else if (*p == '>' && angle > 0)
				angle--;
			else if (*p == '(')
				paren++;
			else if (*p == ')' && paren > 0)
				paren--;
		}
	}
	return n;
}

int names_targ_flag(const char *a, size_t len)
{
	size_t i = 0;
	int any = 0, nonzero = 0;

	if (len == 4 && memcmp(a, "true", 4) == 0)
		return 1;
	if (len == 5 && memcmp(a, "false", 5) == 0)
		return 0;
	if (len >= 4 && a[0] == 'L' && a[len - 1] == 'E') { /* Lb1E, Li256E, Lj0E */
		i = 2;
		len--;
	} else if (len > 0 && a[0] == '(') { /* (ck_tile::Rmsnorm2dFusedQuantEnum)1 */
		while (i < len && a[i] != ')')
			i++;
		i++;
	}
	if (i < len && a[i] == '-')
		i++;
	for (; i < len; i++) {
		if (a[i] < '0' || a[i] > '9')
			return (a[i] == 'u' || a[i] == 'l') && any ? nonzero : -1;
		any = 1;
		nonzero |= a[i] != '0';
	}
	return any ? nonzero : -1;
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
	int depth = 0, paren = 0;

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
	p = skip_enable_if(p);
	/* scan to the parameter list at template depth 0 */
	base = p;
	for (end = p; *end; end++) {
		if (*end == '<' || *end == '>' || (depth > 0 && (*end == '(' || *end == ')'))) {
			int was = depth;

			depth = angle_step(*end, depth, &paren);
			if (was == 0 && depth == 1)
				targs = end + 1;
			else if (was == 1 && depth == 0)
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
		if (((q - base == 7 && strncmp(base, "Kernel2", 7) == 0) ||
		     (q - base == 6 && strncmp(base, "Kernel", 6) == 0)) &&
		    targs && strncmp(targs, "cutlass_", 8) == 0) {
			/* cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_
			 * align8>: the argument is the name (its tile and op tell GEMMs apart) */
			size_t tl = 0;

			while (targs + tl < targs_end && is_ident(targs[tl]))
				tl++;
			append(buf, cap, &n, targs, tl);
			return buf;
		} else if ((q - base == 6 && strncasecmp(base, "kernel", 6) == 0) && prev &&
			   prev < base) {
			/* "internal::gemvx::kernel": the namespace says what it is */
			append(buf, cap, &n, prev, (size_t)(q - prev));
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
		if (!t)
			t = lambda_function(targs, (size_t)(targs_end - targs), &tl);
		if (t && tl) {
			append(buf, cap, &n, "<", 1);
			append(buf, cap, &n, t, telling_len(t, tl));
			append(buf, cap, &n, ">", 1);
		}
	}
	if (n == 0)
		append(buf, cap, &n, name, strlen(name));
	return buf;
}
