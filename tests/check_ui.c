/* check_ui.c — the explorer rendered with ncurses into memory at a fixed size, on a small
 * hand-built comparison: header, views, drill-down and back, sort, filter, search, evidence,
 * names, escaping, resize, the too-small screen, help, mouse, export, the action table, and
 * figures that print the same in any locale. */
#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <sys/stat.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/report.h"
#include "fusediff/table.h"
#include "fusediff/ui_actions.h"
#include "fusediff/summed_pairs.h"
#include "fusediff/ui_explorer.h"
#include "src/compare/compare_int.h"
#include "src/ui/explorer_int.h"
#include "fusediff/ui_screen.h"
#include "fusediff/ui_theme.h"
#include "src/ui/ui_int.h"

/* One small trace serves both sides: a GEMM, an attention kernel (mangled), an eager
 * pow + mean pair, the fused Triton kernel that replaces them, and a kernel whose name is a
 * terminal escape sequence. */
static const char trace_json[] =
	"{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\",\"warpSize\":32}],"
	"\"cuda_runtime_version\":13000,\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":1,"
	"\"dur\":1,"
	"\"args\":{\"External id\":1,\"Input Dims\":[[4,4096],[4096,12288]]}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nvjet_sm90_tst_gemm_qkv\",\"pid\":0,\"tid\":7,"
	"\"ts\":100,"
	"\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1,\"External id\":1,"
	"\"grid\":[132,1,1],\"block\":[384,1,1]}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"_Z16flash_fwd_kernelv\",\"pid\":0,\"tid\":7,"
	"\"ts\":111,"
	"\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,\"External id\":2}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"pow_tensor_scalar\","
	"\"pid\":0,\"tid\":7,\"ts\":132,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,"
	"\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"mean_kernel<MeanOps>\",\"pid\":0,\"tid\":7,"
	"\"ts\":135,"
	"\"dur\":3,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_red_fused_add_mean_mul_pow_rsqrt_0\","
	"\"pid\":0,"
	"\"tid\":7,\"ts\":140,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"\\u001b]0;pwned\\u0007\",\"pid\":0,\"tid\":7,"
	"\"ts\":143,"
	"\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"correlation\":6}}]}";

enum { K_GEMM, K_ATTN, K_POW, K_MEAN, K_FUSED, K_EVIL, K_COUNT };

struct mini {
	struct trace *t;
	struct classifier *cl;
	struct side side[2];
	struct side_model model[2];
	struct comparison c;
	uint32_t name[K_COUNT];
	struct comparison_layer layers[4];
	char *stacks[1];
	struct comparison_pair pairs[8];
	struct comparison_fusion fusion;
	struct comparison_attribution parts[6];
	uint32_t pair_part[8];
	int32_t fusion_layers[2];
	uint32_t fusion_pairs[2];
	uint32_t names_store[8][2][2];
	struct comparison_instance inst_store[8][2][2];
};

static struct mini *mini;
static struct ui_screen *scr;
static struct ui *ui;

static void part(struct comparison_part *p, uint32_t *names, struct comparison_instance *inst,
		 const uint32_t *ks, uint32_t n, double total)
{
	p->names = names;
	p->inst = inst;
	p->n_names = p->n_inst = n;
	for (uint32_t i = 0; i < n; i++) {
		names[i] = mini->t->kernels[ks[i]].name;
		inst[i] = (struct comparison_instance){ ks[i], 0 };
	}
	p->count = n;
	p->total_ns = n ? total : 0;
	p->avg_ns = n ? total / n : NAN;
}

/* Pair i of layer (an index into c->layers) at position pos: kind, class, A kernels, B kernels, times. */
static void pair(uint32_t i, int32_t layer, uint32_t pos, int kind, int cls, const uint32_t *a,
		 uint32_t na, const uint32_t *b, uint32_t nb, double ta, double tb)
{
	struct comparison_pair *p = &mini->pairs[i];

	p->layer = layer;
	p->position = pos;
	p->kind = (uint8_t)kind;
	p->cls = (uint8_t)cls;
	p->fusion = -1;
	part(&p->side[0], mini->names_store[i][0], mini->inst_store[i][0], a, na, ta);
	part(&p->side[1], mini->names_store[i][1], mini->inst_store[i][1], b, nb, tb);
	p->delta_ns = p->side[1].total_ns - p->side[0].total_ns;
	p->ratio = comparison_ratio(p->side[0].total_ns, p->side[1].total_ns);
}

