#include <math.h>
#include <string.h>
#include <R.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#include <R_ext/Applic.h>
#include <R_ext/Utils.h>
#include <R_ext/Print.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "irls.h"

#ifndef FCONE
#define FCONE
#endif

/* Rows are split into a number of chunks that depends only on n and p, and
 * partial sums are reduced in chunk order, so a fit gives the same bits
 * whatever the number of threads. */
#define ROWS_PER_CHUNK 4096
#define MAX_CHUNKS 64
#define BLOCK_ROWS 256
#define CHUNK_MEMORY_DOUBLES 4194304.0
#define PARALLEL_MIN_ROWS 20000

typedef struct {
    const double *x, *y, *wt, *offset;
    size_t n;
    int p;
    glm_family fam;
    int nchunk;
    int nthreads;     /* for loops that only do arithmetic */
    int fam_threads;  /* for loops that evaluate the family */
} irls_problem;

static size_t chunk_lo(const irls_problem *pr, int c)
{
    return (size_t) ((double) pr->n * c / pr->nchunk);
}

static double sum_in_order(const double *part, int nchunk)
{
    double s = 0.0;
    for (int c = 0; c < nchunk; c++) s += part[c];
    return s;
}

/* eta = X beta + offset */
static void compute_eta(const irls_problem *pr, const double *beta, double *eta)
{
    int nchunk = pr->nchunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->nthreads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        for (size_t i = lo; i < hi; i++) eta[i] = pr->offset ? pr->offset[i] : 0.0;
        for (int j = 0; j < pr->p; j++) {
            const double *xj = pr->x + (size_t) j * pr->n;
            double bj = beta[j];
            if (bj == 0.0) continue;
            for (size_t i = lo; i < hi; i++) eta[i] += xj[i] * bj;
        }
    }
}

/* mu = linkinv(eta); returns the deviance, and in *valid whether every eta
 * and mu lies in the family's valid region (valideta && validmu). */
static double compute_mu_dev(const irls_problem *pr, const double *eta, double *mu,
                             double *part, int *part_ok, int *valid)
{
    int nchunk = pr->nchunk;
    glm_family f = pr->fam;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->fam_threads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        double s = 0.0;
        int ok = 1;
        for (size_t i = lo; i < hi; i++) {
            mu[i] = link_inv(f.link, eta[i]);
            ok &= link_valid_eta(f.link, eta[i]) && family_valid_mu(f.family, mu[i]);
            s += family_dev_resid(f.family, pr->y[i], mu[i], pr->wt[i]);
        }
        part[c] = s;
        part_ok[c] = ok;
    }
    int ok = 1;
    for (int c = 0; c < nchunk; c++) ok &= part_ok[c];
    *valid = ok;
    return sum_in_order(part, nchunk);
}

static inline int working_row_from(const irls_problem *pr, size_t i, double eta_i, double mu_i,
                            double v, double me, double *sw, double *z)
{
    *sw = 0.0;
    *z = 0.0;
    if (!(pr->wt[i] > 0.0)) return IRLS_OK;
    if (isnan(v) || v == 0.0) return IRLS_ERR_VARIANCE;
    if (isnan(me)) return IRLS_ERR_MU_ETA;
    if (me == 0.0) return IRLS_OK;
    double off = pr->offset ? pr->offset[i] : 0.0;
    *z = (eta_i - off) + (pr->y[i] - mu_i) / me;
    *sw = sqrt(pr->wt[i] * me * me / v);
    return IRLS_OK;
}

/* glm.fit's working weight (as its square root) and working response for one
 * row; returns an irls_status, and sets *sw = 0 for rows outside the `good`
 * subset (prior weight 0 or d(mu)/d(eta) == 0). */
static int working_row(const irls_problem *pr, size_t i, double eta_i, double mu_i,
                       double *sw, double *z)
{
    return working_row_from(pr, i, eta_i, mu_i, family_variance(pr->fam.family, mu_i),
                            link_mu_eta(pr->fam.link, eta_i), sw, z);
}

/* The variance error outranks the d(mu)/d(eta) one, as in glm.fit. */
static int merge_status(int a, int b)
{
    if (a == IRLS_ERR_VARIANCE || b == IRLS_ERR_VARIANCE) return IRLS_ERR_VARIANCE;
    return a ? a : b;
}

