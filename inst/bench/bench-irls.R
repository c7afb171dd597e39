# IRLS benchmark: time of stats::glm.fit over epimask::irls_fit for logistic
# and Poisson regressions with p = 10 columns (intercept + 9 covariates), and
# the largest relative coefficient difference. Run with `make bench` or
# `Rscript inst/bench/bench-irls.R`; set EPIMASK_BENCH_N to override the sizes
# (e.g. EPIMASK_BENCH_N=1e4,1e5).
library(epimask)

sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_N", "1e4,1e5,1e6"), ",")[[1]])
p <- 10
reps_for <- function(n) if (n <= 1e4) 10L else if (n <= 1e5) 3L else 1L

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

set.seed(2024)
beta <- c(-0.5, seq(-0.4, 0.4, length.out = p - 1))
rows <- list()
for (n in sizes) {
  x <- simulate_design(n, p)
  eta <- drop(x %*% beta)
  models <- list(
    logistic = list(y = stats::rbinom(n, 1, stats::plogis(eta)), family = stats::binomial()),
    poisson = list(y = stats::rpois(n, exp(eta / 2)), family = stats::poisson()))
  for (m in names(models)) {
    y <- models[[m]]$y
    fam <- models[[m]]$family
    reps <- reps_for(n)
    ref <- time_it(stats::glm.fit(x, y, family = fam), reps)
    ours <- time_it(irls_fit(x, y, family = fam), reps)
    rel_diff <- max(abs(ours$value$coefficients - ref$value$coefficients) /
                      pmax(abs(ref$value$coefficients), 1e-300))
    rows[[length(rows) + 1L]] <- data.frame(
      model = m, n = format(n, scientific = TRUE), p = p,
      glm.fit_s = signif(ref$seconds, 3), irls_fit_s = signif(ours$seconds, 3),
      ratio = round(ref$seconds / ours$seconds, 1),
      cpu_ratio = round(ref$cpu / ours$cpu, 1),
      max_rel_coef_diff = signif(rel_diff, 2),
      se_rel_diff = signif(max(abs(ours$value$se - sqrt(diag(summary.glm(ref$value)$cov.scaled))) /
                                 sqrt(diag(summary.glm(ref$value)$cov.scaled))), 2))
  }
}
res <- do.call(rbind, rows)
cat(sprintf("IRLS benchmark: glm.fit / irls_fit time (ratio: elapsed; cpu_ratio: CPU time) (option epimask.threads = %s)\n",
            format(getOption("epimask.threads", 0L))))
print(res, row.names = FALSE)
