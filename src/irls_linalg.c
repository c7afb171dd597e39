#include <math.h>
#include <string.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#include "irls_linalg.h"

#ifndef FCONE
#define FCONE
#endif

/* ---- cross-products ----
 * Not BLAS's dsyrk: the reference BLAS computes one latency-bound dot
 * product at a time, and a threaded BLAS called from inside the OpenMP
 * chunks would oversubscribe the cores and make the sums depend on the
 * library. Here 2 x 2 column pairs are accumulated together, each in LANES
 * interleaved partial sums (rows r, r + LANES, ...) that are added in a
 * fixed order at the end: independent chains that the compiler places in
 * vector registers at -O2 without reordering any sum (with two lanes, one
 * SSE2 register per sum on x86-64; measured 2x faster than four lanes, which
 * spill registers). */
#define LANES 2

static void dot_2x2(int len, const double *a0, const double *a1, const double *b0,
                    const double *b1, double out[4])
{
    double s00[LANES] = {0}, s01[LANES] = {0}, s10[LANES] = {0}, s11[LANES] = {0};
    int r = 0;
    for (; r + LANES <= len; r += LANES) {
        for (int l = 0; l < LANES; l++) {
            s00[l] += a0[r + l] * b0[r + l];
            s01[l] += a1[r + l] * b0[r + l];
            s10[l] += a0[r + l] * b1[r + l];
            s11[l] += a1[r + l] * b1[r + l];
        }
    }
    for (; r < len; r++) {
        s00[0] += a0[r] * b0[r];
        s01[0] += a1[r] * b0[r];
        s10[0] += a0[r] * b1[r];
        s11[0] += a1[r] * b1[r];
    }
    for (int l = 1; l < LANES; l++) {
        s00[0] += s00[l];
        s01[0] += s01[l];
        s10[0] += s10[l];
        s11[0] += s11[l];
    }
    out[0] = s00[0];
    out[1] = s01[0];
    out[2] = s10[0];
    out[3] = s11[0];
}

static double dot_1(int len, const double *a, const double *b)
{
    double s[LANES] = {0};
    int r = 0;
    for (; r + LANES <= len; r += LANES)
        for (int l = 0; l < LANES; l++) s[l] += a[r + l] * b[r + l];
    for (; r < len; r++) s[0] += a[r] * b[r];
    for (int l = 1; l < LANES; l++) s[0] += s[l];
    return s[0];
}

void linalg_gram_block(int q, int len, const double *U, int ldu, double *G)
{
    int j = 0;
    double d[4];
    for (; j + 1 < q; j += 2) {
        const double *uj0 = U + (size_t) j * ldu, *uj1 = uj0 + ldu;
        double *G0 = G + (size_t) j * q, *G1 = G0 + q;
        for (int k = 0; k <= j; k += 2) {
            const double *uk0 = U + (size_t) k * ldu, *uk1 = uk0 + ldu;
            dot_2x2(len, uk0, uk1, uj0, uj1, d);
            G0[k] += d[0];
            G0[k + 1] += d[1];
            G1[k] += d[2];
            G1[k + 1] += d[3];
        }
    }
    if (j < q) {
        /* the last column of an odd q */
        const double *uj = U + (size_t) j * ldu;
        double *Gj = G + (size_t) j * q;
        for (int k = 0; k <= j; k++) Gj[k] += dot_1(len, U + (size_t) k * ldu, uj);
    }
}

/* ---- solves ---- */

int linalg_chol_solve(int p, const double *A, const double *b, double chol_tol,
                      double *fac, double *beta)
{
    int info = 0, one = 1;
    memcpy(fac, A, (size_t) p * p * sizeof(double));
    F77_CALL(dpotrf)("U", &p, fac, &p, &info FCONE);
    if (info != 0) return 0;
    for (int j = 0; j < p; j++) {
        double ajj = A[j + (size_t) j * p], ujj = fac[j + (size_t) j * p];
        if (!(ajj > 0.0) || !(ujj * ujj >= chol_tol * ajj)) return 0;
    }
    memcpy(beta, b, (size_t) p * sizeof(double));
    F77_CALL(dpotrs)("U", &p, &one, fac, &p, beta, &p, &info FCONE);
    return info == 0;
}

