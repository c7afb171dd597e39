# suppress_local() (methods vignette section 19) against independent references written here
# in plain R: class sizes by brute force over all pairs of records, and the
# exact optimum by exhaustive search over subsets of cells.

# Class size of each record: records equal to it (category) or compatible
# with it (wildcard), within its stratum. m: a character matrix, NA = blank.
bf_class_sizes <- function(m, na, strata = NULL) {
  m <- as.matrix(m)
  n <- nrow(m)
  if (is.null(strata)) strata <- rep(1L, n)
  same <- outer(as.character(strata), as.character(strata), "==")
  for (j in seq_len(ncol(m))) {
    x <- m[, j]
    miss <- is.na(x)
    eq <- outer(x, x, "==")
    eq[is.na(eq)] <- FALSE
    either <- outer(miss, miss, "|")
    both <- outer(miss, miss, "&")
    ok <- if (na == "category") eq | both else eq | either
    same <- same & ok
  }
  rowSums(same)
}

# The fewest cells (weighted by cost per key) whose blanking makes every
# record's class size >= k: all subsets of the non-NA cells, by increasing
# weighted size.
exhaustive_min <- function(m, k, na, cost = rep(1, ncol(m)), strata = NULL) {
  m <- as.matrix(m)
  cells <- which(!is.na(m))
  cell_cost <- cost[col(m)[cells]]
  best <- Inf
  safe <- function(blank) {
    mm <- m
    mm[blank] <- NA
    all(bf_class_sizes(mm, na, strata) >= k)
  }
  if (safe(integer(0))) return(0)
  n_cells <- length(cells)
  for (size in seq_len(n_cells)) {
    # with weights, a larger set can be cheaper: keep going while it can
    if (min(utils::head(sort(cell_cost), size)) * size > best &&
        sum(utils::head(sort(cell_cost), size)) > best) break
    sets <- utils::combn(n_cells, size)
    for (s in seq_len(ncol(sets))) {
      chosen <- sets[, s]
      total <- sum(cell_cost[chosen])
      if (total >= best) next
      if (safe(cells[chosen])) best <- total
    }
    if (all(cost == cost[[1L]]) && is.finite(best)) break
  }
  best
}

# A census-like extract (the shape of Adult's keys, simulated with a fixed
# seed so the tests do not need the data file): skewed categories, many
# unique combinations.
adult_sample <- function(n = 2000) {
  withr_seed <- function(seed, code) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
    set.seed(seed)
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    code
  }
  withr_seed(29L, {
    d <- data.frame(
      sex = sample(c("Male", "Female"), n, TRUE, prob = c(0.67, 0.33)),
      age = pmin(90L, 17L + as.integer(stats::rgamma(n, shape = 3, scale = 7))),
      race = sample(c("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"),
                    n, TRUE, prob = c(0.86, 0.09, 0.03, 0.01, 0.01)),
      ms = sample(c("Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
                    "Married-spouse-absent", "Married-AF-spouse"), n, TRUE,
                  prob = c(0.46, 0.32, 0.14, 0.03, 0.03, 0.015, 0.005)),
      education = sample(c("HS-grad", "Some-college", "Bachelors", "Masters", "Assoc-voc",
                           "11th", "Assoc-acdm", "10th", "7th-8th", "Prof-school", "9th",
                           "12th", "Doctorate", "5th-6th", "1st-4th", "Preschool"), n, TRUE,
                         prob = c(0.33, 0.22, 0.17, 0.05, 0.04, 0.035, 0.033, 0.027, 0.018,
                                  0.018, 0.015, 0.013, 0.012, 0.01, 0.005, 0.002)),
      stringsAsFactors = FALSE)
    names(d)[names(d) == "ms"] <- "marital-status"
    d
  })
}

key_matrix <- function(data, keys) {
  m <- vapply(keys, function(key) as.character(data[[key]]), character(nrow(data)))
  dim(m) <- c(nrow(data), length(keys))
  m
}

