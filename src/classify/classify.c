/* classify.c — kernel name → operation class and atoms (see classify.h).
 *
 * Order of decision for one kernel: user rules (--rules FILE, then the per-user default file),
 * the Inductor name decoder, the built-in rules (rules_builtin.c), the launching aten operator,
 * else class Other. Patterns are POSIX extended regular expressions compiled once per
 * classifier and matched case-insensitively anywhere in the name. */
#include "fusediff/classify.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "fusediff/bigmem.h"
#include "fusediff/names.h"
#include "fusediff/regex_guard.h"

/* Names longer than this are matched on their first MATCH_MAX bytes: what a kernel is shows
 * early in its name, and regexec on megabyte names would cost seconds. */
#define MATCH_MAX 8192

static const char *const class_names[CLASS_COUNT] = {
	"GEMM",	     "Attention",   "Norm",	   "Activation",   "RoPE",     "KV write",
	"Embedding", "MoE routing", "MoE GEMM",	   "MoE finalize", "Quantize", "Sampling",
	"Comm",	     "Copy",	    "Elementwise", "Reduce",	   "Sort",     "Other",
};

static const char *const atom_names[ATOM_COUNT] = {
	"gemm",	    "attention", "rmsnorm",  "layernorm", "add",   "mul",     "silu",  "gelu",
	"act",	    "rope",	 "kv_write", "embedding", "quant", "softmax", "topk",  "routing",
	"moe_gemm", "reduce",	 "copy",     "cast",	  "comm",  "sample",  "other",
};

const char *class_name(enum op_class c)
{
	return (unsigned)c < CLASS_COUNT ? class_names[c] : "?";
}

/* s equals want, ignoring case and treating ' ', '_' and '-' alike. */
static int name_eq(const char *s, size_t len, const char *want)
{
	size_t i;

	for (i = 0; i < len && want[i]; i++) {
		int a = tolower((unsigned char)s[i]), b = tolower((unsigned char)want[i]);

		if (a == '_' || a == '-')
			a = ' ';
		if (b == '_' || b == '-')
			b = ' ';
		if (a != b)
			return 0;
	}
	return i == len && !want[i];
}

int class_from_name(const char *s)
{
	static const struct {
		const char *alias;
		enum op_class c;
	} aliases[] = {
		{ "communication", CLASS_COMM }, { "kvwrite", CLASS_KV_WRITE },
		{ "kv cache", CLASS_KV_WRITE },	 { "memcpy", CLASS_COPY },
		{ "quant", CLASS_QUANTIZE },	 { "activation", CLASS_ACTIVATION },
		{ "act", CLASS_ACTIVATION },	 { "rope", CLASS_ROPE },
		{ "norm", CLASS_NORM },		 { "softmax", CLASS_REDUCE },
	};
	size_t len = strlen(s);

	for (int c = 0; c < CLASS_COUNT; c++)
		if (name_eq(s, len, class_names[c]))
			return c;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (name_eq(s, len, aliases[i].alias))
			return (int)aliases[i].c;
	return -1;
}

const char *atom_name(enum atom a)
{
	return (unsigned)a < ATOM_COUNT ? atom_names[a] : "?";
}

int atom_from_name(const char *s, size_t len)
{
	for (int a = 0; a < ATOM_COUNT; a++)
		if (strlen(atom_names[a]) == len && strncasecmp(s, atom_names[a], len) == 0)
			return a;
	return -1;
}

char *atoms_format(atom_set atoms, const char *sep, char *buf, size_t cap)
{
	size_t n = 0, sl = strlen(sep);

	if (!cap)
		return buf;
	buf[0] = '\0';
	if (!atoms) {
		snprintf(buf, cap, "-");
		return buf;
	}
	for (int a = 0; a < ATOM_COUNT; a++) {
		size_t al;

		if (!(atoms & ATOM_BIT(a)))
			continue;
		al = strlen(atom_names[a]);
		if (n + (n ? sl : 0) + al >= cap)
			break; /* only whole names */
		if (n) {
			memcpy(buf + n, sep, sl);
			n += sl;
		}
		memcpy(buf + n, atom_names[a], al);
		n += al;
		buf[n] = '\0';
	}
	return buf;
}

