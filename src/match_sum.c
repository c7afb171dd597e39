/* The normaliser S = sum_j p_j of the exact search (methods vignette section 11): certified
 * lower and upper bounds from the nodes' moments, refined best first. See
 * match_tree.h for the method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "match_internal.h"


static double std_cdf(double x) { return 0.5 * erfc(-x * RM_INV_SQRT_2); }
static double std_pdf_at_distance(double r) { return RM_INV_SQRT_2PI * exp(-0.5 * r * r); }

/* Distance of [a, b] from 0. */
static double gap_from_zero(double a, double b) { return a > 0 ? a : (b < 0 ? -b : 0.0); }

/* The triangle expectation g(x) = E[(1 - |x - Z| / d)_+] in standard units
 * and its derivatives 1..p at x: with H(a) = a Phi(a) + phi(a),
 * g = [H(x + d) - 2 H(x) + H(x - d)] / d, H' = Phi, H^(n) = phi^(n - 2) and
 * phi^(n)(u) = (-1)^n He_n(u) phi(u) (Hermite polynomials). */
void mt_triangle_derivatives(double x, double d, double shrink, int p, double *out)
{
    out[0] = rm_triangle_std(fabs(x), d, shrink);
    if (p >= 1)
        out[1] = (std_cdf(x + d) - 2.0 * std_cdf(x) + std_cdf(x - d)) / d;
    if (p < 2) return;
    double pt[3] = { x + d, x, x - d }, w[3] = { 1.0, -2.0, 1.0 };
    for (int k = 2; k <= p; k++) out[k] = 0.0;
    for (int q = 0; q < 3; q++) {
        double u = pt[q], phi = std_pdf_at_distance(u), he_prev = 1.0, he = u;
        /* k = 2 uses phi^(0) = He_0 phi, k = 3 uses phi^(1) = -He_1 phi, ... */
        for (int k = 2; k <= p; k++) {
            int nd = k - 2;
            double hn = nd == 0 ? 1.0 : (nd == 1 ? u : he);
            if (nd >= 2) { /* advance He to order nd */
                double next = u * he - (nd - 1) * he_prev;
                he_prev = he;
                he = next;
                hn = he;
            }
            double sign = (nd % 2) ? -1.0 : 1.0;
            out[k] += w[q] * sign * hn * phi / d;
        }
    }
}

/* max over |u| >= r of |phi^(n)(u)| by Cramer's inequality
 * |He_n(u)| <= 1.086435 sqrt(n!) exp(u^2 / 4). */
static double phi_deriv_bound(double r, int n)
{
    double f = 1.0;
    for (int k = 2; k <= n; k++) f *= k;
    return 1.086436 * sqrt(f) * RM_INV_SQRT_2PI * exp(-0.25 * r * r);
}

/* A bound of |g^(m)(x)| over x in [a, b] (m >= 2): the smaller of the second
 * difference of phi^(m-2) term by term, and d times the largest |phi^(m)|
 * within d of the interval (the second difference as an integral). */
double mt_derivative_bound(double a, double b, double d, int m)
{
    double by_terms = (phi_deriv_bound(gap_from_zero(a + d, b + d), m - 2) +
                       2.0 * phi_deriv_bound(gap_from_zero(a, b), m - 2) +
                       phi_deriv_bound(gap_from_zero(a - d, b - d), m - 2)) / d;
    double by_integral = d * phi_deriv_bound(gap_from_zero(a - d, b + d), m);
    return (by_terms < by_integral ? by_terms : by_integral) * (1.0 + 1e-12);
}

/* A certified bound (dir = -1 lower, +1 upper) of sum_j P(z_j) g(y_j) over
 * the node, P the multilinear polynomial with coefficients `coef` on the
 * centred coordinates (non-negative on the node's records), g the product of
 * the unknown factors: by the Taylor expansion in y with one unknown, else by
 * g's bound on the node (g_bound). */
/* The Taylor expansion of the unknown factor over a node, shared by its
 * lower and upper bounds: derivatives 0..p at the centre and the bound of the
 * (p+1)-th derivative over the node. */
typedef struct {
    int use;
    double deriv[MT_ORDERS_SMALL_K];
    double remainder;
} node_taylor;