expect_suppression_valid <- function(s, data, keys, k, na, strata = NULL) {
  out <- s$data
  sizes <- bf_class_sizes(key_matrix(out, keys), na,
                          if (is.null(strata)) NULL else interaction(data[strata], drop = TRUE))
  expect_equal(s$class_size, as.integer(sizes))
  expect_equal(s$min_class, as.integer(min(sizes)))
  # every cell not reported as suppressed is untouched
  for (j in seq_along(keys)) {
    key <- keys[[j]]
    kept <- !s$suppressed[, j]
    expect_identical(out[[key]][kept], data[[key]][kept])
    expect_true(all(is.na(out[[key]][s$suppressed[, j]])))
    # an input NA is never reported as suppressed
    expect_false(any(s$suppressed[is.na(data[[key]]), j]))
  }
  expect_identical(names(out), names(data))
  expect_identical(nrow(out), nrow(data))
  expect_equal(s$n_cells, sum(s$suppressed))
  expect_equal(s$n_records, sum(rowSums(s$suppressed) > 0))
  expect_equal(unname(s$by_key), unname(colSums(s$suppressed)))
  invisible(s)
}

# ------------------------------------------------ sdcMicro issue tables

test_that("sdcMicro #354: 1 cell with blanks as wildcards, 3 as values", {
  data_3 <- data.frame(
    gender = c("male", "male", "male", "male", "male", "male"),
    education = c("no education", "primary", "primary", "primary", "secondary", "secondary"))
  keys <- c("gender", "education")
  w <- suppress_local(data_3, keys, k = 3, na = "wildcard")
  expect_suppression_valid(w, data_3, keys, 3, "wildcard")
  expect_equal(w$n_cells, 1)
  expect_equal(w$n_cells, exhaustive_min(data_3, 3, "wildcard"))
  expect_true(w$suppressed[1, "education"])
  expect_gte(w$min_class, 3)
  cat3 <- suppress_local(data_3, keys, k = 3, na = "category")
  expect_suppression_valid(cat3, data_3, keys, 3, "category")
  expect_equal(cat3$n_cells, 3)
  expect_equal(cat3$n_cells, exhaustive_min(data_3, 3, "category"))
  expect_gte(cat3$min_class, 3)
})

test_that("sdcMicro #225: k-anonymous output under the stated reading, fewest cells", {
  # the issue's first table, k = 3 (sdcMicro left a class of 2)
  d1 <- data.frame(
    Age_Group = c("[60,80[", "[60,80[", "[60,80[", "[60,80[", "[20,50[", "[20,50[",
                  "[20,50[", "[20,50[", "[20,50["),
    Sex = c("M", "M", "F", "F", "M", "M", "M", "M", "M"),
    State = c("CAL", "CAL", "CAL", "CAL", "MS", "MS", "CAL", "CAL", "CAL"))
  keys <- names(d1)
  w <- suppress_local(d1, keys, k = 3, na = "wildcard")
  expect_suppression_valid(w, d1, keys, 3, "wildcard")
  expect_gte(w$min_class, 3)
  # the optimum (3) treats the two identical [60,80[ M CAL records
  # differently (age and state blank in one, sex in the other); the greedy
  # blanks the same keys in identical records and needs one cell more
  opt <- exhaustive_min(d1, 3, "wildcard")
  expect_gte(w$n_cells, opt)
  expect_lte(w$n_cells, opt + 1)
  # as values (27 cells: too many for the exhaustive search here): the four
  # [60,80[ records differ only in sex, so each pair needs its sex blanked
  # (4 cells); the [20,50[ MS pair can only join the CAL triple, which must
  # then blank its state too (5 cells): 9
  s <- suppress_local(d1, keys, k = 3, na = "category")
  expect_suppression_valid(s, d1, keys, 3, "category")
  expect_gte(s$min_class, 3)
  expect_equal(s$n_cells, 9)
  # the second table (Table 4.1 of the sdcMicro book), k = 2: sdcMicro left
  # the blanked record alone when a blank is a value
  d2 <- data.frame(Region = rep("A", 5),
                   Status = c("Single", "Married", "Married", "Single", "Widow"),
                   Age_group = rep("30-49", 5))
  keys <- names(d2)
  for (na in c("category", "wildcard")) {
    s <- suppress_local(d2, keys, k = 2, na = na)
    expect_suppression_valid(s, d2, keys, 2, na)
    expect_gte(s$min_class, 2)
    expect_equal(s$n_cells, exhaustive_min(d2, 2, na))
  }
})

