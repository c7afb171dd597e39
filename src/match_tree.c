/* Exact sub-quadratic search for the record-matching risk: the index (build,
 * collapse of identical records, moments) and the per-target search. See
 * match_tree.h for the method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "match_tree.h"
#include "par_rows.h"

#define MT_LEAF 8
/* Work of a node's bounds in units of one record scored (for the budget of a
 * parallel region and of the normaliser's refinement). */
#define MT_NODE_COST 12.0
/* Moments in the unknown: orders 0..6 (Taylor degree 5, remainder from the
 * 6th moment) with up to 3 known variables; 0..2 (degree 1) beyond, where
 * 2^k moments per order make the index large. */
#define MT_ORDERS_SMALL_K 7
#define MT_ORDERS_LARGE_K 3
#define MT_INV_SQRT_2 0.707106781186547524400844362105
#define MT_INV_SQRT_2PI 0.398942280401432677939946059934

/* ------------------------------------------------------------------------ */
/* Building                                                                 */

typedef struct {
    const rm_released *rel;
} row_order;

static double rel_value(const rm_released *rel, size_t j, int dim)
{
    return dim < rel->n_known ? rel->masked_known[j + (size_t) dim * rel->n]
                              : rel->masked_unknown[j + (size_t) (dim - rel->n_known) * rel->n];
}

static int compare_rows(const rm_released *rel, int dims, size_t a, size_t b)
{
    for (int k = 0; k < dims; k++) {
        double x = rel_value(rel, a, k), y = rel_value(rel, b, k);
        if (x < y) return -1;
        if (x > y) return 1;
    }
    return 0;
}

/* Stable merge sort of record indices by their rows (no context-free qsort). */
static void sort_rows(const rm_released *rel, int dims, size_t *idx, size_t *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = compare_rows(rel, dims, idx[b], idx[a]) < 0 ? idx[b++] : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof(size_t));
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Quickselect: reorder perm[lo..hi-1] so that perm[mid] has the mid-th value
 * of coordinate `dim`, smaller ones before, larger ones after. */
static void select_median(const mt_index *ix, int *perm, int lo, int hi, int mid, int dim)
{
    const double *p = ix->pts;
    int D = ix->dims;
    while (hi - lo > 1) {
        double pivot = p[(size_t) perm[lo + (hi - lo) / 2] * D + dim];
        int i = lo, j = hi - 1;
        while (i <= j) {
            while (p[(size_t) perm[i] * D + dim] < pivot) i++;
            while (p[(size_t) perm[j] * D + dim] > pivot) j--;
            if (i <= j) {
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
                i++;
                j--;
            }
        }
        if (mid <= j) hi = j + 1;
        else if (mid >= i) lo = i;
        else return;
    }
}

typedef struct {
    mt_index *ix;
    int *perm;
    const double *scale; /* per dimension: the spread that matters to the score */
} build_ctx;

static int build_node(build_ctx *bc, int lo, int hi, int depth)
{
    mt_index *ix = bc->ix;
    int D = ix->dims, node = (int) ix->n_nodes++;
    if (depth > ix->depth) ix->depth = depth;
    ix->lo[node] = lo;
    ix->hi[node] = hi;
    double *mn = ix->box + (size_t) node * 2 * D, *mx = mn + D;
    for (int k = 0; k < D; k++) {
        mn[k] = INFINITY;
        mx[k] = -INFINITY;
    }
    double count = 0.0;
    for (int q = lo; q < hi; q++) {
        const double *x = ix->pts + (size_t) bc->perm[q] * D;
        for (int k = 0; k < D; k++) {
            if (x[k] < mn[k]) mn[k] = x[k];
            if (x[k] > mx[k]) mx[k] = x[k];
        }
        count += ix->cnt[bc->perm[q]];
    }
    ix->count[node] = count;
    double *c = ix->centre + (size_t) node * D;
    for (int k = 0; k < D; k++) c[k] = 0.5 * (mn[k] + mx[k]);

    /* moments of the centred coordinates: sum cnt (y - c_y)^a prod_{v in S} (z_v - c_v) */
    int K = ix->n_known, subsets = 1 << K;
    double *mom = ix->mom + (size_t) node * ix->n_mom, prod[1 << MT_MAX_KNOWN];
    memset(mom, 0, (size_t) ix->n_mom * sizeof(double));
    for (int q = lo; q < hi; q++) {
        const double *x = ix->pts + (size_t) bc->perm[q] * D;
        prod[0] = ix->cnt[bc->perm[q]];
        for (int v = 0; v < K; v++) {
            int bit = 1 << v;
            double dz = x[v] - c[v];
            for (int s = 0; s < bit; s++) prod[s | bit] = prod[s] * dz;
        }
        double dy = ix->n_a > 1 ? x[K] - c[K] : 0.0, w = 1.0;
        for (int a = 0; a < ix->n_a; a++) {
            for (int s = 0; s < subsets; s++) mom[a * subsets + s] += prod[s] * w;
            w *= dy;
        }
    }

    ix->left[node] = ix->right[node] = -1;
    if (hi - lo <= MT_LEAF) return node;
    int split = -1;
    double widest = 0.0;
    for (int k = 0; k < D; k++) {
        double w = bc->scale[k] > 0 ? (mx[k] - mn[k]) / bc->scale[k] : 0.0;
        if (w > widest) {
            widest = w;
            split = k;
        }
    }
    if (split < 0) { /* every coordinate that matters is constant here */
        for (int k = 0; k < D; k++)
            if (mx[k] > mn[k]) split = k;
        if (split < 0) return node;
    }
    int mid = lo + (hi - lo) / 2;
    select_median(ix, bc->perm, lo, hi, mid, split);
    int l = build_node(bc, lo, mid, depth + 1);
    int r = build_node(bc, mid, hi, depth + 1);
    ix->left[node] = l;
    ix->right[node] = r;
    return node;
}

