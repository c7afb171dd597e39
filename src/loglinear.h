#ifndef EPIMASK_LOGLINEAR_H
#define EPIMASK_LOGLINEAR_H

#include <stddef.h>

/* Log-linear risk (methods vignette section 22): E(1 / F | f) when F - f is Poisson(v), the
 * probability that an intruder's match of a record seen f times in the
 * sample is correct, E(1 / (f + X)), X ~ Poisson(v). */
double poisson_inverse_mean(double f, double v);

/* the same for n cells (f[i], v[i]) into out[i] */
void poisson_inverse_means(const double *f, const double *v, size_t n, double *out);

#endif
