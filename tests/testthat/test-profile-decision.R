# The decision-support parts of a profile: Monte Carlo SEs against a direct
# computation over replicates(ru) (finite-difference gradients, not the
# package's formulas), the frontier against a brute-force dominance check,
# sweeps, generator / strength, the release budget, the blind-risk warning,
# the console and the failure messages.

# Numerical delta method: SE of f(colMeans(V)) from the replicate vectors V.
delta_se <- function(f, V) {
  m <- colMeans(V)
  g <- vapply(seq_along(m), function(k) {
    h <- 1e-6 * max(1, abs(m[k]))
    up <- m; up[k] <- up[k] + h
    dn <- m; dn[k] <- dn[k] - h
    (f(up) - f(dn)) / (2 * h)
  }, numeric(1))
  sqrt(drop(t(g) %*% cov(V) %*% g) / nrow(V))
}

test_that("SE columns match a direct computation over replicates(ru) (fixed data)", {
  d <- profile_fixture(n = 120)
  ru <- deprecated(ru_profile(d, list(mask_noise(0.2), mask_noise(0.5), mask_round(1, "decimal")),
                   y ~ x, family = poisson(), vars = "x", known = "x", nrep = 12,
                   seed = 4, progress = FALSE))
  reps <- replicates(ru)
  ref <- reps[reps$scheme == "no masking", ]
  beta <- ref$estimate
  mse_ref <- ref$se^2
  for (s in ru$scheme) {
    r <- reps[reps$scheme == s, ]
    row <- ru[ru$scheme == s, ]
    if (nrow(r) < 2) {
      expect_true(is.na(row$bias_se) && is.na(row$mse_se) && is.na(row$analysis_potential_se) &&
                    is.na(row$analysis_potential_raw_se))
      expect_true(is.na(row$risk_se))
      next
    }
    expect_equal(row$bias_se, sd(r$estimate) / sqrt(nrow(r)))
    V <- cbind(r$se^2, r$estimate)
    mse_of <- function(m) m[1] + (m[2] - beta)^2
    expect_equal(row$mse, mse_of(colMeans(V)))
    # central differences, h = 1e-6: rounding ~ eps / h; measured 8e-11
    expect_equal(row$mse_se, delta_se(mse_of, V), tolerance = 1e-8)
    expect_equal(row$analysis_potential_raw_se, delta_se(function(m) mse_ref / mse_of(m), V),
                 tolerance = 1e-8)
    # the reported U's SE: the raw one scaled by reported / raw
    expect_equal(row$analysis_potential_se, row$analysis_potential_raw_se *
                   row$analysis_potential / row$analysis_potential_raw)
    expect_equal(row$risk, mean(r$risk))
    expect_equal(row$risk_se, sd(r$risk) / sqrt(nrow(r)))
  }
})

test_that("SE columns in a simulation study are paired with the reference's replicates", {
  d <- profile_fixture(n = 100)
  set.seed(12)
  simulate <- function(data) {
    data$y <- rpois(nrow(data), exp(1 + 2 * data$x))
    data
  }
  for (truth in list(NULL, 2)) {
    ru <- ru_profile(d, list(mask_round(1, "decimal"), mask_round(0, "decimal")), y ~ x,
                     family = poisson(), vars = "x", risk = "none", nrep = 15,
                     simulate = simulate, truth = truth, seed = 3, progress = FALSE)
    reps <- replicates(ru)
    ref <- reps[reps$scheme == "no masking", ]
    ref <- ref[order(ref$replicate), ]
    beta <- if (is.null(truth)) mean(ref$estimate) else truth
    for (s in ru$scheme) {
      r <- reps[reps$scheme == s, ]
      r <- r[order(r$replicate), ]
      row <- ru[ru$scheme == s, ]
      # paired deviations: from the same data set's reference estimate when
      # beta is the mean reference estimate, from the truth otherwise
      dev <- if (is.null(truth)) r$estimate - ref$estimate else r$estimate - truth
      expect_equal(row$bias_se, sd(dev) / sqrt(15))
      V <- cbind(ref$se^2, ref$estimate, r$se^2, r$estimate)
      u_of <- function(m) {
        b <- if (is.null(truth)) m[2] else truth
        (m[1] + (m[2] - b)^2) / (m[3] + (m[4] - b)^2)
      }
      # beta moves with the reference mean without truth: U(means) as a
      # function of all four. The reference's own U is 1 identically (its SE,
      # 0, is checked below; a difference quotient of it is rounding noise).
      # 1e-8: central differences, h = 1e-6: rounding ~ eps / h; measured 2e-10
      if (s != ru$scheme[1])
        expect_equal(row$analysis_potential_raw_se, delta_se(u_of, V), tolerance = 1e-8)
      expect_true(is.na(row$risk_se))
    }
    expect_equal(ru$analysis_potential_se[1], 0, tolerance = tol_glm)
  }
})

