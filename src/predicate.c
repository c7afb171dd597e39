/* Counting the records or persons a singling-out predicate matches (predicate.h). */
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include "predicate.h"
#include "gower.h"
#include "par_rows.h"

#define CHUNK 256

static inline int holds(double v, int type, int op, double val)
{
    int na = type == GOWER_NUM ? isnan(v) : v == 0.0;
    switch (op) {
    case PRED_EQ: return !na && v == val;
    case PRED_NE: return na || v != val;
    case PRED_LT: return !na && v < val;
    case PRED_LE: return !na && v <= val;
    case PRED_GT: return !na && v > val;
    case PRED_GE: return !na && v >= val;
    case PRED_ISNA: return na;
    case PRED_NOTNA: return !na;
    default: return 0;
    }
}

typedef struct {
    const double *x;
    size_t n;
    const int *type, *order, *person, *start, *col, *op;
    const double *val;
    const size_t *n_na;  /* per column: records with NA (first in `order`) */
    int n_person, cap;
    int *stamp;          /* n_person per thread (distinct persons without a small cap) */
    int *count;
} pred_job;

static inline double sorted_value(const pred_job *jb, int j, size_t b)
{
    return jb->x[(size_t) j * jb->n + (size_t) jb->order[(size_t) j * jb->n + b]];
}

/* First position in [lo, hi) of column j's sorted values that is >= v
 * (strict = 0) or > v (strict = 1). */
static size_t bound(const pred_job *jb, int j, size_t lo, size_t hi, double v, int strict)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double w = sorted_value(jb, j, mid);
        if (strict ? w <= v : w < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The block [*lo, *hi) of column j's sorted records that condition (op, v)
 * allows; 0 when the condition allows no block (!=, not NA). */
static int block(const pred_job *jb, int j, int op, double v, size_t *lo, size_t *hi)
{
    size_t a = jb->n_na[j], n = jb->n;
    switch (op) {
    case PRED_EQ: *lo = bound(jb, j, a, n, v, 0); *hi = bound(jb, j, *lo, n, v, 1); return 1;
    case PRED_LT: *lo = a; *hi = bound(jb, j, a, n, v, 0); return 1;
    case PRED_LE: *lo = a; *hi = bound(jb, j, a, n, v, 1); return 1;
    case PRED_GT: *lo = bound(jb, j, a, n, v, 1); *hi = n; return 1;
    case PRED_GE: *lo = bound(jb, j, a, n, v, 0); *hi = n; return 1;
    case PRED_ISNA: *lo = 0; *hi = a; return 1;
    default: return 0;
    }
}

static double pred_row(void *ctx, size_t m, int thread)
{
    const pred_job *jb = (const pred_job *) ctx;
    int c0 = jb->start[m], c1 = jb->start[m + 1];
    int *stamp = jb->stamp ? jb->stamp + (size_t) thread * jb->n_person : NULL;
    int c = 0, first = -1;
    /* the records scanned: all, or the narrowest block of one condition */
    size_t lo = 0, hi = jb->n;
    const int *rows = NULL;
    if (jb->order) {
        for (int k = c0; k < c1; k++) {
            size_t a, b;
            if (block(jb, jb->col[k], jb->op[k], jb->val[k], &a, &b) && b - a < hi - lo) {
                lo = a;
                hi = b;
                rows = jb->order + (size_t) jb->col[k] * jb->n;
            }
        }
    }
    for (size_t i = lo; i < hi; i++) {
        size_t r = rows ? (size_t) rows[i] : i;
        int ok = 1;
        for (int k = c0; k < c1 && ok; k++) {
            int j = jb->col[k];
            ok = holds(jb->x[(size_t) j * jb->n + r], jb->type[j], jb->op[k], jb->val[k]);
        }
        if (!ok) continue;
        if (!jb->person) {
            if (++c >= jb->cap) break;
            continue;
        }
        int pp = jb->person[r];
        if (!stamp) {
            /* cap <= 2: the first person, then any other one */
            if (c == 0) { first = pp; c = 1; if (c >= jb->cap) break; }
            else if (pp != first) { c = 2; break; }
        } else if (stamp[pp] != (int) m) {
            stamp[pp] = (int) m;
            if (++c >= jb->cap) break;
        }
    }
    jb->count[m] = c;
    return 1.0;
}

int predicate_count(const double *x, size_t n, const int *type, const int *order,
                    const int *person, int n_person, const int *start, const int *col,
                    const int *op, const double *val, size_t npred, int cap, int threads,
                    int *count, int (*interrupted)(void))
{
    if (threads < 1) threads = 1;
    if (cap < 1) cap = INT_MAX;
    int p = 0;
    for (size_t k = 0; k < (size_t) start[npred]; k++) if (col[k] + 1 > p) p = col[k] + 1;
    size_t *n_na = malloc((p > 0 ? (size_t) p : 1) * sizeof(size_t));
    if (!n_na) return -1;
    for (int j = 0; j < p && order; j++) {
        /* NA sorts first: the first record that is not NA */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            double v = x[(size_t) j * n + (size_t) order[(size_t) j * n + mid]];
            int na = type[j] == GOWER_NUM ? isnan(v) : v == 0.0;
            if (na) lo = mid + 1; else hi = mid;
        }
        n_na[j] = lo;
    }
    int *stamp = NULL;
    if (person && cap > 2 && n_person > 0) {
        stamp = malloc((size_t) threads * (size_t) n_person * sizeof(int));
        if (!stamp) { free(n_na); return -1; }
        for (size_t i = 0; i < (size_t) threads * (size_t) n_person; i++) stamp[i] = -1;
    }
    pred_job job = { x, n, type, order, person, start, col, op, val, n_na, n_person, cap,
                     stamp, count };
    int status = 0;
    for (size_t s = 0; s < npred && status == 0; s += CHUNK) {
        size_t e = s + CHUNK < npred ? s + CHUNK : npred;
        par_rows(s, e, 1, INFINITY, threads, pred_row, &job);
        if (interrupted && interrupted()) status = -2;
    }
    free(stamp);
    free(n_na);
    return status;
}
