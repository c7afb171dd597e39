/* Kernel weights and smoothing: for each target row, a weighted sum over its
 * neighbours as found by the spatial index. The self-weight exp(0) = 1 is
 * always among the terms, so the normalising sum is >= 1 for every lambda > 0:
 * no 0/0 and no underflowed denominators as lambda -> 0. */
#include <math.h>
#include <string.h>
#include "kernel.h"
#include "par_rows.h"

double kernel_radius(const kernel_spec *ks)
{
    return ks->metric == SI_L2SQ ? sqrt(ks->max_delta) : ks->max_delta;
}

static void row_exp(size_t i, size_t m, const int *nb, double *delta,
                    const kernel_spec *ks, const double *Z, int p, double *out,
                    kernel_mode mode, size_t n)
{
    double *oi = out + i * (size_t) p;
    if (mode == KM_DERIV0) { /* every derivative of exp(-delta/lambda) vanishes at 0+ */
        for (int j = 0; j < p; j++) oi[j] = 0.0;
        return;
    }
    double sum = 0.0;
    for (size_t q = 0; q < m; q++) {
        double w = exp(-delta[q] / ks->scale);
        delta[q] = w;
        sum += w;
    }
    if (mode == KM_DENSE) {
        for (size_t q = 0; q < m; q++)
            out[i + (size_t) nb[q] * n] = delta[q] / sum;
        return;
    }
    for (int j = 0; j < p; j++) oi[j] = 0.0;
    for (size_t q = 0; q < m; q++) {
        const double *zk = Z + (size_t) nb[q] * p;
        double w = delta[q];
        for (int j = 0; j < p; j++) oi[j] += w * zk[j];
    }
    for (int j = 0; j < p; j++) oi[j] /= sum;
}

static void row_shrink(size_t i, size_t m, const int *nb, double *delta,
                       const kernel_spec *ks, const double *Z, int p, double *out,
                       kernel_mode mode, size_t n)
{
    const double lambda = ks->lambda;
    double ksum = 0.0;
    for (size_t q = 0; q < m; q++) {
        double w = (size_t) nb[q] == i ? 0.0 : exp(-delta[q] / ks->scale);
        delta[q] = w;
        ksum += w;
    }
    double denom = 1.0 + lambda * ksum;
    if (mode == KM_DENSE) {
        for (size_t q = 0; q < m; q++)
            out[i + (size_t) nb[q] * n] = lambda * delta[q] / denom;
        out[i + i * n] = 1.0 / denom;
        return;
    }
    double *oi = out + i * (size_t) p;
    const double *zi = Z + i * (size_t) p;
    for (int j = 0; j < p; j++) oi[j] = 0.0;
    for (size_t q = 0; q < m; q++) {
        const double *zk = Z + (size_t) nb[q] * p;
        double w = delta[q];
        for (int j = 0; j < p; j++) oi[j] += w * zk[j];
    }
    if (mode == KM_DERIV0) {
        for (int j = 0; j < p; j++) oi[j] -= ksum * zi[j];
    } else {
        for (int j = 0; j < p; j++) oi[j] = (zi[j] + lambda * oi[j]) / denom;
    }
}

/* Work units per row besides the candidates scanned: the row's own setup. */
#define KERNEL_ROW_OVERHEAD 32.0

typedef struct {
    const sindex *ix;
    const kernel_spec *ks;
    const int *group;
    const double *Z;
    int p;
    double *out;
    kernel_mode mode;
    int *nb;
    double *delta;
} kernel_job;

