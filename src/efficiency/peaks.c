/* peaks.c — the GPUs' peak compute and memory bandwidth (see efficiency.h): the built-in table,
 * --peaks files, and finding the row of a trace's GPU. */
#include "fusediff/efficiency.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/text.h"

/* Dense figures (the data sheets print tensor-core figures with 2:4 sparsity, twice these; those
 * are halved here), TFLOPS per data type: FP32, TF32, BF16/FP16, FP8, FP4 (0: none), and the peak
 * memory bandwidth in TB/s. NVIDIA's FP32 column is the CUDA-core FP32 rate (what an fp32 GEMM
 * without TF32 gets); AMD's is the matrix-core FP32 rate (rocBLAS and hipBLASLt run fp32 GEMMs on
 * the matrix cores). A row's more specific names come before the rows they would also match
 * (GB200 before B200, H100 PCIe before H100). */
/* clang-format off */
const struct gpu_peak eff_builtin_peaks[] = {
	/* NVIDIA Tesla V100 data sheet (nvidia.com, "TESLA V100 GPU ACCELERATOR", 2018): SXM2 15.7
	 * TFLOPS FP32, 125 TFLOPS tensor (fp16; Volta has no bf16, no TF32, no sparsity), HBM2
	 * 900 GB/s. The PCIe card: 14 / 112 TFLOPS, 900 GB/s. */
	{ "V100 PCIe", "V100+PCIE", { 14.0, 0, 112.0, 0, 0 }, 0.900 },
	{ "V100 SXM2", "V100|sm70:80", { 15.7, 0, 125.0, 0, 0 }, 0.900 },
	/* NVIDIA A100 Tensor Core GPU data sheet (nvidia.com, 2021): FP32 19.5, TF32 156 (312
	 * sparse), BF16/FP16 312 (624 sparse); HBM2e 1,935 GB/s (80GB PCIe), 2,039 GB/s (80GB
	 * SXM); the A100 40GB data sheet (2020): 1,555 GB/s. A100-PG509-200 is a 40 GB SXM4
	 * board. */
	{ "A100 80GB PCIe", "A100+80GB+PCIE", { 19.5, 156.0, 312.0, 0, 0 }, 1.935 },
	{ "A100 80GB SXM", "A100+80GB", { 19.5, 156.0, 312.0, 0, 0 }, 2.039 },
	{ "A100 40GB", "A100|sm80:108", { 19.5, 156.0, 312.0, 0, 0 }, 1.555 },
	/* NVIDIA H100 Tensor Core GPU data sheet (nvidia.com, 2023), sparse figures halved: SXM
	 * FP32 67, TF32 494.7, BF16/FP16 989.4, FP8 1,978.9, HBM3 3.35 TB/s; PCIe FP32 51, TF32
	 * 378, BF16 756, FP8 1,513, HBM2e 2.0 TB/s. */
	{ "H100 PCIe", "H100+PCIE|sm90:114", { 51.0, 378.0, 756.0, 1513.0, 0 }, 2.0 },
	{ "H100 SXM", "H100|sm90:132", { 67.0, 494.7, 989.4, 1978.9, 0 }, 3.35 },
	/* NVIDIA H200 Tensor Core GPU data sheet (nvidia.com, 2024): the H100 SXM's compute (FP32 67,
	 * TF32 989, BF16 1,979, FP8 3,958 TFLOPS sparse) with HBM3e at 4.8 TB/s. */
	{ "H200", "H200", { 67.0, 494.7, 989.4, 1978.9, 0 }, 4.8 },
	/* NVIDIA GB200 NVL72 data sheet (nvidia.com, 2024), per GPU (the rack's figures / 72,
	 * sparse halved): FP32 80 (5,760 TFLOPS), TF32 1,250 (180 PFLOPS), BF16 2,500 (360
	 * PFLOPS), FP8 5,000 (720 PFLOPS), FP4 10,000 (1,440 PFLOPS), HBM3e 8 TB/s (576 TB/s). */
	{ "GB200", "GB200", { 80.0, 1250.0, 2500.0, 5000.0, 10000.0 }, 8.0 },
	/* NVIDIA HGX B200 (nvidia.com/data-center/hgx, 2024), per GPU (8-GPU figures / 8, sparse
	 * halved): FP32 75 (600 TFLOPS), TF32 1,125 (18 PFLOPS), BF16 2,250 (36 PFLOPS), FP8 4,500
	 * (72 PFLOPS), FP4 9,000 (144 PFLOPS), HBM3e 8 TB/s. */
	{ "B200", "B200|sm100:148", { 75.0, 1125.0, 2250.0, 4500.0, 9000.0 }, 8.0 },
	/* NVIDIA HGX B300 (nvidia.com/data-center/hgx, 2025), per GPU: the B200's FP32, TF32, BF16 and
	 * FP8, FP4 13,125 dense (144 PFLOPS sparse, 105 dense for 8; as tabulated per GPU at
	 * glennklockwood.com/garden/processors/B300), HBM3e 8 TB/s. */
	{ "B300", "B300|sm103:148", { 75.0, 1125.0, 2250.0, 4500.0, 13125.0 }, 8.0 },
	/* NVIDIA L40S data sheet (nvidia.com, 2023): FP32 91.6, TF32 183 (366 sparse), BF16/FP16
	 * 362.05 (733 sparse), FP8 733 (1,466 sparse), GDDR6 864 GB/s. */
	{ "L40S", "L40S|sm89:142", { 91.6, 183.0, 362.05, 733.0, 0 }, 0.864 },
	/* AMD Instinct MI210 data sheet (amd.com, 2022): FP32 matrix 45.3 (vector 22.6), FP16/BF16
	 * 181.0, no TF32 or FP8, HBM2e 1.6384 TB/s. */
	{ "MI210", "MI210|gfx90a:104", { 45.3, 0, 181.0, 0, 0 }, 1.6384 },
	/* AMD Instinct MI250X data sheet (amd.com, 2021): FP32 matrix 95.7, FP16/BF16 383.0, HBM2e
	 * 3.2768 TB/s for the package of two GCDs. Each GCD is a device of its own (110 CUs), so a
	 * trace of one device gets half: 47.85, 191.5, 1.6384. */
	{ "MI250X (one GCD)", "MI250X|gfx90a:110", { 47.85, 0, 191.5, 0, 0 }, 1.6384 },
	/* AMD Instinct MI300A data sheet (amd.com, 2023): 228 CUs, FP32 matrix 122.6, TF32 490.3,
	 * FP16/BF16 980.6, FP8 1,961.2 (dense; sparsity doubles the last three), HBM3 5.3 TB/s. */
	{ "MI300A", "MI300A|gfx942:228", { 122.6, 490.3, 980.6, 1961.2, 0 }, 5.3 },
	/* AMD Instinct MI325X data sheet (amd.com, 2024): the MI300X's compute (FP32 163.4, TF32 653.7,
	 * FP16/BF16 1,307.4, FP8 2,614.9 dense), HBM3E 6 TB/s. It has 304 CUs too: gfx942:304 is
	 * taken as an MI300X, so only its name finds this row. */
	{ "MI325X", "MI325X", { 163.4, 653.7, 1307.4, 2614.9, 0 }, 6.0 },
	/* AMD Instinct MI300X data sheet (amd.com, 2023): 304 CUs, FP32 matrix 163.4, TF32 653.7,
	 * FP16/BF16 1,307.4, FP8 2,614.9 (dense; sparsity doubles them), HBM3 5.3 TB/s. A virtual
	 * function ("MI300X VF") is the whole GPU. */
	{ "MI300X", "MI300X|gfx942:304", { 163.4, 653.7, 1307.4, 2614.9, 0 }, 5.3 },
	/* AMD Instinct MI350X data sheet (amd.com, 2025): 256 CUs at 2.2 GHz, FP32 144.2, no TF32,
	 * FP16/BF16 2.3 PFLOPS, FP8 4.6 PFLOPS (dense; 4.6 and 9.2 sparse), MXFP4 9.2 PFLOPS, HBM3E
	 * 8 TB/s. */
	{ "MI350X", "MI350X", { 144.2, 0, 2307.0, 4614.0, 9228.0 }, 8.0 },
	/* AMD Instinct MI355X data sheet (amd.com, 2025): 256 CUs at 2.4 GHz, FP32 157.3, no TF32,
	 * FP16/BF16 2.5 PFLOPS, FP8 5.0 PFLOPS (dense), MXFP4 10.1 PFLOPS, HBM3E 8 TB/s. gfx950 with
	 * 256 CUs is either: the MI355X, the higher peak, is taken when the name is missing. */
	{ "MI355X", "MI355X|gfx950:256", { 157.3, 0, 2516.6, 5033.2, 10066.3 }, 8.0 },
};
/* clang-format on */
const size_t eff_n_builtin_peaks = sizeof eff_builtin_peaks / sizeof eff_builtin_peaks[0];