# brute_frontier() (helper-profile.R) is the brute-force dominance check.

test_that("pareto matches a brute-force dominance check", {
  set.seed(21)
  for (trial in 1:30) {
    k <- sample(3:12, 1)
    risk <- round(runif(k), sample(1:3, 1))
    u <- round(runif(k, 0, 1.1), sample(1:3, 1))
    risk_se <- ifelse(runif(k) < 0.4, NA, runif(k, 0, 0.05))
    u_se <- ifelse(runif(k) < 0.4, NA, runif(k, 0, 0.05))
    if (trial %% 5 == 0) risk[1] <- NA
    tol <- sample(c(0, 0.01, 0.05), 1)
    expect_identical(epimask:::ru_pareto(risk, u, risk_se, u_se, u_tolerance = tol),
                     brute_frontier(risk, u, risk_se, u_se, u_tol = tol))
  }
  # on a real profile: the column is that check
  ru <- zhou_like_profile()
  capped <- pmin(0.1^2 / (pmax(ru$mse - ru$bias^2, 0.1^2) + ru$bias^2), 1)
  expect_equal(ru$analysis_potential, capped)
  capped_se <- ru$analysis_potential_raw_se * capped / ru$analysis_potential_raw
  expect_identical(ru$pareto, brute_frontier(ru$risk, capped, ru$risk_se, capped_se))
  expect_gte(sum(ru$pareto), 1)
})

test_that("the frontier: a higher risk never dominates; U ties go to the lower risk", {
  # 'safe' (risk 3e-5, U 0.75) is not dominated by 'useful' (risk 2e-3 with a
  # large SE, U 0.99): its risk is lower, however noisy the other's is.
  fr <- epimask:::ru_pareto(risk = c(3e-5, 2e-3), u = c(0.75, 0.99),
                            risk_se = c(1e-5, 2e-3), u_se = c(0.01, 0.01))
  expect_identical(fr, c(TRUE, TRUE))
  # lower risk and higher U, but both within noise: both stay
  expect_identical(epimask:::ru_pareto(c(0.10, 0.09), c(0.80, 0.81), c(0.01, 0.01),
                                       c(0.01, 0.01)), c(TRUE, TRUE))
  # a much higher U within its noise is not tied away: 0.67 +- 0.15 stays
  # beside 0.42 at a lower risk
  expect_identical(epimask:::ru_pareto(c(0.2, 0.08), c(0.67, 0.42), c(0.02, 0.01),
                                       c(0.12, 0.05)), c(TRUE, TRUE))
  # U clearly higher at a lower risk: dominated
  expect_identical(epimask:::ru_pareto(c(0.10, 0.09), c(0.80, 0.95), c(0.01, 0.01),
                                       c(0.01, 0.01)), c(FALSE, TRUE))
  # U tied (within 0.01), risk clearly lower: the riskier one is off, even
  # with a slightly higher U (recommend() breaks U ties toward lower risk)
  expect_identical(epimask:::ru_pareto(c(0.11, 0.002), c(1, 0.995)), c(FALSE, TRUE))
  expect_identical(epimask:::ru_pareto(c(0.11, 0.002), c(1, 0.995), u_tolerance = 0),
                   c(TRUE, TRUE))
  # without SEs or tolerance the rule is the plain Pareto dominance
  expect_identical(epimask:::ru_pareto(c(0.1, 0.1, 0.2), c(0.5, 0.6, 0.6), u_tolerance = 0),
                   c(FALSE, TRUE, FALSE))
})

