/* .Call glue for the log-linear risk (loglinear.c). */
#include <math.h>
#include "r_util.h"
#include "r_epimask.h"
#include "loglinear.h"

/* spec: list(f = cell sample counts >= 1, v = Poisson means of F - f >= 0) */
SEXP r_loglinear_match(SEXP spec)
{
    R_xlen_t n = r_field_length(spec, "f");
    const double *f = r_field_double(spec, "f", -1, 1);
    const double *v = r_field_double(spec, "v", n, 1);
    for (R_xlen_t i = 0; i < n; i++) {
        if (f[i] < 1 || f[i] != floor(f[i])) r_field_error("f", "whole numbers >= 1");
        if (!(v[i] >= 0) || !R_FINITE(v[i])) r_field_error("v", "finite and >= 0");
    }
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    poisson_inverse_means(f, v, (size_t) n, REAL(out));
    UNPROTECT(1);
    return out;
}
