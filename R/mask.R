# Masking schemes (values describing what to do) and apply_mask() (doing it).
# Classical masks of METHODS 1.2, general matrix masking, printing and lists.

#' Masking schemes
#'
#' A masking scheme is a value of class `mask_scheme`: what to do and with
#' which degree, not yet applied; [apply_mask()] applies it. The classical
#' masks of Cologne et al. (2012) act on each value separately:
#' \describe{
#'   \item{`mask_round()`}{`signif(x, digits)` (`type = "significant"`,
#'     relative precision) or `round(x, digits)` (`type = "decimal"`,
#'     absolute precision; `digits = -1` rounds to tens).}
#'   \item{`mask_truncate()`}{`trunc(x * 10^digits) / 10^digits`, biased
#'     toward zero.}
#'   \item{`mask_group()`}{intervals \eqn{[b_j, b_{j+1})}, the last one
#'     closed; each value is replaced by the mean of the `reference` values in
#'     its interval (`value = "mean"`; the reference defaults to the masked
#'     column itself) or by the interval midpoint (`value = "midpoint"`).
#'     A value outside `[min(breaks), max(breaks)]` is an error (class
#'     `epimask_error_value`): widen the breaks (e.g. with `-Inf`/`Inf` ends
#'     and `value = "mean"`). An interval that holds data but no reference
#'     value gets its midpoint, with a warning.}
#'   \item{`mask_noise()`}{`x + U(-amount, amount)` (`dist = "uniform"`) or
#'     `x + N(0, amount^2)` (`dist = "normal"`), then values below `lower`
#'     are set to `lower`. Uses R's random number generator: `set.seed()`
#'     reproduces it. Noise is drawn column by column, one value per row.}
#'   \item{`mask_none()`}{the identity, the reference row of a profile.}
#' }
#' Missing values stay missing under the classical masks.
#'
#' Every scheme has the fields `method` (short name: `"none"`, `"round"`,
#' `"truncate"`, `"group"`, `"noise"`, `"matrix"` or the kernel name),
#' `degree` (a number: `digits` for rounding and truncation, `amount` for
#' noise, the mean interval width for grouping (infinite ends excluded),
#' `lambda` for kernels and matrix schemes, 0 for `mask_none()`) and `label`
#' (a short text such as `"round 2"` or `"ring 0.05"`), which profiles and
#' plots use.
#'
#' @param digits Number of digits (a whole number; significant digits must be >= 1).
#' @param type `"significant"` or `"decimal"`.
#' @param breaks Increasing interval limits (at least two, distinct).
#' @param value `"mean"` or `"midpoint"`.
#' @param reference Values whose interval means replace the data: a numeric
#'   vector used for every masked column, or a named list (or data frame) with
#'   one numeric vector per masked column. `NULL`: the data themselves.
#' @param amount Noise scale > 0: half-width of the uniform or SD of the normal.
#' @param dist `"uniform"` or `"normal"`.
#' @param lower Lower bound after adding noise, or `NULL` for none.
#' @return A `mask_scheme`.
#' @references Cologne, J., Grant, E. J., Nakashima, E., Chen, Y., Funamoto,
#'   S. and Katayama, H. (2012). Protecting privacy of shared epidemiologic
#'   data without compromising analysis potential. Journal of Environmental
#'   and Public Health 2012, 193680.
#' @seealso [mask_kernel()], [mask_matrix()], [apply_mask()]
#' @examples
#' d <- data.frame(dose = c(0.0123, 1.456, 0.789), age = c(31, 45, 52))
#' apply_mask(mask_round(2), d, "dose")
#' apply_mask(mask_truncate(1), d, "dose")
#' apply_mask(mask_group(c(0, 0.5, 1, 2)), d, "dose")
#' apply_mask(mask_group(c(0, 0.5, 1, 2), "midpoint"), d, "dose")
#' set.seed(1)
#' apply_mask(mask_noise(0.1, lower = 0), d, "dose")
#' mask_none()
#' @name mask_scheme
NULL

new_mask_scheme <- function(type, method, degree, label, ...) {
  structure(list(type = type, method = method, degree = as.double(degree),
                 label = label, ...), class = "mask_scheme")
}

