#ifndef EPIMASK_TABLE_H
#define EPIMASK_TABLE_H

#include <stddef.h>

/* Count tables (methods vignette section 30): the cells of a table with every
 * margin of its hierarchies, and the connected parts of a suppression pattern.
 *
 * A table has d dimensions; dimension j has nlev[j] levels (0 = the codes of
 * the records, nlev[j] - 1 = its total) and nleaf[j] codes at level 0. anc_j
 * (nleaf[j] x nlev[j], column-major) holds, for each code, the node of its
 * group at each level (0-based node numbers of dimension j); a cell is one
 * node per dimension, numbered sum_j node_j * stride[j]. Every record counts
 * in prod_j nlev[j] cells: one per choice of a level in each dimension. */

/* The cells' counts, number of records, sums and largest contributions.
 * leaf: n x d column-major, the record's code (0-based row of anc_j) in each
 * dimension; anc: the anc_j one after another. freq (NULL: 1 per record) is
 * the number of units a record stands for, value (NULL: none) its magnitude.
 * count[c] = sum of freq, rows[c] = number of records, sum[c] = sum of value
 * (when value), top[c + n_cells * t] = the t-th largest value of a record in
 * the cell (0 where fewer records), t < n_top. Outputs are zeroed here.
 * interrupted() is polled every few thousand records; non-zero stops the run.
 * Returns 0, or -2 when interrupted. */
int table_aggregate(size_t n, int d, const int *leaf, const int *anc, const int *nleaf,
                    const int *nlev, const double *stride, const double *freq,
                    const double *value, int n_top, size_t n_cells, double *count,
                    double *rows, double *sum, double *top, int (*interrupted)(void));

/* Connected parts of a suppression pattern. The relations are given in
 * compressed form: relation r holds the cells cell[start[r] .. start[r+1]-1]
 * (0-based). sup[c] != 0 marks a suppressed cell. Two suppressed cells are
 * connected when a relation holds both. part[c] gets the part (0-based, in
 * order of the first cell of each part) of every suppressed cell and -1 for
 * the others. Returns the number of parts, or -1 when memory ran out. */
int table_parts(int n_rel, const int *start, const int *cell, size_t n_cells,
                const int *sup, int *part);

#endif
