# Fixtures for the GLM tests: real data sets shipped with R and its
# recommended packages (MASS, survival), and a comparison against glm().

shipped_data <- function(name, package) {
  # lazy-loaded data sets are found as exported values of the package
  val <- tryCatch(getExportedValue(package, name), error = function(e) NULL)
  if (is.null(val)) testthat::skip(sprintf("data set %s::%s is not available", package, name))
  val
}

# glm() silently drops nothing here: every fixture is complete.
expect_same_fit <- function(fit, ref, tol = 1e-10) {
  ref_se <- sqrt(diag(stats::vcov(ref, complete = TRUE)))
  testthat::expect_equal(unname(fit$coefficients), unname(stats::coef(ref)), tolerance = tol)
  testthat::expect_equal(unname(fit$se), unname(ref_se), tolerance = tol)
  testthat::expect_equal(fit$deviance, ref$deviance, tolerance = tol)
  testthat::expect_equal(fit$null.deviance, ref$null.deviance, tolerance = tol)
  testthat::expect_equal(fit$df.residual, ref$df.residual)
  testthat::expect_equal(fit$df.null, ref$df.null)
  testthat::expect_equal(fit$rank, ref$rank)
  testthat::expect_equal(fit$iter, ref$iter)
  testthat::expect_equal(fit$dispersion, summary(ref)$dispersion, tolerance = tol)
  testthat::expect_equal(unname(fit$fitted.values), unname(ref$fitted.values), tolerance = tol)
  testthat::expect_equal(unname(fit$weights), unname(ref$weights), tolerance = tol)
  if (is.finite(ref$aic)) testthat::expect_equal(fit$aic, ref$aic, tolerance = tol)
  testthat::expect_identical(fit$converged, ref$converged)
}

# irls_fit() on the design and response of a glm() fit.
irls_like <- function(ref, ...) {
  irls_fit(stats::model.matrix(ref), stats::model.response(ref$model),
           family = ref$family, weights = stats::model.weights(ref$model),
           offset = stats::model.offset(ref$model), ...)
}
