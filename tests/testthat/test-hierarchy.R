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

test_that("hierarchy_category(): the design's argument `x`; `table` still read, deprecated", {
  tab <- data.frame(code = c("I21", "J45"), chapter = c("I", "J"))
  by_x <- hierarchy_category(x = tab)
  expect_identical(generalize(c("J45", "I21"), by_x, 1), c("J", "I"))
  expect_warning(by_table <- hierarchy_category(table = tab),
                 class = "epimask_warning_deprecated")
  expect_identical(by_table$table, by_x$table)
  expect_error(hierarchy_category(x = tab, table = tab), class = "epimask_error_value")
  err <- tryCatch(hierarchy_category(x = 1:3), error = identity)
  expect_s3_class(err, "epimask_error_type")
  expect_identical(err$arg, "x")
  expect_error(hierarchy_category(), class = "epimask_error_type")
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

test_that("ARX hierarchy files are read as they are (; and ,)", {
  f <- tempfile(fileext = ".csv")
  # ARX's layout: no header, one row per value, one column per level, `*` last
  writeLines(c("Bachelors;Undergraduate;Higher education;*",
               "HS-grad;High School;Secondary education;*",
               "Masters;Graduate;Higher education;*",
               "9th;High School;Secondary education;*"), f)
  h <- hierarchy_category(f)
  x <- c("Masters", "9th", "HS-grad")
  expect_identical(generalize(x, h, 1), c("Graduate", "High School", "High School"))
  expect_identical(generalize(x, h, 2), c("Higher education", "Secondary education",
                                          "Secondary education"))
  expect_identical(generalize(x, h, 3), rep("*", 3))
  # the `*` column is the top: no second `*` level below it
  expect_identical(length(h$levels), 4L)
  expect_error(generalize(x, h, 4), class = "epimask_error_value")
  g <- tempfile(fileext = ".csv")
  writeLines(c("1,0-4,0-9,*", "2,0-4,0-9,*", "7,5-9,0-9,*"), g)
  ha <- hierarchy_category(g)
  expect_identical(generalize(c(7, 1), ha, 1), c("5-9", "0-4"))
  expect_identical(generalize(7, ha, 3), "*")
  # a file without the `*` column gets one
  writeLines(c("a;A", "b;A", "c;C"), g)
  expect_identical(generalize("c", hierarchy_category(g), 2), "*")
  expect_error(hierarchy_category(file.path(tempdir(), "no-such-file.csv")),
               class = "epimask_error_value")
})

test_that("write_hierarchy writes ARX's layout and reads back unchanged", {
  f <- tempfile(fileext = ".csv")
  lines <- c("Bachelors;Undergraduate;Higher education;*",
             "HS-grad;High School;Secondary education;*")
  writeLines(lines, f)
  out <- tempfile(fileext = ".csv")
  write_hierarchy(hierarchy_category(f), out)
  expect_identical(readLines(out), lines)
  # a numeric hierarchy with its values, then read back as categories
  write_hierarchy(hierarchy_numeric(c(5, 10)), out, values = c(21, 27, 33, 21))
  expect_identical(readLines(out), c("21;20-24;20-29;*", "27;25-29;20-29;*",
                                     "33;30-34;30-39;*"))
  back <- hierarchy_category(out)
  expect_identical(generalize(c(33, 21), back, 2), c("30-39", "20-29"))
  write_hierarchy(hierarchy_zip(3), out, values = c("021", "022"), sep = ",")
  expect_identical(readLines(out), c("021,020,000,*", "022,020,000,*"))
  expect_error(write_hierarchy(hierarchy_numeric(5), out), class = "epimask_error_value")
  expect_error(write_hierarchy(hierarchy_category(data.frame(a = "x;y", b = "z")), out),
               class = "epimask_error_value")
})

test_that("one-step and rare-category hierarchies", {
  h <- hierarchy_flat()
  expect_identical(generalize(c("a", "b"), h, 1), c("*", "*"))
  expect_identical(generalize(c("a", "b"), h, 0), c("a", "b"))
  x <- c(rep("common", 6), rep("usual", 5), "rare1", "rare2", "rare2")
  hr <- hierarchy_rare(x, min_count = 5)
  expect_identical(generalize(c("common", "rare1", "rare2", "usual"), hr, 1),
                   c("common", "other", "other", "usual"))
  expect_identical(generalize("rare1", hr, 2), "*")
  expect_error(hierarchy_rare(x, min_count = 5, other = "common"), class = "epimask_error_value")
  # usable in datafly() on a key with rare values
  d <- data.frame(dx = x)
  res <- datafly(d, "dx", list(dx = hr), k = 3, max_suppress = 0)
  expect_identical(unname(res$levels), 1L)
  expect_identical(sort(unique(res$data$dx)), c("common", "other", "usual"))
})
