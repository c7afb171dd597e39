#include <math.h>
#include <float.h>
#include <string.h>
#include <R.h>
#include <R_ext/Utils.h>
#include <R_ext/Print.h>
#include "irls.h"
#include "irls_linalg.h"
#include "par_rows.h"

/* Rows are split into a number of chunks that depends only on n and p, and
 * partial sums are reduced in chunk order, so a fit gives the same bits
 * whatever the number of threads. Chunks are handed out dynamically: on a
 * shared machine a thread that loses its core holds up one chunk, not half
 * of the rows. Within a chunk, rows are processed in blocks of BLOCK_ROWS
 * whose columns of X stay in cache from the linear predictor to the
 * cross-products. */
#define ROWS_PER_CHUNK 4096
#define MAX_CHUNKS 64
#define BLOCK_ROWS 256
#define CHUNK_MEMORY_DOUBLES 4194304.0
/* Threads only for passes long enough to be worth a parallel region: on a
 * busy machine a thread waits milliseconds for a core, and every pass ends
 * at a barrier. The work of a row is counted as its cross-products plus
 * about 40 multiply-adds for the family (exp, log, divisions); below
 * PARALLEL_MIN_WORK (about 10 ms of one core) a pass runs on one thread.
 * (Measured under a load of 2 on the 2 cores: at n = 1e5, p = 10 two
 * threads took twice as long as one.) The result is the same either way. */
#define PARALLEL_MIN_WORK 2e7

/* Element-wise loops (no sums across rows) are marked for vectorization:
 * GCC's -O2 cost model leaves loops of unknown length scalar, and the
 * values do not depend on whether a loop is vectorized. An OpenMP 4.0
 * pragma, ignored by compilers without OpenMP. */
#ifdef _OPENMP
#define ELEMENTWISE _Pragma("omp simd")
#else
#define ELEMENTWISE
#endif

typedef struct {
    const double *x, *y, *wt, *offset;
    size_t n;
    int p;
    glm_family fam;
    int nchunk;
    int fam_threads;  /* threads for the passes (1 for a family that is not thread-safe) */
    int chunk_order;  /* irls_control.schedule: 0, or the order of chunks for tests */
    int forced;       /* tests: every pass on fam_threads threads */
} irls_problem;

static int choose_chunks(size_t n, int p)
{
    double q = (double) p + 1.0;
    double by_rows = ceil((double) n / ROWS_PER_CHUNK);
    double by_memory = floor(CHUNK_MEMORY_DOUBLES / (q * q + (double) BLOCK_ROWS * (q + 3.0)));
    double k = fmin(fmin(by_rows, MAX_CHUNKS), by_memory);
    return k < 1.0 ? 1 : (int) k;
}

static size_t chunk_lo(const irls_problem *pr, int c)
{
    return (size_t) ((double) pr->n * c / pr->nchunk);
}

/* Per-chunk scratch: G, the upper triangle of the (p + 1) x (p + 1) matrix
 * [X, z]' W [X, z] (so X'WX and X'Wz), and four block-long vectors
 * (mu.eta, V(mu), z, W). Chunks are 8 doubles (a cache line) apart at
 * least. */
typedef struct {
    double *base;
    size_t stride;
    size_t g_len;
    const double **cols; /* per chunk, p + 1 column pointers of the block */
} chunk_workspace;

static size_t round_line(size_t k)
{
    return (k + 7) / 8 * 8;
}

static void alloc_chunks(chunk_workspace *cw, int p, int nchunk)
{
    size_t q = (size_t) p + 1;
    cw->g_len = round_line(q * q);
    cw->stride = cw->g_len + round_line((size_t) BLOCK_ROWS * 4);
    cw->base = (double *) R_alloc(cw->stride * nchunk, sizeof(double));
    cw->cols = (const double **) R_alloc(q * nchunk, sizeof(double *));
}