static void build_mini(void)
{
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	struct comparison *c;
	uint32_t k[K_COUNT];
	static const char *const want[K_COUNT] = { "nvjet",   "_Z16flash",  "pow_tensor",
						   "MeanOps", "triton_red", "pwned" };

	mini = xcalloc(1, sizeof *mini);
	c = &mini->c;
	ck_assert_msg(trace_load_mem(&mini->t, "mini.json", trace_json, sizeof trace_json - 1, &lo,
				     &err) == 0,
		      "%s", err.msg);
	ck_assert_msg(classifier_new(&mini->cl, NULL, NULL, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(mini->t->n_kernels, K_COUNT);
	for (int i = 0; i < K_COUNT; i++)
		for (uint32_t j = 0; j < K_COUNT; j++)
			if (strstr(trace_str(mini->t, mini->t->kernels[j].name), want[i]))
				k[i] = j;
	for (int s = 0; s < 2; s++) {
		mini->side[s].t = mini->t;
		classify_trace(mini->cl, mini->t, &mini->side[s].classes);
		mini->side[s].layers_per_pass = 2;
		mini->model[s] = (struct side_model){ .n_passes = 1, .layers_per_pass = 2 };
		mini->model[s].phase_passes[PHASE_PREFILL] = 1;
		mini->side[s].models = &mini->model[s];
		mini->side[s].n_models = 1;
		c->side[s] = &mini->side[s];
		c->passes[s] = 1;
	}
	c->label[0] = xstrdup("eager side");
	c->label[1] = xstrdup("compiled side");
	c->phase = PHASE_PREFILL;
	{
		const uint32_t gemm[] = { k[K_GEMM] }, attn[] = { k[K_ATTN] },
			       eager[] = { k[K_POW], k[K_MEAN] }, fused[] = { k[K_FUSED] },
			       evil[] = { k[K_EVIL] };

		pair(0, 0, 0, PAIR_A_ONLY, CLASS_COPY, evil, 1, NULL, 0, 1000, 0);
		pair(1, 1, 0, PAIR_MATCH, CLASS_GEMM, gemm, 1, gemm, 1, 10000, 9000);
		pair(2, 1, 1, PAIR_FUSED, CLASS_NORM, eager, 2, fused, 1, 5000, 2000);
		pair(3, 1, 2, PAIR_MATCH, CLASS_ATTENTION, attn, 1, attn, 1, 20000, 25000);
		pair(4, 2, 0, PAIR_MATCH, CLASS_GEMM, gemm, 1, gemm, 1, 10500, 9100);
		pair(5, 2, 1, PAIR_FUSED, CLASS_NORM, eager, 2, fused, 1, 5100, 2100);
		pair(6, 2, 2, PAIR_MATCH, CLASS_ATTENTION, attn, 1, attn, 1, 20100, 19000);
		pair(7, 3, 0, PAIR_B_ONLY, CLASS_GEMM, NULL, 0, gemm, 1, 0, 3000);
	}
	mini->pairs[2].fusion = mini->pairs[5].fusion = 0;
	c->pairs = mini->pairs;
	c->n_pairs = 8;
	{
		static const int32_t idx[4] = { LAYER_PROLOGUE, 0, 1, LAYER_EPILOGUE };
		static const uint32_t first[4] = { 0, 1, 4, 7 }, n[4] = { 1, 3, 3, 1 };

		for (int i = 0; i < 4; i++) {
			struct comparison_layer *l = &mini->layers[i];

			l->index = idx[i];
			l->pair_first = first[i];
			l->pair_n = n[i];
			for (uint32_t p = first[i]; p < first[i] + n[i]; p++)
				for (int s = 0; s < 2; s++) {
					l->ns[s] += mini->pairs[p].side[s].total_ns;
					l->kernels[s] += mini->pairs[p].side[s].count;
				}
			l->delta_ns = l->ns[1] - l->ns[0];
			l->ratio = comparison_ratio(l->ns[0], l->ns[1]);
			l->n_fusions = idx[i] >= 0;
			c->ns[0] += l->ns[0];
			c->ns[1] += l->ns[1];
		}
	}
	c->layers = mini->layers;
	c->n_layers = 4;
	mini->stacks[0] = "";
	c->stacks = mini->stacks;
	c->n_stacks = 1;
	c->delta_ns = c->ns[1] - c->ns[0];
	c->ratio = comparison_ratio(c->ns[0], c->ns[1]);
	for (size_t p = 0; p < c->n_pairs; p++)
		for (int s = 0; s < 2; s++)
			c->class_ns[s][mini->pairs[p].cls] += mini->pairs[p].side[s].total_ns;
	mini->fusion = (struct comparison_fusion){
		.id = 1,
		.fused_side = SIDE_B,
		.fused_name = mini->t->kernels[k[K_FUSED]].name,
		.unfused_names = mini->pairs[2].side[0].names,
		.n_unfused = 2,
		.atoms = ATOM_BIT(ATOM_RMSNORM),
		.occurrences = 2,
		.layers = mini->fusion_layers,
		.n_layers = 2,
		.pairs = mini->fusion_pairs,
		.n_pairs = 2,
		.ns = { 10100, 4100 },
		.delta_ns = -6000,
		.evidence = "B runs triton_red_fused_add_mean_mul_pow_rsqrt_0 as one kernel "
			    "where A runs 2 kernels for the same work."
	};
	mini->fusion_layers[0] = 1; /* layers 0 and 1: indices into c->layers */
	mini->fusion_layers[1] = 2;
	mini->fusion_pairs[0] = 2;
	mini->fusion_pairs[1] = 5;
	c->fusions = &mini->fusion;
	c->n_fusions = 1;
	/* where B - A (-2.5 us) comes from, largest first: the fused norm, the slower attention of
	 * layer 0, B's extra GEMM, the faster GEMMs, layer 1's faster attention, A's copy */
	{
		static const struct comparison_attribution parts[6] = {
			{ ATTR_FUSION, CLASS_NORM, 0, 2, { 10100, 4100 }, -6000 },
			{ ATTR_MATCHED_SLOWER, CLASS_ATTENTION, -1, 1, { 20000, 25000 }, 5000 },
			{ ATTR_B_ONLY, CLASS_GEMM, -1, 1, { 0, 3000 }, 3000 },
			{ ATTR_MATCHED_FASTER, CLASS_GEMM, -1, 2, { 20500, 18100 }, -2400 },
			{ ATTR_MATCHED_FASTER, CLASS_ATTENTION, -1, 1, { 20100, 19000 }, -1100 },
			{ ATTR_A_ONLY, CLASS_COPY, -1, 1, { 1000, 0 }, -1000 },
		};
		static const uint32_t part_of[8] = { 5, 3, 0, 1, 3, 0, 4, 2 };

		memcpy(mini->parts, parts, sizeof parts);
		memcpy(mini->pair_part, part_of, sizeof part_of);
		c->attribution = mini->parts;
		c->n_attribution = 6;
		c->pair_part = mini->pair_part;
	}
	/* what comparison_build() derives from the pairs */
	comparison_summed_pairs(c);
	comparison_noise(c);
}

static void free_mini(void)
{
	for (size_t i = 0; i < mini->c.n_summed; i++) {
		free(mini->c.summed[i].pairs);
		free(mini->c.summed[i].layers);
	}
	free(mini->c.summed);
	for (int s = 0; s < 2; s++)
		trace_classes_clear(&mini->side[s].classes);
	free(mini->c.label[0]);
	free(mini->c.label[1]);
	classifier_free(mini->cl);
	trace_free(mini->t);
	free(mini);
}

static void open_ui(int cols, int rows)
{
	struct ui_screen_opts o = { .headless = 1, .cols = cols, .rows = rows };
	struct fd_error err = { { 0 } };

	build_mini();
	ck_assert_msg(ui_screen_open(&scr, &o, &err) == 0, "%s", err.msg);
	ui = ui_new_comparison(scr, &mini->c);
}

static void setup(void)
{
	open_ui(120, 40);
}

static void teardown(void)
{
	ui_free(ui);
	ui_screen_close(scr);
	free_mini();
}

/* The screen as text (static: valid until the next call). */
static const char *screen(void)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ui_draw(ui);
	ck_assert_int_eq(ui_screen_dump(scr, f), 0);
	fclose(f);
	return buf;
}

/* Line y of the screen (static buffer). */
static const char *line(int y)
{
	static char out[4096];
	const char *s = screen();

	for (int i = 0; i < y && s; i++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	ck_assert_ptr_nonnull(s);
	snprintf(out, sizeof out, "%.*s", (int)strcspn(s, "\n"), s);
	return out;
}

static void keys(const char *names)
{
	char buf[256], *tok, *save;

	snprintf(buf, sizeof buf, "%s", names);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		int k = ui_key_from_name(tok);

		if (ui_action_from_name(tok) != ACT_NONE) {
			char first[32];
			const char *ks = ui_action_def(ui_action_from_name(tok))->keys;

			snprintf(first, sizeof first, "%.*s", (int)strcspn(ks, " "), ks);
			k = ui_key_from_name(first);
		}
		ck_assert_msg(k != UI_KEY_NONE, "bad key %s", tok);
		ui_key(ui, k);
	}
}

/* The tests of the other views start on the Layers view. */
static void setup_layers(void)
{
	open_ui(120, 40);
	keys("layers");
}

static void type(const char *text)
{
	for (; *text; text++)
		ui_key(ui, (unsigned char)*text);
}

#define assert_screen_has(s)                                                  \
	do {                                                                  \
		if (!strstr(screen(), s))                                     \
			fprintf(stderr, "screen lacks %s:\n%s", s, screen()); \
		ck_assert_msg(strstr(screen(), s), "screen lacks %s", s);     \
	} while (0)
#define assert_screen_lacks(s) \
	ck_assert_msg(!strstr(screen(), s), "screen has '%s':\n%s", s, screen())

START_TEST(test_layout)
{
	struct ui_layout l;

	ui_layout_compute(120, 40, 3, EVIDENCE_SMALL, -1, &l);
	ck_assert_int_eq(l.too_small, 0);
	ck_assert_int_eq(l.table_y, 4);
	ck_assert_int_eq(l.status_y, 39);
	ck_assert_int_eq(l.table_h + l.evidence_h, 35);
	ck_assert_int_eq(l.evidence_y, l.table_y + l.table_h);
	ck_assert_int_eq(l.evidence_h, 11);
	/* a table of 5 rows keeps 6 lines, the evidence takes the rest */
	ui_layout_compute(120, 40, 3, EVIDENCE_SMALL, 5, &l);
	ck_assert_int_eq(l.table_h, 6);
	ck_assert_int_eq(l.evidence_h, 29);
	ui_layout_compute(120, 40, 3, EVIDENCE_LARGE, -1, &l);
	ck_assert_int_eq(l.evidence_h, 23);
	ui_layout_compute(120, 40, 3, EVIDENCE_HIDDEN, 5, &l);
	ck_assert_int_eq(l.evidence_h, 0);
	ck_assert_int_eq(l.table_h, 35);
	/* the smallest usable screen, and just below it */
	ui_layout_compute(60, 15, 3, EVIDENCE_SMALL, -1, &l);
	ck_assert_int_eq(l.too_small, 0);
	ck_assert_int_ge(l.table_h, 4);
	ui_layout_compute(59, 40, 3, EVIDENCE_SMALL, -1, &l);
	ck_assert_int_eq(l.too_small, 1);
	ui_layout_compute(120, 14, 3, EVIDENCE_SMALL, -1, &l);
	ck_assert_int_eq(l.too_small, 1);
}
END_TEST

START_TEST(test_action_table)
{
	int seen[ACT_COUNT] = { 0 };

	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
		const struct ui_action_def *d = ui_action_def(a);
		const char *k;

		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(d->action, a);
		ck_assert_int_eq(ui_action_from_name(d->name), a);
		ck_assert(d->help && *d->help);
		/* every default key parses, is bound to this action only, and round-trips */
		for (k = d->keys; *k;) {
			char name[32], back[32];
			size_t n = strcspn(k, " ");
			int key;

			snprintf(name, sizeof name, "%.*s", (int)n, k);
			key = ui_key_from_name(name);
			ck_assert_msg(key != UI_KEY_NONE, "%s: key %s", d->name, name);
			ck_assert_msg(ui_action_for_key(key) == (enum ui_action)a,
				      "key %s bound twice", name);
			ck_assert_str_eq(ui_key_name(key, back, sizeof back), name);
			k += n;
			k += *k == ' ';
		}
		seen[a]++;
	}
	ck_assert_int_eq(ui_action_from_name("no-such-action"), ACT_NONE);
	ck_assert_int_eq(ui_key_from_name("Enter"), UI_KEY_ENTER);
	ck_assert_int_eq(ui_key_from_name("C-c"), 3);
	ck_assert_int_eq(ui_key_from_name("F12"), UI_KEY_F12);
	ck_assert_int_eq(ui_key_from_name("\xc3\xa9"), 0xe9);
	ck_assert_int_eq(ui_key_from_name("xy"), UI_KEY_NONE);
	ck_assert_int_eq(ui_theme_from_name("light"), THEME_LIGHT);
	ck_assert_int_eq(ui_theme_from_name("neon"), -1);
	/* A and B have one colour each: the header's side letters (the bars) and the kernels only
	 * that side runs */
	for (int th = THEME_DARK; th <= THEME_LIGHT; th++) {
		ck_assert_int_eq(ui_theme_fg(th, ROLE_BAR_A), ui_theme_fg(th, ROLE_UNMATCHED));
		ck_assert_int_eq(ui_theme_fg(th, ROLE_BAR_B), ui_theme_fg(th, ROLE_B_ONLY));
		ck_assert_int_ne(ui_theme_fg(th, ROLE_BAR_A), ui_theme_fg(th, ROLE_BAR_B));
	}
}
END_TEST

