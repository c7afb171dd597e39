# risk_match() against a brute-force R version of methods vignette section 5 (helper-risk.R)
# whose unknown-variable factor is computed by numerical integration.

test_that("the closed-form triangle expectation equals numerical integration", {
  tri <- function(a, m, s, D) .Call(epimask:::C_risk_triangle_normal,
                                    list(a = a, mean = m, sd = s, half_width = D))
  grid <- expand.grid(a = c(-3, -0.4, 0, 0.25, 1.7, 6), m = c(0, 0.3, -2),
                      s = c(1e-3, 0.2, 1, 5), D = c(0.05, 1, 4))
  got <- mapply(tri, grid$a, grid$m, grid$s, grid$D)
  want <- mapply(ref_triangle_normal, grid$a, grid$m, grid$s, grid$D)
  expect_equal(got, want, tolerance = tol_exact)
  expect_true(all(got >= 0 & got <= 1))
  # degenerate cases: a point mass at the mean, and no spread in the released data
  expect_equal(tri(c(0.5, 2, -1), 0, 0, 1), c(0.5, 0, 0))
  expect_identical(tri(c(0.5, 2), 0, 1, 0), c(1, 1))
  # far beyond the triangle's support the expectation vanishes
  expect_identical(tri(100, 0, 1, 1), 0)
})

test_that("risk_match equals the brute-force version on kernel-masked data", {
  fx <- risk_fixture(n = 16)
  for (kernel in c("exponential", "ring")) {
    for (lambda in c(0.02, 0.2, 1)) {
      masked <- as.data.frame(kernel_mask(fx$data, fx$coords, kernel, lambda))
      got <- risk_match(fx$data, masked, known = "x", unknown = "y", threads = 2)
      want <- ref_risk_match(fx$data, masked, "x", "y")
      expect_match_equal(got, want)
      expect_equal(unname(got$sigma), want$sigma, tolerance = tol_exact)
    }
  }
})

test_that("two known variables, and no unknown variable", {
  fx <- risk_fixture(n = 16, seed = 7)
  masked <- as.data.frame(kernel_mask(fx$data, fx$coords, "exponential", 0.05))
  expect_match_equal(risk_match(fx$data, masked, c("x", "w"), "y"),
                     ref_risk_match(fx$data, masked, c("x", "w"), "y"))
  got <- risk_match(fx$data, masked, c("x", "w"))
  expect_match_equal(got, ref_risk_match(fx$data, masked, c("x", "w")))
  expect_identical(got$unknown, character(0))
  masked <- as.data.frame(kernel_mask(fx$data, fx$coords, "ring", 0.2))
  expect_match_equal(risk_match(fx$data, masked, "x"),
                     ref_risk_match(fx$data, masked, "x"))
  # two unknown variables multiply
  expect_match_equal(risk_match(fx$data, masked, "x", c("y", "w")),
                     ref_risk_match(fx$data, masked, "x", c("y", "w")))
})

test_that("rounding and noise masks, with ties, match the brute force", {
  fx <- risk_fixture(n = 30, seed = 3)
  rounded <- transform(fx$data, x = round(x, 1), y = round(y, -1))
  got <- risk_match(fx$data, rounded, "x", "y")
  want <- ref_risk_match(fx$data, rounded, "x", "y")
  expect_match_equal(got, want)
  expect_true(any(got$per_target$c > 1))
  fx <- risk_fixture(n = 16, seed = 4)
  noisy <- transform(fx$data, x = x + runif(16, -0.05, 0.05), y = y + rnorm(16))
  expect_match_equal(risk_match(fx$data, noisy, "x", "y", targets = 1:16),
                     ref_risk_match(fx$data, noisy, "x", "y"))
})

test_that("unmasked data are matched exactly; heavy masking is not", {
  fx <- risk_fixture(n = 30, seed = 5)
  got <- risk_match(fx$data, fx$data, "x")
  # the true record is the only one at distance 0 from the known value
  expect_identical(got$per_target$c, rep(1L, 30))
  expect_identical(got$per_target$I, rep(1L, 30))
  expect_identical(got$percent_correct, 100)
  expect_identical(got$true_match_rate, 1)
  expect_identical(got$false_match_rate, 0)
  heavy <- as.data.frame(kernel_mask(fx$data, fx$coords, "exponential", 50))
  # smoothed to near chance, 100 / 30 = 3.3% (measured 3.2%)
  expect_lt(risk_match(fx$data, heavy, "x", "y")$percent_correct, 10)
})