static void taylor_of_node(const mt_index *ix, const mt_target *c, int node, node_taylor *tay)
{
    tay->use = ix->n_a > 1 && c->uact[0] && c->sd[0] > 0;
    if (!tay->use) return;
    int K = c->K, D = ix->dims, p = ix->n_a - 2;
    const double *mn = ix->box + (size_t) node * 2 * D, *mx = mn + D;
    const double *ctr = ix->centre + (size_t) node * D;
    double inv_sd = c->inv_sd[0], d = c->d[0];
    double xc = (ctr[K] - c->mean[0]) * inv_sd;
    double xa = (mn[K] - c->mean[0]) * inv_sd, xb = (mx[K] - c->mean[0]) * inv_sd;
    mt_triangle_derivatives(xc, d, c->shrink[0], p, tay->deriv);
    double pad = 1e-9;
    tay->remainder = mt_derivative_bound(xa - pad * (1 + fabs(xa)), xb + pad * (1 + fabs(xb)),
                                      d, p + 1);
}

static double expanded_sum(const mt_index *ix, const mt_target *c, int node,
                           const node_taylor *tay, const double *coef, double g_bound,
                           double g_err, int dir)
{
    int K = c->K, subsets = 1 << K;
    const double *mom = ix->mom + (size_t) node * ix->n_mom;
    double pm[MT_ORDERS_SMALL_K] = { 0 }, pabs[MT_ORDERS_SMALL_K] = { 0 };
    for (int a = 0; a < ix->n_a; a++)
        for (int q = 0; q < subsets; q++) {
            double term = coef[q] * mom[a * subsets + q];
            pm[a] += term;
            pabs[a] += fabs(term);
        }
    /* relative slack for the rounding of the factors, chords and sums */
    double e0 = 1e-12 * pabs[0] + 1e-300;
    double best = dir < 0 ? (pm[0] - e0) * g_bound : (pm[0] + e0) * g_bound;
    if (tay->use) {
        /* Taylor expansion of degree p = n_a - 2 in y about the centre; the
         * remainder from the (p+1)-th derivative and the (p+1)-th moment (p+1
         * even, so the moment is a sum of non-negative terms) */
        int p = ix->n_a - 2;
        double inv_sd = c->inv_sd[0], d = c->d[0];
        const double *deriv = tay->deriv;
        double est = 0.0, err = g_err * (pm[0] + e0), scale = 1.0, fact = 1.0;
        for (int k = 0; k <= p; k++) {
            if (k > 0) {
                scale *= inv_sd;
                fact *= k;
            }
            double coefk = deriv[k] * scale / fact;
            double ek = 1e-12 * pabs[k];
            est += coefk * pm[k];
            /* rounding: of the moments, of the derivative (absolute, of order
             * eps / d in standard units), of the sum */
            err += fabs(coefk) * ek + 1e-14 * (1.0 + k) / d * scale / fact * (fabs(pm[k]) + ek) +
                   1e-13 * fabs(coefk * pm[k]);
        }
        scale *= inv_sd;
        fact *= p + 1;
        err += tay->remainder * scale / fact * (pm[p + 1] + 1e-12 * pabs[p + 1]);
        if (dir < 0 && est - err > best) best = est - err;
        if (dir > 0 && est + err < best) best = est + err;
    }
    return best;
}

