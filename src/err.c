/* Linear excess-relative-risk binary regression (methods vignette section 2.1); see err.h.
 *
 * Per record, with u = 1 + beta d, eta = off + z'gamma + log u, p = expit(eta):
 *   loglik  l = w [y log p + (m - y) log(1 - p)]
 *   dl/deta   = w (y - m p),   deta/dgamma = z,   deta/dbeta = d / u
 *   -d2l/dbeta2 = w d^2 (y - m p^2) / u^2 = w [y (d/u)^2 - m (d q)^2],  q = p / u
 * q = exp(off + z'gamma - log(1 + e^eta)) stays finite as u -> 0, so records
 * without cases are smooth through beta = -1/d (their odds just reach 0), while
 * a case at odds 0 makes the deviance infinite. log p and log(1 - p) are taken
 * as -log(1 + e^-eta) and -log(1 + e^eta) so that p near 0 or 1 loses nothing. */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <R_ext/Lapack.h>
#include "err.h"

#ifndef FCONE
#define FCONE
#endif

/* 1 + beta d rounds to about +-1e-16 at an exact admissible limit; treat it as 0. */
#define U_ROUNDING 1e-12
/* A step may shrink 1 + beta d_i to no less than this fraction of its value. */
#define KEEP_FRACTION 0.1
/* Below this 1 + beta d the fit checks whether the optimum is the limit itself. */
#define U_BOUNDARY 1e-8

static int informative(const err_data *dat, size_t i)
{
    return dat->w[i] > 0 && dat->m[i] > 0;
}

/* 1 + beta d, with rounding noise at an admissible limit mapped to 0; a
 * clearly negative value (inadmissible beta) is returned as is. */
static double odds_factor(double beta, double d)
{
    double bd = beta * d, u = 1.0 + bd;
    if (u <= 0 && u > -U_ROUNDING * (1.0 + fabs(bd))) u = 0;
    return u;
}

static void linear_part(const err_data *dat, const double *gamma, double *zg)
{
    size_t n = dat->n;
    for (size_t i = 0; i < n; i++) zg[i] = dat->off ? dat->off[i] : 0.0;
    for (int j = 0; j < dat->p; j++) {
        const double *zj = dat->z + (size_t) j * n;
        double g = gamma[j];
        if (g == 0) continue;
        for (size_t i = 0; i < n; i++) zg[i] += zj[i] * g;
    }
}

void err_beta_range(const err_data *dat, double *lo, double *hi)
{
    double dmax = 0, dmin = 0;
    for (size_t i = 0; i < dat->n; i++) {
        if (!informative(dat, i)) continue;
        if (dat->d[i] > dmax) dmax = dat->d[i];
        if (dat->d[i] < dmin) dmin = dat->d[i];
    }
    *lo = dmax > 0 ? -1.0 / dmax : -INFINITY;
    *hi = dmin < 0 ? -1.0 / dmin : INFINITY;
}

/* Deviance contribution of one record given eta (u > 0). */
/* The pieces of expit(eta) from one exponential: e = exp(-|eta|),
 * log(1 + exp(eta)) = max(eta, 0) + log1p(e), and p, 1 - p. */
typedef struct { double p, omp, log1pexp_pos, log1pexp_neg; } err_logit;

static err_logit logit_parts(double eta)
{
    err_logit r;
    double e = exp(-fabs(eta)), l = log1p(e);
    if (eta >= 0) {
        r.p = 1.0 / (1.0 + e); r.omp = e / (1.0 + e);
        r.log1pexp_pos = eta + l; r.log1pexp_neg = l;
    } else {
        r.p = e / (1.0 + e); r.omp = 1.0 / (1.0 + e);
        r.log1pexp_pos = l; r.log1pexp_neg = -eta + l;
    }
    return r;
}

/* Deviance contribution of one record (u > 0); -log p = log(1 + e^-eta),
 * -log(1 - p) = log(1 + e^eta). The saturated terms vanish for y = 0 or m. */
static double record_deviance(double y, double m, double w, const err_logit *lg)
{
    double dev = 0;
    if (y > 0) dev += y * ((y < m ? log(y / m) : 0.0) + lg->log1pexp_neg);
    if (m - y > 0) dev += (m - y) * ((y > 0 ? log((m - y) / m) : 0.0) + lg->log1pexp_pos);
    return 2.0 * w * dev;
}

