/* align.c — DP alignment of two step sequences and fusion absorption (see align.h). */
#include "fusediff/align.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/structure.h"
#include "fusediff/util.h"

/* Scores, in integer points so that ties and results never depend on rounding. A match
 * explains two steps (UNIT each) plus a similarity bonus; a fused move explains k + 1 steps
 * minus FUSE_COST, so that it wins over "match one, leave the rest as gaps" but never over
 * matching the same steps one to one. Gaps are affine (opening costs more than extending):
 * a block of extra kernels stays one block instead of being spread over the layer, which
 * decides between alignments that match the same number of steps. */
enum {
	UNIT = 100,
	GAP_OPEN = 50,
	GAP_EXTEND = 20,
	COVER_COST = 60, /* a 1:1 pair of different classes whose atoms nest */
	FUSE_COST = 60,
	SIM_NAME = 60,	   /* identical names */
	SIM_PREFIX = 40,   /* scaled by the shared prefix */
	SIM_ATOMS = 20,	   /* identical atoms */
	MAX_RUN = 32,	   /* longest run one fused step may cover */
	GROUP_BONUS = 200, /* GEMMs of one group (align_group_gemms()) */
	MAX_GROUPED = 6,   /* GEMMs in a piece between norms and attention, at most */
	NEG = INT_MIN / 4,
};

/* DP states: the last move paired steps (match or fused), or left a gap on A or on B. */
enum state { ST_M, ST_A, ST_B, N_STATES };
enum move { MV_NONE, MV_MATCH, MV_FUSED_B, MV_FUSED_A };

/* The work a step does, for the subset tests: its atoms without ATOM_OTHER. A fused attention
 * kernel facing eager math attention (covers_math_attn) also does what that runs as separate
 * kernels: the two GEMMs (bmm), the softmax, the scale and the mask, the copies and casts. */
static atom_set work_atoms(const struct align_item *x)
{
	atom_set a = x->atoms & ~ATOM_BIT(ATOM_OTHER);

	if ((a & ATOM_BIT(ATOM_ATTENTION)) && x->covers_math_attn)
		a |= ATOM_BIT(ATOM_GEMM) | ATOM_BIT(ATOM_SOFTMAX) | ATOM_BIT(ATOM_MUL) |
		     ATOM_BIT(ATOM_ADD) | ATOM_BIT(ATOM_COPY) | ATOM_BIT(ATOM_CAST);
	return a;
}

/* What a step can do when it is the fused side: its work, and besides what a fused kernel does
 * on the way. A kernel that fuses two operations or more converts types as it needs (the casts
 * of an eager run are inside it); an activation kernel that does not say which one
 * (act_and_mul_kernel) does the SiLU or GELU of the other side. */
static atom_set fused_work(const struct align_item *x)
{
	atom_set a = work_atoms(x);
	atom_set ops = a & ~(ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY));

	if (ops & (ops - 1)) /* two atoms or more */
		a |= ATOM_BIT(ATOM_CAST);
	if (a & ATOM_BIT(ATOM_ACT))
		a |= ATOM_BIT(ATOM_SILU) | ATOM_BIT(ATOM_GELU);
	return a;
}

static unsigned item_work(const struct align_item *x)
{
	return x->n_work ? x->n_work : 1;
}

/* --- proofs ---------------------------------------------------------------------------- */

const char *align_proof_name(int proof)
{
	switch (proof) {
	case PROOF_CLASS_WORK: return "class_work";
	case PROOF_OPS: return "ops";
	case PROOF_MATH_ATTN: return "math_attention";
	case PROOF_HORIZONTAL: return "horizontal";
	default: return "";
	}
}

/* Atoms that alone are no share of a fused kernel's work: data movement and casts. */
#define AUX_ATOMS (ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY))
#define ACT_ATOMS (ATOM_BIT(ATOM_SILU) | ATOM_BIT(ATOM_GELU) | ATOM_BIT(ATOM_ACT))

/* The operations a step of the unfused side performs: its atoms without casts, copies and
 * ATOM_OTHER; none for a one-block helper of a generic class (an elementwise kernel on a
 * handful of values moves metadata; a one-block norm at batch 1 still normalises). An
 * activation of any function is also "act". */
static atom_set op_atoms(const struct align_item *y)
{
	atom_set a = y->tiny && !align_class_work(y->cls)
			     ? 0
			     : y->atoms & ~(AUX_ATOMS | ATOM_BIT(ATOM_OTHER));

	return a & ACT_ATOMS ? a | ATOM_BIT(ATOM_ACT) : a;
}

