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
    /* 8 x 2 accumulators s += a * b (one multiply and one add each, 2
     * flops), written as the X'WX tiles are (irls_linalg.c: 8 sums of 2
     * lanes, which the compiler keeps in SSE2 registers): the multiplies do
     * not depend on the accumulators, so the loop runs at the throughput of
     * the multiply and add units, not at their latency. a changes at every
     * step (a multiply of its own, not counted) so that no product can be
     * computed once for all steps; m < 1 keeps the values bounded. */
    double s[8][2] = { { 0 } }, a[2] = { 1.0, 1.0 + 1e-9 }, m = 0.9999999;
    const double b0 = 1e-7, b1 = 2e-7, b2 = 3e-7, b3 = 4e-7, b4 = 5e-7, b5 = 6e-7,
        b6 = 7e-7, b7 = 8e-7;
    for (long k = 0; k < steps; k++) {
        for (int l = 0; l < 2; l++) {
            s[0][l] += a[l] * b0;
            s[1][l] += a[l] * b1;
            s[2][l] += a[l] * b2;
            s[3][l] += a[l] * b3;
            s[4][l] += a[l] * b4;
            s[5][l] += a[l] * b5;
            s[6][l] += a[l] * b6;
            s[7][l] += a[l] * b7;
            a[l] *= m;
        }
    }
    double total = 0.0;
    for (int i = 0; i < 8; i++) total += s[i][0] + s[i][1];
    return total;
}
