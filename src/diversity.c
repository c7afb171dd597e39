/* l-diversity and t-closeness within equivalence classes (methods vignette
 * section 12), the one implementation of the package: the (class, value)
 * pairs of the rows are grouped by the engine of freq.c, ordered by class and
 * value with two counting sorts, and each class's statistics are read off
 * its pairs. Work O(n + m + classes + pairs log m), memory O(n + m). */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "diversity.h"
#include "freq.h"

static int descending(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x < y) - (x > y);
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/* a - 1 plus the number of ranks i in a..b with qc[i - 1] <= level: the
 * rank up to which the cumulative overall share is at most the class's
 * (qc is non-decreasing). */
static int split_rank(const double *qc, int a, int b, double level)
{
    int lo = a, hi = b + 1;            /* the first rank in a..b+1 above level */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (qc[mid - 1] <= level) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
}

/* sum_{i=a}^{b} |level - Qc_i| with S[i] = sum_{k <= i} Qc_k (S[0] = 0):
 * below the split Qc_i <= level, above it Qc_i > level. */
static double run_sum(const double *qc, const double *S, int a, int b, double level)
{
    int split = split_rank(qc, a, b, level);
    return level * (double) (split - a + 1) - (S[split] - S[a - 1]) +
        (S[b] - S[split]) - level * (double) (b - split);
}

/* EMD of one class (ordered distance): pairs rows[lo..hi) in increasing
 * value. Between the class's value v and its next value the class's
 * cumulative share P stays at its level while Qc rises; ranks before its
 * first value have P = 0, so they add Qc_i each. */
static double emd_ordered(const int *rows, int lo, int hi, const int *pvalue,
                          const double *pcount, double total, int m,
                          const double *qc, const double *S)
{
    double sum = 0.0, within = 0.0;
    for (int r = lo; r < hi; r++) {
        int g = rows[r], a = pvalue[g];
        int b = r + 1 < hi ? pvalue[rows[r + 1]] - 1 : m;
        within += pcount[g];
        double lead = r == lo ? S[a - 1] : 0.0;
        sum += run_sum(qc, S, a, b, within / total) + lead;
    }
    return clamp01(sum / (m - 1));
}

/* EMD of one class (equal distance): (1/2) sum_k |p_k - q_k|, written as
 * (1 + sum over the class's values of (|p_k - q_k| - q_k)) / 2 so that the
 * values absent from the class (each adding q_k) need no visit. */
static double emd_equal(const int *rows, int lo, int hi, const int *pvalue,
                        const double *pcount, double total, const double *q)
{
    double sum = 0.0;
    for (int r = lo; r < hi; r++) {
        int g = rows[r];
        double qv = q[pvalue[g] - 1];
        sum += fabs(pcount[g] / total - qv) - qv;
    }
    return clamp01((1.0 + sum) / 2.0);
}

/* Recursive (c, l): the number of positions l (counts in decreasing order)
 * with r_1 < c (total - r_1 - ... - r_{l-1}), at least 1. */
static double recursive_l(const int *rows, int lo, int hi, const double *pcount,
                          double total, double c, double *buf)
{
    int d = hi - lo;
    for (int r = lo; r < hi; r++) buf[r - lo] = pcount[rows[r]];
    qsort(buf, (size_t) d, sizeof(double), descending);
    double before = 0.0;
    int held = 0;
    for (int j = 0; j < d; j++) {
        if (buf[0] < c * (total - before)) held++;
        before += buf[j];
    }
    return held > 1 ? held : 1;
}

