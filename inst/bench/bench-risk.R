# Benchmarks for the disclosure-risk measures (not a test). Run with
#   Rscript inst/bench/bench-risk.R
# Prints the time of risk_match() at several n, the ratio against a plain R
# double loop of methods vignette section 5 (closed-form unknown factor with pnorm/dnorm) at
# n = 500, and the time of risk_identifiability() against a 2-million-row
# source database.
library(epimask)

threads <- as.integer(Sys.getenv("EPIMASK_BENCH_THREADS", "2"))
cat(sprintf("risk_match with %d thread(s)\n", threads))

# Kernel-masked point-source data (methods vignette section 10, example I): masked = A Z with
# an exponential kernel at lambda = 0.05, applied in blocks of rows so that no
# n x n matrix is held at once.
make_data <- function(n, lambda = 0.05, seed = 1) {
  set.seed(seed)
  s <- matrix(runif(2 * n, -1, 1), n, 2)
  x <- exp(-2 * sqrt(rowSums(s^2)))
  y <- rpois(n, exp(1 + 2 * x))
  Z <- cbind(x = x, y = y)
  masked <- matrix(0, n, 2, dimnames = list(NULL, c("x", "y")))
  for (rows in split(seq_len(n), ceiling(seq_len(n) / 200))) {
    d2 <- outer(s[rows, 1], s[, 1], "-")^2 + outer(s[rows, 2], s[, 2], "-")^2
    w <- exp(-sqrt(d2) / lambda)
    masked[rows, ] <- (w / rowSums(w)) %*% Z
  }
  list(original = as.data.frame(Z), masked = as.data.frame(masked))
}

# methods vignette section 5 in plain R, one target at a time over all candidates.
loop_risk_match <- function(original, masked) {
  n <- nrow(masked)
  fit <- lm(masked$y ~ masked$x)
  b <- coef(fit)
  sigma <- sqrt(sum(residuals(fit)^2) / (n - 2))
  D <- diff(range(masked$y))
  tri <- function(a, m) {
    x0 <- (a - m) / sigma; d <- D / sigma; x1 <- x0 - d; x2 <- x0 + d
    (dnorm(x1) - 2 * dnorm(x0) + dnorm(x2) + x2 * (pnorm(x2) - pnorm(x0)) -
       x1 * (pnorm(x0) - pnorm(x1))) / d
  }
  correct <- 0
  for (i in seq_len(n)) {
    t <- original$x[i]
    far <- 0
    for (j in seq_len(n)) far <- max(far, abs(masked$x[j] - t))
    m <- b[1] + b[2] * t
    score <- numeric(n)
    for (j in seq_len(n))
      score[j] <- (1 - abs(masked$x[j] - t) / far) * tri(masked$y[j], m)
    top <- score >= max(score) * (1 - 1e-12)
    correct <- correct + top[i] / sum(top)
  }
  100 * correct / n
}

# Elapsed seconds, and CPU seconds (user + system, all threads) to judge the
# figures on a loaded machine.
timed <- function(expr) {
  t <- system.time(value <- force(expr))
  list(value = value, seconds = t[["elapsed"]],
       cpu = t[["user.self"]] + t[["sys.self"]])
}

