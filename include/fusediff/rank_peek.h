/* rank_peek.h — the rank of a trace from the start of its file, without loading it: Kineto
 * writes "distributedInfo": {"rank": N, ...} before its events. What pairs the traces of two
 * directories of ranks (ranks.h) before any is loaded. */
#ifndef FUSEDIFF_RANK_PEEK_H
#define FUSEDIFF_RANK_PEEK_H

#include <stdint.h>

#include "fusediff/input.h"
#include "fusediff/util.h"

/* How far into the (decompressed) file distributedInfo is looked for. */
#define RANK_PEEK_BYTES (1 << 20)

/* distributedInfo.rank of the trace at path, read as o says (NULL: the defaults): 1 with *rank set, 0 when the first
 * RANK_PEEK_BYTES do not hold it (another format, or a writer that puts it last), -1 when
 * the file cannot be read (err set). Not thread-safe (cJSON's error position is global). */
int trace_peek_rank(const char *path, const struct input_opts *o, int64_t *rank,
		    struct fd_error *err);

#endif
