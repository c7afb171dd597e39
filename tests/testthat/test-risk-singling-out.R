# The singling-out attack (methods vignette 28.4): the predicates and the three
# rates recomputed in plain R on the raw data frames, every predicate on every
# record; copies and independent draws; equal sizes.

so_data <- function(n = 200, seed = 1) {
  d <- mixed_data(n, seed, na_share = 0.03, dup = TRUE)
  d
}

test_that("univariate predicates are every rare value, unique extreme and lone NA of the release", {
  d <- so_data()
  rel <- d
  rel$bmi <- round(rel$bmi)
  half <- seq(2, nrow(d), by = 2)
  res <- risk_singling_out(d, rel, control = half, n_attacks = 1e5, seed = 1)
  attacked <- rel[-half, ]
  expect_identical(res$rows$target, setdiff(seq_len(nrow(d)), half))
  # by hand, column by column
  ref <- character()
  for (col in names(d)) {
    x <- attacked[[col]]
    num <- is.numeric(x) || inherits(x, "Date") || is.ordered(x)
    xv <- if (is.ordered(x)) as.double(as.integer(x)) else if (num) as.double(x) else as.character(x)
    if (sum(is.na(xv)) == 1L) ref <- c(ref, paste(col, "is NA"))
    w <- xv[!is.na(xv)]
    tab <- table(w)
    once <- names(tab)[tab == 1L]
    if (num) {
      if (sum(w == min(w)) == 1L) ref <- c(ref, paste(col, "<=", sprintf("%.15g", min(w))))
      if (sum(w == max(w)) == 1L) ref <- c(ref, paste(col, ">=", sprintf("%.15g", max(w))))
      once <- sprintf("%.15g", as.double(once))
    }
    ref <- c(ref, if (length(once)) paste(col, "==", once))
  }
  tab <- res$predicates$attack
  got <- paste(tab$column, tab$op, ifelse(is.na(tab$value), "", tab$value))
  got <- trimws(got)
  expect_setequal(got, ref)
  expect_identical(res$n_found, length(ref))
})

test_that("the three rates equal a recount of every predicate on every record", {
  d <- so_data(240, 2)
  rel <- d
  rel$age <- rel$age + sample(-1:1, nrow(d), replace = TRUE)
  for (mode in c("univariate", "multivariate")) {
    res <- risk_singling_out(d, rel, n_attacks = 150, mode = mode, n_cols = 2, seed = 5)
    target <- d[res$rows$target, ]
    control <- d[res$rows$control, ]
    expect_identical(nrow(target), nrow(control))
    a <- ref_singles(res$predicates$attack, target)
    c0 <- ref_singles(res$predicates$attack, control)
    b <- ref_singles(res$predicates$baseline, target)
    expect_identical(unname(a), res$details$attack, info = mode)
    expect_identical(as.double(c0), res$details$control, info = mode)
    expect_identical(res$attack$successes, sum(a))
    expect_equal(res$control$successes, sum(c0))
    expect_identical(res$baseline$successes, sum(b))
    expect_identical(res$attack$n, length(a))
    # the risk from the rates
    expect_equal(res$risk$estimate, (mean(a) - mean(c0)) / (1 - mean(c0)))
    # each attack predicate singles out the released record it came from
    attacked <- rel[res$rows$target, ]
    for (i in unique(res$predicates$attack$predicate)) {
      m <- ref_predicate_match(res$predicates$attack[res$predicates$attack$predicate == i, ],
                               attacked)
      expect_identical(sum(m), 1L)
      if (mode == "multivariate") expect_identical(which(m), res$details$release_row[[i]])
    }
  }
})

test_that("multivariate predicates follow the median rule on the released record's values", {
  d <- so_data(300, 3)
  res <- risk_singling_out(d, d, n_attacks = 100, mode = "multivariate", n_cols = 3, seed = 2)
  attacked <- d[res$rows$target, ]
  tab <- res$predicates$attack
  expect_true(all(table(tab$predicate) == 3L))
  for (i in seq_len(nrow(tab))) {
    col <- tab$column[[i]]
    x <- attacked[[col]][[res$details$release_row[[tab$predicate[[i]]]]]]
    if (is.na(x)) {
      expect_identical(tab$op[[i]], "is NA")
    } else if (is.numeric(attacked[[col]]) || inherits(attacked[[col]], "Date") ||
               is.ordered(attacked[[col]])) {
      all <- as.double(if (is.ordered(attacked[[col]])) as.integer(attacked[[col]]) else attacked[[col]])
      xv <- as.double(if (is.ordered(x)) as.integer(x) else x)
      expect_identical(tab$op[[i]], if (xv > median(all, na.rm = TRUE)) ">=" else "<=")
      expect_identical(tab$number[[i]], xv)
    } else {
      expect_identical(tab$op[[i]], "==")
      expect_identical(tab$value[[i]], as.character(x))
    }
  }
  # no predicate twice (the same record and columns)
  keys <- vapply(split(tab, tab$predicate), function(t)
    paste(res$details$release_row[[t$predicate[[1]]]], paste(sort(t$column), collapse = ",")),
    character(1))
  expect_false(anyDuplicated(keys) > 0)
})

