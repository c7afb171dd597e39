/* Gower's distance over mixed columns and the exact k nearest released
 * records (gower.h). The k-d tree holds each distinct released record once,
 * with its rows in ascending order, so that a release with many equal
 * records (rounding, generalization, categories only) costs no more than its
 * distinct records; the tie rule (distance, then the lower row) is applied
 * to the rows, as the exhaustive scan applies it. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "gower.h"
#include "par_rows.h"

#define LEAF 8
#define CHUNK 4096
#define HAS_NUM 1
#define HAS_NA 2

double gower_sum(const double *a, const double *b, const int *type, int p, int na,
                 int *count)
{
    double s = 0.0;
    int c = 0;
    for (int j = 0; j < p; j++) {
        double u = a[j], v = b[j], t;
        if (type[j] == GOWER_NUM) {
            int nu = isnan(u), nv = isnan(v);
            if (na == GOWER_NA_IGNORE && (nu || nv)) continue;
            t = nu ? (nv ? 0.0 : 1.0) : (nv ? 1.0 : fabs(u - v));
        } else {
            if (na == GOWER_NA_IGNORE && (u == 0.0 || v == 0.0)) continue;
            t = u == v ? 0.0 : 1.0;
        }
        s += t;
        c++;
    }
    *count = c;
    return s;
}

double gower_mean(double sum, int count, int p, int na)
{
    if (na == GOWER_NA_CATEGORY) return sum / p;
    return count > 0 ? sum / count : 1.0;
}

/* The quantity the search orders by: the sum under GOWER_NA_CATEGORY, the
 * mean under GOWER_NA_IGNORE. */
static inline double order_key(double sum, int count, int na)
{
    return na == GOWER_NA_CATEGORY ? sum : (count > 0 ? sum / count : 1.0);
}

/* ---- the k best found so far, ascending by (key, row) -------------------- */

typedef struct { double d; int row; } nb;
typedef struct { nb *a; int k, n; } nbset;

static inline int nb_less(double d1, int r1, double d2, int r2)
{
    return d1 < d2 || (d1 == d2 && r1 < r2);
}

/* Insert (d, row) when it is among the k best; 0 when it is not. */
static inline int nbset_try(nbset *s, double d, int row)
{
    if (s->n == s->k && !nb_less(d, row, s->a[s->n - 1].d, s->a[s->n - 1].row)) return 0;
    int i = s->n < s->k ? s->n++ : s->k - 1;
    while (i > 0 && nb_less(d, row, s->a[i - 1].d, s->a[i - 1].row)) {
        s->a[i] = s->a[i - 1];
        i--;
    }
    s->a[i].d = d;
    s->a[i].row = row;
    return 1;
}

/* A box whose lower bound and lowest row come after the k-th best cannot
 * hold one of the k best. */
static inline int nbset_skips(const nbset *s, double bound, int min_row)
{
    return s->n == s->k && !nb_less(bound, min_row, s->a[s->n - 1].d, s->a[s->n - 1].row);
}

/* ---- exhaustive reference ---------------------------------------------------- */

static void knn_exhaustive(const double *y, size_t n, const double *q, int p,
                           const int *type, int na, nbset *s)
{
    for (size_t j = 0; j < n; j++) {
        int c;
        double sum = gower_sum(q, y + j * (size_t) p, type, p, na, &c);
        nbset_try(s, order_key(sum, c, na), (int) j);
    }
}

/* ---- k-d tree over the distinct released records ------------------------------- */

typedef struct {
    size_t lo, hi;      /* distinct points lo..hi-1 in tree order */
    int left, right;    /* children, -1 for a leaf */
    int min_row;        /* the lowest row of the node's records */
} gnode;

typedef struct {
    int p;
    const int *type;
    double *pt;         /* distinct points in tree order, p values each */
    int *first, *cnt;   /* each point's rows: rows[first .. first + cnt - 1] */
    int *rows;          /* released rows grouped by point, ascending within it */
    double *lo, *hi;    /* per node and column: the range of numbers / codes */
    unsigned char *flags; /* per node and column: HAS_NUM, HAS_NA (numbers) */
    gnode *node;
    int n_node;
} gtree;

