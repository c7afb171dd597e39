# ru_profile() against test-side loops over apply_mask() + glm(), the
# methods vignette section 3 arithmetic, reproducibility serial vs parallel, and bad input.

test_that("deterministic schemes: estimates and SEs equal apply_mask + glm", {
  d <- profile_fixture()
  coords <- cbind(d$s1, d$s2)
  schemes <- list(mask_kernel("ring", 0.05, coords, source = c(0, 0)),
                  mask_kernel("exponential", 0.1, coords),
                  mask_round(1, type = "decimal"))
  ru <- ru_profile(d, schemes, y ~ x + z, family = poisson(), vars = c("x", "y"),
                   term = "x", risk = "none", progress = FALSE)
  expect_s3_class(ru, "ru_profile")
  expect_equal(nrow(ru), 4L)
  expect_identical(ru$scheme[1], format(mask_none()))
  ref <- glm_term(y ~ x + z, d, poisson(), "x")
  expect_equal(ru$estimate[1], ref[["estimate"]], tolerance = tol_glm)
  for (i in seq_along(schemes)) {
    masked <- apply_mask(d, schemes[[i]], vars = c("x", "y"))
    expected <- suppressWarnings(glm_term(y ~ x + z, masked, poisson(), "x"))
    expect_equal(ru$estimate[i + 1], expected[["estimate"]], tolerance = tol_glm)
    expect_equal(ru$se[i + 1], expected[["se"]], tolerance = tol_glm)
    # methods vignette section 3: bias against the original estimate, MSE = SE^2 + bias^2
    bias <- expected[["estimate"]] - ref[["estimate"]]
    expect_equal(ru$bias[i + 1], bias, tolerance = tol_glm)
    expect_equal(ru$mse[i + 1], expected[["se"]]^2 + bias^2, tolerance = tol_glm)
    expect_equal(ru$analysis_potential_raw[i + 1],
                 ref[["se"]]^2 / (expected[["se"]]^2 + bias^2), tolerance = tol_glm)
    expect_equal(ru$analysis_potential[i + 1],
                 min(1, ref[["se"]]^2 / (max(expected[["se"]]^2, ref[["se"]]^2) + bias^2)),
                 tolerance = tol_glm)
  }
  expect_equal(ru$degree, c(0, 0.05, 0.1, 1))
  expect_true(all(replicates(ru)$replicate == 1L))
})

test_that("the unmasked scheme has analysis potential 1 and bias 0", {
  d <- profile_fixture()
  expect_message(
    ru <- ru_profile(d, list(mask_none(), mask_round(2)), y ~ x, family = poisson(),
                     risk = "none", progress = FALSE, aggregate = 1.5),
    "the response 'y' is not masked")
  expect_identical(attr(ru, "meta")$aggregate, 1.5)
  expect_equal(nrow(ru), 2L)   # mask_none given: not added twice
  expect_identical(ru$bias[1], 0)
  expect_identical(ru$analysis_potential[1], 1)
  expect_identical(ru$rel_bias[1], 0)
})

# Paths: poisson-log through sufficient statistics (A' applied to the design,
# densely or, with a small epimask.dense_max, by smoothing the outcomes);
# quasipoisson by smoothing all outcome replicates and irls_fit_many.
sim_cases <- list(list(family = poisson(), dense_max = 2500, formula = y ~ x),
                  list(family = poisson(), dense_max = 10, formula = y ~ x),
                  list(family = poisson(), dense_max = 2500, formula = y ~ x + z),
                  list(family = quasipoisson(), dense_max = 2500, formula = y ~ x))
