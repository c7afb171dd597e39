# risk_individual() against numerical integration of methods vignette section 13's integral
# (stats::integrate) and the direct sum of the negative-binomial series.

# E(1/F | f) = integral_0^1 p^f t^(f-1) / (1 - (1-p) t)^f dt, written in
# s = 1 - t (so that 1 - (1-p) t = p + (1-p) s has no cancellation) and
# integrated in pieces: for small p the integrand is a narrow peak at s = 0.
integral_risk <- function(f, F_hat) {
  p <- f / F_hat
  q <- 1 - p
  if (q == 0) return(1 / f)
  g <- function(s) exp(f * log(p) + (f - 1) * log1p(-s) - f * log(p + q * s))
  width <- min(0.5, 40 * p / (q * f))
  cuts <- sort(unique(c(0, pmin(width * c(0.1, 1, 10, 100, 1000), 1), 1)))
  # pieces far from the peak are tiny: an absolute tolerance relative to
  # the order of the result (p / f) stops integrate() chasing round-off there
  scale <- p / (f + 1)
  sum(vapply(seq_len(length(cuts) - 1L), function(k)
    stats::integrate(g, cuts[k], cuts[k + 1L], rel.tol = 1e-12, abs.tol = 1e-14 * scale,
                     subdivisions = 1000L)$value, 0))
}

# sum_{h >= f} (1/h) C(h-1, f-1) p^f (1-p)^(h-f), terms on the log scale.
series_risk <- function(f, F_hat) {
  p <- f / F_hat
  h <- f:(f + 200000)
  sum(exp(-log(h) + lchoose(h - 1, f - 1) + f * log(p) + (h - f) * log1p(-p)))
}

test_that("E(1/F | f) matches integrate() to 1e-10 for every class size", {
  grid <- expand.grid(f = c(1, 2, 3, 4, 7, 20, 150, 1000), ratio = c(1, 1.0001, 1.2, 1.5,
                      2.9, 3, 3.1, 10, 100, 1e4))
  got <- .Call(epimask:::C_individual_risk, list(f = as.double(grid$f),
                                                  F_hat = grid$f * grid$ratio))
  ref <- mapply(integral_risk, grid$f, grid$f * grid$ratio)
  # integrate() is asked for rel.tol 1e-12 on each piece; measured 2e-13
  expect_lt(max(abs(got / ref - 1)), 1e-11)
})

test_that("E(1/F | f) matches the negative-binomial series and the closed forms", {
  for (case in list(c(1, 5), c(2, 3.5), c(3, 30), c(5, 6), c(12, 100), c(40, 50))) {
    got <- .Call(epimask:::C_individual_risk, list(f = case[1], F_hat = case[2]))
    expect_equal(got, series_risk(case[1], case[2]), tolerance = tol_exact)
  }
  p <- 0.05
  # f = 1: the C code evaluates this closed form itself (log1p form, no
  # recursion), so the two differ by a few roundings only (1e-15)
  expect_equal(.Call(epimask:::C_individual_risk, list(f = 1, F_hat = 1 / p)),
               p / (1 - p) * log(1 / p), tolerance = 1e-15)
  expect_equal(.Call(epimask:::C_individual_risk, list(f = 7, F_hat = 7)), 1 / 7)
})

test_that("risk_individual() per record, expected and global risk on weighted data with NA keys", {
  set.seed(5)
  n <- 400
  d <- data.frame(a = sample(c("x", "y", NA), n, TRUE, prob = c(0.7, 0.25, 0.05)),
                  b = sample(1:12, n, TRUE), w = runif(n, 1, 60))
  d <- rbind(d, d[1:4, ])                  # duplicated records
  r <- risk_individual(d, c("a", "b"), weights = "w")
  key <- paste(ifelse(is.na(d$a), "<NA>", d$a), d$b)
  f <- as.vector(table(key)[key])
  F_hat <- as.vector(tapply(d$w, key, sum)[key])
  ref <- mapply(integral_risk, f, F_hat)
  expect_lt(max(abs(r$per_record / ref - 1)), 1e-11)   # as above; measured 1e-14
  expect_equal(r$expected, sum(ref), tolerance = tol_exact)
  expect_equal(r$global, sum(ref) / nrow(d), tolerance = tol_exact)
  expect_equal(sum(r$classes$f), nrow(d))
  expect_equal(r$classes$F_hat[r$group], F_hat, tolerance = tol_exact)
  # a vector of weights gives the same
  expect_equal(risk_individual(d, c("a", "b"), weights = d$w)$per_record, r$per_record)
  # without weights: a census, risk 1/f
  expect_equal(risk_individual(d, c("a", "b"))$per_record, 1 / f)
  # one-record class with weight 1: risk 1
  one <- risk_individual(data.frame(k = c(1, 2, 2)), "k", weights = c(1, 3, 3))
  expect_equal(one$per_record[1], 1)
  expect_equal(one$per_record[2:3], rep(integral_risk(2, 6), 2), tolerance = tol_exact)
})

test_that("weights below 1, NA or non-finite are errors naming `weights`", {
  d <- data.frame(k = c(1, 1, 2))
  for (w in list(c(1, 0.5, 2), c(1, NA, 2), c(1, Inf, 2), c(1, NaN, 2))) {
    err <- tryCatch(risk_individual(d, "k", weights = w), epimask_error = function(e) e)
    expect_s3_class(err, "epimask_error_value")
    expect_match(conditionMessage(err), "`weights`")
  }
  expect_error(risk_individual(d, "k", weights = c(1, 2)), class = "epimask_error_length")
  expect_error(risk_individual(d, "k", weights = "nope"), class = "epimask_error_name")
  expect_error(risk_individual(d, "zz"), class = "epimask_error_name")
})

test_that("print, summary, as.data.frame and plot", {
  d <- dose_cohort
  d$age10 <- cut(d$age_exp, c(0, 20, 40, Inf))
  r <- risk_individual(d, c("city", "sex", "age10"), weights = rep(20, nrow(d)))
  expect_output(print(r), "expected re-identifications")
  expect_output(print(summary(r)), "Riskiest key patterns")
  df <- as.data.frame(r)
  expect_equal(df$risk, r$per_record)
  expect_named(df, c("ID", "city", "sex", "age10", "f", "F_hat", "risk"))
  expect_plot_snapshot("individual risk", function() plot(r))
})
