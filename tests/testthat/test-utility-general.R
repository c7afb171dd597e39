# utility_general() against plain computations written here: glm() for the
# pMSE, ks.test() for KS, the IL1s formula of Yancey et al. (2002), cor()
# for the correlation change; and ru_profile(utility = ).

# KS by definition: the largest gap between the two empirical CDFs at the
# pooled values.
ks_ref <- function(a, b) max(abs(ecdf(a)(c(a, b)) - ecdf(b)(c(a, b))))

general_fixture <- function(n = 200, seed = 11) {
  set.seed(seed)
  d <- data.frame(age = round(runif(n, 20, 80)), bmi = rnorm(n, 26, 4),
                  dose = rexp(n, 1 / 50), sex = factor(sample(c("F", "M"), n, TRUE)))
  m <- d
  m$age <- m$age + round(rnorm(n, 0, 3))
  m$bmi <- m$bmi + rnorm(n, 0, 1)
  m$dose <- round(m$dose, -1)
  list(original = d, masked = m)
}

test_that("pMSE equals a glm() of the masked indicator on main effects, squares, products", {
  fx <- general_fixture()
  d <- fx$original
  m <- fx$masked
  u <- utility_general(d, m, vars = c("age", "bmi", "dose", "sex"), measures = "pmse")
  st <- rbind(d, m)
  st$t <- rep(0:1, each = nrow(d))
  ref <- suppressWarnings(glm(t ~ (age + bmi + dose + sex)^2 + I(age^2) + I(bmi^2) + I(dose^2),
                              family = binomial(), data = st))
  p <- fitted(ref)
  cc <- nrow(m) / nrow(st)
  k <- ref$rank
  pmse <- mean((p - cc)^2)
  null <- (k - 1) * (1 - cc)^2 * cc / nrow(st)
  expect_equal(u$pmse[["k"]], k)
  expect_equal(u$pmse[["pmse"]], pmse, tolerance = tol_glm)
  expect_equal(u$pmse[["null"]], null, tolerance = tol_exact)
  expect_equal(u$pmse[["ratio"]], pmse / null, tolerance = tol_glm)
  # a 0/1 variable's square is aliased and not counted among the parameters
  d$flag <- rbinom(nrow(d), 1, 0.5)
  m$flag <- d$flag
  u2 <- utility_general(d, m, vars = c("age", "flag"), measures = "pmse")
  st <- rbind(d, m)
  st$t <- rep(0:1, each = nrow(d))
  ref2 <- glm(t ~ age * flag + I(age^2) + I(flag^2), family = binomial(), data = st)
  expect_equal(u2$pmse[["k"]], ref2$rank)
  expect_equal(u2$pmse[["pmse"]], mean((fitted(ref2) - 0.5)^2), tolerance = tol_glm)
})

test_that("KS equals ks.test()'s statistic, IL1s the written-out formula, cor by hand", {
  fx <- general_fixture()
  d <- fx$original
  m <- fx$masked
  u <- utility_general(d, m)
  expect_equal(u$vars, c("age", "bmi", "dose", "sex"))
  for (v in c("age", "bmi", "dose")) {
    ks <- suppressWarnings(stats::ks.test(d[[v]], m[[v]])$statistic[[1L]])
    expect_equal(u$variables$ks[u$variables$variable == v], ks, tolerance = tol_exact)
  }
  expect_equal(u$ks_max, max(u$variables$ks))
  # IL1s = 1 / (n p) sum_j sum_i |x_ij - x'_ij| / (sqrt(2) S_j)
  n <- nrow(d)
  total <- 0
  for (v in c("age", "bmi", "dose"))
    for (i in seq_len(n)) total <- total + abs(d[[v]][i] - m[[v]][i]) / (sqrt(2) * sd(d[[v]]))
  expect_equal(u$il1s, total / (n * 3), tolerance = tol_exact)
  # sdcMicro's dUtility(method = "IL1") multiplies by sqrt(2): twice ours
  sdc_like <- sum(abs(sweep(as.matrix(d[c("age", "bmi", "dose")]) - as.matrix(m[c("age", "bmi", "dose")]),
                            2, vapply(d[c("age", "bmi", "dose")], sd, 1), "/") * sqrt(2))) / (n * 3)
  expect_equal(sdc_like, 2 * u$il1s, tolerance = tol_exact)
  # correlation change: by hand over the three pairs
  pairs <- list(c("age", "bmi"), c("age", "dose"), c("bmi", "dose"))
  ch <- vapply(pairs, function(pr) abs(cor(d[[pr[1]]], d[[pr[2]]]) - cor(m[[pr[1]]], m[[pr[2]]])),
               numeric(1))
  expect_equal(u$cor_change, max(ch), tolerance = tol_exact)
  expect_equal(u$cor_pair, paste(pairs[[which.max(ch)]], collapse = ":"))
})

