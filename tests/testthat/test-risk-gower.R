# Gower's distance and the exact nearest released records (methods vignette 28.2,
# src/gower.c): against cluster::daisy(), against a brute-force loop written
# from the definition on the raw data (every pair), and the k-d tree against
# the exhaustive scan.

# The package's distances of every pair (all neighbours of every record) and
# cluster::daisy()'s (a date as a number, text as a factor, the logical
# column symmetric, as the package treats them).
daisy_pair <- function(d, na) {
  res <- pkg_knn(d, d, names(d), nrow(d), na = na)
  full <- matrix(0, nrow(d), nrow(d))
  for (i in seq_len(nrow(d))) full[res$idx[, i], i] <- res$dist[, i]
  dd <- d
  dd$visit <- as.numeric(dd$visit)
  dd$region <- factor(dd$region)
  list(pkg = full,
       daisy = unname(as.matrix(cluster::daisy(dd, metric = "gower", type = list(symm = "smoker")))))
}

test_that("Gower's distance equals cluster::daisy() on mixed columns without NA", {
  skip_if_not_installed("cluster")
  both <- daisy_pair(mixed_data(40, 1, na_share = 0, dup = FALSE), "category")
  expect_equal(both$pkg, both$daisy, tolerance = 1e-12)
})

test_that("with na = 'ignore' it equals cluster::daisy() with missing values", {
  skip_if_not_installed("cluster")
  # daisy scales each number by the range of its observed values, as the package does
  both <- daisy_pair(mixed_data(40, 2, na_share = 0.2, dup = FALSE), "ignore")
  expect_equal(both$pkg, both$daisy, tolerance = 1e-12)
})

test_that("the nearest released records equal a brute-force loop over every pair", {
  set.seed(3)
  for (case in 1:4) {
    d <- mixed_data(150, 10 + case, na_share = 0.1)
    rel <- d[sample.int(150), ]
    rel$age <- rel$age + sample(c(-1, 0, 1), 150, replace = TRUE)
    cols <- list(names(d), c("age", "sex"), c("region", "smoker", "stage"),
                 c("bmi", "visit"))[[case]]
    q <- d[1:40, ]
    for (k in c(1L, 3L)) {
      ref <- ref_knn(q, rel, cols, k, rbind(d, rel))
      for (search in c("exhaustive", "tree")) {
        got <- pkg_knn(rbind(d), rel, cols, k, search = search)
        got$idx <- got$idx[, 1:40, drop = FALSE]
        got$dist <- got$dist[, 1:40, drop = FALSE]
        expect_identical(got$idx, ref$idx, info = paste(case, k, search))
        expect_equal(got$dist, ref$dist, tolerance = 1e-15, info = paste(case, k, search))
      }
    }
  }
})

test_that("ties go to the lower released row, whatever the row order in memory", {
  # three released records at distance 0 from the target, two at 0.5
  rel <- data.frame(a = c("x", "y", "x", "x", "z"), b = c(1, 1, 1, 1, 2))
  q <- data.frame(a = "x", b = 1)
  for (search in c("exhaustive", "tree")) {
    got <- pkg_knn(q, rel, c("a", "b"), 4L, search = search)
    expect_identical(got$idx[, 1], c(1L, 3L, 4L, 2L), info = search)
    expect_equal(got$dist[, 1], c(0, 0, 0, 0.5))
  }
  # a release of many equal records (the tree holds each once): the lowest rows
  rel <- data.frame(a = rep(c("u", "v"), each = 500), b = rep(c(3, 4), 500))
  q <- data.frame(a = c("v", "u"), b = c(4, 3))
  for (search in c("exhaustive", "tree")) {
    got <- pkg_knn(q, rel, c("a", "b"), 3L, search = search)
    expect_identical(got$idx[, 1], c(502L, 504L, 506L), info = search)
    expect_identical(got$idx[, 2], c(1L, 3L, 5L), info = search)
  }
})

test_that("missing values: NA as a category, both searches; NA in a number is 1 from any number", {
  rel <- data.frame(x = c(NA, 0, 10, NA), f = c("a", NA, "a", "b"))
  q <- data.frame(x = c(NA, 5), f = c("a", NA))
  for (search in c("exhaustive", "tree")) {
    got <- pkg_knn(q, rel, c("x", "f"), 4L, search = search)
    # target 1 (NA, a): row 1 (0 + 0), row 4 (0 + 1), rows 3 (1 + 0), 2 (1 + 1)
    expect_identical(got$idx[, 1], c(1L, 3L, 4L, 2L), info = search)
    expect_equal(got$dist[, 1], c(0, 1, 1, 2) / 2)
    # target 2 (5, NA): row 2 (0.5 + 0), row 3 (0.5 + 1), rows 1, 4 (1 + 1)
    expect_identical(got$idx[, 2], c(2L, 3L, 1L, 4L), info = search)
    expect_equal(got$dist[, 2], c(0.5, 1.5, 2, 2) / 2)
  }
})

test_that("the k-d tree gives the exhaustive scan's neighbours on larger data, any threads", {
  skip_on_cran()
  d <- mixed_data(6000, 21, na_share = 0.05)
  rel <- d
  rel$bmi <- round(rel$bmi)
  rel$age <- rel$age + sample(-2:2, nrow(rel), replace = TRUE)
  q <- d[sample.int(nrow(d), 300), ]
  for (cols in list(names(d), c("age", "bmi", "sex"))) {
    ex <- pkg_knn(q, rel, cols, 5L, search = "exhaustive", threads = 1L)
    tr <- pkg_knn(q, rel, cols, 5L, search = "tree", threads = 1L)
    tr2 <- pkg_knn(q, rel, cols, 5L, search = "tree", threads = 2L)
    expect_identical(tr$idx, ex$idx)
    expect_identical(tr$dist, ex$dist)
    expect_identical(tr2, tr)
  }
})

test_that("bad coded input reaches the C search as a classed error, never a crash", {
  spec <- list(y = matrix(c(1, 2), 1), q = matrix(1, 1), type = 1L, na = 0L, k = 1L,
               method = 1L, threads = 1L)
  spec$y[1, 1] <- 1.5
  expect_error(epimask:::call_c(epimask:::C_gower_knn, spec, arg = "x"), class = "epimask_error")
  spec$y[1, 1] <- 1
  spec$k <- 3L
  expect_error(epimask:::call_c(epimask:::C_gower_knn, spec, arg = "x"), class = "epimask_error")
  spec$k <- 1L
  spec$type <- 2L
  expect_error(epimask:::call_c(epimask:::C_gower_knn, spec, arg = "x"), class = "epimask_error")
})
