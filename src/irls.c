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

/* Working weights (as sqrt) and working response; sw = 0 marks rows outside
 * glm.fit's `good` subset. Returns an irls_status. */
static int working_step(const irls_problem *pr, const double *eta, const double *mu,
                        double *sw, double *z, int *part_err, size_t *part_good,
                        size_t *n_good)
{
    int nchunk = pr->nchunk;
    glm_family f = pr->fam;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->fam_threads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1), good = 0;
        int err = IRLS_OK;
        for (size_t i = lo; i < hi; i++) {
            sw[i] = 0.0;
            z[i] = 0.0;
            if (!(pr->wt[i] > 0.0)) continue;
            double v = family_variance(f.family, mu[i]);
            double me = link_mu_eta(f.link, eta[i]);
            if (isnan(v) || v == 0.0) { err = IRLS_ERR_VARIANCE; continue; }
            if (isnan(me)) { if (!err) err = IRLS_ERR_MU_ETA; continue; }
            if (me == 0.0) continue;
            double off = pr->offset ? pr->offset[i] : 0.0;
            z[i] = (eta[i] - off) + (pr->y[i] - mu[i]) / me;
            sw[i] = sqrt(pr->wt[i] * me * me / v);
            good++;
        }
        part_err[c] = err;
        part_good[c] = good;
    }
    int err = IRLS_OK;
    size_t ng = 0;
    for (int c = 0; c < nchunk; c++) {
        if (part_err[c] == IRLS_ERR_VARIANCE || (part_err[c] && !err)) err = part_err[c];
        ng += part_good[c];
    }
    *n_good = ng;
    return err;
}

/* Upper triangle of A = X' W X and b = X' W z over the good rows, one row
 * block at a time through a BLOCK_ROWS x p scratch (dsyrk / dgemv). */
