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

#define MS_VEC_MAX ((1 << MS_MAX_KNOWN) * MS_ORDERS)
#define MS_EPS DBL_EPSILON

struct ms_state {
    size_t n, nt;
    int K, ord, subsets, V;     /* known variables, Taylor orders, 2^K, vector length */
    int has_u;                  /* an active unknown */
    double sd, d, shrink;
    /* records */
    double *u;                  /* n x K, record-major: centred, scaled known coordinates */
    double *v;                  /* n: (y - c_b) / h_b in the record's bin (0 without unknown) */
    int B;
    double *bin_c, *bin_h, *bin_count;
    size_t *bin_start;          /* B + 1 */
    size_t max_bin;
    /* per known variable k: records by bin, then by z_k, then index (ordk);
     * z_k in that order (zsk); per record, the 1-based rank of z_k within
     * its bin (rankk, k >= 1); targets by t_k, then index (tordk) */
    int *ordk[MS_MAX_KNOWN], *rankk[MS_MAX_KNOWN], *tordk[MS_MAX_KNOWN];
    double *zsk[MS_MAX_KNOWN];
    const double *zraw;         /* n x K: the records' known coordinates (the caller's) */
    int *pos1;                  /* K = 3, per record: its position in z_1 order within its bin */
    /* targets */
    const double *tk;           /* n_targets x K (column-major, as tg->known) */
    double *mean;               /* predicted mean per target */
    double *side;               /* nt x K x 4: alpha_L, alpha_H, beta_L, beta_H */
    double *cabs;               /* per target: the bound of the |terms| of the coefficients */
    int pstride;                /* 2^K x 2^K */
    double *pcoef;              /* nt x 2^K (parts W) x 2^K (S): part_coefficients */
    /* K = 3, per thread: the 3-d dominance work, the targets' z_1 prefix
     * counts, the bin's z_2, z_3 by z_1 position, positions in z_2, z_3 order */
    md_work **dom;
    int *pfx;
    double *zloc;
    int *byloc;
    /* sums in bin order */
    double *est, *rem, *fp;
    /* per slot (bins of one group) and per thread */
    int slots;
    double *slot_est, *slot_rem, *slot_fp;     /* slots x nt */
    int64_t *fen;               /* threads x (max_bin + 1) x V: fixed-point moments */
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

static void part_coefficients(const ms_state *st, size_t i, double *coef, double *cabs);

void ms_free(ms_state *st)
{
    if (!st) return;
    free(st->u); free(st->v); free(st->bin_c); free(st->bin_h); free(st->bin_count);
    free(st->bin_start);
    for (int k = 0; k < MS_MAX_KNOWN; k++) {
        free(st->ordk[k]); free(st->rankk[k]); free(st->tordk[k]); free(st->zsk[k]);
    }
    free(st->pos1);
    if (st->dom)
        for (int t = 0; t < st->slots; t++) md_work_free(st->dom[t]);
    free(st->dom); free(st->pfx); free(st->zloc); free(st->byloc);
    free(st->mean); free(st->side); free(st->cabs); free(st->pcoef);
    free(st->est); free(st->rem); free(st->fp);
    free(st->slot_est); free(st->slot_rem); free(st->slot_fp);
    free(st->fen); free(st->gcache); free(st->skip);
    free(st);
}

int ms_bins(const ms_state *st) { return st->B; }
const double *ms_estimate(const ms_state *st) { return st->est; }

/* The records' bin of y (the bins cut [lo, hi] into B equal parts). */
static int bin_of(double y, double lo, double width, int B)
{
    if (!(width > 0)) return 0;
    double q = (y - lo) / width;
    int b = q <= 0 ? 0 : (q >= B ? B - 1 : (int) q);
    return b;
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
    st->V = st->subsets * st->ord;
    const double *y = st->has_u ? rel->masked_unknown : NULL;
    if (st->has_u) {
        st->sd = rel->unknown_sd[0];
        st->d = rel->unknown_range[0] / st->sd;
        st->shrink = exp(-0.5 * st->d * st->d);
    }
    if (threads < 1) threads = 1;
    st->slots = threads;

    /* bins */
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
    st->bin_c = malloc(B * sizeof(double));
    st->bin_h = malloc(B * sizeof(double));
    st->bin_count = calloc(B, sizeof(double));
    st->bin_start = calloc((size_t) B + 1, sizeof(size_t));
    st->u = malloc((n * (size_t) K + 1) * sizeof(double));
    st->v = malloc(n * sizeof(double));
    int okk = 1;
    for (int k = 0; k < K; k++) {
        st->ordk[k] = malloc(n * sizeof(int));
        st->zsk[k] = malloc(n * sizeof(double));
        st->rankk[k] = k > 0 ? malloc(n * sizeof(int)) : NULL;
        okk = okk && st->ordk[k] && st->zsk[k] && (k == 0 || st->rankk[k]);
    }
    int *bin = malloc(n * sizeof(int)), *tmp = malloc(n * sizeof(int));
    double *bmin = malloc(B * sizeof(double)), *bmax = malloc(B * sizeof(double));
    if (!st->bin_c || !st->bin_h || !st->bin_count || !st->bin_start || !st->u || !st->v ||
        !okk || !bin || !tmp || !bmin || !bmax)
        goto fail;
    for (int b = 0; b < B; b++) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
    }
    for (size_t j = 0; j < n; j++) {
        int b = st->has_u ? bin_of(y[j], ylo, width, B) : 0;
        bin[j] = b;
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
    for (size_t j = 0; j < n; j++) {
        int b = bin[j];
        st->v[j] = st->has_u && st->bin_h[b] > 0 ? (y[j] - st->bin_c[b]) / st->bin_h[b] : 0.0;
    }
    /* centred, scaled known coordinates */
    for (int k = 0; k < K; k++) {
        const double *z = rel->masked_known + (size_t) k * n;
        double lo = ix->sorted[(size_t) k * n], hi = ix->sorted[(size_t) k * n + n - 1];
        double a = 0.5 * (lo + hi), s = 0.5 * (hi - lo);
        if (!(s > 0)) s = 1.0;
        for (size_t j = 0; j < n; j++) st->u[j * K + k] = (z[j] - a) / s;
    }
    /* records by bin then coordinate: a stable counting pass over the sorted order */
    for (int k = 0; k < K; k++) {
        int *out = st->ordk[k];
        if (sort_order(rel->masked_known + (size_t) k * n, 1, n, tmp) != 0) goto fail;
        size_t *pos = malloc(((size_t) B + 1) * sizeof(size_t));
        if (!pos) goto fail;
        memcpy(pos, st->bin_start, ((size_t) B + 1) * sizeof(size_t));
        for (size_t q = 0; q < n; q++) out[pos[bin[tmp[q]]]++] = tmp[q];
        free(pos);
    }
    for (int k = 0; k < K; k++) {
        const double *zk = rel->masked_known + (size_t) k * n;
        for (int b = 0; b < B; b++)
            for (size_t q = st->bin_start[b]; q < st->bin_start[b + 1]; q++) {
                if (k > 0) st->rankk[k][st->ordk[k][q]] = (int) (q - st->bin_start[b]) + 1;
                st->zsk[k][q] = zk[st->ordk[k][q]];
            }
    }
    if (K == 3) {
        st->pos1 = malloc(n * sizeof(int));
        if (!st->pos1) goto fail;
        for (int b = 0; b < B; b++)
            for (size_t q = st->bin_start[b]; q < st->bin_start[b + 1]; q++)
                st->pos1[st->ordk[0][q]] = (int) (q - st->bin_start[b]);
    }
    free(bin); bin = NULL;
    free(tmp); tmp = NULL;
    free(bmin); bmin = NULL;
    free(bmax); bmax = NULL;

    /* targets */
    st->tk = tg->known;
    st->zraw = rel->masked_known;
    st->pstride = st->subsets * st->subsets;
    st->mean = malloc((nt + 1) * sizeof(double));
    st->side = malloc((nt * (size_t) K * 4 + 1) * sizeof(double));
    st->cabs = malloc((nt + 1) * sizeof(double));
    st->pcoef = malloc((nt * (size_t) st->pstride + 1) * sizeof(double));
    for (int k = 0; k < K; k++) {
        st->tordk[k] = malloc((nt + 1) * sizeof(int));
        if (!st->tordk[k]) goto fail;
    }
    if (K == 3) {
        st->dom = calloc((size_t) threads, sizeof(md_work *));
        st->pfx = malloc(((size_t) threads * nt + 1) * sizeof(int));
        st->zloc = malloc(((size_t) threads * 2 * st->max_bin + 1) * sizeof(double));
        st->byloc = malloc(((size_t) threads * 2 * st->max_bin + 1) * sizeof(int));
        if (!st->dom || !st->pfx || !st->zloc || !st->byloc) goto fail;
        for (int t = 0; t < threads; t++) {
            st->dom[t] = md_work_alloc(st->max_bin, nt, st->V);
            if (!st->dom[t]) goto fail;
        }
    }
    st->est = calloc(nt + 1, sizeof(double));
    st->rem = calloc(nt + 1, sizeof(double));
    st->fp = calloc(nt + 1, sizeof(double));
    st->slot_est = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_rem = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->slot_fp = malloc(((size_t) st->slots * nt + 1) * sizeof(double));
    st->fen = malloc(((size_t) threads * (st->max_bin + 1) * st->V + 1) * sizeof(int64_t));
    st->gcache = malloc(((size_t) threads * nt * (st->ord + 2) + 1) * sizeof(double));
    st->skip = malloc((size_t) threads * nt + 1);
    if (!st->mean || !st->side || !st->cabs || !st->pcoef || !st->est ||
        !st->rem || !st->fp || !st->slot_est || !st->slot_rem || !st->slot_fp || !st->fen ||
        !st->gcache || !st->skip)
        goto fail;
    for (int k = 0; k < K; k++)
        if (sort_order(tg->known + (size_t) k * nt, 1, nt, st->tordk[k]) != 0) goto fail;
    for (size_t i = 0; i < nt; i++) {
        mt_target c;
        mt_setup_target(ix, rel, tg, i, &c);
        st->mean[i] = st->has_u ? c.mean[0] : 0.0;
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
        part_coefficients(st, i, st->pcoef + i * (size_t) st->pstride, st->cabs + i);
    }
    return st;

fail:
    free(bin); free(tmp); free(bmin); free(bmax);
    ms_free(st);
    return NULL;
}

/* The Taylor coefficients G_0..G_D of g about bin b for target i, the weight
 * that multiplies the bin's sum of p^A in the error bound (remainder and
 * rounding of g and of its derivatives), and a bound of |g| over the bin.
 * Returns 0 when g is exactly 0 on the whole bin. */
static int bin_coefficients(const ms_state *st, int b, size_t i, double *G, double *remw,
                            double *sup)
{
    int D = st->ord - 1;
    if (!st->has_u) {
        G[0] = 1.0;
        *remw = 0.0;
        *sup = 1.0;
        return 1;
    }
    double sd = st->sd, d = st->d, m = st->mean[i], c = st->bin_c[b], h = st->bin_h[b];
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
    double pad = 1e-9;
    double bound = mt_derivative_bound(xa - pad * (1 + fabs(xa)), xb + pad * (1 + fabs(xb)), d,
                                       D + 1);
    double r = bound * scale * ratio / (fact * (D + 1));
    *remw = (r + derr + margin) * (1.0 + 1e-12);
    *sup = sum_abs + *remw;
    return 1;
}

/* The moment vector of record j: u^S v^d at [S * ord + d]. */
static void record_moments(const ms_state *st, size_t j, double *vec)
{
    int K = st->K, ord = st->ord;
    double pw[MS_ORDERS];
    pw[0] = 1.0;
    for (int k = 1; k < ord; k++) pw[k] = pw[k - 1] * st->v[j];
    const double *u = st->u + j * K;
    for (int S = 0; S < st->subsets; S++) {
        double f = 1.0;
        for (int k = 0; k < K; k++)
            if (S & (1 << k)) f *= u[k];
        for (int k = 0; k < ord; k++) vec[S * ord + k] = f * pw[k];
    }
}

/* The part coefficients of target i: coef[W * 2^K + S] for W a subset of
 * the known variables (the part D_W: the bin's records with z_w <= t_w for
 * every w in W; W = 0 is the bin's total) and S a monomial u^S. On the
 * orthant L of t (the variables with z_v <= t_v) the known factors are
 * sum_S c_L[S] u^S, c_L[S] = prod_{v in S} beta_v(L) prod_{v not in S}
 * alpha_v(L); the orthant's sum is O_L = sum_{W containing L} (-1)^{|W - L|}
 * D_W (inclusion-exclusion), so coef[W][S] = sum_{L in W} (-1)^{|W - L|}
 * c_L[S] (Mobius inversion). *cabs bounds the sum of the |terms|: of the
 * coefficients and of the products and sums that computed them (for the
 * rounding bound). */
static void part_coefficients(const ms_state *st, size_t i, double *coef, double *cabs)
{
    int K = st->K, NS = st->subsets;
    const double *sd = st->side + i * (size_t) K * 4;
    double c[1 << MS_MAX_KNOWN][1 << MS_MAX_KNOWN];
    for (int L = 0; L < NS; L++)
        for (int S = 0; S < NS; S++) {
            double f = 1.0;
            for (int v = 0; v < K; v++) {
                const double *s4 = sd + v * 4;
                int low = (L >> v) & 1;
                f *= ((S >> v) & 1) ? (low ? s4[2] : s4[3]) : (low ? s4[0] : s4[1]);
            }
            c[L][S] = f;
        }
    double total = 0.0;
    for (int W = 0; W < NS; W++)
        for (int S = 0; S < NS; S++) {
            double sum = 0.0, abs_sum = 0.0;
            /* the subsets L of W, from W down to the empty set */
            for (int L = W;; L = (L - 1) & W) {
                int odd = 0;
                for (int x = W ^ L; x; x &= x - 1) odd ^= 1;
                sum += odd ? -c[L][S] : c[L][S];
                abs_sum += fabs(c[L][S]);
                if (L == 0) break;
            }
            coef[W * NS + S] = sum;
            total += fabs(sum) + abs_sum;
        }
    *cabs = total;
}

/* est += sum_S coef[S] sum_d G_d X[S][d]; rem += remw sum_S coef[S] X[S][0]. */
static void add_part(const ms_state *st, const double *coef, const double *G, double remw,
                     const double *X, double *est, double *rem)
{
    int ord = st->ord;
    double e = 0.0, r = 0.0;
    for (int S = 0; S < st->subsets; S++) {
        const double *x = X + S * ord;
        double inner = 0.0;
        for (int k = 0; k < ord; k++) inner += G[k] * x[k];
        e += coef[S] * inner;
        r += coef[S] * x[0];
    }
    *est += e;
    *rem += remw * r;
}

typedef struct {
    ms_state *st;
} bin_job;

/* What one bin's sums need per target: the bin's records [base, base + nb),
 * the thread's Taylor coefficients and skip flags, the slot's sums. */
typedef struct {
    ms_state *st;
    size_t base, nb;
    const double *gc;
    const unsigned char *skip;
    double *oest, *orem;
    int64_t *fen;
    double scale, inv;          /* 2^shift, 2^-shift: the fixed-point moments */
} bin_ctx;

/* Record j's moments in fixed point: u^S v^d 2^shift truncated to an integer
 * (an inlined conversion; llrint is a library call). Sums of at most nb of
 * them are exact in int64_t (|moment| <= 1 + tiny, 2^shift <= 2^61 / nb), so
 * every sum below is exact and independent of the order of its additions;
 * each record's moment is off by less than 2^-shift (the scaling by a power
 * of two is exact). */
static void record_fixed(const bin_ctx *bx, size_t j, int64_t *out)
{
    double vec[MS_VEC_MAX];
    record_moments(bx->st, j, vec);
    for (int k = 0; k < bx->st->V; k++) out[k] = (int64_t) (vec[k] * bx->scale);
}

static void fixed_to_double(const bin_ctx *bx, const int64_t *x, double *out)
{
    for (int k = 0; k < bx->st->V; k++) out[k] = (double) x[k] * bx->inv;
}

/* add_part() of the fixed-point sums X for target i (the scaling by
 * 2^-shift, a power of two, is exact). */
static void add_fixed(const bin_ctx *bx, const double *coef, const double *G, const int64_t *X,
                      size_t i)
{
    int ord = bx->st->ord;
    double e = 0.0, r = 0.0;
    for (int S = 0; S < bx->st->subsets; S++) {
        const int64_t *x = X + S * ord;
        double inner = 0.0;
        for (int k = 0; k < ord; k++) inner += G[k] * (double) x[k];
        e += coef[S] * inner;
        r += coef[S] * (double) x[0];
    }
    bx->oest[i] += e * bx->inv;
    bx->orem[i] += G[ord] * (r * bx->inv);
}

/* The bin's records in the order of z_a: the running sum gives D_{a}
 * (added when `single`), a Fenwick tree over the rank of z_c (c >= 0) gives
 * D_{a, c}. Records with z_a <= t_a (raw values, ties in) are added in their
 * fixed order, whatever the other targets. */
static void sweep_axis(const bin_ctx *bx, int a, int c, int single)
{
    const ms_state *st = bx->st;
    int V = st->V, ord = st->ord, NS = st->subsets;
    size_t nt = st->nt, nb = bx->nb, base = bx->base;
    int64_t run[MS_VEC_MAX], vec[MS_VEC_MAX], q[MS_VEC_MAX];
    memset(run, 0, sizeof(run));
    if (c >= 0) memset(bx->fen, 0, (nb + 1) * (size_t) V * sizeof(int64_t));
    const double *ta = st->tk + (size_t) a * nt, *za = st->zsk[a] + base;
    const int *oa = st->ordk[a] + base;
    size_t p = 0;
    for (size_t r = 0; r < nt; r++) {
        size_t i = (size_t) st->tordk[a][r];
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
        const double *G = bx->gc + i * (ord + 2);
        const double *coef = st->pcoef + i * (size_t) st->pstride;
        if (single) {
            add_fixed(bx, coef + (1 << a) * NS, G, run, i);
        }
        if (c >= 0) {
            /* records of the bin with z_c <= t_c: ranks 1..upper */
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
                for (int k = 0; k < V; k++) q[k] += node[k];
            }
            add_fixed(bx, coef + ((1 << a) | (1 << c)) * NS, G, q, i);
        }
    }
}

