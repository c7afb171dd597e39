# ola() with k-map from a sampling fraction (population = population_model(),
# ARX's derived k, criteria/KMap.java) and population uniqueness as a
# criterion (uniqueness = list(pi, model, max)), against formulas written out
# here and the exhaustive search of helper-ola-targets.R.

# ARX's derived k, written out: lambda = pi k; the smallest c with
# P(X <= c) >= 1 - alpha summed term by term from the Poisson probabilities
# (c >= 0), or the zero-truncated ones (c >= 1); KMap.java returns c + 2
# (Poisson) or c + 1 (zero-truncated) and caps it at n and at k.
derived_k_by_hand <- function(k, pi, alpha, estimator, n) {
  lambda <- pi * k
  c <- 0:(k + 100)
  p <- exp(-lambda + c * log(lambda) - lgamma(c + 1))   # lambda^c e^-lambda / c!
  if (estimator == "poisson") {
    first <- c[cumsum(p) >= 1 - alpha][1]
    d <- first + 2
  } else {
    zt <- cumsum(p[-1]) / (1 - exp(-lambda))   # P(X <= c | X >= 1), c = 1, 2, ...
    first <- c[-1][zt >= 1 - alpha][1]
    d <- first + 1
  }
  min(d, n, k)
}

test_that("ARX's derived k of k-map equals the formula written out", {
  # by hand: lambda = 1; Poisson P(X <= 3) = 0.9810 < 0.99 <= P(X <= 4) =
  # 0.9963: c = 4, k = 6; zero-truncated P(X <= 3 | X >= 1) = 0.9697,
  # P(X <= 4 | X >= 1) = 0.9942: c = 4, k = 5
  expect_identical(epimask:::kmap_derived_k(10, 0.1, 0.01, "poisson", 1000), 6L)
  expect_identical(epimask:::kmap_derived_k(10, 0.1, 0.01, "zero_truncated", 1000), 5L)
  for (k in c(1, 2, 3, 5, 10, 50, 200))
    for (pi in c(0.001, 0.01, 0.05, 0.2, 0.5, 1))
      for (alpha in c(0.01, 0.05, 0.2))
        for (est in c("poisson", "zero_truncated"))
          for (n in c(4, 1000))
            expect_identical(epimask:::kmap_derived_k(k, pi, alpha, est, n),
                             as.integer(derived_k_by_hand(k, pi, alpha, est, n)),
                             label = sprintf("k %d pi %s alpha %s %s n %d", k, pi, alpha, est, n))
})

test_that("k-map from a population model equals k-anonymity at the derived k, exhaustively", {
  metrics <- c("entropy", "precision", "discernibility", "avg_class_size")
  fx <- ola_fixture(150, 21)
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  cases <- list(list(k = 1, k_map = 40, pi = 0.1, alpha = 0.05, est = "poisson"),
                list(k = 1, k_map = 100, pi = 0.05, alpha = 0.01, est = "zero_truncated"),
                list(k = 4, k_map = 20, pi = 0.02, alpha = 0.01, est = "poisson"))
  for (cs in cases) {
    dk <- derived_k_by_hand(cs$k_map, cs$pi, cs$alpha, cs$est, nrow(fx$data))
    k_eff <- max(cs$k, dk)
    for (metric in metrics) for (ms in c(0, 0.1)) {
      ref <- brute_target_optimum(fx$data, fx$keys, h, metric, k = k_eff, max_suppress = ms)
      res <- deprecated(ola(fx$data, fx$keys, fx$h, k = cs$k, max_suppress = ms, metric = metric,
                 k_map = cs$k_map, population = population_model(cs$pi),
                 k_map_alpha = cs$alpha, k_map_estimator = cs$est))
      label <- sprintf("%s, max_suppress %s, k_map %d", metric, ms, cs$k_map)
      expect_identical(res$criteria$k_map_model$derived_k, as.integer(dk), label = label)
      expect_identical(res$k, as.integer(k_eff), label = label)
      expect_identical(unname(res$levels), as.integer(ref$levels), label = label)
      expect_equal(info_loss(res, metric), ref$loss, tolerance = tol_exact, label = label)
      expect_identical(res$suppressed, which(ref$supp), label = label)
    }
  }
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 1, k_map = 40, population = population_model(0.1)))
  expect_match(paste(format(res), collapse = "\n"), "k-map 40 at sampling fraction 0.1")
})

