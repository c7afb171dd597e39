# mask_synth(): sequential synthesis (methods vignette section 29). References:
# a plain R loop for the C donor sampler, deterministic relations, simulated
# data of known distribution (Monte Carlo error), brute-force row matching.

test_that("the C donor sampler draws the donors of the R reference, uniform and Bayesian", {
  set.seed(11)
  donor_leaf <- sample(0:6, 300, TRUE)
  target_leaf <- sample(unique(donor_leaf), 500, TRUE)
  for (bayes in c(FALSE, TRUE)) {
    set.seed(5)
    got <- epimask:::synth_donors(donor_leaf, target_leaf, 7L, bayes)
    set.seed(5)
    want <- reference_donors(donor_leaf, target_leaf, 7L, bayes)
    expect_identical(got, as.integer(want))
    expect_true(all(donor_leaf[got] == target_leaf))
  }
  # a leaf without donors is a classed error, not a crash
  expect_error(epimask:::synth_donors(c(0L, 0L), c(0L, 1L), 2L, TRUE), class = "epimask_error")
})

test_that("Bayesian-bootstrap weights are Dirichlet(1, ..., 1): the share of a donor varies as Beta(1, c - 1)", {
  # three donors in one leaf; per call the share of targets given donor 1
  # is its weight plus multinomial noise: Var = 1/18 + E[w(1 - w)] / T
  set.seed(21)
  calls <- 600
  targets <- 2000
  share <- vapply(seq_len(calls), function(i)
    mean(epimask:::synth_donors(c(0L, 0L, 0L), integer(targets), 1L, TRUE) == 1L), numeric(1))
  expect_lt(abs(mean(share) - 1 / 3), 4 * sqrt((1 / 18) / calls))
  v_true <- 1 / 18 + (1 / 3 - 1 / 18 - 1 / 9) / targets
  # the SE of a sample variance: sqrt((mu4 - sigma^4) / calls), mu4 of Beta(1, 2) = 1/135 +...
  # bounded here by the fourth moment of a [0, 1] variable: E[(w - 1/3)^4] <= 4/81
  expect_lt(abs(stats::var(share) - v_true), 4 * sqrt((4 / 81) / calls))
  # uniform donors: each share about 1/3 with multinomial noise only
  set.seed(22)
  flat <- vapply(seq_len(200), function(i)
    mean(epimask:::synth_donors(c(0L, 0L, 0L), integer(targets), 1L, FALSE) == 1L), numeric(1))
  expect_lt(stats::var(flat), 3 * (2 / 9) / targets)
})

test_that("CART reproduces a column that is a function of earlier ones", {
  set.seed(3)
  n <- 600
  d <- data.frame(g = sample(letters[1:6], n, TRUE), k = sample(1:4, n, TRUE),
                  stringsAsFactors = FALSE)
  codes <- c(a = 10, b = 20, c = 30, d = 40, e = 50, f = 60)
  d$score <- codes[d$g] + d$k            # numeric, deterministic in (g, k)
  d$band <- factor(ifelse(d$score > 35, "high", "low"))   # categorical, deterministic
  for (proper in c(TRUE, FALSE)) {
    syn <- apply_mask(d, mask_synth(m = 2, minbucket = 3, proper = proper))
    for (cp in syn) {
      expect_identical(cp$score, unname(codes[cp$g] + cp$k))
      expect_identical(cp$band, factor(ifelse(cp$score > 35, "high", "low"), levels = c("high", "low")))
    }
  }
})

