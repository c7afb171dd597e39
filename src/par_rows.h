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
 * A thread that finds no more chunks waits for the others by sleeping in
 * short steps (par_pause), not at the region's closing barrier, where the
 * OpenMP runtime spins for milliseconds: on a machine whose other core is
 * busy, the spinning thread takes the CPU time of the very thread it waits
 * for (measured in inst/bench/bench-threads.R). One thread never enters the
 * OpenMP runtime. */

/* Work done for `row` by `thread` (0-based), in the caller's units. */
typedef double (*par_row_fn)(void *ctx, size_t row, int thread);

/* Run fn on rows [from, to) with up to nthreads threads, chunk rows at a time,
 * until the rows are exhausted or the work reported reaches `budget`. Returns
 * the first row not started: every row in [from, return value) is done. */
size_t par_rows(size_t from, size_t to, size_t chunk, double budget,
                int nthreads, par_row_fn fn, void *ctx);


/* Sleeps about 0.1 ms at most: a passive wait step between polls. */
void par_pause(void);

/* CPU seconds used so far by the calling thread (a negative value where the
 * platform has no per-thread CPU clock), and wall-clock seconds (negative
 * when unknown). Used to see whether threads got CPU time of their own. */
double par_thread_cpu(void);
double par_wall(void);

#endif
