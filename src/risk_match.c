#include <math.h>
#include "risk_match.h"

/* The standard normal density from exp() and tail areas from the Mills
 * ratio R(x) = Pr(Z > x) / phi(x) (pure code, safe in threads). R is smooth
 * and slowly varying on [0, inf), so a table of its Taylor coefficients on a
 * grid of step 1/32, filled once from the C99 erfc, gives R to about 1e-16
 * relative by a short polynomial: tail = phi(x) R(|x|) costs no erfc() call,
 * and the phi(x) it needs is computed anyway. Each of the three points of the
 * triangle needs one tail area, on its own side of 0, so that differences of
 * small tails keep their relative precision far from the mean. */
/* Beyond this many SDs a tail area is below 1e-17 and vanishes in 1 - tail. */
#define RM_NEGLIGIBLE 8.5

#define MILLS_STEPS 32                        /* grid points per unit */
#define MILLS_DEGREE 7                        /* |x - grid| <= 1/64: error < 2e-17 */
#define MILLS_POINTS (38 * MILLS_STEPS + 2)
static double mills_coef[MILLS_POINTS][MILLS_DEGREE + 1];   /* one cache line each */
static int mills_ready = 0;

/* Taylor coefficients R^(n)(x) / n! at each grid point, from R' = x R - 1 and
 * R^(n+1) = x R^(n) + n R^(n-1) (n >= 1). */
void rm_init(void)
{
    if (mills_ready) return;
    for (int k = 0; k < MILLS_POINTS; k++) {
        double x = (double) k / MILLS_STEPS, deriv[MILLS_DEGREE + 1];
        deriv[0] = 0.5 * erfc(x * RM_INV_SQRT_2) /
                   (RM_INV_SQRT_2PI * exp(-0.5 * x * x));
        deriv[1] = x * deriv[0] - 1.0;
        for (int n = 1; n < MILLS_DEGREE; n++)
            deriv[n + 1] = x * deriv[n] + n * deriv[n - 1];
        double factorial = 1.0;
        for (int n = 0; n <= MILLS_DEGREE; n++) {
            if (n > 1) factorial *= n;
            mills_coef[k][n] = deriv[n] / factorial;
        }
    }
    mills_ready = 1;
}

/* R(x) for 0 <= x <= RM_FAR + 1/64; Estrin's scheme keeps the dependency
 * chain short. */
static inline double mills_ratio(double x)
{
    int k = (int) (x * MILLS_STEPS + 0.5);
    double h = x - (double) k / MILLS_STEPS, h2 = h * h;
    const double *c = mills_coef[k];
    double p01 = c[0] + c[1] * h, p23 = c[2] + c[3] * h;
    double p45 = c[4] + c[5] * h, p67 = c[6] + c[7] * h;
    return (p01 + h2 * p23) + (h2 * h2) * (p45 + h2 * p67);
}

static inline double density(double x)
{
    return fabs(x) > RM_FAR ? 0.0 : RM_INV_SQRT_2PI * exp(-0.5 * x * x);
}

/* Pr(Z > |x|) given phi(x); `beside_one` says the caller only needs it in
 * 1 - tail. */
static inline double outer_tail(double x, double phi, int beside_one)
{
    double ax = fabs(x);
    if (ax > RM_FAR || (beside_one && ax > RM_NEGLIGIBLE)) return 0.0;
    return phi * mills_ratio(ax);
}

/* Pr(lo < Z < hi) for lo <= hi, from the outer tails at lo and hi. */
static inline double between(double lo, double tail_lo, double hi, double tail_hi)
{
    if (lo >= 0) return tail_lo - tail_hi;
    if (hi <= 0) return tail_hi - tail_lo;
    return 1.0 - tail_lo - tail_hi;
}

/* The expectation in standard units: the triangle is (u - x1) / d on [x1, x0]
 * and (x2 - u) / d on [x0, x2], x1 = x0 - d, x2 = x0 + d. Integrating
 * u phi(u) = -phi'(u):
 *   d E = phi(x1) - 2 phi(x0) + phi(x2) + x2 [Phi(x2) - Phi(x0)] - x1 [Phi(x0) - Phi(x1)].
 * When all three points are near the mean, phi(x0 -+ d) = phi(x0) exp(+-x0 d)
 * exp(-d^2 / 2) saves two exp() calls; `shrink` = exp(-d^2 / 2) is passed in
 * because it is the same for every candidate. Rounding errors are absolute,
 * of order eps (|x0| + d) / d, so the result is clamped to [0, 1]. */
