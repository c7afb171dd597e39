# utility_glm() and population_or() against glm() fits and the methods vignette section 3
# arithmetic computed here.

test_that("utility_glm compares glm fits on original and masked data (methods vignette section 3)", {
  d <- profile_fixture(n = 200)
  masked <- apply_mask(d, mask_round(1, type = "decimal"), vars = "x")
  u <- utility_glm(d, masked, y ~ x + z, family = poisson())
  expect_s3_class(u, "epimask_utility")
  expect_identical(u$table$term, c("x", "z"))
  fo <- glm(y ~ x + z, poisson(), d)
  fm <- glm(y ~ x + z, poisson(), masked)
  bo <- coef(fo)[c("x", "z")]
  bm <- coef(fm)[c("x", "z")]
  so <- sqrt(diag(vcov(fo)))[c("x", "z")]
  sm <- sqrt(diag(vcov(fm)))[c("x", "z")]
  tab <- u$table
  expect_equal(tab$estimate_original, unname(bo), tolerance = tol_glm)
  expect_equal(tab$estimate_masked, unname(bm), tolerance = tol_glm)
  expect_equal(tab$se_masked, unname(sm), tolerance = tol_glm)
  expect_equal(tab$bias, unname(bm - bo), tolerance = tol_glm)
  expect_equal(tab$rel_bias, unname(100 * abs(bm - bo) / abs(bo)), tolerance = tol_glm)
  expect_equal(tab$mse_masked, unname(sm^2 + (bm - bo)^2), tolerance = tol_glm)
  expect_equal(tab$analysis_potential_raw, unname(so^2 / (sm^2 + (bm - bo)^2)),
               tolerance = tol_glm)
  # the reported U: the masked variance floored at the original's, at most 1
  expect_equal(tab$analysis_potential,
               unname(pmin(1, so^2 / (pmax(sm^2, so^2) + (bm - bo)^2))), tolerance = tol_glm)
  # Karr et al. overlap of the two 95% intervals, computed here
  z <- qnorm(0.975)
  lo <- pmax(bo - z * so, bm - z * sm)
  hi <- pmin(bo + z * so, bm + z * sm)
  inter <- pmax(hi - lo, 0)
  expect_equal(tab$ci_overlap, unname((inter / (2 * z * so) + inter / (2 * z * sm)) / 2),
               tolerance = tol_glm)
  expect_output(print(u), "Analysis potential")
})

test_that("utility_glm of identical data has analysis potential 1 and full overlap", {
  d <- profile_fixture(n = 100)
  u <- utility_glm(d, d, y ~ x, family = "poisson", term = "x")
  expect_equal(u$table$bias, 0)
  expect_equal(u$table$analysis_potential, 1)
  expect_equal(u$table$ci_overlap, 1)
})

test_that("utility_glm with truth uses it as the reference (Cologne Table 2 arithmetic)", {
  d <- profile_fixture(n = 150)
  masked <- apply_mask(d, mask_noise(0.05), vars = "x")
  u <- utility_glm(d, masked, y ~ x, family = poisson(), term = "x", truth = 2)
  fo <- glm(y ~ x, poisson(), d)
  fm <- glm(y ~ x, poisson(), masked)
  so <- sqrt(vcov(fo)["x", "x"])
  sm <- sqrt(vcov(fm)["x", "x"])
  expect_equal(u$table$bias, unname(coef(fm)["x"]) - 2, tolerance = tol_glm)
  expect_equal(u$table$mse_original, so^2 + (unname(coef(fo)["x"]) - 2)^2, tolerance = tol_glm)
  expect_equal(u$table$analysis_potential,
               (so^2 + (coef(fo)[["x"]] - 2)^2) / (sm^2 + (coef(fm)[["x"]] - 2)^2),
               tolerance = tol_glm)
})

