/* app_tui.c — the interactive explorer. */
#include <stdio.h>

#include "app.h"

int app_tui(const struct app_opts *o)
{
	(void)o;
	fprintf(stderr, "fusediff: the interactive explorer is not implemented yet; use --summary\n");
	return 2;
}
