#include <math.h>
#include <float.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <R.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#include <R_ext/Applic.h>
#include <R_ext/Utils.h>
#include <R_ext/Print.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "irls.h"
#include "vmath.h"

#ifndef FCONE
#define FCONE
#endif

/* Rows are split into a number of chunks that depends only on n and p, and
 * partial sums are reduced in chunk order, so a fit gives the same bits
 * whatever the number of threads. Chunks are handed out dynamically: on a
 * shared machine a thread that loses its core holds up one chunk, not half
 * of the rows. Within a chunk, rows are processed in
 * blocks of BLOCK_ROWS whose columns of X stay in the L1/L2 cache between
 * the linear predictor and the cross-products. */
#define ROWS_PER_CHUNK 4096
#define MAX_CHUNKS 64
#define BLOCK_ROWS 256
#define CHUNK_MEMORY_DOUBLES 4194304.0
#define PARALLEL_MIN_ROWS 20000
/* per-chunk scratch starts on its own cache line (8 doubles): no false
 * sharing between threads */
#define LINE_DOUBLES 8

#ifdef _OPENMP
#define SIMD_STR(x) #x
#define SIMD_LOOP _Pragma("omp simd")
#define SIMD_REDUCTION(v) _Pragma(SIMD_STR(omp simd reduction(+:v)))
#define SIMD_REDUCTION4(a, b, c, d) _Pragma(SIMD_STR(omp simd reduction(+:a, b, c, d)))
#define SIMD_REDUCTION2(a, b) _Pragma(SIMD_STR(omp simd reduction(+:a, b)))
#else
#define SIMD_LOOP
#define SIMD_REDUCTION(v)
#define SIMD_REDUCTION4(a, b, c, d)
#define SIMD_REDUCTION2(a, b)
#endif

/* The block kernels are compiled twice on x86-64 with GCC, for AVX2 (4
 * doubles per instruction; no FMA, so each product is rounded as in the
 * baseline code) and for the baseline SSE2, the loader picking one for the
 * running CPU. Neither floating-point traps nor errno are used here, and
 * telling GCC so lets it vectorize loops with selects, divisions and sqrt
 * (the values computed are the same). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTOR_CLONES __attribute__((noinline, target_clones("avx2", "default"), \
                                     optimize("no-trapping-math", "no-math-errno")))
#elif defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((optimize("no-trapping-math", "no-math-errno")))
#else
#define VECTOR_CLONES
#endif

/* Constants of R's src/library/stats/src/family.c (logit link), as in family.c. */
#define LOGIT_THRESH 30.0
#define LOGIT_MTHRESH -30.0
#define LOGIT_INVEPS (1.0 / DBL_EPSILON)

typedef struct {
    const double *x, *y, *wt, *offset;
    size_t n;
    int p;
    glm_family fam;
    int nchunk;
    int nthreads;     /* for loops that only do arithmetic */
    int fam_threads;  /* for loops that evaluate the family */
} irls_problem;

static size_t chunk_lo(const irls_problem *pr, int c)
{
    return (size_t) ((double) pr->n * c / pr->nchunk);
}

static double sum_in_order(const double *part, int nchunk)
{
    double s = 0.0;
    for (int c = 0; c < nchunk; c++) s += part[c];
    return s;
}

/* Per-chunk scratch: G, the upper triangle of the (p + 1) x (p + 1) Gram
 * matrix of [sqrt(W) X, sqrt(W) z] (so X'WX and X'Wz), U the block of
 * [sqrt(W) X, sqrt(W) z] (BLOCK_ROWS x (p + 1), column-major), and
 * three block-long vectors for the family evaluation. */
typedef struct {
    double *base;
    size_t stride;   /* doubles between chunks, a multiple of LINE_DOUBLES */
    size_t g_len;    /* (p + 1)^2 rounded up to a cache line */
} chunk_workspace;

static size_t round_line(size_t k)
{
    return (k + LINE_DOUBLES - 1) / LINE_DOUBLES * LINE_DOUBLES;
}

static void alloc_chunks(chunk_workspace *cw, int p, int nchunk)
{
    size_t q = (size_t) p + 1;
    cw->g_len = round_line(q * q);
    cw->stride = cw->g_len + round_line((size_t) BLOCK_ROWS * (q + 3));
    double *raw = (double *) R_alloc(cw->stride * nchunk + LINE_DOUBLES, sizeof(double));
    uintptr_t a = (uintptr_t) raw, line = LINE_DOUBLES * sizeof(double);
    cw->base = (double *) ((a + line - 1) / line * line);
}

static double *chunk_G(const chunk_workspace *cw, int c) { return cw->base + cw->stride * c; }
static double *chunk_U(const chunk_workspace *cw, int c) { return chunk_G(cw, c) + cw->g_len; }

/* G[k + j q] += sum_r U[r, k] U[r, j] for k <= j: 2 x 2 blocks of dot
 * products, i.e. four independent vectorized accumulators per pass over the
 * block, reading each column pair once per block pair (the reference BLAS
 * dsyrk is a single latency-bound dot product at a time). Diagonal blocks
 * also write one entry below the diagonal, which nothing reads. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define GRAM_FMA 1
#define GRAM_INLINE static inline __attribute__((always_inline))
#else
#define GRAM_INLINE static inline
#endif

GRAM_INLINE void gram_block_impl(int q, int len, const double *U, int ld, double *G)
{
    int j = 0;
    for (; j + 1 < q; j += 2) {
        const double *uj0 = U + (size_t) j * ld, *uj1 = uj0 + ld;
        double *G0 = G + (size_t) j * q, *G1 = G0 + q;
        for (int k = 0; k <= j; k += 2) {
            const double *uk0 = U + (size_t) k * ld, *uk1 = uk0 + ld;
            double s00 = 0.0, s01 = 0.0, s10 = 0.0, s11 = 0.0;
            SIMD_REDUCTION4(s00, s01, s10, s11)
            for (int r = 0; r < len; r++) {
                s00 += uk0[r] * uj0[r];
                s01 += uk1[r] * uj0[r];
                s10 += uk0[r] * uj1[r];
                s11 += uk1[r] * uj1[r];
            }
            G0[k] += s00;
            G0[k + 1] += s01;
            G1[k] += s10;
            G1[k + 1] += s11;
        }
    }
    if (j < q) {
        const double *uj = U + (size_t) j * ld;
        double *Gj = G + (size_t) j * q;
        int k = 0;
        for (; k + 1 < j; k += 2) {
            const double *uk0 = U + (size_t) k * ld, *uk1 = uk0 + ld;
            double s0 = 0.0, s1 = 0.0;
            SIMD_REDUCTION2(s0, s1)
            for (int r = 0; r < len; r++) {
                s0 += uk0[r] * uj[r];
                s1 += uk1[r] * uj[r];
            }
            Gj[k] += s0;
            Gj[k + 1] += s1;
        }
        for (; k <= j; k++) {
            const double *uk = U + (size_t) k * ld;
            double s = 0.0;
            SIMD_REDUCTION(s)
            for (int r = 0; r < len; r++) s += uk[r] * uj[r];
            Gj[k] += s;
        }
    }
}

#ifdef GRAM_FMA
/* With FMA (set once per fit, before any parallel region) the products are
 * accumulated by fused multiply-adds: half the instructions of the
 * compute-bound kernel, and sums at least as accurate. */