/* qsort has no context argument: the rows are sorted before any thread
 * starts, by one call at a time. */
static const double *sort_y;
static int sort_p;

/* NA (NaN) sorts after every number and equals NA; then the row. */
static int cmp_value(double u, double v)
{
    int nu = isnan(u), nv = isnan(v);
    if (nu || nv) return nu - nv;
    return (u > v) - (u < v);
}

static int cmp_rows_values(const double *a, const double *b)
{
    for (int j = 0; j < sort_p; j++) {
        int c = cmp_value(a[j], b[j]);
        if (c) return c;
    }
    return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
    int ra = *(const int *) pa, rb = *(const int *) pb;
    int c = cmp_rows_values(sort_y + (size_t) ra * sort_p, sort_y + (size_t) rb * sort_p);
    return c ? c : (ra > rb) - (ra < rb);
}

/* The split key of a value: NA after every number. */
static inline double split_key(double v)
{
    return isnan(v) ? INFINITY : v;
}

/* Quickselect: perm[lo..hi) (with their keys kv) partitioned at mid. */
static void select_mid(int *perm, double *kv, size_t lo, size_t hi, size_t mid)
{
    while (hi - lo > 1) {
        double pivot = kv[(lo + hi) / 2];
        size_t i = lo, j = hi - 1;
        while (i <= j) {
            while (kv[i] < pivot) i++;
            while (kv[j] > pivot) j--;
            if (i <= j) {
                double tk = kv[i]; kv[i] = kv[j]; kv[j] = tk;
                int tp = perm[i]; perm[i] = perm[j]; perm[j] = tp;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (mid <= j) hi = j + 1;
        else if (mid >= i) lo = i;
        else return;
    }
}

typedef struct {
    gtree *t;
    const double *y;
    const int *rep;     /* a row of each distinct point */
    int *perm;          /* distinct points in tree order (built in place) */
    double *kv;         /* scratch split keys */
} gbuild;

static void node_box(gbuild *b, int id, size_t lo, size_t hi)
{
    gtree *t = b->t;
    int p = t->p;
    double *bl = t->lo + (size_t) id * p, *bh = t->hi + (size_t) id * p;
    unsigned char *fl = t->flags + (size_t) id * p;
    for (int j = 0; j < p; j++) { bl[j] = INFINITY; bh[j] = -INFINITY; fl[j] = 0; }
    for (size_t i = lo; i < hi; i++) {
        const double *v = b->y + (size_t) b->rep[b->perm[i]] * p;
        for (int j = 0; j < p; j++) {
            if (t->type[j] == GOWER_NUM && isnan(v[j])) { fl[j] |= HAS_NA; continue; }
            fl[j] |= HAS_NUM;
            if (v[j] < bl[j]) bl[j] = v[j];
            if (v[j] > bh[j]) bh[j] = v[j];
        }
    }
}

/* How far apart the box's records are on column j, in the distance's units:
 * the range of its numbers, plus 1 when it holds numbers and NA; 1 for
 * several category codes. */
static double box_spread(const gtree *t, int id, int j)
{
    size_t at = (size_t) id * t->p + j;
    unsigned char f = t->flags[at];
    if (t->type[j] == GOWER_CAT) return t->hi[at] > t->lo[at] ? 1.0 : 0.0;
    double s = (f & HAS_NUM) ? t->hi[at] - t->lo[at] : 0.0;
    return (f & HAS_NUM) && (f & HAS_NA) ? s + 1.0 : s;
}

static int build_node(gbuild *b, size_t lo, size_t hi)
{
    gtree *t = b->t;
    int id = t->n_node++;
    gnode *nd = t->node + id;
    nd->lo = lo;
    nd->hi = hi;
    nd->left = nd->right = -1;
    node_box(b, id, lo, hi);
    if (hi - lo <= LEAF) return id;
    int split = -1;
    double widest = 0.0;
    for (int j = 0; j < t->p; j++) {
        double s = box_spread(t, id, j);
        if (s > widest) { widest = s; split = j; }
    }
    if (split < 0) return id;   /* cannot happen for distinct points */
    for (size_t i = lo; i < hi; i++)
        b->kv[i] = split_key(b->y[(size_t) b->rep[b->perm[i]] * t->p + split]);
    size_t mid = lo + (hi - lo) / 2;
    select_mid(b->perm, b->kv, lo, hi, mid);
    int left = build_node(b, lo, mid);
    int right = build_node(b, mid, hi);
    t->node[id].left = left;
    t->node[id].right = right;
    return id;
}

static void gtree_free(gtree *t)
{
    free(t->pt); free(t->first); free(t->cnt); free(t->rows);
    free(t->lo); free(t->hi); free(t->flags); free(t->node);
    memset(t, 0, sizeof *t);
}

/* The lowest row of each node, from its points' first rows. */
static int node_min_row(gtree *t, int id)
{
    gnode *nd = t->node + id;
    int m;
    if (nd->left < 0) {
        m = t->rows[t->first[nd->lo]];
        for (size_t i = nd->lo + 1; i < nd->hi; i++)
            if (t->rows[t->first[i]] < m) m = t->rows[t->first[i]];
    } else {
        int a = node_min_row(t, nd->left), c = node_min_row(t, nd->right);
        m = a < c ? a : c;
    }
    nd->min_row = m;
    return m;
}

static int gtree_build(gtree *t, const double *y, size_t n, int p, const int *type)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    t->type = type;
    int *order = malloc(n * sizeof(int));
    if (!order) return -1;
    for (size_t i = 0; i < n; i++) order[i] = (int) i;
    sort_y = y;
    sort_p = p;
    qsort(order, n, sizeof(int), cmp_rows);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || cmp_rows_values(y + (size_t) order[i - 1] * p, y + (size_t) order[i] * p))
            u++;
    int *rep = malloc(u * sizeof(int)), *first0 = malloc(u * sizeof(int)),
        *cnt0 = malloc(u * sizeof(int)), *perm = malloc(u * sizeof(int));
    double *kv = malloc(u * sizeof(double));
    size_t max_nodes = 2 * (u / LEAF + 1) * 2 + 1;
    t->node = malloc(max_nodes * sizeof(gnode));
    t->lo = malloc(max_nodes * (size_t) p * sizeof(double));
    t->hi = malloc(max_nodes * (size_t) p * sizeof(double));
    t->flags = malloc(max_nodes * (size_t) p);
    t->pt = malloc(u * (size_t) p * sizeof(double));
    t->first = malloc(u * sizeof(int));
    t->cnt = malloc(u * sizeof(int));
    t->rows = order;
    if (!rep || !first0 || !cnt0 || !perm || !kv || !t->node || !t->lo || !t->hi ||
        !t->flags || !t->pt || !t->first || !t->cnt) {
        free(rep); free(first0); free(cnt0); free(perm); free(kv);
        gtree_free(t);
        return -1;
    }
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || cmp_rows_values(y + (size_t) order[i - 1] * p, y + (size_t) order[i] * p)) {
            rep[g] = order[i];
            first0[g] = (int) i;
            cnt0[g++] = 1;
        } else {
            cnt0[g - 1]++;
        }
    }
    for (size_t i = 0; i < u; i++) perm[i] = (int) i;
    gbuild b = { t, y, rep, perm, kv };
    build_node(&b, 0, u);
    /* the points in tree order, for the leaves' scans */
    for (size_t i = 0; i < u; i++) {
        int d = perm[i];
        memcpy(t->pt + i * (size_t) p, y + (size_t) rep[d] * p, (size_t) p * sizeof(double));
        t->first[i] = first0[d];
        t->cnt[i] = cnt0[d];
    }
    free(rep); free(first0); free(cnt0); free(perm); free(kv);
    node_min_row(t, 0);
    return 0;
}

