# Cox benchmark: epimask::fit_cox against survival::coxph on simulated
# cohorts with p = 5 covariates, right censoring and tied times (follow-up in
# whole days), in the same run so the machine's load affects both alike.
# Prints the time ratios (elapsed and CPU) and the largest relative
# differences of the coefficients and variances. Then a risk-utility profile
# with a Cox utility on survival::flchain (the collaborator's model
# Surv(futime, death) ~ age + sex + kappa + lambda), printed, and plotted to
# a PNG (EPIMASK_BENCH_PNG, default cox-profile.png in the temporary
# directory).
# Run with `Rscript inst/bench/bench-cox.R` after installing epimask; set
# EPIMASK_BENCH_N to choose the sizes (default 1e5,1e6).
library(epimask)
if (!requireNamespace("survival", quietly = TRUE)) stop("needs the survival package")
Surv <- survival::Surv

cat("Machine:", R.version.string, "|", parallel::detectCores(), "cores |",
    "epimask threads", epimask_threads(), "\n")
cat("Load (uptime):", system("uptime", intern = TRUE), "\n\n")

sizes <- as.numeric(strsplit(Sys.getenv("EPIMASK_BENCH_N", "1e5,1e6"), ",")[[1]])
p <- 5

simulate_cohort <- function(n, p) {
  x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  beta <- seq(0.5, -0.3, length.out = p)
  event_time <- stats::rexp(n, 0.01 * exp(drop(x %*% beta)))
  censor_time <- stats::runif(n, 0, 150)
  d <- as.data.frame(x)
  d$time <- ceiling(pmin(event_time, censor_time))   # whole days: many ties
  d$status <- as.integer(event_time <= censor_time)
  d
}

time_it <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  gc(FALSE)
  value <- NULL
  t <- system.time(value <- eval(expr, env))
  list(seconds = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]], value = value)
}

max_rel <- function(a, b) max(abs(a - b) / abs(b))

set.seed(20261126)
f <- Surv(time, status) ~ x1 + x2 + x3 + x4 + x5
rows <- list()
for (n in sizes) {
  d <- simulate_cohort(n, p)
  ours <- time_it(fit_cox(f, d))
  ref <- time_it(survival::coxph(f, d))
  rows[[length(rows) + 1L]] <- data.frame(
    n = n, events = sum(d$status), distinct_times = length(unique(d$time)),
    epimask_s = ours$seconds, coxph_s = ref$seconds,
    ratio_elapsed = ref$seconds / ours$seconds, ratio_cpu = ref$cpu / ours$cpu,
    coef_rel = max_rel(coef(ours$value), coef(ref$value)),
    var_rel = max_rel(vcov(ours$value), unname(vcov(ref$value))),
    iter = ours$value$iter)
}
res <- do.call(rbind, rows)
cat("fit_cox (Efron ties) against survival::coxph, p = 5\n")
print(format(res, digits = 3), row.names = FALSE)
cat("Load after:", system("uptime", intern = TRUE), "\n\n")

# ---- a profile with a Cox utility on flchain --------------------------------------
fl <- survival::flchain
fl <- fl[stats::complete.cases(fl[c("futime", "death", "age", "sex", "kappa", "lambda")]),
         c("futime", "death", "age", "sex", "kappa", "lambda")]
cat(sprintf("flchain: %d complete records, %d deaths\n", nrow(fl), sum(fl$death)))
schemes <- c(
  # age is in whole years: 0 decimals rounds the light chains only
  mask_sweep(mask_round, digits = c(1, 0, -1), type = "decimal"),
  mask_sweep(mask_noise, amount = c(0.1, 0.3, 1), dist = "normal"),
  mask_microagg(5))
t_prof <- system.time(
  ru <- ru_profile(fl, schemes, Surv(futime, death) ~ age + sex + kappa + lambda,
                   family = "cox", term = "age", vars = c("age", "kappa", "lambda"),
                   risk = "match", known = c("age", "kappa", "lambda"), nrep = 20,
                   risk_nrep = 3, seed = 1, progress = FALSE))
cat(sprintf("profile: %d schemes, 20 replicates of the noise schemes, %.1f s\n",
            nrow(ru), t_prof[["elapsed"]]))
print(ru)
print(summary(ru))
png_file <- Sys.getenv("EPIMASK_BENCH_PNG", file.path(tempdir(), "cox-profile.png"))
grDevices::png(png_file, width = 900, height = 650, res = 110)
plot(ru)
grDevices::dev.off()
cat("plot written to", png_file, "\n")
