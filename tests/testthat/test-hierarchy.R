# Generalization hierarchies: each level written out by hand.

test_that("dates: day -> month -> year -> decade -> *", {
  x <- as.Date(c("1965-09-20", "1964-11-07", NA))
  h <- hierarchy_date()
  expect_identical(generalize(x, h, 0), x)
  expect_identical(generalize(x, h, 1), c("1965-09", "1964-11", NA))
  expect_identical(generalize(x, h, 2), c("1965", "1964", NA))
  expect_identical(generalize(x, h, 3), c("1960-1969", "1960-1969", NA))
  expect_identical(generalize(x, h, 4), rep("*", 3))
  expect_error(generalize(x, h, 5), class = "epimask_error_value")
  expect_identical(h$labels, c("day", "month", "year", "decade", "*"))
  ch <- hierarchy_date(format = "%d/%m/%Y")
  expect_identical(generalize("20/09/1965", ch, 2), "1965")
  expect_error(generalize("1965-09-20", h, 2), class = "epimask_error_type")
  expect_identical(generalize(x, hierarchy_date(c("year", "decade")), 1),
                   c("1965", "1964", NA))
  expect_error(hierarchy_date(c("decade", "year")), class = "epimask_error_value")
  expect_output(print(h), "day -> month -> year -> decade -> \\*")
})

test_that("ZIP codes: trailing digits replaced", {
  h <- hierarchy_zip()
  x <- c("02138", "02141", NA)
  expect_identical(generalize(x, h, 1), c("02130", "02140", NA))
  expect_identical(generalize(x, h, 2), c("02100", "02100", NA))
  expect_identical(generalize(x, h, 4), c("00000", "00000", NA))
  expect_identical(generalize(x, h, 5), rep("*", 3))
  expect_identical(generalize(2138, h, 1), "02130")
  expect_identical(generalize(x[1], hierarchy_zip(fill = "*"), 2), "021**")
})

test_that("numbers: intervals of growing width", {
  h <- hierarchy_numeric(c(5, 10))
  expect_identical(generalize(c(1959, 1962, NA), h, 1), c("1955-1959", "1960-1964", NA))
  expect_identical(generalize(c(1959, 1962), h, 2), c("1950-1959", "1960-1969"))
  expect_identical(generalize(c(1959, 1962), h, 3), c("*", "*"))
  expect_identical(generalize(c(2.5, 7.25), hierarchy_numeric(5), 1), c("[0,5)", "[5,10)"))
  expect_identical(generalize(c(-1, 3), hierarchy_numeric(10, origin = 5), 1),
                   c("-5-4", "-5-4"))
  expect_error(hierarchy_numeric(c(10, 5)), class = "epimask_error_value")
})

test_that("categories: a lookup table, unknown values are an error", {
  tab <- data.frame(code = c("I21", "I22", "J45"), block = c("I2", "I2", "J4"),
                    chapter = c("I", "I", "J"))
  h <- hierarchy_category(tab)
  expect_identical(generalize(c("J45", "I22"), h, 1), c("J4", "I2"))
  expect_identical(generalize(factor(c("J45", "I22")), h, 2), c("J", "I"))
  expect_identical(generalize(c("J45", "I22"), h, 3), c("*", "*"))
  expect_error(generalize("K50", h, 1), "K50", class = "epimask_error_value")
  expect_error(hierarchy_category(tab[c(1, 1), ]), class = "epimask_error_value")
})

test_that("user lists of functions and lookup tables", {
  h <- as_hierarchy(list(identity, function(x) substr(x, 1, 2),
                         data.frame(from = c("I21", "J45"), to = c("I", "J"))))
  expect_identical(generalize(c("I21", "J45"), h, 1), c("I2", "J4"))
  expect_identical(generalize(c("I21", "J45"), h, 2), c("I", "J"))
  expect_error(as_hierarchy(list(identity, 3)), class = "epimask_error_type")
  bad <- as_hierarchy(list(identity, function(x) x[1]))
  expect_error(generalize(c("a", "b"), bad, 1), class = "epimask_error_length")
})
