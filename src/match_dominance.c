/* Three-dimensional dominance sums by a segment tree over z1 with, per node,
 * a sweep in z2 order over a Fenwick tree of z3 ranks; four-dimensional ones
 * by a segment tree over z1 whose nodes run the three-dimensional structure
 * (both trees walked by tree_walk()): see match_dominance.h. */
#include <stdlib.h>
#include <string.h>
#include "match_dominance.h"

typedef struct {
    size_t lo, hi;              /* records [lo, hi) in z1 order */
    size_t qs, qe;              /* its active queries in the current list */
} md_node;

/* The level-by-level traversal both structures share: per level (two
 * buffers) the records' positions in up to three orders within each node,
 * the active queries grouped by node, the nodes; the queries of one
 * canonical node. */
typedef struct {
    int nord;
    int *r[3][2];
    int *q[2];
    int *canon;
    md_node *nodes[2];
} md_tree;

static void tree_free(md_tree *t)
{
    for (int k = 0; k < 2; k++) {
        for (int o = 0; o < t->nord; o++) free(t->r[o][k]);
        free(t->q[k]);
        free(t->nodes[k]);
    }
    free(t->canon);
}

static int tree_alloc(md_tree *t, int nord, size_t n_max, size_t nq)
{
    int ok = 1;
    t->nord = nord;
    for (int k = 0; k < 2; k++) {
        for (int o = 0; o < nord; o++) {
            t->r[o][k] = malloc((n_max + 1) * sizeof(int));
            ok = ok && t->r[o][k];
        }
        t->q[k] = malloc((nq + 1) * sizeof(int));
        /* the active nodes of a level are disjoint, of at least 2 records */
        t->nodes[k] = malloc((n_max / 2 + 2) * sizeof(md_node));
        ok = ok && t->q[k] && t->nodes[k];
    }
    t->canon = malloc((nq + 1) * sizeof(int));
    return ok && t->canon ? 0 : -1;
}

/* Called for each canonical node: its m records in each order (ords[o]) and
 * its queries qs[0..nc-1] (in the order of qorder). */
typedef void (*md_node_fn)(void *nctx, int *const *ords, size_t m, const int *qs, size_t nc);

/* The segment tree over n records (by position), visited level by level,
 * top-down: a query's prefix, the first P records, is the root if P = n,
 * else the left children [lo, mid) of the nodes of its path with
 * mid <= P < hi. Returns the number of levels visited. */
static int tree_walk(md_tree *t, size_t n, const int *const *by, size_t nq, const int *qorder,
                     const int *prefix, md_node_fn node, void *nctx)
{
    int cur = 0, levels = 1, nord = t->nord;
    int *ords[3];
    for (int o = 0; o < nord; o++) memcpy(t->r[o][0], by[o], n * sizeof(int));
    /* the root: queries with P = n; active below it: 0 < P < n */
    size_t nc = 0, na = 0;
    for (size_t r = 0; r < nq; r++) {
        int i = qorder[r];
        size_t P = (size_t) prefix[i];
        if (P >= n) t->canon[nc++] = i;
        else if (P > 0) t->q[0][na++] = i;
    }
    for (int o = 0; o < nord; o++) ords[o] = t->r[o][0];
    node(nctx, ords, n, t->canon, nc);
    size_t nn = 0;
    if (na > 0) {
        t->nodes[0][0] = (md_node) { 0, n, 0, na };
        nn = 1;
    }
    while (nn > 0) {
        int nxt = 1 - cur;
        const int *q = t->q[cur];
        int *sq = t->q[nxt];
        md_node *next = t->nodes[nxt];
        size_t nnext = 0, qn = 0;
        levels++;
        for (size_t a = 0; a < nn; a++) {
            md_node nd = t->nodes[cur][a];
            size_t lo = nd.lo, hi = nd.hi, mid = lo + (hi - lo) / 2;
            /* the node's records split stably into its children */
            for (int o = 0; o < nord; o++) {
                const int *r = t->r[o][cur];
                int *s = t->r[o][nxt];
                size_t l = lo, h = mid;
                for (size_t k = lo; k < hi; k++) {
                    if ((size_t) r[k] < mid) s[l++] = r[k];
                    else s[h++] = r[k];
                }
                ords[o] = s + lo;
            }
            /* the left child is canonical for mid <= P (< hi) */
            nc = 0;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) prefix[q[k]] >= mid) t->canon[nc++] = q[k];
            node(nctx, ords, mid - lo, t->canon, nc);
            /* active in the left child: lo < P < mid; in the right: mid < P < hi */
            size_t start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) prefix[q[k]] < mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { lo, mid, start, qn };
            start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) prefix[q[k]] > mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { mid, hi, start, qn };
        }
        nn = nnext;
        cur = nxt;
    }
    return levels;
}

