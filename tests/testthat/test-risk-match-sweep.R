# The normaliser S(t) = sum_j p^A_j(t) p^U_j(t) of prob_true and prob_max for
# all targets at once (src/match_sweep.c): certified intervals against a plain
# R double loop, and risk_match()'s results against the exhaustive loop.

# The triangle expectation E[(1 - |y - Z| / D)_+], Z ~ N(m, s^2), in closed
# form from pnorm/dnorm (H(a) = a Phi(a) + phi(a)); on the side x <= 0, where
# the three terms do not cancel.
sweep_ref_g <- function(y, m, s, D) {
  x <- -abs((y - m) / s)
  d <- D / s
  H <- function(a) a * pnorm(a) + dnorm(a)
  (H(x + d) - 2 * H(x) + H(x - d)) / d
}

# The unnormalised scores of every record for one target, as methods vignette
# section 5 defines them (a plain R loop over the variables).
sweep_ref_scores <- function(Z, Y, t, m, s, D) {
  p <- rep(1, nrow(Z))
  for (v in seq_len(ncol(Z))) {
    dist <- abs(Z[, v] - t[v])
    far <- max(dist)
    if (far > min(dist)) p <- p * (1 - dist / far)
  }
  if (!is.null(Y) && D > 0) p <- p * sweep_ref_g(Y, m, s, D)
  p
}

# The intruder's regression by lm() (an independent route) and the spec of
# the C entries.
sweep_spec <- function(mk, my, tk, rows, threads = 1L) {
  n <- nrow(mk)
  if (is.null(my)) {
    return(list(masked_known = unname(mk), masked_unknown = matrix(0, n, 0L),
                unknown_sd = double(0), unknown_range = double(0),
                target_record = as.integer(rows - 1L), target_known = unname(tk),
                pred_mean = matrix(0, nrow(tk), 0L), threads = as.integer(threads)))
  }
  fit <- lm(my ~ mk)
  beta <- coef(fit)
  beta[is.na(beta)] <- 0
  list(masked_known = unname(mk), masked_unknown = unname(matrix(my)),
       unknown_sd = summary(fit)$sigma, unknown_range = diff(range(my)),
       target_record = as.integer(rows - 1L), target_known = unname(tk),
       pred_mean = unname(matrix(cbind(1, tk) %*% beta)), threads = as.integer(threads))
}

sweep_ref_S <- function(spec) {
  my <- if (ncol(spec$masked_unknown)) spec$masked_unknown[, 1] else NULL
  vapply(seq_along(spec$target_record), function(i) {
    m <- if (is.null(my)) 0 else spec$pred_mean[i, 1]
    s <- if (is.null(my)) 0 else spec$unknown_sd
    D <- if (is.null(my)) 0 else spec$unknown_range
    # sum() accumulates in long double: the reference's own rounding is
    # far below the intervals' widths
    sum(sweep_ref_scores(spec$masked_known, my, spec$target_known[i, ], m, s, D))
  }, double(1))
}

# Data of k known and u unknown variables of one kind.
sweep_data <- function(n, k, u, kind, seed) {
  set.seed(seed)
  Z <- matrix(rnorm(n * k), n, k)
  Y <- if (u) drop(Z %*% seq_len(k)) / k + rnorm(n) else NULL
  mk <- Z + matrix(rnorm(n * k, sd = 0.3), n, k)
  my <- if (u) Y + rnorm(n, sd = 0.3) else NULL
  if (kind == "ties") {
    mk <- round(mk, 1)
    if (u) my <- round(my, 1)
    Z <- round(Z, 1)
  }
  if (kind == "duplicates") {
    dup <- sample(n, n %/% 2, replace = TRUE)
    mk[seq_along(dup), ] <- mk[dup, ]
    if (u) my[seq_along(dup)] <- my[dup]
  }
  if (kind == "constant") mk[, k] <- 2.5
  list(Z = Z, mk = mk, my = my)
}