static double *chunk_G(const chunk_workspace *cw, int c) { return cw->base + cw->stride * c; }
static double *chunk_vectors(const chunk_workspace *cw, int c) { return chunk_G(cw, c) + cw->g_len; }

/* eta = X beta + offset over a block in glm.fit's order (x %*% beta column
 * by column, then the offset). */
static void eta_block(const irls_problem *pr, const double *beta, size_t lo, int len,
                      double *restrict eta)
{
    size_t n = pr->n;
    for (int r = 0; r < len; r++) eta[r] = 0.0;
    for (int j = 0; j < pr->p; j++) {
        const double *restrict xj = pr->x + (size_t) j * n + lo;
        double bj = beta[j];
        ELEMENTWISE
        for (int r = 0; r < len; r++) eta[r] += xj[r] * bj;
    }
    if (pr->offset) {
        const double *restrict off = pr->offset + lo;
        ELEMENTWISE
        for (int r = 0; r < len; r++) eta[r] += off[r];
    }
}

typedef struct {
    int var_err, me_err;
    size_t good;
} working_stats;

/* glm.fit's working response z and weights w (and their square roots sw,
 * kept for the outputs and the QR) over a block: rows with prior weight
 * 0 or mu.eta == 0 are outside the good subset (w = sw = z = 0). Errors (NA or
 * 0 in V(mu), NA in mu.eta) are only counted on rows with positive prior
 * weight, as in glm.fit. v holds V(mu) on entry. */
static void working_block(const irls_problem *pr, size_t lo, int len,
                          const double *restrict eta, const double *restrict mu,
                          const double *restrict me, const double *restrict v,
                          double *restrict sw, double *restrict w_out, double *restrict z,
                          working_stats *st)
{
    static const double no_offset[BLOCK_ROWS];
    const double *restrict y = pr->y + lo, *restrict wt = pr->wt + lo;
    /* eta - 0 is eta, bit for bit */
    const double *restrict off = pr->offset ? pr->offset + lo : no_offset;
    for (int r = 0; r < len; r++) {
        double d = me[r], res = (y[r] - mu[r]) / d;
        /* the weight before its square root, in glm.fit's order */
        double w = wt[r] * (d * d) / v[r], zr = (eta[r] - off[r]) + res;
        int good = (wt[r] > 0.0) & (d != 0.0);
        z[r] = good ? zr : 0.0;
        w_out[r] = good ? w : 0.0;
    }
    for (int r = 0; r < len; r++) {
        int pos = wt[r] > 0.0;
        st->var_err |= pos && (isnan(v[r]) || v[r] == 0.0);
        st->me_err |= pos && isnan(me[r]);
        st->good += pos && me[r] != 0.0;
        sw[r] = sqrt(w_out[r]);
    }
}

/* Adds [X, z]' W [X, z] over rows [lo, lo + len) to G, reading the columns
 * of X in place (still in cache from the linear predictor). Rows outside
 * the good subset have w = z = 0 and add exactly zero. */
static void normal_block(const irls_problem *pr, size_t lo, int len, const double *w,
                         const double *z, const double **col, double *G)
{
    int p = pr->p;
    for (int j = 0; j < p; j++) col[j] = pr->x + (size_t) j * pr->n + lo;
    col[p] = z;
    linalg_wgram_block(p + 1, len, col, w, G);
}

/* Per-chunk results of a pass, reduced in chunk order. */
typedef struct {
    double *dev;
    int *ok, *var_err, *me_err;
    size_t *good;
} pass_parts;

static void alloc_parts(pass_parts *pp, int nchunk)
{
    pp->dev = (double *) R_alloc(nchunk, sizeof(double));
    pp->ok = (int *) R_alloc(nchunk, sizeof(int));
    pp->var_err = (int *) R_alloc(nchunk, sizeof(int));
    pp->me_err = (int *) R_alloc(nchunk, sizeof(int));
    pp->good = (size_t *) R_alloc(nchunk, sizeof(size_t));
}

