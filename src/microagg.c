/* MDAV microaggregation and rank swapping (methods vignette section 15); see microagg.h for
 * the exactness contract. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "microagg.h"

#define KD_LEAF 8

/* ---- k-d tree with removals ---------------------------------------------------- */

/* Node fields together (one cache line), children of a node next to each
 * other in the node array. */
typedef struct {
    int start, end;  /* records of the node: tree positions start .. end - 1 */
    int left, right, parent;
    int count;       /* remaining records under the node */
    int minidx;      /* lowest remaining row number under the node */
    int pad;
} kdnode;

typedef struct {
    const double *x; /* n x p, row-major, by row number */
    double *xs;      /* the same values in tree order: xs[e p + j] = x[perm[e] p + j] */
    int p;
    int *alive;      /* by row: 1 while the record is not yet in a group */
    int *palive;     /* the same by tree position */
    int *perm;       /* row at tree position e */
    int *pos;        /* tree position of row i */
    int *leaf_of;    /* leaf of each row */
    kdnode *nd;
    double *box;     /* tight box of the remaining records: nodes x 2p, lo then hi */
    double *tmp;     /* 2p + 1 scratch */
    int nnodes;
} kdtree;

static double key_of(const kdtree *t, int i, int dim)
{
    return t->x[(size_t) i * t->p + dim];
}

/* Reorder a[0..len-1] so that a[m] holds the record of rank m along dim,
 * smaller keys before it and larger after (three-way partitions, so long
 * runs of equal keys cost linear time). */
static void select_nth(const kdtree *t, int *a, int len, int m, int dim)
{
    int lo = 0, hi = len - 1;
    while (hi > lo) {
        int mid = lo + (hi - lo) / 2;
        double ka = key_of(t, a[lo], dim), kb = key_of(t, a[mid], dim),
               kc = key_of(t, a[hi], dim);
        double pivot = ka < kb ? (kb < kc ? kb : (ka < kc ? kc : ka))
                               : (ka < kc ? ka : (kb < kc ? kc : kb));
        int lt = lo, gt = hi, i = lo;
        while (i <= gt) {
            double v = key_of(t, a[i], dim);
            if (v < pivot) {
                int tmp = a[lt]; a[lt] = a[i]; a[i] = tmp; lt++; i++;
            } else if (v > pivot) {
                int tmp = a[gt]; a[gt] = a[i]; a[i] = tmp; gt--;
            } else {
                i++;
            }
        }
        if (m < lt) hi = lt - 1;
        else if (m > gt) lo = gt + 1;
        else return;
    }
}

/* Box, count and lowest row number of a leaf from its remaining records. */
static void leaf_refresh(kdtree *t, int v)
{
    int p = t->p, c = 0, mi = -1;
    double *lo = t->box + (size_t) v * 2 * p, *hi = lo + p;
    for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
        if (!t->palive[e]) continue;
        int i = t->perm[e];
        const double *xi = t->xs + (size_t) e * p;
        if (c == 0) {
            for (int j = 0; j < p; j++) lo[j] = hi[j] = xi[j];
            mi = i;
        } else {
            for (int j = 0; j < p; j++) {
                if (xi[j] < lo[j]) lo[j] = xi[j];
                if (xi[j] > hi[j]) hi[j] = xi[j];
            }
            if (i < mi) mi = i;
        }
        c++;
    }
    t->nd[v].count = c;
    t->nd[v].minidx = mi;
}

/* An inner node from its children (the union of the non-empty ones). */
static void inner_refresh(kdtree *t, int v)
{
    int p = t->p, a = t->nd[v].left, b = t->nd[v].right;
    double *bv = t->box + (size_t) v * 2 * p;
    const double *ba = t->box + (size_t) a * 2 * p, *bb = t->box + (size_t) b * 2 * p;
    t->nd[v].count = t->nd[a].count + t->nd[b].count;
    if (t->nd[a].count == 0 || t->nd[b].count == 0) {
        int c = t->nd[a].count ? a : b;
        memcpy(bv, t->box + (size_t) c * 2 * p, 2 * p * sizeof(double));
        t->nd[v].minidx = t->nd[c].count ? t->nd[c].minidx : -1;
        return;
    }
    for (int j = 0; j < p; j++) {
        bv[j] = ba[j] < bb[j] ? ba[j] : bb[j];
        bv[p + j] = ba[p + j] > bb[p + j] ? ba[p + j] : bb[p + j];
    }
    t->nd[v].minidx = t->nd[a].minidx < t->nd[b].minidx ? t->nd[a].minidx : t->nd[b].minidx;
}