test_that("the sweep's certified interval holds the exact normaliser (k = 1, 2, 3, 4; u = 0, 1)", {
  seed <- 0
  for (kind in c("plain", "ties", "duplicates", "constant")) for (k in 1:4) for (u in 0:1) {
    if (kind == "constant" && k == 1) next # a release with no varying known column
    # (k = 4 on seeds of its own: those of k <= 3 stay as they were)
    seed <- seed + (k < 4)
    n <- 700
    dat <- sweep_data(n, k, u, kind, if (k == 4) seed + 5000 else seed)
    rows <- sort(sample(n, 60))
    tk <- dat$Z[rows, , drop = FALSE]
    # targets on records' coordinates (ties with z) and outside the data
    tk[1, ] <- dat$mk[rows[1], ]
    tk[2, ] <- apply(dat$mk, 2, max) + 0.5
    spec <- sweep_spec(dat$mk, dat$my, tk, rows)
    sw <- .Call(epimask:::C_risk_match_sweep, spec)
    exact <- sweep_ref_S(spec)
    info <- sprintf("%s k = %d u = %d", kind, k, u)
    expect_true(all(abs(sw$estimate - exact) <= sw$error), info = info)
    expect_true(all(sw$error <= 1e-6 * (sw$estimate - sw$error)), info = info)
    # without the unknown the sum is a polynomial: only rounding is left (a
    # bound that grows with the 2^k x 2^k part coefficients and with S
    # smaller against the counts: about 5e-11 relative at k = 3 here, 2e-9
    # at k = 4 with its 16 x 16 coefficients and two nested trees)
    bound <- c(1e-11, 1e-11, 1e-9, 1e-8)[k]
    if (u == 0) expect_true(all(sw$error <= bound * sw$estimate), info = info)
  }
})

test_that("a target whose mean sits on a bin edge, records on edges", {
  for (k in 2:4) {
  dat <- sweep_data(900, k, 1, "ties", 41)
  rows <- 1:40
  spec <- sweep_spec(dat$mk, dat$my, dat$Z[rows, ], rows)
  rng <- range(dat$my)
  bins <- ceiling(diff(rng) / (2 * spec$unknown_sd))
  width <- diff(rng) / bins
  # means exactly on the edges (and beyond the ends of the range)
  spec$pred_mean[seq_len(bins + 1), 1] <- rng[1] + (0:bins) * width
  spec$pred_mean[bins + 2, 1] <- rng[2] + 7 * spec$unknown_sd
  # records exactly on an inner edge
  spec$masked_unknown[1:30, 1] <- rng[1] + width
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_identical(sw$bins, as.integer(bins))
  exact <- sweep_ref_S(spec)
  expect_true(all(abs(sw$estimate - exact) <= sw$error))
  # (the target 7 SDs beyond the range may be left to the walk)
  inner <- -(bins + 2)
  expect_true(all(sw$error[inner] <= 1e-6 * (sw$estimate[inner] - sw$error[inner])))
  }
})

test_that("a small residual SD gives many bins and stays certified; a tiny one is swept as the triangle", {
  dat <- sweep_data(800, 2, 1, "plain", 5)
  rows <- seq(1, 800, by = 20)
  spec <- sweep_spec(dat$mk, dat$my, dat$Z[rows, ], rows)
  # 100 bins of two SDs over the range
  spec$unknown_sd <- spec$unknown_range / 199
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_identical(sw$bins, 100L)
  exact <- sweep_ref_S(spec)
  expect_true(all(abs(sw$estimate - exact) <= sw$error))
  # beyond 2^20 bins (or sigma = 0) the unknown is swept as the exact
  # triangle, its difference from the smoothed factor in the bound
  # (test-risk-match-sharp.R)
  spec$unknown_sd <- spec$unknown_range / (2 * 2^20 + 1)
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_equal(sw$sharp, 1)
  expect_true(all(abs(sw$estimate - sweep_ref_S(spec)) <= sw$error))
  spec$unknown_sd <- 0
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_equal(sw$sharp, 1)
  triangle <- vapply(seq_along(rows), function(i) {
    p <- sweep_ref_scores(spec$masked_known, NULL, spec$target_known[i, ], 0, 0, 0)
    sum(p * pmax(0, 1 - abs(spec$masked_unknown[, 1] - spec$pred_mean[i, 1]) /
                   spec$unknown_range))
  }, double(1))
  expect_true(all(abs(sw$estimate - triangle) <= sw$error))
})

