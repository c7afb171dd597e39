#ifndef EPIMASK_GOWER_H
#define EPIMASK_GOWER_H

#include <stddef.h>

/* Gower's distance over mixed columns and the exact k nearest released
 * records of each target (methods vignette section 28; the attacks of
 * R/risk-linkability.R and R/risk-inference.R).
 *
 * Records are p coded values, record i at x + i * p (a record per column of
 * R's p x n matrix). Column j has type[j]:
 *   GOWER_NUM: a number divided by the column's range (so that two values
 *              differ by at most 1), NaN for NA;
 *   GOWER_CAT: a category code, 0 for NA, 1.. for the values.
 * The distance is the mean over the p columns of
 *   number:   |a - b|; NA against NA 0; NA against a number 1;
 *   category: 0 when the codes are equal (NA equals NA), else 1
 * (na = GOWER_NA_CATEGORY: a missing value is a value the intruder sees), or
 * (na = GOWER_NA_IGNORE, cluster::daisy()'s rule) the mean over the columns
 * where neither value is NA; with no such column the distance is 1.
 *
 * The k nearest released records of a target are the first k in the order
 * (distance, row): ties go to the lower row, never to memory order. Under
 * GOWER_NA_CATEGORY the order compares the column sums (the mean is that sum
 * over p, which could round two different sums to one mean). Both searches
 * compute every sum with gower_sum() in column order, so they agree exactly:
 *   method 0: exhaustive scan of every released record (the reference);
 *   method 1: a k-d tree over the distinct released records with, per box
 *             and column, a lower bound of the column's term (the gap to a
 *             number's range; 1 for a category code outside the box's code
 *             range), summed in column order; a box is skipped when its bound
 *             and its lowest row put it after the k-th record found
 *             (GOWER_NA_CATEGORY only: under GOWER_NA_IGNORE the mean over a
 *             varying number of columns has no such bound, and the exhaustive
 *             scan is used). */
#define GOWER_NUM 0
#define GOWER_CAT 1
#define GOWER_NA_CATEGORY 0
#define GOWER_NA_IGNORE 1

/* The sum of the column terms between records a and b and, through *count,
 * the number of columns compared (p under GOWER_NA_CATEGORY). */
double gower_sum(const double *a, const double *b, const int *type, int p, int na,
                 int *count);

/* The distance (mean) from a sum and its count, as gower_knn() reports it. */
double gower_mean(double sum, int count, int p, int na);

/* For each of the nq targets q (record t at q + t * p): the k nearest of the
 * n released records y, as 0-based rows in idx[t * k .. t * k + k - 1]
 * (nearest first) and their distances in dist (same layout); k <= n. Targets
 * run in chunks over `threads` threads; interrupted() is polled between
 * chunks. Returns 0, -1 out of memory, -2 interrupted. */
int gower_knn(const double *y, size_t n, const double *q, size_t nq, int p,
              const int *type, int na, int k, int method, int threads, int *idx,
              double *dist, int (*interrupted)(void));

#endif