typedef struct {
    double dev;      /* deviance at (eta, mu) */
    int valid;       /* every eta and mu in the family's valid region */
    int err;         /* irls_status of the working step */
    size_t n_good;   /* rows of the good subset */
} pass_result;

/* The working state of a step: sqrt(W), X'WX (upper triangle of A), X'Wz. */
typedef struct {
    double *sw, *A, *b;
    size_t n_good;
    int err;
} working_state;

/* sw: n doubles for sqrt(W) (NULL: allocated here). */
static void alloc_state(working_state *s, size_t n, int p, double *sw)
{
    s->sw = sw ? sw : (double *) R_alloc(n, sizeof(double));
    s->A = (double *) R_alloc((size_t) p * p, sizeof(double));
    s->b = (double *) R_alloc(p, sizeof(double));
    memset(s->sw, 0, n * sizeof(double));
    s->n_good = 0;
    s->err = IRLS_OK;
}

static void swap_states(working_state *a, working_state *b)
{
    working_state t = *a;
    *a = *b;
    *b = t;
}

/* Adds the chunks' Gram matrices in chunk order into A (p x p) and b. */
static void reduce_gram(const irls_problem *pr, const chunk_workspace *cw, double *A, double *b)
{
    int p = pr->p, q = p + 1;
    memset(A, 0, (size_t) p * p * sizeof(double));
    memset(b, 0, (size_t) p * sizeof(double));
    for (int c = 0; c < pr->nchunk; c++) {
        const double *G = chunk_G(cw, c);
        for (int j = 0; j < p; j++)
            for (int k = 0; k <= j; k++) A[k + (size_t) j * p] += G[k + (size_t) j * q];
        for (int k = 0; k < p; k++) b[k] += G[k + (size_t) p * q];
    }
}

/* One pass over the rows, each block of rows done while it is in cache:
 * eta = X beta + offset (skipped when beta is NULL: eta is given), mu, the
 * deviance and the validity of eta and mu; then, if st is not NULL, the
 * next step's working weights at this (eta, mu) and the cross-products
 * X'WX and X'Wz (the working response z lives only in the block). */
/* One chunk of a pass (see row_pass). */
static void pass_chunk(const irls_problem *pr, int c, const double *beta, int from_mu,
                       double *eta, double *mu, working_state *st, const chunk_workspace *cw,
                       const pass_parts *pp)
{
    int q = pr->p + 1;
    glm_family f = pr->fam;
    double *G = chunk_G(cw, c), *me = chunk_vectors(cw, c);
    double *v = me + BLOCK_ROWS, *z = v + BLOCK_ROWS, *w = z + BLOCK_ROWS;
    const double **col = (const double **) cw->cols + (size_t) c * q;
    size_t lo = chunk_lo(pr, c), hi = chunk_lo(pr, c + 1);
    double dev = 0.0;
    int ok = 1;
    working_stats ws = { 0, 0, 0 };
    if (st) memset(G, 0, (size_t) q * q * sizeof(double));
    for (size_t blo = lo; blo < hi; blo += BLOCK_ROWS) {
        int len = (int) ((blo + BLOCK_ROWS < hi ? blo + BLOCK_ROWS : hi) - blo);
        double *e = eta + blo, *m = mu + blo;
        if (beta) {
            eta_block(pr, beta, blo, len, e);
        } else if (from_mu) {
            /* eta = linkfun(mustart), glm.fit's start from family$initialize */
            for (int r = 0; r < len; r++) e[r] = link_fun(f.link, m[r]);
        }
        family_link_block(f.link, len, e, m, me);
        ok &= family_valid_block(f, len, e, m);
        dev = family_dev_block(f.family, len, pr->y + blo, m, pr->wt + blo, dev);
        if (!st) continue;
        family_variance_block(f.family, len, m, v);
        working_block(pr, blo, len, e, m, me, v, st->sw + blo, w, z, &ws);
        normal_block(pr, blo, len, w, z, col, G);
    }
    pp->dev[c] = dev;
    pp->ok[c] = ok;
    pp->var_err[c] = ws.var_err;
    pp->me_err[c] = ws.me_err;
    pp->good[c] = ws.good;
}

