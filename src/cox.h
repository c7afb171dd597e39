#ifndef EPIMASK_COX_H
#define EPIMASK_COX_H

#include <stddef.h>

/* Cox proportional hazards model by Newton-Raphson on the log partial
 * likelihood (methods vignette section 24). Plain C over arrays; the .Call glue is in
 * r_cox.c.
 *
 * The records are visited through two orderings made by the caller: `ord`,
 * the records by stratum and then by decreasing stop time, and, for
 * counting-process data (start, stop], `ord2`, the records by stratum and
 * then by decreasing start time. Strata occupy the same slices
 * [bound[s], bound[s + 1]) of both orderings. One pass per iteration walks
 * the distinct stop times of a stratum from the last to the first, adding
 * the records that stop there to the risk set and removing the records
 * whose entry time is at or after it, so the risk set at t holds the
 * records with start < t <= stop. */

enum { COX_OK = 0, COX_NOT_CONVERGED = 1, COX_SINGULAR = 2, COX_NONFINITE = 3 };

typedef struct {
    size_t n;            /* records */
    int p;               /* covariates */
    const double *start; /* entry times, or NULL for right-censored data */
    const double *stop;  /* exit (event or censoring) times */
    const int *status;   /* 1 event, 0 censored */
    const double *wt;    /* case weights */
    const double *offset;/* or NULL */
    const int *ord;      /* 0-based, stratum then stop decreasing */
    const int *ord2;     /* 0-based, stratum then start decreasing (or NULL) */
    const int *bound;    /* nstrata + 1 slice boundaries of ord / ord2 */
    int nstrata;
    int efron;           /* 1 Efron's ties, 0 Breslow's */
} cox_problem;

typedef struct {
    int maxit;           /* iter.max of coxph.control (20) */
    double eps;          /* relative change of the log partial likelihood (1e-9) */
} cox_control;

typedef struct {
    int status;          /* COX_OK, ... */
    int iter;
    double loglik0;      /* at the starting values */
    double loglik;       /* at the estimate */
} cox_result;

/* Scratch for one fit of p covariates on n records (doubles). */
size_t cox_scratch_size(size_t n, int p);

/* Fits one design x (n x p, column-major). beta holds the starting values
 * on entry and the estimate on return; var (p x p) receives the inverse of
 * the information at the estimate, score (p) the score there (var * score
 * is the next Newton step: large after convergence when the likelihood is
 * monotone in a coefficient), means (p) the column means by which x was
 * centred. work: cox_scratch_size(n, p) doubles. */
cox_result cox_fit(const cox_problem *pr, const double *x, const cox_control *ctl,
                   double *beta, double *var, double *score, double *means, double *work);

/* The log partial likelihood, score u (p) and information imat (p x p) at
 * beta for the centred design xc (n x p); work: 2 p + 2 p * p doubles and
 * eta (n). */
double cox_pass(const cox_problem *pr, const double *xc, const double *beta, double *u,
                double *imat, double *eta, double *work);

/* Fits nrep designs x (n x p x nrep) sharing pr's times, status, weights
 * and strata, each from beta = 0, in parallel over replicates (nthreads).
 * coef p x nrep, var p x p x nrep, score p x nrep, loglik 2 x nrep (start, estimate),
 * status and iter nrep. work: nthreads * (cox_scratch_size(n, p) + p)
 * doubles. interrupt (or NULL) is called between batches, outside the
 * parallel region. */
void cox_fit_many(const cox_problem *pr, const double *x, int nrep, const cox_control *ctl,
                  int nthreads, double *coef, double *var, double *score, double *loglik,
                  int *status, int *iter, double *work, void (*interrupt)(void));

#endif
