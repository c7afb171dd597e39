/* .Call glue for count tables (table.c). */
#include <R_ext/Utils.h>
#include "r_util.h"
#include "r_epimask.h"
#include "table.h"

static void check_interrupt(void *unused) { (void) unused; R_CheckUserInterrupt(); }

/* Non-zero when the user asked to stop (without leaving C by a long jump). */
static int pending_interrupt(void) { return !R_ToplevelExec(check_interrupt, NULL); }

/* spec: list(leaf = n x d integer matrix (0-based codes), anc = integer (the
 * anc_j blocks), nleaf, nlev (integer d), stride (double d), n_cells,
 * freq = double n or length 0, value = double n or length 0, n_top)
 * -> list(count, rows, sum (NULL without value), top (n_cells x n_top or NULL)) */
SEXP r_table_aggregate(SEXP spec)
{
    size_t n;
    int d;
    const int *leaf = r_field_int_matrix(spec, "leaf", &n, &d);
    if (d < 1 || d > 64) r_field_error("leaf", "a matrix of 1 to 64 columns");
    const int *nleaf = r_field_int(spec, "nleaf", d);
    const int *nlev = r_field_int(spec, "nlev", d);
    const double *stride = r_field_double(spec, "stride", d, 1);
    double n_cells_d = r_field_double1(spec, "n_cells", 1, 4503599627370496.0);
    size_t n_cells = (size_t) n_cells_d;
    R_xlen_t total = 0;
    for (int j = 0; j < d; j++) {
        if (nleaf[j] < 1 || nlev[j] < 1) r_field_error("nleaf", "positive counts");
        total += (R_xlen_t) nleaf[j] * nlev[j];
    }
    const int *anc = r_field_int(spec, "anc", total);
    double top_node = 0;
    size_t o = 0;
    for (int j = 0; j < d; j++) {
        int max_node = 0;
        for (size_t k = 0; k < (size_t) nleaf[j] * nlev[j]; k++) {
            if (anc[o + k] < 0) r_field_error("anc", "node numbers >= 0");
            if (anc[o + k] > max_node) max_node = anc[o + k];
        }
        top_node += max_node * stride[j];
        o += (size_t) nleaf[j] * nlev[j];
    }
    if (top_node >= n_cells_d) r_field_error("anc", "node numbers within the table's cells");
    for (int j = 0; j < d; j++)
        for (size_t i = 0; i < n; i++) {
            int c = leaf[i + n * (size_t) j];
            if (c == NA_INTEGER || c < 0 || c >= nleaf[j])
                r_field_error("leaf", "codes from 0 to the number of codes of the dimension - 1");
        }
    const double *freq = NULL, *value = NULL;
    if (r_field_length(spec, "freq") > 0) freq = r_field_double(spec, "freq", (R_xlen_t) n, 1);
    if (r_field_length(spec, "value") > 0) value = r_field_double(spec, "value", (R_xlen_t) n, 1);
    int n_top = r_field_int1(spec, "n_top", 0, 1000);
    if (!value) n_top = 0;
    const char *names[] = { "count", "rows", "sum", "top", "" };
    SEXP out = PROTECT(r_named_list(names));
    double *count = REAL(r_list_set(out, "count", allocVector(REALSXP, (R_xlen_t) n_cells)));
    double *rows = REAL(r_list_set(out, "rows", allocVector(REALSXP, (R_xlen_t) n_cells)));
    double *sum = NULL, *top = NULL;
    if (value) sum = REAL(r_list_set(out, "sum", allocVector(REALSXP, (R_xlen_t) n_cells)));
    if (n_top > 0) top = REAL(r_list_set(out, "top", allocMatrix(REALSXP, (int) n_cells, n_top)));
    int status = table_aggregate(n, d, leaf, anc, nleaf, nlev, stride, freq, value, n_top,
                                 n_cells, count, rows, sum, top, pending_interrupt);
    if (status == -2) r_interrupted();
    UNPROTECT(1);
    return out;
}

/* spec: list(start = integer n_rel + 1 (0-based offsets), cell = integer
 * (0-based cells), sup = integer n_cells (0/1)) -> integer n_cells: the part
 * of each suppressed cell (1-based), NA for the others */
SEXP r_table_parts(SEXP spec)
{
    R_xlen_t n_start = r_field_length(spec, "start");
    if (n_start < 1) r_field_error("start", "offsets of at least one relation end");
    const int *start = r_field_int(spec, "start", n_start);
    R_xlen_t n_cell = r_field_length(spec, "cell");
    const int *cell = r_field_int(spec, "cell", n_cell);
    R_xlen_t n_cells = r_field_length(spec, "sup");
    const int *sup = r_field_int(spec, "sup", n_cells);
    int n_rel = (int) n_start - 1;
    if (start[0] != 0 || start[n_rel] != n_cell) r_field_error("start", "offsets from 0 to the length of `cell`");
    for (int r = 0; r < n_rel; r++)
        if (start[r + 1] < start[r]) r_field_error("start", "non-decreasing offsets");
    for (R_xlen_t k = 0; k < n_cell; k++)
        if (cell[k] < 0 || cell[k] >= n_cells) r_field_error("cell", "cells of the table (0-based)");
    SEXP out = PROTECT(allocVector(INTSXP, n_cells));
    int *part = INTEGER(out);
    int n_parts = table_parts(n_rel, start, cell, (size_t) n_cells, sup, part);
    if (n_parts < 0) r_nomem_error("find the parts of", (size_t) n_cells);
    for (R_xlen_t c = 0; c < n_cells; c++) part[c] = part[c] < 0 ? NA_INTEGER : part[c] + 1;
    UNPROTECT(1);
    return out;
}
