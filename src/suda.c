/* SUDA2: minimal sample uniques by recursive search (methods vignette section 14).
 *
 * Items are (key, value) pairs. A table T is a set of records with the
 * items still allowed in it; its sub-table T_i holds the records of T that
 * contain item i, with the items of T ranked after i. Properties used
 * (Manning, Haglin & Keane 2008):
 *  - an item seen once in T is an MSU of size 1 of T, and no larger MSU of
 *    T contains it; an item in every record of T is in no MSU of T: both
 *    leave T's item list (pruning);
 *  - every MSU M of T with first item i (in T's ranking) is N + {i} with N
 *    an MSU of T_i; conversely N + {i} is an MSU of T exactly when N is
 *    not unique in T (a "support row" outside T_i exists), so one check per
 *    level replaces the test of every subset;
 *  - ranking items by ascending support keeps the large sub-tables (of
 *    common items) short of items;
 *  - the recursion stops at the largest MSU size asked for;
 *  - records repeated three times or more on all keys can carry no MSU and
 *    only their being "seen at least twice" matters: two copies stay.
 * No record's 2^A subsets are ever enumerated: the search visits only
 * item sets in ascending rank order that are seen at least twice.
 *
 * Memory: arenas of row indices and items, addressed by offsets (they
 * grow by realloc), released level by level. */
#include <stdlib.h>
#include <string.h>
#include "suda.h"
#include "freq.h"

typedef struct {
    int gid;        /* global item id */
    int attr;
    int support;
    size_t off;     /* first row in the row arena */
} sitem;

typedef struct {
    size_t item_off;  /* items (in rank order) in the item arena */
    int m;            /* number of items */
    size_t idx_off;   /* m (gid, rank) pairs sorted by gid in the index arena */
    int size;         /* records in the table */
    uint64_t fixed;   /* keys fixed by the path to this table */
} stable;

typedef struct {
    const int *code;     /* n x A row-major, 0-based per key */
    const int *base;     /* gid = base[a] + code */
    int n, A, max_k, n_gid;
    int *rows; size_t rows_len, rows_cap;
    sitem *items; size_t items_len, items_cap;
    int *idx; size_t idx_len, idx_cap;
    int *msu_row; uint64_t *msu_mask; size_t msu_len, msu_cap;
    int *map;            /* scratch per table rank (or gid at the root) */
    int *touched; int n_touched;
    int *look;           /* |T_i| x A scratch */
    int *msu_count; double *attr_count;
    int (*interrupted)(void);
    int status;
    long polls;
} sctx;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t cap2 = *cap ? *cap : 1024;
    while (cap2 < need) cap2 *= 2;
    void *q = realloc(*p, cap2 * elem);
    if (!q) return -1;
    *p = q;
    *cap = cap2;
    return 0;
}

static int push_msu(sctx *c, int row, uint64_t mask)
{
    if (c->msu_len == c->msu_cap) {
        size_t cap = c->msu_cap ? 2 * c->msu_cap : 4096;
        int *r = realloc(c->msu_row, cap * sizeof(int));
        if (!r) return -1;
        c->msu_row = r;
        uint64_t *m = realloc(c->msu_mask, cap * sizeof(uint64_t));
        if (!m) return -1;
        c->msu_mask = m;
        c->msu_cap = cap;
    }
    c->msu_row[c->msu_len] = row;
    c->msu_mask[c->msu_len] = mask;
    c->msu_len++;
    return 0;
}

/* Rank of item gid in table t, or -1 when it is not one of t's items. */
static int lookup(const sctx *c, const stable *t, int gid)
{
    const int *ix = c->idx + t->idx_off;
    int lo = 0, hi = t->m - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1, g = ix[2 * mid];
        if (g == gid) return ix[2 * mid + 1];
        if (g < gid) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

typedef struct { int support, gid, from; } cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->support != y->support) return x->support < y->support ? -1 : 1;
    return (x->gid > y->gid) - (x->gid < y->gid);
}

static int cmp_pair(const void *a, const void *b)
{
    int x = ((const int *) a)[0], y = ((const int *) b)[0];
    return (x > y) - (x < y);
}

/* Build a table from `rows` (nr records, ascending) with the items allowed by
 * `parent` (ranked after `after`; every item when parent is NULL), pushing
 * its size-1 MSUs. Items a table cannot use are dropped. */