static int gram_use_fma = 0;

__attribute__((noinline, target("avx2,fma")))
static void gram_block_fma(int q, int len, const double *U, int ld, double *G)
{
    gram_block_impl(q, len, U, ld, G);
}

static void gram_detect_fma(void)
{
    __builtin_cpu_init();
    gram_use_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static void gram_detect_fma(void) {}
#endif

VECTOR_CLONES
static void gram_block_base(int q, int len, const double *U, int ld, double *G)
{
    gram_block_impl(q, len, U, ld, G);
}

static void gram_block(int q, int len, const double *U, int ld, double *G)
{
#ifdef GRAM_FMA
    if (gram_use_fma) {
        gram_block_fma(q, len, U, ld, G);
        return;
    }
#endif
    gram_block_base(q, len, U, ld, G);
}

/* Adds rows [lo, lo + len) of sqrt(W) X and sqrt(W) z to G. Rows outside the
 * good subset have sw = z = 0 and add exactly zero. */
VECTOR_CLONES
static void normal_block(const irls_problem *pr, size_t lo, int len, const double *sw,
                         const double *z, double *U, double *G)
{
    int p = pr->p;
    for (int j = 0; j < p; j++) {
        const double *xj = pr->x + (size_t) j * pr->n + lo;
        double *uj = U + (size_t) j * BLOCK_ROWS;
        SIMD_LOOP
        for (int r = 0; r < len; r++) uj[r] = sw[r] * xj[r];
    }
    double *t = U + (size_t) p * BLOCK_ROWS;
    SIMD_LOOP
    for (int r = 0; r < len; r++) t[r] = sw[r] * z[r];
    gram_block(p + 1, len, U, BLOCK_ROWS, G);
}

/* eta = X beta + offset over a block, in glm.fit's order (x %*% beta by
 * columns, then the offset). */
VECTOR_CLONES
static void eta_block(const irls_problem *pr, const double *beta, size_t lo, int len,
                      double *restrict eta)
{
    /* four columns per sweep over the block, each product added in turn */
    memset(eta, 0, (size_t) len * sizeof(double));
    int p = pr->p, j = 0;
    size_t n = pr->n;
    for (; j + 4 <= p; j += 4) {
        const double *x0 = pr->x + (size_t) j * n + lo, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
        double b0 = beta[j], b1 = beta[j + 1], b2 = beta[j + 2], b3 = beta[j + 3];
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            double e = eta[r];
            e += x0[r] * b0;
            e += x1[r] * b1;
            e += x2[r] * b2;
            e += x3[r] * b3;
            eta[r] = e;
        }
    }
    for (; j < p; j++) {
        const double *xj = pr->x + (size_t) j * n + lo;
        double bj = beta[j];
        SIMD_LOOP
        for (int r = 0; r < len; r++) eta[r] += xj[r] * bj;
    }
    if (pr->offset) {
        const double *off = pr->offset + lo;
        SIMD_LOOP
        for (int r = 0; r < len; r++) eta[r] += off[r];
    }
}

/* mu = linkinv(eta) and me = mu.eta(eta) over a block, with the switch on the
 * link taken once: the libm calls go in a loop of their own and the
 * clamping arithmetic in a vectorized one (values identical to family.c). */
/* Where every argument of a block is in the safe range of vmath.h (the
 * usual case), the block goes through the vectorized exp() or log();
 * otherwise the caller redoes it with libm. Returns 1 if it did. */
VM_INLINE int exp_block(int len, const double *restrict x, double *restrict e)
{
    double bad = 0.0;
    SIMD_REDUCTION(bad)
    for (int r = 0; r < len; r++) bad += fabs(x[r]) <= VM_EXP_SAFE ? 0.0 : 1.0;
    if (bad != 0.0) return 0;
    SIMD_LOOP
    for (int r = 0; r < len; r++) e[r] = vm_exp_core(x[r]);
    return 1;
}

VM_INLINE int log_block(int len, double *restrict a)
{
    double bad = 0.0;
    SIMD_REDUCTION(bad)
    for (int r = 0; r < len; r++) bad += a[r] >= VM_LOG_MIN && a[r] <= VM_LOG_MAX ? 0.0 : 1.0;
    if (bad != 0.0) return 0;
    SIMD_LOOP
    for (int r = 0; r < len; r++) a[r] = vm_log_core(a[r]);
    return 1;
}

