/* ranks.h — two directories of per-rank traces (one file per GPU rank, as SGLang, vLLM and
 * torch.distributed jobs write them) compared rank by rank.
 *
 * The traces of each directory (its trace files: trace_dir.h) are paired by their rank:
 * distributedInfo.rank at the start of a Kineto trace (rank_peek.h) when every file has one
 * and no two files of a directory share one, else the rank the file name gives: "rank-3",
 * "rank_3", "rank3" or SGLang's "TP-3". A file whose rank cannot be told, two files of one
 * directory with the same rank, and a rank that only one directory has are errors. Every rank
 * pair is then compared (in parallel, at most as many pairs as cores at a time, so at most two
 * traces per core in memory) and its totals kept: struct comparison_ranks (comparison.h). */
#ifndef FUSEDIFF_RANKS_H
#define FUSEDIFF_RANKS_H

#include "fusediff/comparison.h"
#include "fusediff/session.h"

/* 1 when path is a directory (what makes two arguments directories of ranks). */
int ranks_is_dir(const char *path);

/* Pair and compare the ranks of dir_a and dir_b for phase (as session_compare()); o as for
 * session_open() (its progress callback and ranks are not used). want: the rank to analyse in
 * full (chosen), or -1 for the one with the largest |B - A|. Owned by caller: free with
 * ranks_free(). Returns 0, or -1 with a one-line message in err. */
int ranks_build(struct comparison_ranks **out, const char *dir_a, const char *dir_b, int phase,
		int64_t want, const struct session_opts *o, struct fd_error *err);
void ranks_free(struct comparison_ranks *r);

#endif