for (case in sim_cases)
test_that(sprintf("simulated replicates (%s, %s, dense_max %d): every replicate equals apply_mask + glm",
                  case$family$family, deparse(case$formula), case$dense_max), {
  old <- options(epimask.dense_max = case$dense_max)
  on.exit(options(old))
  d <- profile_fixture(n = 120)
  coords <- cbind(d$s1, d$s2)
  set.seed(10)
  outcomes <- replicate(6, rpois(nrow(d), exp(1 + 2 * d$x)))
  draw <- 0
  simulate <- function(data) {
    draw <<- draw + 1
    data$y <- outcomes[, draw]
    data
  }
  W <- exp(-as.matrix(dist(coords)) / 0.3)
  schemes <- list(mask_kernel("ring", 0.05, coords, source = c(0, 0)),
                  mask_kernel("exponential", 0.2, coords),
                  mask_matrix(W / rowSums(W)),
                  mask_truncate(1))
  ru <- ru_profile(d, schemes, case$formula, family = case$family, vars = c("x", "y"),
                   term = "x", risk = "none", nrep = 6, simulate = simulate,
                   truth = 2, seed = 1, progress = FALSE)
  expect_equal(draw, 6)
  reps <- replicates(ru)
  all_schemes <- c(list(mask_none()), schemes)
  for (i in seq_along(all_schemes)) {
    got <- reps[reps$scheme == ru$scheme[i], ]
    expect_equal(got$replicate, 1:6)
    expected <- vapply(1:6, function(r) {
      data_r <- d
      data_r$y <- outcomes[, r]
      masked <- apply_mask(data_r, all_schemes[[i]], vars = c("x", "y"))
      suppressWarnings(glm_term(case$formula, masked, case$family, "x"))
    }, numeric(2))
    expect_equal(got$estimate, expected["estimate", ], tolerance = tol_glm)
    # 1e-7: the reference glm() stops at its default epsilon 1e-8; measured 4e-9, 6e-8 on another seed
    expect_equal(got$se, expected["se", ], tolerance = 1e-7)
    expect_equal(ru$estimate[i], mean(expected["estimate", ]), tolerance = tol_glm)
    expect_equal(ru$bias[i], mean(expected["estimate", ]) - 2, tolerance = tol_glm)
    expect_equal(ru$sd[i], sd(expected["estimate", ]), tolerance = tol_glm)
  }
  # with truth, MSE(beta) is the unmasked row's MSE, so its U is 1
  expect_equal(ru$analysis_potential[1], 1)
})

test_that("binomial-logit replicates with an offset equal apply_mask + glm", {
  d <- profile_fixture(n = 120)
  d$w <- runif(nrow(d), 0.5, 2)
  coords <- cbind(d$s1, d$s2)
  set.seed(12)
  outcomes <- replicate(4, rbinom(nrow(d), 1, plogis(-0.5 + 1.5 * d$x)))
  d$y <- outcomes[, 1]
  draw <- 0
  simulate <- function(data) {
    draw <<- draw + 1
    data$y <- outcomes[, draw]
    data
  }
  scheme <- mask_kernel("exponential", 0.1, coords)
  form <- y ~ x + offset(log(w))
  ru <- ru_profile(d, list(scheme), form, family = binomial(), vars = c("x", "y", "w"),
                   term = "x", risk = "none", nrep = 4, simulate = simulate, seed = 1,
                   progress = FALSE)
  expected <- vapply(1:4, function(r) {
    data_r <- d
    data_r$y <- outcomes[, r]
    masked <- apply_mask(data_r, scheme, vars = c("x", "y", "w"))
    suppressWarnings(glm_term(form, masked, binomial(), "x"))
  }, numeric(2))
  reps <- replicates(ru)
  got <- reps[reps$scheme == ru$scheme[2], ]
  expect_equal(got$estimate, expected["estimate", ], tolerance = tol_glm)
  # 1e-7: the reference glm() stops at its default epsilon 1e-8; measured 4e-9, 6e-8 on another seed
  expect_equal(got$se, expected["se", ], tolerance = 1e-7)
})

test_that("randomized schemes get nrep replicates from the scheme's own stream", {
  d <- profile_fixture(n = 100)
  noise <- mask_noise(0.2)
  ru <- ru_profile(d, list(noise, mask_round(1)), y ~ x, family = poisson(),
                   vars = "x", risk = "none", nrep = 4, seed = 5, progress = FALSE)
  reps <- replicates(ru)
  expect_equal(as.vector(table(reps$scheme)[ru$scheme]), c(1L, 4L, 1L))
  # the streams: one for the simulation, then one per scheme in order
  streams <- epimask:::rng_streams(4L, 5)
  masked <- epimask:::with_rng_stream(streams[[3]], lapply(1:4, function(r)
    apply_mask(d, noise, vars = "x")))
  expected <- vapply(masked, function(m) glm_term(y ~ x, m, poisson(), "x")[["estimate"]],
                     numeric(1))
  expect_equal(reps$estimate[reps$scheme == ru$scheme[2]], expected, tolerance = tol_glm)
  expect_gt(ru$sd[2], 0)
})

test_that("a seed reproduces the profile and leaves the caller's RNG alone", {
  d <- profile_fixture(n = 80)
  run <- function(seed) ru_profile(d, mask_noise(0.3), y ~ x, family = poisson(),
                                   vars = "x", risk = "none", nrep = 3, seed = seed,
                                   progress = FALSE)
  set.seed(99)
  before <- .Random.seed
  a <- run(7)
  expect_identical(.Random.seed, before)
  expect_identical(as.data.frame(a), as.data.frame(run(7)))
  expect_false(identical(a$estimate, run(8)$estimate))
  set.seed(3); b1 <- run(NULL)
  set.seed(3); b2 <- run(NULL)
  expect_identical(as.data.frame(b1), as.data.frame(b2))
  expect_identical(RNGkind()[1], "Mersenne-Twister")
})

