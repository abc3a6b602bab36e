/* rocprof_csv.c — rocprofv3's kernel_trace.csv (`--kernel-trace --output-format csv`) as a
 * trace. Columns are found by their header names, so both header versions read: ROCm 6.x
 * ("Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",
 * "Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size",...) with a
 * numeric Agent_Id, and later ones (a "Stream_Id" column, "LDS_Block_Size", Agent_Id as
 * "Agent 2"; rocpd2csv adds "Guid" first). Needed: Kernel_Name, Start_Timestamp,
 * End_Timestamp. The file names no GPU: the platform is AMD, the GPU unknown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "rocprof_int.h"
#include "../trace/trace_build.h"

enum csv_col {
	C_NAME,
	C_START,
	C_END,
	C_AGENT,
	C_QUEUE,
	C_CORR,
	C_GX,
	C_GY,
	C_GZ,
	C_WX,
	C_WY,
	C_WZ,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	"Kernel_Name", "Start_Timestamp",  "End_Timestamp",    "Agent_Id",
	"Queue_Id",    "Correlation_Id",   "Grid_Size_X",      "Grid_Size_Y",
	"Grid_Size_Z", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
};

static int csv_detect(const unsigned char *head, size_t n)
{
	static const char *const starts[] = { "\"Kind\",\"Agent_Id\"", "Kind,Agent_Id",
					      "\"Guid\",\"Kind\",\"Agent_Id\"",
					      "Guid,Kind,Agent_Id" };

	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
		if (n >= strlen(starts[i]) && memcmp(head, starts[i], strlen(starts[i])) == 0)
			return 1;
	return 0;
}

/* The longest record read (a kernel name of the longest C++ templates is a few KiB): a file
 * without newlines is not held whole. */
#define CSV_RECORD_MAX (4 << 20)

struct csv {
	struct input *in;
	const char *name;
	struct fd_error *err;
	char buf[1 << 16];
	size_t len, pos;
	int eof;
	int64_t bytes; /* read so far */
	char *line;    /* the record being read, fields NUL-separated */
	size_t line_cap;
	long lineno;
};

static int fill(struct csv *c)
{
	ssize_t n;

	if (c->eof)
		return 0;
	n = input_read(c->in, c->buf, sizeof c->buf, c->err);
	if (n < 0)
		return -1;
	if (n == 0)
		c->eof = 1;
	c->bytes += n;
	c->len = (size_t)n;
	c->pos = 0;
	return n > 0;
}

/* Read the next record into fields[] (at most max, pointers into c->line). Returns the count,
 * 0 at the end, -1 on a read error. Quoted fields may hold commas, doubled quotes, newlines. */
static int next_record(struct csv *c, char **fields, int max)
{
	size_t n = 0;
	int quoted = 0, nf = 0, any = 0, rc;
	size_t starts[64];

	starts[0] = 0;
	for (;;) {
		int ch;

		if (c->pos == c->len && (rc = fill(c)) <= 0) {
			if (rc < 0)
				return -1;
			if (!any)
				return 0;
			break;
		}
		ch = (unsigned char)c->buf[c->pos++];
		any = 1;
		if (n >= CSV_RECORD_MAX) {
			fd_error_set(c->err,
				     "line %ld: a record longer than %d MiB, which rocprofv3 never "
				     "writes",
				     c->lineno + 1, CSV_RECORD_MAX >> 20);
			return -1;
		}
		if (n + 3 > c->line_cap) {
			c->line_cap = c->line_cap ? 2 * c->line_cap : 1024;
			c->line = xrealloc(c->line, c->line_cap);
		}
		if (ch == '\0') { /* data, never the end of a field: the visible "\\0", as the
				     JSON and SQLite readers keep a NUL */
			c->line[n++] = '\\';
			c->line[n++] = '0';
			continue;
		}
		if (quoted) {
			if (ch == '"') {
				if (c->pos == c->len && fill(c) < 0)
					return -1;
				if (c->pos < c->len && c->buf[c->pos] == '"') {
					c->pos++;
				} else {
					quoted = 0;
					continue;
				}
			} else if (ch == '\n') {
				c->lineno++;
			}
		} else if (ch == '"') {
			quoted = 1;
			continue;
		} else if (ch == ',' || ch == '\n') {
			ch = '\0';
		} else if (ch == '\r') {
			continue;
		}
		c->line[n++] = (char)ch;
		if (ch == '\0') {
			if (nf + 1 < 64)
				starts[++nf] = n;
			if (c->buf[c->pos - 1] == '\n')
				break;
		}
	}
	if (n == 0 || c->line[n - 1] != '\0') {
		if (n + 1 > c->line_cap)
			c->line = xrealloc(c->line, c->line_cap = n + 1);
		c->line[n++] = '\0';
		if (nf + 1 < 64)
			starts[++nf] = n;
	}
	c->lineno++;
	for (int i = 0; i < nf && i < max; i++)
		fields[i] = c->line + starts[i];
	return nf < max ? nf : max;
}

