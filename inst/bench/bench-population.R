# Population uniqueness (methods vignette section 21) checked against a known population, and
# the cost of each estimator at 1e6 records with 5 keys.
#
#   Rscript inst/bench/bench-population.R
#
# Part 1 (accuracy): a population of N = 100,000 people with 5 keys drawn
# from skewed (Zipf-like) marginals with an age x sex association is drawn
# once; its true number of population uniques is counted. Simple random
# samples at fractions 0.01-0.5 (R = 20 replicates each) are given to
# risk_population(); the table shows each model's mean relative bias
# (estimate / truth - 1), its spread (SD over replicates), and how often it
# converged. Part 2 (speed): each estimator on 1e6 records with 5 keys, and
# risk_loglinear() against sdcMicro's modRisk() in the same run when sdcMicro
# is installed.
library(epimask)
cat("machine:", Sys.info()[["nodename"]], R.version.string, "\n")
cat("load:", system("uptime", intern = TRUE), "\n")

draw_population <- function(N, seed) {
  set.seed(seed)
  zipf <- function(m, s) { p <- 1 / seq_len(m)^s; p / sum(p) }
  age <- sample.int(80, N, replace = TRUE, prob = zipf(80, 0.3))
  sex <- ifelse(runif(N) < plogis((age - 40) / 20), 1L, 2L)
  data.frame(age = age, sex = sex,
             region = sample.int(40, N, replace = TRUE, prob = zipf(40, 1.1)),
             job = sample.int(60, N, replace = TRUE, prob = zipf(60, 1.2)),
             origin = sample.int(30, N, replace = TRUE, prob = zipf(30, 1.5)))
}

keys <- c("age", "sex", "region", "job", "origin")
pop <- draw_population(1e5, 20261126)
Fk <- table(do.call(paste, c(pop[keys], sep = "\r")))
truth <- sum(Fk == 1)
cat(sprintf("population: N = %d, %d classes, %d population uniques (share %.4f)\n\n",
            nrow(pop), length(Fk), truth, truth / nrow(pop)))

