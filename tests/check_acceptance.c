/* check_acceptance.c — the facts a correct analysis must find, in one place, end to end through
 * the public API (session_open_traces → session_compare → report_write) on the real
 * traces bundled in examples/ and tests/data/traces/ (and llama3_8b_shape when ../shared/traces is
 * there):
 *   - layers per pass, equal on both sides of every pair: 8 for every llama8l_* trace (also
 *     math attention), 32 for the SGLang pair and llama3_8b_shape, 24 for Qwen1.5, 6 for the
 *     MoE trace, 4 for BERT-small; passes and phases as SOURCES.md says;
 *   - eager vs compiled Llama prefill: B fuses RMSNorm and SiLU·mul, GEMMs and attention match;
 *   - SGLang MI300X vs B300: attention and GEMMs matched, add+RMSNorm paired, split-K one step;
 *   - every trace against itself: only matches, no fusion, ratio 1;
 *   - Other below 10% of kernel time on every trace;
 *   - reports byte-identical across runs and LC_ALL, JSON valid, CSV read back by a real CSV
 *     reader (python3's csv module, when python3 is installed).
 * The traces are loaded once for the whole suite (an unchecked fixture). */
#include "acceptance.h"

#include <locale.h>
#include <sys/wait.h>

#include "fusediff/json.h"
#include "fusediff/report.h"

enum {
	EAGER,
	COMPILED,
	MATHATTN,
	MOE,
	MI300X,
	B300,
	QWEN_MI300X,
	QWEN_H100,
	BERT_MI300X,
	BERT_H100,
	N_REAL
};

/* What SOURCES.md says each bundled trace holds. */
static const struct {
	const char *file;
	uint32_t prefill, decode, layers;
} real[N_REAL] = {
	[EAGER] = { "llama8l_eager_sdpa.json.gz", 2, 16, 8 },
	[COMPILED] = { "llama8l_compiled_sdpa.json.gz", 2, 0, 8 },
	[MATHATTN] = { "llama8l_eager_mathattn.json.gz", 2, 16, 8 },
	[MOE] = { "moe6l_eager_sdpa.json.gz", 2, 8, 6 },
	[MI300X] = { "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz", 0, 1, 32 },
	[B300] = { "tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz", 0, 1, 32 },
	[QWEN_MI300X] = { "tracelens_qwen1.5-0.5b_hf_mi300x.json.gz", 1, 0, 24 },
	[QWEN_H100] = { "tracelens_qwen1.5-0.5b_hf_h100.json.gz", 1, 0, 24 },
	[BERT_MI300X] = { "tracelens_bert-small_hf_mi300x.json.gz", 1, 0, 4 },
	[BERT_H100] = { "tracelens_bert-small_hf_h100.json.gz", 1, 0, 4 },
};

#define LARGE "llama3_8b_shape_eager_sdpa.json.gz"

static struct trace *traces[N_REAL];
static struct classifier *cl;

static void load_all(void)
{
	cl = test_classifier();
	for (int i = 0; i < N_REAL; i++)
		traces[i] = test_load(test_trace(real[i].file));
}

static void free_all(void)
{
	for (int i = 0; i < N_REAL; i++)
		trace_free(traces[i]);
	classifier_free(cl);
}

/* Structure facts of one side of trace i: passes, phases, layers in every pass. */
static void assert_structure(const struct side *s, int i)
{
	acc_assert_passes(s, real[i].prefill, real[i].decode);
	acc_assert_layers(s, real[i].layers);
}

/* Every trace against itself, over all its passes: the structure SOURCES.md gives on both
 * sides, only matches, no fusion, ratio 1; Other below 10%. */
START_TEST(test_self)
{
	struct session *ses = test_session(traces[_i], traces[_i], cl);
	const struct comparison *c = test_compare(ses, PHASE_COUNT);

	for (int s = 0; s < 2; s++) {
		assert_structure(c->side[s], _i);
		ck_assert_msg(c->side[s]->classes.other_share < 0.10, "%s: Other %.1f%%",
			      real[_i].file, 100 * c->side[s]->classes.other_share);
	}
	ck_assert_uint_eq(c->passes[0], real[_i].prefill + real[_i].decode);
	acc_assert_self(c);
	session_close(ses);
}
END_TEST