static int build_table(sctx *c, const stable *parent, int after, const int *rows_in,
                       size_t rows_in_off, int nr, uint64_t fixed, stable *out)
{
    int A = c->A;
    const int *rows = rows_in ? rows_in : c->rows + rows_in_off;
    int *look = c->look;
    c->n_touched = 0;
    /* pass 1: count the allowed items (map holds counts) */
    for (int r = 0; r < nr; r++) {
        const int *rc = c->code + (size_t) rows[r] * A;
        for (int a = 0; a < A; a++) {
            int key = -1;
            if (!((fixed >> a) & 1u)) {
                int gid = c->base[a] + rc[a];
                if (parent) {
                    int rk = lookup(c, parent, gid);
                    if (rk > after) key = rk;
                } else {
                    key = gid;
                }
            }
            look[(size_t) r * A + a] = key;
            if (key >= 0) {
                if (c->map[key] == 0) c->touched[c->n_touched++] = key;
                c->map[key]++;
            }
        }
    }
    int nt = c->n_touched;
    cand *cd = malloc((size_t) (nt > 0 ? nt : 1) * sizeof(cand));
    if (!cd) return -1;
    int m = 0;
    for (int t = 0; t < nt; t++) {
        int key = c->touched[t], cnt = c->map[key];
        int gid = parent ? c->items[parent->item_off + key].gid : key;
        if (cnt == 1) {
            c->map[key] = -2;                 /* size-1 MSU: pushed in pass 2 */
        } else if (cnt == nr) {
            c->map[key] = -1;                 /* in every record: dropped */
        } else {
            cd[m].support = cnt;
            cd[m].gid = gid;
            cd[m].from = key;
            m++;
        }
    }
    qsort(cd, (size_t) m, sizeof(cand), cmp_cand);
    /* items in rank order, their rows laid out one after another */
    if (grow((void **) &c->items, &c->items_cap, c->items_len + (size_t) m, sizeof(sitem)) ||
        grow((void **) &c->idx, &c->idx_cap, c->idx_len + 2 * (size_t) m, sizeof(int))) {
        free(cd);
        return -1;
    }
    size_t total = 0;
    for (int k = 0; k < m; k++) total += (size_t) cd[k].support;
    if (grow((void **) &c->rows, &c->rows_cap, c->rows_len + total, sizeof(int))) {
        free(cd);
        return -1;
    }
    rows = rows_in ? rows_in : c->rows + rows_in_off;   /* the arena may have moved */
    out->item_off = c->items_len;
    out->idx_off = c->idx_len;
    out->m = m;
    out->size = nr;
    out->fixed = fixed;
    size_t off = c->rows_len;
    int *ix = c->idx + out->idx_off;
    for (int k = 0; k < m; k++) {
        sitem *it = c->items + out->item_off + k;
        it->gid = cd[k].gid;
        it->support = 0;                      /* filled in pass 2 */
        it->off = off;
        off += (size_t) cd[k].support;
        c->map[cd[k].from] = k;               /* map: parent key -> rank */
        ix[2 * k] = cd[k].gid;
        ix[2 * k + 1] = k;
    }
    free(cd);
    /* m == 0: c->idx may still be NULL, which qsort() must not be given */
    if (m > 1) qsort(ix, (size_t) m, 2 * sizeof(int), cmp_pair);
    c->items_len += (size_t) m;
    c->idx_len += 2 * (size_t) m;
    c->rows_len = off;
    /* pass 2: rows of each item, size-1 MSUs */
    for (int r = 0; r < nr; r++) {
        for (int a = 0; a < A; a++) {
            int key = look[(size_t) r * A + a];
            if (key < 0) continue;
            int k = c->map[key];
            if (k >= 0) {
                sitem *it = c->items + out->item_off + k;
                it->attr = a;
                c->rows[it->off + (size_t) it->support++] = rows[r];
            } else if (k == -2) {
                if (push_msu(c, rows[r], (uint64_t) 1 << a)) return -1;
            }
        }
    }
    for (int t = 0; t < nt; t++) c->map[c->touched[t]] = 0;
    return 0;
}

/* Is the item set of `row` on the keys of `mask` seen in another record of
 * table t? Scans the records of its least frequent item in t. */
static int seen_twice(const sctx *c, const stable *t, int row, uint64_t mask)
{
    int A = c->A;
    const int *rc = c->code + (size_t) row * A;
    const sitem *best = NULL;
    for (int a = 0; a < A; a++) {
        if (!((mask >> a) & 1u)) continue;
        int rk = lookup(c, t, c->base[a] + rc[a]);
        if (rk < 0) return 0;   /* not reached: MSUs of a sub-table use t's items */
        const sitem *it = c->items + t->item_off + rk;
        if (!best || it->support < best->support) best = it;
    }
    const int *rs = c->rows + best->off;
    for (int s = 0; s < best->support; s++) {
        if (rs[s] == row) continue;
        const int *sc = c->code + (size_t) rs[s] * A;
        int a;
        for (a = 0; a < A; a++)
            if (((mask >> a) & 1u) && sc[a] != rc[a]) break;
        if (a == A) return 1;
    }
    return 0;
}

