/* taxonomy.c — the names of the operation classes, atoms and class sources, and the class a
 * fused kernel's atoms suggest (see classify.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "classify_int.h"

static const char *const class_names[CLASS_COUNT] = {
	[CLASS_GEMM] = "GEMM",
	[CLASS_CONV] = "Conv",
	[CLASS_ATTENTION] = "Attention",
	[CLASS_NORM] = "Norm",
	[CLASS_ACTIVATION] = "Activation",
	[CLASS_ROPE] = "RoPE",
	[CLASS_KV_WRITE] = "KV write",
	[CLASS_EMBEDDING] = "Embedding",
	[CLASS_MOE_ROUTING] = "MoE routing",
	[CLASS_MOE_GEMM] = "MoE GEMM",
	[CLASS_MOE_FINALIZE] = "MoE finalize",
	[CLASS_QUANTIZE] = "Quantize",
	[CLASS_SAMPLING] = "Sampling",
	[CLASS_COMM] = "Comm",
	[CLASS_COPY] = "Copy",
	[CLASS_ELEMENTWISE] = "Elementwise",
	[CLASS_REDUCE] = "Reduce",
	[CLASS_SORT] = "Sort",
	[CLASS_OPTIMIZER] = "Optimizer",
	[CLASS_OTHER] = "Other",
};

static const char *const atom_names[ATOM_COUNT] = {
	[ATOM_GEMM] = "gemm",	      [ATOM_ATTENTION] = "attention",
	[ATOM_RMSNORM] = "rmsnorm",   [ATOM_LAYERNORM] = "layernorm",
	[ATOM_ADD] = "add",	      [ATOM_MUL] = "mul",
	[ATOM_SILU] = "silu",	      [ATOM_GELU] = "gelu",
	[ATOM_ACT] = "act",	      [ATOM_ROPE] = "rope",
	[ATOM_KV_WRITE] = "kv_write", [ATOM_EMBEDDING] = "embedding",
	[ATOM_QUANT] = "quant",	      [ATOM_SOFTMAX] = "softmax",
	[ATOM_TOPK] = "topk",	      [ATOM_ROUTING] = "routing",
	[ATOM_MOE_GEMM] = "moe_gemm", [ATOM_REDUCE] = "reduce",
	[ATOM_COPY] = "copy",	      [ATOM_CAST] = "cast",
	[ATOM_COMM] = "comm",	      [ATOM_SAMPLE] = "sample",
	[ATOM_CONV] = "conv",	      [ATOM_BATCHNORM] = "batchnorm",
	[ATOM_OPTIM] = "optim",	      [ATOM_GRAD] = "grad",
	[ATOM_OTHER] = "other",
};

static const char *const source_names[SOURCE_COUNT] = {
	[SOURCE_RULES_FILE] = "rules file",
	[SOURCE_NAME] = "name",
	[SOURCE_INDUCTOR] = "inductor",
	[SOURCE_OPERATOR] = "operator",
	[SOURCE_MODULE] = "module",
	[SOURCE_ANNOTATION] = "annotation",
	[SOURCE_NONE] = "none",
	[SOURCE_SHAPES] = "shapes",
};

const char *class_source_name(enum class_source s)
{
	return (unsigned)s < SOURCE_COUNT ? source_names[s] : "?";
}

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
		{ "convolution", CLASS_CONV },	 { "optim", CLASS_OPTIMIZER },
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
		{ A(CONV), CLASS_CONV },
		{ A(GEMM), CLASS_GEMM },
		{ A(MOE_GEMM), CLASS_MOE_GEMM },
		{ A(RMSNORM) | A(LAYERNORM) | A(BATCHNORM), CLASS_NORM },
		{ A(ROPE), CLASS_ROPE },
		{ A(KV_WRITE), CLASS_KV_WRITE },
		{ A(SILU) | A(GELU) | A(ACT), CLASS_ACTIVATION },
		{ A(COMM), CLASS_COMM },
		{ A(OPTIM), CLASS_OPTIMIZER },
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