test_that("sdcMicro #352: every key combination protected, no subset undoes another", {
  data_4 <- data.frame(
    province = factor(c(2, 3, 3, 2, 4, 2, 4, 2, 2, 3)),
    activity = factor(c("A", "A", "A", "A", "B", "B", "B", "B", "A", "A")),
    sex = factor(c("Female", "Female", "Female", "Male", "Female", "Female", "Female",
                   "Female", "Male", "Male")),
    income = factor(c("high", "low", "low", "low", "high", "medium", "high", "low",
                      "high", "medium")))
  keys <- names(data_4)
  for (na in c("category", "wildcard")) {
    s <- suppress_local(data_4, keys, k = 3, na = na)
    expect_suppression_valid(s, data_4, keys, 3, na)
    expect_gte(s$min_class, 3)
    # safe on all keys implies safe on any subset of them (a class on fewer
    # keys contains the class on all keys)
    two <- bf_class_sizes(key_matrix(s$data, c("province", "activity")), na)
    expect_true(all(two >= 3))
    expect_s3_class(s$data$province, "factor")
    expect_identical(levels(s$data$income), levels(data_4$income))
  }
})

test_that("sdcMicro #353: an all-NA or constant column changes no count", {
  data_1 <- data.frame(A = c(1, 1, 1, NA), B = c(1, 1, 1, 1), C = as.numeric(c(NA, NA, NA, NA)))
  for (na in c("category", "wildcard")) {
    a <- suppress_local(data_1, "A", k = 1, na = na)
    abc <- suppress_local(data_1, c("A", "B", "C"), k = 1, na = na)
    expect_equal(abc$class_size, a$class_size)
    expect_equal(abc$class_size, as.integer(bf_class_sizes(data_1, na)))
    expect_equal(abc$n_cells, 0)
  }
  # a blank matches every value: the fourth record is compatible with all
  expect_equal(suppress_local(data_1, c("A", "B", "C"), k = 1, na = "wildcard")$class_size,
               c(4L, 4L, 4L, 4L))
  expect_equal(suppress_local(data_1, c("A", "B", "C"), k = 1, na = "category")$class_size,
               c(3L, 3L, 3L, 1L))
  # k = 2: the input NA is not a suppression; one more cell is needed as values
  s <- suppress_local(data_1, c("A", "B", "C"), k = 2, na = "category")
  expect_suppression_valid(s, data_1, c("A", "B", "C"), 2, "category")
  expect_equal(s$n_cells, exhaustive_min(data_1, 2, "category"))
  expect_equal(s$input_na, c(A = 1L, B = 0L, C = 4L))
  expect_equal(suppress_local(data_1, c("A", "B", "C"), k = 2, na = "wildcard")$n_cells, 0)
})

test_that("sdcMicro #184: a skewed table ends, safe under both readings", {
  # the leading values of the issue's matrix as quoted in the thread (our
  # copy of it is truncated), split into two keys
  v <- c(rep(2, 21), 1, 1, rep(2, 28), 1, rep(2, 15), 1, 2, 1, 2, 2, 1, rep(2, 13), 1, 2, 1,
         rep(2, 95), 1, rep(2, 61), 1, rep(2, 12), 1, rep(2, 9), 1, rep(2, 15), 1,
         rep(2, 23), 5, 6, 6, 6, 4, 3, 6, 4, 4, 4, 4, 3, 2, 3, 4, 4, 4, rep(2, 7), 4, 5,
         4, 4, 4, 4, 4, 6, 6, 4, 4, 4, 4, 4, 3, 6, 6, 4, 2, 2, 2, 2, 6, 4, 4, 4, 4, 6, 4,
         5, 5, 4, 5, 4, 4, 4, 4, 6, 4, 1, rep(2, 7), 4, 6, 6, 5, 6, 3, 4, 5, 6, 4, 6, 5,
         4, 4, 4, 3, 3, 6, 5, 2, 2, 4, 2, 6, 5, 3)
  half <- length(v) %/% 2
  d <- data.frame(x1 = v[seq_len(half)], x2 = v[half + seq_len(half)])
  for (na in c("category", "wildcard")) {
    s <- suppress_local(d, c("x1", "x2"), k = 5, na = na)
    expect_suppression_valid(s, d, c("x1", "x2"), 5, na)
    expect_gte(s$min_class, 5)
  }
})