fractions <- c(0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
R <- 20
rows <- list()
set.seed(1)
for (f in fractions) {
  est <- matrix(NA_real_, R, 4, dimnames = list(NULL, c("dankar", "pitman", "zayatz", "snb")))
  arx <- arx_snb <- numeric(R)
  for (r in seq_len(R)) {
    s <- pop[sample.int(nrow(pop), round(f * nrow(pop))), ]
    res <- suppressWarnings(risk_population(s, keys, pi = f))
    est[r, ] <- res$estimates$uniques[match(colnames(est), res$estimates$model)]
    ra <- suppressWarnings(risk_population(s, keys, pi = f, arx = TRUE))
    arx[r] <- ra$uniques
    arx_snb[r] <- ra$estimates$uniques[ra$estimates$model == "snb"]
  }
  for (m in colnames(est)) {
    e <- est[, m] / truth - 1
    rows[[length(rows) + 1L]] <- data.frame(fraction = f, model = m,
      converged = sum(is.finite(e)), bias = mean(e, na.rm = TRUE), sd = sd(e, na.rm = TRUE))
  }
  for (m in c("snb", "dankar")) {
    e <- (if (m == "snb") arx_snb else arx) / truth - 1
    rows[[length(rows) + 1L]] <- data.frame(fraction = f, model = sprintf("%s (arx = TRUE)", m),
      converged = sum(is.finite(e)), bias = if (any(is.finite(e))) mean(e, na.rm = TRUE) else NA,
      sd = if (sum(is.finite(e)) > 1) sd(e, na.rm = TRUE) else NA)
  }
}
tab <- do.call(rbind, rows)
tab$bias <- round(tab$bias, 3)
tab$sd <- round(tab$sd, 3)
cat("Relative bias (estimate / truth - 1) over", R, "samples per fraction:\n")
print(tab, row.names = FALSE)

# Part 2: speed at 1e6 records, 5 keys
cat("\nSpeed: 1e6 records, 5 keys\n")
set.seed(2)
n <- 1e6
zipf <- function(m, s) { p <- 1 / seq_len(m)^s; p / sum(p) }
big <- data.frame(a = sample.int(90, n, TRUE, zipf(90, 0.3)), b = sample.int(2, n, TRUE),
                  c = sample.int(50, n, TRUE, zipf(50, 1.1)), d = sample.int(20, n, TRUE, zipf(20, 1)),
                  e = sample.int(12, n, TRUE, zipf(12, 0.8)))
k5 <- names(big)
cat(sprintf("  %d classes, %d sample uniques\n", length(unique(do.call(paste, big))),
            sum(table(do.call(paste, big)) == 1)))
for (m in c("pitman", "zayatz", "snb", "dankar")) {
  tm <- system.time(res <- suppressWarnings(risk_population(big, k5, pi = 0.05, model = m, compare = FALSE)))
  cat(sprintf("  risk_population(model = \"%s\"): %.2f s elapsed, %.2f s CPU (share %.4g)\n", m,
              tm[["elapsed"]], tm[["user.self"]] + tm[["sys.self"]], res$share))
}
# the log-linear model needs a key table it can fit: 30 x 2 x 20 x 10 x 12 =
# 144,000 cells (main effects: 70 columns)
set.seed(3)
big <- data.frame(a = sample.int(30, n, TRUE, zipf(30, 0.3)), b = sample.int(2, n, TRUE),
                  c = sample.int(20, n, TRUE, zipf(20, 1.1)), d = sample.int(10, n, TRUE, zipf(10, 1)),
                  e = sample.int(12, n, TRUE, zipf(12, 0.8)))
w <- rep(20, n)
el <- function(tm) sprintf("%.2f s elapsed, %.2f s CPU", tm[["elapsed"]], tm[["user.self"]] + tm[["sys.self"]])
tm <- system.time(ll <- risk_loglinear(big, k5, weights = w))
cat(sprintf("  risk_loglinear(): %s (%d cells, tau1 %.4g, tau2 %.4g)\n", el(tm), ll$n_cells,
            ll$tau1, ll$tau2))
# sdcMicro takes p = the sum of 1 / w over a cell, above 1 in cells with more
# than 20 records here: v = (1 - p) mu < -709 overflows exp(-v) and its sum
# 0 * Inf gives NaN. bound = 19 leaves those cells out (on both sides).
tm2 <- system.time(ll2 <- risk_loglinear(big, k5, weights = w, scale = "sdcmicro", bound = 19))
cat(sprintf("  risk_loglinear(scale = \"sdcmicro\", bound = 19): %s\n", el(tm2)))
if (requireNamespace("sdcMicro", quietly = TRUE)) {
  # sdcMicro's glm() takes numeric key columns as covariates (one slope
  # each): keys must be factors for it to fit the log-linear model of the table
  big[k5] <- lapply(big[k5], factor)
  big$w <- w
  tm3 <- system.time(sm <- sdcMicro::modRisk(big, method = "default", weights = "w",
                                             formulaM = ~ a + b + c + d + e, bound = 19))
  cat(sprintf("  sdcMicro::modRisk(bound = 19): %s; elapsed ratio sdcMicro / epimask %.2f\n",
              el(tm3), tm3[["elapsed"]] / tm2[["elapsed"]]))
  cat(sprintf("    tau1 %.10g (sdcMicro) vs %.10g (epimask); tau2 %.10g vs %.10g\n",
              sm$gr1, ll2$tau1, sm$gr2, ll2$tau2))
  sm_all <- sdcMicro::modRisk(big, method = "default", weights = "w", formulaM = ~ a + b + c + d + e)
  cat(sprintf("    without bound sdcMicro gives tau1 %s, tau2 %s\n", format(sm_all$gr1), format(sm_all$gr2)))
} else {
  cat("  sdcMicro is not installed: no comparison\n")
}
tm <- system.time(ri <- risk_individual(big, k5, weights = w, cluster = (seq_len(n) - 1) %/% 4))
cat(sprintf("  risk_individual(cluster = families of 4): %s\n", el(tm)))
