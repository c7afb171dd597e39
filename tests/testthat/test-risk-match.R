# risk_match() against a brute-force R version of METHODS 5 (helper-risk.R)
# whose unknown-variable factor is computed by numerical integration.

test_that("the closed-form triangle expectation equals numerical integration", {
  tri <- function(a, m, s, D) .Call(epimask:::C_risk_triangle_normal, a, m, s, D)
  grid <- expand.grid(a = c(-3, -0.4, 0, 0.25, 1.7, 6), m = c(0, 0.3, -2),
                      s = c(1e-3, 0.2, 1, 5), D = c(0.05, 1, 4))
  got <- mapply(tri, grid$a, grid$m, grid$s, grid$D)
  want <- mapply(ref_triangle_normal, grid$a, grid$m, grid$s, grid$D)
  expect_equal(got, want, tolerance = 1e-10)
  expect_true(all(got >= 0 & got <= 1))
  # degenerate cases: a point mass at the mean, and no spread in the released data
  expect_equal(tri(c(0.5, 2, -1), 0, 0, 1), c(0.5, 0, 0))
  expect_identical(tri(c(0.5, 2), 0, 1, 0), c(1, 1))
  # far beyond the triangle's support the expectation vanishes
  expect_identical(tri(100, 0, 1, 1), 0)
})

test_that("risk_match equals the brute-force version on kernel-masked data", {
  fx <- risk_fixture(n = 16)
  for (kernel in c("exponential", "ring")) {
    for (lambda in c(0.02, 0.2, 1)) {
      masked <- as.data.frame(kernel_mask(fx$data, fx$coords, kernel, lambda))
      got <- risk_match(fx$data, masked, known = "x", unknown = "y", threads = 2)
      want <- ref_risk_match(fx$data, masked, "x", "y")
      expect_match_equal(got, want)
      expect_equal(unname(got$sigma), want$sigma, tolerance = 1e-10)
    }
  }
})

test_that("two known variables, and no unknown variable", {
  fx <- risk_fixture(n = 16, seed = 7)
  masked <- as.data.frame(kernel_mask(fx$data, fx$coords, "exponential", 0.05))
  expect_match_equal(risk_match(fx$data, masked, c("x", "w"), "y"),
                     ref_risk_match(fx$data, masked, c("x", "w"), "y"))
  got <- risk_match(fx$data, masked, c("x", "w"))
  expect_match_equal(got, ref_risk_match(fx$data, masked, c("x", "w")))
  expect_identical(got$unknown, character(0))
  masked <- as.data.frame(kernel_mask(fx$data, fx$coords, "ring", 0.2))
  expect_match_equal(risk_match(fx$data, masked, "x"),
                     ref_risk_match(fx$data, masked, "x"))
  # two unknown variables multiply
  expect_match_equal(risk_match(fx$data, masked, "x", c("y", "w")),
                     ref_risk_match(fx$data, masked, "x", c("y", "w")))
})

test_that("rounding and noise masks, with ties, match the brute force", {
  fx <- risk_fixture(n = 30, seed = 3)
  rounded <- transform(fx$data, x = round(x, 1), y = round(y, -1))
  got <- risk_match(fx$data, rounded, "x", "y")
  want <- ref_risk_match(fx$data, rounded, "x", "y")
  expect_match_equal(got, want)
  expect_true(any(got$per_target$c > 1))
  fx <- risk_fixture(n = 16, seed = 4)
  noisy <- transform(fx$data, x = x + runif(16, -0.05, 0.05), y = y + rnorm(16))
  expect_match_equal(risk_match(fx$data, noisy, "x", "y", targets = 1:16),
                     ref_risk_match(fx$data, noisy, "x", "y"))
})

test_that("unmasked data are matched exactly; heavy masking is not", {
  fx <- risk_fixture(n = 30, seed = 5)
  got <- risk_match(fx$data, fx$data, "x")
  # the true record is the only one at distance 0 from the known value
  expect_identical(got$per_target$c, rep(1L, 30))
  expect_identical(got$per_target$I, rep(1L, 30))
  expect_identical(got$percent_correct, 100)
  expect_identical(got$true_match_rate, 1)
  expect_identical(got$false_match_rate, 0)
  heavy <- as.data.frame(kernel_mask(fx$data, fx$coords, "exponential", 50))
  expect_lt(risk_match(fx$data, heavy, "x", "y")$percent_correct, 20)
})

test_that("a constant known variable is dropped from the regression, not fatal", {
  fx <- risk_fixture(n = 16, seed = 9)
  masked <- fx$data
  masked$w <- 2
  got <- risk_match(fx$data, masked, c("x", "w"), "y")
  want <- ref_risk_match(fx$data, masked, c("x", "w"), "y")
  expect_match_equal(got, want)
  # all released values equal and equal to every target's: no information
  both <- fx$data
  both$w <- 2
  masked$x <- 0.5
  got <- risk_match(both, masked, c("x", "w"), "y")
  expect_match_equal(got, ref_risk_match(both, masked, c("x", "w"), "y"))
})