/* Builds the subtree of tree positions start .. end - 1 as node v, its
 * children (when it has any) as the pair *next, *next + 1. */
static void kd_build(kdtree *t, int v, int start, int end, int parent, int *next)
{
    t->nd[v].start = start;
    t->nd[v].end = end;
    t->nd[v].parent = parent;
    t->nd[v].left = t->nd[v].right = -1;
    t->nd[v].pad = 0;
    if (end - start <= KD_LEAF) {
        for (int e = start; e < end; e++) t->leaf_of[t->perm[e]] = v;
        return;
    }
    /* split at the median of the widest coordinate of the records */
    int p = t->p, dim = 0;
    double best = -1.0;
    for (int j = 0; j < p; j++) {
        double lo = key_of(t, t->perm[start], j), hi = lo;
        for (int e = start + 1; e < end; e++) {
            double z = key_of(t, t->perm[e], j);
            if (z < lo) lo = z;
            if (z > hi) hi = z;
        }
        if (hi - lo > best) { best = hi - lo; dim = j; }
    }
    int mid = (end - start) / 2;
    select_nth(t, t->perm + start, end - start, mid, dim);
    int a = *next;
    *next += 2;
    t->nd[v].left = a;
    t->nd[v].right = a + 1;
    kd_build(t, a, start, start + mid, v, next);
    kd_build(t, a + 1, start + mid, end, v, next);
}

/* Boxes, counts and lowest row numbers of every node, children first. */
static void kd_refresh_all(kdtree *t, int v)
{
    if (t->nd[v].left < 0) {
        leaf_refresh(t, v);
        return;
    }
    kd_refresh_all(t, t->nd[v].left);
    kd_refresh_all(t, t->nd[v].right);
    inner_refresh(t, v);
}

/* Record i leaves the tree. Going up, once a node's box and lowest row
 * number come out unchanged, those of its ancestors cannot change either:
 * only their counts drop. */
static void kd_remove(kdtree *t, int i)
{
    int p = t->p;
    size_t bytes = 2 * (size_t) p * sizeof(double);
    t->alive[i] = 0;
    t->palive[t->pos[i]] = 0;
    int v = t->leaf_of[i];
    memcpy(t->tmp, t->box + (size_t) v * 2 * p, bytes);
    int mi = t->nd[v].minidx;
    leaf_refresh(t, v);
    int changed = t->nd[v].minidx != mi ||
                  (t->nd[v].count > 0 && memcmp(t->tmp, t->box + (size_t) v * 2 * p, bytes));
    for (v = t->nd[v].parent; v >= 0; v = t->nd[v].parent) {
        if (!changed) {
            t->nd[v].count--;
            continue;
        }
        memcpy(t->tmp, t->box + (size_t) v * 2 * p, bytes);
        mi = t->nd[v].minidx;
        inner_refresh(t, v);
        changed = t->nd[v].minidx != mi ||
                  (t->nd[v].count > 0 && memcmp(t->tmp, t->box + (size_t) v * 2 * p, bytes));
    }
}

static double sqdist(const double *a, const double *c, int p)
{
    double d = 0.0;
    for (int j = 0; j < p; j++) {
        double u = a[j] - c[j];
        d += u * u;
    }
    return d;
}

/* Bounds on the squared distance from c to any remaining record of node v.
 * Rounding is monotone, so fl(z - c)^2 over z in [lo, hi] is bounded by the
 * same expression at the box ends: the bounds hold for the computed
 * distances, not only the exact ones. */
