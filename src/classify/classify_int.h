/* classify_int.h — internals shared by the files of the classifier: the taxonomy, the rule
 * sets with their literal prefilter, the built-in tables and the Inductor decoder. */
#ifndef FUSEDIFF_CLASSIFY_INT_H
#define FUSEDIFF_CLASSIFY_INT_H

#include <locale.h>
#include <regex.h>
#include <sys/types.h>

#include "fusediff/classify.h"

/* The C locale for this thread (uselocale()), returning the one to put back with
 * classify_locale_leave(): classifying (the public functions of classify.h) and matching run
 * in it whatever the program's locale, so that case folding and character classes are
 * ASCII's (rules.c). */
locale_t classify_locale_enter(void);
void classify_locale_leave(locale_t old);

#define A(x) ATOM_BIT(ATOM_##x)

/* --- the built-in tables (rules_builtin.c) ------------------------------------------------ */

/* What a built-in rule's pattern is matched against. */
enum rule_field {
	IN_HEAD,   /* the kernel's namespace and function ("moe::dev::routing::routingKernel"),
		      with the template arguments for a generic launcher */
	IN_TARGS,  /* the template arguments only (modifiers) */
	IN_OP,	   /* the launching operator ("aten::convolution", "vllm::...") */
	IN_MODULE, /* the enclosing nn.Module classes, innermost first ("Conv2d < BasicBlock") */
};

/* One built-in rule: the field matches pattern (POSIX ERE, case-insensitive, anywhere); when
 * op is not NULL the launching operator must match it too. A family rule decides the class
 * and atoms; generic marks a rule that says only how the kernel is built (an elementwise
 * template without a functor that tells more): the operator or the module may then decide. */
struct builtin_rule {
	uint8_t cls; /* enum op_class */
	atom_set atoms;
	const char *pattern;
	const char *op;	  /* NULL: any operator, or none */
	const char *prim; /* elementary eager op, or NULL */
	uint8_t aux, decode, generic;
};

/* A modifier adds atoms to a kernel of one of the classes in mask (0: any) whose field
 * matches: the activation of a gated kernel, a backward pass. Every matching modifier
 * applies. */
struct builtin_modifier {
	uint8_t in;	  /* enum rule_field */
	uint32_t classes; /* bit (1u << enum op_class), 0: any */
	atom_set add, remove;
	const char *pattern;
	uint8_t set_cls; /* 1 + the class it puts the kernel in, 0: the class stays */
};

/* A template argument that switches fused work on or off: in a kernel whose function is func
 * and whose template has n_args arguments, argument index; or, with index -1, the value cast
 * to the enum type enum_name ("(ck_tile::Rmsnorm2dFusedQuantEnum)1") wherever it is. A
 * non-zero value gives the atoms, zero takes them away, whatever the name says. */
struct builtin_flag {
	const char *func;
	int n_args, index;
	const char *enum_name;
	atom_set atoms;
};
extern const struct builtin_flag classify_flags[];
extern const size_t classify_n_flags;

/* A library whose namespace selects a family table ("fbgemm_gpu::"): the name rules never see
 * its name (FBGEMM's "gemm" says nothing about a permute), the identifier after it decides,
 * first by the library's own rules (NULL: none), then by the name rules, then, when the
 * library is named after its one family, by default_cls (CLASS_COUNT: none). */
struct builtin_library {
	const char *ns;
	const struct builtin_rule *rules;
	size_t n_rules;
	uint8_t default_cls;
	atom_set default_atoms;
};
extern const struct builtin_library classify_libraries[];
extern const size_t classify_n_libraries;

/* Remove every library namespace prefix ("fbgemm_gpu::", "at::") from text, in place: in a demangled name where one starts an identifier path, in a mangled one
 * as its source name ("10fbgemm_gpu"). Returns the index in classify_libraries of the library
 * with a family table or family that was removed first, the kernel's own namespace before any
 * in its template arguments (a launcher's functor), or -1. */
int libraries_strip(char *text, size_t ns_len);

extern const struct builtin_rule classify_name_rules[]; /* IN_HEAD, first match */
extern const size_t classify_n_name_rules;
extern const struct builtin_rule classify_op_rules[]; /* IN_OP, first match */
extern const size_t classify_n_op_rules;
extern const struct builtin_rule classify_module_rules[]; /* IN_MODULE, first match */
extern const size_t classify_n_module_rules;
extern const struct builtin_modifier classify_modifiers[];
extern const size_t classify_n_modifiers;
/* Function names of generic launchers, whose template arguments are the kernel: NULL-ended. */
extern const char *const classify_launchers[];

/* The aten operators: the elementary op they are (prim) and, for a kernel whose name says
 * nothing specific, the class and atoms they imply. Looked up by the name without "aten::"
 * and without leading and trailing underscores ("aten::_index_put_impl_": "index_put_impl"). */
struct op_entry {
	const char *op, *prim;
	uint8_t cls;
	atom_set atoms;
};
extern const struct op_entry classify_aten_ops[];
extern const size_t classify_n_aten_ops;

/* --- rule sets and their literal prefilter (rules.c, literals.c) -------------------------- */

/* A literal every match of one alternative of a pattern contains, in lower case; exact: the
 * alternative is exactly this text (anchored at the start or end when it says so), so finding
 * it is a match. */
struct pat_literal {
	char *text;
	size_t len;
	uint8_t exact, at_start, at_end;
};

/* The literals of pattern, one or more per top-level alternative (owned: free with
 * pattern_literals_free()); -1 when some alternative has none of at least three characters
 * (the pattern must always be tried). */
ssize_t pattern_literals(const char *pattern, struct pat_literal **out);
void pattern_literals_free(struct pat_literal *v, size_t n);