/* The man page's KEYS section is the one the action table writes. */
START_TEST(test_man_keys)
{
	char *gen = NULL, *man = NULL, *start, *end;
	size_t len;
	FILE *f = open_memstream(&gen, &len);
	FILE *m = fopen(test_path("man/fusediff.1"), "r");

	ck_assert_int_eq(ui_actions_write_mdoc(f), 0);
	fclose(f);
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++)
		ck_assert_msg(strstr(gen, ui_action_def(a)->name), "%s", ui_action_def(a)->name);
	ck_assert_ptr_nonnull(m);
	man = xcalloc(1, 1 << 20);
	len = fread(man, 1, (1 << 20) - 1, m);
	fclose(m);
	start = strstr(man, ".Sh KEYS\n");
	ck_assert_msg(start, "man/fusediff.1 has no KEYS section");
	end = strstr(start + 1, "\n.Sh ");
	ck_assert_ptr_nonnull(end);
	end[1] = '\0';
	ck_assert_msg(strcmp(start, gen) == 0,
		      "man/fusediff.1 KEYS differs from the action table; the table writes:\n%s",
		      gen);
	free(man);
	free(gen);
}
END_TEST

/* The first screen answers why B differs: the parts of B - A, largest first, adding up to the
 * total in the header; Enter on a part shows its kernel pairs. */