test_that("a constant known variable is dropped from the regression, not fatal", {
  fx <- risk_fixture(n = 16, seed = 9)
  masked <- fx$data
  masked$w <- 2
  got <- risk_match(fx$data, masked, c("x", "w"), "y")
  want <- ref_risk_match(fx$data, masked, c("x", "w"), "y")
  expect_match_equal(got, want)
  # all released values equal and equal to every target's: no information
  both <- fx$data
  both$w <- 2
  masked$x <- 0.5
  got <- risk_match(both, masked, c("x", "w"), "y")
  expect_match_equal(got, ref_risk_match(both, masked, c("x", "w"), "y"))
})

test_that("every candidate at probability 0 leaves all records tied", {
  original <- data.frame(a = c(0, 1), b = c(1, 0))
  masked <- data.frame(a = c(0, 1), b = c(1, 0))
  shifted <- data.frame(a = c(0.5, -1), b = c(-1, 0.5))
  got <- risk_match(original, masked, c("a", "b"))
  expect_identical(got$per_target$c, c(1L, 1L))
  # target 1 (a = 0, b = 1): record 1 is farthest on b, record 2 on a
  odd <- risk_match(data.frame(a = c(0.25, 0), b = c(0.25, 0)),
                    data.frame(a = c(0, 1), b = c(1, 0)), c("a", "b"))
  expect_identical(odd$per_target$c[1], 2L)
  expect_identical(odd$per_target$prob_true[1], 0.5)
  expect_identical(odd$per_target$I[1], 1L)
})

test_that("targets evaluate a subset; matrices work as data frames", {
  fx <- risk_fixture(n = 30, seed = 11)
  masked <- kernel_mask(fx$data, fx$coords, "ring", 0.1)
  full <- risk_match(fx$data, as.data.frame(masked), "x", "y")
  part <- risk_match(as.matrix(fx$data), masked, "x", "y", targets = c(3, 10, 30))
  expect_identical(part$per_target[, -1], {
    x <- full$per_target[c(3, 10, 30), -1]
    rownames(x) <- NULL
    x
  })
  expect_identical(part$n_targets, 3L)
  expect_equal(part$percent_correct,
               100 * sum(part$per_target$I / part$per_target$c) / 3)
  one <- risk_match(fx$data, as.data.frame(masked), "x", "y", threads = 1)
  expect_identical(one$per_target, full$per_target)
})

test_that("tibbles and data.tables are accepted", {
  skip_if_not_installed("data.table")
  skip_if_not_installed("tibble")
  fx <- risk_fixture(n = 20, seed = 13)
  m <- as.data.frame(kernel_mask(fx$data, fx$coords, "ring", 0.1))
  want <- risk_match(fx$data, m, "x", "y")
  expect_identical(risk_match(data.table::as.data.table(fx$data),
                              data.table::as.data.table(m), "x", "y"), want)
  expect_identical(risk_match(tibble::as_tibble(fx$data), tibble::as_tibble(m),
                              "x", "y"), want)
})

test_that("the caller's data are not modified", {
  fx <- risk_fixture(n = 20)
  o <- fx$data
  m <- as.data.frame(kernel_mask(o, fx$coords, "exponential", 0.1))
  o_copy <- o
  m_copy <- m
  risk_match(o, m, "x", "y")
  expect_identical(o, o_copy)
  expect_identical(m, m_copy)
})

test_that("print, summary, format and as.data.frame read like the papers' tables", {
  fx <- risk_fixture(n = 30, seed = 3)
  rounded <- transform(fx$data, x = round(x, 1), y = round(y, -1))
  r <- risk_match(fx$data, rounded, "x", "y")
  out <- capture.output(print(r))
  expect_match(out[1], "Record-matching disclosure risk")
  expect_true(any(grepl("Records at top probability (c)", out, fixed = TRUE)))
  expect_true(any(grepl("Expected match risk", out)))
  s <- summary(r)
  expect_s3_class(s, "summary.epimask_match")
  expect_identical(sum(s$ties$targets), 30L)
  expect_equal(sum(s$ties$expected_correct), r$expected_match_risk)
  expect_identical(sum(s$ties$correct), sum(r$per_target$I))
  expect_match(format(r), "% expected correct matches \\(30 of 30 targets")
  expect_identical(as.data.frame(r), r$per_target)
  expect_named(as.data.frame(r), c("target", "prob_true", "prob_max", "c", "I"))
})

