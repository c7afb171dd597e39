#ifndef EPIMASK_ERR_H
#define EPIMASK_ERR_H

#include <stddef.h>

/* Linear excess-relative-risk (ERR) binary regression (methods vignette section 2.1):
 *
 *     odds_i = exp(off_i + z_i' gamma) * (1 + beta d_i),   y_i ~ Binomial(m_i, p_i)
 *
 * with prior weights w_i. Records with w_i = 0 or m_i = 0 carry no information
 * and are ignored everywhere, including the constraint 1 + beta d_i > 0, which
 * is imposed on every other record. Plain C over arrays; no R API. */

typedef struct {
    size_t n;          /* records */
    int p;             /* columns of z (the log-linear part) */
    const double *z;   /* n x p, column-major */
    const double *d;   /* dose */
    const double *y;   /* successes (cases), 0 <= y <= m */
    const double *m;   /* trials (1 for Bernoulli) */
    const double *w;   /* prior weights >= 0 */
    const double *off; /* offset of the log-linear part, or NULL */
} err_data;

typedef struct {
    int maxit;         /* Newton iterations */
    int max_halving;   /* step halvings per iteration */
    double eps;        /* relative deviance change that counts as converged */
} err_control;

typedef struct {
    double deviance;
    int iter;
    int converged;     /* 1 if the convergence criterion was met */
    int boundary;      /* -1: beta at the lower admissible limit, +1: upper, 0: interior */
    int status;        /* ERR_OK or one of the codes below */
} err_result;

enum {
    ERR_OK = 0,
    ERR_SINGULAR = 1,    /* information matrix not positive definite (design singular) */
    ERR_INFEASIBLE = 2,  /* deviance infinite at the start (a case at odds 0) */
    ERR_NOMEM = 3
};

/* Admissible range of beta: {beta : 1 + beta d_i > 0 for every informative
 * record} = (lo, hi), lo = -1/max(d_i > 0) (or -Inf), hi = 1/max(-d_i < 0)
 * (or +Inf). */
void err_beta_range(const err_data *dat, double *lo, double *hi);

/* Deviance, score U (length p + 1, gamma then beta) and information matrix I
 * ((p + 1) x (p + 1), column-major) at (gamma, beta). expected = 0 gives the
 * observed information -d2 loglik, expected = 1 the Fisher information.
 * Score and information are those of the log-likelihood (deviance = -2 loglik
 * + constant). Returns the deviance (+Inf if infeasible). zg: scratch of n. */
double err_derivatives(const err_data *dat, const double *gamma, double beta,
                       int expected, double *score, double *info, double *zg);

/* Maximise the likelihood jointly over (gamma, beta) by damped Newton steps
 * (observed information, Fisher scoring where it is not positive definite),
 * halving steps that do not lower the deviance and never letting 1 + beta d_i
 * fall by more than 90% in one step. When beta runs to an admissible limit
 * and the likelihood still rises there, the fit stops at the limit with
 * res->boundary set. gamma (p) and beta hold the start on entry and the
 * estimate on exit. score (p + 1) and info ((p + 1)^2), unless NULL, receive
 * the score and observed information at the estimate. */
void err_fit_joint(const err_data *dat, double *gamma, double *beta,
                   const err_control *ctl, err_result *res,
                   double *score, double *info);

/* Maximise over gamma with beta held fixed (a logistic regression with offset
 * log(1 + beta d)); gamma holds the (warm) start on entry. */
void err_fit_gamma(const err_data *dat, double *gamma, double beta,
                   const err_control *ctl, err_result *res,
                   double *score, double *info);

#endif
