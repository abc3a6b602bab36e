/* classify.c — a kernel's class and atoms from its name and, for a generic name only, its
 * context (classify.h): the classifier's rule sets and the order of evidence.
 *
 * The order of evidence, each rung recorded in kernel_info.source:
 *   1. a user rule (SOURCE_RULES_FILE): the user said exactly what the kernel is;
 *   2. a decisive name (SOURCE_NAME, SOURCE_INDUCTOR): a built-in rule that is not generic
 *      matched the namespace and function (or a launcher's template arguments), or Inductor's
 *      name lists ops. The class and atoms then come from the name alone: its modifiers and
 *      template flags, never the operator (not even a backward operator's grad), module or
 *      annotation. This is what makes a kernel name one class in every trace: the
 *      operator is missing in a CUDA or HIP graph replay, wrong when a trace's External ids
 *      are correlation ids, and a module says where a kernel ran, not what it does. One
 *      exception (SOURCE_SHAPES): an Inductor pointwise kernel named after the attention it
 *      feeds lists the ops of the whole prologue, whichever part it runs; the tensors
 *      Inductor records for its launch (context.op_dims) say whether it rotates (RoPE),
 *      copies (repeat_kv's expand) or builds the mask;
 *   3. a generic name (a rule marked generic: the name says how the kernel computes, not what
 *      for; an Inductor kernel without ops; no rule): decide_by_context() tries a MoE
 *      module or annotation for the routing and combine steps (SOURCE_MODULE,
 *      SOURCE_ANNOTATION), the operator (SOURCE_OPERATOR: aten's table, a custom operator
 *      named after what it does, the operator rules; its backward form adds grad), the
 *      module rules (SOURCE_MODULE); else the generic rule's own class (SOURCE_NAME) or Other
 *      (SOURCE_NONE).
 * classify_name_decides() tells rung 2 from rung 3 for a name; tests/check_classify.c tests
 * each rung and that every trace in the repository keeps a decisive name's class. */
#include "fusediff/classify.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "fusediff/names.h"

struct classifier {
	struct rule_set user;	  /* rules files, matched against the whole name */
	struct rule_set names;	  /* classify_name_rules: the head */
	struct rule_set ops;	  /* classify_op_rules: the operator */
	struct rule_set modules;  /* classify_module_rules: the module classes */
	struct rule_set mod_head; /* modifiers on the head, the template arguments, the operator */
	struct rule_set mod_targs;
	struct rule_set mod_op;
	struct rule_set *libs; /* per classify_libraries entry: its own rules, on the identifier */
	/* rule texts by global index: user rules, then name rules, then operator rules */
	size_t n_user;
	char *user_path;	      /* the per-user rules file given, or NULL */
	struct fusible_chain *chains; /* the rules files' chains, then the built-in ones */
	size_t n_chains;
};

void classifier_free(struct classifier *c)
{
	if (!c)
		return;
	rules_free(&c->user);
	chains_free(c->chains, c->n_chains);
	rules_free(&c->names);
	rules_free(&c->ops);
	rules_free(&c->modules);
	rules_free(&c->mod_head);
	rules_free(&c->mod_targs);
	rules_free(&c->mod_op);
	for (size_t i = 0; c->libs && i < classify_n_libraries; i++)
		rules_free(&c->libs[i]);
	free(c->libs);
	free(c->user_path);
	free(c);
}

const char *classifier_user_path(const struct classifier *c)
{
	return c->user_path;
}

int classifier_new(struct classifier **out, const char *rules_path, const char *user_path,
		   struct fd_error *err)
{
	struct classifier *c = xcalloc(1, sizeof *c);
	const char *dp = user_path;
	locale_t loc = classify_locale_enter(); /* class and atom names of rules files */

