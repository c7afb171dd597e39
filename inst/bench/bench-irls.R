# IRLS benchmark: epimask::irls_fit on 1 and 2 threads against stats::glm.fit
# and fastglm's fastest method (LLT, a Cholesky of X'WX; when the fastglm
# package is installed), for logistic and Poisson regressions (intercept +
# p - 1 standard normal covariates), and against the physical limit of one
# IRLS pass measured in the same run:
#   memory: the bytes of X over the bandwidth of a streaming read of X in C
#           (the best of 5 timings of repeated reads);
#   flops:  n p^2 flops (the multiply-adds of X'WX, 2 flops each) over the
#           rate of register-resident multiply-add chains in portable C at
#           R's compiler flags (the best of 5 runs);
#   limit:  the larger of the two.
# A fit of `iter` iterations makes iter + 1 passes over X (glm.fit's start
# and one per iteration); pass_cpu_ms is the CPU time of a 1-thread fit over
# its passes and vs_limit that over the limit. The limit and the pass are
# both CPU times (of one thread): on a loaded machine elapsed times measure
# the share of the cores the process was given, not the work. blas_xtx_ms
# is crossprod(X) by the linked BLAS (dsyrk), CPU time: what X'X alone would
# cost per pass on a BLAS path. Everything is timed in the same run, so the
# machine's load affects every side alike; the load (1-minute average) is
# printed before each case. Fit times are medians of `reps` runs (elapsed),
# the 1- and 2-thread runs interleaved.
#
# A last section runs the n = 1e6, p = 10 logistic fit on 1 and 2 threads
# again with a busy loop started by this script in a session of its own (as
# another user's job would run), and stops it.
#
# Run with `Rscript inst/bench/bench-irls.R` after installing epimask.
# EPIMASK_BENCH_CASES chooses the cases as n:p pairs (default
# "1e5:10,1e6:10,1e5:50"); EPIMASK_BENCH_BUSY=false skips the busy-loop
# section.
library(epimask)
options(width = 200)
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                              value = TRUE)[[1]]), error = function(e) "unknown")
blas <- tryCatch(sessionInfo()$BLAS, error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs; R %s; BLAS %s\n", cpu_model,
            parallel::detectCores(), getRversion(), blas))
cat(sprintf("uptime at start: %s\n", system("uptime", intern = TRUE)))

cases <- lapply(strsplit(strsplit(Sys.getenv("EPIMASK_BENCH_CASES", "1e5:10,1e6:10,1e5:50"),
                                  ",")[[1]], ":"), as.numeric)
have_fastglm <- requireNamespace("fastglm", quietly = TRUE)
if (!have_fastglm) cat("fastglm is not installed: its column is NA\n")
reps_for <- function(n) if (n <= 1e5) 5L else 3L

load_average <- function() {
  l <- tryCatch(readLines("/proc/loadavg", n = 1L), error = function(e) NA_character_)
  if (is.na(l)) NA_real_ else as.numeric(strsplit(l, " ")[[1]][1])
}
elapsed <- function(expr) {
  t <- system.time(value <- expr)
  list(seconds = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]], value = value)
}
cpu_time <- function(expr) {
  t <- system.time(expr)
  t[["user.self"]] + t[["sys.self"]]
}
max_rel <- function(a, b) max(abs(a - b) / pmax(abs(b), 1e-300))

# ---- the machine: memory bandwidth and flop rate, best of 5 -------------------
rates <- function(x) {
  reads <- as.integer(max(1, ceiling(4e8 / length(x))))  # at least 3.2 GB read per timing
  stream <- min(replicate(5, cpu_time(
    .Call(epimask:::C_machine_rates, list(x = x, reps = reads, steps = 0L))))) / reads
  steps <- 5e7L
  madd <- min(replicate(5, cpu_time(
    .Call(epimask:::C_machine_rates, list(x = 0, reps = 0L, steps = steps)))))
  list(bandwidth = 8 * length(x) / stream, flops = 32 * steps / madd)
}

simulate_design <- function(n, p) {
  x <- cbind(1, matrix(stats::rnorm(n * (p - 1)), n, p - 1))
  colnames(x) <- c("(Intercept)", paste0("x", seq_len(p - 1)))
  x
}

