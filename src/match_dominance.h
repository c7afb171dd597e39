#ifndef EPIMASK_MATCH_DOMINANCE_H
#define EPIMASK_MATCH_DOMINANCE_H

#include <stddef.h>
#include <stdint.h>

/* Three-dimensional dominance sums of moment vectors for many queries
 * (match_dominance.c; used by the sweep of match_sweep.c for three and four known
 * variables): for every query i, the sum over the records r with
 * z1_r <= t1_i, z2_r <= t2_i and z3_r <= t3_i of a vector of V moments.
 *
 * The structure depends on the records only: a segment tree over the records
 * in the order of z1 (node [lo, hi) split at lo + (hi - lo) / 2). A query's
 * prefix {z1 <= t1}, the first P records, is the union of the canonical
 * nodes of [0, P): the root when P = n, else the left children [lo, mid) of
 * the nodes [lo, hi) of its path with mid <= P < hi. Nodes are visited level
 * by level (top-down); in each node a sweep over its records in z2 order (up
 * to t2 inclusive) fills a Fenwick tree over their z3 rank within the node,
 * queried up to t3 inclusive. So a query's result is reported as one vector
 * per canonical node, in top-down order, each the sum of a fixed set of
 * records in a fixed order, whatever the other queries: the same for any
 * chunking of the queries and any thread.
 *
 * The moments are fixed-point integers (the caller's scale), so the sums are
 * exact and independent of the order of the additions: the caller bounds
 * only the quantisation of each record's moments and the overflow (at most
 * n records of |moment| <= 2^62 / n each).
 *
 * Cost O((n + queries) log^2 n V); memory O(n + queries) ints and the
 * caller's scratch of (n + 1) V integers (one node's Fenwick tree). */

/* The fixed-point moment vector of a record (by its position in z1 order). */
typedef void (*md_moments)(void *ctx, size_t local, int64_t *vec);
/* The sum of one canonical node for query i (called in top-down order). */
typedef void (*md_emit)(void *ctx, size_t i, const int64_t *sum);

typedef struct {
    size_t n;                   /* records, known by their position in z1 order */
    const double *z2, *z3;      /* per record (by position) */
    const int *by2, *by3;       /* positions in z2 (resp. z3) order, ties by index */
    size_t nq;                  /* queries */
    const int *qorder;          /* queries by t2, ties by index (a permutation of 0..nq-1) */
    const int *prefix;          /* per query: the number P of records with z1 <= t1; 0 drops it */
    const double *t2, *t3;      /* per query */
    int V;
    int64_t *fen;               /* scratch of (n + 1) x V */
} md_problem;

typedef struct md_work md_work;

/* Work space for at most n_max records, nq queries and V moments (NULL when
 * memory is short). */
md_work *md_work_alloc(size_t n_max, size_t nq, int V);
void md_work_free(md_work *w);

/* The dominance sums of problem `p`, reported through `emit`. Returns the
 * number of tree levels visited (for the rounding bound: a query gets at
 * most one node per level). */
int md_dominance3(const md_problem *p, md_work *w, md_moments moments, md_emit emit,
                  void *ctx);

/* Four-dimensional dominance sums (four known variables): for every query
 * i, the sum over the records with z1 <= t1, z2 <= t2, z3 <= t3 and
 * z4 <= t4. A segment tree over the records in z1 order, defined by the
 * records only (as md_dominance3's), visited level by level; in each
 * canonical node the 3-d structure of md_dominance3 runs over the node's
 * records (in z2 order) for the queries canonical there. A query's result
 * is reported per (outer node, inner node), in a fixed order, each the sum
 * of a fixed set of records, whatever the other queries. */
typedef struct {
    size_t n;                   /* records, by their position in z1 order */
    const double *z2, *z3, *z4; /* per record (by position) */
    const int *by2, *by3, *by4; /* positions in z2, z3, z4 order, ties by index */
    size_t nq;
    const int *qorder;          /* queries by t3, ties by index */
    const int *prefix;          /* per query: the number of records with z1 <= t1; 0 drops it */
    const double *t2, *t3, *t4; /* per query */
    int V;
    int64_t *fen;               /* scratch of (n + 1) x V */
} md_problem4;

typedef struct md_work4 md_work4;

md_work4 *md_work4_alloc(size_t n_max, size_t nq, int V);
void md_work4_free(md_work4 *w);

/* The dominance sums of problem `p` through `emit`. Returns the number of
 * outer levels visited times the largest number of inner levels (a bound
 * of the nodes a query is reported for). */
int md_dominance4(const md_problem4 *p, md_work4 *w, md_moments moments, md_emit emit,
                  void *ctx);

/* The largest number of levels of the tree over n records (the root is level
 * 0): a bound of the number of nodes a query is reported for. */
int md_levels(size_t n);

#endif
