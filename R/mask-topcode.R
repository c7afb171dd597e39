# Top and bottom coding (METHODS 15): values beyond a bound become the bound
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
#'   the two is needed; when both are given, `lower < upper`.
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
#' apply_mask(d, mask_topcode(upper = 50, value = "mean"), "income")
#' summary(mask_topcode(upper = 90), d, "age")
#' @export
mask_topcode <- function(upper = NULL, lower = NULL, value = c("bound", "mean")) {
  value <- check_choice(value, c("bound", "mean"), arg = "value")
  upper <- check_number(upper, "upper", allow_null = TRUE)
  lower <- check_number(lower, "lower", allow_null = TRUE)
  if (is.null(upper) && is.null(lower))
    abort_value("upper", "a number (or `lower` a number): at least one bound is needed")
  if (!is.null(upper) && !is.null(lower) && lower >= upper)
    abort_value("lower", sprintf("below `upper` (%s)", format(upper)))
  label <- paste(c(if (!is.null(upper)) sprintf("topcode %s", format(upper, digits = 6)),
                   if (!is.null(lower)) sprintf("botcode %s", format(lower, digits = 6))),
                 collapse = " ")
  scheme <- new_mask_scheme("topcode", method = "topcode",
                            degree = if (is.null(upper)) lower else upper,
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
mask_values.mask_topcode <- function(scheme, x, data, ...) mask_topcode_values(scheme, x)

#' @export
format.mask_topcode <- function(x, ...) {
  revalidate_scheme(x, "x")
  format_topcode(x)
}

#' @export
print.mask_topcode <- function(x, ...) {
  NextMethod()
  cat(topcode_details(x), sep = "\n")
  invisible(x)
}

#' @export
scheme_label.mask_topcode <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  num <- function(v) format(v, digits = 6)
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
  if (is.null(scheme$lower)) -scheme$upper else if (is.null(scheme$upper)) scheme$lower
  else scheme$lower - scheme$upper
}

# summary(): how many values of each variable are coded
#' @export
summary_columns.mask_topcode <- function(scheme, before, present) {
  list(above = if (is.null(scheme$upper)) 0L else sum(present & before > scheme$upper),
       below = if (is.null(scheme$lower)) 0L else sum(present & before < scheme$lower))
}

mask_topcode_values <- function(scheme, Z) {
  for (j in seq_len(ncol(Z))) Z[, j] <- topcode_values(Z[, j], scheme)
  Z
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
  num <- function(v) format(v, digits = 6)
  bound <- x$value == "bound"
  parts <- c(if (!is.null(x$upper)) sprintf("top coding %s %s", if (bound) "at" else "above", num(x$upper)),
             if (!is.null(x$lower)) sprintf("bottom coding %s %s", if (bound) "at" else "below", num(x$lower)))
  paste0(paste(parts, collapse = ", "),
         if (!bound) sprintf(" to the mean%s", if (length(parts) > 1L) "s" else ""))
}

# The rule in words, under the one-line format in print().
topcode_details <- function(x) {
  num <- function(v) format(v, digits = 6)
  rule <- function(side, bound) {
    if (x$value == "bound") sprintf("values %s %s become %s", side, num(bound), num(bound))
    else sprintf("values %s %s become the mean of the values %s %s (per variable)",
                 side, num(bound), side, num(bound))
  }
  c(paste0("  ", c(if (!is.null(x$upper)) rule("above", x$upper),
                   if (!is.null(x$lower)) rule("below", x$lower))),
    "  summary(scheme, data) counts the coded values of a data set")
}