static double box_upper(const kdtree *t, int v, const double *c)
{
    const double *lo = t->box + (size_t) v * 2 * t->p, *hi = lo + t->p;
    double d = 0.0;
    for (int j = 0; j < t->p; j++) {
        double a = lo[j] - c[j], b = hi[j] - c[j];
        a *= a;
        b *= b;
        d += a > b ? a : b;
    }
    return d;
}

static double box_lower(const kdtree *t, int v, const double *c)
{
    const double *lo = t->box + (size_t) v * 2 * t->p, *hi = lo + t->p;
    double d = 0.0;
    for (int j = 0; j < t->p; j++) {
        double u = 0.0;
        if (c[j] < lo[j]) u = lo[j] - c[j];
        else if (c[j] > hi[j]) u = hi[j] - c[j];
        d += u * u;
    }
    return d;
}

/* Farthest remaining record from c other than `skip` (ties: lower row). */
typedef struct { double d; int i; } best_rec;

/* ub: box_upper() of node v (computed once, by the caller). */
static void far_node(const kdtree *t, int v, double ub, const double *c, int skip, best_rec *b)
{
    if (ub < b->d || (ub == b->d && t->nd[v].minidx > b->i)) return;
    if (t->nd[v].left < 0) {
        for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
            int i = t->perm[e];
            if (!t->palive[e] || i == skip) continue;
            double d = sqdist(t->xs + (size_t) e * t->p, c, t->p);
            if (d > b->d || (d == b->d && i < b->i)) { b->d = d; b->i = i; }
        }
        return;
    }
    int a = t->nd[v].left, z = t->nd[v].right;
    if (!t->nd[a].count) {
        if (t->nd[z].count) far_node(t, z, box_upper(t, z, c), c, skip, b);
        return;
    }
    if (!t->nd[z].count) {
        far_node(t, a, box_upper(t, a, c), c, skip, b);
        return;
    }
    double ua = box_upper(t, a, c), uz = box_upper(t, z, c);
    if (uz > ua) {
        far_node(t, z, uz, c, skip, b);
        far_node(t, a, ua, c, skip, b);
    } else {
        far_node(t, a, ua, c, skip, b);
        far_node(t, z, uz, c, skip, b);
    }
}

static void far_search(const kdtree *t, int v, const double *c, int skip, best_rec *b)
{
    if (t->nd[v].count == 0) return;
    far_node(t, v, box_upper(t, v, c), c, skip, b);
}

static int farthest(const kdtree *t, const double *c, int skip)
{
    best_rec b = {-1.0, -1};
    far_search(t, 0, c, skip, &b);
    return b.i;
}

/* The m nearest remaining records to c other than `skip`, in a max-heap on
 * (distance, row number). */
typedef struct { double *d; int *i; int size, cap; } nn_heap;

static int heap_above(const nn_heap *h, int a, int b) /* a after b in order */
{
    return h->d[a] > h->d[b] || (h->d[a] == h->d[b] && h->i[a] > h->i[b]);
}

static void heap_swap(nn_heap *h, int a, int b)
{
    double td = h->d[a]; h->d[a] = h->d[b]; h->d[b] = td;
    int ti = h->i[a]; h->i[a] = h->i[b]; h->i[b] = ti;
}

static void heap_offer(nn_heap *h, double d, int i)
{
    if (h->size < h->cap) {
        int e = h->size++;
        h->d[e] = d;
        h->i[e] = i;
        while (e > 0 && heap_above(h, e, (e - 1) / 2)) {
            heap_swap(h, e, (e - 1) / 2);
            e = (e - 1) / 2;
        }
        return;
    }
    if (!(d < h->d[0] || (d == h->d[0] && i < h->i[0]))) return;
    h->d[0] = d;
    h->i[0] = i;
    int e = 0;
    for (;;) {
        int l = 2 * e + 1, r = l + 1, top = e;
        if (l < h->size && heap_above(h, l, top)) top = l;
        if (r < h->size && heap_above(h, r, top)) top = r;
        if (top == e) break;
        heap_swap(h, e, top);
        e = top;
    }
}