/* The pairs: the same layer count on both sides, and what each pair must show. */
static const struct {
	int a, b;
} pairs[] = {
	{ EAGER, COMPILED },	    { EAGER, MATHATTN },	{ MI300X, B300 },
	{ QWEN_MI300X, QWEN_H100 }, { BERT_MI300X, BERT_H100 },
};

START_TEST(test_pairs)
{
	int a = pairs[_i].a, b = pairs[_i].b;
	struct session *ses = test_session(traces[a], traces[b], cl);
	const struct comparison *c = test_compare(ses, -1);

	ck_assert_uint_eq(real[a].layers, real[b].layers);
	assert_structure(c->side[0], a);
	assert_structure(c->side[1], b);
	ck_assert_uint_eq(c->n_layers, real[a].layers + 2);
	ck_assert_ptr_null(c->note);
	if (a == EAGER && b == COMPILED)
		acc_assert_eager_vs_compiled(c, 8);
	if (a == MI300X)
		acc_assert_sglang(c);
	session_close(ses);
}
END_TEST

/* The Llama-3-8B-shaped trace (130 MB, outside the repository): 1 prefill + 32 decode passes of
 * 32 layers; against itself only matches; Other below 10%. */
START_TEST(test_large)
{
	const char *p = test_shared_trace(LARGE);
	struct trace *t;
	struct session *ses;
	const struct comparison *c;

	if (!p) {
		fprintf(stderr, "%s not found next to the checkout: not checked\n", LARGE);
		return;
	}
	t = test_load(p);
	ses = test_session(t, t, cl);
	c = test_compare(ses, PHASE_COUNT);
	for (int s = 0; s < 2; s++) {
		acc_assert_passes(c->side[s], 1, 32);
		acc_assert_layers(c->side[s], 32);
		ck_assert(c->side[s]->classes.other_share < 0.10);
	}
	acc_assert_self(c);
	session_close(ses);
	trace_free(t);
}
END_TEST

/* --- reports ------------------------------------------------------------------------------ */