	*out = NULL;
	/* the files in order of precedence: --rules first, then the per-user default */
	if (rules_path && rules_load_file(&c->user, rules_path, 0, err) < 0)
		goto fail;
	if (dp && (!rules_path || strcmp(dp, rules_path) != 0) &&
	    rules_load_file(&c->user, dp, 1, err) < 0)
		goto fail;
	c->n_user = c->user.n;
	c->user_path = dp ? xstrdup(dp) : NULL;
	{
		size_t cap = c->user.cap_chains;

		c->chains = c->user.chains; /* taken over from the rules files */
		c->n_chains = c->user.n_chains;
		c->user.chains = NULL;
		c->user.n_chains = c->user.cap_chains = 0;
		chains_add_builtin(&c->chains, &c->n_chains, &cap);
	}
	rules_add_builtin(&c->names, classify_name_rules, classify_n_name_rules);
	rules_add_builtin(&c->ops, classify_op_rules, classify_n_op_rules);
	rules_add_builtin(&c->modules, classify_module_rules, classify_n_module_rules);
	c->libs = xcalloc(classify_n_libraries, sizeof *c->libs);
	for (size_t i = 0; i < classify_n_libraries; i++) {
		rules_add_builtin(&c->libs[i], classify_libraries[i].rules,
				  classify_libraries[i].n_rules);
		rules_index(&c->libs[i]);
	}
	for (size_t i = 0; i < classify_n_modifiers; i++) {
		const struct builtin_modifier *m = &classify_modifiers[i];
		struct rule_set *set = m->in == IN_TARGS ? &c->mod_targs
				       : m->in == IN_OP	 ? &c->mod_op
							 : &c->mod_head;

		rules_add_modifiers(set, m, 1);
	}
	rules_index(&c->user);
	rules_index(&c->names);
	rules_index(&c->ops);
	rules_index(&c->modules);
	rules_index(&c->mod_head);
	rules_index(&c->mod_targs);
	rules_index(&c->mod_op);
	*out = c;
	classify_locale_leave(loc);
	return 0;
fail:
	classifier_free(c);
	classify_locale_leave(loc);
	return -1;
}

size_t classifier_chains(const struct classifier *c, const struct fusible_chain **out)
{
	if (!c)
		return chains_builtin(out);
	*out = c->chains;
	return c->n_chains;
}

const char *classifier_rule_text(const struct classifier *c, int i)
{
	const struct rule_set *sets[] = { &c->user, &c->names, &c->ops, &c->modules };

	if (i == RULE_LIBRARY)
		return "the library its namespace names (one family)";
	if (i == RULE_INDUCTOR)
		return "Inductor kernel name (triton_*_fused_*)";
	if (i == RULE_OPERATOR)
		return "what the launching aten operator does";
	if (i == RULE_MOE_ROLE)
		return "a MoE block's, router's or experts' routing or combine step";
	for (size_t k = 0; i >= 0 && k < sizeof sets / sizeof sets[0]; k++) {
		if ((size_t)i < sets[k]->n)
			return sets[k]->rules[i].text;
		i -= (int)sets[k]->n;
	}
	for (size_t k = 0; i >= 0 && k < classify_n_libraries; k++) {
		if ((size_t)i < c->libs[k].n)
			return c->libs[k].rules[i].text;
		i -= (int)c->libs[k].n;
	}
	return "no rule matched";
}

/* --- signals ------------------------------------------------------------------------------ */

static const struct op_entry *aten_lookup(const char *op)
{
	const char *b, *e;

	if (!op || strncmp(op, "aten::", 6) != 0)
		return NULL;
	b = op + 6;
	while (*b == '_')
		b++;
	e = b + strlen(b);
	while (e > b && e[-1] == '_')
		e--;
	for (size_t i = 0; i < classify_n_aten_ops; i++)
		if (strlen(classify_aten_ops[i].op) == (size_t)(e - b) &&
		    memcmp(classify_aten_ops[i].op, b, (size_t)(e - b)) == 0)
			return &classify_aten_ops[i];
	return NULL;
}

/* A generic launcher: one of classify_launchers, or one of aten's elementwise templates. */
static int is_launcher(const struct name_parts *np)
{
	static const char aten[] = "elementwise_kernel";

	for (const char *const *l = classify_launchers; *l; l++)
		if (strlen(*l) == np->func_len && memcmp(*l, np->func, np->func_len) == 0)
			return 1;
	for (size_t i = 0; i + sizeof aten - 1 <= np->func_len; i++)
		if (memcmp(np->func + i, aten, sizeof aten - 1) == 0)
			return 1;
	return 0;
}

/* The text the name rules see: "ns::func", with "<targs>" for a generic launcher. */
static char *head_text(const struct name_parts *np)
{
	size_t targs = is_launcher(np) ? np->targs_len : 0, n = 0;
	char *h = xmalloc(np->ns_len + np->func_len + targs + 5);

	if (np->ns_len) {
		memcpy(h, np->ns, np->ns_len);
		memcpy(h + np->ns_len, "::", 2);
		n = np->ns_len + 2;
	}
	memcpy(h + n, np->func, np->func_len);
	n += np->func_len;
	if (targs) {
		h[n++] = '<';
		memcpy(h + n, np->targs, targs);
		n += targs;
		h[n++] = '>';
	}
	h[n] = '\0';
	return h;
}