void mt_free(mt_index *ix)
{
    free(ix->pts); free(ix->cnt); free(ix->sorted);
    free(ix->lo); free(ix->hi); free(ix->left); free(ix->right);
    free(ix->count); free(ix->box); free(ix->centre); free(ix->mom);
    memset(ix, 0, sizeof(*ix));
}

int mt_build(mt_index *ix, const rm_released *rel)
{
    memset(ix, 0, sizeof(*ix));
    size_t n = rel->n;
    int K = rel->n_known, U = rel->n_unknown, D = K + U;
    ix->n = n;
    ix->n_known = K;
    ix->n_unknown = U;
    ix->dims = D;
    ix->n_a = U == 1 ? (K <= 3 ? MT_ORDERS_SMALL_K : MT_ORDERS_LARGE_K) : 1;
    ix->n_mom = ix->n_a << K;

    size_t *idx = malloc(n * sizeof(size_t)), *tmp = malloc(n * sizeof(size_t));
    ix->sorted = malloc((n * (size_t) K + 1) * sizeof(double));
    if (!idx || !tmp || !ix->sorted) goto fail;
    for (size_t j = 0; j < n; j++) idx[j] = j;
    sort_rows(rel, D, idx, tmp, n);
    size_t m = 0;
    for (size_t q = 0; q < n; q++)
        if (q == 0 || compare_rows(rel, D, idx[q - 1], idx[q]) != 0) m++;
    ix->n_unique = m;
    ix->pts = malloc(m * (size_t) D * sizeof(double));
    ix->cnt = malloc(m * sizeof(double));
    if (!ix->pts || !ix->cnt) goto fail;
    size_t u = 0;
    for (size_t q = 0; q < n; q++) {
        if (q > 0 && compare_rows(rel, D, idx[q - 1], idx[q]) == 0) {
            ix->cnt[u - 1] += 1.0;
            continue;
        }
        for (int k = 0; k < D; k++) ix->pts[u * D + k] = rel_value(rel, idx[q], k);
        ix->cnt[u++] = 1.0;
    }
    free(idx);
    free(tmp);
    idx = tmp = NULL;

    for (int v = 0; v < K; v++) {
        double *col = ix->sorted + (size_t) v * n;
        memcpy(col, rel->masked_known + (size_t) v * n, n * sizeof(double));
        qsort(col, n, sizeof(double), compare_double);
    }

    /* leaves hold at least MT_LEAF / 2 points, so nodes < m / 2 + 2 */
    size_t cap = m / 2 + 2;
    ix->lo = malloc(cap * sizeof(int));
    ix->hi = malloc(cap * sizeof(int));
    ix->left = malloc(cap * sizeof(int));
    ix->right = malloc(cap * sizeof(int));
    ix->count = malloc(cap * sizeof(double));
    ix->box = malloc(cap * 2 * (size_t) D * sizeof(double));
    ix->centre = malloc(cap * (size_t) D * sizeof(double));
    ix->mom = malloc(cap * (size_t) ix->n_mom * sizeof(double));
    int *perm = malloc(m * sizeof(int));
    double *scale = malloc((size_t) (D > 0 ? D : 1) * sizeof(double));
    if (!ix->lo || !ix->hi || !ix->left || !ix->right || !ix->count || !ix->box ||
        !ix->centre || !ix->mom || !perm || !scale) {
        free(perm);
        free(scale);
        goto fail;
    }
    /* split where the score changes most: a known factor moves by
     * (spread / Delta) with Delta about the range; an unknown one on the
     * scale of the larger of its SD and its range */
    for (int k = 0; k < D; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t q = 0; q < m; q++) {
            double x = ix->pts[q * D + k];
            if (x < lo) lo = x;
            if (x > hi) hi = x;
        }
        double range = hi - lo;
        if (k < K) scale[k] = range;
        else {
            /* the normaliser's expansion needs nodes narrow in y on the scale
             * of sigma: split y early */
            double sd = rel->unknown_sd[k - K];
            scale[k] = range > 0 ? (sd > 0 && sd < range ? sd : range) : 0.0;
        }
    }
    for (size_t q = 0; q < m; q++) perm[q] = (int) q;
    build_ctx bc = { ix, perm, scale };
    build_node(&bc, 0, (int) m, 0);
    /* store the points in tree order so that a node's points are contiguous */
    double *pts = malloc(m * (size_t) D * sizeof(double)), *cnt = malloc(m * sizeof(double));
    if (!pts || !cnt) {
        free(pts);
        free(cnt);
        free(perm);
        free(scale);
        goto fail;
    }
    for (size_t q = 0; q < m; q++) {
        memcpy(pts + q * D, ix->pts + (size_t) perm[q] * D, (size_t) D * sizeof(double));
        cnt[q] = ix->cnt[perm[q]];
    }
    free(ix->pts);
    free(ix->cnt);
    ix->pts = pts;
    ix->cnt = cnt;
    free(perm);
    free(scale);
    return 0;

