/* .Call glue for the individual re-identification risk (individual.c). */
#include <math.h>
#include "r_util.h"
#include "r_epimask.h"
#include "individual.h"

/* spec: list(f = pattern sample counts, F_hat = their weight sums) */
SEXP r_individual_risk(SEXP spec)
{
    R_xlen_t n = r_field_length(spec, "f");
    const double *f = r_field_double(spec, "f", -1, 1);
    const double *F_hat = r_field_double(spec, "F_hat", n, 1);
    for (R_xlen_t i = 0; i < n; i++) {
        if (f[i] < 1 || f[i] != floor(f[i])) r_field_error("f", "whole numbers >= 1");
        if (F_hat[i] < f[i]) r_field_error("F_hat", "at least f in every pattern");
    }
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    reid_risk(f, F_hat, (size_t) n, REAL(out));
    UNPROTECT(1);
    return out;
}