/* Working weights and response for every row. Returns an irls_status. */
static int working_step(const irls_problem *pr, const double *eta, const double *mu,
                        double *sw, double *z, int *part_err, size_t *part_good,
                        size_t *n_good)
{
    int nchunk = pr->nchunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->fam_threads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1), good = 0;
        int err = IRLS_OK;
        for (size_t i = lo; i < hi; i++) {
            err = merge_status(err, working_row(pr, i, eta[i], mu[i], sw + i, z + i));
            good += sw[i] != 0.0;
        }
        part_err[c] = err;
        part_good[c] = good;
    }
    int err = IRLS_OK;
    size_t ng = 0;
    for (int c = 0; c < nchunk; c++) {
        err = merge_status(err, part_err[c]);
        ng += part_good[c];
    }
    *n_good = ng;
    return err;
}

/* Rows of sqrt(W) X are added four at a time as rank-4 updates of the upper
 * triangle, A[k, j] += sum_r s_r[j] s_r[k]: the inner loop over k is an axpy
 * the compiler vectorizes, and no accumulator forms a long dependency chain
 * (a dot-product dsyrk from the reference BLAS is latency-bound for the
 * narrow designs of epidemiology). Wide designs go through dsyrk instead. */
#define SMALL_P 48
#ifdef _OPENMP
#define SIMD_LOOP _Pragma("omp simd")
#define SIMD_REDUCTION(v) _Pragma(SIMD_STR(omp simd reduction(+:v)))
#define SIMD_STR(x) #x
#else
#define SIMD_LOOP
#define SIMD_REDUCTION(v)
#endif
#define GROUP 4

static void add_rows_small(int p, int m, const double *S, const double *t,
                           double *A, double *b)
{
    int r = 0;
    for (; r + GROUP <= m; r += GROUP) {
        const double *s0 = S + (size_t) r * p, *s1 = s0 + p, *s2 = s1 + p, *s3 = s2 + p;
        for (int j = 0; j < p; j++) {
            double a0 = s0[j], a1 = s1[j], a2 = s2[j], a3 = s3[j];
            double *Aj = A + (size_t) j * p;
            SIMD_LOOP
            for (int k = 0; k <= j; k++)
                Aj[k] += a0 * s0[k] + a1 * s1[k] + a2 * s2[k] + a3 * s3[k];
        }
        for (int k = 0; k < p; k++)
            b[k] += t[r] * s0[k] + t[r + 1] * s1[k] + t[r + 2] * s2[k] + t[r + 3] * s3[k];
    }
    for (; r < m; r++) {
        const double *s0 = S + (size_t) r * p;
        for (int j = 0; j < p; j++) {
            double a0 = s0[j];
            double *Aj = A + (size_t) j * p;
            for (int k = 0; k <= j; k++) Aj[k] += a0 * s0[k];
        }
        for (int k = 0; k < p; k++) b[k] += t[r] * s0[k];
    }
}

/* X'WX and X'Wz of one block of rows [lo, lo + len) read straight from the
 * columns of X: w[r] is the working weight (0 outside the good subset, so the
 * row adds exactly nothing), wz[r] = w[r] z[r]. Each entry is a dot product
 * over the block, vectorized by `omp simd` with a reduction; u is scratch. */
static void add_block_columns(const irls_problem *pr, size_t lo, int len, const double *w,
                              const double *wz, double *u, double *A, double *b)
{
    int p = pr->p;
    for (int j = 0; j < p; j++) {
        const double *xj = pr->x + (size_t) j * pr->n + lo;
        double sb = 0.0;
        SIMD_REDUCTION(sb)
        for (int r = 0; r < len; r++) {
            u[r] = w[r] * xj[r];
            sb += wz[r] * xj[r];
        }
        b[j] += sb;
        double *Aj = A + (size_t) j * p;
        for (int k = 0; k <= j; k++) {
            const double *xk = pr->x + (size_t) k * pr->n + lo;
            double s = 0.0;
            SIMD_REDUCTION(s)
            for (int r = 0; r < len; r++) s += u[r] * xk[r];
            Aj[k] += s;
        }
    }
}

