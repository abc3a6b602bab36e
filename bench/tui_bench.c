/* tui_bench.c — the explorer on a synthetic comparison of N kernel pairs (default 100000),
 * drawn headless at 120x40, playing a key script with ':bench N KEY' lines: the time per key
 * when a table has 10^5 rows. Built and run by bench/tui-keys.sh.
 *
 *   tui_bench TRACE SCRIPT [N]
 *
 * TRACE supplies real kernel names and instances (both sides use it); the pairs cycle through
 * its kernels, one layer per 100 pairs, every tenth pair fused (a run of three kernels on A
 * against one on B) and grouped into one fusion pattern per layer. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/ui_explorer.h"
#include "fusediff/ui_screen.h"
#include "src/compare/compare_int.h"

#define PER_LAYER 100

int main(int argc, char **argv)
{
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct trace *t;
	struct classifier *cl;
	struct side side[2];
	struct side_model model[2];
	char *stacks[1] = { "" };
	struct comparison c;
	struct ui_screen_opts so = { .headless = 1, .cols = 120, .rows = 40 };
	struct ui_screen *scr;
	struct ui *u;
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 10) : 100000, n_layers, k = 0;
	uint32_t *names;
	struct comparison_instance *inst;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: tui_bench TRACE SCRIPT [N]\n");
		return 2;
	}
	setlocale(LC_CTYPE, "");
	if (trace_load(&t, argv[1], &lo, &err) < 0 || classifier_new(&cl, NULL, NULL, &err) < 0) {
		fprintf(stderr, "tui_bench: %s\n", err.msg);
		return 1;
	}
	memset(&c, 0, sizeof c);
	memset(side, 0, sizeof side);
	n_layers = (n + PER_LAYER - 1) / PER_LAYER;
	for (int s = 0; s < 2; s++) {
		side[s].t = t;
		classify_trace(cl, t, &side[s].classes);
		side[s].layers_per_pass = (uint32_t)n_layers;
		/* one model with one prefill pass, as the session's comparisons have */
		model[s] =
			(struct side_model){ .n_passes = 1, .layers_per_pass = (uint32_t)n_layers };
		model[s].phase_passes[PHASE_PREFILL] = 1;
		side[s].models = &model[s];
		side[s].n_models = 1;
		c.side[s] = &side[s];
		c.passes[s] = 1;
	}
	c.phase = PHASE_PREFILL;
	c.stacks = stacks;
	c.n_stacks = 1;
	c.label[0] = "synthetic A";
	c.label[1] = "synthetic B";
	c.n_pairs = n;
	c.pairs = calloc(n, sizeof *c.pairs);
	c.n_layers = n_layers;
	c.layers = calloc(n_layers, sizeof *c.layers);
	c.n_fusions = n_layers;
	c.fusions = calloc(n_layers, sizeof *c.fusions);
	names = calloc(n * 4, sizeof *names);
	inst = calloc(n * 4, sizeof *inst);
	for (size_t i = 0; i < n; i++) {
		struct comparison_pair *p = &c.pairs[i];
		int fused = i % 10 == 3;
		uint32_t na = fused ? 3 : 1;

		p->layer = (int32_t)(i / PER_LAYER);
		p->position = (uint32_t)(i % PER_LAYER);
		p->kind = fused ? PAIR_FUSED : i % 17 == 5 ? PAIR_A_ONLY : PAIR_MATCH;
		p->fusion = fused ? (int32_t)(i / PER_LAYER) : -1;
		for (int s = 0; s < 2; s++) {
			struct comparison_part *part = &p->side[s];
			uint32_t m = s == 0 ? na : p->kind == PAIR_A_ONLY ? 0 : 1;

			part->names = &names[4 * i + (s ? 3 : 0)];
			part->inst = &inst[4 * i + (s ? 3 : 0)];
			part->n_names = part->n_inst = m;
			for (uint32_t j = 0; j < m; j++) {
				uint32_t kk = (uint32_t)(k++ % t->n_kernels);

				part->names[j] = t->kernels[kk].name;
				part->inst[j] = (struct comparison_instance){ kk, 0 };
				part->total_ns += (double)t->kernels[kk].dur;
			}
			part->count = m;
			part->avg_ns = m ? part->total_ns / m : NAN;
		}
		p->cls = (uint8_t)side[0]
				 .classes.infos[side[0].classes.info_of[p->side[0].inst[0].kernel]]
				 .cls;
		p->delta_ns = p->side[1].total_ns - p->side[0].total_ns;
		p->ratio = comparison_ratio(p->side[0].total_ns, p->side[1].total_ns);
		c.class_ns[0][p->cls] += p->side[0].total_ns;
		c.class_ns[1][p->cls] += p->side[1].total_ns;
	}
	for (size_t l = 0; l < n_layers; l++) {
		struct comparison_layer *ly = &c.layers[l];
		struct comparison_fusion *f = &c.fusions[l];
		uint32_t first = (uint32_t)(l * PER_LAYER);

		ly->index = (int32_t)l;
		ly->pair_first = first;
		ly->pair_n = (uint32_t)(first + PER_LAYER <= n ? PER_LAYER : n - first);
		for (uint32_t i = first; i < first + ly->pair_n; i++)
			for (int s = 0; s < 2; s++) {
				ly->ns[s] += c.pairs[i].side[s].total_ns;
				ly->kernels[s] += c.pairs[i].side[s].count;
			}
		ly->delta_ns = ly->ns[1] - ly->ns[0];
		ly->ratio = comparison_ratio(ly->ns[0], ly->ns[1]);
		ly->n_fusions = 1;
		c.ns[0] += ly->ns[0];
		c.ns[1] += ly->ns[1];
		f->fused_side = SIDE_B;
		f->fused_name =
			c.pairs[first + 3 < n ? first + 3 : first].side[1].n_names
				? c.pairs[first + 3 < n ? first + 3 : first].side[1].names[0]
				: 0;
		f->unfused_names = c.pairs[first + 3 < n ? first + 3 : first].side[0].names;
		f->n_unfused = c.pairs[first + 3 < n ? first + 3 : first].side[0].n_names;
		f->occurrences = 10;
		f->layers = &c.layers[l].index;
		f->n_layers = 1;
		f->ns[0] = ly->ns[0] / 10;
		f->ns[1] = ly->ns[1] / 10;
		f->delta_ns = f->ns[1] - f->ns[0];
		f->evidence = "synthetic fusion";
	}
	c.delta_ns = c.ns[1] - c.ns[0];
	c.ratio = comparison_ratio(c.ns[0], c.ns[1]);
	/* what comparison_build() derives from the pairs */
	comparison_kernel_totals(&c, NULL);
	comparison_summed_pairs(&c);
	comparison_noise(&c);
	if (ui_screen_open(&scr, &so, &err) < 0) {
		fprintf(stderr, "tui_bench: %s\n", err.msg);
		return 1;
	}
	u = ui_new_comparison(scr, &c);
	rc = ui_play(u, argv[2], getenv("FUSEDIFF_DUMP_DIR"), stdout, &err);
	ui_free(u);
	ui_screen_close(scr);
	if (rc)
		fprintf(stderr, "tui_bench: %s\n", err.msg);
	/* what the program built, so that make sanitize's leak check reads only its own leaks */
	for (int s = 0; s < 2; s++)
		trace_classes_clear(&side[s].classes);
	classifier_free(cl);
	trace_free(t);
	return rc;
}
