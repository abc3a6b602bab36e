/* report.c — report format names and the helpers the writers share (see report.h and
 * report_int.h). */
#include "fusediff/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report_int.h"

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

int report_number(char *buf, size_t cap, double v, int decimals)
{
	size_t n;

	if (!isfinite(v)) {
		if (cap)
			buf[0] = '\0';
		return -1;
	}
	n = (size_t)snprintf(buf, cap, "%.*f", decimals, v);
	if (n >= cap)
		n = cap ? cap - 1 : 0;
	/* '.' whatever LC_NUMERIC says (fusediff never sets it, but a library might). */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == ',')
			buf[i] = '.';
	if (memchr(buf, '.', n)) {
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, cap, "0");
	return 0;
}

int report_us(char *buf, size_t cap, double ns)
{
	return report_number(buf, cap, ns / 1000.0, 3);
}
