/* app_report.c — the --report mode. */
#include <stdio.h>

#include "app.h"

int app_report(const struct app_opts *o)
{
	(void)o;
	fprintf(stderr, "fusediff: --report is not implemented yet\n");
	return 2;
}
