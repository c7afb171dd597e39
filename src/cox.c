#include <math.h>
#include <string.h>
#include <R_ext/Lapack.h>
#include "cox.h"
#include "par_rows.h"

#ifndef FCONE
#define FCONE
#endif

/* Accumulates r * x and r * x x' (lower triangle, column-major) of record k. */
static void add_record(int p, size_t n, const double *xc, size_t k, double r, double *a,
                       double *c)
{
    for (int i = 0; i < p; i++) {
        double xi = xc[k + (size_t) i * n];
        a[i] += r * xi;
        double rxi = r * xi;
        for (int j = 0; j <= i; j++) c[i + (size_t) j * p] += rxi * xc[k + (size_t) j * n];
    }
}

/* The contribution of one event time with `nd` events to the log partial
 * likelihood, score and information: denom, a, c the sums over the records
 * at risk that are not events at this time, d2, a2, c2 the same sums over
 * the events, deadwt the events' total case weight. Breslow's form puts
 * every event in every denominator; Efron's takes the k-th of nd terms with
 * (k - 1) / nd of the events' sums removed. On return denom, a, c include
 * the events. */
static double event_terms(int p, int nd, int efron, double deadwt, double *denom, double *a,
                          double *c, double d2, const double *a2, const double *c2,
                          double *u, double *imat)
{
    double ll = 0.0;
    int parts = (efron && nd > 1) ? nd : 1;
    double w = deadwt / parts, frac = 1.0 / parts;
    for (int k = 0; k < parts; k++) {
        *denom += frac * d2;
        for (int i = 0; i < p; i++) {
            a[i] += frac * a2[i];
            for (int j = 0; j <= i; j++) c[i + (size_t) j * p] += frac * c2[i + (size_t) j * p];
        }
        double D = *denom;
        ll -= w * log(D);
        for (int i = 0; i < p; i++) {
            double mi = a[i] / D;
            u[i] -= w * mi;
            for (int j = 0; j <= i; j++)
                imat[i + (size_t) j * p] += w * (c[i + (size_t) j * p] / D - mi * a[j] / D);
        }
    }
    return ll;
}

double cox_pass(const cox_problem *pr, const double *xc, const double *beta, double *u,
                double *imat, double *eta, double *work)
{
    int p = pr->p;
    size_t n = pr->n, pp = (size_t) p * p;
    double *a = work, *a2 = work + p, *c = work + 2 * p, *c2 = c + pp;
    for (size_t k = 0; k < n; k++) {
        double e = pr->offset ? pr->offset[k] : 0.0;
        for (int j = 0; j < p; j++) e += xc[k + (size_t) j * n] * beta[j];
        eta[k] = e;
    }
    memset(u, 0, (size_t) p * sizeof(double));
    memset(imat, 0, pp * sizeof(double));
    double ll = 0.0;
    for (int s = 0; s < pr->nstrata; s++) {
        int lo = pr->bound[s], hi = pr->bound[s + 1];
        double denom = 0.0;
        memset(a, 0, (size_t) p * sizeof(double));
        memset(c, 0, pp * sizeof(double));
        int i = lo, j = lo;
        while (i < hi) {
            double t = pr->stop[pr->ord[i]];
            int nd = 0;
            double deadwt = 0.0, d2 = 0.0;
            memset(a2, 0, (size_t) p * sizeof(double));
            memset(c2, 0, pp * sizeof(double));
            for (; i < hi && pr->stop[pr->ord[i]] == t; i++) {
                size_t k = (size_t) pr->ord[i];
                double r = pr->wt[k] * exp(eta[k]);
                if (pr->status[k]) {
                    nd++;
                    deadwt += pr->wt[k];
                    d2 += r;
                    ll += pr->wt[k] * eta[k];
                    for (int q = 0; q < p; q++) u[q] += pr->wt[k] * xc[k + (size_t) q * n];
                    add_record(p, n, xc, k, r, a2, c2);
                } else {
                    denom += r;
                    add_record(p, n, xc, k, r, a, c);
                }
            }
            /* counting process: records entering at or after t leave the
             * risk set (they were added when their later stop time passed) */
            if (pr->ord2) {
                for (; j < hi && pr->start[pr->ord2[j]] >= t; j++) {
                    size_t k = (size_t) pr->ord2[j];
                    double r = pr->wt[k] * exp(eta[k]);
                    denom -= r;
                    add_record(p, n, xc, k, -r, a, c);
                }
            }
            if (nd > 0)
                ll += event_terms(p, nd, pr->efron, deadwt, &denom, a, c, d2, a2, c2, u, imat);
        }
    }
    /* the information in full */
    for (int q = 0; q < p; q++)
        for (int r = 0; r < q; r++) imat[r + (size_t) q * p] = imat[q + (size_t) r * p];
    return ll;
}

