/* E(1 / F | f) of Benedetti & Franconi (1998), methods vignette section 13.
 *
 * With q = 1 - p, the substitution t = u / (p + q u) (so that t / (1 - q t)
 * = u / p) turns the integral of methods vignette section 13 into
 *     r = p I_f,   I_f = integral_0^1 u^(f-1) / (p + q u) du,
 * and I_f obeys p I_f + q I_(f+1) = 1 / f. Two evaluations, each stable where
 * it is used:
 *  - p < 1/3: the forward recurrence I_(h+1) = (1/h - p I_h) / q from the
 *    closed form I_1 = log(1/p) / q. An error in I_h enters I_(h+1)
 *    multiplied by p / q < 1/2, so rounding errors do not grow, and the
 *    subtraction loses at most a factor of about two (p I_h <= 0.55 / h).
 *    Cost O(f), i.e. O(n) over all the patterns of a sample.
 *  - p >= 1/3: with v = 1 - u, 1 / (1 - q v) = sum_k q^k v^k gives
 *    I_f = sum_k q^k B(k + 1, f), positive terms with ratio
 *    q (k + 1) / (k + 1 + f) < 2/3: at most about 90 terms. */
#include <math.h>
#include "individual.h"

double reid_expected_inverse(double f, double F_hat)
{
    if (!(F_hat > f)) return 1.0 / f;               /* p = 1: F = f surely */
    double p = f / F_hat;
    double q = (F_hat - f) / F_hat;                 /* no cancellation in 1 - p */
    if (p < 1.0 / 3.0) {
        double I = log1p((F_hat - f) / f) / q;      /* log(1 / p) / q */
        long nf = (long) f;
        for (long h = 1; h < nf; h++)
            I = (1.0 / (double) h - p * I) / q;
        return p * I;
    }
    double term = 1.0 / f, sum = term;
    for (long k = 0; k < 100000; k++) {
        term *= q * (double) (k + 1) / ((double) (k + 1) + f);
        sum += term;
        if (term <= 1e-17 * sum) break;
    }
    return p * sum;
}

void reid_risk(const double *f, const double *F_hat, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) out[i] = reid_expected_inverse(f[i], F_hat[i]);
}