VECTOR_CLONES
static void link_block(int link, int len, const double *restrict eta, double *restrict mu,
                       double *restrict me)
{
    switch (link) {
    case LINK_LOGIT:
        if (!exp_block(len, eta, me))
            for (int r = 0; r < len; r++) me[r] = exp(eta[r]);
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            double e = me[r], x = eta[r];
            double t = x < LOGIT_MTHRESH ? DBL_EPSILON : (x > LOGIT_THRESH ? LOGIT_INVEPS : e);
            double opexp = 1.0 + e;
            /* divisions outside the conditionals, which then vectorize */
            double d = e / (opexp * opexp);
            mu[r] = t / (1.0 + t);
            me[r] = ((x > LOGIT_THRESH) | (x < LOGIT_MTHRESH)) ? DBL_EPSILON : d;
        }
        break;
    case LINK_LOG:
        if (!exp_block(len, eta, mu))
            for (int r = 0; r < len; r++) mu[r] = exp(eta[r]);
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            double m = mu[r] > DBL_EPSILON ? mu[r] : DBL_EPSILON;
            mu[r] = m;
            me[r] = m;
        }
        break;
    case LINK_IDENTITY:
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            mu[r] = eta[r];
            me[r] = 1.0;
        }
        break;
    default:
        for (int r = 0; r < len; r++) {
            mu[r] = link_inv(link, eta[r]);
            me[r] = link_mu_eta(link, eta[r]);
        }
    }
}

/* valideta(eta) && validmu(mu) over a block. */
VECTOR_CLONES
static int valid_block(glm_family f, int len, const double *eta, const double *mu)
{
    int bad = 0;
    if (f.link == LINK_INVERSE || f.link == LINK_SQRT) {
        for (int r = 0; r < len; r++) bad |= !link_valid_eta(f.link, eta[r]);
    }
    switch (f.family) {
    case FAM_BINOMIAL:
        for (int r = 0; r < len; r++) bad |= !((mu[r] > 0.0) & (mu[r] < 1.0));
        break;
    case FAM_POISSON:
    case FAM_GAMMA:
        for (int r = 0; r < len; r++) bad |= !((mu[r] > 0.0) & (mu[r] < HUGE_VAL));
        break;
    default:
        break;
    }
    return !bad;
}

/* Adds the deviance residuals of a block (dev.resids of family.c) to s.
 * y log(y / mu) is taken as 0 for y = 0 through log(1) = 0; l1 and l2 are
 * scratch. A block with a logarithm outside the safe range is redone row by
 * row by family_dev_resid(). */
VECTOR_CLONES
static double dev_block(int family, int len, const double *restrict y, const double *restrict mu,
                        const double *restrict wt, double s, double *restrict l1,
                        double *restrict l2)
{
    switch (family) {
    case FAM_BINOMIAL: {
        double nonbinary = 0.0;
        SIMD_REDUCTION(nonbinary)
        for (int r = 0; r < len; r++) nonbinary += (y[r] == 0.0) | (y[r] == 1.0) ? 0.0 : 1.0;
        if (nonbinary == 0.0) {
            /* 0/1 responses: one of the two terms is y log(y / mu) with
             * y = 1, the other 0 (the same bits as the general formula) */
            SIMD_LOOP
            for (int r = 0; r < len; r++) {
                double a1 = 1.0 / mu[r], a0 = 1.0 / (1.0 - mu[r]);
                l1[r] = y[r] == 1.0 ? a1 : a0;
            }
            if (log_block(len, l1)) {
                SIMD_REDUCTION(s)
                for (int r = 0; r < len; r++) s += 2.0 * wt[r] * l1[r];
                return s;
            }
            break;
        }
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            double y1 = 1.0 - y[r], a1 = y[r] / mu[r], a2 = y1 / (1.0 - mu[r]);
            l1[r] = y[r] != 0.0 ? a1 : 1.0;
            l2[r] = y1 != 0.0 ? a2 : 1.0;
        }
        if (log_block(len, l1) && log_block(len, l2)) {
            SIMD_REDUCTION(s)
            for (int r = 0; r < len; r++) s += 2.0 * wt[r] * (y[r] * l1[r] + (1.0 - y[r]) * l2[r]);
            return s;
        }
        break;
    }
    case FAM_POISSON:
        SIMD_LOOP
        for (int r = 0; r < len; r++) {
            double a = y[r] / mu[r];
            l1[r] = y[r] > 0.0 ? a : 1.0;
        }
        if (log_block(len, l1)) {
            SIMD_REDUCTION(s)
            for (int r = 0; r < len; r++) {
                double pos = 2.0 * wt[r] * (y[r] * l1[r] - (y[r] - mu[r])), zero = 2.0 * mu[r] * wt[r];
                s += y[r] > 0.0 ? pos : zero;
            }
            return s;
        }
        break;
    default:
        break;
    }
    for (int r = 0; r < len; r++) s += family_dev_resid(family, y[r], mu[r], wt[r]);
    return s;
}

typedef struct {
    int var_err, me_err;
    size_t good;
} working_stats;

/* glm.fit's working response z and weights (as their square root sw) over a
 * block, and the working residuals (y - mu) / mu.eta: rows with prior weight
 * 0 or mu.eta == 0 are outside the good subset (sw = z = 0). Errors (NA or
 * 0 in V(mu), NA in mu.eta) are only counted on rows with positive prior
 * weight, as in glm.fit. */
