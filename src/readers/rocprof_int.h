/* rocprof_int.h — what the readers of rocprofv3's outputs (JSON, rocpd, kernel_trace.csv)
 * share. Private to src/readers. */
#ifndef FUSEDIFF_ROCPROF_INT_H
#define FUSEDIFF_ROCPROF_INT_H

#include <stdint.h>

#include "fusediff/trace.h"

/* Kineto's name for a rocprofiler memory copy operation ("MEMORY_COPY_DEVICE_TO_HOST" ->
 * "Memcpy DtoH (Device -> Host)"); "Memcpy" for others or NULL. */
uint32_t rocprof_copy_name(struct trace *t, const char *op);

/* A kernel symbol's name (len bytes, NULs included) as Kineto shows it: without the code
 * object's ".kd". */
uint32_t rocprof_kernel_name(struct trace *t, const char *name, size_t len);

#endif
