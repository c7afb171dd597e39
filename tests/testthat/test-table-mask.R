# The alternatives to suppression on a table: controlled rounding against an
# exhaustive search of the rounding patterns, random rounding and the
# geometric mechanism against their laws by simulation, the margin repair
# against an enumeration of the consistent tables, kernel smoothing of a
# table against kernel_matrix() applied by hand; the rules on each release.

small_counts <- data.frame(a = rep(c("x", "y", "z"), 2), b = rep(c("p", "q"), each = 3),
                           n = c(4, 1, 7, 2, 5, 3))

test_that("controlled rounding: multiples of the base, within the base, additive, least change", {
  skip_without_solver()
  tab <- table_counts(small_counts, c("a", "b"), freq = "n")
  r <- mask_count_table(tab, mask_round(base = 3))
  v <- tab$count
  expect_true(all(r$shown %% 3 == 0))
  expect_true(all(abs(r$shown - v) < 3))
  expect_true(all(r$shown[v %% 3 == 0] == v[v %% 3 == 0]))
  t2 <- tab
  t2$count <- r$shown
  expect_silent(check_table(t2))
  # exhaustive: every up/down choice of the interior cells, margins their sums
  interior <- which(table_interior(tab))
  mem <- bf_membership(tab)
  free <- which(v[interior] %% 3 != 0)
  best <- Inf
  for (k in 0:(2^length(free) - 1)) {
    up <- bitwAnd(k, 2^(seq_along(free) - 1)) > 0
    x <- 3 * floor(v[interior] / 3)
    x[free[up]] <- x[free[up]] + 3
    cells <- as.vector(mem$M %*% x)
    if (all(abs(cells - v) < 3)) best <- min(best, sum(abs(cells - v)))
  }
  expect_equal(sum(abs(r$shown - v)), best)
})

test_that("random rounding is unbiased; its margins are the sums", {
  tab <- table_counts(small_counts, c("a", "b"), freq = "n")
  set.seed(4)
  draws <- replicate(4000, mask_count_table(tab, mask_round(base = 5, rounding = "random"))$shown)
  v <- tab$count
  se <- apply(draws, 1L, stats::sd) / sqrt(ncol(draws))
  expect_true(all(abs(rowMeans(draws) - v) < 4 * pmax(se, 1e-9)))
  expect_true(all(draws %% 5 == 0))
})

test_that("the geometric noise has P(Z = z) = (1 - a) / (1 + a) a^|z|", {
  set.seed(9)
  a <- exp(-0.5)
  z <- rgeom2(2e5, a)
  for (k in -3:3) {
    p <- (1 - a) / (1 + a) * a^abs(k)
    expect_lt(abs(mean(z == k) - p), 4 * sqrt(p * (1 - p) / length(z)))
  }
})

test_that("the margin repair is the nearest consistent non-negative table (enumeration)", {
  skip_without_solver()
  d <- data.frame(a = c("x", "y", "x", "y"), b = c("p", "p", "q", "q"), n = c(1, 0, 2, 1))
  tab <- table_counts(d, c("a", "b"), freq = "n")
  mem <- bf_membership(tab)
  y <- c(5, 2, 1, 1, 0, -2, 4, 3, 1)
  solver <- pick_solver(NULL)
  x <- repair_table(tab, y, solver, Inf)
  grid <- as.matrix(expand.grid(rep(list(0:8), 4)))
  cells <- grid %*% t(mem$M)
  dist <- rowSums(abs(sweep(cells, 2L, y)))
  expect_equal(sum(abs(x - y)), min(dist))
  expect_true(all(x >= 0))
  t2 <- tab
  t2$count <- x
  expect_silent(check_table(t2))
})

