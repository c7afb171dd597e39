/* The normaliser of the record-matching risk for all targets by offline
 * orthogonal range sums of Taylor moments: see match_sweep.h for the method
 * and its certification. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "match_internal.h"
#include "match_sweep.h"
#include "par_rows.h"

#define MS_VEC_MAX (4 * MS_ORDERS)
#define MS_EPS DBL_EPSILON

struct ms_state {
    size_t n, nt;
    int K, ord, subsets, V;     /* known variables, Taylor orders, 2^K, vector length */
    int has_u;                  /* an active unknown */
    double sd, d, shrink;
    /* records */
    double *u;                  /* n x K, record-major: centred, scaled known coordinates */
    int B;                      /* fine bins */
    double *bin_c, *bin_h, *bin_count;
    size_t *bin_start;          /* B + 1 */
    size_t max_bin;
    /* blocks: the fine bins (level 0) and their dyadic unions (level L:
     * fine bins [k 2^L, min((k + 1) 2^L, B))), numbered level by level */
    const double *y;            /* the records' unknown (the caller's) */
    double ylo, width;          /* the fine grid */
    int levels, NB, ord_far, max_terms;
    int *lev_off;               /* levels + 1 */
    double *blk_c, *blk_h, *blk_count;
    size_t *blk_start;          /* within its level's record order */
    int *fbin;                  /* per record: its fine bin */
    int *gsort1, *gsort2;       /* records by z_1 (resp. z_2), then index */
    int *near;                  /* per target: 3 intervals [lo, hi) of fine bins near a kink */
    int cur_level;              /* the level whose orders and lists are built */
    int *ord1, *ord2;           /* records by block of the level, then by z_1 (resp. z_2) */
    int *rank2;                 /* per record: 1-based rank of z_2 within its block */
    double *z2s;                /* z_2 in the order ord2 */
    int *tl_start;              /* per block of the level: its targets [tl_start[k], tl_start[k + 1]) */
    int *tl1, *tl2;             /* the targets of each block by t_1 (resp. t_2) */
    unsigned char *to1, *to2;   /* the Taylor orders they use there */
    size_t tl_cap;
    /* targets */
    const double *z1raw;        /* z_1 of every record (the caller's) */
    const double *tk;           /* n_targets x K (column-major, as tg->known) */
    double *mean;               /* predicted mean per target */
    double *side;               /* nt x K x 4: alpha_L, alpha_H, beta_L, beta_H */
    double *cabs;               /* per target: sum of |part coefficients| */
    double *pcoef;              /* nt x 4 x 4: the part coefficients (part_coefficients) */
    int *tord1, *tord2;         /* targets by t_1 (resp. t_2), then index */
    /* sums in bin order */
    double *est, *rem, *fp;
    /* per slot (bins of one group) and per thread */
    int slots;
    double *slot_est, *slot_rem, *slot_fp;     /* slots x nt */
    double *fen;                /* threads x fen_len */
    size_t fen_len;
    double *gcache;             /* threads x nt x (ord + 2): G_0..G_D, remw, sup */
    unsigned char *skip;        /* threads x nt */
    int group_from;
};

