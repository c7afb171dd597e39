# Exact ("sharp") unknowns in the sweep of the normaliser S(t) = sum_j
# p^A_j(t) p^U_j(t) (src/match_sweep.c, issue 28): an unknown whose
# intruder's residual SD sigma is 0, or so small that its range over 2 sigma
# exceeds 2^20 fine bins, is swept as the plain triangle (1 - |y - m| /
# Delta)_+, one more known-like coordinate, and the difference from the
# intruder's smoothed factor is added to the certified bound. Certified
# intervals against a plain R loop, risk_match() against the exhaustive loop.

# The unknown factor of one record as methods vignette section 5 defines it:
# 1 without spread (Delta = 0); the triangle itself for a point-mass
# predictive law (sigma = 0); else E[(1 - |y - Z| / D)_+], Z ~ N(m, s^2), in
# closed form from pnorm/dnorm (H(a) = a Phi(a) + phi(a)) on the side x <= 0,
# where the three terms do not cancel.
sharp_ref_factor <- function(y, m, s, D) {
  if (D == 0) return(rep(1, length(y)))
  if (s == 0) return(pmax(0, 1 - abs(y - m) / D))
  x <- -abs((y - m) / s)
  d <- D / s
  H <- function(a) a * pnorm(a) + dnorm(a)
  (H(x + d) - 2 * H(x) + H(x - d)) / d
}

# The unnormalised scores of every record for target i (a plain R loop over
# the known variables, then the unknowns' factors).
sharp_ref_scores <- function(spec, i) {
  Z <- spec$masked_known
  t <- spec$target_known[i, ]
  p <- rep(1, nrow(Z))
  for (v in seq_len(ncol(Z))) {
    dist <- abs(Z[, v] - t[v])
    far <- max(dist)
    if (far > min(dist)) p <- p * (1 - dist / far)
  }
  for (q in seq_len(ncol(spec$masked_unknown)))
    p <- p * sharp_ref_factor(spec$masked_unknown[, q], spec$pred_mean[i, q],
                              spec$unknown_sd[q], spec$unknown_range[q])
  p
}
# sum() accumulates in long double: the reference's own rounding is far below
# the intervals' widths
sharp_ref_S <- function(spec)
  vapply(seq_along(spec$target_record), function(i) sum(sharp_ref_scores(spec, i)), double(1))
sharp_ref_probs <- function(spec) {
  t(vapply(seq_along(spec$target_record), function(i) {
    sc <- sharp_ref_scores(spec, i)
    c(sc[spec$target_record[i] + 1] / sum(sc), max(sc) / sum(sc))
  }, double(2)))
}

# The spec of the C entries, the intruder's regressions by lm() (an
# independent route; an exact fit warns that its summary may be unreliable,
# which is the case under test).
sharp_spec <- function(mk, Y, tk, rows, threads = 1L) {
  sds <- rngs <- double(ncol(Y))
  pm <- matrix(0, nrow(tk), ncol(Y))
  for (q in seq_len(ncol(Y))) {
    fit <- lm(Y[, q] ~ mk)
    beta <- coef(fit)
    beta[is.na(beta)] <- 0
    sds[q] <- suppressWarnings(summary(fit)$sigma)
    rngs[q] <- diff(range(Y[, q]))
    pm[, q] <- cbind(1, tk) %*% beta
  }
  list(masked_known = unname(mk), masked_unknown = unname(Y), unknown_sd = sds,
       unknown_range = rngs, target_record = as.integer(rows - 1L), target_known = unname(tk),
       pred_mean = unname(pm), threads = as.integer(threads))
}

# k known variables (noise-masked) and unknowns of two kinds: "s" an exact
# linear function of the released known values (the intruder's regression
# fits exactly), "g" a noisy function of the original ones. Ties: the
# released known values rounded (the exact unknowns follow, so they tie too);
# duplicates: half the records copies of others.
sharp_data <- function(n, k, unknowns, kind, seed) {
  set.seed(seed)
  Z <- matrix(rnorm(n * k), n, k)
  mk <- Z + matrix(rnorm(n * k, sd = 0.3), n, k)
  if (kind == "ties") {
    mk <- round(mk, 1)
    Z <- round(Z, 1)
  }
  if (kind == "duplicates") {
    dup <- sample(n, n %/% 2, replace = TRUE)
    mk[seq_along(dup), ] <- mk[dup, , drop = FALSE]
  }
  smooth <- exp(Z[, 1] / 2) + rnorm(n, sd = 0.5) + rnorm(n, sd = 0.3)
  if (kind == "duplicates") smooth[seq_along(dup)] <- smooth[dup]
  if (kind == "ties") smooth <- round(smooth, 1)
  Y <- vapply(seq_along(unknowns), function(q) {
    if (unknowns[q] == "g") return(smooth)
    drop(mk %*% ((-1)^q * seq_len(k) / k)) + 0.5 * q
  }, double(n))
  list(Z = Z, mk = mk, Y = matrix(Y, n, length(unknowns)))
}

