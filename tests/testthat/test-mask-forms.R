# Correlated noise (a covariance test), top coding against direct R, one-pass
# grouping against the per-interval loop, and the mask_scheme contract shared
# by every form of methods vignette section 15 (class, shape, order, input untouched, no
# parameters in the result, set.seed, ru_profile).

test_that("correlated noise has covariance amount * Sigma (LR test, false-alarm rate 0.1%)", {
  set.seed(41)
  n <- 20000
  L <- matrix(c(1, 0.6, -0.3, 0, 0.8, 0.4, 0, 0, 0.5), 3)
  Z <- matrix(rnorm(n * 3), n) %*% L + rep(c(10, 50, -2), each = n)
  d <- data.frame(a = Z[, 1], b = Z[, 2], c = Z[, 3])
  amount <- 0.3
  out <- apply_mask(d, mask_noise(amount, "correlated"))
  E <- as.matrix(out) - Z
  Sigma0 <- amount * cov(Z)
  S <- crossprod(E) / n                     # the noise has mean 0 by construction
  A <- solve(Sigma0, S)
  lr <- n * (sum(diag(A)) - log(det(A)) - 3)  # Wishart LR statistic, 6 df
  expect_gt(pchisq(lr, 6, lower.tail = FALSE), 0.001)
  # mean zero: Hotelling T^2 with known covariance, 3 df
  m <- colMeans(E)
  expect_gt(pchisq(n * drop(m %*% solve(Sigma0, m)), 3, lower.tail = FALSE), 0.001)
  # the release keeps the correlations: the noise's own sample correlations
  # move them by about sqrt(0.3 / 1.3) / sqrt(n) = 0.0034 (measured 0.0033
  # for the largest of 3); 4 of those
  expect_lt(max(abs(cor(out) - cor(Z))), 0.014)
})

test_that("correlated noise: singular covariance, NA, lower bound, reproducible", {
  set.seed(42)
  d <- data.frame(x = rnorm(500), k = 3, y = NA_real_)
  d$y <- 2 * d$x
  d$y[5] <- NA
  out <- apply_mask(d, mask_noise(0.5, "correlated", lower = -1))
  expect_true(all(is.finite(out$x)) && all(out$x >= -1))
  expect_equal(out$k, rep(3, 500), tolerance = tol_exact)   # no variance, no noise
  expect_true(is.na(out$y[5]))
  set.seed(7); r1 <- apply_mask(d, mask_noise(0.5, "correlated"))
  # y = 2 x: the noise lies along the same line (a singular Sigma)
  expect_equal(r1$y[-5] - d$y[-5], 2 * (r1$x[-5] - d$x[-5]), tolerance = tol_exact)
  # 0.15: a variance of 499 normal draws has relative SE sqrt(2 / 498) = 0.063 (seed 7 fixed)
  expect_equal(var(r1$x - d$x), 0.5 * var(d$x[-5]), tolerance = 0.15)
  set.seed(7); r2 <- apply_mask(d, mask_noise(0.5, "correlated"))
  expect_identical(r1, r2)
  expect_identical(format(mask_noise(0.1, "correlated")), "correlated noise, amount = 0.1")
  expect_error(apply_mask(data.frame(x = c(1, NA)), mask_noise(1, "correlated")),
               class = "epimask_error_value")
  inf <- apply_mask(data.frame(x = c(1, 2, 3, Inf)), mask_noise(1, "correlated"))$x
  expect_identical(inf[4], Inf)
  expect_true(all(is.finite(inf[1:3])))
})

test_that("top and bottom coding equal direct R", {
  set.seed(43)
  x <- c(round(rexp(300, 0.02)), NA)
  d <- data.frame(x = x)
  expect_identical(apply_mask(d, mask_topcode(upper = 90))$x, ifelse(x > 90, 90, x))
  above <- !is.na(x) & x > 60
  expect_identical(apply_mask(d, mask_topcode(upper = 60, value = "mean"))$x,
                   replace(x, above, mean(x[above])))
  expect_identical(apply_mask(d, mask_topcode(lower = 5))$x, ifelse(x < 5, 5, x))
  both <- apply_mask(d, mask_topcode(upper = 60, lower = 5, value = "mean"))$x
  below <- !is.na(x) & x < 5
  expect_identical(both, replace(replace(x, above, mean(x[above])), below, mean(x[below])))
  s <- summary(mask_topcode(upper = 60, lower = 5), d)
  expect_identical(s$table$above, sum(above))
  expect_identical(s$table$below, sum(below))
  expect_identical(s$table$n, sum(!is.na(x)))
  expect_equal(s$table$share, (sum(above) + sum(below)) / sum(!is.na(x)))
  expect_output(print(s), "above")
  expect_identical(format(mask_topcode(upper = 90)), "top coding at 90")
  expect_identical(format(mask_topcode(upper = 60, lower = 5, value = "mean")),
                   "top coding above 60, bottom coding below 5 to the means")
  expect_output(print(mask_topcode(lower = 0)), "values below 0 become 0")
  expect_identical(mask_topcode(upper = 90)$degree, 90)
  expect_error(mask_topcode(), class = "epimask_error_value")
  expect_error(mask_topcode(upper = 1, lower = 2), class = "epimask_error_value")
  expect_error(mask_topcode(upper = 1, value = "median"), class = "epimask_error_value")
})

