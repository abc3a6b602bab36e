/* timeline.c — the timeline of one layer (t on a layer, pair, fusion or summed row): A and B
 * as two lanes on one time scale, each from its own layer start, kernels as letters of their
 * class, idle time as dots, and the selected pair's kernels (its whole fusion when it has one)
 * marked under the lanes, so a fused kernel shows against the run it replaces. Below, the
 * kernels in view on each side. Left/right scroll, + and - zoom, [ and ] change the pass, Esc
 * closes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"
#include "fusediff/ui_actions.h"

/* One letter per class; upper case for the big ones. */
static char class_letter(int cls)
{
	static const char letters[CLASS_COUNT + 1] = {
		[CLASS_GEMM] = 'G',	   [CLASS_CONV] = 'V',	       [CLASS_ATTENTION] = 'A',
		[CLASS_NORM] = 'N',	   [CLASS_ACTIVATION] = 'a',   [CLASS_ROPE] = 'R',
		[CLASS_KV_WRITE] = 'K',	   [CLASS_EMBEDDING] = 'E',    [CLASS_MOE_ROUTING] = 'r',
		[CLASS_MOE_GEMM] = 'M',	   [CLASS_MOE_FINALIZE] = 'f', [CLASS_QUANTIZE] = 'q',
		[CLASS_SAMPLING] = 's',	   [CLASS_COMM] = 'C',	       [CLASS_COPY] = 'c',
		[CLASS_ELEMENTWISE] = 'e', [CLASS_REDUCE] = 'd',       [CLASS_SORT] = 'o',
		[CLASS_OPTIMIZER] = 'O',   [CLASS_OTHER] = '?',
	};

	return cls >= 0 && cls < CLASS_COUNT && letters[cls] ? letters[cls] : '?';
}

static int class_role(int cls)
{
	switch (cls) {
	case CLASS_GEMM:
	case CLASS_CONV:
	case CLASS_MOE_GEMM: return ROLE_BAR_A;
	case CLASS_ATTENTION: return ROLE_BAR_B;
	case CLASS_COMM: return ROLE_B_ONLY;
	default: return ROLE_NORMAL;
	}
}

static int cmp_tk(const void *pa, const void *pb)
{
	const struct ui_tl_kernel *a = pa, *b = pb;

	return CMP(a->kernel, b->kernel); /* trace kernels are sorted by start */
}

/* The compared passes of side s that have layer, ascending. */
static size_t layer_passes(const struct comparison *c, int s, int32_t layer, uint32_t *out,
			   size_t cap)
{
	const struct comparison_layer *l = &c->layers[layer];
	size_t n = 0;

	for (uint32_t i = l->pair_first; i < l->pair_first + l->pair_n; i++) {
		const struct comparison_part *pt = &c->pairs[i].side[s];

		for (uint32_t k = 0; k < pt->n_inst; k++) {
			size_t j;

			for (j = 0; j < n && out[j] != pt->inst[k].pass; j++)
				;
			if (j == n && n < cap)
				out[n++] = pt->inst[k].pass;
		}
	}
	for (size_t i = 1; i < n; i++) /* a few passes: insertion sort */
		for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
			uint32_t t = out[j];

			out[j] = out[j - 1], out[j - 1] = t;
		}
	return n;
}

/* Whether pair i is marked: the selected pair, or a pair of its fusion. */
static int marked(const struct ui *u, uint32_t i)
{
	const struct ui_timeline *tl = &u->tl;
	const struct comparison_pair *sel;

	if (tl->pair == UINT32_MAX)
		return 0;
	if (i == tl->pair)
		return 1;
	sel = &u->c->pairs[tl->pair];
	return sel->fusion >= 0 && u->c->pairs[i].fusion == sel->fusion;
}

