#ifndef EPIMASK_LATTICE_H
#define EPIMASK_LATTICE_H

#include <stddef.h>

/* Class counts for the generalization lattice (methods vignette section 16). A node's
 * equivalence classes are held as a table: n rows of integer codes (column-
 * major, one column per key, then one per sensitive variable) with a count
 * per row. A coarser node's table is rolled up from a finer node's table by
 * recoding each key column through a map (finer code -> coarser code, both
 * 1-based) and merging equal rows; the records are never read again. */

/* Group the rows of an n x ncol code matrix (only its first ncol columns,
 * leading dimension ld) by equality: group[i] in 0..G-1 in order of first
 * appearance, size[g] = sum of weight over the group (weight NULL: 1 each),
 * first[g] = the group's first row. Returns G, or -1 when out of memory. */
int lattice_group(const int *codes, size_t n, size_t ld, int ncol,
                  const double *weight, int *group, double *size, int *first);

/* Roll a table up: maps[j] (length map_len[j]) recodes column j, NULL keeps
 * it. out_codes (capacity n * ncol) receives the G x ncol merged table with
 * leading dimension G, out_count (capacity n) its counts. Returns G, -1 when
 * out of memory, -2 when a code has no entry in its map. */
int lattice_rollup(const int *codes, const double *count, size_t n, int ncol,
                   const int *const *maps, const int *map_len,
                   int *out_codes, double *out_count);

/* Predictive tagging: out[i] = 1 when node i (row i of the n_nodes x n_keys
 * level matrix) is a generalization of `levels` (up != 0: every level >=) or
 * a specialization (up == 0: every level <=), else 0. */
void lattice_tag(const int *nodes, size_t n_nodes, int n_keys, const int *levels,
                 int up, int *out);

#endif
