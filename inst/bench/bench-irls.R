# IRLS benchmark: stats::glm.fit and fastglm's fastest method (LLT, a
# Cholesky of X'WX; if the fastglm package is installed) against
# epimask::irls_fit for logistic and Poisson regressions with p = 10 columns
# (intercept + 9 standard normal covariates), all in the same run so that the
# machine's load affects every side alike. Prints the time ratios (elapsed
# and CPU) and the largest relative coefficient and SE differences to glm.fit.
# Run with `Rscript inst/bench/bench-irls.R` after installing epimask; set
# EPIMASK_BENCH_N to choose the sizes (default 1e5,1e6).
# irls_fit runs with 1 thread and with 2 (control = list(nthreads = )), so
# the effect of threads on this machine, at its load, is in the same run.
library(epimask)
cpu_model <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                              value = TRUE)[[1]]), error = function(e) "unknown")
blas <- tryCatch(sessionInfo()$BLAS, error = function(e) "unknown")
cat(sprintf("Machine: %s, %d logical CPUs; R %s; BLAS %s\n", cpu_model,
            parallel::detectCores(), getRversion(), blas))
cat(sprintf("uptime at start: %s\n", system("uptime", intern = TRUE)))

sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_N", "1e5,1e6"), ",")[[1]])
p <- 10
reps_for <- function(n) if (n <= 1e4) 10L else if (n <= 1e5) 3L else 1L
have_fastglm <- requireNamespace("fastglm", quietly = TRUE)

simulate_design <- function(n, p) {
  x <- cbind(1, matrix(stats::rnorm(n * (p - 1)), n, p - 1))
  colnames(x) <- c("(Intercept)", paste0("x", seq_len(p - 1)))
  x
}

time_it <- function(expr, reps) {
  expr <- substitute(expr)
  env <- parent.frame()
  gc(FALSE)
  t <- system.time(for (i in seq_len(reps)) res <- eval(expr, env))
  list(seconds = t[["elapsed"]] / reps,
       cpu = (t[["user.self"]] + t[["sys.self"]]) / reps, value = res)
}

max_rel <- function(a, b) max(abs(a - b) / pmax(abs(b), 1e-300))
load_average <- function() {
  l <- tryCatch(readLines("/proc/loadavg", n = 1L), error = function(e) NA_character_)
  if (is.na(l)) NA_real_ else as.numeric(strsplit(l, " ")[[1]][1])
}

set.seed(2024)
beta <- c(-0.5, seq(-0.4, 0.4, length.out = p - 1))
rows <- list()
for (n in sizes) {
  x <- simulate_design(n, p)
  eta <- drop(x %*% beta)
  models <- list(
    logistic = list(y = as.double(stats::rbinom(n, 1, stats::plogis(eta))), family = stats::binomial()),
    poisson = list(y = as.double(stats::rpois(n, exp(eta / 2))), family = stats::poisson()))
  for (m in names(models)) {
    y <- models[[m]]$y
    fam <- models[[m]]$family
    reps <- reps_for(n)
    load <- load_average()
    ref <- time_it(stats::glm.fit(x, y, family = fam), reps)
    fg <- if (have_fastglm) time_it(fastglm::fastglm(x, y, family = fam, method = 2L), reps)
    one <- time_it(irls_fit(x, y, family = fam, control = list(nthreads = 1L)), max(reps, 3L))
    ours <- time_it(irls_fit(x, y, family = fam, control = list(nthreads = 2L)), max(reps, 3L))
    ref_se <- sqrt(diag(summary.glm(ref$value)$cov.scaled))
    rows[[length(rows) + 1L]] <- data.frame(
      model = m, n = format(n, scientific = TRUE), load = load,
      glm.fit_s = signif(ref$seconds, 3),
      fastglm_llt_s = if (have_fastglm) signif(fg$seconds, 3) else NA_real_,
      irls_1thr_s = signif(one$seconds, 3),
      irls_fit_s = signif(ours$seconds, 3),
      two_vs_one = round(one$seconds / ours$seconds, 2),
      iter = ours$value$iter,
      vs_glm.fit = round(ref$seconds / ours$seconds, 1),
      vs_glm.fit_cpu = round(ref$cpu / ours$cpu, 1),
      vs_fastglm = if (have_fastglm) round(fg$seconds / ours$seconds, 1) else NA_real_,
      vs_fastglm_cpu = if (have_fastglm) round(fg$cpu / ours$cpu, 1) else NA_real_,
      coef_rel_diff = signif(max_rel(ours$value$coefficients, ref$value$coefficients), 2),
      se_rel_diff = signif(max_rel(ours$value$se, ref_se), 2))
  }
}
res <- do.call(rbind, rows)
cat(sprintf(paste0("IRLS benchmark, p = %d: time of glm.fit and of fastglm (method = 2, LLT) over irls_fit ",
                   "(vs_*: elapsed, vs_*_cpu: CPU time); irls_fit_s with 2 threads, irls_1thr_s with 1, ",
                   "two_vs_one their ratio; load: 1-minute load average before each model\n"), p))
if (!have_fastglm) cat("fastglm is not installed: its columns are NA\n")
print(res, row.names = FALSE)
