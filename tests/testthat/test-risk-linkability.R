# The linkability attack (methods vignette 28.5): every target's neighbours
# recomputed by a brute-force loop over every released record, the rates
# recounted; anonymeter's test fixture; copies and independent draws.

test_that("anonymeter's linkability fixture: 1 of 4 linked with one neighbour, 4 of 4 with two", {
  ori <- data.frame(col0 = c(0, 0, 4, 0), col1 = c(0, 1, 9, 4))
  syn <- data.frame(col0 = c(0, 1, 4, 9), col1 = c(0, 1, 4, 9))
  ctrl <- data.frame(col0 = c(2, 7, 5), col1 = c(3, 8, 6))
  one <- risk_linkability(ori, syn, control = ctrl, aux = list("col0", "col1"), seed = 1)
  expect_identical(one$attack$successes, 1L)
  expect_equal(one$attack$rate, 0.25)
  # anonymeter: (0.045587, 0.699358) at 95%
  expect_equal(one$attack$interval, c(0.045587, 0.699358), tolerance = 1e-5)
  two <- risk_linkability(ori, syn, control = ctrl, aux = list("col0", "col1"),
                          n_neighbors = 2, seed = 1)
  expect_equal(two$attack$rate, 1)
})

test_that("the links equal a brute-force search of every released record", {
  d <- mixed_data(400, 31, na_share = 0.05)
  rel <- d
  rel$age <- rel$age + sample(-3:3, nrow(d), replace = TRUE)
  rel$bmi <- round(rel$bmi)
  aux <- list(c("age", "sex", "visit"), c("bmi", "region", "smoker", "stage"))
  for (k in c(1L, 3L)) {
    res <- risk_linkability(d, rel, aux = aux, n_neighbors = k, n_attacks = 80, seed = k)
    target <- d[res$rows$target, ]
    control <- d[res$rows$control, ]
    attacked <- rel[res$rows$target, ]
    all <- rbind(target, control, attacked)
    for (set in c("attack", "control")) {
      det <- res$details[res$details$set == set, ]
      q <- d[det$row, ]
      a <- ref_knn(q, attacked, aux[[1]], k, all)
      b <- ref_knn(q, attacked, aux[[2]], k, all)
      linked <- vapply(seq_len(nrow(q)), function(i) any(a$idx[, i] %in% b$idx[, i]), logical(1))
      expect_identical(det$linked, linked, info = paste(set, k))
      expect_identical(det$nearest_1, res$rows$target[a$idx[1, ]], info = paste(set, k))
      expect_identical(det$nearest_2, res$rows$target[b$idx[1, ]], info = paste(set, k))
    }
    expect_identical(res$attack$successes, sum(res$details$linked[res$details$set == "attack"]))
    expect_identical(res$control$successes, sum(res$details$linked[res$details$set == "control"]))
    expect_identical(res$attack$n, 80L)
  }
})

test_that("with a person column a person is linked when one of their records is", {
  d <- mixed_data(300, 32, na_share = 0)
  d$pid <- rep(1:100, each = 3)
  res <- risk_linkability(d, d, aux = list(c("age", "bmi"), c("region", "visit")),
                          n_attacks = 30, seed = 2, id = "pid")
  expect_identical(res$unit, "persons")
  det <- res$details[res$details$set == "attack", ]
  by_person <- tapply(det$linked, d$pid[det$row], any)
  expect_identical(res$attack$successes, sum(by_person))
  expect_identical(res$attack$n, 30L)
  # every record of a chosen person is tried
  expect_true(all(table(d$pid[det$row]) == 3L))
})

test_that("a copy of the original has risk near 1, an independent draw near 0", {
  d <- mixed_data(3000, 33, na_share = 0, dup = FALSE)
  d$x <- rnorm(3000)
  d$y <- rnorm(3000)
  aux <- list(c("x", "age", "sex"), c("y", "bmi", "region"))
  copy <- risk_linkability(d, d, aux = aux, n_attacks = 500, seed = 1)
  expect_gt(copy$attack$rate, 0.99)
  expect_gt(copy$risk$value, 0.95)
  other <- mixed_data(3000, 34, na_share = 0, dup = FALSE)
  other$x <- rnorm(3000)
  other$y <- rnorm(3000)
  ind <- risk_linkability(d, other, aux = aux, n_attacks = 500, seed = 1)
  expect_lt(ind$risk$value, 0.05)
  expect_identical(ind$risk$interval[[1]], 0)
})

