/* report.c — report format names and the helpers the writers share (see report.h and
 * report_int.h). */
#include "fusediff/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fusediff/text.h"
#include "report_int.h"

int report_format_from_name(const char *s)
{
	static const char *const names[] = { "text", "md", "json", "csv", "perfetto" };

	for (int i = 0; i < 5; i++)
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
	n = strlen(text_fixed(buf, cap, v, decimals, 0));
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

char *report_kernel_totals_sum(const struct comparison *c, char *buf, size_t cap)
{
	int64_t n[2] = { 0, 0 }, ns[2] = { 0, 0 };
	char b1[32], b2[32], b3[32];

	for (size_t i = 0; i < c->n_kernel_totals; i++)
		for (int s = 0; s < 2; s++) {
			n[s] += c->kernel_totals[i].count[s];
			ns[s] += c->kernel_totals[i].ns[s];
		}
	snprintf(buf, cap, "A: %lld kernels, %s ms; B: %lld kernels, %s ms; B - A %s ms.",
		 (long long)n[0], text_ms(b1, sizeof b1, ns[0], 0), (long long)n[1],
		 text_ms(b2, sizeof b2, ns[1], 0), text_ms(b3, sizeof b3, ns[1] - ns[0], 1));
	return buf;
}

void report_json_str(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		size_t n, run = 0;

		while (i + run < len && u[i + run] >= 0x20 && u[i + run] < 0x7f &&
		       u[i + run] != '"' && u[i + run] != '\\')
			run++; /* plain ASCII goes out in one write */
		if (run) {
			fwrite(u + i, 1, run, out);
			i += run;
			continue;
		}
		n = text_utf8_len(u + i, len - i);

		if (n == 0) {
			fprintf(out, "\\\\x%02x", u[i]);
			i++;
			continue;
		}
		if (n == 1) {
			switch (u[i]) {
			case '"': fputs("\\\"", out); break;
			case '\\': fputs("\\\\", out); break;
			case '\n': fputs("\\n", out); break;
			case '\r': fputs("\\r", out); break;
			case '\t': fputs("\\t", out); break;
			case '\b': fputs("\\b", out); break;
			case '\f': fputs("\\f", out); break;
			default:
				if (u[i] < 0x20 || u[i] == 0x7f)
					fprintf(out, "\\u%04x", u[i]);
				else
					fputc(u[i], out);
			}
		} else if (n == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0) {
			fprintf(out, "\\u%04x", u[i + 1]); /* C1 control characters */
		} else {
			fwrite(u + i, 1, n, out);
		}
		i += n;
	}
	fputc('"', out);
}

/* The public fused kernels of a chain as text: the first two and how many more. */
void report_known_kernels(const struct fusible_chain *ch, char *buf, size_t cap)
{
	const char *k = ch->known ? ch->known : "", *p = k;
	size_t len = 0;
	int n = 0, more = 0;

	buf[0] = '\0';
	while (*p) {
		size_t l = strcspn(p, ",");

		if (n < 2 && len < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%s%.*s", n ? ", " : "",
						(int)l, p);
		else
			more++;
		n++;
		p += l;
		if (*p)
			p++;
	}
	if (more && len < cap)
		snprintf(buf + len, cap - len, " (+%d more)", more);
	if (!n)
		snprintf(buf, cap, "-");
}
