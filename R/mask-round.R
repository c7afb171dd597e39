# Rounding and truncation (methods vignette section 1.2): each value to a number of
# significant digits or decimal places.

#' @rdname mask_scheme
#' @export
mask_round <- function(digits = NULL, type = c("significant", "decimal"), unit = NULL,
                       base = NULL, rounding = c("controlled", "random")) {
  type <- check_choice(type, c("significant", "decimal"), arg = "type")
  rounding <- check_choice(rounding, c("controlled", "random"), arg = "rounding")
  if (!is.null(base)) {
    base <- check_number(base, "base", lower = 0, lower_open = TRUE)
    if (!is.null(digits) || !is.null(unit))
      abort_value("base", "given without `digits` and `unit` (rounding to multiples of a base)")
    return(new_mask_scheme("round", method = "round", degree = base, base = base,
                           rounding = rounding, random = rounding == "random",
                           label = sprintf("%s rounding to base %s", rounding, format_num(base))))
  }
  if (!missing(rounding) && !identical(rounding, "controlled"))
    abort_value("rounding", "given only with `base`")
  if (!is.null(unit)) {
    unit <- check_choice(unit, date_units, arg = "unit")
    if (!is.null(digits)) abort_value("digits", "NULL when `unit` is given (dates round to a unit)")
    return(new_mask_scheme("round", method = "round", degree = match(unit, date_units),
                           unit = unit, round_type = type,
                           label = sprintf("round %s", unit)))
  }
  if (is.null(digits)) abort_value("digits", "a whole number (or `unit` for dates, `base` for a base)")
  digits <- check_number(digits, "digits", integer = TRUE,
                         lower = if (type == "significant") 1 else -Inf)
  new_mask_scheme("round", method = "round", degree = digits,
                  digits = digits, round_type = type,
                  label = sprintf("round %d%s", digits, if (type == "decimal") "d" else ""))
}

#' @export
mask_validate.mask_round <- function(scheme, ...) {
  if (!is.null(scheme$base)) return(mask_round(base = scheme$base, rounding = scheme$rounding))
  mask_round(scheme$digits, scheme$round_type, scheme$unit)
}

#' @export
mask_values.mask_round <- function(scheme, x, data, ...) {
  if (!is.null(scheme$base)) {
    refuse_date_columns(x, data, "round")
    return(round_to_base(x, scheme$base, scheme$rounding))
  }
  if (!is.null(scheme$unit)) return(date_unit_values(x, data, scheme$unit, date_round, "round"))
  refuse_date_columns(x, data, "round")
  if (scheme$round_type == "significant") signif(x, scheme$digits) else round(x, scheme$digits)
}

# Rounding and truncation take Date and POSIXct columns with a `unit`.
#' @export
mask_traits.mask_round <- function(scheme, ...) list(dates = TRUE)

#' @export
mask_traits.mask_truncate <- function(scheme, ...) list(dates = TRUE)

# Date columns (days or seconds in x) to the first day of a unit (truncate)
# or the nearer one (round); every column must be a date.
date_unit_values <- function(x, data, unit, fun, verb) {
  for (j in seq_len(ncol(x))) {
    v <- colnames(x)[[j]]
    original <- if (!is.matrix(data) && !is.null(v)) data[[v]]
    if (!inherits(original, c("Date", "POSIXct")))
      abort_type("vars", sprintf("Date or POSIXct columns to %s to a %s; '%s' is not a date (use `digits` for numbers)",
                                 verb, unit, if (is.null(v)) j else v))
    x[, j] <- as.double(fun(date_restore(x[, j], original), unit))
  }
  x
}

# Digits make no sense on a date (days since 1970): say to give a unit.
refuse_date_columns <- function(x, data, verb) {
  if (is.matrix(data) || is.null(colnames(x))) return(invisible())
  dated <- colnames(x)[vapply(colnames(x), function(v) inherits(data[[v]], c("Date", "POSIXct")), logical(1))]
  if (length(dated))
    abort_value("scheme", sprintf("a scheme with a `unit` (\"week\", \"month\", \"quarter\", \"year\") to %s the date column(s) %s",
                                  verb, paste0("'", dated, "'", collapse = ", ")))
  invisible()
}