/* Bounds [lo, hi] of the sum of the computed scores over a node. */
static void node_sum(const mt_index *ix, const mt_target *c, int node, double *lo, double *hi)
{
    int K = c->K, D = ix->dims;
    const double *mn = ix->box + (size_t) node * 2 * D, *mx = mn + D;
    double count = ix->count[node];
    /* corner bounds */
    double p_hi = 1.0, p_lo = 1.0, g_hi = 1.0, g_lo = 1.0, g_err = 0.0;
    for (int v = 0; v < K; v++) {
        if (!c->act[v]) continue;
        double t = c->t[v];
        double near = t < mn[v] ? fabs(mn[v] - t) : (t > mx[v] ? fabs(mx[v] - t) : 0.0);
        double a = fabs(mn[v] - t), b = fabs(mx[v] - t), far = a > b ? a : b;
        p_hi *= known_factor(near, c->far[v], c->inv_far[v]);
        p_lo *= known_factor(far, c->far[v], c->inv_far[v]);
    }
    for (int u = 0; u < c->U; u++) {
        if (!c->uact[u]) continue;
        double gl, gh, e;
        mt_unknown_bounds(c, u, mn[K + u], mx[K + u], &gl, &gh, &e);
        g_hi *= gh;
        g_lo *= gl;
        g_err += e;
    }
    *lo = count * p_lo * g_lo * (1.0 - 1e-14);
    *hi = count * p_hi * g_hi * (1.0 + 1e-14);

    /* Each known factor is linear on the node where it does not straddle t;
     * where it does, the tent lies above its chord and below either of its
     * two lines (the one on the side of the node's mass is taken). The
     * products are multilinear: their sums follow from the moments. */
    double coef_lo[1 << MT_MAX_KNOWN], coef_hi[1 << MT_MAX_KNOWN];
    coef_lo[0] = coef_hi[0] = 1.0;
    const double *ctr = ix->centre + (size_t) node * D;
    const double *mom = ix->mom + (size_t) node * ix->n_mom;
    for (int v = 0; v < K; v++) {
        int bit = 1 << v;
        double a_lo = 1.0, b_lo = 0.0, a_hi = 1.0, b_hi = 0.0;
        if (c->act[v]) {
            double t = c->t[v], F = c->far[v];
            if (mn[v] < t && t < mx[v]) {
                double f_a = 1.0 - (t - mn[v]) / F, f_b = 1.0 - (mx[v] - t) / F;
                b_lo = (f_b - f_a) / (mx[v] - mn[v]);
                a_lo = f_a + b_lo * (ctr[v] - mn[v]);
                /* mean of z_v - c_v over the node's records: side of the mass */
                double side = mom[bit] / count + ctr[v] >= t ? 1.0 : -1.0;
                a_hi = 1.0 - side * (ctr[v] - t) / F;
                b_hi = -side / F;
            } else {
                double side = mn[v] >= t ? 1.0 : -1.0;
                a_lo = a_hi = 1.0 - fabs(ctr[v] - t) / F;
                b_lo = b_hi = -side / F;
            }
        }
        for (int q = 0; q < bit; q++) {
            coef_lo[q | bit] = coef_lo[q] * b_lo;
            coef_lo[q] *= a_lo;
            coef_hi[q | bit] = coef_hi[q] * b_hi;
            coef_hi[q] *= a_hi;
        }
    }
    node_taylor tay;
    taylor_of_node(ix, c, node, &tay);
    double bound_lo = expanded_sum(ix, c, node, &tay, coef_lo, g_lo, g_err, -1);
    double bound_hi = expanded_sum(ix, c, node, &tay, coef_hi, g_hi, g_err, 1);
    if (bound_lo > *lo) *lo = bound_lo;
    if (bound_hi < *hi) *hi = bound_hi;
    if (*lo > *hi) *lo = *hi; /* both bounds hold: they meet within rounding */
}

static double leaf_sum(const mt_index *ix, const mt_target *c, int node)
{
    double s = 0.0;
    for (int q = ix->lo[node]; q < ix->hi[node]; q++)
        s += ix->cnt[q] * point_score(c, ix->pts + (size_t) q * ix->dims);
    return s;
}

/* ---- the unknown factor by interpolation -------------------------------- */

/* Grid of the interpolation table in standard units: h = 1/32 gives an
 * interpolation error of h^4 / 384 max|g^(4)| < 1e-10 / d; at most
 * MT_S_STEPS_MAX steps (large d: coarser, with larger certified errors). */
#define MT_S_PER_SD 32.0
#define MT_S_STEPS_MAX 65536.0

