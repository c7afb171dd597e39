#ifndef EPIMASK_IRLS_LINALG_H
#define EPIMASK_IRLS_LINALG_H

#include <stddef.h>

/* The linear algebra of a weighted least-squares step: cross-products of
 * row blocks, and the solve of the normal equations by LAPACK's Cholesky or,
 * for nearly collinear designs, by a Householder QR with the limited column
 * pivoting of R's dqrdc2 (the decomposition glm.fit uses), built from
 * LAPACK's dlarfg/dlarf. Plain C over arrays. */

/* G += C' diag(w) C on the upper triangle (entry k + j q for k <= j),
 * C the len x q block whose column j starts at col[j] (columns need not be
 * adjacent: the columns of X in place and a working response elsewhere).
 * The sums run in a fixed order whatever the compiler vectorizes. */
void linalg_wgram_block(int q, int len, const double *const *col, const double *w, double *G);

/* Solves A beta = b (A p x p, upper triangle used) by dpotrf/dpotrs when
 * every column keeps a fraction of at least chol_tol of its squared norm
 * once the earlier columns are projected out (L_jj^2 >= chol_tol A_jj):
 * then no column is near the collinearity that dqrdc2 would pivot out, fac
 * holds U (A = U'U, upper triangle) and the return value is 1. Returns 0
 * (fac and beta undefined) otherwise. */
int linalg_chol_solve(int p, const double *A, const double *b, double chol_tol,
                      double *fac, double *beta);

/* Least squares of y on the m x p matrix x (leading dimension m, both
 * overwritten) by Householder QR with dqrdc2's limited pivoting: columns in
 * their order, a column whose norm, once the kept columns are projected out,
 * falls below tol times its original norm is moved to the end. Returns the
 * rank; pivot (0-based) lists the kept columns then the others; beta[pivot[j]]
 * is the coefficient of kept column j and 0 for the others; fac (p x p,
 * leading dimension p) holds R of the kept columns in pivot order
 * (R'R = their X'X). work: 3 p doubles. */
int linalg_qr_limited(int m, int p, double *x, double *y, double tol, int *pivot,
                      double *beta, double *fac, double *work);

/* cov (p x p): the inverse of U'U for the leading rank x rank block of the
 * upper triangular fac (leading dimension p), in full, zero elsewhere. */
void linalg_inverse_from_factor(int p, int rank, const double *fac, double *cov);

#endif
