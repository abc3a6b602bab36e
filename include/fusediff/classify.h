/* classify.h — kernel → operation class and atoms.
 *
 * Every kernel maps to one operation class (GEMM, Conv, Attention, Norm, ...) and a set of
 * atoms: the elementary operations it performs. A fused kernel carries several atoms (aiter
 * add_rmsnorm_quant = {add, rmsnorm, quant}). The taxonomy is vendor-symmetric: the same
 * logical operation on AMD and on NVIDIA gets the same class.
 *
 * The order of evidence (each result records which rung decided: enum class_source):
 *   1. user rules (--rules FILE, the per-user file the program passes in: its
 *      $XDG_CONFIG_HOME/fusediff/rules, else ~/.config/fusediff/rules), matched against the
 *      whole kernel name;
 *   2. a decisive name: the kernel's own namespace, function or (for a generic launcher such
 *      as cutlass::Kernel<...>, vectorized_elementwise_kernel<...> or ck_tile::kentry<...>)
 *      template arguments name an operation (built-in rules), or Inductor's
 *      triton_*_fused_<ops> name lists them. Nothing else changes the class or the atoms of
 *      such a kernel: not its operator, module or annotation, so that one kernel name has one
 *      class and one set of atoms in every trace, eager or graph-replayed. Words in the
 *      template arguments add atoms only (a fused activation, a flag that switches on a
 *      residual add);
 *   3. for a generic name only (an elementwise or reduce template without a telling functor,
 *      a copy, gather, scatter, sort, top-k, softmax, sum or scan that a MoE router may use,
 *      a name nothing recognises): a MoE block's or router's module or annotation for the
 *      routing and combine steps, then the launching CPU operator (aten::convolution,
 *      vllm::..., _C::...), then the enclosing nn.Module calls (Conv2d, BatchNorm2d), then
 *      the generic name's own class (Elementwise, Copy, ...), else Other.
 * Names that nothing recognises are class Other and stay visible. */
#ifndef FUSEDIFF_CLASSIFY_H
#define FUSEDIFF_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/trace.h"
#include "fusediff/util.h"

enum op_class {
	CLASS_GEMM,
	CLASS_CONV,
	CLASS_ATTENTION,
	CLASS_NORM,
	CLASS_ACTIVATION,
	CLASS_ROPE,
	CLASS_KV_WRITE,
	CLASS_EMBEDDING,
	CLASS_MOE_ROUTING,
	CLASS_MOE_GEMM,
	CLASS_MOE_FINALIZE,
	CLASS_QUANTIZE,
	CLASS_SAMPLING,
	CLASS_COMM,
	CLASS_COPY, /* memcpy, memset, copies */
	CLASS_ELEMENTWISE,
	CLASS_REDUCE,
	CLASS_SORT,
	CLASS_OPTIMIZER, /* fused optimizer steps */
	CLASS_OTHER,
	CLASS_COUNT
};

/* The atom vocabulary, used in every output under these names (atom_name()). */
enum atom {
	ATOM_GEMM,
	ATOM_ATTENTION,
	ATOM_RMSNORM,
	ATOM_LAYERNORM,
	ATOM_ADD,
	ATOM_MUL,
	ATOM_SILU,
	ATOM_GELU,
	ATOM_ACT, /* an activation whose function is unknown */
	ATOM_ROPE,
	ATOM_KV_WRITE,
	ATOM_EMBEDDING,
	ATOM_QUANT,
	ATOM_SOFTMAX,
	ATOM_TOPK,
	ATOM_ROUTING,
	ATOM_MOE_GEMM,
	ATOM_REDUCE,
	ATOM_COPY,
	ATOM_CAST,
	ATOM_COMM,
	ATOM_SAMPLE,
	ATOM_CONV,
	ATOM_BATCHNORM,
	ATOM_OPTIM,
	ATOM_GRAD, /* the backward pass of the operation (dgrad, wgrad, norm or attention bwd) */
	ATOM_OTHER,
	ATOM_COUNT
};

typedef uint32_t atom_set; /* bit (1u << enum atom) */
#define ATOM_BIT(a) ((atom_set)1u << (a))

/* "GEMM", "Conv", "Attention", "Norm", "Activation", "RoPE", "KV write", "Embedding",
 * "MoE routing", "MoE GEMM", "MoE finalize", "Quantize", "Sampling", "Comm", "Copy",
 * "Elementwise", "Reduce", "Sort", "Optimizer", "Other". */
