/* Cell-level local suppression (METHODS 19): a greedy over distinct key
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
 * f is counted through an inverted index: for each key and value the
 * patterns holding that value, and for each key the patterns blank in it;
 * one count scans the shortest such list and checks each candidate.
 *
 * Both readings end with a pruning pass: each blanked cell whose value can
 * be put back without leaving any record below k is put back. */

#include <stdlib.h>
#include <string.h>
#include <stdint.h>
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
    const patterns *pt;
    int n_free, k;
    const double *cost;
    const subsets *ss;
    classes cl;
    int *next;       /* member list of each class, over patterns */
    int *cls;        /* class of each pattern */
    int *split;      /* records of each pattern given away to a pool */
    int *x;          /* scratch row */
    poller *pl;
} cat_state;

static void cat_append(cat_state *st, int from, int to)
{
    classes *cl = &st->cl;
    if (cl->head[from] < 0) return;
    for (int q = cl->head[from]; q >= 0; q = st->next[q]) st->cls[q] = to;
    if (cl->tail[to] >= 0) st->next[cl->tail[to]] = cl->head[from];
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
    if (t < 0 && (t = classes_add(cl, st->x)) < 0) return -1;
    cl->weight[t] += cl->weight[c];
    cl->weight[c] = 0;
    cat_append(st, c, t);
    return t;
}

typedef struct { int id, weight; } ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->weight != y->weight) return x->weight < y->weight ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Blanking every key of class d costs this per record. */
static double full_cost(const cat_state *st, int d)
{
    return mask_cost(nonzero_mask(st->cl.codes + (size_t) d * st->cl.p, st->n_free),
                     st->cost, st->n_free);
}

static int same_stratum(const int *a, const int *b, int n_free, int p)
{
    for (int j = n_free; j < p; j++) if (a[j] != b[j]) return 0;
    return 1;
}

/* A pool (every key blank) smaller than k: fill it from its stratum. */
static int cat_fill_pool(cat_state *st, int pool)
{
    classes *cl = &st->cl;
    int p = cl->p, k = st->k;
    int need = k - cl->weight[pool];
    const int *pc = cl->codes + (size_t) pool * p;
    /* donors: the other non-empty classes of the stratum (all >= k) */
    int n_donor = 0;
    ranked *donor = malloc((size_t) cl->n * sizeof(ranked) + sizeof(ranked));
    double *unit = malloc((size_t) cl->n * sizeof(double) + sizeof(double));
    if (!donor || !unit) { free(donor); free(unit); return -1; }
    long surplus = 0;
    int best_whole = -1;
    double best_whole_cost = 0;
    for (int d = 0; d < cl->n; d++) {
        if (d == pool || cl->weight[d] == 0 ||
            !same_stratum(cl->codes + (size_t) d * p, pc, st->n_free, p)) continue;
        unit[d] = full_cost(st, d);
        double whole = unit[d] * cl->weight[d];
        if (best_whole < 0 || whole < best_whole_cost) { best_whole = d; best_whole_cost = whole; }
        if (cl->weight[d] > k) {
            donor[n_donor].id = d;
            donor[n_donor].weight = 0;
            n_donor++;
            surplus += cl->weight[d] - k;
        }
    }
    /* surplus records, cheapest first (ties: class order) */
    double surplus_cost = -1;
    if (surplus >= need) {
        /* sort donors by unit cost: reuse ranked.weight as a rank of cost */
        for (int a = 1; a < n_donor; a++) {  /* insertion sort: few donors */
            ranked v = donor[a];
            int b = a - 1;
            while (b >= 0 && (unit[donor[b].id] > unit[v.id] ||
                              (unit[donor[b].id] == unit[v.id] && donor[b].id > v.id))) {
                donor[b + 1] = donor[b];
                b--;
            }
            donor[b + 1] = v;
        }
        surplus_cost = 0;
        int left = need;
        for (int a = 0; a < n_donor && left > 0; a++) {
            int d = donor[a].id, take = cl->weight[d] - k;
            if (take > left) take = left;
            surplus_cost += unit[d] * take;
            left -= take;
        }
    }
    if (surplus_cost >= 0 && (best_whole < 0 || surplus_cost <= best_whole_cost)) {
        int left = need;
        for (int a = 0; a < n_donor && left > 0; a++) {
            int d = donor[a].id, take = cl->weight[d] - k;
            if (take > left) take = left;
            cl->weight[d] -= take;
            cl->weight[pool] += take;
            left -= take;
            /* the records come from the class's member patterns, in order */
            for (int q = cl->head[d]; q >= 0 && take > 0; q = st->next[q]) {
                int avail = st->pt->weight[q] - st->split[q];
                int t = avail < take ? avail : take;
                st->split[q] += t;
                take -= t;
            }
        }
    } else if (best_whole >= 0) {
        uint64_t nz = nonzero_mask(cl->codes + (size_t) best_whole * p, st->n_free);
        if (nz == 0) {  /* cannot happen: pools are unique per stratum */
            free(donor); free(unit);
            return 0;
        }
        if (cat_move(st, best_whole, nz) < 0) { free(donor); free(unit); return -1; }
    }
    free(donor);
    free(unit);
    return 0;
}