bench_sections <- strsplit(Sys.getenv("EPIMASK_BENCH_SECTIONS", "base,scale,worst"), ",")[[1]]
if ("base" %in% bench_sections) {
for (n in c(1000, 10000, 30000)) {
  d <- make_data(n)
  if (n <= 10000) {
    r <- timed(risk_match(d$original, d$masked, "x", "y", threads = threads))
    cat(sprintf("  n = %6d, all targets: %7.2f s elapsed, %7.2f s CPU (%.1f%% correct)\n",
                n, r$seconds, r$cpu, r$value$percent_correct))
  } else {
    # all 3e4 targets would be 9e8 pairs; time 3000 targets and scale
    r <- timed(risk_match(d$original, d$masked, "x", "y", targets = 1:3000,
                          threads = threads))
    cat(sprintf("  n = %6d, 3000 targets: %7.2f s elapsed, %7.2f s CPU (all targets ~ %.0f s)\n",
                n, r$seconds, r$cpu, r$seconds * n / 3000))
  }
}

d <- make_data(500)
fast <- timed(risk_match(d$original, d$masked, "x", "y", threads = threads))
slow <- timed(loop_risk_match(d$original, d$masked))
cat(sprintf("  n = 500: C %.3f s, R double loop %.2f s, ratio %.0f (same result: %s)\n",
            fast$seconds, slow$seconds, slow$seconds / max(fast$seconds, 1e-3),
            isTRUE(all.equal(fast$value$percent_correct, slow$value))))

cat("risk_identifiability\n")
set.seed(2)
N <- 2e6
source <- data.frame(id = seq_len(N), dose = round(rexp(N, 1 / 0.2), 4),
                     city = sample(c("Hiroshima", "Nagasaki"), N, TRUE))
released <- source[sample(N, 16000), ]
released$dose <- signif(released$dose, 2)
r <- timed(risk_identifiability(released, source, c("dose", "city"), id = "id"))
cat(sprintf("  16000 released vs %g source records: %.2f s (score %.4f, perceived %.4f)\n",
            N, r$seconds, r$value$score, r$value$perceived))
rel_all <- source
rel_all$dose <- signif(rel_all$dose, 2)
r <- timed(risk_identifiability(rel_all, source, c("dose", "city"), id = "id"))
cat(sprintf("  %g released vs %g source records: %.2f s\n", N, N, r$seconds))
}

