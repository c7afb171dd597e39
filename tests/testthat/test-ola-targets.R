# ola() with the criteria of methods vignette section 20 (outliers = "failing", avg_risk, k_map
# with a population table, suppressed_loss = "node", metric = analysis_loss())
# against the exhaustive search written out in helper-ola-targets.R.

metrics <- c("entropy", "precision", "discernibility", "avg_class_size")

expect_target_optimum <- function(fx, metric = "entropy", analysis = NULL, ...) {
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  ref <- brute_target_optimum(fx$data, fx$keys, h, metric, analysis = analysis, ...)
  a <- list(...)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = a$k, max_suppress = a$max_suppress,
             metric = if (is.null(analysis)) metric else
               analysis_loss(analysis$formula, analysis$family, analysis$term),
             l = a$l, t = a$t, sensitive = a$sensitive,
             diversity = if (is.null(a$diversity)) "distinct" else a$diversity,
             outliers = if (is.null(a$outliers)) "small" else a$outliers,
             avg_risk = a$avg_risk, k_map = a$k_map, population = a$population,
             suppressed_loss = if (is.null(a$charge)) "top" else a$charge))
  label <- sprintf("%s, %s", metric, paste(names(a), vapply(a, function(x)
    if (is.data.frame(x)) "<table>" else paste(format(x), collapse = "/"), ""), sep = "=",
    collapse = ", "))
  if (is.null(ref)) {
    expect_false(res$acceptable, label = label)
    return(invisible(res))
  }
  expect_identical(unname(res$levels), as.integer(ref$levels), label = label)
  if (is.null(analysis)) {
    expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact, label = label)
    expect_equal(info_loss(res, "all"), ref$all, tolerance = tol_exact, label = label)
  } else {
    expect_equal(info_loss(res, "analysis"), ref$loss, tolerance = 1e-7, label = label)
  }
  expect_identical(res$suppressed, which(ref$supp), label = label)
  invisible(res)
}

test_that("outliers = 'failing' equals the exhaustive search (l-diversity, t-closeness)", {
  for (seed in 1:2) {
    fx <- ola_fixture(150, seed)
    for (metric in metrics) {
      for (ms in c(0.05, 0.2)) {
        expect_target_optimum(fx, metric, k = 3, max_suppress = ms, outliers = "failing",
                              l = 2, sensitive = "outcome")
        expect_target_optimum(fx, metric, k = 2, max_suppress = ms, outliers = "failing",
                              l = 1.9, sensitive = "outcome", diversity = "entropy")
        expect_target_optimum(fx, metric, k = 3, max_suppress = ms, outliers = "failing",
                              t = 0.2, sensitive = "outcome")
      }
    }
  }
})

test_that("'failing' accepts nodes 'small' rejects, and finds a loss no larger", {
  fx <- ola_fixture(150, 2)
  small <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.2, l = 2,
               sensitive = "outcome"))
  failing <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.2, l = 2,
                 sensitive = "outcome", outliers = "failing"))
  expect_lte(info_loss(failing, "entropy"), info_loss(small, "entropy") + 1e-9)
  # every released class of the 'failing' release is 2-diverse and of size >= 3
  rel <- failing$data
  cls <- do.call(paste, c(rel[fx$keys], sep = "\r"))
  expect_true(all(table(cls) >= 3))
  expect_true(all(tapply(rel$outcome, cls, function(v) length(unique(v))) >= 2))
})

test_that("avg_risk equals the exhaustive search, under both outlier semantics", {
  for (seed in 3:4) {
    fx <- ola_fixture(140, seed)
    for (metric in metrics) {
      for (risk in c(0.1, 0.25)) {
        expect_target_optimum(fx, metric, k = 1, max_suppress = 0.1, avg_risk = risk)
        expect_target_optimum(fx, metric, k = 2, max_suppress = 0.05, avg_risk = risk,
                              outliers = "failing", l = 2, sensitive = "outcome")
      }
    }
  }
  # the release meets the average risk it was asked for
  fx <- ola_fixture(140, 3)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 1, max_suppress = 0.1, avg_risk = 0.1))
  cls <- do.call(paste, c(res$data[fx$keys], sep = "\r"))
  expect_lte(length(unique(cls)) / length(cls), 0.1)
})