test_that("bad input gets a classed error naming the argument", {
  fx <- risk_fixture(n = 20)
  o <- fx$data
  m <- o
  expect_error(risk_match(o, m, "zz", "y"), "`known`", class = "epimask_error_name")
  expect_error(risk_match(o, m, "x", "zz"), "`unknown`", class = "epimask_error_name")
  expect_error(risk_match(o, m[-1, ], "x", "y"), "`masked`", class = "epimask_error_length")
  expect_error(risk_match(o, m, character(0)), "`known`", class = "epimask_error_type")
  expect_error(risk_match(o, m, "x", "x"), "`unknown`", class = "epimask_error_value")
  chr <- transform(m, x = as.character(x))
  expect_error(risk_match(o, chr, "x", "y"), "`masked`.*'x'", class = "epimask_error_type")
  fac <- transform(o, x = factor(x))
  expect_error(risk_match(fac, m, "x", "y"), "`original`.*'x'", class = "epimask_error_type")
  na <- m
  na$y[3] <- NA
  expect_error(risk_match(o, na, "x", "y"), "`masked`.*NA", class = "epimask_error_value")
  allna <- m
  allna$x <- NA_real_
  expect_error(risk_match(o, allna, "x", "y"), "`masked`.*all NA",
               class = "epimask_error_value")
  inf <- o
  inf$x[1] <- Inf
  expect_error(risk_match(inf, m, "x"), "`original`", class = "epimask_error_value")
  expect_error(risk_match(o, m, "x", targets = 0), "`targets`", class = "epimask_error_value")
  expect_error(risk_match(o, m, "x", targets = "a"), "`targets`", class = "epimask_error_type")
  expect_error(risk_match(o, m, "x", threads = 0), "`threads`", class = "epimask_error_value")
  expect_error(risk_match(list(1), m, "x"), "`original`", class = "epimask_error_type")
  expect_error(risk_match(o[0, ], m[0, ], "x"), "`original`", class = "epimask_error_empty")
  expect_error(risk_match(o[1:2, ], m[1:2, ], "x", "y"), "n = 2, q = 2",
               class = "epimask_error_singular")
})

# ---- the exact search (method = "tree") against the exhaustive loop ---------
# The exhaustive loop is itself checked against the brute-force R version
# above; here every per-target c and I, hence every rate, must be identical,
# and prob_true / prob_max within the certified relative tolerance.

match_grid_data <- function(kind, n, n_known, n_unknown, seed) {
  set.seed(seed)
  p <- n_known + n_unknown
  coords <- matrix(runif(2 * n, -1, 1), n, 2)
  o <- as.data.frame(matrix(rnorm(n * p), n, p))
  names(o) <- c(paste0("k", seq_len(n_known)), if (n_unknown) paste0("u", seq_len(n_unknown)))
  o[[1]] <- exp(-2 * sqrt(rowSums(coords^2))) # the exposure of methods vignette section 10
  m <- switch(kind,
    kernel = as.data.frame(kernel_mask(o, coords, "ring", 0.05)),
    rounded = round(o, 1),
    grouped = as.data.frame(lapply(o, function(v) {
      breaks <- unique(stats::quantile(v, 0:4 / 4))
      if (length(breaks) < 2L) return(v)
      stats::ave(v, cut(v, breaks, include.lowest = TRUE))
    })),
    noisy = o + rnorm(n * p, sd = 0.3),
    unmasked = o,
    duplicated = {
      o[] <- o[rep(seq_len(max(1, n %/% 3)), length.out = n), , drop = FALSE]
      o + rep(rnorm(max(1, n %/% 3) * p, sd = 0.1), length.out = n * p)
    },
    constant = {
      o[[ncol(o)]] <- 2
      round(o, 1)
    })
  # in "duplicated" the original has the repeated rows too
  list(original = o, masked = m, known = names(o)[seq_len(n_known)],
       unknown = if (n_unknown) names(o)[n_known + seq_len(n_unknown)])
}

