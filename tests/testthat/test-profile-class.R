# The ru_profile class and its summariser (methods vignette section 3), checked against
# the formulas recomputed here and against Cologne et al. (2012) Table 2.

table2_profile <- function() {
  reps <- data.frame(scheme = cologne_table2$scheme, replicate = 1L,
                     estimate = cologne_table2$estimate, se = cologne_table2$se)
  epimask:::ru_profile_from_replicates(reps, cologne_reference)
}

test_that("Cologne Table 2: MSE, relative bias and U reproduce the printed columns", {
  ru <- table2_profile()
  beta <- 0.5235
  # methods vignette section 9: MSE = SE^2 + (beta_m - 0.5235)^2, printed to 4 decimals.
  expect_equal(ru$mse, cologne_table2$se^2 + (cologne_table2$estimate - beta)^2)
  expect_equal(round(ru$mse, 4), cologne_table2$mse)
  # Relative bias = 100 |beta_m - beta| / beta, printed to 2 significant digits.
  expected_rb <- 100 * abs(cologne_table2$estimate - beta) / beta
  expect_equal(ru$rel_bias, expected_rb)
  expect_equal(signif(ru$rel_bias[-1], 2), cologne_table2$rel_bias[-1])
  # Stratified row: U = 0.0240 / 0.0242 = 0.99.
  strat <- ru[ru$scheme == "Stratified", ]
  expect_equal(strat$analysis_potential, 0.1548^2 / (0.1553^2 + (0.5320 - beta)^2))
  expect_equal(round(strat$analysis_potential, 2), 0.99)
})

test_that("the unmasked scheme has bias 0, U = 1 and full CI overlap", {
  ru <- table2_profile()
  none <- ru[ru$scheme == "None", ]
  expect_identical(none$bias, 0)
  expect_identical(none$rel_bias, 0)
  expect_equal(none$analysis_potential, 1)
  expect_equal(none$ci_overlap, 1)
  expect_true(is.na(none$sd))
  expect_true(is.na(none$width_ratio))
})

test_that("the summariser follows the methods vignette section 3 formulas over replicates", {
  reps <- cologne_like_replicates()
  ru <- epimask:::ru_profile_from_replicates(reps, cologne_reference)
  z <- qnorm(0.975)
  beta <- cologne_reference$truth
  for (s in unique(reps$scheme)) {
    r <- reps[reps$scheme == s, ]
    row <- ru[ru$scheme == s, ]
    m <- mean(r$estimate)
    bias <- m - beta
    mse <- mean(r$se^2) + bias^2
    expect_equal(row$estimate, m)
    expect_equal(row$se, mean(r$se))
    expect_equal(row$bias, bias)
    expect_equal(row$rel_bias, 100 * abs(bias) / abs(beta))
    expect_equal(row$mse, mse)
    expect_equal(row$analysis_potential_raw, cologne_reference$se^2 / mse)
    # the reported U: the masked variance floored at the reference's, at most 1
    se2 <- cologne_reference$se^2
    expect_equal(row$analysis_potential, min(1, se2 / (max(mean(r$se^2), se2) + bias^2)))
    expect_equal(row$risk, mean(r$risk))
    expect_equal(row$anonymity, 1 - mean(r$risk))
    expect_equal(row$nrep, nrow(r))
    expect_equal(row$ci_lower, m - z * mean(r$se))
    expect_equal(row$ci_upper, m + z * mean(r$se))
    # Karr et al. overlap, recomputed from the two intervals.
    lo <- max(beta - z * 0.1548, m - z * mean(r$se))
    hi <- min(beta + z * 0.1548, m + z * mean(r$se))
    expect_equal(row$ci_overlap, ((hi - lo) / (2 * z * 0.1548) +
                                    (hi - lo) / (2 * z * mean(r$se))) / 2)
    if (nrow(r) > 1) {
      q <- quantile(r$estimate, c(0.025, 0.975), names = FALSE)
      expect_equal(row$sd, sd(r$estimate))
      expect_equal(row$width_ratio, 2 * z * mean(r$se) / (q[2] - q[1]))
    } else {
      expect_true(is.na(row$sd))
      expect_true(is.na(row$width_ratio))
    }
  }
  expect_identical(ru$scheme, unique(reps$scheme))
  expect_identical(ru$mask_family, c("none", "round", "round", "group", "noise"))
})

test_that("the table has the contract's columns, in order, then the extras", {
  ru <- zhou_like_profile()
  expect_s3_class(ru, c("ru_profile", "data.frame"), exact = TRUE)
  expect_identical(names(ru)[1:12], c("scheme", "degree", "estimate", "se", "sd", "bias",
                                      "rel_bias", "mse", "analysis_potential", "risk",
                                      "anonymity", "width_ratio"))
  expect_true(all(c("mask_family", "nrep", "ci_lower", "ci_upper", "ci_overlap") %in% names(ru)))
  expect_type(ru$scheme, "character")
  expect_equal(ru$degree, c(0, rep(c(0.001, 0.01, 0.05, 0.1, 0.5, 1), each = 2)))
})

