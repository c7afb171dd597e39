# simulate_zdl() against the methods vignette, section 10, recomputed here from the
# coordinates with independent formulas (acos for the angle).

test_that("the exposure of each example follows methods vignette section 10", {
  for (ex in 1:3) {
    sim <- simulate_zdl(ex, n = 400, seed = 11)
    expect_s3_class(sim, "zdl_sim")
    expect_s3_class(sim, "data.frame")
    expect_named(sim, c("s1", "s2", "d", "alpha", "blocked", "x", "y"))
    expect_equal(nrow(sim), 400)
    expect_true(all(abs(sim$s1) <= 1 & abs(sim$s2) <= 1))

    d <- sqrt(sim$s1^2 + sim$s2^2)
    alpha <- acos(sim$s1 / d)          # angle between s - (0, 0) and (1, 0)
    blocked <- sim$s1 > 0.25 & abs(sim$s2) < 0.5
    expected_x <- switch(ex,
      exp(-2 * d),
      exp(-2 * d) * (1 + cos(alpha)) / 2,
      ifelse(blocked, 0, exp(-2 * d)))
    expect_equal(sim$d, d, tolerance = tol_exact)
    expect_equal(sim$alpha, alpha, tolerance = tol_exact)
    expect_identical(sim$blocked, blocked)
    expect_equal(sim$x, expected_x, tolerance = tol_exact)
    expect_true(all(sim$alpha >= 0 & sim$alpha <= pi))
    expect_true(is.integer(sim$y) && all(sim$y >= 0))
  }
  sim3 <- simulate_zdl(3, n = 2000, seed = 1)
  expect_true(any(sim3$blocked) && all(sim3$x[sim3$blocked] == 0))
  expect_true(all(sim3$x[!sim3$blocked] > 0))
})

test_that("examples are chosen by number or Roman numeral; locations are shared", {
  expect_identical(attr(simulate_zdl(n = 10, seed = 1), "zdl")$example, 1L)
  expect_identical(attr(simulate_zdl("II", n = 10, seed = 1), "zdl")$example, 2L)
  expect_identical(attr(simulate_zdl("iii", n = 10, seed = 1), "zdl")$example, 3L)
  a <- simulate_zdl(1, n = 50, seed = 5)
  b <- simulate_zdl("III", n = 50, seed = 5)
  expect_identical(a$s1, b$s1)
  expect_identical(a$s2, b$s2)
  info <- attr(b, "zdl")
  expect_identical(info$beta, c("(Intercept)" = 1, x = 2))
  expect_identical(info$source, c(0, 0))
  expect_identical(info$direction, c(1, 0))
  expect_identical(info$kernel, "ring_block")
})

test_that("a seed reproduces the data and leaves the global RNG state alone", {
  set.seed(99)
  before <- .Random.seed
  a <- simulate_zdl(2, n = 100, seed = 42)
  expect_identical(.Random.seed, before)
  b <- simulate_zdl(2, n = 100, seed = 42)
  expect_identical(a, b)
  expect_false(identical(a$s1, simulate_zdl(2, n = 100, seed = 43)$s1))

  # seed = NULL draws from (and advances) the current stream, like set.seed()
  set.seed(42)
  c1 <- simulate_zdl(2, n = 100)
  expect_identical(c1, a)
  expect_false(identical(.Random.seed, before))
  # the documented order of the draws
  set.seed(42)
  s1 <- runif(100, -1, 1)
  s2 <- runif(100, -1, 1)
  expect_identical(a$s1, s1)
  expect_identical(a$s2, s2)

  # a session without .Random.seed stays without one
  saved <- get(".Random.seed", envir = globalenv())
  rm(".Random.seed", envir = globalenv())
  simulate_zdl(1, n = 5, seed = 1)
  expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
  assign(".Random.seed", saved, envir = globalenv())
})

test_that("the outcome is Poisson with log mean 1 + 2 x", {
  sim <- simulate_zdl(1, n = 20000, seed = 3)
  fit <- glm(y ~ x, family = poisson(), data = sim)
  z <- (coef(fit) - c(1, 2)) / sqrt(diag(vcov(fit)))
  expect_true(all(abs(z) < 4))
  # the mean given x, binned, against exp(1 + 2 x)
  bins <- cut(sim$x, quantile(sim$x, 0:5 / 5), include.lowest = TRUE)
  observed <- tapply(sim$y, bins, mean)
  expected <- tapply(exp(1 + 2 * sim$x), bins, mean)
  se <- sqrt(tapply(exp(1 + 2 * sim$x), bins, mean) / table(bins))
  expect_true(all(abs(observed - expected) / se < 4))
})

