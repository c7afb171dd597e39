/* Field access for the named-list contract of the .Call glue (r_util.h). */
#include <math.h>
#include <string.h>
#include "r_util.h"

void r_field_error(const char *name, const char *expected)
{
    Rf_error("epimask-field: %s: %s", name, expected);
}

void r_nomem_error(const char *what, size_t n)
{
    Rf_error("epimask-memory: not enough memory to %s %zu records", what, n);
}

void r_interrupted(void)
{
    Rf_error("epimask-interrupt: interrupted");
}

/* Position of name in a named list, -1 when absent (allocates nothing). */
static R_xlen_t field_index(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(names) != STRSXP) return -1;
    R_xlen_t n = XLENGTH(list);
    for (R_xlen_t i = 0; i < n; i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return i;
    return -1;
}

SEXP r_field(SEXP list, const char *name)
{
    if (TYPEOF(list) != VECSXP) r_field_error("(spec)", "a named list");
    R_xlen_t i = field_index(list, name);
    if (i < 0) r_field_error(name, "present");
    return VECTOR_ELT(list, i);
}

SEXP r_named_list(const char **names)
{
    return Rf_mkNamed(VECSXP, names);
}

SEXP r_list_set(SEXP list, const char *name, SEXP value)
{
    R_xlen_t i = TYPEOF(list) == VECSXP ? field_index(list, name) : -1;
    if (i < 0) Rf_error("internal error: the result list has no field '%s'", name);
    SET_VECTOR_ELT(list, i, value);
    return value;
}

R_xlen_t r_field_length(SEXP list, const char *name)
{
    return XLENGTH(r_field(list, name));
}

const double *r_field_double(SEXP list, const char *name, R_xlen_t len, int finite)
{
    SEXP x = r_field(list, name);
    if (TYPEOF(x) != REALSXP) r_field_error(name, "a double vector");
    if (len >= 0 && XLENGTH(x) != len) r_field_error(name, "of the expected length");
    const double *v = REAL_RO(x);
    if (finite) {
        R_xlen_t n = XLENGTH(x);
        for (R_xlen_t i = 0; i < n; i++)
            if (!R_FINITE(v[i])) r_field_error(name, "finite (no NA, NaN or Inf)");
    }
    return v;
}

const int *r_field_int(SEXP list, const char *name, R_xlen_t len)
{
    SEXP x = r_field(list, name);
    if (TYPEOF(x) != INTSXP) r_field_error(name, "an integer vector");
    if (len >= 0 && XLENGTH(x) != len) r_field_error(name, "of the expected length");
    const int *v = INTEGER_RO(x);
    R_xlen_t n = XLENGTH(x);
    for (R_xlen_t i = 0; i < n; i++)
        if (v[i] == NA_INTEGER) r_field_error(name, "free of NA");
    return v;
}

int r_field_int1(SEXP list, const char *name, int lo, int hi)
{
    const int *v = r_field_int(list, name, 1);
    if (v[0] < lo || v[0] > hi) r_field_error(name, "within its allowed range");
    return v[0];
}

double r_field_double1(SEXP list, const char *name, double lo, double hi)
{
    const double *v = r_field_double(list, name, 1, 1);
    if (v[0] < lo || v[0] > hi) r_field_error(name, "within its allowed range");
    return v[0];
}

void r_field_dims(SEXP list, const char *name, size_t *nrow, int *ncol)
{
    SEXP x = r_field(list, name);
    if (!Rf_isMatrix(x)) r_field_error(name, "a matrix");
    *nrow = (size_t) Rf_nrows(x);
    *ncol = Rf_ncols(x);
}

const int *r_field_int_matrix(SEXP list, const char *name, size_t *nrow, int *ncol)
{
    SEXP x = r_field(list, name);
    if (TYPEOF(x) != INTSXP || !Rf_isMatrix(x)) r_field_error(name, "an integer matrix");
    *nrow = (size_t) Rf_nrows(x);
    *ncol = Rf_ncols(x);
    return INTEGER_RO(x);
}