/* Adds the rows idx[0..m-1] (offsets from `lo`) of sqrt(W) X and sqrt(W) z
 * to the upper triangle of Ac and to bc, through the scratch S (BLOCK_ROWS x
 * p) and t, so X is never copied wholesale. */
static void add_block(const irls_problem *pr, size_t lo, const int *idx, int m,
                      const double *sw, const double *z, double *S, double *t,
                      double *Ac, double *bc)
{
    int p = pr->p;
    if (m == 0) return;
    for (int r = 0; r < m; r++) t[r] = sw[lo + idx[r]] * z[lo + idx[r]];
    if (p <= SMALL_P) {
        for (int j = 0; j < p; j++) {
            const double *xj = pr->x + (size_t) j * pr->n + lo;
            for (int r = 0; r < m; r++) S[(size_t) r * p + j] = sw[lo + idx[r]] * xj[idx[r]];
        }
        add_rows_small(p, m, S, t, Ac, bc);
    } else {
        int lda = BLOCK_ROWS, inc = 1;
        double one = 1.0;
        for (int j = 0; j < p; j++) {
            const double *xj = pr->x + (size_t) j * pr->n + lo;
            for (int r = 0; r < m; r++) S[r + (size_t) j * BLOCK_ROWS] = sw[lo + idx[r]] * xj[idx[r]];
        }
        F77_CALL(dsyrk)("U", "T", &p, &m, &one, S, &lda, &one, Ac, &p FCONE FCONE);
        F77_CALL(dgemv)("T", &m, &p, &one, S, &lda, t, &inc, &one, bc, &inc FCONE);
    }
}

typedef struct {
    double *chunk_A, *chunk_b, *scratch, *wbuf;
    int *idx;
} normal_workspace;

static void reduce_normal(const irls_problem *pr, const normal_workspace *nw,
                          double *A, double *b)
{
    int p = pr->p;
    size_t pp = (size_t) p * p;
    memset(A, 0, pp * sizeof(double));
    memset(b, 0, (size_t) p * sizeof(double));
    for (int c = 0; c < pr->nchunk; c++) {
        const double *Ac = nw->chunk_A + pp * c, *bc = nw->chunk_b + (size_t) p * c;
        for (int j = 0; j < p; j++) {
            for (int k = 0; k <= j; k++) A[k + (size_t) j * p] += Ac[k + (size_t) j * p];
            b[j] += bc[j];
        }
    }
}

/* Upper triangle of A = X' W X and b = X' W z over the good rows. */
static void accumulate_normal(const irls_problem *pr, const double *sw, const double *z,
                              double *A, double *b, const normal_workspace *nw)
{
    int p = pr->p, nchunk = pr->nchunk;
    size_t pp = (size_t) p * p;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->nthreads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        double *Ac = nw->chunk_A + pp * c, *bc = nw->chunk_b + (size_t) p * c;
        double *S = nw->scratch + (size_t) c * BLOCK_ROWS * (p + 1), *t = S + (size_t) BLOCK_ROWS * p;
        int *idx = nw->idx + (size_t) c * BLOCK_ROWS;
        memset(Ac, 0, pp * sizeof(double));
        memset(bc, 0, (size_t) p * sizeof(double));
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        for (size_t blo = lo; blo < hi; blo += BLOCK_ROWS) {
            size_t bhi = blo + BLOCK_ROWS < hi ? blo + BLOCK_ROWS : hi;
            int m = 0;
            for (size_t i = blo; i < bhi; i++)
                if (sw[i] != 0.0) idx[m++] = (int) (i - blo);
            add_block(pr, blo, idx, m, sw, z, S, t, Ac, bc);
        }
    }
    reduce_normal(pr, nw, A, b);
}

/* The fused pass of one IRLS step over each block of rows while it is in
 * cache: eta = X beta + offset (skipped when beta is NULL: eta is given),
 * mu, the deviance and the validity of eta and mu; then the next step's
 * working weights and response at this (eta, mu) and their X'WX, X'Wz.
 * Returns the deviance; *err and *n_good describe the working step. */
