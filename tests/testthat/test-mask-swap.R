# Rank swapping against the plain R algorithm with sample.int()
# (helper-masks.R), the exact multiset of each variable, and the rank window.

test_that("rank swapping equals the plain R algorithm draw for draw", {
  for (p in c(1, 5, 10, 37.5, 100)) {
    set.seed(21)
    x <- c(round(rnorm(150), 1), NA, 3, 3, 3)   # ties and a missing value
    y <- runif(154)
    d <- data.frame(x = x, y = y)
    set.seed(22)
    out <- apply_mask(d, mask_swap(p))
    set.seed(22)
    expect_identical(out$x, ref_rank_swap(x, p), info = sprintf("p = %s", p))
    expect_identical(out$y, ref_rank_swap(y, p), info = sprintf("p = %s", p))
  }
})

test_that("rank swapping keeps each variable's values exactly and moves them within the window", {
  set.seed(23)
  n <- 5000
  d <- data.frame(a = rnorm(n), b = rexp(n), c = sample(1:20, n, TRUE))
  p <- 2
  w <- floor(p * n / 100)
  out <- apply_mask(d, mask_swap(p))
  for (v in names(d)) expect_identical(sort(out[[v]]), sort(as.double(d[[v]])))
  # distinct values: a released value sits at most w ranks from the original
  for (v in c("a", "b")) {
    src_rank <- rank(d[[v]])[match(out[[v]], d[[v]])]
    expect_true(all(abs(src_rank - rank(d[[v]])) <= w))
    # a swap is a pairing: the partner of a record's partner is itself
    src <- match(out[[v]], d[[v]])
    expect_identical(src[src], seq_len(n))
    # and almost every record is swapped
    expect_gt(mean(src != seq_len(n)), 0.99)
  }
})

test_that("rank swapping: tiny windows change nothing, set.seed reproduces, p is checked", {
  d <- data.frame(x = c(5, 1, 4, 2, 3))
  expect_identical(apply_mask(d, mask_swap(10))$x, d$x)   # floor(0.5) = 0 ranks
  set.seed(24)
  d <- data.frame(x = rnorm(300))
  set.seed(1); r1 <- apply_mask(d, mask_swap(5))
  set.seed(1); r2 <- apply_mask(d, mask_swap(5))
  set.seed(2); r3 <- apply_mask(d, mask_swap(5))
  expect_identical(r1, r2)
  expect_false(identical(r1, r3))
  expect_identical(format(mask_swap(5)), "rank swapping within 5% of n")
  expect_identical(mask_swap(2.5)$degree, 2.5)
  expect_error(mask_swap(0), class = "epimask_error_value")
  expect_error(mask_swap(101), class = "epimask_error_value")
  expect_error(mask_swap("5"), class = "epimask_error_type")
})
