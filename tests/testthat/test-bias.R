# Independent references: a dense A built here in plain R, glm() for the exact
# limit, and Richardson-extrapolated finite differences of bias_asymptotic()
# for the first-order term.

bias_fixture <- function(n = 60, seed = 11) {
  set.seed(seed)
  coords <- matrix(runif(2 * n), ncol = 2)
  radius <- sqrt(rowSums(coords^2))
  x <- cbind("(Intercept)" = 1, x = exp(-2 * radius))
  list(coords = coords, radius = radius, x = x)
}

# a_ik = (1[i = k] + lambda K_ik) / (1 + lambda sum_{l != i} K_il)  (methods vignette section 1.1)
shrink_matrix_r <- function(coords, lambda, h) {
  K <- exp(-as.matrix(dist(coords)) / h)
  diag(K) <- 0
  (diag(nrow(K)) + lambda * K) / (1 + lambda * rowSums(K))
}

ring_matrix_r <- function(radius, lambda) {
  W <- exp(-abs(outer(radius, radius, "-")) / lambda)
  W / rowSums(W)
}

# Richardson extrapolation of forward differences b(h) / h, b(0) = 0.
richardson_slope <- function(b, h) {
  d <- lapply(0:2, function(k) b(h / 2^k) / (h / 2^k))
  r1 <- list(2 * d[[2]] - d[[1]], 2 * d[[3]] - d[[2]])
  (4 * r1[[2]] - r1[[1]]) / 3
}

test_that("first-order bias of the shrink kernel matches finite differences of the exact bias", {
  fx <- bias_fixture()
  cases <- list(
    list(family = poisson(), beta = c(1, 2)),
    list(family = binomial(), beta = c(-0.5, 1.5)),
    list(family = binomial(link = "probit"), beta = c(-0.3, 1))
  )
  for (case in cases) {
    scheme <- mask_kernel("shrink", 0.01, fx$coords, bandwidth = 0.1)
    slope <- bias_first_order(fx$x, case$beta, case$family, scheme)
    exact <- function(lambda) {
      s <- mask_kernel("shrink", lambda, fx$coords, bandwidth = 0.1)
      as.vector(bias_asymptotic(fx$x, case$beta, case$family, s))
    }
    numeric_slope <- richardson_slope(exact, 0.004)
    expect_true(max(abs(slope)) > 1e-3)   # the test is not about zeros
    # Richardson extrapolation at h = 0.004: O(h^4) truncation, measured 2e-7
    expect_equal(as.vector(slope), numeric_slope, tolerance = 1e-6)
    expect_equal(as.vector(attr(slope, "bias")), as.vector(slope) * 0.01)
  }
})

test_that("first-order bias is exactly zero for exp-form kernels and no masking", {
  fx <- bias_fixture()
  for (kernel in c("ring", "exponential", "gaussian")) {
    scheme <- mask_kernel(kernel, 0.05, fx$coords, source = c(0, 0))
    b1 <- bias_first_order(fx$x, c(1, 2), poisson(), scheme)
    expect_true(all(b1 == 0))
    expect_named(b1, c("(Intercept)", "x"))
  }
  expect_true(all(bias_first_order(fx$x, c(1, 2), poisson(), mask_none()) == 0))
  # ... while the exact bias at a visible lambda is not zero
  ring <- mask_kernel("ring", 0.2, fx$coords, source = c(0, 0))
  expect_gt(max(abs(bias_asymptotic(fx$x, c(1, 2), poisson(), ring))), 1e-3)
})

test_that("first-order bias is zero for the identity link (linear g)", {
  fx <- bias_fixture()
  scheme <- mask_kernel("shrink", 0.05, fx$coords, bandwidth = 0.2)
  b1 <- bias_first_order(fx$x, c(1, 2), gaussian(), scheme)
  expect_equal(as.vector(b1), c(0, 0), tolerance = tol_exact)
})

test_that("exact bias equals a glm() fit of A mu on A X with A built in R", {
  fx <- bias_fixture()
  beta <- c(1, 2)
  check_case <- function(scheme, A, family, quasi, beta) {
    mu <- family$linkinv(drop(fx$x %*% beta))
    Ax <- A %*% fx$x
    Amu <- drop(A %*% mu)
    ref <- suppressWarnings(glm.fit(Ax, Amu, family = quasi,
                                    control = glm.control(epsilon = 1e-12, maxit = 100)))
    got <- bias_asymptotic(fx$x, beta, family, scheme)
    expect_equal(as.vector(got), unname(ref$coefficients) - beta, tolerance = tol_glm)
    expect_equal(as.vector(attr(got, "beta_lambda")), unname(ref$coefficients),
                 tolerance = tol_glm)
  }
  check_case(mask_kernel("ring", 0.1, fx$coords, source = c(0, 0)),
             ring_matrix_r(fx$radius, 0.1), poisson(), quasipoisson(), beta)
  check_case(mask_kernel("shrink", 0.5, fx$coords, bandwidth = 0.1),
             shrink_matrix_r(fx$coords, 0.5, 0.1), poisson(), quasipoisson(), beta)
  check_case(mask_kernel("ring", 0.1, fx$coords, source = c(0, 0)),
             ring_matrix_r(fx$radius, 0.1), binomial(), quasibinomial(), c(-0.5, 1.5))
  A <- shrink_matrix_r(fx$coords, 0.3, 0.1)
  check_case(mask_matrix(A), A, poisson(), quasipoisson(), beta)
})

