# Large-sample bias of GLM coefficients estimated from kernel- or
# matrix-masked data (methods vignette section 4): the first-order term beta'(0) of Zhou et
# al.'s appendix, and the exact limit at the scheme's lambda, both without
# any simulation.

#' Large-sample bias of GLM estimates from masked data
#'
#' When the outcome and the covariates are masked by the same linear smoother
#' \eqn{A(\lambda)} (kernel masking, [mask_kernel()], or [mask_matrix()]), the
#' GLM estimate from the masked data converges to \eqn{\beta(\lambda)}, the
#' root of the expected masked score (methods vignette, section 4; Zhou, Dominici and
#' Louis 2010, appendix).
#'
#' `bias_asymptotic()` gives the exact large-sample bias
#' \eqn{\beta(\lambda) - \beta} at the scheme's \eqn{\lambda}:
#' \eqn{\beta(\lambda)} is the quasi-likelihood GLM fit of the response
#' \eqn{A \mu} on the design \eqn{A X}, \eqn{\mu = g^{-1}(X\beta)}.
#'
#' `bias_first_order()` gives the derivative \eqn{\beta'(0) =
#' -\psi_1^{-1}\psi_2} in closed form, so that bias \eqn{\approx \beta'(0)
#' \lambda} for small \eqn{\lambda}. \eqn{A'(0)} is taken analytically for the
#' built-in kernels (it vanishes for every kernel of the form
#' \eqn{\exp(-\delta/\lambda)}, so \eqn{\beta'(0) = 0} exactly; for `"shrink"`
#' \eqn{a'_{ik}(0) = K_{ik}}, \eqn{a'_{ii}(0) = -\sum_{l \ne i} K_{il}}) and
#' numerically (Richardson-extrapolated forward differences) for a
#' [mask_matrix()] whose `A` is a function of \eqn{\lambda}.
#'
#' For a function \eqn{f(\beta)} of the coefficients (argument `f`), the first
#' order bias is \eqn{\nabla f' \beta'(0)} and the exact one
#' \eqn{f(\beta(\lambda)) - f(\beta)}.
#'
#' @param x The design matrix (n x p, the rows in the order of the scheme's
#'   coordinates), with an intercept column when the model has one.
#' @param beta The true coefficients (length p).
#' @param family A family object, family function or name, as for [glm()].
#' @param scheme A linear mask scheme: [mask_kernel()], [mask_matrix()]
#'   (without `B` and `C`) or [mask_none()].
#' @param f Optional function of the coefficient vector whose bias is wanted.
#' @param grad Optional gradient of `f` (a function of the coefficients, or
#'   the gradient vector at `beta`); by default a Richardson-extrapolated
#'   central difference.
#' @param vars Columns of `x` that are masked (names or positions); by
#'   default all of them. The outcome is always masked.
#' @param masked Deprecated: the name of `vars` up to version 0.2.0 (see
#'   [epimask-naming]). It still works, with a warning of class
#'   `epimask_warning_deprecated`.
#' @return `bias_first_order()`: the named vector \eqn{\beta'(0)}, or the
#'   number \eqn{\nabla f' \beta'(0)} when `f` is given; its attribute
#'   `"bias"` is the first-order approximation at the scheme's \eqn{\lambda}.
#'   `bias_asymptotic()`: the named vector \eqn{\beta(\lambda) - \beta}, or
#'   \eqn{f(\beta(\lambda)) - f(\beta)}; its attribute `"beta_lambda"` holds
#'   \eqn{\beta(\lambda)}.
#' @references Zhou Y, Dominici F, Louis TA (2010). A smoothing approach for
#'   masking spatial data. \emph{Annals of Applied Statistics} 4(3),
#'   1451-1475. \doi{10.1214/09-AOAS325}
#' @family utility
#' @export
#' @examples
#' set.seed(1)
#' coords <- matrix(runif(400), ncol = 2)
#' x <- cbind("(Intercept)" = 1, x = exp(-2 * sqrt(rowSums(coords^2))))
#' beta <- c(1, 2)
#' shrink <- mask_kernel("shrink", lambda = 0.01, coords = coords, bandwidth = 0.1)
#' bias_first_order(x, beta, poisson(), shrink)
#' bias_asymptotic(x, beta, poisson(), shrink)
#' # exp-form kernels have no first-order bias
#' ring <- mask_kernel("ring", lambda = 0.05, coords = coords, source = c(0, 0))
#' bias_first_order(x, beta, poisson(), ring)
#' bias_asymptotic(x, beta, poisson(), ring)
bias_first_order <- function(x, beta, family, scheme, f = NULL, grad = NULL,
                             vars = NULL, masked = NULL) {
  setup <- bias_setup(x, beta, family, scheme, f, renamed_argument(vars, masked, "vars", "masked"))
  x <- setup$x
  beta <- setup$beta
  fam <- setup$family
  eta <- drop(x %*% beta)
  mu <- fam$linkinv(eta)
  mu_eta <- fam$mu.eta(eta)
  variance <- fam$variance(mu)
  # A'(0) applied to the outcome means and to the masked columns of X.
  d_all <- scheme_derivative_at_zero(scheme, cbind(mu, x[, setup$masked, drop = FALSE]))
  d_mu <- d_all[, 1L]
  d_eta <- drop(d_all[, -1L, drop = FALSE] %*% beta[setup$masked])
  # psi_2 = sum_i c_i x_i [(A'mu)_i - h'_i (A'eta)_i]  (rows of A'(0) sum to 0)
  psi_2 <- crossprod(x, (mu_eta / variance) * (d_mu - mu_eta * d_eta))
  info <- crossprod(x, (mu_eta^2 / variance) * x)   # -psi_1
  slope <- drop(solve_information(info, psi_2))
  names(slope) <- colnames(x)
  lambda <- scheme_degree(scheme)
  if (!is.null(f)) {
    g <- f_gradient(f, grad, beta)
    slope <- sum(g * slope)
  }
  structure(slope, bias = slope * lambda)
}

