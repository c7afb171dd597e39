#ifndef EPIMASK_SUPPRESS_H
#define EPIMASK_SUPPRESS_H

#include <stddef.h>

/* Cell-level local suppression (methods vignette section 19), on distinct key patterns.
 *
 * codes: n x p column-major integer codes. The first n_free columns are the
 * keys that may be suppressed: code 0 is a missing value (an input NA or a
 * suppressed cell), codes >= 1 are values. The remaining p - n_free columns
 * (strata) are never suppressed and never missing: codes >= 1, and records
 * match only within equal strata codes. n_free <= 64.
 *
 * Two readings of a missing key value (wildcard):
 *   0, "category": 0 is one more value; a record's class size f is the
 *      number of records with identical codes;
 *   1, "wildcard": 0 matches every value of its key; f is the number of
 *      records compatible with it (equal wherever neither is 0).
 *
 * suppress_run: blanks cells (sets them to 0 in the caller's reading) until
 * every record has f >= k, with few cells weighted by cost[0..n_free-1] (> 0).
 * Every stratum must hold at least k records (the caller sets smaller ones
 * aside), so the result is always safe. supp (n x n_free, column-major) gets
 * 1 where a cell was blanked, 0 elsewhere; input zeros are never marked.
 * Deterministic: patterns are processed in an order that depends only on
 * their codes, so a permutation of the records changes which records of a
 * pattern are chosen at most, never the number of cells.
 * interrupted() is polled now and then; non-zero stops the run.
 * Returns 0, -1 when memory ran out, -2 when interrupted. */
int suppress_run(const int *codes, size_t n, int p, int n_free,
                 const double *cost, int k, int wildcard, int *supp,
                 int (*interrupted)(void));

/* The class size f of every record under the reading `wildcard` (recounted
 * from the codes alone). Returns 0, -1 (memory) or -2 (interrupted). */
int suppress_class_sizes(const int *codes, size_t n, int p, int n_free,
                         int wildcard, int *size, int (*interrupted)(void));

#endif