VECTOR_CLONES
static void working_block(const irls_problem *pr, size_t lo, int len, const double *eta,
                          const double *mu, const double *me, double *restrict v,
                          double *restrict sw, double *restrict z, double *restrict resid,
                          working_stats *st)
{
    static const double no_offset[BLOCK_ROWS];
    const double *y = pr->y + lo, *wt = pr->wt + lo;
    /* eta - 0 is eta, bit for bit */
    const double *off = pr->offset ? pr->offset + lo : no_offset;
    switch (pr->fam.family) {
    case FAM_GAUSSIAN:
        SIMD_LOOP
        for (int r = 0; r < len; r++) v[r] = 1.0;
        break;
    case FAM_BINOMIAL:
        SIMD_LOOP
        for (int r = 0; r < len; r++) v[r] = mu[r] * (1.0 - mu[r]);
        break;
    case FAM_POISSON:
        SIMD_LOOP
        for (int r = 0; r < len; r++) v[r] = mu[r];
        break;
    case FAM_GAMMA:
        SIMD_LOOP
        for (int r = 0; r < len; r++) v[r] = mu[r] * mu[r];
        break;
    default:
        for (int r = 0; r < len; r++) v[r] = family_variance(pr->fam.family, mu[r]);
    }
    /* counted in doubles: GCC vectorizes the loop only if all its data
     * have the width of a double */
    double var_err = 0.0, me_err = 0.0;
    SIMD_REDUCTION2(var_err, me_err)
    for (int r = 0; r < len; r++) {
        double d = me[r], vr = v[r], res = (y[r] - mu[r]) / d;
        int pos = wt[r] > 0.0;
        var_err += (pos & ((vr != vr) | (vr == 0.0))) ? 1.0 : 0.0;
        me_err += (pos & (d != d)) ? 1.0 : 0.0;
        int good = pos & (d != 0.0);
        /* the weight before its square root, in glm.fit's order */
        double w = wt[r] * (d * d) / vr, zr = (eta[r] - off[r]) + res;
        resid[r] = res;
        z[r] = good ? zr : 0.0;
        v[r] = good ? w : 0.0;
    }
    SIMD_LOOP
    for (int r = 0; r < len; r++) sw[r] = sqrt(v[r]);
    double ng = 0.0;
    SIMD_REDUCTION(ng)
    for (int r = 0; r < len; r++) ng += sw[r] != 0.0 ? 1.0 : 0.0;
    st->var_err |= var_err != 0.0;
    st->me_err |= me_err != 0.0;
    st->good += (size_t) ng;
}

/* Per-chunk results of a pass, reduced in chunk order. */
typedef struct {
    double *dev, *cpu;
    int *ok, *var_err, *me_err;
    size_t *good;
} pass_parts;

static void alloc_parts(pass_parts *pp, int nchunk)
{
    pp->dev = (double *) R_alloc(nchunk, sizeof(double));
    pp->cpu = (double *) R_alloc(nchunk, sizeof(double));
    pp->ok = (int *) R_alloc(nchunk, sizeof(int));
    pp->var_err = (int *) R_alloc(nchunk, sizeof(int));
    pp->me_err = (int *) R_alloc(nchunk, sizeof(int));
    pp->good = (size_t *) R_alloc(nchunk, sizeof(size_t));
}

/* Elapsed time and the CPU time of the calling thread (0 where the
 * platform has no per-thread clock: threads are then always kept). */
static double wall_seconds(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return 0.0;
#endif
}

static double thread_cpu_seconds(void)
{
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return ts.tv_sec + 1e-9 * ts.tv_nsec;
#endif
    return 0.0;
}

/* On a machine whose cores are busy with other work, the threads of a pass
 * end up sharing a core and wait for each other at every barrier, which is
 * slower than one thread. The CPU time spent in the chunks over the elapsed
 * time of the pass measures the parallelism obtained; below 1.3 the rest of
 * the fit runs on one thread (the chunks, and so the results, are the same
 * for any number of threads). */
static void keep_threads_if_useful(irls_problem *pr, double wall, const double *chunk_cpu)
{
    double cpu = 0.0;
    for (int c = 0; c < pr->nchunk; c++) cpu += chunk_cpu[c];
    if (wall > 1e-3 && cpu > 0.0 && cpu < 1.3 * wall) pr->nthreads = pr->fam_threads = 1;
}

typedef struct {
    double dev;      /* deviance at (eta, mu) */
    int valid;       /* every eta and mu in the family's valid region */
    int err;         /* irls_status of the working step */
    size_t n_good;   /* rows with a non-zero working weight */
} pass_result;

/* One pass over the rows, each block of rows done while it is in cache:
 * eta = X beta + offset (skipped when beta is NULL: eta is given), mu, the
 * deviance and the validity of eta and mu; then, if `working`, the next
 * step's working weights and response at this (eta, mu), the working
 * residuals, and their X'WX (upper triangle of A) and X'Wz (b). */
static void row_pass(irls_problem *pr, const double *beta, int working,
                     double *eta, double *mu, double *sw, double *z, double *resid,
                     double *A, double *b, const chunk_workspace *cw, const pass_parts *pp,
                     pass_result *out)
{
    int p = pr->p, q = p + 1, nchunk = pr->nchunk, threads = pr->fam_threads;
    glm_family f = pr->fam;
    double wall = threads > 1 ? wall_seconds() : 0.0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (int c = 0; c < nchunk; c++) {
        double cpu0 = threads > 1 ? thread_cpu_seconds() : 0.0;
        double *G = chunk_G(cw, c), *U = chunk_U(cw, c);
        double *me = U + (size_t) BLOCK_ROWS * q, *v = me + BLOCK_ROWS, *l2 = v + BLOCK_ROWS;
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        double dev = 0.0;
        int ok = 1;
        working_stats st = { 0, 0, 0 };
        if (working) memset(G, 0, (size_t) q * q * sizeof(double));
        for (size_t blo = lo; blo < hi; blo += BLOCK_ROWS) {
            int len = (int) ((blo + BLOCK_ROWS < hi ? blo + BLOCK_ROWS : hi) - blo);
            double *e = eta + blo, *m = mu + blo;
            if (beta) eta_block(pr, beta, blo, len, e);
            link_block(f.link, len, e, m, me);
            ok &= valid_block(f, len, e, m);
            dev = dev_block(f.family, len, pr->y + blo, m, pr->wt + blo, dev, v, l2);
            if (!working) continue;
            working_block(pr, blo, len, e, m, me, v, sw + blo, z + blo, resid + blo, &st);
            normal_block(pr, blo, len, sw + blo, z + blo, U, G);
        }
        pp->dev[c] = dev;
        pp->cpu[c] = threads > 1 ? thread_cpu_seconds() - cpu0 : 0.0;
        pp->ok[c] = ok;
        pp->var_err[c] = st.var_err;
        pp->me_err[c] = st.me_err;
        pp->good[c] = st.good;
    }
    if (threads > 1) keep_threads_if_useful(pr, wall_seconds() - wall, pp->cpu);
    int ok = 1, var_err = 0, me_err = 0;
    size_t ng = 0;
    for (int c = 0; c < nchunk; c++) {
        ok &= pp->ok[c];
        var_err |= pp->var_err[c];
        me_err |= pp->me_err[c];
        ng += pp->good[c];
    }
    out->dev = sum_in_order(pp->dev, nchunk);
    out->valid = ok;
    /* an NA or 0 in V(mu) outranks an NA in mu.eta, as in glm.fit */
    out->err = var_err ? IRLS_ERR_VARIANCE : (me_err ? IRLS_ERR_MU_ETA : IRLS_OK);
    out->n_good = ng;
    if (!working) return;
    memset(A, 0, (size_t) p * p * sizeof(double));
    memset(b, 0, (size_t) p * sizeof(double));
    for (int c = 0; c < nchunk; c++) {
        const double *G = chunk_G(cw, c);
        for (int j = 0; j < p; j++)
            for (int k = 0; k <= j; k++) A[k + (size_t) j * p] += G[k + (size_t) j * q];
        for (int k = 0; k < p; k++) b[k] += G[k + (size_t) p * q];
    }
}