test_that("a matrix mask with A(lambda) gets a numeric derivative equal to the analytic one", {
  fx <- bias_fixture()
  shrink_fun <- function(lambda) shrink_matrix_r(fx$coords, lambda, 0.1)
  by_matrix <- bias_first_order(fx$x, c(1, 2), poisson(), mask_matrix(shrink_fun, lambda = 0.01))
  by_kernel <- bias_first_order(fx$x, c(1, 2), poisson(),
                                mask_kernel("shrink", 0.01, fx$coords, bandwidth = 0.1))
  # A'(0) of a mask_matrix() is a difference quotient in lambda; measured 6e-11
  expect_equal(as.vector(by_matrix), as.vector(by_kernel), tolerance = 1e-8)
})

test_that("bias of a function of beta uses its gradient (given or numeric)", {
  fx <- bias_fixture()
  scheme <- mask_kernel("shrink", 0.01, fx$coords, bandwidth = 0.1)
  slope <- bias_first_order(fx$x, c(1, 2), poisson(), scheme)
  f <- function(b) exp(b[2])
  expect_equal(as.vector(bias_first_order(fx$x, c(1, 2), poisson(), scheme, f = f)),
               # f's gradient by numerical differentiation (no grad); measured 2e-13
               exp(2) * slope[["x"]], tolerance = 1e-10)
  expect_equal(as.vector(bias_first_order(fx$x, c(1, 2), poisson(), scheme, f = f,
                                          grad = function(b) c(0, exp(b[2])))),
               exp(2) * slope[["x"]], tolerance = tol_exact)
  exact <- bias_asymptotic(fx$x, c(1, 2), poisson(), scheme, f = f)
  bl <- attr(exact, "beta_lambda")
  expect_equal(as.vector(exact), unname(exp(bl[2]) - exp(2)))
})

test_that("bias functions reject bad input with classed errors", {
  fx <- bias_fixture()
  scheme <- mask_kernel("shrink", 0.01, fx$coords, bandwidth = 0.1)
  expect_error(bias_first_order(fx$x, c(1, 2, 3), poisson(), scheme),
               class = "epimask_error_length")
  expect_error(bias_first_order(fx$x, c(1, 2), poisson(), mask_round(2)),
               "`scheme`", class = "epimask_error_type")
  expect_error(bias_asymptotic(fx$x, c(1, 2), poisson(), list()), class = "epimask_error_type")
  expect_error(bias_first_order(fx$x, c(1, 2), poisson(), mask_matrix(diag(60))),
               class = "epimask_error_type")
  expect_error(bias_asymptotic(fx$x[1:10, ], c(1, 2), poisson(), scheme),
               "`x`", class = "epimask_error_length")
  expect_error(bias_first_order(fx$x, c(1, NA), poisson(), scheme), class = "epimask_error_value")
})

test_that("only the `masked` columns of x are smoothed", {
  fx <- bias_fixture()
  set.seed(5)
  x <- cbind(fx$x, z = rnorm(nrow(fx$x)))
  beta <- c(1, 2, 0.3)
  A <- ring_matrix_r(fx$radius, 0.1)
  mu <- exp(drop(x %*% beta))
  design <- cbind(1, A %*% x[, "x"], x[, "z"])
  ref <- glm.fit(design, drop(A %*% mu), family = quasipoisson(),
                 control = glm.control(epsilon = 1e-12, maxit = 100))
  scheme <- mask_kernel("ring", 0.1, fx$coords, source = c(0, 0))
  got <- bias_asymptotic(x, beta, poisson(), scheme, vars = "x")
  expect_equal(as.vector(got), unname(ref$coefficients) - beta, tolerance = tol_glm)
  expect_error(bias_asymptotic(x, beta, poisson(), scheme, vars = "w"),
               "`vars`", class = "epimask_error_name")
  expect_true(all(bias_asymptotic(x, beta, poisson(), mask_none()) == 0))
})

test_that("bias_asymptotic handles near-exact fits (deviance at rounding noise)", {
  # Example III at a tiny lambda: A mu is fitted almost exactly, so the relative
  # deviance test cannot reach 1e-13; the answer must still equal glm.fit's.
  sim <- simulate_zdl(3, n = 1000, seed = 1)
  sch <- mask_kernel("ring_block", 0.002, cbind(sim$s1, sim$s2), source = c(0, 0),
                     groups = sim$blocked)
  x <- cbind(1, sim$x)
  got <- bias_asymptotic(x, c(1, 2), poisson(), sch)
  A <- kernel_matrix(sch)
  ref <- suppressWarnings(glm.fit(A %*% x, A %*% exp(x %*% c(1, 2)), family = quasipoisson(),
                                  control = list(epsilon = 1e-14, maxit = 200)))
  # 1e-8: glm.fit on the smoothed, ill-conditioned design A x (epsilon 1e-14); measured 4e-10
  expect_equal(unname(c(got)), unname(ref$coefficients - c(1, 2)), tolerance = 1e-8)
})
