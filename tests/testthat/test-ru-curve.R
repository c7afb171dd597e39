# fit_ru_curve(): methods vignette section 6.1, anonymity = [1 - U^theta]^(1/theta) by NLS.

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
  # two kernels of different shapes: one curve cannot summarise both
  expect_warning(fit <- fit_ru_curve(ru), class = "epimask_warning_misfit")
  expect_false(fit$fits)
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

# The goodness-of-fit rule written out: residuals on the anonymity scale, the
# curve computed here from its formula, the spread as the SD of the points.
gof_by_hand <- function(u, y, theta, se = rep(0, length(y))) {
  curve <- ifelse(u >= 1, 0, ifelse(u <= 0, 1, (1 - u^theta)^(1 / theta)))
  r <- y - curve
  rms <- sqrt(sum(r^2) / length(r))
  list(rms = rms, spread = sd(y),
       fits = rms <= sd(y) / 2 || all(abs(r) <= pmax(0.02, qnorm(0.975) * se)))
}

test_that("a curve is reported only when it fits the points (built to fit, built not to)", {
  # built to fit: points on the curve theta = 2 with small noise
  u <- seq(0.05, 0.95, length.out = 20)
  good <- curve_points(u, 2, noise = 0.02)
  expect_no_warning(fit <- fit_ru_curve(good))
  ref <- gof_by_hand(good$analysis_potential, good$anonymity, fit$theta)
  expect_true(ref$fits)
  expect_true(fit$fits)
  expect_equal(fit$rms, ref$rms, tolerance = tol_exact)
  expect_equal(fit$spread, ref$spread, tolerance = tol_exact)
  expect_no_match(paste(format(fit), collapse = " "), "DOES NOT FIT")
  # built not to fit, as on flchain: the unmasked release at U = 1 is
  # re-identifiable, every masked one keeps most of U, and anonymity levels
  # off near 0.6-0.7 instead of rising to 1 as U falls; the one-parameter
  # curve passes below the masked points and above the low-U ones
  flchain_like <- data.frame(
    scheme = paste("s", 1:7),
    analysis_potential = c(1, 0.97, 0.93, 0.86, 0.7, 0.5, 0.2),
    anonymity = c(0.02, 0.45, 0.52, 0.59, 0.62, 0.66, 0.7))
  expect_warning(bad <- fit_ru_curve(flchain_like), "does not fit",
                 class = "epimask_warning_misfit")
  ref <- gof_by_hand(flchain_like$analysis_potential, flchain_like$anonymity, bad$theta)
  expect_false(ref$fits)
  expect_false(bad$fits)
  expect_true(bad$identified)
  expect_equal(bad$rms, ref$rms, tolerance = tol_exact)
  expect_match(paste(format(bad), collapse = " "), "DOES NOT FIT: root-mean-square residual")
  # the plots leave it out and say why; curve = TRUE draws it marked
  pd <- epimask:::ru_panel_curve(flchain_like, NULL, function(r) 1 - r)
  expect_false(pd$drawn)
  expect_false(pd$fits)
  panel <- list(curve = pd, type = "ru", yaxis = list(floor = NA), xaxis = list(floor = NA),
                data = data.frame(xlo = NA, xhi = NA, ylo = NA, yhi = NA, pareto = FALSE))
  expect_match(epimask:::ru_panel_note(panel), "does not fit the points")
  forced <- epimask:::ru_panel_curve(flchain_like, TRUE, function(r) 1 - r)
  expect_true(forced$drawn)
  expect_match(forced$label, "(does not fit)", fixed = TRUE)
  # the same points within their Monte Carlo uncertainty fit by rule (b):
  # misses smaller than 1.96 SE of each point's risk
  noisy <- flchain_like
  noisy$risk_se <- 0.2
  expect_no_warning(loose <- fit_ru_curve(noisy))
  expect_true(loose$fits)
  expect_true(gof_by_hand(noisy$analysis_potential, noisy$anonymity, loose$theta,
                          noisy$risk_se)$fits)
})
