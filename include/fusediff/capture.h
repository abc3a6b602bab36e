/* capture.h — graph-replayed kernels joined to their graph's capture trace.
 *
 * Production decode steps replay CUDA/HIP graphs: the replayed kernels have no launching
 * operator, no input shapes and no nn.Module ranges around them. SGLang and vLLM can write the
 * capture of each graph as a trace of its own (SGLang capture_traces/bs_<BS>_rank<N>.json.gz,
 * vLLM capture_traces/graph_capture_rank_<N>.*.pt.trace.json.gz): every launch of the graph
 * with the kernel's name (args.kernel), grid and block, its operator (with Input Dims) and the
 * module calls around it, while almost no kernel runs.
 *
 * trace_join_capture() joins each graph launch of a replay trace (cudaGraphLaunch,
 * hipGraphLaunch: the kernels that share its correlation) to the capture's launch sequence by
 * kernel name in order (a longest common subsequence, grid and block breaking ties), and grafts
 * the capture's CPU side onto the replay: every joined kernel gets a launch inside the graph
 * launch's CPU range (trace_kernel.launch), the capture's operator (name and shapes), and the
 * capture's module calls around it, the capture's times mapped into that range. Everything
 * downstream (classification, layers from module calls, the evidence's operators and shapes)
 * then works as on an eager trace. */
#ifndef FUSEDIFF_CAPTURE_H
#define FUSEDIFF_CAPTURE_H

#include <stddef.h>

#include "fusediff/trace.h"
#include "fusediff/trace_load.h"

/* Join the graph launches of replay (changed in place) with capture (read only). Fills
 * replay->capture. Returns 0, or -1 with err ("cap.json: not a graph capture: ...") when the
 * capture records no captured launch or runs most of its launches. A capture of another graph
 * joins few kernels: the figures in replay->capture say so. */
int trace_join_capture(struct trace *replay, const struct trace *capture, const char *path,
		       struct fd_error *err);

/* Whether t is a graph capture rather than an execution: launches that record the kernel they
 * capture, and no more than half as many kernels run. *n_captured (may be NULL) receives the
 * number of captured launches. */
int trace_is_capture(const struct trace *t, size_t *n_captured);

/* The capture for replay at path: a capture trace, or a directory of them (the one that joins
 * the most kernels; only its regular files are read). Loads (as tuning says, NULL: the
 * defaults), joins and frees the captures; every file opened is recorded in reads (borrowed,
 * may be NULL). Returns 0, or -1 with err (the path cannot be read, holds no capture trace,
 * or a capture is not one). */
int trace_attach_capture(struct trace *replay, const char *path,
			 const struct trace_load_tuning *tuning, struct file_set *reads,
			 struct fd_error *err);

/* The capture_traces/ directory next to the trace at trace_path when there is one ("DIR/
 * capture_traces"), else NULL. Owned by caller: free with free(). */
char *capture_dir_for(const char *trace_path);

#endif
