/* .Call glue for the masking forms of methods vignette section 15 (microagg.c): reads the
 * named-list spec, allocates scratch with R_alloc, hands R's interrupt check
 * and random index to the SEXP-free core. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Random.h>
#include <limits.h>
#include "microagg.h"
#include "r_util.h"
#include "r_epimask.h"

static void check_interrupt(void)
{
    R_CheckUserInterrupt();
}

/* spec: list(z = n x p finite double matrix of standardised values,
 * k = group size, an integer >= 1, shell = records above which the k-d
 * tree splits by distance, 0 for MDAV_SHELL; others only in tests). Returns
 * the 1-based group of each row. */
SEXP r_mdav_groups(SEXP spec)
{
    SEXP z = r_field(spec, "z");
    if (!isReal(z) || !isMatrix(z)) r_field_error("z", "a double matrix");
    R_xlen_t n = nrows(z);
    int p = ncols(z);
    if (n > INT_MAX / 4) r_field_error("z", "a matrix of fewer than 2^29 rows");
    if (p < 1) r_field_error("z", "a matrix of at least one column");
    const double *zv = r_field_double(spec, "z", -1, 1);
    int k = r_field_int1(spec, "k", 1, INT_MAX);
    int shell = r_field_int1(spec, "shell", 0, INT_MAX);
    if (shell == 0) shell = MDAV_SHELL;
    SEXP group = PROTECT(allocVector(INTSXP, n));
    if (n > 0) {
        mdav_sizes sz = mdav_scratch_sizes((size_t) n, p);
        double *ds = (double *) R_alloc(sz.n_double, sizeof(double));
        int *is = (int *) R_alloc(sz.n_int, sizeof(int));
        mdav_groups(zv, (size_t) n, p, k, shell, INTEGER(group), ds, is, check_interrupt);
    }
    UNPROTECT(1);
    return group;
}

/* spec: list(n = number of ranks (integer), w = window (integer >= 0)).
 * Uses R's RNG. Returns the 1-based partner rank of each rank. */
SEXP r_rank_swap(SEXP spec)
{
    int n = r_field_int1(spec, "n", 0, INT_MAX - 1);
    int w = r_field_int1(spec, "w", 0, INT_MAX);
    SEXP partner = PROTECT(allocVector(INTSXP, n));
    if (n > 0) {
        int *scratch = (int *) R_alloc((size_t) n + 1, sizeof(int));
        GetRNGstate();
        rank_swap((size_t) n, (size_t) w, INTEGER(partner), scratch, R_unif_index,
                  check_interrupt);
        PutRNGstate();
        int *pv = INTEGER(partner);
        for (int i = 0; i < n; i++) pv[i]++;
    }
    UNPROTECT(1);
    return partner;
}