/* The kernels of the layer in the shown pass of each side. */
static void tl_collect(struct ui *u)
{
	struct ui_timeline *tl = &u->tl;
	const struct comparison *c = u->c;
	const struct comparison_layer *l = &c->layers[tl->layer];

	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		size_t n = 0, cap = 16;

		free(tl->k[s]);
		tl->k[s] = xmalloc(cap * sizeof *tl->k[s]);
		for (uint32_t i = l->pair_first; i < l->pair_first + l->pair_n; i++) {
			const struct comparison_part *pt = &c->pairs[i].side[s];

			for (uint32_t k = 0; k < pt->n_inst; k++) {
				if (tl->n_pass[s] == 0 ||
				    pt->inst[k].pass != tl->pass[s][tl->at[s]])
					continue;
				if (n == cap)
					tl->k[s] =
						xreallocarray(tl->k[s], cap *= 2, sizeof *tl->k[s]);
				tl->k[s][n++] =
					(struct ui_tl_kernel){ pt->inst[k].kernel, i,
							       c->pairs[i].cls, marked(u, i) };
			}
		}
		qsort(tl->k[s], n, sizeof *tl->k[s], cmp_tk);
		tl->n[s] = n;
		tl->t0[s] = n ? t->kernels[tl->k[s][0].kernel].start : 0;
		tl->wall[s] = 0;
		for (size_t i = 0; i < n; i++) {
			const struct trace_kernel *kr = &t->kernels[tl->k[s][i].kernel];

			if (kr->start + kr->dur - tl->t0[s] > tl->wall[s])
				tl->wall[s] = kr->start + kr->dur - tl->t0[s];
		}
	}
	tl->span = tl->wall[0] > tl->wall[1] ? tl->wall[0] : tl->wall[1];
	if (tl->span <= 0)
		tl->span = 1;
}

void ui_timeline_open(struct ui *u, int32_t layer, uint32_t pair)
{
	struct ui_timeline *tl = &u->tl;

	ui_timeline_close(u);
	if (layer < 0 || (size_t)layer >= u->c->n_layers) {
		ui_set_message(u, ROLE_NORMAL, "t: select a layer, a kernel pair or a fusion");
		return;
	}
	tl->open = 1;
	tl->layer = layer;
	tl->pair = pair;
	tl->zoom = 1;
	tl->offset = 0;
	tl->list_top = 0;
	for (int s = 0; s < 2; s++) {
		tl->n_pass[s] = layer_passes(u->c, s, layer, tl->pass[s], UI_TL_PASSES);
		tl->at[s] = 0;
	}
	tl_collect(u);
}

void ui_timeline_close(struct ui *u)
{
	for (int s = 0; s < 2; s++) {
		free(u->tl.k[s]);
		u->tl.k[s] = NULL;
		u->tl.n[s] = 0;
	}
	u->tl.open = 0;
}

/* ns per column for a lane of width w */
static double tl_scale(const struct ui_timeline *tl, int w)
{
	return (double)tl->span / (tl->zoom * (w > 1 ? w : 1));
}

static int lane_width(const struct ui *u)
{
	return u->layout.cols - 4;
}

void ui_timeline_key(struct ui *u, int key)
{
	struct ui_timeline *tl = &u->tl;
	enum ui_action a = ui_action_for_key(key);
	int w = lane_width(u);
	double scale = tl_scale(tl, w);
	int64_t max_off;

	if (key == '+' || key == '=') {
		tl->offset += (int64_t)(scale * w / 4); /* keep the middle in the middle */
		tl->zoom *= 2;
	} else if (key == '-') {
		if (tl->zoom > 1) {
			tl->zoom /= 2;
			tl->offset -= (int64_t)(scale * w / 2);
		}
	} else if (key == '0') {
		tl->zoom = 1, tl->offset = 0;
	} else if (key == '[' || key == ']') {
		for (int s = 0; s < 2; s++)
			if (tl->n_pass[s])
				tl->at[s] = (tl->at[s] + (key == ']' ? 1 : tl->n_pass[s] - 1)) %
					    tl->n_pass[s];
		tl_collect(u);
	} else if (a == ACT_LEFT) {
		tl->offset -= (int64_t)(scale * w / 4);
	} else if (a == ACT_RIGHT) {
		tl->offset += (int64_t)(scale * w / 4);
	} else if (a == ACT_DOWN || a == ACT_PAGE_DOWN) {
		tl->list_top += a == ACT_DOWN ? 1 : 10;
	} else if (a == ACT_UP || a == ACT_PAGE_UP) {
		tl->list_top -= a == ACT_UP ? 1 : 10;
	} else if (a == ACT_HELP) {
		ui_set_message(u, ROLE_NORMAL,
			       "timeline: Left/Right scroll, + - zoom, 0 whole layer, [ ] pass, "
			       "Esc close");
	} else {
		ui_timeline_close(u); /* Esc, q, t or any other key */
		return;
	}
	max_off = tl->span - (int64_t)(tl_scale(tl, w) * w);
	if (tl->offset > max_off)
		tl->offset = max_off;
	if (tl->offset < 0)
		tl->offset = 0;
	if (tl->list_top < 0)
		tl->list_top = 0;
}