fail:
    free(idx);
    free(tmp);
    mt_free(ix);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Per target                                                               */

typedef struct {
    int K, U;
    double t[MT_MAX_KNOWN], far[MT_MAX_KNOWN], inv_far[MT_MAX_KNOWN];
    int act[MT_MAX_KNOWN];
    double mean[MT_MAX_UNKNOWN], sd[MT_MAX_UNKNOWN], inv_sd[MT_MAX_UNKNOWN];
    double d[MT_MAX_UNKNOWN], shrink[MT_MAX_UNKNOWN], range[MT_MAX_UNKNOWN];
    int uact[MT_MAX_UNKNOWN];
} mt_target;

/* The nearest and farthest computed distance from t to the sorted column,
 * as the exhaustive loop finds them. */
static void column_distances(const double *col, size_t n, double t, double *near, double *far)
{
    double a = fabs(col[0] - t), b = fabs(col[n - 1] - t);
    *far = a > b ? a : b;
    size_t lo = 0, hi = n; /* first index with col >= t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (col[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    double best = INFINITY;
    if (lo < n) best = fabs(col[lo] - t);
    if (lo > 0 && fabs(col[lo - 1] - t) < best) best = fabs(col[lo - 1] - t);
    *near = best;
}

static void setup_target(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                         size_t i, mt_target *c)
{
    c->K = rel->n_known;
    c->U = rel->n_unknown;
    for (int v = 0; v < c->K; v++) {
        double t = tg->known[i + (size_t) v * tg->n_targets], near, far;
        column_distances(ix->sorted + (size_t) v * ix->n, ix->n, t, &near, &far);
        c->t[v] = t;
        c->far[v] = far;
        c->act[v] = far > near; /* else the factor is the same for all: 1 */
        c->inv_far[v] = c->act[v] ? 1.0 / far : 0.0;
    }
    for (int u = 0; u < c->U; u++) {
        double sd = rel->unknown_sd[u], range = rel->unknown_range[u];
        c->mean[u] = tg->pred_mean[i + (size_t) u * tg->n_targets];
        c->sd[u] = sd;
        c->range[u] = range;
        c->uact[u] = range > 0;
        if (sd > 0) {
            c->inv_sd[u] = 1.0 / sd;
            c->d[u] = range / sd;
            c->shrink[u] = exp(-0.5 * c->d[u] * c->d[u]);
        } else {
            c->inv_sd[u] = c->d[u] = c->shrink[u] = 0.0;
        }
    }
}

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