set.seed(2024)
rows <- list()
for (case in cases) {
  n <- case[1]
  p <- case[2]
  x <- simulate_design(n, p)
  beta <- c(-0.5, seq(-0.4, 0.4, length.out = p - 1)) * sqrt(10 / p)
  eta <- drop(x %*% beta)
  models <- list(
    logistic = list(y = as.double(stats::rbinom(n, 1, stats::plogis(eta))), family = stats::binomial()),
    poisson = list(y = as.double(stats::rpois(n, exp(eta / 2))), family = stats::poisson()))
  machine <- rates(x)
  # what the BLAS path would cost: X'X alone by the linked BLAS's dsyrk
  # (crossprod), without the weights, the family or the linear predictor
  syrk <- min(replicate(3, cpu_time(crossprod(x))))
  limit_mem <- 8 * n * p / machine$bandwidth
  limit_flop <- n * p^2 / machine$flops
  for (m in names(models)) {
    y <- models[[m]]$y
    fam <- models[[m]]$family
    reps <- reps_for(n)
    load <- load_average()
    ref <- elapsed(stats::glm.fit(x, y, family = fam))
    fg <- if (have_fastglm) elapsed(fastglm::fastglm(x, y, family = fam, method = 2L))
    t1 <- t2 <- c1 <- numeric(reps)
    for (r in seq_len(reps)) {
      one <- elapsed(irls_fit(x, y, family = fam, control = list(nthreads = 1L)))
      two <- elapsed(irls_fit(x, y, family = fam, control = list(nthreads = 2L)))
      t1[r] <- one$seconds
      c1[r] <- one$cpu
      t2[r] <- two$seconds
    }
    fit <- two$value
    stopifnot(identical(fit$coefficients, one$value$coefficients))
    ref_se <- sqrt(diag(summary.glm(ref$value)$cov.scaled))
    passes <- fit$iter + 1
    per_pass <- median(c1) / passes
    rows[[length(rows) + 1L]] <- data.frame(
      model = m, n = format(n, scientific = TRUE), p = p, load = load, iter = fit$iter,
      glm.fit_s = signif(ref$seconds, 3),
      fastglm_s = if (have_fastglm) signif(fg$seconds, 3) else NA_real_,
      irls_1thr_s = signif(median(t1), 3), irls_2thr_s = signif(median(t2), 3),
      two_vs_one = round(median(t1) / median(t2), 2),
      vs_glm.fit = round(ref$seconds / min(median(t1), median(t2)), 1),
      vs_fastglm = if (have_fastglm) round(fg$seconds / min(median(t1), median(t2)), 1) else NA_real_,
      pass_cpu_ms = signif(1e3 * per_pass, 3), blas_xtx_ms = signif(1e3 * syrk, 3),
      mem_ms = signif(1e3 * limit_mem, 2), flop_ms = signif(1e3 * limit_flop, 2),
      vs_limit = round(per_pass / max(limit_mem, limit_flop), 1),
      coef_rel = signif(max_rel(fit$coefficients, ref$value$coefficients), 2),
      se_rel = signif(max_rel(fit$se, ref_se), 2))
  }
  cat(sprintf("n = %g, p = %d: bandwidth %.1f GB/s, flop rate %.2f GFlop/s (measured now, CPU time)\n",
              n, p, machine$bandwidth / 1e9, machine$flops / 1e9))
}
res <- do.call(rbind, rows)
cat(paste0("\nIRLS benchmark. Seconds per fit (medians; glm.fit and fastglm (LLT) one run); ",
           "two_vs_one = 1-thread time / 2-thread time; vs_glm.fit, vs_fastglm = their time / ",
           "irls_fit's (the faster thread setting), elapsed; CPU times: pass_cpu_ms = irls_fit (1 thread) ",
           "per pass over X (iter + 1 passes); blas_xtx_ms = crossprod(X) by the linked BLAS (X'X alone); mem_ms = bytes of X / bandwidth; flop_ms = n p^2 / flop rate; ",
           "vs_limit = pass_cpu_ms / max(mem_ms, flop_ms); coef_rel, se_rel: largest relative ",
           "difference to glm.fit\n"))
print(res, row.names = FALSE)

# ---- 1 and 2 threads with a busy loop of another session ---------------------------
if (!identical(tolower(Sys.getenv("EPIMASK_BENCH_BUSY", "true")), "false") &&
    nzchar(Sys.which("setsid"))) {
  n <- 1e6
  p <- 10
  x <- simulate_design(n, p)
  y <- as.double(stats::rbinom(n, 1, stats::plogis(drop(x %*% c(-0.5, seq(-0.4, 0.4, length.out = 9))))))
  threads_table <- function(label, reps = 7L) {
    t1 <- t2 <- numeric(reps)
    for (r in seq_len(reps)) {
      t1[r] <- elapsed(irls_fit(x, y, binomial(), control = list(nthreads = 1L)))$seconds
      t2[r] <- elapsed(irls_fit(x, y, binomial(), control = list(nthreads = 2L)))$seconds
    }
    data.frame(condition = label, load = load_average(), irls_1thr_s = signif(median(t1), 3),
               irls_2thr_s = signif(median(t2), 3), two_vs_one = round(median(t1) / median(t2), 2))
  }
  before <- threads_table("as found")
  pid <- as.integer(system("setsid sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!",
                           intern = TRUE))
  Sys.sleep(2)
  busy <- tryCatch(threads_table("+ 1 busy loop (own session)"),
                   finally = tools::pskill(pid))
  cat("\nLogistic, n = 1e6, p = 10: 1 and 2 threads as found and with a busy loop started by",
      "this script in its own session (medians of 7 interleaved runs)\n")
  print(rbind(before, busy), row.names = FALSE)
}
cat(sprintf("uptime at end: %s\n", system("uptime", intern = TRUE)))
