# Error messages of the exported functions not covered by their own test
# files, and of the checks added for hostile input (overflow, foreign
# functions that fail, huge counts). Every error names its argument, both in
# the message and in the condition's `arg` field.

expect_arg_error <- function(expr, class, arg, pattern = NULL) {
  err <- expect_error(expr, class = class)
  expect_s3_class(err, "epimask_error")
  expect_identical(err$arg, arg)
  expect_match(conditionMessage(err), sprintf("`%s`", arg), fixed = TRUE)
  if (!is.null(pattern)) expect_match(conditionMessage(err), pattern)
  invisible(err)
}

test_that("hierarchy_zip() refuses bad digits and fill", {
  expect_arg_error(hierarchy_zip(0), "epimask_error_value", "digits", ">= 1")
  expect_arg_error(hierarchy_zip("5"), "epimask_error_type", "digits")
  expect_arg_error(hierarchy_zip(2.5), "epimask_error_value", "digits", "whole number")
  expect_arg_error(hierarchy_zip(5, fill = "x"), "epimask_error_value", "fill", "not \"x\"")
  expect_arg_error(hierarchy_zip(5, fill = NA), "epimask_error_type", "fill")
})

test_that("k_prime() refuses bad k, pi and alpha", {
  expect_arg_error(k_prime(0, 0.1), "epimask_error_value", "k", ">= 1")
  expect_arg_error(k_prime("a", 0.1), "epimask_error_type", "k")
  expect_arg_error(k_prime(5, 0), "epimask_error_value", "pi", "> 0 and <= 1")
  expect_arg_error(k_prime(5, 1.5), "epimask_error_value", "pi")
  expect_arg_error(k_prime(5, NA_real_), "epimask_error_value", "pi", "not NA")
  expect_arg_error(k_prime(5, 0.1, alpha = 1), "epimask_error_value", "alpha", "< 1")
  expect_arg_error(k_prime(5, 0.1, alpha = NA), "epimask_error_type", "alpha")
})

test_that("mask_grid() refuses bad kernels, degrees, coordinates and flags", {
  xy <- matrix(runif(20), ncol = 2)
  expect_arg_error(mask_grid("exponential", -1, xy), "epimask_error_value", "lambda", ">= 0")
  expect_arg_error(mask_grid("exponential", c(0.1, NA), xy), "epimask_error_value", "lambda")
  expect_arg_error(mask_grid("exponential", numeric(0), xy), "epimask_error_empty", "lambda")
  expect_arg_error(mask_grid(1, 0.1, xy), "epimask_error_type", "kernel")
  expect_arg_error(mask_grid("nope", 0.1, xy), "epimask_error_value", "kernel", "not \"nope\"")
  expect_arg_error(mask_grid("exponential", 0.1, xy[0, ]), "epimask_error_empty", "coords")
  expect_arg_error(mask_grid("exponential", 0.1, xy, none = NA), "epimask_error_type", "none")
  expect_arg_error(mask_grid("ring", 0.1, xy), "epimask_error_value", "source", "required")
})

test_that("mask_truncate() and mask_round() refuse bad or huge digits", {
  expect_arg_error(mask_truncate("a"), "epimask_error_type", "digits")
  expect_arg_error(mask_truncate(NA), "epimask_error_type", "digits")
  expect_arg_error(mask_truncate(c(1, 2)), "epimask_error_type", "digits")
  expect_arg_error(mask_truncate(0.5), "epimask_error_value", "digits", "whole number")
  # beyond the integer range: no NA coercion warning, a classed error
  expect_no_warning(expect_arg_error(mask_truncate(1e10), "epimask_error_value", "digits",
                                     "between"))
  expect_arg_error(mask_round(1e308), "epimask_error_value", "digits", "between")
})

test_that("mask_none() takes no argument; its scheme still checks the data", {
  # mask_none() has no argument that could be wrong: the classed errors come
  # from applying it.
  expect_arg_error(apply_mask("a", mask_none()), "epimask_error_type", "data")
  expect_arg_error(apply_mask(data.frame(), mask_none()), "epimask_error_empty", "data")
  expect_arg_error(apply_mask(data.frame(x = 1:3), mask_none(), "y"),
                   "epimask_error_name", "vars")
})

