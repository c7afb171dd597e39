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

/* Polling before a wait turns to sleeps, and the longest sleep between two
 * polls (the sleeps double from about 50 microseconds). */
#define PAR_SPIN_SECONDS 2e-5
#define PAR_SLEEP_MAX_NS 1000000L
/* A region judges the cores it got only when it lasted PAR_PROBE_SECONDS;
 * a helper thread leaves the work when, over at least that long, it was on
 * a core less than PAR_MIN_SHARE of the time. */
#define PAR_PROBE_SECONDS 0.01
#define PAR_MIN_SHARE 0.6
/* Threads are kept when a region got at least PAR_CORES_TO_KEEP cores;
 * otherwise regions run on one thread for a while: PAR_RETRY_SECONDS after
 * the first such verdict, twice as long after each further one in a row,
 * PAR_RETRY_MAX_SECONDS at most (so a long load costs few trials, and a
 * core that comes free is used again within that time). */
#define PAR_CORES_TO_KEEP 1.25
#define PAR_RETRY_SECONDS 1.0
#define PAR_RETRY_MAX_SECONDS 16.0

/* The governor: wall-clock time until which regions run on one thread, and
 * the length of the next such period. par_rows is called from R's main
 * thread only, never from inside a region, so these need no lock. */
static double one_thread_until = -1.0;
static double retry_seconds = PAR_RETRY_SECONDS;
/* tests: every region as with PAR_FORCE_THREADS (par_force_threads) */
static int force_all = 0;

int par_force_threads(int on)
{
    int was = force_all;
    force_all = on != 0;
    return was;
}

static void par_sleep(long ns)
{
#ifdef _WIN32
    (void) ns;
    Sleep(0);
#else
    struct timespec ts = { 0, ns };
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

void par_reset_governor(void)
{
    one_thread_until = -1.0;
    retry_seconds = PAR_RETRY_SECONDS;
}

size_t par_rows(size_t from, size_t to, size_t chunk, double budget,
                int nthreads, par_row_fn fn, void *ctx)
{
    return par_rows_run(from, to, chunk, budget, nthreads, fn, ctx, 0, NULL);
}

size_t par_rows_run(size_t from, size_t to, size_t chunk, double budget,
                    int nthreads, par_row_fn fn, void *ctx, int flags, par_stats *stats)
{
    size_t next = from;
    double done = 0.0, cpu_sum = 0.0;
    int stop = 0, active = 0, left_team = 0, clocks = 1;
    int forced = (flags & PAR_FORCE_THREADS) != 0 || force_all;
    if (stats) { stats->threads = 1; stats->left = 0; stats->wall = stats->cpu = -1.0; }
    if (chunk < 1) chunk = 1;
    if (nthreads < 1) nthreads = 1;
    if (to <= from) return to;
    /* no more threads than chunks: an idle thread only adds a barrier */
    size_t chunks = (to - from + chunk - 1) / chunk;
    if ((size_t) nthreads > chunks) nthreads = (int) chunks;
    double wall0 = par_wall();
    if (nthreads > 1 && !forced && wall0 >= 0.0 && wall0 < one_thread_until) nthreads = 1;
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
        double cpu0 = par_thread_cpu(), join = par_wall();
        int measured = cpu0 >= 0.0 && join >= 0.0, gone = 0;
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
            /* a helper thread that is on a core too little of the time
             * (it shares the core with another process, or with a thread
             * of this team) leaves the work to the others */
            if (thread > 0 && measured && !forced) {
                double spent = par_wall() - join;
                if (spent >= PAR_PROBE_SECONDS &&
                    par_thread_cpu() - cpu0 < PAR_MIN_SHARE * spent) {
                    gone = 1;
                    break;
                }
            }
        }
        double mine = measured ? par_thread_cpu() - cpu0 : 0.0;
#ifdef _OPENMP
#pragma omp atomic update
#endif
        cpu_sum += mine;
        if (!measured) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            clocks = 0;
        }
        if (gone) {
#ifdef _OPENMP
#pragma omp atomic update
#endif
            left_team++;
        } else {
            /* The last chunks are waited for by sleeping, not at the
             * region's closing barrier: there the OpenMP runtime spins (GCC's
             * libgomp for milliseconds unless OMP_WAIT_POLICY=passive), and
             * on a shared machine the spinning thread takes the CPU time of
             * the thread it waits for (the scheduler shares time between
             * sessions, not threads). A thread that left the work goes to
             * the barrier at once instead: its wait may be long, and polls
             * would wake it again and again. */
            double since = -1.0;
            long sleep_ns = 50000;
            for (;;) {
                int busy;
#ifdef _OPENMP
#pragma omp atomic read
#endif
                busy = active;
                if (busy == 0) break;
                double now = par_wall();
                if (since < 0.0) since = now;
                if (now >= 0.0 && now - since <= PAR_SPIN_SECONDS) continue;
                par_sleep(sleep_ns);
                if (sleep_ns < PAR_SLEEP_MAX_NS) sleep_ns *= 2;
            }
        }
    }
    double wall = wall0 >= 0.0 ? par_wall() - wall0 : -1.0;
    double cpu = clocks ? cpu_sum : -1.0;
    /* the governor: a region long enough to judge that got too little of
     * the cores sends the next ones to one thread for a while */
    if (!forced && wall >= PAR_PROBE_SECONDS && cpu >= 0.0) {
        if (left_team > 0 || cpu < PAR_CORES_TO_KEEP * wall) {
            one_thread_until = wall0 + wall + retry_seconds;
            retry_seconds = retry_seconds * 2.0 < PAR_RETRY_MAX_SECONDS
                ? retry_seconds * 2.0 : PAR_RETRY_MAX_SECONDS;
        } else {
            par_reset_governor();
        }
    }
    if (stats) {
        stats->threads = nthreads;
        stats->left = left_team;
        stats->wall = wall;
        stats->cpu = cpu;
    }
    return next < to ? next : to;
}
