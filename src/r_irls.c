/* .Call glue of the GLM core (irls.c, irls_many.c, family.c): every entry
 * takes one named list read with the helpers of r_util.h (R/fit-irls.R
 * builds them) and returns a named list or a scalar. No statistics here. */
#include <math.h>
#include <string.h>
#include <limits.h>
#include <R.h>
#include <Rinternals.h>
#include "irls.h"
#include "machine_rates.h"
#include "par_rows.h"
#include "glm_codes.h"
#include "r_util.h"
#include "r_epimask.h"

/* family and link of a spec, checked against the implemented pairs. */
static glm_family family_field(SEXP spec)
{
    glm_family fam = { r_field_int1(spec, "family", 1, 4), r_field_int1(spec, "link", 1, 7) };
    if (!family_supported(fam)) r_field_error("link", "a link implemented for the family");
    return fam;
}

/* A double matrix field; its dimensions in *nrow, *ncol. */
static const double *matrix_field(SEXP spec, const char *name, size_t *nrow, int *ncol)
{
    SEXP x = r_field(spec, name);
    if (!isReal(x) || !isMatrix(x)) r_field_error(name, "a double matrix");
    *nrow = (size_t) nrows(x);
    *ncol = ncols(x);
    return REAL_RO(x);
}

/* NULL when the field is NULL, else a double vector of length len. */
static const double *optional_double(SEXP spec, const char *name, R_xlen_t len)
{
    if (isNull(r_field(spec, name))) return NULL;
    return r_field_double(spec, name, len, 0);
}