test_that("utility_glm fits the linear ERR model with family = \"err\"", {
  set.seed(4)
  n <- 400
  d <- data.frame(dose = rexp(n), age = runif(n, 20, 60))
  d$case <- rbinom(n, 1, plogis(-2 + 0.01 * d$age) * (1 + 0.5 * d$dose) /
                     (1 + plogis(-2 + 0.01 * d$age) * 0.5 * d$dose))
  masked <- apply_mask(d, mask_round(1, type = "decimal"), vars = "dose")
  u <- utility_glm(d, masked, case ~ age, family = "err", term = "dose")
  fo <- fit_err(case ~ age, d, dose = "dose")
  fm <- fit_err(case ~ age, masked, dose = "dose")
  expect_equal(u$table$estimate_original, unname(coef(fo)["dose"]), tolerance = tol_glm)
  expect_equal(u$table$estimate_masked, unname(coef(fm)["dose"]), tolerance = tol_glm)
  expect_equal(u$table$bias, unname(coef(fm)["dose"] - coef(fo)["dose"]), tolerance = tol_glm)
  expect_error(utility_glm(d, masked, case ~ age, family = "err"), "`term`",
               class = "epimask_error_type")
})

test_that("utility_glm rejects bad input with classed errors", {
  d <- profile_fixture(n = 50)
  expect_error(utility_glm(d, d, y ~ x, poisson(), term = "w"), "`term`",
               class = "epimask_error_name")
  expect_error(utility_glm(d, "a", y ~ x, poisson()), "`masked`", class = "epimask_error_type")
  expect_error(utility_glm(d, d, y ~ x, poisson(), truth = c(1, 2), term = "x"),
               "`truth`", class = "epimask_error_length")
  expect_error(utility_glm(d, d, "y ~ x"), "`formula`", class = "epimask_error_type")
})

# The population OR of methods vignette section 3.1, by glm() and predict() here, with the
# delta-method gradient taken by central differences of the OR in beta.
population_or_reference <- function(fit, data, race, weight) {
  n_j <- data[[weight]]
  tt <- delete.response(terms(fit))
  p_of <- function(beta, value) {
    d <- data
    d[[race]] <- value
    x <- model.matrix(tt, model.frame(tt, d))
    sum(n_j * plogis(drop(x %*% beta))) / sum(n_j)
  }
  log_or <- function(beta) qlogis(p_of(beta, 1)) - qlogis(p_of(beta, 0))
  beta <- coef(fit)
  grad <- vapply(seq_along(beta), function(j) {
    h <- 1e-5
    e <- replace(numeric(length(beta)), j, h)
    (log_or(beta + e) - log_or(beta - e)) / (2 * h)
  }, numeric(1))
  or <- exp(log_or(beta))
  c(or, or * sqrt(drop(t(grad) %*% vcov(fit) %*% grad)))
}

test_that("population_or gives the standardised OR and its delta-method SE", {
  set.seed(2)
  n <- 300
  d <- data.frame(black = rbinom(n, 1, 0.3), age = runif(n), py = rpois(n, 50) + 1)
  d$deaths <- rbinom(n, d$py, plogis(-3 + 0.4 * d$black + d$age))
  fit <- fit_glm(cbind(deaths, py - deaths) ~ black + age, d, family = binomial())
  ref_fit <- glm(cbind(deaths, py - deaths) ~ black + age, binomial(), d)
  got <- population_or("black", weight = "py")(fit, d)
  expected <- population_or_reference(ref_fit, d, "black", "py")
  expect_equal(unname(got), expected, tolerance = tol_glm)
  # aggregated data: race is a share; the target of ru_profile()
  u <- utility_glm(d, apply_mask(d, mask_round(1, type = "decimal"), "age"),
                   cbind(deaths, py - deaths) ~ black + age, family = binomial(),
                   term = population_or("black", "py"))
  expect_equal(u$table$estimate_original, expected[1], tolerance = tol_glm)
  expect_error(population_or(3), "`race`", class = "epimask_error_type")
})