expect_same_match <- function(tree, exhaustive, prob_tol, info) {
  expect_identical(tree$per_target$c, exhaustive$per_target$c, info = info)
  expect_identical(tree$per_target$I, exhaustive$per_target$I, info = info)
  for (rate in c("expected_match_risk", "percent_correct", "true_match_rate",
                 "false_match_rate"))
    expect_identical(tree[[rate]], exhaustive[[rate]], info = paste(info, rate))
  tol <- prob_tol + 1e-13
  rel <- function(a, b) ifelse(b == 0, abs(a), abs(a / b - 1))
  expect_true(all(rel(tree$per_target$prob_true, exhaustive$per_target$prob_true) <= tol),
              info = info)
  expect_true(all(rel(tree$per_target$prob_max, exhaustive$per_target$prob_max) <= tol),
              info = info)
}

test_that("the tree search gives the exhaustive loop's c, I and rates on every kind of input", {
  kinds <- c("kernel", "rounded", "grouped", "noisy", "unmasked", "duplicated", "constant")
  shapes <- rbind(c(1, 0), c(1, 1), c(2, 1), c(3, 0), c(2, 2), c(4, 1), c(4, 2))
  sizes <- c(1, 2, 9, 120, 700)
  seed <- 0
  for (kind in kinds) for (s in seq_len(nrow(shapes))) for (n in sizes) {
    k <- shapes[s, 1]
    u <- shapes[s, 2]
    if (u > 0 && n <= k + 1) next # the intruder's regression needs n > q
    if (kind == "kernel" && n > 400) next # dense R kernel matrix
    seed <- seed + 1
    d <- match_grid_data(kind, n, k, u, seed)
    info <- sprintf("%s n=%d known=%d unknown=%d", kind, n, k, u)
    ex <- risk_match(d$original, d$masked, d$known, d$unknown, method = "exhaustive",
                     threads = 2)
    tol <- if (seed %% 2) 1e-6 else 1e-3
    tr <- risk_match(d$original, d$masked, d$known, d$unknown, method = "tree",
                     prob_tol = tol, threads = 2)
    expect_same_match(tr, ex, tol, info)
    expect_identical(tr$method, "tree")
  }
})

test_that("a larger grid: n of a few thousand, ties and kernel masking from the package", {
  for (kind in c("rounded", "grouped", "noisy", "duplicated")) {
    d <- match_grid_data(kind, 3000, 2, 1, 99)
    ex <- risk_match(d$original, d$masked, d$known, d$unknown, method = "exhaustive")
    tr <- risk_match(d$original, d$masked, d$known, d$unknown, method = "tree")
    expect_same_match(tr, ex, 1e-6, kind)
  }
  sim <- as.data.frame(simulate_zdl(1, n = 3000, seed = 3))[, c("s1", "s2", "x", "y")]
  sch <- mask_kernel("ring", 0.002, as.matrix(sim[, c("s1", "s2")]), source = c(0, 0))
  masked <- apply_mask(sim, sch, vars = c("s1", "x", "y"))
  ex <- risk_match(sim, masked, c("x", "s1"), "y", method = "exhaustive")
  tr <- risk_match(sim, masked, c("x", "s1"), "y", method = "tree")
  expect_same_match(tr, ex, 1e-6, "zdl ring")
  # prob_tol = 0: every record summed, equal up to the order of the sum
  t0 <- risk_match(sim, masked, c("x", "s1"), "y", method = "tree", prob_tol = 0,
                   targets = 1:200)
  e0 <- risk_match(sim, masked, c("x", "s1"), "y", method = "exhaustive", targets = 1:200)
  expect_same_match(t0, e0, 0, "prob_tol = 0")
  expect_equal(t0$prob_tol, 0)
})

test_that("ties within 1e-12 relative are found by the search as by the loop", {
  # candidates whose scores differ by less than the tie tolerance: the same
  # value up to the last bits
  set.seed(5)
  base <- runif(300)
  o <- data.frame(a = base, b = rnorm(300))
  m <- o
  m$b <- round(m$b)
  m$a <- round(m$a, 2)
  m$a[1:50] <- m$a[1:50] * (1 + sample(c(-1, 0, 1), 50, TRUE) * 1e-15)
  ex <- risk_match(o, m, c("a", "b"), method = "exhaustive")
  tr <- risk_match(o, m, c("a", "b"), method = "tree")
  expect_same_match(tr, ex, 1e-6, "near ties")
  expect_true(any(ex$per_target$c > 1))
})

