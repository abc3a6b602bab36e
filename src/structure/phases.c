/* phases.c — the phase of a pass (structure.h): its names, and what the kernels say when the
 * annotations do not: a decode-only attention kernel, or an attention operator's query length
 * from the recorded shapes. */
#include <string.h>
#include <strings.h>

#include "fusediff/op_args.h"
#include "structure_int.h"

const char *phase_name(enum phase p)
{
	switch (p) {
	case PHASE_PREFILL: return "prefill";
	case PHASE_DECODE: return "decode";
	case PHASE_MIXED: return "mixed";
	case PHASE_TRAIN: return "train";
	case PHASE_UNKNOWN: return "unknown";
	default: return "all";
	}
}

int phase_from_name(const char *s)
{
	for (int p = 0; p <= PHASE_COUNT; p++)
		if (strcasecmp(s, phase_name((enum phase)p)) == 0)
			return p;
	return -1;
}

/* --- phase from the kernels ------------------------------------------------------------ */

/* The query length of an attention operator from its input shapes: SDPA-style operators take
 * q as [batch, heads, tokens, dim], flash/efficient ones [batch, tokens, heads, dim]. -1 when
 * unknown. */
static long attention_q_len(const char *op, const char *dims)
{
	struct op_args c;
	struct op_arg first;
	int seq_at;

	if (strstr(op, "scaled_dot_product") || strstr(op, "cudnn_attention") ||
	    strstr(op, "softmax"))
		seq_at = 2; /* eager attention's softmax: [batch, heads, tokens, keys] */
	else if (strstr(op, "flash_attention") || strstr(op, "efficient_attention"))
		seq_at = 1;
	else
		return -1;
	if (op_args_open(&c, dims) < 0 || op_args_next(&c, &first) <= 0)
		return -1;
	return first.kind == OP_ARG_SHAPE && first.nd == 4 ? (long)first.d[seq_at] : -1;
}

/* Decode when the pass runs a decode-only attention kernel or attention (or an eager
 * attention's softmax) with one query token per sequence; else prefill. */
enum phase phase_from_kernels(const struct side *s, const uint32_t *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct kernel_info *ki = trace_classes_get(&s->classes, k[i]);

		if (ki->cls == CLASS_ATTENTION && ki->decode_attn)
			return PHASE_DECODE;
	}
	for (size_t i = 0; i < n; i++) {
		const struct kernel_info *ki = trace_classes_get(&s->classes, k[i]);
		const struct trace_op *op;
		long q;

		if ((ki->cls != CLASS_ATTENTION || ki->aux) &&
		    !(ki->atoms & ATOM_BIT(ATOM_SOFTMAX)))
			continue;
		op = trace_find_op(s->t, s->t->kernels[k[i]].external_id);
		if (!op || !op->input_dims)
			continue;
		q = attention_q_len(trace_str(s->t, op->name), trace_str(s->t, op->input_dims));
		if (q == 1)
			return PHASE_DECODE;
		if (q > 1)
			return PHASE_PREFILL;
	}
	return PHASE_UNKNOWN;
}