const char *class_name(enum op_class c);
/* The class with this name (case-insensitive; also accepts "kv_write", "moe_gemm", ...), or -1. */
int class_from_name(const char *s);
/* "gemm", "attention", "rmsnorm", ... as in the enum. */
const char *atom_name(enum atom a);
/* The atom with this name (s[0..len)), or -1. */
int atom_from_name(const char *s, size_t len);
/* Atom names joined with sep ("add+rmsnorm") into buf; "-" for the empty set. Returns buf. */
char *atoms_format(atom_set atoms, const char *sep, char *buf, size_t cap);

/* Which signal decided a kernel's class: the rungs of the order of evidence, top first. */
enum class_source {
	SOURCE_RULES_FILE, /* a rule of --rules FILE or the per-user rules file */
	SOURCE_NAME,	   /* a built-in rule on the kernel name: a decisive one, or a generic
			      one whose context said nothing */
	SOURCE_INDUCTOR,   /* the Inductor name decoder (a name that lists its ops) */
	SOURCE_OPERATOR,   /* the launching CPU operator (generic names only) */
	SOURCE_MODULE,	   /* the enclosing nn.Module calls (generic names only) */
	SOURCE_ANNOTATION, /* a record_function annotation around the launch that names a MoE
			      block, its experts or router (generic names only) */
	SOURCE_NONE,	   /* nothing: class Other */
	SOURCE_SHAPES,	   /* an Inductor kernel named after the attention it feeds, whose name
			      lists the ops of the whole prologue: the tensors of its launch
			      pick which of them it runs (inductor_decode()) */
	SOURCE_COUNT
};
/* "rules file", "name", "inductor", "operator", "module", "annotation", "none",
 * "shapes". */
const char *class_source_name(enum class_source s);

/* kernel_info.rule when no rule decided. */
#define RULE_INDUCTOR (-1) /* the Inductor name decoder */
#define RULE_OPERATOR (-2) /* the launching operator's table entry */
#define RULE_NONE     (-3) /* nothing: class Other */
#define RULE_MOE_ROLE (-4) /* a MoE block's, router's or experts' routing or combine step */
#define RULE_LIBRARY  (-5) /* the one family of the library its namespace names */

/* What a kernel is, decided once per distinct (kernel name, launching operator) pair. */
struct kernel_info {
	uint8_t cls;	     /* enum op_class */
	uint8_t source;	     /* enum class_source: what decided cls */
	uint8_t aux;	     /* 1: a helper that belongs to the neighbouring main kernel of the
				same class: cuBLASLt splitKreduce and split-KV attention
				reduce/combine follow it, a grouped-GEMM setup kernel precedes it */
	uint8_t decode_attn; /* 1: an attention kernel that only decode uses (paged, ...ForGen) */
	atom_set atoms;
	const char *prim; /* the elementary eager operation when the kernel is one ("pow", "mean",
			     "rsqrt", "mul", "add", "neg", "cat", "cos", "sin", "silu", "copy",
			     "cast", "softmax", ...), from the operator or kernel name; NULL
			     otherwise. Borrowed: static, or owned by the classifier (prim= of a
			     user rule). Lets structure.c recognise eager runs. */
	int rule;	  /* the rule that decided (classifier_rule_text()): a rule's index, or
		     RULE_INDUCTOR, RULE_OPERATOR (the operator table), RULE_NONE (Other) */
	char *short_name; /* display name, escaped-safe not guaranteed (escape when showing) */
	char *demangled;  /* full demangled name; NULL when the trace name was not mangled */
	char *ops_name;	  /* an Inductor kernel's kind, number and ops ("red#8 add+mean+rsqrt"):
			     the explorer's short form, which keeps what tells them apart in a
			     narrow column; NULL for other kernels */
};

/* Compiled rules. Read-only once made: several threads may classify with one classifier. */
struct classifier;

/* A classifier with the built-in rules, then the per-user rules file user_path when it is not
 * NULL and exists, then rules_path when not NULL (later files take precedence over earlier ones
 * and over the built-in table; user_path is read once when it is rules_path too). The library
 * reads no environment: the program finds user_path (fusediff(1), FILES). Owned by caller: free
 * with classifier_free().
 * Errors: a rules file that cannot be read or has a bad line ("my.rules: line 4: unknown class
 * 'gem'"); a missing per-user file is not an error. The line format is in README.md and
 * fusediff(1): CLASS ATOMS REGEX [aux] [decode] [op=REGEX] [prim=NAME], # comments. */
int classifier_new(struct classifier **out, const char *rules_path, const char *user_path,
		   struct fd_error *err);
