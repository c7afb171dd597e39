#ifndef EPIMASK_R_UTIL_H
#define EPIMASK_R_UTIL_H

#include <Rinternals.h>

/* The R-to-C contract: every .Call entry receives named lists whose fields
 * are read by name with these helpers. Each checks the field's presence,
 * type, length and (for doubles) finiteness, and answers with an R error
 * "epimask-field: <field>: <what was expected>" that the R side turns into a
 * classed epimask_error naming the field (see R/utils-call.R). Every entry
 * takes one such list, called `spec`; every R call goes through call_c(). */

SEXP r_field(SEXP list, const char *name);
/* A double vector of length len (len < 0: any length >= 0); finite when
 * finite != 0. */
const double *r_field_double(SEXP list, const char *name, R_xlen_t len, int finite);
/* An integer vector of length len (len < 0: any length), no NA. */
const int *r_field_int(SEXP list, const char *name, R_xlen_t len);
/* A single integer within [lo, hi]. */
int r_field_int1(SEXP list, const char *name, int lo, int hi);
/* A single finite double within [lo, hi]. */
double r_field_double1(SEXP list, const char *name, double lo, double hi);
/* Length of a field (after checking it exists). */
R_xlen_t r_field_length(SEXP list, const char *name);
/* The dimensions of a matrix field (an error when it is not a matrix). */
void r_field_dims(SEXP list, const char *name, size_t *nrow, int *ncol);
/* An integer matrix of codes: its data and dimensions. NA is accepted (a code
 * like any other), so that no pass over the data is spent on it. */
const int *r_field_int_matrix(SEXP list, const char *name, size_t *nrow, int *ncol);

void r_field_error(const char *name, const char *expected) __attribute__((noreturn));
/* Scratch memory the C core could not allocate for n records of a task
 * ("count", "index", ...): an R error "epimask-memory: not enough memory to
 * <what> <n> records", classed epimask_error_memory by call_c(). */
void r_nomem_error(const char *what, size_t n) __attribute__((noreturn));
/* A C loop stopped because its interrupt poll (R_ToplevelExec around
 * R_CheckUserInterrupt, which consumes the interrupt) saw one: an R error
 * "epimask-interrupt: ..." that call_c() turns back into the user interrupt
 * it was. These three are the only errors the glue raises. */
void r_interrupted(void) __attribute__((noreturn));

/* Results go back the same way, as named lists built field by field:
 *   const char *names[] = { "coefficients", "deviance", "" };
 *   SEXP out = PROTECT(r_named_list(names));
 *   double *beta = REAL(r_list_set(out, "coefficients", allocVector(REALSXP, p)));
 *   r_list_set(out, "deviance", ScalarReal(dev));
 *   UNPROTECT(1);
 * r_named_list() returns a list of NULLs with those names ("" ends them, as
 * for mkNamed), unprotected. r_list_set() stores value under name and
 * returns it; it allocates nothing, so a freshly allocated value needs no
 * PROTECT of its own once stored in the protected list. A name the list
 * does not have is an internal error. */
SEXP r_named_list(const char **names);
SEXP r_list_set(SEXP list, const char *name, SEXP value);

#endif