atom_set align_class_work(int cls)
{
	switch (cls) {
	case CLASS_GEMM: return ATOM_BIT(ATOM_GEMM);
	case CLASS_CONV: return ATOM_BIT(ATOM_CONV);
	case CLASS_ATTENTION: return ATOM_BIT(ATOM_ATTENTION);
	case CLASS_NORM:
		return ATOM_BIT(ATOM_RMSNORM) | ATOM_BIT(ATOM_LAYERNORM) | ATOM_BIT(ATOM_BATCHNORM);
	case CLASS_ACTIVATION: return ACT_ATOMS;
	case CLASS_ROPE: return ATOM_BIT(ATOM_ROPE);
	case CLASS_KV_WRITE: return ATOM_BIT(ATOM_KV_WRITE);
	case CLASS_EMBEDDING: return ATOM_BIT(ATOM_EMBEDDING);
	case CLASS_MOE_ROUTING: return ATOM_BIT(ATOM_ROUTING) | ATOM_BIT(ATOM_TOPK);
	case CLASS_MOE_GEMM: return ATOM_BIT(ATOM_MOE_GEMM);
	case CLASS_QUANTIZE: return ATOM_BIT(ATOM_QUANT);
	case CLASS_SAMPLING: return ATOM_BIT(ATOM_SAMPLE);
	case CLASS_COMM: return ATOM_BIT(ATOM_COMM);
	case CLASS_OPTIMIZER: return ATOM_BIT(ATOM_OPTIM);
	default: return 0;
	}
}

/* What the unfused side's steps of a candidate fused entry carry: their operations and how
 * many working kernels carry them. */
struct carry {
	atom_set ops;
	unsigned work;
};

static void carry_add(struct carry *c, const struct align_item *y)
{
	atom_set o = op_atoms(y);

	if (!o)
		return; /* a cast, a copy or a one-block helper comes along, never counts */
	c->ops |= o;
	c->work += item_work(y);
}

static int popcount(atom_set a)
{
	int n = 0;

	for (; a; a &= a - 1)
		n++;
	return n;
}

/* Which rule proves that the unfused kernels c do fused step x's work (enum align_proof):
 * two working kernels or more that together carry its class's work (rmsnorm, rope, silu...);
 * for a kernel of a generic class, two of its operations or more; for an attention kernel
 * facing eager math attention, the GEMMs and the softmax. */
static int prove(const struct align_item *x, const struct carry *c)
{
	atom_set f = op_atoms(x), cw = align_class_work(x->cls);

	if (c->work < 2)
		return PROOF_NONE;
	if (x->cls == CLASS_ATTENTION && x->covers_math_attn &&
	    !(c->ops & ATOM_BIT(ATOM_ATTENTION)))
		return (c->ops & ATOM_BIT(ATOM_GEMM)) && (c->ops & ATOM_BIT(ATOM_SOFTMAX))
			       ? PROOF_MATH_ATTN
			       : PROOF_NONE;
	if (cw)
		return (c->ops & cw & f) ? PROOF_CLASS_WORK : PROOF_NONE;
	return popcount(c->ops & f) >= 2 ? PROOF_OPS : PROOF_NONE;
}

static int subset(atom_set a, atom_set b)
{
	return (a & ~b) == 0;
}

/* Similarity bonus of two steps of the same class. */
static int similarity(const struct align_item *x, const struct align_item *y)
{
	int s = 0;

	if (x->name && y->name) {
		if (strcmp(x->name, y->name) == 0) {
			s += SIM_NAME;
		} else {
			size_t lx = strlen(x->name), ly = strlen(y->name), l = 0;
			size_t m = lx > ly ? lx : ly;

			while (x->name[l] && x->name[l] == y->name[l])
				l++;
			if (m)
				s += (int)(SIM_PREFIX * l / m);
		}
	}
	if (x->atoms == y->atoms)
		s += SIM_ATOMS;
	return s;
}

/* Score of pairing x with y one to one, or NEG when they cannot be paired. */
/* Two steps of class Other pair up only when their names say they are the same kernel:
 * "unknown" is no evidence of doing the same work. */
static int other_alike(const struct align_item *x, const struct align_item *y)
{
	size_t lx, ly, l = 0;

	if (!x->name || !y->name)
		return 0;
	lx = strlen(x->name);
	ly = strlen(y->name);
	while (x->name[l] && x->name[l] == y->name[l])
		l++;
	return l == lx && l == ly ? 1 : 2 * l >= (lx > ly ? lx : ly);
}

/* Classes whose steps pair only with their own class: a GEMM is never an attention kernel's
 * counterpart, whatever their atoms. */
static int heavy(int cls)
{
	return cls == CLASS_GEMM || cls == CLASS_ATTENTION || cls == CLASS_MOE_GEMM ||
	       cls == CLASS_CONV || cls == CLASS_COMM;
}