/* eta = linkfun(mustart), glm.fit's start from family$initialize. */
static void eta_from_mu(const irls_problem *pr, const double *mu, double *eta)
{
    int nchunk = pr->nchunk, link = pr->fam.link;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr->fam_threads) schedule(dynamic, 1)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
        if (link == LINK_LOGIT || link == LINK_LOG) {
            /* log(mu / (1 - mu)) or log(mu), vectorized where safe */
            for (size_t blo = lo; blo < hi; blo += BLOCK_ROWS) {
                int len = (int) ((blo + BLOCK_ROWS < hi ? blo + BLOCK_ROWS : hi) - blo);
                const double *m = mu + blo;
                double *e = eta + blo;
                if (link == LINK_LOGIT) {
                    SIMD_LOOP
                    for (int r = 0; r < len; r++) e[r] = m[r] / (1.0 - m[r]);
                } else {
                    memcpy(e, m, (size_t) len * sizeof(double));
                }
                if (!log_block(len, e))
                    for (int r = 0; r < len; r++) e[r] = link_fun(link, m[r]);
            }
        } else {
            for (size_t i = lo; i < hi; i++) eta[i] = link_fun(link, mu[i]);
        }
    }
}

/* Cholesky solve of A beta = b. Returns 0 when A is numerically of full rank
 * by the chol_tol criterion (then fac holds U with A = U'U), 1 otherwise. */
static int solve_cholesky(int p, const double *A, const double *b, double chol_tol,
                          double *fac, double *beta)
{
    size_t pp = (size_t) p * p;
    memcpy(fac, A, pp * sizeof(double));
    int info = 0, one = 1;
    F77_CALL(dpotrf)("U", &p, fac, &p, &info FCONE);
    if (info != 0) return 1;
    for (int j = 0; j < p; j++) {
        double ajj = A[j + (size_t) j * p], ujj = fac[j + (size_t) j * p];
        if (!(ajj > 0.0) || !(ujj * ujj >= chol_tol * ajj)) return 1;
    }
    memcpy(beta, b, (size_t) p * sizeof(double));
    F77_CALL(dpotrs)("U", &p, &one, fac, &p, beta, &p, &info FCONE);
    return info != 0;
}

typedef struct {
    double *xw, *zw, *rsd, *qty, *qraux, *work, *coef;
    int *jpvt;
} qr_workspace;

/* glm.fit's solver: LINPACK dqrls (Householder QR with dqrdc2's limited
 * pivoting) on the compacted sqrt(W) X of the good rows. */
static int solve_qr(const irls_problem *pr, const double *sw, const double *z,
                    size_t n_good, double qr_tol, qr_workspace *ws,
                    double *fac, double *beta, int *pivot)
{
    int p = pr->p, ng = (int) n_good, ny = 1, rank = 0;
    size_t r = 0;
    for (size_t i = 0; i < pr->n; i++) {
        if (sw[i] == 0.0) continue;
        for (int j = 0; j < p; j++) ws->xw[r + (size_t) j * n_good] = sw[i] * pr->x[i + (size_t) j * pr->n];
        ws->zw[r] = sw[i] * z[i];
        r++;
    }
    for (int j = 0; j < p; j++) ws->jpvt[j] = j + 1;
    double tol = qr_tol;
    F77_CALL(dqrls)(ws->xw, &ng, &p, ws->zw, &ny, &tol, ws->coef, ws->rsd, ws->qty,
                    &rank, ws->jpvt, ws->qraux, ws->work);
    for (int j = 0; j < p; j++) {
        pivot[j] = ws->jpvt[j] - 1;
        beta[pivot[j]] = j < rank ? ws->coef[j] : 0.0;
    }
    memset(fac, 0, (size_t) p * p * sizeof(double));
    for (int j = 0; j < rank; j++)
        for (int i = 0; i <= j; i++) fac[i + (size_t) j * p] = ws->xw[i + (size_t) j * n_good];
    return rank;
}

/* Sized for all n rows, so that it serves every later step. */
static void alloc_qr(qr_workspace *qr, size_t n, int p)
{
    qr->xw = (double *) R_alloc(n * p, sizeof(double));
    qr->zw = (double *) R_alloc(n, sizeof(double));
    qr->rsd = (double *) R_alloc(n, sizeof(double));
    qr->qty = (double *) R_alloc(n, sizeof(double));
    qr->qraux = (double *) R_alloc(p, sizeof(double));
    qr->work = (double *) R_alloc(2 * (size_t) p, sizeof(double));
    qr->coef = (double *) R_alloc(p, sizeof(double));
    qr->jpvt = (int *) R_alloc(p, sizeof(int));
}

static int choose_chunks(size_t n, int p)
{
    double q = (double) p + 1.0;
    double by_rows = ceil((double) n / ROWS_PER_CHUNK);
    double by_memory = floor(CHUNK_MEMORY_DOUBLES / (q * q + (double) BLOCK_ROWS * (q + 3.0)));
    double k = fmin(fmin(by_rows, MAX_CHUNKS), by_memory);
    return k < 1.0 ? 1 : (int) k;
}