test_that("sdcMicro #279: a stratum smaller than k warns, lists its records, loses nothing", {
  d <- data.frame(sex = c("m", "m", "f", "f", "m", "f", "m", "f", "f"),
                  age = c(30, 30, 30, 40, 40, 30, 30, 30, 40),
                  region = c(rep("north", 7), "south", "south"))
  for (na in c("category", "wildcard")) {
    expect_warning(s <- suppress_local(d, c("sex", "age"), k = 3, strata = "region", na = na),
                   class = "epimask_warning_stratum")
    expect_equal(s$unsafe_records, c(8L, 9L))
    expect_false(any(s$suppressed[8:9, ]))
    expect_identical(s$data[8:9, ], d[8:9, ])
    expect_true(all(s$class_size[1:7] >= 3))
    expect_suppression_valid(s, d, c("sex", "age"), 3, na, strata = "region")
    expect_match(format(s), "NOT SAFE", all = FALSE)
    # within the stratum the count is the exhaustive optimum of that stratum alone
    north <- d[1:7, c("sex", "age")]
    expect_equal(s$n_cells, exhaustive_min(north, 3, na))
    # and the records of the other stratum never count for it
    alone <- suppress_local(north, c("sex", "age"), k = 3, na = na)
    expect_identical(s$suppressed[1:7, ], alone$suppressed)
  }
})

# ------------------------------------------------ the exact optimum

test_that("the heuristic against the exhaustive optimum on small random tables", {
  set.seed(20261126)
  gap <- list(category = c(0, 0), wildcard = c(0, 0))
  worst <- c(category = 0, wildcard = 0)
  for (rep in 1:40) {
    # at most 12 cells, so that the exhaustive search stays quick
    p <- sample(2:3, 1)
    n <- 3L + sample.int(12L %/% p - 3L, 1)
    d <- as.data.frame(lapply(seq_len(p), function(j)
      sample(letters[1:sample(2:3, 1)], n, replace = TRUE)))
    names(d) <- paste0("v", seq_len(p))
    if (rep %% 4 == 0) d[sample(n, 1), sample(p, 1)] <- NA
    k <- sample(2:3, 1)
    for (na in c("category", "wildcard")) {
      s <- suppress_local(d, names(d), k = k, na = na)
      expect_suppression_valid(s, d, names(d), k, na)
      expect_gte(s$min_class, k)
      opt <- exhaustive_min(d, k, na)
      expect_gte(s$n_cells, opt)
      gap[[na]] <- gap[[na]] + c(s$n_cells, opt)
      worst[[na]] <- max(worst[[na]], s$n_cells - opt)
    }
  }
  # measured: see the note; the totals may not drift above these
  ratio <- vapply(gap, function(g) g[[1L]] / g[[2L]], 1)
  expect_lte(ratio[["category"]], 1.04)
  expect_lte(ratio[["wildcard"]], 1.04)
})

test_that("importance: a key of higher importance is blanked later", {
  d <- data.frame(a = c("x", "x", "y", "y", "y"), b = c("p", "q", "p", "p", "q"))
  # record 2 and 5 differ from the others in b; record 1 and 2 share a
  for (na in c("category", "wildcard")) {
    keep_b <- suppress_local(d, c("a", "b"), k = 2, na = na, importance = c(a = 1, b = 5))
    keep_a <- suppress_local(d, c("a", "b"), k = 2, na = na, importance = c(b = 1, a = 5))
    expect_suppression_valid(keep_b, d, c("a", "b"), 2, na)
    expect_suppression_valid(keep_a, d, c("a", "b"), 2, na)
    cost_b <- sum(keep_b$by_key * c(1, 5))
    cost_a <- sum(keep_a$by_key * c(5, 1))
    expect_equal(cost_b, exhaustive_min(d, 2, na, cost = c(1, 5)))
    expect_equal(cost_a, exhaustive_min(d, 2, na, cost = c(5, 1)))
    expect_lte(keep_b$by_key[["b"]], keep_a$by_key[["b"]])
    expect_lte(keep_a$by_key[["a"]], keep_b$by_key[["a"]])
    # unnamed weights follow the order of the keys
    expect_identical(suppress_local(d, c("a", "b"), k = 2, na = na, importance = c(1, 5))$suppressed,
                     keep_b$suppressed)
  }
})

