#ifndef EPIMASK_PREDICATE_H
#define EPIMASK_PREDICATE_H

#include <stddef.h>

/* Singling-out predicates (methods vignette section 28; R/risk-singling-out.R):
 * a predicate is a conjunction of conditions on single columns, and the
 * attack asks how many records (or distinct persons) of a data set it
 * matches, usually only whether that is 0, 1 or more.
 *
 * Data: n records, column-major (column j of record i at x[j * n + i]),
 * column types as in gower.h (GOWER_NUM: a number, NaN for NA; GOWER_CAT: a
 * category code, 0 for NA). Predicate m is the conditions start[m] ..
 * start[m + 1] - 1, condition c being "column col[c] op[c] val[c]". NA is a
 * value of its own: it equals no number or category (== is false, != true),
 * is neither below nor above anything, and only PRED_ISNA holds for it. */
#define PRED_EQ 1
#define PRED_NE 2
#define PRED_LT 3
#define PRED_LE 4
#define PRED_GT 5
#define PRED_GE 6
#define PRED_ISNA 7
#define PRED_NOTNA 8

/* For each of the npred predicates, the number of the n records of x it
 * matches, or, with person (the 0-based person of every record, n_person
 * persons) the number of distinct persons among them, counted up to cap
 * (cap < 1: no cap); into count. With `order` (NULL: every record is
 * scanned, the reference), the records of each column sorted by value with
 * NA first (column j's 0-based rows at order + j * n, as R's order(x,
 * na.last = FALSE) gives them, category NA being code 0): a predicate then
 * scans only the records within the narrowest block of sorted values one of
 * its conditions allows (an equality, a bound, NA), checking every condition
 * on each; the counts are the same. Predicates run in chunks over `threads`
 * threads; interrupted() is polled between chunks. Returns 0, -1 out of
 * memory, -2 interrupted. */
int predicate_count(const double *x, size_t n, const int *type, const int *order,
                    const int *person, int n_person, const int *start, const int *col,
                    const int *op, const double *val, size_t npred, int cap, int threads,
                    int *count, int (*interrupted)(void));

#endif