static int pair_score(const struct align_item *x, const struct align_item *y)
{
	atom_set ax, ay;

	/* GEMMs that counts and order put in different groups never pair; those they put in one
	 * pair before anything else (a fused kernel between them must not unpair them) */
	if (x->gid && y->gid && (x->gid != y->gid || x->merge || y->merge))
		return NEG;
	if (x->gid && x->gid == y->gid)
		return 2 * UNIT + GROUP_BONUS + similarity(x, y);

	if (x->cls == y->cls && x->cls == CLASS_OTHER && !other_alike(x, y))
		return NEG;
	if (x->cls == y->cls)
		return 2 * UNIT + similarity(x, y);
	if (heavy(x->cls) || heavy(y->cls))
		return NEG;
	ax = work_atoms(x);
	ay = work_atoms(y);
	if (ax && ay && (subset(ax, ay) || subset(ay, ax)))
		return 2 * UNIT - COVER_COST;
	return NEG;
}

/* Step x only moves data: one kernel of class Copy whose atoms are copy and cast. */
static int copy_only(const struct align_item *x)
{
	return x->cls == CLASS_COPY && item_work(x) == 1 &&
	       subset(x->atoms & ~ATOM_BIT(ATOM_OTHER), AUX_ATOMS) && x->atoms;
}

/* Can one step x be the fused side of a fused entry? */
static int can_fuse(const struct align_item *x)
{
	return item_work(x) <= 1 && work_atoms(x) != 0;
}

/* The DP grid, banded: row i holds columns lo[i]..hi[i]; three states per cell. */
struct grid {
	size_t na, nb;
	size_t *lo, *hi, *off;
	int *score;	     /* [cell * N_STATES + state] */
	uint8_t *from;	     /* the state of the previous cell, per state */
	uint8_t *move, *run; /* for ST_M: which pairing move, and the run length of a fused one */
};

static int cell_ok(const struct grid *g, size_t i, size_t j)
{
	return j >= g->lo[i] && j <= g->hi[i];
}

static size_t cell(const struct grid *g, size_t i, size_t j)
{
	return g->off[i] + (j - g->lo[i]);
}

static int get(const struct grid *g, size_t i, size_t j, int st)
{
	return cell_ok(g, i, j) ? g->score[cell(g, i, j) * N_STATES + st] : NEG;
}

/* The best state of cell (i, j) and its score. Ties prefer a gap, so that the traceback (from
 * the end) puts gaps as late as it can: steps pair up as early as possible. */
static int best_state(const struct grid *g, size_t i, size_t j, int *score)
{
	static const int order[N_STATES] = { ST_A, ST_B, ST_M };
	int st = order[0], s = get(g, i, j, order[0]);

	for (int k = 1; k < N_STATES; k++)
		if (get(g, i, j, order[k]) > s) {
			s = get(g, i, j, order[k]);
			st = order[k];
		}
	*score = s;
	return st;
}

static void grid_init(struct grid *g, size_t na, size_t nb, size_t max_cells)
{
	size_t total = 0, w = 0;
	int band = (na + 1) * (nb + 1) > max_cells;

	g->na = na;
	g->nb = nb;
	g->lo = xcalloc(na + 1, sizeof *g->lo);
	g->hi = xcalloc(na + 1, sizeof *g->hi);
	g->off = xcalloc(na + 1, sizeof *g->off);
	if (band) {
		w = max_cells / (2 * (na + 1));
		if (w < 16)
			w = 16;
	}
	for (size_t i = 0; i <= na; i++) {
		if (band) {
			/* Centre line from (0, 0) to (na, nb); rows overlap, so the band is connected. */
			size_t c = na ? i * nb / na : 0;
			size_t cn = na ? (i + 1 > na ? nb : (i + 1) * nb / na) : nb;

			g->lo[i] = c > w ? c - w : 0;
			g->hi[i] = cn + w < nb ? cn + w : nb;
			if (i == na)
				g->hi[i] = nb;
		} else {
			g->lo[i] = 0;
			g->hi[i] = nb;
		}
		g->off[i] = total;
		total += g->hi[i] - g->lo[i] + 1;
	}
	g->score = xmalloc(total * N_STATES * sizeof *g->score);
	g->from = xcalloc(total * N_STATES, 1);
	g->move = xcalloc(total, 1);
	g->run = xcalloc(total, 1);
}

static void grid_free(struct grid *g)
{
	free(g->lo);
	free(g->hi);
	free(g->off);
	free(g->score);
	free(g->from);
	free(g->move);
	free(g->run);
}

static void entry_push(struct alignment *al, uint8_t kind, const uint32_t *sa, uint32_t na,
		       const uint32_t *sb, uint32_t nb, uint8_t fused_side)
{
	struct align_entry e = { .kind = kind, .fused_side = fused_side, .n = { na, nb } };

	if (na) {
		e.step[0] = xmalloc(na * sizeof *e.step[0]);
		memcpy(e.step[0], sa, na * sizeof *sa);
	}
	if (nb) {
		e.step[1] = xmalloc(nb * sizeof *e.step[1]);
		memcpy(e.step[1], sb, nb * sizeof *sb);
	}
	VEC_PUSH(al->e, al->n, al->cap, e);
}