static void dominance_moments(void *ctx, size_t local, int64_t *vec)
{
    const bin_ctx *bx = (const bin_ctx *) ctx;
    record_fixed(bx, (size_t) bx->st->ordk[0][bx->base + local], vec);
}

static void dominance_emit(void *ctx, size_t i, const int64_t *sum)
{
    const bin_ctx *bx = (const bin_ctx *) ctx;
    const ms_state *st = bx->st;
    const double *G = bx->gc + i * (st->ord + 2);
    add_fixed(bx, st->pcoef + i * (size_t) st->pstride + 7 * st->subsets, G, sum, i);
}

/* K = 3: the part D_{1,2,3} by the 3-d dominance sums of match_dominance.c
 * over the bin's records. Returns the number of tree levels. */
static int sweep_dominance(const bin_ctx *bx, int thread)
{
    const ms_state *st = bx->st;
    size_t nt = st->nt, nb = bx->nb, base = bx->base;
    int *pfx = st->pfx + (size_t) thread * nt;
    double *z2 = st->zloc + (size_t) thread * 2 * st->max_bin, *z3 = z2 + nb;
    int *by2 = st->byloc + (size_t) thread * 2 * st->max_bin, *by3 = by2 + nb;
    const double *z1s = st->zsk[0] + base;
    for (size_t p = 0; p < nb; p++) {
        int j = st->ordk[0][base + p];
        z2[p] = st->zraw[st->n + (size_t) j];
        z3[p] = st->zraw[2 * st->n + (size_t) j];
        by2[p] = st->pos1[st->ordk[1][base + p]];
        by3[p] = st->pos1[st->ordk[2][base + p]];
    }
    for (size_t i = 0; i < nt; i++) {
        if (bx->skip[i]) {
            pfx[i] = 0;
            continue;
        }
        double t1 = st->tk[i];
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (z1s[mid] <= t1) lo = mid + 1;
            else hi = mid;
        }
        pfx[i] = (int) lo;
    }
    md_problem pb = { nb, z2, z3, by2, by3, nt, st->tordk[1], pfx, st->tk + nt, st->tk + 2 * nt,
                      st->V, bx->fen };
    return md_dominance3(&pb, st->dom[thread], dominance_moments, dominance_emit, (void *) bx);
}