# The residual SDs under test for an exact unknown of range D: a point mass,
# just past the 2^20 fine bins (range / (2 sigma) = 2^21), 1e-9 and 1e-13 of
# the range, and lm()'s (rounding level, or 0).
sharp_sigmas <- c("zero", "2^-22", "1e-9", "1e-13", "lm")
sharp_sigma <- function(what, D, lm_sd)
  switch(what, zero = 0, "2^-22" = D / 2^22, "1e-9" = D * 1e-9, "1e-13" = D * 1e-13, lm = lm_sd)

# Predicted means of the exact unknown q at every case of its kinks m - D, m,
# m + D against the data [ylo, yhi] (targets 3 to 12): on ylo and yhi,
# between ylo - D and ylo, between yhi and yhi + D, beyond ylo - D (every
# factor 0 for sigma = 0), on a record, a record on the kink m + D or m - D,
# exactly ylo - D and yhi + D; and records moved onto a kink.
sharp_means <- function(spec, q, rows) {
  y <- spec$masked_unknown[, q]
  lo <- min(y)
  hi <- max(y)
  D <- hi - lo
  ord <- order(y)
  mid <- ord[length(y) %/% 2]
  spec$pred_mean[3:12, q] <- c(lo, hi, lo - 0.3 * D, hi + 0.6 * D, lo - 1.5 * D, y[rows[8]],
                               y[mid] - D, y[mid] + D, lo - D, hi + D)
  # five records exactly on the kink m + D of target 5 and five on m - D of
  # target 6 (records of the inner quarters: the range stays)
  inner <- ord[length(y) %/% 4 + 0:9]
  spec$masked_unknown[inner[1:5], q] <- spec$pred_mean[5, q] + D
  spec$masked_unknown[inner[6:10], q] <- spec$pred_mean[6, q] - D
  stopifnot(min(spec$masked_unknown[, q]) == lo, max(spec$masked_unknown[, q]) == hi)
  spec
}

test_that("the closed-form reference is accurate at huge d (integrate()), and the bound of g - tri", {
  # g(y) - tri(y) = (1 / d) [psi(y + d) - 2 psi(y) + psi(y - d)] for m = 0,
  # sigma = 1, Delta = d (the triangle as d tri(y) = (y + d)_+ - 2 y_+ +
  # (y - d)_+), psi(a) = E[(a - Z)_+] - a_+ by numerical integration
  psi <- function(a) {
    if (abs(a) > 40) return(0)
    f <- function(w) (pmax(a - w, 0) - max(a, 0)) * dnorm(w)
    integrate(f, -Inf, a, rel.tol = 1e-12)$value + integrate(f, a, Inf, rel.tol = 1e-12)$value
  }
  for (d in c(2^22, 1e9, 2^40, 1e13, 1e15)) for (kink in c(-d, 0, d))
    for (e in c(-3, -0.7, 0, 0.25, 2.5)) {
      y <- kink + e
      tri <- max(0, 1 - abs(y) / d)
      truth <- tri + (psi(y + d) - 2 * psi(y) + psi(y - d)) / d
      expect_lte(abs(sharp_ref_factor(y, 0, 1, d) - truth), 4 * .Machine$double.eps)
    }
  # the sweep's bound: psi(a) = phi(a) - |a| Q(|a|), between 0 and phi(a), so
  # |g - tri| <= (1 / d) [psi(y + d) + 2 psi(y) + psi(y - d)]
  psi_closed <- function(a) dnorm(a) - abs(a) * pnorm(-abs(a))
  for (a in c(-30, -8, -2.5, -1, -0.3, 0, 0.3, 1, 2.5, 8, 30)) {
    expect_equal(psi(a), psi_closed(a), tolerance = 1e-9)
    expect_gte(psi_closed(a), 0)
    expect_lte(psi_closed(a), dnorm(a))
  }
  # at moderate d, where g - tri is computed accurately from the closed form:
  # the bound holds, and is nearly reached at the kink m
  for (d in c(3, 10, 100)) {
    y <- seq(-d - 5, d + 5, length.out = 2001)
    gap <- abs(sharp_ref_factor(y, 0, 1, d) - pmax(0, 1 - abs(y) / d))
    bound <- (psi_closed(y + d) + 2 * psi_closed(y) + psi_closed(y - d)) / d
    expect_true(all(gap <= bound * (1 + 1e-9) + 4 * .Machine$double.eps))
    expect_gt(max(gap[bound > 0] / bound[bound > 0]), 0.95)
  }
})

