#include <R.h>
#include <Rinternals.h>
#include <R_ext/Utils.h>
#include <stdlib.h>
#include <string.h>
#include "risk_match.h"
#include "match_tree.h"
#include "match_sweep.h"
#include "par_rows.h"
#include "r_epimask.h"
#include <math.h>
#include "r_util.h"

/* .Call glue for the record-matching risk (named lists, src/r_util.h). The R
 * side (R/risk-match.R) has validated everything and fitted the intruder's
 * regression; here fields are only checked for shape, so that a wrong call
 * fails cleanly with a classed error. */

/* A double matrix field with the given rows (and columns when ncol >= 0);
 * returns its data and sets *ncol_out. */
static const double *field_matrix(SEXP spec, const char *name, size_t nrow, int ncol,
                                  int *ncol_out)
{
    SEXP x = r_field(spec, name);
    if (!isReal(x) || !isMatrix(x)) r_field_error(name, "a double matrix");
    if ((size_t) nrows(x) != nrow || (ncol >= 0 && ncols(x) != ncol))
        r_field_error(name, "a matrix of the expected dimensions");
    if (ncol_out) *ncol_out = ncols(x);
    return r_field_double(spec, name, -1, 1);
}

/* The released data of a spec (fields masked_known, masked_unknown,
 * unknown_sd, unknown_range). */
static rm_released released_of(SEXP spec)
{
    SEXP mk = r_field(spec, "masked_known");
    if (!isMatrix(mk)) r_field_error("masked_known", "a double matrix");
    size_t n = (size_t) nrows(mk);
    if (n == 0) r_field_error("masked_known", "a matrix with at least one row");
    rm_released rel;
    rel.n = n;
    rel.masked_known = field_matrix(spec, "masked_known", n, -1, &rel.n_known);
    rel.masked_unknown = field_matrix(spec, "masked_unknown", n, -1, &rel.n_unknown);
    rel.unknown_sd = r_field_double(spec, "unknown_sd", rel.n_unknown, 1);
    rel.unknown_range = r_field_double(spec, "unknown_range", rel.n_unknown, 1);
    for (int u = 0; u < rel.n_unknown; u++)
        if (rel.unknown_sd[u] < 0 || rel.unknown_range[u] < 0)
            r_field_error("unknown_sd", "non-negative, as the unknown ranges");
    return rel;
}

static void index_finalizer(SEXP ptr)
{
    mt_index *ix = (mt_index *) R_ExternalPtrAddr(ptr);
    if (!ix) return;
    mt_free(ix);
    free(ix);
    R_ClearExternalPtr(ptr);
}

static SEXP build_index(const rm_released *rel)
{
    if (rel->n_known < 1 || rel->n_known > MT_MAX_KNOWN || rel->n_unknown > MT_MAX_UNKNOWN)
        r_field_error("masked_known", "within the search's limits on variables");
    mt_index *ix = (mt_index *) malloc(sizeof(mt_index));
    if (!ix || mt_build(ix, rel) != 0) {
        free(ix);
        r_nomem_error("index", rel->n);
    }
    SEXP ptr = PROTECT(R_MakeExternalPtr(ix, install("epimask_match_index"), R_NilValue));
    R_RegisterCFinalizerEx(ptr, index_finalizer, TRUE);
    UNPROTECT(1);
    return ptr;
}

/* The search index of the released data, for reuse over chunks of targets. */
SEXP r_risk_match_index(SEXP spec)
{
    rm_released rel = released_of(spec);
    return build_index(&rel);
}

static void sweep_finalizer(SEXP ptr)
{
    ms_state *st = (ms_state *) R_ExternalPtrAddr(ptr);
    if (!st) return;
    ms_free(st);
    R_ClearExternalPtr(ptr);
}

/* The sweep's normaliser for every target (match_sweep.h): the state is held
 * by *holder (protected here: the caller unprotects it), so that an
 * interrupt between groups of bins frees it. */
