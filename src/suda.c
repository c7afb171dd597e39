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
 * The check "N is seen twice in T" (N + {i} an MSU of T) scans the records
 * of N's least frequent item in T until a second record with N turns up;
 * with many records that scan grows with n and dominated (0.1 ms a check at
 * 1e6 records, 8 keys). T is the set of records holding the items of its
 * path, so "N seen twice in T" is "the record's values on the keys of the
 * path and of N are seen twice in the data": one answer per key set S for
 * every record. Once the scans spent on a key set have cost cache_after
 * times the number of records, the answers for S are computed for all
 * records at once (hashing the records on S) and kept as a bitset (n bits;
 * at most about 1 GiB of them). The answers are the same either way; the
 * cost per key set is at most (1 + cache_after) times the cheaper of the two.
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

/* The cached answers of one key set S (see the header). */
typedef struct {
    uint64_t set;        /* 0: empty slot */
    double cost;         /* records scanned for S so far */
    uint64_t *bits;      /* bit r: record r's values on S are seen twice */
} nu_entry;

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
    /* cache of the seen-twice answers by key set */
    const int *kept; int nk;   /* the records of the root table */
    double cache_after;        /* < 0: never cache */
    int pack_bits;             /* key sets of more code bits are hashed, not sorted */
    nu_entry *nu; size_t nu_cap, nu_len;
    size_t nu_built, nu_max;   /* bitsets made, allowed */
    int *hash_tab, *hash_cnt, *hash_slot; size_t hash_cap;
    int *bits_of;              /* bits of each key's codes */
    int *lvl_map;              /* max_k x n_gid: gid -> rank in the table searched at
                                * each depth (-1 elsewhere), or NULL */
    uint64_t *rk_key, *rk_tmp; int *rk_row, *rk_rtmp;   /* radix sort scratch */
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

/* Rank of item gid in table t, or -1 when it is not one of t's items: from
 * the direct map of t's level while t is being searched (when the maps fit),
 * else by binary search. */
