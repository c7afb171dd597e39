#ifndef EPIMASK_PAR_ROWS_H
#define EPIMASK_PAR_ROWS_H

#include <stddef.h>

/* One OpenMP policy for every long loop of the C core whose rows are
 * independent (kernel smoothing, matching risk).
 *
 * Why: a loop cut into many short parallel regions (one per block of rows,
 * with an interrupt check between blocks) pays one barrier per region, and on
 * a shared machine each barrier waits for the slowest thread. When another
 * process holds a core, that thread is descheduled and the barrier costs a
 * scheduler time slice (milliseconds): thousands of regions then cost tens of
 * seconds while one thread does all the work. Block sizes derived from n (or
 * from timing on a loaded machine) make the number of regions, and so the
 * cost, grow faster than n.
 *
 * The remedy: rows are handed out in small chunks by an atomic counter inside
 * ONE parallel region, so a thread that loses its core simply takes fewer
 * chunks; the region ends only when a fixed amount of WORK (counted by the
 * row function, not measured in time) has been done, so the caller can check
 * for an interrupt between regions. The number of regions is then about
 * total work / budget whatever the load, and each costs at most one barrier.
 *
 * On a shared machine, more: Linux gives CPU time to sessions (autogroups)
 * or cgroups, not to threads, so when other sessions keep the cores busy
 * the threads of one session share the time one thread would get, and each
 * of their waits costs a time slice. Three rules (measured in
 * inst/bench/bench-threads.R):
 * - Waits are passive: a thread that finds no more chunks waits for the
 *   last ones by sleeping (after 20 us of polling), not at the region's
 *   closing barrier, where the OpenMP runtime spins for milliseconds and
 *   takes the CPU time of the very thread it waits for.
 * - A helper thread (not the first) that, over 10 ms or more, was on a
 *   core less than 60% of the time (its own CPU clock against the wall
 *   clock) stops taking chunks and leaves the work to the others.
 * - The governor: a region of 10 ms or more whose threads got less than
 *   1.25 cores of CPU time (or lost a helper) makes the regions of the next
 *   second run on one thread, without entering OpenMP; then threads are
 *   tried again (after 2, 4, ... 16 s when the verdicts repeat). On an idle
 *   machine threads are always used.
 * One thread never enters the OpenMP runtime. Which thread does which chunk
 * never changes a result when the row function writes by row. */

/* Work done for `row` by `thread` (0-based), in the caller's units. */
typedef double (*par_row_fn)(void *ctx, size_t row, int thread);

/* Run fn on rows [from, to) with up to nthreads threads, chunk rows at a time,
 * until the rows are exhausted or the work reported reaches `budget`. Returns
 * the first row not started: every row in [from, return value) is done. */
size_t par_rows(size_t from, size_t to, size_t chunk, double budget,
                int nthreads, par_row_fn fn, void *ctx);


/* What a region got: threads started, how many left the work early, its
 * wall-clock seconds and the CPU seconds of its threads inside it (negative
 * when the platform has no thread CPU clock): cpu / wall is the number of
 * cores it got. */
typedef struct {
    int threads, left;
    double wall, cpu;
} par_stats;

/* flags of par_rows_run: threads as asked, no helper leaves, the governor
 * neither consulted nor updated (tests of the results' independence from
 * the assignment of chunks to threads) */
#define PAR_FORCE_THREADS 1

/* par_rows with flags, filling *stats (may be NULL). */
size_t par_rows_run(size_t from, size_t to, size_t chunk, double budget,
                    int nthreads, par_row_fn fn, void *ctx, int flags, par_stats *stats);

/* Tests: on != 0 makes every region run as with PAR_FORCE_THREADS, so that
 * a test of 1 against several threads uses them on a loaded machine too.
 * Returns the former setting. */
int par_force_threads(int on);

/* Forget the governor's verdict (regions use their threads again). */
void par_reset_governor(void);

/* CPU seconds used so far by the calling thread (a negative value where the
 * platform has no per-thread CPU clock), and wall-clock seconds (negative
 * when unknown). */
double par_thread_cpu(void);
double par_wall(void);

#endif
