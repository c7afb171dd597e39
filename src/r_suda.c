/* .Call glue for the SUDA2 search (suda.c). */
#include <R_ext/Utils.h>
#include "r_util.h"
#include "r_epimask.h"
#include "suda.h"

static void check_interrupt(void *unused) { (void) unused; R_CheckUserInterrupt(); }

/* Non-zero when the user asked to stop (without leaving C by a long jump). */
static int pending_interrupt(void) { return !R_ToplevelExec(check_interrupt, NULL); }

/* spec: list(codes = n x A integer matrix of key codes 1..K_a, max_k = int,
 *             cache_after = double, < 0 for the plain scans,
 *             pack_bits = int in 0..64; see suda.h)
 * -> list(msu = n x max_k integer counts, attr = A x max_k double counts) */
SEXP r_suda_search(SEXP spec)
{
    size_t nr;
    int A;
    const int *cv = r_field_int_matrix(spec, "codes", &nr, &A);
    if (A < 1 || A > 64) r_field_error("codes", "a matrix of 1 to 64 key columns");
    int n = (int) nr;
    for (size_t i = 0; i < nr * (size_t) A; i++)
        if (cv[i] == NA_INTEGER || cv[i] < 1) r_field_error("codes", "codes >= 1, free of NA");
    int max_k = r_field_int1(spec, "max_k", 1, A);
    double cache_after = r_field_double1(spec, "cache_after", -1.0, 1e300);
    int pack_bits = r_field_int1(spec, "pack_bits", 0, 64);
    const char *names[] = { "msu", "attr", "" };
    SEXP out = PROTECT(r_named_list(names));
    int *msu = INTEGER(r_list_set(out, "msu", Rf_allocMatrix(INTSXP, n, max_k)));
    double *attr = REAL(r_list_set(out, "attr", Rf_allocMatrix(REALSXP, A, max_k)));
    int status = suda_search(cv, n, A, max_k, cache_after, pack_bits, msu, attr,
                             pending_interrupt);
    if (status == -1) r_nomem_error("search the SUDA of", (size_t) n);
    if (status == -2) r_interrupted();
    UNPROTECT(1);
    return out;
}