/* One lane: the letter of the kernel that covers most of each column, a dot where none runs. */
static void draw_lane(struct ui *u, int s, int y, int x, int w, double scale)
{
	const struct ui_timeline *tl = &u->tl;
	const struct trace *t = u->c->side[s]->t;
	size_t i = 0;

	for (int col = 0; col < w; col++) {
		double from = (double)tl->offset + col * scale, to = from + scale, best = 0;
		const struct ui_tl_kernel *pick = NULL;
		int mark = 0;
		char cell[2] = { 0, 0 };

		while (i < tl->n[s] && (double)(t->kernels[tl->k[s][i].kernel].start - tl->t0[s] +
						t->kernels[tl->k[s][i].kernel].dur) <= from)
			i++;
		for (size_t j = i; j < tl->n[s]; j++) {
			const struct trace_kernel *kr = &t->kernels[tl->k[s][j].kernel];
			double a = (double)(kr->start - tl->t0[s]), b = a + (double)kr->dur;
			double cover;

			if (a >= to)
				break;
			if (b <= from)
				continue;
			cover = fmin(b, to) - fmax(a, from);
			if (cover <= 0 && kr->dur == 0)
				cover = 1e-9;
			if (cover > best || !pick)
				best = cover, pick = &tl->k[s][j];
			mark |= tl->k[s][j].marked;
		}
		if (from >= (double)tl->wall[s]) {
			continue; /* past this side's end */
		} else if (pick) {
			cell[0] = class_letter(pick->cls);
			ui_put(u->s, y, x + col, 1, cell,
			       pick->marked ? ROLE_FUSED : class_role(pick->cls), PUT_RAW, 0);
		} else {
			ui_put(u->s, y, x + col, 1, ".", ROLE_DIM, PUT_RAW, 0);
		}
		if (mark)
			ui_put(u->s, y + 1, x + col, 1, "^", ROLE_FUSED, PUT_RAW, 0);
	}
}

/* "1.25 ms", "250 us", "4.5 us": a time or span in the timeline's header. */
static void fmt_time(char *buf, size_t cap, double ns)
{
	int ms = ns >= 1e6, decimals = ms ? 2 : ns >= 1e4 ? 0 : 1;
	size_t len = strlen(text_fixed(buf, cap, ms ? ns / 1e6 : ns / 1e3, decimals, 0));

	snprintf(buf + len, cap - len, ms ? " ms" : " us");
}

/* The kernels in view on side s, from row y, in w cells: offset, duration, class, name. */
static void draw_list(struct ui *u, int s, int y, int x, int w, int h, double scale, int lw)
{
	const struct ui_timeline *tl = &u->tl;
	const struct trace *t = u->c->side[s]->t;
	double from = (double)tl->offset, to = from + scale * lw;
	int row = 0, skip = tl->list_top;

	ui_putf(u->s, y, x, w, ROLE_COLUMN, PUT_PAD, "%c  start us    dur us  kernel", "AB"[s]);
	for (size_t i = 0; i < tl->n[s] && row < h - 1; i++) {
		const struct ui_tl_kernel *k = &tl->k[s][i];
		const struct trace_kernel *kr = &t->kernels[k->kernel];
		double a = (double)(kr->start - tl->t0[s]);
		char line[64], start[40], dur[40];

		if (a + (double)kr->dur < from || a >= to || skip-- > 0)
			continue;
		snprintf(line, sizeof line, "%c %9s %9s  ", class_letter(k->cls),
			 text_fixed(start, sizeof start, a / 1e3, 1, 0),
			 text_fixed(dur, sizeof dur, (double)kr->dur / 1e3, 1, 0));
		ui_put(u->s, y + 1 + row, x, w, line, k->marked ? ROLE_FUSED : ROLE_NORMAL, PUT_RAW,
		       0);
		ui_put(u->s, y + 1 + row, x + (int)strlen(line), w - (int)strlen(line),
		       ui_name(u, s, kr->name), k->marked ? ROLE_FUSED : ROLE_NORMAL, 0, 0);
		row++;
	}
}

