#ifndef EPIMASK_INDIVIDUAL_H
#define EPIMASK_INDIVIDUAL_H

#include <stddef.h>

/* Individual re-identification risk under sampling (methods vignette section 13): for a key
 * pattern seen f times in the sample whose weights add up to F_hat >= f,
 * r = E(1 / F | f) under the negative-binomial posterior with p = f / F_hat.
 * Returns r, accurate to a few units in the last place for every f >= 1. */
double reid_expected_inverse(double f, double F_hat);

/* r for n patterns (f[i], F_hat[i]) into out[i]. */
void reid_risk(const double *f, const double *F_hat, size_t n, double *out);

#endif
