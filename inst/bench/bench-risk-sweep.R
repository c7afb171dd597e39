# prob_true and prob_max of risk_match() for all targets by the sweep
# (src/match_sweep.c, issue 28 item 1), before and after, in one run. Run with
#   Rscript inst/bench/bench-risk-sweep.R
# Not a test. Data: the Zhou et al. example I scaled up (simulate_zdl(1, n);
# the intruder knows the exposure x and the coordinate s1 and wants the
# outcome y), released under two masks, as in bench-risk-default.R:
#   ring  - the ring kernel about the point source (about 100 neighbours
#           within the cut-off);
#   noise - correlated normal noise, amount 0.1 (noise covariance 0.1 Sigma).
# Rows (cpu_s = user + system of both threads; elapsed on 2 threads):
#   loop          the exhaustive loop (method = "exhaustive"), the reference;
#   before_1e-6   prob_tol = 1e-6 by the per-target walk alone (the code of
#                 main before this change: options(epimask.match_sweep = FALSE));
#   before_dflt   the default call before this change (the walk; past 1e9
#                 pairs the rates only, probabilities NA);
#   after         the default call now (= prob_tol = 1e-6 given: identical
#                 object, checked at 2e4): the sweep for all targets, the walk
#                 for the targets whose sweep bound is wider than prob_tol.
# At 2e4 every row runs on all targets. At 1e6 the loop and before_1e-6 run
# on an even sample of targets and are scaled to all n targets (marked "~");
# before_dflt and after run on all 1e6 targets.
# same_cI: c and I identical to the loop's on the loop's targets; prob_err /
# max_err: the largest relative difference of prob_true / prob_max from the
# loop's.
# Then the worst inputs found (section "worst"), at 2e4 against the loop and at
# 2e5 for the time: a small residual SD (many bins), heavy ties, targets far
# outside the data (their sums go to the walk).
# Then three known variables (section "three known", x, s1 and the unmasked
# s2; the sweep with the 3-d dominance sums of src/match_dominance.c): at 2e4
# every row on all targets; at 1e5 and 1e6 the loop and the walk on samples of
# targets, scaled; and adult.csv with age, education-num and fnlwgt known,
# hours-per-week unknown (noise-masked), every row on all targets.
# EPIMASK_BENCH_SWEEP_N (default "2e4,1e6") sets the sizes,
# EPIMASK_BENCH_SWEEP_MASKS (default "ring,noise") the masks,
# EPIMASK_BENCH_SWEEP_MAIN (default "true") runs the main table,
# EPIMASK_BENCH_SWEEP_WORST (default "true") the worst inputs,
# EPIMASK_BENCH_SWEEP_THREE (default "true") the three known variables,
# EPIMASK_BENCH_SWEEP_FOUR (default "true") the four known variables (x, s1,
# s2 and w, a noisy function of x released with noise; needs THREE) and
# EPIMASK_BENCH_SWEEP_FOUR_N its sizes (default "2e4,1e5,1e6"),
# EPIMASK_BENCH_SWEEP_THREE_N (default "2e4,1e5,1e6") their sizes.
# EPIMASK_BENCH_SWEEP_BINS (default "true") the cost against the number of
# fine bins (range / (2 residual SDs): 64 to 4096 at 2e5 against the walk,
# 4096 and 65536 at 1e6, the default call; the sweep's far blocks at degree 1),
# EPIMASK_BENCH_SWEEP_TWO (default "true") two unknown variables: simulated
# (known k1, k2; unknown y1 linear, y2 quadratic in the knowns, noise-masked)
# at 2e4 (loop on all targets), 2e5 and 1e6 (loop and walk on samples,
# scaled), rows loop / before_1e-6 (the walk) / rates (prob_tol = 1, the
# rates alone) / after_1e-6 (prob_tol = 1e-6: the sweep) / after_dflt (the
# default call); and adult.csv (known age, education_num; unknown
# hours_per_week, capital_gain; correlated noise 0.1) as a custodian runs it.
# EPIMASK_BENCH_SWEEP_TWO_N (default "2e4,2e5,1e6") sets its sizes.
# EPIMASK_BENCH_SWEEP_SHARP (default "true") an exact unknown (issue 28): the
# ring-masked release with y an exact linear function of the released known
# values (x and s1, or x alone), so the intruder's residual SD is at rounding
# level and the sweep takes the unknown as the plain triangle; rows loop /
# before_1e-6 (the walk) / before_dflt (the walk's default: past 1e9 pairs
# the rates only) / after (the default call) / before_tol1 and after_tol1
# (prob_tol = 1, as ru_profile() asks: the walk before, the sweep now), at 2e4
# on all targets (max_err:
# prob_true against the loop) and at EPIMASK_BENCH_SWEEP_SHARP_N (default
# "1e6"; the loop and the walk on samples of targets, scaled);
# EPIMASK_BENCH_SWEEP_SHARP_KNOWN (default "x+s1,x,x+s1+s2") the known sets
# (with x, s1, s2: four coordinates). EPIMASK_BENCH_SWEEP_FOUR0 (default
# "true") four known variables (x, s1, s2, w) and no unknown: rows loop /
# before_1e-6 / rates (prob_tol = 1) / after_dflt, at
# EPIMASK_BENCH_SWEEP_FOUR0_N (default "2e4,1e6").
library(epimask)