#' @rdname mask_scheme
#' @export
mask_none <- function() {
  new_mask_scheme("none", "none", 0, "none")
}

#' @rdname mask_scheme
#' @export
mask_round <- function(digits, type = c("significant", "decimal")) {
  type <- check_choice(type, c("significant", "decimal"), arg = "type")
  digits <- check_number(digits, "digits", integer = TRUE,
                         lower = if (type == "significant") 1 else -Inf)
  new_mask_scheme("round", "round", digits,
                  sprintf("round %d%s", digits, if (type == "decimal") "d" else ""),
                  digits = digits, round_type = type)
}

#' @rdname mask_scheme
#' @export
mask_truncate <- function(digits = 0) {
  digits <- check_number(digits, "digits", integer = TRUE)
  new_mask_scheme("truncate", "truncate", digits, sprintf("truncate %d", digits),
                  digits = digits)
}

#' @rdname mask_scheme
#' @export
mask_group <- function(breaks, value = c("mean", "midpoint"), reference = NULL) {
  value <- check_choice(value, c("mean", "midpoint"), arg = "value")
  if (!is.numeric(breaks) || length(breaks) < 2L || anyNA(breaks))
    abort_type("breaks", "a numeric vector of at least two interval limits")
  if (any(diff(breaks) <= 0)) abort_value("breaks", "strictly increasing")
  breaks <- as.double(breaks)
  if (value == "midpoint" && any(is.infinite(breaks)))
    abort_value("breaks", "finite for `value = \"midpoint\"`")
  if (!is.null(reference)) reference <- check_group_reference(reference)
  widths <- diff(breaks)
  degree <- mean(widths[is.finite(widths)])
  if (is.nan(degree)) degree <- Inf
  new_mask_scheme("group", "group", degree,
                  sprintf("group %d", length(breaks) - 1L),
                  breaks = breaks, value = value, reference = reference)
}

check_group_reference <- function(reference) {
  if (is.list(reference)) {
    if (is.null(names(reference)) || any(!nzchar(names(reference))))
      abort_type("reference", "a numeric vector or a named list of numeric vectors")
    for (nm in names(reference))
      reference[[nm]] <- check_numeric_vector(reference[[nm]], "reference", finite = FALSE)
    return(as.list(reference))
  }
  check_numeric_vector(reference, "reference", finite = FALSE)
}