static double point_score(const mt_target *c, const double *x)
{
    double s = 1.0;
    for (int v = 0; v < c->K; v++)
        if (c->act[v]) s *= known_factor(fabs(x[v] - c->t[v]), c->far[v], c->inv_far[v]);
    for (int u = 0; u < c->U; u++)
        if (c->uact[u] && s > 0) s *= unknown_factor(c, u, x[c->K + u]);
    return s;
}

/* Bounds of the unknown factor u over [lo, hi], with a margin for the
 * rounding of the closed form (absolute, of order eps (|x| + d) / d; taken
 * about 5000 times larger). */
static void unknown_bounds(const mt_target *c, int u, double lo, double hi,
                           double *g_lo, double *g_hi, double *err)
{
    double m = c->mean[u];
    double near = m < lo ? fabs(lo - m) : (m > hi ? fabs(hi - m) : 0.0);
    double a = fabs(lo - m), b = fabs(hi - m), far = a > b ? a : b;
    if (c->sd[u] > 0) {
        double d = c->d[u], xn = near * c->inv_sd[u], xf = far * c->inv_sd[u];
        double e = 1e-12 * (2.0 + xf + d) / d;
        double up = rm_triangle_std(xn, d, c->shrink[u]) + e;
        double down = rm_triangle_std(xf, d, c->shrink[u]) - e;
        *g_hi = up < 1.0 ? up : 1.0;
        *g_lo = down > 0 ? down : 0.0;
        *err = e;
    } else { /* the triangle itself: monotone as computed, no margin needed */
        double up = 1.0 - near / c->range[u], down = 1.0 - far / c->range[u];
        *g_hi = up > 0 ? up : 0.0;
        *g_lo = down > 0 ? down : 0.0;
        *err = 0.0;
    }
}

/* The upper bound of unknown factor u over [lo, hi] alone (one evaluation). */
static double unknown_upper(const mt_target *c, int u, double lo, double hi)
{
    double m = c->mean[u];
    double near = m < lo ? fabs(lo - m) : (m > hi ? fabs(hi - m) : 0.0);
    if (c->sd[u] > 0) {
        double a = fabs(lo - m), b = fabs(hi - m), far = a > b ? a : b;
        double d = c->d[u], xf = far * c->inv_sd[u];
        double up = rm_triangle_std(near * c->inv_sd[u], d, c->shrink[u]) +
                    1e-12 * (2.0 + xf + d) / d;
        return up < 1.0 ? up : 1.0;
    }
    double up = 1.0 - near / c->range[u];
    return up > 0 ? up : 0.0;
}

/* Upper bound of the computed score of every record of the node. Once the
 * known factors alone are below `enough` the node will be pruned whatever
 * the unknown factors (at most 1), so they are not evaluated. */
static double node_upper(const mt_index *ix, const mt_target *c, int node, double enough)
{
    const double *mn = ix->box + (size_t) node * 2 * ix->dims, *mx = mn + ix->dims;
    double s = 1.0;
    for (int v = 0; v < c->K; v++) {
        if (!c->act[v]) continue;
        double t = c->t[v];
        double dist = t < mn[v] ? fabs(mn[v] - t) : (t > mx[v] ? fabs(mx[v] - t) : 0.0);
        s *= known_factor(dist, c->far[v], c->inv_far[v]);
    }
    for (int u = 0; u < c->U; u++) {
        if (!c->uact[u] || !(s > 0) || s * (1.0 + 1e-14) < enough) continue;
        s *= unknown_upper(c, u, mn[c->K + u], mx[c->K + u]);
    }
    return s * (1.0 + 1e-14);
}

typedef struct {
    int *stack;
    double *stack_ub;
    int *heap_node;
    double *heap_gap, *heap_lo, *heap_hi;
} mt_scratch;

size_t mt_scratch_bytes(const mt_index *ix)
{
    size_t depth = (size_t) ix->depth + 2, nodes = ix->n_nodes + 1;
    return 2 * depth * (sizeof(int) + sizeof(double)) +
           nodes * (sizeof(int) + 3 * sizeof(double)) + 64;
}