test_that("an exact unknown is swept as a triangle: the certified interval holds the exact S", {
  cases <- list(list(k = 1, u = "s"), list(k = 2, u = "s"), list(k = 3, u = "s"),
                list(k = 1, u = c("s", "g")), list(k = 2, u = c("s", "g")),
                list(k = 3, u = c("s", "g")), list(k = 1, u = c("s", "s")),
                list(k = 2, u = c("s", "s")))
  seed <- 2800
  for (cs in cases) for (kind in c("plain", "ties", "duplicates")) {
    seed <- seed + 1
    n <- 700
    dat <- sharp_data(n, cs$k, cs$u, kind, seed)
    rows <- sort(sample(n, 40))
    tk <- dat$Z[rows, , drop = FALSE]
    # targets on a record's coordinates and outside the data
    tk[1, ] <- dat$mk[rows[1], ]
    tk[2, ] <- apply(dat$mk, 2, max) + 0.5
    base <- sharp_spec(dat$mk, dat$Y, tk, rows)
    sharp <- which(cs$u == "s")
    for (q in sharp) base <- sharp_means(base, q, rows)
    for (what in sharp_sigmas) {
      spec <- base
      for (q in sharp)
        spec$unknown_sd[q] <- sharp_sigma(what, spec$unknown_range[q], base$unknown_sd[q])
      sw <- .Call(epimask:::C_risk_match_sweep, spec)
      info <- sprintf("%s k = %d unknowns %s sigma %s", kind, cs$k, paste(cs$u, collapse = ""),
                      what)
      expect_false(is.null(sw$estimate), info = info)
      if (is.null(sw$estimate)) next
      expect_equal(sw$sharp, length(sharp), info = info)
      smooth <- which(cs$u == "g")
      bins <- if (length(smooth))
        ceiling(spec$unknown_range[smooth] / (2 * spec$unknown_sd[smooth])) else 1
      expect_identical(sw$bins, as.integer(bins), info = info)
      exact <- sharp_ref_S(spec)
      expect_true(all(abs(sw$estimate - exact) <= sw$error), info = info)
      # a point mass or sigma <= 1e-9 of the range: certified to far below
      # 1e-6 wherever S is not negligible against the counts
      if (what != "2^-22") {
        ok <- exact > 1e-4 * n
        expect_gt(sum(ok), 20)
        expect_true(all(sw$error[ok] <= 1e-6 * (sw$estimate[ok] - sw$error[ok])), info = info)
      }
    }
  }
})