static double row_pass(const irls_problem *pr, const double *beta, double *eta, double *mu,
                       double *sw, double *z, double *A, double *b, const normal_workspace *nw,
                       double *part, int *part_ok, int *part_err, size_t *part_good,
                       int *valid, int *err, size_t *n_good)
{
    int p = pr->p, nchunk = pr->nchunk;
    size_t pp = (size_t) p * p;
    glm_family f = pr->fam;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->fam_threads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        double *Ac = nw->chunk_A + pp * c, *bc = nw->chunk_b + (size_t) p * c;
        double *S = nw->scratch + (size_t) c * BLOCK_ROWS * (p + 1), *t = S + (size_t) BLOCK_ROWS * p;
        int *idx = nw->idx + (size_t) c * BLOCK_ROWS;
        memset(Ac, 0, pp * sizeof(double));
        memset(bc, 0, (size_t) p * sizeof(double));
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1), good = 0;
        double dev = 0.0;
        int ok = 1, e = IRLS_OK;
        double *w = nw->wbuf + (size_t) c * 2 * BLOCK_ROWS, *wz = w + BLOCK_ROWS;
        int small = p <= SMALL_P;
        for (size_t blo = lo; blo < hi; blo += BLOCK_ROWS) {
            size_t bhi = blo + BLOCK_ROWS < hi ? blo + BLOCK_ROWS : hi;
            int len = (int) (bhi - blo);
            if (beta) {
                for (size_t i = blo; i < bhi; i++) eta[i] = pr->offset ? pr->offset[i] : 0.0;
                for (int j = 0; j < p; j++) {
                    const double *xj = pr->x + (size_t) j * pr->n;
                    double bj = beta[j];
                    for (size_t i = blo; i < bhi; i++) eta[i] += xj[i] * bj;
                }
            }
            int m = 0;
            for (size_t i = blo; i < bhi; i++) {
                family_row fr;
                family_row_eval(f, eta[i], pr->y[i], pr->wt[i], &fr);
                mu[i] = fr.mu;
                ok &= fr.valid;
                dev += fr.dev;
                int st = working_row_from(pr, i, eta[i], fr.mu, fr.variance, fr.mu_eta, sw + i, z + i);
                if (st) e = merge_status(e, st);
                int r = (int) (i - blo);
                w[r] = sw[i] * sw[i];
                wz[r] = w[r] * z[i];
                if (sw[i] != 0.0) idx[m++] = r;
            }
            good += (size_t) m;
            if (m == 0) continue;
            if (small) add_block_columns(pr, blo, len, w, wz, S, Ac, bc);
            else add_block(pr, blo, idx, m, sw, z, S, t, Ac, bc);
        }
        part[c] = dev;
        part_ok[c] = ok;
        part_err[c] = e;
        part_good[c] = good;
    }
    int ok = 1, e = IRLS_OK;
    size_t ng = 0;
    for (int c = 0; c < nchunk; c++) {
        ok &= part_ok[c];
        e = merge_status(e, part_err[c]);
        ng += part_good[c];
    }
    reduce_normal(pr, nw, A, b);
    *valid = ok;
    *err = e;
    *n_good = ng;
    return sum_in_order(part, nchunk);
}

/* Cholesky solve of A beta = b. Returns 0 when A is numerically of full rank
 * by the chol_tol criterion (then fac holds U with A = U'U), 1 otherwise. */
static int solve_cholesky(int p, const double *A, const double *b, double chol_tol,
                          double *fac, double *beta)
{
    size_t pp = (size_t) p * p;
    memcpy(fac, A, pp * sizeof(double));
    int info = 0, one = 1;
    F77_CALL(dpotrf)("U", &p, fac, &p, &info FCONE);
    if (info != 0) return 1;
    for (int j = 0; j < p; j++) {
        double ajj = A[j + (size_t) j * p], ujj = fac[j + (size_t) j * p];
        if (!(ajj > 0.0) || !(ujj * ujj >= chol_tol * ajj)) return 1;
    }
    memcpy(beta, b, (size_t) p * sizeof(double));
    F77_CALL(dpotrs)("U", &p, &one, fac, &p, beta, &p, &info FCONE);
    return info != 0;
}

