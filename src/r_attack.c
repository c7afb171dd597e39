/* .Call glue for the three attacks (gower.c: nearest released records;
 * predicate.c: singling-out predicate counts). Every index is checked here,
 * so the C core can trust its arrays. */
#include <limits.h>
#include <R_ext/Utils.h>
#include "r_util.h"
#include "r_epimask.h"
#include "gower.h"
#include "predicate.h"

static void check_interrupt(void *unused) { (void) unused; R_CheckUserInterrupt(); }

static int pending_interrupt(void) { return !R_ToplevelExec(check_interrupt, NULL); }

/* The column types: p values, each GOWER_NUM or GOWER_CAT. */
static const int *field_types(SEXP spec, int p)
{
    const int *type = r_field_int(spec, "type", p);
    for (int j = 0; j < p; j++)
        if (type[j] != GOWER_NUM && type[j] != GOWER_CAT)
            r_field_error("type", "0 (number) or 1 (category) per column");
    return type;
}

/* Category codes are whole numbers >= 0; numbers may be NaN (NA) but not
 * infinite (the distance of an infinite value is undefined). */
static void check_coded(const double *x, size_t n, int p, const int *type, int by_record,
                        const char *name)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < p; j++) {
            double v = by_record ? x[i * (size_t) p + j] : x[(size_t) j * n + i];
            if (type[j] == GOWER_CAT) {
                if (!(v >= 0.0) || v != (double) (long long) v)
                    r_field_error(name, "category codes that are whole numbers >= 0");
            } else if (!ISNAN(v) && !R_FINITE(v)) {
                r_field_error(name, "finite numbers or NaN");
            }
        }
}

/* spec: list(y = p x n released records, q = p x nq targets (a record per
 * column), type, na = 0L category / 1L ignore, k, method = 0L exhaustive /
 * 1L tree, threads) -> list(idx = k x nq 1-based released rows, dist) */
SEXP r_gower_knn(SEXP spec)
{
    size_t p_y, n, p_q, nq;
    int ny, nqc;
    r_field_dims(spec, "y", &p_y, &ny);
    r_field_dims(spec, "q", &p_q, &nqc);
    n = (size_t) ny;
    nq = (size_t) nqc;
    if (p_y < 1) r_field_error("y", "a matrix with at least one column of the data");
    if (p_q != p_y) r_field_error("q", "a matrix with the rows of y");
    if (n < 1) r_field_error("y", "a matrix with at least one released record");
    int p = (int) p_y;
    const double *y = r_field_double(spec, "y", -1, 0);
    const double *q = r_field_double(spec, "q", -1, 0);
    const int *type = field_types(spec, p);
    check_coded(y, n, p, type, 1, "y");
    check_coded(q, nq, p, type, 1, "q");
    int na = r_field_int1(spec, "na", 0, 1);
    int k = r_field_int1(spec, "k", 1, (int) (n < 100000 ? n : 100000));
    int method = r_field_int1(spec, "method", 0, 1);
    int threads = r_field_int1(spec, "threads", 1, 1024);
    const char *names[] = { "idx", "dist", "" };
    SEXP out = PROTECT(r_named_list(names));
    SEXP idx_s = r_list_set(out, "idx", Rf_allocMatrix(INTSXP, k, (int) nq));
    SEXP dist_s = r_list_set(out, "dist", Rf_allocMatrix(REALSXP, k, (int) nq));
    int *idx = INTEGER(idx_s);
    int status = gower_knn(y, n, q, nq, p, type, na, k, method, threads, idx, REAL(dist_s),
                           pending_interrupt);
    if (status == -1) r_nomem_error("index", n);
    if (status == -2) r_interrupted();
    for (size_t i = 0; i < (size_t) k * nq; i++) idx[i] += 1;
    UNPROTECT(1);
    return out;
}

/* spec: list(x = n x p coded data (column-major), type, order = NULL or the
 * n x p matrix of each column's 1-based rows sorted by value with NA first,
 * person = NULL or the 1-based person of every row of x, n_person, start =
 * 0-based offsets of the predicates' conditions (npred + 1 values), col =
 * 1-based columns, op, val, cap, threads) -> integer counts, one per
 * predicate */