static void accumulate_normal(const irls_problem *pr, const double *sw, const double *z,
                              double *A, double *b, double *chunk_A, double *chunk_b,
                              double *scratch)
{
    int p = pr->p, nchunk = pr->nchunk;
    size_t pp = (size_t) p * p;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->nthreads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        double *Ac = chunk_A + pp * c, *bc = chunk_b + (size_t) p * c;
        double *S = scratch + (size_t) c * BLOCK_ROWS * (p + 1), *t = S + (size_t) BLOCK_ROWS * p;
        memset(Ac, 0, pp * sizeof(double));
        memset(bc, 0, (size_t) p * sizeof(double));
        size_t i = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        int lda = BLOCK_ROWS, inc = 1;
        double one = 1.0;
        while (i < hi) {
            int m = 0;
            for (; i < hi && m < BLOCK_ROWS; i++) {
                if (sw[i] == 0.0) continue;
                for (int j = 0; j < p; j++) S[m + (size_t) j * BLOCK_ROWS] = sw[i] * pr->x[i + (size_t) j * pr->n];
                t[m] = sw[i] * z[i];
                m++;
            }
            if (m == 0) continue;
            F77_CALL(dsyrk)("U", "T", &p, &m, &one, S, &lda, &one, Ac, &p FCONE FCONE);
            F77_CALL(dgemv)("T", &m, &p, &one, S, &lda, t, &inc, &one, bc, &inc FCONE);
        }
    }
    memset(A, 0, pp * sizeof(double));
    memset(b, 0, (size_t) p * sizeof(double));
    for (int c = 0; c < nchunk; c++) {
        const double *Ac = chunk_A + pp * c, *bc = chunk_b + (size_t) p * c;
        for (int j = 0; j < p; j++) {
            for (int k = 0; k <= j; k++) A[k + (size_t) j * p] += Ac[k + (size_t) j * p];
            b[j] += bc[j];
        }
    }
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
    size_t *part_good = (size_t *) R_alloc(nchunk, sizeof(size_t));
    double *sw = (double *) R_alloc(n, sizeof(double));
    double *z = (double *) R_alloc(n, sizeof(double));
    double *A = (double *) R_alloc(pp, sizeof(double));
    double *b = (double *) R_alloc(p, sizeof(double));
    double *fac = (double *) R_alloc(pp, sizeof(double));
    double *start = (double *) R_alloc(p, sizeof(double));
    double *coefold = (double *) R_alloc(p, sizeof(double));
    double *chunk_A = (double *) R_alloc(pp * nchunk, sizeof(double));
    double *chunk_b = (double *) R_alloc((size_t) p * nchunk, sizeof(double));
    double *scratch = (double *) R_alloc((size_t) BLOCK_ROWS * (p + 1) * nchunk, sizeof(double));
    qr_workspace qr = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };

    memset(res, 0, sizeof(*res));
    res->rank = 0;
    int have_coefold = 0, valid = 0;
    for (int j = 0; j < p; j++) pivot[j] = j;

    if (start_mode == IRLS_START_COEF) {
        memcpy(coefold, beta, (size_t) p * sizeof(double));
        have_coefold = 1;
        compute_eta(&pr, beta, eta);
    } else if (start_mode == IRLS_START_MU) {
        for (size_t i = 0; i < n; i++) eta[i] = link_fun(fam.link, mu[i]);
    }
    double devold = compute_mu_dev(&pr, eta, mu, part, part_ok, &valid), dev = devold;
    if (!valid) { res->status = IRLS_ERR_START; return; }

    int conv = 0, boundary = 0, rank = p, used_qr = 0;
    size_t n_good = 0;
    for (int iter = 1; iter <= ctl->maxit; iter++) {
        R_CheckUserInterrupt();
        res->iter = iter;
        int err = working_step(&pr, eta, mu, sw, z, part_ok, part_good, &n_good);
        if (err) { res->status = err; return; }
        if (n_good == 0) { res->warnings |= IRLS_WARN_NO_INFORMATIVE; conv = 0; break; }

        used_qr = n_good < (size_t) p;
        if (!used_qr) {
            accumulate_normal(&pr, sw, z, A, b, chunk_A, chunk_b, scratch);
            used_qr = solve_cholesky(p, A, b, ctl->chol_tol, fac, start);
            rank = p;
            for (int j = 0; j < p; j++) pivot[j] = j;
        }
        if (used_qr) {
            if (qr.xw == NULL) alloc_qr(&qr, n, p);
            rank = solve_qr(&pr, sw, z, n_good, ctl->qr_tol, &qr, fac, start, pivot);
        }
        int finite = 1;
        for (int j = 0; j < p; j++) finite &= isfinite(start[j]);
        if (!finite) { res->warnings |= IRLS_WARN_NONFINITE_COEF; conv = 0; break; }

        compute_eta(&pr, start, eta);
        dev = compute_mu_dev(&pr, eta, mu, part, part_ok, &valid);
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
            if (ctl->trace) Rprintf("Step halved: new deviance = %.7g\n", dev);
        }
        if (fabs(dev - devold) / (0.1 + fabs(dev)) < ctl->epsilon) {
            conv = 1;
            memcpy(coefold, start, (size_t) p * sizeof(double));
            have_coefold = 1;
            break;
        }
        devold = dev;
        memcpy(coefold, start, (size_t) p * sizeof(double));
        have_coefold = 1;
    }

    if (ctl->final_weights && conv) {
        if (working_step(&pr, eta, mu, sw, z, part_ok, part_good, &n_good) == IRLS_OK && n_good > 0) {
            double *unused = (double *) R_alloc(p, sizeof(double));
            used_qr = n_good < (size_t) p;
            if (!used_qr) {
                accumulate_normal(&pr, sw, z, A, b, chunk_A, chunk_b, scratch);
                used_qr = solve_cholesky(p, A, b, ctl->chol_tol, fac, unused);
                rank = p;
                for (int j = 0; j < p; j++) pivot[j] = j;
            }
            if (used_qr) {
                if (qr.xw == NULL) alloc_qr(&qr, n, p);
                rank = solve_qr(&pr, sw, z, n_good, ctl->qr_tol, &qr, fac, unused, pivot);
            }
        }
    }

    /* coef is the last accepted step (glm.fit's `coef`) */
    for (int j = 0; j < p; j++) beta[j] = have_coefold ? coefold[j] : NAN;
    for (size_t i = 0; i < n; i++) {
        work_w[i] = sw[i] * sw[i];
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