START_TEST(test_first_screen)
{
	ck_assert_int_eq(ui_view(ui), VIEW_OVERVIEW);
	ck_assert(strstr(line(4), "Part") && strstr(line(4), "B-A us"));
	ck_assert_msg(strstr(line(5), "fusion #1") && strstr(line(5), "Norm") &&
			      strstr(line(5), "-6.00"),
		      "%s", line(5));
	ck_assert_msg(strstr(line(6), "B slower") && strstr(line(6), "Attention") &&
			      strstr(line(6), "+5.00"),
		      "%s", line(6));
	ck_assert(strstr(line(7), "B only") && strstr(line(7), "GEMM"));
	ck_assert(strstr(line(10), "A only") && strstr(line(10), "Copy"));
	/* the shares: -6 of -2.5 us is 240 % */
	ck_assert_msg(strstr(line(5), "240.0%"), "%s", line(5));
	assert_screen_has("B runs triton_red_fused_add_mean_mul_pow_rsqrt_0 as one kernel");
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert_msg(strstr(line(3), "fusion #1 Norm"), "%s", line(3));
	ck_assert(strstr(line(3), "1/2")); /* its two pairs */
	keys("Esc down down Enter");	   /* B only GEMM: the epilogue's extra GEMM */
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert(strstr(line(3), "B only GEMM"));
	assert_screen_has("epilogue");
	assert_screen_lacks("prologue");
}
END_TEST

START_TEST(test_header_and_layers)
{
	ck_assert_int_eq(ui_view(ui), VIEW_LAYERS);
	ck_assert(strstr(line(0), "eager side"));
	ck_assert(strstr(line(0), "NVIDIA H200"));
	ck_assert(strstr(line(1), "compiled side"));
	ck_assert(strstr(line(2), "phase prefill"));
	ck_assert(strstr(line(2), "1 fusion difference"));
	ck_assert(strstr(line(3), "1 Overview"));
	ck_assert(strstr(line(3), "4 Fusions"));
	ck_assert(strstr(line(4), "Layer"));
	/* sorted by |delta|: layer 1 (-5.5 us) first, layer 0 (+1 us) last; prologue and
	 * epilogue rows are there */
	assert_screen_has("prologue");
	assert_screen_has("epilogue");
	ck_assert_msg(strncmp(line(5), "1 ", 2) == 0, "%s", line(5));
	ck_assert(strstr(line(5), "-5.50"));
	ck_assert_msg(strncmp(line(8), "0 ", 2) == 0, "%s", line(8));
}
END_TEST

START_TEST(test_drill_down_and_back)
{
	keys("down down down"); /* layer 0, the last row */
	ck_assert(strstr(line(3), "4/4"));
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert_msg(strstr(line(3), "layer 0"), "%s", line(3));
	ck_assert(strstr(line(3), "1/3")); /* its three pairs */
	assert_screen_lacks("epilogue");
	keys("Esc");
	ck_assert_int_eq(ui_view(ui), VIEW_LAYERS);
	/* the same layer is still selected */
	ck_assert(strstr(line(3), "4/4"));
	/* from the overview, Enter shows the pairs of one part of B - A; q goes back, then quits */
	keys("overview");
	ck_assert_int_eq(ui_view(ui), VIEW_OVERVIEW);
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert(strstr(line(3), "fusion #1 Norm"));
	ck_assert_int_eq(ui_key(ui, 'q'), 0);
	ck_assert_int_eq(ui_view(ui), VIEW_OVERVIEW);
	/* from the Summed view, Enter shows the places of one row, Esc comes back to it */
	keys("summed down");
	ck_assert_int_eq(ui_view(ui), VIEW_SUMMED);
	ck_assert(strstr(line(3), "2/"));
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert_msg(strstr(line(3), "summed:"), "%s", line(3));
	keys("Esc");
	ck_assert_int_eq(ui_view(ui), VIEW_SUMMED);
	ck_assert(strstr(line(3), "2/"));
	ck_assert_int_eq(ui_key(ui, 'q'), 1);
}
END_TEST

/* Long names scroll right and back to the left edge, no further: left never leaves the
 * drill-down (Esc does). The offset shows, and an ellipsis says where the names start. */
