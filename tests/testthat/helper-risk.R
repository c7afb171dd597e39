# Fixtures for the risk tests: masked data built in plain R (a dense
# row-stochastic kernel matrix, methods vignette section 1.1), and a brute-force R version of
# the matching probability of methods vignette section 5 whose unknown-variable factor is a
# numerical integral (stats::integrate), independent of the closed form in C.

kernel_mask <- function(Z, coords, kernel = c("exponential", "ring"), lambda,
                        source = c(0, 0)) {
  kernel <- match.arg(kernel)
  delta <- switch(kernel,
    exponential = as.matrix(stats::dist(coords)),
    ring = {
      r <- sqrt(rowSums(sweep(coords, 2, source)^2))
      abs(outer(r, r, "-"))
    })
  W <- exp(-delta / lambda)
  A <- W / rowSums(W)
  A %*% as.matrix(Z)
}

# A small point-source data set (methods vignette section 10, example I, in miniature).
risk_fixture <- function(n = 30, seed = 1) {
  set.seed(seed)
  coords <- matrix(runif(2 * n, -1, 1), n, 2)
  d <- sqrt(rowSums(coords^2))
  x <- exp(-2 * d)
  w <- rnorm(n)
  y <- rpois(n, exp(1 + 2 * x))
  list(coords = coords, data = data.frame(x = x, w = w, y = y))
}

# E[(1 - |a - z| / D)_+], z ~ N(mean, sd^2), by adaptive quadrature split at
# the kinks of the triangle and around the normal's mass.
ref_triangle_normal <- function(a, mean, sd, half_width) {
  if (half_width == 0) return(1)
  if (sd == 0) return(max(0, 1 - abs(a - mean) / half_width))
  lo <- a - half_width
  hi <- a + half_width
  cuts <- c(lo, a, hi, mean + sd * c(-10, 10))
  cuts <- sort(unique(cuts[cuts >= lo & cuts <= hi]))
  f <- function(z) pmax(0, 1 - abs(a - z) / half_width) * stats::dnorm(z, mean, sd)
  sum(vapply(seq_len(length(cuts) - 1L), function(k)
    stats::integrate(f, cuts[k], cuts[k + 1L], rel.tol = 1e-12,
                     abs.tol = 1e-300, subdivisions = 500L)$value, numeric(1)))
}

ref_risk_match <- function(original, masked, known, unknown = NULL) {
  n <- nrow(masked)
  Mk <- as.matrix(masked[, known, drop = FALSE])
  Ok <- as.matrix(original[, known, drop = FALSE])
  reg <- lapply(unknown, function(u) {
    fit <- stats::lm(masked[[u]] ~ Mk)
    b <- stats::coef(fit)
    b[is.na(b)] <- 0
    list(values = masked[[u]], coef = b,
         sigma = sqrt(sum(stats::residuals(fit)^2) / (n - fit$rank)),
         range = max(masked[[u]]) - min(masked[[u]]))
  })
  per_target <- lapply(seq_len(n), function(i) {
    t <- Ok[i, ]
    score <- rep(1, n)
    for (v in seq_along(known)) {
      dist <- abs(Mk[, v] - t[v])
      if (max(dist) > min(dist)) score <- score * (1 - dist / max(dist))
    }
    for (r in reg) {
      m <- sum(c(1, t) * r$coef)
      u <- unique(r$values)
      p_u <- vapply(u, ref_triangle_normal, numeric(1), mean = m, sd = r$sigma,
                    half_width = r$range)
      score <- score * p_u[match(r$values, u)]
    }
    if (max(score) == 0) return(c(1 / n, 1 / n, n, 1))
    top <- score >= max(score) * (1 - 1e-12)
    c(score[i] / sum(score), max(score) / sum(score), sum(top), top[i])
  })
  pt <- do.call(rbind, per_target)
  c_ <- pt[, 3]
  I_ <- pt[, 4]
  list(prob_true = pt[, 1], prob_max = pt[, 2], c = as.integer(c_),
       I = as.integer(I_), expected = sum(I_ / c_),
       true_rate = mean(c_ == 1 & I_ == 1),
       false_rate = if (any(c_ == 1)) sum(c_ == 1 & I_ == 0) / sum(c_ == 1) else NA_real_,
       sigma = vapply(reg, `[[`, numeric(1), "sigma"))
}

expect_match_equal <- function(got, want) {
  expect_equal(got$per_target$prob_true, want$prob_true, tolerance = tol_exact)
  expect_equal(got$per_target$prob_max, want$prob_max, tolerance = tol_exact)
  expect_identical(got$per_target$c, want$c)
  expect_identical(got$per_target$I, want$I)
  expect_equal(got$expected_match_risk, want$expected, tolerance = tol_exact)
  expect_equal(got$percent_correct, 100 * want$expected / length(want$c),
               tolerance = tol_exact)
  expect_equal(got$true_match_rate, want$true_rate)
  expect_equal(got$false_match_rate, want$false_rate)
}

# A source database and 64 released records with exactly 35 unique, 3 double
# and 1 triple true matches (Cologne Table 1(a)) and 25 released records with
# no match. Ids are person identifiers.
cologne_fixture <- function() {
  doses <- seq(0.001, by = 0.001, length.out = 64)
  # 35 singles, 3 doubles, 1 triple among the first 39 released persons
  copies <- c(rep(1, 35), rep(2, 3), 3, rep(0, 25))
  source <- data.frame(id = integer(0), dose = numeric(0))
  released <- data.frame(id = 1:64, dose = doses)
  next_id <- 1000L
  for (k in seq_along(doses)) {
    if (copies[k] == 0) next
    others <- if (copies[k] > 1) next_id + seq_len(copies[k] - 1) else integer(0)
    next_id <- next_id + length(others)
    source <- rbind(source, data.frame(id = c(k, others), dose = doses[k]))
  }
  # unrelated people whose doses match nothing released
  filler <- data.frame(id = 5000L + 1:200, dose = 10 + (1:200) / 7)
  list(released = released, source = rbind(source, filler))
}
