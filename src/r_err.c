/* .Call glue for the linear ERR model (src/err.c). Each entry takes one
 * named list read with the helpers of r_util.h (built by R/fit-err.R). */
#include <R.h>
#include <Rinternals.h>
#include <limits.h>
#include <math.h>
#include "err.h"
#include "r_util.h"
#include "r_epimask.h"

/* spec fields z (n x p), d, y, m, w (length n) and offset (NULL or length n). */
static err_data data_field(SEXP spec)
{
    SEXP z = r_field(spec, "z");
    if (!isReal(z) || !isMatrix(z)) r_field_error("z", "a double matrix");
    R_xlen_t n = nrows(z);
    SEXP off = r_field(spec, "offset");
    err_data dat = { (size_t) n, ncols(z), REAL_RO(z), r_field_double(spec, "d", n, 0),
                     r_field_double(spec, "y", n, 0), r_field_double(spec, "m", n, 0),
                     r_field_double(spec, "w", n, 0),
                     isNull(off) ? NULL : r_field_double(spec, "offset", n, 0) };
    return dat;
}

/* TEST ONLY (see src/init.c). Deviance, score and information (observed, or
 * expected when `expected` is 1) at spec$theta = (gamma, beta). */
SEXP r_err_derivs(SEXP spec)
{
    err_data dat = data_field(spec);
    int P = dat.p + 1;
    const double *theta = r_field_double(spec, "theta", P, 0);
    int expected = r_field_int1(spec, "expected", 0, 1);
    const char *names[] = { "deviance", "score", "info", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *score = REAL(r_list_set(out, "score", allocVector(REALSXP, P)));
    double *info = REAL(r_list_set(out, "info", allocMatrix(REALSXP, P, P)));
    double *zg = (double *) R_alloc(dat.n > 0 ? dat.n : 1, sizeof(double));
    double dev = err_derivatives(&dat, theta, theta[dat.p], expected, score, info, zg);
    r_list_set(out, "deviance", ScalarReal(dev));
    UNPROTECT(1);
    return out;
}

/* Fit from spec$start = (gamma, beta): jointly, or over gamma with beta
 * fixed at start[p] when spec$fixed is 1; control fields maxit,
 * max_halving, eps. Returns the estimate with the deviance, iteration
 * count, convergence and boundary flags, status code, and the score and
 * observed information at the estimate. */
SEXP r_err_fit(SEXP spec)
{
    err_data dat = data_field(spec);
    int p = dat.p, P = p + 1;
    const double *start = r_field_double(spec, "start", P, 0);
    int fixed = r_field_int1(spec, "fixed", 0, 1);
    err_control ctl = { r_field_int1(spec, "maxit", 1, INT_MAX),
                        r_field_int1(spec, "max_halving", 0, INT_MAX),
                        r_field_double1(spec, "eps", 0.0, INFINITY) };
    if (!(ctl.eps > 0)) r_field_error("eps", "positive");
    const char *names[] = { "coefficients", "deviance", "iter", "converged",
                            "boundary", "status", "score", "info", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *th = REAL(r_list_set(out, "coefficients", allocVector(REALSXP, P)));
    for (int j = 0; j < P; j++) th[j] = start[j];
    double *score = REAL(r_list_set(out, "score", allocVector(REALSXP, P)));
    double *info = REAL(r_list_set(out, "info", allocMatrix(REALSXP, P, P)));
    err_result res;
    if (fixed)
        err_fit_gamma(&dat, th, th[p], &ctl, &res, score, info);
    else
        err_fit_joint(&dat, th, th + p, &ctl, &res, score, info);
    if (res.status == ERR_NOMEM) r_nomem_error("fit", dat.n);
    if (res.status == ERR_INFEASIBLE || res.status == ERR_SINGULAR) {
        /* the derivatives are not defined there */
        for (int j = 0; j < P; j++) score[j] = NA_REAL;
        for (int j = 0; j < P * P; j++) info[j] = NA_REAL;
    }
    r_list_set(out, "deviance", ScalarReal(res.deviance));
    r_list_set(out, "iter", ScalarInteger(res.iter));
    r_list_set(out, "converged", ScalarLogical(res.converged));
    r_list_set(out, "boundary", ScalarInteger(res.boundary));
    r_list_set(out, "status", ScalarInteger(res.status));
    UNPROTECT(1);
    return out;
}
