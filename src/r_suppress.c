/* .Call glue for cell-level local suppression (suppress.c). */
#include <R_ext/Utils.h>
#include "r_util.h"
#include "r_epimask.h"
#include "suppress.h"

static void check_interrupt(void *unused) { (void) unused; R_CheckUserInterrupt(); }

/* Non-zero when the user asked to stop (without leaving C by a long jump). */
static int pending_interrupt(void) { return !R_ToplevelExec(check_interrupt, NULL); }

/* codes: n x p integer matrix; the first n_free columns are keys (0 = blank,
 * >= 1 values), the others strata codes >= 1. */
static const int *spec_codes(SEXP spec, int *n, int *p, int *n_free)
{
    size_t nr;
    const int *cv = r_field_int_matrix(spec, "codes", &nr, p);
    *n = (int) nr;
    *n_free = r_field_int1(spec, "n_free", 1, *p < 64 ? *p : 64);
    for (int j = 0; j < *p; j++)
        for (int i = 0; i < *n; i++) {
            int v = cv[i + (R_xlen_t) j * *n];
            if (v == NA_INTEGER || v < 0 || (j >= *n_free && v < 1))
                r_field_error("codes", "codes >= 0 in the keys and >= 1 in the strata, free of NA");
        }
    return cv;
}

static void check_status(int status, int n)
{
    if (status == -1) r_nomem_error("suppress cells of", (size_t) n);
    if (status == -2) r_interrupted();
}

/* spec: list(codes, n_free, cost = double n_free (> 0), k, wildcard = 0/1)
 * -> n x n_free integer matrix, 1 where a cell was blanked */
SEXP r_suppress_run(SEXP spec)
{
    int n, p, n_free;
    const int *cv = spec_codes(spec, &n, &p, &n_free);
    const double *cost = r_field_double(spec, "cost", n_free, 1);
    for (int j = 0; j < n_free; j++)
        if (cost[j] <= 0) r_field_error("cost", "positive");
    int k = r_field_int1(spec, "k", 1, n > 0 ? n : 1);
    int wildcard = r_field_int1(spec, "wildcard", 0, 1);
    SEXP out = PROTECT(Rf_allocMatrix(INTSXP, n, n_free));
    int status = suppress_run(cv, (size_t) n, p, n_free, cost, k, wildcard, INTEGER(out),
                              pending_interrupt);
    check_status(status, n);
    UNPROTECT(1);
    return out;
}

/* spec: list(codes, n_free, wildcard) -> class size of every record */
SEXP r_suppress_class_sizes(SEXP spec)
{
    int n, p, n_free;
    const int *cv = spec_codes(spec, &n, &p, &n_free);
    int wildcard = r_field_int1(spec, "wildcard", 0, 1);
    SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
    int status = suppress_class_sizes(cv, (size_t) n, p, n_free, wildcard, INTEGER(out),
                                      pending_interrupt);
    check_status(status, n);
    UNPROTECT(1);
    return out;
}
