#ifndef EPIMASK_SPATIAL_INDEX_H
#define EPIMASK_SPATIAL_INDEX_H

#include <stddef.h>

/* A uniform grid over (at most) three coordinate dimensions of n points in
 * R^d, used to find every point within a given dissimilarity of a target
 * without visiting all n points. Points are stored row-major (x[i * d + k]).
 * The grid dimensions are the (up to) three with the widest range; the other
 * dimensions are filtered exactly, so the index is correct for any d (for
 * large d and uninformative gridded dimensions it degrades to brute force,
 * still without any n x n storage). All memory is supplied by the caller. */

typedef enum {
    SI_L2 = 0,   /* delta = Euclidean distance        */
    SI_L2SQ = 1, /* delta = squared Euclidean distance */
    SI_L1 = 2    /* delta = sum of absolute differences */
} si_metric;

typedef struct {
    const double *x;  /* n x d, row-major */
    size_t n;
    int d;
    int g;            /* number of gridded dimensions, 1..3 */
    int dims[3];      /* which coordinates are gridded */
    double lo[3];     /* grid origin */
    double cell[3];   /* cell width */
    size_t ncell[3];  /* cells per gridded dimension (1 for unused) */
    int reach[3];     /* cells to visit on each side of the target's cell */
    size_t *start;    /* points of cell c are perm[start[c] .. start[c+1]-1] */
    int *perm;        /* point indices sorted by cell */
    size_t *cell_of;  /* cell of each point */
} sindex;

/* Number of size_t slots `start` needs for a grid of at most max_cells cells. */
size_t sindex_start_len(size_t max_cells);

/* Build the index for search radius `radius` (in coordinate units: every point
 * within the metric's ball of that radius differs from the target by at most
 * `radius` in each coordinate). perm: n ints; cell_of: n size_t; start:
 * sindex_start_len(max_cells) size_t. */
void sindex_build(sindex *ix, const double *x, size_t n, int d, double radius,
                  size_t max_cells, int *perm, size_t *cell_of, size_t *start);

/* Every point k (the target itself included) with delta(i, k) <= max_delta
 * and, when group is not NULL, group[k] == group[i]. Writes indices to nb and
 * dissimilarities to delta; returns their number (at most n). When scanned
 * is not NULL it receives the number of points looked at (the work done). */
size_t sindex_query(const sindex *ix, size_t i, si_metric metric,
                    double max_delta, const int *group, int *nb, double *delta,
                    size_t *scanned);

#endif
