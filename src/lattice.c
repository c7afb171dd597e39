/* Class counts for the generalization lattice (METHODS 16): grouping of code
 * rows, roll-up of a finer node's class table to a coarser node, and the
 * l-diversity / t-closeness figures of each class (METHODS 12). Plain C over
 * arrays; the search itself lives in R/generalize-ola.R. */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "lattice.h"
#include "row_hash.h"


static int rows_equal(const int *codes, size_t ld, int ncol, size_t a, size_t b)
{
    for (int j = 0; j < ncol; j++)
        if (codes[a + (size_t) j * ld] != codes[b + (size_t) j * ld]) return 0;
    return 1;
}

int lattice_group(const int *codes, size_t n, size_t ld, int ncol,
                  const double *weight, int *group, double *size, int *first)
{
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    int *table = malloc(cap * sizeof(int));
    if (!table) return -1;
    for (size_t i = 0; i < cap; i++) table[i] = -1;
    size_t mask = cap - 1;
    int n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        size_t slot = (size_t) row_hash(codes, ld, ncol, i) & mask;
        for (;;) {
            int g = table[slot];
            if (g < 0) {
                table[slot] = n_groups;
                first[n_groups] = (int) i;
                size[n_groups] = 0.0;
                group[i] = n_groups++;
                break;
            }
            if (rows_equal(codes, ld, ncol, (size_t) first[g], i)) {
                group[i] = g;
                break;
            }
            slot = (slot + 1) & mask;
        }
        size[group[i]] += weight ? weight[i] : 1.0;
    }
    free(table);
    return n_groups;
}

static uint64_t buffer_hash(const int *row, int ncol)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int j = 0; j < ncol; j++)
        h = mix64(h ^ (uint64_t)(uint32_t) row[j]) + (uint64_t) j;
    return h;
}

/* One pass over the finer table: each row is recoded into a small buffer,
 * hashed, and merged into its group. Group representatives are kept row by
 * row (one contiguous block per group) and the table keeps 32 bits of each
 * hash, so that a probe touches few cache lines even for a million rows. */
int lattice_rollup(const int *codes, const double *count, size_t n, int ncol,
                   const int *const *maps, const int *map_len,
                   int *out_codes, double *out_count)
{
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    size_t mask = cap - 1;
    int *table = malloc(cap * sizeof(int));
    uint32_t *tags = malloc(cap * sizeof(uint32_t));
    int *rep = malloc((n > 0 ? n : 1) * (size_t) (ncol > 0 ? ncol : 1) * sizeof(int));
    int *row = malloc((size_t) (ncol > 0 ? ncol : 1) * sizeof(int));
    if (!table || !tags || !rep || !row) {
        free(table); free(tags); free(rep); free(row);
        return -1;
    }
    for (size_t i = 0; i < cap; i++) table[i] = -1;
    int n_groups = 0, status = 0;
    for (size_t i = 0; i < n && status == 0; i++) {
        for (int j = 0; j < ncol; j++) {
            int c = codes[i + (size_t) j * n];
            if (maps[j]) {
                if (c < 1 || c > map_len[j]) {
                    status = -2;
                    break;
                }
                c = maps[j][c - 1];
            }
            row[j] = c;
        }
        if (status) break;
        uint64_t h = buffer_hash(row, ncol);
        uint32_t tag = (uint32_t) (h >> 32);
        size_t slot = (size_t) h & mask;
        for (;;) {
            int g = table[slot];
            if (g < 0) {
                table[slot] = n_groups;
                tags[slot] = tag;
                memcpy(rep + (size_t) n_groups * ncol, row, (size_t) ncol * sizeof(int));
                out_count[n_groups++] = count[i];
                break;
            }
            if (tags[slot] == tag &&
                memcmp(rep + (size_t) g * ncol, row, (size_t) ncol * sizeof(int)) == 0) {
                out_count[g] += count[i];
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    if (status == 0) {
        for (int j = 0; j < ncol; j++)
            for (size_t g = 0; g < (size_t) n_groups; g++)
                out_codes[g + (size_t) j * n_groups] = rep[g * ncol + j];
    }
    free(table); free(tags); free(rep); free(row);
    return status ? status : n_groups;
}

int lattice_diversity(const int *cls, const int *s, const double *count,
                      size_t n, int n_classes, int m, const double *q,
                      int ordered, double *distinct, double *entropy_l,
                      double *emd)
{
    /* rows sorted by class with a counting sort, then one dense histogram
     * reused class after class */
    int *start = calloc((size_t) n_classes + 1, sizeof(int));
    int *order = malloc((n > 0 ? n : 1) * sizeof(int));
    double *hist = calloc((size_t) m + 1, sizeof(double));
    int *touched = malloc(((size_t) m + 1) * sizeof(int));
    if (!start || !order || !hist || !touched) {
        free(start); free(order); free(hist); free(touched);
        return -1;
    }
    for (size_t i = 0; i < n; i++) start[cls[i] + 1]++;
    for (int c = 0; c < n_classes; c++) start[c + 1] += start[c];
    int *fill = malloc(((size_t) n_classes + 1) * sizeof(int));
    if (!fill) {
        free(start); free(order); free(hist); free(touched);
        return -1;
    }
    memcpy(fill, start, ((size_t) n_classes + 1) * sizeof(int));
    for (size_t i = 0; i < n; i++) order[fill[cls[i]]++] = (int) i;
    free(fill);

    for (int c = 0; c < n_classes; c++) {
        int n_touched = 0;
        double total = 0.0;
        for (int r = start[c]; r < start[c + 1]; r++) {
            int i = order[r], v = s[i];
            if (hist[v] == 0.0 && count[i] > 0) touched[n_touched++] = v;
            hist[v] += count[i];
            total += count[i];
        }
        double h = 0.0, d = 0.0;
        for (int t = 0; t < n_touched; t++) {
            double p = hist[touched[t]] / total;
            h -= p * log(p);
        }
        if (ordered) {
            /* (1 / (m - 1)) sum_i |sum_{k <= i} (p_k - q_k)| over all m values */
            double cum = 0.0;
            for (int v = 1; v <= m; v++) {
                cum += hist[v] / total - q[v - 1];
                d += fabs(cum);
            }
            d = m > 1 ? d / (m - 1) : 0.0;
        } else {
            /* (1/2) sum_k |p_k - q_k|: untouched values contribute q_k */
            double q_touched = 0.0;
            for (int t = 0; t < n_touched; t++) {
                int v = touched[t];
                d += fabs(hist[v] / total - q[v - 1]);
                q_touched += q[v - 1];
            }
            d = 0.5 * (d + fmax(0.0, 1.0 - q_touched));
        }
        distinct[c] = n_touched;
        entropy_l[c] = exp(h);
        emd[c] = d;
        for (int t = 0; t < n_touched; t++) hist[touched[t]] = 0.0;
    }
    free(start); free(order); free(hist); free(touched);
    return 0;
}

void lattice_tag(const int *nodes, size_t n_nodes, int n_keys, const int *levels,
                 int up, int *out)
{
    for (size_t i = 0; i < n_nodes; i++) {
        int in = 1;
        for (int v = 0; v < n_keys && in; v++) {
            int h = nodes[i + (size_t) v * n_nodes];
            in = up ? h >= levels[v] : h <= levels[v];
        }
        out[i] = in;
    }
}
