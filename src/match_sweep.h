#ifndef EPIMASK_MATCH_SWEEP_H
#define EPIMASK_MATCH_SWEEP_H

#include <stddef.h>
#include "match_tree.h"

/* The normaliser S(t) = sum_j p^A_j(t) p^U_j(t) of the record-matching risk
 * for all targets at once, by offline orthogonal range sums (methods
 * vignette section 11; match_sweep.c).
 *
 * Known factors. With Delta_v(t) the target's largest distance, the factor
 * 1 - |z_v - t_v| / Delta_v is linear in z_v on either side of t_v, so on
 * each orthant of t the product over the known variables is a multilinear
 * polynomial sum_S coef_S(t) u^S of the centred, scaled coordinates
 * u_v = (z_v - a_v) / s_v (|u_v| <= 1). Both sides give 1 at z_v = t_v, so
 * a record on the boundary may be counted on either side.
 *
 * Unknown factor g((y - m(t)) / sigma). The released y are cut into B
 * target-independent bins of half-width about MS_HALF_SD sigma; in bin b
 * with centre c_b and half-width h_b, g is expanded to degree MS_DEGREE
 * about c_b: g = sum_d G_d(t, b) v^d + r, v = (y - c_b) / h_b in [-1, 1],
 * G_d = g^(d)(x_b) / d! (h_b / sigma)^d, x_b = (c_b - m(t)) / sigma, and
 * |r| <= max |g^(D+1)| (h_b / sigma)^(D+1) / (D+1)! (Cramer's bound of the
 * Hermite functions, match_sum.c).
 *
 * So S(t) = sum_b sum_{orthant, S, d} G_d coef_S M_{b, orthant, S, d}(t) with
 * the moments M = sum over records of bin b in the orthant of t of u^S v^d.
 * The orthants' sums come by inclusion-exclusion from the dominance sums
 * D_W(t) = the moments over the records of the bin with z_w <= t_w for all w
 * in W (W a subset of the K known variables; D_{} the bin's total): so
 * S(t) = sum_b sum_{W, S, d} G_d coef_{W,S} D_{W,S,d} with the part
 * coefficients coef_{W,S} = sum_{L in W} (-1)^{|W - L|} c_{L,S} (Mobius
 * inversion; c_{L,S} the coefficient of u^S on the orthant L, the variables
 * with z_v <= t_v). Per bin: |W| = 1 by a sweep in the order of z_w; |W| = 2
 * ({a, c}) by a sweep in the order of z_a with a Fenwick tree over the rank
 * of z_c; |W| = 3 by the 3-d dominance sums of match_dominance.c (a segment
 * tree over z_1, in each node a sweep over z_2 with a Fenwick tree over the
 * z_3 rank). The moments are summed in fixed point (int64_t), exactly. Every
 * sum for a target is that of a fixed set of records (and its segment-tree
 * nodes come in a fixed order), whatever the other targets: the result of a
 * target does not depend on how targets are chunked, nor on the threads
 * (bins run in parallel into their own buffers, added in bin order).
 *
 * Certification, per target: the Taylor remainders times the bin's sum of
 * p^A; the rounding of the closed-form g (as the search's margins) and of
 * its derivatives; a bound of the quantisation of the fixed-point moments and
 * of the rounding of the rest (gamma times the sum of the absolute values of
 * the terms, bounded from |u|, |v| <= 1, the counts and the part
 * coefficients). A target whose bound exceeds prob_tol relative to its lower
 * bound is left to the per-target walk of match_sum.c (the caller). */

#define MS_MAX_KNOWN 3
#define MS_DEGREE 12
#define MS_ORDERS (MS_DEGREE + 1)
#define MS_HALF_SD 1.0
#define MS_MAX_BINS 128
/* From this prob_tol on, the per-target walk converges within a few dozen
 * nodes (match_sum.c) and is cheaper than the sweep. */
#define MS_TOL_MAX 0.05

typedef struct ms_state ms_state;

/* Does the sweep apply to this release (at most MS_MAX_KNOWN known, at most
 * one unknown, which has a positive SD and at most MS_MAX_BINS bins, or no
 * spread)? */
int ms_applies(const rm_released *rel);

/* Prepare the sweep of the targets (NULL when memory is short). `threads`
 * bins run at a time. */
ms_state *ms_prepare(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                     int threads);
int ms_bins(const ms_state *st);
/* Bins [from, to) (to - from <= threads), added to the targets' sums in bin
 * order. */
void ms_run_bins(ms_state *st, int from, int to, int threads);
/* The certified estimate of S and its error bound per target. */
const double *ms_estimate(const ms_state *st);
void ms_error(const ms_state *st, double *err);
void ms_free(ms_state *st);

#endif
