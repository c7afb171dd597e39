/* Cell-level local suppression (methods vignette section 19): a greedy over distinct key
 * patterns, for both readings of a blank (a value of its own; a wildcard).
 *
 * The records are first grouped into distinct patterns (freq_group of
 * freq.c) and the patterns sorted by their codes, so that every decision
 * depends on the codes only, never on the row order.
 *
 * Category reading: the classes are the distinct current patterns, kept in
 * a hash table (row_hash.h). A class smaller than k moves as a whole to a
 * more general pattern (some of its keys blanked): of all key subsets S,
 * in order of cost, the cheapest whose target class then reaches k (ties:
 * the larger target); when none does, the cheapest that joins an existing
 * class (the merged class tries again in the next round); when there is
 * none, every key is blanked. Each move blanks at least one more key, so
 * the rounds end. A class left smaller than k then has every key blank (one
 * per stratum): it is filled up to k with the cheapest records of classes
 * larger than k (their surplus), or by the cheapest whole class.
 *
 * Wildcard reading: blanking only ever adds compatible records, so a record
 * once safe stays safe. Each pattern with f < k, smallest f first, blanks
 * the cheapest key subset that brings its own f to k (blanking all its keys
 * makes it compatible with its whole stratum, which holds >= k records).
 * The pass runs in two orders (smallest f first, largest f first) and the
 * cheaper result is kept.
 * f is counted through an inverted index: for each key and value the
 * patterns holding that value, and for each key the patterns blank in it;
 * one count scans the shortest such list and checks each candidate.
 *
 * Both readings end with a pruning pass: each blanked cell whose value can
 * be put back without leaving any record below k is put back. */

#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <limits.h>
#include "suppress.h"
#include "freq.h"
#include "row_hash.h"

#define POLL_EVERY 256

typedef struct {
    int (*interrupted)(void);
    unsigned polls;
} poller;

static int poll_stop(poller *pl)
{
    return (++pl->polls % POLL_EVERY) == 0 && pl->interrupted && pl->interrupted();
}

/* ---------------------------------------------------------------- patterns */

typedef struct {
    int G, p;
    int *codes;      /* G x p row-major, sorted lexicographically */
    int *weight;     /* records per pattern */
    int *of_record;  /* pattern of each record */
} patterns;

static const int *sort_codes;
static size_t sort_ld;
static int sort_p;

