/* MDAV microaggregation and rank swapping (methods vignette section 15); see microagg.h for
 * the exactness contract. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "microagg.h"

#define KD_LEAF 8
#define SUM_BLOCK 16

/* ---- k-d tree with removals ---------------------------------------------------- */

/* Node fields together, children of a node next to each other in the node
 * array. */
typedef struct {
    int start, end;  /* records of the node: tree positions start .. end - 1 */
    int left, right, parent;
    int count;       /* remaining records under the node */
    int minidx;      /* lowest remaining row number under the node */
    int shell;       /* 1: split by distance from c0 (children are shells) */
} kdnode;

/* The doubles of node v, w = 3p + 5 of them from nb + v w:
 *   lo[p], hi[p]  tight box of the remaining records,
 *   tmax          largest distance from the reference point c0 of a
 *                 remaining record (ts below),
 *   smax          largest sv of a remaining record (below),
 *   axis[p], cos a, sin a
 *                 a cone around c0 (unit axis, half-angle a) holding the
 *                 direction (x - c0) / |x - c0| of every remaining record
 *                 with x != c0; cos a = -2 marks the whole sphere,
 *   tmin          at most the smallest distance from c0 of a remaining
 *                 record (exact when set, kept through removals).
 * tmax and the cone bound the distance from a query point q to the node's
 * records tightly where the box does not: a record at the far side of the
 * cloud from q lies at most at radius tmax in a direction within a of the
 * axis, and the box of a few records on the cloud's surface sticks out of
 * the cloud by its own width (MDAV peels the cloud from the outside, so
 * every box there reaches nearly as far as the answer). */
#define NB_TMAX(t, v) ((t)->nb[(size_t) (v) * (t)->w + 2 * (t)->p])
#define NB_SMAX(t, v) ((t)->nb[(size_t) (v) * (t)->w + 2 * (t)->p + 1])
#define NB_AXIS(t, v) ((t)->nb + (size_t) (v) * (t)->w + 2 * (t)->p + 2)
#define NB_COSA(t, v) ((t)->nb[(size_t) (v) * (t)->w + 3 * (t)->p + 2])
#define NB_SINA(t, v) ((t)->nb[(size_t) (v) * (t)->w + 3 * (t)->p + 3])
#define NB_TMIN(t, v) ((t)->nb[(size_t) (v) * (t)->w + 3 * (t)->p + 4])
#define CONE_ALL (-2.0)

typedef struct {
    const double *x; /* n x p, row-major, by row number */
    double *xs;      /* the same values in tree order: xs[e p + j] = x[perm[e] p + j] */
    double *ts;      /* |xs_e - c0| by tree position */
    double *c0;      /* reference point of ts and the cones */
    double *sv;      /* |x'|^2 - 2 x' . qr, x' = xs_e - c0, by tree position: for
                      * the centroid query, whose offset from c0 moves little
                      * from qr */
    double *qr;      /* p values */
    double qr_norm;
    int p, w;
    int *alive;      /* by row: 1 while the record is not yet in a group */
    int *palive;     /* the same by tree position */
    int *perm;       /* row at tree position e */
    int *pos;        /* tree position of row i */
    int *leaf_of;    /* leaf of each row */
    kdnode *nd;
    double *nb;      /* node doubles, w per node */
    double *tmp;     /* w scratch */
    double *qv;      /* 2p scratch: q - c0 and its direction */
    int nnodes;
    int shell;       /* subtrees of more records split by distance from c0 */
} kdtree;

static double *nb_lo(const kdtree *t, int v)
{
    return t->nb + (size_t) v * t->w;
}

static void rec_swap(kdtree *t, int a, int b)
{
    int p = t->p;
    double ut = t->ts[a];
    t->ts[a] = t->ts[b];
    t->ts[b] = ut;
    double *xa = t->xs + (size_t) a * p, *xb = t->xs + (size_t) b * p;
    for (int j = 0; j < p; j++) {
        double u = xa[j];
        xa[j] = xb[j];
        xb[j] = u;
    }
    int u = t->perm[a];
    t->perm[a] = t->perm[b];
    t->perm[b] = u;
}

/* Reorder tree positions lo0 .. lo0 + len - 1 (coordinates and rows) so
 * that position lo0 + m holds the record of rank m along dim, smaller keys
 * before it and larger after (three-way partitions, so long runs of equal
 * keys cost linear time). */
static void select_nth(kdtree *t, int lo0, int len, int m, int dim)
{
    int p = t->p, lo = lo0, hi = lo0 + len - 1;
    m += lo0;
    /* dim = p: the distance from c0 */
#define KEY(e) (dim < p ? t->xs[(size_t) (e) * p + dim] : t->ts[e])
    while (hi > lo) {
        int mid = lo + (hi - lo) / 2;
        double ka = KEY(lo), kb = KEY(mid), kc = KEY(hi);
        double pivot = ka < kb ? (kb < kc ? kb : (ka < kc ? kc : ka))
                               : (ka < kc ? ka : (kb < kc ? kc : kb));
        int lt = lo, gt = hi, i = lo;
        while (i <= gt) {
            double v = KEY(i);
            if (v < pivot) {
                rec_swap(t, lt, i);
                lt++;
                i++;
            } else if (v > pivot) {
                rec_swap(t, gt, i);
                gt--;
            } else {
                i++;
            }
        }
        if (m < lt) hi = lt - 1;
        else if (m > gt) lo = gt + 1;
        else break;
    }
#undef KEY
}

