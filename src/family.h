#ifndef EPIMASK_FAMILY_H
#define EPIMASK_FAMILY_H

/* Exponential-family pieces for IRLS, element by element, with the same
 * formulas (and the same clamping constants) as R's stats::family objects, so
 * that a fit here follows glm.fit's path. Quasi families use their parent's
 * code; the dispersion is a matter for the caller. Codes must stay in step
 * with family_codes() in R/irls.R. */

enum glm_family_kind {
    FAM_GAUSSIAN = 1, FAM_BINOMIAL = 2, FAM_POISSON = 3, FAM_GAMMA = 4
};

enum glm_link_kind {
    LINK_IDENTITY = 1, LINK_LOG = 2, LINK_LOGIT = 3, LINK_PROBIT = 4,
    LINK_CLOGLOG = 5, LINK_INVERSE = 6, LINK_SQRT = 7
};

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

double link_fun(int link, double mu);
double link_inv(int link, double eta);
double link_mu_eta(int link, double eta);
int link_valid_eta(int link, double eta);

double family_variance(int family, double mu);

/* All IRLS needs at one row, in one call (sharing exp(eta) between the
 * inverse link and its derivative, with values identical to the separate
 * functions): mu, d(mu)/d(eta), V(mu), the deviance residual, and whether
 * eta and mu lie in the valid region. */
typedef struct {
    double mu, mu_eta, variance, dev;
    int valid;
} family_row;

void family_row_eval(glm_family f, double eta, double y, double wt, family_row *out);
double family_dev_resid(int family, double y, double mu, double wt);
int family_valid_mu(int family, double mu);

#endif
