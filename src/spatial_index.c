/* Uniform grid spatial index: counting sort of the points by cell, then a
 * scan of the cells around the target with exact filtering. */
#include <math.h>
#include <string.h>
#include "spatial_index.h"

size_t sindex_start_len(size_t max_cells) { return max_cells + 1; }

static size_t cell_coord(const sindex *ix, const double *xi, int k)
{
    double t = (xi[ix->dims[k]] - ix->lo[k]) / ix->cell[k];
    if (!(t > 0)) return 0;
    size_t c = (size_t) t;
    return c >= ix->ncell[k] ? ix->ncell[k] - 1 : c;
}

/* Cells per dimension for a cell width; returns the product (saturating). */
static double grid_cells(const double *range, int g, double width, size_t *ncell)
{
    double total = 1.0;
    for (int k = 0; k < g; k++) {
        double m = floor(range[k] / width) + 1.0;
        if (m > 1e15) m = 1e15;
        ncell[k] = (size_t) m;
        total *= m;
    }
    return total;
}

void sindex_build(sindex *ix, const double *x, size_t n, int d, double radius,
                  size_t max_cells, int *perm, size_t *cell_of, size_t *start)
{
    ix->x = x;
    ix->n = n;
    ix->d = d;
    ix->start = start;
    ix->perm = perm;
    ix->cell_of = cell_of;

    /* ranges of every coordinate; grid the (up to) three widest */
    double best_range[3] = {-1.0, -1.0, -1.0};
    int best_dim[3] = {0, 0, 0};
    int g = d < 3 ? d : 3;
    for (int k = 0; k < d; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double v = x[i * (size_t) d + k];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        double r = n > 0 ? hi - lo : 0.0;
        for (int j = 0; j < g; j++) {
            if (r > best_range[j]) {
                for (int m = g - 1; m > j; m--) {
                    best_range[m] = best_range[m - 1];
                    best_dim[m] = best_dim[m - 1];
                }
                best_range[j] = r;
                best_dim[j] = k;
                break;
            }
        }
    }
    ix->g = g;
    double range[3];
    for (int k = 0; k < 3; k++) {
        ix->dims[k] = k < g ? best_dim[k] : 0;
        range[k] = k < g ? best_range[k] : 0.0;
        ix->lo[k] = INFINITY;
    }
    for (int k = 0; k < g; k++)
        for (size_t i = 0; i < n; i++) {
            double v = x[i * (size_t) d + ix->dims[k]];
            if (v < ix->lo[k]) ix->lo[k] = v;
        }

    /* Cells of half the radius (two cells each side cover the ball better
     * than one cell of the full radius); widened until the grid fits. */
    double width = radius > 0 ? 0.5 * radius * (1.0 + 1e-9) : 1.0;
    size_t ncell[3] = {1, 1, 1};
    if (max_cells < 1) max_cells = 1;
    while (grid_cells(range, g, width, ncell) > (double) max_cells) width *= 1.5;
    for (int k = 0; k < 3; k++) {
        ix->ncell[k] = k < g ? ncell[k] : 1;
        ix->cell[k] = width;
        if (k >= g) { ix->reach[k] = 0; ix->lo[k] = 0.0; continue; }
        double r = ceil(radius / width);
        if (!(r >= 1)) r = 1; /* also catches NaN from an infinite radius */
        if (r > (double) ix->ncell[k]) r = (double) ix->ncell[k];
        ix->reach[k] = (int) r;
    }

    size_t cells = ix->ncell[0] * ix->ncell[1] * ix->ncell[2];
    memset(start, 0, (cells + 1) * sizeof(size_t));
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * (size_t) d;
        size_t c = cell_coord(ix, xi, 0);
        if (g > 1) c += ix->ncell[0] * cell_coord(ix, xi, 1);
        if (g > 2) c += ix->ncell[0] * ix->ncell[1] * cell_coord(ix, xi, 2);
        cell_of[i] = c;
        start[c + 1]++;
    }
    for (size_t c = 0; c < cells; c++) start[c + 1] += start[c];
    /* stable placement: cell_of doubles as a cursor only through a copy of start */
    for (size_t i = 0; i < n; i++) {
        size_t c = cell_of[i];
        perm[start[c]++] = (int) i;
    }
    /* start[c] now holds the end of cell c: shift back */
    for (size_t c = cells; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
}

static double dissimilarity(const double *a, const double *b, int d, si_metric metric)
{
    double s = 0.0;
    if (metric == SI_L1) {
        for (int k = 0; k < d; k++) s += fabs(a[k] - b[k]);
        return s;
    }
    for (int k = 0; k < d; k++) {
        double t = a[k] - b[k];
        s += t * t;
    }
    return metric == SI_L2 ? sqrt(s) : s;
}

size_t sindex_query(const sindex *ix, size_t i, si_metric metric,
                    double max_delta, const int *group, int *nb, double *delta,
                    size_t *scanned)
{
    const int d = ix->d;
    const double *xi = ix->x + i * (size_t) d;
    long lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        long c = k < ix->g ? (long) cell_coord(ix, xi, k) : 0;
        lo[k] = c - ix->reach[k];
        hi[k] = c + ix->reach[k];
        if (lo[k] < 0) lo[k] = 0;
        if (hi[k] > (long) ix->ncell[k] - 1) hi[k] = (long) ix->ncell[k] - 1;
    }
    /* compare squared distances for the Euclidean metric (no sqrt on misses) */
    double bound = metric == SI_L2 ? max_delta * max_delta : max_delta;
    si_metric raw = metric == SI_L2 ? SI_L2SQ : metric;
    int gi = group ? group[i] : 0;
    size_t m = 0, seen = 0;
    for (long c2 = lo[2]; c2 <= hi[2]; c2++)
        for (long c1 = lo[1]; c1 <= hi[1]; c1++) {
            size_t base = ((size_t) c2 * ix->ncell[1] + (size_t) c1) * ix->ncell[0];
            size_t from = ix->start[base + (size_t) lo[0]];
            size_t to = ix->start[base + (size_t) hi[0] + 1];
            seen += to - from;
            for (size_t q = from; q < to; q++) {
                int k = ix->perm[q];
                if (group && group[k] != gi) continue;
                double s = dissimilarity(xi, ix->x + (size_t) k * d, d, raw);
                if (s <= bound) {
                    nb[m] = k;
                    delta[m] = metric == SI_L2 ? sqrt(s) : s;
                    m++;
                }
            }
        }
    if (scanned) *scanned = seen;
    return m;
}