/* Level by level, key subsets S in order of cost: the classes still
 * smaller than k are grouped by their pattern with S blanked; a group that
 * reaches k with the class already there (if that one is not small itself)
 * moves there together. The last level blanks every key of what is left
 * (the pool of the stratum, filled up afterwards). */
static int cat_greedy(cat_state *st)
{
    classes *cl = &st->cl;
    int p = cl->p, k = st->k;
    const subsets *ss = st->ss;
    uint64_t all = st->n_free == 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << st->n_free) - 1);
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
    for (size_t level = 0; level <= ss->m && m > 0 && status == 0; level++) {
        if (poll_stop(st->pl)) { status = -2; break; }
        uint64_t S = level < ss->m ? ss->s[level].mask : all;
        if (level == ss->m && ss->m > 0 && ss->s[ss->m - 1].mask == all) break;
        /* a fresh table of the groups of this level */
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
            if (tmp.weight[entry[a]] >= k || S == all) {
                if (cat_move(st, c, S) < 0) { status = -1; break; }
            } else {
                small[kept++] = c;
            }
        }
        /* classes that received others this level are no longer small */
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
    if (status != 0) return status;
    /* pools: every key blank and still smaller than k */
    for (int c = 0; c < cl->n; c++) {
        if (cl->weight[c] > 0 && cl->weight[c] < k &&
            nonzero_mask(cl->codes + (size_t) c * p, st->n_free) == 0) {
            status = cat_fill_pool(st, c);
            if (status < 0) return status;
        }
    }
    return 0;
}

/* Put back blanked cells where that leaves every class at 0 or >= k: a
 * member pattern q of class c regains key j when c without q is empty or
 * still >= k and the class q then joins reaches k. */
static int cat_prune(cat_state *st)
{
    classes *cl = &st->cl;
    const patterns *pt = st->pt;
    int p = cl->p, k = st->k;
    int *y = malloc((size_t) p * sizeof(int));
    if (!y) return -1;
    for (int q = 0; q < pt->G; q++) {
        if (st->split[q] > 0) continue;  /* split patterns stay as they are */
        for (int j = 0; j < st->n_free; j++) {
            if (poll_stop(st->pl)) { free(y); return -2; }
            int c = st->cls[q];
            const int *orig = pt->codes + (size_t) q * p;
            const int *cc = cl->codes + (size_t) c * p;
            if (cc[j] != 0 || orig[j] == 0) continue;
            int wq = pt->weight[q], wc = cl->weight[c];
            if (wc - wq != 0 && wc - wq < k) continue;
            memcpy(y, cc, (size_t) p * sizeof(int));
            y[j] = orig[j];
            int t = classes_find(cl, y);
            int tw = t < 0 ? 0 : cl->weight[t];
            if (tw + wq < k) continue;
            if (t < 0 && (t = classes_add(cl, y)) < 0) { free(y); return -1; }
            /* unlink q from c */
            int prev = -1;
            for (int r = cl->head[c]; r >= 0; prev = r, r = st->next[r]) {
                if (r != q) continue;
                if (prev < 0) cl->head[c] = st->next[q]; else st->next[prev] = st->next[q];
                if (cl->tail[c] == q) cl->tail[c] = prev;
                break;
            }
            st->next[q] = -1;
            if (cl->tail[t] >= 0) st->next[cl->tail[t]] = q; else cl->head[t] = q;
            cl->tail[t] = q;
            st->cls[q] = t;
            cl->weight[c] -= wq;
            cl->weight[t] += wq;
        }
    }
    free(y);
    return 0;
}

static int run_category(const patterns *pt, int n_free, const double *cost, int k,
                        const subsets *ss, int *cur, int *split, poller *pl)
{
    int G = pt->G, p = pt->p;
    cat_state st;
    memset(&st, 0, sizeof(st));
    st.pt = pt; st.n_free = n_free; st.k = k; st.cost = cost; st.ss = ss; st.pl = pl;
    st.split = split;
    st.cl.p = p;
    st.next = malloc((size_t) G * sizeof(int));
    st.cls = malloc((size_t) G * sizeof(int));
    st.x = malloc((size_t) p * sizeof(int));
    size_t cap = 16;
    while (cap < 4 * (size_t) G) cap <<= 1;
    st.cl.slot = malloc(cap * sizeof(int));
    st.cl.slot_cap = cap;
    int status = -1;
    if (!st.next || !st.cls || !st.x || !st.cl.slot) goto done;
    for (size_t s = 0; s < cap; s++) st.cl.slot[s] = -1;
    for (int q = 0; q < G; q++) {
        int c = classes_add(&st.cl, pt->codes + (size_t) q * p);
        if (c < 0) goto done;
        st.cl.weight[c] = pt->weight[q];
        st.cl.head[c] = st.cl.tail[c] = q;
        st.next[q] = -1;
        st.cls[q] = c;
    }
    status = cat_greedy(&st);
    if (status == 0) status = cat_prune(&st);
    if (status == 0)
        for (int q = 0; q < G; q++)
            memcpy(cur + (size_t) q * p, st.cl.codes + (size_t) st.cls[q] * p,
                   (size_t) p * sizeof(int));
done:
    free(st.next); free(st.cls); free(st.x);
    classes_free(&st.cl);
    return status;
}