/* Box, count, lowest row number and tmax of a leaf from its remaining records. */
static void leaf_refresh(kdtree *t, int v)
{
    int p = t->p, c = 0, mi = -1;
    double *lo = nb_lo(t, v), *hi = lo + p, tm = 0.0, sm = 0.0;
    for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
        if (!t->palive[e]) continue;
        int i = t->perm[e];
        const double *xi = t->xs + (size_t) e * p;
        if (c == 0) {
            for (int j = 0; j < p; j++) lo[j] = hi[j] = xi[j];
            mi = i;
            tm = t->ts[e];
            sm = t->sv[e];
        } else {
            for (int j = 0; j < p; j++) {
                if (xi[j] < lo[j]) lo[j] = xi[j];
                if (xi[j] > hi[j]) hi[j] = xi[j];
            }
            if (i < mi) mi = i;
            if (t->ts[e] > tm) tm = t->ts[e];
            if (t->sv[e] > sm) sm = t->sv[e];
        }
        c++;
    }
    t->nd[v].count = c;
    t->nd[v].minidx = mi;
    NB_TMAX(t, v) = tm;
    NB_SMAX(t, v) = sm;
}

/* An inner node from its children (the union of the non-empty ones). */
static void inner_refresh(kdtree *t, int v)
{
    int p = t->p, a = t->nd[v].left, b = t->nd[v].right;
    double *bv = nb_lo(t, v);
    const double *ba = nb_lo(t, a), *bb = nb_lo(t, b);
    t->nd[v].count = t->nd[a].count + t->nd[b].count;
    if (t->nd[a].count == 0 || t->nd[b].count == 0) {
        int c = t->nd[a].count ? a : b;
        memcpy(bv, nb_lo(t, c), (2 * p + 2) * sizeof(double));
        t->nd[v].minidx = t->nd[c].count ? t->nd[c].minidx : -1;
        return;
    }
    for (int j = 0; j < p; j++) {
        bv[j] = ba[j] < bb[j] ? ba[j] : bb[j];
        bv[p + j] = ba[p + j] > bb[p + j] ? ba[p + j] : bb[p + j];
    }
    bv[2 * p] = ba[2 * p] > bb[2 * p] ? ba[2 * p] : bb[2 * p];
    bv[2 * p + 1] = ba[2 * p + 1] > bb[2 * p + 1] ? ba[2 * p + 1] : bb[2 * p + 1];
    t->nd[v].minidx = t->nd[a].minidx < t->nd[b].minidx ? t->nd[a].minidx : t->nd[b].minidx;
}

/* Builds the subtree of tree positions start .. end - 1 as node v, its
 * children (when it has any) as the pair *next, *next + 1. */
static void kd_build(kdtree *t, int v, int start, int end, int parent, int *next)
{
    t->nd[v].start = start;
    t->nd[v].end = end;
    t->nd[v].parent = parent;
    t->nd[v].left = t->nd[v].right = -1;
    t->nd[v].shell = 0;
    if (end - start <= KD_LEAF) {
        for (int e = start; e < end; e++) {
            t->leaf_of[t->perm[e]] = v;
            t->pos[t->perm[e]] = e;
        }
        return;
    }
    /* above t->shell records, split at the median distance from c0: the
     * tree's top levels are shells, each a k-d tree of its own stored
     * together, so that the queries, which work at the surface of the
     * cloud MDAV peels, stay in a few shells' memory; below, split at the
     * median of the widest coordinate of the records */
    int p = t->p, dim = 0;
    if (end - start > t->shell) {
        int mid = (end - start) / 2;
        select_nth(t, start, end - start, mid, p);
        t->nd[v].shell = 1;
        int a = *next;
        *next += 2;
        t->nd[v].left = a;
        t->nd[v].right = a + 1;
        kd_build(t, a, start, start + mid, v, next);
        kd_build(t, a + 1, start + mid, end, v, next);
        return;
    }
    double *lo = t->tmp, *hi = t->tmp + p, best = -1.0;
    for (int j = 0; j < p; j++) lo[j] = hi[j] = t->xs[(size_t) start * p + j];
    for (int e = start + 1; e < end; e++) {
        const double *xe = t->xs + (size_t) e * p;
        for (int j = 0; j < p; j++) {
            if (xe[j] < lo[j]) lo[j] = xe[j];
            if (xe[j] > hi[j]) hi[j] = xe[j];
        }
    }
    for (int j = 0; j < p; j++)
        if (hi[j] - lo[j] > best) { best = hi[j] - lo[j]; dim = j; }
    int mid = (end - start) / 2;
    select_nth(t, start, end - start, mid, dim);
    int a = *next;
    *next += 2;
    t->nd[v].left = a;
    t->nd[v].right = a + 1;
    kd_build(t, a, start, start + mid, v, next);
    kd_build(t, a + 1, start + mid, end, v, next);
}

/* ---- cones ------------------------------------------------------------------------ */

/* Angle between unit vectors, from their chord (accurate near 0 and pi). */
static double unit_angle(const double *a, const double *b, int p)
{
    double c2 = 0.0;
    for (int j = 0; j < p; j++) {
        double u = a[j] - b[j];
        c2 += u * u;
    }
    double h = 0.5 * sqrt(c2);
    return 2.0 * asin(h < 1.0 ? h : 1.0);
}

