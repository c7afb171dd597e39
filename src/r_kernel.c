/* .Call glue for kernel masking: converts R objects, builds the spatial
 * index, runs the smoothing in parallel regions of bounded work (interrupt
 * checks between regions). */
#include <R.h>
#include <Rinternals.h>
#include <math.h>
#include <string.h>
#include "kernel.h"
#include "spatial_index.h"
#include "r_epimask.h"
#include "r_util.h"

/* A matrix field: its dimensions (a classed error when it is not a matrix). */
static void field_dims(SEXP job, const char *name, size_t *nrow, int *ncol)
{
    SEXP x = r_field(job, name);
    if (!isMatrix(x)) r_field_error(name, "a matrix");
    *nrow = (size_t) nrows(x);
    *ncol = ncols(x);
}

/* job: a named list (see kernel_call() in R/mask-kernel.R):
 *   coords  n x d double matrix, already in delta space
 *   group   integer codes (length n) or integer(0) for none
 *   Z       n x p double matrix (ignored for mode 2)
 *   metric, form  codes of si_metric and kernel_form
 *   lambda, scale, cutoff  positive doubles
 *   mode    0 A Z, 1 A'(0) Z, 2 dense A
 *   threads number of threads (from epimask_threads()) */
SEXP r_kernel_smooth(SEXP job)
{
    size_t n;
    int d;
    field_dims(job, "coords", &n, &d);
    const double *xc = r_field_double(job, "coords", -1, 1);
    if (n == 0 || d == 0) r_field_error("coords", "not empty");
    int kmode = r_field_int1(job, "mode", 0, 2);
    const int *grp = NULL;
    R_xlen_t ng = r_field_length(job, "group");
    if (ng > 0) grp = r_field_int(job, "group", (R_xlen_t) n);
    int p = 0;
    const double *zc = NULL;
    if (kmode != KM_DENSE) {
        size_t nz;
        field_dims(job, "Z", &nz, &p);
        if (nz != n) r_field_error("Z", "a matrix with one row per row of `coords`");
        zc = r_field_double(job, "Z", -1, 0);
    }
    kernel_spec ks;
    ks.metric = (si_metric) r_field_int1(job, "metric", 0, 2);
    ks.form = (kernel_form) r_field_int1(job, "form", 0, 1);
    ks.lambda = r_field_double1(job, "lambda", 0, INFINITY);
    ks.scale = r_field_double1(job, "scale", 0, INFINITY);
    double cutoff = r_field_double1(job, "cutoff", 0, INFINITY);
    if (!(ks.scale > 0) || !(ks.lambda > 0) || !(cutoff > 0))
        r_field_error("lambda", "positive, with a positive scale and cutoff");
    ks.max_delta = cutoff * ks.scale;
    int nthreads = r_field_int1(job, "threads", 1, 1 << 16);
#ifndef _OPENMP
    nthreads = 1;
#endif

    /* row-major copies: the neighbours of a target are read together */
    double *x = (double *) R_alloc(n * (size_t) d, sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < d; k++) x[i * (size_t) d + k] = xc[i + (size_t) k * n];
    double *outr = NULL; /* dense output */
    SEXP out;
    if (kmode == KM_DENSE) {
        out = PROTECT(allocMatrix(REALSXP, (int) n, (int) n));
        memset(REAL(out), 0, n * n * sizeof(double));
        outr = REAL(out);
    } else {
        out = PROTECT(allocMatrix(REALSXP, (int) n, p));
        if (p == 0) { UNPROTECT(1); return out; }
    }

    size_t max_cells = 2 * n + 16;
    int *perm = (int *) R_alloc(n, sizeof(int));
    size_t *cell_of = (size_t *) R_alloc(n, sizeof(size_t));
    size_t *start = (size_t *) R_alloc(sindex_start_len(max_cells), sizeof(size_t));
    sindex ix;
    sindex_build(&ix, x, n, d, kernel_radius(&ks), max_cells, perm, cell_of, start);

    /* Smoothing works on copies sorted by cell, so that the neighbours of a
     * target sit close together in memory (the gain is large for big n);
     * rebuilding on sorted data gives the same grid with the identity order. */
    const int *order = NULL;
    double *zs = NULL, *outs = outr;
    if (kmode != KM_DENSE) {
        int *orig = (int *) R_alloc(n, sizeof(int));
        memcpy(orig, perm, n * sizeof(int));
        order = orig;
        double *xs = (double *) R_alloc(n * (size_t) d, sizeof(double));
        zs = (double *) R_alloc(n * (size_t) p, sizeof(double));
        outs = (double *) R_alloc(n * (size_t) p, sizeof(double));
        int *gs = grp ? (int *) R_alloc(n, sizeof(int)) : NULL;
        for (size_t q = 0; q < n; q++) {
            size_t i = (size_t) order[q];
            memcpy(xs + q * (size_t) d, x + i * (size_t) d, (size_t) d * sizeof(double));
            for (int j = 0; j < p; j++) zs[q * (size_t) p + j] = zc[i + (size_t) j * n];
            if (gs) gs[q] = grp[i];
        }
        grp = gs;
        sindex_build(&ix, xs, n, d, kernel_radius(&ks), max_cells, perm, cell_of, start);
    }

    int *nb = (int *) R_alloc(n * (size_t) nthreads, sizeof(int));
    double *delta = (double *) R_alloc(n * (size_t) nthreads, sizeof(double));
    /* one parallel region per KERNEL_REGION_WORK of work (not per block of
     * rows): few barriers whatever n and the load; interrupts in between */
    for (size_t from = 0; from < n;) {
        from = kernel_apply(&ix, &ks, grp, zs, p, outs, (kernel_mode) kmode, nb,
                            delta, nthreads, from, n);
        R_CheckUserInterrupt();
    }

    if (kmode != KM_DENSE) {
        double *oc = REAL(out);
        for (size_t q = 0; q < n; q++) {
            size_t i = (size_t) order[q];
            for (int j = 0; j < p; j++) oc[i + (size_t) j * n] = outs[q * (size_t) p + j];
        }
    }
    UNPROTECT(1);
    return out;
}
