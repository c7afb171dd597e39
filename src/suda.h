#ifndef EPIMASK_SUDA_H
#define EPIMASK_SUDA_H

#include <stddef.h>
#include <stdint.h>

/* Minimal sample uniques (MSUs) by the recursive search of SUDA2 (Manning,
 * Haglin & Keane 2008), methods vignette section 14. Keys arrive as n x A column-major
 * integer codes 1..K_a (NA a code of its own), A <= 64.
 *
 * msu_count: n x max_k (column-major), the number of MSUs of each size per
 * record; attr_count: A x max_k, the number of MSUs of each size containing
 * each key. interrupted() is polled between sub-searches; a non-zero answer
 * stops the search. cache_after: when the scans for the "seen twice" check
 * of one key set have visited cache_after x n records, its answers for all
 * records are hashed once and kept (see suda.c; < 0: always scan, the plain
 * SUDA2 check; 0: at once). pack_bits (<= 64): key sets whose codes take
 * at most that many bits are packed and radix sorted, others hashed. The
 * MSUs depend on neither.
 * Returns 0, -1 when memory ran out, -2 when interrupted. */
int suda_search(const int *codes, int n, int A, int max_k, double cache_after, int pack_bits,
                int *msu_count, double *attr_count, int (*interrupted)(void));

#endif