size_t cox_scratch_size(size_t n, int p)
{
    size_t pp = (size_t) p * p;
    /* xc (n p), eta (n), u (p), imat, fac (p p each), step (p), newbeta
     * (2 p), the pass's work (2 p + 2 p p) */
    return n * (size_t) p + n + 6 * (size_t) p + 4 * pp;
}

/* Cholesky of the information into fac; 0 when it is not positive definite. */
static int factor(int p, const double *imat, double *fac)
{
    int info = 0;
    memcpy(fac, imat, (size_t) p * p * sizeof(double));
    F77_CALL(dpotrf)("U", &p, fac, &p, &info FCONE);
    return info == 0;
}

static int all_finite(const double *v, size_t len)
{
    for (size_t k = 0; k < len; k++) if (!isfinite(v[k])) return 0;
    return 1;
}

cox_result cox_fit(const cox_problem *pr, const double *x, const cox_control *ctl,
                   double *beta, double *var, double *score, double *means, double *work)
{
    int p = pr->p, one = 1, info = 0;
    size_t n = pr->n, pp = (size_t) p * p;
    double *xc = work, *eta = xc + n * (size_t) p, *u = eta + n, *imat = u + p,
        *fac = imat + pp, *step = fac + pp, *newbeta = step + p, *pass = newbeta + 2 * p;
    cox_result res = { COX_OK, 0, NAN, NAN };
    /* centring leaves the partial likelihood unchanged and keeps exp() in range */
    for (int j = 0; j < p; j++) {
        const double *xj = x + (size_t) j * n;
        double m = 0.0;
        for (size_t k = 0; k < n; k++) m += xj[k];
        m /= (double) n;
        means[j] = m;
        for (size_t k = 0; k < n; k++) xc[k + (size_t) j * n] = xj[k] - m;
    }
    double best = cox_pass(pr, xc, beta, u, imat, eta, pass);
    res.loglik0 = best;
    if (!isfinite(best) || !all_finite(u, p) || !all_finite(imat, pp)) {
        res.status = COX_NONFINITE;
        return res;
    }
    if (!factor(p, imat, fac)) { res.status = COX_SINGULAR; return res; }
    memcpy(step, u, (size_t) p * sizeof(double));
    F77_CALL(dpotrs)("U", &p, &one, fac, &p, step, &p, &info FCONE);
    for (int j = 0; j < p; j++) newbeta[j] = beta[j] + step[j];
    int halving = 0, converged = 0;
    for (res.iter = 1; res.iter <= ctl->maxit; res.iter++) {
        double lk = cox_pass(pr, xc, newbeta, u, imat, eta, pass);
        int finite = isfinite(lk) && all_finite(u, p) && all_finite(imat, pp);
        /* survival's coxph.control rule: relative change of the log
         * likelihood against the best value so far */
        if (finite && fabs(1.0 - best / lk) <= ctl->eps) {
            memcpy(beta, newbeta, (size_t) p * sizeof(double));
            best = lk;
            converged = 1;
            break;
        }
        if (!finite || lk < best) {
            /* the step went too far: back towards the last good beta */
            halving++;
            for (int j = 0; j < p; j++)
                newbeta[j] = (newbeta[j] + halving * beta[j]) / (halving + 1.0);
            continue;
        }
        halving = 0;
        best = lk;
        if (!factor(p, imat, fac)) { res.status = COX_SINGULAR; return res; }
        memcpy(step, u, (size_t) p * sizeof(double));
        F77_CALL(dpotrs)("U", &p, &one, fac, &p, step, &p, &info FCONE);
        memcpy(beta, newbeta, (size_t) p * sizeof(double));
        for (int j = 0; j < p; j++) newbeta[j] = beta[j] + step[j];
    }
    if (!converged) {
        if (res.iter > ctl->maxit) res.iter = ctl->maxit;
        /* the information at the last good beta */
        best = cox_pass(pr, xc, beta, u, imat, eta, pass);
        res.status = COX_NOT_CONVERGED;
    }
    res.loglik = best;
    if (!factor(p, imat, fac)) { res.status = COX_SINGULAR; return res; }
    F77_CALL(dpotri)("U", &p, fac, &p, &info FCONE);
    if (info != 0) { res.status = COX_SINGULAR; return res; }
    for (int q = 0; q < p; q++)
        for (int r = 0; r <= q; r++)
            var[r + (size_t) q * p] = var[q + (size_t) r * p] = fac[r + (size_t) q * p];
    /* the score at the estimate: var * score is the next Newton step, which
     * a monotone likelihood keeps large after the log likelihood converged */
    memcpy(score, u, (size_t) p * sizeof(double));
    return res;
}

