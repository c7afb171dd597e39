test_that("argument checks raise classed errors naming the argument", {
  f <- function(lambda) epimask:::check_number(lambda, lower = 0)
  expect_error(f(-1), class = "epimask_error_value")
  expect_error(f(-1), "`lambda` must be a number >= 0")
  expect_error(f("a"), class = "epimask_error_type")
  expect_error(f(NA_real_), class = "epimask_error_value")
  expect_error(f(Inf), "`lambda`", class = "epimask_error")
  expect_identical(f(2L), 2)

  g <- function(x) epimask:::check_numeric_matrix(x)
  expect_error(g(matrix("a")), class = "epimask_error_type")
  expect_error(g(matrix(c(1, NA))), "`x` must be free of NA", class = "epimask_error_value")
  expect_error(g(numeric(0)), class = "epimask_error_empty")
  expect_error(epimask:::check_columns("zz", data.frame(a = 1), "vars"),
               "`vars` names a column not found", class = "epimask_error_name")
  expect_identical(epimask:::check_choice("dec", c("significant", "decimal")), "decimal")
  expect_error(epimask:::check_choice("zzz", c("a", "b"), "type"),
               class = "epimask_error_value")
})

test_that("classed warnings carry the epimask_warning class", {
  expect_warning(epimask:::epimask_warn("x", "epimask_warning_convergence"),
                 class = "epimask_warning_convergence")
})
