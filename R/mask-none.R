# No masking: the identity, the reference row of a profile.

#' @rdname mask_scheme
#' @export
mask_none <- function() {
  new_mask_scheme("none", method = "none", degree = 0, label = "none")
}

#' @export
mask_validate.mask_none <- function(scheme, ...) mask_none()

#' @export
mask_values.mask_none <- function(scheme, x, data, ...) x

#' @export
format.mask_none <- function(x, ...) {
  revalidate_scheme(x, "x")
  "no masking"
}

#' @export
scheme_label.mask_none <- function(scheme, short = TRUE, ...) {
  if (isTRUE(short)) "none" else format(scheme)
}

#' @export
mask_generator.mask_none <- function(scheme, ...) "no masking"

#' @export
mask_strength.mask_none <- function(scheme, ...) 0

# the identity on any column, numeric, date or categorical
#' @export
mask_traits.mask_none <- function(scheme, ...) {
  list(reference = TRUE, identity = TRUE, linear = TRUE, dates = TRUE)
}

#' @export
mask_linear.mask_none <- function(scheme, x, ...) x

#' @export
mask_derivative.mask_none <- function(scheme, x, ...) matrix(0, nrow(x), ncol(x))