enum op_class classify_class_of_atoms(atom_set a)
{
	static const struct {
		atom_set atoms;
		enum op_class c;
	} order[] = {
		{ A(ATTENTION), CLASS_ATTENTION },
		{ A(GEMM), CLASS_GEMM },
		{ A(MOE_GEMM), CLASS_MOE_GEMM },
		{ A(RMSNORM) | A(LAYERNORM), CLASS_NORM },
		{ A(ROPE), CLASS_ROPE },
		{ A(KV_WRITE), CLASS_KV_WRITE },
		{ A(SILU) | A(GELU) | A(ACT), CLASS_ACTIVATION },
		{ A(COMM), CLASS_COMM },
		{ A(ROUTING), CLASS_MOE_ROUTING },
		{ A(EMBEDDING), CLASS_EMBEDDING },
		{ A(QUANT), CLASS_QUANTIZE },
		{ A(SAMPLE) | A(TOPK), CLASS_SAMPLING },
		{ A(SOFTMAX) | A(REDUCE), CLASS_REDUCE },
		{ A(ADD) | A(MUL) | A(CAST) | A(OTHER), CLASS_ELEMENTWISE },
		{ A(COPY), CLASS_COPY },
	};

	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (a & order[i].atoms)
			return order[i].c;
	return CLASS_OTHER;
}

/* --- operators ----------------------------------------------------------------------------- */

/* aten operators: the elementary op they are (prim) and, for kernels that no rule knows, the
 * class and atoms they imply. Looked up by the name without "aten::" and without leading and
 * trailing underscores ("aten::_index_put_impl_" -> "index_put_impl"). */
