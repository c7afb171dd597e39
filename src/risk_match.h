#ifndef EPIMASK_RISK_MATCH_H
#define EPIMASK_RISK_MATCH_H

#include <stddef.h>

/* Record-matching disclosure risk (methods vignette section 5). Plain C over column-major
 * arrays; nothing here calls R. */

/* The released data as the intruder sees them, with what the intruder has
 * estimated from them (regression of each unknown on the knowns). */
typedef struct {
    size_t n;                     /* released records = candidates */
    int n_known;
    const double *masked_known;   /* n x n_known */
    int n_unknown;
    const double *masked_unknown; /* n x n_unknown */
    const double *unknown_sd;     /* per unknown: residual SD sigma >= 0 */
    const double *unknown_range;  /* per unknown: Delta^U = max - min >= 0 */
} rm_released;

/* The targets: the intruder's true known values for each target person and
 * the predictive mean of each unknown at those values. */
typedef struct {
    size_t n_targets;
    const int *record;            /* 0-based index of the target's true record */
    const double *known;          /* n_targets x n_known */
    const double *pred_mean;      /* n_targets x n_unknown */
} rm_targets;

/* Per-target results, arrays of length n_targets. */
typedef struct {
    double *prob_true;            /* Pr(J = true record | t) */
    double *prob_max;             /* the largest Pr(J = j | t) */
    int *n_tied;                  /* c: records sharing the largest probability */
    int *correct;                 /* I: 1 if the true record is among them */
} rm_result;

/* Relative tolerance within which two matching probabilities tie. */
#define RM_TIE_TOL 1e-12

#define RM_INV_SQRT_2PI 0.398942280401432677939946059934
#define RM_INV_SQRT_2 0.707106781186547524400844362105
/* Beyond this many SDs the density and the tail area are below 2e-306 and
 * are taken as 0: computing them would only produce subnormal numbers, which
 * are slow and carry no information at double precision. */
#define RM_FAR 37.5

/* Fill the table of the normal tail (once; not thread-safe, so the first
 * call must come from serial code, before any parallel region). */
void rm_init(void);

/* The expectation in standard units: x0 = (a - mean) / sd, d = half_width /
 * sd, shrink = exp(-d^2 / 2); exactly the value the exhaustive loop computes
 * for a candidate (the search recomputes candidates with it). */
double rm_triangle_std(double x0, double d, double shrink);

/* E[(1 - |a - z| / half_width)_+] for z ~ N(mean, sd^2), in closed form.
 * sd = 0 gives the triangle at the mean; half_width = 0 gives 1 (the factor
 * carries no information). */
double rm_triangle_normal(double a, double mean, double sd, double half_width);

/* The exhaustive loop of methods vignette section 5 for target i: `score` is scratch of n
 * doubles. rm_init() must have been called from serial code. */
void rm_match_target(const rm_released *rel, const rm_targets *tg, size_t i,
                     double *score, rm_result *res);

#endif