struct md_work {
    size_t n_max, nq;
    int V;
    md_tree tree;               /* orders: z2, z3; queries in t2 order */
    int *rank;                  /* per position: 1-based z3 rank within the node */
    int64_t *vec, *sum;
};

void md_work_free(md_work *w)
{
    if (!w) return;
    tree_free(&w->tree);
    free(w->rank);
    free(w->vec);
    free(w->sum);
    free(w);
}

md_work *md_work_alloc(size_t n_max, size_t nq, int V)
{
    md_work *w = calloc(1, sizeof(md_work));
    if (!w) return NULL;
    w->n_max = n_max;
    w->nq = nq;
    w->V = V;
    int ok = tree_alloc(&w->tree, 2, n_max, nq) == 0;
    w->rank = malloc((n_max + 1) * sizeof(int));
    w->vec = malloc((size_t) V * sizeof(int64_t));
    w->sum = malloc((size_t) V * sizeof(int64_t));
    if (!ok || !w->rank || !w->vec || !w->sum) {
        md_work_free(w);
        return NULL;
    }
    return w;
}

int md_levels(size_t n)
{
    int lev = 0;
    for (size_t m = n; m > 1; m -= m / 2) lev++;
    return lev + 1;
}

/* Node [lo, lo + m) with its records in z2 order at by2[0..m-1] and in z3
 * order at by3[0..m-1]; the queries qs[0..nc-1] in t2 order. */
static void node_sums(const md_problem *p, md_work *w, const int *by2, const int *by3,
                      size_t m, const int *qs, size_t nc, md_moments moments, md_emit emit,
                      void *ctx)
{
    int V = p->V;
    for (size_t k = 0; k < m; k++) w->rank[by3[k]] = (int) k + 1;
    memset(p->fen, 0, (m + 1) * (size_t) V * sizeof(int64_t));
    size_t at = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t i = (size_t) qs[c];
        double t2 = p->t2[i], t3 = p->t3[i];
        /* records with z2 <= t2 (raw values; ties are in), in z2 order */
        while (at < m && p->z2[by2[at]] <= t2) {
            moments(ctx, (size_t) by2[at], w->vec);
            for (size_t f = (size_t) w->rank[by2[at]]; f <= m; f += f & (~f + 1)) {
                int64_t *node = p->fen + f * V;
                for (int k = 0; k < V; k++) node[k] += w->vec[k];
            }
            at++;
        }
        if (at == 0) continue;
        /* z3 ranks 1..upper: the records with z3 <= t3 */
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (p->z3[by3[mid]] <= t3) lo = mid + 1;
            else hi = mid;
        }
        if (lo == 0) continue;
        memset(w->sum, 0, (size_t) V * sizeof(int64_t));
        for (size_t f = lo; f > 0; f -= f & (~f + 1)) {
            const int64_t *node = p->fen + f * V;
            for (int k = 0; k < V; k++) w->sum[k] += node[k];
        }
        emit(ctx, i, w->sum);
    }
}

typedef struct {
    const md_problem *p;
    md_work *w;
    md_moments moments;
    md_emit emit;
    void *ctx;
} md_ctx3;

static void node3(void *nctx, int *const *ords, size_t m, const int *qs, size_t nc)
{
    md_ctx3 *c = (md_ctx3 *) nctx;
    node_sums(c->p, c->w, ords[0], ords[1], m, qs, nc, c->moments, c->emit, c->ctx);
}

int md_dominance3(const md_problem *p, md_work *w, md_moments moments, md_emit emit, void *ctx)
{
    if (p->n == 0) return 0;
    const int *by[2] = { p->by2, p->by3 };
    md_ctx3 c = { p, w, moments, emit, ctx };
    return tree_walk(&w->tree, p->n, by, p->nq, p->qorder, p->prefix, node3, &c);
}

/* ---- four dimensions ----------------------------------------------------- */

struct md_work4 {
    size_t n_max, nq;
    md_tree tree;               /* orders: z2, z3, z4; queries in t3 order */
    int *loc;                   /* per position: its index in the node's z2 order */
    double *lz3, *lz4;          /* the node's records in z2 order: z3, z4 */
    int *lby3, *lby4;           /* the node's local indices in z3 (z4) order */
    int *pfx;                   /* per query: the node's records with z2 <= t2 */
    md_work *inner;
};