test_that("margins and conditional distributions of simulated data are recovered within Monte Carlo error", {
  set.seed(7)
  n <- 4000
  p_x <- c(a = 0.2, b = 0.3, c = 0.5)
  p_y <- c(a = 0.1, b = 0.4, c = 0.7)
  mu_z <- c(a = 0, b = 1, c = 3)
  x <- sample(names(p_x), n, TRUE, prob = p_x)
  d <- data.frame(x = factor(x), y = factor(rbinom(n, 1, p_y[x])), z = rnorm(n, mu_z[x], 1))
  for (method in c("cart", "parametric")) {
    syn <- suppressWarnings(apply_mask(d, mask_synth(method = method, m = 3)))
    # CART: z's leaves hold one (x, y) combination, so each donor's whole
    # record is copied (documented in ?mask_synth)
    if (method == "cart") expect_identical(attr(syn, "synthesis")$original_records, rep(4000L, 3L))
    s <- as.data.frame(syn)
    N <- nrow(s)
    # the original is a sample of the truth and each copy a sample of the
    # original (a Bayesian-bootstrap one: twice that variance): SE of a
    # share over the m copies from 1/n + 2 / (m n) times p (1 - p)
    se_share <- function(p, size) sqrt(p * (1 - p) * (1 / size + 2 / (N)))
    for (lv in names(p_x)) {
      expect_lt(abs(mean(s$x == lv) - p_x[[lv]]), 4 * se_share(p_x[[lv]], n))
      in_x <- s$x == lv
      size <- n * p_x[[lv]]
      expect_lt(abs(mean(s$y[in_x] == "1") - p_y[[lv]]),
                4 * sqrt(p_y[[lv]] * (1 - p_y[[lv]]) * (1 / size + 2 / sum(in_x))))
      expect_lt(abs(mean(s$z[in_x]) - mu_z[[lv]]), 4 * sqrt(1 / size + 2 / sum(in_x)))
      expect_lt(abs(stats::sd(s$z[in_x]) - 1), 4 * sqrt(0.5 / size + 1 / sum(in_x)))
    }
  }
  # rpart prunes classification splits that leave both majorities as they
  # were: with synthpop's cp = 1e-8 the tree of y on x pools a and b
  old_cp <- suppressWarnings(apply_mask(d, mask_synth(m = 3, control = synth_control(cp = 1e-8))))
  s <- as.data.frame(old_cp)
  pooled <- (p_x[["a"]] * p_y[["a"]] + p_x[["b"]] * p_y[["b"]]) / (p_x[["a"]] + p_x[["b"]])
  expect_lt(abs(mean(s$y[s$x == "a"] == "1") - pooled), 0.05)
})

test_that("types, levels and missing values are kept; kept columns are the original ones", {
  d <- synth_types_fixture()
  before <- d
  set.seed(2)
  syn <- apply_mask(d, mask_synth(m = 2))
  expect_identical(d, before)
  expect_s3_class(syn, "epimask_synthetic")
  expect_length(syn, 2L)
  for (cp in syn) {
    expect_identical(names(cp), names(d))
    expect_identical(vapply(cp, function(x) class(x)[[1L]], ""), vapply(d, function(x) class(x)[[1L]], ""))
    expect_identical(levels(cp$sex), levels(d$sex))
    expect_identical(levels(cp$grade), levels(d$grade))
    expect_true(is.ordered(cp$grade))
    expect_identical(attr(cp$seen, "tzone"), "Europe/Berlin")
    expect_true(is.integer(cp$age))
    # every value is one of the data's (donors), NA included where the data have it
    for (v in names(d)) expect_true(all(cp[[v]] %in% d[[v]]))
    expect_true(anyNA(cp$bmi) && anyNA(cp$city) && anyNA(cp$smoker))
    expect_identical(.row_names_info(cp), -nrow(d))
  }
  # parametric draws: within the observed range, to the column's precision
  set.seed(3)
  par <- apply_mask(d, mask_synth(method = "parametric", m = 1))[[1L]]
  ok <- !is.na(par$bmi)
  expect_true(all(par$bmi[ok] >= min(d$bmi, na.rm = TRUE) & par$bmi[ok] <= max(d$bmi, na.rm = TRUE)))
  expect_equal(par$bmi[ok], round(par$bmi[ok], 1))
  expect_true(all(as.double(par$visit) == round(as.double(par$visit))))
  # partially synthetic: the kept columns are the records' own
  set.seed(4)
  part <- suppressWarnings(apply_mask(d, mask_synth(m = 2), vars = c("bmi", "city")))
  for (cp in part) {
    for (v in setdiff(names(d), c("bmi", "city"))) expect_identical(cp[[v]], d[[v]])
  }
  info <- attr(part, "synthesis")
  expect_true(info$partial)
  expect_identical(info$synthesised, c("bmi", "city"))
  expect_identical(epimask:::synthetic_rule(info), "partial")
  expect_identical(epimask:::synthetic_rule(attr(syn, "synthesis")), "simple")
})

