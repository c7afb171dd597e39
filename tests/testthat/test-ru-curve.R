# fit_ru_curve(): METHODS 6.1, anonymity = [1 - U^theta]^(1/theta) by NLS.

curve_points <- function(u, theta, noise = 0, seed = 3) {
  set.seed(seed)
  data.frame(scheme = paste("s", seq_along(u)), analysis_potential = u,
             anonymity = (1 - u^theta)^(1 / theta) + rnorm(length(u), sd = noise))
}

test_that("exact points recover theta to 1e-6 relative (theta = 2 and 178)", {
  u2 <- seq(0.05, 0.95, length.out = 12)
  fit2 <- fit_ru_curve(curve_points(u2, 2))
  expect_s3_class(fit2, "ru_curve")
  # 1e-6: optimize() at tol 1e-12 on log theta, and the stated accuracy of this test
  expect_equal(fit2$theta, 2, tolerance = 1e-6)
  expect_equal(fit2$rss, 0, tolerance = tol_exact)
  # theta = 178 only bites very close to U = 1 (Cologne Figure 3).
  u178 <- 1 - 10^seq(-4, -1, length.out = 12)
  fit178 <- fit_ru_curve(curve_points(u178, 178))
  # 1e-6: optimize() at tol 1e-12 on log theta, and the stated accuracy of this test
  expect_equal(fit178$theta, 178, tolerance = 1e-6)
  expect_equal(unname(coef(fit178)), fit178$theta)
})

test_that("noisy points recover theta, matching stats::nls and its standard error", {
  u <- seq(0.05, 0.95, length.out = 30)
  pts <- curve_points(u, 2, noise = 0.01)
  fit <- fit_ru_curve(pts)
  expect_lt(abs(fit$theta - 2), 4 * fit$se)   # 4 SE (SE 0.008; measured 0.011)
  ref <- nls(anonymity ~ (1 - analysis_potential^th)^(1 / th), data = pts,
             start = list(th = 2.5))
  # 1e-6: nls() stops at relative offset 1e-5 (its default); measured 3e-8
  expect_equal(fit$theta, unname(coef(ref)), tolerance = 1e-6)
  # nls()'s SE at its own stopping point; measured 3e-8
  expect_equal(fit$se, summary(ref)$coefficients[1, "Std. Error"], tolerance = 1e-6)
  u178 <- 1 - 10^seq(-4, -0.5, length.out = 25)
  fit178 <- fit_ru_curve(curve_points(u178, 178, noise = 0.005))
  # within 10% (measured 6%), and within 4 of its SEs below
  expect_lt(abs(log(fit178$theta / 178)), 0.1)
  expect_lt(abs(fit178$theta - 178), 4 * fit178$se)
})

test_that("the gradient in log(theta) matches finite differences", {
  u <- c(0.01, 0.3, 0.7, 0.99, 0.99999)
  for (theta in c(0.5, 2, 178)) {
    h <- 1e-6
    fd <- (epimask:::ru_curve_value(u, exp(log(theta) + h)) -
             epimask:::ru_curve_value(u, exp(log(theta) - h))) / (2 * h)
    # central differences; measured 9e-10
    expect_equal(epimask:::ru_curve_gradient(u, theta), fd, tolerance = 1e-7)
  }
  expect_identical(epimask:::ru_curve_gradient(c(0, 1), 2), c(0, 0))
})

test_that("U > 1 is clipped to 1 and NA rows are dropped", {
  u <- seq(0.1, 0.9, length.out = 8)
  pts <- curve_points(u, 3)
  extra <- rbind(pts, data.frame(scheme = c("over", "na"), analysis_potential = c(1.2, NA),
                                 anonymity = c(0, 0.5)))
  clipped <- rbind(pts, data.frame(scheme = "over", analysis_potential = 1, anonymity = 0))
  fit <- fit_ru_curve(extra)
  expect_identical(fit$n, 9L)
  expect_identical(fit$n_clipped, 1L)
  expect_equal(fit$theta, fit_ru_curve(clipped)$theta)
  expect_equal(max(fit$data$analysis_potential), 1)
})

test_that("predict and print", {
  fit <- fit_ru_curve(curve_points(seq(0.1, 0.9, length.out = 6), 2))
  expect_equal(predict(fit, c(0, 0.5, 1, 1.3)), c(1, sqrt(0.75), 0, 0), tolerance = tol_exact)
  expect_equal(predict(fit, data.frame(analysis_potential = 0.6)), sqrt(1 - 0.36),
               tolerance = tol_exact)
  expect_length(predict(fit), 6)
  expect_error(predict(fit, "a"), class = "epimask_error_type")
  expect_output(print(fit), "theta = 2")
  expect_output(print(fit), "anonymity = \\[1 - U\\^theta\\]\\^\\(1/theta\\)")
})

test_that("fit_ru_curve works on a profile and rejects bad input", {
  ru <- zhou_like_profile()
  fit <- fit_ru_curve(ru)
  expect_true(fit$theta > 0)
  expect_identical(fit$n, nrow(ru))
  expect_error(fit_ru_curve(list(a = 1)), "`ru`", class = "epimask_error_type")
  expect_error(fit_ru_curve(data.frame(x = 1)), class = "epimask_error_name")
  expect_error(fit_ru_curve(data.frame(analysis_potential = NA, anonymity = 1)),
               class = "epimask_error_empty")
  expect_error(fit_ru_curve(data.frame(analysis_potential = c(1, 1.2), anonymity = 1)),
               class = "epimask_error_value")
  expect_error(fit_ru_curve(ru, interval = c(5, 1)), class = "epimask_error_value")
  # Points that the curve can only meet as theta -> Inf: warned, SE NA.
  flat <- data.frame(analysis_potential = c(0.5, 0.9), anonymity = c(1, 1))
  expect_warning(edge <- fit_ru_curve(flat), class = "epimask_warning_boundary")
  expect_true(edge$boundary)
  expect_true(is.na(edge$se))
})