/* A lower bound of the sum between q and any record of the node, each
 * column's bound at most its term, summed in column order. */
static double box_bound(const gtree *t, int id, const double *q)
{
    int p = t->p;
    const double *bl = t->lo + (size_t) id * p, *bh = t->hi + (size_t) id * p;
    const unsigned char *fl = t->flags + (size_t) id * p;
    double s = 0.0;
    for (int j = 0; j < p; j++) {
        double g, v = q[j];
        if (t->type[j] == GOWER_CAT) {
            g = (v >= bl[j] && v <= bh[j]) ? 0.0 : 1.0;
        } else if (isnan(v)) {
            g = (fl[j] & HAS_NA) ? 0.0 : 1.0;
        } else if (!(fl[j] & HAS_NUM)) {
            g = 1.0;
        } else {
            g = v < bl[j] ? bl[j] - v : (v > bh[j] ? v - bh[j] : 0.0);
            if ((fl[j] & HAS_NA) && g > 1.0) g = 1.0;
        }
        s += g;
    }
    return s;
}

static void knn_tree(const gtree *t, int id, const double *q, nbset *s)
{
    const gnode *nd = t->node + id;
    int p = t->p;
    if (nd->left < 0) {
        for (size_t i = nd->lo; i < nd->hi; i++) {
            int c;
            double d = gower_sum(q, t->pt + i * (size_t) p, t->type, p, GOWER_NA_CATEGORY, &c);
            const int *r = t->rows + t->first[i];
            for (int m = 0; m < t->cnt[i]; m++)
                if (!nbset_try(s, d, r[m])) break;
        }
        return;
    }
    int a = nd->left, b = nd->right;
    double ba = box_bound(t, a, q), bb = box_bound(t, b, q);
    if (nb_less(bb, t->node[b].min_row, ba, t->node[a].min_row)) {
        int ti = a; a = b; b = ti;
        double td = ba; ba = bb; bb = td;
    }
    if (!nbset_skips(s, ba, t->node[a].min_row)) knn_tree(t, a, q, s);
    if (!nbset_skips(s, bb, t->node[b].min_row)) knn_tree(t, b, q, s);
}