int mt_build_sum_table(mt_index *ix, const rm_released *rel)
{
    mt_grid grid;
    if (rel->n_unknown != 1 ||
        !mt_table_grid(rel->unknown_sd[0], rel->unknown_range[0], MT_S_PER_SD,
                       MT_S_STEPS_MAX, &grid)) return 0;
    double d = grid.d, shrink = grid.shrink, end = grid.end, per = grid.per;
    size_t len = (size_t) ceil(end * per) + 2;
    ix->s_val = malloc(len * sizeof(double));
    ix->s_der = malloc(len * sizeof(double));
    ix->s_err = malloc(len * sizeof(double));
    if (!ix->s_val || !ix->s_der || !ix->s_err) return -1;
    double h = 1.0 / per;
    for (size_t k = 0; k < len; k++) {
        double x = (double) k * h, deriv[2];
        mt_triangle_derivatives(x, d, shrink, 1, deriv);
        ix->s_val[k] = deriv[0];
        ix->s_der[k] = deriv[1] * h; /* scaled to the unit interval */
    }
    for (size_t k = 0; k + 1 < len; k++) {
        double a = (double) k * h, b = (double) (k + 1) * h;
        /* cubic Hermite remainder; rounding of the two tabulated values (the
         * closed form's margin, as in unknown_upper()), of the derivatives
         * (absolute, a few eps / d, times h) and of the interpolant */
        double interp = pow(h, 4) / 384.0 * mt_derivative_bound(a, b, d, 4);
        double values = 2.0 * 1e-12 * (2.0 + b + d) / d;
        ix->s_err[k] = interp * (1.0 + 1e-9) + values + 1e-14 * h / d + 4e-16;
    }
    ix->s_err[len - 1] = 1.0;
    ix->s_per = per;
    ix->s_len = len;
    return 0;
}

/* Certified bounds of the sum of the computed scores of points [from, to):
 * the known factors as computed, the unknown one interpolated within its
 * error bound (clamped to [0, 1]); relative slack for the sums. */
static void table_sum(const mt_index *ix, const mt_target *c, size_t from, size_t to,
                      double *lo, double *hi)
{
    int K = c->K, D = ix->dims;
    double s_lo = 0.0, s_hi = 0.0, m = c->mean[0], scale = c->inv_sd[0] * ix->s_per;
    double last = (double) (ix->s_len - 1);
    for (size_t q = from; q < to; q++) {
        const double *x = ix->pts + q * D;
        double p = ix->cnt[q];
        for (int v = 0; v < K; v++)
            if (c->act[v]) p *= known_factor(fabs(x[v] - c->t[v]), c->far[v], c->inv_far[v]);
        if (!(p > 0)) continue;
        double u = fabs(x[K] - m) * scale;
        if (!(u < last)) continue; /* the computed factor is 0 there */
        size_t k = (size_t) u;
        double t = u - (double) k, t2 = t * t, t3 = t2 * t;
        double g = (2.0 * t3 - 3.0 * t2 + 1.0) * ix->s_val[k] + (t3 - 2.0 * t2 + t) * ix->s_der[k] +
                   (3.0 * t2 - 2.0 * t3) * ix->s_val[k + 1] + (t3 - t2) * ix->s_der[k + 1];
        double e = ix->s_err[k], gl = g - e, gh = g + e;
        s_lo += p * (gl > 0 ? gl : 0.0);
        s_hi += p * (gh < 1.0 ? gh : 1.0);
    }
    *lo = s_lo * (1.0 - 1e-12);
    *hi = s_hi * (1.0 + 1e-12);
}

/* Bounds of a leaf's sum: by the table when there is one, else exact. */
static void leaf_bounds(const mt_index *ix, const mt_target *c, int node, double *lo, double *hi)
{
    if (ix->s_val && c->uact[0]) {
        table_sum(ix, c, (size_t) ix->lo[node], (size_t) ix->hi[node], lo, hi);
        return;
    }
    *lo = *hi = leaf_sum(ix, c, node);
}

/* max-heap on the gap */
static void heap_push(mt_scratch *s, int *size, int node, double lo, double hi)
{
    int k = (*size)++;
    double gap = hi - lo;
    while (k > 0) {
        int parent = (k - 1) / 2;
        if (s->heap_gap[parent] >= gap) break;
        s->heap_gap[k] = s->heap_gap[parent];
        s->heap_lo[k] = s->heap_lo[parent];
        s->heap_hi[k] = s->heap_hi[parent];
        s->heap_node[k] = s->heap_node[parent];
        k = parent;
    }
    s->heap_gap[k] = gap;
    s->heap_lo[k] = lo;
    s->heap_hi[k] = hi;
    s->heap_node[k] = node;
}