typedef struct {
    const irls_problem *pr;
    const double *beta;
    int from_mu;
    double *eta, *mu;
    working_state *st;
    const chunk_workspace *cw;
    const pass_parts *pp;
} pass_job;

/* The chunk worked on as the c-th claimed one: in order, or (for tests that
 * the result does not depend on which thread does which chunk) reversed,
 * or alternately from both ends. */
static int chunk_in_order(const irls_problem *pr, int c)
{
    int k = pr->nchunk;
    switch (pr->chunk_order) {
    case 1: return k - 1 - c;
    case 2: return c % 2 == 0 ? c / 2 : k - 1 - c / 2;
    default: return c;
    }
}

static double pass_chunk_job(void *ctx, size_t c, int thread)
{
    const pass_job *j = (const pass_job *) ctx;
    (void) thread;
    pass_chunk(j->pr, chunk_in_order(j->pr, (int) c), j->beta, j->from_mu, j->eta, j->mu, j->st,
               j->cw, j->pp);
    return 1.0;
}

/* One pass over the rows on nthreads threads (fewer when par_rows finds
 * that they get no cores of their own, see par_rows.h). */
static void row_pass(const irls_problem *pr, int nthreads, const double *beta, int from_mu,
                     double *eta, double *mu, working_state *st, const chunk_workspace *cw,
                     const pass_parts *pp, pass_result *out)
{
    int nchunk = pr->nchunk;
    /* chunks handed out one at a time in one parallel region, passive
     * waits; one thread does not enter OpenMP at all */
    pass_job job = { pr, beta, from_mu, eta, mu, st, cw, pp };
    par_rows_run(0, (size_t) nchunk, 1, INFINITY, nthreads, pass_chunk_job, &job,
                 pr->forced ? PAR_FORCE_THREADS : 0, NULL);
    int ok = 1, var_err = 0, me_err = 0;
    size_t ng = 0;
    double dev = 0.0;
    for (int c = 0; c < nchunk; c++) {
        dev += pp->dev[c];
        ok &= pp->ok[c];
        var_err |= pp->var_err[c];
        me_err |= pp->me_err[c];
        ng += pp->good[c];
    }
    out->dev = dev;
    out->valid = ok;
    out->n_good = ng;
    if (!st) return;
    /* an NA or 0 in V(mu) outranks an NA in mu.eta, as in glm.fit */
    st->err = var_err ? IRLS_ERR_VARIANCE : (me_err ? IRLS_ERR_MU_ETA : IRLS_OK);
    st->n_good = ng;
    reduce_gram(pr, cw, st->A, st->b);
}

/* The rows of sqrt(W) X and sqrt(W) z with a non-zero weight, for the QR;
 * z is recomputed from eta and mu, which are those `cur` was computed at. */
static int compact_rows(const irls_problem *pr, const working_state *cur, const double *eta,
                        const double *mu, double *xw, double *zw)
{
    size_t m = 0;
    for (size_t i = 0; i < pr->n; i++) m += cur->sw[i] != 0.0;
    size_t r = 0;
    for (size_t i = 0; i < pr->n; i++) {
        double s = cur->sw[i];
        if (s == 0.0) continue;
        for (int j = 0; j < pr->p; j++) xw[r + (size_t) j * m] = s * pr->x[i + (size_t) j * pr->n];
        double res = (pr->y[i] - mu[i]) / link_mu_eta(pr->fam.link, eta[i]);
        zw[r] = s * ((eta[i] - (pr->offset ? pr->offset[i] : 0.0)) + res);
        r++;
    }
    return (int) m;
}

/* Solves the weighted least-squares step of `cur` into beta_new; returns
 * the rank and sets *used_qr. The QR path needs n x (p + 1) doubles of
 * scratch, allocated on first use. */
typedef struct {
    double *xw, *zw, *work;
} qr_scratch;

