# The mask_scheme value (what to do, not yet done), apply_mask() (doing it),
# and printing and lists of schemes.

# ---- applying ---------------------------------------------------------------

#' Apply a masking scheme to data
#'
#' @param data A data frame (tibbles and data.tables are accepted) or a numeric
#'   matrix, one row per record, or a count table from [table_counts()]
#'   (see [mask_count_table()] for what the schemes do to a table) (for kernel schemes in the order of the
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
#' @return An object of the same class, dimensions, row order, column names
#'   and row names as `data`, with the masked columns replaced by double
#'   columns (Date and POSIXct columns keep their class and time zone; other
#'   attributes of a masked column, such as labels, are dropped). Everything
#'   else is the caller's, on every path (per person `by`, dates, categorical
#'   types, every mask type): the row names (of a matrix too), the other
#'   columns and the data's own attributes, so that the masked records stay
#'   matchable to the caller's by name. The input is never modified (a
#'   data.table is copied, not changed by reference). The result carries no
#'   original values of the masked columns and no masking parameters: no
#'   attribute of the scheme is attached. Row names are not made
#'   anonymous here: if yours are identifiers, drop them before a release
#'   (`rownames(x) <- NULL`; the workbench writes its files without row
#'   names).
#'
#'   A scheme is re-validated before use with its constructor's checks, so a
#'   scheme edited after construction fails with a classed error naming the
#'   field.
#'
#'   A synthesis ([mask_synth()]) is the exception: its release is an
#'   `epimask_synthetic` object, the `m` synthetic copies of the records
#'   with the rules to combine analyses of them (`vars` are then the columns
#'   synthesised, default all of them).
#' @family masking schemes
#' @examples
#' d <- data.frame(id = letters[1:4], x = c(1.234, 5.678, 9.1011, 12.5))
#' apply_mask(d, mask_round(2))
#' # noise far below the precision of values near 1e17 changes nothing:
#' big <- data.frame(x = c(1e17, 2e17, 3e17))
#' try(apply_mask(big, mask_noise(0.5), unmasked = "error"))
#' @export
apply_mask <- function(data, scheme, vars = NULL, unmasked = c("warn", "error", "suppress")) {
  # a count table is masked cell by cell, margins kept consistent (table-mask.R)
  if (inherits(data, "epimask_table")) return(mask_count_table(data, scheme, vars))
  mask_data(data, scheme, vars, unmasked)$data
}

# apply_mask() with the count of unmasked records, for profiles and reports.
mask_data <- function(data, scheme, vars = NULL, unmasked = c("warn", "error", "suppress")) {
  scheme <- revalidate_scheme(scheme)
  unmasked <- check_choice(unmasked, c("warn", "error", "suppress"), arg = "unmasked")
  data <- check_data(data, "data")
  # a type whose release is not the data with masked columns (synthetic
  # copies) makes the whole release itself
  release <- mask_release(scheme, data, vars)
  if (!is.null(release)) return(list(data = release, unmasked = NA_integer_))
  traits <- scheme_traits(scheme)
  # categorical schemes (PRAM, and no masking of categories) promise no change
  # of any one record: nothing to count
  if (traits$reference && on_categories(data, vars))
    return(list(data = apply_categorical_mask(data, scheme, unique(check_columns(vars, data, "vars"))),
                unmasked = NA_integer_))
  vars <- mask_vars(data, vars, traits$categorical, traits$dates)
  if (traits$categorical) return(list(data = apply_categorical_mask(data, scheme, vars),
                                      unmasked = NA_integer_))
  warn_implausible_dates(data, vars)
  Z <- extract_vars(data, vars)
  Zm <- check_mask_values(mask_values(scheme, Z, data), Z)
  check_no_overflow(Z, Zm)
  left <- handle_unmasked(scheme, Z, Zm, unmasked)
  list(data = replace_vars(data, vars, unname(left$values)), unmasked = left$count)
}

# The whole release of a type that does not mask columns value by value
# (mask_synth(): m synthetic copies of the records), or NULL for the types
# that do (the default), whose release apply_mask() builds from
# mask_values(). A method in the type's file.
mask_release <- function(scheme, data, vars, ...) UseMethod("mask_release")

#' @export
mask_release.default <- function(scheme, data, vars, ...) NULL

