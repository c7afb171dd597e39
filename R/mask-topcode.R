# Top and bottom coding (methods vignette section 15): values beyond a bound become the bound
# or the mean of the values beyond it.

#' Top and bottom coding
#'
#' Values above `upper` become `upper` (`value = "bound"`) or the mean of
#' the values above `upper` in that variable (`value = "mean"`); values below
#' `lower` likewise. Values within the bounds and missing values are
#' unchanged; the result is numeric. HIPAA's Safe Harbor rule codes ages over
#' 89 as one category: `mask_topcode(upper = 90)` releases every age of 90 or
#' more as 90.
#'
#' The scheme states the rule only (it is applied to data later); how many
#' values a rule codes in a given data set is what [summary.mask_scheme()]
#' reports, e.g. `summary(mask_topcode(90), data, "age")`.
#'
#' @param upper Upper bound, or `NULL` for no top coding.
#' @param lower Lower bound, or `NULL` for no bottom coding. At least one of
#'   the two is needed; when both are given, `lower < upper`. For `Date` and
#'   `POSIXct` columns the bounds are dates (`lower = as.Date("1935-01-01")`
#'   releases every birth before 1935 as 1935-01-01; a `Date` bound on a
#'   `POSIXct` column is midnight in the column's time zone) and the column
#'   keeps its class; with `value = "mean"` a `Date` column gets the mean
#'   rounded to a whole day. Numbers code numeric columns (ages: `upper =
#'   90`), dates code date columns; the other pairing is a classed error.
#' @param value `"bound"` or `"mean"`.
#' @return A `mask_scheme` with `method` `"topcode"`, `degree` the upper
#'   bound (the lower one for bottom coding alone), `strength` increasing as
#'   the bounds move inward (`-upper`, `lower`, or `lower - upper`),
#'   `generator` `"top coding"`, `"bottom coding"` or `"top and bottom
#'   coding"` and label `"topcode <upper>"` / `"botcode <lower>"`.
#' @family masking schemes
#' @examples
#' d <- data.frame(age = c(34, 67, 88, 90, 93, 101), income = c(0, 5, 12, 40, 9, 250))
#' apply_mask(d, mask_topcode(upper = 90), "age")
#' births <- data.frame(birth = as.Date(c("1931-05-02", "1948-11-30", "1934-12-31")))
#' apply_mask(births, mask_topcode(lower = as.Date("1935-01-01")), "birth")
#' apply_mask(d, mask_topcode(upper = 50, value = "mean"), "income")
#' summary(mask_topcode(upper = 90), d, "age")
#' @export
mask_topcode <- function(upper = NULL, lower = NULL, value = c("bound", "mean")) {
  value <- check_choice(value, c("bound", "mean"), arg = "value")
  upper <- check_topcode_bound(upper, "upper")
  lower <- check_topcode_bound(lower, "lower")
  if (is.null(upper) && is.null(lower))
    abort_value("upper", "a number (or `lower` a number): at least one bound is needed")
  if (!is.null(upper) && !is.null(lower) &&
      !identical(is_date_column(upper), is_date_column(lower)))
    abort_type("lower", "of the kind of `upper` (both numbers or both dates)")
  if (!is.null(upper) && !is.null(lower) && as.double(lower) >= as.double(upper))
    abort_value("lower", sprintf("below `upper` (%s)", bound_text(upper)))
  label <- paste(c(if (!is.null(upper)) sprintf("topcode %s", bound_text(upper)),
                   if (!is.null(lower)) sprintf("botcode %s", bound_text(lower))),
                 collapse = " ")
  scheme <- new_mask_scheme("topcode", method = "topcode",
                            degree = as.double(if (is.null(upper)) lower else upper),
                            label = label, upper = upper, lower = lower, value = value)
  scheme$generator <- mask_generator(scheme)
  scheme$strength <- mask_strength(scheme)
  scheme
}

#' @export
mask_validate.mask_topcode <- function(scheme, ...) {
  mask_topcode(scheme$upper, scheme$lower, scheme$value)
}

#' @export
mask_values.mask_topcode <- function(scheme, x, data, ...) {
  for (j in seq_len(ncol(x))) {
    original <- if (!is.matrix(data) && !is.null(colnames(x))) data[[colnames(x)[[j]]]]
    x[, j] <- topcode_values(x[, j], topcode_on_scale(scheme, original, colnames(x)[[j]]))
  }
  x
}

# Dates are coded with date bounds (births before 1935 released as
# 1935-01-01), numbers with numbers.
#' @export
mask_traits.mask_topcode <- function(scheme, ...) list(dates = TRUE)

# A bound: NULL, a number, or one Date / POSIXct.
check_topcode_bound <- function(b, arg) {
  if (is.null(b)) return(b)
  if (inherits(b, c("Date", "POSIXct"))) {
    if (length(b) != 1L || is.na(b) || !is.finite(as.double(b)))
      abort_value(arg, "a single date (not NA)")
    return(b)
  }
  check_number(b, arg, allow_null = TRUE)
}