START_TEST(test_horizontal_scroll)
{
	keys("Enter"); /* layer 1's pairs */
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert(strstr(line(5), " nvjet_sm90_tst_gemm"));
	keys("narrower narrower"); /* names that fit do not move: cut them */
	keys("right");		   /* the name columns move by 8 cells, the numbers stay */
	ck_assert_msg(strstr(line(5), " \xe2\x80\xa6"
				      "90_t"),
		      "%s", line(5));
	ck_assert(strstr(line(5), "10.5"));
	ck_assert_msg(strstr(line(3), "names +8"), "%s", line(3));
	keys("left");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert(strstr(line(5), " nvjet"));
	ck_assert(!strstr(line(3), "names +"));
	keys("left");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	ck_assert_msg(strstr(ui_message(ui), "names at the left edge (Esc: back)"), "%s",
		      ui_message(ui));
	keys("Esc");
	ck_assert_int_eq(ui_view(ui), VIEW_LAYERS);
}
END_TEST

START_TEST(test_pairs_groups_and_gaps)
{
	keys("pairs");
	/* alignment order: the prologue gap first; the fused pair's second A kernel on its own
	 * line under the first */
	ck_assert(strstr(line(5), "prologue"));
	ck_assert(strstr(line(5), "A only"));
	assert_screen_has("B fuses");
	assert_screen_has("#1");
	assert_screen_has("B only");
	{
		const char *s = screen();
		const char *pow = strstr(s, "pow_tensor"), *mean = strstr(s, "mean_kernel");

		ck_assert_ptr_nonnull(pow);
		ck_assert_ptr_nonnull(mean);
		ck_assert(pow < mean);
	}
	/* only fusions: the two fused pairs with their continuation lines */
	keys("only-fusions");
	ck_assert(strstr(line(3), "only fusions"));
	ck_assert(strstr(line(3), "1/2"));
	assert_screen_lacks("A only");
	keys("clear-filter");
	keys("only-mismatches");
	/* 1 A-only, 2 fused, 1 B-only; the selected fused pair stays selected */
	ck_assert_msg(strstr(line(3), "2/4"), "%s", line(3));
}
END_TEST

START_TEST(test_sort_filter_search)
{
	keys("pairs");
	/* sort by the column right of the default (alignment order): Layer, then Pos */
	keys("sort-right");
	ck_assert_msg(strstr(ui_message(ui), "sorted by Layer"), "%s", ui_message(ui));
	keys("reverse");
	ck_assert(strstr(line(5), "epilogue"));
	/* the sort picker: choose Delta (the columns on the screen from Layer: Pos, Kind, Class,
	 * A kernel, A us, B us, B kernel, Delta) */
	keys("sort");
	assert_screen_has("Sort by");
	for (int i = 0; i < 8; i++)
		keys("down");
	keys("Enter");
	ck_assert_msg(strstr(ui_message(ui), "sorted by Delta"), "%s", ui_message(ui));
	ck_assert(strstr(line(4), "|Delta|\xe2\x96\xbc") || strstr(line(4), "|Delta|v"));
	/* |delta| largest first: the attention pair of layer 0 (+5000) */
	ck_assert_msg(strstr(line(5), "+5.00"), "%s", line(5));
	ck_assert_msg(strstr(ui_message(ui), "the largest difference either way first"), "%s",
		      ui_message(ui));
	/* the selection stays on its row when the order changes */
	keys("down down");
	{
		char before[256];

		snprintf(before, sizeof before, "%s", line(7));
		keys("reverse");
		ck_assert_msg(strstr(screen(), before), "%s", before);
	}
	/* reverse walks the signed orders: the largest regression first, then the largest gain */
	ck_assert_msg(strstr(ui_message(ui), "the largest regression (B slower) first"), "%s",
		      ui_message(ui));
	ck_assert(strstr(line(4), "Delta\xe2\x96\xbc") || strstr(line(4), "Deltav"));
	ck_assert_msg(strstr(line(5), "+5.00"), "%s", line(5));
	keys("reverse");
	ck_assert_msg(strstr(ui_message(ui), "the largest gain (B faster) first"), "%s",
		      ui_message(ui));
	ck_assert(strstr(line(4), "Delta\xe2\x96\xb2") || strstr(line(4), "Delta^"));
	ck_assert_msg(!strstr(line(5), " +"), "%s", line(5)); /* a gain: no regression on top */
	keys("reverse");
	/* B/A: the epilogue's B-only GEMM (no A time: +infinity) ranks above every ratio */
	keys("sort-right");
	ck_assert_msg(strstr(ui_message(ui), "sorted by B/A"), "%s", ui_message(ui));
	ck_assert_msg(strstr(line(5), "epilogue"), "%s", line(5));
	keys("sort-left");
	/* search: / flash Enter, then n and N wrap around */
	keys("top");
	keys("search");
	type("flash");
	keys("Enter");
	/* the first row matches: the search goes on to the next match */
	ck_assert_str_eq(ui_message(ui), "/flash: match 2 of 2");
	keys("search-next"); /* k of n, and where it wrapped */
	ck_assert_str_eq(ui_message(ui), "/flash: match 1 of 2 (wrapped to the top)");
	keys("search-prev");
	ck_assert_str_eq(ui_message(ui), "/flash: match 2 of 2 (wrapped to the bottom)");
	keys("search-next search-next");
	ck_assert_str_eq(ui_message(ui), "/flash: match 2 of 2");
	keys("search");
	type("no such kernel");
	keys("Enter");
	ck_assert(strstr(ui_message(ui), "not found"));
	/* filter: f gemm Enter shows only GEMM names */
	keys("filter");
	type("nvjet");
	keys("Enter");
	ck_assert_msg(strstr(line(3), "filter \"nvjet\""), "%s", line(3));
	assert_screen_lacks("pow_tensor");
	keys("filter");
	type("zzz");
	keys("Enter");
	assert_screen_has("no row passes the filter");
	keys("clear-filter");
	assert_screen_has("pow_tensor");
}
END_TEST

/* y asks whose kernel names to copy, then copies them in full (OSC 52; headless keeps it): a
 * for A's, b for B's (a fusion's fused kernel, or the run it replaces), Enter for both; the
 * Layers view has no kernel to copy. */
