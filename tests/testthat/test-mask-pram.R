# PRAM: empirical transition frequencies against the transition matrix on a
# large sample, the invariant matrix against double loops, the columns'
# types, and the errors.

# Q and R = P Q of invariant PRAM by explicit loops (methods vignette section 15)
ref_invariant <- function(P, counts) {
  m <- nrow(P)
  Q <- matrix(0, m, m)
  for (w in 1:m) {
    den <- 0
    for (u in 1:m) den <- den + P[u, w] * counts[u]
    for (v in 1:m) Q[w, v] <- if (den > 0) P[v, w] * counts[v] / den else as.numeric(v == w)
  }
  R <- matrix(0, m, m)
  for (v in 1:m) for (v2 in 1:m) for (w in 1:m) R[v, v2] <- R[v, v2] + P[v, w] * Q[w, v2]
  dimnames(R) <- dimnames(P)
  R
}

# Pearson chi-square of the observed transitions out of each category
# against the rows of `R`, summed over rows (cells with expectation 0 must
# be empty); returns the p-value.
transition_pvalue <- function(before, after, R) {
  tab <- table(factor(before, levels = rownames(R)), factor(after, levels = colnames(R)))
  stat <- 0
  df <- 0
  for (v in rownames(R)) {
    nv <- sum(tab[v, ])
    if (nv == 0) next
    expected <- nv * R[v, ]
    support <- expected > 0
    expect_true(all(tab[v, !support] == 0))
    stat <- stat + sum((tab[v, support] - expected[support])^2 / expected[support])
    df <- df + sum(support) - 1
  }
  pchisq(stat, df, lower.tail = FALSE)
}

test_that("PRAM transition frequencies match P on a large sample (false-alarm rate 0.1%)", {
  set.seed(31)
  n <- 2e5
  cats <- c("a", "b", "c", "d")
  x <- sample(cats, n, TRUE, prob = c(0.5, 0.3, 0.15, 0.05))
  P <- matrix(c(0.7, 0.1, 0.1, 0.1,
                0.2, 0.6, 0.2, 0.0,
                0.0, 0.0, 1.0, 0.0,
                0.25, 0.25, 0.25, 0.25), 4, byrow = TRUE, dimnames = list(cats, cats))
  out <- apply_mask(data.frame(x = x), mask_pram(matrix = P, invariant = FALSE), "x")
  # a correct implementation fails this (chi-square) test with probability 0.001
  expect_gt(transition_pvalue(x, out$x, P), 0.001)
  # the default P: pd on the diagonal, (1 - pd) / (m - 1) elsewhere
  out <- apply_mask(data.frame(x = x), mask_pram(0.7, invariant = FALSE), "x")
  P0 <- matrix(0.1, 4, 4, dimnames = list(cats, cats))
  diag(P0) <- 0.7
  expect_gt(transition_pvalue(x, out$x, P0), 0.001)
})

test_that("invariant PRAM applies R = P Q (double loops), keeps expected frequencies", {
  set.seed(32)
  n <- 2e5
  cats <- c("x1", "x2", "x3")
  x <- factor(sample(cats, n, TRUE, prob = c(0.7, 0.25, 0.05)), levels = c(cats, "unused"))
  scheme <- mask_pram(0.8)
  P <- matrix(0.2 / 3, 4, 4, dimnames = list(levels(x), levels(x)))
  diag(P) <- 0.8
  counts <- as.vector(table(x))
  R <- ref_invariant(P, counts)
  expect_equal(unname(drop(counts %*% R)), counts, tolerance = tol_exact)   # T R = T
  s <- summary(scheme, data.frame(x = x))
  expect_equal(s$transition$x$R, R, tolerance = tol_exact)
  expect_equal(s$transition$x$P, P)
  out <- apply_mask(data.frame(x = x), scheme)
  expect_gt(transition_pvalue(x, out$x, R), 0.001)   # false-alarm rate 0.1%
  expect_identical(levels(out$x), levels(x))
  expect_identical(sum(out$x == "unused"), 0L)   # R never reaches an unobserved category
  # released counts within 4 SDs of their expectation T (a sum of
  # independent Bernoulli(R[v, w]) draws; false alarm about 1e-4)
  sd_w <- sqrt(colSums(counts * R * (1 - R)))
  expect_true(all(abs(as.vector(table(out$x)) - counts) <= 4 * sd_w + 1e-9))
})