static void tabulate(sctx *c, size_t from)
{
    int n = c->n, A = c->A;
    for (size_t s = from; s < c->msu_len; s++) {
        uint64_t mask = c->msu_mask[s];
        int k = 0;
        for (int a = 0; a < A; a++) k += (int) ((mask >> a) & 1u);
        c->msu_count[(size_t) c->msu_row[s] + (size_t) n * (size_t) (k - 1)]++;
        for (int a = 0; a < A; a++)
            if ((mask >> a) & 1u) c->attr_count[a + (size_t) A * (size_t) (k - 1)] += 1.0;
    }
    c->msu_len = from;
}

/* MSUs of table t of at most K items are left on the MSU stack (those of
 * size 1 were pushed when t was built). */
static void search(sctx *c, const stable *t, int K, int root)
{
    if (K < 2) return;
    for (int i = 0; i < t->m && c->status == 0; i++) {
        if ((++c->polls & 255) == 0 && c->interrupted && c->interrupted()) {
            c->status = -2;
            return;
        }
        sitem it = c->items[t->item_off + i];
        size_t saved_rows = c->rows_len, saved_items = c->items_len, saved_idx = c->idx_len;
        size_t from = c->msu_len;
        stable child;
        if (build_table(c, t, i, NULL, it.off, it.support,
                        t->fixed | ((uint64_t) 1 << it.attr), &child)) {
            c->status = -1;
            return;
        }
        search(c, &child, K - 1, 0);
        if (c->status) return;
        /* N + {i} is an MSU of t when N is seen twice in t */
        size_t keep = from;
        for (size_t s = from; s < c->msu_len; s++) {
            if (seen_twice(c, t, c->msu_row[s], c->msu_mask[s])) {
                c->msu_row[keep] = c->msu_row[s];
                c->msu_mask[keep] = c->msu_mask[s] | ((uint64_t) 1 << it.attr);
                keep++;
            }
        }
        c->msu_len = keep;
        c->rows_len = saved_rows;
        c->items_len = saved_items;
        c->idx_len = saved_idx;
        if (root) tabulate(c, from);
    }
}

int suda_search(const int *codes, int n, int A, int max_k,
                int *msu_count, double *attr_count, int (*interrupted)(void))
{
    sctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.A = A;
    c.max_k = max_k;
    c.msu_count = msu_count;
    c.attr_count = attr_count;
    c.interrupted = interrupted;
    memset(msu_count, 0, (size_t) n * (size_t) max_k * sizeof(int));
    memset(attr_count, 0, (size_t) A * (size_t) max_k * sizeof(double));
    if (n == 0) return 0;

    int *code = malloc((size_t) n * A * sizeof(int));
    int *base = malloc((size_t) A * sizeof(int));
    int *group = malloc((size_t) n * sizeof(int));
    int *gsize = malloc((size_t) n * sizeof(int));
    int status = -1;
    if (!code || !base || !group || !gsize) goto done;
    /* row-major 0-based codes; item ids by key */
    long n_gid = 0;
    for (int a = 0; a < A; a++) {
        int mx = 0;
        for (int r = 0; r < n; r++) {
            int v = codes[(size_t) a * n + r] - 1;
            code[(size_t) r * A + a] = v;
            if (v + 1 > mx) mx = v + 1;
        }
        base[a] = (int) n_gid;
        n_gid += mx;
    }
    if (n_gid > 2147483647L) goto done;
    c.code = code;
    c.base = base;
    c.n_gid = (int) n_gid;
    /* at most two copies of a record repeated on all keys */
    if (freq_group(codes, (size_t) n, A, group, gsize) < 0) goto done;
    int *kept = malloc((size_t) n * sizeof(int));
    if (!kept) goto done;
    int nk = 0;
    for (int r = 0; r < n; r++) gsize[r] = 0;
    for (int r = 0; r < n; r++)
        if (gsize[group[r]]++ < 2) kept[nk++] = r;
    size_t map_len = (size_t) (n_gid > nk ? n_gid : nk) + 1;
    c.map = calloc(map_len, sizeof(int));
    c.touched = malloc(map_len * sizeof(int));
    c.look = malloc((size_t) nk * A * sizeof(int));
    if (!c.map || !c.touched || !c.look) { free(kept); goto done; }
    stable root;
    if (build_table(&c, NULL, -1, kept, 0, nk, 0, &root)) { free(kept); goto done; }
    free(kept);
    if (nk >= 2) {
        tabulate(&c, 0);                  /* the size-1 MSUs */
        search(&c, &root, max_k, 1);
        status = c.status;
    } else {
        /* one record: the empty set is unique already, so no MSU */
        c.msu_len = 0;
        status = 0;
    }
done:
    free(code); free(base); free(group); free(gsize);
    free(c.rows); free(c.items); free(c.idx); free(c.msu_row); free(c.msu_mask);
    free(c.map); free(c.touched); free(c.look);
    return status;
}