START_TEST(test_copy_name)
{
	keys("layers copy");
	ck_assert_msg(strstr(ui_message(ui), "y: select a kernel pair"), "%s", ui_message(ui));
	ck_assert_str_eq(ui_screen_clipboard(scr), "");
	keys("pairs down copy");
	assert_screen_has("Copy the kernel names of a: A, b: B, Enter: both");
	keys("a");
	ck_assert_msg(strstr(ui_message(ui), "copied A's kernel name"), "%s", ui_message(ui));
	ck_assert_msg(strstr(ui_screen_clipboard(scr), "gemm"), "%s", ui_screen_clipboard(scr));
	keys("fusions top copy b");
	ck_assert_msg(strstr(ui_message(ui), "copied B's kernel name (1,"), "%s", ui_message(ui));
	keys("copy Enter"); /* both: the fused kernel and the kernels it replaces */
	ck_assert_msg(strstr(ui_message(ui), "copied both sides' kernel names"), "%s",
		      ui_message(ui));
	ck_assert_msg(strstr(ui_screen_clipboard(scr), "A: ") &&
			      strstr(ui_screen_clipboard(scr), "\nB: "),
		      "%s", ui_screen_clipboard(scr));
	keys("copy Esc");
	ck_assert_msg(strstr(ui_message(ui), "nothing copied"), "%s", ui_message(ui));
}
END_TEST

/* Enter in a pair's evidence follows the pair: to its fusion, or to its Summed row; Esc comes
 * back to the pair. */
START_TEST(test_pair_links)
{
	keys("pairs only-fusions top Enter");
	assert_screen_has("Enter in this pane: its fusion in the Fusions view");
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_FUSIONS);
	ck_assert_msg(strstr(ui_message(ui), "fusion #"), "%s", ui_message(ui));
	keys("Esc");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
	keys("clear-filter top Enter");
	assert_screen_has("Enter in this pane: its row of the Summed view");
	keys("Enter");
	ck_assert_int_eq(ui_view(ui), VIEW_SUMMED);
	ck_assert_msg(strstr(ui_message(ui), "its row of the Summed view"), "%s", ui_message(ui));
	keys("Esc");
	ck_assert_int_eq(ui_view(ui), VIEW_PAIRS);
}
END_TEST

/* What the views say of themselves: without ranks the Ranks view has neither a tab nor its
 * key, and Tab goes round without it; the Fusions view's own words for an empty table. */
START_TEST(test_view_hooks)
{
	assert_screen_lacks(" 7 Ranks ");
	assert_screen_has("Tab/1-6:views");
	keys("ranks");
	ck_assert_int_eq(ui_view(ui), VIEW_LAYERS);
	ck_assert_str_eq(ui_message(ui), "no ranks: give two directories of per-rank traces");
	keys("totals next-view");
	ck_assert_int_eq(ui_view(ui), VIEW_OVERVIEW);
	keys("prev-view");
	ck_assert_int_eq(ui_view(ui), VIEW_TOTALS);
	ui_free(ui);
	mini->c.n_fusions = 0;
	ui = ui_new_comparison(scr, &mini->c);
	keys("fusions");
	assert_screen_has(
		"(no fusion difference in this phase: where one side runs a fused kernel, "
		"so does the other)");
}
END_TEST

/* + widens the name columns until other columns give way; - brings them back. */
START_TEST(test_name_width)
{
	keys("pairs");
	ck_assert_msg(strstr(line(4), " B/A"), "%s", line(4));
	keys("wider wider wider wider wider wider");
	ck_assert_msg(!strstr(line(4), " B/A"), "%s", line(4));
	ck_assert_msg(strstr(ui_message(ui), "name columns +48 cells"), "%s", ui_message(ui));
	keys("narrower narrower narrower narrower narrower narrower");
	ck_assert_msg(strstr(line(4), " B/A"), "%s", line(4));
}
END_TEST

START_TEST(test_evidence_and_names)
{
	keys("pairs down");
	/* the GEMM pair of layer 0: its instance with grid, block, stream, operator and shapes */
	keys("Enter");
	ck_assert(strstr(line(3), "evidence"));
	assert_screen_has("[132,1,1]");
	assert_screen_has("[384,1,1]");
	assert_screen_has("aten::mm");
	assert_screen_has("[[4,4096],[4096,12288]]");
	keys("Esc search");
	type("flash");
	keys("Enter");
	/* the attention kernel was recorded mangled: short, demangled and raw forms */
	assert_screen_has("flash_fwd_kernel");
	assert_screen_lacks("_Z16flash_fwd_kernelv");
	keys("names");
	ck_assert_str_eq(ui_message(ui), "kernel names: demangled");
	assert_screen_has("flash_fwd_kernel()");
	keys("names");
	assert_screen_has("_Z16flash_fwd_kernelv");
	/* the fusion's evidence sentence */
	keys("fusions Enter");
	assert_screen_has("B runs triton_red_fused_add_mean_mul_pow_rsqrt_0 as one kernel");
	/* v cycles the pane: large, hidden, small */
	keys("Esc evidence evidence");
	assert_screen_lacks("Evidence");
	keys("evidence");
	assert_screen_has("Evidence");
}
END_TEST

START_TEST(test_escape_sequences_are_shown_escaped)
{
	const char *s;

	keys("pairs");
	s = screen();
	ck_assert_ptr_null(strchr(s, 0x1b));
	ck_assert_ptr_null(strchr(s, 0x07));
	ck_assert_msg(strstr(s, "\\e]0;pwned\\x07"), "%s", s);
}
END_TEST

