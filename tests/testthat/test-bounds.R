# Sizes, counts and hand-built objects are checked before any work
# (issue "Reliability").

test_that("k_prime's O(1) search equals the direct scan over 0..k and takes any k", {
  scan_cut <- function(k, pi, alpha, truncated) {
    lambda <- pi * k
    x <- if (truncated) seq_len(k) else 0:k
    tail <- ppois(x - 1, lambda, lower.tail = FALSE)
    if (truncated) tail <- tail / -expm1(-lambda)
    as.integer(min(x[tail <= alpha], k))
  }
  for (k in c(1, 2, 3, 5, 10, 17, 50, 333, 2000)) for (pi in c(0.01, 0.1, 0.3, 0.9, 1))
    for (alpha in c(0.01, 0.05, 0.1, 0.5)) {
      got <- k_prime(k, pi = pi, alpha = alpha)
      expect_identical(unname(got), c(scan_cut(k, pi, alpha, FALSE), scan_cut(k, pi, alpha, TRUE)),
                       info = sprintf("k = %d, pi = %g, alpha = %g", k, pi, alpha))
    }
  big <- k_prime(.Machine$integer.max, pi = 0.1)
  expect_true(all(big > 0.1 * .Machine$integer.max & big <= .Machine$integer.max))
})

test_that("sizes and family objects are checked before any work", {
  expect_error(simulate_zdl(1, n = .Machine$integer.max), class = "epimask_error_value")
  fam <- binomial()
  fam$linkinv <- NULL
  e <- expect_error(irls_fit(cbind(1, 1:6), c(0, 1, 0, 1, 1, 0), fam), class = "epimask_error_type")
  expect_match(conditionMessage(e), "linkinv")
  expect_error(fit_glm(case ~ dose, dose_cohort[1:50, ],
                       family = structure(list(family = "binomial"), class = "family")),
               class = "epimask_error_type")
})

test_that("S3 method arguments get classed errors naming them", {
  d <- dose_cohort[1:300, ]
  ru <- ru_profile(d, list(mask_round(1, "decimal")), case ~ sex, family = "err", vars = "dose",
                   term = "dose", risk = "none", seed = 1)
  expect_error(print(ru, digits = NULL), class = "epimask_error")
  expect_error(print(ru, n = 0.5), class = "epimask_error_value")
  expect_error(format(ru, width = "a"), class = "epimask_error")
  fit <- fit_glm(case ~ dose + sex, dose_cohort[1:200, ], family = binomial())
  e <- expect_error(predict(fit, newdata = data.frame(dose = "a", sex = "male")),
                    class = "epimask_error_value")
  expect_identical(e$arg, "newdata")
  expect_error(confint(fit, parm = data.frame()), class = "epimask_error_type")
  expect_error(confint(fit, parm = NA), class = "epimask_error_type")
  expect_identical(rownames(confint(fit, parm = 2)), "dose")
})
