/* align.h — dynamic-programming alignment of the two sides' steps of one layer, and the search
 * for fusions whose unfused kernels are not adjacent. A layer is aligned with the same layer of
 * the other side only: nothing is ever paired across a layer boundary.
 *
 * The input is abstract: a sequence of steps per side (class, atoms, kernels that do work, a
 * name for similarity). align_steps() lines two sequences up with four moves:
 *   match  one step on each side of the same class (scored by name and atom similarity), or of
 *          different light classes when one side's atoms contain the other's (a "cover"); a
 *          GEMM, attention, MoE GEMM, convolution or communication step pairs only with one
 *          of its own class (attention never matches a GEMM);
 *   gap    a step on one side without a counterpart (a_only / b_only);
 *   fused  one step on one side that does the work of a run of k >= 2 consecutive steps on the
 *          other (every step of the run has atoms, and they are all inside the one step's atoms;
 *          the one step runs a single working kernel, helpers such as splitKreduce aside; no
 *          step of the run has the one step's class: that step is its natural counterpart, the
 *          others are left to the absorption below, and three GEMMs against one GEMM are the
 *          same work launched more often, left to matches and gaps).
 * One extra kernel on one side costs one gap; it never shifts the later pairs.
 *
 * align_absorb() then merges the GEMMs grouped into one merged GEMM's entry
 * (align_group_gemms()), pairs a one-sided fused kernel with the one-sided run of the other side
 * it covers (a fused kernel between steps that pair elsewhere), and looks at unmatched steps a
 * few entries from a step that could be fused: when the unmatched step's atoms are inside the
 * fused step's atoms and add work its counterpart does not already do, it is absorbed (eager
 * gate GEMM, silu, up GEMM, mul against compiled gate GEMM, up GEMM, mul·silu gives one fused
 * entry mul·silu = {silu, mul}). Finally align_classify() decides
 * which entries are fusions: one side runs one working kernel where the other runs k > 1 for
 * atoms it covers. A step that is a main kernel plus helpers (STEP_AUX) is one unit of work
 * and never makes a fusion by itself. For the subset tests the attention atom also stands for
 * what eager math attention runs as separate kernels (bmm, softmax, scale, mask, copies, casts),
 * so one fused attention kernel against that sequence is a fusion. */
#ifndef FUSEDIFF_ALIGN_H
#define FUSEDIFF_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/classify.h"

/* One step to align. align_steps() reads nothing else of a step: canonical.c reuses an
 * alignment when every field of its inputs is the same (same_item(): a new field goes there
 * too). */
struct align_item {
	uint8_t cls;	/* enum op_class */
	uint8_t kind;	/* enum step_kind */
	uint8_t n_work; /* kernels that do the work (0 is taken as 1) */
	atom_set atoms;
	const char *name; /* the main kernel's (short) name, for similarity; NULL when unknown */
	uint8_t covers_math_attn; /* 1: an attention step in a layer whose other side has no
				     attention step: it also does what eager math attention runs as
				     separate kernels (bmm, softmax, scale, mask, copies). Where both
				     sides have attention, those kernels are not its work. */
	uint16_t gid;	 /* a GEMM's group (align_group_gemms()): GEMMs of groups that differ never
			   pair; 0: none */
	uint8_t merge;	 /* 1: a GEMM merged into its group's first on the other side (q/k/v
			   against one QKV GEMM): it never pairs one to one */
	int64_t m, n, k; /* a GEMM's shape (M x K times K x N) when the trace recorded it, else 0 */
	uint8_t tiny;	 /* 1: its main kernel runs one block (grid 1 x 1 x 1); of a generic
			    class (Elementwise, Copy, ...) it is a helper that moves metadata,
			    never a share of a fused kernel's work */
};

/* Which rule proved a fused entry (struct align_entry.proof): what the unfused side's kernels
 * carry of the fused kernel's work. */
