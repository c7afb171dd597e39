/* Three-dimensional dominance sums by a segment tree over z1 with, per node,
 * a sweep in z2 order over a Fenwick tree of z3 ranks: see
 * match_dominance.h. */
#include <stdlib.h>
#include <string.h>
#include "match_dominance.h"

typedef struct {
    size_t lo, hi;              /* records [lo, hi) in z1 order */
    size_t qs, qe;              /* its active queries in the current list */
} md_node;

struct md_work {
    size_t n_max, nq;
    int V;
    int *r2[2], *r3[2];         /* per level: positions in z2 (z3) order within each node */
    int *rank;                  /* per position: 1-based z3 rank within the node */
    int *q[2];                  /* per level: active queries grouped by node, in t2 order */
    int *canon;                 /* the queries of one canonical node */
    md_node *nodes[2];
    int64_t *vec, *sum;
};

void md_work_free(md_work *w)
{
    if (!w) return;
    for (int k = 0; k < 2; k++) {
        free(w->r2[k]);
        free(w->r3[k]);
        free(w->q[k]);
        free(w->nodes[k]);
    }
    free(w->rank);
    free(w->canon);
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
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        w->r2[k] = malloc((n_max + 1) * sizeof(int));
        w->r3[k] = malloc((n_max + 1) * sizeof(int));
        w->q[k] = malloc((nq + 1) * sizeof(int));
        /* the active nodes of a level are disjoint, of at least 2 records */
        w->nodes[k] = malloc((n_max / 2 + 2) * sizeof(md_node));
        ok = ok && w->r2[k] && w->r3[k] && w->q[k] && w->nodes[k];
    }
    w->rank = malloc((n_max + 1) * sizeof(int));
    w->canon = malloc((nq + 1) * sizeof(int));
    w->vec = malloc((size_t) V * sizeof(int64_t));
    w->sum = malloc((size_t) V * sizeof(int64_t));
    if (!ok || !w->rank || !w->canon || !w->vec || !w->sum) {
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

int md_dominance3(const md_problem *p, md_work *w, md_moments moments, md_emit emit, void *ctx)
{
    size_t n = p->n;
    if (n == 0) return 0;
    int cur = 0, levels = 1;
    memcpy(w->r2[0], p->by2, n * sizeof(int));
    memcpy(w->r3[0], p->by3, n * sizeof(int));
    /* the root: queries with P = n; active below it: 0 < P < n */
    size_t nc = 0, na = 0;
    for (size_t r = 0; r < p->nq; r++) {
        int i = p->qorder[r];
        size_t P = (size_t) p->prefix[i];
        if (P >= n) w->canon[nc++] = i;
        else if (P > 0) w->q[0][na++] = i;
    }
    node_sums(p, w, w->r2[0], w->r3[0], n, w->canon, nc, moments, emit, ctx);
    size_t nn = 0;
    if (na > 0) {
        w->nodes[0][0] = (md_node) { 0, n, 0, na };
        nn = 1;
    }
    while (nn > 0) {
        int nxt = 1 - cur;
        const int *r2 = w->r2[cur], *r3 = w->r3[cur], *q = w->q[cur];
        int *s2 = w->r2[nxt], *s3 = w->r3[nxt], *sq = w->q[nxt];
        md_node *next = w->nodes[nxt];
        size_t nnext = 0, qn = 0;
        levels++;
        for (size_t a = 0; a < nn; a++) {
            md_node nd = w->nodes[cur][a];
            size_t lo = nd.lo, hi = nd.hi, mid = lo + (hi - lo) / 2;
            /* the node's records split stably into its children */
            size_t l2 = lo, h2 = mid, l3 = lo, h3 = mid;
            for (size_t k = lo; k < hi; k++) {
                if ((size_t) r2[k] < mid) s2[l2++] = r2[k];
                else s2[h2++] = r2[k];
                if ((size_t) r3[k] < mid) s3[l3++] = r3[k];
                else s3[h3++] = r3[k];
            }
            /* the left child is canonical for mid <= P (< hi) */
            nc = 0;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] >= mid) w->canon[nc++] = q[k];
            node_sums(p, w, s2 + lo, s3 + lo, mid - lo, w->canon, nc, moments, emit, ctx);
            /* active in the left child: lo < P < mid; in the right: mid < P < hi */
            size_t start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] < mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { lo, mid, start, qn };
            start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] > mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { mid, hi, start, qn };
        }
        nn = nnext;
        cur = nxt;
    }
    return levels;
}

/* ---- four dimensions ----------------------------------------------------- */