test_that("masks whose values would overflow are refused", {
  xy <- matrix(runif(20), ncol = 2)
  expect_arg_error(mask_kernel("exponential", 0.1, xy * 1e200), "epimask_error_value",
                   "coords", "finite")
  expect_arg_error(mask_kernel("ring", 0.1, xy, source = c(1e308, 0)),
                   "epimask_error_value", "coords", "finite")
  expect_arg_error(apply_mask(data.frame(x = 1:3), mask_noise(1e308)),
                   "epimask_error_value", "data", "overflow")
  # rounding and truncation of huge values stay finite (no digits to drop)
  huge <- data.frame(x = c(1.7976e308, -1e306, 123.456))
  expect_identical(apply_mask(huge, mask_truncate(3))$x, c(1.7976e308, -1e306, 123.456))
  expect_identical(apply_mask(huge, mask_truncate(400))$x, huge$x)
  expect_identical(apply_mask(huge, mask_truncate(-400))$x, c(0, 0, 0))
  expect_true(all(is.finite(apply_mask(huge, mask_round(3))$x)))
  expect_arg_error(apply_mask(data.frame(x = c(rep(1e308, 5), rep(-1e308, 5))),
                              mask_kernel("exponential", 10, xy)),
                   "epimask_error_value", "data", "overflow")
  big <- data.frame(x = runif(6) * 1e307, y = runif(6) * 1e307)
  expect_arg_error(risk_match(big, big + 1e306, "x", "y"), "epimask_error_value",
                   "masked", "overflow")
})

test_that("a kernel lambda too small to move any record gives a classed warning", {
  xy <- cbind(1:10, 0)
  d <- data.frame(x = rnorm(10))
  s <- mask_kernel("exponential", 1e-3, xy)   # spacing 1, cutoff 36 * 1e-3
  expect_warning(out <- apply_mask(d, s), class = "epimask_warning_nomask")
  expect_identical(out$x, d$x)
  # constant columns cannot show it, and a lambda that moves values does not warn
  expect_no_warning(apply_mask(data.frame(x = rep(1, 10)), s))
  expect_no_warning(apply_mask(d, mask_kernel("exponential", 1, xy)))
})

test_that("functions passed as arguments fail with classed errors", {
  d <- data.frame(x = 1:6, y = c(1, 3, 2, 5, 4, 6))
  expect_arg_error(fit_glm(y ~ x, d, family = function() stop("no family")),
                   "epimask_error_type", "family", "no family")
  expect_arg_error(fit_glm(y ~ x, d, family = ""), "epimask_error_value", "family")
  expect_arg_error(fit_glm(y ~ x, d, family = NA_character_), "epimask_error_value", "family")
  expect_arg_error(utility_glm(d, d, y ~ x, term = function(fit) 1),
                   "epimask_error_type", "term", "2 arguments")
  expect_arg_error(utility_glm(d, d, y ~ x, term = function(fit, data) stop("bad term")),
                   "epimask_error_value", "term", "bad term")
  xy <- matrix(runif(20), ncol = 2)
  x <- cbind(1, xy[, 1])
  s <- mask_kernel("shrink", 0.1, xy, bandwidth = 0.3)
  expect_arg_error(bias_first_order(x, c(1, 1), poisson(), s, f = function(b) b),
                   "epimask_error_value", "f", "one finite number")
  expect_arg_error(bias_asymptotic(x, c(1, 1), poisson(), s, f = function(b) stop("oops")),
                   "epimask_error_value", "f", "oops")
  expect_arg_error(bias_first_order(x, c(1, 1), poisson(), s, f = function(b) b[2],
                                    grad = function(b) stop("no grad")),
                   "epimask_error_value", "grad", "no grad")
  # a one-column matrix beta is taken as the vector it holds
  expect_equal(bias_first_order(x, matrix(c(1, 1)), poisson(), s),
               bias_first_order(x, c(1, 1), poisson(), s))
})