test_that("zdl_truth and zdl_simulator", {
  sim <- simulate_zdl(2, n = 300, seed = 8)
  expect_identical(zdl_truth(sim), 2)
  expect_identical(zdl_truth(sim, c("(Intercept)", "x")), c("(Intercept)" = 1, x = 2))
  expect_error(zdl_truth(sim, "z"), class = "epimask_error_name")
  expect_error(zdl_truth(data.frame(x = 1)), class = "epimask_error_type")

  redraw <- zdl_simulator(sim)
  expect_true(is.function(redraw))
  set.seed(10)
  sim2 <- redraw(sim)
  expect_identical(sim2[names(sim) != "y"], sim[names(sim) != "y"])
  expect_identical(attr(sim2, "zdl"), attr(sim, "zdl"))
  expect_identical(class(sim2), class(sim))
  expect_false(identical(sim2$y, sim$y))
  set.seed(10)
  expect_identical(sim2$y, rpois(300, exp(1 + 2 * sim$x)))
  # with R's RNG: the same seed gives the same replicate
  set.seed(10)
  expect_identical(redraw(sim), sim2)
  expect_error(redraw(data.frame(a = 1)), class = "epimask_error_type")
})

test_that("zdl_aggregate fits the cell totals with a log cell-size offset", {
  sim <- simulate_zdl(1, n = 1000, seed = 21)
  agg <- zdl_aggregate(sim)
  expect_s3_class(agg, "zdl_aggregate")
  # independent recomputation: cells by cut(), quasi-Poisson fit of the cell
  # mean outcome weighted by cell size gives the same estimate
  breaks <- seq(-1, 1, length.out = 6)
  cell <- interaction(cut(sim$s1, breaks, include.lowest = TRUE),
                      cut(sim$s2, breaks, include.lowest = TRUE), drop = TRUE)
  cells <- data.frame(n = as.vector(table(cell)),
                      x = as.vector(tapply(sim$x, cell, mean)),
                      y = as.vector(tapply(sim$y, cell, mean)))
  ref <- glm(y ~ x, family = quasipoisson(), weights = n, data = cells)
  expect_equal(nrow(agg$cells), 25)
  expect_equal(sum(agg$cells$n), 1000)
  expect_equal(agg$estimate, unname(coef(ref)[2]), tolerance = tol_glm)
  expect_equal(agg$se, sqrt(vcov(ref)[2, 2] / summary(ref)$dispersion),
               # 1e-6: the quasi-likelihood dispersion cancels only to glm's epsilon 1e-8; measured 9e-8
               tolerance = 1e-6)
  expect_equal(agg$coefficients, c("(Intercept)" = unname(coef(ref)[1]),
                                   x = unname(coef(ref)[2])), tolerance = tol_glm)
  # its target is the ecological coefficient: the same fit to the expected
  # cell means, mean of exp(1 + 2 x) over each cell
  cells$mu <- as.vector(tapply(exp(1 + 2 * sim$x), cell, mean))
  target <- coef(glm(mu ~ x, family = quasipoisson(), weights = n, data = cells))[2]
  expect_lt(abs(agg$estimate - target), 4 * agg$se)
  expect_output(print(agg), "5 x 5 grid")
  expect_equal(nrow(zdl_aggregate(sim, cells = 2)$cells), 4)
})

test_that("bad arguments give classed errors", {
  expect_error(simulate_zdl(4), class = "epimask_error_value")
  expect_error(simulate_zdl("IV"), class = "epimask_error_value")
  expect_error(simulate_zdl(1:2), class = "epimask_error_value")
  expect_error(simulate_zdl(1, n = 0), class = "epimask_error_value")
  expect_error(simulate_zdl(1, n = "a"), class = "epimask_error_type")
  expect_error(simulate_zdl(1, seed = NA_real_), class = "epimask_error_value")
  expect_error(zdl_aggregate(data.frame(s1 = 1)), class = "epimask_error_name")
  expect_error(zdl_aggregate(simulate_zdl(1, 10, seed = 1), cells = 0),
               class = "epimask_error_value")
  expect_error(zdl_simulator(data.frame(x = 1)), class = "epimask_error_type")
})

test_that("print shows the example and the first rows", {
  sim <- simulate_zdl(3, n = 20, seed = 1)
  expect_output(print(sim), "example III \\(ring_block kernel\\), 20 locations")
  expect_output(print(sim), "14 more rows")
  expect_identical(class(as.data.frame(sim)), "data.frame")
  expect_null(attr(as.data.frame(sim), "zdl"))
})