# ------------------------------------------------ determinism, sizes, edges

test_that("the count does not depend on the order of the rows", {
  ad <- adult_sample()
  keys <- c("sex", "age", "race", "marital-status", "education")
  for (na in c("category", "wildcard")) {
    s <- suppress_local(ad, keys, k = 3, na = na)
    for (r in 1:3) {
      perm <- sample(nrow(ad))
      sp <- suppress_local(ad[perm, ], keys, k = 3, na = na)
      expect_equal(sp$n_cells, s$n_cells)
      expect_equal(sp$by_key, s$by_key)
      expect_equal(sort(sp$class_size), sort(s$class_size))
      expect_gte(sp$min_class, 3)
    }
  }
})

test_that("class sizes on a real extract equal the brute-force count", {
  ad <- adult_sample()[1:300, ]
  keys <- c("sex", "age", "race", "education")
  for (na in c("category", "wildcard")) {
    s <- suppress_local(ad, keys, k = 4, na = na)
    expect_suppression_valid(s, ad, keys, 4, na)
    expect_equal(s$class_size_before, as.integer(bf_class_sizes(key_matrix(ad, keys), na)))
  }
})

test_that("max_risk is k = ceiling(1 / max_risk)", {
  ad <- adult_sample()[1:400, ]
  keys <- c("sex", "age", "race")
  a <- suppress_local(ad, keys, max_risk = 0.2)
  b <- suppress_local(ad, keys, k = 5)
  expect_identical(a$suppressed, b$suppressed)
  expect_equal(a$k, 5L)
  expect_equal(suppress_local(ad, keys, max_risk = 0.3)$k, 4L)
  expect_equal(suppress_local(ad, keys, max_risk = 1 / 3)$k, 3L)
  expect_match(format(a), "max_risk = 0.2", all = FALSE)
})

test_that("edge cases: one record, k = 1, k = n, all-NA and constant columns", {
  one <- data.frame(a = "x", b = 1)
  s <- suppress_local(one, c("a", "b"), k = 1)
  expect_equal(s$n_cells, 0)
  expect_equal(s$min_class, 1L)
  d <- data.frame(a = c("x", "y", "z", "x"), b = c(1, 2, 3, 4), c = NA, d = "same")
  for (na in c("category", "wildcard")) {
    expect_equal(suppress_local(d, c("a", "b"), k = 1, na = na)$n_cells, 0)
    s <- suppress_local(d, c("a", "b", "c", "d"), k = 4, na = na)
    expect_suppression_valid(s, d, c("a", "b", "c", "d"), 4, na)
    expect_equal(s$min_class, 4L)
    expect_equal(s$by_key[["c"]], 0L)
    expect_equal(s$by_key[["d"]], 0L)
    opt <- exhaustive_min(d[c("a", "b")], 4, na)
    expect_gte(s$n_cells, opt)
    if (na == "category") expect_equal(s$n_cells, opt)
  }
  # every key NA in the input: nothing to suppress, nothing reported
  allna <- data.frame(a = c(NA, NA, NA), b = c(NA_real_, NA, NA))
  s <- suppress_local(allna, c("a", "b"), k = 3)
  expect_equal(s$n_cells, 0)
  expect_equal(s$min_class, 3L)
})

