/* efficiency.h — how close a kernel runs to its GPU's peak: the work of the operator that
 * launched it (FLOPs and bytes, from the recorded shapes), and the GPU's peak compute and
 * memory bandwidth (a built-in table of data-sheet figures, or a --peaks file).
 *
 * The work of an operator is counted the way TraceLens's performance model counts it
 * (AMD-AGI/TraceLens, TraceLens/PerfModel/perf_model.py: the GEMM, SDPA and GroupedGemm
 * classes), so that both tools give the same figures on the same trace; efficiency.c says
 * where fusediff differs and why.
 *
 * Achieved TFLOPS = FLOPs / time, TB/s = bytes / time. The arithmetic intensity AI = FLOPs /
 * bytes against the GPU's ridge point (peak FLOPS / peak bandwidth) says whether the work is
 * compute-bound (AI >= ridge) or memory-bound; the peak share is the achieved figure over the
 * roofline, min(peak FLOPS, AI x peak bandwidth): the share of the peak compute for
 * compute-bound work, of the peak bandwidth for memory-bound work. */
#ifndef FUSEDIFF_EFFICIENCY_H
#define FUSEDIFF_EFFICIENCY_H

#include <stddef.h>
#include <stdint.h>

#include "fusediff/trace.h"
#include "fusediff/util.h"

/* The data types the peak table has a column for: the one a GEMM or an attention computes in. */
enum eff_dtype {
	EFF_FP32,
	EFF_TF32, /* fp32 inputs on tensor (matrix) cores */
	EFF_BF16, /* and fp16 */
	EFF_FP8,
	EFF_FP4,
	EFF_N_DTYPES,
	EFF_DTYPE_UNKNOWN = -1
};
/* "fp32", "tf32", "bf16", "fp8", "fp4"; "unknown" for EFF_DTYPE_UNKNOWN. */
const char *eff_dtype_name(int dtype);

/* One GPU's peaks: dense (no 2:4 sparsity) tensor/matrix-core TFLOPS per data type, 0 where
 * the GPU has none, and the peak memory (HBM, GDDR) bandwidth in TB/s. */
struct gpu_peak {
	const char *name;  /* "H100 SXM", or a --peaks file's row name */
	const char *match; /* what device names it stands for: '|'-separated alternatives, each
			      '+'-separated words that must all occur in the name (any case);
			      "gfx942:304" and "sm90:132" alternatives match a device by its
			      architecture and compute-unit (SM) count; "*" any device */
	double tflops[EFF_N_DTYPES];
	double tbps;
};

/* The built-in table (efficiency.c cites each row's data sheet). */
extern const struct gpu_peak eff_builtin_peaks[];
extern const size_t eff_n_builtin_peaks;

/* Rows read from a --peaks file, tried before the built-in ones. */
struct peak_table {
	struct gpu_peak *rows;
	size_t n;
	char *strings; /* the rows' names, owned */
};

/* Read a --peaks file: one row per line, "NAME FP32 TF32 BF16 FP8 FP4 TBPS", fields separated by
 * blanks, "-" for a data type the GPU does not have, '#' to the end of a line a comment. NAME
 * is matched as struct gpu_peak.match (a double-quoted NAME may hold blanks). Returns 0, or -1
 * with "FILE:LINE: what is wrong" in err. Free with peak_table_free(). */
int peak_table_load(struct peak_table *pt, const char *path, struct fd_error *err);
/* The same from text (name is used in messages). */
int peak_table_parse(struct peak_table *pt, const char *name, const char *text,
		     struct fd_error *err);
void peak_table_free(struct peak_table *pt);

/* The peaks of the GPU named name (may be NULL or "") with architecture key arch ("gfx942:304",
 * "sm90:132", or NULL): the first row of user (may be NULL), else of the built-in table, that
 * matches the name; else the first that matches the architecture key; else a "*" row; NULL
 * when none does. */
const struct gpu_peak *eff_find_peak(const struct peak_table *user, const char *name,
				     const char *arch);
/* The peaks of the GPU trace t ran on (its selected device). */
const struct gpu_peak *eff_trace_peak(const struct peak_table *user, const struct trace *t);
/* The architecture key of a device into buf ("gfx942:304", "sm90:132"), "" when unknown. */
const char *eff_arch_key(const struct trace *t, const struct trace_device *d, char *buf,
			 size_t cap);

enum eff_kind { EFF_GEMM, EFF_GROUPED_GEMM, EFF_ATTENTION };

/* The work of one operator call. */
struct op_work {
	double flops; /* > 0 */
	double bytes; /* the data read and written once each; < 0 when a data type is unknown */
	int dtype;    /* enum eff_dtype of the inputs, EFF_DTYPE_UNKNOWN when not recorded */
	uint8_t kind; /* enum eff_kind */
	uint8_t causal;
	int64_t b, m, n, k; /* GEMM: batch x (M x K) x (K x N); grouped: b groups, m rows in all;
			       attention: b = batch, m = query length, n = key length, k = head
			       dimension */
	int64_t heads, kv_heads; /* attention */
};

/* The work of the operator named name ("aten::mm") from its Input Dims, Input type and
 * Concrete Inputs (the compact JSON texts of struct trace_op; types and concrete may be NULL).
 * Returns 1 and fills *w when fusediff models the operator and the shapes allow, else 0. */
int eff_op_work(const char *name, const char *dims, const char *types, const char *concrete,
		struct op_work *w);
/* The same for a trace's operator. */
int eff_trace_op_work(const struct trace *t, const struct trace_op *op, struct op_work *w);

/* The peak column for work of data type dtype run by the kernel named kernel (may be NULL):
 * fp32 work on kernels that say they use tensor cores ("tf32", "xf32", "tensorop_s1688") counts
 * against the TF32 peak. */
int eff_peak_dtype(int dtype, const char *kernel);

/* Achieved figures of some work over a time. */
struct eff_figures {
	double tflops, tbps; /* NAN when unknown (no work, no bytes) */
	double ai;	     /* FLOPs per byte, NAN without bytes */
	double peak_share;   /* of the roofline, NAN without a peak for the data type */
	int bound;	     /* 1 compute-bound, 0 memory-bound, -1 unknown */
};
/* flops and bytes (bytes < 0: unknown) done in ns nanoseconds of kernel time, against peak (may
 * be NULL) for data type dtype (enum eff_dtype, the peak column). */
void eff_figures(double flops, double bytes, double ns, const struct gpu_peak *peak, int dtype,
		 struct eff_figures *out);

/* The GEMM shape M x K times K x N of an operator's input shapes ("[[4,2048],[2048,512]]" of
 * aten::mm; addmm's bias first, linear's weight as N x K): the first two shapes in a row whose
 * inner dimensions agree, M the product of the first one's outer dimensions. Returns 1 when
 * found, 0 when none (what the alignment compares GEMMs by, for any operator). */
int eff_gemm_shape(const char *dims, int64_t *m, int64_t *n, int64_t *k);

#endif