typedef struct {
    double *sw, *z, *A, *b;
    size_t n_good;
    int err;
} working_state;

static void swap_states(working_state *a, working_state *b)
{
    working_state t = *a;
    *a = *b;
    *b = t;
}

static void alloc_state(working_state *s, size_t n, int p)
{
    s->sw = (double *) R_alloc(n, sizeof(double));
    s->z = (double *) R_alloc(n, sizeof(double));
    s->A = (double *) R_alloc((size_t) p * p, sizeof(double));
    s->b = (double *) R_alloc(p, sizeof(double));
    s->n_good = 0;
    s->err = IRLS_OK;
}

/* Solves the weighted least-squares step of `cur` into beta_new; returns
 * the rank and sets *used_qr. */
static int solve_step(const irls_problem *pr, const working_state *cur, const irls_control *ctl,
                      qr_workspace *qr, double *fac, double *beta_new, int *pivot, int *used_qr)
{
    int p = pr->p;
    *used_qr = cur->n_good < (size_t) p;
    if (!*used_qr) {
        *used_qr = solve_cholesky(p, cur->A, cur->b, ctl->chol_tol, fac, beta_new);
        for (int j = 0; j < p; j++) pivot[j] = j;
        if (!*used_qr) return p;
    }
    if (qr->xw == NULL) alloc_qr(qr, pr->n, p);
    return solve_qr(pr, cur->sw, cur->z, cur->n_good, ctl->qr_tol, qr, fac, beta_new, pivot);
}

/* Everything a pass needs besides the problem. */
typedef struct {
    irls_problem *pr;
    const chunk_workspace *cw;
    const pass_parts *parts;
    double *eta, *mu, *resid;
} pass_context;

/* A pass that also fills the working state `st` at the resulting (eta, mu);
 * returns the deviance and sets *valid. */
static double pass_working(const pass_context *px, const double *beta, working_state *st,
                           int *valid)
{
    pass_result r;
    row_pass(px->pr, beta, 1, px->eta, px->mu, st->sw, st->z, px->resid, st->A, st->b,
             px->cw, px->parts, &r);
    st->err = r.err;
    st->n_good = r.n_good;
    *valid = r.valid;
    return r.dev;
}

/* A pass for a halved step: eta, mu and the deviance only. */
static double pass_plain(const pass_context *px, const double *beta, int *valid)
{
    pass_result r;
    row_pass(px->pr, beta, 0, px->eta, px->mu, NULL, NULL, NULL, NULL, NULL,
             px->cw, px->parts, &r);
    *valid = r.valid;
    return r.dev;
}