int diversity_classes(const int *cls, const int *value, const double *count, size_t n,
                      int n_classes, int m, const double *q, int ordered, double c,
                      double *distinct, double *entropy_l, double *recursive, double *emd,
                      diversity_alloc alloc, void (*check)(void))
{
    for (size_t i = 0; i < n; i++) {
        if (cls[i] < 1 || cls[i] > n_classes) return -2;
        if (value[i] < 1 || value[i] > m) return -3;
    }
    size_t nn = n > 0 ? n : 1;
    /* the (class, value) pairs, by the grouping engine */
    int *codes = alloc(2 * nn, sizeof(int));
    memcpy(codes, cls, n * sizeof(int));
    memcpy(codes + n, value, n * sizeof(int));
    int *pair = alloc(nn, sizeof(int));
    int *first = alloc(nn, sizeof(int));
    int n_pairs = freq_group_rows(codes, n, n, 2, pair, first);
    if (n_pairs < 0) return -1;
    size_t np = n_pairs > 0 ? (size_t) n_pairs : 1;
    double *pcount = alloc(np, sizeof(double));
    int *pvalue = alloc(np, sizeof(int));
    int *pclass = alloc(np, sizeof(int));
    for (int g = 0; g < n_pairs; g++) {
        pcount[g] = 0.0;
        pvalue[g] = value[first[g]];
        pclass[g] = cls[first[g]] - 1;
    }
    for (size_t i = 0; i < n; i++) pcount[pair[i]] += count ? count[i] : 1.0;

    /* pairs by value (counting sort), then stably by class: rows[start[j]
     * .. start[j + 1]) are class j's pairs in increasing value */
    int *by_value = alloc(np, sizeof(int));
    int *rows = alloc(np, sizeof(int));
    int *pos = alloc((size_t) m + 2, sizeof(int));
    memset(pos, 0, ((size_t) m + 2) * sizeof(int));
    for (int g = 0; g < n_pairs; g++) pos[pvalue[g] + 1]++;
    for (int v = 1; v <= m; v++) pos[v + 1] += pos[v];
    for (int g = 0; g < n_pairs; g++) by_value[pos[pvalue[g]]++] = g;
    int *start = alloc((size_t) n_classes + 1, sizeof(int));
    memset(start, 0, ((size_t) n_classes + 1) * sizeof(int));
    for (int g = 0; g < n_pairs; g++) start[pclass[g] + 1]++;
    for (int j = 0; j < n_classes; j++) start[j + 1] += start[j];
    int *fill = pos;                   /* reused: n_classes + 1 entries needed */
    if ((size_t) n_classes + 1 > (size_t) m + 2) fill = alloc((size_t) n_classes + 1, sizeof(int));
    memcpy(fill, start, ((size_t) n_classes + 1) * sizeof(int));
    for (int r = 0; r < n_pairs; r++) {
        int g = by_value[r];
        rows[fill[pclass[g]]++] = g;
    }

    /* the cumulative overall share Qc_i and its prefix sums S, accumulated
     * in long double as R's cumsum() does */
    double *qc = NULL, *S = NULL;
    if (emd && q && ordered && m > 1) {
        qc = alloc((size_t) m, sizeof(double));
        S = alloc((size_t) m + 1, sizeof(double));
        long double acc = 0.0L, acc2 = 0.0L;
        S[0] = 0.0;
        for (int i = 0; i < m; i++) {
            acc += q[i];
            qc[i] = (double) acc;
            acc2 += qc[i];
            S[i + 1] = (double) acc2;
        }
    }
    double *buf = recursive && c > 0 ? alloc(np, sizeof(double)) : NULL;

    for (int j = 0; j < n_classes; j++) {
        if (check && (j & 4095) == 4095) check();
        int lo = start[j], hi = start[j + 1];
        double total = 0.0, h = 0.0;
        for (int r = lo; r < hi; r++) total += pcount[rows[r]];
        for (int r = lo; r < hi; r++) {
            double p = pcount[rows[r]] / total;
            h += p * log(p);
        }
        if (distinct) distinct[j] = hi - lo;
        if (entropy_l) entropy_l[j] = exp(-h);
        if (buf) recursive[j] = hi > lo ? recursive_l(rows, lo, hi, pcount, total, c, buf) : 1.0;
        if (emd && q) {
            if (hi == lo) emd[j] = 0.0;
            else if (!ordered) emd[j] = emd_equal(rows, lo, hi, pvalue, pcount, total, q);
            else if (m == 1) emd[j] = 0.0;
            else emd[j] = emd_ordered(rows, lo, hi, pvalue, pcount, total, m, qc, S);
        }
    }
    return 0;
}