#' @rdname mask_scheme
#' @export
mask_noise <- function(amount, dist = c("uniform", "normal"), lower = NULL) {
  dist <- check_choice(dist, c("uniform", "normal"), arg = "dist")
  amount <- check_number(amount, "amount", lower = 0, lower_open = TRUE)
  lower <- check_number(lower, "lower", allow_null = TRUE)
  new_mask_scheme("noise", "noise", amount,
                  sprintf("noise %s", format(amount, digits = 4)),
                  amount = amount, dist = dist, lower = lower)
}

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
#' @examples
#' A <- matrix(1 / 3, 3, 3)
#' apply_mask(mask_matrix(A), data.frame(x = 1:3, y = c(2, 4, 9)))
#' shrink_all <- function(lambda) (diag(3) + lambda * matrix(1, 3, 3)) / (1 + 3 * lambda)
#' apply_mask(mask_matrix(shrink_all, lambda = 0.5), matrix(c(1, 2, 3), 3))
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
  scheme <- new_mask_scheme("matrix", "matrix", lambda,
                            sprintf("matrix %s", format(lambda, digits = 4)),
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

# The same scheme at another degree (kernel and function-matrix schemes);
# used to differentiate with respect to lambda. Internal.
scheme_at <- function(scheme, lambda) {
  lambda <- check_number(lambda, "lambda", lower = 0)
  if (scheme$type == "kernel") {
    return(mask_kernel(scheme$kernel, lambda, scheme$coords, scheme$source,
                       scheme$direction, scheme$groups, scheme$rho,
                       scheme$bandwidth, scheme$cutoff))
  }
  if (scheme$type == "matrix" && is.function(scheme$A))
    return(mask_matrix(scheme$A, scheme$B, scheme$C, lambda = lambda))
  abort_type("scheme", "a kernel scheme or a matrix scheme with a function A")
}

# ---- applying ---------------------------------------------------------------

#' Apply a masking scheme to data
#'
#' @param scheme A `mask_scheme` (see [mask_scheme], [mask_kernel()],
#'   [mask_matrix()]).
#' @param data A data frame (tibbles and data.tables are accepted) or a numeric
#'   matrix, one row per record (for kernel schemes in the order of the
#'   scheme's `coords`).
#' @param vars Columns to mask (names); default all numeric columns (for a
#'   matrix, all columns).
#' @return An object of the same class, dimensions, row order and column names
#'   as `data`, with the masked columns replaced by double columns (their
#'   attributes, such as labels, are dropped). The input is never modified
#'   (a data.table is copied, not changed by reference). The result carries
#'   no original values and no masking parameters: no attribute of the scheme
#'   is attached, and explicit row names (which may be identifiers) are
#'   replaced by the default 1..n; a matrix loses its row names.
#' @examples
#' d <- data.frame(id = letters[1:4], x = c(1.234, 5.678, 9.1011, 12.5))
#' apply_mask(mask_round(2), d)
#' @export
apply_mask <- function(scheme, data, vars = NULL) {
  if (!inherits(scheme, "mask_scheme")) abort_type("scheme", "a mask_scheme")
  data <- check_data(data, "data")
  vars <- mask_vars(data, vars)
  Z <- extract_vars(data, vars)
  Zm <- mask_values(scheme, Z)
  check_no_overflow(Z, Zm)
  replace_vars(data, vars, unname(Zm))
}

# trunc(Z * 10^digits) / 10^digits without overflow: a value whose scaling
# overflows (|Z| > 1e16 or 10^digits = Inf) has no digits to drop; with
# 10^digits = 0 every finite value truncates to 0.
truncate_values <- function(Z, digits) {
  scale <- 10^digits
  if (scale == 0) return(Z * 0)
  out <- trunc(Z * scale) / scale
  unchanged <- is.finite(Z) & !is.finite(out)
  out[unchanged] <- Z[unchanged]
  out
}

# Finite data must stay finite: values near the largest double can overflow
# (a weighted sum, added noise, rounding up, scaling by 10^digits) and a
# release of Inf/NaN would be silently useless.
check_no_overflow <- function(Z, Zm) {
  if (any(is.finite(Z) & !is.finite(Zm)))
    abort_value("data", paste0("values small enough to mask: some masked values overflow ",
                               "to Inf or NaN (rescale the data)"))
  invisible()
}

mask_vars <- function(data, vars) {
  if (is.matrix(data)) {
    if (!is.numeric(data) && !is.logical(data)) abort_type("data", "a numeric matrix or a data frame")
    if (is.null(vars)) return(seq_len(ncol(data)))
    if (is.numeric(vars) && all(vars %in% seq_len(ncol(data))) && !anyDuplicated(vars))
      return(as.integer(vars))
    if (is.null(colnames(data)))
      abort_type("vars", "column numbers for a matrix without column names")
    vars <- check_columns(vars, data, "vars")
    return(match(unique(vars), colnames(data)))
  }
  if (is.null(vars)) {
    num <- vapply(data, is.numeric, logical(1))
    if (!any(num)) abort_empty("vars (the numeric columns of `data`)")
    return(names(data)[num])
  }
  vars <- unique(check_columns(vars, data, "vars"))
  bad <- !vapply(vars, function(v) is.numeric(data[[v]]), logical(1))
  if (any(bad))
    abort_type("vars", sprintf("numeric columns; %s %s not",
                               paste0("'", vars[bad], "'", collapse = ", "),
                               if (sum(bad) == 1L) "is" else "are"))
  vars
}

extract_vars <- function(data, vars) {
  if (is.matrix(data)) {
    Z <- data[, vars, drop = FALSE]
  } else {
    Z <- vapply(vars, function(v) as.double(data[[v]]), numeric(nrow(data)))
    Z <- matrix(Z, nrow = nrow(data))
  }
  storage.mode(Z) <- "double"
  # column names only (group means look up a per-column reference by name)
  dimnames(Z) <- list(NULL, if (is.character(vars)) vars else colnames(data)[vars])
  Z
}

replace_vars <- function(data, vars, Zm) {
  if (is.matrix(data)) {
    out <- matrix(as.double(data), nrow(data), ncol(data))
    if (!is.null(colnames(data))) colnames(out) <- colnames(data)
    out[, vars] <- Zm
    return(out)
  }
  if (inherits(data, "data.table") && requireNamespace("data.table", quietly = TRUE)) {
    out <- data.table::copy(data)
    for (j in seq_along(vars)) data.table::set(out, j = vars[[j]], value = Zm[, j])
    return(out)
  }
  out <- data
  for (j in seq_along(vars)) out[[vars[[j]]]] <- Zm[, j]
  if (.row_names_info(out) > 0L) attr(out, "row.names") <- .set_row_names(nrow(out))
  out
}

# The masked n x p matrix for a scheme; Z is a plain double matrix.
mask_values <- function(scheme, Z) {
  switch(scheme$type,
    none = Z,
    round = if (scheme$round_type == "significant") signif(Z, scheme$digits)
            else round(Z, scheme$digits),
    truncate = truncate_values(Z, scheme$digits),
    group = mask_group_values(scheme, Z),
    noise = mask_noise_values(scheme, Z),
    matrix = mask_matrix_values(scheme, Z),
    kernel = mask_kernel_values(scheme, Z),
    abort_type("scheme", "a mask_scheme of a known type"))
}

mask_group_values <- function(scheme, Z) {
  breaks <- scheme$breaks
  nb <- length(breaks)
  mids <- (breaks[-1L] + breaks[-nb]) / 2
  for (j in seq_len(ncol(Z))) {
    z <- Z[, j]
    bin <- findInterval(z, breaks, rightmost.closed = TRUE)
    outside <- !is.na(z) & (bin == 0L | bin == nb)
    if (any(outside))
      abort_value("data", sprintf("within the `breaks` of the grouping scheme [%s, %s]; %d value(s) are outside",
                                  format(breaks[1L]), format(breaks[nb]), sum(outside)))
    level <- mids
    if (scheme$value == "mean") level <- group_means(scheme, z, colnames(Z)[j], breaks)
    Z[, j] <- level[bin]
  }
  Z
}

group_means <- function(scheme, z, var, breaks) {
  nb <- length(breaks)
  ref <- scheme$reference
  if (is.list(ref)) {
    if (is.null(var) || !var %in% names(ref))
      abort_name("reference", if (is.null(var)) "(unnamed column)" else var,
                 "the masked columns")
    ref <- ref[[var]]
  }
  if (is.null(ref)) ref <- z
  ref <- ref[!is.na(ref)]
  rbin <- findInterval(ref, breaks, rightmost.closed = TRUE)
  keep <- rbin >= 1L & rbin < nb
  sums <- vapply(seq_len(nb - 1L), function(b) sum(ref[keep][rbin[keep] == b]), numeric(1))
  counts <- tabulate(rbin[keep], nb - 1L)
  means <- sums / counts
  used <- unique(findInterval(z[!is.na(z)], breaks, rightmost.closed = TRUE))
  empty <- intersect(used, which(counts == 0L))
  if (length(empty)) {
    epimask_warn(sprintf("%d interval(s) hold data but no reference values; their midpoints are used.",
                         length(empty)), "epimask_warning_reference")
    means[empty] <- (breaks[empty] + breaks[empty + 1L]) / 2
  }
  means
}

mask_noise_values <- function(scheme, Z) {
  n <- nrow(Z)
  for (j in seq_len(ncol(Z))) {
    e <- if (scheme$dist == "uniform") stats::runif(n, -scheme$amount, scheme$amount)
         else stats::rnorm(n, 0, scheme$amount)
    z <- Z[, j] + e
    if (!is.null(scheme$lower)) z <- pmax(z, scheme$lower)
    Z[, j] <- z
  }
  Z
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

mask_kernel_values <- function(scheme, Z) {
  check_rows_match(Z, scheme, "data")
  if (anyNA(Z) || any(is.infinite(Z)))
    abort_value("data", "free of NA and Inf in the masked columns for a kernel mask")
  if (scheme$lambda == 0) return(Z)
  Zm <- kernel_call(scheme, Z, 0L)
  warn_if_nothing_masked(scheme, Z, Zm)
  Zm
}

# At lambda > 0 a record left exactly as it was received no weight from any
# record with another value (the weights fell below the cutoff): the release
# is the original data. Columns without variation cannot tell, so they are
# left out; the warning needs at least one varying column.
warn_if_nothing_masked <- function(scheme, Z, Zm) {
  varying <- apply(Z, 2L, function(z) any(z != z[1L]))
  if (!any(varying) || any(Zm[, varying] != Z[, varying])) return(invisible())
  epimask_warn(sprintf(paste0(
    "lambda = %s is so small that no record receives weight from another record: ",
    "the masked columns equal the original data."), format(scheme$lambda, digits = 4)),
    "epimask_warning_nomask")
}

# ---- printing and lists -----------------------------------------------------

#' @export
format.mask_scheme <- function(x, ...) {
  num <- function(v) format(v, digits = 4)
  switch(x$type,
    none = "no masking",
    round = if (x$round_type == "significant")
      sprintf("rounding to %d significant digit%s", x$digits, if (x$digits == 1) "" else "s")
    else sprintf("rounding to %d decimal place%s", x$digits, if (abs(x$digits) == 1) "" else "s"),
    truncate = sprintf("truncation to %d decimal place%s", x$digits,
                       if (abs(x$digits) == 1) "" else "s"),
    group = sprintf("grouping into %d intervals (%s)", length(x$breaks) - 1L,
                    if (x$value == "mean") "interval means" else "midpoints"),
    noise = paste0(sprintf("%s noise, amount = %s", x$dist, num(x$amount)),
                   if (!is.null(x$lower)) sprintf(", lower bound %s", num(x$lower)) else ""),
    matrix = sprintf("matrix mask A Z B + C%s",
                     if (is.function(x$A)) sprintf(", lambda = %s", num(x$lambda)) else ""),
    kernel = paste0(sprintf("%s kernel, lambda = %s", x$kernel, num(x$lambda)),
                    if (x$kernel == "shrink") sprintf(", bandwidth = %s", num(x$bandwidth)) else "",
                    if (x$kernel == "bvn") sprintf(", rho = %s", num(x$rho)) else "",
                    if (!is.null(x$groups)) sprintf(", %d groups", max(x$groups)) else ""),
    x$label)
}

#' @export
print.mask_scheme <- function(x, ...) {
  cat("<mask_scheme> ", format(x), "\n", sep = "")
  invisible(x)
}

new_mask_list <- function(schemes) {
  names(schemes) <- vapply(schemes, function(s) s$label, character(1))
  structure(schemes, class = "mask_list")
}

#' Combine masking schemes into a list
#'
#' `c()` on schemes (or lists of schemes from [mask_grid()]) gives a
#' `mask_list`, the list of schemes a profile sweeps over.
#'
#' @param ... `mask_scheme` or `mask_list` objects.
#' @return A `mask_list` (a list of `mask_scheme`, named by their labels).
#' @examples
#' c(mask_none(), mask_round(2), mask_round(1))
#' @export
c.mask_scheme <- function(...) {
  parts <- lapply(list(...), function(s) {
    if (inherits(s, "mask_scheme")) return(list(s))
    if (inherits(s, "mask_list")) return(unclass(s))
    abort_type("...", "mask_scheme or mask_list objects")
  })
  new_mask_list(unlist(parts, recursive = FALSE))
}

#' @rdname c.mask_scheme
#' @export
c.mask_list <- c.mask_scheme

#' @export
`[.mask_list` <- function(x, i) new_mask_list(unclass(x)[i])

#' @export
print.mask_list <- function(x, ...) {
  cat(sprintf("<mask_list> %d scheme%s\n", length(x), if (length(x) == 1L) "" else "s"))
  for (s in x) cat("  ", format(s), "\n", sep = "")
  invisible(x)
}
