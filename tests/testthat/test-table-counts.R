# table_counts(): the cells of every level against base R's own tabulation
# (the hierarchy levels applied by hand), the relations, the largest
# contributions against a sort per cell, and bad input.

zip_hier <- hierarchy_levels(hierarchy_zip(), 2)

test_that("every cell of every level equals the count of its records (tapply by hand)", {
  h <- list(age_exp = hierarchy_numeric(c(10, 20)))
  tab <- table_counts(dose_cohort, c("city", "age_exp"), hierarchies = h)
  d <- as.data.frame(tab)
  code_at <- function(x, dim, l, top) {
    if (l == top) return(rep("*", length(x)))
    if (l == 0) return(as.character(x))
    as.character(generalize(x, h[[dim]], l))
  }
  top <- c(city = 1, age_exp = 3)
  for (lc in 0:1) for (la in 0:3) {
    key_c <- code_at(dose_cohort$city, "city", lc, top[["city"]])
    key_a <- code_at(dose_cohort$age_exp, "age_exp", la, top[["age_exp"]])
    ref <- table(paste(key_c, key_a, sep = "|"))
    rows <- d[d$city_level == lc & d$age_exp_level == la, ]
    got <- stats::setNames(rows$count, paste(rows$city, rows$age_exp, sep = "|"))
    expect_equal(sort(names(got)), sort(names(ref)))
    expect_equal(unname(got[names(ref)]), as.vector(ref))
  }
  expect_equal(sum(d$interior), 2 * length(unique(dose_cohort$age_exp)))
})

test_that("the additive relations hold and are every group = sum of its children", {
  tab <- table_counts(zip_mortality, "zip", freq = "deaths", hierarchies = list(zip = zip_hier))
  d <- as.data.frame(tab)
  # by hand: each 3-digit area is the sum of its zip codes, the total of the areas
  zips <- d[d$zip_level == 0, ]
  areas <- d[d$zip_level == 1, ]
  by_area <- tapply(zips$count, paste0(substr(zips$zip, 1, 3), "00"), sum)
  expect_equal(as.vector(by_area[areas$zip]), areas$count)
  expect_equal(d$count[d$zip_level == 2], sum(zip_mortality$deaths))
  expect_equal(tab$n_relations, nrow(areas) + 1L)
  rel <- tab$relations
  gap <- tapply(rel$coef * tab$count[rel$cell], rel$relation, sum)
  expect_true(all(gap == 0))
  # a two-dimensional table: one relation per group of a dimension and node of the other
  t2 <- table_counts(dose_cohort, c("city", "sex"))
  expect_equal(t2$n_relations, 3L + 3L)
  mem <- bf_membership(t2)
  expect_equal(as.vector(mem$M %*% t2$count[mem$interior]), t2$count)
})

test_that("the largest contributions and sums of a magnitude table match a sort per cell", {
  set.seed(2)
  d <- data.frame(r = sample(c("n", "s"), 60, TRUE), g = sample(c("a", "b", "c"), 60, TRUE),
                  v = round(rlnorm(60, 2, 1), 1))
  tab <- table_counts(d, c("r", "g"), value = "v")
  cells <- as.data.frame(tab)
  for (i in seq_len(nrow(cells))) {
    inside <- (cells$r[i] == "*" | d$r == cells$r[i]) & (cells$g[i] == "*" | d$g == cells$g[i])
    vals <- sort(d$v[inside], decreasing = TRUE)
    expect_equal(tab$value[i], sum(vals))
    expect_equal(tab$count[i], sum(inside))
    expect_equal(tab$top[i, seq_len(min(10, length(vals)))], vals[seq_len(min(10, length(vals)))])
  }
})

test_that("factor levels without records are cells of count 0; the order puts groups first", {
  d <- data.frame(a = factor(c("x", "x", "y"), levels = c("x", "y", "w")))
  tab <- table_counts(d, "a")
  df <- as.data.frame(tab)
  expect_equal(df$a, c("*", "x", "y", "w"))
  expect_equal(df$count, c(3, 2, 1, 0))
})

test_that("bad input is refused with classed errors naming the argument", {
  expect_error(table_counts(dose_cohort, c("city", "nope")), class = "epimask_error_name")
  expect_error(table_counts(dose_cohort, "city", hierarchies = list(sex = hierarchy_flat())),
               class = "epimask_error_name")
  d <- data.frame(a = c("x", "y", NA))
  expect_error(table_counts(d, "a"), class = "epimask_error_value")
  # a lookup hierarchy that does not cover the codes
  h <- hierarchy_category(data.frame(code = c("x", "y"), group = c("g", "g")))
  d2 <- data.frame(a = c("x", "y", "z"))
  expect_error(table_counts(d2, "a", hierarchies = list(a = h)), class = "epimask_error_value")
  # levels that do not nest
  bad <- as_hierarchy(list(identity, c(x = "g1", y = "g1", z = "g2"), c(x = "h1", y = "h2", z = "h2")))
  expect_error(table_counts(d2, "a", hierarchies = list(a = bad)), "nest", class = "epimask_error_value")
  neg <- data.frame(a = c("x", "y"), v = c(1, -2))
  expect_error(table_counts(neg, "a", value = "v"), "negative", class = "epimask_error_value")
  expect_error(table_counts(neg, "a", freq = "v"), class = "epimask_error_value")
  expect_error(table_counts(dose_cohort, "city", value = "city"), class = "epimask_error_type")
})

test_that("a table whose cells were edited is refused as inconsistent with its margins", {
  tab <- table_counts(dose_cohort, c("city", "sex"))
  bad <- tab
  bad$count[[5]] <- bad$count[[5]] + 1
  expect_error(sensitive_cells(bad, cell_threshold(5)), "inconsistent",
               class = "epimask_error_inconsistent")
  bad2 <- tab
  bad2$count[[1]] <- -1
  expect_error(sensitive_cells(bad2, cell_threshold(5)), class = "epimask_error_value")
  expect_error(sensitive_cells(list(), cell_threshold(5)), class = "epimask_error_type")
})

test_that("print, format, summary, tidy, glance and plot work", {
  tab <- table_counts(dose_cohort, c("city", "sex"))
  expect_output(print(tab), "count table")
  expect_type(format(tab), "character")
  expect_output(print(summary(tab)), "Cells by level")
  expect_equal(nrow(tidy(tab)), 9L)
  expect_equal(glance(tab)$cells, 9L)
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_silent(plot(tab))
  grDevices::dev.off()
  expect_true(file.exists(f))
})

test_that("the plot of three dimensions shows by default the view with the most suppressed cells", {
  set.seed(5)
  d <- data.frame(a = sample(c("a1", "a2"), 300, TRUE), b = sample(c("b1", "b2", "b3"), 300, TRUE),
                  c = sample(c("c1", "c2", "c3", "c4"), 300, TRUE))
  tab <- table_counts(d, c("a", "b", "c"))
  cells <- as.data.frame(tab)
  # suppressed: interior cells of a1 at b's total (in the view a x c only)
  status <- ifelse(cells$a == "a1" & cells$b == "*" & cells$c != "*", "primary", "published")
  # the view of each pair, counted here from the codes: the third dimension at "*"
  in_view <- list(ab = cells$c == "*", ac = cells$b == "*", bc = cells$a == "*")
  shown <- vapply(in_view, function(v) sum(status[v] != "published"), numeric(1))
  expect_identical(names(which.max(shown)), "ac")
  expect_identical(epimask:::default_view(tab, status), c("a", "c"))
  # nothing suppressed: the first two
  expect_identical(epimask:::default_view(tab, rep("published", nrow(cells))), c("a", "b"))
})