test_that("the search is exact from a point-mass intruder's law to a very noisy one", {
  # the unknown an exact function of the knowns (sigma 0 or a rounding-level
  # sigma, so the factor's tables are coarse or absent), nearly exact (sigma
  # 1e-9: d about 1e9), and drowned in noise (d about 3)
  set.seed(21)
  n <- 2500
  o <- data.frame(a = runif(n), b = rnorm(n))
  cases <- list(exact = transform(o, y = 2 * a - b + 1),
                nearly = transform(o, y = a + 1e-9 * b + 1e-9 * rnorm(n)),
                noisy = transform(o, y = a + rnorm(n, sd = 100)))
  for (nm in names(cases)) {
    m <- cases[[nm]]
    m$a <- m$a + rnorm(n, sd = 0.01)
    for (tol in c(1e-6, 1e-2, 0.5)) {
      ex <- risk_match(cases[[nm]], m, c("a", "b"), "y", method = "exhaustive",
                       targets = 1:400)
      tr <- risk_match(cases[[nm]], m, c("a", "b"), "y", method = "tree", prob_tol = tol,
                       targets = 1:400)
      expect_same_match(tr, ex, tol, paste(nm, tol))
    }
  }
})

# The Zhou et al. example I, ring-kernel-masked (lambda 0.001): the original
# and the release.
zdl_ring_release <- function(n, seed) {
  sim <- as.data.frame(simulate_zdl(1, n = n, seed = seed))[, c("s1", "s2", "x", "y")]
  sch <- mask_kernel("ring", 0.001, as.matrix(sim[, c("s1", "s2")]), source = c(0, 0))
  list(sim = sim, masked = apply_mask(sim, sch, vars = c("s1", "x", "y")))
}

test_that("prob_true is within prob_tol over a range of tolerances on masked data", {
  rel <- zdl_ring_release(4000, 8)
  sim <- rel$sim
  masked <- rel$masked
  tg <- seq(1, 4000, by = 7)
  ex <- risk_match(sim, masked, c("x", "s1"), "y", method = "exhaustive", targets = tg)
  for (tol in c(1e-8, 1e-4, 0.03, 1)) {
    tr <- risk_match(sim, masked, c("x", "s1"), "y", method = "tree", prob_tol = tol,
                     targets = tg)
    expect_same_match(tr, ex, tol, paste("zdl tol", tol))
  }
})

test_that("the search starts from a true record scoring 0, and from all scoring 0", {
  # the true record of target 1 is released far away, so it is the farthest
  # from its own target (factor 0): the search's floor starts at 0
  set.seed(31)
  n <- 600
  o <- data.frame(a = runif(n), b = runif(n), y = rnorm(n))
  m <- o
  m$a[1] <- -100
  m$b <- round(m$b, 1)
  for (u in list(NULL, "y")) {
    ex <- risk_match(o, m, c("a", "b"), u, method = "exhaustive", targets = 1:40)
    tr <- risk_match(o, m, c("a", "b"), u, method = "tree", targets = 1:40)
    expect_same_match(tr, ex, 1e-6, paste("zero truth", length(u)))
    expect_identical(ex$per_target$prob_true[1], 0)
  }
  # two records only, each target's candidates both at probability 0: all tie
  o2 <- data.frame(a = c(0.25, 0), b = c(0.25, 0))
  m2 <- data.frame(a = c(0, 1), b = c(1, 0))
  expect_same_match(risk_match(o2, m2, c("a", "b"), method = "tree"),
                    risk_match(o2, m2, c("a", "b"), method = "exhaustive"), 1e-6, "all zero")
})

test_that("auto picks the search for large inputs and the loop otherwise", {
  d <- match_grid_data("noisy", 50, 1, 1, 1)
  expect_identical(risk_match(d$original, d$masked, d$known, d$unknown)$method, "exhaustive")
  d <- match_grid_data("noisy", 2500, 1, 1, 1)
  auto <- risk_match(d$original, d$masked, d$known, d$unknown, targets = 1:50)
  expect_identical(auto$method, "tree")
  exact <- risk_match(d$original, d$masked, d$known, d$unknown, targets = 1:50,
                      prob_tol = 0)
  expect_identical(exact$method, "exhaustive")
})