test_that("a U above 1 that hides bias is off the frontier and never recommended", {
  # 'hidden': U 1.35 through a shrunken SE, bias 7%; 'honest': U 0.95, bias 1%
  reps <- data.frame(scheme = c("none", "hidden", "honest", "coarse"), replicate = 1,
                     estimate = c(1, 0.93, 0.99, 0.8), se = c(0.1, 0.05, 0.102, 0.1),
                     risk = c(0.6, 0.01, 0.01, 0.005))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  expect_gt(ru$analysis_potential_raw[2], 1)
  # capped U by hand: the masked variance floored at the original's 0.1^2
  capped <- 0.01 / (pmax(c(0.01, 0.05^2, 0.102^2, 0.01), 0.01) + c(0, 0.07, 0.01, 0.2)^2)
  expect_equal(ru$analysis_potential, capped)
  expect_lt(ru$analysis_potential[2], ru$analysis_potential[3])
  # one U: print, summary, as.data.frame and recommend() show the capped one
  expect_equal(as.data.frame(ru)$analysis_potential, capped)
  expect_equal(summary(ru)$analysis_potential, capped)
  expect_output(print(ru), "hidden +0.67")
  expect_output(print(summary(ru)), "Raw MSE ratio")
  expect_identical(ru$pareto, brute_frontier(ru$risk, capped, ru$risk_se,
                                           ru$analysis_potential_se))
  expect_false(ru$pareto[2])
  rec <- recommend(ru, max_risk = 0.2)
  expect_identical(rec$scheme, "honest")
  expect_match(rec$runner_ups$reason[rec$runner_ups$scheme == "hidden"],
               "analysis potential \\(0.67.*; raw MSE ratio 1.35, from a naive SE that shrank")
})

test_that("every U within noise of 1: recommend() picks a lowest-risk scheme", {
  set.seed(5)
  reps <- do.call(rbind, lapply(1:5, function(i) data.frame(
    scheme = paste("scheme", i), replicate = 1:30,
    estimate = 1 + rnorm(30, sd = 0.01), se = 0.1 * exp(rnorm(30, sd = 0.03)),
    risk = c(0.5, 0.3, 0.1, 0.12, 0.2)[i])))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  rec <- recommend(ru, max_risk = 0.6)
  expect_identical(rec$scheme, "scheme 3")
  expect_identical(length(rec$ties), 5L)
  # the runner-ups say why they lost
  expect_match(rec$runner_ups$reason[1], "higher risk")
  text <- gsub("\\s+", " ", paste(format(rec), collapse = " "))
  expect_match(text, "Runner-ups: scheme 4: U tied, higher risk")
})

test_that("U above 1 is no measurable loss, never beating a less biased scheme", {
  reps <- data.frame(scheme = c("none", "biased", "clean"), replicate = 1,
                     estimate = c(1, 0.97, 1.001), se = c(0.1, 0.09, 0.1),
                     risk = c(0.5, 0.01, 0.01))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  # raw ratio 0.01 / (0.09^2 + 0.03^2) = 1.11 above 1; reported U with the
  # variance floored at 0.1^2: 0.01 / (0.01 + 0.03^2) = 0.917
  expect_equal(ru$analysis_potential_raw[2], 0.01 / (0.09^2 + 0.03^2))
  expect_equal(ru$analysis_potential[2], 0.01 / (0.01 + 0.03^2))
  rec <- recommend(ru, max_risk = 0.2)
  expect_identical(rec$scheme, "clean")
  expect_match(rec$runner_ups$reason[1], "lower analysis potential \\(0.917; raw MSE ratio 1.11")
  expect_equal(rec$runner_ups$analysis_potential[1], 0.01 / (0.01 + 0.03^2))
  # the biased scheme alone: its reported U, with the raw ratio named
  rec2 <- recommend(ru[1:2, ], max_risk = 0.2)
  text <- gsub("\\s+", " ", paste(format(rec2), collapse = " "))
  expect_match(text, "analysis potential 0.917; raw MSE ratio 1.11, from a naive SE that shrank")
  expect_equal(rec2$choice$analysis_potential, 0.01 / (0.01 + 0.03^2))
})

