/* .Call glue for kernel masking: converts R objects, builds the spatial
 * index, runs the smoothing in blocks (interrupt checks between blocks). */
#include <R.h>
#include <Rinternals.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernel.h"
#include "spatial_index.h"
#include "r_epimask.h"

/* Rows per block between interrupt checks. A row costs up to n weight
 * evaluations (all of them when lambda is large against the spacing), so the
 * block shrinks with n to keep the worst case near KERNEL_BLOCK_WORK
 * evaluations (a fraction of a second), but not below a size that keeps
 * every thread busy. */
#define KERNEL_BLOCK_MAX 32768
#define KERNEL_BLOCK_WORK 2e7

static size_t kernel_block_rows(size_t n, int nthreads)
{
    double rows = KERNEL_BLOCK_WORK / (n > 0 ? (double) n : 1.0);
    double floor_rows = 64.0 * (nthreads > 0 ? nthreads : 1);
    if (rows < floor_rows) rows = floor_rows;
    if (rows > KERNEL_BLOCK_MAX) rows = KERNEL_BLOCK_MAX;
    return (size_t) rows;
}

/* coords: n x d double matrix (already in delta space); group: integer codes
 * or NULL; Z: n x p double matrix (ignored for mode 2); spec: double vector
 * (metric, form, lambda, scale, cutoff); mode: 0 A Z, 1 A'(0) Z, 2 dense A;
 * threads: requested number of threads. */
SEXP r_kernel_smooth(SEXP coords, SEXP group, SEXP Z, SEXP spec, SEXP mode,
                     SEXP threads)
{
    if (!isReal(coords) || !isMatrix(coords)) error("`coords` must be a double matrix");
    if (!isReal(spec) || XLENGTH(spec) != 5) error("`spec` must be a double vector of length 5");
    int kmode = asInteger(mode);
    if (kmode < 0 || kmode > 2) error("unknown kernel mode");
    size_t n = (size_t) nrows(coords);
    int d = ncols(coords);
    if (n == 0 || d == 0) error("`coords` must not be empty");
    const int *grp = NULL;
    if (!isNull(group)) {
        if (!isInteger(group) || (size_t) XLENGTH(group) != n)
            error("`group` must be an integer vector with one code per row of `coords`");
        grp = INTEGER(group);
    }
    int p = 0;
    if (kmode != KM_DENSE) {
        if (!isReal(Z) || !isMatrix(Z) || (size_t) nrows(Z) != n)
            error("`Z` must be a double matrix with as many rows as `coords`");
        p = ncols(Z);
    }
    const double *sp = REAL(spec);
    kernel_spec ks;
    ks.metric = (si_metric) (int) sp[0];
    ks.form = (kernel_form) (int) sp[1];
    ks.lambda = sp[2];
    ks.scale = sp[3];
    ks.max_delta = sp[4] * sp[3];
    if (!(ks.scale > 0) || !(ks.lambda > 0) || !(sp[4] > 0))
        error("kernel scale, lambda and cutoff must be positive");

    int nthreads = asInteger(threads);
    if (nthreads < 1 || nthreads == NA_INTEGER) nthreads = 1;
#ifdef _OPENMP
    if (nthreads > omp_get_num_procs()) nthreads = omp_get_num_procs();
#else
    nthreads = 1;
#endif

    /* row-major copies: the neighbours of a target are read together */
    double *x = (double *) R_alloc(n * (size_t) d, sizeof(double));
    const double *xc = REAL(coords);
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
        const double *zc = REAL(Z);
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
    size_t block = kernel_block_rows(n, nthreads);
    for (size_t from = 0; from < n; from += block) {
        size_t to = from + block < n ? from + block : n;
        kernel_apply(&ix, &ks, grp, zs, p, outs, (kernel_mode) kmode, nb, delta,
                     nthreads, from, to);
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