bound_text <- function(v) {
  if (inherits(v, "POSIXct")) return(format(v, usetz = TRUE))
  if (inherits(v, "Date")) return(format(v))
  format(v, digits = 6)
}

# The scheme with its bounds on the scale of the column being coded: days
# for a Date column, seconds for a POSIXct one (a Date bound is midnight in
# the column's zone), the numbers themselves for a numeric column.
topcode_on_scale <- function(scheme, original, name) {
  dated_column <- inherits(original, c("Date", "POSIXct"))
  bound <- if (!is.null(scheme$upper)) scheme$upper else scheme$lower
  dated_bound <- is_date_column(bound)
  if (dated_column != dated_bound)
    abort_type("scheme", sprintf("a top-coding scheme with %s bounds for the %s column '%s'",
                                 if (dated_column) "date" else "numeric",
                                 if (dated_column) "date" else "numeric", name %||% "?"))
  to_scale <- function(b) {
    if (is.null(b) || !dated_column) return(if (is.null(b)) NULL else as.double(b))
    if (inherits(original, "POSIXct") && inherits(b, "Date"))
      return(as.double(date_midnight(b, date_tz(original))))
    if (inherits(original, "Date") && inherits(b, "POSIXct"))
      return(as.double(as.Date(as.POSIXlt(b, tz = date_tz(b)))))
    as.double(b)
  }
  scheme$upper <- to_scale(scheme$upper)
  scheme$lower <- to_scale(scheme$lower)
  scheme
}

#' @export
format.mask_topcode <- function(x, ...) {
  revalidate_scheme(x, "x")
  format_topcode(x)
}

#' @export
mask_details.mask_topcode <- function(x) topcode_details(x)

#' @export
scheme_label.mask_topcode <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  num <- bound_text
  paste0(paste(c(if (!is.null(scheme$upper)) sprintf("top %s", num(scheme$upper)),
                 if (!is.null(scheme$lower)) sprintf("bottom %s", num(scheme$lower))),
               collapse = ", "),
         if (scheme$value == "mean") " (mean)" else "")
}

#' @export
mask_generator.mask_topcode <- function(scheme, ...) {
  if (is.null(scheme$lower)) "top coding" else if (is.null(scheme$upper)) "bottom coding"
  else "top and bottom coding"
}

# increasing as the bounds move inward
#' @export
mask_strength.mask_topcode <- function(scheme, ...) {
  upper <- if (!is.null(scheme$upper)) as.double(scheme$upper)
  lower <- if (!is.null(scheme$lower)) as.double(scheme$lower)
  if (is.null(lower)) -upper else if (is.null(upper)) lower
  else lower - upper
}

# summary(): how many values of each variable are coded
#' @export
summary_columns.mask_topcode <- function(scheme, before, present) {
  scale <- topcode_on_scale(scheme, before, "")
  z <- as.double(before)
  list(above = if (is.null(scale$upper)) 0L else sum(present & z > scale$upper),
       below = if (is.null(scale$lower)) 0L else sum(present & z < scale$lower))
}

topcode_values <- function(z, scheme) {
  code <- function(z, beyond, bound) {
    if (!any(beyond)) return(z)
    z[beyond] <- if (scheme$value == "bound") bound else mean(z[beyond])
    z
  }
  none <- logical(length(z))
  above <- if (is.null(scheme$upper)) none else !is.na(z) & z > scheme$upper
  below <- if (is.null(scheme$lower)) none else !is.na(z) & z < scheme$lower
  z <- code(z, above, scheme$upper)
  code(z, below, scheme$lower)
}

# Short enough for a profile's table: "top coding at 90",
# "top coding above 60 to the mean", "top coding at 90, bottom coding at 0".
format_topcode <- function(x) {
  num <- bound_text
  bound <- x$value == "bound"
  parts <- c(if (!is.null(x$upper)) sprintf("top coding %s %s", if (bound) "at" else "above", num(x$upper)),
             if (!is.null(x$lower)) sprintf("bottom coding %s %s", if (bound) "at" else "below", num(x$lower)))
  paste0(paste(parts, collapse = ", "),
         if (!bound) sprintf(" to the mean%s", if (length(parts) > 1L) "s" else ""))
}

# The rule in words, under the one-line format in print().
topcode_details <- function(x) {
  num <- bound_text
  rule <- function(side, bound) {
    if (x$value == "bound") sprintf("values %s %s become %s", side, num(bound), num(bound))
    else sprintf("values %s %s become the mean of the values %s %s (per variable)",
                 side, num(bound), side, num(bound))
  }
  c(paste0("  ", c(if (!is.null(x$upper)) rule("above", x$upper),
                   if (!is.null(x$lower)) rule("below", x$lower))),
    "  summary(scheme, data) counts the coded values of a data set")
}
