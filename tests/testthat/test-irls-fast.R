# The fast paths of the IRLS core: the C versions of family$initialize, the
# null deviance and the AIC, and the check of x folded into the first pass.
# Each is checked against R (glm.fit, the family objects) on data large
# enough for several threads and row blocks.

sim_glm_data <- function(n, family) {
  set.seed(7)
  x <- cbind(1, matrix(rnorm(n * 4), n, 4))
  eta <- drop(x %*% c(-0.3, 0.5, -0.4, 0.2, 0.1))
  y <- if (family == "binomial") rbinom(n, 1, plogis(eta)) else rpois(n, exp(eta))
  list(x = x, y = y)
}

# (with an intercept and an offset, irls_fit's null deviance is glm()'s
# refit, not glm.fit's deviance at the weighted mean: null = FALSE skips it)
expect_like_glm_fit <- function(fit, ref, tol = tol_glm, null = TRUE) {
  expect_equal(unname(fit$coefficients), unname(ref$coefficients), tolerance = tol)
  expect_equal(fit$deviance, ref$deviance, tolerance = tol)
  if (null) expect_equal(fit$null.deviance, ref$null.deviance, tolerance = tol)
  expect_equal(fit$aic, ref$aic, tolerance = tol)
  expect_equal(fit$iter, ref$iter)
  expect_equal(unname(fit$fitted.values), unname(ref$fitted.values), tolerance = tol)
  expect_equal(unname(fit$residuals), unname(ref$residuals), tolerance = tol)
  expect_equal(unname(fit$weights), unname(ref$weights), tolerance = tol)
  expect_equal(unname(fit$y), unname(ref$y), tolerance = tol)
}

test_that("large logistic fits match glm.fit with zero weights, proportions and offsets", {
  d <- sim_glm_data(3e4, "binomial")
  fam <- binomial()
  expect_like_glm_fit(irls_fit(d$x, d$y, fam), glm.fit(d$x, d$y, family = fam))
  w <- rep(c(1, 0, 1, 1), length.out = length(d$y))
  expect_like_glm_fit(irls_fit(d$x, d$y, fam, weights = w),
                      glm.fit(d$x, d$y, weights = w, family = fam))
  # proportions with trials as weights: the AIC takes R's dbinom path
  trials <- rep(c(1, 3, 5), length.out = length(d$y))
  prop <- round(pmin(1, d$y * 0.8 + 0.1) * trials) / trials
  expect_like_glm_fit(irls_fit(d$x, prop, fam, weights = trials),
                      suppressWarnings(glm.fit(d$x, prop, weights = trials, family = fam)))
  off <- rep(c(-0.2, 0.3), length.out = length(d$y))
  fit <- irls_fit(d$x, d$y, fam, offset = off)
  expect_like_glm_fit(fit, glm.fit(d$x, d$y, offset = off, family = fam), null = FALSE)
  z <- d$x[, -1]
  expect_equal(fit$null.deviance, glm(d$y ~ z + offset(off), family = fam)$null.deviance,
               tolerance = tol_glm)
  expect_like_glm_fit(irls_fit(d$x[, -1], d$y, fam, offset = off),
                      glm.fit(d$x[, -1], d$y, offset = off, family = fam, intercept = FALSE))
})

test_that("large poisson fits match glm.fit, with counts beyond the AIC table", {
  d <- sim_glm_data(3e4, "poisson")
  fam <- poisson()
  expect_like_glm_fit(irls_fit(d$x, d$y, fam), glm.fit(d$x, d$y, family = fam))
  big <- d$y * 150
  expect_like_glm_fit(irls_fit(d$x, big, fam), glm.fit(d$x, big, family = fam))
  w <- rep(c(2, 0.5, 0), length.out = length(d$y))
  expect_like_glm_fit(irls_fit(d$x, d$y, fam, weights = w),
                      glm.fit(d$x, d$y, weights = w, family = fam))
})

test_that("custom families with their own initialize take the R path", {
  d <- sim_glm_data(2e3, "poisson")
  fam <- poisson()
  fam$initialize <- expression({
    n <- rep.int(1, nobs)
    mustart <- y + 0.5
  })
  ref <- glm.fit(d$x, d$y, family = fam)
  expect_like_glm_fit(irls_fit(d$x, d$y, fam), ref)
})

test_that("non-finite values in a large x are reported whatever the start", {
  d <- sim_glm_data(3e4, "binomial")
  x_na <- d$x
  x_na[2e4, 3] <- NA
  x_inf <- d$x
  x_inf[5, 1] <- -Inf
  for (x in list(x_na, x_inf)) {
    expect_error(irls_fit(x, d$y, binomial()), class = "epimask_error_value")
    expect_error(irls_fit(x, d$y, binomial(), start = rep(0, 5)), class = "epimask_error_value")
    expect_error(irls_fit(x, d$y, binomial(), etastart = rep(0, 3e4)), class = "epimask_error_value")
  }
  expect_error(irls_fit(x_na, d$y, binomial()), "NA")
  expect_error(irls_fit(x_inf, d$y, binomial()), "Inf")
})
