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