test_that("records equal to an original unique record are counted, warned of, and redrawn on request", {
  set.seed(8)
  n <- 300
  d <- data.frame(a = sample(1:6, n, TRUE), b = sample(c("x", "y", "z"), n, TRUE),
                  c = sample(1:5, n, TRUE), stringsAsFactors = FALSE)
  expect_gt(length(reference_reproduced(d, d, names(d))), 10L)   # many original uniques
  expect_warning(syn <- apply_mask(d, mask_synth(m = 3, minbucket = 2)),
                 class = "epimask_warning_synth_original")
  info <- attr(syn, "synthesis")
  expect_identical(info$redrawn, c(0L, 0L, 0L))
  for (j in seq_along(syn))
    expect_identical(length(reference_reproduced(d, syn[[j]], names(d))), info$original_records[[j]])
  # redraws on request: fewer left, still counted exactly
  syn2 <- suppressWarnings(apply_mask(d, mask_synth(m = 3, minbucket = 2,
                                                    control = synth_control(max_redraw = 10))))
  info2 <- attr(syn2, "synthesis")
  expect_true(all(info2$redrawn > 0L))
  expect_lt(sum(info2$original_records), sum(info$original_records))
  for (j in seq_along(syn2))
    expect_identical(length(reference_reproduced(d, syn2[[j]], names(d))), info2$original_records[[j]])
  # smoothing gives numbers new values: a number and a category column
  set.seed(13)
  e2 <- data.frame(x = round(rnorm(200), 3), g = sample(c("a", "b"), 200, TRUE))
  rough <- suppressWarnings(apply_mask(e2, mask_synth(m = 1)))
  smooth <- suppressWarnings(apply_mask(e2, mask_synth(m = 1, smooth = TRUE)))
  expect_gt(attr(rough, "synthesis")$original_records, 50L)
  expect_lt(attr(smooth, "synthesis")$original_records, 25L)
  # one column of distinct values: every synthetic value is an original unique
  e <- data.frame(v = c(3.5, 1.25, 8, 2, 9.75))
  expect_warning(s <- apply_mask(e, mask_synth(m = 2)), class = "epimask_warning_synth_original")
  expect_identical(attr(s, "synthesis")$original_records, c(5L, 5L))
  expect_identical(format(s)[grepl("equal to an original", format(s))],
                   "  records equal to an original record, per copy: 5, 5")
  # partially synthetic: records whose synthesised values came out as their own
  set.seed(9)
  w <- tryCatch(apply_mask(d, mask_synth(m = 1), vars = "b"), epimask_warning_synth_original = function(w) w)
  expect_s3_class(w, "epimask_warning_synth_original")
  set.seed(9)
  p <- suppressWarnings(apply_mask(d, mask_synth(m = 1), vars = "b"))
  expect_identical(attr(p, "synthesis")$original_records, sum(p[[1L]]$b == d$b))
  expect_match(conditionMessage(w), sprintf("^The synthetic copy: %d records", sum(p[[1L]]$b == d$b)))
})

test_that("the holdout is left out of the synthesis and recorded by row number only", {
  set.seed(10)
  n <- 200
  d <- data.frame(u = runif(n), g = factor(sample(c("a", "b"), n, TRUE)))
  syn <- suppressWarnings(apply_mask(d, mask_synth(method = "sample", m = 3, holdout = 0.25)))
  h <- holdout_rows(syn)
  expect_identical(length(h), 50L)
  expect_true(is.integer(h) && !is.unsorted(h) && !anyDuplicated(h))
  expect_identical(attr(syn, "synthesis")$n, 150L)
  for (cp in syn) {
    expect_identical(nrow(cp), 150L)
    # donors are the records synthesised from, never a holdout record
    expect_true(all(cp$u %in% d$u[-h]))
    expect_false(any(cp$u %in% d$u[h]))
  }
  # the attributes hold no value of the data
  flat <- unlist(attr(syn, "synthesis"), use.names = FALSE)
  expect_false(any(as.character(d$u) %in% as.character(flat)))
  expect_error(apply_mask(d, mask_synth(holdout = 0.95)), class = "epimask_error_value")
})