int ms_applies(const rm_released *rel)
{
    if (rel->n_known < 1 || rel->n_known > MS_MAX_KNOWN || rel->n_unknown > 1) return 0;
    if (rel->n_unknown == 0 || !(rel->unknown_range[0] > 0)) return 1;
    double sd = rel->unknown_sd[0], range = rel->unknown_range[0];
    if (!(sd > 0)) return 0;
    double bins = ceil(range / (2.0 * MS_HALF_SD * sd));
    return isfinite(bins) && bins <= MS_MAX_BINS;
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

static void part_coefficients(const ms_state *st, size_t i, double coef[4][4]);

void ms_free(ms_state *st)
{
    if (!st) return;
    free(st->u); free(st->bin_c); free(st->bin_h); free(st->bin_count);
    free(st->bin_start); free(st->ord1); free(st->ord2); free(st->rank2); free(st->z2s);
    free(st->lev_off); free(st->blk_c); free(st->blk_h); free(st->blk_count); free(st->blk_start);
    free(st->fbin); free(st->gsort1); free(st->gsort2); free(st->near);
    free(st->tl_start); free(st->tl1); free(st->tl2); free(st->to1); free(st->to2);
    free(st->mean); free(st->side); free(st->cabs); free(st->pcoef); free(st->tord1); free(st->tord2);
    free(st->est); free(st->rem); free(st->fp);
    free(st->slot_est); free(st->slot_rem); free(st->slot_fp);
    free(st->fen); free(st->gcache); free(st->skip);
    free(st);
}

int ms_bins(const ms_state *st) { return st->B; }
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
static void near_bins(const ms_state *st, double kink, int *lo, int *hi)
{
    double r = MS_NEAR_SD * st->sd, a = (kink - r - st->ylo) / st->width,
           b = (kink + r - st->ylo) / st->width;
    *lo = *hi = 0;
    if (!(b >= 0) || !(a < st->B)) return;
    *lo = a <= 0 ? 0 : (int) floor(a);
    *hi = b >= st->B - 1 ? st->B : (int) floor(b) + 1;
}

/* The blocks target i uses at level L, with the Taylor order of each: the
 * fine bins near its kinks at the full order; the rest of [0, B) cut into
 * maximal dyadic blocks, at order ord_far. Writes at most `cap` pairs into
 * blk (local index within the level) and o; returns their number. */
static int target_blocks(const ms_state *st, size_t i, int L, int *blk, unsigned char *o)
{
    int m = 0;
    const int *nr = st->near + i * 6;
    if (L == 0)
        for (int q = 0; q < 3; q++)
            for (int b = nr[2 * q]; b < nr[2 * q + 1]; b++) {
                blk[m] = b;
                o[m++] = (unsigned char) st->ord;
            }
    /* the gaps between the near intervals (sorted, disjoint) */
    int from = 0;
    for (int q = 0; q <= 3; q++) {
        int to = q < 3 ? nr[2 * q] : st->B;
        if (q < 3 && nr[2 * q] == nr[2 * q + 1]) continue;
        for (int pos = from; pos < to;) {
            int l = 0;
            while (l + 1 < st->levels && pos % (1 << (l + 1)) == 0) {
                int end = pos + (1 << (l + 1));
                if ((end < st->B ? end : st->B) > to) break;
                l++;
            }
            if (l == L) {
                blk[m] = pos >> L;
                o[m++] = (unsigned char) st->ord_far;
            }
            int end = pos + (1 << l);
            pos = end < st->B ? end : st->B;
        }
        if (q < 3) from = nr[2 * q + 1];
    }
    return m;
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
    st->K = K;
    st->subsets = 1 << K;
    st->has_u = rel->n_unknown == 1 && rel->unknown_range[0] > 0;
    st->ord = st->has_u ? MS_ORDERS : 1;
    st->ord_far = st->has_u ? MS_ORDERS_FAR : 1;
    st->V = st->subsets * st->ord;
    st->cur_level = -1;
    const double *y = st->has_u ? rel->masked_unknown : NULL;
    st->y = y;
    if (st->has_u) {
        st->sd = rel->unknown_sd[0];
        st->d = rel->unknown_range[0] / st->sd;
        st->shrink = exp(-0.5 * st->d * st->d);
    }
    if (threads < 1) threads = 1;
    st->slots = threads;

    /* fine bins */
    double ylo = 0.0, yhi = 0.0;
    if (st->has_u) {
        ylo = INFINITY;
        yhi = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            if (y[j] < ylo) ylo = y[j];
            if (y[j] > yhi) yhi = y[j];
        }
        double bins = ceil((yhi - ylo) / (2.0 * MS_HALF_SD * st->sd));
        st->B = bins < 1 ? 1 : (int) bins;
    } else {
        st->B = 1;
    }
    int B = st->B;
    double width = (yhi - ylo) / B;
    st->ylo = ylo;
    st->width = width;
    st->levels = 1;
    while ((1 << (st->levels - 1)) < B) st->levels++;
    st->bin_c = malloc(B * sizeof(double));
    st->bin_h = malloc(B * sizeof(double));
    st->bin_count = calloc(B, sizeof(double));
    st->bin_start = calloc((size_t) B + 1, sizeof(size_t));
    st->u = malloc((n * (size_t) K + 1) * sizeof(double));
    st->ord1 = malloc(n * sizeof(int));
    st->ord2 = malloc(n * sizeof(int));
    st->rank2 = malloc(n * sizeof(int));
    st->z2s = malloc(n * sizeof(double));
    st->fbin = malloc(n * sizeof(int));
    st->gsort1 = malloc(n * sizeof(int));
    st->gsort2 = malloc(n * sizeof(int));
    st->lev_off = malloc((st->levels + 1) * sizeof(int));
    double *bmin = malloc(B * sizeof(double)), *bmax = malloc(B * sizeof(double));
    if (!st->bin_c || !st->bin_h || !st->bin_count || !st->bin_start || !st->u ||
        !st->ord1 || !st->ord2 || !st->rank2 || !st->z2s || !st->fbin || !st->gsort1 ||
        !st->gsort2 || !st->lev_off || !bmin || !bmax)
        goto fail;
    for (int b = 0; b < B; b++) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
    }
    for (size_t j = 0; j < n; j++) {
        int b = st->has_u ? bin_of(y[j], ylo, width, B) : 0;
        st->fbin[j] = b;
        st->bin_count[b] += 1.0;
        if (st->has_u) {
            if (y[j] < bmin[b]) bmin[b] = y[j];
            if (y[j] > bmax[b]) bmax[b] = y[j];
        }
    }
    for (int b = 0; b < B; b++) {
        st->bin_start[b + 1] = st->bin_start[b] + (size_t) st->bin_count[b];
        if (st->has_u && st->bin_count[b] > 0) {
            st->bin_c[b] = 0.5 * (bmin[b] + bmax[b]);
            st->bin_h[b] = 0.5 * (bmax[b] - bmin[b]);
        } else {
            st->bin_c[b] = 0.0;
            st->bin_h[b] = 0.0;
        }
        size_t cnt = (size_t) st->bin_count[b];
        if (cnt > st->max_bin) st->max_bin = cnt;
    }
    /* the blocks of every level: centre and half-width from their records */
    st->lev_off[0] = 0;
    for (int L = 0; L < st->levels; L++)
        st->lev_off[L + 1] = st->lev_off[L] + (B + (1 << L) - 1) / (1 << L);
    st->NB = st->lev_off[st->levels];
    st->blk_c = malloc(st->NB * sizeof(double));
    st->blk_h = malloc(st->NB * sizeof(double));
    st->blk_count = malloc(st->NB * sizeof(double));
    st->blk_start = malloc(st->NB * sizeof(size_t));
    if (!st->blk_c || !st->blk_h || !st->blk_count || !st->blk_start) goto fail;
    size_t fen_len = 0;
    for (int L = 0; L < st->levels; L++) {
        size_t start = 0;
        int VL = st->subsets * (L == 0 ? st->ord : st->ord_far);
        for (int k = 0; k < st->lev_off[L + 1] - st->lev_off[L]; k++) {
            int g = st->lev_off[L] + k, b0 = k << L, b1 = (k + 1) << L;
            if (b1 > B) b1 = B;
            double lo = INFINITY, hi = -INFINITY, cnt = 0.0;
            for (int b = b0; b < b1; b++) {
                cnt += st->bin_count[b];
                if (st->bin_count[b] > 0) {
                    if (bmin[b] < lo) lo = bmin[b];
                    if (bmax[b] > hi) hi = bmax[b];
                }
            }
            st->blk_count[g] = cnt;
            st->blk_start[g] = start;
            start += (size_t) cnt;
            if (st->has_u && cnt > 0 && L > 0) {
                st->blk_c[g] = 0.5 * (lo + hi);
                st->blk_h[g] = 0.5 * (hi - lo);
            } else {
                st->blk_c[g] = st->bin_c[b0];
                st->blk_h[g] = st->bin_h[b0];
            }
            size_t len = ((size_t) cnt + 1) * VL;
            if (len > fen_len) fen_len = len;
        }
    }
    st->fen_len = fen_len;
    /* centred, scaled known coordinates */
    for (int k = 0; k < K; k++) {
        const double *z = rel->masked_known + (size_t) k * n;
        double lo = ix->sorted[(size_t) k * n], hi = ix->sorted[(size_t) k * n + n - 1];
        double a = 0.5 * (lo + hi), s = 0.5 * (hi - lo);
        if (!(s > 0)) s = 1.0;
        for (size_t j = 0; j < n; j++) st->u[j * K + k] = (z[j] - a) / s;
    }
    /* records by coordinate (grouped by block level by level, ms_run_bins) */
    for (int k = 0; k < K; k++)
        if (sort_order(rel->masked_known + (size_t) k * n, 1, n,
                       k == 0 ? st->gsort1 : st->gsort2) != 0)
            goto fail;
    free(bmin); bmin = NULL;
    free(bmax); bmax = NULL;

    /* targets */
    st->tk = tg->known;
    st->z1raw = rel->masked_known;
    st->mean = malloc((nt + 1) * sizeof(double));
    st->near = malloc((nt * 6 + 1) * sizeof(int));
    st->side = malloc((nt * (size_t) K * 4 + 1) * sizeof(double));
    st->cabs = malloc((nt + 1) * sizeof(double));
    st->pcoef = malloc((nt * 16 + 1) * sizeof(double));
    st->tord1 = malloc((nt + 1) * sizeof(int));
    st->tord2 = malloc((nt + 1) * sizeof(int));
    st->est = calloc(nt + 1, sizeof(double));
    st->rem = calloc(nt + 1, sizeof(double));
    st->fp = calloc(nt + 1, sizeof(double));
    st->slot_est = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_rem = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_fp = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->fen = malloc(((size_t) threads * st->fen_len + 1) * sizeof(double));
    st->gcache = malloc(((size_t) threads * nt * (st->ord + 2) + 1) * sizeof(double));
    st->skip = malloc((size_t) threads * nt + 1);
    st->tl_start = malloc(((size_t) B + 2) * sizeof(int));
    if (!st->mean || !st->near || !st->side || !st->cabs || !st->pcoef || !st->tord1 ||
        !st->tord2 || !st->est || !st->rem || !st->fp || !st->slot_est || !st->slot_rem ||
        !st->slot_fp || !st->fen || !st->gcache || !st->skip || !st->tl_start)
        goto fail;
    if (sort_order(tg->known, 1, nt, st->tord1) != 0) goto fail;
    if (K == 2 && sort_order(tg->known + nt, 1, nt, st->tord2) != 0) goto fail;
    for (size_t i = 0; i < nt; i++) {
        mt_target c;
        mt_setup_target(ix, rel, tg, i, &c);
        st->mean[i] = st->has_u ? c.mean[0] : 0.0;
        /* the fine bins near the kinks m - Delta, m, m + Delta of the unknown
         * factor (all of them without an unknown), sorted and merged */
        int *nr = st->near + i * 6;
        if (st->has_u) {
            double Dl = rel->unknown_range[0], kinks[3] = { st->mean[i] - Dl, st->mean[i],
                                                            st->mean[i] + Dl };
            int lo[3], hi[3], m = 0, w = 0;
            for (int q = 0; q < 3; q++) {
                near_bins(st, kinks[q], lo + m, hi + m);
                if (lo[m] < hi[m]) m++;
            }
            for (int q = 1; q < m; q++) /* insertion sort by lo */
                for (int r = q; r > 0 && lo[r] < lo[r - 1]; r--) {
                    int t0 = lo[r], t1 = hi[r];
                    lo[r] = lo[r - 1];
                    hi[r] = hi[r - 1];
                    lo[r - 1] = t0;
                    hi[r - 1] = t1;
                }
            for (int q = 0; q < m; q++) {
                if (w > 0 && lo[q] <= nr[2 * w - 1]) { /* overlaps the previous */
                    if (hi[q] > nr[2 * w - 1]) nr[2 * w - 1] = hi[q];
                    continue;
                }
                nr[2 * w] = lo[q];
                nr[2 * w + 1] = hi[q];
                w++;
            }
            for (; w < 3; w++) nr[2 * w] = nr[2 * w + 1] = B;
        } else {
            nr[0] = 0;
            nr[1] = B;
            nr[2] = nr[3] = nr[4] = nr[5] = B;
        }
        for (int k = 0; k < K; k++) {
            double *sd4 = st->side + (i * K + k) * 4;
            const double *srt = ix->sorted + (size_t) k * n;
            double lo = srt[0], hi = srt[n - 1], a = 0.5 * (lo + hi), s = 0.5 * (hi - lo);
            if (!(s > 0)) s = 1.0;
            if (c.act[k]) {
                double F = c.far[k], r = (a - c.t[k]) / F;
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
        /* |coefficients| of the parts, for the rounding bound */
        double coef[4][4], total = 0.0;
        part_coefficients(st, i, coef);
        for (int X = 0; X < 4; X++)
            for (int S = 0; S < st->subsets; S++) {
                total += fabs(coef[X][S]);
                st->pcoef[i * 16 + X * 4 + S] = coef[X][S];
            }
        st->cabs[i] = total;
    }
    /* the most blocks one target's sum adds: near bins around three kinks,
     * at most two blocks per level in each of four gaps */
    double per_kink = st->has_u ? ceil(2.0 * MS_NEAR_SD * st->sd / width) + 2.0 : 1.0;
    double terms = 3.0 * per_kink + 8.0 * st->levels;
    st->max_terms = terms < st->NB ? (int) terms : st->NB;
    return st;

fail:
    free(bmin); free(bmax);
    ms_free(st);
    return NULL;
}

/* Build the record orders and the target lists of level L. */
static int build_level(ms_state *st, int L)
{
    size_t n = st->n, nt = st->nt;
    int K = st->K, nk = st->lev_off[L + 1] - st->lev_off[L], off = st->lev_off[L];
    size_t *pos = malloc(((size_t) nk + 1) * sizeof(size_t));
    int *blk = malloc(((size_t) st->max_terms + 16) * sizeof(int));
    unsigned char *o = malloc((size_t) st->max_terms + 16);
    if (!pos || !blk || !o) {
        free(pos); free(blk); free(o);
        return -1;
    }
    /* records by block, then by coordinate */
    for (int k = 0; k < K; k++) {
        const int *srt = k == 0 ? st->gsort1 : st->gsort2;
        int *out = k == 0 ? st->ord1 : st->ord2;
        for (int b = 0; b < nk; b++) pos[b] = st->blk_start[off + b];
        for (size_t q = 0; q < n; q++) {
            int j = srt[q];
            out[pos[st->fbin[j] >> L]++] = j;
        }
    }
    if (K == 2) {
        const double *z2 = st->z1raw + n;
        for (int b = 0; b < nk; b++) {
            size_t s0 = st->blk_start[off + b], s1 = s0 + (size_t) st->blk_count[off + b];
            for (size_t q = s0; q < s1; q++) {
                st->rank2[st->ord2[q]] = (int) (q - s0) + 1;
                st->z2s[q] = z2[st->ord2[q]];
            }
        }
    }
    /* targets by block, in the order of t_1 (resp. t_2) */
    int *cnt = st->tl_start;
    memset(cnt, 0, ((size_t) nk + 1) * sizeof(int));
    size_t total = 0;
    for (size_t i = 0; i < nt; i++) {
        int m = target_blocks(st, i, L, blk, o);
        for (int q = 0; q < m; q++) cnt[blk[q] + 1]++;
        total += (size_t) m;
    }
    for (int b = 0; b < nk; b++) cnt[b + 1] += cnt[b];
    if (total > st->tl_cap) {
        free(st->tl1); free(st->tl2); free(st->to1); free(st->to2);
        st->tl1 = malloc((total + 1) * sizeof(int));
        st->tl2 = malloc((total + 1) * sizeof(int));
        st->to1 = malloc(total + 1);
        st->to2 = malloc(total + 1);
        st->tl_cap = total;
        if (!st->tl1 || !st->tl2 || !st->to1 || !st->to2) {
            st->tl_cap = 0;
            free(pos); free(blk); free(o);
            return -1;
        }
    }
    for (int pass = 0; pass < (K == 2 ? 2 : 1); pass++) {
        const int *tord = pass == 0 ? st->tord1 : st->tord2;
        int *tl = pass == 0 ? st->tl1 : st->tl2;
        unsigned char *to = pass == 0 ? st->to1 : st->to2;
        for (int b = 0; b < nk; b++) pos[b] = (size_t) cnt[b];
        for (size_t r = 0; r < nt; r++) {
            size_t i = (size_t) tord[r];
            int m = target_blocks(st, i, L, blk, o);
            for (int q = 0; q < m; q++) {
                size_t at = pos[blk[q]]++;
                tl[at] = (int) i;
                to[at] = o[q];
            }
        }
    }
    free(pos); free(blk); free(o);
    st->cur_level = L;
    return 0;
}

/* A bound of |g''(x)| over x in [a, b] (standard units), exact up to
 * rounding: g'' = [phi(x + d) - 2 phi(x) + phi(x - d)] / d and phi decreases
 * in |x| (the Cramer bound of mt_derivative_bound is loose at order 0). */
static double second_derivative_bound(double a, double b, double d)
{
    double r[3] = { a + d > 0 ? a + d : (b + d < 0 ? -(b + d) : 0.0),
                    a > 0 ? a : (b < 0 ? -b : 0.0),
                    a - d > 0 ? a - d : (b - d < 0 ? -(b - d) : 0.0) };
    double w[3] = { 1.0, 2.0, 1.0 }, s = 0.0;
    for (int q = 0; q < 3; q++) s += w[q] * RM_INV_SQRT_2PI * exp(-0.5 * r[q] * r[q]);
    return s / d * (1.0 + 1e-12);
}

/* The Taylor coefficients G_0..G_{o-1} of g about block g for target i, the
 * weight that multiplies the block's sum of p^A in the error bound
 * (remainder of order o and rounding of g and of its derivatives), and a
 * bound of |g| over the block. Returns 0 when g is exactly 0 on the whole
 * block. */
static int bin_coefficients(const ms_state *st, int blk, size_t i, int o, double *G,
                            double *remw, double *sup)
{
    int D = o - 1;
    if (!st->has_u) {
        G[0] = 1.0;
        *remw = 0.0;
        *sup = 1.0;
        return 1;
    }
    double sd = st->sd, d = st->d, m = st->mean[i], c = st->blk_c[blk], h = st->blk_h[blk];
    double xc = (c - m) / sd, xa = (c - h - m) / sd, xb = (c + h - m) / sd;
    double near = xa > 0 ? xa : (xb < 0 ? -xb : 0.0), far = fabs(xa) > fabs(xb) ? fabs(xa) : fabs(xb);
    /* the computed factor is exactly 0 beyond d + RM_FAR (rm_triangle_std) */
    if (near > d + RM_FAR + 1.0) return 0;
    double deriv[MS_ORDERS];
    mt_triangle_derivatives(xc, d, st->shrink, D, deriv);
    double ratio = h / sd, scale = 1.0, fact = 1.0, sum_abs = 0.0, derr = 0.0;
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
    double pad = 1e-9, pa = xa - pad * (1 + fabs(xa)), pb = xb + pad * (1 + fabs(xb));
    double bound = D + 1 == 2 ? second_derivative_bound(pa, pb, d)
                              : mt_derivative_bound(pa, pb, d, D + 1);
    double r = bound * scale * ratio / (fact * (D + 1));
    *remw = (r + derr + margin) * (1.0 + 1e-12);
    *sup = sum_abs + *remw;
    return 1;
}

/* The moment vector of record j in a block of centre c and half-width h:
 * u^S v^d at [S * ord + d], v = (y - c) / h. */
static void record_moments(const ms_state *st, size_t j, double c, double h, int ord,
                           double *vec)
{
    int K = st->K;
    double pw[MS_ORDERS];
    double v = st->has_u && h > 0 ? (st->y[j] - c) / h : 0.0;
    pw[0] = 1.0;
    for (int k = 1; k < ord; k++) pw[k] = pw[k - 1] * v;
    const double *u = st->u + j * K;
    for (int S = 0; S < st->subsets; S++) {
        double f = 1.0;
        for (int k = 0; k < K; k++)
            if (S & (1 << k)) f *= u[k];
        for (int k = 0; k < ord; k++) vec[S * ord + k] = f * pw[k];
    }
}

/* The part coefficients of target i: X = 0 (A: z_1 <= t_1), 1 (B: z_2 <=
 * t_2), 2 (C: both), 3 (T: all), per subset S. */
static void part_coefficients(const ms_state *st, size_t i, double coef[4][4])
{
    if (st->K == 1) {
        const double *s1 = st->side + i * 4;
        coef[0][0] = s1[0] - s1[1];
        coef[0][1] = s1[2] - s1[3];
        coef[3][0] = s1[1];
        coef[3][1] = s1[3];
        coef[1][0] = coef[1][1] = coef[2][0] = coef[2][1] = 0.0;
        return;
    }
    const double *s1 = st->side + i * 8, *s2 = s1 + 4;
    for (int S = 0; S < 4; S++) {
        double f1L = (S & 1) ? s1[2] : s1[0], f1H = (S & 1) ? s1[3] : s1[1];
        double f2L = (S & 2) ? s2[2] : s2[0], f2H = (S & 2) ? s2[3] : s2[1];
        double cLL = f1L * f2L, cLH = f1L * f2H, cHL = f1H * f2L, cHH = f1H * f2H;
        coef[2][S] = cLL - cLH - cHL + cHH;
        coef[0][S] = cLH - cHH;
        coef[1][S] = cHL - cHH;
        coef[3][S] = cHH;
    }
}

/* est += sum_S coef[S] sum_{d < o} G_d X[S][d]; rem += remw sum_S coef[S]
 * X[S][0] (X of stride ord per subset). */
static void add_part(const ms_state *st, const double *coef, const double *G, double remw,
                     const double *X, int ord, int o, double *est, double *rem)
{
    double e = 0.0, r = 0.0;
    for (int S = 0; S < st->subsets; S++) {
        const double *x = X + S * ord;
        double inner = 0.0;
        for (int k = 0; k < o; k++) inner += G[k] * x[k];
        e += coef[S] * inner;
        r += coef[S] * x[0];
    }
    *est += e;
    *rem += remw * r;
}

typedef struct {
    ms_state *st;
} bin_job;

static double run_bin(void *ctx, size_t row, int thread)
{
    ms_state *st = ((bin_job *) ctx)->st;
    int g = (int) row, slot = g - st->group_from, K = st->K, L = st->cur_level;
    int k_loc = g - st->lev_off[L], ord = st->ord, lord = L == 0 ? st->ord : st->ord_far;
    int V = st->subsets * lord;
    size_t nt = st->nt, nb = (size_t) st->blk_count[g], base = st->blk_start[g];
    double *oest = st->slot_est + (size_t) slot * nt, *orem = st->slot_rem + (size_t) slot * nt,
           *ofp = st->slot_fp + (size_t) slot * nt;
    double *gc = st->gcache + (size_t) thread * nt * (ord + 2);
    unsigned char *skip = st->skip + (size_t) thread * nt;
    double *fen = st->fen + (size_t) thread * st->fen_len;
    double count = st->blk_count[g], bc = st->blk_c[g], bh = st->blk_h[g];
    int t0 = st->tl_start[k_loc], t1n = st->tl_start[k_loc + 1];
    for (int pos = t0; pos < t1n; pos++) {
        size_t i = (size_t) st->tl1[pos];
        oest[i] = orem[i] = ofp[i] = 0.0;
    }
    if (nb == 0 || t0 == t1n) return 1.0;
    /* rounding of the sums: each moment passes through at most
     * 2 log2(nb) + 2 additions in the tree or the running sums, the inner
     * products add V terms, the four parts and the blocks of the target are
     * added: gamma of that many operations, doubled for the rounding of
     * |u|, |v| <= 1 and of the coefficients */
    double ops = 2.0 * ceil(log2((double) nb + 2.0)) + 2.0 + V + 8.0 + st->max_terms;
    double gamma = 2.0 * ops * MS_EPS / (1.0 - ops * MS_EPS);
    for (int pos = t0; pos < t1n; pos++) {
        size_t i = (size_t) st->tl1[pos];
        double *G = gc + i * (ord + 2);
        skip[i] = !bin_coefficients(st, g, i, st->to1[pos], G, G + ord, G + ord + 1);
        if (skip[i]) {
            /* g < 1e-300 on the block */
            ofp[i] = count * 1e-300;
            continue;
        }
        /* the sums' rounding, and that of the computed known factors
         * (a few eps each) times g */
        ofp[i] = gamma * count * st->cabs[i] * G[ord + 1] + count * K * 8.0 * MS_EPS * G[ord + 1];
    }
    double T[MS_VEC_MAX], run[MS_VEC_MAX], vec[MS_VEC_MAX], q[MS_VEC_MAX];
    memset(T, 0, sizeof(T));
    for (size_t p = 0; p < nb; p++) {
        record_moments(st, (size_t) st->ord1[base + p], bc, bh, lord, vec);
        for (int k = 0; k < V; k++) T[k] += vec[k];
    }
    /* B: records with z_2 <= t_2, in the order of z_2 */
    if (K == 2) {
        memset(run, 0, sizeof(run));
        const double *t2 = st->tk + nt;
        size_t p = 0;
        for (int r = t0; r < t1n; r++) {
            size_t i = (size_t) st->tl2[r];
            while (p < nb && st->z2s[base + p] <= t2[i]) {
                record_moments(st, (size_t) st->ord2[base + p], bc, bh, lord, vec);
                for (int k = 0; k < V; k++) run[k] += vec[k];
                p++;
            }
            if (skip[i]) continue;
            const double *G = gc + i * (ord + 2);
            add_part(st, st->pcoef + i * 16 + 4, G, G[ord], run, lord, st->to2[r], oest + i,
                     orem + i);
        }
    }
    /* A and C: records with z_1 <= t_1 in the order of z_1, a Fenwick tree
     * over the rank of z_2 */
    memset(run, 0, sizeof(run));
    if (K == 2) memset(fen, 0, (nb + 1) * (size_t) V * sizeof(double));
    const double *t1 = st->tk;
    size_t p = 0;
    for (int r = t0; r < t1n; r++) {
        size_t i = (size_t) st->tl1[r];
        int o = st->to1[r];
        while (p < nb) {
            int j = st->ord1[base + p];
            /* z_1 of record j: u is a rescaling; compare the raw values */
            if (!(st->z1raw[j] <= t1[i])) break;
            record_moments(st, (size_t) j, bc, bh, lord, vec);
            for (int k = 0; k < V; k++) run[k] += vec[k];
            if (K == 2)
                for (size_t f = (size_t) st->rank2[j]; f <= nb; f += f & (~f + 1)) {
                    double *node = fen + f * V;
                    for (int k = 0; k < V; k++) node[k] += vec[k];
                }
            p++;
        }
        if (skip[i]) continue;
        const double *G = gc + i * (ord + 2);
        const double *coef = st->pcoef + i * 16;
        add_part(st, coef, G, G[ord], run, lord, o, oest + i, orem + i);
        if (K == 2) {
            /* records of the block with z_2 <= t_2: ranks 1..upper */
            double t2 = st->tk[nt + i];
            size_t lo = 0, hi = nb;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (st->z2s[base + mid] <= t2) lo = mid + 1;
                else hi = mid;
            }
            /* only the orders this target uses here */
            memset(q, 0, (size_t) V * sizeof(double));
            for (size_t f = lo; f > 0; f -= f & (~f + 1)) {
                const double *node = fen + f * V;
                if (o == lord)
                    for (int k = 0; k < V; k++) q[k] += node[k];
                else
                    for (int S = 0; S < st->subsets; S++)
                        for (int k = 0; k < o; k++) q[S * lord + k] += node[S * lord + k];
            }
            add_part(st, coef + 8, G, G[ord], q, lord, o, oest + i, orem + i);
        }
        add_part(st, coef + 12, G, G[ord], T, lord, o, oest + i, orem + i);
    }
    return (double) (t1n - t0) * (K == 2 ? 4.0 : 1.0) * V + (double) nb * V;
}

int ms_run_bins(ms_state *st, int from, int to, int threads)
{
    if (to - from > st->slots) to = from + st->slots;
    int L = 0;
    while (from >= st->lev_off[L + 1]) L++;
    if (to > st->lev_off[L + 1]) to = st->lev_off[L + 1];
    if (L != st->cur_level && build_level(st, L) != 0) return -1;
    st->group_from = from;
    bin_job job = { st };
    rm_init();
    for (size_t next = (size_t) from; next < (size_t) to;)
        next = par_rows(next, (size_t) to, 1, INFINITY, threads, run_bin, &job);
    /* add the blocks in their order, each to its own targets: the same sums
     * for any number of threads */
    for (int g = from; g < to; g++) {
        size_t off = (size_t) (g - from) * st->nt;
        int k = g - st->lev_off[L];
        for (int pos = st->tl_start[k]; pos < st->tl_start[k + 1]; pos++) {
            size_t i = (size_t) st->tl1[pos];
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
        err[i] = (r + st->fp[i]) * (1.0 + 1e-12);
    }
}