static void push_range(struct alignment *al, uint8_t kind, size_t a0, size_t na, size_t b0,
		       size_t nb, uint8_t fused_side)
{
	uint32_t sa[MAX_RUN], sb[MAX_RUN];

	for (size_t k = 0; k < na; k++)
		sa[k] = (uint32_t)(a0 + k);
	for (size_t k = 0; k < nb; k++)
		sb[k] = (uint32_t)(b0 + k);
	entry_push(al, kind, sa, (uint32_t)na, sb, (uint32_t)nb, fused_side);
}

static void add_step(struct align_entry *e, int s, uint32_t step);

/* --- GEMM groups --------------------------------------------------------------------- */

static int landmark(const struct align_item *x)
{
	return x->cls == CLASS_NORM || x->cls == CLASS_ATTENTION;
}

static size_t count_landmarks(const struct align_item *x, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += landmark(&x[i]);
	return k;
}

/* The GEMM steps of x[lo..hi) into out; returns how many. */
static size_t gemms_in(const struct align_item *x, size_t lo, size_t hi, size_t *out)
{
	size_t k = 0;

	for (size_t i = lo; i < hi; i++)
		if (x[i].cls == CLASS_GEMM)
			out[k++] = i;
	return k;
}

/* Kernel names of one family: they share at least half of the shorter name's first
 * characters (nvjet_sm90_tst_64x8_64x16_2x1_... and ..._4x1_...; not nvjet_ and cutlass_). */
static int same_family(const struct align_item *x, const struct align_item *y)
{
	size_t lx, ly, l = 0;

	if (!x->name || !y->name)
		return 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	while (x->name[l] && x->name[l] == y->name[l])
		l++;
	return 2 * l >= (lx < ly ? lx : ly);
}

/* Whether separate GEMMs more[g[0..k)] may be merged GEMM x's work: unknown shapes agree;
 * known ones must share M and K and their N add up to x's. */
static int shapes_agree(const struct align_item *x, const struct align_item *more, const size_t *g,
			size_t k)
{
	int64_t n = 0;

	if (k < 2 || !x->n)
		return 1;
	for (size_t i = 0; i < k; i++) {
		const struct align_item *y = &more[g[i]];

		if (!y->n)
			return 1;
		if (y->m != x->m || y->k != x->k)
			return 0;
		n += y->n;
	}
	return n == x->n;
}

void align_group_gemms(struct align_item *a, size_t na, struct align_item *b, size_t nb)
{
	size_t *ga = xmalloc((na + 1) * sizeof *ga), *gb = xmalloc((nb + 1) * sizeof *gb);
	size_t ia = 0, ib = 0;
	uint16_t gid = 0;

	for (size_t i = 0; i < na; i++)
		a[i].gid = a[i].merge = 0;
	for (size_t i = 0; i < nb; i++)
		b[i].gid = b[i].merge = 0;
	if (count_landmarks(a, na) != count_landmarks(b, nb))
		goto out;
	/* piece by piece: up to and including the next landmark */
	while (ia < na || ib < nb) {
		size_t ea = ia, eb = ib, ka, kb;

		while (ea < na && !landmark(&a[ea]))
			ea++;
		while (eb < nb && !landmark(&b[eb]))
			eb++;
		ka = gemms_in(a, ia, ea, ga);
		kb = gemms_in(b, ib, eb, gb);
		/* a layer's pieces hold a few GEMMs (q, k, v; gate, up, down): a long stretch
		 * without norms or attention says nothing about which GEMMs do the same work */
		if (ka && kb && ka <= MAX_GROUPED && kb <= MAX_GROUPED) {
			struct align_item *more = ka > kb ? a : b, *less = ka > kb ? b : a;
			size_t *gm = ka > kb ? ga : gb, *gl = ka > kb ? gb : ga;
			size_t km = ka > kb ? ka : kb, kl = ka > kb ? kb : ka, extra = km - kl, m;

			/* separate GEMMs on one input are one family of kernels (q, k and v alike);
			 * an extra GEMM of another family is other work (a rotary table's sgemm) */
			for (m = 1; m <= extra && same_family(&more[gm[0]], &more[gm[m]]); m++)
				;
			if (m <= extra || !shapes_agree(&less[gl[0]], more, gm, extra + 1)) {
				ia = ea < na ? ea + 1 : na;
				ib = eb < nb ? eb + 1 : nb;
				continue;
			}

			for (size_t j = 0; j < kl && gid < UINT16_MAX; j++) {
				gid++;
				less[gl[j]].gid = gid;
				if (j == 0)
					for (size_t q = 0; q <= extra; q++) {
						more[gm[q]].gid = gid;
						more[gm[q]].merge = q > 0;
					}
				else
					more[gm[j + extra]].gid = gid;
			}
		}
		ia = ea < na ? ea + 1 : na;
		ib = eb < nb ? eb + 1 : nb;
	}
out:
	free(ga);
	free(gb);
}