START_TEST(test_resize_and_too_small)
{
	ui_screen_resize(scr, 50, 12);
	ui_key(ui, UI_KEY_RESIZE);
	assert_screen_has("Terminal too small: 50x12");
	assert_screen_has("at least 60x15");
	ui_screen_resize(scr, 80, 24);
	ui_key(ui, UI_KEY_RESIZE);
	assert_screen_lacks("too small");
	ck_assert(strstr(line(0), "eager side"));
	ck_assert(strstr(line(23), "help"));
	ui_screen_resize(scr, 200, 60);
	ui_key(ui, UI_KEY_RESIZE);
	ck_assert(strstr(line(59), "help"));
	/* nothing drawn past the right edge */
	for (int y = 0; y < 60; y++)
		ck_assert_int_le((int)strlen(line(y)), 200 * 3);
	/* q quits from the too-small screen */
	ui_screen_resize(scr, 40, 10);
	ui_key(ui, UI_KEY_RESIZE);
	ck_assert_int_eq(ui_key(ui, 'q'), 1);
}
END_TEST

START_TEST(test_help_lists_every_action)
{
	keys("help");
	assert_screen_has("fusediff keys");
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
		if (!strstr(screen(), ui_action_def(a)->help))
			keys("PgDn");
		ck_assert_msg(strstr(screen(), ui_action_def(a)->help), "help lacks %s",
			      ui_action_def(a)->name);
	}
	/* then the words: every line of the glossary */
	keys("PgDn PgDn");
	assert_screen_has("Words");
	for (size_t i = 0; i < ui_glossary_n; i++)
		assert_screen_has(ui_glossary[i]);
	keys("Esc");
	assert_screen_lacks("any other key closes");
	assert_screen_has("Layers");
}
END_TEST

START_TEST(test_mouse)
{
	struct ui_event ev = { UI_KEY_MOUSE, UI_MOUSE_CLICK, 30, 3 };

	screen(); /* the mouse acts on what was drawn */
	/* a click on a view name switches to it */
	for (ev.x = 0; ev.x < 60 && ui_view(ui) != VIEW_FUSIONS; ev.x++)
		ui_handle(ui, &ev);
	ck_assert_int_eq(ui_view(ui), VIEW_FUSIONS);
	keys("pairs");
	/* a click on a row selects it; a double click opens its evidence */
	screen();
	ev.x = 10;
	ev.y = 7;
	ui_handle(ui, &ev);
	ck_assert(strstr(line(3), "3/"));
	ev.mouse = UI_MOUSE_DOUBLE;
	ui_handle(ui, &ev);
	ck_assert(strstr(line(3), "evidence"));
	/* the wheel moves the window */
	keys("Esc");
	ev.mouse = UI_MOUSE_WHEEL_DOWN;
	ui_handle(ui, &ev);
	ui_handle(ui, &ev);
}
END_TEST

/* Mouse reports in the SGR encoding (1006), as the terminal sends them (issue 33): a press
 * anywhere, past column 223 too (X10 cannot say 250), a second press on the same cell a
 * double click, the wheel (with modifiers); releases, drags, other buttons and malformed
 * reports are no event. */
START_TEST(test_mouse_sgr)
{
	struct ui_event ev;

	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;251;9M", &ev), 1);
	ck_assert_int_eq(ev.key, UI_KEY_MOUSE);
	ck_assert_int_eq(ev.mouse, UI_MOUSE_CLICK);
	ck_assert_int_eq(ev.x, 250);
	ck_assert_int_eq(ev.y, 8);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;251;9m", &ev), 0); /* its release */
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;251;9M", &ev), 1);
	ck_assert_int_eq(ev.mouse, UI_MOUSE_DOUBLE);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;251;9M", &ev), 1); /* a third: a click */
	ck_assert_int_eq(ev.mouse, UI_MOUSE_CLICK);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;12;9M", &ev), 1); /* elsewhere */
	ck_assert_int_eq(ev.mouse, UI_MOUSE_CLICK);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "64;1000;3M", &ev), 1);
	ck_assert_int_eq(ev.mouse, UI_MOUSE_WHEEL_UP);
	ck_assert_int_eq(ev.x, 999);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "81;5;5M", &ev), 1); /* ctrl + wheel down */
	ck_assert_int_eq(ev.mouse, UI_MOUSE_WHEEL_DOWN);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "32;30;5M", &ev), 0); /* a drag */
	ck_assert_int_eq(ui_screen_mouse_report(scr, "2;30;5M", &ev), 0);  /* the right button */
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;30M", &ev), 0);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;0;5M", &ev), 0);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;30;5Mx", &ev), 0);
	ck_assert_int_eq(ui_screen_mouse_report(scr, "0;30;5X", &ev), 0);
}
END_TEST

START_TEST(test_export)
{
	char dir[] = "/tmp/fusediff-ui-XXXXXX", path[128];
	FILE *f;
	char buf[512];
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/layers.csv", dir);
	keys("export");
	/* the prompt proposes a file in the current directory */
	ck_assert_msg(strstr(line(39), "Export CSV to: fusediff-Layers-prefill.csv"), "%s",
		      line(39));
	keys("C-u");
	type(path);
	keys("Enter");
	ck_assert_msg(strstr(ui_message(ui), "wrote 4 rows"), "%s", ui_message(ui));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	/* the rows as --report csv writes the layers table, in the view's order */
	ck_assert_msg(strncmp(buf,
			      "table,index,phase,a_us,b_us,delta_us,ratio,a_kernels,"
			      "b_kernels,fusions,a_wall_us,b_wall_us,a_idle_us,b_idle_us,"
			      "ci_low_us,ci_high_us,significant\n",
			      144) == 0,
		      "%s", buf);
	{
		char *want = NULL, *line_ = NULL;
		size_t want_len = 0, lines = 0;
		FILE *w = open_memstream(&want, &want_len);

		ck_assert_int_eq(report_csv_table(w, &mini->c, CSV_LAYERS, NULL, 0), 0);
		fclose(w);
		for (char *p = buf; (line_ = strchr(p, '\n')); p = line_ + 1, lines++) {
			*line_ = '\0';
			ck_assert_msg(strstr(want, p) != NULL, "exported '%s' is not a report row",
				      p);
			*line_ = '\n';
		}
		ck_assert_uint_eq(lines, 5); /* the header and the 4 layers */
		ck_assert(strncmp(buf + 144, "layers,1,", 9) == 0); /* sorted by |delta| first */
		free(want);
	}
	/* again: it asks before overwriting, and n keeps the file */
	keys("down export C-u");
	type(path);
	keys("Enter");
	ck_assert(strstr(line(39), "exists: overwrite it? (y/n)"));
	keys("n");
	ck_assert(strstr(ui_message(ui), "not exported"));
	keys("export C-u");
	type(path);
	keys("Enter y");
	ck_assert(strstr(ui_message(ui), "wrote 4 rows"));
	unlink(path);
	rmdir(dir);
	/* a layer's pairs propose a name that says which layer */
	keys("top Enter export");
	ck_assert_msg(strstr(line(39), "Export CSV to: fusediff-Pairs-layer1-prefill.csv"), "%s",
		      line(39));
	keys("Esc");
	ck_assert_str_eq(ui_message(ui), "cancelled");
}
END_TEST

