# The mask_scheme value (what to do, not yet done), apply_mask() (doing it),
# and printing and lists of schemes.

new_mask_scheme <- function(type, method, degree, label, ...) {
  structure(list(type = type, method = method, degree = as.double(degree),
                 label = label, ...), class = "mask_scheme")
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
#' @param data A data frame (tibbles and data.tables are accepted) or a numeric
#'   matrix, one row per record (for kernel schemes in the order of the
#'   scheme's `coords`). Data come first so that pipes read naturally:
#'   `data |> apply_mask(mask_round(2), "dose")`.
#' @param scheme A `mask_scheme` (see [mask_scheme], [mask_kernel()],
#'   [mask_matrix()]).
#' @param vars Columns to mask (names); default all numeric columns (for a
#'   matrix, all columns).
#' @param unmasked What to do with records that a scheme promising change
#'   (a kernel or matrix mask at a positive degree, noise) leaves exactly as
#'   they were: isolated records under a kernel, noise below the precision of
#'   large values, identity rows of a matrix. They are the most identifiable
#'   records. `"warn"` (default) releases them with a classed warning
#'   (`epimask_warning_unmasked`) that says how many, in which columns and
#'   why; `"error"` refuses the release (`epimask_error_unmasked`);
#'   `"suppress"` sets their masked values to `NA`.
#' @return An object of the same class, dimensions, row order and column names
#'   as `data`, with the masked columns replaced by double columns (their
#'   attributes, such as labels, are dropped). The input is never modified
#'   (a data.table is copied, not changed by reference). The result carries
#'   no original values and no masking parameters: no attribute of the scheme
#'   is attached, and explicit row names (which may be identifiers) are
#'   replaced by the default 1..n; a matrix loses its row names.
#'
#'   A scheme is re-validated before use with its constructor's checks, so a
#'   scheme edited after construction fails with a classed error naming the
#'   field.
#' @family masking schemes
#' @examples
#' d <- data.frame(id = letters[1:4], x = c(1.234, 5.678, 9.1011, 12.5))
#' apply_mask(d, mask_round(2))
#' # noise far below the precision of values near 1e17 changes nothing:
#' big <- data.frame(x = c(1e17, 2e17, 3e17))
#' try(apply_mask(big, mask_noise(0.5), unmasked = "error"))
#' @export
apply_mask <- function(data, scheme, vars = NULL, unmasked = c("warn", "error", "suppress")) {
  mask_data(data, scheme, vars, unmasked)$data
}

# apply_mask() with the count of unmasked records, for profiles and reports.
mask_data <- function(data, scheme, vars = NULL, unmasked = c("warn", "error", "suppress")) {
  scheme <- revalidate_scheme(scheme)
  unmasked <- check_choice(unmasked, c("warn", "error", "suppress"), arg = "unmasked")
  data <- check_data(data, "data")
  # categorical schemes (PRAM, and no masking of categories) promise no change
  # of any one record: nothing to count
  if (identity_on_categories(scheme, data, vars))
    return(list(data = apply_categorical_mask(data, scheme, unique(check_columns(vars, data, "vars"))),
                unmasked = NA_integer_))
  categorical <- is_categorical_scheme(scheme)
  vars <- mask_vars(data, vars, categorical)
  if (categorical) return(list(data = apply_categorical_mask(data, scheme, vars),
                               unmasked = NA_integer_))
  Z <- extract_vars(data, vars)
  Zm <- mask_values(scheme, Z)
  check_no_overflow(Z, Zm)
  left <- handle_unmasked(scheme, Z, Zm, unmasked)
  list(data = replace_vars(data, vars, unname(left$values)), unmasked = left$count)
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

# Schemes that act on categories (factor or character columns), not numbers.
is_categorical_scheme <- function(scheme) identical(scheme$type, "pram")

# Schemes whose release is a random draw (replicates differ).
is_random_scheme <- function(scheme) {
  isTRUE(scheme$random) || identical(scheme$type, "noise")
}

# mask_none() on factor or character columns (the reference row of a PRAM
# profile) keeps them as they are.
identity_on_categories <- function(scheme, data, vars) {
  identical(scheme$type, "none") && is.data.frame(data) && is.character(vars) &&
    all(vars %in% names(data)) &&
    any(vapply(vars, function(v) is.factor(data[[v]]) || is.character(data[[v]]), logical(1)))
}

mask_vars <- function(data, vars, categorical = FALSE) {
  if (categorical) return(mask_categorical_vars(data, vars))
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

mask_categorical_vars <- function(data, vars) {
  if (is.matrix(data))
    abort_type("data", "a data frame with factor or character columns for PRAM")
  is_category <- function(v) is.factor(data[[v]]) || is.character(data[[v]])
  if (is.null(vars)) {
    vars <- names(data)[vapply(names(data), is_category, logical(1))]
    if (!length(vars)) abort_empty("vars (the factor and character columns of `data`)")
    return(vars)
  }
  vars <- unique(check_columns(vars, data, "vars"))
  bad <- !vapply(vars, is_category, logical(1))
  if (any(bad))
    abort_type("vars", sprintf("factor or character columns for PRAM; %s %s not (use factor() on coded values)",
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
    microagg = mask_microagg_values(scheme, Z),
    swap = mask_swap_values(scheme, Z),
    topcode = mask_topcode_values(scheme, Z),
    matrix = mask_matrix_values(scheme, Z),
    kernel = mask_kernel_values(scheme, Z),
    abort_type("scheme", "a mask_scheme of a known type"))
}

# ---- printing and lists -----------------------------------------------------

# round(x, -2) rounds to hundreds: a custodian reads "the nearest 100", not
# "-2 decimal places".
power_of_ten <- function(k) formatC(10^k, format = "d", big.mark = ",")

#' @export
format.mask_scheme <- function(x, ...) {
  revalidate_scheme(x, "x")
  num <- function(v) format(v, digits = 4)
  switch(x$type,
    none = "no masking",
    round = if (x$round_type == "significant")
      sprintf("rounding to %d significant digit%s", x$digits, if (x$digits == 1) "" else "s")
    else if (x$digits < 0) sprintf("rounding to the nearest %s", power_of_ten(-x$digits))
    else sprintf("rounding to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s"),
    truncate = if (x$digits < 0)
      sprintf("truncation to a multiple of %s", power_of_ten(-x$digits))
    else sprintf("truncation to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s"),
    group = sprintf("grouping into %d intervals (%s)", length(x$breaks) - 1L,
                    if (x$value == "mean") "interval means" else "midpoints"),
    noise = paste0(sprintf("%s noise, amount = %s", x$dist, num(x$amount)),
                   if (!is.null(x$lower)) sprintf(", lower bound %s", num(x$lower)) else ""),
    microagg = sprintf("%s microaggregation, k = %d",
                       if (x$method == "mdav") "MDAV" else "univariate", x$k),
    pram = paste0(if (x$invariant) "invariant PRAM" else "PRAM",
                  if (is.null(x$matrix)) sprintf(", pd = %s", num(x$pd)) else ", given transition matrix"),
    swap = sprintf("rank swapping within %s%% of n", num(x$p)),
    topcode = format_topcode(x),
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
  if (identical(x$type, "pram")) cat(pram_details(x), sep = "\n")
  if (identical(x$type, "topcode")) cat(topcode_details(x), sep = "\n")
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
    if (inherits(s, "mask_scheme")) {
      revalidate_scheme(s, "...")
      return(list(s))
    }
    if (inherits(s, "mask_list")) return(unclass(s))
    abort_type("...", "mask_scheme or mask_list objects")
  })
  new_mask_list(unlist(parts, recursive = FALSE))
}

#' @rdname c.mask_scheme
#' @export
c.mask_list <- c.mask_scheme

#' @export
`[.mask_list` <- function(x, i) {
  if (missing(i)) return(x)
  picked <- tryCatch(unclass(x)[i], error = function(e)
    abort_type("i", sprintf("positions, names or a logical vector (%s)", conditionMessage(e))))
  if (any(vapply(picked, is.null, logical(1))))
    abort_value("i", sprintf("positions or names of the %d schemes in the list, without NA", length(x)))
  new_mask_list(picked)
}

#' @export
print.mask_list <- function(x, ...) {
  cat(sprintf("<mask_list> %d scheme%s\n", length(x), if (length(x) == 1L) "" else "s"))
  for (s in x) cat("  ", format(s), "\n", sep = "")
  invisible(x)
}