/* A GEMM merged into its group (align_group_gemms()) joins the entry of the group's first
 * GEMM: one entry with the merged GEMM on one side and the separate ones on the other. */
static void merge_grouped(struct align_layer *l, uint8_t *gone)
{
	for (size_t u = 0; u < l->al.n; u++) {
		struct align_entry *ue = &l->al.e[u];
		int s = ue->n[0] ? 0 : 1;
		const struct align_item *x;

		if ((ue->n[0] && ue->n[1]) || ue->n[s] != 1)
			continue;
		x = &l->item[s][ue->step[s][0]];
		if (!x->merge || !x->gid)
			continue;
		for (size_t c = 0; c < l->al.n; c++) {
			struct align_entry *ce = &l->al.e[c];

			if (gone[c] || c == u || ce->n[s] == 0 || ce->n[!s] != 1 ||
			    l->item[!s][ce->step[!s][0]].gid != x->gid)
				continue;
			add_step(ce, s, ue->step[s][0]);
			ce->horizontal = 1;
			gone[u] = 1;
			break;
		}
	}
}

/* The best fused move into cell (i, j) where one step of y does the work of a run of x
 * ending at xi - 1 (y_first: y is side B), proven by a rule (prove()); raises *best and sets
 * the move, run and previous state when it beats it. */
static void fused_move(const struct grid *g, const struct align_item *x, size_t xi,
		       const struct align_item *y, size_t yi, int y_is_b, int *best, uint8_t *mv,
		       uint8_t *run, uint8_t *from)
{
	atom_set f = fused_work(y);
	struct carry cr = { 0, 0 };
	int s, st;

	for (size_t k = 1; k <= xi && k <= MAX_RUN; k++) {
		atom_set w = work_atoms(&x[xi - k]);

		if (!w || !subset(w, f) || x[xi - k].cls == y->cls)
			break;
		carry_add(&cr, &x[xi - k]);
		if (k < 2 || !prove(y, &cr))
			continue;
		st = y_is_b ? best_state(g, xi - k, yi - 1, &s) : best_state(g, yi - 1, xi - k, &s);
		if (s > NEG && s + (int)(k + 1) * UNIT - FUSE_COST > *best) {
			*best = s + (int)(k + 1) * UNIT - FUSE_COST;
			*mv = y_is_b ? MV_FUSED_B : MV_FUSED_A;
			*run = (uint8_t)k;
			*from = (uint8_t)st;
		}
	}
}

/* Fill cell (i, j) of the grid: the best pairing move (match or fused) and the gaps. */
static void fill_cell(struct grid *g, const struct align_item *a, const struct align_item *b,
		      size_t i, size_t j, int fused)
{
	size_t c = cell(g, i, j);
	int best = NEG, s, st;
	uint8_t mv = MV_NONE, run = 0, from = ST_M;

	for (int k = 0; k < N_STATES; k++)
		g->score[c * N_STATES + k] = NEG;
	if (i == 0 && j == 0) {
		g->score[c * N_STATES + ST_M] = 0;
		return;
	}
	if (i && j && (st = best_state(g, i - 1, j - 1, &s), s > NEG)) {
		int p = pair_score(&a[i - 1], &b[j - 1]);

		if (p > NEG && s + p > best) {
			best = s + p;
			mv = MV_MATCH;
			from = (uint8_t)st;
		}
	}
	/* b[j-1] does the work of a[i-k..i) */
	if (fused && i >= 2 && j && can_fuse(&b[j - 1]))
		fused_move(g, a, i, &b[j - 1], j, 1, &best, &mv, &run, &from);
	/* a[i-1] does the work of b[j-k..j) */
	if (fused && j >= 2 && i && can_fuse(&a[i - 1]))
		fused_move(g, b, j, &a[i - 1], i, 0, &best, &mv, &run, &from);
	g->score[c * N_STATES + ST_M] = best;
	g->from[c * N_STATES + ST_M] = from;
	g->move[c] = mv;
	g->run[c] = run;
	/* A gap on A (a[i-1] without counterpart) and on B. */
	for (int gs = ST_A; gs <= ST_B; gs++) {
		size_t pi = gs == ST_A ? i - 1 : i, pj = gs == ST_A ? j : j - 1;

		best = NEG;
		if (gs == ST_A ? !i : !j)
			continue;
		for (int k = 0; k < N_STATES; k++) {
			int v = get(g, pi, pj, k);

			if (v <= NEG)
				continue;
			v -= k == gs ? GAP_EXTEND : GAP_OPEN;
			if (v > best) {
				best = v;
				g->from[c * N_STATES + gs] = (uint8_t)k;
			}
		}
		g->score[c * N_STATES + gs] = best;
	}
}