test_that("every candidate at probability 0 leaves all records tied", {
  original <- data.frame(a = c(0, 1), b = c(1, 0))
  masked <- data.frame(a = c(0, 1), b = c(1, 0))
  shifted <- data.frame(a = c(0.5, -1), b = c(-1, 0.5))
  got <- risk_match(original, masked, c("a", "b"))
  expect_identical(got$per_target$c, c(1L, 1L))
  # target 1 (a = 0, b = 1): record 1 is farthest on b, record 2 on a
  odd <- risk_match(data.frame(a = c(0.25, 0), b = c(0.25, 0)),
                    data.frame(a = c(0, 1), b = c(1, 0)), c("a", "b"))
  expect_identical(odd$per_target$c[1], 2L)
  expect_identical(odd$per_target$prob_true[1], 0.5)
  expect_identical(odd$per_target$I[1], 1L)
})

test_that("targets evaluate a subset; matrices work as data frames", {
  fx <- risk_fixture(n = 30, seed = 11)
  masked <- kernel_mask(fx$data, fx$coords, "ring", 0.1)
  full <- risk_match(fx$data, as.data.frame(masked), "x", "y")
  part <- risk_match(as.matrix(fx$data), masked, "x", "y", targets = c(3, 10, 30))
  expect_identical(part$per_target[, -1], {
    x <- full$per_target[c(3, 10, 30), -1]
    rownames(x) <- NULL
    x
  })
  expect_identical(part$n_targets, 3L)
  expect_equal(part$percent_correct,
               100 * sum(part$per_target$I / part$per_target$c) / 3)
  one <- risk_match(fx$data, as.data.frame(masked), "x", "y", threads = 1)
  expect_identical(one$per_target, full$per_target)
})

test_that("tibbles and data.tables are accepted", {
  skip_if_not_installed("data.table")
  skip_if_not_installed("tibble")
  fx <- risk_fixture(n = 20, seed = 13)
  m <- as.data.frame(kernel_mask(fx$data, fx$coords, "ring", 0.1))
  want <- risk_match(fx$data, m, "x", "y")
  expect_identical(risk_match(data.table::as.data.table(fx$data),
                              data.table::as.data.table(m), "x", "y"), want)
  expect_identical(risk_match(tibble::as_tibble(fx$data), tibble::as_tibble(m),
                              "x", "y"), want)
})

test_that("the caller's data are not modified", {
  fx <- risk_fixture(n = 20)
  o <- fx$data
  m <- as.data.frame(kernel_mask(o, fx$coords, "exponential", 0.1))
  o_copy <- o
  m_copy <- m
  risk_match(o, m, "x", "y")
  expect_identical(o, o_copy)
  expect_identical(m, m_copy)
})

test_that("print, summary, format and as.data.frame read like the papers' tables", {
  fx <- risk_fixture(n = 30, seed = 3)
  rounded <- transform(fx$data, x = round(x, 1), y = round(y, -1))
  r <- risk_match(fx$data, rounded, "x", "y")
  out <- capture.output(print(r))
  expect_match(out[1], "Record-matching disclosure risk")
  expect_true(any(grepl("Records at top probability (c)", out, fixed = TRUE)))
  expect_true(any(grepl("Expected match risk", out)))
  s <- summary(r)
  expect_s3_class(s, "summary.epimask_match")
  expect_identical(sum(s$ties$targets), 30L)
  expect_equal(sum(s$ties$expected_correct), r$expected_match_risk)
  expect_identical(sum(s$ties$correct), sum(r$per_target$I))
  expect_match(format(r), "% expected correct matches \\(30 of 30 targets")
  expect_identical(as.data.frame(r), r$per_target)
  expect_named(as.data.frame(r), c("target", "prob_true", "prob_max", "c", "I"))
})

test_that("bad input gets a classed error naming the argument", {
  fx <- risk_fixture(n = 20)
  o <- fx$data
  m <- o
  expect_error(risk_match(o, m, "zz", "y"), "`known`", class = "epimask_error_name")
  expect_error(risk_match(o, m, "x", "zz"), "`unknown`", class = "epimask_error_name")
  expect_error(risk_match(o, m[-1, ], "x", "y"), "`masked`", class = "epimask_error_length")
  expect_error(risk_match(o, m, character(0)), "`known`", class = "epimask_error_type")
  expect_error(risk_match(o, m, "x", "x"), "`unknown`", class = "epimask_error_value")
  chr <- transform(m, x = as.character(x))
  expect_error(risk_match(o, chr, "x", "y"), "`masked`.*'x'", class = "epimask_error_type")
  fac <- transform(o, x = factor(x))
  expect_error(risk_match(fac, m, "x", "y"), "`original`.*'x'", class = "epimask_error_type")
  na <- m
  na$y[3] <- NA
  expect_error(risk_match(o, na, "x", "y"), "`masked`.*NA", class = "epimask_error_value")
  allna <- m
  allna$x <- NA_real_
  expect_error(risk_match(o, allna, "x", "y"), "`masked`.*all NA",
               class = "epimask_error_value")
  inf <- o
  inf$x[1] <- Inf
  expect_error(risk_match(inf, m, "x"), "`original`", class = "epimask_error_value")
  expect_error(risk_match(o, m, "x", targets = 0), "`targets`", class = "epimask_error_value")
  expect_error(risk_match(o, m, "x", targets = "a"), "`targets`", class = "epimask_error_type")
  expect_error(risk_match(o, m, "x", threads = 0), "`threads`", class = "epimask_error_value")
  expect_error(risk_match(list(1), m, "x"), "`original`", class = "epimask_error_type")
  expect_error(risk_match(o[0, ], m[0, ], "x"), "`original`", class = "epimask_error_empty")
  expect_error(risk_match(o[1:2, ], m[1:2, ], "x", "y"), "n = 2, q = 2",
               class = "epimask_error_singular")
})