static void near_search(const kdtree *t, int v, const double *c, int skip, nn_heap *h)
{
    if (t->nd[v].count == 0) return;
    if (h->size == h->cap) {
        double lb = box_lower(t, v, c);
        if (lb > h->d[0] || (lb == h->d[0] && t->nd[v].minidx > h->i[0])) return;
    }
    if (t->nd[v].left < 0) {
        for (int e = t->nd[v].start; e < t->nd[v].end; e++) {
            int i = t->perm[e];
            if (!t->palive[e] || i == skip) continue;
            heap_offer(h, sqdist(t->xs + (size_t) e * t->p, c, t->p), i);
        }
        return;
    }
    int a = t->nd[v].left, z = t->nd[v].right;
    if (t->nd[a].count && t->nd[z].count && box_lower(t, z, c) < box_lower(t, a, c)) {
        int tmp = a; a = z; z = tmp;
    }
    near_search(t, a, c, skip, h);
    near_search(t, z, c, skip, h);
}

/* ---- centroid sums: a segment tree over the rows ---------------------------------- */

typedef struct {
    const double *x; /* n x p, row-major */
    const int *alive;
    size_t n, leaves; /* leaves = 2^ceil(log2 n) */
    int p;
    double *node;     /* inner nodes 1 .. leaves - 1, p values each */
} sumtree;

static double sum_child(const sumtree *s, size_t c, int j)
{
    if (c < s->leaves) return s->node[c * s->p + j];
    size_t i = c - s->leaves;
    return (i < s->n && s->alive[i]) ? s->x[i * s->p + j] : 0.0;
}

static void sum_refresh(sumtree *s, size_t v)
{
    for (int j = 0; j < s->p; j++)
        s->node[v * s->p + j] = sum_child(s, 2 * v, j) + sum_child(s, 2 * v + 1, j);
}

static void sum_remove(sumtree *s, size_t i) /* after alive[i] = 0 */
{
    for (size_t v = (s->leaves + i) / 2; v >= 1; v /= 2) sum_refresh(s, v);
}

static void centroid(const sumtree *s, size_t m, double *c)
{
    for (int j = 0; j < s->p; j++)
        c[j] = (s->leaves == 1 ? sum_child(s, 1, j) : s->node[s->p + j]) / (double) m;
}

static size_t pow2_at_least(size_t n)
{
    size_t l = 1;
    while (l < n) l *= 2;
    return l;
}

/* ---- farthest from the centroid: a radius-sorted list -------------------------------- */
/* The centroid moves little between MDAV steps, so the remaining records are
 * kept sorted by their distance from an earlier centroid c0. By the triangle
 * inequality a record i is at most rad_i + |c - c0| from the current
 * centroid c: scanning in decreasing rad_i can stop at the first record
 * whose bound falls clearly below the best distance found, and every record
 * after it is strictly nearer. The bound has a relative margin far above
 * rounding, so the scan returns exactly the record the full scan would. A
 * scan that runs long (the centroid has drifted, or many records tie)
 * defers to the k-d tree and the list is rebuilt around the new centroid
 * once an eighth of its records have been grouped (O(n log n) overall). */

#define RAD_SCAN_MAX 2048
#define RAD_MARGIN 1e-9
#define RAD_SCAN_SEED 64

typedef struct { double rad; int i; } rad_rec;

typedef struct {
    rad_rec *rec;
    double *c0;
    size_t len, head, alive_at_build;
} rad_list;

static int rad_desc(const void *a, const void *b)
{
    double ra = ((const rad_rec *) a)->rad, rb = ((const rad_rec *) b)->rad;
    return ra < rb ? 1 : (ra > rb ? -1 : 0);
}

static void rad_build(rad_list *L, const kdtree *t, size_t n, size_t remaining, const double *c)
{
    memcpy(L->c0, c, t->p * sizeof(double));
    L->len = 0;
    for (size_t i = 0; i < n; i++) {
        if (!t->alive[i]) continue;
        L->rec[L->len].rad = sqrt(sqdist(t->x + i * t->p, c, t->p));
        L->rec[L->len].i = (int) i;
        L->len++;
    }
    qsort(L->rec, L->len, sizeof(rad_rec), rad_desc);
    L->head = 0;
    L->alive_at_build = remaining;
}

