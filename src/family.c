#include <math.h>
#include <float.h>
#include <Rmath.h>
#include "family.h"

/* Constants of R's src/library/stats/src/family.c (logit link). */
#define LOGIT_THRESH 30.0
#define LOGIT_MTHRESH -30.0
#define LOGIT_INVEPS (1.0 / DBL_EPSILON)
/* -qnorm(DBL_EPSILON), the clamp of make.link("probit")$linkinv. */
#define PROBIT_THRESH 8.125890664701906

int family_supported(glm_family f)
{
    switch (f.family) {
    case FAM_GAUSSIAN:
        return f.link == LINK_IDENTITY || f.link == LINK_LOG || f.link == LINK_INVERSE;
    case FAM_BINOMIAL:
        return f.link == LINK_LOGIT || f.link == LINK_PROBIT ||
            f.link == LINK_CLOGLOG || f.link == LINK_LOG;
    case FAM_POISSON:
        return f.link == LINK_LOG || f.link == LINK_IDENTITY || f.link == LINK_SQRT;
    case FAM_GAMMA:
        return f.link == LINK_INVERSE || f.link == LINK_LOG || f.link == LINK_IDENTITY;
    default:
        return 0;
    }
}

int family_thread_safe(glm_family f)
{
    return f.link != LINK_PROBIT;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

double link_fun(int link, double mu)
{
    switch (link) {
    case LINK_IDENTITY: return mu;
    case LINK_LOG: return log(mu);
    case LINK_LOGIT: return log(mu / (1.0 - mu));
    case LINK_PROBIT: return qnorm(mu, 0.0, 1.0, 1, 0);
    case LINK_CLOGLOG: return log(-log(1.0 - mu));
    case LINK_INVERSE: return 1.0 / mu;
    case LINK_SQRT: return sqrt(mu);
    default: return NAN;
    }
}

/* The logit pieces from e = exp(eta), as R's logit_linkinv and
 * logit_mu_eta compute them. */
static inline double logit_inv(double eta, double e)
{
    double t = eta < LOGIT_MTHRESH ? DBL_EPSILON : (eta > LOGIT_THRESH ? LOGIT_INVEPS : e);
    return t / (1.0 + t);
}

static inline double logit_mu_eta(double eta, double e)
{
    double opexp = 1.0 + e;
    return (eta > LOGIT_THRESH || eta < LOGIT_MTHRESH) ? DBL_EPSILON : e / (opexp * opexp);
}

double link_inv(int link, double eta)
{
    switch (link) {
    case LINK_IDENTITY: return eta;
    case LINK_LOG: return fmax(exp(eta), DBL_EPSILON);
    case LINK_LOGIT: return logit_inv(eta, exp(eta));
    case LINK_PROBIT:
        return pnorm(clamp(eta, -PROBIT_THRESH, PROBIT_THRESH), 0.0, 1.0, 1, 0);
    case LINK_CLOGLOG:
        return fmax(fmin(-expm1(-exp(eta)), 1.0 - DBL_EPSILON), DBL_EPSILON);
    case LINK_INVERSE: return 1.0 / eta;
    case LINK_SQRT: return eta * eta;
    default: return NAN;
    }
}

double link_mu_eta(int link, double eta)
{
    double e;
    switch (link) {
    case LINK_IDENTITY: return 1.0;
    case LINK_LOG: return fmax(exp(eta), DBL_EPSILON);
    case LINK_LOGIT: return logit_mu_eta(eta, exp(eta));
    case LINK_PROBIT: return fmax(dnorm(eta, 0.0, 1.0, 0), DBL_EPSILON);
    case LINK_CLOGLOG:
        e = fmin(eta, 700.0);
        return fmax(exp(e) * exp(-exp(e)), DBL_EPSILON);
    case LINK_INVERSE: return -1.0 / (eta * eta);
    case LINK_SQRT: return 2.0 * eta;
    default: return NAN;
    }
}

int link_valid_eta(int link, double eta)
{
    switch (link) {
    case LINK_INVERSE: return isfinite(eta) && eta != 0.0;
    case LINK_SQRT: return isfinite(eta) && eta > 0.0;
    default: return 1;
    }
}

double family_variance(int family, double mu)
{
    switch (family) {
    case FAM_GAUSSIAN: return 1.0;
    case FAM_BINOMIAL: return mu * (1.0 - mu);
    case FAM_POISSON: return mu;
    case FAM_GAMMA: return mu * mu;
    default: return NAN;
    }
}

static inline double y_log_y(double y, double mu)
{
    return (y != 0.0) ? (y * log(y / mu)) : 0.0;
}

static inline double binomial_dev(double y, double mu, double wt)
{
    return 2.0 * wt * (y_log_y(y, mu) + y_log_y(1.0 - y, 1.0 - mu));
}

static inline double poisson_dev(double y, double mu, double wt)
{
    return y > 0.0 ? 2.0 * wt * (y * log(y / mu) - (y - mu)) : 2.0 * mu * wt;
}

double family_dev_resid(int family, double y, double mu, double wt)
{
    switch (family) {
    case FAM_GAUSSIAN: return wt * (y - mu) * (y - mu);
    case FAM_BINOMIAL: return binomial_dev(y, mu, wt);
    case FAM_POISSON: return poisson_dev(y, mu, wt);
    case FAM_GAMMA:
        return -2.0 * wt * (log(y == 0.0 ? 1.0 : y / mu) - (y - mu) / mu);
    default: return NAN;
    }
}

/* ---- blocks of rows: one switch per block, loops the compiler can keep
 * tight (exp and log are libm's, called once per row where needed) ---- */

void family_link_block(int link, int len, const double *eta, double *mu, double *mu_eta)
{
    switch (link) {
    case LINK_LOGIT:
        for (int r = 0; r < len; r++) {
            double e = exp(eta[r]);
            mu[r] = logit_inv(eta[r], e);
            mu_eta[r] = logit_mu_eta(eta[r], e);
        }
        break;
    case LINK_LOG:
        for (int r = 0; r < len; r++) mu[r] = mu_eta[r] = fmax(exp(eta[r]), DBL_EPSILON);
        break;
    case LINK_IDENTITY:
        for (int r = 0; r < len; r++) {
            mu[r] = eta[r];
            mu_eta[r] = 1.0;
        }
        break;
    default:
        for (int r = 0; r < len; r++) {
            mu[r] = link_inv(link, eta[r]);
            mu_eta[r] = link_mu_eta(link, eta[r]);
        }
    }
}

void family_variance_block(int family, int len, const double *mu, double *v)
{
    switch (family) {
    case FAM_GAUSSIAN:
        for (int r = 0; r < len; r++) v[r] = 1.0;
        break;
    case FAM_BINOMIAL:
        for (int r = 0; r < len; r++) v[r] = mu[r] * (1.0 - mu[r]);
        break;
    case FAM_POISSON:
        for (int r = 0; r < len; r++) v[r] = mu[r];
        break;
    case FAM_GAMMA:
        for (int r = 0; r < len; r++) v[r] = mu[r] * mu[r];
        break;
    default:
        for (int r = 0; r < len; r++) v[r] = NAN;
    }
}

int family_valid_block(glm_family f, int len, const double *eta, const double *mu)
{
    int bad = 0;
    if (f.link == LINK_INVERSE || f.link == LINK_SQRT)
        for (int r = 0; r < len; r++) bad |= !link_valid_eta(f.link, eta[r]);
    switch (f.family) {
    case FAM_BINOMIAL:
        for (int r = 0; r < len; r++) bad |= !(mu[r] > 0.0 && mu[r] < 1.0);
        break;
    case FAM_POISSON:
    case FAM_GAMMA:
        for (int r = 0; r < len; r++) bad |= !(mu[r] > 0.0 && mu[r] < HUGE_VAL);
        break;
    default:
        break;
    }
    return !bad;
}

double family_dev_block(int family, int len, const double *y, const double *mu,
                        const double *wt, double s)
{
    switch (family) {
    case FAM_BINOMIAL:
        for (int r = 0; r < len; r++) s += binomial_dev(y[r], mu[r], wt[r]);
        break;
    case FAM_POISSON:
        for (int r = 0; r < len; r++) s += poisson_dev(y[r], mu[r], wt[r]);
        break;
    default:
        for (int r = 0; r < len; r++) s += family_dev_resid(family, y[r], mu[r], wt[r]);
    }
    return s;
}

/* ---- single passes around the iteration ---- */

int family_support(int family, const double *y, const double *wt, size_t n)
{
    /* initialize's own check (weights are non-negative, checked in R) */
    return family_initialize(family, y, wt, n, NULL, NULL);
}

int family_initialize(int family, const double *y, const double *wt, size_t n,
                      double *y_out, double *mustart)
{
    int bad = 0;
    switch (family) {
    case FAM_BINOMIAL:
        for (size_t i = 0; i < n; i++) {
            double yi = wt[i] == 0.0 ? 0.0 : y[i];
            bad |= yi < 0.0 || yi > 1.0;
            if (y_out) y_out[i] = yi;
            if (mustart) mustart[i] = (wt[i] * yi + 0.5) / (wt[i] + 1.0);
        }
        break;
    case FAM_POISSON:
        for (size_t i = 0; i < n; i++) {
            bad |= y[i] < 0.0;
            if (mustart) mustart[i] = y[i] + 0.1;
        }
        break;
    case FAM_GAMMA:
        for (size_t i = 0; i < n; i++) bad |= y[i] <= 0.0;
        break;
    default:
        break;
    }
    return bad;
}

/* Sum of the deviance residuals at one common mean m, as
 * sum(dev.resids(y, rep(m, n), wt)); the terms of binary responses are
 * computed once (the same values as the row-by-row formula). */
static double dev_const_mu(glm_family f, const double *y, const double *wt, size_t n, double m)
{
    long double s = 0.0;
    double at0 = family_dev_resid(f.family, 0.0, m, 1.0) / 2.0;
    double at1 = family_dev_resid(f.family, 1.0, m, 1.0) / 2.0;
    int binomial = f.family == FAM_BINOMIAL;
    for (size_t i = 0; i < n; i++) {
        double d;
        if (binomial && y[i] == 0.0) d = 2.0 * wt[i] * at0;
        else if (binomial && y[i] == 1.0) d = 2.0 * wt[i] * at1;
        else d = family_dev_resid(f.family, y[i], m, wt[i]);
        s += d;
    }
    return (double) s;
}

double family_null_deviance(glm_family f, const double *y, const double *wt,
                            const double *offset, size_t n, int intercept)
{
    if (intercept) {
        long double sw = 0.0, swy = 0.0;
        for (size_t i = 0; i < n; i++) {
            swy += wt[i] * y[i];
            sw += wt[i];
        }
        /* as sum(wt * y) / sum(wt): each sum rounded to double first */
        return dev_const_mu(f, y, wt, n, (double) swy / (double) sw);
    }
    if (!offset) return dev_const_mu(f, y, wt, n, link_inv(f.link, 0.0));
    long double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += family_dev_resid(f.family, y[i], link_inv(f.link, offset[i]), wt[i]);
    return (double) s;
}

int family_separation(int family, const double *mu, size_t n)
{
    double eps = 10.0 * DBL_EPSILON;
    int sep = 0;
    if (family == FAM_BINOMIAL) {
        for (size_t i = 0; i < n; i++) sep |= mu[i] > 1.0 - eps || mu[i] < eps;
    } else if (family == FAM_POISSON) {
        for (size_t i = 0; i < n; i++) sep |= mu[i] < eps;
    }
    return sep;
}

/* binomial()$aic: -2 sum((wt / m) dbinom(round(m y), round(m), mu, log = TRUE))
 * over the rows with m > 0. A Bernoulli row (m = 1, y 0 or 1) is log(mu)
 * or log(1 - mu), which dbinom computes by the same logarithms or, for a
 * probability below 0.1, by its saddle-point bd0 (equal to log1p(-mu) or
 * log(mu) to an ulp or two); other rows go to dbinom itself. */
static double bernoulli_loglik(double y, double mu)
{
    double q = 1.0 - mu;
    if (y == 1.0) return log(mu);
    return mu < 0.1 ? log1p(-mu) : log(q);
}

static double binomial_loglik(const double *y, const double *m, const double *wt,
                              const double *mu, size_t n)
{
    long double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(m[i] > 0.0)) continue;
        double l = (m[i] == 1.0 && (y[i] == 0.0 || y[i] == 1.0) && mu[i] > 0.0 && mu[i] < 1.0)
            ? bernoulli_loglik(y[i], mu[i])
            : dbinom(nearbyint(m[i] * y[i]), nearbyint(m[i]), mu[i], 1);
        s += (wt[i] / m[i]) * l;
    }
    return (double) s;
}

