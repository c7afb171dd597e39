#ifndef EPIMASK_ROW_HASH_H
#define EPIMASK_ROW_HASH_H

/* Hashing rows of an integer code matrix (column-major, leading dimension
 * ld), shared by the frequency counts (freq.c) and the lattice class counts
 * (lattice.c). A 64-bit finalizer mix (MurmurHash3's fmix64) per column. */

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

#endif
