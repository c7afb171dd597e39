/* Distance-based record linkage (methods vignette section 18): exact nearest released record
 * of every original record, by an exhaustive loop (the reference) or a k-d
 * tree. Both compute every distance with the same function, in the same
 * order of coordinates, so they give identical weights:
 *  - the tree holds each distinct released point once, with its count, so
 *    that heavily tied releases (rounding, microaggregation) cost no more
 *    than distinct ones;
 *  - a box's distance to a query sums the squared gaps to the box in the
 *    same coordinate order, and each gap is at most the gap to any point in
 *    the box (floating-point subtraction and addition are monotone), so
 *    pruning on it never drops a point that the loop would count. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include "linkage.h"
#include "par_rows.h"

#define LEAF 8
#define CHUNK 16384

static inline double dist2(const double *a, const double *b, int d)
{
    double s = 0.0;
    for (int k = 0; k < d; k++) {
        double g = a[k] - b[k];
        s += g * g;
    }
    return s;
}

/* ---- exhaustive reference ------------------------------------------------ */

static void link_exhaustive_one(const double *x, const double *y, size_t n, int d,
                                size_t i, double *weight, double *ties, double *min_dist)
{
    const double *xi = x + i * (size_t) d;
    double best = INFINITY;
    for (size_t j = 0; j < n; j++) {
        double s = dist2(xi, y + j * (size_t) d, d);
        if (s < best) best = s;
    }
    double cut = sqrt(best) * (1.0 + LINK_TIE_REL);
    double t = 0.0;
    for (size_t j = 0; j < n; j++)
        if (sqrt(dist2(xi, y + j * (size_t) d, d)) <= cut) t += 1.0;
    int own = sqrt(dist2(xi, y + i * (size_t) d, d)) <= cut;
    weight[i] = own ? 1.0 / t : 0.0;
    ties[i] = t;
    min_dist[i] = sqrt(best);
}

/* ---- k-d tree ------------------------------------------------------------ */

typedef struct {
    size_t lo, hi;       /* points lo..hi-1 of the permuted arrays */
    int left, right;     /* children, -1 for a leaf */
} kdnode;

typedef struct {
    int d;
    double *pt;          /* distinct points, row-major, in tree order */
    double *cnt;         /* their multiplicities */
    double *box;         /* per node: d minima then d maxima */
    kdnode *node;
    int n_node;
} kdtree;

static int cmp_rows_d;
static const double *cmp_rows_y;

static int cmp_rows(const void *a, const void *b)
{
    const double *p = cmp_rows_y + (size_t) *(const size_t *) a * cmp_rows_d;
    const double *q = cmp_rows_y + (size_t) *(const size_t *) b * cmp_rows_d;
    for (int k = 0; k < cmp_rows_d; k++) {
        if (p[k] < q[k]) return -1;
        if (p[k] > q[k]) return 1;
    }
    return 0;
}

