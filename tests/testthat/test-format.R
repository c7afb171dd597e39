# The one number formatter and the one table formatter of the printed output.

test_that("format_num gives significant digits, scientific at the extremes, NA as NA", {
  fn <- epimask:::format_num
  expect_identical(fn(c(0.05, 12, 1234.5, 0.123456), 3), c("0.0500", "12.0", "1230", "0.123"))
  expect_identical(fn(1.28e-14, 3), formatC(1.28e-14, digits = 2, format = "e"))
  expect_identical(fn(c(NA, 2.5), 2), c("NA", "2.5"))
  # whole numbers without decimals when asked (counts), others unchanged
  expect_identical(fn(c(16000, 3, 0.25, 1e20), 3, integers = TRUE),
                   c("16000", "3", "0.250", formatC(1e20, digits = 2, format = "e")))
})

test_that("format_table formats numeric columns and left-justifies the named text", {
  d <- data.frame(scheme = c("none", "round 2 dec"), U = c(1, 0.98765), n = c(16000, 5),
                  stringsAsFactors = FALSE)
  out <- epimask:::format_table(d, 3, left = "scheme")
  expect_identical(names(out), c("scheme     ", "U", "n"))
  expect_identical(out[[1]], c("none       ", "round 2 dec"))
  expect_identical(out$U, c("1", "0.988"))
  expect_identical(out$n, c("16000", "5"))
  # text columns not named stay as they are
  expect_identical(epimask:::format_table(d[1], left = character())$scheme, d$scheme)
})