double err_derivatives(const err_data *dat, const double *gamma, double beta,
                       int expected, double *score, double *info, double *zg)
{
    int p = dat->p, P = p + 1;
    size_t n = dat->n;
    memset(score, 0, (size_t) P * sizeof(double));
    memset(info, 0, (size_t) P * P * sizeof(double));
    linear_part(dat, gamma, zg);
    double dev = 0;
    for (size_t i = 0; i < n; i++) {
        if (!informative(dat, i)) continue;
        double y = dat->y[i], m = dat->m[i], w = dat->w[i], d = dat->d[i];
        double u = odds_factor(beta, d);
        if (u < 0 || (u == 0 && y > 0)) return INFINITY;
        double wr, vgg, vgb, vbb;
        if (u == 0) {
            /* limit u -> 0 with y = 0: p = 0, p/u -> exp(zg) */
            double q = exp(zg[i]);
            wr = 0;
            score[p] += -w * m * d * q;
            vgg = 0;
            vgb = w * m * q * d;
            vbb = -w * m * (d * q) * (d * q);
        } else {
            double eta = zg[i] + (d == 0 ? 0.0 : log1p(beta * d));
            err_logit lg = logit_parts(eta);
            double p_i = lg.p, omp = lg.omp;
            /* q = p / u; from logs only where p itself would underflow */
            double q = eta > -700 ? p_i / u : exp(zg[i] - lg.log1pexp_pos);
            double a = d / u;
            dev += record_deviance(y, m, w, &lg);
            wr = w * (y - m * p_i);
            score[p] += w * (y > 0 ? y * a : 0.0) - w * m * d * q;
            vgg = w * m * p_i * omp;
            vgb = w * m * omp * q * d;
            vbb = expected ? w * m * omp * q * d * a
                           : w * ((y > 0 ? y * a * a : 0.0) - m * (d * q) * (d * q));
        }
        for (int j = 0; j < p; j++) {
            double zij = dat->z[i + (size_t) j * n];
            score[j] += wr * zij;
            info[j + (size_t) p * P] += vgb * zij;
            if (vgg == 0) continue;
            for (int k = 0; k <= j; k++)
                info[j + (size_t) k * P] += vgg * zij * dat->z[i + (size_t) k * n];
        }
        info[p + (size_t) p * P] += vbb;
    }
    /* symmetrize: gamma block was filled below the diagonal, the gamma-beta
     * column in column p */
    for (int j = 0; j < p; j++) {
        for (int k = 0; k < j; k++) info[k + (size_t) j * P] = info[j + (size_t) k * P];
        info[p + (size_t) j * P] = info[j + (size_t) p * P];
    }
    return dev;
}

/* Solve A x = b for symmetric positive definite A (k x k, column-major) by
 * LAPACK's Cholesky; L is k x k scratch for the factor. Returns 1 when A is
 * not numerically positive definite (dpotrf fails, or a pivot keeps less
 * than 1e-12 of its diagonal entry: the column is a combination of the
 * earlier ones to about 6 digits), 0 otherwise. */
static int chol_solve(int k, const double *A, const double *b, double *x, double *L)
{
    int info = 0, one = 1;
    memcpy(L, A, (size_t) k * k * sizeof(double));
    F77_CALL(dpotrf)("U", &k, L, &k, &info FCONE);
    if (info != 0) return 1;
    for (int j = 0; j < k; j++) {
        double ajj = A[j + (size_t) j * k], ujj = L[j + (size_t) j * k];
        if (!(ajj > 0) || !(ujj * ujj > 1e-12 * ajj) || !isfinite(ujj)) return 1;
    }
    memcpy(x, b, (size_t) k * sizeof(double));
    F77_CALL(dpotrs)("U", &k, &one, L, &k, x, &k, &info FCONE);
    return info != 0;
}

typedef struct {
    double *zg, *score, *info, *score_t, *info_t, *L, *step, *trial;
} err_work;

static int work_alloc(err_work *wk, size_t n, int P)
{
    size_t nn = n > 0 ? n : 1, PP = (size_t) P * P;
    wk->zg = (double *) malloc(nn * sizeof(double));
    wk->score = (double *) malloc((size_t) P * sizeof(double));
    wk->info = (double *) malloc(PP * sizeof(double));
    wk->score_t = (double *) malloc((size_t) P * sizeof(double));
    wk->info_t = (double *) malloc(PP * sizeof(double));
    wk->L = (double *) malloc(PP * sizeof(double));
    wk->step = (double *) malloc((size_t) P * sizeof(double));
    wk->trial = (double *) malloc((size_t) P * sizeof(double));
    return wk->zg && wk->score && wk->info && wk->score_t && wk->info_t &&
        wk->L && wk->step && wk->trial;
}

static void work_free(err_work *wk)
{
    free(wk->zg); free(wk->score); free(wk->info); free(wk->score_t);
    free(wk->info_t); free(wk->L); free(wk->step); free(wk->trial);
}

