/* The normaliser of the record-matching risk for all targets by offline
 * orthogonal range sums of Taylor moments: see match_sweep.h for the method
 * and its certification. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "match_dominance.h"
#include "match_internal.h"
#include "match_sweep.h"
#include "par_rows.h"

/* the longest moment vector: 2 known x 2 unknowns, or 3 known x 1 unknown
 * (ms_applies) */
#define MS_VEC_MAX (4 * MS_ORDERS * MS_ORDERS)
#define MS_EPS DBL_EPSILON
/* the order of an expansion is lowered while its certified remainder stays
 * below this (absolute, |g| <= 1) or below the full order's */
#define MS_REM_TARGET 1e-13

/* One unknown variable's bins and blocks (a dimension without an active
 * unknown has one bin, one level, order 1: the factor 1). */
typedef struct {
    int has;                    /* an active unknown (range > 0) */
    double sd, d, shrink, range;
    const double *y;            /* the records' values (the caller's) */
    double ylo, width;          /* the fine grid */
    int B, levels, ord, ord_far, max_terms;
    int *lev_off;               /* levels + 1: 1-d blocks numbered level by level */
    double *blk_c, *blk_h;      /* per 1-d block: centre and half-width of its records */
    int *fbin;                  /* per record: its fine bin */
    int *near;                  /* per target: 3 intervals [lo, hi) of fine bins near a kink */
    double *mean;               /* per target: the predicted mean */
} ms_unknown;

struct ms_state {
    size_t n, nt;
    int K, ord, subsets, V;     /* coordinates, Taylor orders, 2^K, vector length */
    ms_unknown un[2];           /* the smooth unknowns (or the trivial dimension) */
    /* The coordinates of the known layer: the known variables, then the
     * sharp unknowns (their factor the triangle itself: sharp_unknown).
     * With sharp unknowns zraw and tk are copies (own_coords), and
     * sharp_err holds per target the bound of g_sigma - triangle. */
    int n_known, n_sharp, own_coords;
    int sharp_q[MS_MAX_UNKNOWN];    /* the sharp unknowns' indices in the release */
    double *sharp_err;
    double mid[MS_MAX_KNOWN], half[MS_MAX_KNOWN];   /* u = (z - mid) / half */
    double lo[MS_MAX_KNOWN], hi[MS_MAX_KNOWN];      /* the records' ends, exactly */
    /* records */
    double *u;                  /* n x K, record-major: centred, scaled known coordinates */
    /* blocks: products of 1-d blocks, by pair of levels (L0, L1), numbered
     * pair by pair; within a pair, block k0 * nk1 + k1 */
    int pairs, NB, max_terms;
    int *pair_off;              /* pairs + 1 */
    int *gsort[MS_MAX_KNOWN];   /* records by z_k, then index */
    int cur_pair;               /* the pair whose orders and lists are built */
    double *blk_count;          /* per block of the pair */
    size_t *blk_start;          /* per block of the pair: within the pair's record order */
    /* per known variable k: records by block of the pair, then by z_k, then
     * index (ordk); z_k in that order (zsk); per record, the 1-based rank of
     * z_k within its block (rankk, k >= 1) */
    int *ordk[MS_MAX_KNOWN], *rankk[MS_MAX_KNOWN];
    double *zsk[MS_MAX_KNOWN];
    int *pos1;                  /* K >= 3, per record: its position in z_1 order within its block */
    int *pos2;                  /* K = 4, per record: its position in z_2 order within its block */
    int *tl_start;              /* per block of the pair: its targets [tl_start[k], tl_start[k + 1]) */
    int *tlk[MS_MAX_KNOWN];     /* the targets of each block by t_k */
    unsigned char *tok[MS_MAX_KNOWN];  /* the largest Taylor orders they use there: 16 o0 + o1 */
    size_t tl_cap;
    /* targets */
    const double *zraw;         /* n x K: the records' coordinates (column-major) */
    const double *tk;           /* n_targets x K (column-major, as tg->known) */
    double *side;               /* nt x K x 4: alpha_L, alpha_H, beta_L, beta_H */
    double *cabs;               /* per target: the bound of the |terms| of the coefficients */
    int *tordk[MS_MAX_KNOWN];   /* targets by t_k, then index */
    /* K = 3, per thread: the 3-d dominance work, the block's targets' z_1
     * prefix counts and query ids (2 nt), t_2 and t_3 (2 nt), the block's
     * z_2, z_3 by z_1 position and positions in z_2, z_3 order (2 n each) */
    md_work **dom;
    md_work4 **dom4;            /* K = 4, per thread */
    int *pfx;
    double *tloc, *zloc;
    int *byloc;
    /* sums in block order */
    double *est, *rem, *fp;
    /* per slot (blocks of one group) and per thread */
    int slots, threads;
    double *slot_est, *slot_rem, *slot_fp;     /* slots x nt */
    int64_t *fen;               /* threads x fen_len: fixed-point moments */
    size_t fen_len;
    double *gcache;             /* threads x nt x (ord + 4): G, remw, sup, o0, o1 */
    unsigned char *skip;        /* threads x nt */
    int group_from;
};

/* The fine bins of one unknown (0 when it is beyond MS_MAX_BINS or not
 * finite). */
static double unknown_bins(double sd, double range)
{
    double bins = ceil(range / (2.0 * MS_HALF_SD * sd));
    return isfinite(bins) ? (bins < 1 ? 1 : bins) : 0.0;
}

/* Is active unknown q sharp: its residual SD 0 or below range / 2^21, too
 * small for the fine bins? Its factor is then swept as the triangle
 * (1 - |y - m| / range)_+ itself, a known-like coordinate (the released
 * range has length `range`, so at most one of the kinks m - range, m,
 * m + range lies inside the data), and the difference to the smoothed
 * factor is bounded (sharp_error). */
static int sharp_unknown(double sd, double range)
{
    return range > 0 && (!(sd > 0) || range / (2.0 * MS_HALF_SD * sd) > MS_MAX_BINS);
}

/* The spread of the released values of unknown q. */
static double released_spread(const rm_released *rel, int q)
{
    const double *y = rel->masked_unknown + (size_t) q * rel->n;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < rel->n; j++) {
        if (y[j] < lo) lo = y[j];
        if (y[j] > hi) hi = y[j];
    }
    return hi - lo;
}

int ms_sharp_unknowns(const rm_released *rel)
{
    int sharp = 0;
    for (int q = 0; q < rel->n_unknown; q++)
        sharp += sharp_unknown(rel->unknown_sd[q], rel->unknown_range[q]);
    return sharp;
}

int ms_applies(const rm_released *rel)
{
    if (rel->n_known < 1 || rel->n_unknown > MS_MAX_UNKNOWN) return 0;
    int sharp = 0;
    double product = 1.0;
    for (int q = 0; q < rel->n_unknown; q++) {
        double sd = rel->unknown_sd[q], range = rel->unknown_range[q];
        if (!(range > 0)) continue;
        if (sharp_unknown(sd, range)) {
            /* one kink inside the data at most: the range spans the values */
            if (!(range >= released_spread(rel, q))) return 0;
            sharp++;
            continue;
        }
        double bins = unknown_bins(sd, range);
        if (!(bins > 0)) return 0;
        product *= bins;
    }
    /* coordinates of the known layer and smooth unknowns: three or four
     * coordinates with two unknowns would take 8 x 169 moments per record,
     * not built (MS_VEC_MAX) */
    int K = rel->n_known + sharp, U = rel->n_unknown - sharp;
    if (K > MS_MAX_KNOWN || (K >= 3 && U > 1)) return 0;
    return product <= MS_MAX_BINS;
}

/* ---- sorting (value, index) pairs ----------------------------------------- */

typedef struct { double x; int i; } keyed;