test_that("parallel chunks over future give the serial result", {
  skip_if_not_installed("future.apply")
  skip_on_cran()
  d <- match_grid_data("noisy", 400, 2, 1, 11)
  serial <- risk_match(d$original, d$masked, d$known, d$unknown, method = "tree",
                       threads = 1)
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  par <- risk_match(d$original, d$masked, d$known, d$unknown, method = "tree",
                    parallel = TRUE)
  expect_identical(par, serial)
  par_ex <- risk_match(d$original, d$masked, d$known, d$unknown, method = "exhaustive",
                       parallel = TRUE)
  expect_identical(par_ex$per_target$c, serial$per_target$c)
  # chunked serially (as with a progress bar) with one shared index
  chunked <- epimask:::match_targets(
    list(masked_known = as.matrix(d$masked[d$known]), masked_unknown = as.matrix(d$masked[d$unknown]),
         unknown_sd = unname(serial$sigma), unknown_range = diff(range(d$masked[[d$unknown]])),
         threads = 1L, method = 1L, prob_tol = 1e-6, sweep = 1L, index = NULL),
    seq_len(400), as.matrix(d$original[d$known]),
    epimask:::intruder_regression(as.matrix(d$masked[d$known]), as.matrix(d$masked[d$unknown]),
                                  as.matrix(d$original[d$known]))$mean,
    parallel = FALSE, progress = TRUE, worker_threads = 1L)
  expect_identical(chunked$c, serial$per_target$c)
  expect_identical(chunked$prob_true, serial$per_target$prob_true)
})

test_that("a failing worker is a classed error, never a partial result", {
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  bad_job <- list(masked_known = matrix(1:4 + 0.5, 4), masked_unknown = matrix(0, 4, 0),
                  unknown_sd = double(0), unknown_range = double(0), threads = 1L,
                  method = 1L, prob_tol = 2, sweep = 0L, index = NULL) # prob_tol refused in C
  expect_error(epimask:::match_targets(bad_job, 1:4, matrix(1:4 + 0, 4), matrix(0, 4, 0),
                                       parallel = TRUE, progress = FALSE, worker_threads = 1L),
               "worker failed", class = "epimask_error_worker")
})

test_that("the search's limits and its arguments give classed errors", {
  d <- match_grid_data("noisy", 60, 4, 1, 3)
  o <- cbind(d$original, k5 = rnorm(60), k6 = rnorm(60), k7 = rnorm(60))
  m <- cbind(d$masked, k5 = o$k5, k6 = o$k6, k7 = o$k7)
  known7 <- c(d$known, "k5", "k6", "k7")
  expect_error(risk_match(o, m, known7, method = "tree"), "at most 6 known",
               class = "epimask_error_value")
  # auto falls back to the loop there
  expect_identical(risk_match(o, m, known7, targets = 1:3)$method, "exhaustive")
  expect_error(risk_match(o, m, "k1", method = "fast"), "`method`",
               class = "epimask_error_value")
  expect_error(risk_match(o, m, "k1", prob_tol = -1), "`prob_tol`",
               class = "epimask_error_value")
  expect_error(risk_match(o, m, "k1", prob_tol = "a"), "`prob_tol`",
               class = "epimask_error_type")
  expect_error(risk_match(o, m, "k1", parallel = NA), "`parallel`",
               class = "epimask_error_type")
  expect_error(risk_match(o, m, "k1", progress = 1), "`progress`",
               class = "epimask_error_type")
})