test_that("small residual SDs (300 to 3000 bins): low order far from the kinks, still certified", {
  seed <- 300
  # k = 3: the segment tree of the 3-d dominance sums runs on every block,
  # with the block's targets as its queries; k = 4: the four 3-d sums and the
  # 4-d one (a segment tree whose canonical nodes run the 3-d structure)
  for (bins in c(300, 1000, 3000)) for (kind in c("plain", "ties", "duplicates")) for (k in 1:4) {
    seed <- seed + (k < 4)
    n <- 900
    dat <- sweep_data(n, k, 1, kind, if (k == 4) seed + 5000 else seed)
    rows <- sort(sample(n, 50))
    tk <- dat$Z[rows, , drop = FALSE]
    tk[1, ] <- dat$mk[rows[1], ]
    tk[2, ] <- apply(dat$mk, 2, max) + 0.5
    spec <- sweep_spec(dat$mk, dat$my, tk, rows)
    # the residual SD that gives `bins` fine bins of two SDs
    spec$unknown_sd <- spec$unknown_range / (2 * bins - 1)
    rng <- range(spec$masked_unknown)
    width <- diff(rng) / bins
    # means on bin edges, on records, outside the data (near and far)
    spec$pred_mean[3:8, 1] <- rng[1] + c(0, 1, 17, bins %/% 2, bins - 1, bins) * width
    spec$pred_mean[9, 1] <- spec$masked_unknown[rows[9], 1]
    spec$pred_mean[10, 1] <- rng[2] + 3 * spec$unknown_sd
    spec$pred_mean[11, 1] <- rng[1] - 0.3 * diff(rng)
    # records exactly on an inner edge
    spec$masked_unknown[1:20, 1] <- rng[1] + 5 * width
    sw <- .Call(epimask:::C_risk_match_sweep, spec)
    info <- sprintf("%d bins, %s, k = %d", bins, kind, k)
    expect_identical(sw$bins, as.integer(bins), info = info)
    exact <- sweep_ref_S(spec)
    expect_true(all(abs(sw$estimate - exact) <= sw$error), info = info)
    expect_true(all(sw$error <= 1e-6 * (sw$estimate - sw$error)), info = info)
  }
})

# risk_match()'s prob_true and prob_max from the R loop's scores.
sweep_ref_probs <- function(spec) {
  my <- if (ncol(spec$masked_unknown)) spec$masked_unknown[, 1] else NULL
  t(vapply(seq_along(spec$target_record), function(i) {
    sc <- sweep_ref_scores(spec$masked_known, my, spec$target_known[i, ],
                           if (is.null(my)) 0 else spec$pred_mean[i, 1],
                           if (is.null(my)) 0 else spec$unknown_sd,
                           if (is.null(my)) 0 else spec$unknown_range)
    c(sc[spec$target_record[i] + 1] / sum(sc), max(sc) / sum(sc))
  }, double(2)))
}