static const struct op_entry {
	const char *op, *prim;
	uint8_t cls;
	atom_set atoms;
} op_table[] = {
	{ "pow", "pow", CLASS_ELEMENTWISE, A(OTHER) },
	{ "mean", "mean", CLASS_REDUCE, A(REDUCE) },
	{ "rsqrt", "rsqrt", CLASS_ELEMENTWISE, A(OTHER) },
	{ "sqrt", "sqrt", CLASS_ELEMENTWISE, A(OTHER) },
	{ "mul", "mul", CLASS_ELEMENTWISE, A(MUL) },
	{ "add", "add", CLASS_ELEMENTWISE, A(ADD) },
	{ "sub", "sub", CLASS_ELEMENTWISE, A(ADD) },
	{ "rsub", "sub", CLASS_ELEMENTWISE, A(ADD) },
	{ "div", "div", CLASS_ELEMENTWISE, A(OTHER) },
	{ "floor_divide", "div", CLASS_ELEMENTWISE, A(OTHER) },
	{ "neg", "neg", CLASS_ELEMENTWISE, A(OTHER) },
	{ "exp", "exp", CLASS_ELEMENTWISE, A(OTHER) },
	{ "log", "log", CLASS_ELEMENTWISE, A(OTHER) },
	{ "cos", "cos", CLASS_ELEMENTWISE, A(OTHER) },
	{ "sin", "sin", CLASS_ELEMENTWISE, A(OTHER) },
	{ "tanh", "tanh", CLASS_ELEMENTWISE, A(OTHER) },
	{ "where", "where", CLASS_ELEMENTWISE, A(OTHER) },
	{ "masked_fill", "masked_fill", CLASS_ELEMENTWISE, A(OTHER) },
	{ "clamp", "clamp", CLASS_ELEMENTWISE, A(OTHER) },
	{ "arange", "arange", CLASS_ELEMENTWISE, A(OTHER) },
	{ "eq", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "ne", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "lt", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "le", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "gt", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "ge", "compare", CLASS_ELEMENTWISE, A(OTHER) },
	{ "random", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "uniform", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "normal", "random", CLASS_ELEMENTWISE, A(OTHER) },
	{ "silu", "silu", CLASS_ACTIVATION, A(SILU) },
	{ "gelu", "gelu", CLASS_ACTIVATION, A(GELU) },
	{ "relu", "relu", CLASS_ACTIVATION, A(ACT) },
	{ "sigmoid", "sigmoid", CLASS_ACTIVATION, A(ACT) },
	{ "copy", "copy", CLASS_COPY, A(COPY) },
	{ "to_copy", "cast", CLASS_ELEMENTWISE, A(CAST) },
	{ "cat", "cat", CLASS_COPY, A(COPY) },
	{ "fill", "fill", CLASS_COPY, A(COPY) },
	{ "zero", "fill", CLASS_COPY, A(COPY) },
	{ "index", "index", CLASS_COPY, A(COPY) },
	{ "index_put", "index_put", CLASS_COPY, A(COPY) },
	{ "index_put_impl", "index_put", CLASS_COPY, A(COPY) },
	{ "gather", "gather", CLASS_COPY, A(COPY) },
	{ "scatter", "scatter", CLASS_COPY, A(COPY) },
	{ "scatter_add", "scatter", CLASS_COPY, A(COPY) },
	{ "index_select", "index_select", CLASS_EMBEDDING, A(EMBEDDING) },
	{ "embedding", "embedding", CLASS_EMBEDDING, A(EMBEDDING) },
	{ "softmax", "softmax", CLASS_REDUCE, A(SOFTMAX) },
	{ "log_softmax", "softmax", CLASS_REDUCE, A(SOFTMAX) },
	{ "sum", "sum", CLASS_REDUCE, A(REDUCE) },
	{ "cumsum", "cumsum", CLASS_REDUCE, A(REDUCE) },
	{ "all", "all", CLASS_REDUCE, A(REDUCE) },
	{ "any", "any", CLASS_REDUCE, A(REDUCE) },
	{ "max", "max", CLASS_REDUCE, A(REDUCE) },
	{ "amax", "max", CLASS_REDUCE, A(REDUCE) },
	{ "min", "min", CLASS_REDUCE, A(REDUCE) },
	{ "histc", "histc", CLASS_REDUCE, A(REDUCE) },
	{ "argmax", "argmax", CLASS_SAMPLING, A(SAMPLE) },
	{ "multinomial", "sample", CLASS_SAMPLING, A(SAMPLE) },
	{ "topk", "topk", CLASS_SAMPLING, A(TOPK) },
	{ "sort", "sort", CLASS_SORT, A(OTHER) },
	{ "mm", "mm", CLASS_GEMM, A(GEMM) },
	{ "bmm", "bmm", CLASS_GEMM, A(GEMM) },
	{ "addmm", "addmm", CLASS_GEMM, A(GEMM) },
	{ "baddbmm", "bmm", CLASS_GEMM, A(GEMM) },
	{ "matmul", "mm", CLASS_GEMM, A(GEMM) },
	{ "linear", "mm", CLASS_GEMM, A(GEMM) },
	{ "grouped_mm", NULL, CLASS_MOE_GEMM, A(MOE_GEMM) },
	{ "layer_norm", "layer_norm", CLASS_NORM, A(LAYERNORM) },
	{ "native_layer_norm", "layer_norm", CLASS_NORM, A(LAYERNORM) },
	{ "rms_norm", "rms_norm", CLASS_NORM, A(RMSNORM) },
	{ "fused_rms_norm", "rms_norm", CLASS_NORM, A(RMSNORM) },
	{ "flash_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "efficient_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "cudnn_attention_forward", NULL, CLASS_ATTENTION, A(ATTENTION) },
	{ "scaled_dot_product_attention", NULL, CLASS_ATTENTION, A(ATTENTION) },
};

static const struct op_entry *op_lookup(const char *op)
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
	for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
		if (strlen(op_table[i].op) == (size_t)(e - b) &&
		    memcmp(op_table[i].op, b, (size_t)(e - b)) == 0)
			return &op_table[i];
	return NULL;
}

