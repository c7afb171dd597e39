# The C routine of l-diversity and t-closeness (src/diversity.c, reached
# through class_diversity()) against the brute-force references of
# helper-diversity.R and against cases worked by hand.

cd <- function(...) epimask:::class_diversity(...)

test_that("a tiny case worked by hand", {
  # records 1, 1, 2 in class 1 and 3 in class 2: q = (1/2, 1/4, 1/4)
  cls <- c(1L, 1L, 1L, 2L)
  val <- c(1L, 2L, 1L, 3L)
  q <- c(1/2, 1/4, 1/4)
  o <- cd(cls, val, 2, 3, q = q, ordered = TRUE, c = 2)
  expect_equal(o$distinct, c(2, 1))
  expect_equal(o$entropy_l, c(exp(-(2/3 * log(2/3) + 1/3 * log(1/3))), 1))
  # counts (2, 1): 2 < 2 * 3 holds at l = 1, 2 < 2 * 1 fails at l = 2;
  # class 2 (count 1): 1 < 2 * 1 at l = 1
  expect_equal(o$recursive, c(1, 1))
  expect_equal(cd(cls, val, 2, 3, c = 3)$recursive, c(2, 1))
  # class 1: P = (2/3, 1/3, 0), cumulative P - Q: 1/6, 1/4, 0 -> (5/12) / 2;
  # class 2: P = (0, 0, 1), cumulative P - Q: -1/2, -3/4, 0 -> (5/4) / 2
  expect_equal(o$emd, c(5/24, 5/8))
  u <- cd(cls, val, 2, 3, q = q, ordered = FALSE)
  # (|2/3 - 1/2| + |1/3 - 1/4| + |0 - 1/4|) / 2 and (1/2 + 1/4 + 3/4) / 2
  expect_equal(u$emd, c(1/4, 3/4))
  expect_null(u$recursive)
  # the same classes as a class table with counts
  w <- cd(c(1L, 1L, 2L), c(1L, 2L, 3L), 2, 3, count = c(2, 1, 1), q = q, ordered = TRUE, c = 2)
  expect_equal(w, o)
  # no q: no EMD; one value overall: EMD 0
  expect_null(cd(cls, val, 2, 3)$emd)
  expect_equal(cd(cls, rep(1L, 4), 2, 1, q = 1, ordered = TRUE)$emd, c(0, 0))
})

random_rows <- function(n, n_classes, m, seed, ties = FALSE, counts = FALSE) {
  set.seed(seed)
  cls <- sample.int(n_classes, n, TRUE)
  cls[seq_len(min(n, n_classes))] <- seq_len(min(n, n_classes))   # no empty class
  # skewed values (many classes hold few of them); with ties, the values
  # come in blocks so that counts within a class tie
  val <- if (ties) rep(sample.int(m, ceiling(n / 4), TRUE), each = 4)[seq_len(n)]
         else sample.int(m, n, TRUE, prob = rexp(m)^2)
  cnt <- if (counts) sample(c(1, 2, 5, 0.5), n, TRUE) else rep(1, n)
  list(cls = cls, val = val, cnt = cnt)
}

check_against_brute <- function(r, n_classes, m, counts) {
  q <- as.vector(tapply(r$cnt, factor(r$val, levels = seq_len(m)), sum))
  q[is.na(q)] <- 0
  q <- q / sum(q)
  # ordered with c = 2, equal distance with c = 0.5, recursive alone with c = 3
  for (run in list(list(TRUE, 2, q), list(FALSE, 0.5, q), list(FALSE, 3, NULL))) {
    got <- cd(r$cls, r$val, n_classes, m, count = if (counts) r$cnt, q = run[[3]],
              ordered = run[[1]], c = run[[2]])
    ref <- diversity_brute(r$cls, r$val, n_classes, m, count = r$cnt, q = run[[3]],
                           ordered = run[[1]], c = run[[2]])
    expect_identical(got$distinct, ref$distinct)
    expect_identical(got$recursive, ref$recursive)
    expect_equal(got$entropy_l, ref$entropy_l, tolerance = tol_exact)
    expect_equal(got$emd, ref$emd, tolerance = tol_exact)
  }
}

test_that("random rows against the brute force: ties, one-value classes, many values", {
  configs <- expand.grid(n = c(1, 7, 60, 400), n_classes = c(1, 3, 40), m = c(1, 2, 5, 60),
                         ties = c(FALSE, TRUE))
  for (i in seq_len(nrow(configs))) {
    cf <- configs[i, ]
    n_classes <- min(cf$n_classes, cf$n)
    for (counts in c(FALSE, TRUE)) {
      r <- random_rows(cf$n, n_classes, cf$m, seed = i, ties = cf$ties, counts = counts)
      check_against_brute(r, n_classes, cf$m, counts)
    }
  }
  # many values: 600 of them over 3,000 rows in 12 classes
  r <- random_rows(3000, 12, 600, seed = 99, counts = TRUE)
  check_against_brute(r, 12, 600, TRUE)
})