/* The trial point was accepted: its derivatives become the current ones. */
static void work_accept_trial(err_work *wk)
{
    double *s = wk->score, *i = wk->info;
    wk->score = wk->score_t; wk->info = wk->info_t;
    wk->score_t = s; wk->info_t = i;
}

static void copy_out(const err_work *wk, int P, double *score, double *info)
{
    if (score) memcpy(score, wk->score, (size_t) P * sizeof(double));
    if (info) memcpy(info, wk->info, (size_t) P * P * sizeof(double));
}

static double accept_slack(double dev)
{
    return 1e-13 * (fabs(dev) + 1.0);
}

static void result_init(err_result *res)
{
    res->iter = 0; res->converged = 0; res->boundary = 0; res->status = ERR_OK;
    res->deviance = NAN;
}

void err_fit_gamma(const err_data *dat, double *gamma, double beta,
                   const err_control *ctl, err_result *res,
                   double *score, double *info)
{
    int p = dat->p, P = p + 1;
    err_work wk;
    result_init(res);
    double *gscore = (double *) malloc((size_t) P * sizeof(double));
    double *ginfo = (double *) malloc((size_t) P * P * sizeof(double));
    if (!work_alloc(&wk, dat->n, P) || !gscore || !ginfo) {
        free(gscore); free(ginfo); work_free(&wk); res->status = ERR_NOMEM; return;
    }
    double dev = err_derivatives(dat, gamma, beta, 0, wk.score, wk.info, wk.zg);
    res->deviance = dev;
    if (!isfinite(dev)) res->status = ERR_INFEASIBLE;
    if (p == 0 && res->status == ERR_OK) res->converged = 1;
    for (int iter = 1; res->status == ERR_OK && p > 0 && iter <= ctl->maxit; iter++) {
        res->iter = iter;
        /* the gamma block of the observed information is the logistic one */
        for (int j = 0; j < p; j++) {
            gscore[j] = wk.score[j];
            for (int k = 0; k < p; k++) ginfo[j + (size_t) k * p] = wk.info[j + (size_t) k * P];
        }
        if (chol_solve(p, ginfo, gscore, wk.step, wk.L)) { res->status = ERR_SINGULAR; break; }
        double t = 1, dev_new = INFINITY;
        int h;
        for (h = 0; h <= ctl->max_halving; h++, t *= 0.5) {
            for (int j = 0; j < p; j++) wk.trial[j] = gamma[j] + t * wk.step[j];
            dev_new = err_derivatives(dat, wk.trial, beta, 0, wk.score_t, wk.info_t, wk.zg);
            if (isfinite(dev_new) && dev_new <= dev + accept_slack(dev)) break;
        }
        if (h > ctl->max_halving) {
            /* no step lowers the deviance: at the optimum up to rounding, or stuck */
            double dec = 0;
            for (int j = 0; j < p; j++) dec += gscore[j] * wk.step[j];
            res->converged = dec < ctl->eps * (fabs(dev) + 0.1);
            break;
        }
        memcpy(gamma, wk.trial, (size_t) p * sizeof(double));
        work_accept_trial(&wk);
        double dev_old = dev;
        dev = dev_new;
        res->deviance = dev;
        if (h == 0 && fabs(dev_old - dev) < ctl->eps * (fabs(dev) + 0.1)) {
            res->converged = 1;
            break;
        }
    }
    copy_out(&wk, P, score, info);
    free(gscore); free(ginfo);
    work_free(&wk);
}

/* Smallest 1 + beta d_i over informative records; *side receives -1 when it
 * belongs to a positive dose (beta near its lower limit), +1 otherwise. */
static double smallest_odds_factor(const err_data *dat, double beta, int *side)
{
    double umin = INFINITY;
    *side = 0;
    for (size_t i = 0; i < dat->n; i++) {
        if (!informative(dat, i) || dat->d[i] == 0) continue;
        double u = 1.0 + beta * dat->d[i];
        if (u < umin) { umin = u; *side = dat->d[i] > 0 ? -1 : 1; }
    }
    return umin;
}

/* Largest t in (0, 1] such that no 1 + beta d_i shrinks below KEEP_FRACTION of
 * its value when beta moves by t * sb. */
static double step_to_boundary(const err_data *dat, double beta, double sb)
{
    double t = 1;
    if (sb == 0) return t;
    for (size_t i = 0; i < dat->n; i++) {
        if (!informative(dat, i)) continue;
        double u = 1.0 + beta * dat->d[i], du = sb * dat->d[i];
        if (du < 0 && u + du < KEEP_FRACTION * u) {
            double tt = (1.0 - KEEP_FRACTION) * u / -du;
            if (tt < t) t = tt;
        }
    }
    return t;
}