static int compare_keyed(const void *a, const void *b)
{
    const keyed *p = (const keyed *) a, *q = (const keyed *) b;
    if (p->x < q->x) return -1;
    if (p->x > q->x) return 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* order[0..m-1]: 0..m-1 by x[k * stride], ties by index. */
static int sort_order(const double *x, size_t stride, size_t m, int *order)
{
    keyed *kv = malloc((m ? m : 1) * sizeof(keyed));
    if (!kv) return -1;
    for (size_t k = 0; k < m; k++) {
        kv[k].x = x[k * stride];
        kv[k].i = (int) k;
    }
    qsort(kv, m, sizeof(keyed), compare_keyed);
    for (size_t k = 0; k < m; k++) order[k] = kv[k].i;
    free(kv);
    return 0;
}

void ms_free(ms_state *st)
{
    if (!st) return;
    for (int q = 0; q < 2; q++) {
        ms_unknown *un = st->un + q;
        free(un->lev_off); free(un->blk_c); free(un->blk_h); free(un->fbin); free(un->near);
        free(un->mean);
    }
    free(st->u); free(st->pair_off); free(st->sharp_err);
    if (st->own_coords) {
        free((double *) st->zraw);
        free((double *) st->tk);
    }
    free(st->blk_count); free(st->blk_start);
    for (int k = 0; k < MS_MAX_KNOWN; k++) {
        free(st->gsort[k]); free(st->ordk[k]); free(st->rankk[k]); free(st->zsk[k]);
        free(st->tlk[k]); free(st->tok[k]); free(st->tordk[k]);
    }
    free(st->pos1); free(st->pos2);
    if (st->dom)
        for (int t = 0; t < st->threads; t++) md_work_free(st->dom[t]);
    if (st->dom4)
        for (int t = 0; t < st->threads; t++) md_work4_free(st->dom4[t]);
    free(st->dom); free(st->dom4); free(st->pfx); free(st->tloc); free(st->zloc); free(st->byloc);
    free(st->tl_start);
    free(st->side); free(st->cabs);
    free(st->est); free(st->rem); free(st->fp);
    free(st->slot_est); free(st->slot_rem); free(st->slot_fp);
    free(st->fen); free(st->gcache); free(st->skip);
    free(st);
}

int ms_bins(const ms_state *st) { return st->un[0].B * st->un[1].B; }
int ms_sharp(const ms_state *st) { return st->n_sharp; }
int ms_blocks(const ms_state *st) { return st->NB; }
const double *ms_estimate(const ms_state *st) { return st->est; }

/* The records' bin of y (the bins cut [lo, hi] into B equal parts). */
static int bin_of(double y, double lo, double width, int B)
{
    if (!(width > 0)) return 0;
    double q = (y - lo) / width;
    int b = q <= 0 ? 0 : (q >= B ? B - 1 : (int) q);
    return b;
}

/* The fine bins within MS_NEAR_SD SDs of y = kink: [*lo, *hi) (empty when
 * none). */
static void near_bins(const ms_unknown *un, double kink, int *lo, int *hi)
{
    double r = MS_NEAR_SD * un->sd, a = (kink - r - un->ylo) / un->width,
           b = (kink + r - un->ylo) / un->width;
    *lo = *hi = 0;
    if (!(b >= 0) || !(a < un->B)) return;
    *lo = a <= 0 ? 0 : (int) floor(a);
    *hi = b >= un->B - 1 ? un->B : (int) floor(b) + 1;
}

/* The 1-d blocks of one unknown that target i uses at level L, with the
 * largest Taylor order of each: the fine bins near its kinks at the full
 * order; the rest of [0, B) cut into maximal dyadic blocks, at order
 * ord_far. Writes blk (local index within the level) and o; returns their
 * number. */
static int target_blocks(const ms_unknown *un, size_t i, int L, int *blk, int *o)
{
    int m = 0;
    const int *nr = un->near + i * 6;
    if (L == 0)
        for (int q = 0; q < 3; q++)
            for (int b = nr[2 * q]; b < nr[2 * q + 1]; b++) {
                blk[m] = b;
                o[m++] = un->ord;
            }
    /* the gaps between the near intervals (sorted, disjoint) */
    int from = 0;
    for (int q = 0; q <= 3; q++) {
        int to = q < 3 ? nr[2 * q] : un->B;
        if (q < 3 && nr[2 * q] == nr[2 * q + 1]) continue;
        for (int pos = from; pos < to;) {
            int l = 0;
            while (l + 1 < un->levels && pos % (1 << (l + 1)) == 0) {
                int end = pos + (1 << (l + 1));
                if ((end < un->B ? end : un->B) > to) break;
                l++;
            }
            if (l == L) {
                blk[m] = pos >> L;
                o[m++] = un->ord_far;
            }
            int end = pos + (1 << l);
            pos = end < un->B ? end : un->B;
        }
        if (q < 3) from = nr[2 * q + 1];
    }
    return m;
}

/* The bins and 1-d blocks of the smooth unknown q of the release in
 * dimension `slot` (q < 0: the trivial dimension). */
static int prepare_unknown(ms_state *st, int slot, int q, const rm_released *rel,
                           const rm_targets *tg)
{
    ms_unknown *un = st->un + slot;
    size_t n = st->n, nt = st->nt;
    un->has = q >= 0 && rel->unknown_range[q] > 0;
    un->ord = un->has ? MS_ORDERS : 1;
    un->ord_far = un->has ? MS_ORDERS_FAR : 1;
    un->B = 1;
    if (un->has) {
        un->y = rel->masked_unknown + (size_t) q * n;
        un->sd = rel->unknown_sd[q];
        un->range = rel->unknown_range[q];
        un->d = un->range / un->sd;
        un->shrink = exp(-0.5 * un->d * un->d);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            if (un->y[j] < lo) lo = un->y[j];
            if (un->y[j] > hi) hi = un->y[j];
        }
        un->ylo = lo;
        un->B = (int) unknown_bins(un->sd, hi - lo);
        un->width = (hi - lo) / un->B;
    }
    int B = un->B;
    un->levels = 1;
    while ((1 << (un->levels - 1)) < B) un->levels++;
    un->fbin = malloc((n + 1) * sizeof(int));
    un->near = malloc((nt * 6 + 1) * sizeof(int));
    un->mean = malloc((nt + 1) * sizeof(double));
    un->lev_off = malloc((un->levels + 1) * sizeof(int));
    double *bmin = malloc(B * sizeof(double)), *bmax = malloc(B * sizeof(double));
    if (!un->fbin || !un->near || !un->mean || !un->lev_off || !bmin || !bmax) {
        free(bmin); free(bmax);
        return -1;
    }
    for (int b = 0; b < B; b++) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
    }
    for (size_t j = 0; j < n; j++) {
        int b = un->has ? bin_of(un->y[j], un->ylo, un->width, B) : 0;
        un->fbin[j] = b;
        if (un->has) {
            if (un->y[j] < bmin[b]) bmin[b] = un->y[j];
            if (un->y[j] > bmax[b]) bmax[b] = un->y[j];
        }
    }
    /* the blocks of every level: centre and half-width from their records */
    un->lev_off[0] = 0;
    for (int L = 0; L < un->levels; L++)
        un->lev_off[L + 1] = un->lev_off[L] + (B + (1 << L) - 1) / (1 << L);
    int nb = un->lev_off[un->levels];
    un->blk_c = malloc(nb * sizeof(double));
    un->blk_h = malloc(nb * sizeof(double));
    if (!un->blk_c || !un->blk_h) {
        free(bmin); free(bmax);
        return -1;
    }
    for (int L = 0; L < un->levels; L++)
        for (int k = 0; k < un->lev_off[L + 1] - un->lev_off[L]; k++) {
            int g = un->lev_off[L] + k, b0 = k << L, b1 = (k + 1) << L;
            if (b1 > B) b1 = B;
            double lo = INFINITY, hi = -INFINITY;
            for (int b = b0; b < b1; b++)
                if (bmin[b] <= bmax[b]) {
                    if (bmin[b] < lo) lo = bmin[b];
                    if (bmax[b] > hi) hi = bmax[b];
                }
            un->blk_c[g] = un->has && lo <= hi ? 0.5 * (lo + hi) : 0.0;
            un->blk_h[g] = un->has && lo <= hi ? 0.5 * (hi - lo) : 0.0;
        }
    free(bmin);
    free(bmax);
    /* per target: the fine bins near the kinks m - Delta, m, m + Delta of the
     * factor (all of them without an unknown), sorted and merged */
    for (size_t i = 0; i < nt; i++) {
        int *nr = un->near + i * 6;
        un->mean[i] = un->has ? tg->pred_mean[i + (size_t) q * nt] : 0.0;
        if (!un->has) {
            nr[0] = 0;
            nr[1] = B;
            nr[2] = nr[3] = nr[4] = nr[5] = B;
            continue;
        }
        double m0 = un->mean[i], kinks[3] = { m0 - un->range, m0, m0 + un->range };
        int lo[3], hi[3], m = 0, w = 0;
        for (int k = 0; k < 3; k++) {
            near_bins(un, kinks[k], lo + m, hi + m);
            if (lo[m] < hi[m]) m++;
        }
        for (int k = 1; k < m; k++) /* insertion sort by lo */
            for (int r = k; r > 0 && lo[r] < lo[r - 1]; r--) {
                int t0 = lo[r], t1 = hi[r];
                lo[r] = lo[r - 1];
                hi[r] = hi[r - 1];
                lo[r - 1] = t0;
                hi[r - 1] = t1;
            }
        for (int k = 0; k < m; k++) {
            if (w > 0 && lo[k] <= nr[2 * w - 1]) { /* overlaps the previous */
                if (hi[k] > nr[2 * w - 1]) nr[2 * w - 1] = hi[k];
                continue;
            }
            nr[2 * w] = lo[k];
            nr[2 * w + 1] = hi[k];
            w++;
        }
        for (; w < 3; w++) nr[2 * w] = nr[2 * w + 1] = B;
    }
    /* the most 1-d blocks one target uses: near bins around three kinks, at
     * most two blocks per level in each of four gaps */
    double per_kink = un->has ? ceil(2.0 * MS_NEAR_SD * un->sd / un->width) + 2.0 : 1.0;
    double terms = 3.0 * per_kink + 8.0 * un->levels;
    un->max_terms = terms < nb ? (int) terms : nb;
    return 0;
}