threads <- as.integer(Sys.getenv("EPIMASK_BENCH_THREADS", "2"))
load_now <- function() sub(".*load average: ", "", system("uptime", intern = TRUE))
cpu <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                        value = TRUE)[[1]]), error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs, %s; R %s; %d thread(s)\n", cpu,
            parallel::detectCores(), Sys.info()[["sysname"]], getRversion(), threads))
cat(sprintf("Load at start (1, 5, 15 min): %s\n", load_now()))

released <- function(n, mask, seed = 1) {
  sim <- as.data.frame(simulate_zdl(1, n = n, seed = seed))[, c("s1", "s2", "x", "y")]
  scheme <- switch(mask,
    ring = mask_kernel("ring", 100 * sqrt(2) / n / 72, as.matrix(sim[, c("s1", "s2")]),
                       source = c(0, 0)),
    noise = mask_noise(0.1, dist = "correlated"))
  set.seed(seed + 1)
  list(original = sim,
       masked = suppressWarnings(apply_mask(sim, scheme, vars = c("s1", "x", "y"))))
}

timed <- function(expr) {
  t <- system.time(res <- suppressMessages(expr))
  list(res = res, elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
}
without_sweep <- function(expr) {
  old <- options(epimask.match_sweep = FALSE)
  on.exit(options(old))
  expr
}

header <- function() {
  cat(sprintf("\n%-12s %5s %-12s %8s %10s %9s %11s %11s %7s %9s %9s  %s\n", "input", "n",
              "row", "targets", "elapsed_s", "cpu_s", "cpu_us/tg", "all_cpu_s", "same_cI",
              "prob_err", "max_err", "load (1, 5, 15 min)"))
}
show <- function(input, n, label, r, targets, loop, tg_loop) {
  pt <- r$res$per_target
  on_loop <- match(tg_loop, targets)
  same <- identical(pt$c[on_loop], loop$res$per_target$c) &&
    identical(pt$I[on_loop], loop$res$per_target$I)
  err <- max(abs(pt$prob_true[on_loop] / loop$res$per_target$prob_true - 1))
  err_max <- max(abs(pt$prob_max[on_loop] / loop$res$per_target$prob_max - 1))
  us <- 1e6 * r$cpu / length(targets)
  scaled <- length(targets) < n
  cat(sprintf("%-12s %5g %-12s %8d %10.2f %9.2f %11.1f %10.0f%s %7s %9.2g %9.2g  %s\n", input, n,
              label, length(targets), r$elapsed, r$cpu, us, us * n / 1e6,
              if (scaled) "~" else " ", same, err, err_max, load_now()))
  us * n / 1e6
}

k <- c("x", "s1")
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_MAIN", "true")) == "true") {
header()
sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_N", "2e4,1e6"), ",")[[1]])
masks <- strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_MASKS", "ring,noise"), ",")[[1]]
ratios <- list()
for (mask in masks) for (n in sizes) {
  d <- released(n, mask)
  sample_loop <- if (n <= 2e4) n else 40
  sample_tol <- if (n <= 2e4) n else 200
  tg_loop <- round(seq(1, n, length.out = sample_loop))
  tg_tol <- sort(unique(c(tg_loop, round(seq(1, n, length.out = sample_tol)))))
  loop <- timed(risk_match(d$original, d$masked, k, "y", targets = tg_loop,
                           method = "exhaustive", threads = threads, progress = FALSE))
  walk <- timed(without_sweep(risk_match(d$original, d$masked, k, "y", targets = tg_tol,
                                         prob_tol = 1e-6, threads = threads,
                                         progress = FALSE)))
  old_default <- timed(without_sweep(risk_match(d$original, d$masked, k, "y",
                                                threads = threads, progress = FALSE)))
  after <- timed(risk_match(d$original, d$masked, k, "y", threads = threads,
                            progress = FALSE))
  all_loop <- show(mask, n, "loop", loop, tg_loop, loop, tg_loop)
  all_walk <- show(mask, n, "before_1e-6", walk, tg_tol, loop, tg_loop)
  show(mask, n, if (is.na(old_default$res$prob_tol)) "before_dflt*" else "before_dflt",
       old_default, seq_len(n), loop, tg_loop)
  all_after <- show(mask, n, "after", after, seq_len(n), loop, tg_loop)
  if (n <= 2e4) {
    given <- suppressMessages(risk_match(d$original, d$masked, k, "y", prob_tol = 1e-6,
                                         threads = threads, progress = FALSE))
    cat(sprintf("%-12s %5g after = prob_tol 1e-6 given (identical object): %s\n", mask, n,
                identical(given, after$res)))
  }
  ratios[[length(ratios) + 1L]] <- data.frame(
    input = mask, n = n, after_cpu_s = after$cpu,
    before_over_after = all_walk / after$cpu, loop_over_after = all_loop / after$cpu,
    after_over_before_default = after$cpu / old_default$cpu)
  rm(d, loop, walk, old_default, after)
  invisible(gc())
}
cat("\n(before_dflt*: probabilities not computed, NA; prob_err NA)\n")
cat("\nRatios, CPU for all targets (before_1e-6 and loop scaled from their samples):\n")
print(do.call(rbind, ratios), row.names = FALSE, digits = 3)
}

