/* Loops that measure the machine for inst/bench/bench-irls.R (the physical
 * limits of one IRLS pass): a read of a long vector at memory bandwidth and
 * register-resident multiply-add chains at the flop rate of portable C at
 * R's default compiler flags. The caller times them. */
#include "machine_rates.h"

double rates_stream(const double *x, size_t len, int reps)
{
    /* 8 partial sums (4 pairs, 2-lane SSE2 registers at -O2): enough
     * independent additions that the loads, not the adds, set the pace */
    double total = 0.0;
    for (int k = 0; k < reps; k++) {
        double s[4][2] = { { 0 } };
        size_t i = 0;
        for (; i + 8 <= len; i += 8)
            for (int a = 0; a < 4; a++)
                for (int l = 0; l < 2; l++) s[a][l] += x[i + 2 * a + l];
        for (; i < len; i++) s[0][0] += x[i];
        for (int a = 0; a < 4; a++) total += s[a][0] + s[a][1];
    }
    return total;
}

double rates_madd(long steps)
{
    /* 8 x 2 independent chains s = s * m + c (one multiply and one add each,
     * 2 flops), the shape of the X'WX tiles' accumulators; m < 1 keeps the
     * values bounded */
    double s[8][2], m = 0.9999999, c = 1e-7;
    for (int a = 0; a < 8; a++)
        for (int l = 0; l < 2; l++) s[a][l] = (double) (a + l);
    for (long k = 0; k < steps; k++)
        for (int a = 0; a < 8; a++)
            for (int l = 0; l < 2; l++) s[a][l] = s[a][l] * m + c;
    double total = 0.0;
    for (int a = 0; a < 8; a++) total += s[a][0] + s[a][1];
    return total;
}
