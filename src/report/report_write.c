/* report_write.c — report_write(): the dispatch to the writer of each format. */
#include "fusediff/report.h"

#include <stdio.h>

#include "report_int.h"

int report_write(FILE *out, const struct comparison *c, enum report_format f)
{
	int rc;

	switch (f) {
	case REPORT_JSON: rc = report_write_json(out, c); break;
	case REPORT_CSV: rc = report_write_csv(out, c); break;
	case REPORT_PERFETTO: rc = report_write_perfetto(out, c, NULL); break;
	case REPORT_MD: rc = report_write_text(out, c, 1); break;
	default: rc = report_write_text(out, c, 0); break;
	}
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	return rc;
}
