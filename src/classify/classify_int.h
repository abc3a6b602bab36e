/* classify_int.h — internals shared by classify.c, rules_builtin.c and inductor.c. */
#ifndef FUSEDIFF_CLASSIFY_INT_H
#define FUSEDIFF_CLASSIFY_INT_H

#include "fusediff/classify.h"

#define A(x) ATOM_BIT(ATOM_##x)

/* One built-in rule: the kernel name matches pattern (POSIX ERE, searched anywhere in the
 * demangled name, and in the trace's own name when it was mangled); when op is not NULL the
 * launching operator's name must match it too. */
struct builtin_rule {
	uint8_t cls; /* enum op_class */
	atom_set atoms;
	const char *pattern;
	const char *op;	  /* NULL: any operator, or none */
	const char *prim; /* elementary eager op, or NULL */
	uint8_t aux, decode;
};

extern const struct builtin_rule classify_builtin_rules[];
extern const size_t classify_n_builtin_rules;

/* Decode an Inductor kernel name (triton_{poi,red,per,tem}_fused_<ops>_<N>) into class and
 * atoms. Returns 0 and fills cls/atoms, or -1 when name is not an Inductor kernel. */
int inductor_decode(const char *name, uint8_t *cls, atom_set *atoms);

/* The class that a set of atoms suggests for a fused kernel (rmsnorm -> Norm, ...). */
enum op_class classify_class_of_atoms(atom_set atoms);

#endif