enum align_proof {
	PROOF_NONE,
	PROOF_CLASS_WORK, /* the fused kernel's class work (rmsnorm of a Norm kernel, rope, the
			     silu or gelu of an activation), in two working kernels or more */
	PROOF_OPS,	  /* a kernel of a generic class (Elementwise, Reduce, ...) whose two
			     distinct operations or more the unfused kernels carry */
	PROOF_MATH_ATTN,  /* an attention kernel against eager math attention: its GEMMs and
			     softmax */
	PROOF_HORIZONTAL, /* one merged GEMM against separate GEMMs on the same input */
	PROOF_COUNT
};
/* "class_work", "ops", "math_attention", "horizontal"; "" for PROOF_NONE. */
const char *align_proof_name(int proof);
/* The atoms that make a kernel of class cls what it is (rmsnorm, layernorm or batchnorm for a
 * Norm kernel, rope for RoPE); 0 for the generic classes (Elementwise, Reduce, Sort, MoE
 * finalize, Copy, Other), whose work is their operations. */
atom_set align_class_work(int cls);

/* Same order and meaning as enum pair_kind in comparison.h. */
enum align_kind { ALIGN_MATCH, ALIGN_FUSED, ALIGN_A_ONLY, ALIGN_B_ONLY };

/* One aligned position: the steps of each side it holds (indices into the sequences given,
 * ascending). A match holds one step per side; a fused entry one step on fused_side and one or
 * more on the other; a gap steps on one side only. */
struct align_entry {
	uint8_t kind;	    /* enum align_kind */
	uint8_t fused_side; /* 0 (A) or 1 (B): for ALIGN_FUSED, the side with the one fused step */
	uint32_t n[2];	    /* steps on each side */
	uint32_t *step[2];  /* owned by the alignment */
	uint8_t horizontal; /* a merged GEMM against separate ones (align_group_gemms()) */
	uint8_t proof;	    /* for ALIGN_FUSED: enum align_proof */
};

struct alignment {
	struct align_entry *e;
	size_t n, cap;
};

/* Tuning; zero-initialise and set what differs from the defaults. */
struct align_opts {
	int no_fused;	  /* 1: only match and gap moves (aligning passes of one side) */
	size_t max_cells; /* above this many DP cells, the DP runs in a band around the
				   diagonal (0: 1 << 20) */
};

/* Which GEMMs of two sequences of one layer do the same work, from counts and order: the
 * sequences are cut at their norms and attention steps (when both have as many), and in each
 * piece of at most six GEMMs the GEMMs pair in order, except that where one side has k more
 * than the other, its first k + 1 (of one kernel family) are one group against the other
 * side's first: a merged GEMM (QKV, gate-up) on one side, separate ones on the other. Where
 * both sides recorded the shapes, a group must be one input (the same M and K) whose N add up
 * to the merged GEMM's, else the piece is not grouped. Sets gid and merge (a's and b's items). */
void align_group_gemms(struct align_item *a, size_t na, struct align_item *b, size_t nb);

/* Align a[0..na) with b[0..nb). out must be zero-initialised or cleared; it is overwritten.
 * Deterministic: ties are broken by a fixed move order. Never fails. Free with
 * alignment_clear(). */
void align_steps(const struct align_item *a, size_t na, const struct align_item *b, size_t nb,
		 const struct align_opts *o, struct alignment *out);
void alignment_clear(struct alignment *al);

/* One layer's sequences and their alignment, for align_absorb(). */
struct align_layer {
	const struct align_item *item[2];
	size_t n_item[2];
	struct alignment al;
};

/* Merge grouped GEMMs, pair one-sided fused kernels with the runs they cover and absorb
 * unmatched steps into nearby fused steps, in each of the n_layers layers on its own; then
 * classify every entry (align_classify()). window is how many entries away an unmatched step
 * may be (0: 3). */
void align_absorb(struct align_layer *layers, size_t n_layers, unsigned window);

/* Decide the kind of every entry of one layer: ALIGN_FUSED when one side holds one step that
 * runs one working kernel and the other side runs two or more whose atoms it covers, and a
 * rule proves it (enum align_proof: casts, copies and one-block helpers come along but never
 * make a fusion alone); ALIGN_MATCH for other entries with steps on both sides. Called by
 * align_absorb(); exposed for tests. */
void align_classify(struct align_layer *l);

/* The union of the atoms of the steps of side s of entry e (without ATOM_OTHER). */
atom_set align_entry_atoms(const struct align_layer *l, const struct align_entry *e, int s);

#endif
