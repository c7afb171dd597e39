/* .Call glue of the Cox core (cox.c): one named list in (R/fit-cox.R
 * builds it), one named list out. No statistics here. */
#include <math.h>
#include <limits.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Utils.h>
#include "cox.h"
#include "r_util.h"
#include "r_epimask.h"

static void check_interrupt(void) { R_CheckUserInterrupt(); }

/* spec: x (double, n * p * nrep, with p and nrep), stop, start (or NULL),
 * status (int 0/1), weights, offset (or NULL), ord, ord2 (or NULL), bound
 * (0-based), efron (0/1), maxit, eps, threads. */
SEXP r_cox_fit(SEXP spec)
{
    int p = r_field_int1(spec, "p", 1, INT_MAX);
    int nrep = r_field_int1(spec, "nrep", 1, INT_MAX);
    R_xlen_t n = r_field_length(spec, "stop");
    if (n < 1) r_field_error("stop", "of length at least 1");
    const double *x = r_field_double(spec, "x", n * (R_xlen_t) p * nrep, 1);
    const double *stop = r_field_double(spec, "stop", n, 1);
    const double *start = isNull(r_field(spec, "start")) ? NULL
        : r_field_double(spec, "start", n, 1);
    const int *status = r_field_int(spec, "status", n);
    const double *wt = r_field_double(spec, "weights", n, 1);
    const double *offset = isNull(r_field(spec, "offset")) ? NULL
        : r_field_double(spec, "offset", n, 1);
    const int *ord = r_field_int(spec, "ord", n);
    const int *ord2 = start ? r_field_int(spec, "ord2", n) : NULL;
    R_xlen_t nb = r_field_length(spec, "bound");
    if (nb < 2) r_field_error("bound", "of length at least 2");
    const int *bound = r_field_int(spec, "bound", nb);
    if (bound[0] != 0 || bound[nb - 1] != n) r_field_error("bound", "from 0 to the number of records");
    for (R_xlen_t s = 1; s < nb; s++)
        if (bound[s] < bound[s - 1]) r_field_error("bound", "non-decreasing");
    for (R_xlen_t k = 0; k < n; k++) {
        if (ord[k] < 0 || ord[k] >= n) r_field_error("ord", "0-based record indices");
        if (ord2 && (ord2[k] < 0 || ord2[k] >= n)) r_field_error("ord2", "0-based record indices");
        if (status[k] != 0 && status[k] != 1) r_field_error("status", "0 or 1");
    }
    cox_problem pr = { (size_t) n, p, start, stop, status, wt, offset, ord, ord2, bound,
                       (int) nb - 1, r_field_int1(spec, "efron", 0, 1) };
    cox_control ctl = { r_field_int1(spec, "maxit", 0, INT_MAX),
                        r_field_double1(spec, "eps", 0.0, 1.0) };
    int threads = r_field_int1(spec, "threads", 1, 1 << 16);
    int nt = threads < nrep ? threads : nrep;

    const char *names[] = { "coefficients", "var", "score", "loglik", "status", "iter", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *coef = REAL(r_list_set(out, "coefficients", allocMatrix(REALSXP, p, nrep)));
    SEXP var_s = r_list_set(out, "var", allocVector(REALSXP, (R_xlen_t) p * p * nrep));
    double *var = REAL(var_s);
    SEXP score_s = r_list_set(out, "score", allocMatrix(REALSXP, p, nrep));
    double *score = REAL(score_s);
    for (R_xlen_t k = 0; k < XLENGTH(score_s); k++) score[k] = NA_REAL;
    double *loglik = REAL(r_list_set(out, "loglik", allocMatrix(REALSXP, 2, nrep)));
    int *stat = INTEGER(r_list_set(out, "status", allocVector(INTSXP, nrep)));
    int *iter = INTEGER(r_list_set(out, "iter", allocVector(INTSXP, nrep)));
    for (R_xlen_t k = 0; k < XLENGTH(var_s); k++) var[k] = NA_REAL;
    double *work = (double *) R_alloc((size_t) nt * (cox_scratch_size((size_t) n, p) + p),
                                      sizeof(double));
    cox_fit_many(&pr, x, nrep, &ctl, nt, coef, var, score, loglik, stat, iter, work, check_interrupt);
    UNPROTECT(1);
    return out;
}
