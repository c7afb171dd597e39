/* Class counts for the generalization lattice (methods vignette section 16): grouping of code
 * rows (by the engine of freq.c) and roll-up of a finer node's class table to a coarser node (the
 * l-diversity / t-closeness figures of each class are diversity.c's). Plain C over arrays; the
 * search itself lives in R/generalize-ola.R. */
#include <stdlib.h>
#include <string.h>
#include "lattice.h"
#include "freq.h"


int lattice_group(const int *codes, size_t n, size_t ld, int ncol,
                  const double *weight, int *group, double *size, int *first)
{
    int n_groups = freq_group_rows(codes, n, ld, ncol, group, first);
    if (n_groups < 0) return n_groups;
    for (int g = 0; g < n_groups; g++) size[g] = 0.0;
    for (size_t i = 0; i < n; i++) size[group[i]] += weight ? weight[i] : 1.0;
    return n_groups;
}

/* The finer table recoded column by column through the maps, then grouped
 * by the engine of freq.c; counts are summed in row order. */
int lattice_rollup(const int *codes, const double *count, size_t n, int ncol,
                   const int *const *maps, const int *map_len,
                   int *out_codes, double *out_count)
{
    size_t nn = n > 0 ? n : 1;
    int *rec = malloc(nn * (size_t) (ncol > 0 ? ncol : 1) * sizeof(int));
    int *group = malloc(nn * sizeof(int));
    int *first = malloc(nn * sizeof(int));
    if (!rec || !group || !first) {
        free(rec); free(group); free(first);
        return -1;
    }
    int status = 0;
    for (int j = 0; j < ncol && status == 0; j++) {
        const int *col = codes + (size_t) j * n;
        int *out = rec + (size_t) j * n;
        if (!maps[j]) {
            memcpy(out, col, n * sizeof(int));
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            int c = col[i];
            if (c < 1 || c > map_len[j]) {
                status = -2;
                break;
            }
            out[i] = maps[j][c - 1];
        }
    }
    int n_groups = status ? status : freq_group_rows(rec, n, n, ncol, group, first);
    if (n_groups > 0) {
        for (int g = 0; g < n_groups; g++) out_count[g] = 0.0;
        for (size_t i = 0; i < n; i++) out_count[group[i]] += count[i];
        for (int j = 0; j < ncol; j++)
            for (int g = 0; g < n_groups; g++)
                out_codes[(size_t) g + (size_t) j * n_groups] =
                    rec[(size_t) first[g] + (size_t) j * n];
    }
    free(rec); free(group); free(first);
    return n_groups;
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