/* The code tables of glm_codes.h as named integer vectors (for .onLoad). */
#define CODE_COUNT(name, code, value) + 1
#define CODE_FILL(name, code, value) \
    INTEGER(v)[k] = value; SET_STRING_ELT(nm, k, mkChar(#name)); k++;
#define CODE_VECTOR(table, field) do { \
        int k = 0; \
        SEXP v = r_list_set(out, field, allocVector(INTSXP, 0 table(CODE_COUNT))); \
        SEXP nm = PROTECT(allocVector(STRSXP, XLENGTH(v))); \
        table(CODE_FILL) \
        setAttrib(v, R_NamesSymbol, nm); \
        UNPROTECT(1); \
    } while (0)

SEXP r_glm_codes(void)
{
    const char *names[] = { "family", "link", "status", "warning", "" };
    SEXP out = PROTECT(r_named_list(names));
    CODE_VECTOR(GLM_FAMILY_TABLE, "family");
    CODE_VECTOR(GLM_LINK_TABLE, "link");
    CODE_VECTOR(IRLS_STATUS_TABLE, "status");
    CODE_VECTOR(IRLS_WARNING_TABLE, "warning");
    UNPROTECT(1);
    return out;
}

/* spec: x (n x p), y, weights, offset (or NULL), family, link, maxit,
 * epsilon, trace, qr_tol, chol_tol, threads, schedule (0; tests: see
 * irls_control), final_weights, start_mode
 * (0 eta, 1 coefficients, 2 mu) and start (its vector). */
SEXP r_irls_fit(SEXP spec)
{
    size_t n;
    int p;
    const double *x = matrix_field(spec, "x", &n, &p);
    R_xlen_t nn = (R_xlen_t) n;
    const double *y = r_field_double(spec, "y", nn, 0);
    const double *wt = r_field_double(spec, "weights", nn, 0);
    const double *offset = optional_double(spec, "offset", nn);
    glm_family fam = family_field(spec);
    irls_control ctl = {
        r_field_int1(spec, "maxit", 1, INT_MAX),
        r_field_double1(spec, "epsilon", 0.0, INFINITY),
        r_field_int1(spec, "trace", 0, 1),
        r_field_double1(spec, "qr_tol", 0.0, 1.0),
        r_field_double1(spec, "chol_tol", 0.0, 1.0),
        r_field_int1(spec, "threads", 1, 1 << 16),
        r_field_int1(spec, "schedule", 0, 3),
        r_field_int1(spec, "final_weights", 0, 1)
    };
    int mode = r_field_int1(spec, "start_mode", IRLS_START_ETA, IRLS_START_MU);
    const double *start = r_field_double(spec, "start", mode == IRLS_START_COEF ? p : nn, 0);

    const char *names[] = { "coefficients", "linear.predictors", "fitted.values",
                            "weights", "residuals", "cov.unscaled", "pivot",
                            "deviance", "iter", "converged", "boundary", "rank",
                            "status", "warnings", "used_qr", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *beta = REAL(r_list_set(out, "coefficients", allocVector(REALSXP, p)));
    double *eta = REAL(r_list_set(out, "linear.predictors", allocVector(REALSXP, nn)));
    double *mu = REAL(r_list_set(out, "fitted.values", allocVector(REALSXP, nn)));
    double *ww = REAL(r_list_set(out, "weights", allocVector(REALSXP, nn)));
    double *resid = REAL(r_list_set(out, "residuals", allocVector(REALSXP, nn)));
    double *cov = REAL(r_list_set(out, "cov.unscaled", allocMatrix(REALSXP, p, p)));
    int *pivot = INTEGER(r_list_set(out, "pivot", allocVector(INTSXP, p)));
    memset(beta, 0, (size_t) p * sizeof(double));
    double *dest = mode == IRLS_START_COEF ? beta : (mode == IRLS_START_ETA ? eta : mu);
    memcpy(dest, start, (mode == IRLS_START_COEF ? (size_t) p : n) * sizeof(double));

    irls_result res;
    irls_run(x, n, p, y, wt, offset, fam, &ctl, mode, beta, eta, mu, ww, resid, cov, pivot,
             &res);
    for (int j = 0; j < p; j++) pivot[j]++;

    r_list_set(out, "deviance", ScalarReal(res.deviance));
    r_list_set(out, "iter", ScalarInteger(res.iter));
    r_list_set(out, "converged", ScalarLogical(res.converged));
    r_list_set(out, "boundary", ScalarLogical(res.boundary));
    r_list_set(out, "rank", ScalarInteger(res.rank));
    r_list_set(out, "status", ScalarInteger(res.status));
    r_list_set(out, "warnings", ScalarInteger(res.warnings));
    r_list_set(out, "used_qr", ScalarLogical(res.used_qr));
    UNPROTECT(1);
    return out;
}

/* spec: x (n x p), weights, offset (or NULL), family, link (poisson log or
 * binomial logit), stat (p x nrep), start (p), maxit, tol, threads.
 * Returns list(coefficients, se), p x nrep, NA where a replicate failed. */
SEXP r_irls_stat_many(SEXP spec)
{
    size_t n;
    int p;
    const double *x = matrix_field(spec, "x", &n, &p);
    const double *wt = r_field_double(spec, "weights", (R_xlen_t) n, 1);
    const double *offset = optional_double(spec, "offset", (R_xlen_t) n);
    glm_family fam = family_field(spec);
    if (!((fam.family == FAM_POISSON && fam.link == LINK_LOG) ||
          (fam.family == FAM_BINOMIAL && fam.link == LINK_LOGIT)))
        r_field_error("link", "the canonical link of a poisson or binomial family");
    size_t nstat;
    int nrep;
    const double *stat = matrix_field(spec, "stat", &nstat, &nrep);
    if (nstat != (size_t) p) r_field_error("stat", "a matrix with one row per column of x");
    const double *start = r_field_double(spec, "start", p, 1);
    int maxit = r_field_int1(spec, "maxit", 1, INT_MAX);
    double tol = r_field_double1(spec, "tol", 0.0, 1.0);
    int threads = r_field_int1(spec, "threads", 1, INT_MAX);
    const char *names[] = { "coefficients", "se", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *coef = REAL(r_list_set(out, "coefficients", allocMatrix(REALSXP, p, nrep)));
    double *se = REAL(r_list_set(out, "se", allocMatrix(REALSXP, p, nrep)));
    irls_stat_many(x, n, p, wt, offset, fam, stat, nrep, start, maxit, tol, threads, coef, se);
    size_t len = (size_t) p * (size_t) nrep;
    for (size_t k = 0; k < len; k++) {
        if (isnan(coef[k])) coef[k] = NA_REAL;
        if (isnan(se[k])) se[k] = NA_REAL;
    }
    UNPROTECT(1);
    return out;
}

/* TEST ONLY (see src/init.c). The element functions of family.c, for the
 * tests against R's family objects. spec: family, link, what (1 linkfun,
 * 2 linkinv, 3 mu.eta, 4 variance, 5 dev.resids), v, y and wt (same length
 * as v). */
SEXP r_irls_family_eval(SEXP spec)
{
    glm_family fam = family_field(spec);
    int what = r_field_int1(spec, "what", 1, 5);
    R_xlen_t n = r_field_length(spec, "v");
    const double *v = r_field_double(spec, "v", n, 0);
    const double *y = r_field_double(spec, "y", n, 0);
    const double *wt = r_field_double(spec, "wt", n, 0);
    SEXP out = PROTECT(allocVector(REALSXP, n));
    double *o = REAL(out);
    for (R_xlen_t i = 0; i < n; i++) {
        switch (what) {
        case 1: o[i] = link_fun(fam.link, v[i]); break;
        case 2: o[i] = link_inv(fam.link, v[i]); break;
        case 3: o[i] = link_mu_eta(fam.link, v[i]); break;
        case 4: o[i] = family_variance(fam.family, v[i]); break;
        default: o[i] = family_dev_resid(fam.family, y[i], v[i], wt[i]);
        }
    }
    UNPROTECT(1);
    return out;
}

/* spec: x, threads. 0 if every element of a double vector or matrix is finite, 1 if one is NA
 * or NaN, 2 if one is infinite: an allocation-free check for large designs. */
SEXP r_irls_nonfinite(SEXP spec)
{
    SEXP x = r_field(spec, "x");
    if (!isReal(x)) r_field_error("x", "a double vector or matrix");
    int threads = r_field_int1(spec, "threads", 1, INT_MAX);
    return ScalarInteger(irls_nonfinite(REAL_RO(x), (size_t) XLENGTH(x), threads));
}

/* spec: x (a double matrix). TRUE if a column of x is all ones. */
SEXP r_irls_ones_column(SEXP spec)
{
    SEXP x = r_field(spec, "x");
    if (!isReal(x) || !isMatrix(x)) r_field_error("x", "a double matrix");
    return ScalarLogical(irls_ones_column(REAL_RO(x), (size_t) nrows(x), ncols(x)));
}

/* spec: family, link, y, weights. TRUE if a response lies outside the
 * family's support. */
SEXP r_irls_support(SEXP spec)
{
    glm_family fam = family_field(spec);
    R_xlen_t n = r_field_length(spec, "y");
    return ScalarLogical(family_support(fam.family, r_field_double(spec, "y", n, 0),
                                        r_field_double(spec, "weights", n, 0), (size_t) n));
}

/* spec: family, link, y, weights. family$initialize of a stats family:
 * list(y, mustart, status), status 1 where initialize would stop; y and
 * mustart are new vectors only where they differ from y. */
SEXP r_irls_initialize(SEXP spec)
{
    glm_family fam = family_field(spec);
    SEXP y = r_field(spec, "y");
    R_xlen_t n = r_field_length(spec, "y");
    const double *py = r_field_double(spec, "y", n, 0);
    const double *pw = r_field_double(spec, "weights", n, 0);
    int zeroed = 0;
    if (fam.family == FAM_BINOMIAL)
        for (R_xlen_t i = 0; i < n && !zeroed; i++) zeroed = pw[i] == 0.0 && py[i] != 0.0;
    int own_start = fam.family == FAM_BINOMIAL || fam.family == FAM_POISSON;
    const char *names[] = { "y", "mustart", "status", "" };
    SEXP out = PROTECT(r_named_list(names));
    SEXP y_out = r_list_set(out, "y", zeroed ? allocVector(REALSXP, n) : y);
    SEXP mustart = r_list_set(out, "mustart", own_start ? allocVector(REALSXP, n) : y);
    int bad = family_initialize(fam.family, py, pw, (size_t) n, zeroed ? REAL(y_out) : NULL,
                                own_start ? REAL(mustart) : NULL);
    r_list_set(out, "status", ScalarInteger(bad));
    UNPROTECT(1);
    return out;
}

/* spec: family, link, y, weights, offset (or NULL), intercept (0/1). */
SEXP r_irls_null_deviance(SEXP spec)
{
    glm_family fam = family_field(spec);
    R_xlen_t n = r_field_length(spec, "y");
    return ScalarReal(family_null_deviance(fam, r_field_double(spec, "y", n, 0),
                                           r_field_double(spec, "weights", n, 0),
                                           optional_double(spec, "offset", n), (size_t) n,
                                           r_field_int1(spec, "intercept", 0, 1)));
}

/* spec: family, link, mu. */
SEXP r_irls_separation(SEXP spec)
{
    glm_family fam = family_field(spec);
    R_xlen_t n = r_field_length(spec, "mu");
    return ScalarLogical(family_separation(fam.family, r_field_double(spec, "mu", n, 0),
                                           (size_t) n));
}

/* spec: family, link, y, size (binomial sizes), mu, weights. The
 * log-likelihood sum of family$aic (NA where it is not defined). */
SEXP r_irls_aic_loglik(SEXP spec)
{
    glm_family fam = family_field(spec);
    R_xlen_t n = r_field_length(spec, "y");
    double loglik;
    int undefined = family_aic_loglik(fam.family, r_field_double(spec, "y", n, 0),
                                      r_field_double(spec, "size", n, 0),
                                      r_field_double(spec, "weights", n, 0),
                                      r_field_double(spec, "mu", n, 0), (size_t) n, &loglik);
    return ScalarReal(undefined ? NA_REAL : loglik);
}

/* spec: x (double), reps, steps. BENCH ONLY (inst/bench/bench-irls.R): reads
 * x reps times (0: not at all) and runs steps x 32 flops of multiply-add
 * chains; returns the sum of both results, for the caller to time. */
SEXP r_machine_rates(SEXP spec)
{
    SEXP x = r_field(spec, "x");
    if (!isReal(x)) r_field_error("x", "a double vector or matrix");
    int reps = r_field_int1(spec, "reps", 0, INT_MAX);
    int steps = r_field_int1(spec, "steps", 0, INT_MAX);
    double out = rates_stream(REAL_RO(x), (size_t) XLENGTH(x), reps) + rates_madd(steps);
    return ScalarReal(out);
}

/* TEST ONLY. spec: force (0 or 1). Every parallel region of the C core
 * runs on the threads asked for (no helper leaves, the governor of
 * par_rows.h is neither consulted nor updated) while force is 1, so that
 * tests compare 1 and several threads on a loaded machine too; the governor
 * is reset either way. Returns the former setting. */
SEXP r_par_force_threads(SEXP spec)
{
    int on = r_field_int1(spec, "force", 0, 1);
    int was = par_force_threads(on);
    par_reset_governor();
    return ScalarLogical(was);
}