if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_WORST", "true")) == "true") {
  cat("\n## worst inputs\n")
  # small residual SD: the unknown nearly a linear function of the knowns
  # (range / sigma about 200: about 100 bins of two SDs; `sd` 0.001: about
  # 900 bins, beyond the sweep's 128: the walk, or the rates only)
  small_sd <- function(n, seed = 3, sd = 0.006) {
    set.seed(seed)
    o <- data.frame(x = runif(n), s1 = runif(n))
    o$y <- 10 * o$x + 5 * o$s1 + rnorm(n, sd = 0.03)
    m <- o
    m$x <- m$x + rnorm(n, sd = sd)
    m$s1 <- m$s1 + rnorm(n, sd = sd)
    m$y <- m$y + rnorm(n, sd = sd)
    list(original = o, masked = m)
  }
  tiny_sd <- function(n) small_sd(n, sd = 0.001)
  # heavy ties: the noise-masked release rounded to one decimal
  ties <- function(n) {
    d <- released(n, "noise")
    d$masked[, c("s1", "x", "y")] <- round(d$masked[, c("s1", "x", "y")], 1)
    d
  }
  # 2% of the targets far outside the data (their predicted means too)
  far <- function(n) {
    d <- released(n, "noise")
    out <- seq(1, n, by = 50)
    d$original$x[out] <- d$original$x[out] + 20 * sd(d$original$x)
    d
  }
  inputs <- list(small_sd = small_sd, tiny_sd = tiny_sd, ties = ties, far = far)
  header()
  for (nm in names(inputs)) for (n in c(2e4, 2e5)) {
    d <- inputs[[nm]](n)
    tg_loop <- if (n <= 2e4) seq_len(n) else round(seq(1, n, length.out = 40))
    loop <- timed(risk_match(d$original, d$masked, k, "y", targets = tg_loop,
                             method = "exhaustive", threads = threads, progress = FALSE))
    tg_walk <- if (n <= 2e4) seq_len(n) else
      sort(unique(c(tg_loop, round(seq(1, n, length.out = 400)))))
    walk <- timed(without_sweep(risk_match(d$original, d$masked, k, "y", targets = tg_walk,
                                           prob_tol = 1e-6, threads = threads,
                                           progress = FALSE)))
    after <- timed(risk_match(d$original, d$masked, k, "y", threads = threads,
                              progress = FALSE))
    show(nm, n, "loop", loop, tg_loop, loop, tg_loop)
    show(nm, n, "before_1e-6", walk, tg_walk, loop, tg_loop)
    show(nm, n, "after", after, seq_len(n), loop, tg_loop)
    cat(sprintf("%-12s %5g residual SD %.3g, range %.3g: %d bins; sweep applies: %s%s\n", nm, n,
                after$res$sigma, diff(range(d$masked$y)),
                as.integer(ceiling(diff(range(d$masked$y)) / (2 * after$res$sigma))),
                ceiling(diff(range(d$masked$y)) / (2 * after$res$sigma)) <= 2^20,
                if (is.na(after$res$prob_tol)) " (default call: probabilities not computed)" else ""))
    rm(d, loop, walk, after)
    invisible(gc())
  }
}

