#ifndef EPIMASK_LINKAGE_H
#define EPIMASK_LINKAGE_H

#include <stddef.h>

/* Distance-based record linkage (methods vignette section 18). x (original) and y (released)
 * are n x d row-major, already transformed so that the distance is
 * Euclidean. For each record i: the minimum distance from x_i to any y_j,
 * the number t_i of released records within that distance times
 * (1 + LINK_TIE_REL), and weight_i = 1 / t_i when y_i is among them, else 0.
 * method 0: exhaustive O(n^2) loop (the reference); 1: k-d tree over the
 * distinct released records (exact, the same numbers). Queries run in
 * chunks; interrupted() is polled between chunks (outside any parallel
 * region). Returns 0, -1 out of memory, -2 interrupted. */
#define LINK_TIE_REL 1e-12

int linkage_run(const double *x, const double *y, size_t n, int d, int method,
                int threads, double *weight, double *ties, double *min_dist,
                int (*interrupted)(void));

#endif
