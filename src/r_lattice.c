/* .Call glue for the lattice class counts (lattice.c); named-list specs read
 * with r_util.h. No statistics here: conversion and allocation only. */
#include <R.h>
#include <Rinternals.h>
#include <limits.h>
#include "lattice.h"
#include "r_util.h"
#include "r_epimask.h"

/* spec: codes (n x p integer matrix), ncol (group on the first ncol columns),
 * count (n doubles: the records behind each row).
 * Returns list(group = 1-based group of each row, size = records per group,
 * first = 1-based first row of each group). */
SEXP r_lattice_group(SEXP spec)
{
    size_t n;
    int p;
    const int *codes = r_field_int_matrix(spec, "codes", &n, &p);
    int ncol = r_field_int1(spec, "ncol", 1, p);
    const double *count = r_field_double(spec, "count", (R_xlen_t) n, 1);
    int *group = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
    int *first = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
    double *size = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
    int g = lattice_group(codes, n, n, ncol, count, group, size, first);
    if (g < 0) r_nomem_error("group", n);
    const char *names[] = { "group", "size", "first", "" };
    SEXP out = PROTECT(r_named_list(names));
    int *r_group = INTEGER(r_list_set(out, "group", allocVector(INTSXP, (R_xlen_t) n)));
    double *r_size = REAL(r_list_set(out, "size", allocVector(REALSXP, g)));
    int *r_first = INTEGER(r_list_set(out, "first", allocVector(INTSXP, g)));
    for (size_t i = 0; i < n; i++) r_group[i] = group[i] + 1;
    for (int j = 0; j < g; j++) {
        r_size[j] = size[j];
        r_first[j] = first[j] + 1;
    }
    UNPROTECT(1);
    return out;
}

/* spec: codes (n x p integer matrix), count (n doubles), maps (list of p:
 * NULL or an integer vector recoding that column). Returns list(codes =
 * G x p integer matrix, count = G doubles). */
SEXP r_lattice_rollup(SEXP spec)
{
    size_t n;
    int p;
    const int *codes = r_field_int_matrix(spec, "codes", &n, &p);
    const double *count = r_field_double(spec, "count", (R_xlen_t) n, 1);
    SEXP maps = r_field(spec, "maps");
    if (TYPEOF(maps) != VECSXP || XLENGTH(maps) != p)
        r_field_error("maps", "a list with one entry per column");
    const int **map = (const int **) R_alloc(p > 0 ? p : 1, sizeof(int *));
    int *map_len = (int *) R_alloc(p > 0 ? p : 1, sizeof(int));
    for (int j = 0; j < p; j++) {
        SEXP m = VECTOR_ELT(maps, j);
        if (m == R_NilValue) {
            map[j] = NULL;
            map_len[j] = 0;
        } else if (TYPEOF(m) == INTSXP) {
            map[j] = INTEGER_RO(m);
            map_len[j] = LENGTH(m);
        } else {
            r_field_error("maps", "a list of NULL or integer vectors");
        }
    }
    size_t cells = n * (size_t) p;
    int *out_codes = (int *) R_alloc(cells > 0 ? cells : 1, sizeof(int));
    double *out_count = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
    int g = lattice_rollup(codes, count, n, p, map, map_len, out_codes, out_count);
    if (g == -2) r_field_error("maps", "covering every code of its column");
    if (g < 0) r_nomem_error("roll up", n);
    const char *names[] = { "codes", "count", "" };
    SEXP out = PROTECT(r_named_list(names));
    int *r_codes = INTEGER(r_list_set(out, "codes", allocMatrix(INTSXP, g, p)));
    double *r_count = REAL(r_list_set(out, "count", allocVector(REALSXP, g)));
    for (size_t i = 0; i < (size_t) g * (size_t) p; i++) r_codes[i] = out_codes[i];
    for (int j = 0; j < g; j++) r_count[j] = out_count[j];
    UNPROTECT(1);
    return out;
}

/* spec: nodes (N x A integer matrix of levels), levels (A), up (0/1).
 * Returns a logical vector: the nodes at or above (up) / below `levels`. */
SEXP r_lattice_tag(SEXP spec)
{
    SEXP nodes = r_field(spec, "nodes");
    if (TYPEOF(nodes) != INTSXP || !isMatrix(nodes))
        r_field_error("nodes", "an integer matrix");
    int n_keys = ncols(nodes);
    const int *levels = r_field_int(spec, "levels", n_keys);
    int up = r_field_int1(spec, "up", 0, 1);
    size_t n = (size_t) nrows(nodes);
    SEXP out = PROTECT(allocVector(LGLSXP, (R_xlen_t) n));
    lattice_tag(INTEGER_RO(nodes), n, n_keys, levels, up, LOGICAL(out));
    UNPROTECT(1);
    return out;
}