/* ---- the targets -------------------------------------------------------------- */

typedef struct {
    const gtree *t;
    const double *y, *q;
    size_t n;
    int p, na, k, method;
    const int *type;
    nb *scratch;        /* k per thread */
    int *idx;
    double *dist;
} knn_job;

static double knn_row(void *ctx, size_t row, int thread)
{
    const knn_job *jb = (const knn_job *) ctx;
    nbset s = { jb->scratch + (size_t) thread * jb->k, jb->k, 0 };
    const double *q = jb->q + row * (size_t) jb->p;
    if (jb->method == 1) knn_tree(jb->t, 0, q, &s);
    else knn_exhaustive(jb->y, jb->n, q, jb->p, jb->type, jb->na, &s);
    for (int m = 0; m < s.n; m++) {
        jb->idx[row * (size_t) jb->k + m] = s.a[m].row;
        /* the key is the sum (category) or already the mean (ignore) */
        jb->dist[row * (size_t) jb->k + m] =
            jb->na == GOWER_NA_CATEGORY ? s.a[m].d / jb->p : s.a[m].d;
    }
    return 1.0;
}

int gower_knn(const double *y, size_t n, const double *q, size_t nq, int p,
              const int *type, int na, int k, int method, int threads, int *idx,
              double *dist, int (*interrupted)(void))
{
    if (na != GOWER_NA_CATEGORY) method = 0;
    if (threads < 1) threads = 1;
    gtree t;
    memset(&t, 0, sizeof t);
    if (method == 1 && gtree_build(&t, y, n, p, type)) return -1;
    nb *scratch = malloc((size_t) threads * (size_t) k * sizeof(nb));
    if (!scratch) { if (method == 1) gtree_free(&t); return -1; }
    knn_job job = { &t, y, q, n, p, na, k, method, type, scratch, idx, dist };
    int status = 0;
    for (size_t start = 0; start < nq && status == 0; start += CHUNK) {
        size_t end = start + CHUNK < nq ? start + CHUNK : nq;
        par_rows(start, end, 16, INFINITY, threads, knn_row, &job);
        if (interrupted && interrupted()) status = -2;
    }
    free(scratch);
    if (method == 1) gtree_free(&t);
    return status;
}