/* The farthest remaining record from q other than `skip`. q is the centroid
 * (rebuild = 1: a long scan may re-centre the list) or a record. */
static int farthest_by_radius(rad_list *L, const kdtree *t, size_t n, size_t remaining,
                              const double *q, int skip, int rebuild)
{
    if (L->len == 0) rad_build(L, t, n, remaining, q);
    while (L->head < L->len && !t->alive[L->rec[L->head].i]) L->head++;
    double offset = sqrt(sqdist(q, L->c0, t->p));
    best_rec b = {-1.0, -1};
    size_t scanned = 0;
    for (size_t e = L->head; e < L->len; e++) {
        int i = L->rec[e].i;
        if (!t->alive[i] || i == skip) continue;
        if (b.i >= 0 && (L->rec[e].rad + offset) * (1 + RAD_MARGIN) < sqrt(b.d)) return b.i;
        double d = sqdist(t->x + (size_t) i * t->p, q, t->p);
        if (d > b.d || (d == b.d && i < b.i)) { b.d = d; b.i = i; }
        if (++scanned > (rebuild ? RAD_SCAN_MAX : RAD_SCAN_SEED)) {
            if (rebuild && remaining * 8 <= L->alive_at_build * 7) rad_build(L, t, n, remaining, q);
            /* the k-d tree finishes the search, pruning against the best
             * record found so far */
            far_search(t, 0, q, skip, &b);
            return b.i;
        }
    }
    return b.i;
}

/* ---- MDAV ------------------------------------------------------------------------------ */

static size_t kd_max_nodes(size_t n)
{
    /* leaves hold more than KD_LEAF / 2 records, except a lone root */
    return n / (KD_LEAF / 2) * 2 + 2;
}

mdav_sizes mdav_scratch_sizes(size_t n, int p)
{
    size_t nodes = kd_max_nodes(n), leaves = pow2_at_least(n);
    mdav_sizes s;
    s.n_double = n * p + 2 * nodes * p + leaves * p + p + n + 2 * n + p + n * p + 2 * p + 1;
    s.n_int = 6 * n + 8 * nodes;
    return s;
}

typedef struct {
    kdtree *t;
    sumtree *s;
    nn_heap *h;
    int *group;
    size_t remaining;
} mdav_state;

/* Record r and its k - 1 nearest remaining records become group g. */
static void take_group(mdav_state *st, int r, int k, int g)
{
    const kdtree *t = st->t;
    st->h->size = 0;
    st->h->cap = k - 1;
    if (k > 1) near_search(t, 0, t->x + (size_t) r * t->p, r, st->h);
    int size = st->h->size;
    for (int e = 0; e <= size; e++) {
        int i = e < size ? st->h->i[e] : r;
        st->group[i] = g;
        kd_remove(st->t, i);
        sum_remove(st->s, (size_t) i);
    }
    st->remaining -= (size_t) size + 1;
}