typedef struct {
    double *xw, *zw, *rsd, *qty, *qraux, *work, *coef;
    int *jpvt;
} qr_workspace;

/* glm.fit's solver: LINPACK dqrls (Householder QR with dqrdc2's limited
 * pivoting) on the compacted sqrt(W) X of the good rows. */
static int solve_qr(const irls_problem *pr, const double *sw, const double *z,
                    size_t n_good, double qr_tol, qr_workspace *ws,
                    double *fac, double *beta, int *pivot)
{
    int p = pr->p, ng = (int) n_good, ny = 1, rank = 0;
    size_t r = 0;
    for (size_t i = 0; i < pr->n; i++) {
        if (sw[i] == 0.0) continue;
        for (int j = 0; j < p; j++) ws->xw[r + (size_t) j * n_good] = sw[i] * pr->x[i + (size_t) j * pr->n];
        ws->zw[r] = sw[i] * z[i];
        r++;
    }
    for (int j = 0; j < p; j++) ws->jpvt[j] = j + 1;
    double tol = qr_tol;
    F77_CALL(dqrls)(ws->xw, &ng, &p, ws->zw, &ny, &tol, ws->coef, ws->rsd, ws->qty,
                    &rank, ws->jpvt, ws->qraux, ws->work);
    for (int j = 0; j < p; j++) {
        pivot[j] = ws->jpvt[j] - 1;
        beta[pivot[j]] = j < rank ? ws->coef[j] : 0.0;
    }
    memset(fac, 0, (size_t) p * p * sizeof(double));
    for (int j = 0; j < rank; j++)
        for (int i = 0; i <= j; i++) fac[i + (size_t) j * p] = ws->xw[i + (size_t) j * n_good];
    return rank;
}

/* Sized for all n rows, so that it serves every later step. */
static void alloc_qr(qr_workspace *qr, size_t n, int p)
{
    qr->xw = (double *) R_alloc(n * p, sizeof(double));
    qr->zw = (double *) R_alloc(n, sizeof(double));
    qr->rsd = (double *) R_alloc(n, sizeof(double));
    qr->qty = (double *) R_alloc(n, sizeof(double));
    qr->qraux = (double *) R_alloc(p, sizeof(double));
    qr->work = (double *) R_alloc(2 * (size_t) p, sizeof(double));
    qr->coef = (double *) R_alloc(p, sizeof(double));
    qr->jpvt = (int *) R_alloc(p, sizeof(int));
}

static int halve_step(const irls_problem *pr, double *start, const double *coefold,
                      double *eta, double *mu, double *part, int *part_ok,
                      double *dev, int *valid)
{
    for (int j = 0; j < pr->p; j++) start[j] = (start[j] + coefold[j]) / 2.0;
    compute_eta(pr, start, eta);
    *dev = compute_mu_dev(pr, eta, mu, part, part_ok, valid);
    return 0;
}

static int choose_chunks(size_t n, int p)
{
    double by_rows = ceil((double) n / ROWS_PER_CHUNK);
    double by_memory = floor(CHUNK_MEMORY_DOUBLES / ((double) p * p + (double) (BLOCK_ROWS + 1) * (p + 1)));
    double k = fmin(fmin(by_rows, MAX_CHUNKS), by_memory);
    return k < 1.0 ? 1 : (int) k;
}

typedef struct {
    double *sw, *z, *A, *b;
    size_t n_good;
    int err;
} working_state;

static void swap_states(working_state *a, working_state *b)
{
    working_state t = *a;
    *a = *b;
    *b = t;
}

static void alloc_state(working_state *s, size_t n, int p)
{
    s->sw = (double *) R_alloc(n, sizeof(double));
    s->z = (double *) R_alloc(n, sizeof(double));
    s->A = (double *) R_alloc((size_t) p * p, sizeof(double));
    s->b = (double *) R_alloc(p, sizeof(double));
    s->n_good = 0;
    s->err = IRLS_OK;
}

/* Solves the weighted least-squares step of `cur` into beta_new; returns
 * the rank and sets *used_qr. */
