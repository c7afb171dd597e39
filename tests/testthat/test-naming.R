# Issue 24, item 6: one naming rule (?`epimask-naming`), old names deprecated
# with a classed warning, format() and print() for every class, plot() for
# matching and identifiability.

test_that("every class with a print() method has a format() method, and print goes through it", {
  # the methods the package declares (its NAMESPACE file), not the run-time
  # table, to which other test files add methods of the types they define
  path <- find.package("epimask")
  table <- parseNamespaceFile(basename(path), dirname(path))$S3methods
  generic <- sub("^.*::", "", table[, 1L])
  printed <- unique(table[generic == "print", 2L])
  formatted <- unique(table[generic == "format", 2L])
  expect_identical(setdiff(printed, formatted), character(0))
})

test_that("print() shows exactly the lines format() returns", {
  set.seed(3)
  d <- data.frame(x = round(runif(40, 0, 5), 1), y = rpois(40, 3), z = rnorm(40),
                  g = sample(c("a", "b"), 40, TRUE), h = sample(c("u", "v"), 40, TRUE))
  noisy <- apply_mask(d, mask_noise(0.2), c("x", "z"))
  fit <- fit_glm(y ~ x, d, family = poisson())
  cohort <- data.frame(case = rep(0:1, 20), dose = rexp(40), sex = rep(0:1, each = 20))
  hier <- list(x = hierarchy_numeric(c(1, 2)), g = hierarchy_flat())
  sim <- simulate_zdl(1, n = 60, seed = 1)
  ru <- epimask:::example_ru_profile()
  objects <- list(
    fit, summary(fit), fit_err(case ~ sex, cohort, dose = "dose"),
    summary(fit_err(case ~ sex, cohort, dose = "dose")),
    irls_fit(cbind(1, d$x), d$y, poisson()),
    risk_kanon(d, c("g", "h"), k = 2), summary(risk_kanon(d, c("g", "h"), k = 2)),
    summary(risk_ldiversity(d, "g", sensitive = "h")),
    summary(risk_tcloseness(d, "g", sensitive = "x")),
    summary(risk_individual(d, c("g", "h"))), summary(risk_suda(d, c("g", "h", "y"))),
    summary(risk_linkage(d, noisy, known = c("x", "z"))),
    risk_match(d, noisy, known = "x"), summary(risk_match(d, noisy, known = "x")),
    risk_identifiability(d[1:10, ], d, keys = "g"),
    summary(risk_identifiability(d[1:10, ], d, keys = "g")),
    summary(risk_release(d, c("g", "h"), release_context(pr_attempt = 0.3, pr_acquaintance = 0.5))),
    summary(datafly(d, c("x", "g"), hier, k = 2)),
    summary(ru), zdl_aggregate(sim, 3), sim,
    c(mask_round(1), mask_none()), summary(mask_pram(0.8), d, "g"),
    utility_general(d, noisy), summary(utility_general(d, noisy)),
    suppress_local(d, c("g", "h"), k = 3), summary(suppress_local(d, c("g", "h"), k = 3)))
  if (requireNamespace("survival", quietly = TRUE)) {
    lung <- stats::na.omit(survival::lung[c("time", "status", "age", "sex")])
    cox <- fit_cox(survival::Surv(time, status) ~ age + sex, lung)
    objects <- c(objects, list(summary(cox)))
  }
  for (obj in objects) {
    lines <- format(obj)
    expect_type(lines, "character")
    # a GLM's format() is its coefficient table and its print() that of
    # glm(); matching and identifiability print a title and the summary's
    # format(), their own format() being the one-line form
    expected <- if (inherits(obj, c("epimask_match", "epimask_identifiability")))
      c(utils::head(utils::capture.output(print(obj)), 1L), format(summary(obj), header = FALSE))
    else if (!inherits(obj, "epimask_glm")) lines
    if (!is.null(expected))
      expect_identical(utils::capture.output(print(obj)), expected, info = class(obj)[1])
    utils::capture.output(shown <- withVisible(print(obj)))
    expect_false(shown$visible)
    expect_identical(shown$value, obj)
  }
})

