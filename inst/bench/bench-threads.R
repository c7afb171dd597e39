# Threads on a shared machine (issue 28): every threaded routine of the C
# core on 1 and 2 threads, as the machine is found and with one core kept
# busy by another session, in one run.
#
# Why "another session": Linux gives CPU time to sessions (autogroups) or
# cgroups, not to threads, so a busy loop of another user's job takes a
# core's worth of time from this R session's threads together; a busy loop
# started by this session itself (same autogroup) would not. The busy loop
# is `sh -c 'while :; do :; done'` started under setsid(1), stopped at the
# end of its section.
#
# Routines: irls_fit (logistic, n = 1e6, p = 10), the replicate fits from
# sufficient statistics (src/irls_many.c, the ru_profile path), Cox fits of
# many replicate designs (src/cox.c), risk_linkage (src/linkage.c),
# apply_mask with a kernel scheme (src/kernel.c, par_rows) and risk_match
# (src/match_tree.c, par_rows). Each call is timed (elapsed) `reps` times
# with 1 and 2 threads interleaved; printed: the median, the spread (min -
# max) and ratio = median 1-thread time / median 2-thread time (above 1: 2
# threads faster). The results of 1 and 2 threads are checked identical.
#
# Run with `Rscript inst/bench/bench-threads.R` after installing epimask.
# EPIMASK_BENCH_REPS (default 9) sets reps; EPIMASK_BENCH_ROUTINES a
# comma-separated subset of irls, many, cox, linkage, kernel, match.
suppressPackageStartupMessages(library(epimask))
options(width = 200)
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                              value = TRUE)[[1]]), error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs; R %s; epimask %s\n", cpu_model,
            parallel::detectCores(), getRversion(), utils::packageVersion("epimask")))
cat(sprintf("uptime at start: %s\n", system("uptime", intern = TRUE)))
reps <- as.integer(Sys.getenv("EPIMASK_BENCH_REPS", "9"))
chosen <- strsplit(Sys.getenv("EPIMASK_BENCH_ROUTINES", "irls,many,cox,linkage,kernel,match"),
                   ",")[[1]]

load_average <- function() {
  l <- tryCatch(readLines("/proc/loadavg", n = 1L), error = function(e) NA_character_)
  if (is.na(l)) NA_real_ else as.numeric(strsplit(l, " ")[[1]][1])
}

set.seed(2024)
routines <- list()

if ("irls" %in% chosen) local({
  n <- 1e6
  p <- 10
  x <- cbind(1, matrix(stats::rnorm(n * (p - 1)), n, p - 1))
  y <- as.double(stats::rbinom(n, 1, stats::plogis(drop(x %*% c(-0.5, seq(-0.4, 0.4, length.out = 9))))))
  routines$irls <<- list(label = "irls_fit, logistic, n = 1e6, p = 10",
    run = function(k) irls_fit(x, y, stats::binomial(), control = list(nthreads = k))$coefficients)
})

if ("many" %in% chosen) local({
  n <- 5e4
  x <- cbind(1, matrix(stats::rnorm(n * 3), n, 3))
  mu <- exp(drop(x %*% c(0.2, 0.3, -0.2, 0.1)))
  nrep <- 100
  Y <- matrix(stats::rpois(n * nrep, mu), n, nrep)
  stat <- crossprod(x, Y)
  start <- irls_fit(x, Y[, 1], stats::poisson())$coefficients
  routines$many <<- list(label = "replicate fits (irls_many.c), poisson, n = 5e4, p = 4, 100 replicates",
    run = function(k) {
      old <- options(epimask.threads = k)
      on.exit(options(old))
      epimask:::newton_many(x, stat, stats::poisson(), rep(0, n), rep(1, n), start)$coefficients
    })
})

if ("cox" %in% chosen) local({
  n <- 20000
  nrep <- 24
  d <- data.frame(time = stats::rexp(n), status = stats::rbinom(n, 1, 0.7),
                  x1 = stats::rnorm(n), x2 = stats::rnorm(n), x3 = stats::rbinom(n, 1, 0.4))
  frame <- epimask:::cox_frame(survival::Surv(time, status) ~ x1 + x2 + x3, d)
  prep <- epimask:::cox_arrays(frame)
  X <- array(rep(frame$x, nrep) + stats::rnorm(length(frame$x) * nrep, sd = 0.3),
             c(dim(frame$x), nrep))
  routines$cox <<- list(label = "Cox fits of 24 replicate designs (cox.c), n = 2e4, p = 3",
    run = function(k) epimask:::cox_call(prep, X, "efron",
                                         epimask:::cox_control(list(nthreads = k)))$coefficients)
})

