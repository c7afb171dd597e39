# The three attacks as risk criteria (methods vignette 28.7), through
# criterion_evaluate() directly.

test_that("a criterion's value and interval are the attack's risk, drawn from its seed", {
  d <- mixed_data(800, 71, na_share = 0.02)
  rel <- d
  rel$bmi <- round(rel$bmi)
  crit <- singling_out(0.05, n_attacks = 150, seed = 3)
  res <- criterion_evaluate(crit, rel, original = d)
  direct <- risk_singling_out(d, rel, n_attacks = 150, seed = 3)
  expect_s3_class(res, "criterion_result")
  expect_identical(res$detail, direct)
  expect_identical(res$value, direct$risk$value)
  expect_identical(res$interval, direct$risk$interval)
  # the same criterion judges every release alike (its seed is fixed when made)
  unseeded <- singling_out(0.05, n_attacks = 150)
  expect_identical(criterion_evaluate(unseeded, rel, original = d)$detail$rows,
                   criterion_evaluate(unseeded, rel, original = d)$detail$rows)
  lk <- linkability(0.1, aux = list(c("age", "sex"), c("bmi", "region")), n_attacks = 100, seed = 4)
  expect_identical(criterion_evaluate(lk, rel, original = d)$detail,
                   risk_linkability(d, rel, aux = list(c("age", "sex"), c("bmi", "region")),
                                    n_attacks = 100, seed = 4))
  inf <- inference(0.1, aux = c("age", "sex", "region"), secret = "bmi", n_attacks = 100, seed = 5)
  expect_identical(criterion_evaluate(inf, rel, original = d)$detail,
                   risk_inference(d, rel, aux = c("age", "sex", "region"), secret = "bmi",
                                  n_attacks = 100, seed = 5))
  row <- criterion_report_row(res)
  expect_equal(c(row$low, row$high), direct$risk$interval)
})

test_that("the bound is compared with the upper end by default, or with the estimate", {
  d <- mixed_data(2000, 72, na_share = 0)
  rel <- d
  rel$bmi <- round(rel$bmi + runif(2000, -3, 3))
  aux <- c("age", "sex", "region", "visit")
  a <- risk_inference(d, rel, aux = aux, secret = "bmi", tolerance = 0.02, n_attacks = 500, seed = 6)
  expect_gt(a$risk$interval[[2]], a$risk$value)
  mid <- (a$risk$value + a$risk$interval[[2]]) / 2
  upper <- criterion_evaluate(inference(mid, aux = aux, secret = "bmi", tolerance = 0.02,
                                        n_attacks = 500, seed = 6), rel, original = d)
  point <- criterion_evaluate(inference(mid, aux = aux, secret = "bmi", tolerance = 0.02,
                                        n_attacks = 500, seed = 6, against = "point"),
                              rel, original = d)
  expect_false(upper$pass)
  expect_true(point$pass)
  expect_match(format(upper)[[1]], "upper bound")
  expect_true(is.na(criterion_evaluate(inference(aux = aux, secret = "bmi", n_attacks = 100,
                                                 seed = 6), rel, original = d)$pass))
})

test_that("a copy fails, an unrelated release passes", {
  d <- mixed_data(2000, 73, na_share = 0, dup = FALSE)
  d$x <- rnorm(2000)
  other <- mixed_data(2000, 74, na_share = 0, dup = FALSE)
  other$x <- rnorm(2000)
  crit <- linkability(0.1, aux = list(c("x", "sex"), c("bmi", "age")), n_attacks = 300, seed = 1)
  expect_false(criterion_evaluate(crit, d, original = d)$pass)
  expect_true(criterion_evaluate(crit, other, original = d)$pass)
})

test_that("a release the attack cannot judge does not apply, and says why", {
  d <- mixed_data(400, 75)
  fewer <- d[1:300, ]
  res <- criterion_evaluate(singling_out(0.05, n_attacks = 50, seed = 1), fewer, original = d)
  expect_false(res$applies)
  expect_false(isTRUE(res$pass))
  expect_match(res$note, "Hold records out BEFORE")
  gen <- d
  gen$age <- as.character(cut(gen$age, c(0, 50, 100)))
  res <- criterion_evaluate(linkability(0.05, aux = list("age", "sex"), n_attacks = 50, seed = 1),
                            gen, original = d)
  expect_false(res$applies)
  expect_match(res$note, "generalize")
  # with a control the release of other records is judged
  ctrl <- mixed_data(200, 76)
  ok <- criterion_evaluate(linkability(0.05, aux = list("age", "sex"), n_attacks = 50,
                                       control = ctrl, seed = 1), fewer, original = d[1:300, ])
  expect_true(ok$applies)
})

test_that("criteria check their arguments; the original is required", {
  expect_error(singling_out(2), class = "epimask_error_value")
  expect_error(singling_out(0.1, against = "lower"), class = "epimask_error_value")
  expect_error(linkability(0.1, aux = "age"), class = "epimask_error_type")
  expect_error(inference(0.1, aux = "a", secret = "a"), class = "epimask_error_value")
  expect_error(singling_out(0.1, control = "x"), class = "epimask_error_type")
  d <- mixed_data(100, 77)
  err <- tryCatch(criterion_evaluate(singling_out(0.1, seed = 1), d), error = identity)
  expect_s3_class(err, "epimask_error_value")
  expect_identical(err$arg, "original")
  err <- tryCatch(criterion_prepare(inference(0.1, aux = "nope", secret = "bmi"), d),
                  error = identity)
  expect_s3_class(err, "epimask_error_name")
  expect_false(criterion_monotone(singling_out(0.1)))
})