/* Quickselect on coordinate k: points lo..hi-1 partitioned at mid. */
static void select_k(double *pt, double *cnt, int d, size_t lo, size_t hi, size_t mid,
                     int k, double *tmp)
{
    while (hi - lo > 1) {
        double pivot = pt[((lo + hi) / 2) * d + k];
        size_t i = lo, j = hi - 1;
        while (i <= j) {
            while (pt[i * d + k] < pivot) i++;
            while (pt[j * d + k] > pivot) j--;
            if (i <= j) {
                if (i != j) {
                    memcpy(tmp, pt + i * d, (size_t) d * sizeof(double));
                    memcpy(pt + i * d, pt + j * d, (size_t) d * sizeof(double));
                    memcpy(pt + j * d, tmp, (size_t) d * sizeof(double));
                    double c = cnt[i]; cnt[i] = cnt[j]; cnt[j] = c;
                }
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (mid <= j) hi = j + 1;
        else if (mid >= i) lo = i;
        else return;
    }
}

static int build_node(kdtree *t, size_t lo, size_t hi, double *tmp)
{
    int d = t->d, id = t->n_node++;
    kdnode *nd = t->node + id;
    nd->lo = lo;
    nd->hi = hi;
    nd->left = nd->right = -1;
    double *bmin = t->box + (size_t) id * 2 * d, *bmax = bmin + d;
    for (int k = 0; k < d; k++) { bmin[k] = INFINITY; bmax[k] = -INFINITY; }
    for (size_t i = lo; i < hi; i++)
        for (int k = 0; k < d; k++) {
            double v = t->pt[i * d + k];
            if (v < bmin[k]) bmin[k] = v;
            if (v > bmax[k]) bmax[k] = v;
        }
    if (hi - lo <= LEAF) return id;
    int split = 0;
    double widest = -1.0;
    for (int k = 0; k < d; k++)
        if (bmax[k] - bmin[k] > widest) { widest = bmax[k] - bmin[k]; split = k; }
    if (!(widest > 0.0)) return id;   /* cannot happen for distinct points */
    size_t mid = lo + (hi - lo) / 2;
    select_k(t->pt, t->cnt, d, lo, hi, mid, split, tmp);
    int left = build_node(t, lo, mid, tmp);
    int right = build_node(t, mid, hi, tmp);
    t->node[id].left = left;
    t->node[id].right = right;
    return id;
}

static inline double box_dist2(const kdtree *t, int id, const double *q)
{
    int d = t->d;
    const double *bmin = t->box + (size_t) id * 2 * d, *bmax = bmin + d;
    double s = 0.0;
    for (int k = 0; k < d; k++) {
        double g = 0.0;
        if (q[k] < bmin[k]) g = bmin[k] - q[k];
        else if (q[k] > bmax[k]) g = q[k] - bmax[k];
        s += g * g;
    }
    return s;
}

static void kd_nearest(const kdtree *t, int id, const double *q, double *best)
{
    const kdnode *nd = t->node + id;
    if (nd->left < 0) {
        for (size_t i = nd->lo; i < nd->hi; i++) {
            double s = dist2(q, t->pt + i * t->d, t->d);
            if (s < *best) *best = s;
        }
        return;
    }
    double dl = box_dist2(t, nd->left, q), dr = box_dist2(t, nd->right, q);
    int first = dl <= dr ? nd->left : nd->right, second = dl <= dr ? nd->right : nd->left;
    double d1 = dl <= dr ? dl : dr, d2 = dl <= dr ? dr : dl;
    if (d1 <= *best) kd_nearest(t, first, q, best);
    if (d2 <= *best) kd_nearest(t, second, q, best);
}

/* Multiplicity of the points at distance <= cut from q. */
static double kd_count(const kdtree *t, int id, const double *q, double cut)
{
    if (sqrt(box_dist2(t, id, q)) > cut) return 0.0;
    const kdnode *nd = t->node + id;
    if (nd->left < 0) {
        double c = 0.0;
        for (size_t i = nd->lo; i < nd->hi; i++)
            if (sqrt(dist2(q, t->pt + i * t->d, t->d)) <= cut) c += t->cnt[i];
        return c;
    }
    return kd_count(t, nd->left, q, cut) + kd_count(t, nd->right, q, cut);
}

static void kd_free(kdtree *t)
{
    free(t->pt); free(t->cnt); free(t->box); free(t->node);
}

static int kd_build(kdtree *t, const double *y, size_t n, int d)
{
    memset(t, 0, sizeof *t);
    t->d = d;
    size_t *ord = malloc(n * sizeof(size_t));
    double *tmp = malloc((size_t) d * sizeof(double));
    if (!ord || !tmp) { free(ord); free(tmp); return -1; }
    for (size_t i = 0; i < n; i++) ord[i] = i;
    cmp_rows_d = d;
    cmp_rows_y = y;
    qsort(ord, n, sizeof(size_t), cmp_rows);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || cmp_rows(ord + i - 1, ord + i) != 0) m++;
    t->pt = malloc(m * (size_t) d * sizeof(double));
    t->cnt = malloc(m * sizeof(double));
    size_t max_nodes = 2 * (m / LEAF + 1) * 2 + 1;
    t->node = malloc(max_nodes * sizeof(kdnode));
    t->box = malloc(max_nodes * 2 * (size_t) d * sizeof(double));
    if (!t->pt || !t->cnt || !t->node || !t->box) {
        free(ord); free(tmp); kd_free(t); return -1;
    }
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || cmp_rows(ord + i - 1, ord + i) != 0) {
            memcpy(t->pt + u * d, y + ord[i] * (size_t) d, (size_t) d * sizeof(double));
            t->cnt[u++] = 1.0;
        } else {
            t->cnt[u - 1] += 1.0;
        }
    }
    free(ord);
    build_node(t, 0, m, tmp);
    free(tmp);
    return 0;
}

