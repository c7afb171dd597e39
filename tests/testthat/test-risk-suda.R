# risk_suda() against brute force: every subset of the keys (up to max_k) of
# every record, counted with paste() + table(); an MSU is a subset whose
# combination is unique while all its one-smaller subsets are not (which,
# since non-uniqueness passes to subsets, is "every proper subset").

brute_msu <- function(data, keys, max_k) {
  n <- nrow(data)
  lab <- lapply(data[keys], function(x) { v <- as.character(x); v[is.na(x)] <- "\001NA"; v })
  count_on <- function(s) {
    if (!length(s)) return(rep(n, n))
    key <- do.call(paste, c(lab[s], sep = "\r"))
    as.vector(table(key)[key])
  }
  A <- length(keys)
  subsets <- unlist(lapply(seq_len(max_k), function(k) utils::combn(A, k, simplify = FALSE)),
                    recursive = FALSE)
  counts <- lapply(subsets, count_on)
  names(counts) <- vapply(subsets, paste, "", collapse = ",")
  empty <- count_on(integer())
  msu <- matrix(0L, n, max_k)
  per_key <- matrix(0, A, max_k)
  for (si in seq_along(subsets)) {
    s <- subsets[[si]]
    is_msu <- counts[[si]] == 1
    for (drop in seq_along(s)) {
      smaller <- s[-drop]
      sub_count <- if (length(smaller)) counts[[paste(smaller, collapse = ",")]] else empty
      is_msu <- is_msu & sub_count > 1
    }
    msu[, length(s)] <- msu[, length(s)] + is_msu
    per_key[s, length(s)] <- per_key[s, length(s)] + sum(is_msu)
  }
  list(msu = msu, per_key = per_key)
}

# Scores and DIS-SUDA from the formulas of methods vignette section 14, written out again.
brute_scores <- function(msu, A, max_k, f, d) {
  U <- min(max_k, A - 1)
  w <- vapply(seq_len(max_k), function(k) {
    out <- 1
    s <- k
    while (s <= U - 1) { out <- out * (A - s); s <- s + 1 }
    out
  }, 0)
  score <- as.vector(msu %*% w)
  n1 <- sum(f == 1)
  n2 <- sum(f == 2)
  dis <- numeric(length(score))
  if (any(score > 0)) {
    q <- 1 + (8 - A) / 20
    fp <- n1 * d / (n1 * d + n2 * (1 - d))
    a <- (n1 / fp - n1) / sum(score[score > 0]^(-q))
    dis[score > 0] <- 1 / (1 + a * score[score > 0]^(-q))
  }
  list(score = score, dis = dis, w = w)
}

full_counts <- function(data, keys) {
  lab <- lapply(data[keys], function(x) { v <- as.character(x); v[is.na(x)] <- "\001NA"; v })
  key <- do.call(paste, c(lab, sep = "\r"))
  as.vector(table(key)[key])
}

test_that("MSUs, SUDA and DIS-SUDA scores match brute-force subsets on up to 6 keys", {
  set.seed(11)
  for (rep in 1:40) {
    n <- sample(c(1, 2, 3, 8, 30, 120, 400), 1)
    A <- sample(1:6, 1)
    levels_per_key <- sample(2:5, A, TRUE)
    d <- as.data.frame(lapply(levels_per_key, function(k) sample(c(letters[1:k], NA), n, TRUE,
                                                                    prob = c(rep(1, k), 0.3))))
    names(d) <- paste0("k", seq_len(A))
    if (rep %% 4 == 0) d <- rbind(d, d[sample(n, min(n, 5), TRUE), , drop = FALSE])  # duplicates
    if (rep %% 5 == 0) d$k1 <- "constant"
    keys <- names(d)
    max_k <- if (rep %% 3 == 0) sample(A, 1) else A
    s <- risk_suda(d, keys, max_k = max_k)
    ref <- brute_msu(d, keys, max_k)
    expect_equal(unname(s$msu), ref$msu, info = paste("rep", rep))
    sc <- brute_scores(ref$msu, A, max_k, full_counts(d, keys), 0.01)
    expect_equal(s$score, sc$score)
    expect_equal(s$dis, sc$dis, tolerance = tol_exact)
    expect_equal(unname(s$weights), sc$w)
    total <- sum(sc$score)
    if (total > 0)
      expect_equal(unname(s$attribute_contribution), 100 * as.vector(ref$per_key %*% sc$w) / total)
  }
})

# Dense key codes written out here (NA a value of its own): the MSUs do not
# depend on how the values are numbered.
plain_codes <- function(data, keys) {
  vapply(data[keys], function(x) {
    v <- as.character(x)
    v[is.na(x)] <- "\001NA"
    match(v, unique(v))
  }, integer(nrow(data)))
}

# The "seen twice" check of suda.c in its three forms: scans only (the plain
# SUDA2 check, cache_after = -1), answers cached per key set at once and
# packed codes sorted (cache_after = 0), cached at once and hashed
# (pack_bits = 0); and the default switch from one to the other.
suda_forms <- list(scan = list(-1, 64L), sorted = list(0, 64L), hashed = list(0, 0L),
                   default = list(1, 64L))