test_that("noise on a table: epsilon, sensitivity, consistency; it refuses magnitudes and records", {
  skip_without_solver()
  tab <- table_counts(small_counts, c("a", "b"), freq = "n")
  set.seed(2)
  nz <- apply_mask(tab, mask_dp_counts(0.5))
  expect_equal(nz$epsilon, 0.5)
  expect_equal(nz$sensitivity, 4)
  expect_equal(nz$alpha, exp(-0.5 / 4))
  t2 <- tab
  t2$count <- nz$shown
  expect_silent(check_table(t2))
  mag <- table_counts(data.frame(a = c("x", "y"), v = c(1, 2)), "a", value = "v")
  expect_error(apply_mask(mag, mask_dp_counts(1)), class = "epimask_error_value")
  expect_error(apply_mask(data.frame(x = 1:3), mask_dp_counts(1)), class = "epimask_error_value")
  expect_error(mask_dp_counts(0), class = "epimask_error_value")
})

test_that("kernel smoothing of a table equals the kernel matrix applied to each slice", {
  d <- data.frame(zip = rep(sprintf("%05d", 1:6), 2), sex = rep(c("f", "m"), each = 6),
                  n = c(3, 8, 1, 0, 5, 9, 2, 2, 6, 4, 1, 7))
  tab <- table_counts(d, c("zip", "sex"), freq = "n")
  xy <- cbind(c(0, 1, 2, 3, 4, 5), c(0, 0, 1, 1, 0, 2))
  sch <- mask_kernel("exponential", 0.8, xy)
  sm <- apply_mask(tab, sch, vars = "zip")
  A <- kernel_matrix(sch)
  out <- as.data.frame(sm)
  for (s in c("f", "m")) {
    got <- out$value[out$sex == s & out$zip_level == 0]
    ref <- as.vector(A %*% d$n[d$sex == s])
    expect_equal(got, ref, tolerance = 1e-12)
  }
  t2 <- tab
  t2$count <- round(sm$shown, 8)
  expect_equal(sum(out$value[out$interior]), out$value[out$zip == "*" & out$sex == "*"], tolerance = 1e-12)
  expect_error(apply_mask(tab, sch), class = "epimask_error_value")
  expect_error(apply_mask(tab, mask_kernel("exponential", 0.8, xy[1:5, ]), vars = "zip"),
               class = "epimask_error_length")
})

test_that("the rules on releases: rounding by its LP intervals, noise by the value shown", {
  skip_without_solver()
  tab <- table_counts(small_counts, c("a", "b"), freq = "n")
  rule <- cell_threshold(3)
  # unmasked: every sensitive cell disclosed
  expect_equal(criterion_evaluate(rule, tab)$value, 1)
  expect_equal(criterion_evaluate(rule, apply_mask(tab, mask_none()))$value, 1)
  # base 2: the cell of 1 rounds to 0 or 2; its interval [0, 1] or [1, 3] is too narrow
  # on one side unless the relations widen it (checked against the LP on the interval bounds)
  r2 <- mask_count_table(tab, mask_round(base = 2))
  res <- criterion_evaluate(rule, r2)
  det <- res$detail
  y <- r2$shown
  lo <- pmax(0, y - 1)
  hi <- y + 1
  mem <- bf_membership(tab)
  # enumerate interior tables within the rounding bounds and compare with the detail
  int <- mem$interior
  grid <- as.matrix(expand.grid(lapply(int, function(i) lo[i]:hi[i])))
  cells <- grid %*% t(mem$M)
  ok <- apply(cells, 1L, function(c) all(c >= lo & c <= hi))
  cells <- cells[ok, , drop = FALSE]
  expect_equal(det$low, unname(apply(cells, 2L, min)[det$cell]))
  expect_equal(det$high, unname(apply(cells, 2L, max)[det$cell]))
  expect_equal(res$value, mean(det$disclosed))
  # noise: a sensitive cell shown at its value is disclosed, bounded by nothing
  set.seed(1)
  nz <- apply_mask(tab, mask_dp_counts(100))
  expect_equal(criterion_evaluate(rule, nz)$value, 1)
})