static char *render(const struct comparison *c, enum report_format f, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(out, c, f), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* The CSV and JSON reports that round_trips_check() reads back: written to a directory of their
 * own as r0.csv, r0.json, r1.csv, ... by round_trip_add() as assert_reports() makes them. */
static struct {
	char dir[32];
	int n;
} round_trips;

static void write_file(const char *path, const char *s, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(s, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void round_trip_add(const char *csv, size_t csv_len, const char *json, size_t json_len)
{
	char path[64];

	if (!round_trips.n) {
		snprintf(round_trips.dir, sizeof round_trips.dir, "/tmp/fusediff-acc-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(round_trips.dir));
	}
	snprintf(path, sizeof path, "%s/r%d.csv", round_trips.dir, round_trips.n);
	write_file(path, csv, csv_len);
	snprintf(path, sizeof path, "%s/r%d.json", round_trips.dir, round_trips.n);
	write_file(path, json, json_len);
	round_trips.n++;
}

/* Read the CSV reports back with python3's csv module: every row has as many fields as its
 * table's header, and the pairs' kernel names are those of the JSON report of the same
 * comparison; and the JSON reports validate against the schema. One python3 for all of them
 * (a start is 0.1-0.2 s of CPU here, one a comparison before). 77: no python3. */
static int round_trips_check(void)
{
	static const char script[] =
		"import csv, json, sys\n"
		"args = sys.argv[1:]\n"
		"for csv_path, json_path in zip(args[0::2], args[1::2]):\n"
		"    doc = json.load(open(json_path, encoding='utf-8'))\n"
		"    tables, header = {}, None\n"
		"    with open(csv_path, newline='', encoding='utf-8') as f:\n"
		"        for row in csv.reader(f):\n"
		"            if not row:\n"
		"                header = None\n"
		"                continue\n"
		"            if header is None:\n"
		"                header = row\n"
		"                continue\n"
		"            assert len(row) == len(header), (csv_path, row, header)\n"
		"            tables.setdefault(row[0], []).append(dict(zip(header, row)))\n"
		"    pairs = tables['pairs']\n"
		"    assert len(pairs) == len(doc['pairs']), csv_path\n"
		"    names = 0\n"
		"    for c, j in zip(pairs, doc['pairs']):\n"
		"        assert c['kind'] == j['kind'], csv_path\n"
		"        for s in ('a_kernels', 'b_kernels'):\n"
		"            if all(ch >= ' ' and not '\\x7f' <= ch < '\\xa0' for k in j[s] for ch "
		"in "
		"k):\n"
		"                assert c[s] == ' | '.join(j[s]), (csv_path, c[s], j[s])\n"
		"                names += sum(',' in k or '\"' in k for k in j[s])\n"
		"    assert names > 0, csv_path + ': no kernel name with a comma or a quote'\n"
		/* and the JSON validates against the schema (validate_report.py, in this process:
		 * a python3 start fewer; 77 when this python3 has no jsonschema) */
		"import runpy\n"
		"sys.argv = ['validate_report.py', 'src/app/report.schema.json'] + args[1::2]\n"
		"runpy.run_path('tests/sh/lib/validate_report.py', run_name='__main__')\n";
	char path[64], *cmd, *jsons;
	size_t cap = 256 + (size_t)round_trips.n * 2 * sizeof path;
	int rc;

	ck_assert_int_gt(round_trips.n, 0);
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return 77;
	snprintf(path, sizeof path, "%s/check.py", round_trips.dir);
	write_file(path, script, sizeof script - 1);
	ck_assert_ptr_nonnull(cmd = malloc(cap));
	ck_assert_ptr_nonnull(jsons = malloc(cap));
	snprintf(cmd, cap, "python3 %s", path);
	jsons[0] = '\0';
	for (int i = 0; i < round_trips.n; i++) {
		size_t l = strlen(cmd), lj = strlen(jsons);

		snprintf(cmd + l, cap - l, " %s/r%d.csv %s/r%d.json", round_trips.dir, i,
			 round_trips.dir, i);
		snprintf(jsons + lj, cap - lj, " %s/r%d.json", round_trips.dir, i);
	}
	rc = system(cmd);
	/* This python3 has no jsonschema (77): the one tests/sh/lib/schema.sh finds, if any. */
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		snprintf(cmd, cap,
			 ". tests/sh/lib/schema.sh; py=$(schema_python) || exit 0; \"$py\" "
			 "tests/sh/lib/validate_report.py src/app/report.schema.json%s",
			 jsons);
		rc = system(cmd);
	}
	if (rc != 0)
		fprintf(stderr,
			"a CSV report does not read back or a JSON report does not validate "
			"against the schema\n");
	unlink(path);
	for (int i = 0; i < round_trips.n; i++) {
		snprintf(path, sizeof path, "%s/r%d.csv", round_trips.dir, i);
		unlink(path);
		snprintf(path, sizeof path, "%s/r%d.json", round_trips.dir, i);
		unlink(path);
	}
	if (rmdir(round_trips.dir) != 0)
		fprintf(stderr, "could not remove %s\n", round_trips.dir);
	round_trips.n = 0;
	free(cmd);
	free(jsons);
	return rc == 0 ? 0 : 1;
}

/* Every format: the same bytes from two comparisons built independently and under a locale
 * with a decimal comma; JSON parses with nothing after the document, and has no inf or nan. */
static void assert_reports(const struct comparison *c, const struct comparison *d, int want_names)
{
	char *out[REPORT_CSV + 1];
	size_t len[REPORT_CSV + 1];

	for (int f = REPORT_TEXT; f <= REPORT_CSV; f++) {
		size_t l2, l3;
		char *s2 = render(d, (enum report_format)f, &l2), *s3;
		int comma;

		out[f] = render(c, (enum report_format)f, &len[f]);
		comma = test_comma_locale(LC_ALL);
		if (comma) {
			char probe[16];

			snprintf(probe, sizeof probe, "%.1f", 1.5);
			ck_assert_str_eq(probe, "1,5"); /* the locale really is in effect */
		}
		s3 = render(c, (enum report_format)f, &l3);
		setlocale(LC_ALL, "C");
		if (!comma)
			fprintf(stderr, "no locale with a decimal comma: one locale only\n");
		ck_assert_msg(len[f] == l2 && memcmp(out[f], s2, l2) == 0,
			      "format %d differs between two runs", f);
		ck_assert_msg(len[f] == l3 && memcmp(out[f], s3, l3) == 0,
			      "format %d differs under LC_ALL with a decimal comma", f);
		free(s2);
		free(s3);
	}
	{
		const char *js = out[REPORT_JSON];
		struct json_cur cur = { .p = js, .end = js + len[REPORT_JSON], .at_eof = 1 };

		ck_assert_msg(json_skip(&cur) == JSON_OK, "invalid JSON: %s",
			      cur.err_msg ? cur.err_msg : "?");
		ck_assert_int_eq(json_peek(&cur), -1);
		/* no inf or nan value (names such as flashinfer aside) */
		for (const char *p = out[REPORT_JSON]; (p = strpbrk(p, ":[,")); p++) {
			const char *v = p + 1 + strspn(p + 1, " -");

			ck_assert_msg(strncmp(v, "inf", 3) && strncmp(v, "nan", 3),
				      "non-finite number at byte %td", p - out[REPORT_JSON]);
		}
	}
	if (want_names) /* read back by round_trips_check() */
		round_trip_add(out[REPORT_CSV], len[REPORT_CSV], out[REPORT_JSON],
			       len[REPORT_JSON]);
	for (int f = REPORT_TEXT; f <= REPORT_CSV; f++)
		free(out[f]);
}

/* Reports of the eager/compiled pair, of the SGLang pair and of two small traces whose kernel
 * names hold commas, quotes and control bytes. */
START_TEST(test_reports)
{
	static const int pair[][2] = { { EAGER, COMPILED }, { MI300X, B300 } };
	const struct comparison *c, *d;
	struct session *ses, *ses_d;
	struct trace *t[2];

	for (size_t i = 0; i < sizeof pair / sizeof pair[0]; i++) {
		ses = test_session(traces[pair[i][0]], traces[pair[i][1]], cl);
		c = test_compare(ses, -1);
		ses_d = test_session(traces[pair[i][0]], traces[pair[i][1]], cl);
		d = test_compare(ses_d, -1);
		assert_reports(c, d, 1);
		session_close(ses);
		session_close(ses_d);
	}
	t[0] = test_load(test_path("tests/data/report/names_a.json"));
	t[1] = test_load(test_path("tests/data/report/names_b.json"));
	ses = test_session(t[0], t[1], cl);
	c = test_compare(ses, -1);
	ses_d = test_session(t[0], t[1], cl);
	d = test_compare(ses_d, -1);
	assert_reports(c, d, 1);
	session_close(ses);
	session_close(ses_d);
	trace_free(t[0]);
	trace_free(t[1]);
	{
		int rc = round_trips_check(); /* the three comparisons' CSV and JSON reports */

		if (rc == 77)
			fprintf(stderr, "python3 not found: CSV not read back\n");
		else
			ck_assert_msg(rc == 0, "a CSV report does not read back");
	}
}
END_TEST

/* Fusion numbers are the fusions' own, in every phase (issue 33): the default phase numbers
 * its fusions 1..n in order; a fusion of the same kind, fused kernel and atoms has one number in
 * every phase; numbers are distinct within a phase; and a phase's numbers are the same whatever
 * was asked before it (one session asks the default phase first, another all passes first, a
 * third all passes first while session_prefetch() builds the phases in the background, as the
 * explorer does; a fourth is closed while its prefetch runs).
 * Eager against compiled Llama: B's fused RoPE kernel is #2 in prefill, it was #3 in all
 * passes. */
static const struct comparison *phase_or_null(struct session *s, int phase)
{
	struct fd_error err = { { 0 } };

	return session_compare(s, phase, &err);
}

static int same_pattern(const struct comparison_fusion *x, const struct comparison_fusion *y)
{
	return x->fused_side == y->fused_side && x->partial == y->partial &&
	       x->horizontal == y->horizontal && x->fused_name == y->fused_name &&
	       x->atoms == y->atoms;
}

START_TEST(test_fusion_numbers)
{
	static const int pair[][2] = { { EAGER, COMPILED },
				       { MATHATTN, COMPILED },
				       { EAGER, MATHATTN } };
	const int a = pair[_i][0], b = pair[_i][1];
	struct session *fwd = test_session(traces[a], traces[b], cl);
	struct session *rev = test_session(traces[a], traces[b], cl);
	/* (the prefetch on the first pair only: make check's CPU) */
	struct session *pre = _i ? NULL : test_session(traces[a], traces[b], cl);
	struct session *gone = _i ? NULL : test_session(traces[a], traces[b], cl);
	const struct comparison *cf[PHASE_COUNT + 2], *cr[PHASE_COUNT + 2], *cp[PHASE_COUNT + 2];
	int rope = 0;

	session_prefetch(gone);
	session_close(gone);
	session_prefetch(pre); /* racing with the asks below */
	for (int ph = -1; ph <= PHASE_COUNT; ph++)
		cf[ph + 1] = phase_or_null(fwd, ph);
	for (int ph = PHASE_COUNT; ph >= -1; ph--)
		cr[ph + 1] = phase_or_null(rev, ph);
	for (int ph = PHASE_COUNT; ph >= -1; ph--)
		cp[ph + 1] = pre ? phase_or_null(pre, ph) : cf[ph + 1];
	session_prefetch_wait(pre);
	ck_assert_ptr_nonnull(cf[0]);
	for (size_t i = 0; i < cf[0]->n_fusions; i++)
		ck_assert_uint_eq(cf[0]->fusions[i].id, i + 1);
	for (int x = 0; x < PHASE_COUNT + 2; x++) {
		const struct comparison *c = cf[x];

		if (!c)
			continue;
		ck_assert_ptr_nonnull(cr[x]);
		ck_assert_uint_eq(cr[x]->n_fusions, c->n_fusions);
		ck_assert_ptr_nonnull(cp[x]);
		if (pre)
			ck_assert_ptr_eq(phase_or_null(pre, x - 1), cp[x]); /* built once */
		ck_assert_uint_eq(cp[x]->n_fusions, c->n_fusions);
		for (size_t i = 0; i < c->n_fusions; i++) {
			const struct comparison_fusion *f = &c->fusions[i];

			ck_assert_uint_ge(f->id, 1);
			ck_assert_msg(cr[x]->fusions[i].id == f->id,
				      "phase %d, fusion %zu: #%u asked first, #%u asked last",
				      x - 1, i, f->id, cr[x]->fusions[i].id);
			ck_assert_msg(cp[x]->fusions[i].id == f->id,
				      "phase %d, fusion %zu: #%u asked first, #%u prefetched",
				      x - 1, i, f->id, cp[x]->fusions[i].id);
			for (size_t j = 0; j < i; j++)
				ck_assert_uint_ne(c->fusions[j].id, f->id);
			for (int y = 0; y < x; y++)
				for (size_t j = 0; cf[y] && j < cf[y]->n_fusions; j++)
					if (same_pattern(&cf[y]->fusions[j], f))
						ck_assert_msg(cf[y]->fusions[j].id == f->id,
							      "%s: #%u in phase %d, #%u in %d",
							      trace_str(c->side[f->fused_side]->t,
									f->fused_name),
							      cf[y]->fusions[j].id, y - 1, f->id,
							      x - 1);
			rope += strstr(trace_str(c->side[f->fused_side]->t, f->fused_name),
				       "scaled_dot_product") != NULL;
		}
	}
	if (a == EAGER && b == COMPILED)
		ck_assert_int_ge(rope, 2); /* prefill and all passes (and the default) have it */
	session_close(fwd);
	session_close(rev);
	session_close(pre);
}
END_TEST

static Suite *acceptance_suite(void)
{
	Suite *s = suite_create("acceptance");
	TCase *tc = tcase_create("facts");

	tcase_add_unchecked_fixture(tc, load_all, free_all);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_self, 0, N_REAL);
	tcase_add_loop_test(tc, test_pairs, 0, sizeof pairs / sizeof pairs[0]);
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_reports);
	tcase_add_loop_test(tc, test_fusion_numbers, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(acceptance_suite());
}
