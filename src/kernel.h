#ifndef EPIMASK_KERNEL_H
#define EPIMASK_KERNEL_H

#include <stddef.h>
#include "spatial_index.h"

/* Kernel-weighted matrix masking (methods vignette section 1.1) without forming A.
 * Coordinates have already been mapped to a space where delta is a plain
 * metric: exponential and ring (Euclidean), gaussian and bvn (squared
 * Euclidean, bvn after whitening), ring_angle (L1 in (radius, angle)),
 * shrink (Euclidean, for K = exp(-||.|| / h)). */

typedef enum {
    KF_EXP = 0,    /* w = exp(-delta / lambda), a = w / sum(w)           */
    KF_SHRINK = 1  /* a = (1[i = k] + lambda K) / (1 + lambda sum K), K = exp(-delta / h) */
} kernel_form;

typedef enum {
    KM_SMOOTH = 0, /* out = A Z                    */
    KM_DERIV0 = 1, /* out = A'(0) Z (dA/dlambda at 0) */
    KM_DENSE = 2   /* out = A, dense n x n (column-major) */
} kernel_mode;

typedef struct {
    si_metric metric;
    kernel_form form;
    double lambda;    /* degree of masking, > 0 for the exp form */
    double scale;     /* lambda (exp form) or bandwidth h (shrink) */
    double max_delta; /* cutoff * scale: larger delta means weight 0 */
} kernel_spec;

/* Search radius in coordinate units for the index. */
double kernel_radius(const kernel_spec *ks);

/* Rows handed to a thread at a time, and the work (candidates scanned, plus
 * a per-row overhead) after which the parallel region ends so that the caller
 * can check for an interrupt: about 0.1 s of one core, whatever n and the
 * machine's load (see par_rows.h for why this is counted, never timed). */
#define KERNEL_CHUNK_ROWS 64
#define KERNEL_REGION_WORK 3.0e7

/* Process targets perm[from .. to-1] of the index, in one parallel region
 * that stops after about KERNEL_REGION_WORK; returns the first target not
 * done (call again from there). Z and out are row-major n x p (KM_SMOOTH,
 * KM_DERIV0) or out is column-major n x n (KM_DENSE). nb and delta are
 * scratch of n entries per thread (nthreads blocks). */
size_t kernel_apply(const sindex *ix, const kernel_spec *ks, const int *group,
                  const double *Z, int p, double *out, kernel_mode mode,
                  int *nb, double *delta, int nthreads, size_t from, size_t to);

/* The whole smoothing of methods vignette section 1.1 on plain arrays (the .Call glue of
 * r_kernel.c only reads the fields and allocates). coords is n x d and Z
 * n x p, column-major; group is n codes or NULL. out is column-major n x p
 * (KM_SMOOTH, KM_DERIV0) or n x n and zeroed (KM_DENSE). Scratch comes from
 * alloc (count elements of size bytes; never fails, freed by the caller's
 * allocator, so that check may jump out); check runs between parallel
 * regions (an interrupt check). nthreads >= 1. */
typedef void *(*kernel_alloc)(size_t count, size_t size);
void kernel_smooth(const kernel_spec *ks, kernel_mode mode, const double *coords,
                   size_t n, int d, const int *group, const double *Z, int p,
                   int nthreads, double *out, kernel_alloc alloc, void (*check)(void));

#endif