test_that("k-map against a population table equals the exhaustive search", {
  for (seed in 5:6) {
    fx <- ola_fixture(130, seed)
    more <- ola_fixture(400, seed + 100)$data
    population <- rbind(fx$data, more)[fx$keys]
    fx$data <- fx$data[fx$data$zip != "041", ]   # a value only the population has
    for (metric in metrics) {
      for (km in c(3, 12)) {
        expect_target_optimum(fx, metric, k = 1, max_suppress = 0.05, k_map = km,
                              population = population)
        expect_target_optimum(fx, metric, k = 2, max_suppress = 0.1, k_map = km,
                              population = population, outliers = "failing")
      }
    }
  }
})

test_that("suppressed_loss = 'node' and 'block' charge suppressed records as ARX does", {
  fx <- ola_fixture(120, 8)
  for (metric in metrics) {
    expect_target_optimum(fx, metric, k = 4, max_suppress = 0.1, charge = "node")
    expect_target_optimum(fx, metric, k = 3, max_suppress = 0.1, charge = "node",
                          outliers = "failing", l = 2, sensitive = "outcome")
    expect_target_optimum(fx, metric, k = 4, max_suppress = 0.1, charge = "block")
    expect_target_optimum(fx, metric, k = 3, max_suppress = 0.2, charge = "block",
                          outliers = "failing", l = 2, sensitive = "outcome")
  }
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 4, max_suppress = 0.1, metric = "precision",
             suppressed_loss = "node"))
  top <- vapply(epimask:::check_hierarchies(fx$h, fx$keys, fx$data),
                function(h) length(h$levels) - 1L, integer(1))
  expect_equal(info_loss(res, "precision"), mean(res$levels / top), tolerance = tol_exact)
})

test_that("the defaults leave ola() as it was", {
  fx <- ola_fixture(150, 1)
  a <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.05, l = 2, sensitive = "outcome"))
  b <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.05, l = 2, sensitive = "outcome",
           outliers = "small", local = FALSE, suppressed_loss = "top"))
  expect_identical(a, b)
})

test_that("the analysis loss equals glm() on each node's release, and its optimum", {
  fx <- ola_fixture(200, 11)
  d <- fx$data
  set.seed(11)
  d$y <- rpois(nrow(d), exp(0.2 + 0.03 * d$age + 0.4 * (d$sex == "m")))
  d$w <- 1 + 0.05 * d$age + rnorm(nrow(d))
  d$bin <- rbinom(nrow(d), 1, plogis(-2 + 0.04 * d$age))
  fx$data <- d
  models <- list(
    list(formula = y ~ age + sex, family = poisson(), term = "age"),
    list(formula = w ~ age + sex + zip, family = gaussian(), term = "age"),
    list(formula = bin ~ age + dx, family = binomial(), term = "age"),
    list(formula = y ~ sex + age, family = poisson(), term = "sexm"))
  for (m in models) {
    expect_target_optimum(fx, analysis = m, k = 3, max_suppress = 0)
    expect_target_optimum(fx, analysis = m, k = 4, max_suppress = 0.1)
    expect_target_optimum(fx, analysis = m, k = 3, max_suppress = 0.1, outliers = "failing",
                          l = 2, sensitive = "outcome")
  }
})

test_that("every node's analysis loss equals glm() by hand", {
  fx <- ola_fixture(150, 12)
  d <- fx$data
  set.seed(12)
  d$y <- rpois(nrow(d), exp(0.2 + 0.03 * d$age))
  h <- epimask:::check_hierarchies(fx$h, fx$keys, d)
  lat <- epimask:::lattice_build(d, fx$keys, h)
  m <- analysis_loss(y ~ age + zip, poisson(), "age")
  f <- epimask:::analysis_evaluator(m, d, fx$keys, h, lat)
  tops <- vapply(h, function(x) length(x$levels) - 1L, integer(1))
  nodes <- as.matrix(expand.grid(lapply(tops, function(t) 0:t)))
  for (i in seq_len(nrow(nodes))) {
    lv <- unname(nodes[i, ])
    r <- brute_target_node(d, fx$keys, h, lv, k = 2, max_suppress = 1)
    if (sum(!r$supp) < 60) next     # too few records left for a stable fit
    expect_equal(f(lv, r$supp),
                 brute_analysis_loss(d, fx$keys, r$gen, r$supp, y ~ age + zip, poisson(), "age"),
                 tolerance = 1e-7)
  }
})

