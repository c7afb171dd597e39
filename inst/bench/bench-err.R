# Benchmark: the linear ERR model (fit_err, C Newton) against optim() on the
# explicit log-likelihood, n = 16000 (the size of the dose_cohort data).
# Prints the time ratio; run with `Rscript inst/bench/bench-err.R`.
library(epimask)

set.seed(2012)
n <- 16000
cohort <- data.frame(sex = rbinom(n, 1, 0.5), age = round(runif(n, 0, 50)),
                     dose = ifelse(runif(n) < 0.55, 0, pmin(rexp(n, 1.5), 3)))
odds <- exp(-5.3 + 0.4 * cohort$sex + 0.015 * cohort$age) * (1 + 0.5 * cohort$dose)
cohort$case <- rbinom(n, 1, odds / (1 + odds))
z <- model.matrix(~ sex + age, cohort)
d <- cohort$dose
y <- cohort$case

negll <- function(theta) {
  u <- 1 + theta[4] * d
  if (any(u <= 0)) return(Inf)
  eta <- drop(z %*% theta[1:3]) + log(u)
  -sum(y * eta - log1p(exp(eta)))
}
gradient <- function(theta) {
  u <- 1 + theta[4] * d
  pr <- plogis(drop(z %*% theta[1:3]) + log(u))
  -colSums(cbind(z, d / u) * (y - pr))
}
# the reference: the same start as fit_err (logistic fit, ERR 0), BFGS with
# the analytic gradient, then the Hessian for the standard errors
reference <- function() {
  start <- c(coef(glm.fit(z, y, family = binomial())), 0)
  opt <- optim(start, negll, gradient, method = "BFGS",
               control = list(reltol = 1e-12, maxit = 1000))
  list(par = opt$par, se = sqrt(diag(solve(optimHess(opt$par, negll, gradient)))))
}

time_it <- function(f, reps) {
  t <- system.time(for (i in seq_len(reps)) res <- f())[["elapsed"]]
  list(seconds = t / reps, result = res)
}
reps <- 10
t_core <- time_it(function() epimask:::err_fit_matrix(z, d, y), reps)
t_full <- time_it(function() fit_err(case ~ sex + age, cohort, dose = "dose"), reps)
t_optim <- time_it(reference, reps)

cat(sprintf("n = %d, %d cases\n", n, sum(y)))
cat(sprintf("err_fit_matrix (estimates + SE):       %8.4f s\n", t_core$seconds))
cat(sprintf("fit_err (+ LR test, profile interval): %8.4f s\n", t_full$seconds))
cat(sprintf("optim BFGS + optimHess:                %8.4f s\n", t_optim$seconds))
cat(sprintf("ratio optim / err_fit_matrix: %.1f\n", t_optim$seconds / t_core$seconds))
cat(sprintf("ratio optim / fit_err:        %.1f\n", t_optim$seconds / t_full$seconds))
cat(sprintf("max relative difference of estimates: %.2e, of SEs: %.2e\n",
            max(abs(t_core$result$coefficients / t_optim$result$par - 1)),
            max(abs(t_core$result$se / t_optim$result$se - 1))))