test_that("risk_match() by the sweep: prob_true, prob_max within prob_tol of the R loop, c and I the loop's", {
  seed <- 100
  for (kind in c("plain", "ties", "duplicates", "constant")) for (k in 1:4) for (u in 0:1) {
    if (kind == "constant" && k == 1) next
    seed <- seed + (k < 4)
    n <- 2500
    dat <- sweep_data(n, k, u, kind, if (k == 4) seed + 5000 else seed)
    original <- as.data.frame(cbind(dat$Z, if (u) dat$my))
    names(original) <- c(paste0("k", seq_len(k)), if (u) "y")
    masked <- as.data.frame(cbind(dat$mk, if (u) dat$my))
    names(masked) <- names(original)
    known <- paste0("k", seq_len(k))
    unknown <- if (u) "y" else NULL
    rows <- seq(3, n, by = 41)
    info <- sprintf("%s k = %d u = %d", kind, k, u)
    tr <- risk_match(original, masked, known, unknown, targets = rows, method = "tree",
                     threads = 2)
    ex <- risk_match(original, masked, known, unknown, targets = rows,
                     method = "exhaustive", threads = 1)
    expect_identical(tr$per_target$c, ex$per_target$c, info = info)
    expect_identical(tr$per_target$I, ex$per_target$I, info = info)
    ref <- sweep_ref_probs(sweep_spec(dat$mk, dat$my, dat$Z[rows, , drop = FALSE], rows))
    expect_true(all(abs(tr$per_target$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
    expect_true(all(abs(tr$per_target$prob_max / ref[, 2] - 1) <= 1e-6), info = info)
    # and against the exact sum of the C loop
    expect_true(all(abs(tr$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6),
                info = info)
  }
})

# The spec of C_risk_match (search, sweep, walk) for 3000 records with k
# known variables and 1 unknown, 60 targets.
sweep_walk_spec <- function(k, seed) {
  dat <- sweep_data(3000, k, 1, "plain", seed)
  rows <- seq(1, 3000, by = 50)
  spec <- sweep_spec(dat$mk, dat$my, dat$Z[rows, ], rows, threads = 2L)
  spec$method <- 1L
  spec["index"] <- list(NULL)
  spec$sweep <- 1L
  spec
}

test_that("targets the sweep cannot certify go to the per-target walk (k = 2, 3, 4)", {
  for (k in 2:4) {
    info <- sprintf("k = %d", k)
    spec <- sweep_walk_spec(k, c(7, 17, 27)[k - 1])
    rows <- spec$target_record + 1L
    ref <- sweep_ref_probs(spec)
    # prob_tol = 1e-6: all certified by the sweep
    spec$prob_tol <- 1e-6
    swept <- .Call(epimask:::C_risk_match, spec)
    expect_identical(swept$walked, 0, info = info)
    expect_true(all(abs(swept$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
    expect_true(all(abs(swept$prob_max / ref[, 2] - 1) <= 1e-6), info = info)
    # a tolerance below the sweep's bounds (about 1e-8 here): every target walks
    spec$prob_tol <- 1e-10
    fine <- .Call(epimask:::C_risk_match, spec)
    expect_identical(fine$walked, as.double(length(rows)), info = info)
    expect_true(all(abs(fine$prob_true / ref[, 1] - 1) <= 1e-10 + 1e-13), info = info)
    expect_true(all(abs(fine$prob_max / ref[, 2] - 1) <= 1e-10 + 1e-13), info = info)
    # a target whose mean is far from every record: its sum is tiny against the
    # rounding margins, so it walks; the others stay with the sweep
    spec$prob_tol <- 1e-6
    spec$pred_mean[1, 1] <- max(spec$masked_unknown) + 40 * spec$unknown_sd
    far <- .Call(epimask:::C_risk_match, spec)
    expect_identical(far$walked, 1, info = info)
    expect_identical(far$c[-1], swept$c[-1], info = info)
    expect_identical(far$I[-1], swept$I[-1], info = info)
    expect_identical(far$prob_true[-1], swept$prob_true[-1], info = info)
    ref_far <- sweep_ref_probs(spec)
    ok <- ref_far[, 1] > 0
    expect_true(all(abs(far$prob_true[ok] / ref_far[ok, 1] - 1) <= 1e-6), info = info)
    # from 5 per cent on the walk is the cheaper route: no sweep
    spec$prob_tol <- 0.05
    expect_identical(.Call(epimask:::C_risk_match, spec)$walked, as.double(length(rows)),
                     info = info)
  }
})

test_that("the sweep gives the same object for any threads and any chunking of targets", {
  rel <- local({
    sim <- as.data.frame(simulate_zdl(1, n = 4000, seed = 3))[, c("s1", "s2", "x", "y")]
    sch <- mask_kernel("ring", 0.001, as.matrix(sim[, c("s1", "s2")]), source = c(0, 0))
    masked <- apply_mask(sim, sch, vars = c("s1", "x", "y"))
    # a fourth known column, noise-masked
    set.seed(31)
    sim$w <- 0.5 * sim$x + rnorm(4000)
    masked$w <- sim$w + rnorm(4000, sd = 0.3)
    list(sim = sim, masked = masked)
  })
  tg <- seq(2, 4000, by = 3)
  old <- options(progressr.enable = FALSE, epimask.match_sweep = TRUE)
  on.exit(options(old), add = TRUE)
  for (known in list(c("x", "s1"), c("x", "s1", "s2"), c("x", "s1", "s2", "w"))) {
    info <- paste(known, collapse = ", ")
    options(epimask.match_sweep = TRUE)
    one <- risk_match(rel$sim, rel$masked, known, "y", targets = tg, threads = 1)
    two <- risk_match(rel$sim, rel$masked, known, "y", targets = tg, threads = 2)
    expect_identical(one, two, info = info)
    # chunks run one by one with a shared index (the progress route)
    chunked <- risk_match(rel$sim, rel$masked, known, "y", targets = tg, threads = 2,
                          progress = TRUE)
    expect_identical(chunked, one, info = info)
    # and targets split by hand, and in another order
    a <- risk_match(rel$sim, rel$masked, known, "y", targets = tg[1:100], threads = 1)
    b <- risk_match(rel$sim, rel$masked, known, "y", targets = tg[-(1:100)], threads = 2)
    expect_identical(c(a$per_target$prob_true, b$per_target$prob_true),
                     one$per_target$prob_true, info = info)
    expect_identical(c(a$per_target$prob_max, b$per_target$prob_max), one$per_target$prob_max,
                     info = info)
    r <- risk_match(rel$sim, rel$masked, known, "y", targets = rev(tg), threads = 2)
    expect_identical(rev(r$per_target$prob_true), one$per_target$prob_true, info = info)
    # the exhaustive loop: c and I identical, probabilities within prob_tol
    ex <- risk_match(rel$sim, rel$masked, known, "y", targets = tg, method = "exhaustive")
    expect_identical(one$per_target$c, ex$per_target$c, info = info)
    expect_identical(one$per_target$I, ex$per_target$I, info = info)
    expect_true(all(abs(one$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6),
                info = info)
    expect_true(all(abs(one$per_target$prob_max / ex$per_target$prob_max - 1) <= 1e-6),
                info = info)
    # the walk alone (the former route) agrees within prob_tol
    options(epimask.match_sweep = FALSE)
    walk <- risk_match(rel$sim, rel$masked, known, "y", targets = tg)
    expect_identical(walk$per_target$c, one$per_target$c, info = info)
    expect_true(all(abs(walk$per_target$prob_true / one$per_target$prob_true - 1) <= 2e-6),
                info = info)
  }
  options(epimask.match_sweep = "yes")
  expect_error(risk_match(rel$sim, rel$masked, c("x", "s1"), "y", targets = 1:3),
               "epimask.match_sweep", class = "epimask_error_value")
})

# risk_match()'s result by the sweep `tr` against the C loop's `ex` (c, I
# identical) and the R loop's probabilities `ref`, within 1e-6.
sweep_check_match <- function(tr, ex, ref, info) {
  expect_identical(tr$per_target$c, ex$per_target$c, info = info)
  expect_identical(tr$per_target$I, ex$per_target$I, info = info)
  expect_true(all(abs(tr$per_target$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
  expect_true(all(abs(tr$per_target$prob_max / ref[, 2] - 1) <= 1e-6), info = info)
  expect_true(all(abs(tr$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6),
              info = info)
}

# The C entry at prob_tol = 1e-6 (no target walks) and at `fine_tol`, below
# the sweep's bounds (every target walks), against the reference probabilities.
sweep_check_walk <- function(spec, ref, fine_tol) {
  spec$method <- 1L
  spec["index"] <- list(NULL)
  spec$sweep <- 1L
  spec$prob_tol <- 1e-6
  swept <- .Call(epimask:::C_risk_match, spec)
  expect_identical(swept$walked, 0)
  expect_true(all(abs(swept$prob_true / ref[, 1] - 1) <= 1e-6))
  spec$prob_tol <- fine_tol
  fine <- .Call(epimask:::C_risk_match, spec)
  expect_identical(fine$walked, as.double(length(spec$target_record)))
  expect_true(all(abs(fine$prob_true / ref[, 1] - 1) <= fine_tol + 1e-13))
}

# The same object for threads 1 and 2, progress chunks and targets split by
# hand (the first `split` apart).
sweep_check_same <- function(original, masked, known, unknown, tg, split, ...) {
  call <- function(targets, threads, progress = FALSE)
    risk_match(original, masked, known, unknown, targets = targets, threads = threads,
               progress = progress, ...)
  one <- call(tg, 1)
  expect_identical(call(tg, 2), one)
  old <- options(progressr.enable = FALSE)
  on.exit(options(old), add = TRUE)
  expect_identical(call(tg, 2, progress = TRUE), one)
  a <- call(tg[seq_len(split)], 1)
  b <- call(tg[-seq_len(split)], 2)
  expect_identical(c(a$per_target$prob_true, b$per_target$prob_true), one$per_target$prob_true)
  expect_identical(c(a$per_target$prob_max, b$per_target$prob_max), one$per_target$prob_max)
}

# A release whose unknown is nearly a linear function of the knowns: the
# intruder's residual SD gives about `bins` fine bins of two SDs.
sweep_small_sd <- function(n, k, bins, seed, ties = FALSE) {
  set.seed(seed)
  s <- 15 / (2 * bins)
  Z <- matrix(runif(n * k), n, k)
  y <- drop(Z %*% c(10, 5, 3, 4)[seq_len(k)]) + rnorm(n, sd = 0.8 * s)
  mk <- Z + matrix(rnorm(n * k, sd = s / 40), n, k)
  my <- y + rnorm(n, sd = s / 2)
  if (ties) {
    mk <- round(mk, 3)
    my <- round(my, 2)
  }
  original <- as.data.frame(cbind(Z, y))
  names(original) <- c(paste0("k", seq_len(k)), "y")
  masked <- as.data.frame(cbind(mk, my))
  names(masked) <- names(original)
  list(original = original, masked = masked, Z = Z, mk = mk, my = my)
}

test_that("risk_match() with a small residual SD: the sweep within prob_tol of the R loop and the C loop", {
  seed <- 500
  for (bins in c(300, 3000)) for (k in 1:4) for (ties in c(FALSE, TRUE)) {
    seed <- seed + (k < 4)
    n <- 2000
    d <- sweep_small_sd(n, k, bins, if (k == 4) seed + 5000 else seed, ties)
    known <- paste0("k", seq_len(k))
    rows <- seq(2, n, by = 37)
    info <- sprintf("%d bins, k = %d, ties %s", bins, k, ties)
    tr <- risk_match(d$original, d$masked, known, "y", targets = rows, threads = 2)
    # the default call computed the probabilities (the sweep applies)
    expect_false(anyNA(tr$per_target$prob_true), info = info)
    expect_gt(ceiling(diff(range(d$my)) / (2 * tr$sigma)), 128)
    ex <- risk_match(d$original, d$masked, known, "y", targets = rows,
                     method = "exhaustive", threads = 1)
    ref <- sweep_ref_probs(sweep_spec(d$mk, d$my, d$Z[rows, , drop = FALSE], rows))
    sweep_check_match(tr, ex, ref, info)
  }
})

test_that("a small residual SD: every target certified by the sweep; below its bounds, the walk", {
  d <- sweep_small_sd(3000, 2, 2000, 77)
  rows <- seq(1, 3000, by = 50)
  spec <- sweep_spec(d$mk, d$my, d$Z[rows, ], rows, threads = 2L)
  sweep_check_walk(spec, sweep_ref_probs(spec), 1e-13)
})

test_that("a small residual SD: the same object for any threads and chunking", {
  d <- sweep_small_sd(4000, 2, 1500, 9)
  sweep_check_same(d$original, d$masked, c("k1", "k2"), "y", seq(2, 4000, by = 3), 100)
  d <- sweep_small_sd(3000, 3, 1500, 10)
  sweep_check_same(d$original, d$masked, c("k1", "k2", "k3"), "y", seq(2, 3000, by = 4), 90)
  d <- sweep_small_sd(3000, 4, 1500, 12)
  sweep_check_same(d$original, d$masked, paste0("k", 1:4), "y", seq(2, 3000, by = 4), 90)
})

# Two unknown variables: the spec (one lm() per unknown) and the exact
# normaliser of the R loop (the product of the two closed-form factors).
sweep_spec2 <- function(mk, Y, tk, rows, threads = 1L) {
  sds <- rngs <- double(ncol(Y))
  pm <- matrix(0, nrow(tk), ncol(Y))
  for (q in seq_len(ncol(Y))) {
    fit <- lm(Y[, q] ~ mk)
    beta <- coef(fit)
    beta[is.na(beta)] <- 0
    sds[q] <- summary(fit)$sigma
    rngs[q] <- diff(range(Y[, q]))
    pm[, q] <- cbind(1, tk) %*% beta
  }
  list(masked_known = unname(mk), masked_unknown = unname(Y), unknown_sd = sds,
       unknown_range = rngs, target_record = as.integer(rows - 1L), target_known = unname(tk),
       pred_mean = unname(pm), threads = as.integer(threads))
}
sweep_ref_scores2 <- function(spec, i) {
  p <- sweep_ref_scores(spec$masked_known, NULL, spec$target_known[i, ], 0, 0, 0)
  for (q in seq_len(ncol(spec$masked_unknown)))
    if (spec$unknown_range[q] > 0)
      p <- p * sweep_ref_g(spec$masked_unknown[, q], spec$pred_mean[i, q], spec$unknown_sd[q],
                           spec$unknown_range[q])
  p
}
sweep_ref_S2 <- function(spec)
  vapply(seq_along(spec$target_record), function(i) sum(sweep_ref_scores2(spec, i)), double(1))
sweep_ref_probs2 <- function(spec) {
  t(vapply(seq_along(spec$target_record), function(i) {
    sc <- sweep_ref_scores2(spec, i)
    c(sc[spec$target_record[i] + 1] / sum(sc), max(sc) / sum(sc))
  }, double(2)))
}
sweep_data2 <- function(n, k, kind, seed, noise = 1) {
  set.seed(seed)
  Z <- matrix(rnorm(n * k), n, k)
  Y <- cbind(drop(Z %*% seq_len(k)) + rnorm(n, sd = noise),
             exp(Z[, 1] / 2) + rnorm(n, sd = 2 * noise))
  mk <- Z + matrix(rnorm(n * k, sd = 0.3 * noise), n, k)
  my <- Y + matrix(rnorm(2 * n, sd = 0.3 * noise), n, 2)
  if (kind == "ties") {
    mk <- round(mk, 1)
    my <- round(my, 1)
    Z <- round(Z, 1)
  }
  if (kind == "duplicates") {
    dup <- sample(n, n %/% 2, replace = TRUE)
    mk[seq_along(dup), ] <- mk[dup, ]
    my[seq_along(dup), ] <- my[dup, ]
  }
  list(Z = Z, mk = mk, my = my)
}

test_that("two unknowns: the certified interval holds the exact normaliser", {
  seed <- 700
  for (kind in c("plain", "ties", "duplicates")) for (k in 1:2) for (noise in c(1, 0.05)) {
    seed <- seed + 1
    n <- 900
    dat <- sweep_data2(n, k, kind, seed, noise)
    rows <- sort(sample(n, 50))
    tk <- dat$Z[rows, , drop = FALSE]
    tk[1, ] <- dat$mk[rows[1], ]
    tk[2, ] <- apply(dat$mk, 2, max) + 0.5
    spec <- sweep_spec2(dat$mk, dat$my, tk, rows)
    # means on the first bin edges, on records and outside the data
    for (q in 1:2) {
      rng <- range(spec$masked_unknown[, q])
      bins <- ceiling(diff(rng) / (2 * spec$unknown_sd[q]))
      spec$pred_mean[3:5, q] <- rng[1] + c(0, 1, bins) * diff(rng) / bins
      spec$pred_mean[6, q] <- spec$masked_unknown[rows[6], q]
      spec$pred_mean[7, q] <- rng[2] + 3 * spec$unknown_sd[q]
      spec$pred_mean[8, q] <- rng[1] - 0.4 * diff(rng)
    }
    sw <- .Call(epimask:::C_risk_match_sweep, spec)
    info <- sprintf("%s k = %d noise %g (%d bins)", kind, k, noise, sw$bins)
    expect_false(is.null(sw$estimate), info = info)
    exact <- sweep_ref_S2(spec)
    expect_true(all(abs(sw$estimate - exact) <= sw$error), info = info)
    expect_true(all(sw$error <= 1e-6 * (sw$estimate - sw$error)), info = info)
  }
  # a small noise gives many bins (their product is the count)
  expect_gt(sw$bins, 300)
  # an unknown without spread in the data is the factor 1
  spec$masked_unknown[, 2] <- 1.5
  spec$unknown_range[2] <- 0
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  exact <- sweep_ref_S2(spec)
  expect_true(all(abs(sw$estimate - exact) <= sw$error))
  # beyond 2^20 bins in all the sweep does not apply
  spec <- sweep_spec2(dat$mk, dat$my, tk, rows)
  spec$unknown_sd <- spec$unknown_range / 2049
  expect_null(.Call(epimask:::C_risk_match_sweep, spec)$estimate)
  # a residual SD of 0: that unknown is swept as the triangle itself (one more
  # coordinate), the other by its bins
  spec$unknown_sd <- c(spec$unknown_range[1] / 20, 0)
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_identical(sw$sharp, 1L)
  expect_identical(sw$bins, as.integer(ceiling(spec$unknown_range[1] / (2 * spec$unknown_sd[1]))))
  exact <- vapply(seq_along(rows), function(i) {
    p <- sweep_ref_scores(spec$masked_known, NULL, spec$target_known[i, ], 0, 0, 0)
    y <- spec$masked_unknown
    sum(p * sweep_ref_g(y[, 1], spec$pred_mean[i, 1], spec$unknown_sd[1], spec$unknown_range[1]) *
          pmax(0, 1 - abs(y[, 2] - spec$pred_mean[i, 2]) / spec$unknown_range[2]))
  }, double(1))
  expect_true(all(abs(sw$estimate - exact) <= sw$error))
  expect_true(all(sw$error <= 1e-6 * (sw$estimate - sw$error)))
  # three known variables with two unknowns: not swept (8 x 169 moments per
  # record); risk_match() takes the walk and stays within prob_tol of the loop
  dat <- sweep_data2(600, 3, "plain", 790)
  rows <- seq(3, 600, by = 40)
  spec <- sweep_spec2(dat$mk, dat$my, dat$Z[rows, ], rows)
  expect_null(.Call(epimask:::C_risk_match_sweep, spec)$estimate)
  original <- as.data.frame(cbind(dat$Z, dat$my))
  masked <- as.data.frame(cbind(dat$mk, dat$my))
  names(original) <- names(masked) <- c("k1", "k2", "k3", "y1", "y2")
  tr <- risk_match(original, masked, c("k1", "k2", "k3"), c("y1", "y2"), targets = rows,
                   method = "tree", prob_tol = 1e-6, threads = 1)
  ref <- sweep_ref_probs2(spec)
  expect_true(all(abs(tr$per_target$prob_true / ref[, 1] - 1) <= 1e-6))
})

test_that("two unknowns: risk_match() by the sweep within prob_tol of the R loop and the C loop", {
  seed <- 800
  for (kind in c("plain", "ties")) for (k in 1:2) {
    seed <- seed + 1
    n <- 2000
    dat <- sweep_data2(n, k, kind, seed)
    original <- as.data.frame(cbind(dat$Z, dat$my))
    names(original) <- c(paste0("k", seq_len(k)), "y1", "y2")
    masked <- as.data.frame(cbind(dat$mk, dat$my))
    names(masked) <- names(original)
    known <- paste0("k", seq_len(k))
    rows <- seq(3, n, by = 41)
    info <- sprintf("%s k = %d", kind, k)
    tr <- risk_match(original, masked, known, c("y1", "y2"), targets = rows, threads = 2)
    ex <- risk_match(original, masked, known, c("y1", "y2"), targets = rows,
                     method = "exhaustive", threads = 1)
    ref <- sweep_ref_probs2(sweep_spec2(dat$mk, dat$my, dat$Z[rows, , drop = FALSE], rows))
    sweep_check_match(tr, ex, ref, info)
  }
})

test_that("two unknowns: the walk for what the sweep cannot certify; same object for threads and chunks", {
  dat <- sweep_data2(3000, 2, "plain", 9)
  rows <- seq(1, 3000, by = 50)
  spec <- sweep_spec2(dat$mk, dat$my, dat$Z[rows, ], rows, threads = 2L)
  sweep_check_walk(spec, sweep_ref_probs2(spec), 1e-10)
  original <- as.data.frame(cbind(dat$Z, dat$my))
  names(original) <- c("k1", "k2", "y1", "y2")
  masked <- as.data.frame(cbind(dat$mk, dat$my))
  names(masked) <- names(original)
  sweep_check_same(original, masked, c("k1", "k2"), c("y1", "y2"), seq(2, 3000, by = 4), 90,
                   prob_tol = 1e-6)
})

test_that("two unknowns: a default call past the pair limit gives the rates and says what asking costs", {
  dat <- sweep_data2(1500, 2, "plain", 13)
  original <- as.data.frame(cbind(dat$Z, dat$my))
  names(original) <- c("k1", "k2", "y1", "y2")
  masked <- as.data.frame(cbind(dat$mk, dat$my))
  names(masked) <- names(original)
  tg <- seq(1, 1500, by = 7)
  old <- options(epimask.match_prob_pairs = 1e4)
  on.exit(options(old), add = TRUE)
  expect_message(rates <- risk_match(original, masked, c("k1", "k2"), c("y1", "y2"),
                                     targets = tg, method = "tree"),
                 "two unknown variables", class = "epimask_message_probs_skipped")
  expect_true(all(is.na(rates$per_target$prob_true)))
  expect_identical(rates$prob_tol, NA_real_)
  # prob_tol given: the sweep computes them, the same c and I
  expect_silent(asked <- risk_match(original, masked, c("k1", "k2"), c("y1", "y2"),
                                    targets = tg, prob_tol = 1e-6, method = "tree"))
  expect_identical(asked$per_target$c, rates$per_target$c)
  expect_identical(asked$per_target$I, rates$per_target$I)
  ref <- sweep_ref_probs2(sweep_spec2(dat$mk, dat$my, dat$Z[tg, ], tg))
  expect_true(all(abs(asked$per_target$prob_true / ref[, 1] - 1) <= 1e-6))
  # under the limit the default call computes them
  options(epimask.match_prob_pairs = 1e9)
  expect_silent(under <- risk_match(original, masked, c("k1", "k2"), c("y1", "y2"),
                                    targets = tg, method = "tree"))
  expect_identical(under, asked)
})