test_that("identical data give 0 everywhere; methods", {
  fx <- general_fixture()
  d <- fx$original
  u0 <- utility_general(d, d, vars = c("age", "bmi"))
  expect_equal(u0$ks_max, 0)
  expect_equal(u0$il1s, 0)
  expect_equal(u0$cor_change, 0)
  expect_lt(u0$pmse[["pmse"]], 1e-20)
  u <- utility_general(d, fx$masked)
  expect_type(format(u), "character")
  expect_output(print(u), "lower is better")
  tab <- as.data.frame(u)
  expect_true(all(c("pmse", "pmse_null", "pmse_ratio", "ks_max", "il1s", "cor_change") %in% tab$measure))
  expect_equal(nrow(tidy(u)), 3L)
  expect_equal(glance(u)$il1s, u$il1s)
  expect_s3_class(summary(u), "summary.epimask_utility_general")
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(u))
  grDevices::dev.off()
  unlink(f)
})

test_that("bad input: classed errors naming the argument", {
  fx <- general_fixture()
  d <- fx$original
  expect_error(utility_general(d, fx$masked, measures = "mse"), class = "epimask_error_value")
  err <- tryCatch(utility_general(d, fx$masked, vars = "nosuch"), error = identity)
  expect_s3_class(err, "epimask_error_name")
  err <- tryCatch(utility_general(d, fx$masked[1:10, ], measures = "il1s"), error = identity)
  expect_s3_class(err, "epimask_error_length")
  expect_equal(err$arg, "masked")
  expect_error(utility_general(d, fx$masked, vars = "sex", measures = "ks"),
               class = "epimask_error_value")
  before <- d
  utility_general(d, fx$masked)
  expect_identical(d, before)
})

test_that("ru_profile(utility = ) without a model and beside one", {
  fx <- general_fixture(n = 150)
  d <- fx$original[c("age", "bmi", "dose")]
  d$y <- rbinom(nrow(d), 1, plogis(-2 + 0.03 * d$age))
  schemes <- c(list(mask_round(-1, type = "decimal")), list(mask_noise(0.5)))
  ru <- ru_profile(d, schemes, vars = c("age", "bmi"), utility = "ks", risk = "none",
                   nrep = 4, seed = 3, progress = FALSE)
  expect_s3_class(ru, "ru_utility_profile")
  expect_equal(ru$utility[1], 0)
  rounded <- transform(d, age = round(age, -1), bmi = round(bmi, -1))
  expect_equal(ru$utility[2], max(ks_ref(d$age, rounded$age), ks_ref(d$bmi, rounded$bmi)),
               tolerance = tol_exact)
  expect_equal(ru$nrep[3], 4)
  expect_true(is.finite(ru$utility_se[3]))
  expect_output(print(ru), "lower is better")
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(ru)
  grDevices::dev.off()
  unlink(f)
  sub <- ru[1:2, ]
  expect_s3_class(sub, "ru_utility_profile")
  expect_equal(glance(ru)$utility, "ks")
  expect_equal(nrow(tidy(ru)), 3L)
  # beside a model: the model's profile plus the measure
  ru2 <- ru_profile(d, schemes, y ~ age + bmi, family = binomial(), vars = c("age", "bmi"),
                    utility = "il1s", risk = "none", nrep = 3, seed = 3, progress = FALSE)
  expect_true(all(is.finite(ru2$analysis_potential)))
  il1s <- mean(c(mean(abs(d$age - rounded$age)) / (sqrt(2) * sd(d$age)),
                 mean(abs(d$bmi - rounded$bmi)) / (sqrt(2) * sd(d$bmi))))
  expect_equal(ru2$utility[2], il1s, tolerance = tol_exact)
  expect_output(print(ru2), "il1s")
  expect_error(ru_profile(d, schemes, vars = "age", utility = "nope", risk = "none",
                          progress = FALSE), class = "epimask_error_value")
  expect_error(ru_profile(d, schemes, vars = "age", risk = "none", progress = FALSE),
               class = "epimask_error_value")
})

test_that("autoplot of a profile without a model labels the better direction", {
  skip_if_not_installed("ggplot2")
  fx <- general_fixture(n = 100)
  d <- fx$original[c("age", "bmi")]
  ru <- ru_profile(d, list(mask_noise(0.5)), vars = c("age", "bmi"), utility = "cor",
                   risk = "none", nrep = 2, seed = 1, progress = FALSE)
  g <- ggplot2::autoplot(ru)
  expect_s3_class(g, "ggplot")
  expect_match(g$labels$x, "lower is better")
})

# A profile on a model-free measure with a risk: 300 records, rounding and
# noise, pMSE (spans decades, so a log axis with the unmasked 0 at its floor).
utility_panel_profile <- function(measure = "pmse", risk = "match") {
  fx <- general_fixture(n = 300, seed = 4)
  d <- fx$original[c("age", "bmi")]
  schemes <- list(mask_round(-1, type = "decimal"), mask_round(1, type = "significant"),
                  mask_noise(0.05), mask_noise(0.5), mask_noise(2))
  run <- function() ru_profile(d, schemes, vars = c("age", "bmi"), utility = measure, risk = risk,
                              known = if (risk == "match") c("age", "bmi"), nrep = 3, seed = 7,
                              progress = FALSE)
  # the shorthand risk = "match", known = is deprecated (checked by deprecated())
  if (risk == "match") deprecated(run()) else run()
}