test_that("PRAM keeps column types, NA, other columns; set.seed reproduces; per-variable matrices", {
  set.seed(33)
  d <- data.frame(id = 1:400,
                  sex = sample(c("F", "M", NA), 400, TRUE),
                  grade = factor(sample(c("lo", "mid", "hi"), 400, TRUE),
                                 levels = c("lo", "mid", "hi"), ordered = TRUE),
                  age = rnorm(400), stringsAsFactors = FALSE)
  set.seed(1)
  out <- apply_mask(d, mask_pram(0.6))
  expect_identical(names(out), names(d))
  expect_type(out$sex, "character")
  expect_true(is.ordered(out$grade))
  expect_identical(levels(out$grade), levels(d$grade))
  expect_identical(is.na(out$sex), is.na(d$sex))
  expect_identical(out[c("id", "age")], d[c("id", "age")])
  expect_gt(mean(out$sex != d$sex, na.rm = TRUE), 0.1)
  set.seed(1)
  expect_identical(apply_mask(d, mask_pram(0.6)), out)
  expect_identical(apply_mask(d, mask_pram(1)), d)   # pd = 1 changes nothing
  swap_sex <- matrix(c(0, 1, 1, 0), 2, dimnames = list(c("F", "M"), c("F", "M")))
  keep_grade <- diag(3)
  dimnames(keep_grade) <- list(levels(d$grade), levels(d$grade))
  out <- apply_mask(d, mask_pram(matrix = list(sex = swap_sex, grade = keep_grade),
                                 invariant = FALSE), c("sex", "grade"))
  expect_identical(out$sex, c(F = "M", M = "F")[d$sex], ignore_attr = TRUE)
  expect_identical(out$grade, d$grade)
  if (requireNamespace("tibble", quietly = TRUE)) {
    tb <- apply_mask(tibble::as_tibble(d), mask_pram(0.6), "sex")
    expect_s3_class(tb, "tbl_df")
    expect_type(tb$sex, "character")
  }
  if (requireNamespace("data.table", quietly = TRUE)) {
    dt <- data.table::as.data.table(d)
    before <- data.table::copy(dt)
    out <- apply_mask(dt, mask_pram(0.6), "grade")
    expect_s3_class(out, "data.table")
    expect_identical(dt, before)
  }
})

test_that("PRAM: print shows the rule or the matrix; bad input is a classed error", {
  expect_output(print(mask_pram(0.8)), "P\\[v, v\\] = 0.8")
  P <- matrix(c(0.9, 0.1, 0.3, 0.7), 2, byrow = TRUE, dimnames = list(c("a", "b"), c("a", "b")))
  expect_output(print(mask_pram(matrix = P)), "0.3")
  expect_identical(format(mask_pram(0.7, invariant = FALSE)), "PRAM, pd = 0.7")
  expect_identical(format(mask_pram(0.7)), "invariant PRAM, pd = 0.7")
  expect_equal(mask_pram(matrix = P)$degree, 0.8)
  expect_error(mask_pram(0), class = "epimask_error_value")
  expect_error(mask_pram(1.2), class = "epimask_error_value")
  expect_error(mask_pram(matrix = P[, 2:1]), class = "epimask_error_value")
  expect_error(mask_pram(matrix = P * 2), class = "epimask_error_value")
  expect_error(mask_pram(matrix = matrix(1)), class = "epimask_error_value")
  d <- data.frame(x = c("a", "b", "c"), y = 1:3)
  expect_error(apply_mask(d, mask_pram(matrix = P), "x"), class = "epimask_error_value")
  expect_error(apply_mask(d, mask_pram(), "y"), class = "epimask_error_type")
  expect_error(apply_mask(matrix(1:4, 2), mask_pram()), class = "epimask_error_type")
  expect_error(apply_mask(data.frame(y = 1:3), mask_pram()), class = "epimask_error_empty")
  expect_error(apply_mask(d, mask_pram(matrix = list(z = P)), "x"), class = "epimask_error_name")
})
