/* classify.c — a kernel's class and atoms from its name, operator and modules (see
 * classify.h): the classifier's rule sets, and each signal in its order of trust. */
#include "fusediff/classify.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "fusediff/bigmem.h"
#include "fusediff/intern.h"
#include "fusediff/names.h"

struct classifier {
	struct rule_set user;	  /* rules files, matched against the whole name */
	struct rule_set names;	  /* classify_name_rules: the head */
	struct rule_set ops;	  /* classify_op_rules: the operator */
	struct rule_set modules;  /* classify_module_rules: the module classes */
	struct rule_set mod_head; /* modifiers on the head, the template arguments, the operator */
	struct rule_set mod_targs;
	struct rule_set mod_op;
	/* rule texts by global index: user rules, then name rules, then operator rules */
	size_t n_user;
};

void classifier_free(struct classifier *c)
{
	if (!c)
		return;
	rules_free(&c->user);
	rules_free(&c->names);
	rules_free(&c->ops);
	rules_free(&c->modules);
	rules_free(&c->mod_head);
	rules_free(&c->mod_targs);
	rules_free(&c->mod_op);
	free(c);
}

const char *classifier_default_path(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/fusediff/rules", xdg);
	else if (home && *home)
		n = snprintf(buf, cap, "%s/.config/fusediff/rules", home);
	else
		return NULL;
	return n >= 0 && (size_t)n < cap ? buf : NULL;
}

int classifier_new(struct classifier **out, const char *rules_path, struct fd_error *err)
{
	struct classifier *c = xcalloc(1, sizeof *c);
	char def[4096];
	const char *dp = classifier_default_path(def, sizeof def);

	*out = NULL;
	/* the files in order of precedence: --rules first, then the per-user default */
	if (rules_path && rules_load_file(&c->user, rules_path, 0, err) < 0)
		goto fail;
	if (dp && (!rules_path || strcmp(dp, rules_path) != 0) &&
	    rules_load_file(&c->user, dp, 1, err) < 0)
		goto fail;
	c->n_user = c->user.n;
	rules_add_builtin(&c->names, classify_name_rules, classify_n_name_rules);
	rules_add_builtin(&c->ops, classify_op_rules, classify_n_op_rules);
	rules_add_builtin(&c->modules, classify_module_rules, classify_n_module_rules);
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
	return 0;
fail:
	classifier_free(c);
	return -1;
}

const char *classifier_rule_text(const struct classifier *c, int i)
{
	const struct rule_set *sets[] = { &c->user, &c->names, &c->ops, &c->modules };

	if (i == RULE_INDUCTOR)
		return "Inductor kernel name (triton_*_fused_*)";
	if (i == RULE_OPERATOR)
		return "launching operator";
	for (size_t k = 0; i >= 0 && k < sizeof sets / sizeof sets[0]; k++) {
		if ((size_t)i < sets[k]->n)
			return sets[k]->rules[i].text;
		i -= (int)sets[k]->n;
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

/* What the template's flags say about fused work (classify_flags). */
static void apply_flags(struct kernel_info *out, const char *text, const struct name_parts *np)
{
	const char *args[32];
	size_t lens[32];
	int n = -2;

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
			const char *e = strstr(text, f->enum_name);

			if (!e || e[strlen(f->enum_name)] != ')')
				continue;
			e += strlen(f->enum_name) + 1;
			v = names_targ_flag(e, strspn(e, "0123456789"));
		}
		if (v == 1)
			out->atoms |= f->atoms;
		else if (v == 0)
			out->atoms &= ~f->atoms;
	}
}

/* A MoE block's or router's own generic kernels: the top-k, softmax, sort, histogram and scan
 * of the router, the sum that combines the experts' outputs; CLASS_COUNT for neither. */
static enum op_class moe_role(const char *modules, const char *prim)
{
	static const char *const routing[] = { "topk", "softmax", "sort", "histc", "cumsum" };
	char inner[128];
	size_t n;

