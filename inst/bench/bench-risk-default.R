# risk_match() with its defaults at registry scale (issue 28), before and
# after the default changed. Run with
#   Rscript inst/bench/bench-risk-default.R
# Not a test. Data: the Zhou et al. example I scaled up (simulate_zdl(1, n);
# the intruder knows the exposure x and the coordinate s1 and wants the
# outcome y), released under two masks:
#   ring  - the ring kernel about the point source, lambda giving about 100
#           neighbours within the cut-off (as in bench-risk.R, "scale");
#   noise - correlated normal noise, amount 0.1 (noise covariance 0.1 Sigma).
# Rows (cpu_s = user + system of both threads; elapsed on 2 threads):
#   loop        the exhaustive loop (method = "exhaustive"), the reference;
#   before      the old default: prob_true certified to 1e-6 for every target
#               (what risk_match(original, masked, known, unknown) did, and
#               what prob_tol = 1e-6 given explicitly still does);
#   default     risk_match() with its defaults now: c, I and the rates for
#               every target, and prob_true, prob_max by the sweep of all
#               targets (issue 28 item 1; bench-risk-sweep.R has the before /
#               after table). Where the sweep does not apply (3 or more known
#               variables, ...) prob_true, prob_max only when n x targets is
#               at most 1e9 (about 10 s of CPU), else NA with a message.
# At n = 2e4 every row runs on all targets. At 1e6 the loop and the 1e-6
# rows run on an even sample of targets and are scaled to all n targets
# (marked "~"); the default row runs on all 1e6 targets.
# same_cI: c and I identical to the loop's on the loop's targets; prob_err:
# the largest relative difference of prob_true from the loop's.
# EPIMASK_BENCH_DEFAULT_N (default "2e4,1e6") sets the sizes,
# EPIMASK_BENCH_DEFAULT_MASKS (default "ring,noise") the masks.
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

cat(sprintf("\n%6s %5s %-8s %8s %-8s %10s %9s %11s %11s %7s %9s  %s\n", "mask", "n",
            "row", "targets", "prob_tol", "elapsed_s", "cpu_s", "cpu_us/tg", "all_cpu_s",
            "same_cI", "prob_err", "load (1, 5, 15 min)"))
sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_DEFAULT_N", "2e4,1e6"), ",")[[1]])
masks <- strsplit(Sys.getenv("EPIMASK_BENCH_DEFAULT_MASKS", "ring,noise"), ",")[[1]]
for (mask in masks) for (n in sizes) {
  d <- released(n, mask)
  k <- c("x", "s1")
  sample_loop <- if (n <= 2e4) n else 40
  sample_tol <- if (n <= 2e4) n else 400
  tg_loop <- round(seq(1, n, length.out = sample_loop))
  tg_tol <- sort(unique(c(tg_loop, round(seq(1, n, length.out = sample_tol)))))
  loop <- timed(risk_match(d$original, d$masked, k, "y", targets = tg_loop,
                           method = "exhaustive", threads = threads, progress = FALSE))
  before <- timed(risk_match(d$original, d$masked, k, "y", targets = tg_tol, prob_tol = 1e-6,
                             threads = threads, progress = FALSE))
  default <- timed(risk_match(d$original, d$masked, k, "y", threads = threads,
                              progress = FALSE))
  show <- function(label, r, targets, tol) {
    pt <- r$res$per_target
    on_loop <- match(tg_loop, targets)
    same <- identical(pt$c[on_loop], loop$res$per_target$c) &&
      identical(pt$I[on_loop], loop$res$per_target$I)
    err <- max(abs(pt$prob_true[on_loop] / loop$res$per_target$prob_true - 1))
    us <- 1e6 * r$cpu / length(targets)
    scaled <- length(targets) < n
    cat(sprintf("%6s %5g %-8s %8d %-8s %10.2f %9.2f %11.1f %10.0f%s %7s %9.2g  %s\n", mask, n,
                label, length(targets), tol, r$elapsed, r$cpu, us, us * n / 1e6,
                if (scaled) "~" else " ", same, err, load_now()))
  }
  show("loop", loop, tg_loop, "0")
  show("before", before, tg_tol, "1e-6")
  show("default", default, seq_len(n),
       if (is.na(default$res$prob_tol)) "not run" else sprintf("%.0e", default$res$prob_tol))
  rm(d, loop, before, default)
  invisible(gc())
}
