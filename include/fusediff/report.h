/* report.h — the comparison as text, Markdown, JSON or CSV, for scripts, CI and people
 * without a terminal. Output is deterministic and locale-independent.
 *
 * JSON (schema_version 1): {"schema_version":1, "traces":[A,B], "layers":[...], "pairs":[...],
 * "fusions":[...]}; see fusediff(1), REPORT FORMATS. Numbers are numbers; non-finite values
 * are null. CSV is one table per section with RFC 4180 quoting. */
#ifndef FUSEDIFF_REPORT_H
#define FUSEDIFF_REPORT_H

#include <stdio.h>

#include "fusediff/comparison.h"

enum report_format { REPORT_TEXT, REPORT_MD, REPORT_JSON, REPORT_CSV };

/* The format with this name ("text", "md", "json", "csv"), or -1. */
int report_format_from_name(const char *s);
/* Write the report. Returns 0, or -1 when writing fails (errno set). */
int report_write(FILE *out, const struct comparison *c, enum report_format f);

#endif
