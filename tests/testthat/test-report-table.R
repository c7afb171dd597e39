# release_report() of a protected table: the content holds no suppressed or
# true value of a sensitive cell; the HTML renders where pandoc is.

test_that("the report content of a protected table leaks no suppressed value", {
  skip_without_solver()
  d <- data.frame(a = rep(c("x", "y", "z"), 2), b = rep(c("p", "q"), each = 3), n = c(4, 1, 7, 2, 5, 3))
  tab <- table_counts(d, c("a", "b"), freq = "n")
  prot <- suppress_table(tab, cell_threshold(3))
  content <- table_report_content(prot)
  expect_true(content$protected)
  expect_equal(content$n_primary, 2L)
  expect_false(any(c("value", "lower", "upper", "count") %in% names(content$cells)))
  expect_equal(nrow(content$cells), 2L)
  skip_if_not(rmarkdown::pandoc_available())
  f <- tempfile(fileext = ".html")
  release_report(prot, f)
  html <- paste(readLines(f, warn = FALSE), collapse = "\n")
  expect_match(html, "Every sensitive cell is protected")
})