static mt_scratch carve(const mt_index *ix, void *mem)
{
    size_t depth = 2 * ((size_t) ix->depth + 2), nodes = ix->n_nodes + 1;
    mt_scratch s;
    double *dbl = (double *) mem;
    s.stack_ub = dbl;
    s.heap_gap = dbl + depth;
    s.heap_lo = s.heap_gap + nodes;
    s.heap_hi = s.heap_lo + nodes;
    int *in = (int *) (s.heap_hi + nodes);
    s.stack = in;
    s.heap_node = in + depth;
    return s;
}

/* Largest score (pass 1, from the true record's score) or the number of
 * records scoring at least `cut` (pass 2). Depth first, the child with the
 * larger bound first. */
static double search(const mt_index *ix, const mt_target *c, mt_scratch *s,
                     int counting, double cut, double best, double *found, double *work)
{
    int top = 0;
    double total = 0.0;
    s->stack[top] = 0;
    s->stack_ub[top++] = node_upper(ix, c, 0, 0.0);
    while (top > 0) {
        top--;
        int node = s->stack[top];
        double ub = s->stack_ub[top];
        *work += MT_NODE_COST; /* in records scored: a node costs two bounds */
        if (counting ? ub < cut : ub <= best) continue;
        if (ix->left[node] < 0) {
            for (int q = ix->lo[node]; q < ix->hi[node]; q++) {
                double sc = point_score(c, ix->pts + (size_t) q * ix->dims);
                if (counting) {
                    if (sc >= cut) total += ix->cnt[q];
                } else if (sc > best) {
                    best = sc;
                }
            }
            *work += (double) (ix->hi[node] - ix->lo[node]);
            continue;
        }
        int l = ix->left[node], r = ix->right[node];
        /* pass 2 prunes below cut; pass 1 at or below the best so far */
        double enough = counting ? cut : best;
        double ul = node_upper(ix, c, l, enough), ur = node_upper(ix, c, r, enough);
        if (ul > ur) { /* push the smaller first: the larger is searched first */
            int tn = l; l = r; r = tn;
            double tu = ul; ul = ur; ur = tu;
        }
        s->stack[top] = l;
        s->stack_ub[top++] = ul;
        s->stack[top] = r;
        s->stack_ub[top++] = ur;
    }
    *found = total;
    return best;
}

/* ---- the normaliser ---------------------------------------------------- */

static double std_cdf(double x) { return 0.5 * erfc(-x * MT_INV_SQRT_2); }
static double std_pdf_at_distance(double r) { return MT_INV_SQRT_2PI * exp(-0.5 * r * r); }

/* Distance of [a, b] from 0. */
static double gap_from_zero(double a, double b) { return a > 0 ? a : (b < 0 ? -b : 0.0); }

/* The triangle expectation g(x) = E[(1 - |x - Z| / d)_+] in standard units
 * and its derivatives 1..p at x: with H(a) = a Phi(a) + phi(a),
 * g = [H(x + d) - 2 H(x) + H(x - d)] / d, H' = Phi, H^(n) = phi^(n - 2) and
 * phi^(n)(u) = (-1)^n He_n(u) phi(u) (Hermite polynomials). */
static void triangle_derivatives(double x, double d, double shrink, int p, double *out)
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
    return 1.086436 * sqrt(f) * MT_INV_SQRT_2PI * exp(-0.25 * r * r);
}

/* A bound of |g^(m)(x)| over x in [a, b] (m >= 2): the smaller of the second
 * difference of phi^(m-2) term by term, and d times the largest |phi^(m)|
 * within d of the interval (the second difference as an integral). */
