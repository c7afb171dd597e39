#' @useDynLib epimask, .registration = TRUE
#' @importFrom stats binomial gaussian poisson Gamma quasibinomial quasipoisson
#' @keywords internal
"_PACKAGE"

# The C core and this R code share integer codes (families, links, fit
# status); a build whose two halves disagree must not load.
.onLoad <- function(libname, pkgname) {
  check_glm_codes()
}
