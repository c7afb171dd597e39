/* Exact sub-quadratic search for the record-matching risk: the index (build,
 * collapse of identical records, moments) and the per-target search. See
 * match_tree.h for the method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "match_internal.h"
#include "par_rows.h"

/* Records per leaf (at most): 16 measured fastest on kernel-masked data
 * against 8 and 32, and halves the index's memory against 8. */
#define MT_LEAF 16

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
    for (int u = 0; u < MT_MAX_UNKNOWN; u++) free(ix->g_upper[u]);
    free(ix->s_val); free(ix->s_der); free(ix->s_err);
    memset(ix, 0, sizeof(*ix));
}

/* Steps of the table of the unknown factor's bound: fine enough that the
 * bound exceeds the factor by at most about 1e-5 / d (the factor's slope is
 * at most 1 / d in standard units), at most MT_G_STEPS_MAX entries. */
#define MT_G_STEPS_PER_SD 256.0
#define MT_G_STEPS_MAX 65536.0

static int build_unknown_table(mt_index *ix, const rm_released *rel, int u)
{
    mt_grid grid;
    if (!mt_table_grid(rel->unknown_sd[u], rel->unknown_range[u], MT_G_STEPS_PER_SD,
                       MT_G_STEPS_MAX, &grid)) return 0;
    double d = grid.d, shrink = grid.shrink, end = grid.end, per = grid.per;
    size_t len = (size_t) ceil(end * per) + 1;
    double *g = malloc(len * sizeof(double));
    if (!g) return -1;
    /* the rounding margin of unknown_upper() at the table's far end */
    double margin = 1e-12 * (2.0 + end + d) / d;
    for (size_t k = 0; k < len; k++) {
        double v = rm_triangle_std((double) k / per, d, shrink) + margin;
        g[k] = v < 1.0 ? v : 1.0;
    }
    ix->g_upper[u] = g;
    ix->g_inv_step[u] = per;
    ix->g_len[u] = len;
    return 0;
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

    /* a split node has more than MT_LEAF points and halves them, so leaves
     * hold at least MT_LEAF / 2 points: at most 2 m / MT_LEAF leaves (or one),
     * and fewer than twice as many nodes */
    size_t cap = 4 * m / MT_LEAF + 2;
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
    rm_init();
    for (int u = 0; u < U && u < MT_MAX_UNKNOWN; u++)
        if (build_unknown_table(ix, rel, u) != 0) goto fail;
    if (mt_build_sum_table(ix, rel) != 0) goto fail;
    return 0;

fail:
    free(idx);
    free(tmp);
    mt_free(ix);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Per target                                                               */


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

void mt_setup_target(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                         size_t i, mt_target *c)
{
    c->K = rel->n_known;
    c->U = rel->n_unknown;
    for (int v = 0; v < c->K; v++) {
        double t = tg->known[i + (size_t) v * tg->n_targets], near, far;
        const double *col = ix->sorted + (size_t) v * ix->n;
        double a = fabs(col[0] - t), b = fabs(col[ix->n - 1] - t);
        far = a > b ? a : b;
        /* near <= |median - t|: when that is below far, far > near without
         * the binary search (a cache miss per step at registry scale) */
        near = fabs(col[ix->n / 2] - t);
        if (!(near < far)) column_distances(col, ix->n, t, &near, &far);
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

/* Bounds of the unknown factor u over [lo, hi], with a margin for the
 * rounding of the closed form (absolute, of order eps (|x| + d) / d; taken
 * about 5000 times larger). */
void mt_unknown_bounds(const mt_target *c, int u, double lo, double hi,
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

/* The upper bound of unknown factor u over [lo, hi] alone: from the table
 * when there is one, else one evaluation. */
static double unknown_upper(const mt_index *ix, const mt_target *c, int u, double lo, double hi)
{
    double m = c->mean[u];
    double near = m < lo ? fabs(lo - m) : (m > hi ? fabs(hi - m) : 0.0);
    if (ix->g_upper[u]) {
        double k = near * c->inv_sd[u] * ix->g_inv_step[u];
        return k < (double) ix->g_len[u] ? ix->g_upper[u][(size_t) k] : 0.0;
    }
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
        s *= unknown_upper(ix, c, u, mn[c->K + u], mx[c->K + u]);
    }
    return s * (1.0 + 1e-14);
}


size_t mt_scratch_bytes(const mt_index *ix)
{
    size_t depth = (size_t) ix->depth + 2, nodes = ix->n_nodes + 1;
    return 2 * depth * (sizeof(int) + sizeof(double)) +
           nodes * (sizeof(int) + 3 * sizeof(double)) +
           2 * (ix->n_unique + 1) * sizeof(double) + 64;
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
    s.kept_score = s.heap_hi + nodes;
    s.kept_count = s.kept_score + ix->n_unique + 1;
    int *in = (int *) (s.kept_count + ix->n_unique + 1);
    s.stack = in;
    s.heap_node = in + depth;
    return s;
}

#ifdef MT_PROFILE
double mt_prof[8];
#define PROF(k, v) (mt_prof[k] += (v))
#else
#define PROF(k, v) ((void) 0)
#endif

/* The score of a point when it can reach `cut`, else -1: the unknown
 * factors (at most 1, and the costly part) are computed only when the known
 * product reaches `cut`, and then with the exhaustive loop's arithmetic. */
static inline double score_from(const mt_index *ix, const mt_target *c, const double *x,
                                double cut)
{
    double s = 1.0;
    for (int v = 0; v < c->K; v++)
        if (c->act[v]) s *= known_factor(fabs(x[v] - c->t[v]), c->far[v], c->inv_far[v]);
    if (s < cut || !(s > 0)) return -1.0;
    double bound = s;
    for (int u = 0; u < c->U; u++)
        if (c->uact[u] && ix->g_upper[u])
            bound *= unknown_upper(ix, c, u, x[c->K + u], x[c->K + u]);
    if (bound * (1.0 + 1e-14) < cut) return -1.0;
    PROF(2, 1);
    for (int u = 0; u < c->U; u++)
        if (c->uact[u] && s > 0) s *= unknown_factor(c, u, x[c->K + u]);
    return s;
}

/* The largest score and the number of records within the tie window of it,
 * in one pass. The window's floor `cut` = best (1 - tol) rises with the best
 * found so far (the true record's score to start with), and a node is pruned
 * when its bound is below the current floor: every record of the final
 * window scores at least the final floor, hence every floor, so none is
 * pruned. Records that reach the current floor are kept with their scores
 * and filtered by the final floor at the end. Depth first, the child with
 * the larger bound first. */
static double search(const mt_index *ix, const mt_target *c, mt_scratch *s,
                     double best, double *found, double *work)
{
    int top = 0;
    size_t kept = 0;
    double cut = best * (1.0 - RM_TIE_TOL);
    s->stack[top] = 0;
    s->stack_ub[top++] = node_upper(ix, c, 0, cut);
    while (top > 0) {
        top--;
        int node = s->stack[top];
        double ub = s->stack_ub[top];
        *work += MT_NODE_COST; /* in records scored: a node costs two bounds */
        PROF(0, 1);
        if (ub < cut || !(ub > 0)) continue;
        if (ix->left[node] < 0) {
            for (int q = ix->lo[node]; q < ix->hi[node]; q++) {
                double sc = score_from(ix, c, ix->pts + (size_t) q * ix->dims, cut);
                if (sc < cut || !(sc > 0)) continue;
                if (sc > best) {
                    best = sc;
                    cut = best * (1.0 - RM_TIE_TOL);
                }
                s->kept_score[kept] = sc;
                s->kept_count[kept++] = ix->cnt[q];
            }
            *work += (double) (ix->hi[node] - ix->lo[node]);
            PROF(1, ix->hi[node] - ix->lo[node]);
            continue;
        }
        int l = ix->left[node], r = ix->right[node];
        double ul = node_upper(ix, c, l, cut), ur = node_upper(ix, c, r, cut);
        if (ul > ur) { /* push the smaller first: the larger is searched first */
            int tn = l; l = r; r = tn;
            double tu = ul; ul = ur; ur = tu;
        }
        if (ul >= cut && ul > 0) {
            s->stack[top] = l;
            s->stack_ub[top++] = ul;
        }
        if (ur >= cut && ur > 0) {
            s->stack[top] = r;
            s->stack_ub[top++] = ur;
        }
    }
    double total = 0.0;
    for (size_t k = 0; k < kept; k++)
        if (s->kept_score[k] >= cut) total += s->kept_count[k];
    *found = total;
    return best;
}

double mt_match_target(const mt_index *ix, const rm_released *rel,
                       const rm_targets *tg, size_t i, double prob_tol,
                       void *scratch, rm_result *res)
{
    mt_target c;
    mt_scratch s = carve(ix, scratch);
    double work = 0.0, found = 0.0, x[MT_MAX_KNOWN + MT_MAX_UNKNOWN];
    mt_setup_target(ix, rel, tg, i, &c);
    size_t truth = (size_t) tg->record[i];
    for (int k = 0; k < ix->dims; k++) x[k] = rel_value(rel, truth, k);
    double s_true = point_score(&c, x);
    double best = search(ix, &c, &s, s_true, &found, &work);
    if (!(best > 0)) {
        /* no candidate has positive probability: all tie (as the loop does) */
        res->prob_true[i] = res->prob_max[i] = prob_tol == MT_PROB_RAW ? -1.0 : 1.0 / (double) rel->n;
        res->n_tied[i] = (int) rel->n;
        res->correct[i] = 1;
        return work;
    }
    double cut = best * (1.0 - RM_TIE_TOL);
    res->n_tied[i] = (int) found;
    res->correct[i] = s_true >= cut;
    if (prob_tol == MT_PROB_RAW) {
        /* the normaliser comes from the sweep */
        res->prob_true[i] = s_true;
        res->prob_max[i] = best;
        return work;
    }
    if (prob_tol < 0) {
        /* the rates only: the normaliser is the quadratic part */
        res->prob_true[i] = res->prob_max[i] = NAN;
        return work;
    }
    double sum = prob_tol > 0 ? mt_normaliser(ix, &c, &s, prob_tol, &work) : -1.0;
    if (sum < 0) sum = mt_normaliser_exact(ix, &c, &work);
    res->prob_true[i] = s_true / sum;
    res->prob_max[i] = best / sum;
    return work;
}

double mt_target_normaliser(const mt_index *ix, const rm_released *rel,
                            const rm_targets *tg, size_t i, double prob_tol,
                            void *scratch, double *work)
{
    mt_target c;
    mt_scratch s = carve(ix, scratch);
    mt_setup_target(ix, rel, tg, i, &c);
    double sum = prob_tol > 0 ? mt_normaliser(ix, &c, &s, prob_tol, work) : -1.0;
    if (sum < 0) sum = mt_normaliser_exact(ix, &c, work);
    return sum;
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