static void link_tree_one(const kdtree *t, const double *x, const double *y, int d,
                          size_t i, double *weight, double *ties, double *min_dist)
{
    const double *xi = x + i * (size_t) d;
    double best = INFINITY;
    kd_nearest(t, 0, xi, &best);
    double cut = sqrt(best) * (1.0 + LINK_TIE_REL);
    double c = kd_count(t, 0, xi, cut);
    int own = sqrt(dist2(xi, y + i * (size_t) d, d)) <= cut;
    weight[i] = own ? 1.0 / c : 0.0;
    ties[i] = c;
    min_dist[i] = sqrt(best);
}

typedef struct { uint64_t key; size_t i; } qkey;

static int cmp_qkey(const void *a, const void *b)
{
    uint64_t x = ((const qkey *) a)->key, y = ((const qkey *) b)->key;
    return (x > y) - (x < y);
}

/* Spread the low 21 bits of v to every third bit. */
static uint64_t spread3(uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

/* Queries in Morton order of the tree's bounding box (first three
 * coordinates), so that consecutive queries visit the same nodes and leaves
 * (the order changes the speed only: each query's answer is its own). */
static size_t *query_order(const kdtree *t, const double *x, size_t n, int d)
{
    qkey *k = malloc(n * sizeof(qkey));
    size_t *order = malloc(n * sizeof(size_t));
    if (!k || !order) { free(k); free(order); return NULL; }
    int g = d < 3 ? d : 3;
    const double *bmin = t->box, *bmax = t->box + d;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int c = 0; c < g; c++) {
            double w = bmax[c] - bmin[c];
            double u = w > 0 ? (x[i * d + c] - bmin[c]) / w : 0.0;
            u = u < 0 ? 0 : (u > 1 ? 1 : u);
            key |= spread3((uint64_t) (u * 2097151.0)) << c;
        }
        k[i].key = key;
        k[i].i = i;
    }
    qsort(k, n, sizeof(qkey), cmp_qkey);
    for (size_t i = 0; i < n; i++) order[i] = k[i].i;
    free(k);
    return order;
}

typedef struct {
    const kdtree *t;
    const double *x, *y;
    size_t n;
    int d, method;
    const size_t *order;
    double *weight, *ties, *min_dist;
} linkage_job;

static double linkage_row(void *ctx, size_t j, int thread)
{
    const linkage_job *jb = (const linkage_job *) ctx;
    (void) thread;
    if (jb->method == 1)
        link_tree_one(jb->t, jb->x, jb->y, jb->d, jb->order[j], jb->weight, jb->ties, jb->min_dist);
    else
        link_exhaustive_one(jb->x, jb->y, jb->n, jb->d, j, jb->weight, jb->ties, jb->min_dist);
    return 1.0;
}

int linkage_run(const double *x, const double *y, size_t n, int d, int method,
                int threads, double *weight, double *ties, double *min_dist,
                int (*interrupted)(void))
{
    kdtree t;
    size_t *order = NULL;
    if (method == 1) {
        if (kd_build(&t, y, n, d)) return -1;
        order = query_order(&t, x, n, d);
        if (!order) { kd_free(&t); return -1; }
    }
    int status = 0;
    linkage_job job = { &t, x, y, n, d, method, order, weight, ties, min_dist };
    for (size_t start = 0; start < n && status == 0; start += CHUNK) {
        size_t end = start + CHUNK < n ? start + CHUNK : n;
        /* rows in chunks of 64 from an atomic counter, passive waits
         * (par_rows.h); one thread does not enter OpenMP */
        par_rows(start, end, 64, INFINITY, threads > 0 ? threads : 1, linkage_row, &job);
        if (interrupted && interrupted()) status = -2;
    }
    if (method == 1) { kd_free(&t); free(order); }
    return status;
}
