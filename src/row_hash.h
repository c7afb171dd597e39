#ifndef EPIMASK_ROW_HASH_H
#define EPIMASK_ROW_HASH_H

/* Hashing rows of an integer code matrix (column-major, leading dimension
 * ld): the pieces of the grouping engine of freq.c, shared with the hash
 * tables of suppress.c. A 64-bit finalizer mix (MurmurHash3's fmix64) per
 * column. */

#include <stddef.h>
#include <stdint.h>

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t row_hash(const int *codes, size_t ld, int ncol, size_t row)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int j = 0; j < ncol; j++)
        h = mix64(h ^ (uint64_t)(uint32_t) codes[row + (size_t) j * ld]) + (uint64_t) j;
    return h;
}

/* Row ra of a (leading dimension lda) equals row rb of b (ldb) on k columns. */
static inline int rows_equal(const int *a, size_t lda, size_t ra,
                             const int *b, size_t ldb, size_t rb, int k)
{
    for (int j = 0; j < k; j++)
        if (a[ra + (size_t) j * lda] != b[rb + (size_t) j * ldb]) return 0;
    return 1;
}

/* Slots of an open-addressing table for n keys: a power of two >= 2n
 * (>= 16), so that the load stays at or below one half. */
static inline size_t row_table_capacity(size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    return cap;
}

#endif
