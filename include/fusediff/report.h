/* report.h — the comparison as text, Markdown, JSON or CSV, for scripts, CI and people
 * without a terminal, or as a trace that opens in Perfetto. Output is deterministic and
 * locale-independent.
 *
 * JSON (schema_version 1): {"schema_version":1, "traces":[A,B], "layers":[...], "pairs":[...],
 * "fusions":[...]}; see fusediff(1), REPORT FORMATS. Numbers are numbers; non-finite values
 * are null. CSV is one table per section with RFC 4180 quoting. */
#ifndef FUSEDIFF_REPORT_H
#define FUSEDIFF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fusediff/comparison.h"

enum report_format { REPORT_TEXT, REPORT_MD, REPORT_JSON, REPORT_CSV, REPORT_PERFETTO };

/* The format with this name ("text", "md", "json", "csv", "perfetto"), or -1. */
int report_format_from_name(const char *s);
/* Write the report (REPORT_PERFETTO: with the default perfetto_opts). Returns 0, or -1 when
 * writing fails (errno set). */
int report_write(FILE *out, const struct comparison *c, enum report_format f);

/* What --report perfetto writes (report_perfetto.c; fusediff(1), REPORT FORMATS). */
struct perfetto_opts {
	int align_layers; /* 0: each compared pass of both sides starts at the same time;
			     1: each layer of both sides does (--align layers) */
	int32_t layer;	  /* only the kernels of this layer (index into c->layers); -1: all */
	int32_t fusion;	  /* only the kernels of this fusion's places (index into c->fusions);
			     -1: all */
};

/* The comparison as one Chrome Trace Event Format file (the JSON object form) that Perfetto
 * and chrome://tracing open: a process per side (A above B), a track per stream with a slice
 * per kernel of the compared passes, tracks of passes and layers and of fusion differences,
 * and a flow arrow from each kernel to its counterpart on the other side. Written as it goes,
 * linear in the kernels. o may be NULL (every kernel, passes aligned). Returns 0, or -1 when
 * writing fails (errno set). */
int report_write_perfetto(FILE *out, const struct comparison *c, const struct perfetto_opts *o);

/* The sums of c->kernel_totals in a sentence, as the text report and the explorer's Totals
 * view print them: "A: 471 kernels, 62.88 ms; B: 474 kernels, 55.22 ms; B - A -7.66 ms."
 * Into buf; returns buf. */
char *report_kernel_totals_sum(const struct comparison *c, char *buf, size_t cap);

/* The tables of the CSV report, in the order it writes them. */
enum report_csv_table {
	CSV_TRACES,
	CSV_CLASSES,
	CSV_ATTRIBUTION,
	CSV_LAYERS,
	CSV_PAIRS,
	CSV_FUSIONS,
	CSV_PAIR_GROUPS,
	CSV_OPPORTUNITIES,
	CSV_KERNEL_TOTALS,
	CSV_RANKS, /* only when c->ranks: its header alone otherwise */
	REPORT_CSV_TABLES
};

/* "traces", "classes", ..., "pair_groups", "opportunities", "kernel_totals", "ranks": the
 * value of the first column and the file name of the table in a directory report. */
const char *report_csv_table_name(enum report_csv_table t);
/* One CSV table: its header row and its rows as --report csv writes them; rows (n_rows of
 * them, indices into the table's items: 0 and 1 for the sides, the classes that have time in
 * class order, c->attribution, c->layers, c->pairs, c->fusions, the summed pairs of
 * comparison.summed, c->opportunities, c->kernel_totals) in that order, or NULL for every row.
 * Returns 0, or -1 on a write error. */
int report_csv_table(FILE *out, const struct comparison *c, enum report_csv_table t,
		     const uint32_t *rows, size_t n_rows);

#endif
