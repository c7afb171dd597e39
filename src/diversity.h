#ifndef EPIMASK_DIVERSITY_H
#define EPIMASK_DIVERSITY_H

#include <stddef.h>

/* Attribute disclosure within equivalence classes (methods vignette section
 * 12): per class, for one sensitive variable, the distinct l, the entropy l,
 * the recursive (c, l) and the earth mover's distance to the overall
 * distribution. The one implementation of these formulas in the package:
 * risk_ldiversity(), risk_tcloseness() and the l / t criteria of ola() and
 * datafly() all call it (r_diversity.c). */

/* Scratch: count elements of size bytes; never returns NULL (the glue's
 * allocator is R_alloc, released when .Call returns or an interrupt jumps out
 * of check). */
typedef void *(*diversity_alloc)(size_t count, size_t size);

/* Rows: cls[i] in 1..n_classes is the class of row i, value[i] in 1..m its
 * sensitive value, count[i] > 0 the records behind it (count NULL: 1 each;
 * a row is a record, or a row of a class table). The (class, value) pairs are
 * grouped by freq_group_rows() of freq.c and visited class by class in the
 * order of the values. Outputs (NULL: not computed), one per class:
 *   distinct   the number of distinct values;
 *   entropy_l  exp(-sum_s p_s log p_s);
 *   recursive  the largest l with r_1 < c (r_l + ... + r_d) (counts r in
 *              decreasing order, d distinct), at least 1; needs c > 0;
 *   emd        with q (length m, the overall distribution): ordered != 0,
 *              (1 / (m - 1)) sum_i |sum_{k <= i} (p_k - q_k)| (0 when m = 1),
 *              summed over runs of ranks between two values of the class by
 *              prefix sums of the cumulative q (O(log m) a pair, not O(m) a
 *              class); ordered == 0, (1/2) sum_k |p_k - q_k|. Clamped to
 *              [0, 1] (rounding).
 * check (may be NULL) is called every few thousand classes.
 * Returns 0; -1 when the grouping engine ran out of memory; -2 when a class
 * is outside 1..n_classes; -3 when a value is outside 1..m. */
int diversity_classes(const int *cls, const int *value, const double *count, size_t n,
                      int n_classes, int m, const double *q, int ordered, double c,
                      double *distinct, double *entropy_l, double *recursive, double *emd,
                      diversity_alloc alloc, void (*check)(void));

#endif