/* "NAME: " before err's message. */
static void prefix_name(struct fd_error *err, const char *name)
{
	char msg[FD_ERROR_MAX];

	snprintf(msg, sizeof msg, "%s", err->msg);
	fd_error_set(err, "%s: %s", name, msg);
}

static int64_t field_int(const char *s)
{
	while (*s && (*s < '0' || *s > '9') && *s != '-')
		s++; /* "Agent 2" -> 2 */
	return strtoll(s, NULL, 10);
}

static int csv_load(struct trace *t, struct input *in, const char *name,
		    const struct trace_load_opts *opts, struct fd_error *err)
{
	struct csv *c = xcalloc(1, sizeof *c);
	char *f[64];
	int idx[C_COUNT], nf, rc = 0;

	(void)opts;
	c->in = in;
	c->name = name;
	c->err = err;
	t->format = "rocprofv3 kernel_trace.csv";
	t->platform = PLATFORM_AMD;
	t->platform_reason = "a rocprofv3 kernel trace";
	nf = next_record(c, f, 64);
	if (nf < 0)
		goto read_error;
	for (int k = 0; k < C_COUNT; k++) {
		idx[k] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(f[i], col_names[k]) == 0)
				idx[k] = i;
	}
	for (int k = C_NAME; k <= C_END; k++)
		if (idx[k] < 0 && nf >= 0) {
			fd_error_set(err, "%s: line 1: a kernel trace CSV without a %s column",
				     name, col_names[k]);
			rc = -1;
			goto out;
		}
	while ((nf = next_record(c, f, 64)) > 0) {
		struct trace_kernel k = { .kind = KIND_KERNEL };
		const char *v[C_COUNT];
		int32_t grid[3], block[3];

		if (nf == 1 && !*f[0])
			continue; /* a blank line */
		for (int i = 0; i < C_COUNT; i++)
			v[i] = idx[i] >= 0 && idx[i] < nf ? f[idx[i]] : "0";
		if (idx[C_END] >= nf) {
			fd_error_set(err, "%s: line %ld: %d fields, the header has more", name,
				     c->lineno, nf);
			rc = -1;
			goto out;
		}
		k.start = field_int(v[C_START]);
		k.dur = trace_span_dur(k.start, field_int(v[C_END]));
		k.device = trace_device_id(field_int(v[C_AGENT]));
		k.stream = (int32_t)field_int(v[C_QUEUE]);
		k.correlation = field_int(v[C_CORR]);
		for (int d = 0; d < 3; d++) {
			grid[d] = (int32_t)field_int(v[C_GX + d]);
			block[d] = (int32_t)field_int(v[C_WX + d]);
		}
		k.dims = trace_add_dims(t, grid, block);
		k.name = rocprof_kernel_name(t, v[C_NAME], strlen(v[C_NAME]));
		t->n_events++;
		if (k.start > 0 && k.dur >= 0 && k.start <= TRACE_TIME_MAX - k.dur)
			trace_add_kernel(t, &k);
	}
	if (nf < 0) {
	read_error: /* next_record()'s message, after the file's name */
		prefix_name(err, name);
		rc = -1;
	}
out:
	t->bytes = c->bytes;
	free(c->line);
	free(c);
	return rc;
}

const struct trace_format trace_format_rocprof_csv = {
	.name = "rocprofv3 kernel_trace.csv",
	.detect = csv_detect,
	.load = csv_load,
};
