# General matrix masking A Z B + C (methods vignette section 1).

#' General matrix masking A Z B + C
#'
#' The masked variables Z (an n x p matrix) become `A Z B + C`. `A` may be a
#' fixed n x n matrix, or a function of `lambda` returning one, which lets
#' later code vary the degree (e.g. differentiate `A` numerically at 0).
#'
#' @param A An n x n numeric matrix, or a function with an argument `lambda`
#'   returning one.
#' @param B A p x p numeric matrix (p masked variables), or `NULL` for the
#'   identity.
#' @param C An n x p numeric matrix, a vector of length p (added to each row),
#'   a single number, or `NULL` for 0.
#' @param lambda The degree: the value at which a function `A` is evaluated
#'   (required then). For a fixed `A` it is only recorded (default 0).
#' @return A `mask_scheme` with `method = "matrix"`.
#' @family masking schemes
#' @examples
#' A <- matrix(1 / 3, 3, 3)
#' apply_mask(data.frame(x = 1:3, y = c(2, 4, 9)), mask_matrix(A))
#' shrink_all <- function(lambda) (diag(3) + lambda * matrix(1, 3, 3)) / (1 + 3 * lambda)
#' apply_mask(matrix(c(1, 2, 3), 3), mask_matrix(shrink_all, lambda = 0.5))
#' @export
mask_matrix <- function(A, B = NULL, C = NULL, lambda = NULL) {
  if (is.function(A)) {
    if (!"lambda" %in% names(formals(A)))
      abort_type("A", "a matrix or a function with an argument `lambda`")
    lambda <- check_number(lambda, "lambda", lower = 0)
  } else {
    A <- check_numeric_matrix(A, "A")
    if (nrow(A) != ncol(A)) abort_length("A", "be square")
    lambda <- check_number(if (is.null(lambda)) 0 else lambda, "lambda", lower = 0)
  }
  if (!is.null(B)) B <- check_numeric_matrix(B, "B")
  if (!is.null(B) && nrow(B) != ncol(B)) abort_length("B", "be square")
  if (!is.null(C)) {
    if (is.null(dim(C))) C <- check_numeric_vector(C, "C") else C <- check_numeric_matrix(C, "C")
  }
  scheme <- new_mask_scheme("matrix", method = "matrix", degree = lambda,
                            label = sprintf("matrix %s", format(lambda, digits = 4)),
                            A = A, B = B, C = C, lambda = lambda)
  if (!is.function(A)) return(scheme)
  matrix_scheme_A(scheme)  # fail now, not at apply time, if A(lambda) is not a matrix
  scheme
}

matrix_scheme_A <- function(scheme) {
  A <- scheme$A
  if (is.function(A)) {
    A <- A(lambda = scheme$lambda)
    A <- check_numeric_matrix(A, "A(lambda)")
    if (nrow(A) != ncol(A)) abort_length("A(lambda)", "be square")
  }
  A
}

# ---- the methods of the matrix type ------------------------------------------------

#' @export
mask_validate.mask_matrix <- function(scheme, ...) {
  mask_matrix(scheme$A, scheme$B, scheme$C, scheme$lambda)
}

#' @export
mask_values.mask_matrix <- function(scheme, x, data, ...) mask_matrix_values(scheme, x)

#' @export
format.mask_matrix <- function(x, ...) {
  revalidate_scheme(x, "x")
  sprintf("matrix mask A Z B + C%s",
          if (is.function(x$A)) sprintf(", lambda = %s", format(x$lambda, digits = 4)) else "")
}

#' @export
scheme_label.mask_matrix <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  if (is.function(scheme$A)) sprintf("matrix %s", format(scheme$lambda, digits = 4)) else "matrix"
}

#' @export
mask_generator.mask_matrix <- function(scheme, ...) "matrix mask"

#' @export
mask_strength.mask_matrix <- function(scheme, ...) {
  if (is.numeric(scheme$lambda) && length(scheme$lambda) == 1L) scheme$lambda else NA_real_
}

# Every record should change (an identity row of A is reported); no ties for
# exact matching to find; linear (A Z) without B and C; its matrices are
# withheld from reports; a function A(lambda) has lambda as its bandwidth.
#' @export
mask_traits.mask_matrix <- function(scheme, ...) {
  list(promises_change = TRUE, exact_match_blind = TRUE,
       linear = is.null(scheme$B) && is.null(scheme$C), withheld = TRUE, bandwidth = TRUE)
}

#' @export
mask_report_label.mask_matrix <- function(scheme, ...) "matrix mask"

#' @export
mask_linear.mask_matrix <- function(scheme, x, ...) {
  A <- matrix_scheme_A(scheme)
  if (nrow(A) != nrow(x))
    abort_length("x", sprintf("have one row per row of the scheme's `A` (%d), not %d",
                              nrow(A), nrow(x)))
  A %*% x
}

# A'(0) Z for mask_matrix(function(lambda) ...): Richardson-extrapolated
# forward differences, since A(lambda) need not exist for lambda < 0.
#' @export
mask_derivative.mask_matrix <- function(scheme, x, ...) {
  if (!is.function(scheme$A))
    abort_type("scheme", "a mask_matrix() whose `A` is a function of lambda (a fixed A has no derivative)")
  richardson_derivative(function(h) scheme_linear_apply(scheme_at(scheme, h), x),
                        central = FALSE, step = 1e-3)
}

#' @export
scheme_at_degree.mask_matrix <- function(scheme, lambda) {
  if (!is.function(scheme$A)) NextMethod()
  else mask_matrix(scheme$A, scheme$B, scheme$C, lambda = lambda)
}

#' @export
mask_resample.mask_matrix <- function(scheme, rows, ...) {
  abort_value("bootstrap", "0 for matrix masks (their A is tied to the original records)")
}

#' @export
dense_mask_matrix.mask_matrix <- function(scheme, n_max) {
  scheme <- revalidate_scheme(scheme)
  n_max <- check_count(n_max, "n_max")
  A <- matrix_scheme_A(scheme)
  if (nrow(A) > n_max)
    abort_value("n_max", sprintf("at least n = %d to build the dense matrix", nrow(A)))
  A
}

#' @export
scheme_dense_matrix.mask_matrix <- function(scheme, n) matrix_scheme_A(scheme)

#' @export
unmasked_cause.mask_matrix <- function(scheme, Z, rows) {
  "their rows of the matrix `A` are rows of the identity"
}

mask_matrix_values <- function(scheme, Z) {
  A <- matrix_scheme_A(scheme)
  if (nrow(A) != nrow(Z))
    abort_length("data", sprintf("have as many rows as the scheme's `A` (%d), not %d",
                                 nrow(A), nrow(Z)))
  if (anyNA(Z)) abort_value("data", "free of NA in the masked columns for a matrix mask")
  out <- A %*% Z
  B <- scheme$B
  if (!is.null(B)) {
    if (nrow(B) != ncol(Z))
      abort_length("vars", sprintf("have as many columns as `B` has rows (%d), not %d",
                                   nrow(B), ncol(Z)))
    out <- out %*% B
  }
  C <- scheme$C
  if (!is.null(C)) {
    if (is.matrix(C)) {
      if (!identical(dim(C), dim(out)))
        abort_length("C", sprintf("be a %d x %d matrix", nrow(out), ncol(out)))
      out <- out + C
    } else if (length(C) == 1L || length(C) == ncol(out)) {
      out <- sweep(out, 2L, rep_len(C, ncol(out)), `+`)
    } else {
      abort_length("C", sprintf("have length 1 or %d (one value per masked column)", ncol(out)))
    }
  }
  unname(out)
}