void irls_run(const double *x, size_t n, int p, const double *y,
              const double *wt, const double *offset, glm_family fam,
              const irls_control *ctl, int start_mode, double *beta,
              double *eta, double *mu, double *work_w, double *resid,
              double *cov, int *pivot, irls_result *res)
{
    irls_problem pr = { x, y, wt, offset, n, p, fam, choose_chunks(n, p), 1, 1 };
    gram_detect_fma();
#ifdef _OPENMP
    int nt = ctl->nthreads > 0 ? ctl->nthreads : omp_get_max_threads();
    if (n < PARALLEL_MIN_ROWS) nt = 1;
    pr.nthreads = nt;
    pr.fam_threads = family_thread_safe(fam) ? nt : 1;
#endif
    size_t pp = (size_t) p * p;
    double *fac = (double *) R_alloc(pp, sizeof(double));
    double *start = (double *) R_alloc(p, sizeof(double));
    double *coefold = (double *) R_alloc(p, sizeof(double));
    chunk_workspace cw;
    alloc_chunks(&cw, p, pr.nchunk);
    pass_parts parts;
    alloc_parts(&parts, pr.nchunk);
    pass_context px = { &pr, &cw, &parts, eta, mu, resid };
    qr_workspace qr = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    /* cur: the working state the last step was solved with (glm.fit's w);
     * next: the state at the current estimate, filled by the fused pass */
    working_state cur, next;
    alloc_state(&cur, n, p);
    alloc_state(&next, n, p);
    memset(cur.sw, 0, n * sizeof(double));

    memset(res, 0, sizeof(*res));
    int have_coefold = 0, valid = 0, have_next = 0;
    /* resid holds the working residuals at the current eta */
    int resid_current = 0;
    for (int j = 0; j < p; j++) pivot[j] = j;

    const double *beta_in = NULL;
    if (start_mode == IRLS_START_COEF) {
        memcpy(coefold, beta, (size_t) p * sizeof(double));
        have_coefold = 1;
        beta_in = beta;
    } else if (start_mode == IRLS_START_MU) {
        eta_from_mu(&pr, mu, eta);
    }
    double devold = pass_working(&px, beta_in, &next, &valid);
    double dev = devold;
    /* The first pass has read every element of X into X'WX: a non-finite
     * x makes a diagonal entry (a sum of (sqrt(w) x)^2) NaN or Inf, so X
     * needs a scan of its own only then (instead of before every fit). */
    int diag_finite = 1;
    for (int j = 0; j < p; j++) diag_finite &= isfinite(next.A[j + (size_t) j * p]);
    if (!diag_finite) {
        int bad = irls_nonfinite(x, n * (size_t) p, ctl->nthreads);
        if (bad) { res->status = bad == 1 ? IRLS_ERR_X_NAN : IRLS_ERR_X_INF; return; }
    }
    if (!valid) { res->status = IRLS_ERR_START; return; }
    have_next = 1;
    resid_current = 1;

    int conv = 0, boundary = 0, rank = p, used_qr = 0;
    for (int iter = 1; iter <= ctl->maxit; iter++) {
        R_CheckUserInterrupt();
        res->iter = iter;
        if (!have_next) {
            pass_working(&px, NULL, &next, &valid);
            resid_current = 1;
        }
        swap_states(&cur, &next);
        have_next = 0;
        if (cur.err) { res->status = cur.err; return; }
        if (cur.n_good == 0) { res->warnings |= IRLS_WARN_NO_INFORMATIVE; conv = 0; break; }

        rank = solve_step(&pr, &cur, ctl, &qr, fac, start, pivot, &used_qr);
        int finite = 1;
        for (int j = 0; j < p; j++) finite &= isfinite(start[j]);
        if (!finite) { res->warnings |= IRLS_WARN_NONFINITE_COEF; conv = 0; break; }

        dev = pass_working(&px, start, &next, &valid);
        have_next = 1;
        resid_current = 1;
        if (ctl->trace) Rprintf("Deviance = %.7g Iterations - %d\n", dev, iter);
        boundary = 0;
        /* glm.fit's two step-halving loops: first until the deviance is
         * finite, then until eta and mu are valid. */
        for (int check = 0; check < 2; check++) {
            int bad = check == 0 ? !isfinite(dev) : !valid;
            if (!bad) continue;
            if (!have_coefold) { res->status = IRLS_ERR_NO_VALID; return; }
            res->warnings |= check == 0 ? IRLS_WARN_DIVERGENCE : IRLS_WARN_OUT_OF_BOUNDS;
            for (int ii = 1; check == 0 ? !isfinite(dev) : !valid; ii++) {
                if (ii > ctl->maxit) { res->status = IRLS_ERR_HALVING; return; }
                for (int j = 0; j < p; j++) start[j] = (start[j] + coefold[j]) / 2.0;
                dev = pass_plain(&px, start, &valid);
            }
            boundary = 1;
            have_next = 0;
            resid_current = 0;
            if (ctl->trace) Rprintf("Step halved: new deviance = %.7g\n", dev);
        }
        memcpy(coefold, start, (size_t) p * sizeof(double));
        have_coefold = 1;
        if (fabs(dev - devold) / (0.1 + fabs(dev)) < ctl->epsilon) {
            conv = 1;
            break;
        }
        devold = dev;
    }

    if (ctl->final_weights && conv) {
        if (!have_next) {
            pass_working(&px, NULL, &next, &valid);
            resid_current = 1;
        }
        if (!next.err && next.n_good > 0) {
            double *unused = (double *) R_alloc(p, sizeof(double));
            swap_states(&cur, &next);
            rank = solve_step(&pr, &cur, ctl, &qr, fac, unused, pivot, &used_qr);
        }
    }

    /* coef is the last accepted step (glm.fit's `coef`) */
    for (int j = 0; j < p; j++) beta[j] = have_coefold ? coefold[j] : NAN;
    const double *csw = cur.sw;
    int nchunk = pr.nchunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(pr.nthreads) schedule(static)
#endif
    for (int c = 0; c < nchunk; c++) {
        size_t lo = chunk_lo(&pr, c), hi = chunk_lo(&pr, c + 1);
        for (size_t i = lo; i < hi; i++) work_w[i] = csw[i] * csw[i];
    }
    if (!resid_current)
        for (size_t i = 0; i < n; i++) resid[i] = (y[i] - mu[i]) / link_mu_eta(fam.link, eta[i]);
    memset(cov, 0, pp * sizeof(double));
    if (res->iter > 0 && rank > 0 && !(res->warnings & (IRLS_WARN_NO_INFORMATIVE | IRLS_WARN_NONFINITE_COEF))) {
        int info = 0;
        for (int j = 0; j < rank; j++)
            for (int i = 0; i <= j; i++) cov[i + (size_t) j * p] = fac[i + (size_t) j * p];
        F77_CALL(dpotri)("U", &rank, cov, &p, &info FCONE);
        for (int j = 0; j < rank; j++)
            for (int i = j + 1; i < rank; i++) cov[i + (size_t) j * p] = cov[j + (size_t) i * p];
    } else {
        for (size_t k = 0; k < pp; k++) cov[k] = NAN;
    }
    res->deviance = dev;
    res->converged = conv;
    res->boundary = boundary;
    res->rank = rank;
    res->used_qr = used_qr;
}

/* ---- Preparation and summaries around the iteration (single passes over
 * the data without the n-long temporaries of the equivalent R code). ---- */

int irls_nonfinite(const double *v, size_t len, int nthreads)
{
    int nan_found = 0, inf_found = 0;
#ifdef _OPENMP
    if (len < 100000) nthreads = 1;
#pragma omp parallel for num_threads(nthreads > 0 ? nthreads : omp_get_max_threads()) \
    schedule(static) reduction(|:nan_found, inf_found)
#endif
    for (size_t i = 0; i < len; i++) {
        double d = v[i];
        nan_found |= d != d;
        inf_found |= (d == HUGE_VAL) | (d == -HUGE_VAL);
    }
    return nan_found ? 1 : (inf_found ? 2 : 0);
}

int irls_support(int family, const double *y, const double *wt, size_t n)
{
    int bad = 0;
    switch (family) {
    case FAM_BINOMIAL:
        for (size_t i = 0; i < n; i++) bad |= (y[i] < 0.0 || y[i] > 1.0) && wt[i] > 0.0;
        break;
    case FAM_POISSON:
        for (size_t i = 0; i < n; i++) bad |= y[i] < 0.0;
        break;
    case FAM_GAMMA:
        for (size_t i = 0; i < n; i++) bad |= y[i] <= 0.0;
        break;
    default:
        break;
    }
    return bad;
}

int irls_initialize(int family, const double *y, const double *wt, size_t n,
                    double *y_out, double *mustart)
{
    int bad = 0;
    switch (family) {
    case FAM_BINOMIAL:
        for (size_t i = 0; i < n; i++) {
            double yi = wt[i] == 0.0 ? 0.0 : y[i];
            bad |= yi < 0.0 || yi > 1.0;
            if (y_out) y_out[i] = yi;
            mustart[i] = (wt[i] * yi + 0.5) / (wt[i] + 1.0);
        }
        break;
    case FAM_POISSON:
        for (size_t i = 0; i < n; i++) {
            bad |= y[i] < 0.0;
            mustart[i] = y[i] + 0.1;
        }
        break;
    case FAM_GAMMA:
        for (size_t i = 0; i < n; i++) bad |= y[i] <= 0.0;
        break;
    default:
        break;
    }
    return bad;
}

