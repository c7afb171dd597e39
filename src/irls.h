#ifndef EPIMASK_IRLS_H
#define EPIMASK_IRLS_H

#include <stddef.h>
#include "family.h"

/* Iteratively reweighted least squares for a GLM, step for step as R's
 * glm.fit: same working response and weights, the same `good` subset
 * (prior weight > 0 and d(mu)/d(eta) != 0), the same convergence test
 * |dev - dev_old| / (|dev| + 0.1) < epsilon and the same step halving.
 * Each weighted least-squares step accumulates X'WX and X'Wz from row blocks
 * (no copy of X; register tiles in plain C, irls_linalg.h) and solves them by LAPACK's Cholesky; a design so close to
 * collinear that glm.fit's QR might pivot a column out is solved instead by
 * a QR with the same limited pivoting (irls_linalg.h), so that aliased
 * columns are the ones glm reports. Rows are cut into chunks that depend on
 * n and p only, and chunk sums are added in chunk order: the same bits for
 * any number of threads. */

typedef struct {
    int maxit;
    double epsilon;
    int trace;
    double qr_tol;   /* dqrdc2 tolerance: min(1e-7, epsilon / 1000) in glm.fit */
    double chol_tol; /* smallest accepted L_jj^2 / A_jj (1 - R^2 of column j on
                        the earlier ones) for the Cholesky solve */
    int nthreads;    /* OpenMP threads at most (>= 1); fewer when they get no
                        cores of their own (par_rows.h) */
    int schedule;    /* 0; for tests, 1 + the order in which chunks are
                        handed out (0 natural, 1 reversed, 2 from both
                        ends), with every pass on nthreads threads */
    int final_weights; /* 0: as glm.fit, the working weights (and so the
                          covariance) are those of the last step, computed
                          at the previous iterate; 1: recomputed at the
                          final estimate (used after warm starts, whose
                          last step may start far from glm.fit's path) */
} irls_control;

enum irls_start_mode {
    IRLS_START_ETA = 0,  /* eta holds the starting linear predictor */
    IRLS_START_COEF = 1, /* beta holds starting coefficients */
    IRLS_START_MU = 2    /* mu holds the starting means */
};

typedef struct {
    double deviance;
    int iter;
    int converged;
    int boundary;
    int rank;
    int status;    /* enum irls_status (glm_codes.h) */
    int warnings;  /* bits of enum irls_warning */
    int used_qr;   /* the last step was solved by the QR */
} irls_result;

/* x: n x p column-major; y, wt, offset: length n (offset may be NULL).
 * On entry, depending on start_mode, eta, beta or mu holds the start.
 * On exit: beta (p) the coefficients (0 for aliased ones, whose positions are
 * pivot[rank..p-1]); eta, mu the final linear predictor and means;
 * work_w the working weights of the last step (0 outside its good subset);
 * resid the working residuals (y - mu) / mu.eta(eta); cov (p x p) holds in
 * its leading rank x rank block the inverse of X'WX of the non-aliased
 * columns pivot[0..rank-1], in that order; pivot is 0-based. */
void irls_run(const double *x, size_t n, int p, const double *y,
              const double *wt, const double *offset, glm_family fam,
              const irls_control *ctl, int start_mode, double *beta,
              double *eta, double *mu, double *work_w, double *resid,
              double *cov, int *pivot, irls_result *res);

/* 1 if a column of the n x p matrix x is all ones (an intercept). */
int irls_ones_column(const double *x, size_t n, int p);

/* 0 if every element is finite, 1 if one is NA or NaN, 2 if one is infinite. */
int irls_nonfinite(const double *v, size_t len, int nthreads);

/* Many fits of a canonical-link GLM with the dispersion fixed at 1 (poisson
 * log, binomial logit) sharing the design x (n x p), prior weights wt and
 * offset (may be NULL), each given only through its sufficient statistic
 * T_r = X' diag(wt) y_r (column r of stat, p x nrep): for these families the
 * quasi-score X'(T - X' wt mu(beta)) and the information X' diag(wt V(mu)) X
 * depend on y_r only through T_r. Newton's method (which is IRLS for a
 * canonical link) from `start` (e.g. the fit of one replicate; every
 * replicate starts there, so results do not depend on which thread fits
 * which replicate), halving steps that lower the
 * concave quasi-log-likelihood T'beta - sum wt kappa(eta); converged when
 * no coefficient moves by more than tol (|beta| + 1). Returns in coef and
 * se (p x nrep) the estimates and sqrt(diag(I^-1)) at them, NaN for a
 * replicate that failed (singular information, no convergence in maxit). */
void irls_stat_many(const double *x, size_t n, int p, const double *wt,
                    const double *offset, glm_family fam, const double *stat, int nrep,
                    const double *start, int maxit, double tol, int nthreads,
                    double *coef, double *se);

#endif
