#ifndef EPIMASK_MATCH_TREE_H
#define EPIMASK_MATCH_TREE_H

#include <stddef.h>
#include "risk_match.h"

/* Exact sub-quadratic search for the record-matching risk (methods vignette section 11).
 *
 * The released records, identical ones collapsed into one point with a count,
 * are held in a k-d tree over the known and unknown columns. Every factor of
 * a candidate's score is a non-increasing function of its distance to a
 * per-target centre (t_v for a known variable, the predicted mean for an
 * unknown one), so the factors at the point of a node's box nearest the
 * centre bound from above the score of every record in the box, and those at
 * the farthest point bound it from below. For the known factors the bound is
 * exact even for the rounded values (the computed distance and factor are
 * monotone in the coordinate); the closed-form triangle expectation of an
 * unknown factor gets a margin of its rounding error; it depends on the
 * target only through the mean, so one table per release bounds it. One
 * depth-first pass per target (match_tree.c) finds the largest score and
 * every record within the tie tolerance of it, pruning below a floor that
 * starts at the true record's score and rises with the best found, and
 * recomputes the scores of the records that reach the floor with the very
 * code of the exhaustive loop, so that c and I are those of the loop.
 *
 * The normaliser S = sum_j p_j (match_sum.c): a node that lies on one side of
 * t in every known coordinate has a known-factor product that is a
 * multilinear polynomial of the coordinates, whose sum over the node follows
 * from the node's moments (products of centred coordinates over subsets of
 * the known variables); with one unknown variable the factor is expanded to
 * degree 5 about the node's centre with a certified remainder, which needs
 * the moments times powers of (y - c). Nodes are refined best first (largest
 * bound gap) until the relative gap is within prob_tol; leaves, and every
 * record when the refinement does not converge within its budget, are summed
 * with the unknown factor from a cubic Hermite table with certified errors
 * (or exactly when there is no table). prob_tol = 0 sums every record with
 * the loop's arithmetic (O(n) per target). */

#define MT_MAX_KNOWN 6
#define MT_MAX_UNKNOWN 2

typedef struct {
    size_t n;            /* released records */
    int n_known, n_unknown, dims;
    size_t n_unique;     /* distinct released records */
    double *pts;         /* n_unique x dims, row-major: known, then unknown */
    double *cnt;         /* multiplicity of each distinct record */
    double *sorted;      /* n x n_known: each known column sorted (for the nearest distance) */
    size_t n_nodes;
    int *lo, *hi, *left, *right; /* points pts[lo..hi-1] (after reordering); children or -1 */
    double *count;       /* records in the node */
    double *box;         /* n_nodes x 2 dims: minima then maxima */
    double *centre;      /* n_nodes x dims */
    int n_a;             /* moment orders in the unknown: 3 with one unknown, else 1 */
    int n_mom;           /* n_a * 2^n_known */
    double *mom;         /* n_nodes x n_mom */
    int depth;
    /* per unknown u with a positive SD and range: g_upper[u][k] bounds from
     * above the computed unknown factor at every x = |y - mean| / sd in
     * [k, k + 1) / g_inv_step[u] (the factor is non-increasing in x, and the
     * bound has the margin of its rounding); 0 beyond g_len[u] steps, where
     * the computed factor is exactly 0. Targets share it: the factor depends
     * on the target only through the mean. NULL: no table. */
    double *g_upper[MT_MAX_UNKNOWN];
    double g_inv_step[MT_MAX_UNKNOWN];
    size_t g_len[MT_MAX_UNKNOWN];
    /* With one unknown variable of positive SD and range, for the
     * normaliser: the unknown factor g and its derivative at x = k / s_per,
     * and s_err[k] a certified bound of |computed g - cubic Hermite
     * interpolant| on [k, k + 1] / s_per (match_sum.c). NULL: none. */
    double *s_val, *s_der, *s_err;
    double s_per;
    size_t s_len;
} mt_index;

/* Build the index of the released data (malloc'ed; mt_free releases it).
 * Returns 0, or -1 when memory is short (everything already freed). */
int mt_build(mt_index *ix, const rm_released *rel);
void mt_free(mt_index *ix);

/* Bytes of scratch one thread needs for mt_match_target. */
size_t mt_scratch_bytes(const mt_index *ix);

/* Results of target i (prob_true, prob_max, c, I in res at position i),
 * with S certified to relative error prob_tol (0: summed exactly; negative:
 * S is not computed and prob_true, prob_max are NaN: c and I only). Returns
 * the work done (nodes visited and candidates scored). */
double mt_match_target(const mt_index *ix, const rm_released *rel,
                       const rm_targets *tg, size_t i, double prob_tol,
                       void *scratch, rm_result *res);

/* prob_tol of mt_match_target for the sweep (match_sweep.h): c and I, and
 * the unnormalised scores of the true record and of the best in prob_true
 * and prob_max (both -1 when every record scores 0: then all tie). */
#define MT_PROB_RAW (-2.0)

/* The normaliser of target i by the per-target walk (mt_normaliser within
 * prob_tol > 0, else, or when that would cost more, every record summed). */
double mt_target_normaliser(const mt_index *ix, const rm_released *rel,
                            const rm_targets *tg, size_t i, double prob_tol,
                            void *scratch, double *work);

/* A run over targets by either method, on the thread policy of par_rows.h. */
typedef struct {
    const rm_released *rel;
    const rm_targets *tg;
    const mt_index *ix;  /* NULL: the exhaustive loop */
    double prob_tol;
    char *scratch;       /* threads blocks of scratch_bytes */
    size_t scratch_bytes;
    rm_result *res;
} rm_job;

/* Bytes of scratch per thread for the job's method. */
size_t rm_job_scratch_bytes(const rm_released *rel, const mt_index *ix);

/* Targets [from, to) until about RM_REGION_WORK work (records scored, or
 * their equivalent in node bounds: about 0.3 s of one core) is done; returns
 * the first target not done (call again from there after an interrupt
 * check). */
#define RM_REGION_WORK 1.0e7
size_t rm_run(rm_job *job, size_t from, size_t to, int threads);

#endif
