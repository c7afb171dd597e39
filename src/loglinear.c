/* Log-linear risk (methods vignette section 22): the expected inverse population count of a
 * cell, E(1 / (f + X)) with X ~ Poisson(v), summed as a series of positive
 * terms outward from the mode of the Poisson law (no underflow of exp(-v)
 * for large v), about 1e-15 relative for every f >= 1 and v >= 0. */
#include <math.h>
#include "loglinear.h"

double poisson_inverse_mean(double f, double v)
{
    if (v <= 0) return 1.0 / f;
    if (f == 1) return v < 1e-8 ? 1.0 - v / 2.0 : -expm1(-v) / v;
    double m = floor(v);
    double pm = exp(-v + m * log(v) - lgamma(m + 1.0));
    double sum = pm / (f + m);
    /* upward from the mode: p(x + 1) = p(x) v / (x + 1) */
    double p = pm;
    for (double x = m + 1.0;; x += 1.0) {
        p *= v / x;
        double term = p / (f + x);
        sum += term;
        if (term < 1e-17 * sum || p == 0) break;
    }
    /* downward: p(x - 1) = p(x) x / v */
    p = pm;
    for (double x = m; x >= 1.0; x -= 1.0) {
        p *= x / v;
        double term = p / (f + x - 1.0);
        sum += term;
        if (term < 1e-17 * sum || p == 0) break;
    }
    return sum;
}

void poisson_inverse_means(const double *f, const double *v, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) out[i] = poisson_inverse_mean(f[i], v[i]);
}