/* --- rules --------------------------------------------------------------------------------- */

struct rule {
	regex_t re, op_re;
	int has_op;
	uint8_t cls, aux, decode;
	atom_set atoms;
	const char *prim; /* static, or prim_owned */
	char *prim_owned;
	char *text;
};

struct classifier {
	struct rule *rules;
	size_t n_rules, cap;
	size_t n_user; /* rules[0, n_user) come from files and are tried before the decoder */
};

static void rule_free(struct rule *r)
{
	regfree(&r->re);
	if (r->has_op)
		regfree(&r->op_re);
	free(r->prim_owned);
	free(r->text);
}

void classifier_free(struct classifier *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_rules; i++)
		rule_free(&c->rules[i]);
	free(c->rules);
	free(c);
}

/* Compile re; on failure write regerror's words into msg. */
static int compile(regex_t *re, const char *pattern, char *msg, size_t cap)
{
	int rc;

	if (regex_guard(pattern, msg, cap) < 0)
		return -1;
	rc = regcomp(re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, re, msg, cap);
		regfree(re);
		return -1;
	}
	return 0;
}

static char *rule_describe(const char *origin, const char *pattern, const char *op, uint8_t cls,
			   atom_set atoms, int aux, int decode)
{
	char ab[256];

	return xasprintf("%s: /%s/%s%s%s -> %s %s%s%s", origin, pattern, op ? " op=/" : "",
			 op ? op : "", op ? "/" : "", class_name(cls),
			 atoms_format(atoms, "+", ab, sizeof ab), aux ? " aux" : "",
			 decode ? " decode" : "");
}

static void add_builtins(struct classifier *c)
{
	for (size_t i = 0; i < classify_n_builtin_rules; i++) {
		const struct builtin_rule *b = &classify_builtin_rules[i];
		struct rule r = { 0 };
		char msg[256];

		if (compile(&r.re, b->pattern, msg, sizeof msg) < 0)
			die("built-in rule %zu: bad pattern /%s/: %s", i, b->pattern, msg);
		if (b->op) {
			if (compile(&r.op_re, b->op, msg, sizeof msg) < 0)
				die("built-in rule %zu: bad operator pattern /%s/: %s", i, b->op,
				    msg);
			r.has_op = 1;
		}
		r.cls = b->cls;
		r.atoms = b->atoms;
		r.aux = b->aux;
		r.decode = b->decode;
		r.prim = b->prim;
		r.text = rule_describe("built-in", b->pattern, b->op, b->cls, b->atoms, b->aux,
				       b->decode);
		VEC_PUSH(c->rules, c->n_rules, c->cap, r);
	}
}

/* Split the next blank-separated field off *p; NULL at the end of the line. */
static char *next_field(char **p)
{
	char *s = *p, *start;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	start = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return start;
}

/* Parse one rules line (comment and blank lines give 0 and no rule). Returns 1 with *out
 * filled, 0 for nothing, -1 with msg set. */
