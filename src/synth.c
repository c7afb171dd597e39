/* Donor sampling of sequential synthesis: see synth.h. */
#include "synth.h"

/* Donors grouped by leaf (a counting sort: leaf by leaf, increasing index
 * within a leaf): order[start[l] .. start[l + 1]) are the donors of leaf l. */
static void group_by_leaf(const int *donor_leaf, size_t n_donor, int n_leaf, size_t *start,
                          int *order)
{
    for (int l = 0; l <= n_leaf; l++) start[l] = 0;
    for (size_t i = 0; i < n_donor; i++) start[donor_leaf[i] + 1]++;
    for (int l = 0; l < n_leaf; l++) start[l + 1] += start[l];
    /* fill with a moving cursor per leaf, kept in the spare slots of start:
     * start[l] is advanced while filling and restored afterwards */
    for (size_t i = 0; i < n_donor; i++) order[start[donor_leaf[i]]++] = (int) i;
    for (int l = n_leaf; l > 0; l--) start[l] = start[l - 1];
    start[0] = 0;
}

/* The first j in [lo, hi) with cum[j] > x (hi - 1 when none: rounding). */
static size_t first_above(const double *cum, size_t lo, size_t hi, double x)
{
    size_t a = lo, b = hi - 1;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (cum[mid] > x) b = mid; else a = mid + 1;
    }
    return a;
}

int synth_leaf_donors(const int *donor_leaf, size_t n_donor, const int *target_leaf,
                      size_t n_target, int n_leaf, int bayes, synth_rng unif,
                      synth_rng expo, int *out, size_t *start, int *order, double *cum,
                      void (*interrupt)(void))
{
    group_by_leaf(donor_leaf, n_donor, n_leaf, start, order);
    if (bayes) {
        /* cumulative exponential weights within each leaf, in the order of
         * `order` (leaf by leaf, increasing donor index) */
        for (int l = 0; l < n_leaf; l++) {
            double s = 0.0;
            for (size_t j = start[l]; j < start[l + 1]; j++) {
                s += expo();
                cum[j] = s;
            }
        }
    }
    for (size_t t = 0; t < n_target; t++) {
        if (interrupt && (t & 0xFFFF) == 0xFFFF) interrupt();
        int l = target_leaf[t];
        size_t lo = start[l], hi = start[l + 1];
        if (hi == lo) return -1 - (int) t;
        double u = unif();
        size_t j;
        if (bayes) {
            j = first_above(cum, lo, hi, u * cum[hi - 1]);
        } else {
            j = lo + (size_t) (u * (double) (hi - lo));
            if (j >= hi) j = hi - 1;
        }
        out[t] = order[j];
    }
    return 0;
}

void synth_tree_leaves(const double *x, size_t n, int p, const int *leaf, const int *var,
                       const int *kind, const double *cut, const int *dir, const int *crow,
                       const int *left, const int *right, const int *major,
                       const int *csplit, int n_crow, int n_ccol, int *out,
                       void (*interrupt)(void))
{
    (void) p;
    for (size_t i = 0; i < n; i++) {
        if (interrupt && (i & 0xFFFF) == 0xFFFF) interrupt();
        int r = 0;
        while (!leaf[r]) {
            double v = x[(size_t) var[r] * n + i];
            int go_right;
            if (v != v) {
                go_right = major[r];
            } else if (kind[r] == 0) {
                int below = v < cut[r];
                go_right = (dir[r] == -1) ? !below : below;
            } else {
                int level = (int) v;
                int code = (level >= 1 && level <= n_ccol)
                    ? csplit[(size_t) (level - 1) * (size_t) n_crow + (size_t) crow[r]] : 2;
                go_right = (code == 1) ? 0 : (code == 3) ? 1 : major[r];
            }
            r = go_right ? right[r] : left[r];
        }
        out[i] = r;
    }
}