/* Moves column position l to the end of the order, the others up one. */
static void move_to_end(int *order, int l, int p)
{
    int c = order[l];
    memmove(order + l, order + l + 1, (size_t) (p - l - 1) * sizeof(int));
    order[p - 1] = c;
}

int linalg_qr_limited(int m, int p, double *x, double *y, double tol, int *pivot,
                      double *beta, double *fac, double *work)
{
    double *norm = work, *ref = work + p, *tau = work + 2 * (size_t) p, dummy;
    int one = 1;
    for (int j = 0; j < p; j++) {
        pivot[j] = j;
        norm[j] = F77_CALL(dnrm2)(&m, x + (size_t) j * m, &one);
        ref[j] = norm[j] == 0.0 ? 1.0 : norm[j];
        tau[j] = 0.0;
    }
    int kept_max = p;     /* columns not (yet) moved to the end */
    int lup = m < p ? m : p;
    for (int l = 0; l < lup; l++) {
        /* dqrdc2: cycle negligible columns to the end */
        while (l < kept_max && norm[pivot[l]] < ref[pivot[l]] * tol) {
            move_to_end(pivot, l, p);
            kept_max--;
        }
        if (l == m - 1 || l >= kept_max) break;
        double *cl = x + (size_t) pivot[l] * m + l;
        int len = m - l;
        F77_CALL(dlarfg)(&len, cl, cl + 1, &one, tau + l);
        double diag = *cl;
        *cl = 1.0;
        for (int j = l + 1; j < p; j++) {
            int c = pivot[j];
            double *cj = x + (size_t) c * m + l;
            F77_CALL(dlarf)("L", &len, &one, cl, &one, tau + l, cj, &len, &dummy FCONE);
            /* dqrdc2's downdating of the remaining norm, recomputed when
             * the downdate loses its accuracy */
            if (norm[c] != 0.0) {
                double t = 1.0 - (fabs(*cj) / norm[c]) * (fabs(*cj) / norm[c]);
                t = t > 0.0 ? t : 0.0;
                if (t < 1e-6) {
                    int rest = len - 1;
                    norm[c] = F77_CALL(dnrm2)(&rest, cj + 1, &one);
                } else {
                    norm[c] *= sqrt(t);
                }
            }
        }
        F77_CALL(dlarf)("L", &len, &one, cl, &one, tau + l, y + l, &len, &dummy FCONE);
        *cl = diag;
    }
    int rank = kept_max < m ? kept_max : m;
    memset(fac, 0, (size_t) p * p * sizeof(double));
    for (int j = 0; j < rank; j++)
        for (int i = 0; i <= j; i++) fac[i + (size_t) j * p] = x[i + (size_t) pivot[j] * m];
    double *sol = work; /* the norms are no longer needed */
    memcpy(sol, y, (size_t) rank * sizeof(double));
    int info = 0;
    if (rank > 0)
        F77_CALL(dtrtrs)("U", "N", "N", &rank, &one, fac, &p, sol, &p, &info FCONE FCONE FCONE);
    for (int j = 0; j < p; j++) beta[j] = 0.0;
    for (int j = 0; j < rank; j++) beta[pivot[j]] = info == 0 ? sol[j] : NAN;
    return rank;
}

void linalg_inverse_from_factor(int p, int rank, const double *fac, double *cov)
{
    int info = 0;
    memset(cov, 0, (size_t) p * p * sizeof(double));
    if (rank <= 0) return;
    for (int j = 0; j < rank; j++)
        for (int i = 0; i <= j; i++) cov[i + (size_t) j * p] = fac[i + (size_t) j * p];
    F77_CALL(dpotri)("U", &rank, cov, &p, &info FCONE);
    for (int j = 0; j < rank; j++)
        for (int i = j + 1; i < rank; i++) cov[i + (size_t) j * p] = cov[j + (size_t) i * p];
}