#' @rdname bias_first_order
#' @export
bias_asymptotic <- function(x, beta, family, scheme, f = NULL, grad = NULL,
                            vars = NULL, masked = NULL) {
  setup <- bias_setup(x, beta, family, scheme, f, renamed_argument(vars, masked, "vars", "masked"))
  x <- setup$x
  beta <- setup$beta
  fam <- setup$family
  mu <- fam$linkinv(drop(x %*% beta))
  smoothed <- scheme_linear_apply(scheme, cbind(mu, x[, setup$masked, drop = FALSE]))
  x_masked <- x
  x_masked[, setup$masked] <- smoothed[, -1L]
  # no masking (A = I): the limit is beta itself, not a refit of it
  identity_scheme <- scheme_traits(scheme)$identity
  beta_lambda <- if (identity_scheme) beta else
    masked_limit_fit(x_masked, smoothed[, 1L], fam, start = beta)
  names(beta_lambda) <- colnames(x)
  out <- beta_lambda - beta
  names(out) <- colnames(x)
  if (!is.null(f)) out <- check_f_value(f, beta_lambda) - check_f_value(f, beta)
  structure(out, beta_lambda = beta_lambda)
}

bias_setup <- function(x, beta, family, scheme, f, masked) {
  x <- check_numeric_matrix(x)
  if (is.null(colnames(x))) colnames(x) <- paste0("x", seq_len(ncol(x)))
  beta <- check_numeric_vector(beta, len = ncol(x))
  dim(beta) <- NULL  # a one-column matrix would not conform below
  family <- check_family(family)
  check_scheme(scheme)
  check_user_function(f, "f", 1L, "a function of the coefficient vector", allow_null = TRUE)
  if (!is.null(f)) check_f_value(f, beta)
  masked <- resolve_masked_columns(masked, x)
  if (!is.null(scheme$coords) && NROW(scheme$coords) != nrow(x))
    abort_length("x", sprintf("have one row per location of `scheme` (%d), not %d",
                              NROW(scheme$coords), nrow(x)))
  list(x = x, beta = beta, family = family, masked = masked)
}

# f must map the coefficients to one finite number; try it once at beta so a
# wrong f fails here, not deep in the difference quotients.
check_f_value <- function(f, beta) {
  value <- call_user(f, list(beta), "f", "f(beta)")
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value))
    abort_value("f", "a function returning one finite number")
  invisible(value)
}

resolve_masked_columns <- function(masked, x) {
  if (is.null(masked)) return(seq_len(ncol(x)))
  if (is.character(masked)) {
    missing <- setdiff(masked, colnames(x))
    if (length(missing)) abort_name("vars", missing, "`colnames(x)`")
    return(match(masked, colnames(x)))
  }
  if (!is.numeric(masked) || anyNA(masked) || any(masked < 1 | masked > ncol(x)) ||
      any(masked != round(masked)))
    abort_value("vars", sprintf("column names or positions between 1 and %d", ncol(x)))
  as.integer(masked)
}