/* ui_clip: a fixed-width column of a text line, whatever the name's length or characters. */
START_TEST(test_clip)
{
	char buf[64];

	ui_clip(scr, "ab", 5, buf, sizeof buf); /* short: padded */
	ck_assert_str_eq(buf, "ab   ");
	ui_clip(scr, "abcde", 5, buf, sizeof buf); /* exactly the width: whole */
	ck_assert_str_eq(buf, "abcde");
	ui_clip(scr, "abcdefgh", 5, buf, sizeof buf); /* long: four characters and the ellipsis */
	ck_assert_int_eq(strncmp(buf, "abcd", 4), 0);
	ck_assert_int_eq(ui_text_width(scr, buf, 1), 5);
	ck_assert_ptr_null(strchr(buf + 4, 'e'));
	ui_clip(scr, "", 3, buf, sizeof buf);
	ck_assert_str_eq(buf, "   ");
	ui_clip(scr, "abcdefgh", 5, buf, 3); /* a small buffer: cut, terminated */
	ck_assert_uint_le(strlen(buf), 2);
}
END_TEST

/* The explorer's figures with decimals print '.' whatever LC_NUMERIC says (text_fixed()): a
 * pair's efficiency in the evidence (its FLOPs and bytes, TFLOPS, TB/s, the peak) and in the
 * Pairs column, formatted under a locale with a decimal comma. */
START_TEST(test_numbers_any_locale)
{
	const struct comparison_eff e = { .flops = 2.5e12,
					  .bytes = 1.5e9,
					  .tflops = 12.34,
					  .tbps = 1.5,
					  .ai = 1666.7,
					  .peak_share = 0.456,
					  .bound = 1,
					  .dtype = EFF_BF16,
					  .kind = EFF_GEMM,
					  .ops = 1,
					  .b = 1,
					  .m = 4096,
					  .n = 4096,
					  .k = 4096 };
	struct comparison_eff mem = e;
	const struct gpu_peak pk = { .name = "H100",
				     .tflops = { [EFF_BF16] = 989.4 },
				     .tbps = 3.35 };
	struct ui_text out = { 0 };
	char probe[16], col[32];
	int set = test_comma_locale(LC_NUMERIC);

	mem.bound = 0;
	snprintf(probe, sizeof probe, "%.1f", 1.5);
	ui_evidence_eff(&out, &e, &pk, 0);
	ui_evidence_eff(&out, &mem, &pk, 0);
	fmt_eff(col, sizeof col, &e);
	setlocale(LC_NUMERIC, "C");
	ck_assert_uint_eq(out.n, 6);
	ck_assert_str_eq(out.lines[0].text,
			 "   work: GEMM M 4096 N 4096 K 4096, bf16; 2.50 TFLOP, 1.50 GB a call");
	ck_assert_str_eq(out.lines[1].text, "   achieved 12.3 TFLOPS, 1.50 TB/s, 1667 FLOP/B");
	ck_assert_str_eq(out.lines[2].text,
			 "   compute-bound: 46% of H100's bf16 peak, 989 TFLOPS");
	ck_assert_str_eq(out.lines[5].text,
			 "   memory-bound (ridge 295 FLOP/B): 46% of H100's 3.35 TB/s");
	ck_assert_str_eq(col, "12 46%");
	ui_text_clear(&out);
	if (set)
		ck_assert_str_eq(probe, "1,5"); /* the locale really was in effect */
	else
		fprintf(stderr, "no locale with a decimal comma: checked in the C locale only\n");
}
END_TEST

static Suite *ui_suite(void)
{
	Suite *s = suite_create("ui");
	TCase *pure = tcase_create("pure");
	TCase *tc = tcase_create("render");
	TCase *first = tcase_create("first");

	tcase_add_test(pure, test_layout);
	tcase_add_test(pure, test_action_table);
	tcase_add_test(pure, test_man_keys);
	tcase_add_test(pure, test_numbers_any_locale);
	suite_add_tcase(s, pure);
	tcase_add_checked_fixture(first, setup, teardown);
	tcase_add_test(first, test_first_screen);
	suite_add_tcase(s, first);
	tcase_add_checked_fixture(tc, setup_layers, teardown);
	tcase_add_test(tc, test_header_and_layers);
	tcase_add_test(tc, test_drill_down_and_back);
	tcase_add_test(tc, test_horizontal_scroll);
	tcase_add_test(tc, test_pairs_groups_and_gaps);
	tcase_add_test(tc, test_sort_filter_search);
	tcase_add_test(tc, test_evidence_and_names);
	tcase_add_test(tc, test_copy_name);
	tcase_add_test(tc, test_name_width);
	tcase_add_test(tc, test_pair_links);
	tcase_add_test(tc, test_view_hooks);
	tcase_add_test(tc, test_escape_sequences_are_shown_escaped);
	tcase_add_test(tc, test_resize_and_too_small);
	tcase_add_test(tc, test_help_lists_every_action);
	tcase_add_test(tc, test_mouse);
	tcase_add_test(tc, test_mouse_sgr);
	tcase_add_test(tc, test_export);
	tcase_add_test(tc, test_clip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* UTF-8 when the machine has it (glyphs), else ASCII; the assertions hold for both */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "C");
	return test_run(ui_suite());
}