/* Sum of the deviance residuals at one common mean `m`, as
 * sum(dev.resids(y, rep(m, n), wt)): the terms of binary responses (and
 * of small integer counts) are computed once and reused, bit for bit the
 * values of the row-by-row formula. */
static double dev_const_mu(glm_family f, const double *y, const double *wt, size_t n, double m)
{
    long double s = 0.0;
    if (f.family == FAM_BINOMIAL) {
        double at0 = family_dev_resid(f.family, 0.0, m, 1.0) / 2.0;
        double at1 = family_dev_resid(f.family, 1.0, m, 1.0) / 2.0;
        for (size_t i = 0; i < n; i++) {
            double d;
            if (y[i] == 0.0) d = 2.0 * wt[i] * at0;
            else if (y[i] == 1.0) d = 2.0 * wt[i] * at1;
            else d = family_dev_resid(f.family, y[i], m, wt[i]);
            s += d;
        }
    } else if (f.family == FAM_POISSON) {
        enum { NTAB = 256 };
        double tab[NTAB];
        for (int k = 0; k < NTAB; k++) tab[k] = k > 0 ? (double) k * log((double) k / m) - ((double) k - m) : 0.0;
        for (size_t i = 0; i < n; i++) {
            double yi = y[i], d;
            if (yi > 0.0 && yi < NTAB && yi == (double) (int) yi) d = 2.0 * wt[i] * tab[(int) yi];
            else d = family_dev_resid(f.family, yi, m, wt[i]);
            s += d;
        }
    } else {
        for (size_t i = 0; i < n; i++) s += family_dev_resid(f.family, y[i], m, wt[i]);
    }
    return (double) s;
}

double irls_null_deviance(glm_family f, const double *y, const double *wt, const double *offset,
                          size_t n, int intercept)
{
    if (intercept) {
        long double sw = 0.0, swy = 0.0;
        for (size_t i = 0; i < n; i++) {
            swy += wt[i] * y[i];
            sw += wt[i];
        }
        /* as sum(wt * y) / sum(wt): each sum rounded to double first */
        return dev_const_mu(f, y, wt, n, (double) swy / (double) sw);
    }
    if (!offset) return dev_const_mu(f, y, wt, n, link_inv(f.link, 0.0));
    long double s = 0.0;
    for (size_t i = 0; i < n; i++) s += family_dev_resid(f.family, y[i], link_inv(f.link, offset[i]), wt[i]);
    return (double) s;
}

int irls_separation(int family, const double *mu, size_t n)
{
    double eps = 10.0 * DBL_EPSILON;
    int sep = 0;
    if (family == FAM_BINOMIAL) {
        for (size_t i = 0; i < n; i++) sep |= mu[i] > 1.0 - eps || mu[i] < eps;
    } else if (family == FAM_POISSON) {
        for (size_t i = 0; i < n; i++) sep |= mu[i] < eps;
    }
    return sep;
}

/* The log-likelihood sum of binomial()$aic and poisson()$aic (so the AIC is
 * -2 times it plus 2 rank) in the common case, with logarithms only:
 * binomial rows with size m = 1 and a 0/1 response (dbinom(y, 1, mu) is
 * log(mu) or log(1 - mu)) or with m <= 0 (no term); poisson rows with an
 * integer count below IRLS_AIC_TABLE (dpois(y, mu) = y log(mu) - mu -
 * lfact[y]). Returns 0, leaving the sum to R's dbinom/dpois, if some row is
 * outside that case. */
VECTOR_CLONES
int irls_loglik_simple(int family, const double *y, const double *m, const double *wt,
                       const double *mu, size_t n, const double *lfact, double *out)
{
    double a[BLOCK_ROWS];
    long double s = 0.0;
    if (family != FAM_BINOMIAL && family != FAM_POISSON) return 0;
    for (size_t lo = 0; lo < n; lo += BLOCK_ROWS) {
        int len = (int) ((lo + BLOCK_ROWS < n ? lo + BLOCK_ROWS : n) - lo);
        const double *yb = y + lo, *mb = mu + lo, *wb = wt + lo;
        double other = 0.0, t = 0.0;
        if (family == FAM_BINOMIAL) {
            const double *sb = m + lo;
            SIMD_REDUCTION(other)
            for (int r = 0; r < len; r++) {
                int none = !(sb[r] > 0.0);
                int simple = none | ((sb[r] == 1.0) & ((yb[r] == 0.0) | (yb[r] == 1.0)));
                other += simple ? 0.0 : 1.0;
                double q = 1.0 - mb[r];
                a[r] = none ? 1.0 : (yb[r] == 1.0 ? mb[r] : q);
            }
        } else {
            SIMD_REDUCTION(other)
            for (int r = 0; r < len; r++) {
                int simple = (yb[r] >= 0.0) & (yb[r] < IRLS_AIC_TABLE) & (yb[r] == floor(yb[r]));
                other += simple ? 0.0 : 1.0;
                a[r] = mb[r];
            }
        }
        if (other != 0.0) return 0;
        if (!log_block(len, a))
            for (int r = 0; r < len; r++) a[r] = log(a[r]);
        if (family == FAM_BINOMIAL) {
            /* wt / m is wt where m = wt = 1, and rows with m <= 0 have no term */
            const double *sb = m + lo;
            SIMD_REDUCTION(t)
            for (int r = 0; r < len; r++) {
                double term = (wb[r] / sb[r]) * a[r];
                t += sb[r] > 0.0 ? term : 0.0;
            }
        } else {
            for (int r = 0; r < len; r++) {
                double k = yb[r];
                double d = k == 0.0 ? -mb[r] : k * a[r] - mb[r] - lfact[(int) k];
                t += d * wb[r];
            }
        }
        s += t;
    }
    *out = (double) s;
    return 1;
}

int irls_ones_column(const double *x, size_t n, int p)
{
    for (int j = 0; j < p; j++) {
        const double *xj = x + (size_t) j * n;
        size_t i = 0;
        while (i < n && xj[i] == 1.0) i++;
        if (i == n) return 1;
    }
    return 0;
}
