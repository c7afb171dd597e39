#include <R.h>
#include <Rinternals.h>
#include "freq.h"
#include "r_util.h"
#include "r_epimask.h"

static void check_code_matrix(SEXP codes, const char *arg)
{
    if (!isInteger(codes) || !isMatrix(codes))
        error("`%s` must be an integer matrix of key codes", arg);
}

/* list(group = 1-based group id per row, size = size of each group) */
SEXP r_freq_group(SEXP codes)
{
    check_code_matrix(codes, "codes");
    size_t n = (size_t) nrows(codes);
    int k = ncols(codes);
    const char *names[] = { "group", "size", "" };
    SEXP out = PROTECT(r_named_list(names));
    int *g = INTEGER(r_list_set(out, "group", allocVector(INTSXP, (R_xlen_t) n)));
    int *size = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
    int n_groups = n == 0 ? 0 : freq_group(INTEGER(codes), n, k, g, size);
    if (n_groups < 0) error("not enough memory to count %zu records", n);
    for (size_t i = 0; i < n; i++) g[i]++;
    int *sizes = INTEGER(r_list_set(out, "size", allocVector(INTSXP, n_groups)));
    for (int j = 0; j < n_groups; j++) sizes[j] = size[j];
    UNPROTECT(1);
    return out;
}

SEXP r_freq_match(SEXP ref, SEXP qry)
{
    check_code_matrix(ref, "ref");
    check_code_matrix(qry, "qry");
    if (ncols(ref) != ncols(qry))
        error("`ref` and `qry` must have the same number of key columns");
    size_t nref = (size_t) nrows(ref), nqry = (size_t) nrows(qry);
    SEXP count = PROTECT(allocVector(INTSXP, (R_xlen_t) nqry));
    if (nref == 0) {
        for (size_t i = 0; i < nqry; i++) INTEGER(count)[i] = 0;
    } else if (freq_match_count(INTEGER(ref), nref, INTEGER(qry), nqry,
                                ncols(ref), INTEGER(count)) < 0) {
        error("not enough memory to index %zu records", nref);
    }
    UNPROTECT(1);
    return count;
}