static int solve_step(const irls_problem *pr, const working_state *cur, const irls_control *ctl,
                      qr_workspace *qr, double *fac, double *beta_new, int *pivot, int *used_qr)
{
    int p = pr->p;
    *used_qr = cur->n_good < (size_t) p;
    if (!*used_qr) {
        *used_qr = solve_cholesky(p, cur->A, cur->b, ctl->chol_tol, fac, beta_new);
        for (int j = 0; j < p; j++) pivot[j] = j;
        if (!*used_qr) return p;
    }
    if (qr->xw == NULL) alloc_qr(qr, pr->n, p);
    return solve_qr(pr, cur->sw, cur->z, cur->n_good, ctl->qr_tol, qr, fac, beta_new, pivot);
}

void irls_run(const double *x, size_t n, int p, const double *y,
              const double *wt, const double *offset, glm_family fam,
              const irls_control *ctl, int start_mode, double *beta,
              double *eta, double *mu, double *work_w, double *resid,
              double *cov, int *pivot, irls_result *res)
{
    irls_problem pr = { x, y, wt, offset, n, p, fam, choose_chunks(n, p), 1, 1 };
#ifdef _OPENMP
    int nt = ctl->nthreads > 0 ? ctl->nthreads : omp_get_max_threads();
    if (n < PARALLEL_MIN_ROWS) nt = 1;
    pr.nthreads = nt;
    pr.fam_threads = family_thread_safe(fam) ? nt : 1;
#endif
    size_t pp = (size_t) p * p;
    int nchunk = pr.nchunk;
    double *part = (double *) R_alloc(nchunk, sizeof(double));
    int *part_ok = (int *) R_alloc(nchunk, sizeof(int));
    int *part_err = (int *) R_alloc(nchunk, sizeof(int));
    size_t *part_good = (size_t *) R_alloc(nchunk, sizeof(size_t));
    double *fac = (double *) R_alloc(pp, sizeof(double));
    double *start = (double *) R_alloc(p, sizeof(double));
    double *coefold = (double *) R_alloc(p, sizeof(double));
    normal_workspace nw;
    nw.chunk_A = (double *) R_alloc(pp * nchunk, sizeof(double));
    nw.chunk_b = (double *) R_alloc((size_t) p * nchunk, sizeof(double));
    nw.scratch = (double *) R_alloc((size_t) BLOCK_ROWS * (p + 1) * nchunk, sizeof(double));
    nw.idx = (int *) R_alloc((size_t) BLOCK_ROWS * nchunk, sizeof(int));
    nw.wbuf = (double *) R_alloc((size_t) 2 * BLOCK_ROWS * nchunk, sizeof(double));
    qr_workspace qr = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    /* cur: the working state the last step was solved with (glm.fit's w);
     * next: the state at the current estimate, filled by the fused pass */
    working_state cur, next;
    alloc_state(&cur, n, p);
    alloc_state(&next, n, p);
    memset(cur.sw, 0, n * sizeof(double));

    memset(res, 0, sizeof(*res));
    int have_coefold = 0, valid = 0, have_next = 0;
    for (int j = 0; j < p; j++) pivot[j] = j;

    const double *beta_in = NULL;
    if (start_mode == IRLS_START_COEF) {
        memcpy(coefold, beta, (size_t) p * sizeof(double));
        have_coefold = 1;
        beta_in = beta;
    } else if (start_mode == IRLS_START_MU) {
        for (size_t i = 0; i < n; i++) eta[i] = link_fun(fam.link, mu[i]);
    }
    double devold = row_pass(&pr, beta_in, eta, mu, next.sw, next.z, next.A, next.b, &nw,
                             part, part_ok, part_err, part_good, &valid, &next.err, &next.n_good);
    double dev = devold;
    if (!valid) { res->status = IRLS_ERR_START; return; }
    have_next = 1;

    int conv = 0, boundary = 0, rank = p, used_qr = 0;
    for (int iter = 1; iter <= ctl->maxit; iter++) {
        R_CheckUserInterrupt();
        res->iter = iter;
        if (!have_next) {
            next.err = working_step(&pr, eta, mu, next.sw, next.z, part_err, part_good, &next.n_good);
            if (!next.err && next.n_good > 0) accumulate_normal(&pr, next.sw, next.z, next.A, next.b, &nw);
        }
        swap_states(&cur, &next);
        have_next = 0;
        if (cur.err) { res->status = cur.err; return; }
        if (cur.n_good == 0) { res->warnings |= IRLS_WARN_NO_INFORMATIVE; conv = 0; break; }

        rank = solve_step(&pr, &cur, ctl, &qr, fac, start, pivot, &used_qr);
        int finite = 1;
        for (int j = 0; j < p; j++) finite &= isfinite(start[j]);
        if (!finite) { res->warnings |= IRLS_WARN_NONFINITE_COEF; conv = 0; break; }

        dev = row_pass(&pr, start, eta, mu, next.sw, next.z, next.A, next.b, &nw,
                       part, part_ok, part_err, part_good, &valid, &next.err, &next.n_good);
        have_next = 1;
        if (ctl->trace) Rprintf("Deviance = %.7g Iterations - %d\n", dev, iter);
        boundary = 0;
        if (!isfinite(dev)) {
            if (!have_coefold) { res->status = IRLS_ERR_NO_VALID; return; }
            res->warnings |= IRLS_WARN_DIVERGENCE;
            for (int ii = 1; !isfinite(dev); ii++) {
                if (ii > ctl->maxit) { res->status = IRLS_ERR_HALVING; return; }
                halve_step(&pr, start, coefold, eta, mu, part, part_ok, &dev, &valid);
            }
            boundary = 1;
            have_next = 0;
            if (ctl->trace) Rprintf("Step halved: new deviance = %.7g\n", dev);
        }
        if (!valid) {
            if (!have_coefold) { res->status = IRLS_ERR_NO_VALID; return; }
            res->warnings |= IRLS_WARN_OUT_OF_BOUNDS;
            for (int ii = 1; !valid; ii++) {
                if (ii > ctl->maxit) { res->status = IRLS_ERR_HALVING; return; }
                halve_step(&pr, start, coefold, eta, mu, part, part_ok, &dev, &valid);
            }
            boundary = 1;
            have_next = 0;
            if (ctl->trace) Rprintf("Step halved: new deviance = %.7g\n", dev);
        }
        memcpy(coefold, start, (size_t) p * sizeof(double));
        have_coefold = 1;
        if (fabs(dev - devold) / (0.1 + fabs(dev)) < ctl->epsilon) {
            conv = 1;
            break;
        }
        devold = dev;
    }

    if (ctl->final_weights && conv) {
        if (!have_next) {
            next.err = working_step(&pr, eta, mu, next.sw, next.z, part_err, part_good, &next.n_good);
            if (!next.err && next.n_good > 0) accumulate_normal(&pr, next.sw, next.z, next.A, next.b, &nw);
        }
        if (!next.err && next.n_good > 0) {
            double *unused = (double *) R_alloc(p, sizeof(double));
            swap_states(&cur, &next);
            rank = solve_step(&pr, &cur, ctl, &qr, fac, unused, pivot, &used_qr);
        }
    }

    /* coef is the last accepted step (glm.fit's `coef`) */
    for (int j = 0; j < p; j++) beta[j] = have_coefold ? coefold[j] : NAN;
    for (size_t i = 0; i < n; i++) {
        work_w[i] = cur.sw[i] * cur.sw[i];
        resid[i] = (y[i] - mu[i]) / link_mu_eta(fam.link, eta[i]);
    }
    memset(cov, 0, pp * sizeof(double));
    if (res->iter > 0 && rank > 0 && !(res->warnings & (IRLS_WARN_NO_INFORMATIVE | IRLS_WARN_NONFINITE_COEF))) {
        int info = 0;
        for (int j = 0; j < rank; j++)
            for (int i = 0; i <= j; i++) cov[i + (size_t) j * p] = fac[i + (size_t) j * p];
        F77_CALL(dpotri)("U", &rank, cov, &p, &info FCONE);
        for (int j = 0; j < rank; j++)
            for (int i = j + 1; i < rank; i++) cov[i + (size_t) j * p] = cov[j + (size_t) i * p];
    } else {
        for (size_t k = 0; k < pp; k++) cov[k] = NAN;
    }
    res->deviance = dev;
    res->converged = conv;
    res->boundary = boundary;
    res->rank = rank;
    res->used_qr = used_qr;
}