static double derivative_bound(double a, double b, double d, int m)
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
static double expanded_sum(const mt_index *ix, const mt_target *c, int node,
                           const double *coef, double g_bound, double g_err, int dir)
{
    int K = c->K, D = ix->dims, subsets = 1 << K;
    const double *mn = ix->box + (size_t) node * 2 * D, *mx = mn + D;
    const double *ctr = ix->centre + (size_t) node * D;
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
    if (ix->n_a > 1 && c->uact[0] && c->sd[0] > 0) {
        /* Taylor expansion of degree p = n_a - 2 in y about the centre; the
         * remainder from the (p+1)-th derivative and the (p+1)-th moment (p+1
         * even, so the moment is a sum of non-negative terms) */
        int p = ix->n_a - 2;
        double inv_sd = c->inv_sd[0], d = c->d[0];
        double xc = (ctr[K] - c->mean[0]) * inv_sd;
        double xa = (mn[K] - c->mean[0]) * inv_sd, xb = (mx[K] - c->mean[0]) * inv_sd;
        double deriv[MT_ORDERS_SMALL_K];
        triangle_derivatives(xc, d, c->shrink[0], p, deriv);
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
        double pad = 1e-9;
        double bound = derivative_bound(xa - pad * (1 + fabs(xa)), xb + pad * (1 + fabs(xb)),
                                        d, p + 1);
        err += bound * scale / fact * (pm[p + 1] + 1e-12 * pabs[p + 1]);
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
        unknown_bounds(c, u, mn[K + u], mx[K + u], &gl, &gh, &e);
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
    double bound_lo = expanded_sum(ix, c, node, coef_lo, g_lo, g_err, -1);
    double bound_hi = expanded_sum(ix, c, node, coef_hi, g_hi, g_err, 1);
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
static double normaliser(const mt_index *ix, const mt_target *c, mt_scratch *s,
                         double prob_tol, double *work)
{
    double budget = 0.25 * (double) ix->n_unique, spent = 0.0;
    int size = 0;
    double exact = 0.0;
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
            s_lo = s_hi = exact;
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
        if (spent > budget) return -1.0;
        int kids[2] = { ix->left[node], ix->right[node] };
        for (int k = 0; k < 2; k++) {
            int ch = kids[k];
            if (ix->left[ch] < 0) {
                double v = leaf_sum(ix, c, ch);
                *work += (double) (ix->hi[ch] - ix->lo[ch]);
                spent += (double) (ix->hi[ch] - ix->lo[ch]);
                exact += v;
                s_lo += v;
                s_hi += v;
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
static double normaliser_exact(const mt_index *ix, const mt_target *c, double *work)
{
    double sum = 0.0;
    for (size_t q = 0; q < ix->n_unique; q++)
        sum += ix->cnt[q] * point_score(c, ix->pts + q * ix->dims);
    *work += (double) ix->n_unique;
    return sum;
}

double mt_match_target(const mt_index *ix, const rm_released *rel,
                       const rm_targets *tg, size_t i, double prob_tol,
                       void *scratch, rm_result *res)
{
    mt_target c;
    mt_scratch s = carve(ix, scratch);
    double work = 0.0, found = 0.0, x[MT_MAX_KNOWN + MT_MAX_UNKNOWN];
    setup_target(ix, rel, tg, i, &c);
    size_t truth = (size_t) tg->record[i];
    for (int k = 0; k < ix->dims; k++) x[k] = rel_value(rel, truth, k);
    double s_true = point_score(&c, x);
    double best = search(ix, &c, &s, 0, 0.0, s_true, &found, &work);
    if (!(best > 0)) {
        /* no candidate has positive probability: all tie (as the loop does) */
        res->prob_true[i] = res->prob_max[i] = 1.0 / (double) rel->n;
        res->n_tied[i] = (int) rel->n;
        res->correct[i] = 1;
        return work;
    }
    double cut = best * (1.0 - RM_TIE_TOL);
    search(ix, &c, &s, 1, cut, best, &found, &work);
    double sum = prob_tol > 0 ? normaliser(ix, &c, &s, prob_tol, &work) : -1.0;
    if (sum < 0) sum = normaliser_exact(ix, &c, &work);
    res->prob_true[i] = s_true / sum;
    res->prob_max[i] = best / sum;
    res->n_tied[i] = (int) found;
    res->correct[i] = s_true >= cut;
    return work;
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                     */

size_t rm_job_scratch_bytes(const rm_released *rel, const mt_index *ix)
{
    size_t b = ix ? mt_scratch_bytes(ix) : rel->n * sizeof(double);
    return (b + 63) / 64 * 64; /* separate cache lines per thread */
}

static double run_target(void *ctx, size_t i, int thread)
{
    rm_job *job = (rm_job *) ctx;
    void *mine = job->scratch + (size_t) thread * job->scratch_bytes;
    if (!job->ix) {
        rm_match_target(job->rel, job->tg, i, (double *) mine, job->res);
        return (double) job->rel->n;
    }
    return mt_match_target(job->ix, job->rel, job->tg, i, job->prob_tol, mine, job->res);
}

size_t rm_run(rm_job *job, size_t from, size_t to, int threads)
{
    rm_init(); /* serial: fills the normal-tail table before any thread reads it */
    return par_rows(from, to, 4, RM_REGION_WORK, threads, run_target, job);
}
