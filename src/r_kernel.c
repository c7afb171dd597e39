/* .Call glue for kernel masking: reads the fields and allocates the result;
 * the smoothing itself is kernel_smooth() of kernel.c. */
#include <R.h>
#include <Rinternals.h>
#include <math.h>
#include <string.h>
#include "kernel.h"
#include "spatial_index.h"
#include "r_epimask.h"
#include "r_util.h"

/* Scratch for kernel_smooth(): R_alloc memory, released when .Call returns
 * or an interrupt jumps out. */
static void *scratch(size_t count, size_t size)
{
    return R_alloc(count > 0 ? count : 1, (int) size);
}

/* spec: a named list (see kernel_call() in R/mask-kernel.R):
 *   coords  n x d double matrix, already in delta space
 *   group   integer codes (length n) or integer(0) for none
 *   Z       n x p double matrix (ignored for mode 2)
 *   metric, form  codes of si_metric and kernel_form
 *   lambda, scale, cutoff  positive doubles
 *   mode    0 A Z, 1 A'(0) Z, 2 dense A
 *   threads number of threads (from epimask_threads()) */
SEXP r_kernel_smooth(SEXP spec)
{
    size_t n;
    int d;
    r_field_dims(spec, "coords", &n, &d);
    const double *xc = r_field_double(spec, "coords", -1, 1);
    if (n == 0 || d == 0) r_field_error("coords", "not empty");
    int kmode = r_field_int1(spec, "mode", 0, 2);
    const int *grp = NULL;
    R_xlen_t ng = r_field_length(spec, "group");
    if (ng > 0) grp = r_field_int(spec, "group", (R_xlen_t) n);
    int p = 0;
    const double *zc = NULL;
    if (kmode != KM_DENSE) {
        size_t nz;
        r_field_dims(spec, "Z", &nz, &p);
        if (nz != n) r_field_error("Z", "a matrix with one row per row of `coords`");
        zc = r_field_double(spec, "Z", -1, 0);
    }
    kernel_spec ks;
    ks.metric = (si_metric) r_field_int1(spec, "metric", 0, 2);
    ks.form = (kernel_form) r_field_int1(spec, "form", 0, 1);
    ks.lambda = r_field_double1(spec, "lambda", 0, INFINITY);
    ks.scale = r_field_double1(spec, "scale", 0, INFINITY);
    double cutoff = r_field_double1(spec, "cutoff", 0, INFINITY);
    if (!(ks.scale > 0) || !(ks.lambda > 0) || !(cutoff > 0))
        r_field_error("lambda", "positive, with a positive scale and cutoff");
    ks.max_delta = cutoff * ks.scale;
    int nthreads = r_field_int1(spec, "threads", 1, 1 << 16);
#ifndef _OPENMP
    nthreads = 1;
#endif

    SEXP out;
    if (kmode == KM_DENSE) {
        out = PROTECT(allocMatrix(REALSXP, (int) n, (int) n));
        memset(REAL(out), 0, n * n * sizeof(double));
    } else {
        out = PROTECT(allocMatrix(REALSXP, (int) n, p));
        if (p == 0) { UNPROTECT(1); return out; }
    }
    kernel_smooth(&ks, (kernel_mode) kmode, xc, n, d, grp, zc, p, nthreads, REAL(out),
                  scratch, R_CheckUserInterrupt);
    UNPROTECT(1);
    return out;
}
