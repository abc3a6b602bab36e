/* report.c — report formats and the dispatch to the writers (see report.h). */
#include "fusediff/report.h"

#include <string.h>
#include <strings.h>

int report_format_from_name(const char *s)
{
	static const char *const names[] = { "text", "md", "json", "csv" };

	for (int i = 0; i < 4; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	if (strcasecmp(s, "markdown") == 0)
		return REPORT_MD;
	return -1;
}
