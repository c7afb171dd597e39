# The intervals of the attacks (methods vignette 28.3): Wilson's score interval
# against its formula written out and anonymeter's test figures, its coverage
# exactly (a sum over the binomial) and by simulation; the risk's interval
# (variance estimates recovery for the ratio of failure shares) by simulation
# with known rates.

# Wilson (1927), written out: the roots p of (k/n - p)^2 = z^2 p (1 - p) / n.
wilson_roots <- function(k, n, level) {
  z <- qnorm(1 - (1 - level) / 2)
  ph <- k / n
  a <- 1 + z^2 / n
  b <- -(2 * ph + z^2 / n)
  c <- ph^2
  sort(c((-b - sqrt(b^2 - 4 * a * c)) / (2 * a), (-b + sqrt(b^2 - 4 * a * c)) / (2 * a)))
}

test_that("the rates' interval is Wilson's score interval", {
  for (case in list(c(0, 10), c(3, 10), c(10, 10), c(850, 1000), c(1, 4), c(37, 1234))) {
    for (level in c(0.5, 0.9, 0.95, 0.99)) {
      expect_equal(epimask:::wilson_interval(case[[1]], case[[2]], level),
                   wilson_roots(case[[1]], case[[2]], level), tolerance = 1e-12)
    }
  }
})

test_that("anonymeter's test figures for the Wilson interval are reproduced", {
  # anonymeter tests/test_confidence.py: centre +- error of success_rate()
  iv <- function(k, n, level) epimask:::wilson_interval(k, n, level)
  expect_equal(iv(23, 100, 0.95), 0.23998824451588613 + c(-1, 1) * 0.08155558571285167,
               tolerance = 1e-14)
  expect_equal(iv(11, 100, 0.95), 0.1244274643007244 + c(-1, 1) * 0.06188550073007873,
               tolerance = 1e-14)
  expect_equal(iv(100, 100, 0.95), c(0.9815032508965071 - 0.01849674910349284, 1),
               tolerance = 1e-14)
  expect_equal(iv(0, 100, 0.95), c(0, 2 * 0.01849674910349284), tolerance = 1e-14)
  expect_equal(iv(100, 100, 0.68), c(0.9951036894831882 - 0.004896310516811869, 1),
               tolerance = 1e-14)
  # 850 of 1000: centre 0.849, error 0.022 (three decimals)
  w <- iv(850, 1000, 0.95)
  expect_equal(round(mean(w), 3), 0.849)
  expect_equal(round(diff(w) / 2, 3), 0.022)
  # test_linkability_evaluator: 1 of 4 at 0.95 -> (0.045587, 0.699358)
  expect_equal(iv(1, 4, 0.95), c(0.045587, 0.699358), tolerance = 1e-5)
  # the risk's point (test_residual_success): (0.9 - 0.8) / (1 - 0.8) = 0.5
  r <- epimask:::attack_risk(epimask:::attack_rate(900, 1000, 0.95),
                             epimask:::attack_rate(800, 1000, 0.95))
  expect_equal(r$estimate, 0.5)
})

test_that("Wilson's interval covers a Bernoulli rate near its level (exactly and by simulation)", {
  exact_coverage <- function(p, n, level) {
    k <- 0:n
    covers <- vapply(k, function(kk) {
      w <- epimask:::wilson_interval(kk, n, level)
      w[[1]] <= p && p <= w[[2]]
    }, logical(1))
    sum(dbinom(k, n, p)[covers])
  }
  set.seed(38)
  reps <- 4000
  for (case in list(c(0.3, 100), c(0.05, 400), c(0.7, 60))) {
    p <- case[[1]]
    n <- case[[2]]
    exact <- exact_coverage(p, n, 0.95)
    # Wilson's interval is close to its level (Brown, Cai & DasGupta 2001)
    expect_gt(exact, 0.93)
    expect_lt(exact, 0.97)
    k <- rbinom(reps, n, p)
    sim <- mean(vapply(k, function(kk) {
      w <- epimask:::wilson_interval(kk, n, 0.95)
      w[[1]] <= p && p <= w[[2]]
    }, logical(1)))
    # the simulation agrees with the exact sum within 4 binomial standard errors
    expect_lt(abs(sim - exact), 4 * sqrt(exact * (1 - exact) / reps))
  }
})

test_that("the risk's interval covers the true risk near its level (simulation)", {
  set.seed(380)
  reps <- 3000
  se <- sqrt(0.95 * 0.05 / reps)
  cases <- list(c(a = 0.3, c = 0.2, na = 500, nc = 500), c(a = 0.05, c = 0.02, na = 2000, nc = 2000),
                c(a = 0.9, c = 0.5, na = 200, nc = 200), c(a = 0.4, c = 0.25, na = 2000, nc = 500),
                c(a = 0.6, c = 0.1, na = 300, nc = 1000))
  for (cs in cases) {
    truth <- (cs[["a"]] - cs[["c"]]) / (1 - cs[["c"]])
    ka <- rbinom(reps, cs[["na"]], cs[["a"]])
    kc <- rbinom(reps, cs[["nc"]], cs[["c"]])
    covered <- vapply(seq_len(reps), function(i) {
      r <- epimask:::attack_risk(epimask:::attack_rate(ka[[i]], cs[["na"]], 0.95),
                                 epimask:::attack_rate(kc[[i]], cs[["nc"]], 0.95))
      r$interval[[1]] <= truth && truth <= r$interval[[2]]
    }, logical(1))
    expect_gt(mean(covered), 0.95 - 4 * se)
    expect_lt(mean(covered), 0.95 + 4 * se)
  }
})

test_that("no leak (attack and control alike): the interval covers 0 near its level", {
  set.seed(381)
  reps <- 3000
  ka <- rbinom(reps, 1000, 0.2)
  kc <- rbinom(reps, 1000, 0.2)
  lower <- vapply(seq_len(reps), function(i)
    epimask:::attack_risk(epimask:::attack_rate(ka[[i]], 1000, 0.95),
                          epimask:::attack_rate(kc[[i]], 1000, 0.95))$interval[[1]], numeric(1))
  # the lower end is clipped at 0: it covers 0 when it is 0
  expect_gt(mean(lower == 0), 0.95 - 4 * sqrt(0.95 * 0.05 / reps))
})

test_that("a control that always succeeds leaves no room: the risk is NA", {
  r <- epimask:::attack_risk(epimask:::attack_rate(10, 10, 0.95),
                             epimask:::attack_rate(10, 10, 0.95))
  expect_true(is.na(r$value))
  # an attack that always succeeds beats any control that sometimes fails: risk 1
  r <- epimask:::attack_risk(epimask:::attack_rate(100, 100, 0.95),
                             epimask:::attack_rate(30, 100, 0.95))
  expect_equal(r$value, 1)
  expect_gt(r$interval[[1]], 0.9)
  expect_equal(r$interval[[2]], 1)
})