#' @export
format.mask_round <- function(x, ...) {
  revalidate_scheme(x, "x")
  if (!is.null(x$base)) return(sprintf("%s rounding to multiples of %s", x$rounding, format_num(x$base)))
  if (!is.null(x$unit)) return(sprintf("rounding dates to %s", unit_phrase(x$unit)))
  if (x$round_type == "significant")
    sprintf("rounding to %d significant digit%s", x$digits, if (x$digits == 1) "" else "s")
  else if (x$digits < 0) sprintf("rounding to the nearest %s", power_of_ten(-x$digits))
  else sprintf("rounding to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s")
}

#' @export
scheme_label.mask_round <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  if (!is.null(scheme$base)) return(sprintf("%s base %s", scheme$rounding, format_num(scheme$base)))
  if (!is.null(scheme$unit)) return(sprintf("round to %s", scheme$unit))
  if (scheme$round_type == "significant") sprintf("round %d sig", scheme$digits)
  else if (scheme$digits < 0) sprintf("round to %s", power_of_ten(-scheme$digits))
  else sprintf("round %d dec", scheme$digits)
}

#' @export
mask_generator.mask_round <- function(scheme, ...) {
  if (!is.null(scheme$base)) return(sprintf("%s rounding (base)", scheme$rounding))
  if (!is.null(scheme$unit)) return("rounding (dates)")
  if (identical(scheme$round_type, "decimal")) "rounding (decimal places)"
  else "rounding (significant digits)"
}

#' @export
mask_strength.mask_round <- function(scheme, ...) {
  if (!is.null(scheme$base)) return(scheme$base)
  if (!is.null(scheme$unit)) return(unit_days(scheme$unit))
  -scheme$digits
}

unit_phrase <- function(unit) switch(unit, week = "an ISO week", month = "a month",
                                     quarter = "a quarter", year = "a year")

# Typical length of a unit in days (its strength in a sweep).
unit_days <- function(unit) c(week = 7, month = 30.4375, quarter = 91.3125, year = 365.25)[[unit]]

#' @rdname mask_scheme
#' @export
mask_truncate <- function(digits = 0, unit = NULL) {
  if (!is.null(unit)) {
    unit <- check_choice(unit, date_units, arg = "unit")
    if (!missing(digits) && !is.null(digits))
      abort_value("digits", "left out when `unit` is given (dates truncate to a unit)")
    return(new_mask_scheme("truncate", method = "truncate", degree = match(unit, date_units),
                           unit = unit, label = sprintf("truncate %s", unit)))
  }
  digits <- check_number(digits, "digits", integer = TRUE)
  new_mask_scheme("truncate", method = "truncate", degree = digits, digits = digits,
                  label = sprintf("truncate %d", digits))
}

#' @export
mask_validate.mask_truncate <- function(scheme, ...) {
  if (!is.null(scheme$unit)) return(mask_truncate(unit = scheme$unit))
  mask_truncate(scheme$digits)
}

#' @export
mask_values.mask_truncate <- function(scheme, x, data, ...) {
  if (!is.null(scheme$unit)) return(date_unit_values(x, data, scheme$unit, date_floor, "truncate"))
  refuse_date_columns(x, data, "truncate")
  truncate_values(x, scheme$digits)
}

#' @export
format.mask_truncate <- function(x, ...) {
  revalidate_scheme(x, "x")
  if (!is.null(x$unit))
    return(sprintf("truncating dates to %s", unit_phrase(x$unit)))
  if (x$digits < 0) sprintf("truncation to a multiple of %s", power_of_ten(-x$digits))
  else sprintf("truncation to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s")
}

#' @export
scheme_label.mask_truncate <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  if (!is.null(scheme$unit)) return(sprintf("trunc to %s", scheme$unit))
  if (scheme$digits < 0) sprintf("trunc to %s", power_of_ten(-scheme$digits))
  else sprintf("trunc %d dec", scheme$digits)
}

#' @export
mask_generator.mask_truncate <- function(scheme, ...) {
  if (!is.null(scheme$unit)) "truncation (dates)" else "truncation"
}

#' @export
mask_strength.mask_truncate <- function(scheme, ...) {
  if (!is.null(scheme$unit)) return(unit_days(scheme$unit))
  -scheme$digits
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

# Values to multiples of `base`: to the nearer one ("controlled": for single
# values there are no margins to control, so this is conventional rounding,
# halves up), or up with probability (x - floor) / base ("random": unbiased).
round_to_base <- function(x, base, rounding) {
  low <- floor(x / base) * base
  frac <- (x - low) / base
  up <- if (rounding == "random") stats::runif(length(x)) < frac else frac >= 0.5
  out <- low + base * up
  out[is.na(x)] <- NA
  out
}