/* Does the case-insensitive word w (length n) occur in s? */
static int has_word(const char *s, const char *w, size_t n)
{
	for (; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] &&
		       tolower((unsigned char)s[i]) == tolower((unsigned char)w[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/* How an alternative matches: by the device's name, by its architecture key, as "*". */
enum { BY_NAME, BY_ARCH, BY_ANY, BY_COUNT };

/* Does one alternative (alt, length n: words joined by '+') match at this level? An
 * architecture key ("gfx942:304") must equal arch. */
static int alt_matches(const char *alt, size_t n, int level, const char *name, const char *arch)
{
	if (n == 1 && alt[0] == '*')
		return level == BY_ANY;
	if (memchr(alt, ':', n))
		return level == BY_ARCH && arch && *arch && strlen(arch) == n &&
		       strncmp(alt, arch, n) == 0;
	if (level != BY_NAME || !name || !*name)
		return 0;
	while (n) {
		size_t w = 0;

		while (w < n && alt[w] != '+')
			w++;
		if (w && !has_word(name, alt, w))
			return 0;
		if (w == n)
			break;
		alt += w + 1;
		n -= w + 1;
	}
	return 1;
}

static int row_matches(const struct gpu_peak *r, int level, const char *name, const char *arch)
{
	const char *p = r->match;

	while (*p) {
		size_t n = strcspn(p, "|");

		if (n && alt_matches(p, n, level, name, arch))
			return 1;
		p += n;
		if (*p == '|')
			p++;
	}
	return 0;
}

const struct gpu_peak *eff_find_peak(const struct peak_table *user, const char *name,
				     const char *arch)
{
	/* a name first (an H200 is an sm90 with 132 SMs too), then the architecture, then "*" */
	for (int level = 0; level < BY_COUNT; level++) {
		for (size_t i = 0; user && i < user->n; i++)
			if (row_matches(&user->rows[i], level, name, arch))
				return &user->rows[i];
		for (size_t i = 0; i < eff_n_builtin_peaks; i++)
			if (row_matches(&eff_builtin_peaks[i], level, name, arch))
				return &eff_builtin_peaks[i];
	}
	return NULL;
}

const char *eff_arch_key(const struct trace *t, const struct trace_device *d, char *buf, size_t cap)
{
	const char *name = d && d->name ? trace_str(t, d->name) : "";
	int amd = t->platform == PLATFORM_AMD || (d && d->warp_size == 64);

	buf[0] = '\0';
	if (!d || d->num_sms <= 0)
		return buf;
	if (strncmp(name, "gfx", 3) == 0 && strcspn(name, " :") < 16) /* rocprofv3's agent name */
		snprintf(buf, cap, "%.*s:%d", (int)strcspn(name, " :"), name, (int)d->num_sms);
	else if (amd && d->compute_major == 9 && d->compute_minor == 0)
		snprintf(buf, cap, "gfx90a:%d", (int)d->num_sms); /* HIP reports gfx90a as 9.0 */
	else if (amd && d->compute_major == 9 && d->compute_minor >= 4)
		snprintf(buf, cap, "gfx9%d%s:%d", (int)d->compute_minor,
			 d->compute_minor == 4 ? "2" : "0", (int)d->num_sms);
	else if (!amd && d->compute_major > 0)
		snprintf(buf, cap, "sm%d%d:%d", (int)d->compute_major, (int)d->compute_minor,
			 (int)d->num_sms);
	return buf;
}

const struct gpu_peak *eff_trace_peak(const struct peak_table *user, const struct trace *t)
{
	const struct trace_device *d = NULL;
	char arch[48];

	for (size_t i = 0; i < t->n_devices && !d; i++)
		if (t->devices[i].id == t->device)
			d = &t->devices[i];
	if (!d && t->n_devices)
		d = &t->devices[0];
	eff_arch_key(t, d, arch, sizeof arch);
	return eff_find_peak(user, t->gpu_name ? trace_str(t, t->gpu_name) : NULL, arch);
}

/* --- --peaks files ----------------------------------------------------------------------- */

void peak_table_free(struct peak_table *pt)
{
	free(pt->rows);
	free(pt->strings);
	memset(pt, 0, sizeof *pt);
}

/* The next field of line *p: a double-quoted string or a run of non-blanks, into out (at most
 * cap - 1 bytes). Returns its length, -1 at the end of the line, -2 for an unclosed quote. */
static int next_field(const char **p, char *out, size_t cap)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#')
		return -1;
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++)
			if (n + 1 < cap)
				out[n++] = *s;
		if (*s != '"')
			return -2;
		s++;
	} else {
		for (; *s && *s != ' ' && *s != '\t' && *s != '#'; s++)
			if (n + 1 < cap)
				out[n++] = *s;
	}
	out[n] = '\0';
	*p = s;
	return (int)n;
}