static int cmp_first_rows(const void *a, const void *b)
{
    size_t ra = (size_t) *(const int *) a, rb = (size_t) *(const int *) b;
    for (int j = 0; j < sort_p; j++) {
        int x = sort_codes[ra + (size_t) j * sort_ld], y = sort_codes[rb + (size_t) j * sort_ld];
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

static void patterns_free(patterns *pt)
{
    free(pt->codes);
    free(pt->weight);
    free(pt->of_record);
    memset(pt, 0, sizeof(*pt));
}

static int patterns_build(const int *codes, size_t n, int p, patterns *pt)
{
    memset(pt, 0, sizeof(*pt));
    pt->p = p;
    int *group = malloc(n * sizeof(int)), *size = malloc(n * sizeof(int));
    if (!group || !size) { free(group); free(size); return -1; }
    int G = freq_group(codes, n, p, group, size);
    if (G < 0) { free(group); free(size); return -1; }
    int *first = malloc((size_t) G * sizeof(int)), *rank = malloc((size_t) G * sizeof(int));
    pt->codes = malloc((size_t) G * (size_t) p * sizeof(int) + sizeof(int));
    pt->weight = malloc((size_t) G * sizeof(int) + sizeof(int));
    pt->of_record = malloc(n * sizeof(int));
    if (!first || !rank || !pt->codes || !pt->weight || !pt->of_record) {
        free(group); free(size); free(first); free(rank); patterns_free(pt);
        return -1;
    }
    for (int g = 0; g < G; g++) first[g] = -1;
    for (size_t i = 0; i < n; i++)
        if (first[group[i]] < 0) first[group[i]] = (int) i;
    /* first[] is in order of first appearance (group ids are); sort the
     * first rows by their codes */
    sort_codes = codes; sort_ld = n; sort_p = p;
    qsort(first, (size_t) G, sizeof(int), cmp_first_rows);
    for (int g = 0; g < G; g++) {
        size_t r = (size_t) first[g];
        rank[group[r]] = g;
        pt->weight[g] = size[group[r]];
        for (int j = 0; j < p; j++) pt->codes[(size_t) g * p + j] = codes[r + (size_t) j * n];
    }
    for (size_t i = 0; i < n; i++) pt->of_record[i] = rank[group[i]];
    pt->G = G;
    free(group); free(size); free(first); free(rank);
    return 0;
}

/* ----------------------------------------------------------------- subsets */

typedef struct {
    uint64_t mask;
    double cost;
    int pop;
} subset;

typedef struct {
    subset *s;
    size_t m;
} subsets;

static int popcount64(uint64_t x)
{
    int c = 0;
    while (x) { x &= x - 1; c++; }
    return c;
}

static int cmp_subset(const void *a, const void *b)
{
    const subset *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    if (x->pop != y->pop) return x->pop < y->pop ? -1 : 1;
    if (x->mask != y->mask) return x->mask < y->mask ? -1 : 1;
    return 0;
}

static double mask_cost(uint64_t mask, const double *cost, int n_free)
{
    double c = 0;
    for (int j = 0; j < n_free; j++)
        if (mask >> j & 1) c += cost[j];
    return c;
}

/* All non-empty key subsets when there are at most 14 keys, else those of
 * one to three keys (blanking every key stays the last resort), in order of
 * cost, then size, then mask. */
#define ALL_SUBSETS_MAX 14

static int subsets_build(int n_free, const double *cost, subsets *ss)
{
    size_t m = 0;
    if (n_free <= ALL_SUBSETS_MAX) {
        m = ((size_t) 1 << n_free) - 1;
    } else {
        size_t f = (size_t) n_free;
        m = f + f * (f - 1) / 2 + f * (f - 1) * (f - 2) / 6;
    }
    ss->s = malloc((m > 0 ? m : 1) * sizeof(subset));
    ss->m = 0;
    if (!ss->s) return -1;
    if (n_free <= ALL_SUBSETS_MAX) {
        for (uint64_t mask = 1; mask < ((uint64_t) 1 << n_free); mask++) {
            subset *s = &ss->s[ss->m++];
            s->mask = mask;
        }
    } else {
        for (int a = 0; a < n_free; a++) {
            ss->s[ss->m++].mask = (uint64_t) 1 << a;
            for (int b = a + 1; b < n_free; b++) {
                ss->s[ss->m++].mask = ((uint64_t) 1 << a) | ((uint64_t) 1 << b);
                for (int c = b + 1; c < n_free; c++)
                    ss->s[ss->m++].mask = ((uint64_t) 1 << a) | ((uint64_t) 1 << b) |
                                          ((uint64_t) 1 << c);
            }
        }
    }
    for (size_t i = 0; i < ss->m; i++) {
        ss->s[i].cost = mask_cost(ss->s[i].mask, cost, n_free);
        ss->s[i].pop = popcount64(ss->s[i].mask);
    }
    qsort(ss->s, ss->m, sizeof(subset), cmp_subset);
    return 0;
}

static uint64_t nonzero_mask(const int *x, int n_free)
{
    uint64_t m = 0;
    for (int j = 0; j < n_free; j++)
        if (x[j] != 0) m |= (uint64_t) 1 << j;
    return m;
}

/* ------------------------------------------------------ category: classes */

typedef struct {
    int p;
    int *codes;          /* cap x p row-major */
    int *weight, *head, *tail;
    int n, cap;
    int *slot;           /* hash slots: class id or -1 */
    size_t slot_cap;
} classes;

static void classes_free(classes *cl)
{
    free(cl->codes); free(cl->weight); free(cl->head); free(cl->tail); free(cl->slot);
    memset(cl, 0, sizeof(*cl));
}

static uint64_t vec_hash(const int *x, int p)
{
    return row_hash(x, 1, p, 0);
}

static size_t classes_probe(const classes *cl, const int *x)
{
    size_t mask = cl->slot_cap - 1;
    size_t s = (size_t) vec_hash(x, cl->p) & mask;
    while (cl->slot[s] >= 0 &&
           memcmp(cl->codes + (size_t) cl->slot[s] * cl->p, x, (size_t) cl->p * sizeof(int)) != 0)
        s = (s + 1) & mask;
    return s;
}

static int classes_find(const classes *cl, const int *x)
{
    return cl->slot[classes_probe(cl, x)];
}

static int classes_rehash(classes *cl, size_t new_cap)
{
    int *slot = malloc(new_cap * sizeof(int));
    if (!slot) return -1;
    free(cl->slot);
    cl->slot = slot;
    cl->slot_cap = new_cap;
    for (size_t s = 0; s < new_cap; s++) slot[s] = -1;
    for (int c = 0; c < cl->n; c++) slot[classes_probe(cl, cl->codes + (size_t) c * cl->p)] = c;
    return 0;
}

/* Adds a class with codes x (not present), weight 0 and no members; returns
 * its id or -1. x must not point into cl->codes (it may move). */
static int classes_add(classes *cl, const int *x)
{
    if (cl->n == cl->cap) {
        int cap = cl->cap * 2 + 16;
        int *codes = realloc(cl->codes, (size_t) cap * cl->p * sizeof(int) + sizeof(int));
        if (!codes) return -1;
        cl->codes = codes;
        int *w = realloc(cl->weight, (size_t) cap * sizeof(int));
        if (!w) return -1;
        cl->weight = w;
        int *h = realloc(cl->head, (size_t) cap * sizeof(int));
        if (!h) return -1;
        cl->head = h;
        int *t = realloc(cl->tail, (size_t) cap * sizeof(int));
        if (!t) return -1;
        cl->tail = t;
        cl->cap = cap;
    }
    if ((size_t) (cl->n + 1) * 2 > cl->slot_cap &&
        classes_rehash(cl, cl->slot_cap * 2) < 0) return -1;
    int c = cl->n++;
    memcpy(cl->codes + (size_t) c * cl->p, x, (size_t) cl->p * sizeof(int));
    cl->weight[c] = 0;
    cl->head[c] = cl->tail[c] = -1;
    cl->slot[classes_probe(cl, x)] = c;
    return c;
}

typedef struct {
    int *v;
    int len, cap;
} ivec;

static int ivec_push(ivec *a, int x)
{
    if (a->len == a->cap) {
        int cap = a->cap * 2 + 4;
        int *v = realloc(a->v, (size_t) cap * sizeof(int));
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    return 0;
}

/* The classes of the category reading hold units: the records of one
 * pattern, or a part of them when a class gave some records away. */
typedef struct {
    const patterns *pt;
    int n_free, k;
    const double *cost;
    const subsets *ss;
    classes cl;
    int n_units, cap_units;
    int *upat, *ucnt, *unext, *ucls;
    /* for each column and value, the classes with that value (a class
     * keeps its codes for good; only its weight changes) */
    int *maxcode;
    ivec **byval;
    int *x;
    poller *pl;
} cat_state;

typedef struct { int id, weight; } ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->weight != y->weight) return x->weight < y->weight ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int unit_add(cat_state *st, int pat, int cnt)
{
    if (st->n_units == st->cap_units) {
        int cap = st->cap_units * 2 + 16;
        int *a = realloc(st->upat, (size_t) cap * sizeof(int));
        if (!a) return -1;
        st->upat = a;
        if (!(a = realloc(st->ucnt, (size_t) cap * sizeof(int)))) return -1;
        st->ucnt = a;
        if (!(a = realloc(st->unext, (size_t) cap * sizeof(int)))) return -1;
        st->unext = a;
        if (!(a = realloc(st->ucls, (size_t) cap * sizeof(int)))) return -1;
        st->ucls = a;
        st->cap_units = cap;
    }
    int u = st->n_units++;
    st->upat[u] = pat;
    st->ucnt[u] = cnt;
    st->unext[u] = -1;
    st->ucls[u] = -1;
    return u;
}

/* A new class with codes x (not present, not pointing into the table),
 * indexed by its values; its id or -1. */
static int cat_class_add(cat_state *st, const int *x)
{
    int c = classes_add(&st->cl, x);
    if (c < 0) return -1;
    for (int j = 0; j < st->cl.p; j++)
        if (x[j] > 0 && ivec_push(&st->byval[j][x[j]], c) < 0) return -1;
    return c;
}

static void cat_link(cat_state *st, int u, int t)
{
    classes *cl = &st->cl;
    st->unext[u] = -1;
    if (cl->tail[t] >= 0) st->unext[cl->tail[t]] = u;
    else cl->head[t] = u;
    cl->tail[t] = u;
    st->ucls[u] = t;
}

static void cat_append(cat_state *st, int from, int to)
{
    classes *cl = &st->cl;
    if (cl->head[from] < 0) return;
    for (int u = cl->head[from]; u >= 0; u = st->unext[u]) st->ucls[u] = to;
    if (cl->tail[to] >= 0) st->unext[cl->tail[to]] = cl->head[from];
    else cl->head[to] = cl->head[from];
    cl->tail[to] = cl->tail[from];
    cl->head[from] = cl->tail[from] = -1;
}

/* Move class c with the keys in S blanked; returns the target class or -1. */
static int cat_move(cat_state *st, int c, uint64_t S)
{
    classes *cl = &st->cl;
    int p = cl->p;
    memcpy(st->x, cl->codes + (size_t) c * p, (size_t) p * sizeof(int));
    for (int j = 0; j < st->n_free; j++)
        if (S >> j & 1) st->x[j] = 0;
    int t = classes_find(cl, st->x);
    if (t == c) return c;  /* those keys were blank already */
    if (t < 0 && (t = cat_class_add(st, st->x)) < 0) return -1;
    cl->weight[t] += cl->weight[c];
    cl->weight[c] = 0;
    cat_append(st, c, t);
    return t;
}

/* Move `take` (< its weight) records of class d into class t, splitting a
 * unit where needed. Returns 0 or -1. */
static int cat_take(cat_state *st, int d, int take, int t)
{
    classes *cl = &st->cl;
    cl->weight[d] -= take;
    cl->weight[t] += take;
    int u = cl->head[d];
    cl->head[d] = cl->tail[d] = -1;
    while (u >= 0) {
        int nx = st->unext[u];
        if (take > 0 && st->ucnt[u] <= take) {
            take -= st->ucnt[u];
            cat_link(st, u, t);
        } else if (take > 0) {
            int v = unit_add(st, st->upat[u], take);
            if (v < 0) return -1;
            st->ucnt[u] -= take;
            take = 0;
            cat_link(st, v, t);
            cat_link(st, u, d);
        } else {
            cat_link(st, u, d);
        }
        u = nx;
    }
    return 0;
}

/* Phase 1, level by level, key subsets S in order of cost: the classes
 * smaller than k are grouped by their pattern with S blanked; a group that
 * reaches k with the class already there (if that one is not small itself)
 * moves there together. */
static int cat_levels(cat_state *st)
{
    classes *cl = &st->cl;
    int p = cl->p, k = st->k;
    const subsets *ss = st->ss;
    int *small = malloc((size_t) cl->n * sizeof(int) + sizeof(int));
    int *entry = malloc((size_t) cl->n * sizeof(int) + sizeof(int));
    classes tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.p = p;
    if (!small || !entry) { free(small); free(entry); return -1; }
    int m = 0;
    for (int c = 0; c < cl->n; c++)
        if (cl->weight[c] > 0 && cl->weight[c] < k) small[m++] = c;
    int status = 0;
    for (size_t level = 0; level < ss->m && m > 0 && status == 0; level++) {
        if (poll_stop(st->pl)) { status = -2; break; }
        uint64_t S = ss->s[level].mask;
        size_t cap = 16;
        while (cap < 4 * (size_t) m) cap <<= 1;
        free(tmp.slot);
        tmp.slot = malloc(cap * sizeof(int));
        if (!tmp.slot) { status = -1; break; }
        tmp.slot_cap = cap;
        for (size_t s = 0; s < cap; s++) tmp.slot[s] = -1;
        tmp.n = 0;
        for (int a = 0; a < m; a++) {
            int c = small[a];
            memcpy(st->x, cl->codes + (size_t) c * p, (size_t) p * sizeof(int));
            for (int j = 0; j < st->n_free; j++)
                if (S >> j & 1) st->x[j] = 0;
            int e = classes_find(&tmp, st->x);
            if (e < 0) {
                if ((e = classes_add(&tmp, st->x)) < 0) { status = -1; break; }
                int t = classes_find(cl, st->x);
                tmp.weight[e] = (t >= 0 && cl->weight[t] >= k) ? cl->weight[t] : 0;
            }
            tmp.weight[e] += cl->weight[c];
            entry[a] = e;
        }
        if (status != 0) break;
        int kept = 0;
        for (int a = 0; a < m; a++) {
            int c = small[a];
            if (tmp.weight[entry[a]] >= k) {
                if (cat_move(st, c, S) < 0) { status = -1; break; }
            } else {
                small[kept++] = c;
            }
        }
        int m2 = 0;
        for (int a = 0; a < kept; a++) {
            int c = small[a];
            if (cl->weight[c] > 0 && cl->weight[c] < k) small[m2++] = c;
        }
        m = m2;
    }
    free(small);
    free(entry);
    classes_free(&tmp);
    return status;
}

typedef struct {
    int id, avail, whole;
    double unit;
} donor;

static int cmp_donor(const void *a, const void *b)
{
    const donor *x = a, *y = b;
    if (x->unit != y->unit) return x->unit < y->unit ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

typedef struct {
    donor *d;
    int n, cap;
} donors;

/* The cheapest way to bring `need` records of other classes (not tc, not
 * self) into the pattern t, each blanking the keys blank in t: records
 * from classes smaller than k, and the surplus over k of larger ones, the
 * cheapest first; or one whole class of k or more. Returns the cost, or -1
 * when the stratum has too few records; with exec, moves them into tc. */
static double cat_gather(cat_state *st, const int *t, int tc, int self, int need,
                         int exec, donors *buf)
{
    classes *cl = &st->cl;
    int p = cl->p, k = st->k, n_free = st->n_free;
    uint64_t Z = 0;
    for (int j = 0; j < n_free; j++) if (t[j] == 0) Z |= (uint64_t) 1 << j;
    int driver = -1;
    for (int j = 0; j < p; j++) {
        if (t[j] == 0) continue;
        if (driver < 0 || st->byval[j][t[j]].len < st->byval[driver][t[driver]].len) driver = j;
    }
    int n_scan = driver < 0 ? cl->n : st->byval[driver][t[driver]].len;
    buf->n = 0;
    for (int i = 0; i < n_scan; i++) {
        int d = driver < 0 ? i : st->byval[driver][t[driver]].v[i];
        if (d == tc || d == self || cl->weight[d] == 0) continue;
        const int *cd = cl->codes + (size_t) d * p;
        int match = 1;
        for (int j = 0; j < p && match; j++) if (t[j] != 0 && cd[j] != t[j]) match = 0;
        if (!match) continue;
        if (buf->n == buf->cap) {
            int cap = buf->cap * 2 + 16;
            donor *nd = realloc(buf->d, (size_t) cap * sizeof(donor));
            if (!nd) return -2;
            buf->d = nd;
            buf->cap = cap;
        }
        donor *it = &buf->d[buf->n++];
        it->id = d;
        it->unit = mask_cost(Z & nonzero_mask(cd, n_free), st->cost, n_free);
        it->whole = cl->weight[d] >= k;
        it->avail = it->whole ? cl->weight[d] - k : cl->weight[d];
    }
    /* no donor yet: buf->d may still be NULL, which qsort() must not get */
    if (buf->n > 1) qsort(buf->d, (size_t) buf->n, sizeof(donor), cmp_donor);
    double cost_a = 0;
    int left = need;
    for (int i = 0; i < buf->n && left > 0; i++) {
        int take = buf->d[i].avail < left ? buf->d[i].avail : left;
        cost_a += take * buf->d[i].unit;
        left -= take;
    }
    int a_ok = left == 0, best_whole = -1;
    double cost_b = 0;
    for (int i = 0; i < buf->n; i++) {
        if (!buf->d[i].whole) continue;
        double c = buf->d[i].unit * cl->weight[buf->d[i].id];
        if (best_whole < 0 || c < cost_b) { best_whole = i; cost_b = c; }
    }
    if (!a_ok && best_whole < 0) return -1;
    int use_a = a_ok && (best_whole < 0 || cost_a <= cost_b);
    if (exec) {
        if (use_a) {
            left = need;
            for (int i = 0; i < buf->n && left > 0; i++) {
                int d = buf->d[i].id;
                int take = buf->d[i].avail < left ? buf->d[i].avail : left;
                if (take == 0) continue;
                left -= take;
                if (take == cl->weight[d]) {
                    if (cat_move(st, d, Z) < 0) return -2;
                } else if (cat_take(st, d, take, tc) < 0) {
                    return -2;
                }
            }
        } else if (cat_move(st, buf->d[best_whole].id, Z) < 0) {
            return -2;
        }
    }
    return use_a ? cost_a : cost_b;
}

/* Phase 2: each class still smaller than k (smallest first) takes the
 * cheapest of: blanking a key subset S of its own (S may be empty) and
 * bringing in the records the class it joins still lacks. Blanking every
 * key and filling the stratum's class of blanks is always possible, and
 * each step leaves every record it touches in a class of k or more. */
static int cat_complete(cat_state *st)
{
    classes *cl = &st->cl;
    int p = cl->p, k = st->k, n_free = st->n_free;
    const subsets *ss = st->ss;
    donors buf = { NULL, 0, 0 };
    int *t = malloc((size_t) p * sizeof(int));
    if (!t) return -1;
    int status = 0;
    for (;;) {
        if (poll_stop(st->pl)) { status = -2; break; }
        int c = -1;
        for (int d = 0; d < cl->n; d++)
            if (cl->weight[d] > 0 && cl->weight[d] < k &&
                (c < 0 || cl->weight[d] < cl->weight[c])) c = d;
        if (c < 0) break;
        int w = cl->weight[c];
        uint64_t nz = nonzero_mask(cl->codes + (size_t) c * p, n_free);
        double best = -1;
        uint64_t best_S = 0;
        int full_seen = 0;
        /* candidates: the empty set, the subsets of nz by cost, all of nz */
        for (size_t i = 0; i <= ss->m + 1; i++) {
            uint64_t S;
            double own;
            if (i == 0) { S = 0; own = 0; }
            else if (i <= ss->m) {
                S = ss->s[i - 1].mask;
                if (S & ~nz) continue;
                own = w * ss->s[i - 1].cost;
            } else {
                if (full_seen || nz == 0) continue;
                S = nz;
                own = w * mask_cost(nz, st->cost, n_free);
            }
            if (S == nz) full_seen = 1;
            if (best >= 0 && own >= best) break;  /* costs only grow from here */
            memcpy(t, cl->codes + (size_t) c * p, (size_t) p * sizeof(int));
            for (int j = 0; j < n_free; j++) if (S >> j & 1) t[j] = 0;
            int tc = S == 0 ? c : classes_find(cl, t);
            int wt = (tc >= 0 && tc != c) ? cl->weight[tc] : 0;
            int need = k - w - wt;
            double extra = 0;
            if (need > 0) {
                extra = cat_gather(st, t, tc, c, need, 0, &buf);
                if (extra == -2) { status = -1; break; }
                if (extra < 0) continue;
            }
            if (best < 0 || own + extra < best) { best = own + extra; best_S = S; }
        }
        if (status != 0) break;
        if (best < 0) break;  /* cannot happen: the stratum holds >= k records */
        int tc = cat_move(st, c, best_S);
        if (tc < 0) { status = -1; break; }
        int need = k - cl->weight[tc];
        if (need > 0) {
            memcpy(t, cl->codes + (size_t) tc * p, (size_t) p * sizeof(int));
            double r = cat_gather(st, t, tc, -1, need, 1, &buf);
            if (r == -2) { status = -1; break; }
            if (r < 0) break;
        }
    }
    free(buf.d);
    free(t);
    return status;
}

/* Put back blanked cells where that leaves every class at 0 or >= k: a
 * unit u of class c regains key j when c without u is empty or still >= k
 * and the class u then joins reaches k. */
static int cat_prune(cat_state *st)
{
    classes *cl = &st->cl;
    const patterns *pt = st->pt;
    int p = cl->p, k = st->k;
    int *y = malloc((size_t) p * sizeof(int));
    if (!y) return -1;
    int n_units = st->n_units;
    for (int u = 0; u < n_units; u++) {
        if (st->ucnt[u] == 0) continue;
        for (int j = 0; j < st->n_free; j++) {
            if (poll_stop(st->pl)) { free(y); return -2; }
            int c = st->ucls[u];
            const int *orig = pt->codes + (size_t) st->upat[u] * p;
            const int *cc = cl->codes + (size_t) c * p;
            if (cc[j] != 0 || orig[j] == 0) continue;
            int wu = st->ucnt[u], wc = cl->weight[c];
            if (wc - wu != 0 && wc - wu < k) continue;
            memcpy(y, cc, (size_t) p * sizeof(int));
            y[j] = orig[j];
            int t = classes_find(cl, y);
            int tw = t < 0 ? 0 : cl->weight[t];
            if (tw + wu < k) continue;
            if (t < 0 && (t = cat_class_add(st, y)) < 0) { free(y); return -1; }
            int prev = -1;
            for (int r = cl->head[c]; r >= 0; prev = r, r = st->unext[r]) {
                if (r != u) continue;
                if (prev < 0) cl->head[c] = st->unext[u]; else st->unext[prev] = st->unext[u];
                if (cl->tail[c] == u) cl->tail[c] = prev;
                break;
            }
            cat_link(st, u, t);
            cl->weight[c] -= wu;
            cl->weight[t] += wu;
        }
    }
    free(y);
    return 0;
}

static void cat_free(cat_state *st)
{
    if (st->byval) {
        for (int j = 0; j < st->cl.p; j++) {
            if (!st->byval[j]) continue;
            for (int a = 0; a <= st->maxcode[j]; a++) free(st->byval[j][a].v);
            free(st->byval[j]);
        }
    }
    free(st->byval); free(st->maxcode);
    free(st->upat); free(st->ucnt); free(st->unext); free(st->ucls);
    free(st->x);
    classes_free(&st->cl);
}

/* The category reading: supp (n x n_free) gets the blanked cells. */
static int run_category(const patterns *pt, int n_free, const double *cost, int k,
                        const subsets *ss, size_t n, int *supp, poller *pl)
{
    int G = pt->G, p = pt->p;
    cat_state st;
    memset(&st, 0, sizeof(st));
    st.pt = pt; st.n_free = n_free; st.k = k; st.cost = cost; st.ss = ss; st.pl = pl;
    st.cl.p = p;
    st.x = malloc((size_t) p * sizeof(int));
    st.maxcode = calloc((size_t) p, sizeof(int));
    st.byval = calloc((size_t) p, sizeof(ivec *));
    size_t cap = 16;
    while (cap < 4 * (size_t) G) cap <<= 1;
    st.cl.slot = malloc(cap * sizeof(int));
    st.cl.slot_cap = cap;
    int status = -1;
    int *first = NULL, *used = NULL, *pnext = NULL;
    if (!st.x || !st.maxcode || !st.byval || !st.cl.slot) goto done;
    for (size_t s = 0; s < cap; s++) st.cl.slot[s] = -1;
    for (int q = 0; q < G; q++)
        for (int j = 0; j < p; j++)
            if (pt->codes[(size_t) q * p + j] > st.maxcode[j]) st.maxcode[j] = pt->codes[(size_t) q * p + j];
    for (int j = 0; j < p; j++)
        if (!(st.byval[j] = calloc((size_t) st.maxcode[j] + 1, sizeof(ivec)))) goto done;
    for (int q = 0; q < G; q++) {
        int c = cat_class_add(&st, pt->codes + (size_t) q * p);
        int u = unit_add(&st, q, pt->weight[q]);
        if (c < 0 || u < 0) goto done;
        st.cl.weight[c] = pt->weight[q];
        cat_link(&st, u, c);
    }
    status = cat_levels(&st);
    if (status == 0) status = cat_complete(&st);
    if (status == 0) status = cat_prune(&st);
    if (status != 0) goto done;
    /* records of a pattern fill its units in order of the rows */
    status = -1;
    first = malloc((size_t) G * sizeof(int));
    used = calloc((size_t) st.n_units + 1, sizeof(int));
    pnext = malloc((size_t) st.n_units * sizeof(int) + sizeof(int));
    if (!first || !used || !pnext) goto done;
    for (int q = 0; q < G; q++) first[q] = -1;
    for (int u = st.n_units - 1; u >= 0; u--) {
        if (st.ucnt[u] == 0) continue;
        pnext[u] = first[st.upat[u]];
        first[st.upat[u]] = u;
    }
    for (size_t i = 0; i < n; i++) {
        int q = pt->of_record[i], u = first[q];
        if (++used[u] == st.ucnt[u]) first[q] = pnext[u];
        const int *orig = pt->codes + (size_t) q * p;
        const int *now = st.cl.codes + (size_t) st.ucls[u] * p;
        for (int j = 0; j < n_free; j++)
            if (orig[j] != 0 && now[j] == 0) supp[i + (size_t) j * n] = 1;
    }
    status = 0;
done:
    free(first); free(used); free(pnext);
    cat_free(&st);
    return status;
}

/* --------------------------------------------- wildcard: inverted index */

typedef struct {
    int G, p, n_free;
    int *cur;            /* G x p row-major current codes (owned by caller) */
    const int *weight;
    int *maxcode;        /* per column */
    ivec **exact;        /* exact[j][a], a = 1..maxcode[j] */
    ivec *blank;         /* blank[j], j < n_free */
    int *pos;            /* G x p: position in the list the pattern is in */
    long total;
} windex;

static void windex_free(windex *ix)
{
    if (ix->exact) {
        for (int j = 0; j < ix->p; j++) {
            if (!ix->exact[j]) continue;
            for (int a = 0; a <= ix->maxcode[j]; a++) free(ix->exact[j][a].v);
            free(ix->exact[j]);
        }
    }
    if (ix->blank) for (int j = 0; j < ix->n_free; j++) free(ix->blank[j].v);
    free(ix->exact); free(ix->blank); free(ix->maxcode); free(ix->pos);
    memset(ix, 0, sizeof(*ix));
}

static int windex_build(windex *ix, int G, int p, int n_free, int *cur, const int *weight)
{
    memset(ix, 0, sizeof(*ix));
    ix->G = G; ix->p = p; ix->n_free = n_free; ix->cur = cur; ix->weight = weight;
    ix->maxcode = calloc((size_t) p, sizeof(int));
    ix->exact = calloc((size_t) p, sizeof(ivec *));
    ix->blank = calloc((size_t) (n_free > 0 ? n_free : 1), sizeof(ivec));
    ix->pos = malloc((size_t) G * (size_t) p * sizeof(int) + sizeof(int));
    if (!ix->maxcode || !ix->exact || !ix->blank || !ix->pos) return -1;
    for (int q = 0; q < G; q++) {
        ix->total += weight[q];
        for (int j = 0; j < p; j++)
            if (cur[(size_t) q * p + j] > ix->maxcode[j]) ix->maxcode[j] = cur[(size_t) q * p + j];
    }
    for (int j = 0; j < p; j++) {
        ix->exact[j] = calloc((size_t) ix->maxcode[j] + 1, sizeof(ivec));
        if (!ix->exact[j]) return -1;
    }
    for (int q = 0; q < G; q++)
        for (int j = 0; j < p; j++) {
            int a = cur[(size_t) q * p + j];
            ivec *list = (a == 0 && j < n_free) ? &ix->blank[j] : &ix->exact[j][a];
            ix->pos[(size_t) q * p + j] = list->len;
            if (ivec_push(list, q) < 0) return -1;
        }
    return 0;
}

static ivec *windex_list(windex *ix, int j, int a)
{
    return (a == 0 && j < ix->n_free) ? &ix->blank[j] : &ix->exact[j][a];
}

/* Set key j of pattern q to value a (0 = blank), keeping the lists. */
static int windex_set(windex *ix, int q, int j, int a)
{
    int p = ix->p;
    int old = ix->cur[(size_t) q * p + j];
    if (old == a) return 0;
    ivec *from = windex_list(ix, j, old), *to = windex_list(ix, j, a);
    int at = ix->pos[(size_t) q * p + j];
    int last = from->v[from->len - 1];
    from->v[at] = last;
    ix->pos[(size_t) last * p + j] = at;
    from->len--;
    ix->pos[(size_t) q * p + j] = to->len;
    if (ivec_push(to, q) < 0) return -1;
    ix->cur[(size_t) q * p + j] = a;
    return 0;
}

static int compatible(const int *x, const int *y, int p)
{
    for (int j = 0; j < p; j++)
        if (x[j] != 0 && y[j] != 0 && x[j] != y[j]) return 0;
    return 1;
}

/* The lists holding every pattern compatible with the row x: the patterns
 * with x's value in its most selective set key, and those blank there.
 * Returns their number, or -1 when x sets no key (every pattern). */
static int windex_lists(const windex *ix, const int *x, const ivec *lists[2])
{
    int driver = -1;
    long best_len = 0;
    for (int j = 0; j < ix->p; j++) {
        if (x[j] == 0) continue;
        long len = x[j] <= ix->maxcode[j] ? ix->exact[j][x[j]].len : 0;
        if (j < ix->n_free) len += ix->blank[j].len;
        if (driver < 0 || len < best_len) { driver = j; best_len = len; }
    }
    if (driver < 0) return -1;
    int m = 0;
    if (x[driver] <= ix->maxcode[driver]) lists[m++] = &ix->exact[driver][x[driver]];
    if (driver < ix->n_free) lists[m++] = &ix->blank[driver];
    return m;
}

/* Records compatible with the row x, counted up to cap; with flag, only
 * those of the patterns flagged. */
static long windex_count_flagged(const windex *ix, const int *x, long cap, const char *flag)
{
    const ivec *lists[2];
    int m = windex_lists(ix, x, lists);
    long f = 0;
    if (m < 0) {
        if (!flag) return ix->total;
        for (int q = 0; q < ix->G; q++) if (flag[q]) f += ix->weight[q];
        return f;
    }
    for (int l = 0; l < m; l++)
        for (int i = 0; i < lists[l]->len; i++) {
            int q = lists[l]->v[i];
            if ((!flag || flag[q]) && compatible(x, ix->cur + (size_t) q * ix->p, ix->p)) {
                f += ix->weight[q];
                if (f >= cap) return f;
            }
        }
    return f;
}

static long windex_count(const windex *ix, const int *x, long cap)
{
    return windex_count_flagged(ix, x, cap, NULL);
}

/* The patterns compatible with the row x, into out. */
static int windex_collect(const windex *ix, const int *x, ivec *out)
{
    const ivec *lists[2];
    int m = windex_lists(ix, x, lists);
    out->len = 0;
    if (m < 0) {
        for (int q = 0; q < ix->G; q++) if (ivec_push(out, q) < 0) return -1;
        return 0;
    }
    for (int l = 0; l < m; l++)
        for (int i = 0; i < lists[l]->len; i++) {
            int q = lists[l]->v[i];
            if (compatible(x, ix->cur + (size_t) q * ix->p, ix->p) && ivec_push(out, q) < 0)
                return -1;
        }
    return 0;
}

static int cmp_ranked_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* order 0: the records below k with the smallest f first; 1: the largest f
 * first (both then by pattern) */
static int wild_greedy(windex *ix, int n_free, int k, const subsets *ss, int order, poller *pl)
{
    int G = ix->G, p = ix->p;
    ranked *list = malloc((size_t) G * sizeof(ranked) + sizeof(ranked));
    int *x = malloc((size_t) p * sizeof(int));
    if (!list || !x) { free(list); free(x); return -1; }
    int m = 0;
    for (int q = 0; q < G; q++) {
        if (poll_stop(pl)) { free(list); free(x); return -2; }
        long f = windex_count(ix, ix->cur + (size_t) q * p, k);
        if (f < k) { list[m].id = q; list[m].weight = (int) f; m++; }
    }
    qsort(list, (size_t) m, sizeof(ranked), order == 0 ? cmp_ranked : cmp_ranked_desc);
    /* pending: still to be processed; among the cheapest sets that make q
     * safe, the one that also reaches most pending records wins */
    char *pending = calloc((size_t) G + 1, 1);
    if (!pending) { free(list); free(x); return -1; }
    for (int a = 0; a < m; a++) pending[list[a].id] = 1;
    for (int a = 0; a < m; a++) {
        if (poll_stop(pl)) { free(list); free(x); free(pending); return -2; }
        int q = list[a].id;
        pending[q] = 0;
        int *cq = ix->cur + (size_t) q * p;
        if (windex_count(ix, cq, k) >= k) continue;
        uint64_t nz = nonzero_mask(cq, n_free), S = 0;
        long best_f = 0, best_help = 0;
        double best_cost = 0;
        int found = 0;
        for (size_t i = 0; i < ss->m; i++) {
            const subset *s = &ss->s[i];
            if (s->mask & ~nz) continue;
            if (found && s->cost > best_cost) break;
            memcpy(x, cq, (size_t) p * sizeof(int));
            for (int j = 0; j < n_free; j++)
                if (s->mask >> j & 1) x[j] = 0;
            long f = windex_count(ix, x, 4L * k);
            if (f < k) continue;
            long help = windex_count_flagged(ix, x, LONG_MAX, pending);
            if (!found || help > best_help || (help == best_help && f > best_f)) {
                found = 1; S = s->mask; best_cost = s->cost; best_f = f; best_help = help;
            }
        }
        if (!found) S = nz;
        for (int j = 0; j < n_free; j++)
            if (S >> j & 1 && windex_set(ix, q, j, 0) < 0) {
                free(list); free(x); free(pending);
                return -1;
            }
    }
    free(pending);
    free(list);
    free(x);
    return 0;
}

/* Put back a blanked cell (pattern q, key j) when afterwards q is still
 * compatible with >= k records and so is every record that loses q's
 * records as compatible partners (those with another value in key j). */
static int wild_prune(windex *ix, const patterns *pt, int n_free, int k, poller *pl)
{
    int G = ix->G, p = ix->p;
    int *y = malloc((size_t) p * sizeof(int));
    ivec partners = { NULL, 0, 0 };
    if (!y) return -1;
    int status = 0;
    for (int q = 0; q < G && status == 0; q++) {
        for (int j = 0; j < n_free && status == 0; j++) {
            int *cq = ix->cur + (size_t) q * p;
            int orig = pt->codes[(size_t) q * p + j];
            if (cq[j] != 0 || orig == 0) continue;
            if (poll_stop(pl)) { status = -2; break; }
            /* the partners q has while blank in j */
            memcpy(y, cq, (size_t) p * sizeof(int));
            if (windex_collect(ix, y, &partners) < 0) { status = -1; break; }
            if (windex_set(ix, q, j, orig) < 0) { status = -1; break; }
            int ok = windex_count(ix, cq, k) >= k;
            for (int i = 0; i < partners.len && ok; i++) {
                int r = partners.v[i];
                int a = ix->cur[(size_t) r * p + j];
                if (a == 0 || a == orig) continue;
                if (windex_count(ix, ix->cur + (size_t) r * p, k) < k) ok = 0;
            }
            if (!ok && windex_set(ix, q, j, 0) < 0) status = -1;
        }
    }
    free(partners.v);
    free(y);
    return status;
}

/* ------------------------------------------------------------------ entry */

int suppress_run(const int *codes, size_t n, int p, int n_free,
                 const double *cost, int k, int wildcard, int *supp,
                 int (*interrupted)(void))
{
    poller pl = { interrupted, 0 };
    memset(supp, 0, n * (size_t) n_free * sizeof(int));
    if (n == 0 || n_free == 0) return 0;
    patterns pt;
    if (patterns_build(codes, n, p, &pt) < 0) return -1;
    int G = pt.G;
    subsets ss = { NULL, 0 };
    int *cur = malloc((size_t) G * (size_t) p * sizeof(int) + sizeof(int)), *best = NULL;
    int status = -1;
    if (!cur || subsets_build(n_free, cost, &ss) < 0) goto done;
    if (!wildcard) {
        status = run_category(&pt, n_free, cost, k, &ss, n, supp, &pl);
        goto done;
    }
    /* two orders of the greedy; the cheaper result is kept (the first on a
     * tie), so the choice depends on the codes only */
    best = malloc((size_t) G * (size_t) p * sizeof(int) + sizeof(int));
    if (!best) { status = -1; goto done; }
    double best_cost = -1;
    for (int order = 0; order < 2; order++) {
        memcpy(cur, pt.codes, (size_t) G * (size_t) p * sizeof(int));
        windex ix;
        status = windex_build(&ix, G, p, n_free, cur, pt.weight) < 0 ? -1 : 0;
        if (status == 0) status = wild_greedy(&ix, n_free, k, &ss, order, &pl);
        if (status == 0) status = wild_prune(&ix, &pt, n_free, k, &pl);
        windex_free(&ix);
        if (status != 0) goto done;
        double total = 0;
        for (int q = 0; q < G; q++)
            for (int j = 0; j < n_free; j++)
                if (pt.codes[(size_t) q * p + j] != 0 && cur[(size_t) q * p + j] == 0)
                    total += (double) pt.weight[q] * cost[j];
        if (best_cost < 0 || total < best_cost) {
            best_cost = total;
            memcpy(best, cur, (size_t) G * (size_t) p * sizeof(int));
        }
    }
    memcpy(cur, best, (size_t) G * (size_t) p * sizeof(int));
    for (size_t i = 0; i < n; i++) {
        int q = pt.of_record[i];
        const int *orig = pt.codes + (size_t) q * p, *now = cur + (size_t) q * p;
        for (int j = 0; j < n_free; j++)
            if (orig[j] != 0 && now[j] == 0) supp[i + (size_t) j * n] = 1;
    }
done:
    free(cur); free(best); free(ss.s);
    patterns_free(&pt);
    return status;
}

int suppress_class_sizes(const int *codes, size_t n, int p, int n_free,
                         int wildcard, int *size, int (*interrupted)(void))
{
    poller pl = { interrupted, 0 };
    if (n == 0) return 0;
    patterns pt;
    if (patterns_build(codes, n, p, &pt) < 0) return -1;
    int G = pt.G, status = 0;
    long *f = malloc((size_t) G * sizeof(long) + sizeof(long));
    if (!f) { patterns_free(&pt); return -1; }
    if (!wildcard) {
        for (int q = 0; q < G; q++) f[q] = pt.weight[q];
    } else {
        windex ix;
        status = windex_build(&ix, G, p, n_free, pt.codes, pt.weight) < 0 ? -1 : 0;
        for (int q = 0; q < G && status == 0; q++) {
            if (poll_stop(&pl)) { status = -2; break; }
            f[q] = windex_count(&ix, pt.codes + (size_t) q * p, ix.total + 1);
        }
        windex_free(&ix);
    }
    if (status == 0)
        for (size_t i = 0; i < n; i++) size[i] = (int) f[pt.of_record[i]];
    free(f);
    patterns_free(&pt);
    return status;
}
