/* Chunked rows in one parallel region with a work budget (see par_rows.h). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif
#include "par_rows.h"

/* polling before the waits turn to sleeps */
#define PAR_SPIN_SECONDS 2e-5

void par_pause(void)
{
#ifdef _WIN32
    Sleep(0);
#else
    /* 20 microseconds asked; the kernel's timer slack (50 us by default on
     * Linux) makes it about 70 */
    struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
#endif
}

double par_thread_cpu(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID) && !defined(_WIN32)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
#endif
    return -1.0;
}

double par_wall(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#elif defined(CLOCK_MONOTONIC) && !defined(_WIN32)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
#else
    return -1.0;
#endif
}

size_t par_rows(size_t from, size_t to, size_t chunk, double budget,
                int nthreads, par_row_fn fn, void *ctx)
{
    size_t next = from;
    double done = 0.0;
    int stop = 0, active = 0;
    if (chunk < 1) chunk = 1;
    if (nthreads < 1) nthreads = 1;
    if (to <= from) return to;
    /* no more threads than chunks: an idle thread only adds a barrier */
    size_t chunks = (to - from + chunk - 1) / chunk;
    if ((size_t) nthreads > chunks) nthreads = (int) chunks;
    if (nthreads == 1) {
        /* one thread: the OpenMP runtime is not entered (a region, even of
         * one thread, keeps the runtime's idle threads spinning) */
        while (next < to && done < budget) {
            size_t end = to - next > chunk ? next + chunk : to;
            for (size_t row = next; row < end; row++) done += fn(ctx, row, 0);
            next = end;
        }
        return next;
    }
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
            /* counted as active before the claim, so a thread that finds
             * no more chunks never misses one still being worked on */
#ifdef _OPENMP
#pragma omp atomic update
#endif
            active++;
            size_t start;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
            { start = next; next += chunk; }
            if (start < to) {
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
#ifdef _OPENMP
#pragma omp atomic update
#endif
            active--;
            if (start >= to) break;
        }
        /* Wait for the chunks still being worked on by sleeping, not at the
         * region's closing barrier: there the OpenMP runtime spins (GCC's
         * libgomp for up to about 300,000 rounds, milliseconds, unless
         * OMP_WAIT_POLICY=passive), and on a shared machine the spinning
         * thread takes the CPU time of the thread it waits for (the
         * scheduler shares time between sessions, not threads). */
        double since = -1.0;
        for (;;) {
            int left;
#ifdef _OPENMP
#pragma omp atomic read
#endif
            left = active;
            if (left == 0) break;
            /* a few microseconds of polling first: on an idle machine the
             * last chunk is usually about to end */
            double now = par_wall();
            if (since < 0.0) since = now;
            if (now < 0.0 || now - since > PAR_SPIN_SECONDS) par_pause();
        }
    }
    return next < to ? next : to;
}
