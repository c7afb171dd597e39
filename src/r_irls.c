#include <math.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include <Rmath.h>
#include "irls.h"
#include "vmath.h"
#include "r_epimask.h"

/* The R side (R/irls.R) has checked types, lengths and values; these checks
 * only keep a malformed internal call from reading out of bounds. */
static void check_double(SEXP v, R_xlen_t len, const char *arg)
{
    if (!isReal(v) || (len >= 0 && XLENGTH(v) != len))
        error("internal: `%s` must be a double vector of length %lld", arg, (long long) len);
}

SEXP r_irls_fit(SEXP x, SEXP y, SEXP weights, SEXP offset, SEXP family,
                SEXP control, SEXP start_mode, SEXP start)
{
    if (!isReal(x) || !isMatrix(x)) error("internal: `x` must be a double matrix");
    size_t n = (size_t) nrows(x);
    int p = ncols(x);
    check_double(y, (R_xlen_t) n, "y");
    check_double(weights, (R_xlen_t) n, "weights");
    if (!isNull(offset)) check_double(offset, (R_xlen_t) n, "offset");
    if (!isInteger(family) || XLENGTH(family) != 2) error("internal: bad family codes");
    check_double(control, 7, "control");
    if (!isInteger(start_mode) || XLENGTH(start_mode) != 1) error("internal: bad start mode");
    int mode = INTEGER(start_mode)[0];
    check_double(start, mode == IRLS_START_COEF ? (R_xlen_t) p : (R_xlen_t) n, "start");

    glm_family fam = { INTEGER(family)[0], INTEGER(family)[1] };
    if (!family_supported(fam)) error("internal: unsupported family/link codes");
    const double *ctl_v = REAL(control);
    irls_control ctl = { (int) ctl_v[0], ctl_v[1], (int) ctl_v[2], ctl_v[3], ctl_v[4],
                         (int) ctl_v[5], (int) ctl_v[6] };

    const char *names[] = { "coefficients", "linear.predictors", "fitted.values",
                            "weights", "residuals", "cov.unscaled", "pivot",
                            "deviance", "iter", "converged", "boundary", "rank",
                            "status", "warnings", "used_qr", "" };
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP beta = PROTECT(allocVector(REALSXP, p));
    SEXP eta = PROTECT(allocVector(REALSXP, (R_xlen_t) n));
    SEXP mu = PROTECT(allocVector(REALSXP, (R_xlen_t) n));
    SEXP ww = PROTECT(allocVector(REALSXP, (R_xlen_t) n));
    SEXP resid = PROTECT(allocVector(REALSXP, (R_xlen_t) n));
    SEXP cov = PROTECT(allocMatrix(REALSXP, p, p));
    SEXP pivot = PROTECT(allocVector(INTSXP, p));
    memset(REAL(beta), 0, (size_t) p * sizeof(double));
    if (mode == IRLS_START_COEF) memcpy(REAL(beta), REAL(start), (size_t) p * sizeof(double));
    if (mode == IRLS_START_ETA) memcpy(REAL(eta), REAL(start), n * sizeof(double));
    if (mode == IRLS_START_MU) memcpy(REAL(mu), REAL(start), n * sizeof(double));

    irls_result res;
    irls_run(REAL(x), n, p, REAL(y), REAL(weights), isNull(offset) ? NULL : REAL(offset),
             fam, &ctl, mode, REAL(beta), REAL(eta), REAL(mu), REAL(ww), REAL(resid),
             REAL(cov), INTEGER(pivot), &res);
    for (int j = 0; j < p; j++) INTEGER(pivot)[j]++;

    SET_VECTOR_ELT(out, 0, beta);
    SET_VECTOR_ELT(out, 1, eta);
    SET_VECTOR_ELT(out, 2, mu);
    SET_VECTOR_ELT(out, 3, ww);
    SET_VECTOR_ELT(out, 4, resid);
    SET_VECTOR_ELT(out, 5, cov);
    SET_VECTOR_ELT(out, 6, pivot);
    SET_VECTOR_ELT(out, 7, ScalarReal(res.deviance));
    SET_VECTOR_ELT(out, 8, ScalarInteger(res.iter));
    SET_VECTOR_ELT(out, 9, ScalarLogical(res.converged));
    SET_VECTOR_ELT(out, 10, ScalarLogical(res.boundary));
    SET_VECTOR_ELT(out, 11, ScalarInteger(res.rank));
    SET_VECTOR_ELT(out, 12, ScalarInteger(res.status));
    SET_VECTOR_ELT(out, 13, ScalarInteger(res.warnings));
    SET_VECTOR_ELT(out, 14, ScalarLogical(res.used_qr));
    UNPROTECT(8);
    return out;
}