test_that("recommend() takes the release context's threshold as the budget", {
  ru <- zhou_like_profile()
  ctx <- release_context(pr_attempt = 0.2, pr_acquaintance = 0.4, threshold = 1/11)
  rec <- recommend(ru, context = ctx)
  expect_equal(rec$max_risk, 1/11)
  expect_true(all(rec$eligible$risk <= 1/11))
  expect_identical(rec$scheme, recommend(ru, max_risk = 1/11)$scheme)
  text <- gsub("\\s+", " ", paste(format(rec), collapse = " "))
  expect_match(text, "1/11 \\(0.0909\\), the threshold of the non-public release context")
  expect_error(recommend(ru, max_risk = 0.3, context = ctx), class = "epimask_error_value")
  expect_error(recommend(ru, context = list(threshold = 0.1)), class = "epimask_error_type")
  # a budget stored with the profile
  d <- profile_fixture(n = 80)
  rp <- deprecated(ru_profile(d, list(mask_round(1, "decimal"), mask_round(0, "decimal")), y ~ x,
                   family = poisson(), vars = "x", known = "x", context = ctx,
                   progress = FALSE))
  expect_equal(attr(rp, "meta")$budget, 1/11)
  expect_identical(attr(rp, "meta")$context, ctx)
  expect_equal(suppressWarnings(recommend(rp))$max_risk, 1/11)
  expect_output(print(rp), "Release context: non-public release, threshold 1/11")
})

test_that("a noise scheme on exact-match identifiability alone warns (profile and recommend)", {
  d <- profile_fixture(n = 100)
  expect_warning(
    ru <- deprecated(ru_profile(d, list(mask_noise(0.01), mask_round(1, "decimal")), y ~ x,
                     family = poisson(), vars = "x", risk = "identifiability", known = "x",
                     nrep = 3, seed = 1, progress = FALSE)),
    "cannot see 'uniform noise, amount = 0.01'", class = "epimask_warning_blind_risk")
  expect_identical(attr(ru, "meta")$blind, "uniform noise, amount = 0.01")
  expect_warning(rec <- recommend(ru, max_risk = 0.05), class = "epimask_warning_blind_risk")
  expect_identical(rec$blind, "uniform noise, amount = 0.01")
  # the same schemes on the matching risk: no warning
  expect_no_warning(deprecated(ru_profile(d, list(mask_noise(0.01)), y ~ x, family = poisson(),
                               vars = "x", known = "x", nrep = 2, seed = 1,
                               progress = FALSE)))
  # rounding only: exact matching sees it, no warning
  expect_no_warning(deprecated(ru_profile(d, list(mask_round(1, "decimal")), y ~ x, family = poisson(),
                               vars = "x", risk = "identifiability", known = "x",
                               progress = FALSE)))
})

test_that("an unidentified curve warns and says so", {
  corner <- data.frame(analysis_potential = c(1, 0.999, 0.995, 1.02),
                       anonymity = c(0.999, 1, 0.99, 1))
  expect_warning(fit <- fit_ru_curve(corner), class = "epimask_warning_unidentified")
  expect_false(fit$identified)
  expect_output(print(fit), "NOT IDENTIFIED")
  # noisy points far from any curve: SE larger than theta
  wild <- data.frame(analysis_potential = c(0.36, 0.35, 0.48, 0.85),
                     anonymity = c(0.86, 0.39, 0.78, 0.96))
  expect_warning(w <- fit_ru_curve(wild), "exceeds theta", class = "epimask_warning_unidentified")
  expect_gt(w$se, w$theta)
  expect_false(w$identified)
  # a well-spread curve is identified, silently
  u <- seq(0.1, 0.9, length.out = 10)
  good <- data.frame(analysis_potential = u, anonymity = sqrt(1 - u^2) + c(0.01, -0.01))
  expect_no_warning(ok <- fit_ru_curve(good))
  expect_true(ok$identified)
})