int peak_table_parse(struct peak_table *pt, const char *name, const char *text,
		     struct fd_error *err)
{
	static const char *const what[] = { "FP32", "TF32", "BF16", "FP8", "FP4", "TB/s" };
	size_t cap = 0, scap = 0, slen = 0, line = 0;
	size_t *name_at = NULL; /* offsets into strings: it moves while it grows */
	const char *p = text;

	memset(pt, 0, sizeof *pt);
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *ln = xmalloc(len + 1), field[256];
		const char *q = ln;
		struct gpu_peak row = { 0 };
		int n;

		memcpy(ln, p, len);
		ln[len] = '\0';
		if (len && ln[len - 1] == '\r')
			ln[len - 1] = '\0';
		p += len + (p[len] == '\n');
		line++;
		n = next_field(&q, field, sizeof field);
		if (n == -1) {
			free(ln);
			continue;
		}
		if (n <= 0) {
			fd_error_set(err, "%s:%zu: %s", name, line,
				     n == -2 ? "a quoted GPU name is not closed"
					     : "the GPU name is empty");
			goto fail_line;
		}
		for (int i = 0; i < n; i++)
			if ((unsigned char)field[i] < 0x20 || field[i] == 0x7f) {
				fd_error_set(err, "%s:%zu: a control character in the GPU name",
					     name, line);
				goto fail_line;
			}
		if (slen + (size_t)n + 1 > scap) {
			scap = (slen + (size_t)n + 1) * 2;
			pt->strings = xrealloc(pt->strings, scap);
		}
		memcpy(pt->strings + slen, field, (size_t)n + 1);
		for (int f = 0; f < 6; f++) {
			char *end;
			double v;

			if (next_field(&q, field, sizeof field) < 0) {
				fd_error_set(err,
					     "%s:%zu: expected NAME FP32 TF32 BF16 FP8 FP4 TBPS: "
					     "the %s figure is missing",
					     name, line, what[f]);
				goto fail_line;
			}
			if (strcmp(field, "-") == 0) {
				v = 0;
			} else {
				errno = 0;
				v = strtod(field, &end);
				if (end == field || *end || errno || !(v > 0) || v > 1e9) {
					char *e = text_escape_dup(field, strlen(field));

					fd_error_set(err,
						     "%s:%zu: the %s figure '%.40s' is not a "
						     "positive number or '-'",
						     name, line, what[f], e);
					free(e);
					goto fail_line;
				}
			}
			if (f < EFF_N_DTYPES)
				row.tflops[f] = v;
			else
				row.tbps = v;
		}
		if (next_field(&q, field, sizeof field) != -1) {
			fd_error_set(err, "%s:%zu: more than NAME and six figures", name, line);
			goto fail_line;
		}
		if (!(row.tbps > 0)) {
			fd_error_set(err, "%s:%zu: the memory bandwidth (TB/s) cannot be '-'", name,
				     line);
			goto fail_line;
		}
		if (pt->n == cap) {
			cap = cap ? cap * 2 : 8;
			pt->rows = xrealloc(pt->rows, cap * sizeof *pt->rows);
			name_at = xrealloc(name_at, cap * sizeof *name_at);
		}
		name_at[pt->n] = slen;
		pt->rows[pt->n++] = row;
		slen += (size_t)n + 1;
		free(ln);
		continue;
	fail_line:
		free(ln);
		free(name_at);
		peak_table_free(pt);
		return -1;
	}
	for (size_t i = 0; i < pt->n; i++)
		pt->rows[i].name = pt->rows[i].match = pt->strings + name_at[i];
	free(name_at);
	return 0;
}

int peak_table_load(struct peak_table *pt, const char *path, struct fd_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *e;
	size_t len = 0, cap = 0;
	int rc;

	memset(pt, 0, sizeof *pt);
	if (!f) {
		e = text_escape_dup(path, strlen(path));
		fd_error_set(err, "--peaks %s: %s", e, strerror(errno));
		free(e);
		return -1;
	}
	for (;;) {
		size_t got;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (1u << 24)) {
				fclose(f);
				free(buf);
				e = text_escape_dup(path, strlen(path));
				fd_error_set(err, "--peaks %s: larger than 16 MiB", e);
				free(e);
				return -1;
			}
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		e = text_escape_dup(path, strlen(path));
		fd_error_set(err, "--peaks %s: read error", e);
		free(e);
		return -1;
	}
	fclose(f);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		e = text_escape_dup(path, strlen(path));
		fd_error_set(err, "--peaks %s: not a text file", e);
		free(e);
		return -1;
	}
	e = text_escape_dup(path, strlen(path));
	rc = peak_table_parse(pt, e, buf, err);
	free(e);
	free(buf);
	return rc;
}