static double part_abs_bound(const ms_state *st, size_t i);
static void sharp_sides(const ms_state *st, int k, double m, double D, double *t,
                        double *side);
/* The coordinates of the known layer (zraw, tk): the known variables, then
 * the sharp unknowns, whose target value is the kink of sharp_sides; and
 * the centre and half-width of each over the records. */
static int coordinates(ms_state *st, const mt_index *ix, const rm_released *rel,
                       const rm_targets *tg)
{
    size_t n = st->n, nt = st->nt;
    int K = st->K, known = st->n_known;
    for (int k = 0; k < known; k++) {
        const double *srt = ix->sorted + (size_t) k * n;
        st->lo[k] = srt[0];
        st->hi[k] = srt[n - 1];
    }
    if (!st->n_sharp) {
        st->zraw = rel->masked_known;
        st->tk = tg->known;
    } else {
        double *z = malloc((n * (size_t) K + 1) * sizeof(double));
        double *t = malloc((nt * (size_t) K + 1) * sizeof(double));
        if (!z || !t) {
            free(z); free(t);
            return -1;
        }
        st->zraw = z;
        st->tk = t;
        st->own_coords = 1;
        memcpy(z, rel->masked_known, n * (size_t) known * sizeof(double));
        memcpy(t, tg->known, nt * (size_t) known * sizeof(double));
        for (int k = known; k < K; k++) {
            int q = st->sharp_q[k - known];
            const double *y = rel->masked_unknown + (size_t) q * n;
            double lo = INFINITY, hi = -INFINITY;
            for (size_t j = 0; j < n; j++) {
                z[(size_t) k * n + j] = y[j];
                if (y[j] < lo) lo = y[j];
                if (y[j] > hi) hi = y[j];
            }
            st->lo[k] = lo;
            st->hi[k] = hi;
            st->mid[k] = 0.5 * (lo + hi);
            st->half[k] = 0.5 * (hi - lo);
            for (size_t i = 0; i < nt; i++)
                sharp_sides(st, k, tg->pred_mean[i + (size_t) q * nt], rel->unknown_range[q],
                            t + (size_t) k * nt + i, NULL);
        }
    }
    for (int k = 0; k < known; k++) {
        st->mid[k] = 0.5 * (st->lo[k] + st->hi[k]);
        st->half[k] = 0.5 * (st->hi[k] - st->lo[k]);
    }
    for (int k = 0; k < K; k++)
        if (!(st->half[k] > 0)) st->half[k] = 1.0;
    return 0;
}

/* The triangle (1 - |y - m| / D)_+ of a sharp unknown (coordinate k) on the
 * records' values [lo, hi] (exactly their ends; hi - lo <= D, ms_applies):
 * at most one of its kinks m - D, m, m + D lies inside, the kink *t (if any;
 * else m). On either side of it a line alpha + beta u (u = (y - mid) /
 * half) or 0: side[0..3] = alpha below, alpha above, beta below, beta above,
 * as for the known variables. Both sides agree at the kink. The kinks
 * m -+ D are rounded: a record between the computed and the exact kink may
 * take the wrong side (or the wrong case), off by at most the rounding
 * error over D (sharp_error counts it). */
static void sharp_sides(const ms_state *st, int k, double m, double D, double *t,
                        double *side)
{
    double lo = st->lo[k], hi = st->hi[k];
    double r = (st->mid[k] - m) / D, b = st->half[k] / D, kink = m;
    /* below: 1 - (m - y) / D = 1 - r' + b u; above: 1 - (y - m) / D */
    double s4[4] = { 1.0 + r, 1.0 - r, b, -b };
    if (m - D >= hi || m + D <= lo) {
        /* 0 on the whole range */
        s4[0] = s4[1] = s4[2] = s4[3] = 0.0;
    } else if (m + D < hi) {
        /* m < lo: the line 1 - (y - m) / D up to m + D, then 0 */
        kink = m + D;
        s4[0] = 1.0 - r;
        s4[2] = -b;
        s4[1] = s4[3] = 0.0;
    } else if (m - D > lo) {
        /* m > hi: 0 up to m - D, then 1 - (m - y) / D */
        kink = m - D;
        s4[1] = 1.0 + r;
        s4[3] = b;
        s4[0] = s4[2] = 0.0;
    }
    if (t) *t = kink;
    if (side) memcpy(side, s4, sizeof s4);
}

/* The exact rounding error of fl(a + b) (Knuth's TwoSum: fl(a + b) + err =
 * a + b). */
