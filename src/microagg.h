#ifndef EPIMASK_MICROAGG_H
#define EPIMASK_MICROAGG_H

#include <stddef.h>

/* MDAV microaggregation (methods vignette section 15; Domingo-Ferrer & Mateo-Sanz 2002) and
 * rank swapping (Moore 1996), over plain arrays.
 *
 * MDAV is exact: every choice (farthest record, k - 1 nearest records, ties
 * to the lower row number) is the one a plain scan over all remaining
 * records makes, with the same floating-point operations:
 *   squared distance  d = (((0 + t_1) + t_2) + ...) + t_p,  t_j = (z_j - c_j)^2
 *   centroid          c_j = S_j / m, S_j the pairwise (binary-tree) sum of
 *                     the remaining records' z_j in row order, removed
 *                     records counting as 0, over 2^ceil(log2 n) leaves.
 * Speed comes from a k-d tree (exact branch and bound for farthest and
 * nearest queries) whose top levels split by distance from a reference
 * point c0 (shells, each stored together, so the queries at the surface of
 * the cloud MDAV peels stay in a few shells' memory) and whose nodes keep
 * the box of their remaining records, their largest distance from c0 and a
 * cone around c0 holding their directions (a bound that does not stick out
 * of the cloud as a box does), and a segment tree for the centroid sums
 * (O(log n) per removal, blocks of rows summed afresh). */

/* Scratch sizes (in elements) the caller allocates for mdav_groups(). */
typedef struct {
    size_t n_double; /* doubles */
    size_t n_int;    /* ints    */
} mdav_sizes;

mdav_sizes mdav_scratch_sizes(size_t n, int p);

/* z: n x p standardised values, column-major (R's layout), finite.
 * k >= 1. shell: the k-d tree splits subtrees of more records than this by
 * distance from c0 (MDAV_SHELL; smaller values only to test that path).
 * group: out, 1-based group id of each record, numbered in the order
 * the groups are formed. dscratch / iscratch: mdav_scratch_sizes() elements.
 * interrupt: called every few hundred groups (may longjmp; no memory is
 * owned here). Returns the number of groups. */
#define MDAV_SHELL 65536
int mdav_groups(const double *z, size_t n, int p, int k, int shell, int *group,
                double *dscratch, int *iscratch, void (*interrupt)(void));

/* Rank swapping over ranks 0..n-1: rank i (in increasing order), if not yet
 * swapped, is swapped with a rank drawn uniformly among the not yet swapped
 * ranks in (i, i + w]; none left: it stays. partner: out, the rank whose
 * value rank i receives (an involution). unif_index(m) returns a uniform
 * integer in [0, m) (R's R_unif_index). scratch: n + 1 ints. */
void rank_swap(size_t n, size_t w, int *partner, int *scratch,
               double (*unif_index)(double), void (*interrupt)(void));

#endif