if ("linkage" %in% chosen) local({
  n <- 2e5
  num <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n))
  masked <- num + stats::rnorm(3 * n, sd = 0.1)
  routines$linkage <<- list(label = "risk_linkage, 3 variables, n = 2e5 (tree)",
    run = function(k) risk_linkage(num, masked, c("a", "b", "c"), threads = k)$risk)
})

if ("kernel" %in% chosen) local({
  n <- 2e5
  num <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n))
  sch <- mask_kernel("exponential", 0.2 / sqrt(n), as.matrix(num[c("a", "b")]))
  routines$kernel <<- list(label = "apply_mask, exponential kernel, n = 2e5 (par_rows)",
    run = function(k) {
      old <- options(epimask.threads = k)
      on.exit(options(old))
      # (isolated records left unmasked warn on every call)
      suppressWarnings(apply_mask(num, sch, vars = "c"))$c
    })
})

if ("match" %in% chosen) local({
  n <- 1e5
  sim <- as.data.frame(simulate_zdl(1, n = n, seed = 1))[, c("s1", "s2", "x", "y")]
  sch <- mask_kernel("ring", 100 * sqrt(2) / n / 72, as.matrix(sim[, c("s1", "s2")]),
                     source = c(0, 0))
  masked <- suppressWarnings(apply_mask(sim, sch, vars = c("s1", "x", "y")))
  tg <- round(seq(1, n, length.out = 2e4))
  routines$match <<- list(label = "risk_match defaults, n = 1e5, 2e4 targets (par_rows)",
    run = function(k) {
      r <- suppressWarnings(suppressMessages(
        risk_match(sim, masked, c("x", "s1"), "y", targets = tg, threads = k, progress = FALSE)))
      r$rates
    })
})

time_pair <- function(r) {
  t1 <- t2 <- numeric(reps)
  v1 <- v2 <- NULL
  r$run(1L)  # warm-up (first-touch of scratch, the OpenMP pool)
  r$run(2L)
  for (i in seq_len(reps)) {
    t1[i] <- system.time(v1 <- r$run(1L))[["elapsed"]]
    t2[i] <- system.time(v2 <- r$run(2L))[["elapsed"]]
  }
  if (!identical(v1, v2)) warning(r$label, ": results differ between 1 and 2 threads")
  c(one = median(t1), one_min = min(t1), one_max = max(t1),
    two = median(t2), two_min = min(t2), two_max = max(t2))
}

rows <- list()
run_condition <- function(condition) {
  for (nm in names(routines)) {
    load <- load_average()
    t <- time_pair(routines[[nm]])
    rows[[length(rows) + 1L]] <<- data.frame(
      routine = nm, condition = condition, load = load,
      one_s = signif(t[["one"]], 3),
      one_range = sprintf("%.3g-%.3g", t[["one_min"]], t[["one_max"]]),
      two_s = signif(t[["two"]], 3),
      two_range = sprintf("%.3g-%.3g", t[["two_min"]], t[["two_max"]]),
      ratio = round(t[["one"]] / t[["two"]], 2))
  }
}

run_condition("as found")
if (nzchar(Sys.which("setsid"))) {
  pid <- as.integer(system("setsid sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!",
                           intern = TRUE))
  Sys.sleep(2)
  tryCatch(run_condition("+ busy loop"), finally = tools::pskill(pid))
} else {
  cat("setsid is not available: no busy-loop section\n")
}
cat(sprintf("\nSeconds per call (elapsed), medians of %d interleaved runs; range = min-max; ", reps),
    "ratio = 1-thread median / 2-thread median; load = 1-minute load average before the routine\n",
    sep = "")
for (nm in names(routines)) cat(sprintf("  %-8s %s\n", nm, routines[[nm]]$label))
print(do.call(rbind, rows), row.names = FALSE)
cat(sprintf("uptime at end: %s\n", system("uptime", intern = TRUE)))
