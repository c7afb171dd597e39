#ifndef EPIMASK_MACHINE_RATES_H
#define EPIMASK_MACHINE_RATES_H

#include <stddef.h>

/* Benchmark loops (inst/bench/bench-irls.R); the caller times them. */

/* Reads x[0..len) reps times; returns the sum (so the reads are not
 * optimised away). */
double rates_stream(const double *x, size_t len, int reps);

/* steps x 16 multiply-adds (32 flops) into accumulators held in
 * registers; returns their sum. */
double rates_madd(long steps);

#endif