/* --------------------------------------------- wildcard: inverted index */

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

/* Records compatible with the row x, counted up to cap. */
static long windex_count(const windex *ix, const int *x, long cap)
{
    int p = ix->p, driver = -1;
    long best_len = 0;
    for (int j = 0; j < p; j++) {
        if (x[j] == 0) continue;
        long len = x[j] <= ix->maxcode[j] ? ix->exact[j][x[j]].len : 0;
        if (j < ix->n_free) len += ix->blank[j].len;
        if (driver < 0 || len < best_len) { driver = j; best_len = len; }
    }
    if (driver < 0) return ix->total;
    long f = 0;
    for (int part = 0; part < 2; part++) {
        const ivec *list;
        if (part == 0) {
            if (x[driver] > ix->maxcode[driver]) continue;
            list = &ix->exact[driver][x[driver]];
        } else {
            if (driver >= ix->n_free) break;
            list = &ix->blank[driver];
        }
        for (int i = 0; i < list->len; i++) {
            int q = list->v[i];
            if (compatible(x, ix->cur + (size_t) q * p, p)) {
                f += ix->weight[q];
                if (f >= cap) return f;
            }
        }
    }
    return f;
}

static int wild_greedy(windex *ix, int n_free, int k, const subsets *ss, poller *pl)
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
    qsort(list, (size_t) m, sizeof(ranked), cmp_ranked);
    for (int a = 0; a < m; a++) {
        if (poll_stop(pl)) { free(list); free(x); return -2; }
        int q = list[a].id;
        int *cq = ix->cur + (size_t) q * p;
        if (windex_count(ix, cq, k) >= k) continue;
        uint64_t nz = nonzero_mask(cq, n_free), S = 0;
        long best_f = 0;
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
            if (f >= k && (!found || f > best_f)) {
                found = 1; S = s->mask; best_cost = s->cost; best_f = f;
            }
        }
        if (!found) S = nz;
        for (int j = 0; j < n_free; j++)
            if (S >> j & 1 && windex_set(ix, q, j, 0) < 0) { free(list); free(x); return -1; }
    }
    free(list);
    free(x);
    return 0;
}

/* The patterns compatible with the row x, appended to out. */
static int windex_collect(const windex *ix, const int *x, ivec *out)
{
    int p = ix->p, driver = -1;
    long best_len = 0;
    out->len = 0;
    for (int j = 0; j < p; j++) {
        if (x[j] == 0) continue;
        long len = x[j] <= ix->maxcode[j] ? ix->exact[j][x[j]].len : 0;
        if (j < ix->n_free) len += ix->blank[j].len;
        if (driver < 0 || len < best_len) { driver = j; best_len = len; }
    }
    if (driver < 0) {
        for (int q = 0; q < ix->G; q++) if (ivec_push(out, q) < 0) return -1;
        return 0;
    }
    for (int part = 0; part < 2; part++) {
        const ivec *list;
        if (part == 0) {
            if (x[driver] > ix->maxcode[driver]) continue;
            list = &ix->exact[driver][x[driver]];
        } else {
            if (driver >= ix->n_free) break;
            list = &ix->blank[driver];
        }
        for (int i = 0; i < list->len; i++) {
            int q = list->v[i];
            if (compatible(x, ix->cur + (size_t) q * p, p) && ivec_push(out, q) < 0) return -1;
        }
    }
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
    int *cur = malloc((size_t) G * (size_t) p * sizeof(int) + sizeof(int));
    int *split = calloc((size_t) G + 1, sizeof(int));
    int *seen = calloc((size_t) G + 1, sizeof(int));
    int status = -1;
    if (!cur || !split || !seen || subsets_build(n_free, cost, &ss) < 0) goto done;
    if (!wildcard) {
        status = run_category(&pt, n_free, cost, k, &ss, cur, split, &pl);
    } else {
        memcpy(cur, pt.codes, (size_t) G * (size_t) p * sizeof(int));
        windex ix;
        status = windex_build(&ix, G, p, n_free, cur, pt.weight) < 0 ? -1 : 0;
        if (status == 0) status = wild_greedy(&ix, n_free, k, &ss, &pl);
        if (status == 0) status = wild_prune(&ix, &pt, n_free, k, &pl);
        windex_free(&ix);
    }
    if (status != 0) goto done;
    /* a pattern's records take its final codes; the last split[q] of them
     * (in row order) went to their stratum's pool: every key blank */
    for (size_t i = 0; i < n; i++) {
        int q = pt.of_record[i];
        const int *orig = pt.codes + (size_t) q * p, *now = cur + (size_t) q * p;
        int pooled = seen[q]++ >= pt.weight[q] - split[q];
        for (int j = 0; j < n_free; j++)
            if (orig[j] != 0 && (pooled || now[j] == 0)) supp[i + (size_t) j * n] = 1;
    }
done:
    free(cur); free(split); free(seen); free(ss.s);
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