test_that("the utility panel draws the printed numbers: the measure across, the risk up", {
  ru <- utility_panel_profile()
  pd <- epimask:::ru_panel_data(ru, "utility")
  d <- pd$data
  pos <- ru$utility > 0
  # every masked scheme has a positive pMSE spanning more than two decades
  expect_true(all(pos[-1]))
  expect_gt(max(ru$utility[pos]) / min(ru$utility[pos]), 100)
  expect_true(pd$xaxis$log)
  expect_equal(d$x[pos], log10(ru$utility[pos]), tolerance = tol_exact)
  # the unmasked data's 0 at the floor, half a decade (at least) below the
  # smallest positive value, labelled "0"
  gap <- max(0.5, 0.1 * log10(max(ru$utility[pos]) / min(ru$utility[pos])))
  expect_equal(d$x[!pos], log10(min(ru$utility[pos])) - gap, tolerance = tol_exact)
  expect_identical(pd$xaxis$labels[[1]], "0")
  expect_equal(d$y, if (pd$yaxis$log) log10(ru$risk) else ru$risk, tolerance = tol_exact)
  # Monte Carlo intervals: utility +- 1.96 SE on the axis's scale
  se <- ru$utility_se
  has <- is.finite(se) & pos & ru$utility - 1.96 * se > 0
  expect_equal(d$xhi[has], log10(ru$utility[has] + qnorm(0.975) * se[has]), tolerance = tol_exact)
  # the frontier is the table's: no scheme with risk and measure as low and one lower
  front <- vapply(seq_len(nrow(ru)), function(i)
    !any(ru$risk <= ru$risk[i] & ru$utility <= ru$utility[i] &
           (ru$risk < ru$risk[i] | ru$utility < ru$utility[i])), logical(1))
  expect_identical(d$pareto, front)
  expect_identical(ru$pareto, front)
  # a staircase (right, then down) through the frontier schemes only
  expect_true(all(pd$frontier$x %in% d$x[front]))
  expect_true(all(pd$frontier$y %in% d$y[front]))
  expect_true(all(diff(pd$frontier$x) >= 0) && all(diff(pd$frontier$y) <= 0))
  # labels from scheme_label(), colours by generator
  expect_identical(d$label, c("none", "round to 10", "round 1 sig", "uniform noise 0.05",
                              "uniform noise 0.5", "uniform noise 2"))
  expect_identical(levels(d$group), c("no masking", "rounding (decimal places)",
                                      "rounding (significant digits)", "uniform noise"))
  expect_match(pd$xaxis$title, "pMSE (lower is better)", fixed = TRUE)
  # a linear measure axis when asked (log = "") : the values themselves
  lin <- epimask:::ru_panel_data(ru, "utility", list(x = FALSE, y = FALSE))
  expect_equal(lin$data$x, ru$utility, tolerance = tol_exact)
  expect_equal(lin$data$y, ru$risk, tolerance = tol_exact)
})

test_that("plot() and autoplot() of a utility profile go through the one panel", {
  ru <- utility_panel_profile()
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_identical(plot(ru), ru)
  expect_identical(plot(ru, log = TRUE), ru)
  expect_identical(plot(ru, log = FALSE), ru)
  grDevices::dev.off()
  unlink(f)
  # a profile without a measure has no utility panel
  plain <- ru_profile(general_fixture(100)$original, list(mask_noise(1)), bmi ~ age,
                      vars = "age", risk = "none", progress = FALSE)
  expect_error(plot(plain, type = "utility"), class = "epimask_error_value")
  skip_if_not_installed("ggplot2")
  g <- ggplot2::autoplot(ru)
  expect_s3_class(g, "ggplot")
  expect_match(g$labels$x, "pMSE (lower is better), log scale", fixed = TRUE)
})

test_that("without a risk the utility panel is one row per scheme", {
  ru <- utility_panel_profile("il1s", risk = "none")
  pd <- epimask:::ru_panel_data(ru, "utility", list(x = FALSE, y = "auto"))
  expect_false(pd$xaxis$log)
  expect_equal(pd$data$x, ru$utility, tolerance = tol_exact)
  expect_identical(pd$data$y, rev(seq_len(nrow(ru))))
  expect_identical(pd$yaxis$labels, ru$label)
  expect_null(pd$frontier)
  expect_false(any(pd$data$pareto))
  expect_false(any(grepl("front", format(ru))))
})

test_that("the utility panel matches its snapshots", {
  skip_if_not_installed("vdiffr")
  for (nm in c("gg-utility-pmse.svg"))
    announce_snapshot_file(name = nm)
  ru <- utility_panel_profile()
  none <- utility_panel_profile("il1s", risk = "none")
  vdiffr::expect_doppelganger("base utility pmse", function() plot(ru))
  vdiffr::expect_doppelganger("base utility no risk", function() plot(none))
  skip_if_not_installed("ggplot2", "4.0.0")
  skip_if_not_installed("ggrepel")
  vdiffr::expect_doppelganger("gg utility pmse", ggplot2::autoplot(ru))
})
