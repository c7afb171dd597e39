# The hashed counts are checked against table()/paste() in plain R.

brute_groups <- function(df, keys) {
  key <- do.call(paste, c(lapply(df[keys], function(x) ifelse(is.na(x), "<NA>", as.character(x))), sep = "\r"))
  first <- match(key, unique(key))
  list(group = first, size = as.vector(table(factor(key, levels = unique(key)))))
}

test_that("key_groups equals a paste/table count, NA being a category", {
  set.seed(1)
  df <- data.frame(a = sample(c(1:5, NA), 500, TRUE),
                   b = sample(c("x", "y", NA), 500, TRUE),
                   d = as.Date("2000-01-01") + sample(0:3, 500, TRUE),
                   f = factor(sample(c("m", "f"), 500, TRUE)))
  keys <- c("a", "b", "d", "f")
  got <- epimask:::key_groups(df, keys)
  want <- brute_groups(df, keys)
  expect_identical(got$group, want$group)
  expect_identical(got$size, want$size)
})

# the hashed match count (src/freq.c) is reached through risk_identifiability()
match_counts <- function(query, reference, keys)
  risk_identifiability(query, reference, keys)$records$matches

test_that("the hashed match count equals a double loop", {
  set.seed(2)
  src <- data.frame(x = round(runif(3000), 2), s = sample(c("a", "b"), 3000, TRUE))
  rel <- data.frame(x = c(src$x[1:40], 2, NA), s = c(src$s[1:40], "a", "b"))
  got <- match_counts(rel, src, c("x", "s"))
  want <- vapply(seq_len(nrow(rel)), function(i)
    sum(src$x == rel$x[i] & src$s == rel$s[i], na.rm = TRUE), numeric(1))
  expect_equal(got, as.integer(want))
  expect_identical(got[41:42], c(0L, 0L))
})

test_that("factor keys match by label across data sets with different levels", {
  a <- data.frame(k = factor(c("u", "v"), levels = c("v", "u")))
  b <- data.frame(k = factor(c("u", "u", "w")))
  expect_identical(match_counts(a, b, "k"), c(2L, 0L))
})

test_that("one-row data are handled and an empty source is refused", {
  a <- data.frame(k = 1)
  expect_identical(epimask:::key_groups(a, "k")$size, 1L)
  expect_identical(match_counts(a, a, "k"), 1L)
  expect_error(match_counts(a, a[0, , drop = FALSE], "k"), class = "epimask_error_empty")
})

test_that("key_groups equals a paste/table count on both C paths", {
  # Few distinct codes: rows pack into one 64-bit key. Four all-distinct
  # columns of 70,000 codes: the code ranges overflow 64 bits and rows are
  # compared column by column.
  set.seed(3)
  small <- data.frame(y = sample(c(1950:1960, NA), 2000, TRUE),
                      d = as.Date("2000-01-01") + sample(c(0:5, NA), 2000, TRUE),
                      l = sample(c(TRUE, FALSE, NA), 2000, TRUE),
                      f = factor(sample(c("a", "b", NA), 2000, TRUE)),
                      x = sample(c(0.5, 2, NA), 2000, TRUE))
  got <- epimask:::key_groups(small, names(small))
  want <- brute_groups(small, names(small))
  expect_identical(got$group, want$group)
  expect_identical(got$size, want$size)
  m <- 70000
  wide <- data.frame(a = sample(m), b = sample(m) * 1e6, c = as.character(sample(m)),
                     d = sample(m))
  wide <- wide[c(seq_len(m), 1:50), ]
  got <- epimask:::key_groups(wide, names(wide))
  want <- brute_groups(wide, names(wide))
  expect_identical(got$group, want$group)
  expect_identical(got$size, want$size)
})
