/* table_cut.h — where to cut a long name in the middle so that it stays distinct: the texts
 * of a table's TABLE_COL_SCROLL column cut to the same width with the head and tail split in
 * half can read alike ("cutlass_80_t…3_nn_align4" for two different tile shapes); a text that
 * would read like another of its column moves its cut until it no longer does, to a word
 * boundary where it can. Curses-free: widths are in bytes, for printable ASCII texts (other
 * texts keep the usual cut). */
#ifndef FUSEDIFF_TABLE_CUT_H
#define FUSEDIFF_TABLE_CUT_H

#include <stddef.h>

struct table_names;

/* The distinct texts of one column: n texts (copied; duplicates and texts that are not
 * printable ASCII are left out). Owned by caller: free with table_names_free(). */
struct table_names *table_names_new(const char *const *texts, size_t n);
void table_names_free(struct table_names *tn);

/* Text longer than w cells, cut so that it reads unlike the other texts of tn, into out (cap
 * bytes), with ell (ew cells) for what is left out. The usual cut keeps the first and last
 * halves of what the ellipsis leaves; when another text of tn longer than w could be behind
 * that cut too (it has the same head and tail), the ellipsis moves as little as rules out
 * every other text, on to a word where that still does ("cutlass~128x128_32x3_nn_align4" where
 * "cutlass~256x128_32x3_nn_align4" is a text too), else the head is followed by the words of
 * text that no other text with that head holds, between two ellipses
 * ("split_emb~unweighted_kernel_c~"). A text's cut is worked out once per w and ell. Returns 1
 * with out filled, 0 for the usual cut (text fits, is not printable ASCII, is not one of tn's,
 * or its usual cut reads like no other, or no cut tells it apart). */
int table_names_cut(struct table_names *tn, const char *text, int w, const char *ell, int ew,
		    char *out, size_t cap);

#endif