void ui_timeline_draw(struct ui *u)
{
	const struct ui_timeline *tl = &u->tl;
	const struct comparison *c = u->c;
	int cols = u->layout.cols, rows = u->layout.rows, w = lane_width(u), y = 0;
	double scale = tl_scale(tl, w);
	char lab[96], a[32], b[32], per[32];

	comparison_layer_label(c, tl->layer, lab, sizeof lab);
	fmt_time(per, sizeof per, scale);
	ui_fill(u->s, y, 0, cols, ROLE_TITLE);
	{
		char pa[48], pb[48];

		for (int s = 0; s < 2; s++)
			if (tl->n_pass[s])
				snprintf(s ? pb : pa, 48, "pass %u/%u", tl->at[s] + 1,
					 tl->n_pass[s]);
			else
				snprintf(s ? pb : pa, 48, "not run");
		ui_putf(u->s, y++, 0, cols, ROLE_TITLE, 0,
			" Timeline of layer %s (A %s, B %s), to scale: 1 col = %s ", lab, pa, pb,
			per);
	}
	for (int s = 0; s < 2; s++) {
		const struct trace *t = c->side[s]->t;
		double sum = 0;

		for (size_t i = 0; i < tl->n[s]; i++)
			sum += (double)t->kernels[tl->k[s][i].kernel].dur;
		fmt_time(a, sizeof a, (double)tl->wall[s]);
		fmt_time(b, sizeof b, sum);
		ui_putf(u->s, y++, 1, cols - 1, s ? ROLE_BAR_B : ROLE_BAR_A, 0,
			"%c %s: %zu kernels, wall %s, kernel time %s", "AB"[s], c -> label[s],
			tl -> n[s], a, b);
	}
	y++;
	for (int s = 0; s < 2; s++) {
		ui_putf(u->s, y, 1, 2, s ? ROLE_BAR_B : ROLE_BAR_A, 0, "%c", "AB"[s]);
		if (tl->n[s])
			draw_lane(u, s, y, 3, w, scale);
		else
			ui_put(u->s, y, 3, w, "(no kernel of this layer on this side)", ROLE_DIM,
			       PUT_RAW, 0);
		y += 2;
	}
	/* the time axis */
	fmt_time(a, sizeof a, (double)tl->offset);
	fmt_time(b, sizeof b, (double)tl->offset + scale * w);
	ui_putf(u->s, y, 3, w, ROLE_DIM, 0, "|%s", a);
	ui_put(u->s, y, 3, w, b, ROLE_DIM, PUT_RIGHT, 0);
	y++;
	ui_put(u->s, y++, 1, cols - 1,
	       "G GEMM A attn N norm R RoPE a act e elementwise c copy . idle ^ selected", ROLE_DIM,
	       PUT_RAW, 0);
	y++;
	if (rows - 1 - y >= 2) {
		int half = (cols - 1) / 2;

		draw_list(u, 0, y, 0, half, rows - 1 - y, scale, w);
		draw_list(u, 1, y, half + 1, cols - half - 1, rows - 1 - y, scale, w);
	}
	ui_fill(u->s, rows - 1, 0, cols, ROLE_STATUS);
	ui_put(u->s, rows - 1, 0, cols,
	       *u->msg.text
		       ? u->msg.text
		       : " Left/Right:scroll  +/-:zoom  0:whole layer  [/]:pass  Up/Down:list  "
			 "Esc:close",
	       ROLE_STATUS, PUT_RAW, 0);
}