test_that("seeds outside the integer range are refused", {
  expect_arg_error(simulate_zdl(1, 10, seed = 1e12), "epimask_error_value", "seed",
                   "<= 2147483647")
  d <- data.frame(x = 1:10, y = c(1, 3, 2, 5, 4, 6, 8, 7, 9, 10))
  expect_arg_error(ru_profile(d, mask_round(1), y ~ x, risk = "none", seed = -1e308,
                              progress = FALSE),
                   "epimask_error_value", "seed")
})

test_that("ru_profile() names a formula variable missing from the data", {
  d <- data.frame(x = 1:10, y = c(1, 3, 2, 5, 4, 6, 8, 7, 9, 10))
  expect_arg_error(ru_profile(d, mask_round(1), y ~ nope, risk = "none", progress = FALSE),
                   "epimask_error_name", "formula", "'nope'")
})

test_that("fits that overflow give a classed error, not NaN estimates", {
  h <- data.frame(x = c(1, 2, 3, 4) * 1e307, y = c(1, 3, 2, 5) * 1e307)
  expect_error(suppressWarnings(fit_glm(y ~ x, h, poisson())), "overflowed",
               class = "epimask_error_value")
})

test_that("a family name that is not known lists every family and model, and says when only the case is wrong", {
  d <- data.frame(time = c(5, 8, 3, 9, 4), status = c(1, 0, 1, 1, 0), x = c(1, 2, 3, 4, 5))
  err <- expect_arg_error(utility_glm(d, d, Surv(time, status) ~ x, family = "Cox"),
                          "epimask_error_value", "family")
  msg <- conditionMessage(err)
  for (name in c("gaussian", "binomial", "quasibinomial", "poisson", "quasipoisson", "Gamma",
                 "cox", "err"))
    expect_match(msg, sprintf("\"%s\"", name), fixed = TRUE)
  expect_match(msg, "case-sensitive, did you mean \"cox\"?", fixed = TRUE)
  expect_match(conditionMessage(expect_error(
    ru_profile(d, c(mask_none()), x ~ time, family = "Binomial", risk = "none"),
    class = "epimask_error_value")), "did you mean \"binomial\"?", fixed = TRUE)
  # fit_glm() fits GLMs only: no "cox" or "err" offered there
  msg <- conditionMessage(expect_error(fit_glm(x ~ time, d, family = "gamma"),
                                       class = "epimask_error_value"))
  expect_match(msg, "did you mean \"Gamma\"?", fixed = TRUE)
  expect_false(grepl("\"cox\"", msg, fixed = TRUE))
  expect_false(grepl("case-sensitive", conditionMessage(expect_error(
    fit_glm(x ~ time, d, family = "weibull"), class = "epimask_error_value"))))
})

test_that("a hierarchy that does not fit its key names the key", {
  d <- data.frame(age = as.character(c(20, 30, 40, 50, 60, 20)), sex = c("m", "f", "m", "f", "m", "f"))
  h <- list(age = hierarchy_numeric(c(10, 20)), sex = hierarchy_flat())
  for (call in list(quote(datafly(d, c("age", "sex"), h, k = 2)),
                    quote(ola(d, c("age", "sex"), h, k = 2)))) {
    err <- expect_arg_error(eval(call), "epimask_error_type", "hierarchies$age",
                            "key 'age' holds character values")
    expect_match(conditionMessage(err), "numeric hierarchy applied to numeric keys")
  }
  # a user's level function that fails names the key too
  h$sex <- hierarchy_category(data.frame(v = c("m", "f"), l1 = c("p", "p")))
  h$age <- hierarchy_flat()
  h$sex$levels[[2L]] <- function(x) stop("no such code")
  expect_arg_error(datafly(d, c("age", "sex"), h, k = 2), "epimask_error_value", "hierarchies$sex",
                   "of key 'sex' \\(level 1 failed: no such code\\)")
})