/* Family functions evaluated by the C code, exposed so that tests can check
 * them against R's family objects: what = 1 linkfun, 2 linkinv, 3 mu.eta,
 * 4 variance, 5 dev.resids (with y and wt); and the vectorizable exp (6)
 * and log (7) of vmath.h on their safe ranges (libm elsewhere, as in the
 * iteration). */
SEXP r_irls_family_eval(SEXP family, SEXP what, SEXP v, SEXP y, SEXP wt)
{
    if (!isInteger(family) || XLENGTH(family) != 2) error("internal: bad family codes");
    glm_family fam = { INTEGER(family)[0], INTEGER(family)[1] };
    int w = asInteger(what);
    R_xlen_t n = XLENGTH(v);
    check_double(v, n, "v");
    if (w == 5) { check_double(y, n, "y"); check_double(wt, n, "wt"); }
    SEXP out = PROTECT(allocVector(REALSXP, n));
    const double *pv = REAL(v);
    double *po = REAL(out);
    for (R_xlen_t i = 0; i < n; i++) {
        switch (w) {
        case 1: po[i] = link_fun(fam.link, pv[i]); break;
        case 2: po[i] = link_inv(fam.link, pv[i]); break;
        case 3: po[i] = link_mu_eta(fam.link, pv[i]); break;
        case 4: po[i] = family_variance(fam.family, pv[i]); break;
        case 5: po[i] = family_dev_resid(fam.family, REAL(y)[i], pv[i], REAL(wt)[i]); break;
        case 6: po[i] = fabs(pv[i]) <= VM_EXP_SAFE ? vm_exp_core(pv[i]) : exp(pv[i]); break;
        case 7:
            po[i] = pv[i] >= VM_LOG_MIN && pv[i] <= VM_LOG_MAX ? vm_log_core(pv[i]) : log(pv[i]);
            break;
        default: po[i] = NA_REAL;
        }
    }
    UNPROTECT(1);
    return out;
}

/* 0 if every element of a double vector or matrix is finite, 1 if one is NA
 * or NaN, 2 if one is infinite: an allocation-free check for large designs. */
SEXP r_irls_nonfinite(SEXP x)
{
    if (!isReal(x)) error("internal: `x` must be double");
    return ScalarInteger(irls_nonfinite(REAL(x), (size_t) XLENGTH(x), 0));
}

SEXP r_irls_ones_column(SEXP x)
{
    if (!isReal(x) || !isMatrix(x)) error("internal: `x` must be a double matrix");
    return ScalarLogical(irls_ones_column(REAL(x), (size_t) nrows(x), ncols(x)));
}

static glm_family family_of(SEXP family)
{
    if (!isInteger(family) || XLENGTH(family) != 2) error("internal: bad family codes");
    glm_family fam = { INTEGER(family)[0], INTEGER(family)[1] };
    return fam;
}

/* The support check of check_support() for a response vector: TRUE if a
 * response lies outside the family's support. */
SEXP r_irls_support(SEXP family, SEXP y, SEXP wt)
{
    glm_family fam = family_of(family);
    R_xlen_t n = XLENGTH(y);
    check_double(y, n, "y");
    check_double(wt, n, "wt");
    return ScalarLogical(irls_support(fam.family, REAL(y), REAL(wt), (size_t) n));
}

/* family$initialize of a stats family for a response vector: list(y,
 * mustart, status), status 1 where initialize would stop. */