test_that("with a person column a predicate succeeds when it matches one person's records", {
  d <- so_data(300, 4)
  d$pid <- rep(seq_len(150), each = 2)
  # a person's two records share age and sex, so a value can single out a person
  d$age[seq(2, 300, 2)] <- d$age[seq(1, 299, 2)]
  d$sex[seq(2, 300, 2)] <- d$sex[seq(1, 299, 2)]
  res <- risk_singling_out(d, d, n_attacks = 200, mode = "multivariate", n_cols = 2,
                           seed = 3, id = "pid", columns = c("age", "sex", "bmi", "region"))
  expect_identical(res$unit, "persons")
  target <- d[res$rows$target, ]
  control <- d[res$rows$control, ]
  # persons are held out whole
  expect_length(intersect(target$pid, control$pid), 0L)
  a <- ref_singles(res$predicates$attack, target, target$pid)
  c0 <- ref_singles(res$predicates$attack, control, control$pid)
  expect_identical(res$attack$successes, sum(a))
  expect_equal(res$control$successes, sum(c0))
  expect_identical(res$n_targets, 75L)
})

test_that("a larger control is thinned to the attack's size by the exact hypergeometric", {
  d <- so_data(300, 5)
  ctrl <- so_data(700, 6)
  res <- risk_singling_out(d, d, control = ctrl, n_attacks = 200, mode = "multivariate",
                           n_cols = 2, seed = 4)
  expect_identical(res$control_source, "data")
  # each predicate's count in the control, then P(one of them in a random 300 of 700)
  counts <- vapply(split(res$predicates$attack, res$predicates$attack$predicate),
                   function(conds) sum(ref_predicate_match(conds, ctrl)), numeric(1))
  p_one <- vapply(counts, function(c) {
    if (c == 0) return(0)
    c * choose(700 - c, 299) / choose(700, 300)
  }, numeric(1))
  expect_equal(res$details$control, unname(p_one), tolerance = 1e-12)
  expect_equal(res$control$successes, sum(p_one), tolerance = 1e-12)
})

test_that("a smaller control cuts a masked release's targets to its size, with their rows", {
  d <- so_data(300, 7)
  rel <- d
  rel$bmi <- round(rel$bmi)
  res <- risk_singling_out(d, rel, control = 1:100, n_attacks = 500, seed = 8)
  expect_identical(res$n_targets, 100L)
  expect_length(res$rows$target, 100L)
  expect_true(all(res$rows$target > 100))
  # the release attacked is the targets' released rows: predicates single out there
  attacked <- rel[res$rows$target, ]
  for (i in unique(res$predicates$attack$predicate))
    expect_identical(sum(ref_predicate_match(
      res$predicates$attack[res$predicates$attack$predicate == i, ], attacked)), 1L)
  expect_match(paste(format(res), collapse = " "), "equal sizes")
})

test_that("a copy of the original has risk near 1, an independent draw near 0", {
  d <- so_data(2000, 9)
  copy <- risk_singling_out(d, d, n_attacks = 500, seed = 1)
  expect_equal(copy$attack$rate, 1)
  expect_gt(copy$risk$value, 0.95)
  copy_m <- risk_singling_out(d, d, n_attacks = 300, mode = "multivariate", n_cols = 3, seed = 1)
  expect_gt(copy_m$risk$interval[[2]], 0.99)
  expect_gt(copy_m$risk$value, 0.8)
  # an independent draw of the same model: no record of it is an original person
  other <- so_data(2000, 10)
  ind <- risk_singling_out(d, other, n_attacks = 500, seed = 1)
  expect_lt(ind$risk$value, 0.1)
  expect_identical(ind$risk$interval[[1]], 0)
  ind_m <- risk_singling_out(d, other, n_attacks = 300, mode = "multivariate", n_cols = 3,
                             seed = 1)
  expect_identical(ind_m$risk$interval[[1]], 0)
})