test_that("edge cases: zero truth, truth without SE, a zero empirical range, mse override", {
  reps <- data.frame(scheme = rep(c("a", "b"), each = 3), replicate = rep(1:3, 2),
                     estimate = c(0.1, 0.1, 0.1, 0.2, 0.3, 0.4), se = 0.1)
  ru <- epimask:::ru_profile_from_replicates(reps, list(truth = 0, se = NA, type = "truth"))
  expect_true(all(is.na(ru$rel_bias)))
  expect_true(all(is.na(ru$analysis_potential)))
  expect_true(all(is.na(ru$ci_overlap)))
  expect_true(is.na(ru$width_ratio[1]))      # identical replicates: no empirical range
  expect_true(all(is.na(ru$risk)))
  ru2 <- epimask:::ru_profile_from_replicates(reps, list(truth = 0, se = NA, mse = 0.02,
                                                        type = "truth"))
  expect_equal(ru2$analysis_potential, 0.02 / (0.01 + c(0.1, 0.3)^2))
  # Disjoint intervals overlap 0.
  far <- data.frame(scheme = "far", replicate = 1, estimate = 5, se = 0.1)
  expect_identical(epimask:::summarise_replicates(far, list(truth = 0, se = 0.1))$ci_overlap, 0)
})

test_that("bad replicate tables and references give classed errors naming the argument", {
  good <- data.frame(scheme = "a", replicate = 1, estimate = 1, se = 0.1)
  ref <- list(truth = 1, se = 0.1)
  sr <- epimask:::summarise_replicates
  expect_error(sr("x", ref), class = "epimask_error_type")
  expect_error(sr(good[0, ], ref), class = "epimask_error_empty")
  expect_error(sr(good[, -4], ref), class = "epimask_error_name")
  expect_error(sr(transform(good, estimate = NA_real_), ref), "replicates\\$estimate",
               class = "epimask_error_value")
  expect_error(sr(transform(good, se = -1), ref), class = "epimask_error_value")
  expect_error(sr(transform(good, risk = 2), ref), "replicates\\$risk",
               class = "epimask_error_value")
  expect_error(sr(good, list(se = 0.1)), "reference", class = "epimask_error_type")
  expect_error(sr(good, list(truth = Inf, se = 0.1)), class = "epimask_error_value")
  expect_error(sr(good, list(truth = 1, se = -1)), "reference\\$se",
               class = "epimask_error_value")
  expect_error(sr(good, list(truth = 1, se = 0.1, type = "guess")),
               class = "epimask_error_value")
  tab <- sr(good, ref)
  np <- epimask:::new_ru_profile
  expect_error(np(rbind(tab, tab), good, ref), "table\\$scheme",
               class = "epimask_error_value")
  expect_error(np(tab[, -2], good, ref), class = "epimask_error_name")
  expect_error(np(tab, transform(good, scheme = "zz"), ref), class = "epimask_error_name")
  expect_error(np(tab, good, ref, list(term = 1)), "meta\\$term",
               class = "epimask_error_type")
  expect_error(np(tab, good, ref, list(aggregate = "a")), class = "epimask_error_type")
  expect_s3_class(np(tab, good, ref, list(family = binomial())), "ru_profile")
})

test_that("row subsetting keeps the class and the matching replicates", {
  ru <- zhou_like_profile()
  sub <- ru[2:4, ]
  expect_s3_class(sub, "ru_profile")
  expect_identical(sub$scheme, ru$scheme[2:4])
  expect_setequal(unique(replicates(sub)$scheme), ru$scheme[2:4])
  expect_identical(attr(sub, "reference"), attr(ru, "reference"))
  low <- subset(ru, risk < 0.2)
  expect_s3_class(low, "ru_profile")
  expect_true(all(low$risk < 0.2))
  expect_equal(nrow(replicates(low)), 40 * nrow(low))
  # Dropping a required column degrades to a plain data frame.
  cols <- ru[, c("scheme", "risk")]
  expect_identical(class(cols), "data.frame")
  expect_null(attr(cols, "replicates"))
  expect_type(ru[, "risk"], "double")
  expect_identical(class(ru[ru$risk > 2, ]), "data.frame")
  df <- as.data.frame(ru)
  expect_identical(class(df), "data.frame")
  expect_identical(names(df), names(ru))
  expect_null(attr(df, "meta"))
})

test_that("replicates() returns the long table and rejects other objects", {
  ru <- cologne_like_profile()
  reps <- replicates(ru)
  expect_identical(nrow(reps), 504L)
  expect_true(all(c("scheme", "replicate", "estimate", "se", "risk") %in% names(reps)))
  expect_error(replicates(data.frame()), "`ru`", class = "epimask_error_type")
})

test_that("print, format and summary are readable", {
  ru <- cologne_like_profile()
  out <- format(ru, width = 80)
  expect_match(out[1], "^Risk-utility profile: 5 schemes, term 'dose', family err, risk: identifiability$")
  expect_match(out[2], "Reference: original estimate 0.5235 \\(SE 0.1548\\)")
  expect_true(all(nchar(out) <= 80))
  expect_true(any(grepl("^ noise 0.1 ", out)))
  expect_output(print(ru), "Risk-utility profile: 5 schemes")
  expect_output(expect_invisible(print(ru)))
  narrow <- format(zhou_like_profile(), width = 50)
  expect_true(any(grepl("not shown", narrow)))
  s <- summary(ru)
  expect_s3_class(s, "summary.ru_profile")
  expect_identical(names(s), c("masking", "estimate", "se", "bias", "bias_se", "rel_bias",
                               "mse", "mse_se", "analysis_potential",
                               "analysis_potential_se", "analysis_potential_raw",
                               "analysis_potential_raw_se", "risk", "risk_se", "anonymity",
                               "pareto", "nrep"))
  expect_equal(s$mse, ru$mse)
  expect_equal(s$analysis_potential_se, ru$analysis_potential_se)
  expect_output(print(s), "Rel. bias \\(%\\)")
  expect_output(print(s), "Monte Carlo standard errors")
  expect_output(print(s), "Analysis potential")
  ex <- epimask:::example_ru_profile()
  expect_output(print(ex), "Reference: true value")
})
