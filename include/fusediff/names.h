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

/* A short display name for a (demangled) kernel name: no return type, no parameter list, no
 * namespaces, template arguments dropped except the one that says what a generic kernel
 * does ("vectorized_elementwise_kernel<MulFunctor>", "Kernel2<cutlass_80_simt_sgemm_...>").
 * Writes at most cap bytes into buf, NUL-terminated; returns buf. */
char *names_short(const char *name, char *buf, size_t cap);

#endif