test_that("every form of the seen-twice check gives the brute-force MSUs (ties, NA, duplicates)", {
  set.seed(21)
  for (rep in 1:30) {
    n <- sample(c(2, 5, 30, 150, 600), 1)
    A <- sample(2:6, 1)
    levels_per_key <- sample(2:6, A, TRUE)
    d <- as.data.frame(lapply(levels_per_key, function(k) sample(c(letters[1:k], NA), n, TRUE,
                                                                    prob = c(rep(1, k), 0.3))))
    names(d) <- paste0("k", seq_len(A))
    if (rep %% 3 == 0) d <- rbind(d, d[sample(n, min(n, 8), TRUE), , drop = FALSE])
    keys <- names(d)
    max_k <- if (rep %% 4 == 0) sample(A, 1) else A
    ref <- brute_msu(d, keys, max_k)
    codes <- plain_codes(d, keys)
    for (form in names(suda_forms)) {
      res <- epimask:::suda_msu(codes, max_k, suda_forms[[form]][[1]], suda_forms[[form]][[2]])
      expect_equal(unname(res$msu), ref$msu, info = paste("rep", rep, form))
      expect_equal(unname(res$attr), ref$per_key, info = paste("rep", rep, form))
    }
  }
})

test_that("the forms agree with brute force where the cached answers take over (4000 records, 7 keys)", {
  set.seed(22)
  n <- 4000
  card <- c(30, 2, 5, 7, 9, 14, 6)
  d <- as.data.frame(lapply(card, function(k) sample.int(k, n, TRUE, prob = rev(seq_len(k))^1.5)))
  names(d) <- paste0("k", seq_along(card))
  keys <- names(d)
  ref <- brute_msu(d, keys, length(keys))
  codes <- plain_codes(d, keys)
  for (form in names(suda_forms)) {
    res <- epimask:::suda_msu(codes, length(keys), suda_forms[[form]][[1]], suda_forms[[form]][[2]])
    expect_identical(unname(res$msu), ref$msu, info = form)
    expect_equal(unname(res$attr), ref$per_key, info = form)
  }
  expect_true(sum(ref$msu) > 5000)
})

test_that("SUDA on the adult census (6 keys, 2000 records) matches brute force", {
  path <- "/work/shared/data/adult.csv"
  skip_if_not(file.exists(path), "adult.csv not available")
  ad <- utils::read.csv(path, check.names = FALSE, stringsAsFactors = FALSE)[1:2000, ]
  keys <- c("age", "sex", "race", "marital-status", "education", "hours-per-week")
  s <- risk_suda(ad, keys)
  ref <- brute_msu(ad, keys, 6)
  expect_equal(unname(s$msu), ref$msu)
  expect_true(sum(s$msu) > 1000)
})

test_that("a worked example: one special unique", {
  d <- data.frame(a = c("x", "x", "y", "y"), b = c(1, 2, 1, 2), c = c("p", "p", "p", "q"))
  s <- risk_suda(d, c("a", "b", "c"))
  # record 4 is unique on c alone; every record is unique on (a, b)
  expect_equal(unname(s$msu[4, ]), c(1L, 1L, 0L))   # {c}, {a, b}
  expect_equal(unname(s$msu[3, ]), c(0L, 2L, 0L))   # {a, b}, {a, c}
  expect_equal(unname(s$weights), c(2, 1, 1))       # A = 3, U = 2
  expect_equal(s$score[4], 3)
})

test_that("one record and classes without uniques have no MSU", {
  expect_equal(risk_suda(data.frame(a = 1, b = 2), c("a", "b"))$score, 0)
  d <- data.frame(a = c(1, 1, 2, 2), b = c(3, 3, 4, 4))
  s <- risk_suda(d, c("a", "b"))
  expect_equal(s$score, rep(0, 4))
  expect_equal(s$dis, rep(0, 4))
})

test_that("a table with no item to branch on (every value unique or shared by all) matches brute force", {
  # The root table then has no candidate item and its index arena is still
  # empty: suda.c handed qsort() a NULL pointer (UBSan, make sanitize).
  for (d in list(data.frame(a = c("x", "y", "z"), b = c(1, 1, 1)),
                 data.frame(a = c("x", "y"), b = c("p", "q")),
                 data.frame(a = c(1, 2, 3, 4), b = c(5, 6, 7, 8), c = "k"))) {
    keys <- names(d)
    s <- risk_suda(d, keys)
    ref <- brute_msu(d, keys, length(keys))
    expect_equal(unname(s$msu), ref$msu)
    expect_equal(s$score, brute_scores(ref$msu, length(keys), length(keys),
                                       full_counts(d, keys), 0.01)$score)
  }
})

test_that("bad input gives classed errors", {
  d <- data.frame(a = 1:3, b = 1:3)
  expect_error(risk_suda(d, c("a", "b"), max_k = 3), class = "epimask_error_value")
  expect_error(risk_suda(d, c("a", "b"), max_k = 0), class = "epimask_error_value")
  expect_error(risk_suda(d, c("a", "b"), dis_fraction = 1), class = "epimask_error_value")
  expect_error(risk_suda(d, c("a", "a")), class = "epimask_error_value")
  expect_error(risk_suda(d, "zz"), class = "epimask_error_name")
})

test_that("print, summary, as.data.frame and plot", {
  d <- dose_cohort
  d$age5 <- 5 * (d$age_exp %/% 5)
  s <- risk_suda(d, c("city", "sex", "age5", "case"))
  expect_output(print(s), "DIS-SUDA")
  sm <- summary(s)
  expect_equal(sum(sm$dis_table$records), nrow(d))
  expect_output(print(sm), "Contribution")
  df <- as.data.frame(s)
  expect_equal(df$score, s$score)
  expect_plot_snapshot("suda", function() plot(s))
})