test_that("local recoding recodes the suppressed records by a second search", {
  fx <- ola_fixture(200, 14)
  glob <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.1, metric = "precision"))
  loc <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, max_suppress = 0.1, metric = "precision",
             local = TRUE))
  expect_identical(loc$levels, glob$levels)
  expect_gt(glob$n_suppressed, 0)
  expect_lt(loc$n_suppressed, glob$n_suppressed)
  expect_identical(sum(loc$local$records), glob$n_suppressed - loc$n_suppressed)
  # the first round is the search on the suppressed records alone
  sub <- fx$data[glob$suppressed, ]
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  ref <- brute_target_optimum(sub, fx$keys, h, "precision", k = 3, max_suppress = 0.1)
  expect_identical(loc$local$levels[[1]], paste(ref$levels, collapse = ","))
  expect_identical(loc$local$records[[1]], nrow(sub) - sum(ref$supp))
  # the release is 3-anonymous on its released values
  cls <- do.call(paste, c(loc$data[fx$keys], sep = "\r"))
  expect_true(all(table(cls) >= 3))
  expect_identical(nrow(loc$data), nrow(fx$data) - loc$n_suppressed)
  expect_lt(info_loss(loc, "precision"), info_loss(glob, "precision"))
  # precision by hand: recoded records at their round's levels, the rest at
  # the global node's, the suppressed ones at the top
  top <- vapply(h, function(x) length(x$levels) - 1L, integer(1))
  lv <- matrix(unname(glob$levels), nrow(fx$data), 4, byrow = TRUE)
  recoded <- setdiff(glob$suppressed, loc$suppressed)
  lv[recoded, ] <- matrix(as.integer(strsplit(loc$local$levels[[1]], ",")[[1]]),
                          length(recoded), 4, byrow = TRUE)
  if (length(loc$suppressed))
    lv[loc$suppressed, ] <- matrix(top, length(loc$suppressed), 4, byrow = TRUE)
  expect_equal(info_loss(loc, "precision"), mean(sweep(lv, 2, top, "/")),
               tolerance = tol_exact)
})

test_that("bad input to the new criteria gets classed errors", {
  fx <- ola_fixture(60, 1)
  call <- function(...) deprecated(ola(fx$data, fx$keys, fx$h, k = 2, ...))
  expect_error(call(outliers = "all"), class = "epimask_error_value")
  expect_error(call(avg_risk = 0), class = "epimask_error_value")
  expect_error(call(avg_risk = 2), class = "epimask_error_value")
  expect_error(call(k_map = 3), class = "epimask_error_value")
  expect_error(call(population = fx$data), class = "epimask_error_value")
  expect_error(call(k_map = 3, population = fx$data[c("age", "sex")]),
               class = "epimask_error_name")
  expect_error(call(k_map = 3, population = "x"), class = "epimask_error_type")
  expect_error(call(local = NA), class = "epimask_error")
  expect_error(call(suppressed_loss = "x"), class = "epimask_error_value")
  expect_error(analysis_loss("y ~ x"), class = "epimask_error")
  expect_error(analysis_loss(y ~ x, term = 1), class = "epimask_error_type")
  expect_error(call(metric = analysis_loss(nothere ~ age)), class = "epimask_error_name")
  before <- fx$data
  try(call(k_map = 3, population = fx$data[c("age", "sex")]), silent = TRUE)
  expect_identical(fx$data, before)
})

test_that("analysis_loss prints and an ola() release reports it", {
  m <- analysis_loss(y ~ age, poisson(), "age")
  expect_match(format(m), "analysis potential of 'age'")
  expect_output(print(m), "Analysis loss")
  fx <- ola_fixture(100, 2)
  fx$data$y <- rpois(100, 2)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 3, metric = m))
  expect_match(paste(format(res), collapse = "\n"), "analysis")
  expect_error(info_loss(deprecated(ola(fx$data, fx$keys, fx$h, k = 3)), "analysis"),
               class = "epimask_error_value")
})
