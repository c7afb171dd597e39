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
 * library. The weighted cross-products of a block of rows (a few hundred
 * rows, so its columns stay in the L1/L2 cache) are accumulated in register
 * tiles: two columns j, j + 1 times four columns k..k + 3, each of the eight
 * sums in two interleaved partial sums (rows r, r + 2, ...) that are added
 * in a fixed order at the end. w_r c_j[r] is formed once per row and tile
 * and used four times; each row costs 6 loads for 8 products (the 2 x 2
 * tiles of U = sqrt(W) X that this replaces needed one load per product and
 * a copy of the block). Independent chains that the compiler places in
 * SSE2 registers at -O2 (8 accumulators + 3 operands fit the 16 registers
 * of x86-64) without reordering any sum: the result does not depend on the
 * compiler's vectorization. Measured in inst/bench/bench-irls.R. */

static void tile_2x4(int len, const double *restrict w, const double *restrict a0,
                     const double *restrict a1, const double *restrict b0,
                     const double *restrict b1, const double *restrict b2,
                     const double *restrict b3, double out[8])
{
    double s[8][2] = { { 0 } };
    int r = 0;
    for (; r + 2 <= len; r += 2) {
        for (int l = 0; l < 2; l++) {
            double u0 = w[r + l] * a0[r + l], u1 = w[r + l] * a1[r + l];
            s[0][l] += u0 * b0[r + l];
            s[1][l] += u0 * b1[r + l];
            s[2][l] += u0 * b2[r + l];
            s[3][l] += u0 * b3[r + l];
            s[4][l] += u1 * b0[r + l];
            s[5][l] += u1 * b1[r + l];
            s[6][l] += u1 * b2[r + l];
            s[7][l] += u1 * b3[r + l];
        }
    }
    for (; r < len; r++) {
        double u0 = w[r] * a0[r], u1 = w[r] * a1[r];
        s[0][0] += u0 * b0[r];
        s[1][0] += u0 * b1[r];
        s[2][0] += u0 * b2[r];
        s[3][0] += u0 * b3[r];
        s[4][0] += u1 * b0[r];
        s[5][0] += u1 * b1[r];
        s[6][0] += u1 * b2[r];
        s[7][0] += u1 * b3[r];
    }
    for (int i = 0; i < 8; i++) out[i] = s[i][0] + s[i][1];
}

/* The same for two columns k, k + 1 (the last tile of a row of tiles, and
 * q <= 2). */
static void tile_2x2(int len, const double *restrict w, const double *restrict a0,
                     const double *restrict a1, const double *restrict b0,
                     const double *restrict b1, double out[4])
{
    double s[4][2] = { { 0 } };
    int r = 0;
    for (; r + 2 <= len; r += 2) {
        for (int l = 0; l < 2; l++) {
            double u0 = w[r + l] * a0[r + l], u1 = w[r + l] * a1[r + l];
            s[0][l] += u0 * b0[r + l];
            s[1][l] += u0 * b1[r + l];
            s[2][l] += u1 * b0[r + l];
            s[3][l] += u1 * b1[r + l];
        }
    }
    for (; r < len; r++) {
        double u0 = w[r] * a0[r], u1 = w[r] * a1[r];
        s[0][0] += u0 * b0[r];
        s[1][0] += u0 * b1[r];
        s[2][0] += u1 * b0[r];
        s[3][0] += u1 * b1[r];
    }
    for (int i = 0; i < 4; i++) out[i] = s[i][0] + s[i][1];
}

void linalg_wgram_block(int q, int len, const double *const *col, const double *w, double *G)
{
    for (int j = 0; j < q; j += 2) {
        /* an odd q: the last row of tiles repeats column j (its sums are
         * computed and dropped) */
        int j1 = j + 1 < q ? j + 1 : j;
        for (int k = 0; k <= j1; k += 4) {
            int width = j1 + 1 - k < 4 ? j1 + 1 - k : 4;
            int kk[4];
            for (int t = 0; t < 4; t++) kk[t] = k + t < q ? k + t : k;
            double o[8];
            if (width <= 2) {
                double o4[4];
                tile_2x2(len, w, col[j], col[j1], col[kk[0]], col[kk[1]], o4);
                o[0] = o4[0], o[1] = o4[1], o[4] = o4[2], o[5] = o4[3];
            } else {
                tile_2x4(len, w, col[j], col[j1], col[kk[0]], col[kk[1]], col[kk[2]],
                         col[kk[3]], o);
            }
            for (int t = 0; t < width; t++) {
                int c = k + t;
                if (c <= j) G[c + (size_t) j * q] += o[t];
                if (j1 != j && c <= j1) G[c + (size_t) j1 * q] += o[4 + t];
            }
        }
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