test_that("persons: person-level columns once per person, records per person kept, new labels", {
  set.seed(12)
  p <- 120
  counts <- sample(1:4, p, TRUE)
  pid <- rep(sprintf("P%03d", seq_len(p)), counts)
  sex <- rep(sample(c("f", "m"), p, TRUE), counts)
  birth <- rep(as.Date("1950-01-01") + sample(0:9000, p, TRUE), counts)
  d <- data.frame(pid = pid, sex = sex, birth = birth, sbp = round(rnorm(length(pid), 130, 15)),
                  stringsAsFactors = FALSE)
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 2, id = "pid")))
  info <- attr(syn, "synthesis")
  expect_setequal(info$person_level, c("sex", "birth"))
  expect_identical(info$n, nrow(d))
  for (cp in syn) {
    expect_false(any(cp$pid %in% d$pid))
    per <- split(cp, cp$pid)
    expect_identical(length(per), as.integer(p))
    expect_true(all(vapply(per, function(x) length(unique(x$sex)) == 1L && length(unique(x$birth)) == 1L,
                           logical(1))))
    # each person's number of records is one of the data's
    expect_true(all(vapply(per, nrow, integer(1)) %in% counts))
    expect_identical(unique(cp$pid), paste0("s", seq_len(p)))
    expect_identical(nrow(cp), info$k[[match(list(cp), unclass(syn))]])
  }
  # a numeric person column gets 1..P
  d$pid <- match(d$pid, unique(d$pid)) + 1000L
  cp <- suppressWarnings(apply_mask(d, mask_synth(m = 1, id = "pid")))[[1L]]
  expect_identical(sort(unique(cp$pid)), seq_len(p))
  # persons held out whole
  syn_h <- suppressWarnings(apply_mask(d, mask_synth(m = 1, id = "pid", holdout = 0.2)))
  h <- holdout_rows(syn_h)
  expect_identical(length(unique(d$pid[h])), 24L)
  expect_false(any(d$pid[-h] %in% d$pid[h]))
})

test_that("bad input: classed errors or the documented fallbacks, the data untouched", {
  d <- data.frame(a = 1:20, b = factor(rep(c("x", "y"), 10)), c = rnorm(20))
  before <- d
  expect_error(mask_synth(m = 0), class = "epimask_error_value")
  expect_error(mask_synth(m = 2.5), class = "epimask_error_value")
  expect_error(mask_synth(minbucket = 0), class = "epimask_error_value")
  expect_error(mask_synth(visit = c("a", "a")), class = "epimask_error_value")
  expect_error(mask_synth(method = "ctree"), class = "epimask_error")
  expect_error(apply_mask(d, mask_synth(visit = c("a", "b")), vars = c("a", "b", "c")),
               "omitted: 'c'", class = "epimask_error_value")
  expect_error(apply_mask(d, mask_synth(visit = c("a", "zz"))), class = "epimask_error_name")
  expect_error(apply_mask(d, mask_synth(visit = c("c", "a", "b")), vars = c("a", "b")),
               "not synthesised: 'c'", class = "epimask_error_value")
  expect_error(mask_synth(id = "a", vars = "a"), class = "epimask_error_value")
  lt <- d
  lt$l <- as.POSIXlt(Sys.time() + 1:20)
  expect_error(apply_mask(lt, mask_synth()), class = "epimask_error_type")
  s <- mask_synth()
  s$m <- -1L
  expect_error(apply_mask(d, s), class = "epimask_error_value")
  expect_error(mask_values(mask_synth(), matrix(1), d), class = "epimask_error_type")
  # fallbacks: constant, one-level factor, all-NA; a factor of 10,000 levels
  e <- data.frame(k = rep(5, 400), one = factor(rep("only", 400)), none = rep(NA_real_, 400),
                  id = factor(sprintf("id%05d", sample(10000, 400))), x = rnorm(400))
  e_before <- e
  expect_warning(syn <- apply_mask(e, mask_synth(m = 1)), class = "epimask_warning_synth_levels")
  expect_identical(e, e_before)
  info <- attr(syn, "synthesis")
  expect_identical(unname(info$methods[c("k", "one", "none", "id")]),
                   c("constant", "constant", "all NA", "sample (too many levels)"))
  cp <- syn[[1L]]
  expect_true(all(cp$k == 5) && all(cp$one == "only") && all(is.na(cp$none)))
  expect_identical(levels(cp$id), levels(e$id))
  expect_identical(d, before)
})

test_that("the copies are reproducible, and the same on a future backend as serially", {
  skip_if_not_installed("future.apply")
  d <- synth_types_fixture(120)
  set.seed(31)
  a <- apply_mask(d, mask_synth(m = 3))
  after_a <- stats::runif(1)
  set.seed(31)
  b <- apply_mask(d, mask_synth(m = 3, control = synth_control(parallel = TRUE)))
  after_b <- stats::runif(1)
  expect_identical(unclass(a), unclass(b))
  # the caller's stream advances by one draw, whatever the work
  set.seed(31)
  invisible(sample.int(.Machine$integer.max, 1L))
  expect_identical(after_a, stats::runif(1))
  expect_identical(after_a, after_b)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  set.seed(31)
  c2 <- apply_mask(d, mask_synth(m = 3, control = synth_control(parallel = TRUE)))
  expect_identical(unclass(a), unclass(c2))
})