static double sum_error(double a, double b)
{
    double s = a + b, bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* The number of records with z <= x (inclusive) or z < x, z[ord[.]]
 * ascending. */
static size_t count_below(const double *z, const int *ord, size_t n, double x, int inclusive)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double v = z[ord[mid]];
        if (inclusive ? v <= x : v < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Per target, a bound of sum_j |g_sigma(y_j) - tri(y_j)| over the sharp
 * unknowns (every other factor is in [0, 1]). The triangle is a sum of three
 * hinges, tri(y) = [(y - m + D)_+ - 2 (y - m)_+ + (y - m - D)_+] / D, and
 * smoothing a hinge by N(0, sigma^2) adds sigma psi(x), x the distance to its
 * kink in SDs, psi(x) = E[(x + Z)_+] - x_+ = phi(x) - |x| Q(|x|), in [0,
 * phi(x)]. So |g_sigma - tri| <= (sigma / D) [psi(x + d) + 2 psi(x) +
 * psi(x - d)], and summed over the records <= (sigma / D) [phi(0) (N_1 +
 * 2 N_2 + N_3) + 4 phi(MS_NEAR_SD) n], N_k the records within MS_NEAR_SD
 * SDs of kink k (by bisection in the sorted values); 0 when sigma = 0.
 * Plus, for sigma = 0 too, the rounding of the kinks m -+ D (sharp_sides):
 * the records within its exact error e of the computed kink, |e| / D each. */
static int sharp_error(ms_state *st, const rm_released *rel, const rm_targets *tg)
{
    size_t n = st->n, nt = st->nt;
    st->sharp_err = calloc(nt + 1, sizeof(double));
    if (!st->sharp_err) return -1;
    double phi0 = RM_INV_SQRT_2PI, phi_far = RM_INV_SQRT_2PI * exp(-0.5 * MS_NEAR_SD * MS_NEAR_SD);
    for (int s = 0; s < st->n_sharp; s++) {
        int q = st->sharp_q[s], k = st->n_known + s;
        double sd = rel->unknown_sd[q], D = rel->unknown_range[q];
        const double *z = st->zraw + (size_t) k * n;
        const int *ord = st->gsort[k];
        for (size_t i = 0; i < nt; i++) {
            double m = tg->pred_mean[i + (size_t) q * nt], bound = 0.0;
            for (int side = -1; side <= 1; side += 2) {
                double kink = m + side * D, e = fabs(sum_error(m, side * D));
                if (e > 0)
                    bound += e / D * (double) (count_below(z, ord, n, kink + 2.0 * e, 1) -
                                               count_below(z, ord, n, kink - 2.0 * e, 0));
            }
            if (sd > 0) {
                /* within MS_NEAR_SD SDs of the exact kink: of the computed one
                 * widened by twice its rounding error (0 for m) */
                double w[3] = { 1.0, 2.0, 1.0 }, kinks[3] = { m - D, m, m + D }, near = 0.0;
                double err[3] = { fabs(sum_error(m, -D)), 0.0, fabs(sum_error(m, D)) };
                for (int e = 0; e < 3; e++) {
                    double reach = MS_NEAR_SD * sd + 2.0 * err[e];
                    near += w[e] * (double) (count_below(z, ord, n, kinks[e] + reach, 1) -
                                             count_below(z, ord, n, kinks[e] - reach, 0));
                }
                bound += sd / D * (phi0 * near + 4.0 * phi_far * (double) n);
            }
            st->sharp_err[i] += bound * (1.0 + 1e-10);
        }
    }
    return 0;
}

ms_state *ms_prepare(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                     int threads)
{
    ms_state *st = calloc(1, sizeof(ms_state));
    if (!st) return NULL;
    size_t n = rel->n, nt = tg->n_targets;
    int K = rel->n_known;
    st->n = n;
    st->nt = nt;
    st->cur_pair = -1;
    if (threads < 1) threads = 1;
    st->slots = threads;
    st->threads = threads;
    /* the smooth unknowns in the dimensions of the blocks, the sharp ones
     * as coordinates after the known variables */
    int smooth[MS_MAX_UNKNOWN] = { -1, -1 }, n_smooth = 0;
    for (int q = 0; q < rel->n_unknown; q++) {
        if (sharp_unknown(rel->unknown_sd[q], rel->unknown_range[q]))
            st->sharp_q[st->n_sharp++] = q;
        else if (rel->unknown_range[q] > 0) smooth[n_smooth++] = q;
    }
    st->n_known = K;
    K += st->n_sharp;
    st->K = K;
    st->subsets = 1 << K;
    for (int q = 0; q < 2; q++)
        if (prepare_unknown(st, q, smooth[q], rel, tg) != 0) goto fail;
    if (coordinates(st, ix, rel, tg) != 0) goto fail;
    st->ord = st->un[0].ord * st->un[1].ord;
    st->V = st->subsets * st->ord;
    st->pairs = st->un[0].levels * st->un[1].levels;
    st->pair_off = malloc((st->pairs + 1) * sizeof(int));
    if (!st->pair_off) goto fail;
    st->pair_off[0] = 0;
    for (int p = 0; p < st->pairs; p++) {
        int L0 = p / st->un[1].levels, L1 = p % st->un[1].levels;
        int nk0 = st->un[0].lev_off[L0 + 1] - st->un[0].lev_off[L0];
        int nk1 = st->un[1].lev_off[L1 + 1] - st->un[1].lev_off[L1];
        st->pair_off[p + 1] = st->pair_off[p] + nk0 * nk1;
    }
    st->NB = st->pair_off[st->pairs];
    st->max_terms = st->un[0].max_terms * st->un[1].max_terms;
    if (st->max_terms > st->NB) st->max_terms = st->NB;
    size_t max_pair = (size_t) st->un[0].B * st->un[1].B;
    st->blk_count = malloc((max_pair + 1) * sizeof(double));
    st->blk_start = malloc((max_pair + 1) * sizeof(size_t));
    st->tl_start = malloc((max_pair + 2) * sizeof(int));
    st->u = malloc((n * (size_t) K + 1) * sizeof(double));
    int okk = 1;
    for (int k = 0; k < K; k++) {
        st->gsort[k] = malloc((n + 1) * sizeof(int));
        st->ordk[k] = malloc((n + 1) * sizeof(int));
        st->zsk[k] = malloc((n + 1) * sizeof(double));
        st->rankk[k] = k > 0 ? malloc((n + 1) * sizeof(int)) : NULL;
        okk = okk && st->gsort[k] && st->ordk[k] && st->zsk[k] && (k == 0 || st->rankk[k]);
    }
    if (K >= 3) {
        st->pos1 = malloc((n + 1) * sizeof(int));
        okk = okk && st->pos1;
    }
    if (K == 4) {
        st->pos2 = malloc((n + 1) * sizeof(int));
        okk = okk && st->pos2;
    }
    if (!st->blk_count || !st->blk_start || !st->tl_start || !st->u || !okk)
        goto fail;
    /* centred, scaled coordinates */
    for (int k = 0; k < K; k++) {
        const double *z = st->zraw + (size_t) k * n;
        for (size_t j = 0; j < n; j++) st->u[j * K + k] = (z[j] - st->mid[k]) / st->half[k];
    }
    /* records by coordinate (grouped by block pair by pair, build_pair) */
    for (int k = 0; k < K; k++)
        if (sort_order(st->zraw + (size_t) k * n, 1, n, st->gsort[k]) != 0) goto fail;
    if (st->n_sharp && sharp_error(st, rel, tg) != 0) goto fail;

    /* targets */
    st->side = malloc((nt * (size_t) K * 4 + 1) * sizeof(double));
    st->cabs = malloc((nt + 1) * sizeof(double));
    for (int k = 0; k < K; k++) {
        st->tordk[k] = malloc((nt + 1) * sizeof(int));
        if (!st->tordk[k]) goto fail;
    }
    st->est = calloc(nt + 1, sizeof(double));
    st->rem = calloc(nt + 1, sizeof(double));
    st->fp = calloc(nt + 1, sizeof(double));
    st->slot_est = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_rem = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_fp = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->gcache = malloc(((size_t) threads * nt * (st->ord + 4) + 1) * sizeof(double));
    st->skip = malloc((size_t) threads * nt + 1);
    if (!st->side || !st->cabs || !st->est || !st->rem || !st->fp ||
        !st->slot_est || !st->slot_rem || !st->slot_fp || !st->gcache || !st->skip)
        goto fail;
    for (int k = 0; k < K; k++)
        if (sort_order(st->tk + (size_t) k * nt, 1, nt, st->tordk[k]) != 0) goto fail;
    if (K >= 3) {
        /* the largest block of any pair is at most n records; per thread
         * K - 1 coordinates of the records and of the targets */
        size_t most = n, w = (size_t) K - 1;
        st->dom = calloc((size_t) threads, sizeof(md_work *));
        st->pfx = malloc(((size_t) threads * 2 * nt + 1) * sizeof(int));
        st->tloc = malloc(((size_t) threads * w * nt + 1) * sizeof(double));
        st->zloc = malloc(((size_t) threads * w * most + 1) * sizeof(double));
        st->byloc = malloc(((size_t) threads * w * most + 1) * sizeof(int));
        if (!st->dom || !st->pfx || !st->tloc || !st->zloc || !st->byloc) goto fail;
        for (int t = 0; t < threads; t++) {
            st->dom[t] = md_work_alloc(most, nt, st->V);
            if (!st->dom[t]) goto fail;
        }
        if (K == 4) {
            st->dom4 = calloc((size_t) threads, sizeof(md_work4 *));
            if (!st->dom4) goto fail;
            for (int t = 0; t < threads; t++) {
                st->dom4[t] = md_work4_alloc(most, nt, st->V);
                if (!st->dom4[t]) goto fail;
            }
        }
    }
    for (size_t i = 0; i < nt; i++) {
        mt_target c;
        mt_setup_target(ix, rel, tg, i, &c);
        for (int k = 0; k < K; k++) {
            double *sd4 = st->side + (i * K + k) * 4;
            if (k >= st->n_known) {
                int q = st->sharp_q[k - st->n_known];
                sharp_sides(st, k, tg->pred_mean[i + (size_t) q * nt], rel->unknown_range[q],
                            NULL, sd4);
            } else if (c.act[k]) {
                double F = c.far[k], r = (st->mid[k] - c.t[k]) / F, s = st->half[k];
                /* z <= t: 1 - (t - z) / F; z > t: 1 - (z - t) / F */
                sd4[0] = 1.0 + r;
                sd4[1] = 1.0 - r;
                sd4[2] = s / F;
                sd4[3] = -s / F;
            } else {
                sd4[0] = sd4[1] = 1.0;
                sd4[2] = sd4[3] = 0.0;
            }
        }
        st->cabs[i] = part_abs_bound(st, i);
    }
    return st;

fail:
    ms_free(st);
    return NULL;
}

/* Build the record orders and the target lists of the pair of levels p. */
static int build_pair(ms_state *st, int p)
{
    size_t n = st->n, nt = st->nt;
    const ms_unknown *u0 = st->un, *u1 = st->un + 1;
    int K = st->K, L0 = p / u1->levels, L1 = p % u1->levels;
    int nk1 = u1->lev_off[L1 + 1] - u1->lev_off[L1];
    int nk = st->pair_off[p + 1] - st->pair_off[p];
    int lord = (L0 == 0 ? u0->ord : u0->ord_far) * (L1 == 0 ? u1->ord : u1->ord_far);
    size_t *pos = malloc(((size_t) nk + 1) * sizeof(size_t));
    int cap0 = u0->max_terms + 16, cap1 = u1->max_terms + 16;
    int *blk = malloc(((size_t) cap0 + cap1) * sizeof(int)), *o = malloc(((size_t) cap0 + cap1) * sizeof(int));
    if (!pos || !blk || !o) {
        free(pos); free(blk); free(o);
        return -1;
    }
    /* records by block, then by coordinate */
    for (int k = 0; k < nk; k++) st->blk_count[k] = 0.0;
    for (size_t j = 0; j < n; j++)
        st->blk_count[(u0->fbin[j] >> L0) * nk1 + (u1->fbin[j] >> L1)] += 1.0;
    size_t start = 0, most = 0;
    for (int k = 0; k < nk; k++) {
        st->blk_start[k] = start;
        start += (size_t) st->blk_count[k];
        if ((size_t) st->blk_count[k] > most) most = (size_t) st->blk_count[k];
    }
    size_t need = (most + 1) * (size_t) st->subsets * lord;
    if (need > st->fen_len) {
        free(st->fen);
        st->fen = malloc(((size_t) st->threads * need + 1) * sizeof(int64_t));
        st->fen_len = st->fen ? need : 0;
        if (!st->fen) {
            free(pos); free(blk); free(o);
            return -1;
        }
    }
    for (int k = 0; k < K; k++) {
        const int *srt = st->gsort[k];
        int *out = st->ordk[k];
        for (int b = 0; b < nk; b++) pos[b] = st->blk_start[b];
        for (size_t q = 0; q < n; q++) {
            int j = srt[q];
            out[pos[(u0->fbin[j] >> L0) * nk1 + (u1->fbin[j] >> L1)]++] = j;
        }
    }
    for (int k = 0; k < K; k++) {
        const double *zk = st->zraw + (size_t) k * n;
        for (int b = 0; b < nk; b++) {
            size_t s0 = st->blk_start[b], s1 = s0 + (size_t) st->blk_count[b];
            for (size_t q = s0; q < s1; q++) {
                if (k > 0) st->rankk[k][st->ordk[k][q]] = (int) (q - s0) + 1;
                if (k == 0 && K >= 3) st->pos1[st->ordk[0][q]] = (int) (q - s0);
                if (k == 1 && K == 4) st->pos2[st->ordk[1][q]] = (int) (q - s0);
                st->zsk[k][q] = zk[st->ordk[k][q]];
            }
        }
    }
    /* targets by block, in the order of t_1 (resp. t_2): the products of
     * their 1-d blocks at L0 and L1 */
    int *cnt = st->tl_start;
    memset(cnt, 0, ((size_t) nk + 1) * sizeof(int));
    size_t total = 0;
    int *b0 = blk, *b1 = blk + cap0, *o0 = o, *o1 = o + cap0;
    for (size_t i = 0; i < nt; i++) {
        int m0 = target_blocks(u0, i, L0, b0, o0);
        int m1 = m0 ? target_blocks(u1, i, L1, b1, o1) : 0;
        for (int a = 0; a < m0; a++)
            for (int c = 0; c < m1; c++) cnt[b0[a] * nk1 + b1[c] + 1]++;
        total += (size_t) m0 * m1;
    }
    for (int b = 0; b < nk; b++) cnt[b + 1] += cnt[b];
    if (total > st->tl_cap) {
        int ok = 1;
        st->tl_cap = total;
        for (int k = 0; k < K; k++) {
            free(st->tlk[k]);
            free(st->tok[k]);
            st->tlk[k] = malloc((total + 1) * sizeof(int));
            st->tok[k] = malloc(total + 1);
            ok = ok && st->tlk[k] && st->tok[k];
        }
        if (!ok) {
            st->tl_cap = 0;
            free(pos); free(blk); free(o);
            return -1;
        }
    }
    for (int pass = 0; pass < K; pass++) {
        const int *tord = st->tordk[pass];
        int *tl = st->tlk[pass];
        unsigned char *to = st->tok[pass];
        for (int b = 0; b < nk; b++) pos[b] = (size_t) cnt[b];
        for (size_t r = 0; r < nt; r++) {
            size_t i = (size_t) tord[r];
            int m0 = target_blocks(u0, i, L0, b0, o0);
            int m1 = m0 ? target_blocks(u1, i, L1, b1, o1) : 0;
            for (int a = 0; a < m0; a++)
                for (int c = 0; c < m1; c++) {
                    size_t at = pos[b0[a] * nk1 + b1[c]]++;
                    tl[at] = (int) i;
                    to[at] = (unsigned char) (16 * o0[a] + o1[c]);
                }
        }
    }
    free(pos); free(blk); free(o);
    st->cur_pair = p;
    return 0;
}

static double gap_of(double a, double b) { return a > 0 ? a : (b < 0 ? -b : 0.0); }

/* Bounds of |g^(m)(x)| over x in [a, b] (standard units) for m = 2..mmax
 * into out[m]: for m = 2 exact up to rounding, g'' = [phi(x + d) - 2 phi(x)
 * + phi(x - d)] / d with phi decreasing in |x| (Cramer's bound is loose at
 * order 0); for m >= 3 that of mt_derivative_bound (match_sum.c), the
 * exponentials computed once. */
static void derivative_bounds(double a, double b, double d, int mmax, double *out)
{
    double r[3] = { gap_of(a + d, b + d), gap_of(a, b), gap_of(a - d, b - d) };
    double ri = gap_of(a - d, b + d);
    double e2 = 0.0, e4 = 0.0;
    for (int q = 0; q < 3; q++) {
        double w = q == 1 ? 2.0 : 1.0;
        e2 += w * exp(-0.5 * r[q] * r[q]);
        e4 += w * exp(-0.25 * r[q] * r[q]);
    }
    double ei = exp(-0.25 * ri * ri), c = 1.086436 * RM_INV_SQRT_2PI;
    out[2] = RM_INV_SQRT_2PI * e2 / d * (1.0 + 1e-12);
    double f = 1.0; /* (m - 2)! */
    for (int m = 3; m <= mmax; m++) {
        f *= (m - 2);
        double by_terms = c * sqrt(f) * e4 / d;
        double by_integral = d * c * sqrt(f * (m - 1) * m) * ei;
        out[m] = (by_terms < by_integral ? by_terms : by_integral) * (1.0 + 1e-10);
    }
}

/* The Taylor coefficients G_0..G_{o-1} of unknown q's factor about its 1-d
 * block g for target i, at the lowest order o <= omax whose certified
 * remainder is below MS_REM_TARGET or that of omax; the weight that
 * multiplies the block's sum of p^A in the error bound (remainder of order
 * o and rounding of g and of its derivatives), and a bound of |g| over the
 * block. Returns 0 when g is exactly 0 on the whole block, else o. */
static int bin_coefficients(const ms_unknown *un, int g, size_t i, int omax, double *G,
                            double *remw, double *sup)
{
    if (!un->has) {
        G[0] = 1.0;
        *remw = 0.0;
        *sup = 1.0;
        return 1;
    }
    double sd = un->sd, d = un->d, m = un->mean[i], c = un->blk_c[g], h = un->blk_h[g];
    double xc = (c - m) / sd, xa = (c - h - m) / sd, xb = (c + h - m) / sd;
    double near = xa > 0 ? xa : (xb < 0 ? -xb : 0.0), far = fabs(xa) > fabs(xb) ? fabs(xa) : fabs(xb);
    /* the computed factor is exactly 0 beyond d + RM_FAR (rm_triangle_std) */
    if (near > d + RM_FAR + 1.0) return 0;
    /* the order: remainders of every order from the bounds of g^(o) */
    double ratio = h / sd, bounds[MS_ORDERS + 2], pad = 1e-9;
    derivative_bounds(xa - pad * (1 + fabs(xa)), xb + pad * (1 + fabs(xb)), d, omax + 1, bounds);
    double rems[MS_ORDERS + 2], scale = ratio, fact = 1.0;
    for (int k = 1; k <= omax; k++) {
        /* remainder of order k (degree k - 1): bound of g^(k) (h / sd)^k / k! */
        fact *= k;
        scale = k == 1 ? ratio : scale * ratio;
        rems[k] = k >= 2 ? bounds[k] * scale / fact : INFINITY;
    }
    int o = omax;
    for (int k = 2; k < omax; k++)
        if (rems[k] <= MS_REM_TARGET || rems[k] <= rems[omax]) {
            o = k;
            break;
        }
    int D = o - 1;
    double deriv[MS_ORDERS];
    mt_triangle_derivatives(xc, d, un->shrink, D, deriv);
    double sum_abs = 0.0, derr = 0.0;
    scale = 1.0;
    fact = 1.0;
    /* rounding of the closed form (the search's margin) at the records and
     * at the centre */
    double margin = 1e-12 * (2.0 + far + d) / d;
    /* |He_n(u)| phi(u) at the three kinks, by the recurrence on |u|, which
     * bounds every intermediate term of the derivatives' recurrence */
    double pts[3] = { xc + d, xc, xc - d }, w[3] = { 1.0, 2.0, 1.0 };
    double phi[3], h_prev[3], h_cur[3];
    for (int q = 0; q < 3; q++) {
        phi[q] = w[q] * RM_INV_SQRT_2PI * exp(-0.5 * pts[q] * pts[q]);
        h_prev[q] = 0.0;
        h_cur[q] = 1.0;
    }
    for (int k = 0; k <= D; k++) {
        if (k > 0) {
            scale *= ratio;
            fact *= k;
        }
        G[k] = deriv[k] * scale / fact;
        sum_abs += fabs(G[k]);
        /* rounding of the k-th derivative: k = 1 from three erfc; k >= 2 a
         * sum of three Hermite functions, each by a recurrence of k - 2
         * steps with relative rounding of a few eps per step */
        double e;
        if (k == 0) e = margin;
        else if (k == 1) e = 16.0 * MS_EPS * 4.0 / d;
        else {
            /* h_cur = A_{k-2}(|u|): A_0 = 1, A_{m+1} = |u| A_m + m A_{m-1} */
            e = 0.0;
            for (int q = 0; q < 3; q++) {
                if (k > 2) {
                    double next = fabs(pts[q]) * h_cur[q] + (k - 3) * h_prev[q];
                    h_prev[q] = h_cur[q];
                    h_cur[q] = next;
                }
                e += h_cur[q] * phi[q];
            }
            e *= 16.0 * (k + 2) * MS_EPS / d;
        }
        derr += e * scale / fact;
    }
    double r = o == 1 ? INFINITY : rems[o];
    *remw = (r + derr + margin) * (1.0 + 1e-12);
    *sup = sum_abs + *remw;
    return o;
}

/* The moment vector of record j in a block with centres c0, c1 and
 * half-widths h0, h1 of the unknowns: u^S v0^a v1^b at
 * [S * o0 * o1 + a * o1 + b], v = (y - c) / h. */
static void record_moments(const ms_state *st, size_t j, const double *c, const double *h,
                           const int *om, double *vec)
{
    int K = st->K, ord = om[0] * om[1];
    double pw[2][MS_ORDERS], m[MS_ORDERS * MS_ORDERS];
    for (int q = 0; q < 2; q++) {
        const ms_unknown *un = st->un + q;
        double v = un->has && h[q] > 0 ? (un->y[j] - c[q]) / h[q] : 0.0;
        pw[q][0] = 1.0;
        for (int k = 1; k < om[q]; k++) pw[q][k] = pw[q][k - 1] * v;
    }
    for (int a = 0; a < om[0]; a++)
        for (int b = 0; b < om[1]; b++) m[a * om[1] + b] = pw[0][a] * pw[1][b];
    const double *u = st->u + j * K;
    for (int S = 0; S < st->subsets; S++) {
        double f = 1.0;
        for (int k = 0; k < K; k++)
            if (S & (1 << k)) f *= u[k];
        for (int k = 0; k < ord; k++) vec[S * ord + k] = f * m[k];
    }
}

/* The part coefficients of target i, part W: coef[S] (S = 0..2^K - 1) for
 * the part D_W (the block's records with z_w <= t_w for every w in W; W = 0
 * is the block's total) and the monomial u^S. On the orthant L of t (the
 * variables with z_v <= t_v) the known factors are sum_S c_L[S] u^S,
 * c_L[S] = prod_v x_v(L, S), x_v = beta_v or alpha_v on v's side of L as v is
 * in S or not; the orthant's sum is O_L = sum_{W containing L} (-1)^{|W - L|}
 * D_W (inclusion-exclusion), so coef_W[S] = sum_{L in W} (-1)^{|W - L|}
 * c_L[S] (Mobius inversion), which factors over the variables:
 * prod_{v in W} (x_v(low) - x_v(high)) prod_{v not in W} x_v(high). Computed
 * when a part is added (2^K K multiplies; a table would take 2^K x 2^K
 * doubles per target). */
static const double *part_row(const ms_state *st, size_t i, int W, double *buf)
{
    int K = st->K, NS = st->subsets;
    const double *sd = st->side + i * (size_t) K * 4;
    double x[MS_MAX_KNOWN][2];
    for (int v = 0; v < K; v++) {
        const double *s4 = sd + v * 4;
        int in = (W >> v) & 1;
        /* [0]: v not in S (alpha), [1]: v in S (beta) */
        x[v][0] = in ? s4[0] - s4[1] : s4[1];
        x[v][1] = in ? s4[2] - s4[3] : s4[3];
    }
    for (int S = 0; S < NS; S++) {
        double f = 1.0;
        for (int v = 0; v < K; v++) f *= x[v][(S >> v) & 1];
        buf[S] = f;
    }
    return buf;
}

/* A bound of the sum over all parts W and monomials S of |coef_W[S]| and of
 * the |terms| of the products that compute it (for the rounding bound):
 * expanding the product form, each coef_W[S] is a signed sum of the c_L[S],
 * L in W, so the |terms| sum to sum_W sum_{L in W} |c_L[S]| = sum_L 2^(K -
 * |L|) prod_v (|alpha_v(L)| + |beta_v(L)|) = prod_v (f_v(low) + 2 f_v(high)),
 * f_v(side) = |alpha_v| + |beta_v| on that side; |coef_W[S]| is at most its
 * terms' sum: twice that bounds both. */
static double part_abs_bound(const ms_state *st, size_t i)
{
    const double *sd = st->side + i * (size_t) st->K * 4;
    double prod = 1.0;
    for (int v = 0; v < st->K; v++) {
        const double *s4 = sd + v * 4;
        prod *= fabs(s4[0]) + fabs(s4[2]) + 2.0 * (fabs(s4[1]) + fabs(s4[3]));
    }
    return 2.0 * prod * (1.0 + 1e-12);
}

typedef struct {
    ms_state *st;
} bin_job;

/* What one block's sums need: its records [base, base + nb) of the orders
 * ordk, its targets [t0, t1n) of the lists tlk, its centres, half-widths
 * and orders per unknown (moment vectors of V = 2^K lord, lord = om[0]
 * om[1], stride lo1 = om[1]), the thread's Taylor coefficients and skip
 * flags, the slot's sums, the thread's Fenwick scratch, the fixed-point
 * scale. */
typedef struct {
    ms_state *st;
    size_t base, nb;
    int t0, t1n;
    const double *bc, *bh;
    const int *om;
    int lord, lo1, V;
    const double *gc;
    const unsigned char *skip;
    double *oest, *orem;
    int64_t *fen;
    double scale, inv;          /* 2^shift, 2^-shift */
} bin_ctx;

/* Record j's moments in fixed point: u^S v0^a v1^b 2^shift truncated to an
 * integer (an inlined conversion; llrint is a library call). Sums of at most
 * nb of them are exact in int64_t (|moment| <= 1 + tiny, 2^shift <= 2^61 /
 * nb), so every sum below is exact and independent of the order of its
 * additions; each record's moment is off by less than 2^-shift (the scaling
 * by a power of two is exact). */
static void record_fixed(const bin_ctx *bx, size_t j, int64_t *out)
{
    double vec[MS_VEC_MAX];
    record_moments(bx->st, j, bx->bc, bx->bh, bx->om, vec);
    for (int k = 0; k < bx->V; k++) out[k] = (int64_t) (vec[k] * bx->scale);
}

/* For target i: est += sum_S coef[S] sum_{a < o0, b < o1} G_ab X[S][a, b]
 * and rem += remw sum_S coef[S] X[S][0, 0], X the fixed-point sums (the
 * scaling by 2^-shift, a power of two, is exact; G and X indexed
 * a * lo1 + b). */
static void add_fixed(const bin_ctx *bx, const double *coef, const double *G, const int64_t *X,
                      int o0, int o1, size_t i)
{
    int ord = bx->st->ord, lord = bx->lord, lo1 = bx->lo1;
    double e = 0.0, r = 0.0;
    for (int S = 0; S < bx->st->subsets; S++) {
        const int64_t *x = X + S * lord;
        double inner = 0.0;
        for (int a = 0; a < o0; a++)
            for (int b = 0; b < o1; b++) inner += G[a * lo1 + b] * (double) x[a * lo1 + b];
        e += coef[S] * inner;
        r += coef[S] * (double) x[0];
    }
    bx->oest[i] += e * bx->inv;
    bx->orem[i] += G[ord] * (r * bx->inv);
}

/* The block's records in the order of z_a: the running sum gives D_{a}
 * (added when `single`), a Fenwick tree over the rank of z_c (c >= 0) gives
 * D_{a, c}, reading only the orders the target uses. Records with
 * z_a <= t_a (raw values, ties in) are added in their fixed order, whatever
 * the other targets. */
static void sweep_axis(const bin_ctx *bx, int a, int c, int single)
{
    const ms_state *st = bx->st;
    int V = bx->V, ord = st->ord, NS = st->subsets, lord = bx->lord, lo1 = bx->lo1;
    size_t nt = st->nt, nb = bx->nb, base = bx->base;
    int64_t run[MS_VEC_MAX], vec[MS_VEC_MAX], q[MS_VEC_MAX];
    memset(run, 0, (size_t) V * sizeof(int64_t));
    if (c >= 0) memset(bx->fen, 0, (nb + 1) * (size_t) V * sizeof(int64_t));
    const double *ta = st->tk + (size_t) a * nt, *za = st->zsk[a] + base;
    const int *oa = st->ordk[a] + base;
    size_t p = 0;
    for (int r = bx->t0; r < bx->t1n; r++) {
        size_t i = (size_t) st->tlk[a][r];
        while (p < nb && za[p] <= ta[i]) {
            int j = oa[p];
            record_fixed(bx, (size_t) j, vec);
            for (int k = 0; k < V; k++) run[k] += vec[k];
            if (c >= 0)
                for (size_t f = (size_t) st->rankk[c][j]; f <= nb; f += f & (~f + 1)) {
                    int64_t *node = bx->fen + f * V;
                    for (int k = 0; k < V; k++) node[k] += vec[k];
                }
            p++;
        }
        if (bx->skip[i]) continue;
        const double *G = bx->gc + i * (ord + 4);
        int o0 = (int) G[ord + 2], o1 = (int) G[ord + 3];
        double cbuf[1 << MS_MAX_KNOWN];
        if (single) add_fixed(bx, part_row(st, i, 1 << a, cbuf), G, run, o0, o1, i);
        if (c >= 0) {
            /* records of the block with z_c <= t_c: ranks 1..upper */
            double tc = st->tk[(size_t) c * nt + i];
            const double *zc = st->zsk[c] + base;
            size_t lo = 0, hi = nb;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (zc[mid] <= tc) lo = mid + 1;
                else hi = mid;
            }
            memset(q, 0, (size_t) V * sizeof(int64_t));
            for (size_t f = lo; f > 0; f -= f & (~f + 1)) {
                const int64_t *node = bx->fen + f * V;
                if (o0 * o1 == lord)
                    for (int k = 0; k < V; k++) q[k] += node[k];
                else
                    for (int S = 0; S < NS; S++)
                        for (int x = 0; x < o0; x++)
                            for (int y = 0; y < o1; y++) {
                                int at = S * lord + x * lo1 + y;
                                q[at] += node[at];
                            }
            }
            add_fixed(bx, part_row(st, i, (1 << a) | (1 << c), cbuf), G, q, o0, o1, i);
        }
    }
}

/* A dominance problem of a block: the records by their position in z_a
 * order, the queries its targets in the order of the list `list` (t_list),
 * the part W. */
typedef struct {
    const bin_ctx *bx;
    int a, list, W;
} dom_ctx;

static void dominance_moments(void *ctx, size_t local, int64_t *vec)
{
    const dom_ctx *dc = (const dom_ctx *) ctx;
    const bin_ctx *bx = dc->bx;
    record_fixed(bx, (size_t) bx->st->ordk[dc->a][bx->base + local], vec);
}

/* Query q of the block is its q-th target in the list's order. */
static void dominance_emit(void *ctx, size_t q, const int64_t *sum)
{
    const dom_ctx *dc = (const dom_ctx *) ctx;
    const bin_ctx *bx = dc->bx;
    const ms_state *st = bx->st;
    size_t i = (size_t) st->tlk[dc->list][bx->t0 + (int) q];
    const double *G = bx->gc + i * (st->ord + 4);
    double cbuf[1 << MS_MAX_KNOWN];
    add_fixed(bx, part_row(st, i, dc->W, cbuf), G, sum, (int) G[st->ord + 2],
              (int) G[st->ord + 3], i);
}

/* The block's targets' prefix counts {z_a <= t_a} (0 for skipped targets)
 * and their query ids, in the order of the list tlk[list]. */
static void dominance_queries(const bin_ctx *bx, int a, int list, int *pfx, int *qid)
{
    const ms_state *st = bx->st;
    size_t nt = st->nt, nb = bx->nb, m = (size_t) (bx->t1n - bx->t0);
    const double *zas = st->zsk[a] + bx->base;
    const int *lst = st->tlk[list] + bx->t0;
    for (size_t q = 0; q < m; q++) {
        size_t i = (size_t) lst[q];
        qid[q] = (int) q;
        if (bx->skip[i]) {
            pfx[q] = 0;
            continue;
        }
        double ta = st->tk[(size_t) a * nt + i];
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (zas[mid] <= ta) lo = mid + 1;
            else hi = mid;
        }
        pfx[q] = (int) lo;
    }
}

