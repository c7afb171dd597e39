/* Count tables: cell aggregation over every level of the hierarchies, and
 * the connected parts of a suppression pattern (table.h). */
#include <stdlib.h>
#include <string.h>
#include "table.h"

/* value into the cell's n_top largest, kept in decreasing order */
static void top_insert(double *top, size_t n_cells, size_t c, int n_top, double value)
{
    if (value <= top[c + n_cells * (size_t) (n_top - 1)]) return;
    int t = n_top - 1;
    while (t > 0 && top[c + n_cells * (size_t) (t - 1)] < value) {
        top[c + n_cells * (size_t) t] = top[c + n_cells * (size_t) (t - 1)];
        t--;
    }
    top[c + n_cells * (size_t) t] = value;
}

int table_aggregate(size_t n, int d, const int *leaf, const int *anc, const int *nleaf,
                    const int *nlev, const double *stride, const double *freq,
                    const double *value, int n_top, size_t n_cells, double *count,
                    double *rows, double *sum, double *top, int (*interrupted)(void))
{
    memset(count, 0, n_cells * sizeof(double));
    memset(rows, 0, n_cells * sizeof(double));
    if (value) memset(sum, 0, n_cells * sizeof(double));
    if (n_top > 0) memset(top, 0, n_cells * (size_t) n_top * sizeof(double));
    /* offsets of each dimension's block in anc */
    size_t off[64];
    size_t o = 0;
    for (int j = 0; j < d; j++) {
        off[j] = o;
        o += (size_t) nleaf[j] * (size_t) nlev[j];
    }
    int level[64];
    double part[64];    /* node_j * stride_j of the current level choice */
    for (size_t i = 0; i < n; i++) {
        if (interrupted && (i & 4095) == 4095 && interrupted()) return -2;
        double f = freq ? freq[i] : 1.0;
        /* odometer over the level choices, dimension 0 fastest */
        double cell = 0;
        for (int j = 0; j < d; j++) {
            level[j] = 0;
            int code = leaf[i + n * (size_t) j];
            part[j] = anc[off[j] + (size_t) code] * stride[j];
            cell += part[j];
        }
        for (;;) {
            size_t c = (size_t) cell;
            count[c] += f;
            rows[c] += 1.0;
            if (value) {
                sum[c] += value[i];
                if (n_top > 0) top_insert(top, n_cells, c, n_top, value[i]);
            }
            int j = 0;
            while (j < d) {
                int code = leaf[i + n * (size_t) j];
                cell -= part[j];
                if (++level[j] < nlev[j]) {
                    part[j] = anc[off[j] + (size_t) code + (size_t) nleaf[j] * (size_t) level[j]] *
                              stride[j];
                    cell += part[j];
                    break;
                }
                level[j] = 0;
                part[j] = anc[off[j] + (size_t) code] * stride[j];
                cell += part[j];
                j++;
            }
            if (j == d) break;
        }
    }
    return 0;
}

/* union-find with path halving */
static int find_root(int *up, int a)
{
    while (up[a] != a) {
        up[a] = up[up[a]];
        a = up[a];
    }
    return a;
}

int table_parts(int n_rel, const int *start, const int *cell, size_t n_cells,
                const int *sup, int *part)
{
    int *up = malloc((n_cells > 0 ? n_cells : 1) * sizeof(int));
    if (!up) return -1;
    for (size_t c = 0; c < n_cells; c++) up[c] = (int) c;
    for (int r = 0; r < n_rel; r++) {
        int first = -1;
        for (int k = start[r]; k < start[r + 1]; k++) {
            int c = cell[k];
            if (!sup[c]) continue;
            if (first < 0) {
                first = find_root(up, c);
                continue;
            }
            int b = find_root(up, c);
            if (b != first) {
                /* the smaller number is the root, so parts keep the order of their first cell */
                if (b < first) { up[first] = b; first = b; } else up[b] = first;
            }
        }
    }
    int n_parts = 0;
    for (size_t c = 0; c < n_cells; c++) part[c] = -1;
    for (size_t c = 0; c < n_cells; c++) {
        if (!sup[c]) continue;
        int root = find_root(up, (int) c);
        if (part[root] < 0) part[root] = n_parts++;
        part[c] = part[root];
    }
    free(up);
    return n_parts;
}