struct md_work4 {
    size_t n_max, nq;
    int *r2[2], *r3[2], *r4[2];  /* per level: positions in z2, z3, z4 order within each node */
    int *q[2];
    int *canon;
    md_node *nodes[2];
    int *loc;                   /* per position: its index in the node's z2 order */
    double *lz3, *lz4;          /* the node's records in z2 order: z3, z4 */
    int *lby3, *lby4;           /* the node's local indices in z3 (z4) order */
    int *pfx;                   /* per query: the node's records with z2 <= t2 */
    md_work *inner;
};

void md_work4_free(md_work4 *w)
{
    if (!w) return;
    for (int k = 0; k < 2; k++) {
        free(w->r2[k]);
        free(w->r3[k]);
        free(w->r4[k]);
        free(w->q[k]);
        free(w->nodes[k]);
    }
    free(w->canon);
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
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        w->r2[k] = malloc((n_max + 1) * sizeof(int));
        w->r3[k] = malloc((n_max + 1) * sizeof(int));
        w->r4[k] = malloc((n_max + 1) * sizeof(int));
        w->q[k] = malloc((nq + 1) * sizeof(int));
        w->nodes[k] = malloc((n_max / 2 + 2) * sizeof(md_node));
        ok = ok && w->r2[k] && w->r3[k] && w->r4[k] && w->q[k] && w->nodes[k];
    }
    w->canon = malloc((nq + 1) * sizeof(int));
    w->loc = malloc((n_max + 1) * sizeof(int));
    w->lz3 = malloc((n_max + 1) * sizeof(double));
    w->lz4 = malloc((n_max + 1) * sizeof(double));
    w->lby3 = malloc((n_max + 1) * sizeof(int));
    w->lby4 = malloc((n_max + 1) * sizeof(int));
    w->pfx = malloc((nq + 1) * sizeof(int));
    w->inner = md_work_alloc(n_max, nq, V);
    if (!ok || !w->canon || !w->loc || !w->lz3 || !w->lz4 || !w->lby3 || !w->lby4 ||
        !w->pfx || !w->inner) {
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

int md_dominance4(const md_problem4 *p, md_work4 *w, md_moments moments, md_emit emit,
                  void *ctx)
{
    size_t n = p->n;
    if (n == 0) return 0;
    int cur = 0, levels = 1, inner = 0, got;
    memcpy(w->r2[0], p->by2, n * sizeof(int));
    memcpy(w->r3[0], p->by3, n * sizeof(int));
    memcpy(w->r4[0], p->by4, n * sizeof(int));
    size_t nc = 0, na = 0;
    for (size_t r = 0; r < p->nq; r++) {
        int i = p->qorder[r];
        size_t P = (size_t) p->prefix[i];
        if (P >= n) w->canon[nc++] = i;
        else if (P > 0) w->q[0][na++] = i;
    }
    /* the canonical queries are copied: the inner structure uses canon */
    got = node4_sums(p, w, w->r2[0], w->r3[0], w->r4[0], n, w->canon, nc, moments, emit, ctx);
    if (got > inner) inner = got;
    size_t nn = 0;
    if (na > 0) {
        w->nodes[0][0] = (md_node) { 0, n, 0, na };
        nn = 1;
    }
    while (nn > 0) {
        int nxt = 1 - cur;
        const int *r2 = w->r2[cur], *r3 = w->r3[cur], *r4 = w->r4[cur], *q = w->q[cur];
        int *s2 = w->r2[nxt], *s3 = w->r3[nxt], *s4 = w->r4[nxt], *sq = w->q[nxt];
        md_node *next = w->nodes[nxt];
        size_t nnext = 0, qn = 0;
        levels++;
        for (size_t a = 0; a < nn; a++) {
            md_node nd = w->nodes[cur][a];
            size_t lo = nd.lo, hi = nd.hi, mid = lo + (hi - lo) / 2;
            size_t l2 = lo, h2 = mid, l3 = lo, h3 = mid, l4 = lo, h4 = mid;
            for (size_t k = lo; k < hi; k++) {
                if ((size_t) r2[k] < mid) s2[l2++] = r2[k];
                else s2[h2++] = r2[k];
                if ((size_t) r3[k] < mid) s3[l3++] = r3[k];
                else s3[h3++] = r3[k];
                if ((size_t) r4[k] < mid) s4[l4++] = r4[k];
                else s4[h4++] = r4[k];
            }
            nc = 0;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] >= mid) w->canon[nc++] = q[k];
            got = node4_sums(p, w, s2 + lo, s3 + lo, s4 + lo, mid - lo, w->canon, nc, moments,
                             emit, ctx);
            if (got > inner) inner = got;
            size_t start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] < mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { lo, mid, start, qn };
            start = qn;
            for (size_t k = nd.qs; k < nd.qe; k++)
                if ((size_t) p->prefix[q[k]] > mid) sq[qn++] = q[k];
            if (qn > start) next[nnext++] = (md_node) { mid, hi, start, qn };
        }
        nn = nnext;
        cur = nxt;
    }
    return levels * (inner > 0 ? inner : 1);
}