static ms_state *run_sweep(const mt_index *ix, const rm_released *rel, const rm_targets *tg,
                           int threads, SEXP *holder)
{
    ms_state *st = ms_prepare(ix, rel, tg, threads);
    if (!st) r_nomem_error("sum over", rel->n);
    *holder = PROTECT(R_MakeExternalPtr(st, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(*holder, sweep_finalizer, TRUE);
    int B = ms_blocks(st);
    for (int b = 0; b < B;) {
        b = ms_run_bins(st, b, b + threads < B ? b + threads : B, threads);
        if (b < 0) r_nomem_error("sum over", rel->n);
        R_CheckUserInterrupt();
    }
    return st;
}

/* The targets whose sweep bound is too wide: the per-target walk. */
typedef struct {
    const rm_released *rel;
    const rm_targets *tg;
    const mt_index *ix;
    double prob_tol;
    char *scratch;
    size_t scratch_bytes;
    const size_t *list;
    double *sum;
} walk_job;

static double run_walk(void *ctx, size_t row, int thread)
{
    walk_job *job = (walk_job *) ctx;
    double work = 0.0;
    size_t i = job->list[row];
    job->sum[i] = mt_target_normaliser(job->ix, job->rel, job->tg, i, job->prob_tol,
                                       job->scratch + (size_t) thread * job->scratch_bytes,
                                       &work);
    return work;
}

/* prob_true and prob_max from the unnormalised scores (MT_PROB_RAW) and the
 * sweep's certified normaliser, or the walk's where the sweep's bound is
 * wider than prob_tol. Returns the number of targets left to the walk. */
static size_t normalise_by_sweep(const mt_index *ix, const rm_released *rel,
                                 const rm_targets *tg, double prob_tol, int threads,
                                 char *scratch, size_t bytes, rm_result *res)
{
    size_t nt = tg->n_targets, m = 0;
    SEXP holder;
    ms_state *st = run_sweep(ix, rel, tg, threads, &holder);
    const double *est = ms_estimate(st);
    double *err = (double *) R_alloc(nt + 1, sizeof(double));
    double *sum = (double *) R_alloc(nt + 1, sizeof(double));
    size_t *list = (size_t *) R_alloc(nt + 1, sizeof(size_t));
    ms_error(st, err);
    for (size_t i = 0; i < nt; i++) {
        if (res->prob_max[i] < 0) continue; /* every record scores 0 */
        double lo = est[i] - err[i];
        if (lo > 0 && err[i] <= prob_tol * lo) sum[i] = est[i];
        else list[m++] = i;
    }
    walk_job job = { rel, tg, ix, prob_tol, scratch, bytes, list, sum };
    for (size_t from = 0; from < m;) {
        from = par_rows(from, m, 4, RM_REGION_WORK, threads, run_walk, &job);
        R_CheckUserInterrupt();
    }
    for (size_t i = 0; i < nt; i++) {
        if (res->prob_max[i] < 0) {
            res->prob_true[i] = res->prob_max[i] = 1.0 / (double) rel->n;
            continue;
        }
        res->prob_true[i] /= sum[i];
        res->prob_max[i] /= sum[i];
    }
    UNPROTECT(1);
    return m;
}

/* spec: masked_known (n x k), masked_unknown (n x u), unknown_sd, unknown_range
 * (length u), target_record (0-based), target_known (targets x k), pred_mean
 * (targets x u), threads, method (0 exhaustive, 1 tree), prob_tol (-1 with
 * the tree: c and I only), index (an
 * index from r_risk_match_index() of the same released data, or NULL), sweep
 * (1: the normaliser by the sweep where it applies, 0: by the per-target
 * walk). */
SEXP r_risk_match(SEXP spec)
{
    rm_released rel = released_of(spec);
    const int *record = r_field_int(spec, "target_record", -1);
    size_t n_targets = (size_t) r_field_length(spec, "target_record");
    for (size_t i = 0; i < n_targets; i++)
        if (record[i] < 0 || (size_t) record[i] >= rel.n)
            r_field_error("target_record", "row numbers of the released data");
    rm_targets tg = {
        n_targets, record,
        field_matrix(spec, "target_known", n_targets, rel.n_known, NULL),
        field_matrix(spec, "pred_mean", n_targets, rel.n_unknown, NULL)
    };
    int threads = r_field_int1(spec, "threads", 1, 1 << 16);
    int method = r_field_int1(spec, "method", 0, 1);
    /* -1: c and I only (method 1); prob_true and prob_max left NaN */
    double prob_tol = r_field_double1(spec, "prob_tol", method == 1 ? -1.0 : 0.0, 1.0);
#ifndef _OPENMP
    threads = 1;
#endif

    SEXP index = r_field(spec, "index"), own = R_NilValue;
    const mt_index *ix = NULL;
    if (method == 1) {
        if (TYPEOF(index) == EXTPTRSXP && R_ExternalPtrAddr(index)) {
            ix = (const mt_index *) R_ExternalPtrAddr(index);
            if (ix->n != rel.n || ix->n_known != rel.n_known || ix->n_unknown != rel.n_unknown)
                r_field_error("index", "the index of the same released data");
        } else {
            own = build_index(&rel);
            ix = (const mt_index *) R_ExternalPtrAddr(own);
        }
    }
    PROTECT(own);

    int sweep = method == 1 && prob_tol > 0 &&
                (prob_tol < MS_TOL_MAX || ms_sharp_unknowns(&rel) > 0) &&
                r_field_int1(spec, "sweep", 0, 1) && ms_applies(&rel);

    const char *names[] = { "prob_true", "prob_max", "c", "I", "walked", "" };
    SEXP out = PROTECT(r_named_list(names));
    R_xlen_t nt = (R_xlen_t) n_targets;
    rm_result res = { REAL(r_list_set(out, "prob_true", allocVector(REALSXP, nt))),
                      REAL(r_list_set(out, "prob_max", allocVector(REALSXP, nt))),
                      INTEGER(r_list_set(out, "c", allocVector(INTSXP, nt))),
                      INTEGER(r_list_set(out, "I", allocVector(INTSXP, nt))) };

    size_t bytes = rm_job_scratch_bytes(&rel, ix);
    char *scratch = (char *) R_alloc((size_t) threads * bytes + 64, 1);
    rm_job run = { &rel, &tg, ix, sweep ? MT_PROB_RAW : prob_tol, scratch, bytes, &res };
    /* one parallel region per RM_REGION_WORK of work; interrupts between */
    for (size_t from = 0; from < n_targets;) {
        from = rm_run(&run, from, n_targets, threads);
        R_CheckUserInterrupt();
    }
    /* targets whose normaliser came from the per-target walk */
    double walked = sweep ? (double) normalise_by_sweep(ix, &rel, &tg, prob_tol, threads,
                                                        scratch, bytes, &res)
                          : (method == 1 && prob_tol >= 0 ? (double) n_targets : 0.0);
    r_list_set(out, "walked", ScalarReal(walked));

    UNPROTECT(2);
    return out;
}

/* TEST ONLY (not called by the package; see src/init.c): the sweep's
 * certified normaliser of every target without the walk. spec: as
 * r_risk_match (threads; index optional). Returns list(estimate, error,
 * bins), or estimate NULL when the sweep does not apply. */
SEXP r_risk_match_sweep(SEXP spec)
{
    rm_released rel = released_of(spec);
    size_t n_targets = (size_t) r_field_length(spec, "target_record");
    rm_targets tg = {
        n_targets, r_field_int(spec, "target_record", -1),
        field_matrix(spec, "target_known", n_targets, rel.n_known, NULL),
        field_matrix(spec, "pred_mean", n_targets, rel.n_unknown, NULL)
    };
    int threads = r_field_int1(spec, "threads", 1, 1 << 16);
#ifndef _OPENMP
    threads = 1;
#endif
    const char *names[] = { "estimate", "error", "bins", "sharp", "" };
    SEXP out = PROTECT(r_named_list(names));
    if (!ms_applies(&rel)) {
        UNPROTECT(1);
        return out;
    }
    SEXP own = PROTECT(build_index(&rel));
    const mt_index *ix = (const mt_index *) R_ExternalPtrAddr(own);
    SEXP holder;
    ms_state *st = run_sweep(ix, &rel, &tg, threads, &holder);
    R_xlen_t nt = (R_xlen_t) n_targets;
    double *est = REAL(r_list_set(out, "estimate", allocVector(REALSXP, nt)));
    double *err = REAL(r_list_set(out, "error", allocVector(REALSXP, nt)));
    memcpy(est, ms_estimate(st), n_targets * sizeof(double));
    ms_error(st, err);
    r_list_set(out, "bins", ScalarInteger(ms_bins(st)));
    r_list_set(out, "sharp", ScalarInteger(ms_sharp(st)));
    UNPROTECT(3);
    return out;
}

/* TEST ONLY (not called by the package; see src/init.c): the closed-form
 * triangle expectation, vectorised over `a`. spec: a (doubles), mean, sd,
 * half_width (single doubles). */
SEXP r_risk_triangle_normal(SEXP spec)
{
    R_xlen_t n = r_field_length(spec, "a");
    const double *a = r_field_double(spec, "a", n, 0);
    double mean = r_field_double1(spec, "mean", -INFINITY, INFINITY);
    double sd = r_field_double1(spec, "sd", -INFINITY, INFINITY);
    double half_width = r_field_double1(spec, "half_width", -INFINITY, INFINITY);
    SEXP out = PROTECT(allocVector(REALSXP, n));
    for (R_xlen_t i = 0; i < n; i++)
        REAL(out)[i] = rm_triangle_normal(a[i], mean, sd, half_width);
    UNPROTECT(1);
    return out;
}