test_that("the input is never modified; classes of data are kept", {
  d <- data.frame(sex = c("m", "f", "f", "m", "f"), yob = c(1950L, 1951L, 1951L, 1952L, 1951L),
                  when = as.Date("2020-01-01") + c(0, 1, 1, 2, 1), stringsAsFactors = TRUE)
  copy <- d
  s <- suppress_local(d, c("sex", "yob", "when"), k = 2)
  expect_identical(d, copy)
  expect_s3_class(s$data$when, "Date")
  expect_s3_class(s$data$sex, "factor")
  expect_type(s$data$yob, "integer")
  m <- as.matrix(data.frame(a = c("x", "x", "y"), b = c("p", "p", "q")))
  sm <- suppress_local(m, c("a", "b"), k = 2)
  expect_true(is.matrix(sm$data))
  expect_equal(sum(is.na(sm$data)), sm$n_cells)
  skip_if_not_installed("data.table")
  dt <- data.table::as.data.table(d)
  dt_copy <- data.table::copy(dt)
  sd <- suppress_local(dt, c("sex", "yob", "when"), k = 2)
  expect_identical(dt, dt_copy)
  expect_s3_class(sd$data, "data.table")
  expect_equal(sd$n_cells, s$n_cells)
  skip_if_not_installed("tibble")
  tb <- tibble::as_tibble(d)
  st <- suppress_local(tb, c("sex", "yob", "when"), k = 2)
  expect_s3_class(st$data, "tbl_df")
  expect_equal(st$n_cells, s$n_cells)
})

test_that("bad input: classed errors naming the argument", {
  d <- data.frame(a = c("x", "y", "x"), b = c(1, 2, 1), s = c("u", "u", "v"))
  err <- function(expr, cls, arg) {
    e <- expect_error(expr, class = cls)
    expect_identical(e$arg, arg)
  }
  err(suppress_local(d, c("a", "zz")), "epimask_error_name", "keys")
  err(suppress_local(d, 1), "epimask_error_type", "keys")
  err(suppress_local(d, "a", k = 0), "epimask_error_value", "k")
  err(suppress_local(d, "a", k = 4), "epimask_error_value", "k")
  err(suppress_local(d, "a", k = 1.5), "epimask_error_value", "k")
  err(suppress_local(d, "a", max_risk = 0), "epimask_error_value", "max_risk")
  err(suppress_local(d, "a", max_risk = 0.2), "epimask_error_value", "max_risk")
  err(suppress_local(d, "a", k = 2, max_risk = 0.5), "epimask_error_value", "max_risk")
  err(suppress_local(d, c("a", "b"), k = 2, importance = c(a = 1)), "epimask_error_value",
      "importance")
  err(suppress_local(d, c("a", "b"), k = 2, importance = c(a = 1, c = 2)), "epimask_error_value",
      "importance")
  err(suppress_local(d, c("a", "b"), k = 2, importance = c(1, 2, 3)), "epimask_error_length",
      "importance")
  err(suppress_local(d, c("a", "b"), k = 2, importance = c(a = 1, b = -1)),
      "epimask_error_value", "importance")
  err(suppress_local(d, c("a", "b"), k = 2, importance = "a"), "epimask_error_type", "importance")
  err(suppress_local(d, "a", k = 2, na = "blank"), "epimask_error_value", "na")
  err(suppress_local(d, "a", k = 2, strata = "zz"), "epimask_error_name", "strata")
  err(suppress_local(d, "a", k = 2, strata = "a"), "epimask_error_value", "strata")
  err(suppress_local(d[0, ], "a"), "epimask_error_empty", "data")
  err(suppress_local(list(a = 1), "a"), "epimask_error_type", "data")
})

test_that("methods: print, format, summary, plot, as.data.frame, tidy, glance", {
  ad <- adult_sample()[1:500, ]
  keys <- c("sex", "age", "race")
  s <- suppress_local(ad, keys, k = 3, na = "wildcard")
  txt <- format(s)
  expect_type(txt, "character")
  expect_match(txt[[1L]], "k = 3")
  expect_output(print(s), "cells blanked")
  sm <- summary(s)
  expect_output(print(sm), "Records by class size")
  expect_equal(sum(sm$sizes$records_after), nrow(ad))
  expect_equal(sum(sm$sizes$records_before), nrow(ad))
  df <- as.data.frame(s)
  expect_equal(nrow(df), nrow(ad))
  expect_equal(sum(df$cells), s$n_cells)
  expect_true(all(df$safe))
  td <- tidy(s)
  expect_equal(td$cells, unname(s$by_key))
  gl <- glance(s)
  expect_equal(gl$n_cells, s$n_cells)
  expect_true(gl$safe)
  expect_equal(gl$min_class, s$min_class)
  f <- tempfile(fileext = ".png")
  grDevices::png(f, width = 900, height = 450)
  expect_invisible(plot(s))
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
})
