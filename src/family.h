#ifndef EPIMASK_FAMILY_H
#define EPIMASK_FAMILY_H

#include <stddef.h>
#include "glm_codes.h"

/* Exponential-family pieces for IRLS with the same formulas (and the same
 * clamping constants) as R's stats::family objects, so that a fit here
 * follows glm.fit's path. Quasi families use their parent's code; the
 * dispersion is a matter for the caller. The codes are in glm_codes.h. */

typedef struct {
    int family;
    int link;
} glm_family;

/* 1 if the (family, link) pair is implemented, 0 otherwise. */
int family_supported(glm_family f);

/* 1 if the functions below may be called from several threads at once
 * (the probit link uses R's normal distribution functions and is kept on
 * the main thread). */
int family_thread_safe(glm_family f);

/* Element by element: linkfun, linkinv, mu.eta, valideta, variance,
 * dev.resids. */
double link_fun(int link, double mu);
double link_inv(int link, double eta);
double link_mu_eta(int link, double eta);
int link_valid_eta(int link, double eta);
double family_variance(int family, double mu);
double family_dev_resid(int family, double y, double mu, double wt);

/* The same over a block of len rows, with the switch on the link or family
 * taken once per block (values identical to the element functions). */
void family_link_block(int link, int len, const double *eta, double *mu, double *mu_eta);
void family_variance_block(int family, int len, const double *mu, double *v);
/* valideta(eta) && validmu(mu) for every row. */
int family_valid_block(glm_family f, int len, const double *eta, const double *mu);
/* s + the deviance residuals added one row after the other. */
double family_dev_block(int family, int len, const double *y, const double *mu,
                        const double *wt, double s);

/* Single passes over a response vector around the iteration. */

/* 1 if a response is outside the family's support (binomial: a proportion
 * outside [0, 1] with positive weight; poisson: negative; Gamma: not
 * positive), 0 otherwise. */
int family_support(int family, const double *y, const double *wt, size_t n);

/* family$initialize of the stats families: y_out (binomial only, if not
 * NULL) is the response it leaves (0 where the weight is 0) and mustart
 * (binomial and poisson, if not NULL; the others start from y itself) the
 * starting means; returns 1 where initialize would stop. */
int family_initialize(int family, const double *y, const double *wt, size_t n,
                      double *y_out, double *mustart);

/* glm.fit's null deviance when no model has to be fitted: at the weighted
 * mean of y (intercept) or at linkinv(offset) (no intercept; offset may be
 * NULL for 0). */
double family_null_deviance(glm_family f, const double *y, const double *wt,
                            const double *offset, size_t n, int intercept);

/* 1 if a fitted mean is within 10 DBL_EPSILON of 0 or 1 (binomial) or of 0
 * (poisson). */
int family_separation(int family, const double *mu, size_t n);

/* The log-likelihood sum of binomial()$aic / poisson()$aic (so that the AIC
 * is -2 times it plus 2 rank): m holds the binomial sizes (family$initialize's
 * n, or the prior weights when every n is 1). Returns 0 and sets *loglik,
 * or 1 when the AIC is not defined (a non-integer poisson response: NA). */
int family_aic_loglik(int family, const double *y, const double *m, const double *wt,
                      const double *mu, size_t n, double *loglik);

#endif