/* K >= 3: the part D_{a,b,c} (a < b < c; a = 0 or 1) by the 3-d dominance
 * sums of match_dominance.c over the block's records (by position in z_a
 * order), its targets as the queries (in t_b order). Returns the number of
 * tree levels. */
static int sweep_dominance(const bin_ctx *bx, int thread, int a, int b, int c)
{
    const ms_state *st = bx->st;
    size_t n = st->n, nt = st->nt, nb = bx->nb, base = bx->base;
    size_t m = (size_t) (bx->t1n - bx->t0), w = (size_t) st->K - 1;
    int *pfx = st->pfx + (size_t) thread * 2 * nt, *qid = pfx + nt;
    double *t2 = st->tloc + (size_t) thread * w * nt, *t3 = t2 + m;
    double *z2 = st->zloc + (size_t) thread * w * n, *z3 = z2 + nb;
    int *by2 = st->byloc + (size_t) thread * w * n, *by3 = by2 + nb;
    const int *pa = a == 0 ? st->pos1 : st->pos2;
    for (size_t p = 0; p < nb; p++) {
        int j = st->ordk[a][base + p];
        z2[p] = st->zraw[(size_t) b * n + (size_t) j];
        z3[p] = st->zraw[(size_t) c * n + (size_t) j];
        by2[p] = pa[st->ordk[b][base + p]];
        by3[p] = pa[st->ordk[c][base + p]];
    }
    const int *list = st->tlk[b] + bx->t0;
    for (size_t q = 0; q < m; q++) {
        size_t i = (size_t) list[q];
        t2[q] = st->tk[(size_t) b * nt + i];
        t3[q] = st->tk[(size_t) c * nt + i];
    }
    dominance_queries(bx, a, b, pfx, qid);
    md_problem pb = { nb, z2, z3, by2, by3, m, qid, pfx, t2, t3, bx->V, bx->fen };
    dom_ctx dc = { bx, a, b, (1 << a) | (1 << b) | (1 << c) };
    return md_dominance3(&pb, st->dom[thread], dominance_moments, dominance_emit, &dc);
}

