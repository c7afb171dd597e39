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
    size_t n, nr;
    const int *type, *rows, *person, *start, *col, *op;
    const double *val;
    int n_person, cap;
    int *stamp;          /* n_person per thread (distinct persons without a small cap) */
    int *count;
} pred_job;

static double pred_row(void *ctx, size_t m, int thread)
{
    const pred_job *jb = (const pred_job *) ctx;
    int c0 = jb->start[m], c1 = jb->start[m + 1];
    int *stamp = jb->stamp ? jb->stamp + (size_t) thread * jb->n_person : NULL;
    int c = 0, first = -1;
    for (size_t i = 0; i < jb->nr; i++) {
        size_t r = jb->rows ? (size_t) jb->rows[i] : i;
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

int predicate_count(const double *x, size_t n, const int *type, const int *rows, size_t nr,
                    const int *person, int n_person, const int *start, const int *col,
                    const int *op, const double *val, size_t npred, int cap, int threads,
                    int *count, int (*interrupted)(void))
{
    if (threads < 1) threads = 1;
    if (cap < 1) cap = INT_MAX;
    int *stamp = NULL;
    if (person && cap > 2 && n_person > 0) {
        stamp = malloc((size_t) threads * (size_t) n_person * sizeof(int));
        if (!stamp) return -1;
        for (size_t i = 0; i < (size_t) threads * (size_t) n_person; i++) stamp[i] = -1;
    }
    pred_job job = { x, n, nr, type, rows, person, start, col, op, val, n_person, cap,
                     stamp, count };
    int status = 0;
    for (size_t s = 0; s < npred && status == 0; s += CHUNK) {
        size_t e = s + CHUNK < npred ? s + CHUNK : npred;
        par_rows(s, e, 1, INFINITY, threads, pred_row, &job);
        if (interrupted && interrupted()) status = -2;
    }
    free(stamp);
    return status;
}