static int solve_step(const irls_problem *pr, const working_state *cur, const double *eta,
                      const double *mu, const irls_control *ctl, qr_scratch *qs, double *fac,
                      double *beta_new, int *pivot, int *used_qr)
{
    int p = pr->p;
    *used_qr = 0;
    for (int j = 0; j < p; j++) pivot[j] = j;
    if (cur->n_good >= (size_t) p &&
        linalg_chol_solve(p, cur->A, cur->b, ctl->chol_tol, fac, beta_new))
        return p;
    *used_qr = 1;
    if (!qs->xw) {
        qs->xw = (double *) R_alloc(pr->n * (size_t) p, sizeof(double));
        qs->zw = (double *) R_alloc(pr->n, sizeof(double));
        qs->work = (double *) R_alloc(3 * (size_t) p, sizeof(double));
    }
    int m = compact_rows(pr, cur, eta, mu, qs->xw, qs->zw);
    return linalg_qr_limited(m, p, qs->xw, qs->zw, ctl->qr_tol, pivot, beta_new, fac, qs->work);
}

/* Everything a pass needs besides the problem. */
typedef struct {
    const irls_problem *pr;
    const chunk_workspace *cw;
    const pass_parts *parts;
    double *eta, *mu;
    int nthreads;
} pass_context;

/* A pass that also fills the working state st at the resulting (eta, mu);
 * returns the deviance and sets *valid. beta NULL: eta is given, or, if
 * from_mu, is computed from the starting means in mu. */
static double pass_working(const pass_context *px, const double *beta, int from_mu,
                           working_state *st, int *valid)
{
    pass_result r;
    row_pass(px->pr, px->nthreads, beta, from_mu, px->eta, px->mu, st, px->cw, px->parts, &r);
    *valid = r.valid;
    return r.dev;
}

/* A pass for a halved step: eta, mu and the deviance only. */
static double pass_plain(const pass_context *px, const double *beta, int *valid)
{
    pass_result r;
    row_pass(px->pr, px->nthreads, beta, 0, px->eta, px->mu, NULL, px->cw, px->parts, &r);
    *valid = r.valid;
    return r.dev;
}

/* The state of the iteration between its steps. */
typedef struct {
    working_state cur;  /* the state the last step was solved with (glm.fit's w) */
    working_state next; /* the state at the current estimate, from the fused pass */
    int have_next;      /* next is up to date */
    double *start, *coefold, *fac;
    int have_coefold;
    qr_scratch qs;
} irls_state;

/* glm.fit's two step-halving loops after a step to `start` with deviance
 * *dev: first until the deviance is finite, then until eta and mu are
 * valid. Returns an irls_status; sets *boundary when a step was halved. */
static int halve_step(const pass_context *px, const irls_control *ctl, irls_state *s,
                      double *dev, int *valid, int *boundary, irls_result *res)
{
    int p = px->pr->p;
    *boundary = 0;
    for (int check = 0; check < 2; check++) {
        int bad = check == 0 ? !isfinite(*dev) : !*valid;
        if (!bad) continue;
        if (!s->have_coefold) return IRLS_ERR_NO_VALID;
        res->warnings |= check == 0 ? IRLS_WARN_DIVERGENCE : IRLS_WARN_OUT_OF_BOUNDS;
        for (int ii = 1; check == 0 ? !isfinite(*dev) : !*valid; ii++) {
            if (ii > ctl->maxit) return IRLS_ERR_HALVING;
            for (int j = 0; j < p; j++) s->start[j] = (s->start[j] + s->coefold[j]) / 2.0;
            *dev = pass_plain(px, s->start, valid);
        }
        *boundary = 1;
        s->have_next = 0;
        if (ctl->trace) Rprintf("Step halved: new deviance = %.7g\n", *dev);
    }
    return IRLS_OK;
}

/* The outputs besides the coefficients: working weights, residuals and the
 * unscaled covariance from the factor of the last step. */