# X'WX must be invertible for the slope to exist.
solve_information <- function(info, rhs) {
  out <- tryCatch(solve(info, rhs), error = function(e) NULL)
  if (is.null(out))
    epimask_abort("`x` gives a singular information matrix X'WX; the bias is not defined.",
                  "epimask_error_singular", arg = "x")
  out
}

# The exact limit beta(lambda): a quasi-likelihood fit to a non-integer
# response, solved tightly because callers difference it.
masked_limit_fit <- function(x, y, family, start) {
  fit <- suppressWarnings(irls_fit(x, y, family = family, start = start,
                                   control = list(epsilon = 1e-13, maxit = 100)))
  coefs <- fit$coefficients
  if (anyNA(coefs) || !(isTRUE(fit$converged) || at_score_root(fit, x, y, family)))
    epimask_abort("The fit of A mu on A X did not converge or is rank deficient.",
                  "epimask_error_singular", arg = "x")
  unname(coefs)
}

# When A mu is fitted almost exactly the deviance is near 0 and glm.fit's
# relative deviance test at epsilon = 1e-13 only sees rounding noise; the fit
# is then judged by its quasi-score X' [mu.eta / V(mu)] (y - mu) instead.
at_score_root <- function(fit, x, y, family) {
  eta <- fit$linear.predictors
  mu <- fit$fitted.values
  score <- crossprod(x, family$mu.eta(eta) / family$variance(mu) * (y - mu))
  scale <- crossprod(abs(x), family$mu.eta(eta) / family$variance(mu) * abs(y))
  all(abs(score) <= 1e-10 * (1 + scale))
}

f_gradient <- function(f, grad, beta) {
  if (is.function(grad)) {
    value <- call_user(grad, list(beta), "grad", "grad(beta)")
    return(check_numeric_vector(value, "grad", len = length(beta)))
  }
  if (!is.null(grad)) return(check_numeric_vector(grad, len = length(beta)))
  vapply(seq_along(beta), function(j) {
    e <- replace(numeric(length(beta)), j, 1)
    richardson_derivative(function(h) call_user(f, list(beta + h * e), "f", "f(beta)"), central = TRUE,
                          step = 1e-3 * max(abs(beta[j]), 1))
  }, numeric(1))
}

# Richardson extrapolation of difference quotients of g at 0 (g may return a
# vector or matrix). Forward differences (needed where g is undefined below
# 0, as A(lambda) is) have errors in powers of h, central ones in powers of
# h^2; each level removes the leading one.
richardson_derivative <- function(g, central = FALSE, step = 1e-3, levels = 4L) {
  g0 <- if (!central) g(0)
  quotient <- function(h) if (central) (g(h) - g(-h)) / (2 * h) else (g(h) - g0) / h
  table <- lapply(0:(levels - 1L), function(k) quotient(step / 2^k))
  base <- if (central) 4 else 2
  for (level in seq_len(levels - 1L)) {
    factor <- base^level
    table <- lapply(seq_len(length(table) - 1L), function(k)
      (factor * table[[k + 1L]] - table[[k]]) / (factor - 1))
  }
  table[[1L]]
}

# ---- linear schemes: A Z and A'(0) Z -----------------------------------------

check_scheme <- function(scheme, arg = "scheme") {
  if (!inherits(scheme, "mask_scheme"))
    abort_type(arg, "a mask_scheme (from mask_kernel(), mask_matrix(), mask_none(), ...)")
  scheme
}

scheme_degree <- function(scheme) scheme$degree

# A scheme acting as Z -> A Z on every masked column (the same A for all):
# the types whose traits say `linear`, with their mask_linear() (A Z) and
# mask_derivative() (A'(0) Z) methods.
is_linear_scheme <- function(scheme) scheme_traits(scheme)$linear

abort_not_linear <- function(arg = "scheme") {
  abort_type(arg, paste("a linear mask (mask_kernel(), mask_none() or mask_matrix()",
                        "without `B` and `C`)"))
}

scheme_linear_apply <- function(scheme, Z) {
  if (!is_linear_scheme(scheme)) abort_not_linear()
  mask_linear(scheme, Z)
}

# A'(0) Z. Kernels: analytic (mask's C core; zero for the exp form).
# mask_matrix(function(lambda) ...): numerical (see its method).
scheme_derivative_at_zero <- function(scheme, Z) {
  if (!is_linear_scheme(scheme)) abort_not_linear()
  mask_derivative(scheme, Z)
}
