# info_loss() against values worked out by hand from methods vignette section 16.

loss_data <- data.frame(age = c(23, 25, 27, 31, 33, 38, 41, 44),
                        sex = c("f", "m", "f", "m", "f", "m", "f", "m"))
loss_h <- list(age = hierarchy_numeric(c(10, 20)), sex = hierarchy_flat())

test_that("Datafly without suppression: age to *, classes f 4 and m 4", {
  # age (8 distinct) -> tens (3) -> twenties (2); then the age/sex tie goes to
  # age (DM 32 against 40), to *
  res <- datafly(loss_data, c("age", "sex"), loss_h, k = 2, max_suppress = 0)
  expect_identical(unname(res$levels), c(3L, 0L))
  # precision: every record at age level 3 of 3 and sex level 0 of 1
  expect_equal(info_loss(res, "precision"), 8 * (3 / 3 + 0) / (8 * 2))
  expect_equal(info_loss(res, "discernibility"), 4^2 + 4^2)
  expect_equal(info_loss(res, "avg_class_size"), (8 / 2) / 2)
  # entropy: 8 distinct ages all in "*": -log2(1/8) = 3 bits each; sex kept
  expect_equal(info_loss(res, "entropy"), 8 * 3)
})

test_that("Datafly with suppression: 41 and 44 dropped, counted as fully generalized", {
  res <- datafly(loss_data, c("age", "sex"), loss_h, k = 2, max_suppress = 0.25)
  expect_identical(unname(res$levels), c(2L, 0L))
  expect_identical(res$suppressed, 7:8)
  # 6 released records at age level 2 of 3; 2 suppressed at 3 of 3 and 1 of 1
  expect_equal(info_loss(res, "precision"), (6 * 2 / 3 + 2 * (1 + 1)) / 16)
  expect_equal(info_loss(res, "discernibility"), 3^2 + 3^2 + 8 * 2)
  expect_equal(info_loss(res, "avg_class_size"), (6 / 2) / 2)
  # age: 6 released records in the group 20-39 of 6 originals, distinct ages:
  # log2 6 each; suppressed: log2 8 each. sex: released 0, suppressed
  # -log2(4/8) = 1 each.
  expect_equal(info_loss(res, "entropy"), 6 * log2(6) + 2 * 3 + 2 * 1)
  expect_equal(info_loss(res, "all"),
               c(entropy = 6 * log2(6) + 8, precision = 0.5,
                 discernibility = 34, avg_class_size = 1.5))
})

test_that("every record suppressed: average class size n / k", {
  d <- data.frame(a = c("x", "y", "z"))
  res <- suppressWarnings(datafly(d, "a", list(a = list(identity)), k = 5))
  expect_equal(info_loss(res, "avg_class_size"), 3 / 5)
  expect_equal(info_loss(res, "precision"), 1)
  expect_equal(info_loss(res, "discernibility"), 9)
  expect_equal(info_loss(res, "entropy"), 3 * log2(3))
})

test_that("ola never loses more than Datafly under the metric it minimizes", {
  set.seed(4)
  d <- data.frame(age = sample(20:79, 400, TRUE), sex = sample(c("f", "m"), 400, TRUE),
                  zip = sprintf("%05d", sample(2130:2149, 400, TRUE)))
  h <- list(age = hierarchy_numeric(c(5, 10, 20)), sex = hierarchy_flat(),
            zip = hierarchy_zip())
  for (ms in c(0, 0.05)) {
    g <- datafly(d, names(d), h, k = 5, max_suppress = ms)
    for (m in c("entropy", "precision", "discernibility", "avg_class_size")) {
      o <- deprecated(ola(d, names(d), h, k = 5, max_suppress = ms, metric = m))
      expect_lte(info_loss(o, m), info_loss(g, m) * (1 + 1e-12))
    }
  }
})

test_that("info_loss rejects other objects and metrics", {
  expect_error(info_loss(risk_kanon(loss_data, "sex")), class = "epimask_error_type")
  res <- datafly(loss_data, c("age", "sex"), loss_h, k = 2)
  expect_error(info_loss(res, "nope"), class = "epimask_error_value")
})