static void finish_outputs(const irls_problem *pr, const irls_state *s, int rank, int fit_ok,
                           double *eta, double *mu, double *work_w, double *resid, double *cov)
{
    size_t n = pr->n, pp = (size_t) pr->p * pr->p;
    const double *csw = s->cur.sw;
    for (size_t i = 0; i < n; i++) work_w[i] = csw[i] * csw[i]; /* csw may be work_w */
    /* glm.fit's residuals, at the final eta */
    for (size_t i = 0; i < n; i++)
        resid[i] = (pr->y[i] - mu[i]) / link_mu_eta(pr->fam.link, eta[i]);
    if (fit_ok && rank > 0) {
        linalg_inverse_from_factor(pr->p, rank, s->fac, cov);
    } else {
        for (size_t k = 0; k < pp; k++) cov[k] = NAN;
    }
}

void irls_run(const double *x, size_t n, int p, const double *y,
              const double *wt, const double *offset, glm_family fam,
              const irls_control *ctl, int start_mode, double *beta,
              double *eta, double *mu, double *work_w, double *resid,
              double *cov, int *pivot, irls_result *res)
{
    double work = (double) n * ((p + 1.0) * (p + 2.0) / 2.0 + 40.0);
    /* ctl->schedule > 0 (tests): threads on every pass, whatever the size */
    int nt = ctl->nthreads > 1 && (work >= PARALLEL_MIN_WORK || ctl->schedule > 0)
        ? ctl->nthreads : 1;
    irls_problem pr = { x, y, wt, offset, n, p, fam, choose_chunks(n, p),
                        family_thread_safe(fam) ? nt : 1, ctl->schedule > 0 ? ctl->schedule - 1 : 0,
                        ctl->schedule > 0 };
    chunk_workspace cw;
    alloc_chunks(&cw, p, pr.nchunk);
    pass_parts parts;
    alloc_parts(&parts, pr.nchunk);
    pass_context px = { &pr, &cw, &parts, eta, mu, pr.fam_threads };
    irls_state s;
    /* the output work_w serves as one of the two sqrt(W) buffers */
    alloc_state(&s.cur, n, p, work_w);
    alloc_state(&s.next, n, p, NULL);
    s.start = (double *) R_alloc(p, sizeof(double));
    s.coefold = (double *) R_alloc(p, sizeof(double));
    s.fac = (double *) R_alloc((size_t) p * p, sizeof(double));
    memset(s.fac, 0, (size_t) p * p * sizeof(double));
    s.qs.xw = s.qs.zw = s.qs.work = NULL;
    s.have_coefold = 0;
    memset(res, 0, sizeof(*res));
    for (int j = 0; j < p; j++) pivot[j] = j;

    const double *beta_in = NULL;
    if (start_mode == IRLS_START_COEF) {
        memcpy(s.coefold, beta, (size_t) p * sizeof(double));
        s.have_coefold = 1;
        beta_in = beta;
    }
    int valid = 0;
    double devold = pass_working(&px, beta_in, start_mode == IRLS_START_MU, &s.next, &valid);
    double dev = devold;
    /* The first pass has read every element of X into X'WX: a non-finite
     * x makes a diagonal entry NaN or Inf, so X is scanned only then. */
    int diag_finite = 1;
    for (int j = 0; j < p; j++) diag_finite &= isfinite(s.next.A[j + (size_t) j * p]);
    if (!diag_finite) {
        int bad = irls_nonfinite(x, n * (size_t) p, nt);
        if (bad) { res->status = bad == 1 ? IRLS_ERR_X_NAN : IRLS_ERR_X_INF; return; }
    }
    if (!valid) { res->status = IRLS_ERR_START; return; }
    s.have_next = 1;

    int conv = 0, boundary = 0, rank = p, used_qr = 0, fit_ok = 1;
    for (int iter = 1; iter <= ctl->maxit; iter++) {
        R_CheckUserInterrupt();
        res->iter = iter;
        if (!s.have_next) pass_working(&px, NULL, 0, &s.next, &valid);
        swap_states(&s.cur, &s.next);
        s.have_next = 0;
        if (s.cur.err) { res->status = s.cur.err; return; }
        if (s.cur.n_good == 0) {
            res->warnings |= IRLS_WARN_NO_INFORMATIVE;
            fit_ok = 0;
            break;
        }
        rank = solve_step(&pr, &s.cur, eta, mu, ctl, &s.qs, s.fac, s.start, pivot, &used_qr);
        int finite = 1;
        for (int j = 0; j < p; j++) finite &= isfinite(s.start[j]);
        if (!finite) {
            res->warnings |= IRLS_WARN_NONFINITE_COEF;
            fit_ok = 0;
            break;
        }
        dev = pass_working(&px, s.start, 0, &s.next, &valid);
        s.have_next = 1;
        if (ctl->trace) Rprintf("Deviance = %.7g Iterations - %d\n", dev, iter);
        int status = halve_step(&px, ctl, &s, &dev, &valid, &boundary, res);
        if (status != IRLS_OK) { res->status = status; return; }
        memcpy(s.coefold, s.start, (size_t) p * sizeof(double));
        s.have_coefold = 1;
        if (fabs(dev - devold) / (0.1 + fabs(dev)) < ctl->epsilon) {
            conv = 1;
            break;
        }
        devold = dev;
    }

    if (ctl->final_weights && conv) {
        if (!s.have_next) pass_working(&px, NULL, 0, &s.next, &valid);
        if (!s.next.err && s.next.n_good > 0) {
            double *unused = (double *) R_alloc(p, sizeof(double));
            swap_states(&s.cur, &s.next);
            rank = solve_step(&pr, &s.cur, eta, mu, ctl, &s.qs, s.fac, unused, pivot, &used_qr);
        }
    }
    /* coef is the last accepted step (glm.fit's `coef`) */
    for (int j = 0; j < p; j++) beta[j] = s.have_coefold ? s.coefold[j] : NAN;
    finish_outputs(&pr, &s, rank, fit_ok && res->iter > 0, eta, mu, work_w, resid, cov);
    res->deviance = dev;
    res->converged = conv;
    res->boundary = boundary;
    res->rank = rank;
    res->used_qr = used_qr;
}

