# recommend(): the best analysis potential within a risk budget.

# The rule written out independently: the capped U (masked variance floored
# at the original's), ties within 1.96 SE of the difference with the best,
# ties by risk, then |bias|; the rest by capped U then risk.
expected_ranking <- function(ru, budget) {
  t <- as.data.frame(ru)
  ref_se <- attr(ru, "reference")$se
  ref_mse <- attr(ru, "reference")$mse
  t <- t[!is.na(t$risk) & !is.na(t$analysis_potential) & t$risk <= budget, ]
  u <- pmin(ref_mse / (pmax(t$mse - t$bias^2, ref_se^2) + t$bias^2), 1)
  # the SE of the capped U: the SE of U scaled by capped / U
  se <- ifelse(is.na(t$analysis_potential_se), 0, t$analysis_potential_se * u /
                 t$analysis_potential)
  b <- which.max(u)
  tied <- abs(u - u[b]) <= 1.96 * sqrt(se^2 + se[b]^2) + 1e-9 | u >= u[b] - 0.01
  first <- t[tied, ][order(t$risk[tied], abs(t$bias[tied])), ]
  rest <- t[!tied, ][order(-u[!tied], t$risk[!tied]), ]
  c(first$scheme, rest$scheme)
}

test_that("the choice is the best U among schemes within the budget, ties to lower risk", {
  ru <- zhou_like_profile()
  rec <- recommend(ru, max_risk = 0.2)
  expect_s3_class(rec, "epimask_recommendation")
  ranked <- expected_ranking(ru, 0.2)
  expect_identical(rec$scheme, ranked[1])
  expect_identical(rec$runner_ups$scheme[1:3], ranked[2:4])
  expect_identical(rec$eligible$scheme, ranked)
  expect_identical(nrow(rec$choice), 1L)
  expect_true(all(rec$eligible$risk <= 0.2))
  # the schemes tied with the best U: exponential 0.1 (U 0.45 +- 0.09) and 0.5
  # (0.27 +- 0.05) differ by less than their uncertainty; 0.5 has the lower risk
  expect_identical(rec$ties, c("exponential, lambda = 0.5", "exponential, lambda = 0.1"))
  expect_identical(recommend(ru, 0.2, n_runner_ups = 0)$runner_ups$scheme, character(0))
  expect_identical(recommend(ru, 1)$scheme, expected_ranking(ru, 1)[1])
})

test_that("the recommended scheme is on the frontier the profile and its plot show", {
  profiles <- list(zhou_like_profile(), cologne_like_profile())
  for (ru in profiles) {
    for (budget in c(0.02, 0.05, 0.2, 1)) {
      rec <- suppressWarnings(recommend(ru, max_risk = budget))
      if (is.null(rec$scheme)) next
      expect_true(ru$pareto[ru$scheme == rec$scheme])
    }
  }
})

test_that("print reads as a sentence", {
  rec <- recommend(zhou_like_profile(), max_risk = 0.2)
  out <- gsub("\\s+", " ", paste(format(rec), collapse = " "))
  expect_match(out, "^Recommended: exponential, lambda = 0.5 \\(analysis potential 0.25\\d+ \\+- 0.0\\d+; risk 0.011\\)\\. ")
  expect_match(out, "Runner-ups: exponential, lambda = 0.1: U tied, higher risk \\(0.12 vs 0.011\\)")
  expect_match(out, "ring, lambda = 0.001: risk 0.73 is over the budget")
  expect_match(out, "Budget: risk <= 0.2; 5 of 13 schemes within it \\(risk: match\\).")
  expect_output(print(rec), "Recommended:")
})

test_that("U above 1 counts as 1: ties go to the lower risk", {
  reps <- data.frame(scheme = c("over", "exact", "worse"), replicate = 1,
                     estimate = 1, se = c(0.09, 0.1, 0.2), risk = c(0.1, 0.05, 0.01))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  expect_gt(ru$analysis_potential_raw[1], 1)
  expect_equal(ru$analysis_potential[1], 1)
  expect_identical(recommend(ru, 0.2)$scheme, "exact")
  expect_identical(recommend(ru, 0.2)$runner_ups$scheme, c("over", "worse"))
})

test_that("no scheme within the budget: classed warning and a NULL choice", {
  ru <- cologne_like_profile()
  ru$risk <- ru$risk + 0.5
  ru$anonymity <- 1 - ru$risk
  expect_warning(rec <- recommend(ru, max_risk = 0.2), "least risky is round 3 sig",
                 class = "epimask_warning_budget")
  expect_null(rec$scheme)
  expect_null(rec$choice)
  expect_identical(rec$least_risky$scheme, "round 3 sig")
  expect_output(print(rec), "No scheme has risk <= 0.2")
})

test_that("NA risk never satisfies the budget", {
  reps <- data.frame(scheme = c("unknown", "known"), replicate = 1, estimate = 1,
                     se = c(0.1, 0.2), risk = c(NA, 0.1))
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 1, se = 0.1))
  rec <- recommend(ru, 0.2)
  expect_identical(rec$scheme, "known")
  expect_identical(rec$no_risk, "unknown")
  expect_output(print(rec), "Not considered \\(risk or analysis potential NA\\): unknown")
  all_na <- data.frame(scheme = "a", replicate = 1, estimate = 1, se = 0.1)
  ru_na <- epimask:::ru_profile_from_replicates(all_na, list(truth = 1, se = 0.1))
  expect_warning(rec_na <- recommend(ru_na), "No scheme has a computed risk",
                 class = "epimask_warning_budget")
  expect_null(rec_na$scheme)
})

test_that("bad arguments give classed errors naming the argument", {
  ru <- zhou_like_profile()
  expect_error(recommend(as.data.frame(ru)), "`ru`", class = "epimask_error_type")
  expect_error(recommend(ru, max_risk = 1.5), "`max_risk`", class = "epimask_error_value")
  expect_error(recommend(ru, max_risk = -0.1), "`max_risk`", class = "epimask_error_value")
  expect_error(recommend(ru, max_risk = NA_real_), "`max_risk`", class = "epimask_error_value")
  expect_error(recommend(ru, max_risk = "low"), "`max_risk`", class = "epimask_error_type")
  expect_error(recommend(ru, n_runner_ups = -1), "`n_runner_ups`",
               class = "epimask_error_value")
})