/* Stores half-angle alpha, rounded up well past the rounding of the
 * directions and of the angle itself (the search adds its own margin). */
static void cone_set(kdtree *t, int v, double alpha)
{
    alpha = alpha * (1.0 + 1e-12) + 1e-12;
    if (alpha >= 3.14159265358979) {
        double *ax = NB_AXIS(t, v);
        for (int j = 0; j < t->p; j++) ax[j] = 0.0;
        NB_COSA(t, v) = CONE_ALL;
        NB_SINA(t, v) = 0.0;
    } else {
        NB_COSA(t, v) = cos(alpha);
        NB_SINA(t, v) = sin(alpha);
    }
}

static double cone_alpha(const kdtree *t, int v)
{
    double ca = NB_COSA(t, v);
    return ca == CONE_ALL ? 4.0 : atan2(NB_SINA(t, v), ca);
}

/* Normalises a (length p) in place; 0 when it is too short to point anywhere. */
static int unit_in_place(double *a, int p)
{
    double s = 0.0;
    for (int j = 0; j < p; j++) s += a[j] * a[j];
    s = sqrt(s);
    if (!(s > 1e-8)) return 0;
    for (int j = 0; j < p; j++) a[j] /= s;
    return 1;
}

/* The cone of a leaf's remaining records away from c0: axis their mean
 * direction, half-angle the largest angle to it. */
static void cone_leaf(kdtree *t, int v)
{
    int p = t->p, any = 0;
    double *ax = NB_AXIS(t, v), *u = t->tmp;
    for (int j = 0; j < p; j++) ax[j] = 0.0;
    for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
        if (!t->palive[e] || !(t->ts[e] > 0.0)) continue;
        const double *xe = t->xs + (size_t) e * p;
        for (int j = 0; j < p; j++) ax[j] += (xe[j] - t->c0[j]) / t->ts[e];
        any = 1;
    }
    if (!any || !unit_in_place(ax, p)) {
        cone_set(t, v, 4.0);
        return;
    }
    double alpha = 0.0;
    for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
        if (!t->palive[e] || !(t->ts[e] > 0.0)) continue;
        const double *xe = t->xs + (size_t) e * p;
        for (int j = 0; j < p; j++) u[j] = (xe[j] - t->c0[j]) / t->ts[e];
        double a = unit_angle(u, ax, p);
        if (a > alpha) alpha = a;
    }
    cone_set(t, v, alpha);
}

/* The cone of an inner node: the smallest cone holding its children's cones. */
static void cone_inner(kdtree *t, int v)
{
    int p = t->p, a = t->nd[v].left, b = t->nd[v].right;
    double *ax = NB_AXIS(t, v);
    if (t->nd[a].count == 0 || t->nd[b].count == 0) {
        int c = t->nd[a].count ? a : b;
        memcpy(ax, NB_AXIS(t, c), (p + 2) * sizeof(double));
        return;
    }
    double aa = cone_alpha(t, a), ab = cone_alpha(t, b);
    if (aa > 3.5 || ab > 3.5) {
        cone_set(t, v, 4.0);
        return;
    }
    const double *xa = NB_AXIS(t, a), *xb = NB_AXIS(t, b);
    double phi = unit_angle(xa, xb, p);
    if (phi + ab <= aa) {
        memcpy(ax, xa, (p + 2) * sizeof(double));
        return;
    }
    if (phi + aa <= ab) {
        memcpy(ax, xb, (p + 2) * sizeof(double));
        return;
    }
    double beta = 0.5 * (phi + aa + ab);
    if (beta >= 3.14159265358979) {
        cone_set(t, v, 4.0);
        return;
    }
    /* axis on the arc from xa to xb, beta - aa from xa (slerp), or their
     * mean where the arc is nearly a half-circle; the half-angle is then
     * measured, so it holds whatever the axis's rounding */
    double th = beta - aa, sp = sin(phi), wa, wb;
    if (sp > 1e-6) {
        wa = sin(phi - th) / sp;
        wb = sin(th) / sp;
    } else {
        wa = wb = 1.0;
    }
    for (int j = 0; j < p; j++) ax[j] = wa * xa[j] + wb * xb[j];
    if (!unit_in_place(ax, p)) {
        cone_set(t, v, 4.0);
        return;
    }
    double ga = unit_angle(ax, xa, p) + aa, gb = unit_angle(ax, xb, p) + ab;
    cone_set(t, v, ga > gb ? ga : gb);
}

/* Counts, boxes, lowest row numbers, tmax and cones of every node, children
 * first, skipping empty subtrees. */
static void kd_refresh_all(kdtree *t, int v)
{
    if (t->nd[v].left < 0) {
        leaf_refresh(t, v);
        cone_leaf(t, v);
        double tn = NB_TMAX(t, v);
        for (int e = t->nd[v].start; e < t->nd[v].end; e++)
            if (t->palive[e] && t->ts[e] < tn) tn = t->ts[e];
        NB_TMIN(t, v) = tn;
        return;
    }
    int a = t->nd[v].left, b = t->nd[v].right;
    if (t->nd[a].count) kd_refresh_all(t, a);
    if (t->nd[b].count) kd_refresh_all(t, b);
    inner_refresh(t, v);
    cone_inner(t, v);
    double ta = NB_TMIN(t, a), tb = NB_TMIN(t, b);
    NB_TMIN(t, v) = !t->nd[a].count ? tb : (!t->nd[b].count ? ta : (ta < tb ? ta : tb));
}