static int parse_line(char *line, const char *origin, struct rule *out, char *msg, size_t cap)
{
	char *p = line, *fcls, *fatoms, *fre, *f, *op = NULL;
	char rmsg[256];
	int cls;
	atom_set atoms = 0;
	struct rule r = { 0 };

	/* a comment starts with # at the start of a field */
	for (char *q = line; *q; q++)
		if (*q == '#' && (q == line || q[-1] == ' ' || q[-1] == '\t')) {
			*q = '\0';
			break;
		}
	if (!(fcls = next_field(&p)))
		return 0;
	fatoms = next_field(&p);
	fre = fatoms ? next_field(&p) : NULL;
	if (!fre) {
		snprintf(msg, cap, "expected CLASS ATOMS REGEX [FLAGS], got '%s'", fcls);
		return -1;
	}
	if ((cls = class_from_name(fcls)) < 0) {
		snprintf(msg, cap, "unknown class '%s'", fcls);
		return -1;
	}
	if (strcmp(fatoms, "-") != 0) {
		for (const char *a = fatoms; *a;) {
			size_t len = strcspn(a, "+,");
			int at = atom_from_name(a, len);

			if (at < 0) {
				snprintf(msg, cap, "unknown atom '%.*s'", (int)len, a);
				return -1;
			}
			atoms |= ATOM_BIT(at);
			a += len;
			if (*a)
				a++;
		}
	}
	r.cls = (uint8_t)cls;
	r.atoms = atoms;
	while ((f = next_field(&p))) {
		if (strcmp(f, "aux") == 0)
			r.aux = 1;
		else if (strcmp(f, "decode") == 0)
			r.decode = 1;
		else if (strncmp(f, "op=", 3) == 0 && f[3])
			op = f + 3;
		else if (strncmp(f, "prim=", 5) == 0 && f[5]) {
			free(r.prim_owned); /* a repeated prim= replaces the first */
			r.prim = r.prim_owned = xstrdup(f + 5);
		} else {
			snprintf(msg, cap, "unknown flag '%s' (expected %s)", f,
				 "aux, decode, op=REGEX or prim=NAME");
			free(r.prim_owned);
			return -1;
		}
	}
	if (compile(&r.re, fre, rmsg, sizeof rmsg) < 0) {
		snprintf(msg, cap, "bad regular expression '%s': %s", fre, rmsg);
		free(r.prim_owned);
		return -1;
	}
	if (op) {
		if (compile(&r.op_re, op, rmsg, sizeof rmsg) < 0) {
			snprintf(msg, cap, "bad regular expression '%s': %s", op, rmsg);
			regfree(&r.re);
			free(r.prim_owned);
			return -1;
		}
		r.has_op = 1;
	}
	r.text = rule_describe(origin, fre, op, r.cls, r.atoms, r.aux, r.decode);
	*out = r;
	return 1;
}

