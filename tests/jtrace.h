/* jtrace.h — hand-written Kineto traces for the Check suites: CPU operators, launches and
 * kernels with their correlation and External ids, annotation ranges, and a small pre-norm
 * transformer pass. Build the events into a struct jbuf, then jload() it. */
#ifndef FUSEDIFF_TESTS_JTRACE_H
#define FUSEDIFF_TESTS_JTRACE_H

#include <stdarg.h>

#include "testutil.h"

struct jbuf {
	char *s;
	size_t len, cap;
	int first;
	int64_t corr, ext;
};

static inline void jprintf(struct jbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void jprintf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

static inline void jevent(struct jbuf *b, const char *cat, const char *name, int pid, int tid,
			  double ts, double dur, const char *args)
{
	jprintf(b,
		"%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
		"\"dur\":%.3f,\"args\":{%s}}",
		b->first ? "" : ",\n", cat, name, pid, tid, ts, dur, args);
	b->first = 0;
}

/* One kernel launched by operator op from the CPU at cpu_ts (thread 1), running at gpu_ts on
 * stream; the operator's args get extra (JSON members after its External id) when not NULL. */
static inline void jkernel_op_args(struct jbuf *b, const char *name, const char *op,
				   const char *extra, double cpu_ts, double gpu_ts, int stream)
{
	char args[512];

	b->corr++;
	b->ext++;
	snprintf(args, sizeof args, "\"External id\":%lld%s%s", (long long)b->ext, extra ? "," : "",
		 extra ? extra : "");
	jevent(b, "cpu_op", op, 1, 1, cpu_ts, 2, args);
	snprintf(args, sizeof args, "\"correlation\":%lld,\"External id\":%lld", (long long)b->corr,
		 (long long)b->ext);
	jevent(b, "cuda_runtime", "cudaLaunchKernel", 1, 1, cpu_ts + 0.5, 1, args);
	snprintf(args, sizeof args,
		 "\"device\":0,\"stream\":%d,\"correlation\":%lld,\"External id\":%lld", stream,
		 (long long)b->corr, (long long)b->ext);
	jevent(b, "kernel", name, 0, stream, gpu_ts, 5, args);
}

static inline void jkernel_op(struct jbuf *b, const char *name, const char *op, double cpu_ts,
			      double gpu_ts, int stream)
{
	jkernel_op_args(b, name, op, NULL, cpu_ts, gpu_ts, stream);
}

/* An Inductor kernel launched under the operator Inductor records for it (named like the
 * kernel), with its tensors' shapes (args["Input Dims"], JSON text such as "[[4,512],[]]"). */
static inline void jkernel_dims(struct jbuf *b, const char *name, const char *dims, double cpu_ts,
				double gpu_ts, int stream)
{
	char extra[256];

	snprintf(extra, sizeof extra, "\"Input Dims\":%s", dims);
	jkernel_op_args(b, name, name, extra, cpu_ts, gpu_ts, stream);
}

/* The same launched by "aten::op". */
static inline void jkernel(struct jbuf *b, const char *name, double cpu_ts, double gpu_ts,
			   int stream)
{
	jkernel_op(b, name, "aten::op", cpu_ts, gpu_ts, stream);
}

/* An nn.Module call ("nn.Module: Conv2d_0") on thread 1 from cpu_ts for dur us. */
static inline void jmodule_call(struct jbuf *b, const char *name, double cpu_ts, double dur)
{
	char full[256];

	snprintf(full, sizeof full, "nn.Module: %s", name);
	jevent(b, "python_function", full, 1, 1, cpu_ts, dur, "");
}

/* A small pre-norm transformer layer: norm, QKV, attention, O, add+norm, gate-up, act, down. */
static const char *const layer_kernels[] = {
	"fused_add_rms_norm_kernel", "nvjet_qkv_gemm",	   "flash_fwd_kernel",	  "nvjet_o_gemm",
	"fused_add_rms_norm_kernel", "nvjet_gate_up_gemm", "silu_and_mul_kernel", "nvjet_down_gemm",
};

/* n_layers layers plus an embedding and a final norm + LM head; kernels are launched from
 * cpu_ts on, one per microsecond, and run from gpu_ts on. Returns the next CPU time. */
static inline double jpass(struct jbuf *b, int n_layers, double cpu_ts, double *gpu_ts, int stream)
{
	jkernel(b, "indexSelectLargeIndex_embedding", cpu_ts, *gpu_ts, stream);
	cpu_ts += 1, *gpu_ts += 10;
	for (int l = 0; l < n_layers; l++)
		for (size_t i = 0; i < sizeof layer_kernels / sizeof layer_kernels[0]; i++) {
			jkernel(b, layer_kernels[i], cpu_ts, *gpu_ts, stream);
			cpu_ts += 1, *gpu_ts += 10;
		}
	jkernel(b, "fused_add_rms_norm_kernel", cpu_ts, *gpu_ts, stream);
	cpu_ts += 1, *gpu_ts += 10;
	jkernel(b, "nvjet_lm_head_gemm", cpu_ts, *gpu_ts, stream);
	return cpu_ts + 1;
}

static inline struct trace *jload(struct jbuf *b)
{
	struct trace *t = NULL;
	struct fd_error err = { { 0 } };
	struct trace_load_opts lo = { .device = -1 };
	char *doc;
	size_t n;

	n = strlen("{\"traceEvents\":[\n") + b->len + 200;
	doc = malloc(n);
	snprintf(doc, n, "{\"traceEvents\":[\n%s\n],\"cuda_runtime_version\":12080}",
		 b->s ? b->s : "");
	if (trace_load_mem(&t, "hand.json", doc, strlen(doc), &lo, &err) < 0)
		ck_abort_msg("hand-written trace: %s", err.msg);
	free(doc);
	free(b->s);
	memset(b, 0, sizeof *b);
	b->first = 1;
	return t;
}

#endif
