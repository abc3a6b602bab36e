/* names.h — kernel names: demangling and the short form shown in tables.
 *
 * Every kernel has three names: the mangled one (when the trace recorded it mangled, as ROCm
 * does for many kernels), the full demangled one, and a short display name. Demangling
 * comes from libstdc++'s __cxa_demangle; names that defeat it are kept as they are. */
#ifndef FUSEDIFF_NAMES_H
#define FUSEDIFF_NAMES_H

#include <stddef.h>

/* The demangled form of a mangled C++ name ("_Z..."), or NULL when name is not mangled or
 * cannot be demangled. Owned by caller: free with free(). */
char *names_demangle(const char *name);

/* The parts of a (demangled) kernel name that say what it is, as pointers into the name:
 * "void moe::dev::routing::routingMainKernel<KernelParams<...>>(...)" has the namespace
 * "moe::dev::routing", the function "routingMainKernel" and the template arguments
 * "KernelParams<...>". "(anonymous namespace)" components are skipped. A name that is not a
 * C++ signature ("Cijk_Alik_...", "nvjet_tst_...", "Memcpy HtoD (Host -> Device)") is all
 * function, without a parameter list when it has one. */
struct name_parts {
	const char *ns, *func, *targs;
	size_t ns_len, func_len, targs_len; /* 0 when there is none */
};
void names_parse(const char *name, struct name_parts *out);

/* The template arguments of a kernel's function, split: from a demangled name's
 * "<a, b, ...>" (parts->targs), or from a mangled name's first template argument list
 * ("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELb1ELb0E...": "DF16b", "DF16b",
 * "Li256E", "Lb1E", "Lb0E", ...) when the demangler rejected it. Up to max arguments into
 * args/lens (pointers into the name). Returns how many, or -1 when they cannot be read. */
int names_template_args(const char *name, const struct name_parts *parts, const char **args,
			size_t *lens, int max);
/* The value of a template argument that is a number, a bool or an enum cast ("true", "0",
 * "(ck_tile::Rmsnorm2dFusedQuantEnum)1", mangled "Lb1E", "Li0E"): 0 or 1 (non-zero), or -1
 * when it is none of those. */
int names_targ_flag(const char *arg, size_t len);

/* A short display name for a (demangled) kernel name: no return type, no parameter list, no
 * namespaces, template arguments dropped except the one that says what a generic kernel
 * does ("vectorized_elementwise_kernel<MulFunctor>", "Kernel2<cutlass_80_simt_sgemm_...>").
 * Writes at most cap bytes into buf, NUL-terminated; returns buf. */
char *names_short(const char *name, char *buf, size_t cap);

#endif
