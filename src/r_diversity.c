/* .Call glue for l-diversity and t-closeness (diversity.c): reads the fields,
 * allocates the result; the statistics are diversity_classes()'s. */
#include <R.h>
#include <Rinternals.h>
#include <limits.h>
#include "diversity.h"
#include "r_util.h"
#include "r_epimask.h"

/* Scratch for diversity_classes(): R_alloc memory, released when .Call
 * returns or an interrupt jumps out. */
static void *scratch(size_t count, size_t size)
{
    return R_alloc(count > 0 ? count : 1, (int) size);
}

static void check_interrupt(void) { R_CheckUserInterrupt(); }

/* spec: class (n integers in 1..n_classes), value (n integers in 1..m),
 * count (n positive doubles: the records behind each row; double(0): one
 * each), n_classes, m, q (m doubles, the overall distribution, or double(0):
 * no EMD), ordered (0/1: the ordered or the equal ground distance), c (the
 * constant of recursive (c, l); 0: not computed). Returns list(distinct,
 * entropy_l, recursive, emd), one double per class (NULL when not
 * computed). */
SEXP r_diversity(SEXP spec)
{
    R_xlen_t n = r_field_length(spec, "class");
    const int *cls = r_field_int(spec, "class", n);
    const int *value = r_field_int(spec, "value", n);
    const double *count = NULL;
    if (r_field_length(spec, "count") > 0) {
        count = r_field_double(spec, "count", n, 1);
        for (R_xlen_t i = 0; i < n; i++)
            if (!(count[i] > 0)) r_field_error("count", "positive");
    } else {
        r_field_double(spec, "count", 0, 1);
    }
    int n_classes = r_field_int1(spec, "n_classes", 0, INT_MAX - 1);
    int m = r_field_int1(spec, "m", 0, INT_MAX - 2);
    const double *q = NULL;
    if (r_field_length(spec, "q") > 0) q = r_field_double(spec, "q", m, 1);
    else r_field_double(spec, "q", 0, 1);
    int ordered = r_field_int1(spec, "ordered", 0, 1);
    double c = r_field_double1(spec, "c", 0, R_PosInf);
    const char *names[] = { "distinct", "entropy_l", "recursive", "emd", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *distinct = REAL(r_list_set(out, "distinct", allocVector(REALSXP, n_classes)));
    double *entropy_l = REAL(r_list_set(out, "entropy_l", allocVector(REALSXP, n_classes)));
    double *recursive = c > 0 ?
        REAL(r_list_set(out, "recursive", allocVector(REALSXP, n_classes))) : NULL;
    double *emd = q ? REAL(r_list_set(out, "emd", allocVector(REALSXP, n_classes))) : NULL;
    int status = diversity_classes(cls, value, count, (size_t) n, n_classes, m, q, ordered, c,
                                   distinct, entropy_l, recursive, emd, scratch,
                                   check_interrupt);
    if (status == -2) r_field_error("class", "within 1..n_classes");
    if (status == -3) r_field_error("value", "within 1..m");
    if (status < 0) r_nomem_error("group the sensitive values of", (size_t) n);
    UNPROTECT(1);
    return out;
}
