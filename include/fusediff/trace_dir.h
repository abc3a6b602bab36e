/* trace_dir.h — the trace files of a directory: what a directory of per-rank traces (ranks.h)
 * and a directory of repeated captures (fusediff --repeats) hold.
 *
 * A trace file is a regular file whose name ends in one of TRACE_DIR_KINDS and does not start
 * with a dot; anything else in the directory (a report, a README, a capture_traces/ folder, a
 * FIFO that would wait for a writer forever) is passed over. */
#ifndef FUSEDIFF_TRACE_DIR_H
#define FUSEDIFF_TRACE_DIR_H

#include <stddef.h>

#include "fusediff/util.h"

/* The names a trace file may end in, as messages list them. */
#define TRACE_DIR_KINDS ".json, .json.gz, .sqlite, .sqlite.gz, .db, .rpd, .csv or .csv.gz"

/* Whether name (a file name, no folder) is that of a trace file. */
int trace_dir_is_trace_name(const char *name);

/* The trace files of dir as paths ("dir/name"), sorted by name (byte order): *paths[0..*n),
 * *n may be 0. Owned by caller: free with trace_dir_free(). Returns 0, or -1 with err
 * ("DIR: Permission denied") when dir cannot be read. */
int trace_dir_list(const char *dir, char ***paths, size_t *n, struct fd_error *err);
void trace_dir_free(char **paths, size_t n);

#endif
