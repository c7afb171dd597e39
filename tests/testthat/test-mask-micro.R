# Microaggregation against plain R: MDAV by full scans (helper-masks.R) and
# univariate groups by sorting; group means against mean().

mdav_case <- function(n, p, kind) {
  switch(kind,
    normal = matrix(rnorm(n * p), n, p),
    skewed = matrix(rexp(n * p), n, p),
    grid = matrix(sample(0:3, n * p, TRUE), n, p),           # many exact ties
    dups = {
      X <- matrix(rnorm(n * p), n, p)
      X[sample(n, n %/% 2, TRUE), ] <- rep(X[1, ], each = 1)  # half copies of row 1
      X
    })
}

test_that("MDAV groups equal the plain R MDAV (random data, ties, duplicates, several k)", {
  set.seed(11)
  for (kind in c("normal", "skewed", "grid", "dups")) {
    for (it in 1:25) {
      n <- sample(1:90, 1)
      p <- sample(1:4, 1)
      k <- sample(1:7, 1)
      X <- mdav_case(n, p, kind)
      expect_identical(epimask:::mdav_groups(X, k), ref_mdav(X, k),
                       info = sprintf("%s n=%d p=%d k=%d", kind, n, p, k))
    }
  }
})

test_that("MDAV is exact at sizes where the C search prunes and falls back", {
  set.seed(12)
  X <- matrix(rexp(2500 * 3), ncol = 3)
  expect_identical(epimask:::mdav_groups(X, 4), ref_mdav(X, 4))
  # two values only: thousands of records tie for the farthest, so the
  # radius scan gives up and the k-d tree answers
  X <- matrix(sample(0:1, 5000, TRUE), ncol = 1)
  expect_identical(epimask:::mdav_groups(X, 3), ref_mdav(X, 3))
  X <- cbind(sample(0:2, 3000, TRUE), sample(0:1, 3000, TRUE))
  expect_identical(epimask:::mdav_groups(X, 5), ref_mdav(X, 5))
})

test_that("MDAV is exact where removals leave node boxes unchanged (duplicates, ties, several k)", {
  # the k-d tree stops refreshing boxes above a node whose box did not move;
  # copies of one point and a coarse grid make that the common case
  set.seed(17)
  X <- mdav_case(2000, 3, "dups")
  for (k in c(2, 6)) expect_identical(epimask:::mdav_groups(X, k), ref_mdav(X, k), info = k)
  X <- matrix(sample(0:4, 2 * 1500, TRUE), ncol = 2)
  for (k in c(3, 7)) expect_identical(epimask:::mdav_groups(X, k), ref_mdav(X, k), info = k)
  X <- cbind(round(rnorm(1200), 1), rnorm(1200), sample(0:1, 1200, TRUE))
  expect_identical(epimask:::mdav_groups(X, 4), ref_mdav(X, 4))
})

test_that("MDAV is exact with the k-d tree cut into shells by distance (larger data, ties, drift)", {
  # shell = 16 or 64 records: the tree's top levels split by distance from
  # the centroid, the farthest queries prune by cones and radii, the nearest
  # by radial gaps, and skewed data move the centroid far enough that the
  # tree is rebuilt around it, all at sizes the plain R MDAV can check
  set.seed(29)
  cases <- list(
    list(X = matrix(rnorm(3000 * 3), ncol = 3), k = 5),
    list(X = matrix(round(rnorm(3000 * 3) * 2) / 2, ncol = 3), k = 3),     # ties
    list(X = matrix(rexp(3000 * 2), ncol = 2), k = 4),                     # drift
    list(X = matrix(round(rexp(2500 * 3) * 3) / 3, ncol = 3), k = 6),      # drift and ties
    list(X = mdav_case(2500, 3, "dups"), k = 3),
    list(X = matrix(sample(0:3, 2000 * 4, TRUE), ncol = 4), k = 2),        # grid
    list(X = matrix(round(runif(2000), 2), ncol = 1), k = 7),
    list(X = cbind(rnorm(2000), sample(0:1, 2000, TRUE)), k = 5)
  )
  for (i in seq_along(cases)) {
    X <- cases[[i]]$X
    k <- cases[[i]]$k
    ref <- ref_mdav(X, k)
    for (shell in c(16L, 64L)) {
      expect_identical(epimask:::mdav_groups(X, k, shell = shell), ref,
                       info = sprintf("case %d shell %d", i, shell))
    }
    expect_identical(epimask:::mdav_groups(X, k), ref, info = sprintf("case %d", i))
  }
})

