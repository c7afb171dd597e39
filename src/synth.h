#ifndef EPIMASK_SYNTH_H
#define EPIMASK_SYNTH_H

#include <stddef.h>

/* Donor sampling of sequential synthesis (methods vignette section 29),
 * over plain arrays.
 *
 * Each of the n_donor donors (the original records a model was fitted to)
 * sits in one leaf 0 .. n_leaf - 1 (a CART leaf; one leaf for sampling from
 * a marginal). Each of the n_target synthetic records falls in a leaf and
 * receives the value of one donor of that leaf:
 *   bayes = 0: a donor drawn uniformly (synthpop's "cart");
 *   bayes = 1: a donor drawn with the leaf's Bayesian-bootstrap weights
 *     (Rubin 1981): w_i = E_i / sum_leaf E, E_i standard exponential, one
 *     set of weights per leaf and call (synthpop's former "cart.bboot").
 * Random numbers come from the caller's generators, in a fixed order that
 * an R reference can replay: first (bayes = 1 only) one exponential per
 * donor, the donors taken leaf by leaf (leaf 0 first) and within a leaf in
 * increasing donor index; then one uniform per target, in target order.
 * The donor of a target with uniform u in a leaf with donors d_1 < ... < d_c
 * (in index order) is d_j with
 *   bayes = 0: j = floor(u c) + 1 (capped at c);
 *   bayes = 1: the smallest j with C_j > u C_c, C_j = E_1 + ... + E_j.
 *
 * donor_leaf: n_donor leaf numbers in [0, n_leaf); target_leaf: n_target
 * leaf numbers in [0, n_leaf). out: the 0-based donor index of each target.
 * Scratch (caller-allocated): start (n_leaf + 1 sizes), order (n_donor ints),
 * cum (n_donor doubles, bayes = 1 only; may be NULL otherwise).
 * interrupt: polled every 2^16 targets (may longjmp; nothing is owned here).
 * Returns 0, or -1 - t when target t falls in a leaf without donors. */
typedef double (*synth_rng)(void);

int synth_leaf_donors(const int *donor_leaf, size_t n_donor, const int *target_leaf,
                      size_t n_target, int n_leaf, int bayes, synth_rng unif,
                      synth_rng expo, int *out, size_t *start, int *order, double *cum,
                      void (*interrupt)(void));

/* The leaf of each record in a binary tree (an rpart tree with one split per
 * inner node: no competitor or surrogate splits), the twin of
 * rpart's predict for such trees without its linear search of child nodes.
 *
 * Nodes are rows 0 .. n_node - 1. Row r: leaf[r] != 0 for a leaf; otherwise
 * var[r] (0-based column of x), kind[r] (0: numeric, 1: categorical),
 * cut[r] and dir[r] for a numeric split (x < cut goes left when dir = -1,
 * right when dir = 1; x >= cut the other way), crow[r] (0-based row of the
 * n_crow x n_ccol matrix csplit, column-major) for a categorical split (x
 * holds the level codes 1, 2, ...; csplit 1 = left, 3 = right, else the
 * level is missing here), left[r], right[r] (rows of the children) and
 * major[r] (0: left, 1: right) the way of a missing value.
 * x: n x p, column-major, NaN for missing. out: the row of each record's
 * leaf. The root is row 0. interrupt: polled every 2^16 records. */
void synth_tree_leaves(const double *x, size_t n, int p, const int *leaf, const int *var,
                       const int *kind, const double *cut, const int *dir, const int *crow,
                       const int *left, const int *right, const int *major,
                       const int *csplit, int n_crow, int n_ccol, int *out,
                       void (*interrupt)(void));

#endif