/* Many designs (the replicates of a profile) sharing the times, status,
 * weights and strata: x is n x p x nrep; replicate r's estimate goes to
 * coef[, r], its variance to var[, , r] and its status to status[r]. Each
 * replicate starts from beta = 0 (as coxph) and is fitted by one thread, so
 * the result does not depend on the number of threads. */
typedef struct {
    const cox_problem *pr;
    const double *x;
    const cox_control *ctl;
    double *coef, *var, *score, *loglik, *work;
    int *status, *iter;
    size_t per;
} cox_many_job;

static double cox_row(void *ctx, size_t rr, int t)
{
    const cox_many_job *j = (const cox_many_job *) ctx;
    int p = j->pr->p, r = (int) rr;
    size_t n = j->pr->n, pp = (size_t) p * p, np = n * (size_t) p;
    double *w = j->work + (size_t) t * j->per;
    double *b = j->coef + (size_t) r * p;
    memset(b, 0, (size_t) p * sizeof(double));
    cox_result res = cox_fit(j->pr, j->x + (size_t) r * np, j->ctl, b, j->var + (size_t) r * pp,
                             j->score + (size_t) r * p, w + cox_scratch_size(n, p), w);
    j->status[r] = res.status;
    j->iter[r] = res.iter;
    j->loglik[2 * (size_t) r] = res.loglik0;
    j->loglik[2 * (size_t) r + 1] = res.loglik;
    return 1.0;
}

void cox_fit_many(const cox_problem *pr, const double *x, int nrep, const cox_control *ctl,
                  int nthreads, double *coef, double *var, double *score, double *loglik,
                  int *status, int *iter, double *work, void (*interrupt)(void))
{
    int p = pr->p;
    size_t n = pr->n;
    size_t per = cox_scratch_size(n, p) + (size_t) p;   /* + means */
    int nt = nthreads > 1 && nrep > 1 ? (nthreads < nrep ? nthreads : nrep) : 1;
    cox_many_job job = { pr, x, ctl, coef, var, score, loglik, work, status, iter, per };
    int batch = 16 * nt;
    for (int lo = 0; lo < nrep; lo += batch) {
        int hi = lo + batch < nrep ? lo + batch : nrep;
        /* replicates handed out one at a time, passive waits (par_rows.h) */
        par_rows((size_t) lo, (size_t) hi, 1, INFINITY, nt, cox_row, &job);
        if (interrupt) interrupt();
    }
}