if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_THREE", "true")) == "true") {
  cat("\n## three known variables\n")
  header()
  k3 <- c("x", "s1", "s2")
  sizes3 <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_THREE_N", "2e4,1e5,1e6"),
                                ",")[[1]])
  masks3 <- strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_MASKS", "ring,noise"), ",")[[1]]
  three_rows <- function(input, d, known, unknown, n, sampled) {
    tg_loop <- if (!sampled) seq_len(n) else round(seq(1, n, length.out = 40))
    tg_tol <- if (!sampled) seq_len(n) else
      sort(unique(c(tg_loop, round(seq(1, n, length.out = 200)))))
    loop <- timed(risk_match(d$original, d$masked, known, unknown, targets = tg_loop,
                             method = "exhaustive", threads = threads, progress = FALSE))
    walk <- timed(without_sweep(risk_match(d$original, d$masked, known, unknown,
                                           targets = tg_tol, prob_tol = 1e-6,
                                           threads = threads, progress = FALSE)))
    old_default <- timed(without_sweep(risk_match(d$original, d$masked, known, unknown,
                                                  threads = threads, progress = FALSE)))
    after <- timed(risk_match(d$original, d$masked, known, unknown, threads = threads,
                              progress = FALSE))
    all_loop <- show(input, n, "loop", loop, tg_loop, loop, tg_loop)
    all_walk <- show(input, n, "before_1e-6", walk, tg_tol, loop, tg_loop)
    show(input, n, if (is.na(old_default$res$prob_tol)) "before_dflt*" else "before_dflt",
         old_default, seq_len(n), loop, tg_loop)
    all_after <- show(input, n, "after", after, seq_len(n), loop, tg_loop)
    if (!sampled) {
      cat(sprintf("%-12s %5g walk agrees with the sweep within 1e-6: %s\n", input, n,
                  max(abs(walk$res$per_target$prob_true / after$res$per_target$prob_true - 1)) <=
                    1e-6))
    }
    data.frame(input = input, n = n, after_cpu_s = after$cpu, after_elapsed_s = after$elapsed,
               before_over_after = all_walk / after$cpu, loop_over_after = all_loop / after$cpu)
  }
  ratios3 <- list()
  for (mask in masks3) for (n in sizes3) {
    d <- released(n, mask)
    ratios3[[length(ratios3) + 1L]] <- three_rows(paste0(mask, "_k3"), d, k3, "y", n, n > 2e4)
    rm(d)
    invisible(gc())
  }
  adult_file <- "/work/shared/data/adult.csv"
  if (file.exists(adult_file)) {
    ad <- utils::read.csv(adult_file, check.names = FALSE, stringsAsFactors = FALSE)
    ad <- ad[, c("age", "education-num", "fnlwgt", "hours-per-week")]
    names(ad) <- c("age", "education_num", "fnlwgt", "hours")
    ad[] <- lapply(ad, as.double)
    set.seed(11)
    masked <- suppressWarnings(apply_mask(ad, mask_noise(0.1, dist = "correlated"),
                                          vars = names(ad)))
    ratios3[[length(ratios3) + 1L]] <- three_rows(
      "adult_k3", list(original = ad, masked = masked), c("age", "education_num", "fnlwgt"),
      "hours", nrow(ad), FALSE)
  }
  cat("\nRatios, three known, CPU for all targets (scaled where sampled):\n")
  print(do.call(rbind, ratios3), row.names = FALSE, digits = 3)
}
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_FOUR", "true")) == "true") {
  cat("\n## four known variables\n")
  header()
  k4 <- c("x", "s1", "s2", "w")
  sizes4 <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_FOUR_N", "2e4,1e5,1e6"),
                                ",")[[1]])
  masks4 <- strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_MASKS", "ring,noise"), ",")[[1]]
  # three_rows() of the section above; its "after" row is prob_tol = 1e-6
  # (the sweep) where the default call leaves the probabilities out
  if (!exists("three_rows")) stop("EPIMASK_BENCH_SWEEP_FOUR needs the three known section")
  four_rows <- function(input, d, known, unknown, n, sampled) {
    out <- three_rows(input, d, known, unknown, n, sampled)
    asked <- timed(risk_match(d$original, d$masked, known, unknown, threads = threads,
                              prob_tol = 1e-6, progress = FALSE))
    cat(sprintf("%-12s %5g prob_tol = 1e-6 (the sweep): %.1f s elapsed, %.1f s CPU; load %s\n",
                input, n, asked$elapsed, asked$cpu, load_now()))
    out$asked_cpu_s <- asked$cpu
    out
  }
  ratios4 <- list()
  for (mask in masks4) for (n in sizes4) {
    d <- released(n, mask)
    # the fourth known column: a noisy function of x, released with noise
    set.seed(3)
    d$original$w <- 0.5 * d$original$x + rnorm(n)
    d$masked$w <- d$original$w + rnorm(n, sd = 0.3 * sd(d$original$w))
    ratios4[[length(ratios4) + 1L]] <- four_rows(paste0(mask, "_k4"), d, k4, "y", n, n > 2e4)
    rm(d)
    invisible(gc())
  }
  adult_file <- "/work/shared/data/adult.csv"
  if (file.exists(adult_file)) {
    ad <- utils::read.csv(adult_file, check.names = FALSE, stringsAsFactors = FALSE)
    ad <- ad[, c("age", "education-num", "fnlwgt", "capital-gain", "hours-per-week")]
    names(ad) <- c("age", "education_num", "fnlwgt", "capital_gain", "hours")
    ad[] <- lapply(ad, as.double)
    set.seed(11)
    masked <- suppressWarnings(apply_mask(ad, mask_noise(0.1, dist = "correlated"),
                                          vars = names(ad)))
    ratios4[[length(ratios4) + 1L]] <- four_rows(
      "adult_k4", list(original = ad, masked = masked),
      c("age", "education_num", "fnlwgt", "capital_gain"), "hours", nrow(ad), FALSE)
  }
  cat("\nRatios, four known, CPU for all targets (scaled where sampled):\n")
  print(do.call(rbind, ratios4), row.names = FALSE, digits = 3)
}
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_BINS", "true")) == "true") {
  cat("\n## small residual SDs: cost against the number of fine bins\n")
  # the unknown a linear function of the knowns plus noise, the residual SD
  # chosen to give about `bins` fine bins of two SDs over the range
  bins_data <- function(n, bins, seed = 3) {
    set.seed(seed)
    s <- 15 / (2 * bins)
    o <- data.frame(x = runif(n), s1 = runif(n))
    o$y <- 10 * o$x + 5 * o$s1 + rnorm(n, sd = 0.8 * s)
    m <- o
    m$x <- m$x + rnorm(n, sd = s / 40)
    m$s1 <- m$s1 + rnorm(n, sd = s / 40)
    m$y <- m$y + rnorm(n, sd = s / 2)
    list(original = o, masked = m)
  }
  header()
  for (cfg in list(c(2e5, 64), c(2e5, 256), c(2e5, 1024), c(2e5, 4096), c(1e6, 4096),
                   c(1e6, 65536))) {
    n <- cfg[[1]]
    d <- bins_data(n, cfg[[2]])
    nm <- sprintf("bins_%g", cfg[[2]])
    tg_loop <- round(seq(1, n, length.out = 40))
    loop <- timed(risk_match(d$original, d$masked, k, "y", targets = tg_loop,
                             method = "exhaustive", threads = threads, progress = FALSE))
    show(nm, n, "loop", loop, tg_loop, loop, tg_loop)
    if (n <= 2e5) {
      tg_walk <- sort(unique(c(tg_loop, round(seq(1, n, length.out = 200)))))
      walk <- timed(without_sweep(risk_match(d$original, d$masked, k, "y", targets = tg_walk,
                                             prob_tol = 1e-6, threads = threads,
                                             progress = FALSE)))
      show(nm, n, "before_1e-6", walk, tg_walk, loop, tg_loop)
    }
    after <- timed(risk_match(d$original, d$masked, k, "y", threads = threads,
                              progress = FALSE))
    show(nm, n, "after", after, seq_len(n), loop, tg_loop)
    cat(sprintf("%-12s %5g residual SD %.3g, range %.3g: %d fine bins\n", nm, n,
                after$res$sigma, diff(range(d$masked$y)),
                as.integer(ceiling(diff(range(d$masked$y)) / (2 * after$res$sigma)))))
    rm(d, loop, after)
    invisible(gc())
  }
}
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_TWO", "true")) == "true") {
  cat("\n## two unknown variables\n")
  two_data <- function(n, seed = 2) {
    set.seed(seed)
    z <- matrix(rnorm(2 * n), n, 2, dimnames = list(NULL, c("k1", "k2")))
    o <- data.frame(z, y1 = z[, 1] + 2 * z[, 2] + rnorm(n),
                    y2 = z[, 1]^2 + rnorm(n, sd = 0.5))
    m <- o
    m[c("k1", "k2")] <- m[c("k1", "k2")] + rnorm(2 * n, sd = 0.3)
    m$y1 <- m$y1 + rnorm(n, sd = 0.3)
    m$y2 <- m$y2 + rnorm(n, sd = 0.3)
    list(original = o, masked = m)
  }
  rm2 <- function(d, known, unknown, ...)
    risk_match(d$original, d$masked, known, unknown, threads = threads, progress = FALSE, ...)
  header()
  sizes2 <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_TWO_N", "2e4,2e5,1e6"),
                                ",")[[1]])
  for (n in sizes2) {
    d <- two_data(n)
    kk <- c("k1", "k2")
    uu <- c("y1", "y2")
    tg_loop <- if (n <= 2e4) seq_len(n) else round(seq(1, n, length.out = 40))
    tg_walk <- if (n <= 2e4) seq_len(n) else
      sort(unique(c(tg_loop, round(seq(1, n, length.out = if (n <= 2e5) 200 else 100)))))
    loop <- timed(rm2(d, kk, uu, targets = tg_loop, method = "exhaustive"))
    walk <- timed(without_sweep(rm2(d, kk, uu, targets = tg_walk, prob_tol = 1e-6)))
    rates <- timed(rm2(d, kk, uu, prob_tol = 1))
    after <- timed(rm2(d, kk, uu, prob_tol = 1e-6))
    dflt <- timed(rm2(d, kk, uu))
    nm <- "two_unknown"
    show(nm, n, "loop", loop, tg_loop, loop, tg_loop)
    show(nm, n, "before_1e-6", walk, tg_walk, loop, tg_loop)
    show(nm, n, "rates", rates, seq_len(n), loop, tg_loop)
    show(nm, n, "after_1e-6", after, seq_len(n), loop, tg_loop)
    show(nm, n, if (is.na(dflt$res$prob_tol)) "after_dflt*" else "after_dflt", dflt, seq_len(n),
         loop, tg_loop)
    cat(sprintf("%-12s %5g residual SDs %s, bins %s\n", nm, n,
                paste(format(signif(after$res$sigma, 3)), collapse = ", "),
                paste(ceiling(apply(d$masked[uu], 2, function(v) diff(range(v)))
                              / (2 * after$res$sigma)), collapse = " x ")))
    rm(d, loop, walk, rates, after, dflt)
    invisible(gc())
  }
  # adult.csv as a custodian would run it
  path <- Sys.getenv("EPIMASK_ADULT", "/work/shared/data/adult.csv")
  if (file.exists(path)) {
    adult <- read.csv(path, check.names = FALSE)
    names(adult) <- gsub("-", "_", names(adult))
    vars <- c("age", "education_num", "hours_per_week", "capital_gain")
    adult <- adult[stats::complete.cases(adult[vars]), ]
    set.seed(1)
    d <- list(original = adult,
              masked = apply_mask(adult, mask_noise(0.1, dist = "correlated"), vars = vars))
    kk <- c("age", "education_num")
    uu <- c("hours_per_week", "capital_gain")
    n <- nrow(adult)
    tg_loop <- round(seq(1, n, length.out = 300))
    loop <- timed(rm2(d, kk, uu, targets = tg_loop, method = "exhaustive"))
    walk <- timed(without_sweep(rm2(d, kk, uu, targets = tg_loop, prob_tol = 1e-6)))
    dflt <- timed(rm2(d, kk, uu))
    show("adult_two", n, "loop", loop, tg_loop, loop, tg_loop)
    show("adult_two", n, "before_1e-6", walk, tg_loop, loop, tg_loop)
    invisible(show("adult_two", n, "after_dflt", dflt, seq_len(n), loop, tg_loop))
  }
}
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_SHARP", "true")) == "true") {
  cat("\n## exact unknowns (the intruder's regression fits exactly: sharp)\n")
  # The ring-masked release of the main table with y replaced by an exact
  # linear function of the released known values (2 x - 3 s1 + 1 with x and
  # s1 known; 2 x + 1 with x alone), in the original and the release alike:
  # the intruder's residual SD is at rounding level (range / sigma about
  # 1e15), so the unknown factor is the plain triangle, swept as one more
  # known-like coordinate (K' = 3, or 2 with x alone).
  sharp_release <- function(n, known) {
    d <- released(n, "ring")
    lin <- function(v) switch(length(known), 2 * v$x + 1, 2 * v$x - 3 * v$s1 + 1,
                              2 * v$x - 3 * v$s1 + v$s2 + 1)
    d$original$y <- lin(d$original)
    d$masked$y <- lin(d$masked)
    d
  }
  sharp_rows <- function(n, known) {
    input <- paste0("sharp_k", length(known))
    d <- sharp_release(n, known)
    sampled <- n > 2e4
    tg_loop <- if (!sampled) seq_len(n) else round(seq(1, n, length.out = 40))
    tg_walk <- if (!sampled) seq_len(n) else
      sort(unique(c(tg_loop, round(seq(1, n, length.out = 200)))))
    loop <- timed(risk_match(d$original, d$masked, known, "y", targets = tg_loop,
                             method = "exhaustive", threads = threads, progress = FALSE))
    walk <- timed(without_sweep(risk_match(d$original, d$masked, known, "y", targets = tg_walk,
                                           prob_tol = 1e-6, threads = threads,
                                           progress = FALSE)))
    old_default <- timed(without_sweep(risk_match(d$original, d$masked, known, "y",
                                                  threads = threads, progress = FALSE)))
    after <- timed(risk_match(d$original, d$masked, known, "y", threads = threads,
                              progress = FALSE))
    # prob_tol = 1 (as ru_profile() asks): before, the walk (cheap for a
    # smooth unknown, not for a sharp one); now the sweep
    coarse_walk <- timed(without_sweep(risk_match(d$original, d$masked, known, "y",
                                                  targets = tg_walk, prob_tol = 1,
                                                  threads = threads, progress = FALSE)))
    coarse <- timed(risk_match(d$original, d$masked, known, "y", prob_tol = 1,
                               threads = threads, progress = FALSE))
    all_loop <- show(input, n, "loop", loop, tg_loop, loop, tg_loop)
    all_walk <- show(input, n, "before_1e-6", walk, tg_walk, loop, tg_loop)
    show(input, n, if (is.na(old_default$res$prob_tol)) "before_dflt*" else "before_dflt",
         old_default, seq_len(n), loop, tg_loop)
    show(input, n, "after", after, seq_len(n), loop, tg_loop)
    show(input, n, "before_tol1", coarse_walk, tg_walk, loop, tg_loop)
    show(input, n, "after_tol1", coarse, seq_len(n), loop, tg_loop)
    cat(sprintf("%-12s %5g residual SD %.3g, range %.3g (range / (2 SD) = %.3g); probabilities %s\n",
                input, n, after$res$sigma, diff(range(d$masked$y)),
                diff(range(d$masked$y)) / (2 * after$res$sigma),
                if (anyNA(after$res$per_target$prob_true)) "NOT computed" else "computed"))
    data.frame(input = input, n = n, after_cpu_s = after$cpu, after_elapsed_s = after$elapsed,
               before_over_after = all_walk / after$cpu, loop_over_after = all_loop / after$cpu,
               after_over_before_default = after$cpu / old_default$cpu,
               max_err_2e4 = if (!sampled) max(abs(after$res$per_target$prob_true /
                                                     loop$res$per_target$prob_true - 1)) else NA)
  }
  header()
  # the agreement with the loop on all targets at 2e4, then the sizes asked
  sizes_sharp <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_SHARP_N", "1e6"),
                                     ",")[[1]])
  ratios_sharp <- list()
  known_sharp <- lapply(strsplit(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_SHARP_KNOWN",
                                                    "x+s1,x,x+s1+s2"), ",")[[1]], "[+]"),
                        as.character)
  for (n in unique(c(2e4, sizes_sharp))) for (known in known_sharp) {
    ratios_sharp[[length(ratios_sharp) + 1L]] <- sharp_rows(n, known)
    invisible(gc())
  }
  cat("\nRatios, exact unknown, CPU for all targets (scaled where sampled):\n")
  print(do.call(rbind, ratios_sharp), row.names = FALSE, digits = 3)
}
if (tolower(Sys.getenv("EPIMASK_BENCH_SWEEP_FOUR0", "true")) == "true") {
  cat("\n## four known variables, no unknown\n")
  # The ring-masked release with a fourth known column w (a noisy function of
  # x released with noise, as in the four known section) and no unknown: one
  # block, no bins; the default call computes the probabilities.
  header()
  k4 <- c("x", "s1", "s2", "w")
  sizes40 <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_SWEEP_FOUR0_N", "2e4,1e6"),
                                 ",")[[1]])
  for (n in sizes40) {
    d <- released(n, "ring")
    set.seed(3)
    d$original$w <- 0.5 * d$original$x + rnorm(n)
    d$masked$w <- d$original$w + rnorm(n, sd = 0.3 * sd(d$original$w))
    sampled <- n > 2e4
    tg_loop <- if (!sampled) seq_len(n) else round(seq(1, n, length.out = 40))
    tg_walk <- if (!sampled) seq_len(n) else
      sort(unique(c(tg_loop, round(seq(1, n, length.out = 200)))))
    rm0 <- function(...) risk_match(d$original, d$masked, k4, NULL, threads = threads,
                                    progress = FALSE, ...)
    loop <- timed(rm0(targets = tg_loop, method = "exhaustive"))
    walk <- timed(without_sweep(rm0(targets = tg_walk, prob_tol = 1e-6)))
    rates <- timed(rm0(prob_tol = 1))
    after <- timed(rm0())
    show("k4_none", n, "loop", loop, tg_loop, loop, tg_loop)
    show("k4_none", n, "before_1e-6", walk, tg_walk, loop, tg_loop)
    show("k4_none", n, "rates", rates, seq_len(n), loop, tg_loop)
    show("k4_none", n, if (is.na(after$res$prob_tol)) "after_dflt*" else "after_dflt", after,
         seq_len(n), loop, tg_loop)
    rm(d, loop, walk, rates, after)
    invisible(gc())
  }
}
cat(sprintf("\nLoad at end (1, 5, 15 min): %s\n", load_now()))
