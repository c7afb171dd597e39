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

static inline double link_inv_(int link, double eta)
{
    double t;
    switch (link) {
    case LINK_IDENTITY: return eta;
    case LINK_LOG: return fmax(exp(eta), DBL_EPSILON);
    case LINK_LOGIT:
        t = eta < LOGIT_MTHRESH ? DBL_EPSILON :
            (eta > LOGIT_THRESH ? LOGIT_INVEPS : exp(eta));
        return t / (1.0 + t);
    case LINK_PROBIT:
        return pnorm(clamp(eta, -PROBIT_THRESH, PROBIT_THRESH), 0.0, 1.0, 1, 0);
    case LINK_CLOGLOG:
        return fmax(fmin(-expm1(-exp(eta)), 1.0 - DBL_EPSILON), DBL_EPSILON);
    case LINK_INVERSE: return 1.0 / eta;
    case LINK_SQRT: return eta * eta;
    default: return NAN;
    }
}

static inline double link_mu_eta_(int link, double eta)
{
    double opexp, e;
    switch (link) {
    case LINK_IDENTITY: return 1.0;
    case LINK_LOG: return fmax(exp(eta), DBL_EPSILON);
    case LINK_LOGIT:
        opexp = 1.0 + exp(eta);
        return (eta > LOGIT_THRESH || eta < LOGIT_MTHRESH) ? DBL_EPSILON :
            exp(eta) / (opexp * opexp);
    case LINK_PROBIT: return fmax(dnorm(eta, 0.0, 1.0, 0), DBL_EPSILON);
    case LINK_CLOGLOG:
        e = fmin(eta, 700.0);
        return fmax(exp(e) * exp(-exp(e)), DBL_EPSILON);
    case LINK_INVERSE: return -1.0 / (eta * eta);
    case LINK_SQRT: return 2.0 * eta;
    default: return NAN;
    }
}

static inline int link_valid_eta_(int link, double eta)
{
    switch (link) {
    case LINK_INVERSE: return isfinite(eta) && eta != 0.0;
    case LINK_SQRT: return isfinite(eta) && eta > 0.0;
    default: return 1;
    }
}

static inline double family_variance_(int family, double mu)
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

static inline double family_dev_resid_(int family, double y, double mu, double wt)
{
    switch (family) {
    case FAM_GAUSSIAN: return wt * (y - mu) * (y - mu);
    case FAM_BINOMIAL: return 2.0 * wt * (y_log_y(y, mu) + y_log_y(1.0 - y, 1.0 - mu));
    case FAM_POISSON:
        return y > 0.0 ? 2.0 * wt * (y * log(y / mu) - (y - mu)) : 2.0 * mu * wt;
    case FAM_GAMMA:
        return -2.0 * wt * (log(y == 0.0 ? 1.0 : y / mu) - (y - mu) / mu);
    default: return NAN;
    }
}

static inline int family_valid_mu_(int family, double mu)
{
    switch (family) {
    case FAM_BINOMIAL: return isfinite(mu) && mu > 0.0 && mu < 1.0;
    case FAM_POISSON:
    case FAM_GAMMA: return isfinite(mu) && mu > 0.0;
    default: return 1;
    }
}

double link_inv(int link, double eta) { return link_inv_(link, eta); }
double link_mu_eta(int link, double eta) { return link_mu_eta_(link, eta); }
int link_valid_eta(int link, double eta) { return link_valid_eta_(link, eta); }
double family_variance(int family, double mu) { return family_variance_(family, mu); }
double family_dev_resid(int family, double y, double mu, double wt)
{
    return family_dev_resid_(family, y, mu, wt);
}
int family_valid_mu(int family, double mu) { return family_valid_mu_(family, mu); }

void family_row_eval(glm_family f, double eta, double y, double wt, family_row *out)
{
    double e, t, opexp;
    switch (f.link) {
    case LINK_LOGIT:
        e = exp(eta);
        t = eta < LOGIT_MTHRESH ? DBL_EPSILON : (eta > LOGIT_THRESH ? LOGIT_INVEPS : e);
        out->mu = t / (1.0 + t);
        opexp = 1.0 + e;
        out->mu_eta = (eta > LOGIT_THRESH || eta < LOGIT_MTHRESH) ? DBL_EPSILON : e / (opexp * opexp);
        break;
    case LINK_LOG:
        out->mu = out->mu_eta = fmax(exp(eta), DBL_EPSILON);
        break;
    case LINK_IDENTITY:
        out->mu = eta;
        out->mu_eta = 1.0;
        break;
    default:
        out->mu = link_inv_(f.link, eta);
        out->mu_eta = link_mu_eta_(f.link, eta);
    }
    out->valid = link_valid_eta_(f.link, eta) && family_valid_mu_(f.family, out->mu);
    out->variance = family_variance_(f.family, out->mu);
    out->dev = family_dev_resid_(f.family, y, out->mu, wt);
}