struct lit_ref {
	uint32_t rule;
	const struct pat_literal *lit;
};

/* The literals of a rule set by their first three characters. */
struct lit_index {
	size_t n_rules;
	uint8_t first2[65536 / 8]; /* bit (a << 8 | b): some literal starts with a, b */
	uint8_t *always;	   /* per rule: no literal, always try */
	uint32_t *first;	   /* bucket b's refs are refs[first[b] .. first[b + 1]) */
	struct lit_ref *refs;
};

enum { LIT_NONE, LIT_TRY, LIT_MATCH };

/* Build the index of n_rules rules with the literals lits[r] (n_lits[r] of them, -1: none);
 * the literals are borrowed. Release with lit_index_free(). */
void lit_index_build(struct lit_index *x, const struct pat_literal *const *lits,
		     const ssize_t *n_lits, size_t n_rules);
void lit_index_free(struct lit_index *x);
/* Scan lower (the text in lower case, len bytes): state[r] becomes LIT_MATCH when rule r
 * surely matches, LIT_TRY when regexec() must tell, LIT_NONE when it cannot match. */
void lit_index_scan(const struct lit_index *x, const char *lower, size_t len, uint8_t *state);

struct rule {
	regex_t re, op_re; /* compiled once `compiled` is set (rule_compiled()) */
	int has_op;
	int compiled;	     /* under rule_compiled()'s lock: rules are matched by threads */
	const char *pattern; /* a built-in rule's (static): compiled on its first regexec() */
	const char *op_pattern;
	uint8_t cls, aux, decode, generic;
	atom_set atoms, remove;
	uint32_t classes; /* modifiers: the classes they apply to */
	uint8_t set_cls;  /* modifiers: 1 + the class they move to, 0: none */
	const char *prim; /* static, or prim_owned */
	char *prim_owned;
	char *text; /* for evidence: "built-in: /nvjet/ -> GEMM gemm" */
	struct pat_literal *lits;
	ssize_t n_lits;
};

/* Rules tried in order against one field, with the literal index over them. */
struct rule_set {
	struct rule *rules;
	size_t n, cap;
	struct fusible_chain *chains; /* "chain" lines of a rules file (chains.c) */
	size_t n_chains, cap_chains;
	struct lit_index index;
	int indexed;
};

/* Compile re (through regex_guard()); on failure write the reason into msg. */
int rules_compile(regex_t *re, const char *pattern, char *msg, size_t cap);
/* Add the built-in rules (or modifiers) to set; origin names them in rule texts. */
void rules_add_builtin(struct rule_set *set, const struct builtin_rule *b, size_t n);
void rules_add_modifiers(struct rule_set *set, const struct builtin_modifier *m, size_t n);
/* Read the rules of a rules file into set (file syntax: classify.h). missing_ok: a file that
 * does not exist adds nothing. */
int rules_load_file(struct rule_set *set, const char *path, int missing_ok, struct fd_error *err);
/* Make the literal index of set (after the last rule was added). */
void rules_index(struct rule_set *set);
void rules_free(struct rule_set *set);
/* The first rule of set that matches text (and whose op= matches op), or -1. A second text
 * (the name as the trace recorded it, when it was mangled) may be given in alt. */
int rules_first(const struct rule_set *set, const char *text, const char *alt, const char *op);
/* Call fn for every rule of set that matches text, in order. */
void rules_each(const struct rule_set *set, const char *text,
		void (*fn)(const struct rule *r, void *user), void *user);

/* --- the catalogue of fusible chains (chains.c) ------------------------------------------ */

/* Parse the fields after "chain" of a rules line (n of them) into *out (owned: free with
 * chains_free()); -1 with msg set. */
int chain_parse(char **fields, size_t n, const char *origin, struct fusible_chain *out, char *msg,
		size_t cap);
/* Append the built-in chains to the vector *v. */
void chains_add_builtin(struct fusible_chain **v, size_t *n, size_t *cap);
/* The built-in chains alone (made once, never freed). */
size_t chains_builtin(const struct fusible_chain **out);
void chains_free(struct fusible_chain *v, size_t n);

/* --- the rest ----------------------------------------------------------------------------- */

/* Decode an Inductor kernel name (triton_{poi,red,per,tem}_fused_<ops>_<N>) into class and
 * atoms. dims is the Input Dims that Inductor recorded for the kernel's launch ("[[2048,512],
 * [64,512],[4,16,512,128],[]]", NULL when unknown): a pointwise kernel named after an
 * attention op carries the ops of the whole prologue in its name, and its tensors tell which
 * of them it runs. Returns 0 and fills cls/atoms when the name decides, 1 when the tensors of
 * the launch do (such a prologue kernel: with dims NULL, what its name lists), -1 when name
 * is not an Inductor kernel. */
int inductor_decode(const char *name, const char *dims, uint8_t *cls, atom_set *atoms);
/* An Inductor kernel's kind, number and ops, views and dtype casts left out (they tell
 * kernels apart least): triton_red_fused__to_copy__unsafe_view_add_mean_mul_pow_rsqrt_8 ->
 * "red#8 add+mean+mul+pow+rsqrt" (malloc'd); NULL for other names. */
char *inductor_ops_name(const char *name);

/* 1 when name[0..len) (a module class or an annotation) names a MoE block, its experts or its
 * router ("Qwen3MoeSparseMoeBlock", "MoEGate", "TopKRouter", "moe_router"), by word: a
 * "T5DenseGatedActDense" is no gate. */
int classify_names_moe(const char *name, size_t len);

/* The class that a set of atoms suggests for a fused kernel (rmsnorm -> Norm, ...). */
enum op_class classify_class_of_atoms(atom_set atoms);

#endif