/* K = 4: the part D_{0,1,2,3} by the 4-d dominance sums (records by
 * position in z_0 order, queries in t_2 order). Returns the bound of the
 * nodes per query. */
static int sweep_dominance4(const bin_ctx *bx, int thread)
{
    const ms_state *st = bx->st;
    size_t n = st->n, nt = st->nt, nb = bx->nb, base = bx->base;
    size_t m = (size_t) (bx->t1n - bx->t0);
    int *pfx = st->pfx + (size_t) thread * 2 * nt, *qid = pfx + nt;
    double *t2 = st->tloc + (size_t) thread * 3 * nt, *t3 = t2 + m, *t4 = t3 + m;
    double *z2 = st->zloc + (size_t) thread * 3 * n, *z3 = z2 + nb, *z4 = z3 + nb;
    int *by2 = st->byloc + (size_t) thread * 3 * n, *by3 = by2 + nb, *by4 = by3 + nb;
    for (size_t p = 0; p < nb; p++) {
        int j = st->ordk[0][base + p];
        z2[p] = st->zraw[n + (size_t) j];
        z3[p] = st->zraw[2 * n + (size_t) j];
        z4[p] = st->zraw[3 * n + (size_t) j];
        by2[p] = st->pos1[st->ordk[1][base + p]];
        by3[p] = st->pos1[st->ordk[2][base + p]];
        by4[p] = st->pos1[st->ordk[3][base + p]];
    }
    const int *list = st->tlk[2] + bx->t0;
    for (size_t q = 0; q < m; q++) {
        size_t i = (size_t) list[q];
        t2[q] = st->tk[nt + i];
        t3[q] = st->tk[2 * nt + i];
        t4[q] = st->tk[3 * nt + i];
    }
    dominance_queries(bx, 0, 2, pfx, qid);
    md_problem4 pb = { nb, z2, z3, z4, by2, by3, by4, m, qid, pfx, t2, t3, t4, bx->V, bx->fen };
    dom_ctx dc = { bx, 0, 2, 15 };
    return md_dominance4(&pb, st->dom4[thread], dominance_moments, dominance_emit, &dc);
}