static int lookup(const sctx *c, const stable *t, int gid)
{
    if (c->lvl_map) return c->lvl_map[(size_t) __builtin_popcountll(t->fixed) * c->n_gid + gid];
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

/* The cache entry of key set S (created empty), or NULL when the map cannot
 * grow (the caller then scans). */
static nu_entry *nu_find(sctx *c, uint64_t S)
{
    if (2 * (c->nu_len + 1) > c->nu_cap) {
        size_t cap = c->nu_cap ? 2 * c->nu_cap : 256;
        nu_entry *nu = calloc(cap, sizeof(nu_entry));
        if (!nu) return NULL;
        for (size_t e = 0; e < c->nu_cap; e++) {
            if (!c->nu[e].set) continue;
            size_t h = (size_t) ((c->nu[e].set * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
            while (nu[h].set) h = (h + 1) & (cap - 1);
            nu[h] = c->nu[e];
        }
        free(c->nu);
        c->nu = nu;
        c->nu_cap = cap;
    }
    size_t h = (size_t) ((S * 0x9E3779B97F4A7C15ull) >> 32) & (c->nu_cap - 1);
    while (c->nu[h].set && c->nu[h].set != S) h = (h + 1) & (c->nu_cap - 1);
    if (!c->nu[h].set) {
        c->nu[h].set = S;
        c->nu_len++;
    }
    return c->nu + h;
}

/* Bitset of the root records whose values on the keys of S are seen twice
 * among the root records, or NULL when memory ran out. When the codes of S
 * pack into 64 bits, the packed keys are radix sorted (sequential passes,
 * fast at 1e7 records) and equal neighbours marked; otherwise the records
 * are hashed (open addressing, comparing codes). */
static uint64_t *nu_build_hash(sctx *c, const int *ks, int nks, uint64_t *bits);

static uint64_t *nu_build(sctx *c, uint64_t S)
{
    int A = c->A, nk = c->nk, ks[64], nks = 0, nbits = 0;
    for (int a = 0; a < A; a++)
        if ((S >> a) & 1u) {
            ks[nks++] = a;
            nbits += c->bits_of[a];
        }
    uint64_t *bits = calloc(((size_t) c->n + 63) / 64, sizeof(uint64_t));
    if (!bits) return NULL;
    if (nbits > c->pack_bits) return nu_build_hash(c, ks, nks, bits);
    if (!c->rk_key) {
        c->rk_key = malloc((size_t) nk * sizeof(uint64_t));
        c->rk_tmp = malloc((size_t) nk * sizeof(uint64_t));
        c->rk_row = malloc((size_t) nk * sizeof(int));
        c->rk_rtmp = malloc((size_t) nk * sizeof(int));
        if (!c->rk_key || !c->rk_tmp || !c->rk_row || !c->rk_rtmp) {
            free(bits);
            return NULL;
        }
    }
    uint64_t *key = c->rk_key, *ktmp = c->rk_tmp;
    int *row = c->rk_row, *rtmp = c->rk_rtmp;
    for (int e = 0; e < nk; e++) {
        const int *rc = c->code + (size_t) c->kept[e] * A;
        uint64_t v = 0;
        for (int q = 0; q < nks; q++) v = (v << c->bits_of[ks[q]]) | (uint64_t) (unsigned) rc[ks[q]];
        key[e] = v;
        row[e] = c->kept[e];
    }
    /* LSD radix sort, 11-bit digits over the nbits used */
    size_t cnt[2048];
    for (int shift = 0; shift < nbits; shift += 11) {
        memset(cnt, 0, sizeof cnt);
        for (int e = 0; e < nk; e++) cnt[(key[e] >> shift) & 2047u]++;
        size_t pos = 0;
        for (int d = 0; d < 2048; d++) {
            size_t k = cnt[d];
            cnt[d] = pos;
            pos += k;
        }
        for (int e = 0; e < nk; e++) {
            size_t d = cnt[(key[e] >> shift) & 2047u]++;
            ktmp[d] = key[e];
            rtmp[d] = row[e];
        }
        uint64_t *t1 = key; key = ktmp; ktmp = t1;
        int *t2 = row; row = rtmp; rtmp = t2;
    }
    for (int e = 0; e < nk;) {
        int f = e + 1;
        while (f < nk && key[f] == key[e]) f++;
        if (f - e >= 2)
            for (int g = e; g < f; g++) bits[row[g] / 64] |= (uint64_t) 1 << (row[g] % 64);
        e = f;
    }
    return bits;
}

static uint64_t *nu_build_hash(sctx *c, const int *ks, int nks, uint64_t *bits)
{
    int A = c->A, nk = c->nk;
    if (!c->hash_tab) {
        size_t cap = 1;
        while (cap < 2 * (size_t) nk) cap *= 2;
        c->hash_tab = malloc(cap * sizeof(int));
        c->hash_cnt = malloc(cap * sizeof(int));
        c->hash_slot = malloc((size_t) nk * sizeof(int));
        if (!c->hash_tab || !c->hash_cnt || !c->hash_slot) {
            free(bits);
            return NULL;
        }
        c->hash_cap = cap;
    }
    size_t cap = c->hash_cap;
    int *tab = c->hash_tab, *cnt = c->hash_cnt, *slot = c->hash_slot;
    for (size_t h = 0; h < cap; h++) tab[h] = -1;
    for (int e = 0; e < nk; e++) {
        const int *rc = c->code + (size_t) c->kept[e] * A;
        uint64_t hv = 0x243F6A8885A308D3ull;
        for (int q = 0; q < nks; q++) {
            hv ^= (uint64_t) (unsigned) rc[ks[q]];
            hv *= 0x9E3779B97F4A7C15ull;
            hv ^= hv >> 29;
        }
        size_t h = (size_t) hv & (cap - 1);
        for (;;) {
            if (tab[h] < 0) {
                tab[h] = c->kept[e];
                cnt[h] = 0;
                break;
            }
            const int *oc = c->code + (size_t) tab[h] * A;
            int q = 0;
            while (q < nks && oc[ks[q]] == rc[ks[q]]) q++;
            if (q == nks) break;
            h = (h + 1) & (cap - 1);
        }
        cnt[h]++;
        slot[e] = (int) h;
    }
    for (int e = 0; e < nk; e++)
        if (cnt[slot[e]] >= 2) bits[c->kept[e] / 64] |= (uint64_t) 1 << (c->kept[e] % 64);
    return bits;
}

/* Is the item set of `row` on the keys of `mask` seen in another record of
 * table t? From the cached bitset of the key set (path + mask) when there is
 * one, else by scanning the records of its least frequent item in t. */
static int seen_twice(sctx *c, const stable *t, int row, uint64_t mask)
{
    int A = c->A;
    nu_entry *e = c->cache_after >= 0 ? nu_find(c, t->fixed | mask) : NULL;
    if (e && e->bits) return (int) ((e->bits[row / 64] >> (row % 64)) & 1u);
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
    int found = 0, s;
    for (s = 0; s < best->support; s++) {
        if (rs[s] == row) continue;
        const int *sc = c->code + (size_t) rs[s] * A;
        int a;
        for (a = 0; a < A; a++)
            if (((mask >> a) & 1u) && sc[a] != rc[a]) break;
        if (a == A) {
            found = 1;
            break;
        }
    }
    if (e) {
        e->cost += (double) s + 1.0;
        if (e->cost >= c->cache_after * (double) c->nk && c->nu_built < c->nu_max) {
            e->bits = nu_build(c, t->fixed | mask);
            if (e->bits) c->nu_built++;
            else c->nu_max = 0;           /* out of memory: scan from now on */
        }
    }
    return found;
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

static void search_items(sctx *c, const stable *t, int K, int root);

/* MSUs of table t of at most K items are left on the MSU stack (those of
 * size 1 were pushed when t was built). */
static void search(sctx *c, const stable *t, int K, int root)
{
    if (K < 2) return;
    int *lmap = c->lvl_map ? c->lvl_map + (size_t) __builtin_popcountll(t->fixed) * c->n_gid
                           : NULL;
    if (lmap)
        for (int k = 0; k < t->m; k++) lmap[c->items[t->item_off + k].gid] = k;
    search_items(c, t, K, root);
    if (lmap)
        for (int k = 0; k < t->m; k++) lmap[c->items[t->item_off + k].gid] = -1;
}

static void search_items(sctx *c, const stable *t, int K, int root)
{
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

int suda_search(const int *codes, int n, int A, int max_k, double cache_after, int pack_bits,
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
    c.cache_after = cache_after;
    c.pack_bits = pack_bits < 64 ? pack_bits : 64;
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
    c.kept = kept;
    c.nk = nk;
    /* bitsets of n bits, about 1 GiB of them at most */
    c.nu_max = (size_t) (8.0 * 1073741824.0 / ((double) n + 64.0));
    c.bits_of = malloc((size_t) A * sizeof(int));
    if (!c.bits_of) { free(kept); goto done; }
    for (int a = 0; a < A; a++) {
        int k = (a + 1 < A ? base[a + 1] : (int) n_gid) - base[a], b = 0;
        while (b < 31 && (1 << b) < k) b++;
        c.bits_of[a] = b;
    }
    /* direct item maps per depth when they take at most 256 MiB */
    if ((double) max_k * (double) n_gid <= 67108864.0) {
        c.lvl_map = malloc((size_t) max_k * (size_t) n_gid * sizeof(int));
        if (c.lvl_map)
            for (size_t e = 0; e < (size_t) max_k * (size_t) n_gid; e++) c.lvl_map[e] = -1;
    }
    if (nk >= 2) {
        tabulate(&c, 0);                  /* the size-1 MSUs */
        search(&c, &root, max_k, 1);
        status = c.status;
    } else {
        /* one record: the empty set is unique already, so no MSU */
        c.msu_len = 0;
        status = 0;
    }
    free(kept);
done:
    free(code); free(base); free(group); free(gsize);
    free(c.rows); free(c.items); free(c.idx); free(c.msu_row); free(c.msu_mask);
    free(c.map); free(c.touched); free(c.look);
    for (size_t e = 0; e < c.nu_cap; e++) free(c.nu[e].bits);
    free(c.nu); free(c.hash_tab); free(c.hash_cnt); free(c.hash_slot);
    free(c.bits_of); free(c.lvl_map); free(c.rk_key); free(c.rk_tmp); free(c.rk_row); free(c.rk_rtmp);
    return status;
}