test_that("the kanon, datafly and ola results spell discernibility; the old field still reads", {
  d <- data.frame(g = c("a", "a", "b", "b", "b"), h = c("u", "u", "v", "v", "w"))
  k <- risk_kanon(d, c("g", "h"), k = 2)
  # sizes 2, 2, 1: 2^2 + 2^2 + 5 * 1 for the record in a class below k
  expect_equal(k$discernibility, 13)
  expect_warning(old <- k$discernability, class = "epimask_warning_deprecated")
  expect_identical(old, k$discernibility)
  expect_warning(old <- k[["discernability"]], class = "epimask_warning_deprecated")
  expect_identical(old, 13)
  expect_match(format(k)[7], "discernibility 13")
  hier <- list(g = hierarchy_flat(), h = hierarchy_flat())
  for (res in list(datafly(d, c("g", "h"), hier, k = 2), deprecated(ola(d, c("g", "h"), hier, k = 2)))) {
    expect_false(is.null(res$discernibility))
    expect_warning(old <- res$discernability, class = "epimask_warning_deprecated")
    expect_identical(old, res$discernibility)
  }
  # other fields are read as before, without a warning (partial names too)
  expect_no_warning(expect_identical(k$n_uniques, 1L))
  expect_no_warning(expect_null(k$no_such_field))
})

test_that("old argument names that broke the rule still work, with a classed warning", {
  set.seed(4)
  d <- data.frame(x = rnorm(60), z = rnorm(60))
  m <- apply_mask(d, mask_noise(0.3), c("x", "z"))
  new <- risk_linkage(d, m, known = c("x", "z"))
  expect_warning(old <- risk_linkage(d, m, vars = c("x", "z")), class = "epimask_warning_deprecated")
  expect_identical(old, new)
  expect_identical(new$known, c("x", "z"))
  expect_warning(expect_identical(new$vars, c("x", "z")), class = "epimask_warning_deprecated")
  e <- expect_error(risk_linkage(d, m, known = "x", vars = "z"), class = "epimask_error_value")
  expect_identical(e$arg, "vars")
  expect_identical(risk_linkage(d, m, c("x", "z")), new)
  spec <- deprecated(risk_spec("linkage", vars = "x"))
  expect_identical(spec, deprecated(risk_spec("linkage", known = "x")))
  xy <- matrix(runif(20), ncol = 2)
  x <- cbind(1, w = xy[, 1], v = xy[, 2])
  s <- mask_kernel("shrink", 0.1, xy, bandwidth = 0.3)
  expect_warning(old <- bias_first_order(x, c(1, 0.5, 0.2), poisson(), s, masked = "w"),
                 class = "epimask_warning_deprecated")
  expect_identical(old, bias_first_order(x, c(1, 0.5, 0.2), poisson(), s, vars = "w"))
  expect_warning(old <- bias_asymptotic(x, c(1, 0.5, 0.2), poisson(), s, masked = 2),
                 class = "epimask_warning_deprecated")
  expect_identical(old, bias_asymptotic(x, c(1, 0.5, 0.2), poisson(), s, vars = 2))
})

test_that("plot() of matching and identifiability draws the counts it returns", {
  set.seed(5)
  d <- data.frame(x = round(rnorm(200), 1), y = rnorm(200), g = sample(letters[1:6], 200, TRUE),
                  a = sample(1:30, 200, TRUE))
  m <- apply_mask(d, mask_noise(0.2), c("x", "y"))
  r <- risk_match(d, m, known = c("x", "y"), progress = FALSE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  out <- plot(r)
  pt <- r$per_target
  # by hand from the per-target table
  expect_identical(unname(out), c(sum(pt$c == 1 & pt$I == 1), sum(pt$c > 1 & pt$I == 1),
                                  sum(pt$I == 0)))
  expect_identical(sum(out), r$n_targets)
  # the subtitle's split of the expected correct matches adds up to the measure
  tie <- pt$c > 1 & pt$I == 1
  expect_equal(out[[1L]] + sum(1 / pt$c[tie]), r$expected_match_risk, tolerance = 1e-12)
  h <- plot(r, what = "probability")
  expect_identical(sum(h$counts), nrow(pt))
  expect_error(plot(r, what = "nope"), class = "epimask_error_value")
  i <- risk_identifiability(d[1:50, ], d, keys = c("g", "a"))
  heights <- plot(i)
  n_i <- i$records$matches
  expect_identical(sum(heights), length(n_i))
  # the red part: records matching at most 4 source records (risk above 1/5)
  expect_identical(sum(heights["TRUE", ]), sum(n_i >= 1 & n_i <= 4))
  expect_identical(sum(plot(i, threshold = 0.5)["TRUE", ]), sum(n_i == 1))
  expect_error(plot(i, threshold = 2), class = "epimask_error_value")
})