/* Trace back from (na, nb), collecting the entries into out in order. */
static void traceback(const struct grid *g, size_t na, size_t nb, struct alignment *out)
{
	size_t i = na, j = nb;
	int sc, st = best_state(g, na, nb, &sc);

	while (i || j) {
		size_t c = cell(g, i, j);
		int prev = g->from[c * N_STATES + st];

		if (st == ST_A) {
			push_range(out, ALIGN_A_ONLY, i - 1, 1, 0, 0, 0);
			i--;
		} else if (st == ST_B) {
			push_range(out, ALIGN_B_ONLY, 0, 0, j - 1, 1, 0);
			j--;
		} else if (g->move[c] == MV_MATCH) {
			push_range(out, ALIGN_MATCH, i - 1, 1, j - 1, 1, 0);
			i--;
			j--;
		} else if (g->move[c] == MV_FUSED_B) {
			push_range(out, ALIGN_FUSED, i - g->run[c], g->run[c], j - 1, 1, 1);
			i -= g->run[c];
			j--;
		} else if (g->move[c] == MV_FUSED_A) {
			push_range(out, ALIGN_FUSED, i - 1, 1, j - g->run[c], g->run[c], 0);
			i--;
			j -= g->run[c];
		} else {
			die("align: broken traceback at (%zu, %zu)", i, j);
		}
		st = prev;
	}
	for (size_t x = 0, y = out->n ? out->n - 1 : 0; x < y; x++, y--) {
		struct align_entry t = out->e[x];

		out->e[x] = out->e[y];
		out->e[y] = t;
	}
}

void align_steps(const struct align_item *a, size_t na, const struct align_item *b, size_t nb,
		 const struct align_opts *o, struct alignment *out)
{
	size_t max_cells = o && o->max_cells ? o->max_cells : (size_t)1 << 20;
	int fused = !(o && o->no_fused);
	struct grid g;

	memset(out, 0, sizeof *out);
	grid_init(&g, na, nb, max_cells);
	for (size_t i = 0; i <= na; i++)
		for (size_t j = g.lo[i]; j <= g.hi[i]; j++)
			fill_cell(&g, a, b, i, j, fused);
	traceback(&g, na, nb, out);
	grid_free(&g);
}

void alignment_clear(struct alignment *al)
{
	for (size_t i = 0; i < al->n; i++) {
		free(al->e[i].step[0]);
		free(al->e[i].step[1]);
	}
	free(al->e);
	memset(al, 0, sizeof *al);
}

atom_set align_entry_atoms(const struct align_layer *l, const struct align_entry *e, int s)
{
	atom_set u = 0;

	for (uint32_t k = 0; k < e->n[s]; k++)
		u |= work_atoms(&l->item[s][e->step[s][k]]);
	return u;
}

/* The rule that proves side f of entry e (one step) does the work of the other side's steps,
 * PROOF_NONE when none does. */
static int entry_proof(const struct align_layer *l, const struct align_entry *e, int f)
{
	struct carry cr = { 0, 0 };

	if (e->n[f] != 1)
		return PROOF_NONE;
	for (uint32_t k = 0; k < e->n[!f]; k++)
		carry_add(&cr, &l->item[!f][e->step[!f][k]]);
	if (e->horizontal)
		return cr.work >= 2 ? PROOF_HORIZONTAL : PROOF_NONE;
	return prove(&l->item[f][e->step[f][0]], &cr);
}

/* Side f of entry e can be the fused side: one step with one working kernel whose atoms hold
 * the other side's atoms (and whatever is linked to it). */
static int fusable(const struct align_layer *l, const struct align_entry *e, int f)
{
	const struct align_item *x;
	atom_set u = 0;

	if (e->n[f] != 1 || e->n[!f] == 0)
		return 0;
	x = &l->item[f][e->step[f][0]];
	if (!can_fuse(x))
		return 0;
	/* a copy that only feeds one of the other side's steps (absorb_copies()) is not work the
	 * fused kernel must do: it reads its input in place */
	for (uint32_t k = 0; k < e->n[!f]; k++) {
		const struct align_item *y = &l->item[!f][e->step[!f][k]];

		if (!copy_only(y) || e->n[!f] == 1)
			u |= work_atoms(y);
	}
	return subset(u, fused_work(x));
}