SEXP r_predicate_count(SEXP spec)
{
    size_t n;
    int p;
    r_field_dims(spec, "x", &n, &p);
    const double *x = r_field_double(spec, "x", -1, 0);
    const int *type = field_types(spec, p);
    check_coded(x, n, p, type, 0, "x");
    int *order = NULL;
    SEXP order_s = r_field(spec, "order");
    if (!Rf_isNull(order_s)) {
        size_t on;
        int op_;
        const int *order1 = r_field_int_matrix(spec, "order", &on, &op_);
        if (on != n || op_ != p) r_field_error("order", "a matrix of the size of x");
        order = (int *) R_alloc(n * (size_t) p > 0 ? n * (size_t) p : 1, sizeof(int));
        /* each column a permutation of the rows, sorted by value, NA first */
        int *seen = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
        for (int j = 0; j < p; j++) {
            for (size_t i = 0; i < n; i++) seen[i] = 0;
            for (size_t i = 0; i < n; i++) {
                int r = order1[(size_t) j * n + i];
                if (r == NA_INTEGER || r < 1 || (size_t) r > n || seen[r - 1])
                    r_field_error("order", "a permutation of the rows per column");
                seen[r - 1] = 1;
                order[(size_t) j * n + i] = r - 1;
            }
            for (size_t i = 1; i < n; i++) {
                double a = x[(size_t) j * n + (size_t) order[(size_t) j * n + i - 1]];
                double b = x[(size_t) j * n + (size_t) order[(size_t) j * n + i]];
                int na_a = type[j] == GOWER_NUM ? ISNAN(a) : a == 0.0;
                int na_b = type[j] == GOWER_NUM ? ISNAN(b) : b == 0.0;
                if ((na_b && !na_a) || (!na_a && !na_b && b < a))
                    r_field_error("order", "rows sorted by value, NA first");
            }
        }
    }
    SEXP person_s = r_field(spec, "person");
    const int *person1 = NULL;
    int n_person = 0;
    if (!Rf_isNull(person_s)) {
        person1 = r_field_int(spec, "person", (R_xlen_t) n);
        n_person = r_field_int1(spec, "n_person", 1, INT_MAX - 1);
        for (size_t i = 0; i < n; i++)
            if (person1[i] < 1 || person1[i] > n_person)
                r_field_error("person", "persons from 1 to n_person");
    }
    R_xlen_t ns = r_field_length(spec, "start");
    if (ns < 1) r_field_error("start", "the offsets of the predicates (at least one value)");
    const int *start = r_field_int(spec, "start", -1);
    R_xlen_t nc = r_field_length(spec, "col");
    const int *col1 = r_field_int(spec, "col", -1);
    const int *op = r_field_int(spec, "op", nc);
    const double *val = r_field_double(spec, "val", nc, 0);
    if (start[0] != 0 || start[ns - 1] != nc) r_field_error("start", "offsets from 0 to length(col)");
    for (R_xlen_t m = 1; m < ns; m++)
        if (start[m] < start[m - 1]) r_field_error("start", "non-decreasing offsets");
    for (R_xlen_t c = 0; c < nc; c++) {
        if (col1[c] < 1 || col1[c] > p) r_field_error("col", "columns of x");
        if (op[c] < PRED_EQ || op[c] > PRED_NOTNA) r_field_error("op", "operators 1 to 8");
        if (type[col1[c] - 1] == GOWER_CAT && op[c] >= PRED_LT && op[c] <= PRED_GE)
            r_field_error("op", "== or != (or NA tests) on a category");
        if (op[c] < PRED_ISNA && ISNAN(val[c]))
            r_field_error("val", "a value (not NA) for a comparison");
    }
    int cap = r_field_int1(spec, "cap", 0, INT_MAX);
    int threads = r_field_int1(spec, "threads", 1, 1024);
    int *col = (int *) R_alloc((size_t) (nc > 0 ? nc : 1), sizeof(int));
    for (R_xlen_t c = 0; c < nc; c++) col[c] = col1[c] - 1;
    int *person = NULL;
    if (person1) {
        person = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
        for (size_t i = 0; i < n; i++) person[i] = person1[i] - 1;
    }
    SEXP out = PROTECT(Rf_allocVector(INTSXP, ns - 1));
    int status = predicate_count(x, n, type, order, person, n_person, start, col, op, val,
                                 (size_t) (ns - 1), cap, threads, INTEGER(out),
                                 pending_interrupt);
    if (status == -1) r_nomem_error("count", n);
    if (status == -2) r_interrupted();
    UNPROTECT(1);
    return out;
}
