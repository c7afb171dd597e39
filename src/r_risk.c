#include <R.h>
#include <Rinternals.h>
#include <R_ext/Utils.h>
#include "risk_match.h"
#include "r_epimask.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* .Call glue for the record-matching risk. The R side (R/risk-match.R) has
 * validated everything and fitted the intruder's regression; here we only
 * check shapes, so that a wrong call from inside the package fails cleanly. */

static const double *real_matrix(SEXP x, size_t nrow, int ncol, const char *arg)
{
    if (!isReal(x) || !isMatrix(x) || (size_t) nrows(x) != nrow || ncols(x) != ncol)
        error("`%s` must be a double matrix with %zu rows and %d columns", arg,
              nrow, ncol);
    return REAL(x);
}

static int thread_count(SEXP threads)
{
    int want = 1;
#ifdef _OPENMP
    want = omp_get_max_threads();
#endif
    if (!isNull(threads)) {
        if (!isInteger(threads) || LENGTH(threads) != 1 || INTEGER(threads)[0] < 1)
            error("`threads` must be a positive integer");
        want = INTEGER(threads)[0];
    }
#ifndef _OPENMP
    want = 1;
#endif
    return want;
}

SEXP r_risk_match(SEXP masked_known, SEXP masked_unknown, SEXP unknown_sd,
                  SEXP unknown_range, SEXP target_record, SEXP target_known,
                  SEXP pred_mean, SEXP threads)
{
    if (!isReal(masked_known) || !isMatrix(masked_known))
        error("`masked_known` must be a double matrix");
    size_t n = (size_t) nrows(masked_known);
    int n_known = ncols(masked_known);
    if (n == 0) error("no released records");
    if (!isMatrix(masked_unknown)) error("`masked_unknown` must be a matrix");
    int n_unknown = ncols(masked_unknown);
    if (!isInteger(target_record)) error("`target_record` must be integer");
    size_t n_targets = (size_t) XLENGTH(target_record);
    if (!isReal(unknown_sd) || LENGTH(unknown_sd) != n_unknown ||
        !isReal(unknown_range) || LENGTH(unknown_range) != n_unknown)
        error("`unknown_sd` and `unknown_range` need one value per unknown variable");
    const int *record = INTEGER(target_record);
    for (size_t i = 0; i < n_targets; i++)
        if (record[i] < 0 || (size_t) record[i] >= n)
            error("target record %d out of range", record[i]);

    rm_released rel = {
        n, n_known, real_matrix(masked_known, n, n_known, "masked_known"),
        n_unknown, real_matrix(masked_unknown, n, n_unknown, "masked_unknown"),
        REAL(unknown_sd), REAL(unknown_range)
    };
    rm_targets tg = {
        n_targets, record,
        real_matrix(target_known, n_targets, n_known, "target_known"),
        real_matrix(pred_mean, n_targets, n_unknown, "pred_mean")
    };

    int nthreads = thread_count(threads);
    if ((size_t) nthreads > n_targets && n_targets > 0) nthreads = (int) n_targets;
    double *work = (double *) R_alloc(n * (size_t) (nthreads > 0 ? nthreads : 1),
                                      sizeof(double));

    SEXP prob_true = PROTECT(allocVector(REALSXP, (R_xlen_t) n_targets));
    SEXP prob_max = PROTECT(allocVector(REALSXP, (R_xlen_t) n_targets));
    SEXP n_tied = PROTECT(allocVector(INTSXP, (R_xlen_t) n_targets));
    SEXP correct = PROTECT(allocVector(INTSXP, (R_xlen_t) n_targets));
    rm_result res = { REAL(prob_true), REAL(prob_max), INTEGER(n_tied),
                      INTEGER(correct) };

    /* Blocks of about 2e6 candidate evaluations per thread, so that an
     * interrupt is honoured within a fraction of a second. */
    size_t block = (size_t) nthreads * (2000000 / n + 1);
    for (size_t from = 0; from < n_targets; from += block) {
        size_t to = from + block < n_targets ? from + block : n_targets;
        rm_match_targets(&rel, &tg, from, to, nthreads, work, &res);
        R_CheckUserInterrupt();
    }

    SEXP out = PROTECT(allocVector(VECSXP, 4));
    SET_VECTOR_ELT(out, 0, prob_true);
    SET_VECTOR_ELT(out, 1, prob_max);
    SET_VECTOR_ELT(out, 2, n_tied);
    SET_VECTOR_ELT(out, 3, correct);
    SEXP names = PROTECT(allocVector(STRSXP, 4));
    SET_STRING_ELT(names, 0, mkChar("prob_true"));
    SET_STRING_ELT(names, 1, mkChar("prob_max"));
    SET_STRING_ELT(names, 2, mkChar("c"));
    SET_STRING_ELT(names, 3, mkChar("I"));
    setAttrib(out, R_NamesSymbol, names);
    UNPROTECT(6);
    return out;
}

/* The closed-form triangle expectation, vectorised over `a`, for tests. */
SEXP r_risk_triangle_normal(SEXP a, SEXP mean, SEXP sd, SEXP half_width)
{
    if (!isReal(a) || !isReal(mean) || !isReal(sd) || !isReal(half_width) ||
        LENGTH(mean) != 1 || LENGTH(sd) != 1 || LENGTH(half_width) != 1)
        error("`a` must be double; `mean`, `sd`, `half_width` single doubles");
    R_xlen_t n = XLENGTH(a);
    SEXP out = PROTECT(allocVector(REALSXP, n));
    for (R_xlen_t i = 0; i < n; i++)
        REAL(out)[i] = rm_triangle_normal(REAL(a)[i], REAL(mean)[0], REAL(sd)[0],
                                          REAL(half_width)[0]);
    UNPROTECT(1);
    return out;
}