	if (!modules || !prim)
		return CLASS_COUNT;
	n = strcspn(modules, " ");
	if (n >= sizeof inner)
		return CLASS_COUNT;
	for (size_t i = 0; i < n; i++)
		inner[i] = (char)tolower((unsigned char)modules[i]);
	inner[n] = '\0';
	if (!strstr(inner, "moe") && !strstr(inner, "expert") && !strstr(inner, "router") &&
	    !strstr(inner, "gate") && !strstr(inner, "gating"))
		return CLASS_COUNT;
	for (size_t i = 0; i < sizeof routing / sizeof routing[0]; i++)
		if (strcmp(prim, routing[i]) == 0)
			return CLASS_MOE_ROUTING;
	return strcmp(prim, "sum") == 0 || strcmp(prim, "scatter") == 0 ? CLASS_MOE_FINALIZE
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

void classify_kernel(const struct classifier *c, const char *kernel_name, const char *op_name,
		     const char *modules, struct kernel_info *out)
{
	const size_t base_names = c->user.n, base_ops = c->user.n + c->names.n,
		     base_mods = c->user.n + c->names.n + c->ops.n;
	const char *text, *raw = NULL, *rule_prim = NULL;
	const struct op_entry *oe;
	struct name_parts np;
	char *head, *targs = NULL, sbuf[256];
	int ri, name_generic = 0;

	memset(out, 0, sizeof *out);
	if (op_name && !*op_name)
		op_name = NULL;
	if (modules && !*modules)
		modules = NULL;
	oe = aten_lookup(op_name);
	if (strlen(kernel_name) < (1u << 16))
		out->demangled = names_demangle(kernel_name);
	text = out->demangled ? out->demangled : kernel_name;
	if (out->demangled)
		raw = kernel_name;
	names_parse(text, &np);
	if (strncmp(text, "_Z", 2) == 0) {
		/* a mangled name the demangler rejected: its words are all there is */
		head = xstrdup(text);
		targs = xstrdup(text);
	} else {
		head = head_text(&np);
		if (np.targs_len)
			targs = xstrndup(np.targs, np.targs_len);
	}

	/* 1. rules files; 2. the name: Inductor's, else the built-in families */
	if ((ri = rules_first(&c->user, text, raw, op_name)) >= 0) {
		take_rule(out, &c->user.rules[ri], ri, SOURCE_RULES_FILE);
		rule_prim = c->user.rules[ri].prim;
	} else if (inductor_decode(kernel_name, &out->cls, &out->atoms) == 0) {
		out->rule = RULE_INDUCTOR;
		out->source = SOURCE_INDUCTOR;
	} else if ((ri = rules_first(&c->names, head, NULL, op_name)) >= 0) {
		take_rule(out, &c->names.rules[ri], (int)base_names + ri, SOURCE_NAME);
		rule_prim = c->names.rules[ri].prim;
		name_generic = c->names.rules[ri].generic;
	} else {
		out->rule = RULE_NONE;
		out->source = SOURCE_NONE;
		out->cls = CLASS_OTHER;
		out->atoms = A(OTHER);
	}

	/* 3. the operator, 4. the modules: a MoE router's or block's generic computations
	 * (top-k, softmax, sort, scan; the sum of the experts), else whatever the name said
	 * nothing specific about */
	if (out->source == SOURCE_NAME || out->source == SOURCE_NONE) {
		const char *fn = op_name ? strrchr(op_name, ':') : NULL;
		enum op_class role = moe_role(modules, oe && oe->prim ? oe->prim : rule_prim);
		uint32_t plain = 1u << CLASS_SORT | 1u << CLASS_REDUCE | 1u << CLASS_ELEMENTWISE |
				 1u << CLASS_COPY | 1u << CLASS_OTHER;

		if (role != CLASS_COUNT && (plain & (1u << out->cls))) {
			out->rule = RULE_NONE;
			out->source = SOURCE_MODULE;
			out->cls = (uint8_t)role;
			out->atoms = (out->atoms & ~A(OTHER)) |
				     (role == CLASS_MOE_ROUTING ? A(ROUTING) : A(REDUCE));
		} else if (!name_generic && out->source != SOURCE_NONE) {
			/* the name decided */
		} else if (oe && oe->cls != CLASS_ELEMENTWISE) {
			out->rule = RULE_OPERATOR;
			out->source = SOURCE_OPERATOR;
			out->cls = oe->cls;
			out->atoms = oe->atoms;
			out->aux = out->decode_attn = 0;
		} else if (op_name && !oe && fn && strncmp(op_name, "aten::", 6) != 0 &&
			   (ri = rules_first(&c->names, fn + 1, NULL, NULL)) >= 0 &&
			   !c->names.rules[ri].generic) {
			/* a custom operator (vllm::, _C::, sglang::, ...) named after what it does */
			take_rule(out, &c->names.rules[ri], (int)base_names + ri, SOURCE_OPERATOR);
		} else if ((ri = rules_first(&c->ops, op_name, NULL, NULL)) >= 0) {
			take_rule(out, &c->ops.rules[ri], (int)(base_ops + (size_t)ri),
				  SOURCE_OPERATOR);
		} else if ((ri = rules_first(&c->modules, modules, NULL, NULL)) >= 0) {
			take_rule(out, &c->modules.rules[ri], (int)(base_mods + (size_t)ri),
				  SOURCE_MODULE);
		} else if (oe && out->source == SOURCE_NONE) {
			out->rule = RULE_OPERATOR;
			out->source = SOURCE_OPERATOR;
			out->cls = oe->cls;
			out->atoms = oe->atoms;
		}
	}

	/* modifiers: what the template arguments and the operator add (not to a user's rule,
	 * which says exactly what the kernel is) */
	if (out->source != SOURCE_RULES_FILE) {
		struct modify m = { out };

		rules_each(&c->mod_head, head, apply_modifier, &m);
		rules_each(&c->mod_targs, targs, apply_modifier, &m);
		rules_each(&c->mod_op, op_name, apply_modifier, &m);
		apply_flags(out, text, &np);
	}

	/* the elementary eager op: from the operator when it names one, else from the rule;
	 * an aten::copy_ whose kernel converts dtypes is a cast */
	if (oe && oe->prim &&
	    !(rule_prim && strcmp(rule_prim, "cast") == 0 && strcmp(oe->prim, "copy") == 0))
		out->prim = oe->prim;
	else
		out->prim = rule_prim;

	names_short(text, sbuf, sizeof sbuf);
	if (op_name && oe && oe->prim && !strchr(sbuf, '<') && is_generic_template(sbuf))
		out->short_name = xasprintf("%s<%s>", sbuf, op_name + 6);
	else
		out->short_name = xstrdup(sbuf);
	out->ops_name = inductor_ops_name(kernel_name);
	free(head);
	free(targs);
}

void kernel_info_clear(struct kernel_info *ki)
{
	free(ki->short_name);
	free(ki->demangled);
	free(ki->ops_name);
	ki->short_name = ki->demangled = ki->ops_name = NULL;
}

/* --- one trace ------------------------------------------------------------------------------ */

struct slot {
	uint32_t name, op, ctx; /* op, ctx: UINT32_MAX for none */
	uint32_t info;		/* UINT32_MAX: empty */
	uint8_t kind;
};

static uint64_t slot_hash(uint32_t name, uint32_t op, uint32_t ctx, uint8_t kind)
{
	uint64_t h = ((uint64_t)name << 32 | op) ^ ((uint64_t)kind << 61) ^
		     ((uint64_t)ctx * 0x9e3779b97f4a7c15ull);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Double the table of distinct (name, operator, modules, kind) keys and put its slots back. */
static struct slot *slots_grow(struct slot *tab, size_t *cap)
{
	size_t ncap = *cap * 2;
	struct slot *nt = xmalloc(ncap * sizeof *nt);

	for (size_t i = 0; i < ncap; i++)
		nt[i].info = UINT32_MAX;
	for (size_t i = 0; i < *cap; i++) {
		size_t h;

		if (tab[i].info == UINT32_MAX)
			continue;
		h = (size_t)slot_hash(tab[i].name, tab[i].op, tab[i].ctx, tab[i].kind) & (ncap - 1);
		while (nt[h].info != UINT32_MAX)
			h = (h + 1) & (ncap - 1);
		nt[h] = tab[i];
	}
	free(tab);
	*cap = ncap;
	return nt;
}

#define MODULE_PREFIX "nn.Module: "
#define MODULE_DEPTH  3 /* module classes in a kernel's context */

/* The class of a module range: "LlamaDecoderLayer" of "nn.Module: LlamaDecoderLayer_3". */
static size_t module_class(const char *name, const char **cls)
{
	size_t n, d;

	if (strncmp(name, MODULE_PREFIX, sizeof MODULE_PREFIX - 1) == 0)
		name += sizeof MODULE_PREFIX - 1;
	n = strlen(name);
	d = n;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d < n && d > 1 && name[d - 1] == '_')
		n = d - 1;
	*cls = name;
	return n;
}

/* The module context of every module range that kernels launch in: "Conv2d < BasicBlock <
 * Sequential", as ids into ctx (built on demand, one per range). */
struct contexts {
	const struct trace *t;
	uint32_t *parent;
	uint32_t *of_range; /* per range: id in names, UINT32_MAX not made yet */
	struct intern *names;
};

static uint32_t context_of(struct contexts *cx, uint32_t range)
{
	char buf[512];
	size_t len = 0;
	uint32_t r = range;

	if (cx->of_range[range] != UINT32_MAX)
		return cx->of_range[range];
	for (int d = 0; d < MODULE_DEPTH && r != UINT32_MAX; d++, r = cx->parent[r]) {
		const char *c;
		size_t n = module_class(trace_str(cx->t, cx->t->ranges[r].name), &c);
		int w = snprintf(buf + len, sizeof buf - len, "%s%.*s", d ? " < " : "", (int)n, c);

		if (w < 0 || (size_t)w >= sizeof buf - len)
			break;
		len += (size_t)w;
	}
	return cx->of_range[range] = intern_add(cx->names, buf, len);
}

void classify_trace(const struct classifier *c, const struct trace *t, struct trace_classes *out)
{
	size_t cap = 256, infos_cap = 0, n_infos = 0;
	struct slot *tab;
	struct kernel_info *infos = NULL;
	uint32_t *op_of, *launch_of, *module_of = NULL;
	struct contexts cx = { t, NULL, NULL, NULL };
	int64_t total = 0, other = 0;

	memset(out, 0, sizeof *out);
	/* The table holds the distinct keys (a few hundred in a real trace, however long): it
	 * stays in the cache, where one sized by the kernels would not. */
	tab = xmalloc(cap * sizeof *tab);
	for (size_t i = 0; i < cap; i++)
		tab[i].info = UINT32_MAX;
	out->info_of = big_alloc(t->n_kernels, sizeof *out->info_of);
	/* each kernel's operator and launch, found in one pass; the operators are written over
	 * by the info indices below */
	op_of = out->info_of;
	launch_of = big_alloc(t->n_kernels, sizeof *launch_of);
	trace_link_kernels(t, launch_of, op_of);
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].kind == RANGE_MODULE) {
			module_of = launch_of; /* the launches are not needed after this */
			cx.parent = xmalloc(t->n_ranges * sizeof *cx.parent);
			cx.of_range = xmalloc(t->n_ranges * sizeof *cx.of_range);
			memset(cx.of_range, 0xff, t->n_ranges * sizeof *cx.of_range);
			cx.names = intern_new();
			{
				uint32_t *m = big_alloc(t->n_kernels, sizeof *m);

				trace_module_calls(t, launch_of, m, cx.parent);
				memcpy(module_of, m, t->n_kernels * sizeof *m);
				free(m);
			}
			break;
		}

	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct trace_kernel *tk = &t->kernels[k];
		const struct trace_op *op = op_of[k] != UINT32_MAX ? &t->ops[op_of[k]] : NULL;
		uint32_t opid = op ? op->name : UINT32_MAX;
		uint32_t ctx = module_of && module_of[k] != UINT32_MAX
				       ? context_of(&cx, module_of[k])
				       : UINT32_MAX;
		size_t h = (size_t)slot_hash(tk->name, opid, ctx, tk->kind) & (cap - 1);

		while (tab[h].info != UINT32_MAX &&
		       !(tab[h].name == tk->name && tab[h].op == opid && tab[h].ctx == ctx &&
			 tab[h].kind == tk->kind))
			h = (h + 1) & (cap - 1);
		if (tab[h].info == UINT32_MAX) {
			struct kernel_info ki;

			classify_kernel(c, trace_str(t, tk->name),
					op ? trace_str(t, op->name) : NULL,
					ctx != UINT32_MAX ? intern_str(cx.names, ctx) : NULL, &ki);
			if (tk->kind != KIND_KERNEL) {
				ki.cls = CLASS_COPY;
				ki.atoms = A(COPY);
				ki.aux = ki.decode_attn = 0;
				ki.prim = tk->kind == KIND_MEMSET ? "fill" : "copy";
			}
			VEC_PUSH(infos, n_infos, infos_cap, ki);
			tab[h] = (struct slot){ tk->name, opid, ctx, (uint32_t)(n_infos - 1),
						tk->kind };
			out->info_of[k] = tab[h].info;
			if (n_infos * 2 > cap)
				tab = slots_grow(tab, &cap);
			continue;
		}
		out->info_of[k] = tab[h].info;
	}
	free(tab);
	free(launch_of);
	free(cx.parent);
	free(cx.of_range);
	if (cx.names)
		intern_free(cx.names);

	for (size_t k = 0; k < t->n_kernels; k++) {
		if (t->kernels[k].kind != KIND_KERNEL)
			continue;
		total += t->kernels[k].dur;
		if (infos[out->info_of[k]].cls == CLASS_OTHER)
			other += t->kernels[k].dur;
	}
	out->infos = infos;
	out->n_infos = n_infos;
	out->other_share = total > 0 ? (double)other / (double)total : 0.0;
}

void trace_classes_clear(struct trace_classes *tc)
{
	for (size_t i = 0; i < tc->n_infos; i++)
		kernel_info_clear(&tc->infos[i]);
	free(tc->infos);
	free(tc->info_of);
	memset(tc, 0, sizeof *tc);
}