SEXP r_irls_initialize(SEXP family, SEXP y, SEXP wt)
{
    glm_family fam = family_of(family);
    R_xlen_t n = XLENGTH(y);
    check_double(y, n, "y");
    check_double(wt, n, "wt");
    const char *names[] = { "y", "mustart", "status", "" };
    const double *py = REAL(y), *pw = REAL(wt);
    /* y and mustart are new vectors only where they differ from y */
    int zeroed = 0;
    if (fam.family == FAM_BINOMIAL)
        for (R_xlen_t i = 0; i < n && !zeroed; i++) zeroed = pw[i] == 0.0 && py[i] != 0.0;
    int own_start = fam.family == FAM_BINOMIAL || fam.family == FAM_POISSON;
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP y_out = PROTECT(zeroed ? allocVector(REALSXP, n) : y);
    SEXP mustart = PROTECT(own_start ? allocVector(REALSXP, n) : y);
    int bad = irls_initialize(fam.family, py, pw, (size_t) n, zeroed ? REAL(y_out) : NULL,
                              own_start ? REAL(mustart) : NULL);
    SET_VECTOR_ELT(out, 0, y_out);
    SET_VECTOR_ELT(out, 1, mustart);
    SET_VECTOR_ELT(out, 2, ScalarInteger(bad));
    UNPROTECT(3);
    return out;
}

/* glm.fit's null deviance without a refit (see irls_null_deviance). */
SEXP r_irls_null_deviance(SEXP family, SEXP y, SEXP wt, SEXP offset, SEXP intercept)
{
    glm_family fam = family_of(family);
    R_xlen_t n = XLENGTH(y);
    check_double(y, n, "y");
    check_double(wt, n, "wt");
    if (!isNull(offset)) check_double(offset, n, "offset");
    return ScalarReal(irls_null_deviance(fam, REAL(y), REAL(wt), isNull(offset) ? NULL : REAL(offset),
                                         (size_t) n, asLogical(intercept)));
}

SEXP r_irls_separation(SEXP family, SEXP mu)
{
    glm_family fam = family_of(family);
    check_double(mu, XLENGTH(mu), "mu");
    return ScalarLogical(irls_separation(fam.family, REAL(mu), (size_t) XLENGTH(mu)));
}

/* -2 log-likelihood part of family$aic for binomial and poisson, with R's own
 * dbinom/dpois, so the values are those of binomial()$aic / poisson()$aic
 * without their n-length temporaries. n is the binomial size vector of
 * family$initialize. */
SEXP r_irls_aic(SEXP family, SEXP y, SEXP n, SEXP mu, SEXP wt)
{
    if (!isInteger(family) || XLENGTH(family) != 2) error("internal: bad family codes");
    R_xlen_t len = XLENGTH(y);
    check_double(n, len, "n");
    check_double(mu, len, "mu");
    check_double(wt, len, "wt");
    const double *py = REAL(y), *pn = REAL(n), *pm = REAL(mu), *pw = REAL(wt);
    double s = 0.0, lfact[IRLS_AIC_TABLE];
    for (int k = 0; k < IRLS_AIC_TABLE; k++) lfact[k] = lgammafn(k + 1.0);
    if (INTEGER(family)[0] == FAM_BINOMIAL) {
        int use_n = 0;
        for (R_xlen_t i = 0; i < len && !use_n; i++) use_n = pn[i] > 1.0;
        const double *m = use_n ? pn : pw;
        if (irls_loglik_simple(FAM_BINOMIAL, py, m, pw, pm, (size_t) len, lfact, &s))
            return ScalarReal(-2.0 * s);
        for (R_xlen_t i = 0; i < len; i++) {
            if (!(m[i] > 0.0)) continue;
            s += (pw[i] / m[i]) * dbinom(nearbyint(m[i] * py[i]), nearbyint(m[i]), pm[i], 1);
        }
    } else if (INTEGER(family)[0] == FAM_POISSON) {
        /* poisson()$aic is not defined for non-integer responses */
        for (R_xlen_t i = 0; i < len; i++)
            if (fabs(py[i] - nearbyint(py[i])) > 1e-7) return ScalarReal(NA_REAL);
        if (irls_loglik_simple(FAM_POISSON, py, NULL, pw, pm, (size_t) len, lfact, &s))
            return ScalarReal(-2.0 * s);
        for (R_xlen_t i = 0; i < len; i++) s += dpois(py[i], pm[i], 1) * pw[i];
    } else {
        error("internal: aic only for binomial and poisson");
    }
    return ScalarReal(-2.0 * s);
}