static double kernel_row(void *ctx, size_t q, int thread)
{
    const kernel_job *job = (const kernel_job *) ctx;
    const sindex *ix = job->ix;
    const size_t n = ix->n;
    int *my_nb = job->nb + (size_t) thread * n;
    double *my_delta = job->delta + (size_t) thread * n;
    size_t i = (size_t) ix->perm[q], scanned = 0;
    size_t m = sindex_query(ix, i, job->ks->metric, job->ks->max_delta, job->group,
                           my_nb, my_delta, &scanned);
    if (job->ks->form == KF_SHRINK)
        row_shrink(i, m, my_nb, my_delta, job->ks, job->Z, job->p, job->out, job->mode, n);
    else
        row_exp(i, m, my_nb, my_delta, job->ks, job->Z, job->p, job->out, job->mode, n);
    return KERNEL_ROW_OVERHEAD + (double) scanned + 4.0 * (double) m;
}

size_t kernel_apply(const sindex *ix, const kernel_spec *ks, const int *group,
                    const double *Z, int p, double *out, kernel_mode mode,
                    int *nb, double *delta, int nthreads, size_t from, size_t to)
{
    kernel_job job = { ix, ks, group, Z, p, out, mode, nb, delta };
    return par_rows(from, to, KERNEL_CHUNK_ROWS, KERNEL_REGION_WORK, nthreads,
                    kernel_row, &job);
}

void kernel_smooth(const kernel_spec *ks, kernel_mode mode, const double *coords,
                   size_t n, int d, const int *group, const double *Z, int p,
                   int nthreads, double *out, kernel_alloc alloc, void (*check)(void))
{
    const int *grp = group;
    /* row-major copies: the neighbours of a target are read together */
    double *x = (double *) alloc(n * (size_t) d, sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < d; k++) x[i * (size_t) d + k] = coords[i + (size_t) k * n];

    size_t max_cells = 2 * n + 16;
    int *perm = (int *) alloc(n, sizeof(int));
    size_t *cell_of = (size_t *) alloc(n, sizeof(size_t));
    size_t *start = (size_t *) alloc(sindex_start_len(max_cells), sizeof(size_t));
    sindex ix;
    sindex_build(&ix, x, n, d, kernel_radius(ks), max_cells, perm, cell_of, start);

    /* Smoothing works on copies sorted by cell, so that the neighbours of a
     * target sit close together in memory (the gain is large for big n);
     * rebuilding on sorted data gives the same grid with the identity order. */
    const int *order = NULL;
    double *zs = NULL, *outs = out;
    if (mode != KM_DENSE) {
        int *orig = (int *) alloc(n, sizeof(int));
        memcpy(orig, perm, n * sizeof(int));
        order = orig;
        double *xs = (double *) alloc(n * (size_t) d, sizeof(double));
        zs = (double *) alloc(n * (size_t) p, sizeof(double));
        outs = (double *) alloc(n * (size_t) p, sizeof(double));
        int *gs = grp ? (int *) alloc(n, sizeof(int)) : NULL;
        for (size_t q = 0; q < n; q++) {
            size_t i = (size_t) order[q];
            memcpy(xs + q * (size_t) d, x + i * (size_t) d, (size_t) d * sizeof(double));
            for (int j = 0; j < p; j++) zs[q * (size_t) p + j] = Z[i + (size_t) j * n];
            if (gs) gs[q] = grp[i];
        }
        grp = gs;
        sindex_build(&ix, xs, n, d, kernel_radius(ks), max_cells, perm, cell_of, start);
    }

    int *nb = (int *) alloc(n * (size_t) nthreads, sizeof(int));
    double *delta = (double *) alloc(n * (size_t) nthreads, sizeof(double));
    /* one parallel region per KERNEL_REGION_WORK of work (not per block of
     * rows): few barriers whatever n and the load; interrupts in between */
    for (size_t from = 0; from < n;) {
        from = kernel_apply(&ix, ks, grp, zs, p, outs, mode, nb, delta, nthreads, from, n);
        check();
    }

    if (mode != KM_DENSE) {
        for (size_t q = 0; q < n; q++) {
            size_t i = (size_t) order[q];
            for (int j = 0; j < p; j++) out[i + (size_t) j * n] = outs[q * (size_t) p + j];
        }
    }
}