static double run_bin(void *ctx, size_t row, int thread)
{
    ms_state *st = ((bin_job *) ctx)->st;
    const ms_unknown *u0 = st->un, *u1 = st->un + 1;
    int g = (int) row, slot = g - st->group_from, K = st->K, p = st->cur_pair;
    int L0 = p / u1->levels, L1 = p % u1->levels, ord = st->ord, NS = st->subsets;
    int nk1 = u1->lev_off[L1 + 1] - u1->lev_off[L1], k = g - st->pair_off[p];
    int g0 = u0->lev_off[L0] + k / nk1, g1 = u1->lev_off[L1] + k % nk1;
    int om[2] = { L0 == 0 ? u0->ord : u0->ord_far, L1 == 0 ? u1->ord : u1->ord_far };
    int lord = om[0] * om[1], lo1 = om[1], V = NS * lord;
    size_t nt = st->nt, nb = (size_t) st->blk_count[k], base = st->blk_start[k];
    double *oest = st->slot_est + (size_t) slot * nt, *orem = st->slot_rem + (size_t) slot * nt,
           *ofp = st->slot_fp + (size_t) slot * nt;
    double *gc = st->gcache + (size_t) thread * nt * (ord + 4);
    unsigned char *skip = st->skip + (size_t) thread * nt;
    int64_t *fen = st->fen + (size_t) thread * st->fen_len;
    double count = st->blk_count[k];
    double bc[2] = { u0->blk_c[g0], u1->blk_c[g1] }, bh[2] = { u0->blk_h[g0], u1->blk_h[g1] };
    int t0 = st->tl_start[k], t1n = st->tl_start[k + 1];
    for (int pos = t0; pos < t1n; pos++) {
        size_t i = (size_t) st->tlk[0][pos];
        oest[i] = orem[i] = ofp[i] = 0.0;
    }
    if (nb == 0 || t0 == t1n) return 1.0;
    /* The moments are summed exactly in fixed point (record_fixed): each
     * record's is off by less than 2^-shift, so a part's sum by count_b
     * 2^-shift at most. The rest is rounding in double, gamma of the
     * longest chain of operations a term passes through, doubled for the
     * rounding of |u|, |v| <= 1: the moment's product (K + om[0] + om[1]
     * factors), its conversion back from fixed point, the inner products
     * (V terms), the 2^K parts (for K = 3 one more per level of the
     * dominance tree), the blocks of the target; each coefficient is a
     * product of K factors, each a difference of two sides (2 K roundings,
     * within the K + 2^K counted for it). */
    int shift = 61;
    for (size_t m = nb + 1; m > 1; m = (m + 1) / 2) shift--;
    double lg = ceil(log2((double) nb + 2.0)) + 1.0;
    /* K = 4: four 3-d parts and the 4-d part (a node per outer and inner
     * level) */
    double lv = (double) md_levels(nb);
    double levels = K == 3 ? lv : K == 4 ? 4.0 * lv + lv * lv : 1.0;
    double ops = (double) (K + om[0] + om[1]) + 2.0 + V + NS + levels + st->max_terms + K + NS +
                 8.0;
    double gamma = 2.0 * ops * MS_EPS / (1.0 - ops * MS_EPS) + ldexp(1.0, -shift);
    for (int pos = t0; pos < t1n; pos++) {
        size_t i = (size_t) st->tlk[0][pos];
        double *G = gc + i * (ord + 4);
        double G0[MS_ORDERS], G1[MS_ORDERS], r0, r1, s0, s1;
        int o0 = bin_coefficients(u0, g0, i, st->tok[0][pos] >> 4, G0, &r0, &s0);
        int o1 = o0 ? bin_coefficients(u1, g1, i, st->tok[0][pos] & 15, G1, &r1, &s1) : 0;
        skip[i] = !o0 || !o1;
        if (skip[i]) {
            /* g < 1e-300 on the block */
            ofp[i] = count * 1e-300;
            continue;
        }
        for (int a = 0; a < o0; a++)
            for (int b = 0; b < o1; b++) G[a * lo1 + b] = G0[a] * G1[b];
        /* the product's remainder: (P0 + e0)(P1 + e1) - P0 P1 */
        G[ord] = r0 * s1 + r1 * s0 + r0 * r1;
        G[ord + 1] = s0 * s1;
        G[ord + 2] = o0;
        G[ord + 3] = o1;
        /* the sums' rounding, and that of the computed known factors
         * (a few eps each) times g */
        ofp[i] = gamma * count * st->cabs[i] * G[ord + 1] + count * K * 8.0 * MS_EPS * G[ord + 1];
    }
    bin_ctx bx = { st, base, nb, t0, t1n, bc, bh, om, lord, lo1, V, gc, skip, oest, orem, fen,
                   ldexp(1.0, shift), ldexp(1.0, -shift) };
    /* the parts D_W, |W| = 1 and 2: one sweep per variable a with a
     * Fenwick tree over each later variable c (the running sum gives D_{a}
     * in the first of them) */
    for (int a = 0; a < K; a++) {
        if (a == K - 1) sweep_axis(&bx, a, -1, 1);
        for (int c = a + 1; c < K; c++) sweep_axis(&bx, a, c, c == a + 1);
    }
    /* |W| = 3 */
    if (K == 3) sweep_dominance(&bx, thread, 0, 1, 2);
    if (K == 4) {
        sweep_dominance(&bx, thread, 0, 1, 2);
        sweep_dominance(&bx, thread, 0, 1, 3);
        sweep_dominance(&bx, thread, 0, 2, 3);
        sweep_dominance(&bx, thread, 1, 2, 3);
        sweep_dominance4(&bx, thread);
    }
    /* W = 0: the block's total */
    int64_t T[MS_VEC_MAX], vec[MS_VEC_MAX];
    memset(T, 0, (size_t) V * sizeof(int64_t));
    for (size_t pp = 0; pp < nb; pp++) {
        record_fixed(&bx, (size_t) st->ordk[0][base + pp], vec);
        for (int v = 0; v < V; v++) T[v] += vec[v];
    }
    for (int pos = t0; pos < t1n; pos++) {
        size_t i = (size_t) st->tlk[0][pos];
        if (skip[i]) continue;
        const double *G = gc + i * (ord + 4);
        double cbuf[1 << MS_MAX_KNOWN];
        add_fixed(&bx, part_row(st, i, 0, cbuf), G, T, (int) G[ord + 2], (int) G[ord + 3], i);
    }
    return (double) (t1n - t0) * (K == 4 ? 8.0 * lg * lg : K == 3 ? 4.0 * lg : K == 2 ? 4.0 : 1.0) *
               V + (double) nb * V;
}