static double run_bin(void *ctx, size_t row, int thread)
{
    ms_state *st = ((bin_job *) ctx)->st;
    int b = (int) row, slot = b - st->group_from, K = st->K, V = st->V, ord = st->ord;
    size_t nt = st->nt, nb = st->bin_start[b + 1] - st->bin_start[b], base = st->bin_start[b];
    double *oest = st->slot_est + (size_t) slot * nt, *orem = st->slot_rem + (size_t) slot * nt,
           *ofp = st->slot_fp + (size_t) slot * nt;
    double *gc = st->gcache + (size_t) thread * nt * (ord + 2);
    unsigned char *skip = st->skip + (size_t) thread * nt;
    int64_t *fen = st->fen + (size_t) thread * (st->max_bin + 1) * V;
    double count = st->bin_count[b];
    memset(oest, 0, nt * sizeof(double));
    memset(orem, 0, nt * sizeof(double));
    memset(ofp, 0, nt * sizeof(double));
    if (nb == 0) return 1.0;
    /* The moments are summed exactly in fixed point (record_fixed): each
     * record's is off by less than 2^-shift, so a part's sum by count_b
     * 2^-shift at most. The rest is rounding in double, gamma of the
     * longest chain of operations a term passes through, doubled for the
     * rounding of |u|, |v| <= 1: the moment's product (K + ord factors), its
     * conversion back from fixed point, the inner products (V terms), the
     * 2^K parts (for K = 3 one more per level of the dominance tree), the B
     * bins; each coefficient is a sum of up to 2^K products of K factors. */
    int shift = 61;
    for (size_t m = nb + 1; m > 1; m = (m + 1) / 2) shift--;
    double lg = ceil(log2((double) nb + 2.0)) + 1.0;
    double levels = K == 3 ? (double) md_levels(nb) : 1.0;
    double ops = (double) (K + ord) + 2.0 + V + st->subsets + levels + st->B + K + st->subsets +
                 8.0;
    double gamma = 2.0 * ops * MS_EPS / (1.0 - ops * MS_EPS) + ldexp(1.0, -shift);
    for (size_t i = 0; i < nt; i++) {
        double *G = gc + i * (ord + 2);
        skip[i] = !bin_coefficients(st, b, i, G, G + ord, G + ord + 1);
        if (skip[i]) {
            /* g < 1e-300 on the bin */
            ofp[i] = count * 1e-300;
            continue;
        }
        /* the sums' rounding, and that of the computed known factors
         * (a few eps each) times g */
        ofp[i] = gamma * count * st->cabs[i] * G[ord + 1] + count * K * 8.0 * MS_EPS * G[ord + 1];
    }
    bin_ctx bx = { st, base, nb, gc, skip, oest, orem, fen, ldexp(1.0, shift), ldexp(1.0, -shift) };
    /* the parts D_W, |W| = 1 and 2: one sweep per variable a with a
     * Fenwick tree over each later variable c (the running sum gives D_{a}
     * in the first of them) */
    for (int a = 0; a < K; a++) {
        if (a == K - 1) sweep_axis(&bx, a, -1, 1);
        for (int c = a + 1; c < K; c++) sweep_axis(&bx, a, c, c == a + 1);
    }
    /* |W| = 3 */
    if (K == 3) sweep_dominance(&bx, thread);
    /* W = 0: the bin's total */
    int64_t T[MS_VEC_MAX], vec[MS_VEC_MAX];
    double x[MS_VEC_MAX];
    memset(T, 0, sizeof(T));
    for (size_t p = 0; p < nb; p++) {
        record_fixed(&bx, (size_t) st->ordk[0][base + p], vec);
        for (int k = 0; k < V; k++) T[k] += vec[k];
    }
    fixed_to_double(&bx, T, x);
    for (size_t i = 0; i < nt; i++) {
        if (skip[i]) continue;
        const double *G = gc + i * (ord + 2);
        add_part(st, st->pcoef + i * (size_t) st->pstride, G, G[ord], x, oest + i, orem + i);
    }
    return (double) nt * (K == 3 ? 4.0 * lg : K == 2 ? 4.0 : 1.0) * V;
}

void ms_run_bins(ms_state *st, int from, int to, int threads)
{
    if (to - from > st->slots) to = from + st->slots;
    st->group_from = from;
    bin_job job = { st };
    rm_init();
    for (size_t next = (size_t) from; next < (size_t) to;)
        next = par_rows(next, (size_t) to, 1, INFINITY, threads, run_bin, &job);
    /* add the bins in their order: the same sums for any number of threads */
    for (int b = from; b < to; b++) {
        size_t off = (size_t) (b - from) * st->nt;
        for (size_t i = 0; i < st->nt; i++) {
            st->est[i] += st->slot_est[off + i];
            st->rem[i] += st->slot_rem[off + i];
            st->fp[i] += st->slot_fp[off + i];
        }
    }
}

void ms_error(const ms_state *st, double *err)
{
    for (size_t i = 0; i < st->nt; i++) {
        double r = st->rem[i] > 0 ? st->rem[i] : 0.0;
        /* the remainder's sum is itself rounded: its terms are in fp */
        err[i] = (r + st->fp[i]) * (1.0 + 1e-12);
    }
}