/* poisson()$aic: -2 sum(dpois(y, mu, log = TRUE) wt); counts below
 * POISSON_TABLE use y log(mu) - mu - lgamma(y + 1) with a table of
 * lgamma (dpois's value to a few ulp). */
#define POISSON_TABLE 256
static double poisson_loglik(const double *y, const double *wt, const double *mu, size_t n)
{
    double lfact[POISSON_TABLE];
    for (int k = 0; k < POISSON_TABLE; k++) lfact[k] = lgammafn(k + 1.0);
    long double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double k = y[i], l;
        if (k == 0.0) l = -mu[i];
        else if (k > 0.0 && k < POISSON_TABLE && k == floor(k)) l = k * log(mu[i]) - mu[i] - lfact[(int) k];
        else l = dpois(k, mu[i], 1);
        s += l * wt[i];
    }
    return (double) s;
}

int family_aic_loglik(int family, const double *y, const double *m, const double *wt,
                      const double *mu, size_t n, double *loglik)
{
    *loglik = NAN;
    if (family == FAM_BINOMIAL) {
        *loglik = binomial_loglik(y, m, wt, mu, n);
        return 0;
    }
    if (family != FAM_POISSON) return 1;
    /* poisson()$aic is not defined for non-integer responses */
    for (size_t i = 0; i < n; i++)
        if (fabs(y[i] - nearbyint(y[i])) > 1e-7) return 1;
    *loglik = poisson_loglik(y, wt, mu, n);
    return 0;
}