void align_classify(struct align_layer *l)
{
	for (size_t i = 0; i < l->al.n; i++) {
		struct align_entry *e = &l->al.e[i];

		if (!e->n[0] || !e->n[1])
			continue;
		e->kind = ALIGN_MATCH;
		e->fused_side = 0;
		e->proof = PROOF_NONE;
		for (int f = 0; f < 2; f++) {
			int proof = fusable(l, e, f) ? entry_proof(l, e, f) : PROOF_NONE;

			if (proof) {
				e->kind = ALIGN_FUSED;
				e->fused_side = (uint8_t)f;
				e->proof = (uint8_t)proof;
				break;
			}
		}
	}
}

static void add_step(struct align_entry *e, int s, uint32_t step)
{
	uint32_t k;

	e->step[s] = xreallocarray(e->step[s], e->n[s] + 1, sizeof *e->step[s]);
	for (k = e->n[s]; k > 0 && e->step[s][k - 1] > step; k--)
		e->step[s][k] = e->step[s][k - 1];
	e->step[s][k] = step;
	e->n[s]++;
}

/* Undo add_step(). */
static void remove_step(struct align_entry *e, int s, uint32_t step)
{
	uint32_t k = 0;

	while (k < e->n[s] && e->step[s][k] != step)
		k++;
	if (k == e->n[s])
		return;
	memmove(e->step[s] + k, e->step[s] + k + 1, (e->n[s] - k - 1) * sizeof *e->step[s]);
	e->n[s]--;
}

/* A fused kernel that runs between steps that pair elsewhere (Inductor's RoPE kernel between
 * the k and v GEMMs) is left one-sided by the alignment, and so is the other side's run it
 * does the work of: one-sided steps of the other side within window entries whose atoms it
 * covers join its entry, when they are eager runs of several kernels or the kernel fuses
 * several operations. */
static void pair_gaps(struct align_layer *l, uint8_t *gone, unsigned window)
{
	for (size_t u = 0; u < l->al.n; u++) {
		struct align_entry *ue = &l->al.e[u];
		int f = ue->n[0] ? 0 : 1;
		const struct align_item *x;
		atom_set fw, ops;

		if (gone[u] || (ue->n[0] && ue->n[1]) || ue->n[f] != 1)
			continue;
		x = &l->item[f][ue->step[f][0]];
		fw = fused_work(x);
		ops = work_atoms(x) & ~(ATOM_BIT(ATOM_CAST) | ATOM_BIT(ATOM_COPY));
		if (!can_fuse(x))
			continue;
		{
			size_t taken[2 * 8], n_taken = 0;

			for (size_t d = 1; d <= window && n_taken < 2 * 8; d++)
				for (int dir = -1; dir <= 1; dir += 2) {
					struct align_entry *ce;
					const struct align_item *y;
					atom_set ya;

					if (dir < 0 ? u < d : u + d >= l->al.n)
						continue;
					ce = &l->al.e[dir < 0 ? u - d : u + d];
					if (gone[dir < 0 ? u - d : u + d] || ce->n[f] ||
					    ce->n[!f] != 1)
						continue;
					y = &l->item[!f][ce->step[!f][0]];
					ya = work_atoms(y);
					/* an eager run of several kernels, or any step a kernel of
					 * several operations covers; one kernel against one kernel of
					 * the same work is not a fusion */
					if (!ya || !subset(ya, fw) ||
					    (item_work(y) < 2 && !(ops & (ops - 1))))
						continue;
					add_step(ue, !f, ce->step[!f][0]);
					gone[dir < 0 ? u - d : u + d] = 1;
					taken[n_taken++] = dir < 0 ? u - d : u + d;
				}
			/* only a run that a rule proves is the kernel's work joins it */
			if (n_taken && !entry_proof(l, ue, f))
				for (size_t t = 0; t < n_taken; t++) {
					remove_step(ue, !f, l->al.e[taken[t]].step[!f][0]);
					gone[taken[t]] = 0;
				}
		}
	}
}

/* Step y of side s is the same eager op as a step of entry e next to it, applied to the next
 * tensor (HF's RoPE rotates q, then k): one run after the other, of one class and atoms. */
static int next_application(const struct align_layer *l, const struct align_entry *e, int s,
			    uint32_t y)
{
	const struct align_item *b = &l->item[s][y];
	/* the other side's one kernel, when it is the same kernel as b: b launched again is the
	 * same work done more often (a partial fusion), not the next tensor of a fused op */
	const struct align_item *o = e->n[!s] == 1 ? &l->item[!s][e->step[!s][0]] : NULL;
	int same_kernel = o && o->name && b->name && strcmp(o->name, b->name) == 0;

	for (uint32_t k = 0; k < e->n[s]; k++) {
		uint32_t x = e->step[s][k];
		const struct align_item *a = &l->item[s][x];

		if (a->cls != b->cls || a->atoms != b->atoms || a->kind != b->kind)
			continue;
		/* an eager run right after the other (HF's RoPE of q, then k) */
		if (b->kind == STEP_RUN && (x + 1 == y || y + 1 == x))
			return 1;
		/* one norm kernel launched again, with at most a copy of its input between
		 * (Qwen3's q and k norms on MI300X: copy, norm, copy, norm; MLA's q and kv
		 * norms). Only norms: two all-reduces or two activations in a row are work done
		 * twice, not one op applied to two tensors. */
		if (b->kind == STEP_SINGLE && b->cls == CLASS_NORM && !same_kernel && a->name &&
		    b->name && strcmp(a->name, b->name) == 0 &&
		    (x + 1 == y || y + 1 == x || (x + 2 == y && copy_only(&l->item[s][x + 1])) ||
		     (y + 2 == x && copy_only(&l->item[s][y + 1]))))
			return 1;
	}
	return 0;
}