test_that("which releases the sweep takes with exact unknowns (known + exact <= 4, ...)", {
  # k known, the unknowns of `u` ("s" exact, sigma 0; "g" noisy), or an
  # unknown of no spread ("c", sigma 0: the factor 1, neither)
  sweep_of <- function(k, u, seed = 2900, sd = NULL) {
    dat <- sharp_data(500, k, sub("c", "s", u), "plain", seed)
    dat$Y[, u == "c"] <- 1.5
    rows <- seq(3, 500, by = 25)
    spec <- sharp_spec(dat$mk, dat$Y, dat$Z[rows, , drop = FALSE], rows)
    spec$unknown_sd[u %in% c("s", "c")] <- 0
    if (!is.null(sd)) spec$unknown_sd <- sd(spec$unknown_range)
    list(spec = spec, sw = .Call(epimask:::C_risk_match_sweep, spec))
  }
  applies <- function(k, u, sharp, ...) {
    r <- sweep_of(k, u, ...)
    info <- sprintf("k = %d unknowns %s", k, paste(u, collapse = ""))
    expect_false(is.null(r$sw$estimate), info = info)
    expect_equal(r$sw$sharp, sharp, info = info)
    expect_true(all(abs(r$sw$estimate - sharp_ref_S(r$spec)) <= r$sw$error), info = info)
    r
  }
  refused <- function(k, u, ...)
    expect_null(sweep_of(k, u, ...)$sw$estimate,
                label = sprintf("k = %d unknowns %s", k, paste(u, collapse = "")))
  # K' = known + exact <= 4
  applies(3, "s", 1)
  refused(4, "s")
  applies(2, c("s", "s"), 2)
  refused(3, c("s", "s"))
  # with K' >= 3 at most one other unknown; with K' <= 2 two
  applies(3, c("s", "g"), 1)
  applies(2, c("s", "g"), 1)
  refused(4, c("s", "g"))
  refused(3, c("g", "g"))
  applies(1, c("g", "g"), 0)
  # an unknown without spread is neither (its factor is 1): 4 known with it
  applies(4, "c", 0)
  applies(3, c("s", "c"), 1)
  # the limit of 2^20 fine bins: a residual SD of range / 2^21 gives exactly
  # 2^20 bins of 2 SDs, still smooth; just below it the unknown is exact
  r <- applies(2, "s", 0, sd = function(D) D / 2^21)
  expect_identical(r$sw$bins, 1048576L)
  r <- applies(2, "s", 1, sd = function(D) D / 2^21 * (1 - 1e-9))
  expect_identical(r$sw$bins, 1L)
  # the exact one does not count against the bins of the others: an exact
  # unknown beside one of 2^20 bins applies; two of 1025 bins (2^20 < 1025^2)
  # do not
  r <- applies(1, c("s", "g"), 1, sd = function(D) c(0, D[2] / 2^21))
  expect_identical(r$sw$bins, 1048576L)
  refused(1, c("g", "g"), sd = function(D) D / 2050)
  # 4 known with an unknown of 2^20 bins: not exact, swept
  r <- applies(4, "g", 0, sd = function(D) D / 2^21)
  expect_identical(r$sw$bins, 1048576L)
})

# A release whose unknown(s) the intruder predicts exactly from the released
# known values: real-valued (noise-masked known, y a linear function of the
# released values), or integers with an exact integer relation (y = 2 x1 - x2
# + 3 on integer x, the known values masked by integer noise); a second
# unknown "g" noisy, "s" another exact function.
sharp_release <- function(n, k, unknowns, integer, seed) {
  set.seed(seed)
  if (integer) {
    Z <- matrix(sample(0:40, n * k, replace = TRUE), n, k)
    mk <- Z + matrix(sample(-2:2, n * k, replace = TRUE), n, k)
    coefs <- list(c(2, -1, 1)[seq_len(k)], c(-1, 3, 2)[seq_len(k)])
    const <- c(3, -7)
  } else {
    Z <- matrix(rnorm(n * k), n, k)
    mk <- Z + matrix(rnorm(n * k, sd = 0.3), n, k)
    coefs <- list(c(1.3, -0.7, 0.4)[seq_len(k)], c(-0.6, 2.1, 0.9)[seq_len(k)])
    const <- c(0.2, 1.1)
  }
  Y <- vapply(seq_along(unknowns), function(q) {
    if (unknowns[q] == "g") return(exp(Z[, 1] / 20) + rnorm(n, sd = 0.5))
    drop(mk %*% coefs[[q]]) + const[q]
  }, double(n))
  Y <- matrix(Y, n, length(unknowns))
  yn <- paste0("y", seq_along(unknowns))
  kn <- paste0("k", seq_len(k))
  original <- as.data.frame(cbind(Z, Y))
  masked <- as.data.frame(cbind(mk, Y))
  names(original) <- names(masked) <- c(kn, yn)
  list(original = original, masked = masked, Z = Z, mk = mk, Y = Y, known = kn, unknown = yn)
}