# ---- registry scale (issue 15): the exact search against the loop ------------
# The Zhou et al. example I scaled up: simulate_zdl(1, n), the coordinates s1
# and the exposure x and outcome y masked by the ring kernel (lambda giving
# about 100 neighbours within the cutoff); the intruder knows x and s1 and
# wants y. Rows: the exhaustive loop (all targets at 2e4, a sample at 1e5 and
# 1e6, scaled to all n targets and marked "~"), the search for the rates
# (c, I; prob_tol = 1, as ru_profile() runs it) on ALL n targets, and the
# search with prob_true at the default prob_tol = 1e-6 (all targets at 2e4,
# the loop's sample beyond). cpu_s = user + system of all threads;
# ratio = the loop's CPU per target / the row's; same_cI compares c and I on
# the loop's targets; prob_err is the largest relative difference of prob_true
# from the loop's. EPIMASK_BENCH_SECTIONS=scale,worst runs only this section
# and the next; EPIMASK_BENCH_SCALE_N (default "2e4,1e5,1e6") the sizes.
if (any(c("scale", "worst") %in% bench_sections)) {
  zdl_masked <- function(n, neighbours = 100, seed = 1) {
    sim <- as.data.frame(simulate_zdl(1, n = n, seed = seed))[, c("s1", "s2", "x", "y")]
    lambda <- neighbours * sqrt(2) / n / 72
    sch <- mask_kernel("ring", lambda, as.matrix(sim[, c("s1", "s2")]), source = c(0, 0))
    list(original = sim,
         masked = suppressWarnings(apply_mask(sim, sch, vars = c("s1", "x", "y"))))
  }
  run <- function(d, method, prob_tol, targets, known = c("x", "s1"), unknown = "y") {
    t <- system.time(r <- risk_match(d$original, d$masked, known, unknown, targets = targets,
                                     method = method, prob_tol = prob_tol, threads = threads))
    list(elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]], res = r)
  }
  load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
  if ("scale" %in% bench_sections) {
  cat("\n-- exact search vs loop: ZDL I ring-masked, known x + s1, unknown y --\n")
  cat(sprintf("%8s %-10s %8s %8s %9s %8s %10s %10s %7s %7s %9s  %s\n", "n", "method",
              "prob_tol", "targets", "elapsed_s", "cpu_s", "cpu_us/tg", "all_cpu_s", "ratio",
              "same_cI", "prob_err", "load (1, 5, 15 min)"))
  sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SCALE_N", "2e4,1e5,1e6"), ",")[[1]])
  for (n in sizes) {
    d <- zdl_masked(n)
    sample_size <- if (n <= 2e4) n else if (n <= 1e5) 2000 else 40
    tg <- round(seq(1, n, length.out = sample_size))
    ref <- run(d, "exhaustive", 0, tg)
    ref_us <- 1e6 * ref$cpu / length(tg)
    show <- function(label, tol, r, targets) {
      pt <- r$res$per_target
      on_ref <- match(tg, targets)
      cmp <- !anyNA(on_ref)
      same <- if (cmp) identical(pt$c[on_ref], ref$res$per_target$c) &&
        identical(pt$I[on_ref], ref$res$per_target$I) else NA
      err <- if (cmp) max(abs(pt$prob_true[on_ref] / ref$res$per_target$prob_true - 1)) else NA
      us <- 1e6 * r$cpu / length(targets)
      scaled <- length(targets) < n
      cat(sprintf("%8.0f %-10s %8.0g %8d %9.2f %8.2f %10.1f %9.1f%s %7.1f %7s %9.1e  %s\n", n,
                  label, tol, length(targets), r$elapsed, r$cpu, us, us * n / 1e6,
                  if (scaled) "~" else " ", ref_us / us, same, err, load_now()))
    }
    show("exhaustive", 0, ref, tg)
    all_tg <- seq_len(n)
    show("tree", 1, run(d, "tree", 1, all_tg), all_tg)
    # prob_true on more targets than the loop's sample, so that the index
    # build (a few CPU seconds at 1e6) does not dominate the per-target cost
    tg_prob <- if (n <= 2e4) tg else sort(unique(c(tg, round(seq(1, n, length.out = 2000)))))
    show("tree", 1e-6, run(d, "tree", 1e-6, tg_prob), tg_prob)
    rm(d)
    gc(verbose = FALSE)
  }
  }

  # Which inputs make the search slow: n = 2e4, 2 known + 1 unknown, 2000 targets
  if ("worst" %in% bench_sections) {
  cat("\n-- worst cases of the search (n = 2e4, 2000 targets; ratio = loop / tree, CPU seconds) --\n")
  set.seed(3)
  n <- 2e4
  base <- data.frame(a = runif(n), b = rnorm(n), y = rnorm(n))
  cases <- list(
    unmasked = base,
    noisy = base + rnorm(3 * n, sd = 0.05),
    `rounded 1 decimal (ties)` = round(base, 1),
    `rounded 0 decimals (heavy ties)` = round(base, 0),
    `unknown nearly exact (sigma tiny)` = transform(base, y = a + 1e-9 * b),
    `unknown very noisy (sigma ~ range)` = transform(base, y = a + rnorm(n, sd = 1e3)))
  tg <- round(seq(1, n, length.out = 2000))
  cat(sprintf("%-36s %8s %12s %8s %12s %8s %8s\n", "input", "loop_s", "tree(1e-6)_s",
              "ratio", "tree(tol 1)_s", "ratio", "mean_c"))
  for (nm in names(cases)) {
    o <- if (grepl("^unknown", nm)) cases[[nm]] else base
    d <- list(original = o, masked = cases[[nm]])
    a <- run(d, "exhaustive", 0, tg, known = c("a", "b"), unknown = "y")
    b <- run(d, "tree", 1e-6, tg, known = c("a", "b"), unknown = "y")
    r <- run(d, "tree", 1, tg, known = c("a", "b"), unknown = "y")
    stopifnot(identical(a$res$per_target$c, b$res$per_target$c),
              identical(a$res$per_target$c, r$res$per_target$c),
              identical(a$res$per_target$I, r$res$per_target$I))
    cat(sprintf("%-36s %8.2f %12.2f %8.1f %12.2f %8.1f %8.1f\n", nm, a$cpu, b$cpu,
                a$cpu / b$cpu, r$cpu, a$cpu / r$cpu, mean(b$res$per_target$c)))
  }
  cat(sprintf("load average: %s\n", load_now()))
  }
}
