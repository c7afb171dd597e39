#ifndef EPIMASK_MATCH_INTERNAL_H
#define EPIMASK_MATCH_INTERNAL_H

/* Shared by the parts of the exact search (match_tree.c: index and search;
 * match_sum.c: the normaliser): a target's constants, the score with the
 * exhaustive loop's arithmetic, and the per-thread scratch. */
#include <math.h>
#include "match_tree.h"

/* Work of a node's bounds in units of one record scored (for the budget of a
 * parallel region and of the normaliser's refinement). */
#define MT_NODE_COST 12.0
/* Moments in the unknown: orders 0..6 (Taylor degree 5, remainder from the
 * 6th moment) with up to 3 known variables; 0..2 (degree 1) beyond, where
 * 2^k moments per order make the index large. */
#define MT_ORDERS_SMALL_K 7
#define MT_ORDERS_LARGE_K 3

/* The grid of a table over the unknown factor, in standard units from 0 to
 * end = d + RM_FAR + 2 (the computed factor is exactly 0 beyond d + RM_FAR),
 * per_sd steps per SD but at most steps_max steps. 0 (no table) without
 * spread, or when the steps would be wider than a quarter SD: their bounds
 * are too loose to be of use (a nearly exact regression; evaluate instead). */
typedef struct { double d, shrink, end, per; } mt_grid;

static inline int mt_table_grid(double sd, double range, double per_sd, double steps_max,
                                mt_grid *g)
{
    if (!(sd > 0) || !(range > 0)) return 0;
    g->d = range / sd;
    g->shrink = exp(-0.5 * g->d * g->d);
    g->end = g->d + RM_FAR + 2.0;
    if (!isfinite(g->end)) return 0;
    g->per = per_sd;
    if (g->end * g->per > steps_max) g->per = steps_max / g->end;
    return g->per >= 4.0;
}

typedef struct {
    int K, U;
    double t[MT_MAX_KNOWN], far[MT_MAX_KNOWN], inv_far[MT_MAX_KNOWN];
    int act[MT_MAX_KNOWN];
    double mean[MT_MAX_UNKNOWN], sd[MT_MAX_UNKNOWN], inv_sd[MT_MAX_UNKNOWN];
    double d[MT_MAX_UNKNOWN], shrink[MT_MAX_UNKNOWN], range[MT_MAX_UNKNOWN];
    int uact[MT_MAX_UNKNOWN];
} mt_target;

/* Exactly the arithmetic of target_scores() in risk_match.c. */
static inline double known_factor(double dist, double far, double inv_far)
{
    double f = dist >= far ? 0.0 : 1.0 - dist * inv_far;
    return f > 0 ? f : 0.0;
}

static inline double unknown_factor(const mt_target *c, int u, double y)
{
    if (c->sd[u] > 0)
        return rm_triangle_std((y - c->mean[u]) * c->inv_sd[u], c->d[u], c->shrink[u]);
    return rm_triangle_normal(y, c->mean[u], c->sd[u], c->range[u]);
}

static inline double point_score(const mt_target *c, const double *x)
{
    double s = 1.0;
    for (int v = 0; v < c->K; v++)
        if (c->act[v]) s *= known_factor(fabs(x[v] - c->t[v]), c->far[v], c->inv_far[v]);
    for (int u = 0; u < c->U; u++)
        if (c->uact[u] && s > 0) s *= unknown_factor(c, u, x[c->K + u]);
    return s;
}

typedef struct {
    int *stack;
    double *stack_ub;
    int *heap_node;
    double *heap_gap, *heap_lo, *heap_hi;
    double *kept_score, *kept_count; /* the search's records near the best */
} mt_scratch;

/* Bounds of the unknown factor u over [lo, hi] (match_tree.c). */
void mt_unknown_bounds(const mt_target *c, int u, double lo, double hi,
                       double *g_lo, double *g_hi, double *err);

/* The normaliser S within relative prob_tol by certified bounds, or a
 * negative value when that would cost more than summing every record
 * (match_sum.c). */
double mt_normaliser(const mt_index *ix, const mt_target *c, mt_scratch *s,
                     double prob_tol, double *work);

/* The interpolation table of the unknown factor for the normaliser (0, or
 * -1 when memory is short; match_sum.c). */
int mt_build_sum_table(mt_index *ix, const rm_released *rel);

/* A target's constants as the search uses them (match_tree.c). */
void mt_setup_target(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                     size_t i, mt_target *c);

/* The triangle expectation g in standard units and its derivatives 0..p at
 * x, and a certified bound of |g^(m)| over [a, b] for m >= 2 (match_sum.c). */
void mt_triangle_derivatives(double x, double d, double shrink, int p, double *out);
double mt_derivative_bound(double a, double b, double d, int m);

/* The sum over every record, in the index's order. */
double mt_normaliser_exact(const mt_index *ix, const mt_target *c, double *work);

#endif
