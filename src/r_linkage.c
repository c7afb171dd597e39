/* .Call glue for distance-based record linkage (linkage.c). */
#include <R_ext/Utils.h>
#include "r_util.h"
#include "r_epimask.h"
#include "linkage.h"

static void check_interrupt(void *unused) { (void) unused; R_CheckUserInterrupt(); }

static int pending_interrupt(void) { return !R_ToplevelExec(check_interrupt, NULL); }

/* spec: list(x, y = d x n double matrices (a record per column), method =
 * 0L exhaustive / 1L tree, threads = int)
 * -> list(weight, ties, min_dist), one value per record */
SEXP r_linkage_run(SEXP spec)
{
    SEXP xs = r_field(spec, "x"), ys = r_field(spec, "y");
    if (!Rf_isReal(xs) || !Rf_isMatrix(xs)) r_field_error("x", "a double matrix");
    if (!Rf_isReal(ys) || !Rf_isMatrix(ys)) r_field_error("y", "a double matrix");
    int d = Rf_nrows(xs);
    R_xlen_t n = Rf_ncols(xs);
    if (d < 1) r_field_error("x", "a matrix with at least one variable");
    if (Rf_nrows(ys) != d || Rf_ncols(ys) != n) r_field_error("y", "a matrix of the size of x");
    const double *x = r_field_double(spec, "x", -1, 1);
    const double *y = r_field_double(spec, "y", -1, 1);
    int method = r_field_int1(spec, "method", 0, 1);
    int threads = r_field_int1(spec, "threads", 1, 1024);
    const char *names[] = { "weight", "ties", "min_dist", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *weight = REAL(r_list_set(out, "weight", Rf_allocVector(REALSXP, n)));
    double *ties = REAL(r_list_set(out, "ties", Rf_allocVector(REALSXP, n)));
    double *dist = REAL(r_list_set(out, "min_dist", Rf_allocVector(REALSXP, n)));
    int status = linkage_run(x, y, (size_t) n, d, method, threads, weight, ties, dist,
                             pending_interrupt);
    if (status == -1) r_nomem_error("index", (size_t) n);
    if (status == -2) r_interrupted();
    UNPROTECT(1);
    return out;
}