int ms_run_bins(ms_state *st, int from, int to, int threads)
{
    if (to - from > st->slots) to = from + st->slots;
    int p = 0;
    while (from >= st->pair_off[p + 1]) p++;
    if (to > st->pair_off[p + 1]) to = st->pair_off[p + 1];
    if (p != st->cur_pair && build_pair(st, p) != 0) return -1;
    st->group_from = from;
    bin_job job = { st };
    rm_init();
    for (size_t next = (size_t) from; next < (size_t) to;)
        next = par_rows(next, (size_t) to, 1, INFINITY, threads, run_bin, &job);
    /* add the blocks in their order, each to its own targets: the same sums
     * for any number of threads */
    for (int g = from; g < to; g++) {
        size_t off = (size_t) (g - from) * st->nt;
        int k = g - st->pair_off[p];
        for (int pos = st->tl_start[k]; pos < st->tl_start[k + 1]; pos++) {
            size_t i = (size_t) st->tlk[0][pos];
            st->est[i] += st->slot_est[off + i];
            st->rem[i] += st->slot_rem[off + i];
            st->fp[i] += st->slot_fp[off + i];
        }
    }
    return to;
}

void ms_error(const ms_state *st, double *err)
{
    for (size_t i = 0; i < st->nt; i++) {
        double r = st->rem[i] > 0 ? st->rem[i] : 0.0;
        /* the remainder's sum is itself rounded: its terms are in fp */
        err[i] = (r + st->fp[i] + (st->sharp_err ? st->sharp_err[i] : 0.0)) * (1.0 + 1e-12);
    }
}
