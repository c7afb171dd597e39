/* Chunked rows in one parallel region with a work budget (see par_rows.h). */
#ifdef _OPENMP
#include <omp.h>
#endif
#include "par_rows.h"

size_t par_rows(size_t from, size_t to, size_t chunk, double budget,
                int nthreads, par_row_fn fn, void *ctx)
{
    size_t next = from;
    double done = 0.0;
    int stop = 0;
    if (chunk < 1) chunk = 1;
    if (nthreads < 1) nthreads = 1;
    if (to <= from) return to;
    /* no more threads than chunks: an idle thread only adds a barrier */
    size_t chunks = (to - from + chunk - 1) / chunk;
    if ((size_t) nthreads > chunks) nthreads = (int) chunks;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
    {
        int thread = 0;
#ifdef _OPENMP
        thread = omp_get_thread_num();
#endif
        for (;;) {
            int halt;
#ifdef _OPENMP
#pragma omp atomic read
#endif
            halt = stop;
            if (halt) break;
            size_t start;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
            { start = next; next += chunk; }
            if (start >= to) break;
            size_t end = to - start > chunk ? start + chunk : to;
            double work = 0.0;
            for (size_t row = start; row < end; row++) work += fn(ctx, row, thread);
            double total;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
            { done += work; total = done; }
            if (total >= budget) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                stop = 1;
            }
        }
    }
    return next < to ? next : to;
}