test_that("rng_streams are successive parallel::nextRNGStream streams after set.seed", {
  for (s in c(1, 42, 123456)) {
    got <- epimask:::rng_streams(3L, s)
    old <- RNGkind("L'Ecuyer-CMRG", "Inversion", "Rejection")
    set.seed(s)
    seed <- .Random.seed
    RNGkind(old[1], old[2], old[3])
    want <- list(parallel::nextRNGStream(seed))
    want[[2]] <- parallel::nextRNGStream(want[[1]])
    want[[3]] <- parallel::nextRNGStream(want[[2]])
    expect_identical(got, want)
  }
})

test_that("serial and parallel runs give identical profiles under a seed", {
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future")
  d <- profile_fixture(n = 80)
  coords <- cbind(d$s1, d$s2)
  schemes <- list(mask_noise(0.2, lower = 0), mask_kernel("exponential", 0.1, coords))
  simulate <- function(data) {
    data$y <- rpois(nrow(data), exp(1 + 2 * data$x))
    data
  }
  run <- function(parallel) ru_profile(d, schemes, y ~ x, family = poisson(),
                                       vars = c("x", "y"), risk = "none", nrep = 3,
                                       simulate = simulate, seed = 11,
                                       parallel = parallel, progress = FALSE)
  serial <- run(FALSE)
  old_plan <- future::plan("sequential")
  on.exit(future::plan(old_plan), add = TRUE)
  expect_identical(as.data.frame(run(TRUE)), as.data.frame(serial))
  future::plan("multisession", workers = 2)
  expect_identical(as.data.frame(run(TRUE)), as.data.frame(serial))
  expect_identical(replicates(run(TRUE)), replicates(serial))
})

test_that("bootstrap adds resampling intervals", {
  d <- profile_fixture(n = 150)
  coords <- cbind(d$s1, d$s2)
  ru <- ru_profile(d, list(mask_kernel("ring", 0.05, coords, source = c(0, 0))),
                   y ~ x, family = poisson(), vars = c("x", "y"), risk = "none", bootstrap = 400,
                   seed = 2, progress = FALSE)
  expect_true(all(c("boot_se", "boot_lower", "boot_upper", "boot_se_lower",
                    "boot_se_upper") %in% names(ru)))
  expect_true(all(ru$boot_lower < ru$estimate & ru$estimate < ru$boot_upper))
  expect_equal(ru$boot_se_upper - ru$boot_se_lower, 2 * qnorm(0.975) * ru$boot_se)
  # the nonparametric bootstrap SE of the unmasked fit estimates the model SE
  # (the fixture's outcome follows the fitted Poisson model): with B = 400
  # resamples an SD estimate has relative SE about 1 / sqrt(2 (B - 1)) = 0.035,
  # and the bootstrap SE of n = 150 records itself varies around the model SE by
  # about 1 / sqrt(2 n) = 0.058; 0.2 is over 2.9 combined SEs (0.068)
  expect_equal(ru$boot_se[1], ru$se[1], tolerance = 0.2)
})

test_that("bad input gets classed errors naming the argument", {
  d <- profile_fixture(n = 50)
  expect_error(ru_profile(d, list(mask_round(1), "x"), y ~ x, risk = "none"),
               "`schemes`", class = "epimask_error_type")
  expect_error(ru_profile(d, list(), y ~ x, risk = "none"),
               "`schemes`", class = "epimask_error_empty")
  expect_error(ru_profile(d, mask_round(1), y ~ x, family = poisson(), term = "w",
                          risk = "none"), "`term`", class = "epimask_error_name")
  expect_error(ru_profile(d, mask_round(1), y ~ x, family = poisson(), nrep = 0,
                          risk = "none"), "`nrep`", class = "epimask_error_value")
  expect_error(ru_profile(d, mask_round(1), y ~ x, family = poisson()),
               "`known`", class = "epimask_error_value")
  expect_error(deprecated(ru_profile(d, mask_round(1), y ~ x, family = poisson(),
                          risk = "identifiability")), "`known`", class = "epimask_error_value")
  expect_error(deprecated(ru_profile(d, mask_round(1), y ~ x, family = poisson(), known = "nope")),
               "`known`", class = "epimask_error_name")
  expect_error(ru_profile(d, mask_round(1), y ~ x, family = poisson(), risk = "none",
                          vars = "nope"), "`vars`", class = "epimask_error_name")
  expect_error(ru_profile(d, mask_round(1), "y ~ x", risk = "none"),
               "`formula`", class = "epimask_error_type")
  expect_error(ru_profile(d, mask_round(1), y ~ x, risk = "none", simulate = 3),
               "`simulate`", class = "epimask_error_type")
  expect_error(ru_profile(d, mask_round(1), y ~ x, risk = "none", bootstrap = -1),
               "`bootstrap`", class = "epimask_error_value")
  expect_error(ru_profile(d, mask_round(1), y ~ x, risk = "none", aggregate = "a"),
               "`aggregate`", class = "epimask_error_type")
})