void classifier_free(struct classifier *c);
/* The per-user rules file c was given (whether or not it exists; borrowed), or NULL: where a
 * user adds rules, for messages. */
const char *classifier_user_path(const struct classifier *c);
/* The text of rule i, for evidence ("built-in: /splitKreduce/ -> GEMM gemm aux",
 * "my.rules:4: /^my_gemm/ -> GEMM gemm"), or what decided when i is RULE_*. Borrowed. */
const char *classifier_rule_text(const struct classifier *c, int i);

/* A fusible chain of the catalogue: atoms that programs run as separate adjacent kernels over
 * the same tensor and that public libraries run as one kernel (chains.c has the built-in
 * entries and where each library defines its kernel). Read from "chain" lines of the rules
 * files too: chain ELEMENT... [between=CLASS,...] [known=KERNEL,...], an ELEMENT being atoms
 * joined by + or a class (moe_finalize). A chain of one element is one operation run as
 * several eager kernels (structure.h, STEP_RUN). */
#define CHAIN_MAX 4
struct fusible_chain {
	atom_set elem[CHAIN_MAX];    /* each element's atoms, in execution order (0: a class) */
	uint8_t elem_cls[CHAIN_MAX]; /* 1 + the class an element names, or 0 */
	uint8_t n;		     /* elements */
	uint32_t between;	     /* bit (1u << class): one step of these classes may run
					between two elements (the up GEMM between silu and mul) */
	char *known;		     /* the public fused kernels, "vllm:fused_add_rms_norm,..." */
	char *origin;		     /* "built-in #3", "my.rules:4" */
};
/* The chains of classifier c (the rules files' first, then the built-in ones; c NULL: the
 * built-in ones) into *out (borrowed); returns how many. */
size_t classifier_chains(const struct classifier *c, const struct fusible_chain **out);
/* Element e of chain c as text ("add+rmsnorm", "MoE finalize") into buf; returns buf. */
char *chain_element_text(const struct fusible_chain *c, int e, char *buf, size_t cap);
/* "add -> rmsnorm", "rmsnorm -> rmsnorm -> rope" into buf; returns buf. */
char *chain_format(const struct fusible_chain *c, char *buf, size_t cap);

/* What was around one launch: what a generic kernel name may take its class from (each field
 * may be NULL). */
struct classify_context {
	const char *op;		/* the launching CPU operator ("aten::mul") */
	const char *op_args;	/* its concrete inputs as recorded ("[\"\",\"0\"]") */
	const char *op_dims;	/* its input shapes as recorded ("[[4,512],[]]"), given where they
				   can decide: the record Inductor makes of its own kernel */
	const char *modules;	/* the classes of the nn.Module calls around the launch,
				   innermost first, joined by " < " ("Conv2d < BasicBlock") */
	const char *annotation; /* the innermost record_function annotation around the launch
				   that names a MoE block, its experts or router */
};

/* Classify one kernel in its context (NULL: none). out is owned by the caller: release with
 * kernel_info_clear(). */
void classify_kernel_ctx(const struct classifier *c, const char *kernel_name,
			 const struct classify_context *ctx, struct kernel_info *out);
/* The same with an operator and modules only (either may be NULL). */
void classify_kernel(const struct classifier *c, const char *kernel_name, const char *op_name,
		     const char *modules, struct kernel_info *out);
/* 1 when the class and atoms of a kernel named kernel_name come from its name alone: no
 * context can change them (the order of evidence above). */
int classify_name_decides(const struct classifier *c, const char *kernel_name);
void kernel_info_clear(struct kernel_info *ki);

/* The classification of every kernel of one trace. */
struct trace_classes {
	struct kernel_info *infos; /* distinct (name, operator) pairs */
	size_t n_infos;
	uint32_t *info_of;     /* per trace->kernels[i]: index into infos */
	double other_share;    /* fraction of kernel time (KIND_KERNEL) in class Other */
	size_t links_rejected; /* External-id links to an operator that did not launch the
				* kernel (trace_link_kernels()) */
};

/* Classify all kernels of t (copies and memsets are class Copy), once per distinct kernel
 * name, launching operator and module context. Owned by caller: release with
 * trace_classes_clear(). */
void classify_trace(const struct classifier *c, const struct trace *t, struct trace_classes *out);
void trace_classes_clear(struct trace_classes *tc);

static inline const struct kernel_info *trace_classes_get(const struct trace_classes *tc,
							  size_t kernel)
{
	return &tc->infos[tc->info_of[kernel]];
}

#endif