/* New reference point: distances ts of the remaining records, tmax and cones. */
/* Builds the tree over the remaining records with reference point c: they
 * move to tree positions 0 .. m - 1 (m remaining), split into shells of
 * their distance from c at the top. */
static void kd_rebuild(kdtree *t, const double *c)
{
    int p = t->p, m = 0, end = t->nd[0].end;
    memcpy(t->c0, c, p * sizeof(double));
    for (int e = 0; e < end; e++) {
        if (!t->palive[e]) continue;
        if (m != e) {
            memcpy(t->xs + (size_t) m * p, t->xs + (size_t) e * p, p * sizeof(double));
            t->perm[m] = t->perm[e];
            t->palive[m] = 1;
        }
        double s = 0.0;
        for (int j = 0; j < p; j++) {
            double u = t->xs[(size_t) m * p + j] - c[j];
            s += u * u;
        }
        t->ts[m] = sqrt(s);
        m++;
    }
    int next = 1;
    kd_build(t, 0, 0, m, -1, &next);
    t->nnodes = next;
    for (int v = 0; v < t->nnodes; v++) t->nd[v].count = t->nd[v].end - t->nd[v].start;
    for (int j = 0; j < p; j++) t->qr[j] = 0.0;
    t->qr_norm = 0.0;
    for (int e = 0; e < m; e++) t->sv[e] = t->ts[e] * t->ts[e];
    kd_refresh_all(t, 0);
}

/* sv of the remaining records for a new qr, and smax of every node. */
static void kd_refresh_s(kdtree *t, int v)
{
    int p = t->p;
    if (t->nd[v].left < 0) {
        double sm = 0.0;
        int any = 0;
        for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
            if (!t->palive[e]) continue;
            const double *xe = t->xs + (size_t) e * p;
            double dot = 0.0;
            for (int j = 0; j < p; j++) dot += (xe[j] - t->c0[j]) * t->qr[j];
            t->sv[e] = t->ts[e] * t->ts[e] - 2.0 * dot;
            if (!any || t->sv[e] > sm) sm = t->sv[e];
            any = 1;
        }
        NB_SMAX(t, v) = sm;
        return;
    }
    int a = t->nd[v].left, b = t->nd[v].right;
    if (t->nd[a].count) kd_refresh_s(t, a);
    if (t->nd[b].count) kd_refresh_s(t, b);
    NB_SMAX(t, v) = !t->nd[a].count ? NB_SMAX(t, b) : (!t->nd[b].count ? NB_SMAX(t, a) :
                    (NB_SMAX(t, a) > NB_SMAX(t, b) ? NB_SMAX(t, a) : NB_SMAX(t, b)));
}

/* Record i leaves the tree. Going up, once a node's box, tmax, smax and lowest
 * row number come out unchanged, those of its ancestors cannot change
 * either: only their counts drop. Cones stay (they still hold the
 * remaining directions). */
static void kd_remove(kdtree *t, int i)
{
    int p = t->p;
    size_t bytes = (2 * (size_t) p + 2) * sizeof(double);
    t->alive[i] = 0;
    t->palive[t->pos[i]] = 0;
    int v = t->leaf_of[i];
    memcpy(t->tmp, nb_lo(t, v), bytes);
    int mi = t->nd[v].minidx;
    leaf_refresh(t, v);
    int changed = t->nd[v].minidx != mi ||
                  (t->nd[v].count > 0 && memcmp(t->tmp, nb_lo(t, v), bytes));
    for (v = t->nd[v].parent; v >= 0; v = t->nd[v].parent) {
        if (!changed) {
            t->nd[v].count--;
            continue;
        }
        memcpy(t->tmp, nb_lo(t, v), bytes);
        mi = t->nd[v].minidx;
        inner_refresh(t, v);
        changed = t->nd[v].minidx != mi ||
                  (t->nd[v].count > 0 && memcmp(t->tmp, nb_lo(t, v), bytes));
    }
}

static double sqdist(const double *a, const double *c, int p)
{
    double d = 0.0;
    for (int j = 0; j < p; j++) {
        double u = a[j] - c[j];
        d += u * u;
    }
    return d;
}

/* Bounds on the squared distance from c to any remaining record of node v.
 * Rounding is monotone, so fl(z - c)^2 over z in [lo, hi] is bounded by the
 * same expression at the box ends: the bounds hold for the computed
 * distances, not only the exact ones. */
static double box_upper(const kdtree *t, int v, const double *c)
{
    const double *lo = nb_lo(t, v), *hi = lo + t->p;
    double d = 0.0;
    for (int j = 0; j < t->p; j++) {
        double a = lo[j] - c[j], b = hi[j] - c[j];
        a *= a;
        b *= b;
        d += a > b ? a : b;
    }
    return d;
}

static double box_lower(const kdtree *t, int v, const double *c)
{
    const double *lo = nb_lo(t, v), *hi = lo + t->p;
    double d = 0.0;
    for (int j = 0; j < t->p; j++) {
        double u = 0.0;
        if (c[j] < lo[j]) u = lo[j] - c[j];
        else if (c[j] > hi[j]) u = hi[j] - c[j];
        d += u * u;
    }
    return d;
}

