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
 * target-independent fine bins of half-width about MS_HALF_SD sigma, and
 * these into dyadic blocks (level L: fine bins [k 2^L, (k + 1) 2^L)). In a
 * block b with centre c_b and half-width h_b (from its records), g is
 * expanded to degree D about c_b: g = sum_d G_d(t, b) v^d + r,
 * v = (y - c_b) / h_b in [-1, 1], G_d = g^(d)(x_b) / d! (h_b / sigma)^d,
 * x_b = (c_b - m(t)) / sigma, and |r| <= max |g^(D+1)| (h_b / sigma)^(D+1) /
 * (D+1)! (Cramer's bound of the Hermite functions, match_sum.c; for D = 1
 * the exact bound of g'' from phi). g has three smoothed kinks, at m and
 * m +- Delta; more than MS_NEAR_SD SDs from all of them its derivatives of
 * order >= 2 are below phi(MS_NEAR_SD), so a target uses the fine bins
 * within MS_NEAR_SD SDs of a kink at degree MS_DEGREE, and covers the rest
 * of the range by maximal dyadic blocks at degree 1 (MS_ORDERS_FAR): about
 * 3 (2 MS_NEAR_SD / 2 + 1) + 8 log2(B) blocks per target whatever B, each
 * certified by the remainder of the order it uses. With two unknown
 * variables the blocks are products of the two unknowns' 1-d blocks (a
 * target uses the product of its two 1-d decompositions), the moments
 * u^S v0^a v1^b, the coefficients G0_a G1_b and the remainder
 * r0 s1 + r1 s0 + r0 r1 (s bounds |the factor| over the block).
 *
 * A sharp unknown (residual SD 0, or below range / 2^21: too many bins)
 * is swept as the triangle (1 - |y - m| / Delta)_+ itself: the released
 * range has length Delta, so at most one of its kinks lies inside the data
 * and it is one more coordinate of the known layer (target value that kink,
 * a line or 0 on either side); the smoothing by N(0, sigma^2) is bounded
 * apart (sharp_error in match_sweep.c).
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
 * z_3 rank); |W| = 4 by the 4-d dominance sums of match_dominance.c (a
 * segment tree over z_1 whose canonical nodes run the 3-d structure). The
 * Mobius sum factors over the variables: coef_{W,S} = prod_{v in W}
 * (x_v(low) - x_v(high)) prod_{v not in W} x_v(high) (x_v = alpha_v or
 * beta_v as v is in S or not), computed when a part is added (a table would
 * take 2^K x 2^K doubles per target: 2 GB at 1e6 targets for K = 4)
 * when a part is added. The moments are summed in fixed point (int64_t), exactly. Every
 * sum for a target is that of a fixed set of records (and its segment-tree
 * nodes come in a fixed order), whatever the other targets: the result of a
 * target does not depend on how targets are chunked, nor on the threads
 * (blocks run in parallel into their own buffers, added in block order;
 * the blocks of a target depend on the target alone).
 *
 * Certification, per target: the Taylor remainders times the bin's sum of
 * p^A; the rounding of the closed-form g (as the search's margins) and of
 * its derivatives; a bound of the quantisation of the fixed-point moments and
 * of the rounding of the rest (gamma times the sum of the absolute values of
 * the terms, bounded from |u|, |v| <= 1, the counts and the part
 * coefficients). A target whose bound exceeds prob_tol relative to its lower
 * bound is left to the per-target walk of match_sum.c (the caller). */

/* at most 4 coordinates of the known layer (known variables and sharp
 * unknowns); with 3 or 4, at most one smooth unknown (ms_applies) */
#define MS_MAX_KNOWN 4
#define MS_MAX_UNKNOWN 2
#define MS_DEGREE 12
#define MS_ORDERS (MS_DEGREE + 1)
#define MS_HALF_SD 1.0
/* degree 1 on blocks farther than MS_NEAR_SD SDs from every kink */
#define MS_ORDERS_FAR 2
#define MS_NEAR_SD 8.0
/* fine bins at most (their product with two unknowns; range / sigma up to
 * 2^21 with one); beyond, the walk */
#define MS_MAX_BINS 1048576
/* From this prob_tol on, the per-target walk converges within a few dozen
 * nodes (match_sum.c) and is cheaper than the sweep; not with a sharp
 * unknown, whose factor bounds the walk's nodes loosely (measured at 1e5
 * records: 128 s by the walk at prob_tol = 1 against 13 s with the sweep). */
#define MS_TOL_MAX 0.05

typedef struct ms_state ms_state;

/* Does the sweep apply to this release: at most MS_MAX_UNKNOWN unknowns;
 * the known variables and the sharp unknowns (residual SD 0 or below range /
 * 2^21, whose range spans their values) at most MS_MAX_KNOWN, with three or
 * four of them at most one other (smooth) unknown; the smooth unknowns' fine
 * bins at most MS_MAX_BINS in all. */
int ms_applies(const rm_released *rel);
/* The number of sharp unknowns of the release. */
int ms_sharp_unknowns(const rm_released *rel);

/* Prepare the sweep of the targets (NULL when memory is short). `threads`
 * bins run at a time. */
ms_state *ms_prepare(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                     int threads);
/* The fine bins, and the blocks (all levels) to run. */
int ms_bins(const ms_state *st);
/* The unknowns swept as the triangle itself (sharp: residual SD 0 or below
 * range / 2^21; one more coordinate of the known layer each). */
int ms_sharp(const ms_state *st);
int ms_blocks(const ms_state *st);
/* Blocks [from, to) (at most `threads`, within one level: the run stops at
 * the level's end), added to the targets' sums in block order. Returns the
 * next block to run, or -1 when memory is short. */
int ms_run_bins(ms_state *st, int from, int to, int threads);
/* The certified estimate of S and its error bound per target. */
const double *ms_estimate(const ms_state *st);
void ms_error(const ms_state *st, double *err);
void ms_free(ms_state *st);

#endif