test_that("the baseline links at the rate of two random sets of k among m", {
  # anonymeter test_baseline: k = 2 of 4 released records -> 1 - 1 / choose(4, 2) = 5/6
  ori <- data.frame(c0 = sample(c("a", "b"), 400, replace = TRUE),
                    c1 = sample(c("a", "b"), 400, replace = TRUE))
  syn <- data.frame(c0 = c("a", "b", "a", "a"), c1 = c("a", "b", "a", "a"))
  ctrl <- data.frame(c0 = "b", c1 = "a")
  res <- risk_linkability(ori, syn, control = ctrl, aux = list("c0", "c1"), n_neighbors = 2,
                          n_attacks = 400, seed = 3)
  p <- 1 - choose(2, 2) / choose(4, 2)
  expect_lt(abs(res$baseline$rate - p), 4 * sqrt(p * (1 - p) / 400))
})

test_that("serial, threads and a future backend give the same result", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  lib <- Sys.getenv("EPIMASK_TEST_LIB")
  skip_if(!nzchar(lib), "EPIMASK_TEST_LIB (an installed copy for the workers) not set")
  d <- mixed_data(3000, 35, na_share = 0.02)
  rel <- d
  rel$age <- rel$age + sample(-2:2, nrow(d), replace = TRUE)
  aux <- list(c("age", "sex"), c("bmi", "region", "visit"))
  serial <- risk_linkability(d, rel, aux = aux, n_attacks = 400, seed = 9,
                             options = attack_options(threads = 1))
  threaded <- risk_linkability(d, rel, aux = aux, n_attacks = 400, seed = 9,
                               options = attack_options(threads = 2))
  expect_identical(threaded$details, serial$details)
  old_lib <- .libPaths()
  .libPaths(c(lib, old_lib))
  on.exit(.libPaths(old_lib), add = TRUE)
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  par <- risk_linkability(d, rel, aux = aux, n_attacks = 400, seed = 9,
                          options = attack_options(parallel = TRUE))
  expect_identical(par$details, serial$details)
  expect_identical(par$risk, serial$risk)
})

test_that("n_attacks = Inf attacks every target and tries every control record", {
  d <- mixed_data(300, 36, na_share = 0)
  res <- risk_linkability(d, d, aux = list(c("age", "sex"), c("bmi", "region")), n_attacks = Inf,
                          seed = 1)
  expect_identical(res$attack$n, 150L)
  expect_identical(res$control$n, 150L)
  inf <- risk_inference(d, d, aux = c("age", "sex"), secret = "bmi", n_attacks = Inf, seed = 1)
  expect_identical(inf$attack$n + inf$control$n, 300L)
})

test_that("n_attacks = NULL (the default): every target up to 2,000, else a seeded sample of 2,000", {
  aux <- list(c("age", "sex"), c("bmi", "region"))
  small <- mixed_data(600, 37, na_share = 0)
  # 300 targets and 300 control records: all of them, as with Inf
  res <- risk_linkability(small, small, aux = aux, seed = 1)
  expect_identical(c(res$attack$n, res$control$n), c(300L, 300L))
  expect_identical(res$details, risk_linkability(small, small, aux = aux, n_attacks = Inf,
                                                 seed = 1)$details)
  big <- mixed_data(4400, 38, na_share = 0)
  # 2,200 targets and 2,200 control records: 2,000 of each, the same for the same seed
  a <- risk_linkability(big, big, aux = aux, seed = 2)
  expect_identical(c(a$attack$n, a$control$n), c(2000L, 2000L))
  expect_identical(a$details, risk_linkability(big, big, aux = aux, n_attacks = 2000,
                                               seed = 2)$details)
  rows <- a$details$row[a$details$set == "attack"]
  expect_identical(anyDuplicated(rows), 0L)
  expect_true(all(rows %in% seq_len(nrow(big))))
  b <- risk_linkability(big, big, aux = aux, seed = 3)
  expect_false(identical(rows, b$details$row[b$details$set == "attack"]))
  inf <- risk_inference(big, big, aux = c("age", "sex"), secret = "bmi", seed = 2)
  expect_identical(c(inf$attack$n, inf$control$n), c(2000L, 2000L))
  # the criteria take the same default
  crit <- inference(aux = c("age", "sex"), secret = "bmi", seed = 2)
  expect_null(crit$n_attacks)
  expect_identical(criterion_evaluate(crit, big, original = big)$detail$attack$n, 2000L)
  expect_error(risk_linkability(big, big, aux = aux, n_attacks = 0), class = "epimask_error_value")
})