static inline double triangle_std(double x0, double d, double shrink)
{
    double x1 = x0 - d, x2 = x0 + d;
    if (x1 > RM_FAR || x2 < -RM_FAR) return 0.0;
    double phi0 = density(x0), phi1, phi2;
    double tilt = x0 * d;
    if (fabs(x1) <= RM_FAR && fabs(x2) <= RM_FAR && shrink > 1e-300 &&
        fabs(tilt) < 600.0 && phi0 > 0) {
        double up = exp(tilt);
        phi1 = phi0 * up * shrink;
        phi2 = phi0 / up * shrink;
    } else {
        phi1 = density(x1);
        phi2 = density(x2);
    }
    double t0 = outer_tail(x0, phi0, 0);
    double t1 = outer_tail(x1, phi1, x1 < 0 && x0 > 0);
    double t2 = outer_tail(x2, phi2, x0 < 0 && x2 > 0);
    double e = phi1 - 2.0 * phi0 + phi2 + x2 * between(x0, t0, x2, t2) -
               x1 * between(x1, t1, x0, t0);
    e /= d;
    if (!(e > 0)) return 0.0;
    return e > 1.0 ? 1.0 : e;
}

double rm_triangle_std(double x0, double d, double shrink)
{
    return triangle_std(x0, d, shrink);
}

double rm_triangle_normal(double a, double mean, double sd, double half_width)
{
    rm_init();
    if (!(half_width > 0)) return 1.0;
    if (!(sd > 0)) {
        double v = 1.0 - fabs(a - mean) / half_width;
        return v > 0 ? v : 0.0;
    }
    double d = half_width / sd;
    return triangle_std((a - mean) / sd, d, exp(-0.5 * d * d));
}

/* Unnormalised matching probability of every candidate for one target:
 * p^A_j p^U_j (methods vignette section 5). */
static void target_scores(const rm_released *rel, const rm_targets *tg,
                          size_t i, double *score)
{
    size_t n = rel->n;
    for (size_t j = 0; j < n; j++) score[j] = 1.0;

    for (int v = 0; v < rel->n_known; v++) {
        const double *col = rel->masked_known + (size_t) v * n;
        double t = tg->known[i + (size_t) v * tg->n_targets];
        double far = 0.0, near = INFINITY;
        for (size_t j = 0; j < n; j++) {
            double dist = fabs(col[j] - t);
            if (dist > far) far = dist;
            if (dist < near) near = dist;
        }
        /* Every candidate at the same distance (Delta = 0 included): the
         * factor is the same for all and carries no information. */
        if (!(far > near)) continue;
        double inv_far = 1.0 / far;
        for (size_t j = 0; j < n; j++) {
            double dist = fabs(col[j] - t);
            /* the farthest candidates get exactly 0, as dist / far = 1 would */
            double f = dist >= far ? 0.0 : 1.0 - dist * inv_far;
            score[j] *= f > 0 ? f : 0.0;
        }
    }

    for (int u = 0; u < rel->n_unknown; u++) {
        const double *col = rel->masked_unknown + (size_t) u * n;
        double mean = tg->pred_mean[i + (size_t) u * tg->n_targets];
        double sd = rel->unknown_sd[u], range = rel->unknown_range[u];
        if (!(range > 0)) continue;
        if (!(sd > 0)) {
            for (size_t j = 0; j < n; j++)
                if (score[j] > 0)
                    score[j] *= rm_triangle_normal(col[j], mean, sd, range);
            continue;
        }
        double d = range / sd, shrink = exp(-0.5 * d * d), inv_sd = 1.0 / sd;
        for (size_t j = 0; j < n; j++)
            if (score[j] > 0)
                score[j] *= triangle_std((col[j] - mean) * inv_sd, d, shrink);
    }
}

static void summarise_target(const double *score, size_t n, size_t truth,
                             double *prob_true, double *prob_max, int *n_tied,
                             int *correct)
{
    double sum = 0.0, best = 0.0;
    for (size_t j = 0; j < n; j++) {
        sum += score[j];
        if (score[j] > best) best = score[j];
    }
    if (!(best > 0) || !isfinite(sum)) {
        /* No candidate has positive probability: no preference, all tie. */
        *prob_true = *prob_max = 1.0 / (double) n;
        *n_tied = (int) n;
        *correct = 1;
        return;
    }
    double cut = best * (1.0 - RM_TIE_TOL);
    int tied = 0;
    for (size_t j = 0; j < n; j++)
        if (score[j] >= cut) tied++;
    *prob_true = score[truth] / sum;
    *prob_max = best / sum;
    *n_tied = tied;
    *correct = score[truth] >= cut;
}

void rm_match_target(const rm_released *rel, const rm_targets *tg, size_t i,
                     double *score, rm_result *res)
{
    target_scores(rel, tg, i, score);
    summarise_target(score, rel->n, (size_t) tg->record[i], res->prob_true + i,
                     res->prob_max + i, res->n_tied + i, res->correct + i);
}