static void take_rule(struct kernel_info *out, const struct rule *r, int index, int source)
{
	out->rule = index;
	out->source = (uint8_t)source;
	out->cls = r->cls;
	out->atoms = r->atoms;
	out->aux = r->aux;
	out->decode_attn = r->decode;
}

/* What the template's flags say about fused work (classify_flags). Returns how many flags were
 * read. */
static int apply_flags(struct kernel_info *out, const char *text, const struct name_parts *np)
{
	const char *args[32];
	size_t lens[32];
	int n = -2, read = 0;

	for (size_t i = 0; i < classify_n_flags; i++) {
		const struct builtin_flag *f = &classify_flags[i];
		int v = -1;

		if (f->index >= 0) {
			size_t fl = strlen(f->func);

			if (!np->func_len || !strstr(text, f->func) ||
			    (strncmp(text, "_Z", 2) != 0 &&
			     (np->func_len != fl || memcmp(np->func, f->func, fl) != 0)))
				continue;
			if (n == -2)
				n = names_template_args(text, np, args, lens, 32);
			if (n != f->n_args)
				continue;
			v = names_targ_flag(args[f->index], lens[f->index]);
		} else {
			/* demangled "(ck_tile::Rmsnorm2dFusedAddEnum)1", or mangled as a literal of
			 * the enum type, "LN7ck_tile21Rmsnorm2dFusedAddEnumE1E" */
			const char *e = strstr(text, f->enum_name);
			size_t el = f->enum_name ? strlen(f->enum_name) : 0;

			if (!e ||
			    (e[el] != ')' && !(e[el] == 'E' && isdigit((unsigned char)e[el + 1]))))
				continue;
			e += el + 1;
			v = names_targ_flag(e, strspn(e, "0123456789"));
		}
		if (v == 1)
			out->atoms |= f->atoms;
		else if (v == 0)
			out->atoms &= ~f->atoms;
		read += v >= 0;
	}
	return read;
}

/* 1 when name (a module class or an annotation) names a MoE block, its experts or its router:
 * "Qwen3MoeSparseMoeBlock", "DeepseekV3MoE", "MoEGate", "TopKRouter", "experts", "moe_router".
 * By word, not by substring: "T5DenseGatedActDense" is no gate. */
int classify_names_moe(const char *name, size_t len)
{
	static const char *const words[] = { "gate", "gating", "router", "routing" };
	char low[128];

	if (len >= sizeof low)
		len = sizeof low - 1;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[len] = '\0';
	if (strstr(low, "moe") || strstr(low, "expert") || strstr(low, "router"))
		return 1;
	/* words: split at '_', '.', ' ', digits and lower-to-upper case changes */
	for (size_t i = 0; i < len;) {
		size_t j = i + 1;

		while (j < len && isalpha((unsigned char)name[j]) &&
		       !(isupper((unsigned char)name[j]) && islower((unsigned char)name[j - 1])))
			j++;
		for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
			if (strlen(words[w]) == j - i && memcmp(low + i, words[w], j - i) == 0)
				return 1;
		i = j;
		while (i < len && !isalpha((unsigned char)name[i]))
			i++;
	}
	return 0;
}

/* What a MoE block's, router's or experts' generic kernel does there: the top-k, softmax,
 * sort, histogram, scan and token gather of the routing; the sum or scatter that combines the
 * experts' outputs. CLASS_COUNT for neither. */
static enum op_class moe_role(const char *prim)
{
	static const char *const routing[] = { "topk",	 "softmax", "sort",	    "histc",
					       "cumsum", "gather",  "index_select", "index" };

	if (!prim)
		return CLASS_COUNT;
	for (size_t i = 0; i < sizeof routing / sizeof routing[0]; i++)
		if (strcmp(prim, routing[i]) == 0)
			return CLASS_MOE_ROUTING;
	return strcmp(prim, "sum") == 0 || strcmp(prim, "scatter") == 0 ||
			       strcmp(prim, "index_put") == 0
		       ? CLASS_MOE_FINALIZE
		       : CLASS_COUNT;
}

struct modify {
	struct kernel_info *ki;
};