# interval means by an explicit loop over the intervals (as test-mask.R)
loop_group_means <- function(x, breaks) {
  out <- rep(NA_real_, length(x))
  nb <- length(breaks)
  for (j in seq_len(nb - 1)) {
    inside <- !is.na(x) & x >= breaks[j] & (x < breaks[j + 1] | (j == nb - 1 & x == breaks[j + 1]))
    out[inside] <- mean(x[inside])
  }
  out
}

test_that("grouping with many intervals equals the per-interval loop", {
  set.seed(44)
  x <- c(rnorm(3000), NA)
  breaks <- c(-Inf, sort(sample(x[!is.na(x)], 900)), Inf)
  expect_equal(apply_mask(data.frame(x = x), mask_group(breaks))$x, loop_group_means(x, breaks),
               tolerance = 1e-13)  # (tighter than tol_exact)
})

form_schemes <- function() {
  list(mask_microagg(3), mask_microagg(4, "univariate"), mask_swap(10),
       mask_noise(0.2, "correlated"), mask_topcode(upper = 1, lower = -1, value = "mean"),
       mask_group(c(-Inf, -1, 0, 1, Inf)))
}

test_that("every form keeps class, shape, order and names, and never changes its input", {
  set.seed(45)
  d <- data.frame(id = sprintf("r%02d", 1:40), x = rnorm(40), y = rnorm(40), g = factor(rep(1:4, 10)))
  rownames(d) <- sprintf("person%d", 1:40)
  copy <- d
  for (s in form_schemes()) {
    out <- apply_mask(d, s, c("x", "y"))
    expect_identical(class(out), class(d))
    expect_identical(dim(out), dim(d))
    expect_identical(names(out), names(d))
    expect_identical(out$id, d$id)
    expect_identical(out$g, d$g)
    expect_identical(rownames(out), rownames(d))   # the caller's rows, matchable by name
    expect_setequal(names(attributes(out)), names(attributes(d)))
    expect_false(any(c("k", "p", "amount", "upper") %in% names(attributes(out$x))))
    m <- apply_mask(as.matrix(d[c("x", "y")]), s)
    expect_true(is.matrix(m) && identical(dim(m), c(40L, 2L)))
    expect_identical(rownames(m), rownames(d))
    if (requireNamespace("tibble", quietly = TRUE))
      expect_s3_class(apply_mask(tibble::as_tibble(d), s, c("x", "y")), "tbl_df")
    if (requireNamespace("data.table", quietly = TRUE)) {
      dt <- data.table::as.data.table(d)
      dt_copy <- data.table::copy(dt)
      expect_s3_class(apply_mask(dt, s, c("x", "y")), "data.table")
      expect_identical(dt, dt_copy)
    }
  }
  pram <- apply_mask(d, mask_pram(0.5), "g")
  expect_identical(pram[c("id", "x", "y")], d[c("id", "x", "y")])
  expect_identical(d, copy)
})

test_that("row order: masking permuted records gives the permuted release (deterministic forms)", {
  set.seed(46)
  d <- data.frame(x = rnorm(30), y = rnorm(30))
  idx <- sample(30)
  for (s in list(mask_microagg(3, "univariate"), mask_topcode(upper = 0.5))) {
    expect_equal(apply_mask(d[idx, ], s), apply_mask(d, s)[idx, ])
  }
  # MDAV's groups follow the records up to ties: same group partition
  out <- apply_mask(d, mask_microagg(3))
  perm <- apply_mask(d[idx, ], mask_microagg(3))
  expect_equal(sort(perm$x), sort(out$x))
})

test_that("the forms work in ru_profile(), randomized ones over replicates", {
  set.seed(47)
  n <- 300
  d <- data.frame(x = rnorm(n), z = rnorm(n))
  d$y <- rpois(n, exp(0.2 + 0.5 * d$x))
  d$grp <- factor(sample(c("a", "b", "c"), n, TRUE))
  schemes <- c(mask_none(), mask_microagg(5), mask_microagg(5, "univariate"), mask_swap(5),
               mask_noise(0.1, "correlated"), mask_topcode(upper = 1.5))
  ru <- ru_profile(d, schemes, y ~ x, family = poisson(), vars = c("x", "z"), risk = "none",
                   nrep = 3, seed = 1, progress = FALSE)
  expect_identical(nrow(ru), 6L)
  expect_true(all(is.finite(ru$estimate)))
  # randomized forms are masked nrep times, deterministic ones once
  reps <- table(attr(ru, "replicates")$scheme)
  expect_identical(as.integer(reps[c(format(mask_swap(5)), format(mask_noise(0.1, "correlated")))]),
                   c(3L, 3L))
  expect_identical(as.integer(reps[c(format(mask_microagg(5)), format(mask_topcode(upper = 1.5)))]),
                   c(1L, 1L))
  pr <- ru_profile(d, c(mask_none(), mask_pram(0.7)), y ~ x + grp, family = poisson(),
                   vars = "grp", term = "x", risk = "none", nrep = 2, seed = 1, progress = FALSE)
  expect_identical(nrow(pr), 2L)
  expect_true(all(is.finite(pr$estimate)))
})