/* The scan in blocks of NONFINITE_BLOCK elements handed out by par_rows
 * (no statically split loop: on a shared machine half the elements would
 * wait for a thread without a core); flags per thread, a cache line apart. */
#define NONFINITE_BLOCK 65536

typedef struct {
    const double *v;
    size_t len;
    int *flags;
} nonfinite_job;

static double nonfinite_block(void *ctx, size_t b, int thread)
{
    const nonfinite_job *j = (const nonfinite_job *) ctx;
    size_t lo = b * NONFINITE_BLOCK, hi = lo + NONFINITE_BLOCK < j->len ? lo + NONFINITE_BLOCK : j->len;
    int nan_found = 0, inf_found = 0;
    for (size_t i = lo; i < hi; i++) {
        nan_found |= isnan(j->v[i]);
        inf_found |= isinf(j->v[i]);
    }
    j->flags[(size_t) thread * 16] |= nan_found | (inf_found << 1);
    return 1.0;
}

int irls_nonfinite(const double *v, size_t len, int nthreads)
{
    if (nthreads < 1 || len < 100000) nthreads = 1;
    int *flags = (int *) R_alloc((size_t) nthreads * 16, sizeof(int));
    memset(flags, 0, (size_t) nthreads * 16 * sizeof(int));
    nonfinite_job job = { v, len, flags };
    par_rows(0, (len + NONFINITE_BLOCK - 1) / NONFINITE_BLOCK, 1, INFINITY, nthreads,
             nonfinite_block, &job);
    int found = 0;
    for (int t = 0; t < nthreads; t++) found |= flags[(size_t) t * 16];
    return (found & 1) ? 1 : ((found & 2) ? 2 : 0);
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