test_that("a sweep of minbucket runs weak to strong; labels, print and the tidiers", {
  sw <- mask_sweep(mask_synth, minbucket = c(100, 5, 25), vars = c("x", "y"))
  expect_identical(unname(vapply(sw, `[[`, numeric(1), "strength")), c(5, 25, 100))
  expect_identical(unname(vapply(sw, `[[`, numeric(1), "degree")), c(5, 25, 100))
  expect_identical(scheme_generator(sw[[1L]]), "synthesis (cart)")
  expect_identical(format(mask_synth(m = 3, smooth = TRUE)),
                   "synthesis (CART, minbucket 5, Bayesian bootstrap of leaves, smoothed), m = 3")
  set.seed(1)
  d <- data.frame(x = rnorm(100), y = factor(sample(c("a", "b"), 100, TRUE)))
  syn <- suppressWarnings(apply_mask(d, mask_synth(m = 2, holdout = 0.1)))
  txt <- format(syn)
  expect_match(txt[[1L]], "2 copies of 90 records, fully synthetic, from 90 original records")
  expect_true(any(grepl("holdout: 10 original records left out", txt)))
  st <- as.data.frame(syn)
  expect_identical(names(st), c(".copy", "x", "y"))
  expect_identical(st$.copy, rep(1:2, each = 90L))
  g <- glance(syn)
  expect_identical(c(g$m, g$holdout), c(2L, 10L))
  sm <- summary(syn, original = d)
  expect_identical(sm$variable, c("x", "y"))
  # KS distance of a copy against the original recomputed by hand
  o <- d$x[-holdout_rows(syn)]
  ks <- function(a, b) max(abs(stats::ecdf(a)(c(a, b)) - stats::ecdf(b)(c(a, b))))
  expect_equal(sm$distance[[1L]], mean(c(ks(d$x, syn[[1L]]$x), ks(d$x, syn[[2L]]$x))))
  expect_identical(length(syn[2L]), 1L)
  expect_identical(attr(syn[2L], "synthesis")$k, 90L)
  f <- tempfile(fileext = ".png")
  grDevices::png(f, 700, 400)
  plot(syn, original = d)
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
})

test_that("the C tree predictor sends records to the leaves rpart's predict() sends them to", {
  set.seed(14)
  n <- 3000
  d <- data.frame(a = rnorm(n), f = factor(sample(letters[1:7], n, TRUE)), b = runif(n))
  d$y <- d$a + as.integer(d$f) / 3 + rnorm(n)
  d$a[sample(n, 300)] <- NA
  d$f[sample(n, 200)] <- NA
  d$k <- factor(ifelse(d$b > 0.5, "hi", "lo"))
  for (resp in c("y", "k")) {
    fit <- rpart::rpart(stats::as.formula(paste(resp, "~ a + f + b")), data = d,
                        method = if (resp == "y") "anova" else "class",
                        control = rpart::rpart.control(minbucket = 5, cp = -1, xval = 0,
                                                       maxcompete = 0, maxsurrogate = 0,
                                                       usesurrogate = 2))
    arrays <- epimask:::tree_arrays(fit, c("a", "f", "b"))
    x <- cbind(d$a, as.integer(d$f), d$b)
    got <- epimask:::call_c(epimask:::C_synth_tree_leaves, c(list(x = x), arrays)) + 1L
    fit$frame$yval <- seq_len(nrow(fit$frame))
    want <- stats::predict(fit, d, type = "vector")
    complete <- stats::complete.cases(d[c("a", "f")])
    expect_identical(got[complete], as.integer(want)[complete])
    # the training records too (rpart's own `where`)
    expect_identical(got[complete], unname(fit$where)[complete])
    # a missing value goes to the child with more training records, down to a leaf
    expect_true(all(fit$frame$var[got] == "<leaf>"))
    r <- which(arrays$leaf == 0L)[[1L]]
    big <- if (fit$frame$n[arrays$right[r] + 1L] > fit$frame$n[arrays$left[r] + 1L])
      arrays$right[r] else arrays$left[r]
    miss <- x
    miss[, arrays$var[r] + 1L] <- NA
    lv <- epimask:::call_c(epimask:::C_synth_tree_leaves, c(list(x = miss[1:5, , drop = FALSE]), arrays))
    expect_true(all(lv >= big))   # in the subtree of that child (preorder rows)
  }
})
