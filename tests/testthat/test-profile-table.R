# ru_profile() of a count table: the reference estimate against glm() on the
# interior cells, suppression's risk and published share by hand, noise's
# epsilon column, and the arguments a table profile needs.

prof_data <- function() {
  set.seed(7)
  d <- data.frame(age = sample(c("20-39", "40-59", "60+"), 400, TRUE, prob = c(.5, .35, .15)),
                  sex = sample(c("f", "m"), 400, TRUE),
                  site = sample(c("s1", "s2", "s3", "s4"), 400, TRUE, prob = c(.4, .3, .2, .1)))
  table_counts(d, c("age", "sex", "site"))
}

test_that("the count model's reference estimate is glm() on the interior cells", {
  skip_without_solver()
  tab <- prof_data()
  ru <- ru_profile(tab, list(mask_suppression(cell_threshold(5))), count_model(count ~ age + sex + site),
                   risk = cell_threshold(5), seed = 1)
  d <- as.data.frame(tab)
  d <- d[d$interior, ]
  fit <- stats::glm(count ~ age + sex + site, family = stats::poisson(), data = d)
  expect_equal(ru$estimate[[1L]], unname(stats::coef(fit)[["age40-59"]]), tolerance = 1e-8)
  expect_equal(ru$se[[1L]], unname(sqrt(diag(stats::vcov(fit)))[["age40-59"]]), tolerance = 1e-6)
  # suppression: the suppressed interior cells left out of the same glm
  prot <- suppress_table(tab, cell_threshold(5))
  dp <- as.data.frame(prot)
  dp <- dp[dp$interior, ]
  fit2 <- stats::glm(value ~ age + sex + site, family = stats::poisson(), data = dp)
  expect_equal(ru$estimate[[2L]], unname(stats::coef(fit2)[["age40-59"]]), tolerance = 1e-8)
  expect_equal(ru$risk, c(1, 0))
  expect_equal(ru$published[[2L]], 1 - mean(prot$suppressed))
})

test_that("noise rows carry epsilon; random schemes are replicated; the profile prints and plots", {
  skip_without_solver()
  tab <- prof_data()
  ru <- ru_profile(tab, list(mask_dp_counts(2), mask_round(base = 3)), count_model(count ~ age + sex),
                   risk = cell_threshold(5), nrep = 3, seed = 2)
  expect_equal(ru$epsilon, c(NA, 2, NA))
  expect_equal(ru$nrep, c(1, 3, 1))
  expect_output(print(ru), "Risk-utility profile")
  again <- ru_profile(tab, list(mask_dp_counts(2), mask_round(base = 3)), count_model(count ~ age + sex),
                      risk = cell_threshold(5), nrep = 3, seed = 2)
  expect_equal(as.data.frame(ru), as.data.frame(again))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(ru)
  grDevices::dev.off()
  expect_true(file.exists(f))
})

test_that("a table profile needs rules and a count model", {
  tab <- prof_data()
  expect_error(ru_profile(tab, mask_dp_counts(1), count_model(count ~ age)), class = "epimask_error_value")
  expect_error(ru_profile(tab, mask_dp_counts(1), count ~ age, risk = k_anonymity(3)),
               class = "epimask_error_criterion")
  expect_error(count_model(y ~ age), class = "epimask_error_value")
  expect_error(ru_profile(tab, mask_dp_counts(1), count_model(count ~ age, covariates = data.frame(x = 1)),
                          risk = cell_threshold(5)), class = "epimask_error_value")
})