test_that("dates give predicates too (anonymeter's query builder returns none for them)", {
  d <- data.frame(visit = as.Date("2021-03-01") + c(0, 5, 5, 9, 12, 12, 20, 30),
                  sex = c("f", "m", "f", "m", "f", "m", "f", "m"))
  res <- risk_singling_out(d, d, control = 1:4, n_attacks = 100, seed = 1)
  tab <- res$predicates$attack
  expect_true(any(tab$column == "visit"))
  expect_true(all(grepl("visit [<>=]+ 2021-", res$details$predicate[grepl("visit", res$details$predicate)])))
})

test_that("the result is the same for the same seed and leaves the caller's generator alone", {
  d <- so_data(400, 11)
  set.seed(99)
  before <- .Random.seed
  a <- risk_singling_out(d, d, n_attacks = 100, mode = "multivariate", n_cols = 2, seed = 7)
  expect_identical(.Random.seed, before)
  b <- risk_singling_out(d, d, n_attacks = 100, mode = "multivariate", n_cols = 2, seed = 7)
  expect_identical(a, b)
  one <- risk_singling_out(d, d, n_attacks = 100, mode = "multivariate", n_cols = 2, seed = 7,
                           options = attack_options(threads = 1))
  two <- risk_singling_out(d, d, n_attacks = 100, mode = "multivariate", n_cols = 2, seed = 7,
                           options = attack_options(threads = 2))
  expect_identical(one$details, two$details)
})

test_that("print, summary, tidy, glance, as.data.frame and plot", {
  d <- so_data(400, 12)
  res <- risk_singling_out(d, d, n_attacks = 100, seed = 1)
  out <- format(res)
  expect_match(out[[1]], "singling out \\(univariate\\)")
  expect_true(any(grepl("held out at random and treated as never", out)))
  expect_identical(utils::capture.output(print(res)), out)
  expect_identical(utils::capture.output(print(summary(res))), format(summary(res)))
  expect_output(print(summary(res)), "First predicates")
  expect_identical(utils::capture.output(print(attack_options())), format(attack_options()))
  td <- tidy(res)
  expect_identical(td$term, c("attack", "control", "baseline", "risk"))
  expect_equal(td$estimate[[1]], res$attack$rate)
  expect_identical(nrow(glance(res)), 1L)
  expect_identical(as.data.frame(res), td)
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  on.exit(unlink(f))
  expect_silent(plot(res))
  grDevices::dev.off()
})

test_that("the sorted-column index counts exactly what the full scan counts", {
  d <- mixed_data(3000, 13, na_share = 0.1)
  d$pid <- rep(seq_len(1000), each = 3)
  cols <- setdiff(names(d), "pid")
  codes <- epimask:::attack_code(cols, list(original = d, release = d))
  x <- codes$coded$original
  ord <- epimask:::column_orders(x, codes$type)
  set.seed(2)
  preds <- epimask:::join_predicates(
    epimask:::random_predicates(codes, 400, 2, epimask:::rng_streams(1, 3)[[1]]),
    epimask:::random_predicates(codes, 300, 1, epimask:::rng_streams(1, 4)[[1]]))
  unit <- epimask:::person_index(d$pid)
  for (cap in c(0L, 1L, 2L, 5L)) {
    for (u in list(seq_len(nrow(d)), unit)) {
      full <- epimask:::predicate_counts(x, codes$type, preds, u, cap, 1L)
      fast <- epimask:::predicate_counts(x, codes$type, preds, u, cap, 2L, ord)
      expect_identical(fast, full)
    }
  }
  # the plain-R count of every predicate on every record
  tab <- epimask:::predicate_table(preds, codes)
  ref <- vapply(split(tab, tab$predicate), function(c) sum(ref_predicate_match(c, d)), numeric(1))
  expect_identical(epimask:::predicate_counts(x, codes$type, preds, seq_len(nrow(d)), 0L, 1L, ord),
                   as.integer(ref))
  # an index that is not each column's sorted rows is refused
  bad <- ord
  n <- nrow(ord)
  bad[c(1, n), 1] <- bad[c(n, 1), 1]   # the smallest value last: not sorted
  spec <- list(x = x, type = codes$type, order = bad, person = NULL, n_person = 1L,
               start = c(0L, 1L), col = 1L, op = 1L, val = 1, cap = 0L, threads = 1L)
  expect_error(epimask:::call_c(epimask:::C_predicate_count, spec, arg = "p"),
               class = "epimask_error")
  spec$order <- ord
  spec$order[1, 1] <- ord[2, 1]        # a row twice: not a permutation
  expect_error(epimask:::call_c(epimask:::C_predicate_count, spec, arg = "p"),
               class = "epimask_error")
})