/* A farthest query: the point, its offset from c0 (length Q, direction
 * qhat), the record to leave out and the best record so far (ties: lower
 * row). */
typedef struct {
    const double *c, *qhat;
    double Q;
    int skip;
    double d;
    int i;
    int cen;            /* the centroid query: bound by sv, with q - c0 = qr + D dhat */
    const double *dhat;
    double D;
} far_query;

/* Upper bound on the computed squared distance from the query to any
 * remaining record of node v: the smaller of the box bound and the cone
 * bound. A record x of v has x - c0 = t u, t <= tmax, u within a of the
 * axis, so with q - c0 = Q qhat,
 *   |x - q|^2 = t^2 + Q^2 - 2 t Q (u . qhat) <= Q^2 + max(0, tmax^2 + 2 tmax Q M),
 * M = cos(max(0, g - a)) >= -(u . qhat), g the angle between the axis and
 * -qhat. The margin 1e-7 (tmax + Q)^2 covers the rounding of the directions,
 * of ts, of M (its sine, near g = pi, to about 3e-8) and of the computed
 * distances, all far smaller. */
/* cos(max(0, g - a)) for node v's cone, g the angle between its axis and
 * -dir (a unit vector): at least -(u . dir) for every direction u in it. */
static double cone_reach(const kdtree *t, int v, const double *dir)
{
    double ca = NB_COSA(t, v);
    if (ca == CONE_ALL) return 1.0;
    const double *ax = NB_AXIS(t, v);
    double c2 = 0.0;
    for (int j = 0; j < t->p; j++) {
        double u = ax[j] + dir[j];
        c2 += u * u;
    }
    double cg = 1.0 - 0.5 * c2;
    if (cg >= ca) return 1.0;
    double s2 = c2 * (4.0 - c2);
    return cg * ca + (s2 > 0.0 ? 0.5 * sqrt(s2) : 0.0) * NB_SINA(t, v);
}

/* For the centroid query the same with qr + D dhat for q - c0:
 *   |x - q|^2 = sv + Q^2 - 2 t D (u . dhat) <= Q^2 + smax + max(0, 2 tmax D M),
 * M = cone_reach() of dhat, margin 1e-7 (tmax + Q + |qr|)^2. */
static double far_bound(const kdtree *t, int v, const far_query *f, int radial)
{
    double tm = NB_TMAX(t, v), Q = f->Q, s = tm + Q, ub = s * s * (1.0 + 1e-7);
    /* |x - q| <= |x - c0| + Q: enough for a shell (every direction) and
     * for the many nodes it puts out of reach */
    if (radial || ub < f->d) return ub;
    if (f->cen) {
        double r = f->D > 0.0 ? 2.0 * tm * f->D * cone_reach(t, v, f->dhat) : 0.0;
        double sq = s + t->qr_norm;
        ub = Q * Q + NB_SMAX(t, v) + (r > 0.0 ? r : 0.0) + 1e-7 * sq * sq;
    } else {
        double M = Q > 0.0 ? cone_reach(t, v, f->qhat) : 1.0;
        double r = tm * tm + 2.0 * tm * Q * M;
        ub = Q * Q + (r > 0.0 ? r : 0.0) + 1e-7 * s * s;
    }
    if (ub < f->d) return ub;
    double ubox = box_upper(t, v, f->c);
    return ubox < ub ? ubox : ub;
}

/* ub: far_bound() of node v (computed once, by the caller). */
static void far_node(const kdtree *t, int v, double ub, far_query *f)
{
    if (ub < f->d || (ub == f->d && t->nd[v].minidx > f->i)) return;
    if (t->nd[v].left < 0) {
        int p = t->p;
        for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
            if (!t->palive[e]) continue;
            int i = t->perm[e];
            if (i == f->skip) continue;
            double d = sqdist(t->xs + (size_t) e * p, f->c, p);
            if (d > f->d || (d == f->d && i < f->i)) { f->d = d; f->i = i; }
        }
        return;
    }
    int a = t->nd[v].left, z = t->nd[v].right, sh = t->nd[v].shell;
    if (!t->nd[a].count) {
        if (t->nd[z].count) far_node(t, z, far_bound(t, z, f, sh), f);
        return;
    }
    if (!t->nd[z].count) {
        far_node(t, a, far_bound(t, a, f, sh), f);
        return;
    }
    double ua = far_bound(t, a, f, sh), uz = far_bound(t, z, f, sh);
    if (uz > ua) {
        far_node(t, z, uz, f);
        far_node(t, a, ua, f);
    } else {
        far_node(t, a, ua, f);
        far_node(t, z, uz, f);
    }
}

/* Farthest remaining record from c other than `skip` (ties: lower row);
 * cen: c is the centroid (bounds by sv). */