static void apply_modifier(const struct rule *r, void *user)
{
	struct kernel_info *ki = ((struct modify *)user)->ki;

	if (r->classes && !(r->classes & (1u << ki->cls)))
		return;
	ki->atoms = (ki->atoms & ~r->remove) | r->atoms;
	if (r->set_cls)
		ki->cls = (uint8_t)(r->set_cls - 1);
}

static int is_generic_template(const char *s)
{
	static const char *const generic[] = {
		"elementwise_kernel",
		"vectorized_elementwise_kernel",
		"unrolled_elementwise_kernel",
		"elementwise_kernel_manual_unroll",
		"elementwise_kernel_with_index",
		"reduce_kernel",
	};

	for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
		if (strcmp(s, generic[i]) == 0)
			return 1;
	return 0;
}

/* The first scalar argument of an operator's concrete inputs ("[\"\", \"0\"]": "0"), into
 * buf; "" when there is none. */
static const char *op_scalar(const char *args, char *buf, size_t cap)
{
	const char *p = args ? strchr(args, ',') : NULL;
	size_t n = 0;

	buf[0] = '\0';
	if (!p)
		return buf;
	p += strspn(p, ", \"");
	while (p[n] && p[n] != '"' && p[n] != ',' && p[n] != ']' && n + 1 < cap)
		n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* The operator as far as classification goes: aten::clamp_min(_) of 0 is a ReLU (what
 * F.relu runs). */
static const char *effective_op(const struct classify_context *ctx)
{
	char v[32];

	if (ctx->op &&
	    (strcmp(ctx->op, "aten::clamp_min") == 0 || strcmp(ctx->op, "aten::clamp_min_") == 0)) {
		op_scalar(ctx->op_args, v, sizeof v);
		if (strcmp(v, "0") == 0 || strcmp(v, "0.") == 0 || strcmp(v, "0.0") == 0)
			return "aten::relu";
	}
	return ctx->op;
}

/* The name, parsed: what the name rules and modifiers see. */
struct parsed {
	const char *text, *raw; /* demangled (or as given), and as given when it was mangled */
	struct name_parts np;
	char *head, *targs; /* head: namespace and function (with a launcher's arguments),
			       library namespaces left out (libraries_strip()) */
	int lib;	    /* the library its namespace names (classify_libraries), or -1 */
};

static void parse_name(const char *kernel_name, struct kernel_info *out, struct parsed *pn)
{
	if (strlen(kernel_name) < (1u << 16))
		out->demangled = names_demangle(kernel_name);
	pn->text = out->demangled ? out->demangled : kernel_name;
	pn->raw = out->demangled ? kernel_name : NULL;
	pn->targs = NULL;
	names_parse(pn->text, &pn->np);
	if (strncmp(pn->text, "_Z", 2) == 0) {
		/* a mangled name the demangler rejected: its words are all there is */
		pn->head = xstrdup(pn->text);
		pn->targs = xstrdup(pn->text);
	} else {
		pn->head = head_text(&pn->np);
		if (pn->np.targs_len)
			pn->targs = xstrndup(pn->np.targs, pn->np.targs_len);
	}
	pn->lib = libraries_strip(pn->head, pn->np.ns_len ? pn->np.ns_len + 2 : 0);
}

static void set_other(struct kernel_info *out)
{
	out->rule = RULE_NONE;
	out->source = SOURCE_NONE;
	out->cls = CLASS_OTHER;
	out->atoms = A(OTHER);
}

/* Rung 3: the context of a generic name (out holds what the name said, or Other), in order:
 * a MoE block's or router's module or annotation for its routing and combine steps, the
 * operator (aten's table; a custom operator named after what it does; the operator rules),
 * the modules. Returns 1 when the context decided. */
static int decide_by_context(const struct classifier *c, const struct classify_context *ctx,
			     const char *rule_prim, struct kernel_info *out)
{
	const size_t base_names = c->user.n, base_ops = c->user.n + c->names.n,
		     base_mods = c->user.n + c->names.n + c->ops.n;
	const char *op = effective_op(ctx), *fn = op ? strrchr(op, ':') : NULL;
	const struct op_entry *oe = aten_lookup(op);
	enum op_class role = moe_role(oe && oe->prim ? oe->prim : rule_prim);
	size_t inner = ctx->modules ? strcspn(ctx->modules, " ") : 0;
	int ri;

	if (role != CLASS_COUNT &&
	    ((inner && classify_names_moe(ctx->modules, inner)) ||
	     (ctx->annotation && classify_names_moe(ctx->annotation, strlen(ctx->annotation))))) {
		out->rule = RULE_MOE_ROLE;
		out->source = inner && classify_names_moe(ctx->modules, inner) ? SOURCE_MODULE
									       : SOURCE_ANNOTATION;
		out->cls = (uint8_t)role;
		out->atoms = (out->atoms & ~(A(OTHER) | A(COPY) | A(REDUCE))) |
			     (role == CLASS_MOE_ROUTING ? A(ROUTING) : A(REDUCE));
		out->aux = out->decode_attn = 0;
		return 1;
	}
	if (oe) {
		out->rule = RULE_OPERATOR;
		out->source = SOURCE_OPERATOR;
		out->cls = oe->cls;
		out->atoms = oe->atoms;
		out->aux = out->decode_attn = 0;
		return 1;
	}
	if (op && fn && strncmp(op, "aten::", 6) != 0 &&
	    (ri = rules_first(&c->names, fn + 1, NULL, NULL)) >= 0 && !c->names.rules[ri].generic) {
		/* a custom operator (vllm::, _C::, sglang::, ...) named after what it does */
		take_rule(out, &c->names.rules[ri], (int)base_names + ri, SOURCE_OPERATOR);
		return 1;
	}
	if ((ri = rules_first(&c->ops, op, NULL, NULL)) >= 0) {
		take_rule(out, &c->ops.rules[ri], (int)(base_ops + (size_t)ri), SOURCE_OPERATOR);
		return 1;
	}
	if ((ri = rules_first(&c->modules, ctx->modules, NULL, NULL)) >= 0) {
		take_rule(out, &c->modules.rules[ri], (int)(base_mods + (size_t)ri), SOURCE_MODULE);
		return 1;
	}
	return 0;
}

/* Rungs 1 and 2: a user rule, Inductor's op list, a built-in name rule. Returns the name
 * rule's index in c->names when one decided (-1 otherwise); *generic is 1 when the name left
 * the class to the context (a generic rule, an Inductor kernel without ops, no rule). */
static int decide_by_name(const struct classifier *c, const char *kernel_name,
			  const struct parsed *pn, const char *op, const char *op_dims,
			  struct kernel_info *out, const char **rule_prim, int *generic)
{
	int ri;

	*generic = 0;
	*rule_prim = NULL;
	if ((ri = rules_first(&c->user, pn->text, pn->raw, op)) >= 0) {
		take_rule(out, &c->user.rules[ri], ri, SOURCE_RULES_FILE);
		*rule_prim = c->user.rules[ri].prim;
		return -1;
	}
	if ((ri = inductor_decode(kernel_name, op_dims, &out->cls, &out->atoms)) >= 0) {
		out->rule = RULE_INDUCTOR;
		out->source = ri ? SOURCE_SHAPES : SOURCE_INDUCTOR;
		*generic = out->atoms == A(OTHER);
		return -1;
	}
	/* a library's own family table, on the identifier after its namespace */
	if (pn->lib >= 0 && (ri = rules_first(&c->libs[pn->lib], pn->head, NULL, NULL)) >= 0) {
		size_t base = c->user.n + c->names.n + c->ops.n + c->modules.n;

		for (int k = 0; k < pn->lib; k++)
			base += c->libs[k].n;
		take_rule(out, &c->libs[pn->lib].rules[ri], (int)base + ri, SOURCE_NAME);
		*rule_prim = c->libs[pn->lib].rules[ri].prim;
		return -1;
	}
	if ((ri = rules_first(&c->names, pn->head, NULL, NULL)) >= 0) {
		take_rule(out, &c->names.rules[ri], (int)c->user.n + ri, SOURCE_NAME);
		*rule_prim = c->names.rules[ri].prim;
		*generic = c->names.rules[ri].generic;
		return ri;
	}
	if (pn->lib >= 0 && classify_libraries[pn->lib].default_cls < CLASS_COUNT) {
		/* a library named after its one family (grouped_gemm::) */
		out->rule = RULE_LIBRARY;
		out->source = SOURCE_NAME;
		out->cls = classify_libraries[pn->lib].default_cls;
		out->atoms = classify_libraries[pn->lib].default_atoms;
		return -1;
	}
	set_other(out);
	*generic = 1;
	return -1;
}

void classify_kernel_ctx(const struct classifier *c, const char *kernel_name,
			 const struct classify_context *ctx_in, struct kernel_info *out)
{
	struct classify_context ctx = { 0 };
	const char *rule_prim, *op;
	const struct op_entry *oe;
	struct parsed pn;
	char sbuf[256];
	int generic, by_context = 0, flags = 0;
	locale_t loc = classify_locale_enter();

	memset(out, 0, sizeof *out);
	if (ctx_in)
		ctx = *ctx_in;
	if (ctx.op && !*ctx.op)
		ctx.op = NULL;
	if (ctx.modules && !*ctx.modules)
		ctx.modules = NULL;
	if (ctx.annotation && !*ctx.annotation)
		ctx.annotation = NULL;
	op = effective_op(&ctx);
	oe = aten_lookup(op);
	parse_name(kernel_name, out, &pn);

	/* 1. rules files; 2. a decisive name; 3. the context of a generic one */
	decide_by_name(c, kernel_name, &pn, ctx.op, ctx.op_dims, out, &rule_prim, &generic);
	if (generic) {
		uint8_t cls = out->cls, aux = out->aux;

		by_context = decide_by_context(c, &ctx, rule_prim, out);
		/* a helper (a scan's initialisation) stays one where the context agrees */
		if (by_context && out->cls == cls)
			out->aux = aux;
	}

	/* modifiers: what the name's own words and flags add; the operator's (a backward pass)
	 * only where the context decided. Not to a user's rule, which says exactly what the
	 * kernel is. */
	if (out->source != SOURCE_RULES_FILE) {
		struct modify m = { out };

		rules_each(&c->mod_head, pn.head, apply_modifier, &m);
		rules_each(&c->mod_targs, pn.targs, apply_modifier, &m);
		if (by_context)
			rules_each(&c->mod_op, ctx.op, apply_modifier, &m);
		flags = apply_flags(out, pn.text, &pn.np);
	}

	/* the elementary eager op: from the operator when it names one, else from the rule;
	 * an aten::copy_ whose kernel converts dtypes is a cast */
	if (oe && oe->prim &&
	    !(rule_prim && strcmp(rule_prim, "cast") == 0 && strcmp(oe->prim, "copy") == 0))
		out->prim = oe->prim;
	else
		out->prim = rule_prim;

	names_short(pn.text, sbuf, sizeof sbuf);
	if (flags) {
		/* the work its flags switch on tells one instance from another
		 * (add_rmsnorm_quant_kernel<rmsnorm> and <rmsnorm+add>) */
		char ab[128];

		atoms_format(out->atoms, "+", ab, sizeof ab);
		out->short_name = xasprintf(strchr(sbuf, '<') ? "%s %s" : "%s<%s>", sbuf, ab);
	} else if (ctx.op && oe && oe->prim && !strchr(sbuf, '<') && is_generic_template(sbuf)) {
		out->short_name = xasprintf("%s<%s>", sbuf, ctx.op + 6);
	} else {
		out->short_name = xstrdup(sbuf);
	}
	out->ops_name = inductor_ops_name(kernel_name);
	free(pn.head);
	free(pn.targs);
	classify_locale_leave(loc);
}

void classify_kernel(const struct classifier *c, const char *kernel_name, const char *op_name,
		     const char *modules, struct kernel_info *out)
{
	struct classify_context ctx = { .op = op_name, .modules = modules };

	classify_kernel_ctx(c, kernel_name, &ctx, out);
}

int classify_name_decides(const struct classifier *c, const char *kernel_name)
{
	struct kernel_info ki;
	struct parsed pn;
	const char *prim;
	int generic;
	locale_t loc = classify_locale_enter();

	memset(&ki, 0, sizeof ki);
	if (inductor_decode(kernel_name, NULL, &ki.cls, &ki.atoms) == 1) {
		classify_locale_leave(loc);
		return 0; /* the tensors of each launch decide */
	}
	parse_name(kernel_name, &ki, &pn);
	decide_by_name(c, kernel_name, &pn, NULL, NULL, &ki, &prim, &generic);
	free(pn.head);
	free(pn.targs);
	kernel_info_clear(&ki);
	classify_locale_leave(loc);
	return !generic;
}

void kernel_info_clear(struct kernel_info *ki)
{
	free(ki->short_name);
	free(ki->demangled);
	free(ki->ops_name);
	ki->short_name = ki->demangled = ki->ops_name = NULL;
}