test_that("a default call past the pair limit gives the rates and says what it left out", {
  rel <- zdl_ring_release(3000, 9)
  sim <- rel$sim
  masked <- rel$masked
  # a fourth and a fifth known variable (released copies with noise)
  set.seed(91)
  sim$w <- sim$x + rnorm(nrow(sim))
  masked$w <- sim$w + rnorm(nrow(sim), sd = 0.2)
  sim$v <- sim$s2 + rnorm(nrow(sim))
  masked$v <- sim$v + rnorm(nrow(sim), sd = 0.2)
  tg <- seq(1, 3000, by = 5)
  # five known variables: the sweep of all targets does not apply
  k4 <- c("x", "s1", "s2", "w", "v")
  ex <- risk_match(sim, masked, k4, "y", method = "exhaustive", targets = tg)
  # 3000 x 600 = 1.8e6 pairs: below the default limit the default call
  # certifies the probabilities as before
  full <- risk_match(sim, masked, k4, "y", targets = tg)
  expect_identical(full$prob_tol, 1e-6)
  expect_same_match(full, ex, 1e-6, "default below the limit")

  old <- options(epimask.match_prob_pairs = 1e6)
  on.exit(options(old), add = TRUE)
  expect_message(rates <- risk_match(sim, masked, k4, "y", targets = tg),
                 class = "epimask_message_probs_skipped")
  expect_message(risk_match(sim, masked, k4, "y", targets = tg),
                 "prob_tol = 1e-6")
  # the rates are the loop's, exactly; the probabilities are NA, not guessed
  expect_identical(rates$per_target$c, ex$per_target$c)
  expect_identical(rates$per_target$I, ex$per_target$I)
  for (f in c("expected_match_risk", "percent_correct", "true_match_rate",
              "false_match_rate"))
    expect_identical(rates[[f]], ex[[f]], info = f)
  expect_true(all(is.na(rates$per_target$prob_true)))
  expect_true(all(is.na(rates$per_target$prob_max)))
  expect_identical(rates$prob_tol, NA_real_)
  expect_identical(rates$method, "tree")
  expect_output(print(rates), "not computed \\(give `prob_tol`")
  expect_true(is.na(summary(rates)$mean_prob_true))
  expect_identical(glance(rates)$percent_correct, ex$percent_correct)

  # prob_tol given, even at its default value, computes them
  expect_silent(asked <- risk_match(sim, masked, k4, "y", targets = tg,
                                    prob_tol = 1e-6))
  expect_identical(asked, full)
  # so do the loop (it sums every record anyway) and a call under the limit
  loop <- risk_match(sim, masked, k4, "y", targets = tg, method = "exhaustive")
  expect_identical(loop, ex)
  expect_silent(few <- risk_match(sim, masked, k4, "y", targets = tg[1:300]))
  expect_same_match(few, risk_match(sim, masked, k4, "y", method = "exhaustive",
                                    targets = tg[1:300]), 1e-6, "under the limit")

  # the message says why the sweep did not apply
  expect_message(risk_match(sim, masked, k4, "y", targets = tg), "5 known variables")
  # with three known variables and one unknown the sweep applies: the
  # default call past the limit computes the probabilities, silently
  k3 <- c("x", "s1", "s2")
  expect_silent(swept3 <- risk_match(sim, masked, k3, "y", targets = tg))
  expect_identical(swept3, risk_match(sim, masked, k3, "y", targets = tg, prob_tol = 1e-6))
  expect_same_match(swept3, risk_match(sim, masked, k3, "y", targets = tg,
                                       method = "exhaustive"), 1e-6, "sweep, 3 known")
  # with four known variables and one unknown the sweep applies to a
  # prob_tol given, but a default call past the limit gives the rates and
  # says what asking costs
  k4w <- c("x", "s1", "s2", "w")
  expect_message(rates4 <- risk_match(sim, masked, k4w, "y", targets = tg),
                 "with four known variables", class = "epimask_message_probs_skipped")
  expect_true(all(is.na(rates4$per_target$prob_true)))
  ex4 <- risk_match(sim, masked, k4w, "y", targets = tg, method = "exhaustive")
  expect_identical(rates4$per_target$c, ex4$per_target$c)
  expect_silent(asked4 <- risk_match(sim, masked, k4w, "y", targets = tg, prob_tol = 1e-6))
  expect_same_match(asked4, ex4, 1e-6, "sweep, 4 known")
  # four known variables and no unknown: one block, no bins (minutes at 1e6):
  # the default call past the limit computes the probabilities, silently
  expect_silent(swept40 <- risk_match(sim, masked, k4w, targets = tg))
  expect_identical(swept40, risk_match(sim, masked, k4w, targets = tg, prob_tol = 1e-6))
  expect_same_match(swept40, risk_match(sim, masked, k4w, targets = tg, method = "exhaustive"),
                    1e-6, "sweep, 4 known, no unknown")
  # with two known variables and one unknown the sweep applies: the default
  # call past the limit computes the probabilities, silently, as prob_tol
  # = 1e-6 given does
  expect_silent(swept <- risk_match(sim, masked, c("x", "s1"), "y", targets = tg))
  expect_identical(swept, risk_match(sim, masked, c("x", "s1"), "y", targets = tg,
                                     prob_tol = 1e-6))
  expect_same_match(swept, risk_match(sim, masked, c("x", "s1"), "y", targets = tg,
                                      method = "exhaustive"), 1e-6, "sweep past the limit")
  # the walk alone (the former route) when asked: the message says so
  old_sweep <- options(epimask.match_sweep = FALSE)
  expect_message(risk_match(sim, masked, c("x", "s1"), "y", targets = tg),
                 "epimask.match_sweep = FALSE", class = "epimask_message_probs_skipped")
  options(old_sweep)
  options(epimask.match_prob_pairs = "many")
  expect_error(risk_match(sim, masked, k4, "y", targets = tg),
               class = "epimask_error_value")
})

