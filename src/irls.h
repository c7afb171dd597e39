#ifndef EPIMASK_IRLS_H
#define EPIMASK_IRLS_H

#include <stddef.h>
#include "family.h"

/* Iteratively reweighted least squares for a GLM, step for step as R's
 * glm.fit: same working response and weights, the same `good` subset
 * (prior weight > 0 and d(mu)/d(eta) != 0), the same convergence test
 * |dev - dev_old| / (|dev| + 0.1) < epsilon and the same step halving.
 * Each weighted least-squares step accumulates X'WX and X'Wz from row blocks
 * (no copy of X) and solves by Cholesky; when a Cholesky pivot shows near
 * collinearity it falls back to LINPACK's dqrls on sqrt(W) X, exactly the
 * solver glm.fit calls, so that aliased columns are the ones glm reports. */

typedef struct {
    int maxit;
    double epsilon;
    int trace;
    double qr_tol;   /* dqrdc2 tolerance: min(1e-7, epsilon / 1000) in glm.fit */
    double chol_tol; /* smallest accepted L_jj^2 / A_jj (1 - R^2 of column j on
                        the earlier ones) before switching to the QR solver */
    int nthreads;    /* <= 0: OpenMP default */
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

enum irls_status {
    IRLS_OK = 0,
    IRLS_ERR_START = 1,    /* no valid starting values */
    IRLS_ERR_VARIANCE = 2, /* NA or 0 in V(mu) */
    IRLS_ERR_MU_ETA = 3,   /* NA in d(mu)/d(eta) */
    IRLS_ERR_NO_VALID = 4, /* invalid first step and nothing to halve towards */
    IRLS_ERR_HALVING = 5,  /* step halving did not restore a valid fit */
    IRLS_ERR_X_NAN = 6,    /* NA or NaN in X */
    IRLS_ERR_X_INF = 7     /* an infinite value in X (and no NA) */
};

/* Bits of irls_result.warnings. */
enum irls_warning {
    IRLS_WARN_DIVERGENCE = 1,      /* step truncated: deviance not finite */
    IRLS_WARN_OUT_OF_BOUNDS = 2,   /* step truncated: eta or mu invalid */
    IRLS_WARN_NONFINITE_COEF = 4,  /* non-finite coefficients, stopped */
    IRLS_WARN_NO_INFORMATIVE = 8   /* no observation with positive weight */
};

typedef struct {
    double deviance;
    int iter;
    int converged;
    int boundary;
    int rank;
    int status;
    int warnings;
    int used_qr;   /* the last step was solved by the QR fallback */
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

/* Single passes over the data around the iteration. */

/* 1 if a column of the n x p matrix x is all ones (an intercept). */
int irls_ones_column(const double *x, size_t n, int p);

/* 0 if every element is finite, 1 if one is NA or NaN, 2 if one is infinite. */
int irls_nonfinite(const double *v, size_t len, int nthreads);

/* 1 if a response is outside the family's support (binomial: a proportion
 * outside [0, 1] with positive weight; poisson: negative; Gamma: not
 * positive), 0 otherwise. */
int irls_support(int family, const double *y, const double *wt, size_t n);

/* family$initialize of the stats families for a response vector: y_out
 * (binomial only, if not NULL) is the response it leaves (0 where the
 * weight is 0) and mustart (binomial and poisson; the others start from y
 * itself) the starting means; returns 1 where initialize would stop. */
int irls_initialize(int family, const double *y, const double *wt, size_t n,
                    double *y_out, double *mustart);

/* glm.fit's null deviance when no model has to be fitted: at the weighted
 * mean of y (intercept) or at linkinv(offset) (no intercept; offset may be
 * NULL for 0). */
double irls_null_deviance(glm_family f, const double *y, const double *wt, const double *offset,
                          size_t n, int intercept);

/* The log-likelihood sum of binomial()$aic / poisson()$aic without special
 * functions where possible (m: binomial sizes; lfact[k] = lgamma(k + 1)
 * for k < IRLS_AIC_TABLE); returns 0 if the data need dbinom/dpois. */
#define IRLS_AIC_TABLE 256
int irls_loglik_simple(int family, const double *y, const double *m, const double *wt,
                       const double *mu, size_t n, const double *lfact, double *out);

/* 1 if a fitted mean is numerically 0 or 1 (binomial) or 0 (poisson). */
int irls_separation(int family, const double *mu, size_t n);

#endif