test_that("risk_match() with exact unknowns: c and I the loop's, probabilities within 1e-6", {
  cases <- list(list(k = 1, u = "s"), list(k = 2, u = "s"), list(k = 3, u = "s"),
                list(k = 1, u = c("s", "g")), list(k = 2, u = c("s", "g")),
                list(k = 1, u = c("s", "s")), list(k = 2, u = c("s", "s")))
  seed <- 2950
  for (cs in cases) for (integer in c(FALSE, TRUE)) {
    seed <- seed + 1
    n <- 2000
    d <- sharp_release(n, cs$k, cs$u, integer, seed)
    rows <- seq(2, n, by = 37)
    info <- sprintf("k = %d unknowns %s integer %s", cs$k, paste(cs$u, collapse = ""), integer)
    tr <- risk_match(d$original, d$masked, d$known, d$unknown, targets = rows, threads = 2)
    # the intruder's regression of each exact unknown: sharp (and the result
    # says which unknowns the known variables predict exactly)
    for (q in which(cs$u == "s"))
      expect_true(tr$sigma[q] == 0 || diff(range(d$Y[, q])) / (2 * tr$sigma[q]) > 2^20,
                  info = info)
    expect_identical(tr$unknown_exact, cs$u == "s", info = info)
    expect_false(anyNA(tr$per_target$prob_true), info = info)
    ex <- risk_match(d$original, d$masked, d$known, d$unknown, targets = rows,
                     method = "exhaustive", threads = 1)
    expect_identical(tr$per_target$c, ex$per_target$c, info = info)
    expect_identical(tr$per_target$I, ex$per_target$I, info = info)
    ref <- sharp_ref_probs(sharp_spec(d$mk, d$Y, d$Z[rows, , drop = FALSE], rows))
    expect_true(all(abs(tr$per_target$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
    expect_true(all(abs(tr$per_target$prob_max / ref[, 2] - 1) <= 1e-6), info = info)
    expect_true(all(abs(tr$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6),
                info = info)
    expect_true(all(abs(tr$per_target$prob_max / ex$per_target$prob_max - 1) <= 1e-6),
                info = info)
  }
})

# The C entry's spec of the search, the sweep and the walk.
sharp_walk_spec <- function(spec, prob_tol) {
  spec$method <- 1L
  spec["index"] <- list(NULL)
  spec$sweep <- 1L
  spec$prob_tol <- prob_tol
  spec
}

test_that("exact unknowns: targets the sweep cannot certify go to the per-target walk", {
  for (k in 1:3) for (what in c("lm", "zero", "2^-22")) {
    info <- sprintf("k = %d sigma %s", k, what)
    d <- sharp_release(3000, k, "s", FALSE, 3000 + k)
    rows <- seq(1, 3000, by = 50)
    spec <- sharp_spec(d$mk, d$Y, d$Z[rows, , drop = FALSE], rows, threads = 2L)
    spec$unknown_sd <- sharp_sigma(what, spec$unknown_range, spec$unknown_sd)
    ref <- sharp_ref_probs(spec)
    # prob_tol = 1e-6: all certified by the sweep
    swept <- .Call(epimask:::C_risk_match, sharp_walk_spec(spec, 1e-6))
    expect_identical(swept$walked, 0, info = info)
    expect_true(all(abs(swept$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
    expect_true(all(abs(swept$prob_max / ref[, 2] - 1) <= 1e-6), info = info)
    # a tolerance below every target's certified relative bound: all walk
    sw <- .Call(epimask:::C_risk_match_sweep, spec)
    fine_tol <- min(sw$error / (sw$estimate - sw$error)) / 2
    fine <- .Call(epimask:::C_risk_match, sharp_walk_spec(spec, fine_tol))
    expect_identical(fine$walked, as.double(length(rows)), info = info)
    expect_true(all(abs(fine$prob_true / ref[, 1] - 1) <= fine_tol + 1e-13), info = info)
    expect_true(all(abs(fine$prob_max / ref[, 2] - 1) <= fine_tol + 1e-13), info = info)
    expect_identical(fine$c, swept$c, info = info)
    expect_identical(fine$I, swept$I, info = info)
    # from 5 per cent on the walk is cheap for a smooth unknown, not for a
    # sharp one (its triangle bounds the walk's nodes loosely): the sweep
    # serves a coarse prob_tol too, well within it
    coarse <- .Call(epimask:::C_risk_match, sharp_walk_spec(spec, 0.5))
    expect_identical(coarse$walked, 0, info = info)
    expect_true(all(abs(coarse$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
    expect_identical(coarse$c, swept$c, info = info)
  }
  # sigma just past the limit (range / (2 sigma) = 2^20 + 1): a target whose
  # kink m holds 300 records that its known values make improbable (far in
  # the known variable: factor 0) while its other records score little
  # (far from m: the triangle small). The bound (sigma / Delta) phi(0) 2 N_m
  # is then wide against S, so the target walks; its probability stays
  # within 1e-6 of the loop's
  set.seed(3010)
  n <- 1000
  z <- c(runif(n - 300), rep(10, 300))
  y <- c(runif(n - 300, 0.99, 1), rep(0, 300))
  rows <- c(1, seq(2, n - 300, by = 20))
  D <- max(y)
  spec <- list(masked_known = matrix(z), masked_unknown = matrix(y), unknown_sd = D / (2^21 + 2),
               unknown_range = D, target_record = as.integer(rows - 1L),
               target_known = matrix(z[rows]), pred_mean = matrix(y[rows] - 0.5),
               threads = 2L)
  spec$target_known[1, 1] <- 0
  spec$pred_mean[1, 1] <- 0
  sw <- .Call(epimask:::C_risk_match_sweep, spec)
  expect_equal(sw$sharp, 1)
  exact <- sharp_ref_S(spec)
  expect_true(all(abs(sw$estimate - exact) <= sw$error))
  expect_gt(sw$error[1], 1e-6 * (sw$estimate[1] - sw$error[1]))
  ref <- sharp_ref_probs(spec)
  res <- .Call(epimask:::C_risk_match, sharp_walk_spec(spec, 1e-6))
  expect_gte(res$walked, 1)
  expect_true(all(abs(res$prob_true / ref[, 1] - 1) <= 1e-6))
  expect_true(all(abs(res$prob_max / ref[, 2] - 1) <= 1e-6))
})

test_that("exact unknowns: the same object for any threads, chunking and order of targets", {
  old <- options(progressr.enable = FALSE)
  on.exit(options(old), add = TRUE)
  for (cs in list(list(k = 2, u = "s", integer = FALSE), list(k = 2, u = "s", integer = TRUE),
                  list(k = 3, u = "s", integer = FALSE), list(k = 1, u = c("s", "g"),
                                                              integer = FALSE))) {
    info <- sprintf("k = %d unknowns %s integer %s", cs$k, paste(cs$u, collapse = ""),
                    cs$integer)
    d <- sharp_release(3000, cs$k, cs$u, cs$integer, 3100 + cs$k)
    tg <- seq(2, 3000, by = 4)
    call <- function(targets, threads, progress = FALSE)
      risk_match(d$original, d$masked, d$known, d$unknown, targets = targets,
                 threads = threads, progress = progress, prob_tol = 1e-6)
    one <- call(tg, 1)
    expect_false(anyNA(one$per_target$prob_true), info = info)
    expect_identical(call(tg, 2), one, info = info)
    # chunks run one by one with a shared index (the progress route)
    expect_identical(call(tg, 2, progress = TRUE), one, info = info)
    # targets split by hand, and reversed
    a <- call(tg[1:90], 1)
    b <- call(tg[-(1:90)], 2)
    expect_identical(c(a$per_target$prob_true, b$per_target$prob_true),
                     one$per_target$prob_true, info = info)
    expect_identical(c(a$per_target$prob_max, b$per_target$prob_max),
                     one$per_target$prob_max, info = info)
    r <- call(rev(tg), 2)
    expect_identical(rev(r$per_target$prob_true), one$per_target$prob_true, info = info)
    expect_identical(rev(r$per_target$prob_max), one$per_target$prob_max, info = info)
    expect_identical(rev(r$per_target$c), one$per_target$c, info = info)
  }
})

test_that("exact unknowns: a default call past the pair limit computes the probabilities (4 coordinates: without another unknown)", {
  old <- options(epimask.match_prob_pairs = 1e4)
  on.exit(options(old), add = TRUE)
  tg <- seq(1, 1500, by = 7)
  # known + exact <= 3 and at most one other unknown: the default call
  # computes the probabilities, silently, as prob_tol = 1e-6 given does
  for (cs in list(list(k = 2, u = "s"), list(k = 1, u = c("s", "s")),
                  list(k = 1, u = c("s", "g")), list(k = 2, u = c("s", "g")))) {
    info <- sprintf("k = %d unknowns %s", cs$k, paste(cs$u, collapse = ""))
    d <- sharp_release(1500, cs$k, cs$u, TRUE, 3200 + cs$k)
    expect_silent(dflt <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                     method = "tree"))
    expect_false(anyNA(dflt$per_target$prob_true), info = info)
    expect_identical(dflt$prob_tol, 1e-6, info = info)
    expect_identical(dflt, risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                      prob_tol = 1e-6, method = "tree"), info = info)
    ref <- sharp_ref_probs(sharp_spec(d$mk, d$Y, d$Z[tg, , drop = FALSE], tg))
    expect_true(all(abs(dflt$per_target$prob_true / ref[, 1] - 1) <= 1e-6), info = info)
  }
  # known + exact = 4 without another unknown: one block, no bins (minutes
  # at 1e6): the default call computes the probabilities, silently
  for (cs in list(list(k = 3, u = "s"), list(k = 2, u = c("s", "s")))) {
    info <- sprintf("k = %d unknowns %s", cs$k, paste(cs$u, collapse = ""))
    d <- sharp_release(1500, cs$k, cs$u, TRUE, 3300 + cs$k)
    expect_silent(dflt <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                     method = "tree"))
    expect_identical(dflt$prob_tol, 1e-6, info = info)
    expect_identical(dflt, risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                      prob_tol = 1e-6, method = "tree"), info = info)
    ex <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                     method = "exhaustive")
    expect_identical(dflt$per_target$c, ex$per_target$c, info = info)
    expect_identical(dflt$per_target$I, ex$per_target$I, info = info)
    expect_true(all(abs(dflt$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6),
                info = info)
  }
  # known + exact = 4 with another unknown (as four known with one): the
  # rates, NA probabilities and the classed message; prob_tol given runs the
  # sweep
  d <- sharp_release(1500, 3, c("s", "g"), TRUE, 3310)
  expect_message(rates <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                     method = "tree"),
                 "predicted exactly by the intruder's regression (four coordinates) and another",
                 fixed = TRUE, class = "epimask_message_probs_skipped")
  expect_true(all(is.na(rates$per_target$prob_true)))
  expect_identical(rates$prob_tol, NA_real_)
  ex <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg, method = "exhaustive")
  expect_identical(rates$per_target$c, ex$per_target$c)
  expect_identical(rates$per_target$I, ex$per_target$I)
  expect_silent(asked <- risk_match(d$original, d$masked, d$known, d$unknown, targets = tg,
                                    prob_tol = 1e-6, method = "tree"))
  expect_true(all(abs(asked$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6))
  # known + exact = 5: the sweep does not apply; the message says why, and
  # prob_tol given takes the walk, within 1e-6 of the loop
  set.seed(3400)
  d <- sharp_release(1500, 3, "s", TRUE, 3403)
  d$original$k4 <- d$original$k1 + rnorm(1500)
  d$masked$k4 <- d$original$k4 + rnorm(1500, sd = 0.3)
  known <- c(d$known, "k4")
  expect_message(rates <- risk_match(d$original, d$masked, known, d$unknown, targets = tg,
                                     method = "tree"),
                 "4 known variables and 1 unknown predicted exactly",
                 class = "epimask_message_probs_skipped")
  expect_true(all(is.na(rates$per_target$prob_true)))
  ex <- risk_match(d$original, d$masked, known, d$unknown, targets = tg, method = "exhaustive")
  expect_identical(rates$per_target$c, ex$per_target$c)
  asked <- risk_match(d$original, d$masked, known, d$unknown, targets = tg, prob_tol = 1e-6,
                      method = "tree")
  expect_true(all(abs(asked$per_target$prob_true / ex$per_target$prob_true - 1) <= 1e-6))
})

test_that("a kink one ulp inside the data: the records at the end are counted", {
  set.seed(3500)
  z <- runif(60)
  cases <- 0
  for (trial in 1:300) {
    y <- 67940 + runif(50) * 3.76
    y <- c(y, rep(max(y), 10))
    lo <- min(y)
    hi <- max(y)
    D <- hi - lo
    u <- 2^(floor(log2(hi)) - 52)
    for (m in c((hi - u) + D, (lo + u) - D)) {
      # the kink m - D one ulp below hi (or m + D one ulp above lo), exactly: the ten
      # records at hi (or the one at lo) have tri = u / D > 0
      spec <- list(masked_known = matrix(z), masked_unknown = matrix(y), unknown_sd = 0,
                   unknown_range = D, target_record = 0L, target_known = matrix(z[1]),
                   pred_mean = matrix(m), threads = 1L)
      sw <- .Call(epimask:::C_risk_match_sweep, spec)
      expect_true(abs(sw$estimate - sharp_ref_S(spec)) <= sw$error)
      cases <- cases + 1
    }
    if (cases >= 40) break
  }
})