void md_work4_free(md_work4 *w)
{
    if (!w) return;
    tree_free(&w->tree);
    free(w->loc);
    free(w->lz3);
    free(w->lz4);
    free(w->lby3);
    free(w->lby4);
    free(w->pfx);
    md_work_free(w->inner);
    free(w);
}

md_work4 *md_work4_alloc(size_t n_max, size_t nq, int V)
{
    md_work4 *w = calloc(1, sizeof(md_work4));
    if (!w) return NULL;
    w->n_max = n_max;
    w->nq = nq;
    int ok = tree_alloc(&w->tree, 3, n_max, nq) == 0;
    w->loc = malloc((n_max + 1) * sizeof(int));
    w->lz3 = malloc((n_max + 1) * sizeof(double));
    w->lz4 = malloc((n_max + 1) * sizeof(double));
    w->lby3 = malloc((n_max + 1) * sizeof(int));
    w->lby4 = malloc((n_max + 1) * sizeof(int));
    w->pfx = malloc((nq + 1) * sizeof(int));
    w->inner = md_work_alloc(n_max, nq, V);
    if (!ok || !w->loc || !w->lz3 || !w->lz4 || !w->lby3 || !w->lby4 || !w->pfx || !w->inner) {
        md_work4_free(w);
        return NULL;
    }
    return w;
}

typedef struct {
    const int *by2;             /* the node's positions in z2 order */
    md_moments moments;
    md_emit emit;
    void *ctx;
} md_inner_ctx;

static void inner_emit(void *ctx, size_t i, const int64_t *sum)
{
    const md_inner_ctx *c = (const md_inner_ctx *) ctx;
    c->emit(c->ctx, i, sum);
}

static void inner_moments(void *ctx, size_t local, int64_t *vec)
{
    const md_inner_ctx *c = (const md_inner_ctx *) ctx;
    c->moments(c->ctx, (size_t) c->by2[local], vec);
}

/* Canonical node with m records: by2, by3, by4 its positions in z2, z3, z4
 * order; the queries qs[0..nc-1] in t3 order. Returns the inner levels. */
static int node4_sums(const md_problem4 *p, md_work4 *w, const int *by2, const int *by3,
                      const int *by4, size_t m, const int *qs, size_t nc, md_moments moments,
                      md_emit emit, void *ctx)
{
    if (nc == 0 || m == 0) return 0;
    for (size_t k = 0; k < m; k++) {
        w->loc[by2[k]] = (int) k;
        w->lz3[k] = p->z3[by2[k]];
        w->lz4[k] = p->z4[by2[k]];
    }
    for (size_t k = 0; k < m; k++) {
        w->lby3[k] = w->loc[by3[k]];
        w->lby4[k] = w->loc[by4[k]];
    }
    for (size_t c = 0; c < nc; c++) {
        int i = qs[c];
        double t2 = p->t2[i];
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (p->z2[by2[mid]] <= t2) lo = mid + 1;
            else hi = mid;
        }
        w->pfx[i] = (int) lo;
    }
    md_problem pb = { m, w->lz3, w->lz4, w->lby3, w->lby4, nc, qs, w->pfx, p->t3, p->t4, p->V,
                      p->fen };
    md_inner_ctx ic = { by2, moments, emit, ctx };
    return md_dominance3(&pb, w->inner, inner_moments, inner_emit, &ic);
}

typedef struct {
    const md_problem4 *p;
    md_work4 *w;
    md_moments moments;
    md_emit emit;
    void *ctx;
    int inner;                  /* the most inner levels of a node */
} md_ctx4;

static void node4(void *nctx, int *const *ords, size_t m, const int *qs, size_t nc)
{
    md_ctx4 *c = (md_ctx4 *) nctx;
    int got = node4_sums(c->p, c->w, ords[0], ords[1], ords[2], m, qs, nc, c->moments, c->emit,
                         c->ctx);
    if (got > c->inner) c->inner = got;
}

int md_dominance4(const md_problem4 *p, md_work4 *w, md_moments moments, md_emit emit,
                  void *ctx)
{
    if (p->n == 0) return 0;
    const int *by[3] = { p->by2, p->by3, p->by4 };
    md_ctx4 c = { p, w, moments, emit, ctx, 0 };
    int levels = tree_walk(&w->tree, p->n, by, p->nq, p->qorder, p->prefix, node4, &c);
    return levels * (c.inner > 0 ? c.inner : 1);
}