test_that("mask_sweep orders weak to strong and tags generator and strength", {
  sw <- mask_sweep(mask_round, digits = c(1, 4, 2))
  expect_s3_class(sw, "mask_list")
  expect_identical(vapply(unclass(unname(sw)), function(s) s$digits, 1L), c(4L, 2L, 1L))
  expect_identical(vapply(unclass(unname(sw)), `[[`, "", "generator"), rep("rounding (significant digits)", 3))
  expect_identical(vapply(unclass(unname(sw)), `[[`, 1, "strength"), c(-4, -2, -1))
  dec <- mask_sweep(mask_round, digits = 2:-1, type = "decimal")
  expect_identical(scheme_generator(dec[[1]]), "rounding (decimal places)")
  expect_identical(vapply(unclass(unname(dec)), `[[`, 1, "strength"), c(-2, -1, 0, 1))
  nz <- mask_sweep(mask_noise, amount = c(1, 0.01, 0.1), lower = 0)
  expect_identical(vapply(unclass(unname(nz)), `[[`, 1, "amount"), c(0.01, 0.1, 1))
  expect_identical(nz[[1]]$lower, 0)
  gr <- mask_sweep(mask_group, breaks = list(c(0, 5), c(0, 1, 2, 5)))
  expect_identical(vapply(unclass(unname(gr)), function(s) length(s$breaks), 1L), c(4L, 2L))
  expect_identical(scheme_strength(mask_none()), 0)
  expect_length(mask_sweep(mask_round, digits = 1), 1L)
  expect_error(mask_sweep(mask_round, type = "decimal"), class = "epimask_error_value")
  expect_error(mask_sweep(function(a, b) mask_none(), a = 1:2, b = 1:2),
               class = "epimask_error_value")
  # the degree is swept when another argument is a long vector too
  g <- mask_sweep(mask_group, breaks = list(c(0, 1, 5), c(0, 5)), reference = c(0.5, 2, 4))
  expect_identical(g[[1]]$reference, c(0.5, 2, 4))
  expect_error(mask_sweep(mask_round, 1:2), class = "epimask_error_type")
  expect_error(mask_sweep(function(x) x, x = 1:2), class = "epimask_error_type")
  # the profile carries them
  d <- profile_fixture(n = 60)
  ru <- ru_profile(d, c(mask_sweep(mask_round, digits = 2:1, type = "decimal"),
                        mask_sweep(mask_round, digits = 2:1)),
                   y ~ x, family = poisson(), vars = "x", risk = "none", progress = FALSE)
  expect_identical(ru$generator, c("no masking", rep("rounding (decimal places)", 2),
                                   rep("rounding (significant digits)", 2)))
  expect_identical(ru$strength, c(0, -2, -1, -2, -1))
})

test_that("unmasked counts records a scheme promising change left as they were", {
  d <- profile_fixture(n = 90)
  d$x[1:7] <- round(d$x[1:7], 1)
  d$x[8:12] <- 0
  d$x[13:14] <- 1e17   # noise of 0.1 is below the precision of these values
  ru <- ru_profile(d, list(mask_round(1, "decimal"), mask_noise(0.1, lower = 0),
                           mask_group(c(0, 0.5, 1, Inf))), y ~ x,
                   family = gaussian(), vars = "x", risk = "none", nrep = 2, seed = 1,
                   progress = FALSE)
  expect_true(is.na(ru$unmasked[1]))   # no masking
  expect_true(is.na(ru$unmasked[2]))   # rounding: on-grid values stay by design
  # noise: records above the floor left unchanged (the zeros that a floor of 0
  # keeps at 0 are shared by many and stay by design)
  first <- epimask:::with_rng_stream(epimask:::rng_streams(5L, 1)[[4]],
                                     suppressWarnings(apply_mask(d, mask_noise(0.1, lower = 0), "x")))
  expect_identical(ru$unmasked[3], as.double(sum(first$x == d$x & d$x > 0)))
  expect_identical(ru$unmasked[3], 2)
  expect_true(is.na(ru$unmasked[4]))   # grouping: a value may equal its interval mean
})

test_that("narrow prints use the short labels the schemes build from their fields", {
  d <- profile_fixture(n = 80)
  ru <- deprecated(ru_profile(d, list(mask_round(2, "decimal"), mask_noise(0.05)), y ~ x,
                   family = poisson(), vars = "x", known = "x", nrep = 2, seed = 1,
                   progress = FALSE))
  expect_identical(ru$label, c("none", "round 2 dec", "uniform noise 0.05"))
  out <- format(ru, width = 40)
  expect_true(any(grepl("^ round 2 dec ", out)))
  expect_true(any(grepl("^ uniform noise 0.05 ", out)))
  # a profile built from replicates has no short labels: the full ones, cut
  expect_true(all(is.na(cologne_like_profile()$label)))
})