test_that("MDAV edge cases: all equal, fewer than 2k, k = 1, constant column", {
  X <- matrix(1, 10, 2)
  expect_identical(epimask:::mdav_groups(X, 3), ref_mdav(X, 3))
  expect_identical(epimask:::mdav_groups(matrix(1:5, 5), 3), rep(1L, 5))
  expect_identical(epimask:::mdav_groups(matrix(1:2, 2), 3), rep(1L, 2))
  expect_identical(epimask:::mdav_groups(matrix(3, 1), 2), 1L)
  set.seed(13)
  X <- cbind(rnorm(20), 5)
  expect_identical(epimask:::mdav_groups(X, 1), ref_mdav(X, 1))
  expect_identical(epimask:::mdav_groups(X, 4), ref_mdav(X, 4))
  expect_identical(epimask:::mdav_groups(X, 4), epimask:::mdav_groups(X[, 1, drop = FALSE], 4))
})

test_that("MDAV release: group means on the original scale, k to 2k - 1 records per group", {
  set.seed(14)
  d <- data.frame(id = 1:103, age = round(runif(103, 20, 80)), bmi = rnorm(103, 25, 4),
                  sbp = rnorm(103, 130, 15))
  vars <- c("age", "bmi", "sbp")
  out <- apply_mask(d, mask_microagg(5), vars)
  g <- ref_mdav(as.matrix(d[vars]), 5)
  # 1e-13, tighter than tol_exact: means of the same values summed in another order; measured 2e-16
  for (v in vars) expect_equal(out[[v]], ave(d[[v]], g, FUN = mean), tolerance = 1e-13)
  sizes <- table(g)
  expect_true(all(sizes >= 5) && sum(sizes > 5) <= 1 && all(sizes <= 9))
  expect_identical(out$id, d$id)
  # every released combination is shared by at least k records
  expect_true(all(table(do.call(paste, out[vars])) >= 5))
  expect_error(apply_mask(transform(d, bmi = replace(bmi, 3, NA)), mask_microagg(3), vars),
               class = "epimask_error_value")
  expect_error(apply_mask(transform(d, bmi = replace(bmi, 3, Inf)), mask_microagg(3), vars),
               class = "epimask_error_value")
})

# univariate microaggregation by a loop over sorted positions
ref_univariate <- function(z, k) {
  ok <- which(!is.na(z))
  o <- ok[order(z[ok])]
  m <- length(o)
  n_groups <- max(1, m %/% k)
  for (g in seq_len(n_groups)) {
    pos <- ((g - 1) * k + 1):(if (g == n_groups) m else g * k)
    z[o[pos]] <- mean(z[o[pos]])
  }
  z
}

test_that("univariate microaggregation equals consecutive sorted groups, NA kept", {
  set.seed(15)
  for (k in c(1, 2, 3, 5, 10)) {
    x <- c(round(rnorm(47), 1), NA, NA)
    d <- data.frame(x = x, y = rev(x))
    out <- apply_mask(d, mask_microagg(k, "univariate"))
    # 1e-13, tighter than tol_exact: means of the same values summed in another order; measured 2e-16
    expect_equal(out$x, ref_univariate(x, k), tolerance = 1e-13)
    expect_equal(out$y, ref_univariate(rev(x), k), tolerance = 1e-13)
  }
  expect_equal(apply_mask(data.frame(x = c(3, 1, 2)), mask_microagg(5, "univariate"))$x, c(2, 2, 2))
})

test_that("univariate microaggregation equals mask_group() with breaks at every k-th order statistic", {
  set.seed(16)
  x <- rnorm(301)
  k <- 3
  s <- sort(x)
  breaks <- c(s[1 + k * (seq_len(length(s) %/% k) - 1)], Inf)   # group starts, open end
  # 1e-13, tighter than tol_exact: means of the same values summed in another order; measured 2e-16
  expect_equal(apply_mask(data.frame(x = x), mask_group(breaks))$x,
               apply_mask(data.frame(x = x), mask_microagg(k, "univariate"))$x, tolerance = 1e-13)
})

test_that("mask_microagg: scheme fields, format, argument errors", {
  s <- mask_microagg(5)
  expect_s3_class(s, "mask_scheme")
  expect_identical(format(s), "MDAV microaggregation, k = 5")
  expect_identical(format(mask_microagg(3, "univariate")), "univariate microaggregation, k = 3")
  expect_identical(s$degree, 5)
  expect_identical(s$strength, 5)
  expect_identical(s$label, "mdav 5")
  expect_error(mask_microagg(0), class = "epimask_error_value")
  expect_error(mask_microagg(2.5), class = "epimask_error_value")
  expect_error(mask_microagg(3, "knn"), class = "epimask_error_value")
})