# What a type's mask_values() method returns must fit where it goes.
check_mask_values <- function(Zm, Z) {
  if (!is.matrix(Zm) || !(is.numeric(Zm) || is.logical(Zm)) || !identical(dim(Zm), dim(Z)))
    abort_type("scheme", sprintf("a scheme whose mask_values() returns a numeric %d x %d matrix",
                                 nrow(Z), ncol(Z)))
  storage.mode(Zm) <- "double"
  Zm
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
is_categorical_scheme <- function(scheme) scheme_traits(scheme)$categorical

# Schemes whose release is a random draw (replicates differ).
is_random_scheme <- function(scheme) scheme_traits(scheme)$random

# mask_none() on factor or character columns (the reference row of a PRAM
# profile) keeps them as they are.
on_categories <- function(data, vars) {
  is.data.frame(data) && is.character(vars) && all(vars %in% names(data)) &&
    any(vapply(vars, function(v) is.factor(data[[v]]) || is.character(data[[v]]), logical(1)))
}

# A categorical scheme (or no masking) on the factor and character columns
# `vars`, everything else unchanged: mask_values() receives the columns as a
# named list and returns the released columns.
apply_categorical_mask <- function(data, scheme, vars) {
  for (v in vars) check_utf8(data[[v]], sprintf("data$%s", v))
  cols <- mask_values(scheme, stats::setNames(lapply(vars, function(v) data[[v]]), vars), data)
  if (!is.list(cols) || length(cols) != length(vars))
    abort_type("scheme", "a categorical scheme whose mask_values() returns a list of the masked columns")
  if (inherits(data, "data.table") && requireNamespace("data.table", quietly = TRUE)) {
    out <- data.table::copy(data)
    for (j in seq_along(vars)) data.table::set(out, j = vars[[j]], value = cols[[j]])
    return(out)
  }
  out <- data
  for (j in seq_along(vars)) out[[vars[[j]]]] <- cols[[j]]
  out
}

mask_vars <- function(data, vars, categorical = FALSE, dates = FALSE) {
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
  # Date and POSIXct columns, for the types that mask dates (mask_traits()$dates)
  is_date <- vapply(vars, function(v) inherits(data[[v]], c("Date", "POSIXct")), logical(1))
  if (any(is_date) && !dates)
    abort_type("vars", sprintf(
      "numeric columns for this scheme; %s %s a date (dates are masked by mask_noise(), mask_round(unit = ), mask_truncate(unit = ) and mask_topcode())",
      paste0("'", vars[is_date], "'", collapse = ", "), if (sum(is_date) == 1L) "is" else "are"))
  lt <- vapply(vars, function(v) inherits(data[[v]], "POSIXlt"), logical(1))
  if (any(lt))
    abort_type("vars", sprintf("numeric, Date or POSIXct columns; %s %s POSIXlt (convert with as.POSIXct())",
                               paste0("'", vars[lt], "'", collapse = ", "),
                               if (sum(lt) == 1L) "is" else "are"))
  bad <- !vapply(vars, function(v) is.numeric(data[[v]]), logical(1)) & !is_date
  if (any(bad))
    abort_type("vars", sprintf("numeric columns; %s %s not",
                               paste0("'", vars[bad], "'", collapse = ", "),
                               if (sum(bad) == 1L) "is" else "are"))
  vars
}

# Dates before 1900 or after today are masked like the others, with a
# warning naming the columns (placeholders, typing errors, scheduled dates).
warn_implausible_dates <- function(data, vars) {
  if (is.matrix(data) || !is.character(vars)) return(invisible())
  dated <- vars[vapply(vars, function(v) inherits(data[[v]], c("Date", "POSIXct")), logical(1))]
  if (!length(dated)) return(invisible())
  odd <- implausible_dates(lapply(stats::setNames(dated, dated), function(v) data[[v]]))
  if (any(odd > 0))
    epimask_warn(sprintf(paste0(
      "%s before 1900 or after today (placeholders or typing errors?); ",
      "they are masked like the others."),
      paste(sprintf("%d date%s in '%s'", as.integer(odd[odd > 0]),
                    ifelse(odd[odd > 0] == 1, "", "s"), names(odd)[odd > 0]), collapse = ", ")),
      "epimask_warning_dates")
  invisible()
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
    out <- matrix(as.double(data), nrow(data), ncol(data), dimnames = dimnames(data))
    out[, vars] <- Zm
    return(out)
  }
  if (inherits(data, "data.table") && requireNamespace("data.table", quietly = TRUE)) {
    out <- data.table::copy(data)
    for (j in seq_along(vars))
      data.table::set(out, j = vars[[j]], value = released_column(Zm[, j], data[[vars[[j]]]]))
    return(out)
  }
  # only the masked columns are replaced: the caller's row names, the other
  # columns and the data's own attributes stay as they were
  out <- data
  for (j in seq_along(vars)) out[[vars[[j]]]] <- released_column(Zm[, j], data[[vars[[j]]]])
  out
}

# A masked column as released: a date column keeps its class (and time
# zone), every other column is double.
released_column <- function(z, original) {
  if (inherits(original, c("Date", "POSIXct"))) date_restore(z, original) else z
}

# ---- printing and lists -----------------------------------------------------

# round(x, -2) rounds to hundreds: a custodian reads "the nearest 100", not
# "-2 decimal places".
power_of_ten <- function(k) formatC(10^k, format = "d", big.mark = ",")

# format(): the readable English label. Each type has its format method
# (format.mask_<type>, in the type's file); this is the default.
#' @export
format.mask_scheme <- function(x, ...) {
  revalidate_scheme(x, "x")
  x$label
}

#' @export
print.mask_scheme <- function(x, ...) {
  cat("<mask_scheme> ", format(x), "\n", sep = "")
  details <- mask_details(x)
  if (length(details)) cat(details, sep = "\n")
  invisible(x)
}

# Lines print() adds under the one-line format (PRAM: the transition rule;
# top coding: the rule in words), a method in the type's file.
mask_details <- function(x) UseMethod("mask_details")

#' @export
mask_details.default <- function(x) character()

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
format.mask_list <- function(x, ...) {
  c(sprintf("<mask_list> %d scheme%s", length(x), if (length(x) == 1L) "" else "s"),
    vapply(x, function(s) paste0("  ", paste(format(s), collapse = " ")), character(1),
           USE.NAMES = FALSE))
}

#' @export
print.mask_list <- function(x, ...) print_formatted(x, ...)