# zayatz_share_by_hand(): in helper-ola-targets.R (shared with test-ola-persons.R).

expect_uniqueness_optimum <- function(fx, metric, k, max_suppress, spec, share) {
  h <- epimask:::check_hierarchies(fx$h, fx$keys, fx$data)
  ref <- brute_target_optimum(fx$data, fx$keys, h, metric, k = k, max_suppress = max_suppress,
                              uniqueness = list(share = share, max = spec$max))
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = k, max_suppress = max_suppress, metric = metric,
             uniqueness = spec))
  label <- sprintf("%s, k %d, max_suppress %s, %s max %s", metric, k, max_suppress,
                   spec$model, spec$max)
  expect_matches_optimum(res, ref, metric, label)
}

test_that("population uniqueness (Zayatz) equals the exhaustive search over every node", {
  metrics <- c("entropy", "precision", "discernibility", "avg_class_size")
  fx <- ola_fixture(150, 22)
  pi <- 0.05
  for (metric in metrics)
    for (ms in c(0, 0.05, 0.2))
      for (mx in c(0.002, 0.01, 0.03))
        expect_uniqueness_optimum(fx, metric, k = 1, max_suppress = ms,
                                  spec = list(pi = pi, model = "zayatz", max = mx),
                                  share = zayatz_share_by_hand(pi))
  # with k = 2 and outliers "small" the released classes have no uniques
  expect_uniqueness_optimum(fx, "entropy", k = 2, max_suppress = 0.1,
                            spec = list(pi = pi, model = "zayatz", max = 0.002),
                            share = zayatz_share_by_hand(pi))
})

test_that("population uniqueness (Dankar's rule, Pitman) equals the exhaustive search", {
  # the estimate of each node's release by risk_population() (tested on its
  # own in test-risk-population.R), the population size kept at round(n / pi)
  fx <- ola_fixture(120, 23)
  pi <- 0.02
  share_of <- function(model) function(size, n_data) {
    if (!length(size)) return(0)
    N <- round(n_data / pi)
    d <- data.frame(key = rep(seq_along(size), size))
    suppressWarnings(risk_population(d, "key", pi = sum(size) / N, model = model)$uniques) / N
  }
  for (model in c("dankar", "pitman"))
    for (mx in c(0.005, 0.02))
      expect_uniqueness_optimum(fx, "precision", k = 1, max_suppress = 0.05,
                                spec = list(pi = pi, model = model, max = mx),
                                share = share_of(model))
})

test_that("the uniqueness criterion is reported and bad input is refused", {
  fx <- ola_fixture(150, 22)
  res <- deprecated(ola(fx$data, fx$keys, fx$h, k = 1, uniqueness = list(pi = 0.05, max = 0.03)))
  expect_identical(res$criteria$uniqueness, list(pi = 0.05, model = "dankar", max = 0.03))
  expect_match(paste(format(res), collapse = "\n"), "population uniqueness <= 0.03")
  call <- function(...) deprecated(ola(fx$data, fx$keys, fx$h, k = 1, ...))
  expect_error(call(uniqueness = 0.05), class = "epimask_error_type")
  expect_error(call(uniqueness = list(pi = 0.05)), class = "epimask_error_type")
  expect_error(call(uniqueness = list(pi = 2, max = 0.1)), class = "epimask_error_value")
  expect_error(call(uniqueness = list(pi = 0.1, max = 0.1, model = "x")),
               class = "epimask_error_value")
  expect_error(call(uniqueness = list(pi = 0.1, max = 2)), class = "epimask_error_value")
  expect_error(call(uniqueness = list(pi = 0.1, max = 0.1), local = TRUE),
               class = "epimask_error_value")
  expect_error(call(k_map = 5, population = population_model(0.1), k_map_alpha = 0),
               class = "epimask_error_value")
  expect_error(call(k_map = 5, population = population_model(0.1), k_map_estimator = "x"),
               class = "epimask_error")
})