static int farthest(const kdtree *t, const double *c, int skip, int cen)
{
    if (t->nd[0].count == 0) return -1;
    int p = t->p;
    double *qv = t->qv, *qh = t->qv + p, *dh = t->qv + 2 * p, Q = 0.0, D = 0.0;
    for (int j = 0; j < p; j++) {
        qv[j] = c[j] - t->c0[j];
        Q += qv[j] * qv[j];
        dh[j] = qv[j] - t->qr[j];
        D += dh[j] * dh[j];
    }
    Q = sqrt(Q);
    D = sqrt(D);
    for (int j = 0; j < p; j++) {
        qh[j] = Q > 0.0 ? qv[j] / Q : 0.0;
        dh[j] = D > 0.0 ? dh[j] / D : 0.0;
    }
    far_query f = {c, qh, Q, skip, -1.0, -1, cen, dh, D};
    far_node(t, 0, far_bound(t, 0, &f, 0), &f);
    return f.i;
}

/* The m nearest remaining records to c other than `skip`, in a max-heap on
 * (distance, row number). */
typedef struct { double *d; int *i; int size, cap; } nn_heap;

static int heap_above(const nn_heap *h, int a, int b) /* a after b in order */
{
    return h->d[a] > h->d[b] || (h->d[a] == h->d[b] && h->i[a] > h->i[b]);
}

static void heap_swap(nn_heap *h, int a, int b)
{
    double td = h->d[a]; h->d[a] = h->d[b]; h->d[b] = td;
    int ti = h->i[a]; h->i[a] = h->i[b]; h->i[b] = ti;
}

static void heap_offer(nn_heap *h, double d, int i)
{
    if (h->size < h->cap) {
        int e = h->size++;
        h->d[e] = d;
        h->i[e] = i;
        while (e > 0 && heap_above(h, e, (e - 1) / 2)) {
            heap_swap(h, e, (e - 1) / 2);
            e = (e - 1) / 2;
        }
        return;
    }
    if (!(d < h->d[0] || (d == h->d[0] && i < h->i[0]))) return;
    h->d[0] = d;
    h->i[0] = i;
    int e = 0;
    for (;;) {
        int l = 2 * e + 1, r = l + 1, top = e;
        if (l < h->size && heap_above(h, l, top)) top = l;
        if (r < h->size && heap_above(h, r, top)) top = r;
        if (top == e) break;
        heap_swap(h, e, top);
        e = top;
    }
}

/* Lower bound on the computed squared distance from c, at distance tc from
 * c0, to the remaining records of node v: the box's, or the gap between tc
 * and the node's range of distances from c0 (|x - c| >= | |x - c0| - tc |),
 * less a margin far above the rounding of ts, tc and the distances. */
static double near_bound(const kdtree *t, int v, const double *c, double tc, int radial)
{
    double lb = box_lower(t, v, c);
    if (!radial) return lb;
    double tn = NB_TMIN(t, v), tm = NB_TMAX(t, v);
    double gap = tn - tc > tc - tm ? tn - tc : tc - tm;
    gap -= 1e-12 * (tc + tm);
    if (gap > 0.0) {
        gap = gap * gap * (1.0 - 1e-12);
        if (gap > lb) lb = gap;
    }
    return lb;
}

/* Offers node v's records to the heap unless lb (its near_bound(), by the
 * caller) shows none can enter; children nearer first. */
static void near_node(const kdtree *t, int v, double lb, const double *c, double tc, int skip,
                      nn_heap *h)
{
    if (h->size == h->cap && (lb > h->d[0] || (lb == h->d[0] && t->nd[v].minidx > h->i[0])))
        return;
    if (t->nd[v].left < 0) {
        for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
            if (!t->palive[e]) continue;
            int i = t->perm[e];
            if (i == skip) continue;
            heap_offer(h, sqdist(t->xs + (size_t) e * t->p, c, t->p), i);
        }
        return;
    }
    /* the children of a shell split are shells, where the box is no bound */
    int a = t->nd[v].left, z = t->nd[v].right, sh = t->nd[v].shell;
    if (!t->nd[a].count) {
        if (t->nd[z].count) near_node(t, z, near_bound(t, z, c, tc, sh), c, tc, skip, h);
        return;
    }
    if (!t->nd[z].count) {
        near_node(t, a, near_bound(t, a, c, tc, sh), c, tc, skip, h);
        return;
    }
    double la = near_bound(t, a, c, tc, sh), lz = near_bound(t, z, c, tc, sh);
    if (lz < la) {
        near_node(t, z, lz, c, tc, skip, h);
        near_node(t, a, la, c, tc, skip, h);
    } else {
        near_node(t, a, la, c, tc, skip, h);
        near_node(t, z, lz, c, tc, skip, h);
    }
}

/* The nearest remaining records to record r (heap capacity) other than r:
 * r's leaf first, then the sibling of each node on the way up to the root
 * (the heap is full early, so most siblings are passed on their bound). */
static void near_from(const kdtree *t, int r, nn_heap *h)
{
    const double *c = t->x + (size_t) r * t->p;
    double tc = sqrt(sqdist(c, t->c0, t->p));
    int v = t->leaf_of[r];
    near_node(t, v, 0.0, c, tc, r, h);
    for (; t->nd[v].parent >= 0; v = t->nd[v].parent) {
        int P = t->nd[v].parent, s = t->nd[P].left == v ? t->nd[P].right : t->nd[P].left;
        if (t->nd[s].count)
            near_node(t, s, near_bound(t, s, c, tc, t->nd[P].shell), c, tc, r, h);
    }
}

/* ---- centroid sums: a segment tree over the rows ---------------------------------- */
/* The sums are those of a binary tree over 2^ceil(log2 n) leaves in row
 * order (removed rows and rows past n count as 0). Only the nodes above
 * blocks of SUM_BLOCK rows are stored; a block's sum is recomputed from its
 * rows, with the same additions in the same order. */

