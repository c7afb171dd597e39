#include <R.h>
#include <Rinternals.h>
#include "freq.h"
#include "r_util.h"
#include "r_epimask.h"

/* spec: codes (n x k integer matrix of key codes).
 * list(group = 1-based group id per row, size = size of each group) */
SEXP r_freq_group(SEXP spec)
{
    size_t n;
    int k;
    const int *codes = r_field_int_matrix(spec, "codes", &n, &k);
    const char *names[] = { "group", "size", "" };
    SEXP out = PROTECT(r_named_list(names));
    int *g = INTEGER(r_list_set(out, "group", allocVector(INTSXP, (R_xlen_t) n)));
    int *size = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
    int n_groups = n == 0 ? 0 : freq_group(codes, n, k, g, size);
    if (n_groups < 0) r_nomem_error("count", n);
    for (size_t i = 0; i < n; i++) g[i]++;
    int *sizes = INTEGER(r_list_set(out, "size", allocVector(INTSXP, n_groups)));
    for (int j = 0; j < n_groups; j++) sizes[j] = size[j];
    UNPROTECT(1);
    return out;
}

/* spec: ref, qry (integer matrices of key codes, same columns). The number
 * of reference rows matching each query row. */
SEXP r_freq_match(SEXP spec)
{
    size_t nref, nqry;
    int kref, kqry;
    const int *ref = r_field_int_matrix(spec, "ref", &nref, &kref);
    const int *qry = r_field_int_matrix(spec, "qry", &nqry, &kqry);
    if (kref != kqry) r_field_error("qry", "a matrix with the columns of `ref`");
    SEXP count = PROTECT(allocVector(INTSXP, (R_xlen_t) nqry));
    if (nref == 0) {
        for (size_t i = 0; i < nqry; i++) INTEGER(count)[i] = 0;
    } else if (freq_match_count(ref, nref, qry, nqry, kref, INTEGER(count)) < 0) {
        r_nomem_error("index", nref);
    }
    UNPROTECT(1);
    return count;
}
