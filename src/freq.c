#include <stdlib.h>
#include <stdint.h>
#include "freq.h"
#include "row_hash.h"

/* The one row-grouping engine of the package (frequencies, SUDA, local
 * suppression, the lattice's class tables, l-diversity and t-closeness all
 * group rows of code matrices here). Open addressing with linear probing
 * over row indices; the table holds the index of the first row of each
 * distinct key (or -1), so memory is O(n). */

/* Slot holding a row equal to `row` of `keys`, or the empty slot where it
 * belongs. `slot_row` maps slots to rows of `table_keys`. */
static size_t probe(const ptrdiff_t *slot_row, size_t mask,
                    const int *table_keys, size_t table_n,
                    const int *keys, size_t n, size_t row, int k)
{
    size_t s = (size_t) row_hash(keys, n, k, row) & mask;
    while (slot_row[s] >= 0 &&
           !rows_equal(table_keys, table_n, (size_t) slot_row[s], keys, n, row, k))
        s = (s + 1) & mask;
    return s;
}

/* When the ranges of the code columns multiply to less than 2^64, a row packs
 * into one 64-bit integer (mixed radix) and the table compares packed keys
 * without going back to the code matrix: far fewer cache misses on millions
 * of rows. Returns 1 and fills base/mult, or 0 when the product overflows. */
static int packing_radices(const int *codes, size_t n, size_t ld, int k,
                           int64_t *base, uint64_t *mult)
{
    uint64_t span = 1;
    for (int j = 0; j < k; j++) {
        const int *col = codes + (size_t) j * ld;
        int lo = col[0], hi = col[0];
        for (size_t i = 1; i < n; i++) {
            if (col[i] < lo) lo = col[i];
            if (col[i] > hi) hi = col[i];
        }
        uint64_t radix = (uint64_t) ((int64_t) hi - (int64_t) lo + 1);
        base[j] = lo;
        mult[j] = span;
        if (span > UINT64_MAX / radix) return 0;
        span *= radix;
    }
    return 1;
}

static uint64_t packed_row(const int *codes, size_t ld, int k, size_t row,
                           const int64_t *base, const uint64_t *mult)
{
    uint64_t key = 0;
    for (int j = 0; j < k; j++)
        key += (uint64_t) ((int64_t) codes[row + (size_t) j * ld] - base[j]) * mult[j];
    return key;
}

static int group_packed(const int *codes, size_t n, size_t ld, int k,
                        const int64_t *base, const uint64_t *mult,
                        int *group, int *first)
{
    size_t cap = row_table_capacity(n), mask = cap - 1;
    uint64_t *slot_key = malloc(cap * sizeof(uint64_t));
    int *slot_group = malloc(cap * sizeof(int));
    if (!slot_key || !slot_group) {
        free(slot_key);
        free(slot_group);
        return -1;
    }
    for (size_t s = 0; s < cap; s++) slot_group[s] = -1;

    int n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = packed_row(codes, ld, k, i, base, mult);
        size_t s = (size_t) mix64(key) & mask;
        while (slot_group[s] >= 0 && slot_key[s] != key) s = (s + 1) & mask;
        if (slot_group[s] < 0) {
            slot_key[s] = key;
            slot_group[s] = n_groups;
            if (first) first[n_groups] = (int) i;
            n_groups++;
        }
        group[i] = slot_group[s];
    }
    free(slot_key);
    free(slot_group);
    return n_groups;
}

static int group_unpacked(const int *codes, size_t n, size_t ld, int k, int *group,
                          int *first)
{
    size_t cap = row_table_capacity(n), mask = cap - 1;
    ptrdiff_t *slot_row = malloc(cap * sizeof(ptrdiff_t));
    int *slot_group = malloc(cap * sizeof(int));
    if (!slot_row || !slot_group) {
        free(slot_row);
        free(slot_group);
        return -1;
    }
    for (size_t s = 0; s < cap; s++) slot_row[s] = -1;

    int n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = probe(slot_row, mask, codes, ld, codes, ld, i, k);
        if (slot_row[s] < 0) {
            slot_row[s] = (ptrdiff_t) i;
            slot_group[s] = n_groups;
            if (first) first[n_groups] = (int) i;
            n_groups++;
        }
        group[i] = slot_group[s];
    }
    free(slot_row);
    free(slot_group);
    return n_groups;
}

int freq_group_rows(const int *codes, size_t n, size_t ld, int k, int *group, int *first)
{
    if (n == 0) return 0;
    int64_t *base = malloc((size_t) (k > 0 ? k : 1) * sizeof(int64_t));
    uint64_t *mult = malloc((size_t) (k > 0 ? k : 1) * sizeof(uint64_t));
    if (!base || !mult) {
        free(base);
        free(mult);
        return -1;
    }
    int n_groups = packing_radices(codes, n, ld, k, base, mult)
        ? group_packed(codes, n, ld, k, base, mult, group, first)
        : group_unpacked(codes, n, ld, k, group, first);
    free(base);
    free(mult);
    return n_groups;
}

int freq_group(const int *codes, size_t n, int k, int *group, int *size)
{
    int n_groups = freq_group_rows(codes, n, n, k, group, NULL);
    if (n_groups < 0) return n_groups;
    for (int g = 0; g < n_groups; g++) size[g] = 0;
    for (size_t i = 0; i < n; i++) size[group[i]]++;
    return n_groups;
}

int freq_match_count(const int *ref, size_t nref, const int *qry, size_t nqry,
                     int k, int *count)
{
    size_t cap = row_table_capacity(nref), mask = cap - 1;
    ptrdiff_t *slot_row = malloc(cap * sizeof(ptrdiff_t));
    int *slot_count = malloc(cap * sizeof(int));
    if (!slot_row || !slot_count) {
        free(slot_row);
        free(slot_count);
        return -1;
    }
    for (size_t s = 0; s < cap; s++) {
        slot_row[s] = -1;
        slot_count[s] = 0;
    }
    for (size_t i = 0; i < nref; i++) {
        size_t s = probe(slot_row, mask, ref, nref, ref, nref, i, k);
        if (slot_row[s] < 0) slot_row[s] = (ptrdiff_t) i;
        slot_count[s]++;
    }
    for (size_t i = 0; i < nqry; i++) {
        size_t s = probe(slot_row, mask, ref, nref, qry, nqry, i, k);
        count[i] = slot_row[s] < 0 ? 0 : slot_count[s];
    }
    free(slot_row);
    free(slot_count);
    return 0;
}