test_that("print keeps every integer digit of the expected matches", {
  # An unmasked release of 1234 distinct records: every target is matched
  # alone and correctly, so the expected match risk is 1234 exactly (not
  # 1230, as three significant digits would print it).
  set.seed(11)
  original <- data.frame(x = rnorm(1234), y = rnorm(1234))
  res <- risk_match(original, original, known = c("x", "y"), unknown = NULL, threads = 1)
  expect_equal(sum(res$per_target$I / res$per_target$c), 1234)
  out <- format(summary(res))
  expect_true(any(grepl("Expected match risk: 1234 correct matches of 1234", out, fixed = TRUE)))
  table_row <- grep("^ +1 +1234 +1234 +1234$", out, value = TRUE)
  expect_length(table_row, 1L)
})

test_that("print gives each unknown's residual SD at its own width", {
  # Two unknowns on scales 1e5 apart: format() of the pair would pad the
  # small SD to the width of the large one ("    1.23, 123000").
  set.seed(12)
  original <- data.frame(x = rnorm(200), y = rnorm(200), w = rnorm(200, sd = 1e5))
  masked <- original
  masked$x <- masked$x + rnorm(200, sd = 0.1)
  res <- risk_match(original, masked, known = "x", unknown = c("y", "w"), threads = 1)
  # the intruder's residual SDs, by lm() on the released data
  sd_y <- summary(stats::lm(y ~ x, data = masked))$sigma
  sd_w <- summary(stats::lm(w ~ x, data = masked))$sigma
  line <- grep("Unknown:", format(summary(res)), value = TRUE)
  expect_identical(line, sprintf(
    "  Unknown: y, w (intruder's regression on the known, residual SDs %s, %s)",
    format(signif(sd_y, 3)), format(signif(sd_w, 3))))
  one <- risk_match(original, masked, known = "x", unknown = "y", threads = 1)
  expect_match(format(summary(one)), sprintf("residual SD %s)", format(signif(sd_y, 3))),
               fixed = TRUE, all = FALSE)
})

test_that("an unknown the known variables predict exactly is said so", {
  set.seed(13)
  original <- data.frame(x = rnorm(300), z = rnorm(300))
  original$y <- 3 * original$x - 2 * original$z + 1
  original$w <- original$x + rnorm(300)
  masked <- original
  masked$x <- masked$x + rnorm(300, sd = 0.1)
  masked$z <- masked$z + rnorm(300, sd = 0.1)
  masked$y <- 3 * masked$x - 2 * masked$z + 1
  res <- risk_match(original, masked, known = c("x", "z"), unknown = c("y", "w"), threads = 1)
  # by lm() on the released data: y is exact (residual SD ~ 1e-15 against a
  # range of ~ 20), w is not
  fit_y <- stats::lm(y ~ x + z, data = masked)
  expect_lt(sqrt(sum(residuals(fit_y)^2) / fit_y$df.residual), diff(range(masked$y)) * 2^-21)
  expect_identical(res$unknown_exact, c(TRUE, FALSE))
  line <- grep("Unknown:", format(summary(res)), value = TRUE)
  expect_match(line, "; y predicted exactly)", fixed = TRUE)
  one <- risk_match(original, masked, known = c("x", "z"), unknown = "w", threads = 1)
  expect_identical(one$unknown_exact, FALSE)
  expect_false(any(grepl("predicted exactly", format(summary(one)))))
})
