# Rounding and truncation (METHODS 1.2): each value to a number of
# significant digits or decimal places.

#' @rdname mask_scheme
#' @export
mask_round <- function(digits, type = c("significant", "decimal")) {
  type <- check_choice(type, c("significant", "decimal"), arg = "type")
  digits <- check_number(digits, "digits", integer = TRUE,
                         lower = if (type == "significant") 1 else -Inf)
  new_mask_scheme("round", method = "round", degree = digits,
                  digits = digits, round_type = type,
                  label = sprintf("round %d%s", digits, if (type == "decimal") "d" else ""))
}

#' @export
mask_validate.mask_round <- function(scheme, ...) mask_round(scheme$digits, scheme$round_type)

#' @export
mask_values.mask_round <- function(scheme, x, data, ...) {
  if (scheme$round_type == "significant") signif(x, scheme$digits) else round(x, scheme$digits)
}

#' @export
format.mask_round <- function(x, ...) {
  revalidate_scheme(x, "x")
  if (x$round_type == "significant")
    sprintf("rounding to %d significant digit%s", x$digits, if (x$digits == 1) "" else "s")
  else if (x$digits < 0) sprintf("rounding to the nearest %s", power_of_ten(-x$digits))
  else sprintf("rounding to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s")
}

#' @export
scheme_label.mask_round <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  if (scheme$round_type == "significant") sprintf("round %d sig", scheme$digits)
  else if (scheme$digits < 0) sprintf("round to %s", power_of_ten(-scheme$digits))
  else sprintf("round %d dec", scheme$digits)
}

#' @export
mask_generator.mask_round <- function(scheme, ...) {
  if (identical(scheme$round_type, "decimal")) "rounding (decimal places)"
  else "rounding (significant digits)"
}

#' @export
mask_strength.mask_round <- function(scheme, ...) -scheme$digits

#' @rdname mask_scheme
#' @export
mask_truncate <- function(digits = 0) {
  digits <- check_number(digits, "digits", integer = TRUE)
  new_mask_scheme("truncate", method = "truncate", degree = digits, digits = digits,
                  label = sprintf("truncate %d", digits))
}

#' @export
mask_validate.mask_truncate <- function(scheme, ...) mask_truncate(scheme$digits)

#' @export
mask_values.mask_truncate <- function(scheme, x, data, ...) truncate_values(x, scheme$digits)

#' @export
format.mask_truncate <- function(x, ...) {
  revalidate_scheme(x, "x")
  if (x$digits < 0) sprintf("truncation to a multiple of %s", power_of_ten(-x$digits))
  else sprintf("truncation to %d decimal place%s", x$digits, if (x$digits == 1) "" else "s")
}

#' @export
scheme_label.mask_truncate <- function(scheme, short = TRUE, ...) {
  if (!isTRUE(short)) return(format(scheme))
  if (scheme$digits < 0) sprintf("trunc to %s", power_of_ten(-scheme$digits))
  else sprintf("trunc %d dec", scheme$digits)
}

#' @export
mask_generator.mask_truncate <- function(scheme, ...) "truncation"

#' @export
mask_strength.mask_truncate <- function(scheme, ...) -scheme$digits

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
