/* Log-linear risk (methods vignette section 22): the expected inverse population count of a
 * cell, E(1 / (f + X)) with X ~ Poisson(v). Up to v = 1e5, a series of
 * positive terms outward from the mode of the Poisson law, with the
 * probabilities taken relative to the mode's and the sum divided by their
 * total (no exp(-v) to underflow, and no mode probability from
 * exp(-v + m log v - lgamma(m + 1)), whose cancellation lost 4 digits at
 * v = 1e12 and all of them at 1e15); beyond, the expansion about the mean
 * f + v, whose first omitted terms are below 1e-18 relative there (the
 * series needs O(sqrt(v)) terms, and none ends once x + 1 == x). */
#include <math.h>
#include "loglinear.h"

#define SERIES_MAX_V 1e5

/* E(1 / Y), Y = f + X: 1/mu sum_k (-1)^k mu_k / mu^k with the central
 * moments of the Poisson law mu_2 = mu_3 = v, mu_4 = v + 3v^2,
 * mu_5 = v + 10v^2, mu_6 = v + 25v^2 + 15v^3. */
static double inverse_mean_expansion(double f, double v)
{
    /* with a = v / mu <= 1, mu_k / mu^k written in powers of a and 1 / mu
     * (no v^3 to overflow) */
    double mu = f + v, r = 1.0 / mu, a = v * r, a2 = a * a;
    double r2 = r * r, r3 = r2 * r, r4 = r2 * r2, r5 = r4 * r;
    double s = 1.0 + a * r - a * r2 + (a * r3 + 3.0 * a2 * r2) - (a * r4 + 10.0 * a2 * r3) +
        (a * r5 + 25.0 * a2 * r4 + 15.0 * a2 * a * r3);
    return s * r;
}

double poisson_inverse_mean(double f, double v)
{
    if (v <= 0) return 1.0 / f;
    if (f == 1) return v < 1e-8 ? 1.0 - v / 2.0 : -expm1(-v) / v;
    if (v > SERIES_MAX_V) return inverse_mean_expansion(f, v);
    /* w = p(x) / p(m) at the mode m, so the terms are summed with their
     * total mass and the ratio taken at the end */
    double m = floor(v);
    double mass = 1.0, sum = 1.0 / (f + m), w = 1.0;
    /* upward from the mode: p(x + 1) = p(x) v / (x + 1) */
    for (double x = m + 1.0;; x += 1.0) {
        w *= v / x;
        double term = w / (f + x);
        mass += w;
        sum += term;
        if (w < 1e-17 * mass && term < 1e-17 * sum) break;
    }
    /* downward: p(x - 1) = p(x) x / v */
    w = 1.0;
    for (double x = m; x >= 1.0; x -= 1.0) {
        w *= x / v;
        double term = w / (f + x - 1.0);
        mass += w;
        sum += term;
        if (w < 1e-17 * mass && term < 1e-17 * sum) break;
    }
    return sum / mass;
}

void poisson_inverse_means(const double *f, const double *v, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) out[i] = poisson_inverse_mean(f[i], v[i]);
}