static void heap_pop(mt_scratch *s, int *size)
{
    int n = --(*size);
    double gap = s->heap_gap[n], lo = s->heap_lo[n], hi = s->heap_hi[n];
    int node = s->heap_node[n], k = 0;
    for (;;) {
        int child = 2 * k + 1;
        if (child >= n) break;
        if (child + 1 < n && s->heap_gap[child + 1] > s->heap_gap[child]) child++;
        if (s->heap_gap[child] <= gap) break;
        s->heap_gap[k] = s->heap_gap[child];
        s->heap_lo[k] = s->heap_lo[child];
        s->heap_hi[k] = s->heap_hi[child];
        s->heap_node[k] = s->heap_node[child];
        k = child;
    }
    s->heap_gap[k] = gap;
    s->heap_lo[k] = lo;
    s->heap_hi[k] = hi;
    s->heap_node[k] = node;
}

/* S within relative prob_tol: the midpoint of certified bounds. Returns a
 * negative value when the refinement would cost more than summing every
 * record (a node costs about MT_NODE_COST records): the caller then sums. */
double mt_normaliser(const mt_index *ix, const mt_target *c, mt_scratch *s,
                         double prob_tol, double *work)
{
    /* With the table, a record of a leaf costs about a fifth of one scored,
     * and the sum of all records by the table is certified to about 1e-10:
     * give up the refinement sooner for it. Measured on kernel-masked data,
     * the refinement converges within a few dozen nodes for tolerances of 5
     * per cent and above, and not within n / 4 record costs at 1e-2. */
    int table = ix->s_val && c->uact[0];
    double budget = table ? 0.01 * (double) ix->n_unique + (prob_tol >= 0.05 ? 2000.0 : 0.0)
                          : 0.25 * (double) ix->n_unique;
    double spent = 0.0;
    int size = 0;
    double exact_lo = 0.0, exact_hi = 0.0;
    if (ix->left[0] < 0) {
        *work += (double) ix->n_unique;
        return leaf_sum(ix, c, 0);
    }
    double lo, hi;
    node_sum(ix, c, 0, &lo, &hi);
    heap_push(s, &size, 0, lo, hi);
    double s_lo = lo, s_hi = hi;
    long pops = 0;
    for (;;) {
        if (size == 0 || s_hi - s_lo <= 2.0 * prob_tol * s_lo || (++pops & 255) == 0) {
            /* recompute the totals (no drift from the running updates) */
            s_lo = exact_lo;
            s_hi = exact_hi;
            for (int k = 0; k < size; k++) {
                s_lo += s->heap_lo[k];
                s_hi += s->heap_hi[k];
            }
            if (size == 0 || s_hi - s_lo <= 2.0 * prob_tol * s_lo) break;
        }
        int node = s->heap_node[0];
        s_lo -= s->heap_lo[0];
        s_hi -= s->heap_hi[0];
        heap_pop(s, &size);
        *work += 2.0 * MT_NODE_COST;
        spent += 2.0 * MT_NODE_COST;
        if (spent > budget) {
            if (!table) return -1.0;
            double lo_all, hi_all;
            table_sum(ix, c, 0, ix->n_unique, &lo_all, &hi_all);
            *work += 0.2 * (double) ix->n_unique;
            if (hi_all - lo_all > 2.0 * prob_tol * lo_all) return -1.0;
            return 0.5 * (lo_all + hi_all);
        }
        int kids[2] = { ix->left[node], ix->right[node] };
        for (int k = 0; k < 2; k++) {
            int ch = kids[k];
            if (ix->left[ch] < 0) {
                double v_lo, v_hi, cost = (table ? 0.2 : 1.0) * (ix->hi[ch] - ix->lo[ch]);
                leaf_bounds(ix, c, ch, &v_lo, &v_hi);
                *work += cost;
                spent += cost;
                exact_lo += v_lo;
                exact_hi += v_hi;
                s_lo += v_lo;
                s_hi += v_hi;
            } else {
                node_sum(ix, c, ch, &lo, &hi);
                heap_push(s, &size, ch, lo, hi);
                s_lo += lo;
                s_hi += hi;
            }
        }
    }
    return 0.5 * (s_lo + s_hi);
}

/* The sum over every record (prob_tol = 0, or when bounding would cost
 * more): over the distinct records with their counts, in the index's order,
 * so it differs from the loop's sum in record order by rounding only. */
double mt_normaliser_exact(const mt_index *ix, const mt_target *c, double *work)
{
    double sum = 0.0;
    for (size_t q = 0; q < ix->n_unique; q++)
        sum += ix->cnt[q] * point_score(c, ix->pts + q * ix->dims);
    *work += (double) ix->n_unique;
    return sum;
}