typedef struct {
    const double *x;  /* n x p, row-major */
    const int *alive;
    size_t n, nblocks; /* leaves = nblocks * bsize = 2^ceil(log2 n) */
    int p, bsize;
    double *blk;      /* block sums, nblocks x p */
    double *node;     /* nodes 1 .. nblocks - 1 above the blocks, p values each */
} sumtree;

static void sum_block(sumtree *s, size_t b)
{
    double v[SUM_BLOCK];
    size_t r0 = b * (size_t) s->bsize;
    for (int j = 0; j < s->p; j++) {
        for (int l = 0; l < s->bsize; l++) {
            size_t i = r0 + (size_t) l;
            v[l] = (i < s->n && s->alive[i]) ? s->x[i * s->p + j] : 0.0;
        }
        for (int w = s->bsize; w > 1; w /= 2)
            for (int l = 0; l < w / 2; l++) v[l] = v[2 * l] + v[2 * l + 1];
        s->blk[b * s->p + j] = v[0];
    }
}

static double sum_child(const sumtree *s, size_t c, int j)
{
    return c < s->nblocks ? s->node[c * s->p + j] : s->blk[(c - s->nblocks) * s->p + j];
}

static void sum_refresh(sumtree *s, size_t v)
{
    for (int j = 0; j < s->p; j++)
        s->node[v * s->p + j] = sum_child(s, 2 * v, j) + sum_child(s, 2 * v + 1, j);
}

static void sum_remove(sumtree *s, size_t i) /* after alive[i] = 0 */
{
    size_t b = i / (size_t) s->bsize;
    sum_block(s, b);
    for (size_t v = (s->nblocks + b) / 2; v >= 1; v /= 2) sum_refresh(s, v);
}

static void centroid(const sumtree *s, size_t m, double *c)
{
    for (int j = 0; j < s->p; j++)
        c[j] = (s->nblocks == 1 ? s->blk[j] : s->node[s->p + j]) / (double) m;
}

static size_t pow2_at_least(size_t n)
{
    size_t l = 1;
    while (l < n) l *= 2;
    return l;
}

/* ---- MDAV ------------------------------------------------------------------------------ */

static size_t kd_max_nodes(size_t n)
{
    /* leaves hold more than KD_LEAF / 2 records, except a lone root */
    return n / (KD_LEAF / 2) * 2 + 2;
}

static size_t sum_blocks(size_t n)
{
    size_t leaves = pow2_at_least(n);
    return leaves > SUM_BLOCK ? leaves / SUM_BLOCK : 1;
}

mdav_sizes mdav_scratch_sizes(size_t n, int p)
{
    size_t nodes = kd_max_nodes(n), w = 3 * (size_t) p + 5;
    mdav_sizes s;
    /* x, xs, ts, sv, node doubles, block and node sums, c, c0, qr, qv, tmp, heap */
    s.n_double = 2 * n * p + 2 * n + nodes * w + 2 * sum_blocks(n) * p + 6 * (size_t) p + w + n;
    /* alive, palive, perm, pos, leaf_of, heap, nodes */
    s.n_int = 6 * n + 8 * nodes;
    return s;
}

typedef struct {
    kdtree *t;
    sumtree *s;
    nn_heap *h;
    int *group;
    size_t remaining;
} mdav_state;

/* Record r and its k - 1 nearest remaining records become group g. */
static void take_group(mdav_state *st, int r, int k, int g)
{
    const kdtree *t = st->t;
    st->h->size = 0;
    st->h->cap = k - 1;
    if (k > 1) near_from(t, r, st->h);
    int size = st->h->size;
    for (int e = 0; e <= size; e++) {
        int i = e < size ? st->h->i[e] : r;
        st->group[i] = g;
        kd_remove(st->t, i);
        sum_remove(st->s, (size_t) i);
    }
    st->remaining -= (size_t) size + 1;
}

/* The tree is rebuilt around the centroid (c0 follows it, and the shells
 * are cut afresh) when it has drifted from c0 by more than this fraction of
 * the cloud's radius and an eighth of the records left at the last build
 * have been grouped since: at most 8 times the first build's work in all. */
#define RECENTRE_DRIFT 0.1
#define SV_DRIFT 1e-4