/* Is the constrained maximum at the admissible limit on `side`? It is when the
 * profile over gamma at the limit is finite, no worse than the current
 * deviance, and the likelihood still rises outwards there. On acceptance the
 * estimate and wk's score and information move to the limit; otherwise wk is
 * left untouched. */
static int try_limit(const err_data *dat, const err_control *ctl, int side,
                     double limit, double dev, double *gamma, double *beta,
                     err_work *wk, err_result *res)
{
    int p = dat->p, P = p + 1;
    double *gb = (double *) malloc((size_t) P * sizeof(double));
    if (!gb) return 0;
    memcpy(gb, gamma, (size_t) p * sizeof(double));
    err_result r;
    err_fit_gamma(dat, gb, limit, ctl, &r, wk->score_t, wk->info_t);
    int accept = r.status == ERR_OK && isfinite(r.deviance) &&
        r.deviance <= dev + 1e-8 * (fabs(dev) + 0.1) &&
        (side < 0 ? wk->score_t[p] <= 0 : wk->score_t[p] >= 0);
    if (accept) {
        memcpy(gamma, gb, (size_t) p * sizeof(double));
        *beta = limit;
        work_accept_trial(wk);
        res->deviance = r.deviance;
        res->converged = r.converged;
        res->boundary = side;
    }
    free(gb);
    return accept;
}

void err_fit_joint(const err_data *dat, double *gamma, double *beta,
                   const err_control *ctl, err_result *res,
                   double *score, double *info)
{
    int p = dat->p, P = p + 1;
    err_work wk;
    result_init(res);
    if (!work_alloc(&wk, dat->n, P)) { work_free(&wk); res->status = ERR_NOMEM; return; }
    double lo, hi;
    err_beta_range(dat, &lo, &hi);
    double dev = err_derivatives(dat, gamma, *beta, 0, wk.score, wk.info, wk.zg);
    res->deviance = dev;
    if (!isfinite(dev)) res->status = ERR_INFEASIBLE;
    int info_observed = 1;
    for (int iter = 1; res->status == ERR_OK && iter <= ctl->maxit; iter++) {
        res->iter = iter;
        int newton = 1;
        if (chol_solve(P, wk.info, wk.score, wk.step, wk.L)) {
            /* away from the optimum the observed information may be indefinite:
             * take a Fisher-scoring step instead */
            newton = 0;
            info_observed = 0;
            err_derivatives(dat, gamma, *beta, 1, wk.score, wk.info, wk.zg);
            if (chol_solve(P, wk.info, wk.score, wk.step, wk.L)) {
                res->status = ERR_SINGULAR;
                break;
            }
        }
        double t0 = step_to_boundary(dat, *beta, wk.step[p]);
        double t = t0, dev_new = INFINITY;
        int h;
        for (h = 0; h <= ctl->max_halving; h++, t *= 0.5) {
            for (int j = 0; j < P; j++)
                wk.trial[j] = (j < p ? gamma[j] : *beta) + t * wk.step[j];
            dev_new = err_derivatives(dat, wk.trial, wk.trial[p], 0, wk.score_t,
                                      wk.info_t, wk.zg);
            if (isfinite(dev_new) && dev_new <= dev + accept_slack(dev)) break;
        }
        if (h > ctl->max_halving) {
            double dec = 0;
            for (int j = 0; j < P; j++) dec += wk.score[j] * wk.step[j];
            res->converged = newton && dec < ctl->eps * (fabs(dev) + 0.1);
            break;
        }
        memcpy(gamma, wk.trial, (size_t) p * sizeof(double));
        *beta = wk.trial[p];
        work_accept_trial(&wk);
        info_observed = 1;
        double dev_old = dev;
        dev = dev_new;
        res->deviance = dev;
        if (newton && h == 0 && t0 == 1 &&
            fabs(dev_old - dev) < ctl->eps * (fabs(dev) + 0.1)) {
            res->converged = 1;
            break;
        }
        int side;
        double umin = smallest_odds_factor(dat, *beta, &side);
        if (umin < U_BOUNDARY) {
            double limit = side < 0 ? lo : hi;
            if (try_limit(dat, ctl, side, limit, dev, gamma, beta, &wk, res)) break;
        }
    }
    if (!info_observed && (score || info))
        err_derivatives(dat, gamma, *beta, 0, wk.score, wk.info, wk.zg);
    copy_out(&wk, P, score, info);
    work_free(&wk);
}