/* A copy in a one-sided entry right before a step of side s of a fused entry e feeds that step
 * (a .contiguous() of q before its norm): it joins e, as what the fused kernel avoids by reading
 * its input in place, when a rule still proves the fusion (it never makes one). */
static void absorb_copies(struct align_layer *l, uint8_t *gone)
{
	for (size_t i = 0; i < l->al.n; i++) {
		struct align_entry *e = &l->al.e[i];
		int f = e->n[0] == 1 && e->n[1] >= 2 ? 0 : 1, s = !f;

		if (gone[i] || e->n[f] != 1 || e->n[s] < 2 || !entry_proof(l, e, f))
			continue;
		/* the one-sided entries up to four before and after it */
		for (size_t j = i > 4 ? i - 4 : 0; j <= i + 4 && j < l->al.n; j++) {
			struct align_entry *ce = &l->al.e[j];
			uint32_t c;
			int feeds = 0;

			if (j == i || gone[j] || ce->n[f] || ce->n[s] != 1)
				continue;
			c = ce->step[s][0];
			for (uint32_t k = 0; k < e->n[s]; k++)
				feeds |= e->step[s][k] == c + 1;
			if (!feeds || !copy_only(&l->item[s][c]))
				continue;
			add_step(e, s, c);
			gone[j] = 1;
		}
	}
}

/* Unmatched steps a few entries from an entry that could be fused join it when their atoms are
 * inside its fused step's and add work its other side does not already do, or when they are
 * the same eager op applied to the next tensor (one kernel that rotates q and k against HF's
 * two rotations). */
static void absorb_gaps(struct align_layer *l, uint8_t *gone, unsigned window)
{
	for (size_t u = 0; u < l->al.n; u++) {
		struct align_entry *ue = &l->al.e[u];
		int s = ue->n[0] ? 0 : 1; /* the side of the unmatched step */
		atom_set ua;
		size_t best = SIZE_MAX;

		if (gone[u] || (ue->n[0] && ue->n[1]) || ue->n[s] != 1)
			continue;
		ua = work_atoms(&l->item[s][ue->step[s][0]]);
		if (!ua)
			continue;
		for (size_t d = 1; d <= window && best == SIZE_MAX; d++)
			for (int dir = -1; dir <= 1 && best == SIZE_MAX; dir += 2) {
				size_t c = dir < 0 ? u - d : u + d;
				struct align_entry *ce;

				if (dir < 0 ? u < d : u + d >= l->al.n)
					continue;
				ce = &l->al.e[c];
				if (gone[c] || !fusable(l, ce, !s))
					continue;
				if (!subset(ua, fused_work(&l->item[!s][ce->step[!s][0]])) ||
				    (subset(ua, align_entry_atoms(l, ce, s)) &&
				     !next_application(l, ce, s, ue->step[s][0])))
					continue;
				best = c;
			}
		if (best == SIZE_MAX)
			continue;
		add_step(&l->al.e[best], s, ue->step[s][0]);
		/* it joins only when a rule then proves the fusion (a one-block helper or a copy
		 * beside a matched pair is no fused work) */
		if (!entry_proof(l, &l->al.e[best], !s)) {
			remove_step(&l->al.e[best], s, ue->step[s][0]);
			continue;
		}
		gone[u] = 1;
	}
}

void align_absorb(struct align_layer *layers, size_t n_layers, unsigned window)
{
	if (!window)
		window = 3;
	for (size_t k = 0; k < n_layers; k++) {
		struct align_layer *l = &layers[k];
		uint8_t *gone = xcalloc(l->al.n + 1, 1);
		size_t out = 0;

		merge_grouped(l, gone);
		pair_gaps(l, gone, window);
		absorb_gaps(l, gone, window);
		absorb_copies(l, gone);
		for (size_t e = 0; e < l->al.n; e++) {
			if (gone[e]) {
				free(l->al.e[e].step[0]);
				free(l->al.e[e].step[1]);
				continue;
			}
			l->al.e[out++] = l->al.e[e];
		}
		l->al.n = out;
		align_classify(l);
		free(gone);
	}
}