test_that("classes of one value, and classes equal to the whole data", {
  # every class holds one value: entropy l 1, distinct 1, equal-distance
  # EMD 1 - q_v
  val <- rep(1:4, each = 3)
  q <- rep(1/4, 4)
  o <- cd(val, val, 4, 4, q = q, ordered = FALSE, c = 2)
  expect_equal(o$distinct, rep(1, 4))
  expect_equal(o$entropy_l, rep(1, 4))
  expect_equal(o$emd, rep(3/4, 4))
  expect_equal(o$recursive, rep(1, 4))
  # one class holding everything: EMD 0 (ordered or not), entropy l = m for
  # a uniform distribution
  o <- cd(rep(1L, 12), val, 1, 4, q = q, ordered = TRUE, c = 2)
  expect_equal(o$emd, 0)
  expect_equal(o$entropy_l, 4)
  expect_equal(o$recursive, 4)   # 3 < 2 * (12 - 9) = 6 holds for every l
})

test_that("numeric and factor sensitive variables in risk_tcloseness() against the brute force", {
  set.seed(11)
  n <- 500
  d <- data.frame(k1 = sample(letters[1:4], n, TRUE), k2 = sample(1:3, n, TRUE),
                  num = round(rgamma(n, 2, 0.1)),            # many values, ties
                  grade = factor(sample(c("C", "A", "B", "D"), n, TRUE, prob = c(4, 1, 2, 1)),
                                 levels = c("D", "C", "B", "A"), ordered = TRUE),
                  plain = factor(sample(c("x", "y"), n, TRUE)))
  d$num[sample(n, 20)] <- NA
  d$grade[sample(n, 10)] <- NA
  tc <- risk_tcloseness(d, c("k1", "k2"), c("num", "grade", "plain"))
  expect_identical(unname(tc$ordered), c(TRUE, TRUE, FALSE))
  for (s in c("num", "grade", "plain"))
    expect_equal(tc$classes[[paste0("emd_", s)]],
                 unname(emd_plain(d, c("k1", "k2"), s, tc$ordered[[s]])), tolerance = tol_exact)
  l <- risk_ldiversity(d, c("k1", "k2"), c("num", "grade"), c = 1.5)
  for (s in c("num", "grade")) {
    ref <- ldiv_plain(d, c("k1", "k2"), s, 1.5)
    expect_equal(l$classes[[paste0("entropy_", s)]], unname(ref[, "entropy"]), tolerance = tol_exact)
    expect_equal(l$classes[[paste0("recursive_", s)]], unname(ref[, "recursive"]))
  }
})

test_that("ola() orders a factor sensitive variable by its levels, as risk_tcloseness() does", {
  # levels B < D < A < C (not the alphabetical A < B < C < D): class "u"
  # holds B and D, the two lowest by level (the 2nd and 4th alphabetically)
  d <- data.frame(k = rep(c("u", "v"), each = 6),
                  g = factor(c("B", "B", "B", "D", "D", "D", "A", "A", "A", "C", "C", "C"),
                             levels = c("B", "D", "A", "C"), ordered = TRUE))
  h <- list(k = hierarchy_flat())
  tc <- risk_tcloseness(d, "k", "g")
  # by levels: Q = 1/4 each; u = (1/2, 1/2, 0, 0): cumulative 1/4, 1/2,
  # 1/4, 0 -> 1/3; v likewise (alphabetically it would be 1/6)
  expect_equal(tc$classes$emd, c(1/3, 1/3))
  # t just above the EMD: k stays ungeneralized; just below: generalized
  o <- deprecated(ola(d, "k", h, k = 2, sensitive = "g", t = 1/3 + 1e-6, ordered = "g"))
  expect_equal(unname(o$levels), 0)
  o <- deprecated(ola(d, "k", h, k = 2, sensitive = "g", t = 1/3 - 1e-6, ordered = "g"))
  expect_equal(unname(o$levels), 1)
})

test_that("the routine's fields are checked", {
  expect_error(cd(c(1L, 3L), c(1L, 1L), 2, 1), class = "epimask_error_value")
  expect_error(cd(c(1L, 1L), c(1L, 2L), 1, 1), class = "epimask_error_value")
  expect_error(cd(c(1L, 1L), c(1L, 1L), 1, 1, count = c(1, 0)), class = "epimask_error_value")
  expect_error(cd(c(1L, 1L), c(1L, 1L), 1, 1, q = c(0.5, 0.5)), class = "epimask_error_value")
  expect_error(cd(c(1L, NA), c(1L, 1L), 1, 1), class = "epimask_error_value")
})