int mdav_groups(const double *z, size_t n, int p, int k, int *group,
                double *dscratch, int *iscratch, void (*interrupt)(void))
{
    if (n == 0) return 0;
    size_t nodes = kd_max_nodes(n), leaves = pow2_at_least(n);
    double *x = dscratch, *c = x + n * p + 2 * nodes * p + leaves * p;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < p; j++) x[i * p + j] = z[i + (size_t) j * n];

    kdtree t;
    t.x = x;
    t.p = p;
    t.box = x + n * p;
    t.alive = iscratch;
    t.perm = t.alive + n;
    t.leaf_of = t.perm + n;
    t.nd = (kdnode *) (t.leaf_of + n);
    int *heap_i = t.leaf_of + n + 8 * nodes;
    t.palive = heap_i + n;
    t.pos = t.palive + n;
    double *heap_d = c + p;
    t.xs = heap_d + n + 2 * n + p;
    t.tmp = t.xs + n * p;
    for (size_t i = 0; i < n; i++) {
        t.alive[i] = 1;
        t.perm[i] = (int) i;
    }
    int next = 1;
    kd_build(&t, 0, 0, (int) n, -1, &next);
    t.nnodes = next;
    for (size_t e = 0; e < n; e++) {
        int i = t.perm[e];
        t.pos[i] = (int) e;
        t.palive[e] = 1;
        memcpy(t.xs + e * p, x + (size_t) i * p, p * sizeof(double));
    }
    kd_refresh_all(&t, 0);

    sumtree s;
    s.x = x;
    s.alive = t.alive;
    s.n = n;
    s.leaves = leaves;
    s.p = p;
    s.node = t.box + 2 * nodes * p;
    for (size_t v = leaves - 1; v >= 1; v--) sum_refresh(&s, v);

    rad_list L;
    L.rec = (rad_rec *) (heap_d + n);
    L.c0 = heap_d + n + 2 * n;
    L.len = 0;
    nn_heap h = {heap_d, heap_i, 0, 0};
    mdav_state st = {&t, &s, &h, group, n};
    size_t kk = (size_t) k;
    int g = 0;
    while (st.remaining >= 3 * kk) {
        centroid(&s, st.remaining, c);
        int r = farthest_by_radius(&L, &t, n, st.remaining, c, -1, 1);
        int sfar = farthest_by_radius(&L, &t, n, st.remaining, x + (size_t) r * p, r, 0);
        take_group(&st, r, k, ++g);
        /* s joined r's group only when every remaining record ties with it
         * in distance from r: take the next farthest */
        if (!t.alive[sfar]) sfar = farthest(&t, x + (size_t) r * p, -1);
        take_group(&st, sfar, k, ++g);
        if (interrupt && g % 512 == 0) interrupt();
    }
    if (st.remaining >= 2 * kk) {
        centroid(&s, st.remaining, c);
        take_group(&st, farthest(&t, c, -1), k, ++g);
    }
    if (st.remaining > 0) {
        g++;
        for (size_t i = 0; i < n; i++)
            if (t.alive[i]) group[i] = g;
    }
    return g;
}

/* ---- rank swapping --------------------------------------------------------------------- */

/* Fenwick tree over positions 1..n holding 1 for each rank not yet swapped. */
static void fen_add(int *f, size_t n, size_t pos, int delta)
{
    for (; pos <= n; pos += pos & (~pos + 1)) f[pos] += delta;
}

static int fen_prefix(const int *f, size_t pos)
{
    int s = 0;
    for (; pos > 0; pos -= pos & (~pos + 1)) s += f[pos];
    return s;
}

/* Smallest position whose prefix sum reaches target (>= 1). */
static size_t fen_select(const int *f, size_t n, int target)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= n) step *= 2;
    for (; step > 0; step /= 2) {
        if (pos + step <= n && f[pos + step] < target) {
            pos += step;
            target -= f[pos];
        }
    }
    return pos + 1;
}

void rank_swap(size_t n, size_t w, int *partner, int *scratch,
               double (*unif_index)(double), void (*interrupt)(void))
{
    int *f = scratch; /* f[1..n] */
    f[0] = 0;
    for (size_t pos = 1; pos <= n; pos++) f[pos] = (int) (pos & (~pos + 1));
    for (size_t i = 0; i < n; i++) partner[i] = -1;
    for (size_t i = 0; i < n; i++) {
        if (interrupt && (i & 0xFFFF) == 0xFFFF) interrupt();
        if (partner[i] >= 0) continue;
        fen_add(f, n, i + 1, -1);
        /* every rank below i is done, so the prefix counts (i, i + w] */
        size_t top = i + w < n - 1 ? i + w : n - 1;
        int count = fen_prefix(f, top + 1);
        if (count == 0) {
            partner[i] = (int) i;
            continue;
        }
        int pick = (int) unif_index((double) count);
        size_t j = fen_select(f, n, pick + 1) - 1;
        partner[i] = (int) j;
        partner[j] = (int) i;
        fen_add(f, n, j + 1, -1);
    }
}