int mdav_groups(const double *z, size_t n, int p, int k, int shell, int *group,
                double *dscratch, int *iscratch, void (*interrupt)(void))
{
    if (n == 0) return 0;
    size_t nodes = kd_max_nodes(n), w = 3 * (size_t) p + 5, nblocks = sum_blocks(n);
    double *x = dscratch;
    kdtree t;
    t.x = x;
    t.xs = x + n * p;
    t.ts = t.xs + n * p;
    t.sv = t.ts + n;
    t.nb = t.sv + n;
    double *blk = t.nb + nodes * w;
    double *c = blk + 2 * nblocks * p;
    t.c0 = c + p;
    t.qr = t.c0 + p;
    t.qv = t.qr + p;
    t.tmp = t.qv + 3 * p;
    double *heap_d = t.tmp + w;
    t.p = p;
    t.w = (int) w;
    t.shell = shell > KD_LEAF ? shell : KD_LEAF;
    t.alive = iscratch;
    t.palive = t.alive + n;
    t.perm = t.palive + n;
    t.pos = t.perm + n;
    t.leaf_of = t.pos + n;
    int *heap_i = t.leaf_of + n;
    t.nd = (kdnode *) (heap_i + n);

    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < p; j++) x[i * p + j] = z[i + (size_t) j * n];
    memcpy(t.xs, x, n * p * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        t.alive[i] = 1;
        t.palive[i] = 1;
        t.perm[i] = (int) i;
    }

    sumtree s;
    s.x = x;
    s.alive = t.alive;
    s.n = n;
    s.nblocks = nblocks;
    s.bsize = (int) (pow2_at_least(n) / nblocks);
    s.p = p;
    s.blk = blk;
    s.node = blk + nblocks * p;
    for (size_t b = 0; b < nblocks; b++) sum_block(&s, b);
    for (size_t v = nblocks - 1; v >= 1; v--) sum_refresh(&s, v);

    centroid(&s, n, c);
    t.nd[0].end = (int) n;
    kd_rebuild(&t, c);
    size_t at_centre = n, at_sv = n;

    nn_heap h = {heap_d, heap_i, 0, 0};
    mdav_state st = {&t, &s, &h, group, n};
    size_t kk = (size_t) k;
    int g = 0;
    while (st.remaining >= 3 * kk) {
        centroid(&s, st.remaining, c);
        if (st.remaining * 8 <= at_centre * 7 &&
            sqdist(c, t.c0, p) > RECENTRE_DRIFT * RECENTRE_DRIFT * NB_TMAX(&t, 0) * NB_TMAX(&t, 0)) {
            kd_rebuild(&t, c);
            at_centre = at_sv = st.remaining;
        } else if (st.remaining * 64 <= at_sv * 63) {
            /* sv follows the centroid's offset from c0 once it has moved by
             * more than SV_DRIFT of the cloud's radius (one pass over the
             * remaining records, after a 64th of them have been grouped) */
            double dq = 0.0;
            for (int j = 0; j < p; j++) {
                double u = c[j] - t.c0[j] - t.qr[j];
                dq += u * u;
            }
            if (dq > SV_DRIFT * SV_DRIFT * NB_TMAX(&t, 0) * NB_TMAX(&t, 0)) {
                double qn = 0.0;
                for (int j = 0; j < p; j++) {
                    t.qr[j] = c[j] - t.c0[j];
                    qn += t.qr[j] * t.qr[j];
                }
                t.qr_norm = sqrt(qn);
                kd_refresh_s(&t, 0);
                at_sv = st.remaining;
            }
        }
        int r = farthest(&t, c, -1, 1);
        int sfar = farthest(&t, x + (size_t) r * p, r, 0);
        take_group(&st, r, k, ++g);
        /* s joined r's group only when every remaining record ties with it
         * in distance from r: take the next farthest */
        if (!t.alive[sfar]) sfar = farthest(&t, x + (size_t) r * p, -1, 0);
        take_group(&st, sfar, k, ++g);
        if (interrupt && g % 512 == 0) interrupt();
    }
    if (st.remaining >= 2 * kk) {
        centroid(&s, st.remaining, c);
        take_group(&st, farthest(&t, c, -1, 1), k, ++g);
    }
    if (st.remaining > 0) {
        g++;
        for (size_t i = 0; i < n; i++)
            if (t.alive[i]) group[i] = g;
    }
    return g;
}

/* ---- rank swapping --------------------------------------------------------------------- */

/* Fenwick tree over positions 1..n holding 1 for each rank not yet swapped. */
static void fen_add(int *f, size_t n, size_t pos, int delta)
{
    for (; pos <= n; pos += pos & (~pos + 1)) f[pos] += delta;
}

static int fen_prefix(const int *f, size_t pos)
{
    int s = 0;
    for (; pos > 0; pos -= pos & (~pos + 1)) s += f[pos];
    return s;
}

/* Smallest position whose prefix sum reaches target (>= 1). */
static size_t fen_select(const int *f, size_t n, int target)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= n) step *= 2;
    for (; step > 0; step /= 2) {
        if (pos + step <= n && f[pos + step] < target) {
            pos += step;
            target -= f[pos];
        }
    }
    return pos + 1;
}

void rank_swap(size_t n, size_t w, int *partner, int *scratch,
               double (*unif_index)(double), void (*interrupt)(void))
{
    int *f = scratch; /* f[1..n] */
    f[0] = 0;
    for (size_t pos = 1; pos <= n; pos++) f[pos] = (int) (pos & (~pos + 1));
    for (size_t i = 0; i < n; i++) partner[i] = -1;
    for (size_t i = 0; i < n; i++) {
        if (interrupt && (i & 0xFFFF) == 0xFFFF) interrupt();
        if (partner[i] >= 0) continue;
        fen_add(f, n, i + 1, -1);
        /* every rank below i is done, so the prefix counts (i, i + w] */
        size_t top = i + w < n - 1 ? i + w : n - 1;
        int count = fen_prefix(f, top + 1);
        if (count == 0) {
            partner[i] = (int) i;
            continue;
        }
        int pick = (int) unif_index((double) count);
        size_t j = fen_select(f, n, pick + 1) - 1;
        partner[i] = (int) j;
        partner[j] = (int) i;
        fen_add(f, n, j + 1, -1);
    }
}
