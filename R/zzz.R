#' @useDynLib epimask, .registration = TRUE
#' @importFrom stats binomial gaussian poisson Gamma quasibinomial quasipoisson
#' @keywords internal
"_PACKAGE"