test_that("matching risk: risk_match on each scheme's masked data, anonymity = 1 - risk", {
  d <- profile_fixture(n = 100)
  coords <- cbind(d$s1, d$s2)
  schemes <- list(mask_kernel("ring", 0.05, coords, source = c(0, 0)), mask_round(1))
  ru <- deprecated(ru_profile(d, schemes, y ~ x, family = poisson(), vars = c("x", "y"),
                   known = "x", unknown = "y", progress = FALSE, threads = 1))
  all_schemes <- c(list(mask_none()), schemes)
  for (i in seq_along(all_schemes)) {
    masked <- apply_mask(d, all_schemes[[i]], vars = c("x", "y"))
    expected <- risk_match(d, masked, known = "x", unknown = "y", threads = 1)
    expect_equal(ru$risk[i], expected$percent_correct / 100)
  }
  expect_equal(ru$anonymity, 1 - ru$risk)
})

test_that("identifiability risk: masked keys against the original as source", {
  d <- profile_fixture(n = 120)
  d$age <- round(runif(120, 20, 80))
  schemes <- list(mask_round(-1, type = "decimal"), mask_round(1, type = "significant"))
  ru <- deprecated(ru_profile(d, schemes, y ~ x + age, family = poisson(), vars = "age", term = "x",
                   risk = "identifiability", known = "age", progress = FALSE))
  all_schemes <- c(list(mask_none()), schemes)
  for (i in seq_along(all_schemes)) {
    masked <- apply_mask(d, all_schemes[[i]], vars = "age")
    masked$id <- d$id <- seq_len(nrow(d))
    expected <- risk_identifiability(masked, d, keys = "age", id = "id")
    expect_equal(ru$risk[i], expected$score)
    expect_equal(ru$anonymity[i], expected$anonymity)
  }
})

test_that("linear ERR profiles (family = \"err\") equal fit_err on the masked data", {
  set.seed(8)
  n <- 300
  d <- data.frame(dose = rexp(n), age = runif(n, 20, 60))
  p0 <- plogis(-2 + 0.01 * d$age)
  odds <- p0 / (1 - p0) * (1 + 0.8 * d$dose)
  d$case <- rbinom(n, 1, odds / (1 + odds))
  schemes <- list(mask_round(1, type = "decimal"), mask_group(c(0, 0.5, 1, 2, 20)))
  ru <- deprecated(ru_profile(d, schemes, case ~ age, family = "err", vars = "dose", term = "dose",
                   risk = "identifiability", known = "dose", progress = FALSE))
  all_schemes <- c(list(mask_none()), schemes)
  for (i in seq_along(all_schemes)) {
    fit <- fit_err(case ~ age, apply_mask(d, all_schemes[[i]], vars = "dose"), dose = "dose")
    expect_equal(ru$estimate[i], unname(coef(fit)["dose"]), tolerance = tol_glm)
    expect_equal(ru$se[i], unname(sqrt(diag(vcov(fit)))["dose"]), tolerance = tol_glm)
  }
})

test_that("a function term (population OR) is evaluated on every masked data set", {
  set.seed(2)
  n <- 150
  d <- data.frame(black = runif(n), age = runif(n), py = rpois(n, 50) + 1)
  d$deaths <- rbinom(n, d$py, plogis(-3 + 0.4 * d$black + d$age))
  target <- population_or("black", "py")
  schemes <- list(mask_round(1, type = "decimal"))
  ru <- ru_profile(d, schemes, cbind(deaths, py - deaths) ~ black + age,
                   family = binomial(), vars = "age", term = target, risk = "none",
                   progress = FALSE)
  masked <- apply_mask(d, schemes[[1]], vars = "age")
  fit <- fit_glm(cbind(deaths, py - deaths) ~ black + age, masked, family = binomial())
  expect_equal(ru$estimate[2], unname(target(fit, masked)[1]))
  expect_equal(ru$se[2], unname(target(fit, masked)[2]))
})
