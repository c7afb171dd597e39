# The inference attack (methods vignette 28.6): every guess recomputed by a
# brute-force nearest-record search on the raw data, the tolerance rule by
# hand, anonymeter's fixtures; copies and independent draws.

test_that("anonymeter's inference fixtures: attack rates 1, 0.5 and 0", {
  ori <- data.frame(c0 = c("a", "c"), c1 = c("b", "d"))
  ctrl <- data.frame(c0 = c("a", "c", "x"), c1 = c("q", "r", "s"))
  cases <- list(list(syn = data.frame(c0 = c("a", "c"), c1 = c("b", "d")), rate = 1),
                list(syn = data.frame(c0 = c("a", "c"), c1 = c("b", "e")), rate = 0.5),
                list(syn = data.frame(c0 = c("a", "c"), c1 = c("h", "g")), rate = 0))
  for (cs in cases) {
    res <- risk_inference(ori, cs$syn, control = ctrl, aux = "c0", secret = "c1", seed = 1)
    expect_equal(res$attack$rate, cs$rate)
  }
})

test_that("a number is guessed right within tolerance of the true value, relative to its size", {
  right <- function(g, s, tol)
    epimask:::guess_right(g, s, TRUE, list(relative = TRUE, tolerance = tol))
  # anonymeter's cases (tests/test_inference_evaluator.py), where epimask divides by
  # the true value: |g - s| <= tol |s|
  expect_identical(right(c(1, 1), c(1.05, 1.06), 0.05), c(TRUE, FALSE))
  expect_identical(right(c(1, 1), c(1.05, 1.06), 0.06), c(TRUE, TRUE))
  expect_identical(right(c(1, NA), c(1.05, NA), 0.06), c(TRUE, TRUE))
  expect_identical(right(c(1, NA), c(NA, 1.06), 0.06), c(FALSE, FALSE))
  expect_identical(right(c(1, 1), c(1.05, 1.06), 0.04), c(FALSE, FALSE))
  # anonymeter: (1.0 vs 1.26, tolerance 0.25) is wrong, dividing by the guess (0.26 > 0.25);
  # relative to the truth 0.26 / 1.26 = 0.206 is within
  expect_identical(right(c(1, 1), c(1.26, 1.25), 0.25), c(TRUE, TRUE))
  # a negative guess is not right for every secret (anonymeter's division by the signed guess)
  expect_identical(right(c(-5, -1), c(3, -1.02), 0.05), c(FALSE, TRUE))
  # zero: only zero
  expect_identical(right(c(0, 0.001), c(0, 0), 0.05), c(TRUE, FALSE))
})

test_that("the guesses equal a brute-force nearest released record, the rates a recount", {
  d <- mixed_data(400, 41, na_share = 0.05)
  rel <- d
  rel$bmi <- round(rel$bmi)
  rel$age <- rel$age + sample(-2:2, nrow(d), replace = TRUE)
  for (secret in c("bmi", "region", "visit")) {
    aux <- setdiff(c("age", "sex", "smoker", "stage", "visit"), secret)
    res <- risk_inference(d, rel, aux = aux, secret = secret, tolerance = 0.05,
                          n_attacks = 90, seed = 4)
    target <- d[res$rows$target, ]
    control <- d[res$rows$control, ]
    attacked <- rel[res$rows$target, ]
    all <- rbind(target, control, attacked)
    date_tol <- 0.05 * as.double(diff(range(all$visit, na.rm = TRUE)))
    for (set in c("attack", "control")) {
      det <- res$details[res$details$set == set, ]
      q <- d[det$row, ]
      nn <- ref_knn(q, attacked, aux, 1L, all)
      expect_identical(det$nearest, res$rows$target[nn$idx[1, ]], info = paste(secret, set))
      expect_equal(det$distance, nn$dist[1, ], tolerance = 1e-15)
      g <- attacked[[secret]][nn$idx[1, ]]
      s <- q[[secret]]
      ok <- if (secret == "region") ifelse(is.na(g) | is.na(s), is.na(g) & is.na(s), g == s)
        else if (secret == "visit") ifelse(is.na(g) | is.na(s), is.na(g) & is.na(s),
                                           abs(as.double(g) - as.double(s)) <= date_tol)
        else ifelse(is.na(g) | is.na(s), is.na(g) & is.na(s), abs(g - s) <= 0.05 * abs(s))
      expect_identical(det$right, ok, info = paste(secret, set))
    }
    expect_identical(res$attack$successes, sum(res$details$right[res$details$set == "attack"]))
    expect_identical(res$control$successes, sum(res$details$right[res$details$set == "control"]))
  }
})

test_that("a copy of the original has risk near 1, an independent draw near 0", {
  d <- mixed_data(3000, 42, na_share = 0, dup = FALSE)
  d$x <- rnorm(3000)
  d$secret <- factor(sample(letters[1:4], 3000, replace = TRUE))
  aux <- c("x", "age", "sex", "region")
  copy <- risk_inference(d, d, aux = aux, secret = "secret", n_attacks = 500, seed = 1)
  expect_equal(copy$attack$rate, 1)
  expect_gt(copy$risk$value, 0.95)
  other <- mixed_data(3000, 43, na_share = 0, dup = FALSE)
  other$x <- rnorm(3000)
  other$secret <- factor(sample(letters[1:4], 3000, replace = TRUE))
  ind <- risk_inference(d, other, aux = aux, secret = "secret", n_attacks = 500, seed = 1)
  expect_lt(ind$risk$value, 0.1)
  expect_identical(ind$risk$interval[[1]], 0)
  # a secret the aux predict (the same for the persons and the control): no leak either
  d$pred <- d$age + rnorm(3000, 0, 5) > 50
  other$pred <- other$age + rnorm(3000, 0, 5) > 50
  pr <- risk_inference(d, other, aux = c("age", "sex"), secret = "pred", n_attacks = 500,
                       seed = 1)
  expect_gt(pr$control$rate, 0.7)
  expect_identical(pr$risk$interval[[1]], 0)
  # a secret the aux determine: the control always succeeds, no leak can be measured
  d$det <- d$age > 50
  det <- risk_inference(d, d, aux = c("age", "sex"), secret = "det", n_attacks = 200, seed = 1)
  expect_equal(det$control$rate, 1)
  expect_true(is.na(det$risk$value))
  expect_match(paste(format(det), collapse = " "), "always succeeds")
})

test_that("with a person column a person's secret is guessed right when one record's guess is", {
  d <- mixed_data(300, 44, na_share = 0)
  d$pid <- rep(1:100, each = 3)
  res <- risk_inference(d, d, aux = c("age", "sex", "region"), secret = "smoker",
                        n_attacks = 40, seed = 3, id = "pid")
  expect_identical(res$unit, "persons")
  det <- res$details[res$details$set == "attack", ]
  expect_identical(res$attack$successes, sum(tapply(det$right, d$pid[det$row], any)))
  ctl <- res$details[res$details$set == "control", ]
  expect_identical(res$control$successes, sum(tapply(ctl$right, d$pid[ctl$row], any)))
  expect_length(intersect(d$pid[det$row], d$pid[ctl$row]), 0L)
})