test_that("print shows scheme, U and risk first at width 40 and 80", {
  d <- profile_fixture(n = 80)
  ru <- deprecated(ru_profile(d, c(mask_sweep(mask_round, digits = 2:0, type = "decimal"),
                        mask_sweep(mask_noise, amount = c(0.05, 0.5))),
                   y ~ x, family = poisson(), vars = "x", known = "x", nrep = 2, seed = 1,
                   progress = FALSE))
  for (w in c(40, 80)) {
    out <- format(ru, width = w)
    expect_true(all(nchar(out) <= w))
    head_line <- out[grepl("^ scheme", out)]
    expect_length(head_line, 1L)
    expect_match(head_line, "^ scheme +U +risk")
    body <- out[seq(which(grepl("^ scheme", out)) + 1, length.out = nrow(ru))]
    # each row shows its U and risk as formatted numbers
    for (i in seq_len(nrow(ru))) {
      expect_match(body[i], epimask:::format_num(ru$risk[i], 2), fixed = TRUE)
    }
    expect_false(any(grepl("not shown:.*\\bU\\b", out)))
  }
  expect_true(any(grepl("^ none ", format(ru, width = 40))))
  expect_output(print(ru, width = 40), "round 0 dec")
})

test_that("the response is not masked unless named; a failed fit names the variable", {
  d <- profile_fixture(n = 80)
  d$case <- rbinom(80, 1, 0.3)
  expect_message(ru <- ru_profile(d, mask_round(1, "decimal"), case ~ x, family = binomial(),
                                  risk = "none", progress = FALSE),
                 "Masking 'x'.*the response 'case' is not masked")
  expect_identical(attr(ru, "meta")$vars, "x")
  expect_equal(ru$estimate[2], glm_term(case ~ x, apply_mask(d, mask_round(1, "decimal"), "x"),
                                        binomial(), "x")[["estimate"]], tolerance = tol_glm)
  # x in (0, 1) rounded to tens is constant: the warning says so
  expect_warning(ru_profile(d, mask_round(-1, "decimal"), case ~ x, family = binomial(),
                            vars = "x", risk = "none", progress = FALSE),
                 "'x' is constant after masking", class = "epimask_warning_convergence")
})

test_that("risk_nrep bounds the replicates whose risk is evaluated", {
  d <- profile_fixture(n = 80)
  ru <- deprecated(ru_profile(d, mask_noise(0.1), y ~ x, family = poisson(), vars = "x", known = "x",
                   nrep = 6, risk_nrep = 3, seed = 2, progress = FALSE))
  reps <- replicates(ru)
  r <- reps$risk[reps$scheme == ru$scheme[2]]
  expect_identical(sum(!is.na(r)), 3L)
  expect_equal(ru$risk[2], mean(r, na.rm = TRUE))
  expect_equal(ru$risk_se[2], sd(r, na.rm = TRUE) / sqrt(3))
  expect_identical(attr(ru, "meta")$risk_nrep, 3L)
})

test_that("progress advances once per replicate and risk evaluation", {
  skip_if_not_installed("progressr")
  d <- profile_fixture(n = 60)
  count <- 0
  total <- NA
  counter <- function(...) progressr::make_progression_handler("count", reporter = list(
    initiate = function(config, state, progression, ...) total <<- config$max_steps,
    update = function(config, state, progression, ...) count <<- count + progression$amount),
    enable = TRUE, ...)
  old <- options(progressr.handlers = list(counter))
  on.exit(options(old))
  ru <- deprecated(ru_profile(d, list(mask_noise(0.1), mask_round(1, "decimal")), y ~ x,
                   family = poisson(), vars = "x", known = "x", nrep = 4, seed = 1,
                   progress = TRUE))
  # no masking: 1 fit + 1 risk; noise: 4 fits + 4 risks; rounding: 1 + 1
  expect_equal(total, 12)
  expect_equal(count, 12)
})
