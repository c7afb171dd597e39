#ifndef EPIMASK_FREQ_H
#define EPIMASK_FREQ_H

#include <stddef.h>

/* Hashed counting of key combinations. Keys arrive as an n x k column-major
 * matrix of integer codes (one code per distinct value of a column, NA being a
 * code of its own), so the hash never needs to know the original types. */

/* The grouping engine: the rows of an n x k code matrix (leading dimension
 * ld >= n) grouped by equality, group[i] in 0..G-1 in order of first
 * appearance, first[g] the first row of group g (first may be NULL). Returns
 * G, or -1 if scratch memory could not be allocated. */
int freq_group_rows(const int *codes, size_t n, size_t ld, int k, int *group, int *first);

/* Assign each row a group id 0..G-1 in order of first appearance and return G
 * (or -1 if scratch memory could not be allocated). size must hold n ints; on
 * return size[0..G-1] are the group sizes. */
int freq_group(const int *codes, size_t n, int k, int *group, int *size);

/* For each query row, the number of reference rows with identical codes.
 * Returns 0, or -1 if scratch memory could not be allocated. */
int freq_match_count(const int *ref, size_t nref, const int *qry, size_t nqry,
                     int k, int *count);

#endif
