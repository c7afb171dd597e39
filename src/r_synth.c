/* .Call glue for donor sampling of sequential synthesis (synth.c): reads the
 * named-list spec, allocates scratch with R_alloc, hands R's uniform and
 * exponential generators and the interrupt check to the SEXP-free core. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Random.h>
#include <limits.h>
#include "synth.h"
#include "r_util.h"
#include "r_epimask.h"

static void check_interrupt(void)
{
    R_CheckUserInterrupt();
}

/* spec: list(donor_leaf = integer leaf of each donor, 0-based, target_leaf =
 * integer leaf of each target, 0-based, n_leaf = number of leaves, bayes = 0
 * or 1). Uses R's RNG (see synth.h for the order of the draws). Returns the
 * 1-based donor of each target. */
SEXP r_synth_donors(SEXP spec)
{
    R_xlen_t nd = r_field_length(spec, "donor_leaf");
    R_xlen_t nt = r_field_length(spec, "target_leaf");
    if (nd > INT_MAX - 1) r_field_error("donor_leaf", "fewer than 2^31 - 1 donors");
    if (nt > INT_MAX - 1) r_field_error("target_leaf", "fewer than 2^31 - 1 targets");
    const int *dl = r_field_int(spec, "donor_leaf", nd);
    const int *tl = r_field_int(spec, "target_leaf", nt);
    int n_leaf = r_field_int1(spec, "n_leaf", 1, INT_MAX - 1);
    int bayes = r_field_int1(spec, "bayes", 0, 1);
    for (R_xlen_t i = 0; i < nd; i++)
        if (dl[i] < 0 || dl[i] >= n_leaf) r_field_error("donor_leaf", "leaves in [0, n_leaf)");
    for (R_xlen_t i = 0; i < nt; i++)
        if (tl[i] < 0 || tl[i] >= n_leaf) r_field_error("target_leaf", "leaves in [0, n_leaf)");
    SEXP out = PROTECT(allocVector(INTSXP, nt));
    size_t *start = (size_t *) R_alloc((size_t) n_leaf + 1, sizeof(size_t));
    int *order = (int *) R_alloc(nd > 0 ? (size_t) nd : 1, sizeof(int));
    double *cum = bayes ? (double *) R_alloc(nd > 0 ? (size_t) nd : 1, sizeof(double)) : NULL;
    GetRNGstate();
    int rc = synth_leaf_donors(dl, (size_t) nd, tl, (size_t) nt, n_leaf, bayes, unif_rand,
                               exp_rand, INTEGER(out), start, order, cum, check_interrupt);
    PutRNGstate();
    if (rc < 0) r_field_error("target_leaf", "leaves that hold at least one donor");
    int *o = INTEGER(out);
    for (R_xlen_t t = 0; t < nt; t++) o[t]++;
    UNPROTECT(1);
    return out;
}
