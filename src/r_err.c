#include <R.h>
#include <Rinternals.h>
#include "err.h"
#include "r_epimask.h"

/* .Call glue for the linear ERR model (src/err.c). The R side (R/err.R) has
 * already validated and coerced every argument; these checks only keep a
 * malformed internal call from crashing R. */

static void check_double(SEXP x, R_xlen_t n, const char *arg)
{
    if (!isReal(x) || XLENGTH(x) != n)
        error("`%s` must be a double vector of length %lld", arg, (long long) n);
}

static err_data make_data(SEXP z, SEXP d, SEXP y, SEXP m, SEXP w, SEXP off)
{
    if (!isReal(z) || !isMatrix(z)) error("`z` must be a double matrix");
    R_xlen_t n = nrows(z);
    check_double(d, n, "d");
    check_double(y, n, "y");
    check_double(m, n, "m");
    check_double(w, n, "w");
    if (!isNull(off)) check_double(off, n, "offset");
    err_data dat = {(size_t) n, ncols(z), REAL(z), REAL(d), REAL(y), REAL(m), REAL(w),
                    isNull(off) ? NULL : REAL(off)};
    return dat;
}

static err_control make_control(SEXP control)
{
    check_double(control, 3, "control");
    err_control ctl = {(int) REAL(control)[0], (int) REAL(control)[1], REAL(control)[2]};
    if (ctl.maxit < 1 || ctl.max_halving < 0 || !(ctl.eps > 0))
        error("`control` must hold maxit >= 1, max_halving >= 0, eps > 0");
    return ctl;
}

static SEXP named_list(int k, const char **names)
{
    SEXP out = PROTECT(allocVector(VECSXP, k));
    SEXP nm = PROTECT(allocVector(STRSXP, k));
    for (int i = 0; i < k; i++) SET_STRING_ELT(nm, i, mkChar(names[i]));
    setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(2);
    return out;
}

/* Deviance, score and information (observed, or expected when `expected` is
 * TRUE) at theta = (gamma, beta). */
SEXP r_err_derivs(SEXP z, SEXP d, SEXP y, SEXP m, SEXP w, SEXP off, SEXP theta,
                  SEXP expected)
{
    err_data dat = make_data(z, d, y, m, w, off);
    int P = dat.p + 1;
    check_double(theta, P, "theta");
    const char *names[] = {"deviance", "score", "info"};
    SEXP out = PROTECT(named_list(3, names));
    SEXP score = PROTECT(allocVector(REALSXP, P));
    SEXP info = PROTECT(allocMatrix(REALSXP, P, P));
    double *zg = (double *) R_alloc(dat.n > 0 ? dat.n : 1, sizeof(double));
    double dev = err_derivatives(&dat, REAL(theta), REAL(theta)[dat.p],
                                 asLogical(expected) == TRUE, REAL(score),
                                 REAL(info), zg);
    SET_VECTOR_ELT(out, 0, ScalarReal(dev));
    SET_VECTOR_ELT(out, 1, score);
    SET_VECTOR_ELT(out, 2, info);
    UNPROTECT(3);
    return out;
}

/* Fit from start = (gamma, beta): jointly, or over gamma with beta fixed at
 * start[p] when `fixed` is TRUE. Returns the estimate with the deviance,
 * iteration count, convergence and boundary flags, status code, and the score
 * and observed information at the estimate. */
SEXP r_err_fit(SEXP z, SEXP d, SEXP y, SEXP m, SEXP w, SEXP off, SEXP start,
               SEXP fixed, SEXP control)
{
    err_data dat = make_data(z, d, y, m, w, off);
    err_control ctl = make_control(control);
    int p = dat.p, P = p + 1;
    check_double(start, P, "start");
    SEXP theta = PROTECT(allocVector(REALSXP, P));
    double *th = REAL(theta);
    for (int j = 0; j < P; j++) th[j] = REAL(start)[j];
    err_result res;
    SEXP score = PROTECT(allocVector(REALSXP, P));
    SEXP info = PROTECT(allocMatrix(REALSXP, P, P));
    if (asLogical(fixed) == TRUE)
        err_fit_gamma(&dat, th, th[p], &ctl, &res, REAL(score), REAL(info));
    else
        err_fit_joint(&dat, th, th + p, &ctl, &res, REAL(score), REAL(info));
    if (res.status == ERR_NOMEM) error("not enough memory to fit %zu records", dat.n);
    if (res.status == ERR_INFEASIBLE || res.status == ERR_SINGULAR) {
        /* the derivatives are not defined there */
        for (int j = 0; j < P; j++) REAL(score)[j] = NA_REAL;
        for (int j = 0; j < P * P; j++) REAL(info)[j] = NA_REAL;
    }

    const char *names[] = {"coefficients", "deviance", "iter", "converged",
                           "boundary", "status", "score", "info"};
    SEXP out = PROTECT(named_list(8, names));
    SET_VECTOR_ELT(out, 0, theta);
    SET_VECTOR_ELT(out, 1, ScalarReal(res.deviance));
    SET_VECTOR_ELT(out, 2, ScalarInteger(res.iter));
    SET_VECTOR_ELT(out, 3, ScalarLogical(res.converged));
    SET_VECTOR_ELT(out, 4, ScalarInteger(res.boundary));
    SET_VECTOR_ELT(out, 5, ScalarInteger(res.status));
    SET_VECTOR_ELT(out, 6, score);
    SET_VECTOR_ELT(out, 7, info);
    UNPROTECT(4);
    return out;
}