/* Read the rules of one file. missing_ok: a file that does not exist adds nothing. */
static int load_file(struct classifier *c, const char *path, int missing_ok, struct fd_error *err)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	long lineno = 0;
	int rc = 0;

	if (!fp) {
		if (missing_ok && errno == ENOENT)
			return 0;
		fd_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &lcap, fp)) >= 0) {
		char msg[512], *origin;
		struct rule r;
		int got;

		lineno++;
		if ((size_t)len != strlen(line)) {
			fd_error_set(err, "%s: line %ld: NUL byte in line", path, lineno);
			rc = -1;
			break;
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		origin = xasprintf("%s:%ld", path, lineno);
		got = parse_line(line, origin, &r, msg, sizeof msg);
		free(origin);
		if (got < 0) {
			fd_error_set(err, "%s: line %ld: %s", path, lineno, msg);
			rc = -1;
			break;
		}
		if (got)
			VEC_PUSH(c->rules, c->n_rules, c->cap, r);
	}
	if (rc == 0 && ferror(fp)) {
		fd_error_set(err, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	free(line);
	fclose(fp);
	return rc;
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
	if (rules_path && load_file(c, rules_path, 0, err) < 0)
		goto fail;
	if (dp && (!rules_path || strcmp(dp, rules_path) != 0) && load_file(c, dp, 1, err) < 0)
		goto fail;
	c->n_user = c->n_rules;
	add_builtins(c);
	*out = c;
	return 0;
fail:
	classifier_free(c);
	return -1;
}

const char *classifier_rule_text(const struct classifier *c, int i)
{
	if (i >= 0 && (size_t)i < c->n_rules)
		return c->rules[i].text;
	if (i == RULE_INDUCTOR)
		return "Inductor kernel name (triton_*_fused_*)";
	if (i == RULE_OPERATOR)
		return "launching operator";
	return "no rule matched";
}

/* --- classification ------------------------------------------------------------------------ */

static int rule_matches(const struct rule *r, const char *text, const char *raw, const char *op)
{
	if (r->has_op && (!op || regexec(&r->op_re, op, 0, NULL, 0) != 0))
		return 0;
	if (regexec(&r->re, text, 0, NULL, 0) == 0)
		return 1;
	return raw && regexec(&r->re, raw, 0, NULL, 0) == 0;
}

static int match_range(const struct classifier *c, size_t from, size_t to, const char *text,
		       const char *raw, const char *op)
{
	for (size_t i = from; i < to; i++)
		if (rule_matches(&c->rules[i], text, raw, op))
			return (int)i;
	return -1;
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
		     struct kernel_info *out)
{
	char *text_cap = NULL, *raw_cap = NULL, sbuf[256];
	const char *text, *raw = NULL;
	const struct op_entry *oe = op_lookup(op_name);
	const char *rule_prim = NULL;
	int ri;

	memset(out, 0, sizeof *out);
	out->rule = RULE_INDUCTOR;
	if (op_name && !*op_name)
		op_name = NULL;
	if (strlen(kernel_name) < (1u << 16))
		out->demangled = names_demangle(kernel_name);
	text = out->demangled ? out->demangled : kernel_name;
	if (out->demangled)
		raw = kernel_name;
	if (strlen(text) > MATCH_MAX)
		text = text_cap = xstrndup(text, MATCH_MAX);
	if (raw && strlen(raw) > MATCH_MAX)
		raw = raw_cap = xstrndup(raw, MATCH_MAX);

	if ((ri = match_range(c, 0, c->n_user, text, raw, op_name)) < 0 &&
	    inductor_decode(kernel_name, &out->cls, &out->atoms) == 0) {
		/* decided by the Inductor decoder */
	} else if (ri >= 0 ||
		   (ri = match_range(c, c->n_user, c->n_rules, text, raw, op_name)) >= 0) {
		const struct rule *r = &c->rules[ri];

		out->rule = ri;
		out->cls = r->cls;
		out->atoms = r->atoms;
		out->aux = r->aux;
		out->decode_attn = r->decode;
		rule_prim = r->prim;
	} else if (oe) {
		out->rule = RULE_OPERATOR;
		out->cls = oe->cls;
		out->atoms = oe->atoms;
	} else {
		out->rule = RULE_NONE;
		out->cls = CLASS_OTHER;
		out->atoms = A(OTHER);
	}

	/* the elementary eager op: from the operator when it names one, else from the rule;
	 * an aten::copy_ whose kernel converts dtypes is a cast */
	if (oe && oe->prim &&
	    !(rule_prim && strcmp(rule_prim, "cast") == 0 && strcmp(oe->prim, "copy") == 0))
		out->prim = oe->prim;
	else
		out->prim = rule_prim;

	names_short(text, sbuf, sizeof sbuf);
	if (op_name && oe && oe->prim && !strchr(sbuf, '<') && is_generic_template(sbuf)) {
		char *s = xasprintf("%s<%s>", sbuf, op_name + 6);

		out->short_name = s;
	} else {
		out->short_name = xstrdup(sbuf);
	}
	free(text_cap);
	free(raw_cap);
}

void kernel_info_clear(struct kernel_info *ki)
{
	free(ki->short_name);
	free(ki->demangled);
	ki->short_name = ki->demangled = NULL;
}

/* --- one trace ------------------------------------------------------------------------------ */

struct slot {
	uint32_t name, op; /* op: UINT32_MAX for none */
	uint32_t info;	   /* UINT32_MAX: empty */
	uint8_t kind;
};

static uint64_t slot_hash(uint32_t name, uint32_t op, uint8_t kind)
{
	uint64_t h = ((uint64_t)name << 32 | op) ^ ((uint64_t)kind << 61);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* What a generic kernel is in a model that runs MoE expert GEMMs: its router (scores, top-k
 * experts, tokens sorted and counted per expert, expert offsets) or the combine of the
 * experts' outputs (the sum over the top-k); CLASS_COUNT for neither. */
static enum op_class moe_role(const char *prim)
{
	static const char *const routing[] = { "topk", "softmax", "sort", "histc", "cumsum" };

	if (!prim)
		return CLASS_COUNT;
	for (size_t i = 0; i < sizeof routing / sizeof routing[0]; i++)
		if (strcmp(prim, routing[i]) == 0)
			return CLASS_MOE_ROUTING;
	return strcmp(prim, "sum") == 0 ? CLASS_MOE_FINALIZE : CLASS_COUNT;
}

/* Double the table of distinct (name, operator, kind) triples and put its slots back. */
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
		h = (size_t)slot_hash(tab[i].name, tab[i].op, tab[i].kind) & (ncap - 1);
		while (nt[h].info != UINT32_MAX)
			h = (h + 1) & (ncap - 1);
		nt[h] = tab[i];
	}
	free(tab);
	*cap = ncap;
	return nt;
}

void classify_trace(const struct classifier *c, const struct trace *t, struct trace_classes *out)
{
	size_t cap = 256, infos_cap = 0, n_infos = 0;
	struct slot *tab;
	struct kernel_info *infos = NULL;
	uint32_t *op_of;
	int64_t total = 0, other = 0;
	int moe = 0;

	memset(out, 0, sizeof *out);
	/* The table holds the distinct triples (a few hundred in a real trace, however long):
	 * it stays in the cache, where one sized by the kernels would not. */
	tab = xmalloc(cap * sizeof *tab);
	for (size_t i = 0; i < cap; i++)
		tab[i].info = UINT32_MAX;
	out->info_of = big_alloc(t->n_kernels, sizeof *out->info_of);
	/* each kernel's operator, found in one pass; written over by the info indices below */
	op_of = out->info_of;
	trace_link_kernels(t, NULL, op_of);

	for (size_t k = 0; k < t->n_kernels; k++) {
		const struct trace_kernel *tk = &t->kernels[k];
		const struct trace_op *op = op_of[k] != UINT32_MAX ? &t->ops[op_of[k]] : NULL;
		uint32_t opid = op ? op->name : UINT32_MAX;
		size_t h = (size_t)slot_hash(tk->name, opid, tk->kind) & (cap - 1);

		while (tab[h].info != UINT32_MAX &&
		       !(tab[h].name == tk->name && tab[h].op == opid && tab[h].kind == tk->kind))
			h = (h + 1) & (cap - 1);
		if (tab[h].info == UINT32_MAX) {
			struct kernel_info ki;

			classify_kernel(c, trace_str(t, tk->name),
					op ? trace_str(t, op->name) : NULL, &ki);
			if (tk->kind != KIND_KERNEL) {
				ki.cls = CLASS_COPY;
				ki.atoms = A(COPY);
				ki.aux = ki.decode_attn = 0;
				ki.prim = tk->kind == KIND_MEMSET ? "fill" : "copy";
			}
			if (ki.cls == CLASS_MOE_GEMM && !ki.aux)
				moe = 1;
			VEC_PUSH(infos, n_infos, infos_cap, ki);
			tab[h] = (struct slot){ tk->name, opid, (uint32_t)(n_infos - 1), tk->kind };
			out->info_of[k] = tab[h].info;
			if (n_infos * 2 > cap)
				tab = slots_grow(tab, &cap);
			continue;
		}
		out->info_of[k] = tab[h].info;
	}
	free(tab);

	/* In a model with MoE expert GEMMs, the generic top-k, softmax, sort, histogram and
	 * scan kernels are its router, a sum is the combine (unless a user rule said so). */
	if (moe)
		for (size_t i = 0; i < n_infos; i++) {
			enum op_class role = moe_role(infos[i].prim);

			if ((infos[i].rule >= 0 && (size_t)infos[i].rule < c->n_user) ||
			    role == CLASS_COUNT || infos[i].cls == CLASS_MOE_ROUTING ||
			    infos[i].cls == CLASS_MOE_FINALIZE)
				continue;
			infos[i].cls = (uint8_t)role;
			if (role == CLASS_MOE_ROUTING)
				infos[i].atoms |= A(ROUTING);
		}

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
