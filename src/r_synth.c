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

/* spec: list(x = n x p double matrix (NaN/NA missing, level codes for
 * categories), leaf, var, kind, dir, crow, left, right, major = integer per
 * node (0-based rows), cut = double per node, csplit = integer matrix (may
 * be 0 x 0)). Returns the 0-based node row of each record's leaf. */
SEXP r_synth_tree_leaves(SEXP spec)
{
    SEXP xs = r_field(spec, "x");
    if (!isReal(xs) || !isMatrix(xs)) r_field_error("x", "a double matrix");
    R_xlen_t n = nrows(xs);
    int p = ncols(xs);
    R_xlen_t nn = r_field_length(spec, "leaf");
    if (nn < 1 || nn > INT_MAX) r_field_error("leaf", "one value per node (at least one)");
    const int *leaf = r_field_int(spec, "leaf", nn);
    const int *var = r_field_int(spec, "var", nn);
    const int *kind = r_field_int(spec, "kind", nn);
    const int *dir = r_field_int(spec, "dir", nn);
    const int *crow = r_field_int(spec, "crow", nn);
    const int *left = r_field_int(spec, "left", nn);
    const int *right = r_field_int(spec, "right", nn);
    const int *major = r_field_int(spec, "major", nn);
    const double *cut = r_field_double(spec, "cut", nn, 0);
    size_t n_crow;
    int n_ccol;
    const int *csplit = r_field_int_matrix(spec, "csplit", &n_crow, &n_ccol);
    if (n_crow > INT_MAX) r_field_error("csplit", "a matrix of fewer than 2^31 rows");
    for (R_xlen_t r = 0; r < nn; r++) {
        if (leaf[r]) continue;
        if (var[r] < 0 || var[r] >= p) r_field_error("var", "columns of x");
        /* children after their parent (rpart's preorder): no cycle */
        if (left[r] <= r || left[r] >= nn || right[r] <= r || right[r] >= nn)
            r_field_error("left", "child rows after their parent's");
        if (kind[r] == 1 && (crow[r] < 0 || (size_t) crow[r] >= n_crow))
            r_field_error("crow", "rows of csplit");
    }
    SEXP out = PROTECT(allocVector(INTSXP, n));
    synth_tree_leaves(REAL(xs), (size_t) n, p, leaf, var, kind, cut, dir, crow, left, right,
                      major, csplit, (int) n_crow, n_ccol, INTEGER(out), check_interrupt);
    UNPROTECT(1);
    return out;
}
